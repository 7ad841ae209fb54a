#!/usr/bin/env python3
"""Stock JSON readers still read our -J documents with the extensions on.

Two checks per option set, with our client and our server (so that every
extension key our pair adds is present: end.latency, rtt_us,
delay_var_us, lost_in_receiver, rr, ...):

  superset  every key path of the document a stock pair writes for the
            same options (3.21, else 3.12, both ends stock) is in ours
            with the same JSON type: arrays compared element-wise as one
            shape ("intervals[]"), numbers as numbers.  New keys are fine;
            a missing or retyped key is a failure.
  reader    a pScheduler-style reader (the figures its iperf3 tool takes:
            end.sum_sent / end.sum_received or, for UDP, end.sum; the
            per-interval sums; the per-stream sender fields) gets sane
            numbers out of ours.

Usage: ext_json.py OURS
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (free_port, parse_doc, report, skip,  # noqa: E402
                     stock_peers, stop, summary, wait_listening)

OURS = os.path.abspath(sys.argv[1])

# (label, options for both pairs, options only our client adds)
SETS = [
    ("tcp", ["-t", "2"], ["--latency"]),
    ("tcp -R -P 2", ["-t", "1", "-R", "-P", "2"], ["--latency"]),
    ("tcp --bidir", ["-t", "1", "--bidir"], []),
    ("udp", ["-t", "1", "-u", "-b", "50M"], ["--latency"]),
    ("udp -R", ["-t", "1", "-u", "-b", "50M", "-R"], []),
    ("tcp -P 2", ["-t", "1", "-P", "2"], ["--rr"]),
    ("udp", ["-t", "1", "-u"], ["--rr"]),
]


def pair(server, client, opts):
    port = free_port()
    srv = subprocess.Popen([server, "-s", "-1", "-p", str(port)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(port, srv, time.time() + 10):
            return None, "server did not listen"
        p = subprocess.run([client, "-c", "127.0.0.1", "-p", str(port), "-J"]
                           + opts, capture_output=True, text=True,
                           timeout=40)
    except subprocess.TimeoutExpired:
        return None, "client timed out"
    finally:
        stop(srv, grace=5)
    try:
        return parse_doc(p.stdout, "client"), None
    except ValueError as e:
        return None, f"exit {p.returncode}: {p.stderr[-200:]} ({str(e)[:300]})"


def kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if v is None:
        return "null"
    return type(v).__name__


def paths(doc, prefix=""):
    """{path: kind} with array elements merged under "[]"."""
    out = {prefix or "$": kind(doc)}
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.update(paths(v, f"{prefix}.{k}"))
    elif isinstance(doc, list):
        for v in doc:
            out.update(paths(v, f"{prefix}[]"))
    return out


def pscheduler_read(doc, udp):
    """What a pScheduler-style reader takes; raises on a missing key."""
    end = doc["end"]
    figs = {}
    if udp:
        s = end["sum"]
        figs["throughput"] = float(s["bits_per_second"])
        figs["lost"] = int(s["lost_packets"])
        figs["packets"] = int(s["packets"])
        figs["jitter"] = float(s["jitter_ms"])
    else:
        figs["sent"] = float(end["sum_sent"]["bits_per_second"])
        figs["received"] = float(end["sum_received"]["bits_per_second"])
        figs["retransmits"] = end["sum_sent"].get("retransmits", 0)
    for iv in doc["intervals"]:
        s = iv["sum"]
        if float(s["end"]) < float(s["start"]) or float(s["bytes"]) < 0:
            raise ValueError(f"interval sum {s}")
        for st in iv["streams"]:
            int(st["socket"])
            float(st["bits_per_second"])
    return figs


OUR_DISTS = {"rtt_us": ("samples", "min", "p50", "p90", "p99", "max"),
             "delay_var_us": ("samples", "p50", "p90", "p99", "max")}


def our_keys(doc, path="$", out=None):
    """Type problems of our keys (rtt_us, delay_var_us: objects of
    numbers >= 0; lost_in_receiver: an integer >= 0) wherever they are,
    and the set of paths where they were found."""
    if out is None:
        out = ([], set())
    probs, seen = out
    if isinstance(doc, dict):
        for k, v in doc.items():
            p = f"{path}.{k}"
            if k in OUR_DISTS:
                seen.add(re.sub(r"\[\d+\]", "[]", p))
                ok = isinstance(v, dict) and all(
                    kind(v.get(f)) == "number" and v[f] >= 0
                    for f in OUR_DISTS[k])
                if not ok:
                    probs.append(f"{p}: {v!r}")
            elif k == "lost_in_receiver":
                seen.add(re.sub(r"\[\d+\]", "[]", p))
                if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                    probs.append(f"{p}: {v!r}")
            else:
                our_keys(v, p, out)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            our_keys(v, f"{path}[{i}]", out)
    return out


# Where each option set must carry our figures (client's document).
WANT_KEYS = {
    "tcp": ["$.end.sum_sent.rtt_us", "$.intervals[].streams[].rtt_us"],
    "tcp -R -P 2": ["$.end.sum_sent.rtt_us",
                    "$.end.streams[].sender.rtt_us"],
    "tcp --bidir": ["$.end.sum_sent.rtt_us",
                    "$.end.sum_sent_bidir_reverse.rtt_us"],
    "udp": ["$.end.streams[].udp.delay_var_us", "$.end.sum.lost_in_receiver"],
    "udp -R": ["$.intervals[].streams[].delay_var_us",
               "$.intervals[].sum.lost_in_receiver",
               "$.end.sum_received.lost_in_receiver"],
}


def main():
    peers = stock_peers(want=("3.12", "3.21"))
    stock = peers[-1] if peers else None
    if stock is None:
        skip("superset cases: no stock iperf3 to compare with")
    for label, opts, ours_only in SETS:
        probs = []
        name = f"{label} {' '.join(ours_only)}".strip()
        udp = "-u" in opts
        ours, why = pair(OURS, OURS, opts + ours_only)
        if ours is None:
            report(f"{name}: our pair", [why])
            continue
        try:
            figs = pscheduler_read(ours, udp)
            if any(isinstance(v, float) and v <= 0 for k, v in figs.items()
                   if k in ("throughput", "sent", "received")):
                probs.append(f"reader got {figs}")
        except (KeyError, TypeError, ValueError) as e:
            probs.append(f"reader: {type(e).__name__} {e}")
        report(f"reader: {name}", probs)
        bad, seen = our_keys(ours)
        # --rr moves transactions, not a flow: its figures are end.rr's
        # (rr.py), not these
        want = [] if "--rr" in ours_only else WANT_KEYS.get(label, [])
        bad += [f"{w} missing" for w in want if w not in seen]
        report(f"our keys: {name}: {len(seen)} paths typed", bad[:8])
        if stock is None:
            continue
        ver, path = stock
        theirs, why = pair(path, path, opts)
        if theirs is None:
            report(f"superset: {name} vs {ver}", [f"stock pair: {why}"])
            continue
        mine = paths(ours)
        probs = []
        for p, k in sorted(paths(theirs).items()):
            if p not in mine:
                probs.append(f"missing {p}")
            elif mine[p] != k and not (k == "null" or mine[p] == "null"):
                probs.append(f"{p}: {mine[p]} where {ver} has {k}")
        added = sorted(set(mine) - set(paths(theirs)))
        report(f"superset: {name}: every {ver} key kept ({len(added)} "
               f"added)", probs[:8])
    return summary()


if __name__ == "__main__":
    sys.exit(main())
