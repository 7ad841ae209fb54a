#!/bin/sh
# Install what building and testing iperf3-compat needs on Debian/Ubuntu.
# Works as root (no sudo needed) or as a user with sudo.  A package index
# can fail to download for a moment ("Mirror sync in progress"): retry the
# update, then judge by whether the packages install.
set -u
PKGS="build-essential autoconf automake libtool pkg-config check libcjson-dev
libssl-dev libsctp-dev libmicrohttpd-dev iperf3 python3 git iproute2 nftables procps openssl
strace iputils-ping python3-prometheus-client"
PKGS="$PKGS librsvg2-bin" # rsvg-convert: tests/scripts/plot.py renders the --plot SVGs
PKGS="$PKGS python3-jsonschema" # tests/scripts/schema.test, testlib.check_schema
PKGS="$PKGS prometheus" # promtool: tests/scripts/metrics.test lints --metrics files
PKGS="$PKGS faketime" # libfaketimeMT: tests/scripts/owd.test offsets one end's clock
# pScheduler's iperf3 tool imports packaging, and cryptography for its keys
# (tests/scripts/pscheduler.test)
PKGS="$PKGS python3-packaging python3-cryptography"
# node and npm: tests/scripts/k8s_manifests.test (kubernetes-models from the
# npm registry); a node that brings its own npm (NodeSource) needs neither.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"
PKGS="$PKGS ${EXTRA_PKGS:-}"

if [ "$(id -u)" -eq 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1; then
	SUDO=sudo
else
	echo "deps.sh: run as root or install sudo" >&2
	exit 1
fi

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

export DEBIAN_FRONTEND=noninteractive
# Packages with a service (prometheus, iperf3) must not start it: the
# tests start their own instances.  Where no policy says so (a VM, not a
# container), one is put in place for the install and removed after.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null &&
		$SUDO chmod 755 "$policy"
	trap '$SUDO rm -f "$policy"' EXIT
fi
# iperf3's package asks whether to start a daemon; answer no.
echo "iperf3 iperf3/start_daemon boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
i=0
while [ $i -lt 5 ]; do
	$SUDO apt-get update -q && break
	i=$((i + 1))
	echo "deps.sh: apt-get update failed, retrying ($i/5)" >&2
	sleep $((i * 5))
done
i=0
while [ $i -lt 3 ]; do
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing && exit 0
	i=$((i + 1))
	echo "deps.sh: install failed, refreshing the index and retrying" >&2
	$SUDO apt-get update -q || true
	sleep $((i * 5))
done
echo "deps.sh: could not install:$missing" >&2
exit 1
