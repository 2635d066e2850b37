# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Results for tools/check and tools/check-debug: every result is a TAP line
# on stdout and in $summary; finish_results prints the failures again and
# the last line, "N passed, N failed" (", N skipped" when some were), and
# returns non-zero when anything failed. The caller sets $repo, $out and
# $summary before sourcing this file.
# shellcheck disable=SC2154 # $out and $summary are the caller's

passed=0
failed=0
skipped=0

result() {	# result ok|fail|skip NAME
	local line

	case $1 in
	ok) passed=$((passed + 1)); line="ok - $2" ;;
	fail) failed=$((failed + 1)); line="not ok - $2" ;;
	skip) skipped=$((skipped + 1)); line="ok - $2 # SKIP" ;;
	esac
	echo "$line"
	echo "$line" >>"$summary"
}

# step NAME COMMAND...: one result from a command's exit status.
step() {
	local name=$1 log

	shift
	log=$out/$(tr -c 'a-zA-Z0-9\n' _ <<<"$name").log
	if "$@" >"$log" 2>&1; then
		result ok "$name"
	else
		result fail "$name (log: $log)"
		tail -n 20 "$log" | sed 's/^/#   /'
	fi
}

# Count the TAP lines of a test program's output as results of their own.
# A "# suite NAME" line names the results after it PREFIX/NAME; "#| "
# lines, what a failed case wrote last (selftests/lib.sh), are shown.
count_tap() {	# count_tap PREFIX FILE
	local line name=$1

	while IFS= read -r line; do
		case $line in
		"# suite "*) name="$1/${line#\# suite }" ;;
		"not ok "*) result fail "$name: ${line#not ok }" ;;
		"ok "*"# SKIP"*) result skip "$name: ${line#ok }" ;;
		"ok "*) result ok "$name: ${line#ok }" ;;
		"#| "*) echo "#   ${line#\#| }" | tee -a "$summary" ;;
		esac
	done < <(grep -E '^((not )?ok |# suite |#\| )' "$2")
}

kernel_hits() {	# kernel_hits DIR: what vm/run found in DIR's kernel log
	[[ -s $1/kernel-log-hits ]] &&
		sed 's/^/#   kernel: /' "$1/kernel-log-hits" | tee -a "$summary"
}

no_warnings() {	# the command passes and prints no compiler/sparse finding
	local out rc

	out=$("$@" 2>&1)
	rc=$?
	echo "$out"
	grep -E 'warning:|error:|sparse:' <<<"$out" && return 1
	return "$rc"
}

# guest_boot DIR VM-RUN-ARG... -- COMMAND...: one guest boot into DIR,
# its exit status kept in DIR/vm-run.status for guest_results. Two boots
# may run at once: a TCG guest takes one host thread of the two.
guest_boot() {
	local dir=$1

	shift
	mkdir -p "$dir"
	tools/vm/run --out "$dir" "$@"
	echo $? >"$dir/vm-run.status"
}

# guest_results LABEL DIR: the boot's exit status and kernel log as one
# result, each TAP file in DIR counted. A LABEL names the boot and
# prefixes its suites: "6.1" gives "6.1 guest run ..." and "6.1/link: ...".
guest_results() {
	local label=$1 dir=$2 rc tap

	rc=$(cat "$dir/vm-run.status" 2>/dev/null || echo none)
	case $rc in
	0) result ok "${label:+$label }guest run ends cleanly, kernel log clean" ;;
	125)
		result fail "${label:+$label }guest kernel log clean (see $dir/console.log)"
		kernel_hits "$dir"
		;;
	*) result fail "${label:+$label }guest run exited $rc (see $dir/console.log)" ;;
	esac
	for tap in "$dir"/*.tap; do
		[[ -e $tap ]] && count_tap "${label:+$label/}$(basename "$tap" .tap)" "$tap"
	done
}

# guest_run LABEL DIR VM-RUN-ARG... -- COMMAND...: guest_boot, then its
# results.
guest_run() {
	local label=$1 dir=$2

	shift 2
	guest_boot "$dir" "$@"
	guest_results "$label" "$dir"
}

# finish_results: the closing lines. A CI log may show only its last
# lines: the failures once more, each with the lines that say why.
finish_results() {
	echo "# output: $out"
	if ((failed)); then
		echo "# failed, again:"
		awk '/^not ok /{p = 1; n = 0; print; next} /^ok /{p = 0}
			p && /^#/ && n++ < 16' "$summary" | tail -n 80
	fi
	if ((skipped)); then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	((failed == 0))
}
