#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iwtcp-dkms in a guest, as a Debian 12 user meets it: the package (make
# deb) installed with dpkg builds iwtcp for the installed kernel with
# headers (6.12; 6.1's headers package is taken away first, so that a
# module build under TCG, minutes each, happens twice and not three
# times), the module it built loads and serves a link, installing kernel
# headers packages afterwards leaves dpkg configured (Debian's 6.1 headers
# get their module, so both supported kernels have one; a kernel iwtcp
# cannot build for, and one whose build fails, are passed over), and
# removing the package removes every module it built. dpkg runs on the guest's
# throw-away overlay of the host's root: the host is never touched.
#
#	IWTCP_DEB=iwtcp-dkms_*.deb IWTCP_HEADERS_DEB=linux-headers-6.1*.deb \
#	selftests/dkms.sh
#
# The headers package is Debian's own (tools/check downloads it with
# apt-get download); the two that iwtcp cannot build for are made here
# with dpkg-deb, their postinst that of Debian 12's 6.1 headers package.

# shellcheck disable=SC2317 # the cases are called through ktap_run
set -euo pipefail

IWTCP_LINK=0
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

require_cmd dpkg dpkg-deb dkms rdma modprobe
deb=${IWTCP_DEB:-}
hdeb=${IWTCP_HEADERS_DEB:-}
[[ -f $deb && -f $hdeb ]] || ktap_skip_all "IWTCP_DEB and IWTCP_HEADERS_DEB must name .deb files"

# IWTCP_DKMS_CCACHE: a ccache folder that tools/dkms-ccache filled with
# the objects of the very builds DKMS runs here; Debian's headers then
# compile through ccache. Every DKMS and dpkg step still runs; it only
# spares the guest the compilations the host already did (under TCG
# each is about fifty times slower).
if [[ -n ${IWTCP_DKMS_CCACHE:-} ]]; then
	export DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR=$IWTCP_DKMS_CCACHE LC_ALL=C
	unset LANG LC_CTYPE LC_MESSAGES
