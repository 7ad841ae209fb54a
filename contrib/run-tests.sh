#!/bin/sh
# Install what is missing, build with warnings as errors, and run the whole
# test suite (Check unit suites, interop with the stock iperf3, CLI tests).
# Prints every Check summary line and ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
sh contrib/deps.sh || exit 1
./bootstrap.sh || exit 1
rm -rf _build
mkdir -p _build
cd _build || exit 1
../configure --quiet --enable-werror || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs" || exit 1
make -s -j"$jobs" check
status=$?
for f in tests/*.log; do
	case "$f" in tests/test-suite.log) continue ;; esac
	echo "== $f"
	grep -E '^[0-9]+%: Checks:|^(PASS|FAIL|SKIP):|^SKIP' "$f" || true
done
passed=0
failed=0
for f in tests/*.log; do
	case "$f" in tests/test-suite.log) continue ;; esac
	line=$(grep -E '^[0-9]+%: Checks:' "$f" | tail -1)
	if [ -n "$line" ]; then
		checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
		errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
		passed=$((passed + checks - fails - errs))
		failed=$((failed + fails + errs))
	else
		p=$(grep -c '^PASS: ' "$f")
		q=$(grep -c '^FAIL: ' "$f")
		passed=$((passed + p))
		failed=$((failed + q))
	fi
	if grep -q '^FAIL ' "$f" && ! grep -q '^FAIL: ' "$f" && [ -z "$line" ]; then
		failed=$((failed + 1))
	fi
done
[ $status -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "$passed passed, $failed failed"
[ $status -eq 0 ] && [ $failed -eq 0 ]
