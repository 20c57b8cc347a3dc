#!/bin/sh
# Installs what building and testing cudatrace need, from Debian's packages,
# when something is missing.  Run by `make deps` (and so by `make test`).
set -eu

PKGS="gcc libc6-dev make clang llvm libbpf-dev bpftool libelf-dev libdw-dev libiberty-dev zlib1g-dev \
      libzstd-dev liblzma-dev libbz2-dev python3 libclang-rt-14-dev zstd libsqlite3-dev \
      libmicrohttpd-dev prometheus python3-yaml chromium"

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
