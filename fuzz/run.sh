#!/bin/sh
# Build the fuzz targets with clang + libFuzzer (ASan/UBSan) and run each
# for a bounded time or a number of executions:
#
#   fuzz/run.sh [-n RUNS] [-j JOBS] [SECONDS] [TARGET...]
#
#   -n RUNS   stop each target after RUNS executions (libFuzzer -runs=);
#             SECONDS, if also given, still bounds each target
#   -j JOBS   run JOBS targets at a time (default 1)
#   SECONDS   time per target (default 60; with -n and no SECONDS: no limit)
#
# Needs clang and libclang-rt-14-dev (Debian).  New crashes are left in
# _fuzz/crash-<target>-*; copy them into fuzz/corpus/<target>/ as
# regression tests.  Prints a PASS/FAIL line per target with its execution
# count and ends with "N passed, N failed".
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=
jobs=1
while [ $# -gt 0 ]; do
	case "$1" in
	-n) runs=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	*) break ;;
	esac
done
case "${1:-}" in
[0-9]*)
	secs=$1
	shift
	;;
*) secs= ;;
esac
if [ -n "$secs" ]; then
	:
elif [ -n "$runs" ]; then
	secs=0
else
	secs=60
fi
targets=${*:-units params results ctrl udp options auth users peer_ival rpm mcast iso}
[ -x "$top/configure" ] || (cd "$top" && ./bootstrap.sh)
out=${FUZZ_BUILD_DIR:-$top/_fuzz}
mkdir -p "$out"
cd "$out"
if [ ! -f Makefile ]; then
	"$top/configure" --quiet CC=clang --enable-fuzzing --disable-shared \
	    --without-openssl \
	    CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined"
fi
make -s -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
bin=$out/fuzz

# One target: its own work corpus (seeded from the repository's corpus),
# a log, and a one-line verdict in $out/fuzz_$t.res.
run_one() {
	t=$1
	work="$out/corpus-$t"
	mkdir -p "$work"
	set -- -max_total_time="$secs" -print_final_stats=1 \
	    -artifact_prefix="$out/crash-$t-" -close_fd_mask=3 \
	    -max_len=65536
	[ -n "$runs" ] && set -- "$@" -runs="$runs"
	if "$bin/fuzz_$t" "$@" "$work" "$top/fuzz/corpus/$t" \
	    >"$out/fuzz_$t.log" 2>&1; then
		verdict=PASS
	else
		verdict=FAIL
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
	    "$out/fuzz_$t.log" | tail -1)
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$out/fuzz_$t.log" | tail -1)
	if [ "$verdict" = FAIL ]; then
		echo "FAIL: fuzz_$t found a crash after ${execs:-?} executions" \
		    "(see $out/fuzz_$t.log, $out/crash-$t-*)" >"$out/fuzz_$t.res"
	else
		echo "PASS: fuzz_$t ran ${execs:-?} executions" \
		    "(peak RSS ${rss:-?} MB)" >"$out/fuzz_$t.res"
	fi
}

running=0
for t in $targets; do
	rm -f "$out/fuzz_$t.res"
	echo "== fuzz_$t (${runs:+$runs runs, }${secs} s)"
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
passed=0
failed=0
for t in $targets; do
	if [ -f "$out/fuzz_$t.res" ]; then
		cat "$out/fuzz_$t.res"
		if grep -q '^PASS' "$out/fuzz_$t.res"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	else
		echo "FAIL: fuzz_$t did not run"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
