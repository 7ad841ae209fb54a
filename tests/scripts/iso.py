#!/usr/bin/env python3
"""--isochronous[=FPS:MEAN,STDDEV]: frames at FPS a second, log-normal sizes.

Loopback cases (ours on both ends, -t 3 at the default 60:20m,0):
  udp, tcp, udp -R, tcp -R
             the receiver counts 60 frames a second within 1 % (frames /
             the receiver's seconds), loses none; every -J key is there
             (end.isochronous, intervals[].isochronous) and the document
             passes the schema; a text run has the interval line and the
             sender and receiver lines
  sizes      STDDEV 0: every frame is exactly MEAN/8/FPS bytes; a TCP run
             at 500:20m,5m: the mean frame within 3 % of 5000 bytes and
             the deviation within 15 % of 1250
  owd        with --owd the client's receiver latency says it is
             corrected by the measured clock offset (text and -J)
Refusals:
  bad        --isochronous=0, =abc, =60:x, with -b, with --bidir: exit
             non-zero with the error text, and the server sees no test
  stock      stock 3.12 and 3.21 servers (3.21 skipped visibly when
             absent: IPERF3_321 or ../shared/peers/iperf3-3.21): exit 1
             with the "does not do --multicast or --isochronous" text
             before any data connection
Namespaces (two joined by a veth pair; skipped with the reason where ip
netns or tc cannot be used):
  tbf        UDP --isochronous=60:30m,0 -t 5: without shaping the frame
             latency p50 is under 5 ms; with a tbf of 20mbit and 200 ms
             of queue on the sender's side it is over 20 ms

Usage: iso.py OURS [FILTER]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (Netns, NetnsUnavailable, built_with,  # noqa: E402
                     check_schema, free_port, peer_321_path, peer_version,
                     report, run_cases, skip, start_server, stop,
                     wait_listening)
from testlib import timed_run as run  # noqa: E402

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
SECS = 3
FPS = 60
DIST = ("samples", "min", "mean", "p50", "p99", "max")
REFUSAL = "does not do --multicast or --isochronous"


def loopback(client_args, server_args=()):
    """Our server (-1) and a client with client_args: (rc, out, err,
    server stdout)."""
    port = free_port()
    srv = start_server([OURS, "-s", "-1", "-p", str(port)] +
                       list(server_args), port)
    try:
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port)] +
                              list(client_args), timeout=SECS + 30)
        try:
            sout, _ = srv.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            sout = ""
    finally:
        stop(srv)
    return rc, out, err, sout


def dist_probs(what, d):
    if not isinstance(d, dict) or set(d) != set(DIST):
        return [f"{what}: {d}"]
    if d["samples"] > 0 and not d["min"] <= d["p50"] <= d["p99"] <= d["max"]:
        return [f"{what} out of order: {d}"]
    return []


def receiver_probs(what, r, secs):
    """Problems of a receiver's end figures over `secs` seconds."""
    probs = []
    for k in ("frames", "lost", "jitter_us", "latency_us",
              "interarrival_us", "frame_bytes", "latency_clock"):
        if k not in r:
            probs.append(f"{what}: no {k}")
    if probs:
        return probs
    rate = r["frames"] / secs if secs > 0 else 0
    if abs(rate - FPS) > 0.01 * FPS:
        probs.append(f"{what}: {r['frames']} frames in {secs:.3f} s = "
                     f"{rate:.2f}/s (want {FPS} within 1 %)")
    if r["lost"] != 0:
        probs.append(f"{what}: {r['lost']} frames lost on loopback")
    probs += dist_probs(f"{what} latency_us", r["latency_us"])
    probs += dist_probs(f"{what} interarrival_us", r["interarrival_us"])
    ia = r["interarrival_us"]["mean"]
    if abs(ia - 1e6 / FPS) > 0.01 * 1e6 / FPS:
        probs.append(f"{what}: inter-arrival mean {ia} us")
    return probs


