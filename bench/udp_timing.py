#!/usr/bin/env python3
"""UDP timing figures and paced loss: ours, ours without offload, 3.21.

1. Jitter (the receiving server's, -i 0.2: the median of every interval
   but the first, of all runs) of the same test run by ours, ours with
   --no-udp-offload and iperf3 3.21 (both ends the same program),
   alternating, N runs:
     loopback   -u -l 1400 at -b 500M, 1G and 0
     path       -u at -b 150M and 0 through a 200 Mbit/s tbf bottleneck
                between network namespaces (client - router - server),
                where this machine allows them
   and whether ours agrees with ours without offload within 20 % or
   2 us (the figure must follow the path, not how datagrams were
   batched); at -b 0 the two reach different rates, so only the figures
   are shown.
2. Loss of a paced sender at -b 1G -l 1400 against a 3.21 server: our
   client and the 3.21 client, alternating, median of N, loopback; with
   --load K, K busy loops run meanwhile (a busy machine).

Usage: udp_timing.py [--runs N] [--time S] [--load K] [--smoke] [OURS]
  --smoke  one 1-second run of each, checks the script (CI); measures
           nothing
This is a benchmark, not a test: it never fails on a figure.
"""
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "scripts"))
from testlib import (NetnsUnavailable, Topo, free_port,  # noqa: E402
                     peer_321_path, peer_version, wait_listening)

PATH_ADDR = "10.77.2.2"


def one(server, client, args, secs, topo=None, want_server=False):
    """One test: the client's -J document, or with want_server the
    server's (None if it failed)."""
    port = free_port()
    spre = topo.s.argv() if topo else []
    cpre = topo.c.argv() if topo else []
    addr = PATH_ADDR if topo else "127.0.0.1"
    sargs = ["-i", "0.2"] if want_server else []
    srv = subprocess.Popen([*spre, server, "-s", "-1", "-J", "-p", str(port),
                            *sargs],
                           stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        ok = (topo.s.wait_listening(port, srv, time.time() + 10) if topo
              else wait_listening(port, srv, time.time() + 10))
        if not ok:
            return None
        r = subprocess.run([*cpre, client, "-c", addr, "-p", str(port), "-J",
                            "-t", str(secs), *args], capture_output=True,
                           text=True, timeout=secs + 40)
        sout = srv.communicate(timeout=20)[0]
        if r.returncode != 0:
            return None
        return json.loads(sout if want_server else r.stdout)
    except (ValueError, subprocess.TimeoutExpired):
        return None
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()


def interval_jitters(doc):
    """The receiving server's jitter of every interval but the first
    (us): the jitter figure is a running estimate, so the value at one
    moment (the end's) swings by several us from run to run; the median
    of many intervals is what can be compared."""
    if doc is None:
        return []
    return [iv["sum"]["jitter_ms"] * 1000 for iv in doc["intervals"][1:]
            if "jitter_ms" in iv["sum"]]


def loss_pct(doc):
    return None if doc is None else doc["end"]["sum"]["lost_percent"]


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, w=8, p=2):
    return f"{x:{w}.{p}f}" if x is not None else f"{'-':>{w}}"


def jitter_table(ours, p321, runs, secs, topo, cases, label):
    progs = [("ours", ours, []), ("no-offload", ours, ["--no-udp-offload"])]
    if p321:
        progs.append(("3.21", p321, []))
    print(f"== jitter, {label}: median of {runs} runs' intervals (us), "
          "alternating")
    print(f"{'case':24} {'ours':>8} {'no-offl':>8} {'3.21':>8} "
          f"{'ours/no-offl':>12}  agree")
    for name, args in cases:
        got = {p[0]: [] for p in progs}
        for _ in range(runs):
            for lab, prog, extra in progs:
                got[lab].append(interval_jitters(
                    one(prog, prog, args + extra, secs, topo,
                        want_server=True)))
        m = {lab: med([x for run in v for x in run])
             for lab, v in got.items()}
        a, b = m["ours"], m["no-offload"]
        ratio = a / b if a is not None and b else None
        agree = "-" if a is None or b is None else \
            ("yes" if abs(a - b) <= max(0.2 * b, 2.0) else "NO")
        if "-b 0" in name:
            agree = "n/a: rates differ"
        print(f"{name:24} {fmt(m['ours'])} {fmt(m['no-offload'])} "
              f"{fmt(m.get('3.21'))} {fmt(ratio, 12)}  {agree}")
        print(f"{'':24} per run: ours {fmt_list(map(med, got['ours']))}; "
              f"no-offload {fmt_list(map(med, got['no-offload']))}" +
              (f"; 3.21 {fmt_list(map(med, got['3.21']))}" if p321 else ""))


