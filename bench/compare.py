#!/usr/bin/env python3
"""Ours against iperf3 3.21 and the installed iperf3, side by side.

Each case runs with both ends the same program, on loopback, for every
program in turn (ours, 3.21, installed, ours, 3.21, ...), so that a slow
moment of the machine falls on all of them alike.  It prints the median
of the runs per program and the ratios ours/3.21 and ours/installed:

  tcp P1, P2, P8   receiver goodput (end.sum_received, Gbit/s)
  udp b0           -u -b 0 -l 1400: receiver goodput and its loss %
  udp b1G cpu      -u -b 1G -l 1400: the sender's host CPU %
                   (end.cpu_utilization_percent.host_total); the lower
                   the better, so its ratio is ours/theirs as well

3.21 is ../shared/peers/iperf3-3.21 beside the checkout, or
$IPERF3_PEER_321; the installed one is `iperf3` on PATH.  A program that
is missing is left out of the table, with a note.

Usage: compare.py [--runs N] [--time S] [--only CASE] [--smoke] [OURS]
  --smoke   one 1-second run per case and program: checks that the
            script works (CI), measures nothing.
This is a benchmark, not a test: it never fails on a ratio.
"""
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "scripts"))
from testlib import (free_port, peer_321_path, peer_version,  # noqa: E402
                     wait_listening)

CASES = [
    ("tcp P1", ["-P", "1"], "goodput"),
    ("tcp P2", ["-P", "2"], "goodput"),
    ("tcp P8", ["-P", "8"], "goodput"),
    ("udp b0", ["-u", "-b", "0", "-l", "1400"], "goodput"),
    ("udp b1G cpu", ["-u", "-b", "1G", "-l", "1400"], "cpu"),
]


def run_once(binary, args, secs):
    """One test, both ends `binary`: the client's -J document."""
    port = free_port()
    srv = subprocess.Popen([binary, "-s", "-1", "-p", str(port)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(port, srv, time.time() + 5):
            raise RuntimeError(f"{binary}: server did not start")
        cli = subprocess.run([binary, "-c", "127.0.0.1", "-p", str(port),
                              "-J", "-t", str(secs)] + args,
                             capture_output=True, timeout=secs + 30)
        srv.wait(timeout=15)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    return json.loads(cli.stdout)["end"]


def figures(end, kind):
    """(main figure, loss %) of one run."""
    if kind == "cpu":
        return end["cpu_utilization_percent"]["host_total"], None
    if "sum" in end and "sum_received" not in end:    # 3.12 UDP
        rcv = end["sum"]
    else:
        rcv = end["sum_received"]
    loss = rcv.get("lost_percent")
    return rcv["bits_per_second"] / 1e9, loss


def programs(ours):
    progs = [("ours", ours)]
    p321 = peer_321_path()
    if peer_version(p321):
        progs.append(("3.21", p321))
    else:
        print(f"note: no iperf3 3.21 at {p321} (set IPERF3_PEER_321)")
    inst = shutil.which("iperf3")
    ver = peer_version(inst)
    if ver:
        progs.append((ver, inst))
    else:
        print("note: no installed iperf3 (apt-get install iperf3)")
    return progs


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, width, prec):
    return f"{x:{width}.{prec}f}" if x is not None else f"{'-':>{width}}"


def usage(why):
    print(f"compare.py: {why}", file=sys.stderr)
    print("Usage: compare.py [--runs N] [--time S] [--only CASE] [--smoke] "
          "[OURS]", file=sys.stderr)
    return 2


def main():
    argv = sys.argv[1:]
    runs, secs, only, smoke = 5, 5, None, False
    rest = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in ("--runs", "--time", "--only"):
            try:
                val = argv[i + 1]
                if a == "--runs":
                    runs = int(val)
                elif a == "--time":
                    secs = int(val)
                else:
                    only = val
            except (IndexError, ValueError):
                return usage(f"{a} needs a value" if i + 1 >= len(argv)
                             else f"{a}: not a number: {argv[i + 1]}")
            if (a == "--runs" and runs < 1) or (a == "--time" and secs < 1):
                return usage(f"{a} must be at least 1")
            i += 2
            continue
        if a == "--smoke":
            smoke = True
        elif a.startswith("-"):
            return usage(f"unknown option {a}")
        else:
            rest.append(a)
        i += 1
    if len(rest) > 1:
        return usage("one program at most")
    if smoke:
        runs, secs = 1, 1
    ours = rest[0] if rest else os.path.join(HERE, "..", "_build", "src",
                                             "iperf3")
    if not (os.path.isfile(ours) and os.access(ours, os.X_OK)):
        return usage(f"no program to run at {ours} (build first, or name "
                     "it)")
    progs = programs(ours)
    print(f"loopback, both ends the same program, {secs} s runs, median of "
          f"{runs}, alternating; {platform.node()}, {os.cpu_count()} CPUs, "
          f"{platform.release()}, {time.strftime('%Y-%m-%d')}")
    names = [n for n, _ in progs]
    head = f"{'case':12s}" + "".join(f"{n:>10s}" for n in names)
    head += "".join(f"{'ours/' + n:>11s}" for n in names[1:])
    print(head)
    for label, args, kind in CASES:
        if only and only not in label:
            continue
        got = {n: [] for n in names}
        for _ in range(runs):
            for n, path in progs:
                got[n].append(figures(run_once(path, args, secs), kind))
        main_fig = {n: med(x[0] for x in got[n]) for n in names}
        line = f"{label:12s}" + "".join(fmt(main_fig[n], 10, 2)
                                        for n in names)
        for n in names[1:]:
            r = (main_fig["ours"] / main_fig[n]
                 if main_fig["ours"] and main_fig[n] else None)
            line += fmt(r, 11, 2)
        print(line)
        if kind == "goodput" and args[0] == "-u":
            loss = {n: med(x[1] for x in got[n]) for n in names}
            print(f"{'  loss %':12s}" + "".join(fmt(loss[n], 10, 2)
                                                for n in names))
    print("units: goodput Gbit/s; cpu: sender host CPU % (lower is better)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
