#!/bin/sh
# Cross builds that run.  For each target, the small boards' fully static
# build (contrib/cross-build.sh --static --minimal: without --plot,
# --csv, --metrics and --rr) runs as client and as server against the
# native build (TCP and UDP, both directions): under qemu user emulation,
# or natively for musl.  armhf also builds the embedded recipe (dynamic,
# every feature), and mips (32-bit big-endian, the routers' CPU) runs the
# Check unit suites under qemu.  The stripped static program must not be
# larger than its target's limit: 3.21's own size where it was measured
# (armhf, mips), else the size measured when the limit was set (README,
# "Cross builds").
#
#   tests/scripts/cross.sh <native-build-dir>
#
# CROSS_PHASE=build only builds (and checks sizes), CROSS_PHASE=run only
# runs what an earlier build phase left in _cross/: CI builds at low
# priority beside the timing-bound suites and runs the programs after
# them.  Unset: both.
#
# Needs root (it installs cross toolchains, multiarch packages and
# qemu-user-static) and network access to the package mirror.  Run by
# contrib/run-tests.sh when CI=true or IPERF3_CROSS=1; otherwise skipped.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
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
mkdir -p "$top/_cross"

# listening PORT: wait, at most 10 s, until something listens on TCP PORT
# (a fixed pause was too short for a server started on a loaded machine).
listening() {
	command -v ss >/dev/null || { sleep 1; return 0; }
	i=0
	while [ $i -lt 100 ]; do
		ss -Htln "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# interop EMU BIN NAME: the target's program against the native one, under
# the emulator EMU (empty: run natively).
interop() {
	emu=$1
	bin=$2
	name=$3
	for args in "-t 1" "-t 1 -R" "-u -t 1 -b 20M" "-u -t 1 -b 20M -R"; do
		port=$((port + 1))
		# shellcheck disable=SC2086
		timeout 30 $emu "$bin" -s -1 -p $port >/dev/null 2>&1 &
		spid=$!
		listening $port
		# shellcheck disable=SC2086
		out=$(timeout 30 "$OURS" -c 127.0.0.1 -p $port $args 2>&1)
		crc=$?
		wait $spid
		src=$?
		if [ $crc -eq 0 ] && [ $src -eq 0 ] && echo "$out" | grep -q receiver; then
			ok "$name server${emu:+ under qemu}, native client: $args"
		else
			ko "$name server${emu:+ under qemu}, native client: $args (rc $crc/$src: $(echo "$out" | tail -1))"
		fi
		port=$((port + 1))
		# shellcheck disable=SC2086
		timeout 30 "$OURS" -s -1 -p $port >/dev/null 2>&1 &
		spid=$!
		listening $port
		# shellcheck disable=SC2086
		out=$(timeout 30 $emu "$bin" -c 127.0.0.1 -p $port $args 2>&1)
		crc=$?
		wait $spid
		src=$?
		if [ $crc -eq 0 ] && [ $src -eq 0 ] && echo "$out" | grep -q receiver; then
			ok "$name client${emu:+ under qemu}, native server: $args"
		else
			ko "$name client${emu:+ under qemu}, native server: $args (rc $crc/$src: $(echo "$out" | tail -1))"
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
	for t in "$dir"/tests/unit/check_*; do
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

# build TRIPLET LOGNAME WHAT ARGS...: contrib/cross-build.sh, timed.
build() {
	triplet=$1
	log="$top/_cross/$2.log"
	desc=$3
	shift 3
	t0=$(date +%s)
	if sh "$top/contrib/cross-build.sh" "$triplet" "$@" --enable-werror \
	    >"$log" 2>&1 </dev/null; then
		ok "$triplet: $desc ($(($(date +%s) - t0)) s)"
		tail -1 "$log"
		return 0
	fi
	ko "$triplet: $desc (see _cross/$2.log)"
	tail -20 "$log"
	return 1
}

# smaller TRIPLET LIMIT WHOSE: the stripped static program of the small
# boards' recipe is at most LIMIT bytes (WHOSE says what the limit is);
# the ratio is printed either way.  No slack: a capability that adds size
# goes behind a configure switch that --minimal turns off.
smaller() {
	f="$top/_cross/$1/build-static-minimal/iperf3.stripped"
	size=$(wc -c <"$f")
	pct=$(awk -v a="$size" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }')
	if [ "$size" -le "$2" ]; then
		ok "$1: stripped static (--minimal) $size bytes, $pct % of $3 $2"
	else
		ko "$1: stripped static (--minimal) $size bytes, $pct % of $3 $2 (larger)"
	fi
}

# triplet:qemu:limit:whose:what.  qemu "-" runs natively; limit is the
# largest stripped static program (--minimal) allowed: "3.21" when it is
# 3.21's own size, "2026-11-27" when it is our full build's (every
# feature) as it was that day, before --minimal existed.
# Every target builds static and interoperates; "recipe" adds the
# embedded recipe's (dynamic, every feature) build, and "suites" every
# Check suite under qemu: mips, the 32-bit big-endian target (the native
# suites cover 64-bit little-endian).  The CI budget keeps the rest to
# what each target adds.
for spec in arm-linux-gnueabihf:qemu-arm-static:651168:3.21:recipe \
    mips-linux-gnu:qemu-mips-static:1124844:3.21:suites \
    aarch64-linux-gnu:qemu-aarch64-static:1059272:2026-11-27:static \
    riscv64-linux-gnu:qemu-riscv64-static:757264:2026-11-27:static \
    "$(uname -m)-linux-musl:-:288720:2026-11-27:static"; do
	triplet=${spec%%:*}
	rest=${spec#*:}
	qemu=${rest%%:*}
	rest=${rest#*:}
	ref=${rest%%:*}
	rest=${rest#*:}
	whose=${rest%%:*}
	what=${rest#*:}
	[ "$whose" = 3.21 ] && whose="3.21's" || whose="the full build of $whose:"
	emu=
	[ "$qemu" = - ] || emu=/usr/bin/$qemu
	static="$top/_cross/$triplet/build-static-minimal"
	if [ "${CROSS_PHASE:-}" = run ]; then
		[ -x "$static/src/iperf3" ] ||
			{ ko "$triplet: no static build to run (build phase failed)"; continue; }
		interop "$emu" "$static/src/iperf3" "$triplet"
		[ "$what" = suites ] && suites "$emu" "$static" "$triplet"
		continue
	fi
	if [ "$what" = recipe ]; then
		build "$triplet" "$triplet" \
		    "the recipe (--enable-shared=no --disable-profiling --without-openssl --enable-small) builds" ||
			continue
	fi
	if [ "$what" = suites ]; then
		build "$triplet" "$triplet-static" \
		    "fully static build (--minimal), with Check for the unit suites" \
		    --static --minimal --check || continue
	else
		build "$triplet" "$triplet-static" \
		    "fully static build (--minimal)" --static --minimal || continue
	fi
	smaller "$triplet" "$ref" "$whose"
	if [ "${CROSS_PHASE:-}" = build ]; then
		if [ "$what" = suites ] &&
		    ! (cd "$static" && make -s -j2 check TESTS= >/dev/null 2>&1); then
			ko "$triplet: building the unit suites"
		fi
		continue
	fi
	interop "$emu" "$static/src/iperf3" "$triplet"
	[ "$what" = suites ] && suites "$emu" "$static" "$triplet"
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