def fmt_list(xs):
    return " ".join(fmt(x, 0, 1) for x in xs)


def spin(stop):
    while not stop.is_set():
        pass


def loss_table(ours, p321, runs, secs, load):
    if not p321:
        print("== loss at -b 1G against a 3.21 server: 3.21 absent, skipped")
        return
    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=spin, args=(stop,))
            for _ in range(load)]
    for h in hogs:
        h.start()
    try:
        print(f"== loss %, -u -b 1G -l 1400 -t {secs} to a 3.21 server, "
              f"loopback, {load} busy loops: median of {runs}, alternating")
        args = ["-u", "-b", "1G", "-l", "1400"]
        got = {"ours": [], "3.21": []}
        for _ in range(runs):
            got["ours"].append(loss_pct(one(p321, ours, args, secs)))
            got["3.21"].append(loss_pct(one(p321, p321, args, secs)))
        print(f"{'client':10} {'median':>8}  runs")
        for lab, xs in got.items():
            print(f"{lab:10} {fmt(med(xs))}  {fmt_list(xs)}")
    finally:
        stop.set()
        for h in hogs:
            h.join()


def usage(why):
    print(f"Usage: udp_timing.py [--runs N] [--time S] [--load K] [--smoke] "
          f"[OURS]\nudp_timing.py: {why}", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    opts = {"runs": 5, "time": 3, "load": 0, "smoke": False, "ours": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a == "--smoke":
            opts["smoke"] = True
        elif a in ("--runs", "--time", "--load"):
            if i + 1 >= len(argv):
                usage(f"{a} needs a value")
            try:
                opts[a[2:]] = int(argv[i + 1])
            except ValueError:
                usage(f"{a}: not a number: {argv[i + 1]!r}")
            if opts[a[2:]] < (0 if a == "--load" else 1):
                usage(f"{a}: out of range: {argv[i + 1]!r}")
            i += 1
        elif a.startswith("-"):
            usage(f"unknown option {a}")
        elif opts["ours"] is None:
            opts["ours"] = a
        else:
            usage(f"one program only: {a}")
        i += 1
    return opts


def main():
    o = parse(sys.argv[1:])
    ours = o["ours"] or os.path.join(HERE, "..", "_build", "src", "iperf3")
    if not os.access(ours, os.X_OK):
        usage(f"no program at {ours}")
    p321 = peer_321_path()
    if peer_version(p321) is None:
        print(f"(3.21 not found at {p321}: its columns are left out)")
        p321 = None
    runs, secs = (1, 1) if o["smoke"] else (o["runs"], o["time"])
    lo = [("-b 500M -l 1400", ["-u", "-b", "500M", "-l", "1400"]),
          ("-b 1G -l 1400", ["-u", "-b", "1G", "-l", "1400"]),
          ("-b 0 -l 1400", ["-u", "-b", "0", "-l", "1400"])]
    jitter_table(ours, p321, runs, secs, None, lo, "loopback (one host)")
    topo = None
    try:
        topo = Topo("200mbit", 10)
        topo.build()
    except (NetnsUnavailable, OSError) as e:
        print(f"== jitter, path: no namespaces here ({e})")
        if topo is not None:
            topo.close()
        topo = None
    if topo is not None:
        try:
            path = [("-b 150M", ["-u", "-b", "150M"]),
                    ("-b 0", ["-u", "-b", "0"])]
            jitter_table(ours, p321, runs, secs, topo, path,
                         "two namespaces through a 200 Mbit/s tbf")
        finally:
            topo.close()
    loss_table(ours, p321, runs, 5 if not o["smoke"] else 1, o["load"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
