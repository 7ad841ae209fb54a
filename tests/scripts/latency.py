#!/usr/bin/env python3
"""--latency: round trips on the control connection, idle then under load.

Loopback cases (ours on both ends):
  text      two lines after the summary, in the documented layout
  json      end.latency with idle_us/loaded_us percentiles in order, the
            sample counts about ten a second, end.sum_sent/sum_received
            still there for stock parsers
  omit      with -O 1 the omitted second counts in neither phase
  reverse   -R and UDP -u carry the probe too
  multi     two --latency tests at once on one --max-tests server
Stock servers (3.12, 3.21 where present): the client stops before any
data connection with the refusal message and exit 1 within seconds, and
the stock server serves the next (plain) test.
Bottleneck (network namespaces client | router | server on veth pairs;
tbf at BOTTLENECK_RATE with QUEUE_MS of queue on the router's egress to
the server; TCP cubic): idle p50 under 2 ms, loaded p50 within 35 % of
the median of ping run across the same path at the same time, and, where
the sender reports rtt_us, its p50 within 35 % of ping's too.  Skipped
with the reason where namespaces, tc or ping are unavailable.

Usage: latency.py OURS
"""

import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (check_distribution, free_port, listener_inode,  # noqa: E402
                     refusal_problems, report, run_cases, skip, stock_peers,
                     stop, topo_or_skip, wait_listening, wait_relisten)
from testlib import timed_run as run  # noqa: E402

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""

LINE_IDLE = re.compile(r"^Latency idle:   p50 (\d+\.\d{3}) ms  p90 (\d+\.\d{3}) "
                       r"ms  p99 (\d+\.\d{3}) ms  \((\d+) probes\)$", re.M)
LINE_LOADED = re.compile(r"^Latency loaded: p50 (\d+\.\d{3}) ms  p90 "
                         r"(\d+\.\d{3}) ms  p99 (\d+\.\d{3}) ms  \((\d+) "
                         r"probes\), p50 ([+-]\d+\.\d{3}) ms over idle$", re.M)
PCT = ("min", "p50", "p90", "p99", "max")


def server(args=()):
    port = free_port()
    srv = subprocess.Popen([OURS, "-s", "-p", str(port)] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if not wait_listening(port, srv, time.time() + 10):
        stop(srv)
        raise RuntimeError("server did not listen: " + srv.stderr.read())
    return srv, port


def check_dist(probs, what, d):
    check_distribution(probs, what, d, PCT)


def check_doc(probs, doc, secs, omit=0):
    lat = doc.get("end", {}).get("latency")
    if not isinstance(lat, dict):
        probs.append("no end.latency")
        return None
    check_dist(probs, "idle_us", lat.get("idle_us"))
    check_dist(probs, "loaded_us", lat.get("loaded_us"))
    si, sl = lat.get("samples_idle"), lat.get("samples_loaded")
    if not isinstance(si, int) or not 8 <= si <= 12:
        probs.append(f"samples_idle {si} (about 10 in the idle second)")
    if not isinstance(sl, int) or not 8 * secs <= sl <= 10 * secs + 2:
        probs.append(f"samples_loaded {sl} (about {10 * secs} in {secs} s"
                     f"{' after -O ' + str(omit) if omit else ''})")
    end = doc.get("end", {})
    if "sum" not in end and not ("sum_sent" in end and
                                 "sum_received" in end):
        probs.append(f"stock keys gone from end: {sorted(end)}")
    return lat


def case_text():
    probs = []
    srv, port = server()
    try:
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "2", "--latency"])
    finally:
        stop(srv)
    if rc != 0:
        probs.append(f"exit {rc}: {err[-200:]}")
    mi, ml = LINE_IDLE.search(out), LINE_LOADED.search(out)
    if not mi or not ml:
        probs.append(f"latency lines missing: {out[-400:]!r}")
    else:
        if mi.start() > ml.start():
            probs.append("loaded line before idle line")
        lines = out.splitlines()
        i = lines.index(mi.group(0))
        if "receiver" not in lines[i - 1] or lines[i + 2] != "" or \
                lines[i + 3] != "iperf Done.":
            probs.append(f"not right after the summary: {lines[i - 1:i + 4]}")
        inc = float(ml.group(5))
        if abs(inc - (float(ml.group(1)) - float(mi.group(1)))) > 0.0015:
            probs.append(f"increase {inc} is not loaded p50 - idle p50")
    report("text: idle and loaded lines after the summary", probs)


def json_case(label, extra, omit=0):
    probs = []
    srv, port = server()
    try:
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "2", "--latency", "-J"] + extra)
    finally:
        stop(srv)
    if rc != 0:
        probs.append(f"exit {rc}: {err[-200:]}")
    else:
        check_doc(probs, json.loads(out), 2, omit=omit)
    report(label, probs)


def case_json():
    json_case("json: end.latency percentiles, counts, stock keys", [])


def case_omit():
    json_case("omit: the -O second is in neither phase", ["-O", "1"], omit=1)


def case_reverse_udp():
    probs = []
    srv, port = server()
    try:
        for extra in (["-R"], ["-u", "-b", "100M"], ["--bidir"]):
            rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                                   "-t", "1", "--latency", "-J"] + extra)
            if rc != 0:
                probs.append(f"{extra}: exit {rc}: {err[-200:]}")
                continue
            sub = []
            check_doc(sub, json.loads(out), 1)
            probs += [f"{' '.join(extra)}: {p}" for p in sub]
    finally:
        stop(srv)
    report("reverse: -R, -u and --bidir carry the probe", probs)