def one_way(udp, reverse):
    """One -J run and one text run of a direction: problems, figures."""
    args = (["-u"] if udp else []) + (["-R"] if reverse else []) + \
        ["--isochronous", "-t", str(SECS)]
    rc, out, err, _ = loopback(args + ["-J"])
    if rc != 0:
        return [f"-J exit {rc}: {err[-200:]} {out[-200:]}"], ""
    doc = json.loads(out)
    probs = check_schema(doc, "client -J")
    iso = doc["end"].get("isochronous", {})
    if iso.get("fps") != FPS or iso.get("jitter_method") != "rfc3550":
        probs.append(f"end.isochronous: {str(iso)[:200]}")
    st = (iso.get("streams") or [{}])[0]
    snd, rcv = st.get("sender"), st.get("receiver")
    if not snd or not rcv:
        return probs + [f"end.isochronous.streams[0]: {str(st)[:300]}"], ""
    secs = doc["end"]["sum_received"]["seconds"]
    probs += receiver_probs("receiver", rcv, secs)
    want_by = "client" if reverse else "server"
    if rcv.get("measured_by") != want_by:
        probs.append(f"measured_by {rcv.get('measured_by')}")
    if snd.get("frames_sent", 0) < rcv["frames"]:
        probs.append(f"sent {snd.get('frames_sent')} < received")
    ivs = [iv.get("isochronous") for iv in doc["intervals"]]
    if not ivs or any(not x or "frames" not in x[0] and
                      "frames_sent" not in x[0] for x in ivs):
        probs.append(f"intervals[].isochronous: {str(ivs)[:200]}")
    figures = (f"{rcv['frames']} frames in {secs:.2f} s = "
               f"{rcv['frames'] / secs:.2f}/s, lost {rcv['lost']}, latency "
               f"p50 {rcv['latency_us']['p50'] / 1e3:.3f} ms")
    rc, out, err, sout = loopback(args)
    text = out + sout
    if rc != 0:
        probs.append(f"text exit {rc}: {err[-200:]}")
    for pat in (r"\[\s*\d+\]\s+[\d.]+-[\d.]+\s+sec  frames \d+  lost \d+  "
                r"latency p50 [\d.]+ ms",
                r"\[\s*\d+\]\s+[\d.]+-[\d.]+\s+sec  frames sent \d+  "
                r"skipped \d+",
                r"isochronous sender: \d+ frames sent, \d+ ticks skipped",
                r"isochronous receiver.*: \d+ frames \([\d.]+/s\), 0 lost",
                r"frame latency min [-\d.]+ mean [-\d.]+ p50 [-\d.]+ p99 "
                r"[-\d.]+ max [-\d.]+ ms \(raw",
                r"inter-arrival min [\d.]+ mean [\d.]+"):
        if not re.search(pat, text):
            probs.append(f"text: no line like {pat!r}")
    return probs, figures


def case_loopback():
    for udp in (True, False):
        for reverse in (False, True):
            probs, figures = one_way(udp, reverse)
            report(f"loopback {'UDP' if udp else 'TCP'} "
                   f"{'-R' if reverse else 'upload'}: {figures}", probs)


def case_sizes():
    probs = []
    rc, out, err, _ = loopback(["-u", "--isochronous", "-t", "2", "-J"])
    if rc != 0:
        probs.append(f"exit {rc}: {err[-200:]}")
    else:
        fb = json.loads(out)["end"]["isochronous"]["streams"][0]["sender"][
            "frame_bytes"]
        want = round(20e6 / 8 / 60)
        if not fb["min"] == fb["max"] == want or fb["stddev"] != 0:
            probs.append(f"STDDEV 0: {fb} (want every frame {want})")
    rc, out, err, _ = loopback(["--isochronous=500:20m,5m", "-t", "3", "-J"])
    figures = ""
    if rc != 0:
        probs.append(f"exit {rc}: {err[-200:]}")
    else:
        st = json.loads(out)["end"]["isochronous"]["streams"][0]
        fb = st["sender"]["frame_bytes"]
        figures = (f"{fb['frames']} frames: mean {fb['mean']:.0f}, stddev "
                   f"{fb['stddev']:.0f} bytes")
        if abs(fb["mean"] - 5000) > 150:
            probs.append(f"mean {fb['mean']} (want 5000 within 3 %)")
        if abs(fb["stddev"] - 1250) > 0.15 * 1250:
            probs.append(f"stddev {fb['stddev']} (want 1250 within 15 %)")
        rb = st.get("receiver", {}).get("frame_bytes", {})
        if rb.get("mean") != fb["mean"]:
            probs.append(f"received sizes {rb} differ")
    report(f"frame sizes: 60:20m,0 exactly 41667 bytes; 500:20m,5m "
           f"{figures}", probs)


