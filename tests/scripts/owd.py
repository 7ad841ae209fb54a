#!/usr/bin/env python3
"""--owd: one-way delay each way, with the clock offset measured.

Loopback cases (ours on both ends, one host clock):
  text      one line per direction after the --latency lines
  json      end.owd keys, intervals[].owd (and the schema where
            python3-jsonschema is), |clock_offset_us| within
            clock_offset_bound_us (the same clock on both ends), no
            negative delay; TCP, -R and UDP
  gsro      --owd with --gsro: refused before connecting
  udpdata   UDP upload and -R: end.owd.forward_data / reverse_data (each
            datagram's send to arrival time, corrected by the offset)
            has samples, no negative figure, and its p50 within max(20 %,
            1 ms) of the probe's p50 that way
Stock servers (3.12, 3.21 where present): refused before any data, exit 1.
faketime (libfaketimeMT preloaded into our server only, driven through
its timestamp file; the host clock is never touched):
  offset    +0.25 s: the estimate within its bound of +250 ms
  step      +0.25 s, then +2 s mid-test: reliable false, reason "step",
            no negative delay
  absurd    +3 h: reason "absurd", delays neither negative nor wrapped
  udpoffset UDP upload, +0.25 s: forward_data (the server's kernel
            arrival times moved to its faked clock) within max(20 %, 1 ms)
            of the probe's forward p50
Bottleneck (network namespaces client | router | server, tbf at RATE with
QUEUE_MS of queue on one direction only, TCP cubic; ping from the sending
namespace over the same seconds):
  fwd       upload, tbf toward the server: forward p50 within max(20 %,
            1 ms) of ping's loaded minus idle round trip, reverse within
            max(20 %, 1 ms) of the idle one-way delay (idle ping / 2)
  rev       -R, tbf toward the client: the two swap
  udpfwd    UDP upload at 30 Mbit/s through the 20 Mbit/s tbf toward the
            server: forward_data p50 (the datagrams' own delay, the
            queue) within max(20 %, 1 ms) of the probe's forward p50
Each case skips with the reason where faketime, namespaces, tc or ping
are unavailable.

Usage: owd.py OURS [FILTER]
"""

import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (check_schema, free_port, refusal_problems,  # noqa: E402
                     report, run_cases, skip, stock_peers, stop, topo_or_skip,
                     wait_listening)
from testlib import timed_run as run  # noqa: E402

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
DIRS = ("forward", "reverse")
DIST = ("samples", "min", "p50", "p90", "p99", "max")
LINE = re.compile(r"^OWD (forward|reverse): (p50 \d+\.\d{3} ms  p90 "
                  r"\d+\.\d{3} ms  p99 \d+\.\d{3} ms  \(clock offset "
                  r"[+-]\d+\.\d{3} ms \+/- \d+\.\d{3} ms, drift "
                  r"-?\d+\.\d ppm\)|not reliable \(.*\)|no samples)$", re.M)


def server(env=None, args=()):
    port = free_port()
    srv = subprocess.Popen([OURS, "-s", "-p", str(port)] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env)
    if not wait_listening(port, srv, time.time() + 10):
        stop(srv)
        raise RuntimeError("server did not listen: " + srv.stderr.read())
    return srv, port


def client(port, extra, secs=2):
    return run([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", str(secs),
                "--owd"] + extra, timeout=secs + 30)


def finish(cli, timeout, probs):
    """(out, err) of a client run, stopped after timeout seconds."""
    try:
        return cli.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(cli)
        probs.append("client timed out")
        return cli.communicate()


