#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: installs what is missing (Debian 12, as root, as tests/deps.sh
# does), builds cudatrace and the bench helpers, then runs bench/bench.py,
# which prints one table.  Knobs: see bench/bench.py (BENCH_N, BENCH_REPS,
# BENCH_RATE_SECS, BENCH_RATES, BENCH_BIG, BENCH_TMP, BENCH_QUICK=1).
set -eu
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "bench: live BPF capture needs root: sudo make bench" >&2
	exit 1
fi

tests/deps.sh
PKGS="bpftrace strace"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "  DEPS     installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

make --no-print-directory all
mkdir -p build/bench
CC=${CC:-cc}
build() {   # build OUT SRC FLAGS...: only when SRC is newer
	out=$1 src=$2
	shift 2
	if [ ! -e "$out" ] || [ "$src" -nt "$out" ]; then
		printf '  %-8s %s\n' CC "$out"
		"$CC" -O2 -g -Wall -Wextra "$src" "$@" -o "$out"
	fi
}
build build/bench/ioctl_mix bench/ioctl_mix.c
build build/bench/preload_logger.so bench/preload_logger.c -shared -fPIC -ldl -pthread
build build/bench/rusage_run bench/rusage_run.c
build build/bench/stamp bench/stamp.c
build build/bench/syscall_blocks bench/syscall_blocks.c
build build/bench/floor bench/floor.c -lbpf
build build/bench/costs bench/costs.c -lbpf
for b in floor costs; do
	if [ ! -e build/bench/$b.bpf.o ] || [ bench/$b.bpf.c -nt build/bench/$b.bpf.o ]; then
		printf '  %-8s %s\n' BPF build/bench/$b.bpf.o
		${CLANG:-clang} -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ibpf \
			-c bench/$b.bpf.c -o build/bench/$b.bpf.o
	fi
done

python3 bench/bench.py
# Python frames: their cost per call at two stack depths, paced at 20,000
# calls/s, where the capture keeps up (an unpaced -k loop outruns its
# unwinding: then wakeups or lost records, not the cost, are measured),
# and the loss check at that rate (Debian's python3, on a stand-in device).
standin=$(mktemp /tmp/ct-bench-py-XXXXXX)
trap 'rm -f "$standin"' EXIT   # also on an error or Ctrl-C
trap 'exit 130' INT TERM
# The loop on CPU 1 and cudatrace on CPU 0 where there are two: a loop
# that moves between CPUs spreads one mode's figures between reps.
pin=$([ "$(nproc)" -ge 2 ] && echo --pin 1,0)
python3 bench/py_costs.py --ct ./cudatrace --python /usr/bin/python3 --device "$standin" \
	--calls "${BENCH_N:-20000}" --reps "${BENCH_REPS:-3}" --pace 20000 $pin
