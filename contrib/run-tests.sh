#!/bin/sh
# Install what is missing, build with warnings as errors, and run the whole
# test suite (Check unit suites, interop with the stock iperf3, CLI tests).
# Prints every Check summary line, the cases skipped here with their
# reasons (no stock peer, no network namespaces in a container...), and
# ends with "N passed, N failed".
#
# In CI (CI=true) or with IPERF3_ROBUST=1, the robustness jobs follow
# (contrib/ci-robust.sh): the suite's core under ASan+UBSan, the Check
# suites and fuzz replay under valgrind, and every libFuzzer target for
# FUZZ_SECS seconds (15 here: the cross builds share the two cores; the
# corpora replay in make check anyway; contrib/ci-robust.sh alone: 30);
# their logs (_build/ci/*.log) are counted too.
# Where the kernel has no SCTP, tests/scripts/sctp_vm.test runs sctp_data
# in a qemu VM booting Debian's kernel, beside those jobs.
# In CI (CI=true) or with IPERF3_DEBPKG=1, tests/scripts/debpkg.test
# builds the Debian packages (debian/) and installs them in a fresh
# debootstrap root, never on this machine, beside those jobs too; in CI or
# with IPERF3_CONTAINER=1, tests/scripts/container.test builds the
# container image (contrib/container/) and runs its program, beside them.
set -u
cd "$(dirname "$0")/.." || exit 1
robust=0
if [ "${CI:-}" = true ] || [ "${IPERF3_ROBUST:-}" = 1 ]; then
	robust=1
	FUZZ_SECS=${FUZZ_SECS:-15}
	export FUZZ_SECS
	EXTRA_PKGS="${EXTRA_PKGS:-} clang libclang-rt-14-dev valgrind"
	export EXTRA_PKGS
fi
# tests/scripts/sctp_vm.test boots Debian's amd64 kernel under qemu (where
# this machine's kernel has no SCTP; it fetches the kernel itself).
if [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ]; then
	EXTRA_PKGS="${EXTRA_PKGS:-} qemu-system-x86"
	export EXTRA_PKGS
fi
# tests/scripts/debpkg.test: the package build (debhelper, dpkg-dev;
# Rules-Requires-Root: no, so no fakeroot), lintian, and debootstrap for
# the root the packages are installed in.
debpkg=0
if [ "${CI:-}" = true ] || [ "${IPERF3_DEBPKG:-}" = 1 ]; then
	debpkg=1
	EXTRA_PKGS="${EXTRA_PKGS:-} debhelper dpkg-dev lintian debootstrap"
	export EXTRA_PKGS
fi
# tests/scripts/container.test: podman builds the image (no RUN step, no
# registry), musl-tools and dpkg-dev (apt-get source) its static program
# (contrib/cross-build.sh installs them too, but not while the cross
# builds hold apt).
container=0
if [ "${CI:-}" = true ] || [ "${IPERF3_CONTAINER:-}" = 1 ]; then
	container=1
	EXTRA_PKGS="${EXTRA_PKGS:-} podman musl-tools dpkg-dev"
	export EXTRA_PKGS
fi
sh contrib/deps.sh || exit 1
./bootstrap.sh || exit 1
rm -rf _build
mkdir -p _build
cd _build || exit 1
../configure --quiet --enable-werror || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs" || exit 1
# The test logs are under tests/unit/, tests/scripts/ (with those of the
# cross builds and the SCTP VM below) and fuzz/, as their sources.
mkdir -p tests/scripts
# Cross builds (CI, or when asked): compiling is indifferent to a loaded
# machine, so it runs from here on at the lowest priority (nice 19) and
# takes only the CPU the timing-bound suites leave idle; the programs run
# under qemu later, beside the valgrind and fuzz jobs.
cross=0
crossbuild=
if [ "${CI:-}" = true ] || [ "${IPERF3_CROSS:-}" = 1 ]; then
	cross=1
	rm -f tests/scripts/cross.status tests/scripts/cross-build.status
	(
		t0=$(date +%s)
		CROSS_PHASE=build nice -n 19 sh ../tests/scripts/cross.sh . \
		    > tests/scripts/cross-build.log 2>&1
		echo $? > tests/scripts/cross-build.status
		echo "== cross builds: $(($(date +%s) - t0)) s"
	) &
	crossbuild=$!
