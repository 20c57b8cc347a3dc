#!/bin/bash
# Runs on the GPU machine (device tool) from the repository root, with a
# dynamic cudatrace and its libraries (and their loader) carried in $D:
# traces the whole machine with --metrics while tests/gpu/malloc_steps.cu
# allocates 1, 2 and 4 GiB, and at each pause scrapes
# cudatrace_device_memory_bytes for its pid and asks nvidia-smi what the
# process uses.  Everything goes to $OUT.
set -u
D=${D:-$(pwd)/.carry/ops}
O=${OUT:-/tmp/out}
W=/tmp/ctmem
PORT=${PORT:-9400}
mkdir -p "$W" "$O"
CT=("$D/lib/ld-linux-x86-64.so.2" --library-path "$D/lib" "$D/cudatrace")

nvcc -o "$W/malloc_steps" -I "$D" "$D/malloc_steps.cu" > "$O/build.txt" 2>&1 || {
	cat "$O/build.txt"; exit 1; }
"${CT[@]}" --metrics "127.0.0.1:$PORT" -w "$W/steps.ctrace" 2> "$O/cudatrace.err" &
ctpid=$!
for _ in $(seq 50); do grep -q "serving" "$O/cudatrace.err" && break; sleep 0.2; done

scrape() {   # scrape STEP PID
	python3 - "$PORT" "$2" <<'PY'
import sys, urllib.request
port, pid = sys.argv[1], sys.argv[2]
body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=5).read().decode()
for l in body.splitlines():
    # By comm too: in a pid namespace the kernel's pid is not getpid()'s.
    if l.startswith("cudatrace_device_memory_bytes{") and (
            'pid="%s"' % pid in l or 'comm="malloc_steps"' in l):
        print("metrics", l)
    if l.startswith("cudatrace_events_lost_total"):
        print("metrics", l)
PY
	nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits |
		sed 's/^/nvidia-smi /'
}

while read -r _ name _ pid; do
	sleep 1.5   # cudatrace hands calls over within 100 ms; nvidia-smi settles
	{ echo "== step $name pid $pid t=$(date +%s.%N)"; scrape "$name" "$pid"; } >> "$O/series.txt"
done < <("$W/malloc_steps" 4)
sleep 1
kill -INT "$ctpid"
wait "$ctpid"
echo "cudatrace exit $?" >> "$O/cudatrace.err"
cp "$W/steps.ctrace" "$O/"
cat "$O/series.txt" "$O/cudatrace.err"
