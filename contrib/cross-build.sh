#!/bin/sh
# Cross-build iperf3-compat for another architecture on Debian/Ubuntu.
#
#   contrib/cross-build.sh <host-triplet> [--static] [--deps-only] [configure args...]
#
# Examples:
#   contrib/cross-build.sh arm-linux-gnueabihf
#   contrib/cross-build.sh aarch64-linux-gnu --static
#
# Installs what is missing (root or sudo): the cross compiler and the
# target's cJSON (Debian multiarch), then builds with the usual embedded
# recipe:  --host=<triplet> --enable-shared=no --disable-profiling
# --without-openssl.  With --static the program is linked fully static
# (--enable-static-bin); Debian ships no static cJSON, so one is built for
# the target from Debian's own cjson source package into a scratch
# prefix (_cross/<triplet>/deps).  The build tree is _cross/<triplet>/build.
set -eu

usage() {
	echo "usage: $0 <host-triplet> [--static] [--deps-only] [configure args...]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
triplet=$1
shift
static=0
deps_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--static) static=1 ;;
	--deps-only) deps_only=1 ;;
	*) break ;;
	esac
	shift
done

case "$triplet" in
arm-linux-gnueabihf) arch=armhf ;;
arm-linux-gnueabi) arch=armel ;;
aarch64-linux-gnu) arch=arm64 ;;
s390x-linux-gnu) arch=s390x ;;
powerpc64le-linux-gnu) arch=ppc64el ;;
riscv64-linux-gnu) arch=riscv64 ;;
mips64el-linux-gnuabi64) arch=mips64el ;;
*)
	arch=$(dpkg-architecture -t "$triplet" -qDEB_HOST_ARCH 2>/dev/null) ||
		{ echo "$0: unknown triplet $triplet" >&2; exit 2; }
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/_cross/$triplet"
mkdir -p "$work"

if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi

apt_update() {
	# Foreign-architecture indexes sometimes fail for a moment: retry, and
	# judge by whether the packages then install.
	i=0
	while [ $i -lt 4 ]; do
		$SUDO apt-get update -q && return 0
		i=$((i + 1))
		sleep $((i * 5))
	done
	return 0
}

apt_install() {
	i=0
	while [ $i -lt 3 ]; do
		# shellcheck disable=SC2068
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
		    --no-install-recommends $@ && return 0
		i=$((i + 1))
		apt_update
	done
	echo "$0: could not install: $*" >&2
	return 1
}

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || echo "$p"
	done
}

install_deps() {
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		$SUDO dpkg --add-architecture "$arch"
		need_update=1
	fi
	pkgs="gcc-$triplet libc6-dev-$arch-cross libcjson-dev:$arch"
	if [ $static -eq 1 ]; then
		pkgs="$pkgs check:$arch libsubunit-dev:$arch dpkg-dev"
	fi
	# shellcheck disable=SC2086
	todo=$(missing $pkgs)
	[ -z "$todo" ] && return 0
	[ "${need_update:-0}" -eq 1 ] || [ -n "$todo" ] && apt_update
	# shellcheck disable=SC2086
	apt_install $todo
}

enable_deb_src() {
	apt-cache showsrc cjson 2>/dev/null | grep -q '^Package: cjson' && return 0
	src=/etc/apt/sources.list.d/iperf3-compat-src.sources
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed 's/^Types: deb$/Types: deb-src/' \
		    /etc/apt/sources.list.d/debian.sources | $SUDO tee "$src" >/dev/null
	elif [ -f /etc/apt/sources.list ]; then
		src=/etc/apt/sources.list.d/iperf3-compat-src.list
		sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list |
			$SUDO tee "$src" >/dev/null
	fi
	apt_update
}

# A static cJSON for the target, from Debian's cjson source package.
build_static_cjson() {
	deps="$work/deps"
	[ -f "$deps/lib/libcjson.a" ] && return 0
	enable_deb_src
	rm -rf "$work/cjson-src"
	mkdir -p "$work/cjson-src" "$deps/lib/pkgconfig" "$deps/include/cjson"
	(cd "$work/cjson-src" && apt-get source -q cjson >/dev/null)
	dir=$(find "$work/cjson-src" -maxdepth 2 -name cJSON.c -printf '%h\n' | head -1)
	[ -n "$dir" ] || { echo "$0: no cJSON.c in the cjson source" >&2; exit 1; }
	version=$(sed -n 's/^#define CJSON_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' \
	    "$dir/cJSON.h" | paste -sd. -)
	"$triplet-gcc" -O2 -fPIC -c "$dir/cJSON.c" -o "$work/cJSON.o"
	"$triplet-ar" rcs "$deps/lib/libcjson.a" "$work/cJSON.o"
	cp "$dir/cJSON.h" "$deps/include/cjson/"
	cat > "$deps/lib/pkgconfig/libcjson.pc" <<EOF
prefix=$deps
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: libcjson
Description: cJSON built for $triplet (static)
Version: $version
Libs: -L\${libdir} -lcjson
Cflags: -I\${includedir}/cjson
EOF
}

install_deps
[ $static -eq 1 ] && build_static_cjson
[ $deps_only -eq 1 ] && exit 0

[ -x "$top/configure" ] || (cd "$top" && ./bootstrap.sh)
build="$work/build"
[ $static -eq 1 ] && build="$work/build-static"
rm -rf "$build"
mkdir -p "$build"
cd "$build"
set -- --host="$triplet" --enable-shared=no --disable-profiling \
    --without-openssl "$@"
if [ $static -eq 1 ]; then
	PKG_CONFIG_LIBDIR="$work/deps/lib/pkgconfig:/usr/lib/$triplet/pkgconfig:/usr/share/pkgconfig"
	export PKG_CONFIG_LIBDIR
	set -- "$@" --enable-static-bin
fi
"$top/configure" --quiet "$@"
make -s -j"$(nproc 2>/dev/null || echo 2)"
"$triplet-strip" -o "$build/iperf3.stripped" src/iperf3
echo "$triplet: $(wc -c < "$build/iperf3.stripped") bytes stripped" \
    "($(file -b src/iperf3 | cut -d, -f1-2))"
