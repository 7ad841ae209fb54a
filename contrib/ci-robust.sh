#!/bin/sh
# Robustness jobs of the CI (contrib/run-tests.sh runs them in CI, or
# when IPERF3_ROBUST=1), each from the top of the source tree:
#
#   contrib/ci-robust.sh asan      build in _asan/ with ASan+UBSan (gcc),
#                                  then `make check-sanitize` there
#   contrib/ci-robust.sh valgrind  `make check-valgrind` in BUILD (default
#                                  _build/, an ordinary build)
#   contrib/ci-robust.sh fuzz      each libFuzzer target for FUZZ_SECS
#                                  (default 30) seconds, two at a time
#
# Each job writes BUILD/ci/<job>.log ending with "N passed, N failed"
# (the runner adds those up) and exits non-zero on failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/_build}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$build/ci"

job_asan() {
	log=$build/ci/asan.log
	rm -rf "$top/_asan"
	mkdir -p "$top/_asan"
	cd "$top/_asan" || return 1
	if ! "$top/configure" --quiet --enable-werror \
	    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" >"$log" 2>&1 ||
	    ! make -s -j"$jobs" >>"$log" 2>&1; then
		echo "FAIL: ASan+UBSan build" >>"$log"
		echo "0 passed, 1 failed" >>"$log"
		return 1
	fi
	# Leaks fail the Check test that caused them (fork mode); a leak or
	# an error in one of our programs fails the script that ran it.
	ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1 \
	IPERF3_SANITIZED=1 IPERF3_PEERS=newest \
	    make -s -j"$jobs" check-sanitize >>"$log" 2>&1
	status=$?
	summarize "$top/_asan" ASan >>"$log"
	return $status
}

job_valgrind() {
	log=$build/ci/valgrind.log
	cd "$build" || return 1
	make -s check-valgrind VALGRIND_LOG="$log.tmp" >"$log.out" 2>&1
	status=$?
	cat "$log.tmp" >"$log" 2>/dev/null || echo "0 passed, 1 failed" >"$log"
	rm -f "$log.tmp"
	return $status
}

job_fuzz() {
	log=$build/ci/fuzz.log
	FUZZ_BUILD_DIR="$top/_fuzz" sh "$top/fuzz/run.sh" -j "$jobs" \
	    "${FUZZ_SECS:-30}" >"$log" 2>&1
}

# PASS/FAIL lines of a build tree's test logs, and their total.
summarize() {
	p=0
	f=0
	for trs in "$1"/tests/*/*.trs "$1"/fuzz/*.trs; do
		[ -f "$trs" ] || continue
		r=$(sed -n 's/^:test-result: //p' "$trs" | head -1)
		name=${trs%.trs}
		name=${name#"$1"/}
		case "$r" in
		PASS) p=$((p + 1)); echo "PASS: $2 $name" ;;
		SKIP) echo "SKIP: $2 $name" ;;
		*) f=$((f + 1)); echo "FAIL: $2 $name" ;;
		esac
	done
	echo "$p passed, $f failed"
}

case "${1:-}" in
asan) job_asan ;;
valgrind) job_valgrind ;;
fuzz) job_fuzz ;;
*)
	echo "usage: $0 asan|valgrind|fuzz" >&2
	exit 2
	;;
esac
