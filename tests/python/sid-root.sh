#!/bin/sh
# SPDX-License-Identifier: MIT
# sid-root.sh DIR: a root in DIR holding Debian's CPython 3.14 and the C
# library it needs (sid's; Debian 12 has no 3.14), from Debian's packages,
# for the container test of tests/live/python.py:
#   tests/python/sid-root.sh /tmp/py314 && CT_PY314_ROOT=/tmp/py314 python3 tests/live/python.py
set -eu
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$(realpath -m "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial" "$dir"
cat > "$work/parts/sid.sources" <<SOURCES
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
# Check-Valid-Until off: a mirror may serve a Release file past its date
# (the signature is still checked); this root only runs tests.
apt() {
	apt-get -q -o Acquire::Check-Valid-Until=false \
		-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts" \
		-o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" \
		-o Dir::State::Status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}
apt update >/dev/null
cd "$work"
apt download python3.14-minimal libpython3.14-minimal libpython3.14-stdlib libc6 zlib1g \
	libexpat1 libffi8 >/dev/null
for deb in ./*.deb; do
	dpkg-deb -x "$deb" "$dir"
done
# Debian's merged /usr: the loader is looked up as /lib64/ld-linux-x86-64.so.2.
for link in lib bin; do
	[ -e "$dir/$link" ] || ln -s "usr/$link" "$dir/$link"
done
mkdir -p "$dir/lib64"
[ -e "$dir/lib64/ld-linux-x86-64.so.2" ] ||
	ln -s /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$dir/lib64/ld-linux-x86-64.so.2"
chroot "$dir" /usr/bin/python3.14 -c 'import ctypes, sys; print("sid-root:", sys.version.split()[0])'
