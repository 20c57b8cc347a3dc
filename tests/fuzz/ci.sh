#!/bin/sh
# CI's fuzzing step, in TAP for tests/run.sh: the kept corpus and every
# regression input once, then a bounded run (FUZZ_SECONDS, default 60).
cd "$(dirname "$0")/../.."
n=0
if make --no-print-directory -s fuzz-build >/tmp/ct-fuzz-build.log 2>&1; then :; else
	echo "ok 1 - fuzzing # SKIP no libFuzzer runtime: $(tail -n 1 /tmp/ct-fuzz-build.log)"
	echo "1..1"
	exit 0
fi
n=$((n + 1))
if out=$(make --no-print-directory -s fuzz-regress 2>&1); then
	echo "ok $n - corpus and regression inputs: $(echo "$out" | tail -n 1)"
else
	echo "not ok $n - corpus and regression inputs"; echo "$out" | tail -n 20 | sed 's/^/#   /'
fi
n=$((n + 1))
if out=$(make --no-print-directory -s fuzz-fatbin-regress 2>&1); then
	echo "ok $n - fatbin, cubin and bare-cubin readers on their seeds and regression inputs: $(echo "$out" | tail -n 1)"
else
	echo "not ok $n - fatbin readers on their seeds"; echo "$out" | tail -n 20 | sed 's/^/#   /'
fi
n=$((n + 1))
if out=$(make --no-print-directory -s fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-60}" 2>&1); then
	echo "ok $n - fuzzed ${FUZZ_SECONDS:-60} s: $(echo "$out" | grep -E 'DONE' | tail -n 1)"
else
	echo "not ok $n - fuzzing found a failing input (kept in tests/fuzz/regress/)"
	echo "$out" | tail -n 30 | sed 's/^/#   /'
fi
echo "1..$n"
