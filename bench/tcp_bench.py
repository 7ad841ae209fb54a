#!/usr/bin/env python3
"""TCP throughput benchmark: ours against the installed stock iperf3.

Runs each configuration with both ends ours and both ends stock, back to
back on loopback, and prints receiver throughput, sender CPU and the ratio
ours/stock.  Repeats each pair `--runs` times and reports the medians.

Usage: tcp_bench.py [OURS] [STOCK] [--runs N] [--time S]
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

CONFIGS = [["-P", "1"], ["-P", "4"], ["-R"], ["--bidir"]]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(binary, args, secs):
    port = free_port()
    srv = subprocess.Popen([binary, "-s", "-1", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.4)
    try:
        cli = subprocess.run([binary, "-c", "127.0.0.1", "-p", str(port),
                              "-J", "-t", str(secs)] + args,
                             capture_output=True, timeout=secs + 30)
        srv.wait(timeout=10)
    finally:
        if srv.poll() is None:
            srv.kill()
    d = json.loads(cli.stdout)["end"]
    rcv = d["sum_received"]["bits_per_second"]
    if "sum_received_bidir_reverse" in d:
        rcv += d["sum_received_bidir_reverse"]["bits_per_second"]
    return rcv, d["cpu_utilization_percent"]["host_total"]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs = 3
    secs = 5
    for i, a in enumerate(sys.argv):
        if a == "--runs":
            runs = int(sys.argv[i + 1])
        if a == "--time":
            secs = int(sys.argv[i + 1])
    args = [a for a in args if not a.isdigit()]
    here = os.path.dirname(os.path.abspath(__file__))
    ours = args[0] if args else os.path.join(here, "..", "_build", "src",
                                             "iperf3")
    stock = args[1] if len(args) > 1 else shutil.which("iperf3")
    print(f"TCP on loopback, {secs} s per run, median of {runs} runs")
    print(f"{'config':12s} {'ours Gbit/s':>12s} {'stock Gbit/s':>13s} "
          f"{'ratio':>6s} {'ours CPU%':>10s} {'stock CPU%':>11s}")
    for cfg in CONFIGS:
        o = [run(ours, cfg, secs) for _ in range(runs)]
        s = [run(stock, cfg, secs) for _ in range(runs)]
        ob = statistics.median(x[0] for x in o) / 1e9
        sb = statistics.median(x[0] for x in s) / 1e9
        oc = statistics.median(x[1] for x in o)
        sc = statistics.median(x[1] for x in s)
        print(f"{' '.join(cfg):12s} {ob:12.2f} {sb:13.2f} {ob / sb:6.2f} "
              f"{oc:10.1f} {sc:11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
