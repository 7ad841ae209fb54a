#!/usr/bin/env python3
"""Transactions per second of `iperf3 --rr` against a netperf TCP_RR
stand-in (bench/tcp_rr.c), 1-byte messages over loopback, one
connection, TCP_NODELAY on both ends.

The two alternate (ours, stand-in, ours, ...) so that a slow moment of
the machine falls on both alike; the table has the median of each, its
spread, and the ratio ours / stand-in.  Ours is `iperf3 -s` and
`iperf3 -c 127.0.0.1 --rr -t S -J` (end.rr.transactions_per_second);
the stand-in is compiled here with $CC (default cc) -O2 unless
--standin names a built one.

Usage: rr_bench.py [--runs N] [--time S] [--smoke] [--standin PATH] [OURS]
  --smoke   one 1-second run each: the script works, measures nothing.
This is a benchmark, not a test: it never fails on a ratio.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "scripts"))
from testlib import free_port, wait_listening  # noqa: E402


def run_ours(binary, secs):
    port = free_port()
    srv = subprocess.Popen([binary, "-s", "-1", "-p", str(port)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(port, srv, time.time() + 5):
            raise RuntimeError(f"{binary}: server did not start")
        cli = subprocess.run([binary, "-c", "127.0.0.1", "-p", str(port),
                              "--rr", "-t", str(secs), "-J"],
                             capture_output=True, text=True,
                             timeout=secs + 30)
        srv.wait(timeout=15)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    doc = json.loads(cli.stdout)
    if "error" in doc:
        raise RuntimeError(doc["error"])
    return float(doc["end"]["rr"]["transactions_per_second"])


def run_standin(path, secs):
    out = subprocess.run([path, str(secs)], capture_output=True, text=True,
                         timeout=secs + 30).stdout
    words = out.split()
    return float(words[words.index("transactions_per_second") + 1])


def build_standin(tmp):
    cc = os.environ.get("CC", "cc").split()
    if shutil.which(cc[0]) is None:
        raise RuntimeError(f"no C compiler ({cc[0]}) for bench/tcp_rr.c")
    out = os.path.join(tmp, "tcp_rr")
    subprocess.run(cc + ["-O2", "-o", out, os.path.join(HERE, "tcp_rr.c")],
                   check=True)
    return out


def main(argv):
    runs, secs, smoke, standin = 5, 5, False, None
    ours = os.path.join(HERE, "..", "_build", "src", "iperf3")
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--runs":
            runs = int(args.pop(0))
        elif a == "--time":
            secs = int(args.pop(0))
        elif a == "--smoke":
            smoke = True
        elif a == "--standin":
            standin = args.pop(0)
        elif a.startswith("-"):
            print(__doc__)
            return 2
        else:
            ours = a
    if smoke:
        runs, secs = 1, 1
    ours = os.path.abspath(ours)
    with tempfile.TemporaryDirectory() as tmp:
        if standin is None:
            try:
                standin = build_standin(tmp)
            except (RuntimeError, subprocess.CalledProcessError) as e:
                print(f"SKIP: the stand-in cannot be built: {e}")
                return 77
        figs = {"ours": [], "stand-in": []}
        for i in range(runs):
            figs["ours"].append(run_ours(ours, secs))
            figs["stand-in"].append(run_standin(standin, secs))
            print(f"run {i + 1}/{runs}: ours {figs['ours'][-1]:.0f}, "
                  f"stand-in {figs['stand-in'][-1]:.0f} tx/s", flush=True)
    med = {k: statistics.median(v) for k, v in figs.items()}
    print()
    print(f"{'tcp_rr 1 byte':<16}{'median tx/s':>13}{'min':>10}{'max':>10}")
    for k, v in figs.items():
        print(f"{k:<16}{med[k]:>13.0f}{min(v):>10.0f}{max(v):>10.0f}")
    ratio = med["ours"] / med["stand-in"] if med["stand-in"] > 0 else 0.0
    print(f"ours/stand-in {ratio:.2f} ({runs} runs of {secs} s each)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
