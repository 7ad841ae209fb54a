#!/usr/bin/env python3
"""--rpm: responsiveness under load (draft-ietf-ippm-responsiveness).

Loopback cases (ours on both ends):
  text       the "Responsiveness: N RPM (...)" line after the summary, in
             its documented layout, with a positive RPM
  json       end.rpm with its parts (three probe kinds with samples,
             p50 <= p90, aggregate = 1/2 self + 1/4 + 1/4 foreign, RPM =
             60000 / aggregate_ms), the draft named; the schema
  conflicts  -u, --sctp, --rr, -R, --bidir refused before anything runs
  multi      a --max-tests server answers the foreign probes too (its
             dispatcher reads the cookie and hands the probe to the test)
Stock servers (3.12, 3.21 where present): the client stops before any
data connection with the refusal message and exit 1.
Namespaces (skipped with the reason where unavailable):
  idle       two namespaces on a plain veth pair, no shaping: at least
             10,000 RPM
  bottleneck client | router | server (testlib Topo) with a tbf of
             BOTTLENECK_RATE and QUEUE_MS of queue: RPM within 25 % of
             60 / the median round trip of ping run from the client's
             namespace over the same loaded seconds

Usage: rpm.py OURS [FILTER]
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (Netns, NetnsUnavailable, check_schema, free_port,  # noqa: E402
                     refusal_problems, report, run_cases, skip,
                     skip_unless_option, start_server, stock_peers, stop,
                     topo_or_skip, wait_listening)
from testlib import timed_run as run  # noqa: E402

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""

LINE = re.compile(r"^Responsiveness: (\d+) RPM \(aggregate (\d+\.\d) ms: "
                  r"self (\d+\.\d), foreign connect (\d+\.\d), foreign "
                  r"request (\d+\.\d) ms; (\d+) load streams, (\d+\.\d) "
                  r"Mbit/s(; not stable)?\)$", re.M)
DIST = ("samples", "p50", "p90", "trimmed_mean")


def server(args=()):
    port = free_port()
    return start_server([OURS, "-s", "-p", str(port)] + list(args), port,
                        pipes=False), port


def check_rpm(probs, doc):
    """What is wrong with doc's end.rpm; the object (or None)."""
    r = doc.get("end", {}).get("rpm")
    if not isinstance(r, dict):
        probs.append(f"no end.rpm: {list(doc.get('end', {}))}")
        return None
    if not r.get("draft", "").startswith("draft-ietf-ippm-responsiveness"):
        probs.append(f"draft: {r.get('draft')!r}")
    parts = []
    for k in ("self_us", "foreign_connect_us", "foreign_rr_us"):
        d = r.get(k, {})
        if set(d) != set(DIST):
            probs.append(f"{k} keys: {sorted(d)}")
            return None
        if d["samples"] < 1 or not 0 < d["p50"] <= d["p90"]:
            probs.append(f"{k}: {d}")
        parts.append(d["trimmed_mean"] / 1000)
    agg = parts[0] / 2 + parts[1] / 4 + parts[2] / 4
    if abs(agg - r["aggregate_ms"]) > 1e-3 * max(agg, 1):
        probs.append(f"aggregate_ms {r['aggregate_ms']} vs parts {agg}")
    if r["aggregate_ms"] > 0 and \
            abs(r["rpm"] - 60000 / r["aggregate_ms"]) > 1:
        probs.append(f"rpm {r['rpm']} vs 60000 / {r['aggregate_ms']}")
    if not 1 <= r.get("load_streams", 0) <= 16:
        probs.append(f"load_streams {r.get('load_streams')}")
    if not isinstance(r.get("stable"), bool):
        probs.append(f"stable: {r.get('stable')!r}")
    return r


# ---- loopback -----------------------------------------------------------------

def case_text():
    srv, port = server(["-1"])
    try:
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "4", "--rpm"])
    finally:
        stop(srv)
    probs = [] if rc == 0 else [f"exit {rc}: {err[-200:]}"]
    m = LINE.search(out)
    if m is None:
        probs.append(f"no Responsiveness line: {out[-400:]!r}")
    elif int(m.group(1)) <= 0:
        probs.append(f"RPM {m.group(1)}")
    report("text: the Responsiveness line after the summary", probs)


def json_run(server_args):
    """A 4 s `--rpm -J` test against our server run with server_args:
    (problems, document or None)."""
    srv, port = server(server_args)
    try:
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "4", "--rpm", "-J"])
    finally:
        stop(srv)
    probs = [] if rc == 0 else [f"exit {rc}: {err[-200:]}"]
    try:
        return probs, json.loads(out)
    except ValueError:
        return probs + [f"not JSON: {out[-200:]!r}"], None


def case_json():
    probs, doc = json_run(["-1"])
    if doc is not None:
        check_rpm(probs, doc)
        probs += check_schema(doc, "document")
        if "sum_sent" not in doc.get("end", {}):
            probs.append("end.sum_sent missing")
    report("json: end.rpm with its parts, and the schema", probs)


def case_multi():
    probs, doc = json_run(["--max-tests", "2"])
    r = check_rpm(probs, doc) if doc is not None else None
    if r and r["foreign_failed"] != 0:
        probs.append(f"foreign_failed {r['foreign_failed']}")
    report("multi: a --max-tests server answers foreign probes", probs)


def case_conflicts():
    probs = []
    for extra in (["-u"], ["--sctp"], ["--rr"], ["-R"], ["--bidir"]):
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", "1", "--rpm"]
                              + extra, timeout=10)
        if rc != 1 or "error" not in err:
            probs.append(f"{extra}: exit {rc}: {(out + err)[-160:]!r}")
        elif extra[0] != "--sctp" and \
                f"--rpm cannot be used with {extra[0]}" not in err:
            probs.append(f"{extra}: message {err[-160:]!r}")
    report("conflicts: -u, --sctp, --rr, -R, --bidir refused", probs)