fi
t0=$(date +%s)
make -s -j"$jobs" check
status=$?
echo "== main suite: $(($(date +%s) - t0)) s"
# A failed test's own lines first (all but its PASS lines, at most 60),
# so a report that shows only the start of this output still says what
# failed and how.
for t in tests/*/*.trs fuzz/*.trs; do
	[ -f "$t" ] || continue
	grep -q '^:test-result: \(FAIL\|ERROR\)' "$t" || continue
	echo "== failed: ${t%.trs}"
	grep -v '^PASS' "${t%.trs}.log" | head -60
done
make -s check-headers || status=1
robust_job() {
	t0=$(date +%s)
	BUILD=$(pwd) sh ../contrib/ci-robust.sh "$1"
	rc=$?
	echo "== robustness job $1: $(($(date +%s) - t0)) s"
	return $rc
}
# The ASan job runs loopback tests with timing bounds: after the main
# suite, beside nothing but the low-priority cross builds.
if [ $robust = 1 ]; then
	rm -rf ci ../_asan ../_fuzz
	robust_job asan || status=1
fi
crosspid=
if [ $cross = 1 ]; then
	(
		while [ ! -f tests/scripts/cross-build.status ]; do sleep 2; done
		t0=$(date +%s)
		CROSS_PHASE=run sh ../tests/scripts/cross.sh . \
		    > tests/scripts/cross.log 2>&1
		echo $? > tests/scripts/cross.status
		echo "== cross runs: $(($(date +%s) - t0)) s"
	) &
	crosspid=$!
fi
# side_test NAME LABEL: tests/scripts/NAME.test, its log and exit status
# in tests/scripts/NAME.{log,status} (counted below), its time printed.
side_test() {
	t0=$(date +%s)
	top_builddir=. srcdir=../tests/scripts \
	    sh "../tests/scripts/$1.test" > "tests/scripts/$1.log" 2>&1
	echo $? > "tests/scripts/$1.status"
	echo "== $2: $(($(date +%s) - t0)) s"
}
# side_ok NAME: it passed or skipped.
side_ok() {
	case "$(cat "tests/scripts/$1.status" 2>/dev/null)" in 0 | 77) ;; *) return 1 ;; esac
}
# sctp_data in a VM (skipped where this kernel has SCTP and sctp_data ran
# above): without KVM the guest is CPU-bound for a minute or more, and its
# cases check outcomes, not timings, so it runs after the timing-bound
# suites, beside the jobs below (and the cross builds).
rm -f tests/scripts/sctp_vm.status
side_test sctp_vm "SCTP VM" &
vmpid=$!
# The Debian packages: a package build and a debootstrap (several
# minutes, network-bound in part), then installs in that root; no timing
# bounds, so beside the jobs below as well.
debpkgpid=
if [ $debpkg = 1 ]; then
	rm -f tests/scripts/debpkg.status
	side_test debpkg "Debian packages" &
	debpkgpid=$!
fi
# The container image: its musl static program builds at the lowest
# priority (after the cross builds, which share its _cross/ folder), then
# the program from the image's exported file system runs 1 s tests.
ctrpid=
if [ $container = 1 ]; then
	rm -f tests/scripts/container.status
	(
		if [ $cross = 1 ]; then
			while [ ! -f tests/scripts/cross-build.status ]; do sleep 2; done
		fi
		side_test container "container image"
	) &
	ctrpid=$!
fi
if [ $robust = 1 ]; then
	robust_job valgrind || status=1
	robust_job fuzz || status=1
fi
wait "$vmpid"
side_ok sctp_vm || status=1
if [ -n "$debpkgpid" ]; then
	wait "$debpkgpid"
	side_ok debpkg || status=1
fi
if [ -n "$ctrpid" ]; then
	wait "$ctrpid"
	side_ok container || status=1
fi
if [ -n "$crosspid" ]; then
	wait "$crosspid"
	wait "$crossbuild" 2>/dev/null
	[ "$(cat tests/scripts/cross.status 2>/dev/null)" = 0 ] || status=1
	[ "$(cat tests/scripts/cross-build.status 2>/dev/null)" = 0 ] || status=1
fi
logs=
for f in tests/*/*.log fuzz/*.log ci/*.log; do
	case "$f" in *test-suite.log) continue ;; esac
	[ -f "$f" ] && logs="$logs $f"
done
for f in $logs; do
	echo "== $f"
	grep -E '^[0-9]+%: Checks:|^(PASS|FAIL|SKIP):|^[0-9]+ passed, [0-9]+ failed$' "$f" || true
done
passed=0
failed=0
for f in $logs; do
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
# What could not run here, and why (each test prints "SKIP: reason"),
# in one place before the total.
skips=$(for f in $logs; do
	grep -E '^SKIP: ' "$f" | sed "s|^SKIP: |  ${f#tests/*/}: |"
done)
if [ -n "$skips" ]; then
	echo "== skipped here ($(echo "$skips" | wc -l)):"
	echo "$skips"
fi
[ $status -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "$passed passed, $failed failed"
[ $status -eq 0 ] && [ $failed -eq 0 ]
