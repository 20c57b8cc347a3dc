#!/bin/sh
# Soak: a capture to a file under a steady ioctl load for MINUTES (default
# 10), with the tracer's resident memory sampled after the first minute and
# at the end.  Not part of `make test` (it takes minutes); `make soak` runs it.
set -eu
cd "$(dirname "$0")/.."
MINUTES=${MINUTES:-10}
tmp=$(mktemp -d /tmp/ct-soak.XXXXXX)
ct= load=
# On any exit (an error, Ctrl-C too): no tracer or load left running, no directory left.
trap 'kill $load 2>/dev/null || true; kill -INT $ct 2>/dev/null || true; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
: > "$tmp/dev"
./cudatrace --device "$tmp/dev" -w "$tmp/soak.ctrace" -z 2> "$tmp/ct.err" &
ct=$!
until grep -q tracing "$tmp/ct.err"; do sleep 0.1; done
# steady load: 10,000 calls every ~0.1 s
( while kill -0 $ct 2>/dev/null; do build/nvfake -f "$tmp/dev" burst 10000 >/dev/null; sleep 0.1; done ) &
load=$!
rss() { awk '/VmRSS/ {print $2}' /proc/$ct/status; }
sleep 60
r1=$(rss)
sleep $((MINUTES * 60 - 60))
r2=$(rss)
kill -INT $ct; wait $ct || true
kill $load 2>/dev/null || true; wait $load 2>/dev/null || true
echo "soak: $MINUTES min, RSS after 1 min ${r1} kB, at the end ${r2} kB ($(awk -v a=$r1 -v b=$r2 'BEGIN {printf "%+.1f%%", (b - a) * 100 / a}'))"
tail -1 "$tmp/ct.err"
echo "trace: $(ls -l "$tmp/soak.ctrace" | awk '{print $5}') bytes (zstd), $(./cudatrace -r "$tmp/soak.ctrace" | grep -c ' ioctl(') calls"
