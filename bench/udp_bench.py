#!/usr/bin/env python3
"""UDP benchmark: our iperf3 against the installed stock iperf3, one run.

1. Pacing: `-u -b 100M` for 10 s on loopback; every 1-second interval at
   the receiver must be within +-1 % of 100 Mbit/s (ours); stock's
   intervals are printed beside them for reference.
2. Unlimited: `-u -b 0 -l 1400` for 5 s; receiver goodput and loss of
   ours (client and server) side by side with stock, and the ratio.

Usage: udp_bench.py [OURS] [STOCK]   (defaults: _build/src/iperf3, iperf3)
Exit status 1 if the pacing criterion fails, 2 on bad usage.  This is a
benchmark, not a unit test: run it by hand (CI only checks that it
answers bad usage, in tests/scripts/bench_smoke.test).
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "scripts"))
from testlib import free_port, wait_listening  # noqa: E402


def run(server, client, args, secs):
    port = free_port()
    srv = subprocess.Popen([server, "-s", "-1", "-J", "-p", str(port)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if not wait_listening(port, srv, time.time() + 5):
            raise RuntimeError(f"{server}: server did not start")
        cli = subprocess.run([client, "-c", "127.0.0.1", "-p", str(port),
                              "-J"] + args, capture_output=True,
                             timeout=secs + 30)
        sout, _ = srv.communicate(timeout=30)
    finally:
        if srv.poll() is None:
            srv.kill()
    return json.loads(cli.stdout), json.loads(sout)


def receiver_intervals(server_doc):
    return [iv["sum"]["bits_per_second"] for iv in server_doc["intervals"]
            if iv["sum"]["seconds"] > 0.5]


def pacing(ours, stock):
    print("== pacing: -u -b 100M -t 10, receiver intervals (Mbit/s)")
    _, so = run(ours, ours, ["-u", "-b", "100M", "-t", "10"], 10)
    _, ss = run(stock, stock, ["-u", "-b", "100M", "-t", "10"], 10)
    io, is_ = receiver_intervals(so), receiver_intervals(ss)
    worst = 0.0
    for i in range(max(len(io), len(is_))):
        o = io[i] / 1e6 if i < len(io) else float("nan")
        s = is_[i] / 1e6 if i < len(is_) else float("nan")
        if i < len(io):
            worst = max(worst, abs(o - 100.0))
        print(f"  {i:2d}-{i + 1:<2d} s   ours {o:8.3f}   stock {s:8.3f}")
    ok = len(io) >= 10 and worst <= 1.0
    print(f"  ours: worst interval deviation {worst:.3f} Mbit/s "
          f"({worst:.2f} %) -> {'PASS' if ok else 'FAIL'} (limit 1 %)")
    return ok


def unlimited(ours, stock):
    print("== unlimited: -u -b 0 -l 1400 -t 5 (receiver figures)")
    rows = []
    for name, s, c in (("ours", ours, ours), ("stock", stock, stock)):
        cj, sj = run(s, c, ["-u", "-b", "0", "-l", "1400", "-t", "5"], 5)
        r = sj["end"]["sum_received"] if "sum_received" in sj["end"] \
            else sj["end"]["sum"]
        snd = cj["end"]["sum_sent"]
        rows.append((name, r["bits_per_second"], r["lost_percent"],
                     snd["bits_per_second"]))
        print(f"  {name:5s}: sent {snd['bits_per_second'] / 1e6:9.1f} Mbit/s, "
              f"received {r['bits_per_second'] / 1e6:9.1f} Mbit/s, "
              f"loss {r['lost_percent']:.2f} %")
    if rows[1][1] > 0:
        print(f"  goodput ratio ours/stock: {rows[0][1] / rows[1][1]:.2f}")


def usage(why):
    print(f"udp_bench.py: {why}", file=sys.stderr)
    print("Usage: udp_bench.py [OURS] [STOCK]", file=sys.stderr)
    return 2


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return 0
    for a in args:
        if a.startswith("-"):
            return usage(f"unknown option {a}")
    if len(args) > 2:
        return usage("two programs at most")
    ours = args[0] if args else \
        os.path.join(HERE, "..", "_build", "src", "iperf3")
    stock = args[1] if len(args) > 1 else shutil.which("iperf3")
    for what, path in (("ours", ours), ("stock", stock)):
        if not path or not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return usage(f"no {what} program to run at {path}")
    print(subprocess.run([stock, "-v"], capture_output=True,
                         text=True).stdout.splitlines()[0])
    ok = pacing(ours, stock)
    unlimited(ours, stock)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
