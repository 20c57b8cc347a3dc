#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace carried as .devcarry/cudatrace-static (make STATIC=1
# here, copy it there).  The acceptance of issue 32 (docs/GPUWORK.md, "A
# reader nothing can starve", "The last look before exit", "Bursts"):
#   1. a program that launches N random kernels (tests/gpu/gen_kernels.py,
#      N random) and exits right after its synchronize: N of N at the
#      default rate, 5 runs of 5; and the kernel's last look read BAR1
#   2. the same killed with SIGKILL in the middle of its work: the closing
#      line says what the exit look read (information)
#   3. JAX (x @ x, 2048x2048; and jax_sum.py), CuPy and PyTorch, with and
#      without -k: the same launches, 0 lost at the default rate
#   4. the load table of docs/GPUWORK.md again: 1k/10k/100k launches/s at
#      50, 200 (the default) and 1000 Hz
#   5. with two GPUs: a two-rank NCCL all-reduce loses nothing
# Each check prints one line starting "PASS" or "FAIL" (or "INFO") with its
# figures; traces and logs go to $OUT/gwtrust/.
# Programs are built with nvcc -arch=sm_90 here if nvcc is there, else
# taken from .devcarry/trust-*.{cu,bin,json}, made beforehand on any
# machine with nvcc by:  tests/gpu/device-gpuwork-trust.sh --prebuild
set -u
C=$(pwd)/.devcarry
CT=$C/cudatrace-static
O=${OUT:-/tmp/out}/gwtrust
W=/tmp/gwtrust
CHECK="python3 tests/gpu/gpuwork_trust_check.py"
RUNS=5

# gen I: the program of run I (seed random, K and N random) into DIR
gen() {
	local i=$1 dir=$2 seed k n
	seed=$(( (RANDOM << 15 | RANDOM) ))
	k=$(( 3 + RANDOM % 10 ))
	n=$(( 5 + RANDOM % 196 ))
	python3 tests/gpu/gen_kernels.py --seed "$seed" --kernels "$k" --launches "$n" \
		"$dir/trust-$i.cu" "$dir/trust-$i.json" &&
		nvcc -O2 -arch=sm_90 -o "$dir/trust-$i.bin" "$dir/trust-$i.cu"
}

if [ "${1:-}" = --prebuild ]; then
	mkdir -p "$C"
	for i in $(seq $RUNS); do gen "$i" "$C" || exit 1; done
	nvcc -O2 -arch=sm_90 -o "$C/gpuwork_rate" tests/gpu/gpuwork_rate.cu || exit 1
	ls -la "$C"
	exit 0
fi

mkdir -p "$W" "$O"
{
	date -u; uname -a; cat /proc/driver/nvidia/version; nvidia-smi -L
	nvcc --version 2>/dev/null | tail -2; "$CT" --version
	python3 -c 'import torch; print("torch", torch.__version__)' 2>/dev/null
	python3 -c 'import jax; print("jax", jax.__version__)' 2>/dev/null
	python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>/dev/null
} > "$O/env.txt" 2>&1
fails=0
verdict() {   # verdict COND TEXT: prints PASS/FAIL TEXT
	if eval "$1"; then echo "PASS $2"; else echo "FAIL $2"; fails=$((fails + 1)); fi
}

# cap NAME OPTS... -- CMD...: a capture to $W/NAME.ctrace, decoded to
# $W/NAME.jsonl; its closing gpu-work lines in $W/NAME.err
cap() {
	local name=$1; shift
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	"$CT" "${opts[@]}" -z -w "$W/$name.ctrace" -- "$@" > "$W/$name.out" 2> "$W/$name.err"
	"$CT" -r "$W/$name.ctrace" --json > "$W/$name.jsonl" 2> /dev/null
	cp "$W/$name.ctrace" "$W/$name.out" "$W/$name.err" "$O/" 2> /dev/null
}
field() {   # field NAME REGEX: the first number REGEX captures in $W/NAME.err
	grep -o -m1 -E "$2" "$W/$1.err" | grep -o -E '[0-9]+' | head -1
}

echo "== 1. N random kernels, exit right after the synchronize: N of N, $RUNS runs"
for i in $(seq $RUNS); do
	if command -v nvcc > /dev/null; then
		gen "$i" "$W" || { echo "FAIL run $i: cannot build"; fails=$((fails + 1)); continue; }
		P=$W
	else
		P=$C
	fi
	cp "$P/trust-$i.cu" "$P/trust-$i.json" "$O/" 2> /dev/null
	cap "run$i" --gpu-work -- "$P/trust-$i.bin"
	res=$($CHECK manifest "$P/trust-$i.json" "$W/run$i.jsonl")
	echo "$res" | sed "s/^/run $i: /"
	grep -h 'gpu-work: at exit' "$W/run$i.err" | sed "s/^/  /"
	case "$res" in *PASS) ;; *) fails=$((fails + 1)) ;; esac
done
ex=$(cat "$W"/run*.err | grep -o 'process exited ([0-9]* entries; [0-9]* could not' |
	tr -d "(;" | awk '{ e += $3; f += $5 } END { print e + 0, f + 0 }')