fi
ver=$(dpkg-deb -f "$deb" Version)
k612=$(uname -r)
k61=$(dpkg-deb -f "$hdeb" Package)
k61=${k61#linux-headers-}
work=$(mktemp -d)
fake_bad=5.10.0-99-iwtcp-fake
fake_broken=6.12.999-iwtcp-fake

ko() {	# ko KVER: the module DKMS installed for KVER (6.12's is .ko.xz)
	local f

	for f in "/lib/modules/$1/updates/dkms/iwtcp.ko"*; do
		[[ -e $f ]] && { echo "$f"; return; }
	done
	echo "/lib/modules/$1/updates/dkms/iwtcp.ko"
}

dpkg_configured() {
	local audit

	audit=$(dpkg --audit 2>&1)
	[[ -z $audit ]] || { echo "$audit" >&2; return 1; }
}

# has_module KVER: DKMS installed iwtcp for KVER, built for KVER.
has_module() {
	[[ -f $(ko "$1") ]] || { echo "# no $(ko "$1")" >&2; return 1; }
	modinfo -F vermagic "$(ko "$1")" | grep -q "^$1 "
}

install_package() {
	dpkg -r --force-depends "linux-headers-$k61" >&2
	[[ ! -e /lib/modules/$k61/build/include ]]
	dpkg -i "$deb" >&2
	dpkg_configured
	dkms status -m iwtcp -v "$ver" >&2
	has_module "$k612"
	[[ ! -e $(ko "$k61") ]]
}

built_module_serves_a_link() {
	local ns=iwtcp-dkms-$$

	modinfo -n iwtcp | grep -qx "$(ko "$k612")"
	ip netns add "$ns"
	ip -n "$ns" link add veth_d type veth peer name veth_e
	ip -n "$ns" link set veth_d up
	ip -n "$ns" link set veth_e up
	ip netns exec "$ns" rdma link add iwtcp_d type iwtcp netdev veth_d
	ip netns exec "$ns" rdma link show | grep -q 'iwtcp_d/1'
	ip netns exec "$ns" rdma link delete iwtcp_d
	ip netns del "$ns"
	modprobe -r iwtcp
}

# Debian's own 6.1 headers package: its hooks build iwtcp for 6.1.
headers_install_builds() {
	dpkg -i "$hdeb" >&2
	dpkg_configured
	has_module "$k61"
	has_module "$k612"
}

# fake_headers KVER CONFIG MAKEFILE: a headers package for KVER, with
# CONFIG as its .config and MAKEFILE as its top Makefile.
fake_headers() {
	local kver=$1 root=$work/linux-headers-$1

	rm -rf "$root"
	mkdir -p "$root/DEBIAN" "$root/usr/src/linux-headers-$kver/include" \
		"$root/lib/modules/$kver"
	printf '%s\n' "$2" >"$root/usr/src/linux-headers-$kver/.config"
	printf '%s\n' "$3" >"$root/usr/src/linux-headers-$kver/Makefile"
	ln -s "/usr/src/linux-headers-$kver" "$root/lib/modules/$kver/build"
	cat >"$root/DEBIAN/control" <<-EOF
	Package: linux-headers-$kver
	Version: 1
	Architecture: all
	Maintainer: iwtcp selftest <selftest@example.org>
	Description: headers of a kernel iwtcp does not build for
	EOF
	# What Debian 12's linux-headers-6.1.0-*-amd64 postinst does.
	cat >"$root/DEBIAN/postinst" <<-EOF
	#!/bin/sh
	run-parts --report --exit-on-error --arg=$kver /etc/kernel/header_postinst.d
	EOF
	chmod 0755 "$root/DEBIAN/postinst"
	dpkg-deb --build "$root" "$work/linux-headers-$kver.deb" >&2
}

# A kernel outside 6.1/6.12 and without the RDMA core: skipped.
unsupported_kernel_passed_over() {
	fake_headers "$fake_bad" "CONFIG_INET=y" "all:"
	dpkg -i "$work/linux-headers-$fake_bad.deb" >&2
	dpkg_configured
	! dkms status -m iwtcp -k "$fake_bad" | grep -q installed
}

# The same headers package fails dpkg when dkms's own autoinstall handles
# iwtcp, as the dkms.conf before this package did (AUTOINSTALL="yes"; an
# /etc/dkms/iwtcp.conf override is not read by autoinstall's check):
# what dkms.conf avoids.
autoinstall_would_break_dpkg() {
	local rc=0 conf=/usr/src/iwtcp-$ver/dkms.conf

	dpkg -r "linux-headers-$fake_bad" >&2
	cp "$conf" "$work/dkms.conf"
	sed -i 's/^AUTOINSTALL=""$/AUTOINSTALL="yes"/' "$conf"
	grep -qx 'AUTOINSTALL="yes"' "$conf"
	dpkg -i "$work/linux-headers-$fake_bad.deb" >&2 || rc=$?
	cp "$work/dkms.conf" "$conf"
	dpkg --configure -a >&2 || true
	dpkg -r "linux-headers-$fake_bad" >&2 || dpkg --remove --force-all "linux-headers-$fake_bad" >&2
	dpkg_configured
	((rc != 0))
}

# A 6.12-looking kernel whose build fails: a warning, dpkg configured.
failed_build_passed_over() {
	local out

	fake_headers "$fake_broken" \
		"$(printf 'CONFIG_INET=y\nCONFIG_INFINIBAND=m\nCONFIG_INFINIBAND_VIRT_DMA=y')" \
		"$(printf 'all:\n\t@echo broken kernel tree; exit 1\n%%:\n\t@exit 1')"
	out=$(dpkg -i "$work/linux-headers-$fake_broken.deb" 2>&1)
	echo "$out" >&2
	dpkg_configured
	grep -q "iwtcp: WARNING: DKMS could not build iwtcp for $fake_broken" <<<"$out"
	[[ ! -e $(ko "$fake_broken") ]]
	[[ -f $(ko "$k612") && -f $(ko "$k61") ]]
}

# The package's postinst again, as dpkg runs it (no rebuild of what is
# installed), with that kernel present: its build for every installed
# kernel fails for one, and the postinst still succeeds (dh_dkms's fails,
# had the running kernel been that one).
package_reconfigure_configured() {
	local out

	out=$(/var/lib/dpkg/info/iwtcp-dkms.postinst configure 2>&1)
	echo "$out" >&2
	dpkg_configured
	grep -q "iwtcp: WARNING: DKMS could not build iwtcp for $fake_broken" <<<"$out"
	has_module "$k612"
	has_module "$k61"
}

remove_package() {
	dpkg -r iwtcp-dkms >&2
	dpkg_configured
	for k in "$k612" "$k61"; do
		[[ ! -e $(ko "$k") ]] || { echo "# $(ko "$k") left" >&2; return 1; }
	done
	[[ -z $(dkms status -m iwtcp) ]]
	[[ ! -e /usr/src/iwtcp-$ver ]]
}

ktap_plan 8
ktap_run "dpkg -i iwtcp-dkms builds iwtcp for $k612, the kernel with headers" install_package
ktap_run "the module DKMS built loads and serves an rdma link" built_module_serves_a_link
ktap_run "dpkg -i of Debian's $k61 headers builds iwtcp, dpkg configured" headers_install_builds
ktap_run "headers of a kernel iwtcp cannot build for: skipped, dpkg configured" unsupported_kernel_passed_over
ktap_run "the same with dkms autoinstall handling iwtcp fails dpkg (control)" autoinstall_would_break_dpkg
ktap_run "headers whose iwtcp build fails: a warning, dpkg configured" failed_build_passed_over
ktap_run "the package's postinst again: a failed build, dpkg configured" package_reconfigure_configured
ktap_run "dpkg -r iwtcp-dkms removes every module it built" remove_package
rm -rf "$work"
if [[ -n ${IWTCP_DKMS_CCACHE:-} ]]; then
	echo "# ccache (the host's fill and this run):"
	ccache -s | sed -n 's/^ */# /; /Hits\|Misses\|Direct/p'
fi
ktap_finish
