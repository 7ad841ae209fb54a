#!/bin/sh
# Cross-build iperf3-compat for another architecture on Debian/Ubuntu.
#
#   contrib/cross-build.sh <host-triplet> [--static] [--check] [--minimal] [--deps-only] [configure args...]
#
# Examples:
#   contrib/cross-build.sh arm-linux-gnueabihf
#   contrib/cross-build.sh mips-linux-gnu --static --check
#   contrib/cross-build.sh x86_64-linux-musl --static     # musl-gcc
#
# Installs what is missing (root or sudo): the cross compiler (or, for a
# *-linux-musl triplet, Debian's musl-tools and its musl-gcc) and the
# target's cJSON, then builds with the usual embedded recipe:
# --host=<triplet> --enable-shared=no --disable-profiling --without-openssl,
# plus --enable-small (-Os, --gc-sections, -flto=auto; a later --disable-small undoes
# it).  The build tree is _cross/<triplet>/build.
#
# --static   link the program fully static (--enable-static-bin); the tree
#            is _cross/<triplet>/build-static.
# --check    also provide the Check library, so that `make check` builds
#            the unit suites for the target.
# --minimal  the small boards' recipe: also leave out what stock iperf3
#            lacks and what costs size (--disable-plot --disable-csv
#            --disable-metrics --disable-rr --disable-operator
#            --disable-exporter --disable-owd --disable-rpm --disable-peerival
#            --disable-multicast --disable-isochronous --disable-udpfeedback,
#            no libmicrohttpd, and no getifaddrs(): a peer is then on this
#            host only when it is loopback or this end's own address, which
#            saves the C library's netlink code, about 3 KB static); the
#            tree is _cross/<triplet>/build[-static]-minimal.
#
# cJSON and Check come from Debian: multiarch packages (libcjson-dev:armhf)
# where the mirror publishes the architecture.  Debian ships no static
# cJSON, and has no packages at all for some targets (mips and riscv64 on
# bookworm) or for musl: there they are built for the target from Debian's
# own cjson and check source packages into a scratch prefix,
# _cross/<triplet>/deps; so is libmicrohttpd (the HTTP endpoints, without
# HTTPS) unless --minimal.  Nothing is vendored into the tree.
set -eu

usage() {
	echo "usage: $0 <host-triplet> [--static] [--check] [--minimal] [--deps-only] [configure args...]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
triplet=$1
shift
static=0
check=0
deps_only=0
minimal=0
while [ $# -gt 0 ]; do
	case "$1" in
	--static) static=1 ;;
	--check) check=1 ;;
	--minimal) minimal=1 ;;
	--deps-only) deps_only=1 ;;
	*) break ;;
	esac
	shift
done

musl=0
case "$triplet" in
*-linux-musl*) musl=1 arch=musl ;;
arm-linux-gnueabihf) arch=armhf ;;
arm-linux-gnueabi) arch=armel ;;
aarch64-linux-gnu) arch=arm64 ;;
s390x-linux-gnu) arch=s390x ;;
powerpc64le-linux-gnu) arch=ppc64el ;;
riscv64-linux-gnu) arch=riscv64 ;;
mips-linux-gnu) arch=mips ;;
mipsel-linux-gnu) arch=mipsel ;;
mips64el-linux-gnuabi64) arch=mips64el ;;
*)
	arch=$(dpkg-architecture -t "$triplet" -qDEB_HOST_ARCH 2>/dev/null) ||
		{ echo "$0: unknown triplet $triplet" >&2; exit 2; }
	;;
esac

if [ $musl -eq 1 ]; then
	# musl-gcc wraps the build machine's gcc: musl for this machine only.
	case "$triplet" in
	"$(uname -m)"-*) ;;
	*) echo "$0: musl-gcc builds for $(uname -m) only, not $triplet" >&2; exit 2 ;;
	esac
	CC=musl-gcc AR=ar STRIP=strip
else
	CC=$triplet-gcc AR=$triplet-ar STRIP=$triplet-strip
fi

top=$(cd "$(dirname "$0")/.." && pwd)
work="$top/_cross/$triplet"
deps="$work/deps"
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