def check_owd(probs, doc, same_clock=True):
    """end.owd and intervals[].owd in shape; the owd object or None."""
    probs += check_schema(doc, "-J")
    owd = doc.get("end", {}).get("owd")
    if not isinstance(owd, dict):
        probs.append("no end.owd")
        return None
    for d in DIRS:
        o = owd.get(d)
        if not isinstance(o, dict) or sorted(o) != sorted(DIST):
            probs.append(f"end.owd.{d}: {o}")
            continue
        vals = [o[k] for k in DIST[1:]]
        if vals != sorted(vals) or vals[0] < 0 or o["samples"] < 5:
            probs.append(f"end.owd.{d} out of order, negative or empty: {o}")
        if o["max"] > 10e6:
            probs.append(f"end.owd.{d}.max {o['max']} us: wrapped?")
    for k in ("clock_offset_us", "clock_offset_bound_us", "clock_drift_ppm"):
        if not isinstance(owd.get(k), (int, float)):
            probs.append(f"end.owd.{k}: {owd.get(k)!r}")
    if not isinstance(owd.get("reliable"), bool) or \
            (owd.get("reliable") is False) != ("unreliable_reason" in owd):
        probs.append(f"reliable {owd.get('reliable')!r} / reason "
                     f"{owd.get('unreliable_reason')!r}")
    if probs:
        return None
    if same_clock and abs(owd["clock_offset_us"]) > \
            owd["clock_offset_bound_us"]:
        probs.append(f"same clock: offset {owd['clock_offset_us']} us "
                     f"beyond its bound {owd['clock_offset_bound_us']} us")
    ivs = [iv.get("owd") for iv in doc.get("intervals", [])]
    if not ivs or any(not isinstance(v, dict) for v in ivs):
        probs.append(f"intervals[].owd: {ivs}")
    else:
        for v in ivs:
            if sorted(v) != ["forward_p50_us", "reverse_p50_us"] or \
                    min(v.values()) < 0:
                probs.append(f"intervals[].owd: {v}")
                break
    return owd


def case_text():
    probs = []
    srv, port = server()
    try:
        rc, out, err, _ = client(port, [])
    finally:
        stop(srv)
    if rc != 0:
        probs.append(f"exit {rc}: {err[-200:]}")
    got = [m.group(1) for m in LINE.finditer(out)]
    if got != list(DIRS):
        probs.append(f"OWD lines {got}: {out[-500:]!r}")
    else:
        lines = out.splitlines()
        i = lines.index(LINE.search(out).group(0))
        if not lines[i - 1].startswith("Latency loaded:") or \
                lines[i + 2] != "" or lines[i + 3] != "iperf Done.":
            probs.append(f"not after the latency lines: {lines[i - 1:i + 4]}")
    report("text: one OWD line per direction after the summary", probs)


def case_json():
    probs = []
    srv, port = server()
    try:
        for extra in ([], ["-R"], ["-u", "-b", "50M"], ["--bidir"]):
            rc, out, err, _ = client(port, ["-J"] + extra)
            sub = []
            if rc != 0:
                sub.append(f"exit {rc}: {err[-200:]}")
            else:
                check_owd(sub, json.loads(out))
            probs += [f"{' '.join(extra) or 'TCP'}: {p}" for p in sub]
    finally:
        stop(srv)
    report("json: end.owd, intervals[].owd, same clock within its bound "
           "(TCP, -R, UDP, --bidir)", probs)


def case_gsro():
    rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(free_port()),
                           "-u", "--gsro", "--owd"])
    probs = [] if rc == 1 and "--owd cannot be used with --gsro" in err \
        else [f"exit {rc}: {(out + err)[-200:]!r}"]
    report("gsro: --owd with --gsro refused", probs)


def check_data(probs, owd, key):
    """end.owd[key] (forward_data / reverse_data) against the probe."""
    d = owd.get(key)
    if not isinstance(d, dict) or sorted(d) != sorted(DIST + ("clamped",)):
        probs.append(f"end.owd.{key}: {d}")
        return
    vals = [d[k] for k in DIST[1:]]
    if d["samples"] < 10 or vals != sorted(vals) or vals[0] < 0 or \
            d["max"] > 10e6:
        probs.append(f"end.owd.{key}: empty, out of order or wrapped: {d}")
    if d["clamped"] > d["samples"] // 100:
        probs.append(f"end.owd.{key}: {d['clamped']} clamped")
    probe = owd[key.split("_")[0]]["p50"]
    if not near(d["p50"] / 1000, probe / 1000):
        probs.append(f"end.owd.{key}.p50 {d['p50']} us vs the probe's "
                     f"{probe} us")


