#!/bin/sh
# Installs, from Debian's packages, what cudatrace needs when something is
# missing: `tests/deps.sh build` what building it needs (`make deps`, and so
# `make demo`), `tests/deps.sh build test` also what the tests need (`make
# test`: the ASan runtime, the zstd tool, Prometheus, PyYAML, and podman with
# runc and debootstrap for tests/install/container.py: runc because crun
# refuses hybrid cgroup hosts, debootstrap for deploy/base-image.sh; jq for
# the docs' examples, tests/docs/examples.py; g++ and llvm-14-dev for
# tests/stacks/llvmprog.cpp, -k's lazy tables through libLLVM-14).  No
# argument: both.  --print lists the packages instead, installing nothing.
set -eu

BUILD_PKGS="gcc libc6-dev make clang llvm libbpf-dev bpftool libelf-dev libdw-dev libiberty-dev \
            zlib1g-dev libzstd-dev liblz4-dev liblzma-dev libbz2-dev libsqlite3-dev libmicrohttpd-dev \
            dpkg-dev xz-utils"
TEST_PKGS="python3 lld libclang-rt-14-dev zstd prometheus python3-yaml python3-dev chromium \
           podman runc debootstrap jq g++ llvm-14-dev"

print=0
if [ "${1:-}" = --print ]; then
	print=1
	shift
fi
[ $# = 0 ] && set -- build test
PKGS=""
for set in "$@"; do
	case $set in
	build) PKGS="$PKGS $BUILD_PKGS" ;;
	test) PKGS="$PKGS $TEST_PKGS" ;;
	*) echo "tests/deps.sh: unknown set '$set' (build or test)" >&2; exit 2 ;;
	esac
done
if [ $print = 1 ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $PKGS
	exit 0
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "cudatrace: missing packages:$missing" >&2
	echo "cudatrace: run 'sudo make deps' (or apt-get install$missing)" >&2
	exit 1
fi
echo "  DEPS     installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
