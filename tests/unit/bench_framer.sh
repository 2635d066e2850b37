#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Instructions per FPDU of the data path's pure code (bench_framer.c),
# counted by callgrind: counts do not depend on the machine's load or
# speed, so two trees built by one compiler and C library compare exactly.
#	tests/unit/bench_framer.sh BINARY
set -euo pipefail
bin=${1:?usage: bench_framer.sh BINARY}
command -v valgrind >/dev/null || { echo "bench_framer: valgrind is needed (make deps)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count PHASE MARKERS FUNCTION: inclusive instructions of FUNCTION
count() {
	valgrind -q --tool=callgrind --callgrind-out-file="$tmp/cg" \
		"$bin" "$1" "$2" >"$tmp/out"
	callgrind_annotate --inclusive=yes "$tmp/cg" >"$tmp/ann"
	awk -v f="$3" '$0 ~ ":" f " \\[" { gsub(/,/, "", $1); n = $1 }
		END { if (n == "") exit 1; print n }' "$tmp/ann" ||
		{ echo "bench_framer: no count for $3 in $1" >&2; exit 1; }
}

# CRC calls per FPDU with the CRC on (each has a fixed cost in the kernel;
# the shim's CRC instructions mean nothing): no valgrind needed
calls() {
	local fpdus calls

	read -r _ fpdus _ _ _ calls < <("$bin" "$1" "$2" crc)
	awk -v c="$calls" -v f="$fpdus" 'BEGIN {printf "%.2f", c / f}'
}

printf "%-8s %-10s %11s %9s %10s\n" markers phase instr/FPDU FPDUs crc/FPDU
for m in off markers; do
	for p in tx rx rx-nopeek; do
		n=$(count "$p" "$m" "${p%-nopeek}_msg")
		read -r _ fpdus _ <"$tmp/out"
		# tx counts the payload's copy into the batch (TCP took it before)
		awk -v m="$m" -v p="$p" -v n="$n" -v f="$fpdus" -v c="$(calls "$p" "$m")" \
			'BEGIN {printf "%-8s %-10s %11.0f %9d %10s\n", m, p, n / f, f, c}'
	done
done
