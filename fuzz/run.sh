#!/bin/sh
# Build the fuzz targets with clang + libFuzzer (ASan/UBSan) and run each
# for a bounded time:  fuzz/run.sh [seconds-per-target] [target...]
# Needs clang and libclang-rt-14-dev (Debian).  New crashes are left in
# _fuzz/crash-*; copy them into fuzz/corpus/<target>/ as regression tests.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-units params results ctrl udp options}
[ -x "$top/configure" ] || (cd "$top" && ./bootstrap.sh)
mkdir -p "$top/_fuzz"
cd "$top/_fuzz"
if [ ! -f Makefile ]; then
	"$top/configure" --quiet CC=clang --enable-fuzzing --disable-shared \
	    --without-openssl \
	    CFLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined"
fi
make -s -j"$(nproc 2>/dev/null || echo 2)"
status=0
for t in $targets; do
	work="$top/_fuzz/corpus-$t"
	mkdir -p "$work"
	echo "== fuzz_$t for $secs s"
	if ! ./fuzz/fuzz_"$t" -max_total_time="$secs" -print_final_stats=1 \
	    -artifact_prefix="$top/_fuzz/crash-$t-" -close_fd_mask=3 \
	    "$work" "$top/fuzz/corpus/$t" 2>"$top/_fuzz/fuzz_$t.log"; then
		status=1
		echo "fuzz_$t FOUND A CRASH (see _fuzz/fuzz_$t.log)"
	fi
	grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$top/_fuzz/fuzz_$t.log" || true
done
exit $status
