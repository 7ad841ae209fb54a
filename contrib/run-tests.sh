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
make -s check-headers || status=1
# Cross builds under qemu and the big-endian unit suites: in CI (or when
# asked), after the main suite so they do not load its timing tests.
if [ "${CI:-}" = true ] || [ "${IPERF3_CROSS:-}" = 1 ]; then
	sh ../tests/cross.sh . > tests/cross.log 2>&1 || status=1
fi
for f in tests/*.log; do
	case "$f" in tests/test-suite.log) continue ;; esac
	echo "== $f"
	grep -E '^[0-9]+%: Checks:|^(PASS|FAIL|SKIP):|^[0-9]+ passed, [0-9]+ failed$' "$f" || true
done
passed=0
failed=0
for f in tests/*.log; do
	case "$f" in tests/test-suite.log) continue ;; esac
	checks=$(grep -E '^[0-9]+%: Checks:' "$f" | tail -1)
	counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$f" | tail -1)
	if [ -n "$checks" ]; then
		n=$(echo "$checks" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		fl=$(echo "$checks" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
		er=$(echo "$checks" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
		bad=$((fl + er))
		passed=$((passed + n - bad))
		failed=$((failed + bad))
	elif [ -n "$counts" ]; then
		p=$(echo "$counts" | sed -E 's/^([0-9]+) passed.*/\1/')
		q=$(echo "$counts" | sed -E 's/.* ([0-9]+) failed$/\1/')
		passed=$((passed + p))
		failed=$((failed + q))
	elif grep -q '^SKIP' "$f"; then
		:
	elif grep -qE '^(FAIL|ERROR) ' "$f"; then
		failed=$((failed + 1))
	fi
done
[ $status -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "$passed passed, $failed failed"
[ $status -eq 0 ] && [ $failed -eq 0 ]