def case_owd():
    if not built_with(OURS, "HAVE_OWD"):
        skip("owd: built without --owd")
        return
    probs = []
    rc, out, err, _ = loopback(["-u", "--isochronous", "--owd", "-t", "2"])
    if rc != 0 or not re.search(r"frame latency .* ms \(corrected by the "
                                r"--owd clock offset [-+][\d.]+ ms \+/- "
                                r"[\d.]+ ms\)", out):
        probs.append(f"text: exit {rc}: {out[-300:]!r} {err[-200:]!r}")
    rc, out, err, _ = loopback(["--isochronous", "--owd", "-R", "-t", "2",
                                "-J"])
    if rc != 0:
        probs.append(f"-J: exit {rc}: {err[-200:]}")
    else:
        doc = json.loads(out)
        r = doc["end"]["isochronous"]["streams"][0]["receiver"]
        off = doc["end"]["owd"]["clock_offset_us"]
        if r.get("latency_clock") != "owd_corrected" or \
                abs(r.get("clock_offset_us", 1e9) - off) > 1e-3:
            probs.append(f"-J receiver: {r}, end.owd offset {off}")
        probs += check_schema(doc, "-J")
    report("--owd: frame latency corrected by the measured clock offset",
           probs)


def case_bad():
    port = free_port()
    srv = start_server([OURS, "-s", "-p", str(port)], port)
    probs = []
    try:
        for args, text in ((["--isochronous=0"], "--isochronous"),
                           (["--isochronous=abc"], "--isochronous"),
                           (["--isochronous=60:x"], "--isochronous"),
                           (["--isochronous", "-b", "10M"], "-b"),
                           (["--isochronous", "--bidir"], "--bidir")):
            rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                                   "-t", "1"] + args)
            if rc in (0, None) or text not in err or \
                    "parameter error" not in err:
                probs.append(f"{' '.join(args)}: exit {rc}, {err[-160:]!r}")
            if "connected to" in out:
                probs.append(f"{' '.join(args)}: a stream connected")
    finally:
        stop(srv, grace=2)
        sout = srv.stdout.read() if srv.stdout else ""
    if "Accepted connection" in sout:
        probs.append("the server accepted a test")
    report("bad values (=0, =abc, =60:x, -b, --bidir) refused before any "
           "connection", probs)


def stock_servers():
    """[(label, path or None, why absent)]: 3.12 and 3.21."""
    p312 = os.environ.get("IPERF3_STOCK") or shutil.which("iperf3")
    p321 = os.environ.get("IPERF3_321") or peer_321_path()
    return [("3.12", p312, "Debian's iperf3 not installed"),
            ("3.21", p321, f"not found or not runnable at {p321} (set "
             "IPERF3_321)")]


