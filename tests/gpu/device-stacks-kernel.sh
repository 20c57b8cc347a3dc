#!/bin/bash
# -k walked in the kernel (issue 31) on the GPU machine (device tool), from
# the repository root, with the static build in .devcarry/cudatrace-static
# (CT=... to use another).  Prints PASS/FAIL lines with their figures:
#  1. BPF time of -k over plain tracing at PyTorch's depth (bench/py_costs.py
#     --torch, paced at 20,000 calls/s), the kernel's walk against the copy
#     (the same build with CT_STACK_COPY=1; COMPARE=CUDATRACE for another
#     build), in turn: target <= +1,500 ns; MODES=py-stack,k adds --py-stack;
#  2. the unpaced PyTorch loop (torch.cuda.mem_get_info), -k, 5 runs: 0 lost
#     each, and the bytes a stack record (target <= 2,048);
#  3. JAX with -k: stacks complete (end, end_fp, or a thread the driver
#     started) >= 99%, capture CPU a stack <= 50 us (the first run, which
#     reads every symbol table and caches its index, and the next, which
#     maps them back), and the kernel's walks as the copy's unwinding and
#     the names as libdw's (CT_UNWIND_CHECK, third run: 0 differences; the
#     walks are checked on a PyTorch loop, where the kernel walks them all).
# PARTS=13 (say) runs only those parts.  Everything it writes goes to $OUT.
set -u
CT=${CT:-$(pwd)/.devcarry/cudatrace-static}
O=${OUT:-/tmp/out}
W=/tmp/skw
REPS=${REPS:-3}
N=${N:-20000}
PARTS=${PARTS:-123}
want() { case "$PARTS" in *"$1"*) return 0 ;; esac; return 1; }
mkdir -p "$W" "$O"
# -k's symbol indexes kept across runs: a folder of this run's, empty.
export CUDATRACE_SYMBOL_CACHE=$W/symcache
rm -rf "$CUDATRACE_SYMBOL_CACHE"
{
	date -u; uname -r; cat /proc/driver/nvidia/version; nvidia-smi -L
	python3 -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1
	python3 -c 'import jax; print("jax", jax.__version__)' 2>&1 | tail -1
} > "$O/env.txt" 2>&1
cat "$O/env.txt"
# The copy, as before the kernel's walk: the same build, CT_STACK_COPY=1.
printf '#!/bin/sh\nCT_STACK_COPY=1 exec %s "$@"\n' "$CT" > "$W/ct-copy"
chmod +x "$W/ct-copy"

bpf_delta() {   # py_costs.py's summary line -> its BPF ns over plain tracing (+N)
	sed -nE 's/.*bpf +[0-9]+ ns\/call \( *([-+0-9]+);.*/\1/p'
}

verdict() {   # verdict OK TEXT
	if [ "$1" = 1 ]; then echo "PASS $2"; else echo "FAIL $2"; fi
}

# 1. Cost at PyTorch's depth, paced: walk vs copy, in turn.
if want 1; then
python3 bench/py_costs.py --ct "$CT" --compare "${COMPARE:-$W/ct-copy}" --python python3 --torch \
	--calls "$N" --reps "$REPS" --depths 0,30d --modes "${MODES:-k}" --pace 20000 --rate 0 \
	${PIN:+--pin "$PIN"} | tee "$O/cost.txt" | grep -v '^py-cost rep'