verdict "[ \"${ex% *}\" -gt 0 ] && [ \"${ex#* }\" = 0 ]" \
	"the kernel's last look read BAR1 (ring, USERD) and the pushbuffer at exit: ${ex% *} entries, ${ex#* } not copied, in $RUNS runs"

echo "== 2. SIGKILL in the middle of the work (information)"
R=$C/gpuwork_rate
command -v nvcc > /dev/null && nvcc -O2 -arch=sm_90 -o "$W/gpuwork_rate" tests/gpu/gpuwork_rate.cu &&
	R=$W/gpuwork_rate
"$CT" --gpu-work -z -w "$W/kill.ctrace" -- "$R" 20000 5 > /dev/null 2> "$W/kill.err" &
ctpid=$!
sleep 2
kill -KILL $(pgrep -P "$ctpid") 2> /dev/null   # the program, cudatrace's child
wait "$ctpid"
echo "INFO SIGKILL at ~1.9 s of 20,000 launches/s: $(grep -h 'gpu-work' "$W/kill.err" | tr '\n' ' ')"
cp "$W/kill.err" "$O/"

echo "== 3. frameworks, with and without -k: the same launches, 0 lost at the default rate"
cat > "$W/jax_mm.py" <<'PY'
import jax, jax.numpy as jnp
x = jnp.ones((2048, 2048), jnp.float32)
print("jax_mm", float((x @ x).block_until_ready()[0, 0]))
PY
fw() {   # fw NAME CMD...
	local name=$1; shift
	cap "$name" --gpu-work -- "$@"
	cap "$name-k" --gpu-work -k -- "$@"
	local a b
	a=$($CHECK count "$W/$name.jsonl")
	b=$($CHECK count "$W/$name-k.jsonl")
	echo "  $name:    $a"
	echo "  $name -k: $b"
	local na nb la lb ua ub
	read -r _ na _ la _ ua _ <<< "$a"
	read -r _ nb _ lb _ ub _ <<< "$b"
	verdict "[ \"$na\" -gt 0 ] && [ \"$la\" = 0 ] && [ \"$lb\" = 0 ] && [ \"$ua\" = 0 ] && [ \"$ub\" = 0 ] && [ \"$na\" = \"$nb\" ]" \
		"$name: $na launches without -k, $nb with -k; lost $la / $lb, unreadable $ua / $ub"
}
python3 -c 'import jax' 2> /dev/null && { fw jax_mm python3 "$W/jax_mm.py"; fw jax_sum python3 tests/gpu/jax_sum.py; }
python3 -c 'import cupy' 2> /dev/null && fw cupy python3 tests/gpu/cupy_sum.py
python3 -c 'import torch' 2> /dev/null && fw torch python3 tests/gpu/torch_steps.py 5

echo "== 4. the load table (docs/GPUWORK.md, Measured on the H100)"
echo "  rate      poll   seen/launched  lost(at least)  wraps  ring-reads(fast)  reader-CPU"
for rate in 1000 10000 100000; do
	for hz in 50 200 1000; do
		opt=--gpu-work=$hz
		"$CT" "$opt" -z -w "$W/load.ctrace" -- "$R" "$rate" 1 > /dev/null 2> "$W/load.err"
		seen=$("$CT" -r "$W/load.ctrace" --json 2> /dev/null | grep -c '"kind":"LAUNCH"')
		lost=$(field load '[0-9]+ ring entries lost')
		wraps=$(field load '[0-9]+ ring wraps')
		reads=$(grep -o -E '[0-9]+ ring reads, [0-9]+ sooner' "$W/load.err" | tr -dc '0-9 ' | awk '{print $1 "(" $2 ")"}')
		cpu=$(grep -o -E '[0-9.]+ ms of CPU' "$W/load.err")
		printf "  %7s  %5s  %6s/%-7s  %14s  %5s  %16s  %s\n" "$rate" "$hz" "$seen" \
			"$((rate + 1))" "$lost" "$wraps" "$reads" "$cpu"
		[ "$rate" -le 10000 ] && [ "$hz" = 200 ] &&
			verdict "[ \"$seen\" = $((rate + 1)) ] && [ \"$lost\" = 0 ]" \
				"$rate launches/s at the default rate: $seen of $((rate + 1)), $lost lost"
	done
done

echo "== 5. two-rank NCCL all-reduce (two GPUs)"
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ] && python3 -c 'import torch' 2> /dev/null; then
	# NVLink multicast off (device-nccl.sh says why); 20 all-reduces a rank
	export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
	ALLREDUCE_ITERS=20 "$CT" --gpu-work -z -w "$W/nccl.ctrace" -- torchrun --standalone --nproc_per_node=2 \
		tests/gpu/nccl_allreduce.py > "$W/nccl.out" 2> "$W/nccl.err"
	"$CT" -r "$W/nccl.ctrace" --json > "$W/nccl.jsonl" 2> /dev/null
	n=$($CHECK count "$W/nccl.jsonl")
	read -r _ nn _ nl _ nu _ <<< "$n"
	verdict "[ \"$nn\" -gt 0 ] && [ \"$nl\" = 0 ] && [ \"$nu\" = 0 ]" "NCCL all-reduce: $n"
	cp "$W/nccl.err" "$O/"
else
	echo "INFO one GPU (or no PyTorch): the NCCL check needs nvidia-h100-x2"
fi

echo "== $fails FAIL"
exit $((fails > 0))