def case_stock():
    for label, path, why in stock_servers():
        if peer_version(path) is None:
            skip(f"stock {label} server refuses --isochronous: {why}")
            continue
        for proto in ([], ["-u"]):
            port = free_port()
            srv = subprocess.Popen([path, "-s", "-p", str(port), "-1"],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            secs, probs = 0, []
            try:
                if not wait_listening(port, srv, time.time() + 10):
                    probs.append("server did not listen")
                else:
                    rc, out, err, secs = run(
                        [OURS, "-c", "127.0.0.1", "-p", str(port), "-t",
                         "3", "--isochronous"] + proto)
                    if rc != 1:
                        probs.append(f"exit {rc} (want 1)")
                    if REFUSAL not in err:
                        probs.append(f"message: {(out + err)[-200:]!r}")
                    if "connected to" in out:
                        probs.append("a data stream was connected")
                    if secs > 5:
                        probs.append(f"took {secs:.1f} s")
            finally:
                stop(srv)
            report(f"stock {label} server: {'UDP' if proto else 'TCP'} "
                   f"--isochronous refused before any data, exit 1 in "
                   f"{secs:.1f} s", probs)


# ---- namespaces -------------------------------------------------------------

def pair():
    """Two namespaces joined by a veth pair (10.79.0.1 | 10.79.0.2), or
    None after a SKIP line."""
    if shutil.which("tc") is None:
        skip("tbf: tc (iproute2) not installed")
        return None
    made = []
    try:
        for tag in ("ia", "ib"):
            made.append(Netns(tag))
        a, b = made
        r = subprocess.run(["ip", "-n", a.name, "link", "add", "v0", "type",
                            "veth", "peer", "name", "v1", "netns", b.name],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise NetnsUnavailable(f"cannot make a veth pair: "
                                   f"{r.stderr.strip()[:160]}")
        for ns, dev, ip in ((a, "v0", "10.79.0.1/24"),
                            (b, "v1", "10.79.0.2/24")):
            for cmd in (("ip", "addr", "add", ip, "dev", dev),
                        ("ip", "link", "set", dev, "up")):
                r = ns.run(*cmd)
                if r.returncode != 0:
                    raise NetnsUnavailable(f"{' '.join(cmd)}: "
                                           f"{(r.stderr or '').strip()}")
        return a, b
    except NetnsUnavailable as e:
        for ns in made:
            ns.close()
        skip(f"tbf: {e}")
        return None


def ns_run(a, b, args, secs):
    """Our server in b, the client in a: (end.isochronous.streams[0]
    receiver or None, problems)."""
    port = free_port()
    srv = b.popen(OURS, "-s", "-1", "-p", port, stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL)
    try:
        if not b.wait_listening(port, srv, time.time() + 10):
            return None, ["server did not listen"]
        r = a.run(OURS, "-c", "10.79.0.2", "-p", port, "-t", secs, "-J",
                  *args, timeout=secs + 30)
    finally:
        stop(srv)
    if r.returncode != 0:
        return None, [f"client exit {r.returncode}: {r.stderr[-200:]} "
                      f"{r.stdout[-200:]}"]
    try:
        st = json.loads(r.stdout)["end"]["isochronous"]["streams"][0]
        st["receiver"]["skipped"] = st["sender"]["frames_skipped"]
        return st["receiver"], []
    except (ValueError, KeyError, IndexError) as e:
        return None, [f"no receiver figures: {e}"]


def case_tbf():
    ab = pair()
    if ab is None:
        return
    a, b = ab
    probs, figures = [], ""
    args = ["-u", "--isochronous=60:30m,0"]
    try:
        base, p = ns_run(a, b, args, 5)
        probs += p
        r = a.run("tc", "qdisc", "add", "dev", "v0", "root", "tbf", "rate",
                  "20mbit", "burst", "32kbit", "latency", "200ms")
        if r.returncode != 0:
            skip(f"tbf: tc qdisc add: {(r.stderr or '').strip()[:160]}")
            return
        shaped, p = ns_run(a, b, args, 5)
        probs += p
    finally:
        a.close()
        b.close()
    if base and shaped:
        b50 = base["latency_us"]["p50"] / 1e3
        s50 = shaped["latency_us"]["p50"] / 1e3
        figures = (f"p50 {b50:.3f} ms unshaped ({base['frames']} frames, "
                   f"{base['lost']} lost), {s50:.1f} ms through the tbf "
                   f"({shaped['frames']} frames, {shaped['lost']} lost, "
                   f"{shaped['skipped']} ticks the sender skipped)")
        if b50 >= 5:
            probs.append(f"unshaped p50 {b50:.3f} ms (want < 5)")
        if s50 <= 20:
            probs.append(f"shaped p50 {s50:.3f} ms (want > 20)")
    report(f"tbf 20mbit, 200 ms queue, 60:30m,0 over UDP: {figures}", probs)


CASES = [case_loopback, case_sizes, case_owd, case_bad, case_stock,
         case_tbf]


if __name__ == "__main__":
    if not built_with(OURS, "HAVE_ISOCHRONOUS"):
        skip(f"{OURS} is built without --isochronous")
        sys.exit(77)
    sys.exit(run_cases(CASES, FILTER))
