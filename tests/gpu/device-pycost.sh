#!/bin/bash
# What Python frames cost on the GPU machine (device tool), two builds in
# one run, from the repository root: static cudatrace builds NEW and OLD in
# $C (default .carry/python: cudatrace-static, cudatrace-old).  Then, with
# NEW only: code churn (never a wrong name), allocations charged to their
# lines, PyTorch training coverage.
# ONLY=cost stops after the cost figures.  Everything it writes goes to $OUT.
set -u
C=${C:-$(pwd)/.carry/python}
O=${OUT:-/tmp/out}
W=/tmp/pyc
NEW=$C/cudatrace-static
OLD=$C/cudatrace-old
P=tests/gpu
mkdir -p "$W" "$O"
{
	date -u; uname -r; python3 -V
	py=$(readlink -f "$(command -v python3)")
	echo "python: $py"
	# 3.12 keeps its counter of code objects in a hidden global: named
	# only where the file has a symbol table.
	echo "_Py_next_func_version symbols: $(readelf -Ws "$py" | grep -c _Py_next_func_version)"
	readelf -S "$py" | grep -c '\.symtab' | sed 's/^/.symtab sections: /'
} > "$O/env.txt" 2>&1
cat "$O/env.txt"

# 1. Cost per call, both builds in turn, at 20,000 calls/s: the capture
# keeps up (nothing lost), as for a real program.  These runs are also
# the loss check at that rate.
python3 bench/py_costs.py --ct "$NEW" --compare "$OLD" --python python3 --torch \
	--calls "${N:-20000}" --reps "${REPS:-3}" --depths "${DEPTHS:-0,30,30d}" \
	--modes py-stack,k --pace 20000 --rate 20000 ${PIN:+--pin "$PIN"} | tee "$O/cost.txt" | grep -v '^py-cost rep'
grep 'loss check' "$O/cost.txt" > "$O/loss.txt"
# 1b. As fast as the loop goes, once: -k's capture falls behind, and the
# kernel's wakeups slow the traced thread, or records are lost.
python3 bench/py_costs.py --ct "$NEW" --compare "$OLD" --python python3 --torch \
	--calls "${N:-20000}" --reps 1 --depths 0,30d --modes k --rate 0 | tee "$O/unpaced.txt" |
	tail -n 6
[ "${ONLY:-}" = cost ] && exit 0

# 2. Code churn on this python: never a wrong name.
touch "$W/standin"
"$NEW" --py-stack --device "$W/standin" -w "$W/churn.ctrace" -- \
	python3 tests/python/codechurn.py "$W/standin" 300 2> "$W/churn.err"
echo "== churn: $(tail -n 2 "$W/churn.err" | tr '\n' ' ')"
"$NEW" -r "$W/churn.ctrace" --json | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin if l.startswith("{")]
ev = [e for e in ev if e.get("type") == "ioctl" and int(e["request"], 16) >= 0x1000]
want = lambda e: "f_%d" % (int(e["request"], 16) - 0x1000)
named = [e for e in ev if (e.get("py") or {}).get("func")]
wrong = [e for e in named if e["py"]["func"] != want(e)]
print("churn: %d calls, %d named, %d wrong" % (len(ev), len(named), len(wrong)))'

# 3. Allocations charged to their function and line; training coverage.
timeout 120 "$NEW" --py-stack -w "$W/alloc.ctrace" -- env PYTORCH_NO_CUDA_MEMORY_CACHING=1 \
	python3 $P/py_alloc.py > "$W/alloc.json" 2> "$W/alloc.err"
echo "== alloc: $(tail -n 2 "$W/alloc.err" | tr '\n' ' ')"
python3 $P/py_check.py "$NEW" alloc "$W/alloc.ctrace" "$W/alloc.json" | tail -n 3
timeout 180 "$NEW" -k -w "$W/train.ctrace" -- python3 $P/torch_train.py 50 \
	> "$W/train.out" 2> "$W/train.err"
echo "== torch_train -k: $(tail -n 3 "$W/train.err" | tr '\n' ' ')"
python3 $P/py_check.py "$NEW" cover "$W/train.ctrace" torch_train
