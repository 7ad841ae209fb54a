#!/bin/sh
# Build the container image iperf3-compat:VERSION from
# contrib/container/Containerfile with podman (or buildah).
#
#   sh contrib/container/build.sh [--program FILE] [--tag NAME] [--save FILE]
#
# Builds the musl static program first (contrib/cross-build.sh
# <arch>-linux-musl --static: every feature that links statically, the
# HTTP endpoints included; no OpenSSL, no SCTP), stripped, unless
# --program names one already built (it must be static: nothing else is in
# the image).  The image is tagged localhost/iperf3-compat:VERSION (the
# version in configure.ac; --tag NAME[:TAG] for another name) and holds
# /usr/bin/iperf3, /etc/passwd and /etc/group (one line each, for 65534),
# and /tmp; it runs as 65534:65534.  --save FILE also writes it as a
# docker-archive (`docker load -i FILE`).
#
# No step runs inside the image, so building needs no registry, no network
# and no container runtime that can start containers: a plain Debian
# `podman` (root) builds it as installed.  PODMAN names the command and its
# global flags (default "podman"; e.g. "buildah", or
# "podman --root DIR --runroot DIR --storage-driver vfs" for a private
# store).  The image's timestamp is the last commit's (when in git), so
# the same commit and program give the same image.
#
# Labels: org.opencontainers.image.{title,description,version,revision,
# source,licenses}; source is $IPERF3_IMAGE_SOURCE, else the git remote
# "origin" when it is a URL, else empty.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/contrib/container"
program=
tag=
save=
while [ $# -gt 0 ]; do
	case "$1" in
	--program) program=$2; shift ;;
	--tag) tag=$2; shift ;;
	--save) save=$2; shift ;;
	*) echo "usage: $0 [--program FILE] [--tag NAME[:TAG]] [--save FILE]" >&2; exit 2 ;;
	esac
	shift
done
PODMAN=${PODMAN:-podman}
set -f
# shellcheck disable=SC2086
command -v ${PODMAN%% *} >/dev/null 2>&1 ||
	{ echo "$0: ${PODMAN%% *} not found (apt-get install podman)" >&2; exit 1; }
set +f

version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
[ -n "$version" ] || { echo "$0: no version in configure.ac" >&2; exit 1; }
[ -n "$tag" ] || tag="localhost/iperf3-compat:$version"
case "${tag##*/}" in *:*) ;; *) tag="$tag:$version" ;; esac

revision=
source=${IPERF3_IMAGE_SOURCE:-}
epoch=
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	revision=$(git -C "$top" rev-parse HEAD)
	git -C "$top" diff --quiet HEAD 2>/dev/null || revision="$revision-dirty"
	epoch=$(git -C "$top" log -1 --format=%ct)
	if [ -z "$source" ]; then
		source=$(git -C "$top" remote get-url origin 2>/dev/null || true)
		case "$source" in *://* | git@*) ;; *) source= ;; esac
	fi
fi

t0=$(date +%s)
if [ -z "$program" ]; then
	triplet="$(uname -m)-linux-musl"
	sh "$top/contrib/cross-build.sh" "$triplet" --static
	program="$top/_cross/$triplet/build-static/iperf3.stripped"
fi
[ -f "$program" ] || { echo "$0: no program $program" >&2; exit 1; }
# A dynamic program would not start on scratch.
if command -v readelf >/dev/null 2>&1 &&
    readelf -l "$program" 2>/dev/null | grep -q 'INTERP'; then
	echo "$0: $program is not static (it names a dynamic loader)" >&2
	exit 1
fi
t1=$(date +%s)

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/rootfs/etc" "$ctx/rootfs/tmp"
chmod 1777 "$ctx/rootfs/tmp"
chmod 755 "$ctx/rootfs" "$ctx/rootfs/etc"
cp "$here/etc/passwd" "$here/etc/group" "$ctx/rootfs/etc/"
chmod 644 "$ctx/rootfs/etc/passwd" "$ctx/rootfs/etc/group"
cp "$program" "$ctx/iperf3"
chmod 755 "$ctx/iperf3"
cp "$here/Containerfile" "$ctx/Containerfile"

set -- --file "$ctx/Containerfile" --tag "$tag" --squash \
    --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
    --build-arg "SOURCE=$source"
[ -n "$epoch" ] && set -- "$@" --timestamp "$epoch"
# shellcheck disable=SC2086
$PODMAN build "$@" "$ctx"
if [ -n "$save" ]; then
	rm -f "$save"
	# shellcheck disable=SC2086
	$PODMAN save --format docker-archive -o "$save" "$tag"
fi
# shellcheck disable=SC2086
size=$($PODMAN image inspect --format '{{.Size}}' "$tag" 2>/dev/null || echo "?")
echo "$tag: $size bytes (program $(wc -c <"$program") bytes;" \
    "program $((t1 - t0)) s, image $(($(date +%s) - t1)) s)"
