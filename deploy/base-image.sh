#!/bin/sh
# SPDX-License-Identifier: MIT
# A Debian 12 base image made offline from a debootstrapped root (as
# ../shared/tools/fresh-machine makes one), for deploy/Dockerfile's BASE:
#   deploy/base-image.sh [IMAGE]       default localhost/cudatrace-base:debian12
# ROOTFS=DIR imports a root already made; otherwise debootstrap makes one
# (minbase, from the Debian mirror apt already uses; about a minute) in
# ${TMPDIR:-/tmp}/cudatrace-debian12-root.  Needs podman (podman import).
set -eu
image=${1:-localhost/cudatrace-base:debian12}
command -v podman >/dev/null ||
	{ echo "base-image: podman is not installed (apt-get install podman)" >&2; exit 2; }
root=${ROOTFS:-${TMPDIR:-/tmp}/cudatrace-debian12-root}
if [ ! -x "$root/bin/sh" ]; then
	command -v debootstrap >/dev/null ||
		{ echo "base-image: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 2; }
	mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	[ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
	echo "base-image: debootstrap of Debian 12 (minbase) from $mirror into $root" >&2
	debootstrap --variant=minbase bookworm "$root.tmp" "$mirror" >"$root.log" 2>&1 ||
		{ echo "base-image: debootstrap failed, see $root.log" >&2; exit 2; }
	mv "$root.tmp" "$root"
fi
# The apt lists and caches are not needed in an image.
tar -C "$root" --exclude=./var/lib/apt/lists --exclude=./var/cache/apt -c . |
	podman import -q - "$image" >/dev/null
echo "$image"