def case_stock():
    for ver, path in stock_peers():
        port = free_port()
        srv = subprocess.Popen([path, "-s", "-p", str(port), "-1"],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        secs = 0
        try:
            if not wait_listening(port, srv, time.time() + 10):
                report(f"stock {ver} server refuses --rpm",
                       ["server did not listen"])
                continue
            rc, out, err, secs = run([OURS, "-c", "127.0.0.1", "-p",
                                      str(port), "-t", "3", "--rpm"])
            probs = refusal_problems(rc, out, err, secs)
            if "--rpm" not in err:
                probs.append(f"message does not name --rpm: {err[-200:]!r}")
        finally:
            stop(srv)
        report(f"stock {ver} server: --rpm refused before any data, exit 1 "
               f"in {secs:.1f} s", probs)


# ---- namespaces -------------------------------------------------------------------

def run_in(client_ns, server_ns, addr, secs, ping=None):
    """Our server in server_ns, `--rpm -J -t secs` from client_ns (with
    `ping` seconds of ping beside it from 3 s on): (doc, ping output,
    problems)."""
    probs = []
    port = free_port()
    srv = server_ns.popen(OURS, "-s", "-p", port, "-1",
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    try:
        if not server_ns.wait_listening(port, srv, time.time() + 10):
            return None, "", ["server did not listen"]
        cli = client_ns.popen(OURS, "-c", addr, "-p", port, "-t", secs,
                              "-C", "cubic", "--rpm", "-J",
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        pg = ""
        if ping:
            time.sleep(3)
            n = int(ping / 0.1)
            pg = client_ns.run("ping", "-n", "-c", str(n), "-i", "0.1", addr,
                               timeout=ping + 10).stdout or ""
        try:
            out, err = cli.communicate(timeout=secs + 30)
        except subprocess.TimeoutExpired:
            stop(cli)
            out, err = cli.communicate()
            probs.append("client timed out")
    finally:
        stop(srv)
    try:
        return json.loads(out), pg, probs
    except ValueError:
        return None, pg, probs + [f"client: {err[-200:]} {out[-200:]!r}"]


def case_idle():
    try:
        a = Netns("ra")
    except NetnsUnavailable as e:
        skip(f"idle veth: {e}")
        return
    try:
        b = Netns("rb")
    except NetnsUnavailable as e:
        a.close()
        skip(f"idle veth: {e}")
        return
    try:
        r = subprocess.run(["ip", "-n", a.name, "link", "add", "v0", "type",
                            "veth", "peer", "name", "v1", "netns", b.name],
                           capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"idle veth: cannot make a veth pair: {r.stderr.strip()}")
            return
        for ns, dev, ip in ((a, "v0", "10.78.0.1/24"),
                            (b, "v1", "10.78.0.2/24")):
            ns.run("ip", "addr", "add", ip, "dev", dev)
            ns.run("ip", "link", "set", dev, "up")
        doc, _, probs = run_in(a, b, "10.78.0.2", 8)
        rpm = check_rpm(probs, doc) if doc else None
        figures = ""
        if rpm:
            figures = (f"{rpm['rpm']:.0f} RPM (aggregate "
                       f"{rpm['aggregate_ms']:.3f} ms, "
                       f"{rpm['load_streams']} streams)")
            if rpm["rpm"] < 10000:
                probs.append(f"{figures}: want at least 10,000")
        report(f"idle veth between two namespaces: {figures}", probs)
    finally:
        a.close()
        b.close()


BOTTLENECK_RATE = "20mbit"
QUEUE_MS = 50
LOAD_SECS = 15


def case_bottleneck():
    if shutil.which("ping") is None:
        skip("bottleneck: ping not installed (apt-get install iputils-ping)")
        return
    topo = topo_or_skip("bottleneck", BOTTLENECK_RATE, QUEUE_MS)
    if topo is None:
        return
    try:
        doc, pg, probs = run_in(topo.c, topo.s, "10.77.2.2", LOAD_SECS,
                                ping=LOAD_SECS - 4)
    finally:
        topo.close()
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", pg)]
    rpm = check_rpm(probs, doc) if doc else None
    figures = ""
    if len(rtts) < 20:
        probs.append(f"ping under load: {len(rtts)} replies")
    elif rpm:
        pmed = statistics.median(rtts)
        want = 60000 / pmed
        figures = (f"{rpm['rpm']:.0f} RPM (aggregate "
                   f"{rpm['aggregate_ms']:.1f} ms: self "
                   f"{rpm['self_us']['trimmed_mean'] / 1000:.1f}, connect "
                   f"{rpm['foreign_connect_us']['trimmed_mean'] / 1000:.1f}, "
                   f"request {rpm['foreign_rr_us']['trimmed_mean'] / 1000:.1f}"
                   f"; {rpm['load_streams']} streams), ping median "
                   f"{pmed:.1f} ms = {want:.0f} RPM")
        if pmed < QUEUE_MS / 4:
            probs.append(f"no queue built: ping {pmed:.1f} ms")
        if abs(rpm["rpm"] - want) > 0.25 * want:
            probs.append(f"{figures}: beyond 25 %")
    report(f"bottleneck: {BOTTLENECK_RATE} tbf with {QUEUE_MS} ms of queue: "
           f"{figures}", probs)


CASES = [case_text, case_json, case_multi, case_conflicts, case_stock,
         case_idle, case_bottleneck]


if __name__ == "__main__":
    skip_unless_option(OURS, "--rpm")
    sys.exit(run_cases(CASES, FILTER))