for d in 0 30d; do
	k=$(grep -E "depth +$d k " "$O/cost.txt" | bpf_delta)
	c=$(grep -E "depth +$d k-other " "$O/cost.txt" | bpf_delta)
	verdict "$([ -n "$k" ] && [ "${k#+}" -le 1500 ] && echo 1)" \
		"-k BPF over plain tracing, PyTorch depth $d: $k ns (${COMPARE:-the copy}: $c ns), target <= +1500"
done
fi

# 2. Unpaced PyTorch loop, 5 runs.
if want 2; then
for i in 1 2 3 4 5; do
	"$CT" -k -w "$W/unpaced.ctrace" -- python3 tests/python/pyloop.py --torch "$N" 0 \
		> "$W/unpaced.out" 2> "$W/unpaced.err"
	lost=$(grep -oE '[0-9]+ lost' "$W/unpaced.err" | head -1 | cut -d' ' -f1)
	bytes=$(grep -oE '[0-9.]+ bytes a stack record' "$W/unpaced.err" | cut -d' ' -f1)
	walked=$(grep -oE 'stacks walked in the kernel [0-9]+' "$W/unpaced.err" | grep -oE '[0-9]+$')
	echo "unpaced run $i: lost ${lost:-?}, ${bytes:-?} bytes a stack record, walked in the kernel ${walked:-?}; $(tail -n 1 "$W/unpaced.out")"
	cp "$W/unpaced.err" "$O/unpaced.$i.err"
	verdict "$([ -n "$bytes" ] && awk -v b="$bytes" 'BEGIN { exit !(b <= 2048) }' && echo 1)" \
		"unpaced PyTorch run $i: $bytes bytes a stack record, target <= 2048"
done | tee "$O/unpaced.txt"
verdict "$(grep -q 'lost [1-9?]' "$O/unpaced.txt" || echo 1)" \
	"unpaced PyTorch loop, 5 runs: lost $(grep -oE 'lost [0-9?]+' "$O/unpaced.txt" | cut -d' ' -f2 | tr '\n' ' ')(target 0 each)"

# 2b. The kernel's walks against the copy's unwinding on the PyTorch loop
# (JAX's short run may walk none in the kernel: its tables come late), 10,000
# calls: in 2,000 a machine's first run walked 0 to 1,895 (the large lazy
# files' FDEs come as the loop asks for them).
CT_UNWIND_CHECK=1 "$CT" -k -w "$W/check.ctrace" -- python3 tests/python/pyloop.py --torch 10000 0 \
	> /dev/null 2> "$O/torch-check.err"
diff=$(grep -oE 'CT_UNWIND_CHECK: [0-9]+ of [0-9]+ kernel walks' "$O/torch-check.err")
verdict "$(echo "$diff" | grep -qE 'CHECK: 0 of [1-9]' && echo 1)" \
	"PyTorch loop: the kernel's walks as the copy's unwinding: ${diff:-no kernel walks}"
fi

# 3. JAX: stacks complete, capture CPU a stack, the kernel's walk checked.
want 3 || exit 0
jax() {   # jax NAME [ENV...]
	local name=$1; shift
	timeout 300 env "$@" "$CT" -k -w "$O/$name.ctrace" -- python3 tests/gpu/jax_sum.py \
		> "$W/$name.out" 2> "$O/$name.err"
	echo "== $name rc=$? $(tail -n 1 "$W/$name.out")"
	grep -E 'unwound|walked|stack record|stack ends|CT_UNWIND_CHECK|named|own CPU' "$O/$name.err"
}
jax jax
"$CT" -r "$O/jax.ctrace" --json | python3 -c '
import collections, json, sys
ev = [json.loads(l) for l in sys.stdin if l.startswith("{")]
ev = [e for e in ev if e.get("type") == "ioctl" and "stack" in e]
ends = collections.Counter(e.get("stack_end") for e in ev)
done = sum(ends[k] for k in ("end", "end_fp"))
print("jax stacks %d, ends %s, complete %.2f%%" % (len(ev), dict(ends), 100.0 * done / max(1, len(ev))))
' | tee "$O/jax.check"
pct=$(grep -oE 'complete [0-9.]+' "$O/jax.check" | cut -d' ' -f2)
verdict "$(awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 99) }' && echo 1)" \
	"JAX stacks complete (end or end_fp): ${pct:-?}%, target >= 99%"
cpu_a_stack() {   # cpu_a_stack ERRFILE: the capture's CPU us a stack, unwinding and naming
	sed -nE 's/.*unwound ([0-9]+) stacks \([0-9]+ frames\) in [0-9.]+ ms \(([0-9.]+) ms on the CPU\).*/\1 \2/p' "$1" |
		awk '{ if ($1) printf "%.1f", $2 * 1000 / $1 }'
}
wall_a_stack() {   # the same, all its time: the CPU's and the wait for files' pages
	sed -nE 's/.*unwound ([0-9]+) stacks \([0-9]+ frames\) in ([0-9.]+) ms.*/\1 \2/p' "$1" |
		awk '{ if ($1) printf "%.1f", $2 * 1000 / $1 }'
}
us=$(cpu_a_stack "$O/jax.err")
verdict "$(awk -v u="${us:-1e9}" 'BEGIN { exit !(u <= 50) }' && echo 1)" \
	"JAX capture CPU a stack, first run (every symbol table read, bucketed and cached): ${us:-?} us (with the wait for files' pages $(wall_a_stack "$O/jax.err") us), target <= 50"
# Said beside it, not held to the target: the capture's whole CPU (every
# thread, the BPF load and its verifier included).
echo "JAX: the capture's whole CPU, first run: $(grep -oE 'own CPU so far: .*' "$O/jax.err")"
# The same program again: the symbol indexes mapped back from the cache.
jax jax-again
us=$(cpu_a_stack "$O/jax-again.err")
verdict "$(awk -v u="${us:-1e9}" 'BEGIN { exit !(u <= 50) }' && echo 1)" \
	"JAX capture CPU a stack, the next run (symbol indexes from the cache): ${us:-?} us (with the wait $(wall_a_stack "$O/jax-again.err") us), target <= 50"
jax jax-check CT_UNWIND_CHECK=1
diff=$(grep -oE 'CT_UNWIND_CHECK: [0-9]+ of [0-9]+ kernel walks' "$O/jax-check.err")
echo "JAX: the kernel's walks as the copy's unwinding: ${diff:-no kernel walks (its tables came late)}"
names=$(grep -oE 'CT_UNWIND_CHECK: [0-9]+ of [0-9]+ names' "$O/jax-check.err")
verdict "$(echo "$names" | grep -q 'CHECK: 0 of' && echo 1)" \
	"JAX: frames named from the symbol index as libdw names them: ${names:-no check line}"
cd "$O" && tar czf stacks-kernel-out.tgz ./*.err ./*.txt ./*.check && rm -f ./*.ctrace
