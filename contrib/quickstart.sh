#!/bin/sh
# Install what is missing, build, and run a real loopback test: our server
# and our client, printing the usual report.
set -eu
cd "$(dirname "$0")/.."
sh contrib/deps.sh
./bootstrap.sh
mkdir -p _build
cd _build
../configure --quiet
make -s -j"$(nproc 2>/dev/null || echo 2)"
port=$((20000 + $$ % 10000))
# The server's own report goes to a file; the client's is printed.
./src/iperf3 -s -1 -p "$port" > server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT INT TERM
# Until it listens (seen in /proc/net, so no probe connection takes the
# one test of this -1 server), at most 10 s.
hex=$(printf ':%04X' "$port")
i=0
while :; do
	files=
	for f in /proc/net/tcp /proc/net/tcp6; do
		if [ -r "$f" ]; then files="$files $f"; fi
	done
	if [ -z "$files" ]; then # no /proc: give it a second
		sleep 1
		break
	fi
	# shellcheck disable=SC2086
	awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
		END { exit !f }' $files && break
	if ! kill -0 "$server" 2>/dev/null || [ $i -ge 200 ]; then
		echo "quickstart: the server did not start:" >&2
		cat server.log >&2
		exit 1
	fi
	i=$((i + 1))
	sleep 0.05
done
./src/iperf3 -c 127.0.0.1 -p "$port" -t 3
wait "$server"
echo "(the server's side of this test is in _build/server.log)"