def case_udpdata():
    probs = []
    srv, port = server()
    try:
        for extra, key in ((["-u", "-b", "20M"], "forward_data"),
                           (["-u", "-b", "20M", "-R"], "reverse_data")):
            rc, out, err, _ = client(port, ["-J"] + extra, secs=3)
            sub = []
            if rc != 0:
                sub.append(f"exit {rc}: {err[-200:]}")
            else:
                owd = check_owd(sub, json.loads(out))
                if owd is not None:
                    check_data(sub, owd, key)
                    other = "reverse_data" if key == "forward_data" else \
                        "forward_data"
                    if other in owd:
                        sub.append(f"{other} in a one-way test")
            probs += [f"{' '.join(extra)}: {p}" for p in sub]
    finally:
        stop(srv)
    report("udpdata: UDP upload and -R, each datagram's one-way delay",
           probs)


def case_stock():
    for ver, path in stock_peers():
        port = free_port()
        srv = subprocess.Popen([path, "-s", "-p", str(port)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        secs = 0.0
        try:
            if not wait_listening(port, srv, time.time() + 10):
                report(f"stock {ver} server refuses --owd",
                       ["server did not listen"])
                continue
            rc, out, err, secs = client(port, [])
            probs = refusal_problems(rc, out, err, secs)
        finally:
            stop(srv)
        report(f"stock {ver} server: --owd refused before any data, exit 1 "
               f"in {secs:.1f} s", probs)


# ---- faketime on our server only ---------------------------------------------

def faketime_lib():
    libs = sorted(glob.glob("/usr/lib/*/faketime/libfaketimeMT.so.1") +
                  glob.glob("/usr/lib/faketime/libfaketimeMT.so.1"))
    return libs[0] if libs else None


def faketime_unavailable():
    if faketime_lib() is None:
        return "libfaketimeMT not installed (apt-get install faketime)"
    with open(OURS, "rb") as f:
        if f.read(2) == b"#!":
            return None  # libtool's wrapper: the preload reaches the program
    if shutil.which("ldd") is not None:
        r = subprocess.run(["ldd", OURS], capture_output=True, text=True)
        out = r.stdout + r.stderr
        if "not a dynamic executable" in out or "statically linked" in out:
            return "our iperf3 is static: LD_PRELOAD cannot reach it"
        if "libasan" in out or "libtsan" in out:
            return "a sanitizer build: its runtime must be preloaded first"
    return None


def faketime_case(label, first, then, secs, check, extra=("-b", "100M")):
    why = faketime_unavailable()
    if why:
        skip(f"faketime {label}: {why}")
        return
    probs = []
    with tempfile.TemporaryDirectory() as tmp:
        ts = os.path.join(tmp, "ts")
        with open(ts, "w") as f:
            f.write(first + "\n")
        env = dict(os.environ, LD_PRELOAD=faketime_lib(),
                   FAKETIME_TIMESTAMP_FILE=ts, FAKETIME_DONT_FAKE_MONOTONIC="1",
                   FAKETIME_CACHE_DURATION="1")
        srv, port = server(env=env)
        try:
            cli = subprocess.Popen([OURS, "-c", "127.0.0.1", "-p", str(port),
                                    "-t", str(secs), "--owd", "-J",
                                    *extra], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            if then is not None:
                time.sleep(1 + secs / 2)
                with open(ts + ".new", "w") as f:
                    f.write(then + "\n")
                os.replace(ts + ".new", ts)
            out, err = finish(cli, secs + 30, probs)
        finally:
            stop(srv)
    if cli.returncode != 0:
        probs.append(f"exit {cli.returncode}: {err[-200:]}")
        owd = None
    else:
        owd = check_owd(probs, json.loads(out), same_clock=False)
    if owd is not None:
        check(probs, owd)
    o = owd or {}
    report(f"faketime {label}: offset {o.get('clock_offset_us')} us +/- "
           f"{o.get('clock_offset_bound_us')}, reliable {o.get('reliable')} "
           f"({o.get('unreliable_reason', '')})", probs)


def check_offset(probs, owd):
    off, bound = owd["clock_offset_us"], owd["clock_offset_bound_us"]
    if abs(off - 250000) > bound:
        probs.append(f"offset {off} us: 250000 not within its bound {bound}")
    if owd.get("unreliable_reason") in ("step", "absurd"):
        probs.append(f"reason {owd['unreliable_reason']}")


def check_step(probs, owd):
    if owd["reliable"] is not False or owd.get("unreliable_reason") != "step":
        probs.append(f"want reliable false, reason step: {owd}")


def check_absurd(probs, owd):
    if owd.get("unreliable_reason") != "absurd":
        probs.append(f"want reason absurd: {owd}")
    if abs(owd["clock_offset_us"] - 3 * 3600e6) > 1e6:
        probs.append(f"offset {owd['clock_offset_us']} us, not +3 h")
    for d in DIRS:
        if owd[d]["p50"] > 100000:
            probs.append(f"{d} p50 {owd[d]['p50']} us (wrapped?)")


def check_udp_offset(probs, owd):
    check_offset(probs, owd)
    check_data(probs, owd, "forward_data")


def case_faketime_udp():
    faketime_case("udpoffset", "+0.25s", None, 3, check_udp_offset,
                  ("-u", "-b", "20M"))


def case_faketime_offset():
    faketime_case("+0.25 s recovered within its bound", "+0.25s", None, 3,
                  check_offset)


def case_faketime_step():
    faketime_case("a step of +1.75 s mid-test", "+0.25s", "+2s", 6,
                  check_step)


def case_faketime_absurd():
    faketime_case("+3 h is absurd, not wrapped", "+3h", None, 3,
                  check_absurd)


# ---- the bottleneck ------------------------------------------------------------

RATE = "20mbit"
QUEUE_MS = 40
LOAD_SECS = 8
PING_FROM = 3  # seconds into the load when ping starts (the queue is up)


def ping_times(out):
    return [float(m.group(1)) for m in re.finditer(r"time=([\d.]+) ms", out)]


def near(got, want):
    return abs(got - want) <= max(0.2 * abs(want), 1.0)


def bottleneck(shape):
    """(probs, figures) of one run with tbf on `shape`'s direction."""
    topo = topo_or_skip(f"bottleneck {shape}", RATE, QUEUE_MS, shape)
    if topo is None:
        return None, None
    rev = shape == "rev"
    # ping from the sending namespace toward the receiving one
    pns, dst = (topo.s, "10.77.1.1") if rev else (topo.c, "10.77.2.2")
    probs = []
    try:
        port = free_port()
        srv = topo.s.popen(OURS, "-s", "-p", port, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if not topo.s.wait_listening(port, srv, time.time() + 10):
            return ["server did not listen"], ""
        idle = ping_times(pns.run("ping", "-n", "-c", "10", "-i", "0.2", dst,
                                  timeout=10).stdout)
        cli = topo.c.popen(OURS, "-c", "10.77.2.2", "-p", port, "-t",
                           LOAD_SECS, "-C", "cubic", "--owd", "-J",
                           *(["-R"] if rev else []), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        time.sleep(1 + PING_FROM)  # the idle phase, then the queue builds
        n = int((LOAD_SECS - PING_FROM - 0.5) / 0.2)
        loaded = ping_times(pns.run("ping", "-n", "-c", str(n), "-i", "0.2",
                                    dst, timeout=LOAD_SECS + 5).stdout)
        out, err = finish(cli, LOAD_SECS + 30, probs)
        stop(srv)
    finally:
        topo.close()
    if len(idle) < 5 or len(loaded) < n // 2:
        return probs + [f"ping: {len(idle)} idle, {len(loaded)} loaded "
                        "replies"], ""
    try:
        doc = json.loads(out)
    except ValueError:
        return probs + [f"client: {err[-200:]} {out[-200:]}"], ""
    owd = check_owd(probs, doc)
    if owd is None:
        return probs, ""
    # our per-interval p50s over the seconds ping ran
    ivs = [iv["owd"] for iv in doc["intervals"][PING_FROM:]]
    queue = statistics.median(loaded) - statistics.median(idle)
    one_way = statistics.median(idle) / 2
    busy, calm = ("reverse", "forward") if rev else ("forward", "reverse")
    got_busy = statistics.median(v[busy + "_p50_us"] for v in ivs) / 1000
    got_calm = statistics.median(v[calm + "_p50_us"] for v in ivs) / 1000
    figures = (f"ping idle {statistics.median(idle):.2f} ms, queue "
               f"{queue:.1f} ms; {busy} p50 {got_busy:.1f} ms, {calm} p50 "
               f"{got_calm:.2f} ms")
    if queue < QUEUE_MS / 4:
        probs.append(f"no queue built: {queue:.1f} ms")
    if not near(got_busy, queue):
        probs.append(f"{busy} {got_busy:.2f} ms vs queue {queue:.2f} ms")
    if not near(got_calm, one_way):
        probs.append(f"{calm} {got_calm:.2f} ms vs idle one-way "
                     f"{one_way:.2f} ms")
    return probs, figures


def bottleneck_case(shape, what):
    if shutil.which("ping") is None:
        skip(f"bottleneck {shape}: ping not installed "
             "(apt-get install iputils-ping)")
        return
    probs, figures = bottleneck(shape)
    if probs is not None:
        report(f"bottleneck {shape}: {what}: {figures}", probs)


def case_fwd():
    bottleneck_case("fwd", "upload through tbf toward the server")


def case_rev():
    bottleneck_case("rev", "-R through tbf toward the client")


def case_udpfwd():
    topo = topo_or_skip("bottleneck udpfwd", RATE, QUEUE_MS, "fwd")
    if topo is None:
        return
    probs = []
    try:
        port = free_port()
        srv = topo.s.popen(OURS, "-s", "-p", port, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if not topo.s.wait_listening(port, srv, time.time() + 10):
            stop(srv)
            report("bottleneck udpfwd", ["server did not listen"])
            return
        cli = topo.c.popen(OURS, "-c", "10.77.2.2", "-p", port, "-t", 5,
                           "-u", "-b", "30M", "--owd", "-J",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        out, err = finish(cli, 40, probs)
        stop(srv)
    finally:
        topo.close()
    owd = None
    try:
        owd = check_owd(probs, json.loads(out))
    except ValueError:
        probs.append(f"client: {err[-200:]} {out[-200:]}")
    if owd is not None:
        check_data(probs, owd, "forward_data")
    o = (owd or {}).get("forward_data", {})
    report(f"bottleneck udpfwd: UDP above the tbf rate: forward_data p50 "
           f"{o.get('p50')} us, probe forward p50 "
           f"{(owd or {}).get('forward', {}).get('p50')} us", probs)


CASES = [case_text, case_json, case_gsro, case_udpdata, case_stock,
         case_faketime_offset, case_faketime_step, case_faketime_absurd,
         case_faketime_udp, case_fwd, case_rev, case_udpfwd]


if __name__ == "__main__":
    sys.exit(run_cases(CASES, FILTER))
