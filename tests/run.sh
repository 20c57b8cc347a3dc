#!/bin/sh
# Runs every test and prints one closing line: N passed, N failed, N skipped.
# Each test program or script speaks TAP ("ok N - what", "not ok N - what",
# "ok N - what # SKIP why"); a program that exits non-zero without saying
# "not ok" counts as one failure.  Run from the repository root.
set -u

B=${OUTPUT:-build}
pass=0; fail=0; skip=0
failed_list=""
failed_lines=""

# What a failed program said of its failure: its "not ok" lines with the
# few lines after each (the diagnostics), else its last lines.  Repeated
# just before the closing line, where a log's tail shows it.
why_failed() {
	if printf '%s\n' "$3" | grep -q '^not ok'; then
		printf '%s\n' "$3" | grep -A8 '^not ok' | grep -v '^--$' | head -60
	else
		printf 'exit %s, no "not ok"; its last lines:\n' "$2"
		printf '%s\n' "$3" | tail -15
	fi | sed "s|^|  [$1] |"
}

run_one() {
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	p=$(printf '%s\n' "$out" | grep -c '^ok .*' || true)
	s=$(printf '%s\n' "$out" | grep -c '^ok .*# SKIP' || true)
	f=$(printf '%s\n' "$out" | grep -c '^not ok' || true)
	p=$((p - s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	if [ "$f" != 0 ] || [ "${VERBOSE:-0}" = 1 ]; then
		printf '%s\n' "$out" | sed "s|^|  [$name] |"
	else
		printf '%s\n' "$out" | grep '# SKIP' | sed "s|^|  [$name] |" || true
	fi
	if [ "$f" != 0 ]; then
		failed_list="$failed_list $name"
		failed_lines="$failed_lines$(why_failed "$name" "$rc" "$out")
"
	fi
	printf '%-28s %3d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$s"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

for t in "$B"/tests/unit/test_*; do
	[ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
for t in "$B"/tests/asan/test_*; do
	[ -x "$t" ] && run_one "asan/$(basename "$t")" "$t"
done
for t in tests/golden/*.py tests/live/*.py tests/hostile/*.py tests/install/*.py tests/views/*.py tests/compat/*.py \
	 tests/docs/*.py tests/source/*.py; do
	[ -f "$t" ] && run_one "${t#tests/}" python3 "$t"
done

# The golden decode again, by the decoder built with ASan and UBSan.
if [ -x "$B/asan/cudatrace-r" ]; then
	run_one "asan/golden/decode.py" env CUDATRACE_BIN="$B/asan/cudatrace-r" \
		python3 tests/golden/decode.py
fi
for t in tests/fuzz/ci.sh; do
	[ -f "$t" ] && run_one "fuzz/ci.sh" sh "$t"
done

if [ -n "$failed_list" ]; then
	printf '\nwhat failed:\n%s' "$failed_lines"
	echo "failed:$failed_list"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
