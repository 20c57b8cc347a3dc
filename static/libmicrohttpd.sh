#!/bin/sh
# SPDX-License-Identifier: MIT
# libmicrohttpd for `make STATIC=1`, built without TLS from Debian's source
# package: Debian's own static archive needs GnuTLS's and so p11-kit's,
# which Debian does not ship.  The HTTP server serves plain /metrics only.
#   static/libmicrohttpd.sh DIR     -> DIR/lib/libmicrohttpd.a, DIR/include/
# The source comes from the Debian mirror apt already uses (a private
# deb-src list under DIR: the machine's apt set-up is not touched), at the
# version of the installed libmicrohttpd-dev; or, offline, from a .dsc
# (and its tarballs) given as MHD_DSC=/path/libmicrohttpd_VERSION.dsc.
set -eu
dir=$(mkdir -p "$1" && cd "$1" && pwd)
work=$dir/work
rm -rf "$work" && mkdir -p "$work"

fetch() {
	mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	[ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
	version=$(dpkg-query -W -f='${Version}' libmicrohttpd-dev 2>/dev/null || true)
	a=$work/apt
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/parts"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" \
		> "$a/sources.list"
	set -- -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts="$a/parts" \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o APT::Sandbox::User=root
	if ! apt-get -qq "$@" update >"$work/apt.log" 2>&1 ||
	   ! (cd "$work" && apt-get -qq "$@" source --download-only \
		"libmicrohttpd${version:+=$version}" >>"$work/apt.log" 2>&1); then
		echo "cudatrace: cannot fetch Debian's source of libmicrohttpd from $mirror" \
			"(see $work/apt.log); offline, give a downloaded one:" \
			"make STATIC=1 MHD_DSC=/path/libmicrohttpd_VERSION.dsc" >&2
		exit 1
	fi
	ls "$work"/libmicrohttpd_*.dsc
}

dsc=${MHD_DSC:-}
[ -n "$dsc" ] || dsc=$(fetch)
# dpkg-source checks the tarballs against the .dsc and applies Debian's patches.
dpkg-source --no-copy -x "$dsc" "$work/src" >"$work/dpkg-source.log" 2>&1 || {
	echo "cudatrace: cannot unpack $dsc (see $work/dpkg-source.log; needs dpkg-dev)" >&2
	exit 1
}
cd "$work/src"
./configure --prefix="$dir" --disable-shared --enable-static --with-pic \
	--disable-https --without-gnutls --disable-curl --disable-doc --disable-examples \
	--disable-nls --disable-dependency-tracking >"$work/configure.log" 2>&1 || {
	echo "cudatrace: libmicrohttpd's configure failed (see $work/configure.log)" >&2
	exit 1
}
make -C src/microhttpd -j"$(nproc)" install >"$work/make.log" 2>&1 || {
	echo "cudatrace: building libmicrohttpd failed (see $work/make.log)" >&2
	exit 1
}
make -C src/include install >>"$work/make.log" 2>&1