def case_multi():
    probs = []
    srv, port = server(["--max-tests", "2"])
    try:
        argv = [OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "2",
                "--latency", "-J", "-b", "500M"]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            res = list(ex.map(lambda _: run(argv), range(2)))
    finally:
        stop(srv)
    for rc, out, err, _ in res:
        if rc != 0:
            probs.append(f"exit {rc}: {err[-200:]}")
        else:
            check_doc(probs, json.loads(out), 2)
    report("multi: two --latency tests at once on one server", probs)


def case_stock():
    peers = stock_peers()
    for ver, path in peers:
        probs = []
        port = free_port()
        srv = subprocess.Popen([path, "-s", "-p", str(port)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            if not wait_listening(port, srv, time.time() + 10):
                report(f"stock {ver} server refuses --latency",
                       ["server did not listen"])
                continue
            inode = listener_inode(port, srv.pid)
            rc, out, err, secs = run([OURS, "-c", "127.0.0.1", "-p",
                                      str(port), "-t", "2", "--latency"])
            probs += refusal_problems(rc, out, err, secs)
            # A stock server listens on a new socket after every test.
            wait_relisten(port, srv, inode, time.time() + 10)
            rc2, out2, err2, _ = run([OURS, "-c", "127.0.0.1", "-p",
                                      str(port), "-t", "1"])
            if rc2 != 0:
                probs.append(f"plain test after it: exit {rc2}: "
                             f"{(out2 + err2)[-200:]}")
        finally:
            stop(srv)
        report(f"stock {ver} server: --latency refused before any data, "
               f"exit 1 in {secs:.1f} s", probs)


# ---- the bottleneck ---------------------------------------------------------

BOTTLENECK_RATE = "20mbit"
QUEUE_MS = 40
LOAD_SECS = 5


def ping_median(lines):
    rtts = [float(m.group(1)) for m in
            re.finditer(r"time=([\d.]+) ms", lines)]
    return (statistics.median(rtts), len(rtts)) if rtts else (None, 0)


def case_bottleneck():
    if shutil.which("ping") is None:
        skip("bottleneck: ping not installed (apt-get install iputils-ping)")
        return
    topo = topo_or_skip("bottleneck", BOTTLENECK_RATE, QUEUE_MS)
    if topo is None:
        return
    probs = []
    try:
        port = free_port()
        srv = topo.s.popen(OURS, "-s", "-p", port, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if not topo.s.wait_listening(port, srv, time.time() + 10):
            report("bottleneck: server did not listen", ["no listen"])
            return
        # Idle ping first (the path without a queue), then the load with
        # ping beside it once the queue has built (after the 1 s idle
        # phase and a second of the load).
        idle_ping = topo.c.run("ping", "-n", "-q", "-c", "5", "-i", "0.2",
                               "10.77.2.2", timeout=10)
        cli = topo.c.popen(OURS, "-c", "10.77.2.2", "-p", port, "-t",
                           LOAD_SECS, "-C", "cubic", "--latency", "-J",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        time.sleep(2.0)
        n = int((LOAD_SECS - 1.5) / 0.1)
        pg = topo.c.run("ping", "-n", "-c", str(n), "-i", "0.1",
                        "10.77.2.2", timeout=LOAD_SECS + 5)
        try:
            out, err = cli.communicate(timeout=LOAD_SECS + 20)
        except subprocess.TimeoutExpired:
            stop(cli)
            out, err = cli.communicate()
            probs.append("client timed out")
        stop(srv)
        if idle_ping.returncode != 0:
            probs.append(f"idle ping failed: {idle_ping.stdout[-200:]}")
        pmed, pn = ping_median(pg.stdout)
        if pmed is None or pn < n // 2:
            probs.append(f"ping under load: {pn} replies: "
                         f"{(pg.stdout + pg.stderr)[-200:]}")
        try:
            doc = json.loads(out)
        except ValueError:
            doc = {}
            probs.append(f"client: {err[-200:]} {out[-200:]}")
        lat = check_doc(probs, doc, LOAD_SECS) if doc else None
        figures = ""
        if lat and pmed is not None:
            idle = lat["idle_us"]["p50"] / 1000
            loaded = lat["loaded_us"]["p50"] / 1000
            figures = (f"idle p50 {idle:.2f} ms, loaded p50 {loaded:.1f} ms,"
                       f" ping median {pmed:.1f} ms over {pn}")
            if idle >= 2.0:
                probs.append(f"idle p50 {idle:.2f} ms (want < 2 ms)")
            if pmed < QUEUE_MS / 4:
                probs.append(f"no queue built: ping {pmed:.1f} ms")
            if abs(loaded - pmed) > 0.35 * pmed:
                probs.append(f"loaded p50 {loaded:.1f} ms vs ping "
                             f"{pmed:.1f} ms: beyond 35 %")
            rtt = doc.get("end", {}).get("sum_sent", {}).get("rtt_us")
            if rtt is not None:
                rp50 = rtt["p50"] / 1000
                figures += f", rtt_us p50 {rp50:.1f} ms"
                if abs(rp50 - pmed) > 0.35 * pmed:
                    probs.append(f"rtt_us p50 {rp50:.1f} ms vs ping "
                                 f"{pmed:.1f} ms: beyond 35 %")
        report(f"bottleneck: {BOTTLENECK_RATE} tbf with {QUEUE_MS} ms of "
               f"queue, cubic: {figures}", probs)
    finally:
        topo.close()


CASES = [case_text, case_json, case_omit, case_reverse_udp, case_multi,
         case_stock, case_bottleneck]


if __name__ == "__main__":
    sys.exit(run_cases(CASES, FILTER))
