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
sleep 1
./src/iperf3 -c 127.0.0.1 -p "$port" -t 3
wait "$server"
echo "(the server's side of this test is in _build/server.log)"