# Does the configured Debian mirror publish packages for $arch?  (Its
# Release files list the architectures; adding one it lacks would break
# every later apt-get update on this machine.)
mirror_has_arch() {
	set -- /var/lib/apt/lists/*Release
	[ -e "$1" ] || apt_update
	cat /var/lib/apt/lists/*Release 2>/dev/null |
		sed -n 's/^Architectures://p' | grep -qw -- "$arch"
}

multiarch=0
[ $musl -eq 0 ] && mirror_has_arch && multiarch=1
# cJSON (and Check) built from Debian's source packages: for a static
# program (Debian ships no libcjson.a), and where there are no packages.
from_source=0
[ $static -eq 1 ] || [ $multiarch -eq 0 ] && from_source=1

install_deps() {
	if [ $musl -eq 1 ]; then
		pkgs="musl-tools linux-libc-dev"
	else
		pkgs="gcc-$triplet libc6-dev-$arch-cross"
	fi
	[ $from_source -eq 1 ] && pkgs="$pkgs dpkg-dev"
	if [ $multiarch -eq 1 ]; then
		if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
			$SUDO dpkg --add-architecture "$arch"
			need_update=1
		fi
		pkgs="$pkgs libcjson-dev:$arch"
		[ $check -eq 1 ] && pkgs="$pkgs check:$arch libsubunit-dev:$arch"
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

# get_source PACKAGE: unpack Debian's source package into _cross/<triplet>/.
get_source() {
	enable_deb_src
	rm -rf "$work/$1-src"
	mkdir -p "$work/$1-src"
	(cd "$work/$1-src" && apt-get source -q "$1" >/dev/null 2>&1)
}

# A static cJSON for the target, from Debian's cjson source package.  One
# section per function, so that a program linked with --gc-sections keeps
# only the cJSON functions it calls.
build_static_cjson() {
	[ -f "$deps/lib/libcjson.a" ] && return 0
	get_source cjson
	mkdir -p "$deps/lib/pkgconfig" "$deps/include/cjson"
	dir=$(find "$work/cjson-src" -maxdepth 2 -name cJSON.c -printf '%h\n' | head -1)
	[ -n "$dir" ] || { echo "$0: no cJSON.c in the cjson source" >&2; exit 1; }
	version=$(sed -n 's/^#define CJSON_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' \
	    "$dir/cJSON.h" | paste -sd. -)
	$CC -Os -fPIC -ffunction-sections -fdata-sections -c "$dir/cJSON.c" \
	    -o "$work/cJSON.o"
	$AR rcs "$deps/lib/libcjson.a" "$work/cJSON.o"
	cp "$dir/cJSON.h" "$deps/include/cjson/"
	cat > "$deps/lib/pkgconfig/libcjson.pc" <<EOF
prefix=$deps
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: libcjson
Description: cJSON built for $triplet (static)
Version: $version
Libs: -L\${libdir} -lcjson
Cflags: -I\${includedir} -I\${includedir}/cjson
EOF
}

# A static Check for the target (unit suites), from Debian's check source
# package, without subunit.
build_static_check() {
	[ -f "$deps/lib/libcheck.a" ] && return 0
	get_source check
	dir=$(find "$work/check-src" -mindepth 1 -maxdepth 1 -type d -name 'check-*' | head -1)
	[ -n "$dir" ] || { echo "$0: no check source tree" >&2; exit 1; }
	mkdir -p "$dir/_build"
	(cd "$dir/_build" &&
		../configure --quiet --host="$triplet" CC="$CC" --prefix="$deps" \
		    --disable-shared --enable-static --enable-subunit=no \
		    --disable-build-docs >/dev/null &&
		make -s -C lib >/dev/null && make -s -C src install >/dev/null &&
		make -s install-includeHEADERS install-pcdataDATA >/dev/null)
	# Debian's check.pc names the PIC archive it ships (libcheck_pic.a).
	sed -i 's/-lcheck_pic/-lcheck/' "$deps/lib/pkgconfig/check.pc"
}

# A static libmicrohttpd for the target (--metrics-listen and the other
# HTTP endpoints), from Debian's libmicrohttpd source package: plain HTTP
# only (no GnuTLS, no authentication, no POST parser, no upgrade: our
# endpoints use none of them), one section per function.
build_static_mhd() {
	[ -f "$deps/lib/pkgconfig/libmicrohttpd.pc" ] && return 0
	get_source libmicrohttpd
	dir=$(find "$work/libmicrohttpd-src" -mindepth 1 -maxdepth 1 -type d \
	    -name 'libmicrohttpd-*' | head -1)
	[ -n "$dir" ] || { echo "$0: no libmicrohttpd source tree" >&2; exit 1; }
	mkdir -p "$dir/_build"
	(cd "$dir/_build" &&
		../configure --quiet --host="$triplet" CC="$CC" --prefix="$deps" \
		    CFLAGS="-Os -ffunction-sections -fdata-sections" \
		    --disable-shared --enable-static --disable-https --without-gnutls \
		    --disable-curl --disable-doc --disable-examples --disable-dauth \
		    --disable-bauth --disable-postprocessor --disable-httpupgrade \
		    >/dev/null &&
		make -s -C src/microhttpd install >/dev/null &&
		make -s -C src/include install >/dev/null &&
		make -s install-pkgconfigDATA >/dev/null)
}

# musl-gcc sees only musl's headers: give it the kernel's (linux/tcp.h for
# TCP_INFO, linux/in6.h for flow labels), as musl toolchains install them.
musl_kernel_headers() {
	kh="$deps/kernel-headers"
	mkdir -p "$kh"
	for d in linux asm-generic; do
		ln -sfn "/usr/include/$d" "$kh/$d"
	done
	ln -sfn "/usr/include/$(uname -m)-linux-gnu/asm" "$kh/asm"
}

install_deps
# Libraries built by an older version of this script are built again.
deps_recipe=2
if [ "$(cat "$deps/recipe" 2>/dev/null)" != $deps_recipe ]; then
	rm -rf "$deps"
	mkdir -p "$deps"
	echo $deps_recipe >"$deps/recipe"
fi
[ $from_source -eq 1 ] && build_static_cjson
[ $from_source -eq 1 ] && [ $minimal -eq 0 ] && build_static_mhd
[ $check -eq 1 ] && [ $multiarch -eq 0 ] && build_static_check
[ $musl -eq 1 ] && musl_kernel_headers
[ $deps_only -eq 1 ] && exit 0

[ -x "$top/configure" ] || (cd "$top" && ./bootstrap.sh)
build="$work/build"
[ $static -eq 1 ] && build="$work/build-static"
if [ $minimal -eq 1 ]; then
	build="$build-minimal"
	set -- --disable-plot --disable-csv --disable-metrics --disable-rr \
	    --disable-operator --disable-exporter --without-libmicrohttpd \
	    --disable-owd --disable-rpm --disable-peerival \
	    --disable-multicast --disable-isochronous --disable-udpfeedback \
	    ac_cv_func_getifaddrs=no "$@"
fi
rm -rf "$build"
mkdir -p "$build"
cd "$build"
set -- --host="$triplet" CC="$CC" --enable-shared=no --disable-profiling \
    --without-openssl --enable-small "$@"
if [ $from_source -eq 1 ]; then
	PKG_CONFIG_LIBDIR="$deps/lib/pkgconfig"
	[ $multiarch -eq 1 ] &&
		PKG_CONFIG_LIBDIR="$PKG_CONFIG_LIBDIR:/usr/lib/$triplet/pkgconfig:/usr/share/pkgconfig"
	export PKG_CONFIG_LIBDIR
fi
[ $musl -eq 1 ] && set -- "$@" CPPFLAGS="-isystem $deps/kernel-headers"
[ $static -eq 1 ] && set -- "$@" --enable-static-bin
"$top/configure" --quiet "$@"
make -s -j"$(nproc 2>/dev/null || echo 2)"
$STRIP -o "$build/iperf3.stripped" src/iperf3
echo "$triplet: $(wc -c < "$build/iperf3.stripped") bytes stripped" \
    "($(file -b src/iperf3 | cut -d, -f1-2))"
