#!/bin/sh
# Cross builds that run: armhf and aarch64 with the embedded recipe, static
# builds of each run under qemu user emulation as client and as server
# against the native build (TCP and UDP, both directions), the Check unit
# suites under qemu, and the unit suites on a big-endian target (s390x).
#
#   tests/cross.sh <native-build-dir>
#
# Needs root (it installs cross toolchains, multiarch packages and
# qemu-user-static) and network access to the package mirror.  Run by
# contrib/run-tests.sh when CI=true or IPERF3_CROSS=1; otherwise skipped.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
native=$(cd "${1:-$top/_build}" && pwd)
OURS="$native/src/iperf3"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "PASS: $*"; }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: cross builds need root to install toolchains"
	exit 77
fi
if ! dpkg-query -W -f='${Status}' qemu-user-static 2>/dev/null | grep -q "ok installed"; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	    qemu-user-static >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive \
		    apt-get install -y -q --no-install-recommends qemu-user-static >/dev/null; }
fi

port=$((23000 + $$ % 5000))

# interop QEMU BIN: the emulated program against the native one.
interop() {
	qemu=$1
	bin=$2
	name=$3
	for args in "-t 1" "-t 1 -R" "-u -t 1 -b 20M" "-u -t 1 -b 20M -R"; do
		port=$((port + 1))
		# shellcheck disable=SC2086
		timeout 30 "$qemu" "$bin" -s -1 -p $port >/dev/null 2>&1 &
		spid=$!
		sleep 1
		# shellcheck disable=SC2086
		out=$(timeout 30 "$OURS" -c 127.0.0.1 -p $port $args 2>&1)
		crc=$?
		wait $spid
		src=$?
		if [ $crc -eq 0 ] && [ $src -eq 0 ] && echo "$out" | grep -q receiver; then
			ok "$name server under qemu, native client: $args"
		else
			ko "$name server under qemu, native client: $args (rc $crc/$src)"
		fi
		port=$((port + 1))
		# shellcheck disable=SC2086
		timeout 30 "$OURS" -s -1 -p $port >/dev/null 2>&1 &
		spid=$!
		sleep 0.5
		# shellcheck disable=SC2086
		out=$(timeout 30 "$qemu" "$bin" -c 127.0.0.1 -p $port $args 2>&1)
		crc=$?
		wait $spid
		src=$?
		if [ $crc -eq 0 ] && [ $src -eq 0 ] && echo "$out" | grep -q receiver; then
			ok "$name client under qemu, native server: $args"
		else
			ko "$name client under qemu, native server: $args (rc $crc/$src)"
		fi
	done
}

# suites QEMU BUILDDIR NAME: every Check runner under emulation.
suites() {
	qemu=$1
	dir=$2
	name=$3
	if ! (cd "$dir" && make -s -j2 check TESTS= >/dev/null 2>&1); then
		ko "$name: building the unit suites"
		return
	fi
	for t in "$dir"/tests/check_*; do
		case "$t" in *.o | *.c | *.h) continue ;; esac
		[ -x "$t" ] || continue
		line=$(timeout 600 "$qemu" "$t" 2>&1 | grep -E '^[0-9]+%: Checks:' | tail -1)
		echo "$line"
		case "$line" in
		100%:*) ok "$name $(basename "$t") under qemu" ;;
		*) ko "$name $(basename "$t") under qemu: ${line:-crashed}" ;;
		esac
	done
}

for spec in arm-linux-gnueabihf:qemu-arm-static aarch64-linux-gnu:qemu-aarch64-static; do
	triplet=${spec%%:*}
	qemu=/usr/bin/${spec#*:}
	mkdir -p "$top/_cross"
	if sh "$top/contrib/cross-build.sh" "$triplet" --enable-werror \
	    >"$top/_cross/$triplet.log" 2>&1; then
		ok "$triplet: the recipe (--enable-shared=no --disable-profiling --without-openssl) builds"
		tail -1 "$top/_cross/$triplet.log"
	else
		ko "$triplet: the recipe does not build (see _cross/$triplet.log)"
		tail -20 "$top/_cross/$triplet.log"
		continue
	fi
	if sh "$top/contrib/cross-build.sh" "$triplet" --static --enable-werror \
	    >"$top/_cross/$triplet-static.log" 2>&1; then
		ok "$triplet: fully static build (cJSON built from Debian's source package)"
		tail -1 "$top/_cross/$triplet-static.log"
	else
		ko "$triplet: static build (see _cross/$triplet-static.log)"
		tail -20 "$top/_cross/$triplet-static.log"
		continue
	fi
	interop "$qemu" "$top/_cross/$triplet/build-static/src/iperf3" "$triplet"
	suites "$qemu" "$top/_cross/$triplet/build-static" "$triplet"
done

# Big-endian: the wire encoders and decoders under s390x.
if sh "$top/contrib/cross-build.sh" s390x-linux-gnu --static --enable-werror \
    >"$top/_cross/s390x.log" 2>&1; then
	ok "s390x-linux-gnu: static build"
	suites /usr/bin/qemu-s390x-static "$top/_cross/s390x-linux-gnu/build-static" "s390x (big-endian)"
else
	ko "s390x-linux-gnu: static build (see _cross/s390x.log)"
	tail -20 "$top/_cross/s390x.log"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
