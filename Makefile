# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# iwtcp: out-of-tree build against Debian's Linux 6.12 headers (or 6.1:
# KVER=), and the project's checks. `make help` lists the targets.

KVER ?= $(shell tools/kver)
KDIR ?= /lib/modules/$(KVER)/build
MOD := drivers/infiniband/sw/iwtcp
KBUILD = $(MAKE) -C $(KDIR) M=$(CURDIR)/$(MOD) CONFIG_RDMA_IWTCP=m

all: module

help:
	@echo "make            build $(MOD)/iwtcp.ko (W=1) for the newest 6.12 headers"
	@echo "make demo       install what is missing, build, boot a guest, run the main job"
	@echo "make check      install what is missing, build, run every test"
	@echo "make check-debug  every guest test on a KASAN/lockdep/kmemleak kernel (hours)"
	@echo "make deps       install the Debian packages any target needs"
	@echo "make sparse     build with sparse (C=2)"
	@echo "make checkpatch checkpatch.pl --strict on every source file"
	@echo "make bench      iwtcp against siw and TCP in guests (BENCH_REPS, BENCH_QUICK)"
	@echo "make profile    where the guest's CPU goes: iwtcp beside TCP, perf by symbol"
	@echo "make unit       host unit tests of the protocol code"
	@echo "make selftests  build the guest test programs"
	@echo "make install    install iwtcp.ko for the running kernel (and keep siw away)"
	@echo "make uninstall  remove what make install installed"
	@echo "make deb        build .cache/deb/iwtcp-dkms_VERSION_all.deb (DKMS package)"
	@echo "make clean      remove build output"
	@echo "KDIR=... or KVER=... select another kernel tree (KVER=\$$(tools/kver 6.1))"

module:
	@test -e "$(KDIR)/Makefile" || { echo "no kernel headers at '$(KDIR)':" \
		"install linux-headers-$(or $(KVER),6.12-amd64) ('make deps' installs 6.12 and 6.1)"; exit 1; }
	$(KBUILD) W=1 modules

sparse:
	$(KBUILD) W=1 C=2 modules

checkpatch:
	tools/checkpatch

unit:
	$(MAKE) -C tests/unit check

selftests:
	$(MAKE) -C selftests KDIR=$(KDIR)

deps:
	tools/deps

check:
	tools/check

check-debug:
	tools/check-debug

deb:
	tools/deb

demo:
	tools/demo

bench:
	tools/bench

profile:
	tools/profile

# `make install` builds for and installs into the running kernel (or
# KVER=); DESTDIR= installs into a staging root instead, for packagers.
install: KVER := $(shell uname -r)
install: module
	$(KBUILD) INSTALL_MOD_DIR=updates INSTALL_MOD_PATH=$(DESTDIR) \
		modules_install
	depmod -a -b $(or $(DESTDIR),/) $(KVER)
	install -D -m 0644 tools/modprobe-iwtcp.conf \
		$(DESTDIR)/etc/modprobe.d/iwtcp.conf
	install -D -m 0644 tools/systemd/iwtcp@.service \
		$(DESTDIR)/usr/local/lib/systemd/system/iwtcp@.service

uninstall: KVER := $(shell uname -r)
uninstall:
	rm -f $(wildcard $(DESTDIR)/lib/modules/$(KVER)/updates/iwtcp.ko*) \
		$(DESTDIR)/etc/modprobe.d/iwtcp.conf \
		$(DESTDIR)/usr/local/lib/systemd/system/iwtcp@.service
	depmod -a -b $(or $(DESTDIR),/) $(KVER)

clean:
	-$(KBUILD) clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C selftests clean

.PHONY: all help module sparse checkpatch unit selftests deps check check-debug \
	deb demo bench profile install uninstall clean
