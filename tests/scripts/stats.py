#!/usr/bin/env python3
"""Our statistics beyond stock: rtt_us, delay_var_us, lost_in_receiver.

Loopback, ours on both ends:
  tcp          rtt_us in every interval (stream and sum), end.streams[].
               sender and end.sum_sent: samples > the interval count,
               0 < min <= p50 <= p90 <= p99 <= max; the end's samples are
               the non-omitted intervals' (-O 1)
  tcp -R       our server sends rtt_us for its streams (end.streams[].
               sender, end.sum_sent: the streams' samples added up); no
               rtt_us in the client's intervals (it sends nothing)
  tcp --bidir  both directions carry rtt_us at the end
  udp          delay_var_us in the receiver's intervals and at the end
               (from our server, and locally with -R), lost_in_receiver 0
               at a paced rate, no hint line
  rxq          a receiver with -w 4K and an unpaced sender (-l 1400):
               lost_in_receiver close to lost_packets and the hint line
               after the summary, with and without UDP offload, both
               directions
Stock peers (3.12, and 3.21 where present):
  our client, stock server: rtt_us in normal mode; -R: none, no failure;
               UDP -R (stock sender): delay_var_us and lost_in_receiver
  stock client, our server: the client's -J document (with
               --get-server-output) has none of our keys; our server's own
               -J output has delay_var_us for the stock sender's datagrams
Bottleneck (network namespaces client | router | server, tbf of
BOTTLENECK_RATE with QUEUE_MS of queue): UDP above the rate shows
delay_var_us p99 of the order of the queue, the loss in the network
(lost_in_receiver small, no hint).  Skipped with the reason where
namespaces or tc are unavailable.

Usage: stats.py OURS [case-filter]
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (built_with, free_port, parse_doc,  # noqa: E402
                     report, run_cases, skip, stock_peers, stop,
                     topo_or_skip, wait_listening)

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
# configure's peerival: our server's interval figures reach our client
# (rtt_us of -R/--bidir receiving streams, the sums' delay_var_us)
PEERIVAL = built_with(OURS, "HAVE_PEERIVAL")
KEYS = ("rtt_us", "delay_var_us", "lost_in_receiver", "peer_udp")
RTT_FIELDS = ("samples", "min", "p50", "p90", "p99", "max")
DELAY_FIELDS = ("samples", "p50", "p90", "p99", "max")
HINT = re.compile(r"^Note: (\d+) of (\d+) lost datagrams \((\d+)%\) were "
                  r"dropped by the receiving host's socket buffer, not the "
                  r"network; try a larger -w, or raise net.core.rmem_max\.$",
                  re.M)
BOTTLENECK_RATE = "20mbit"
QUEUE_MS = 40


# ---- running ----------------------------------------------------------------

def pair(client_argv, server=OURS, server_args=(), client=OURS, timeout=40):
    """One test against a fresh -1 server: (client rc, client stdout,
    client stderr, server stdout)."""
    port = free_port()
    srv = subprocess.Popen([server, "-s", "-1", "-p", str(port)] +
                           list(server_args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        if not wait_listening(port, srv, time.time() + 10):
            return None, "", "server did not listen", ""
        try:
            p = subprocess.run([client, "-c", "127.0.0.1", "-p", str(port)] +
                               list(client_argv), capture_output=True,
                               text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "", f"client timed out after {timeout} s", ""
        try:
            sout, _ = srv.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            stop(srv)
            sout, _ = srv.communicate()
        return p.returncode, p.stdout, p.stderr, sout
    finally:
        stop(srv)


def run_json(probs, client_argv, **kw):
    """pair() with -J: the client's document, or None (with a problem)."""
    rc, out, err, sout = pair(list(client_argv) + ["-J"], **kw)
    try:
        doc = parse_doc(out, "client")
    except ValueError as e:
        probs.append(f"client exit {rc}: {err.strip()[-200:]} "
                     f"{out.strip()[-200:]} ({str(e)[:300]})")
        return None, sout
    if rc != 0 or "error" in doc:
        probs.append(f"client exit {rc}: {doc.get('error', '')}")
    return doc, sout


def find_keys(doc, path="$"):
    """Paths of our keys anywhere in a JSON tree."""
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in KEYS:
                out.append(f"{path}.{k}")
            out += find_keys(v, f"{path}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += find_keys(v, f"{path}[{i}]")
    return out


# ---- checks -----------------------------------------------------------------

def check_rtt(probs, what, d, min_samples=1):
    """A sane rtt_us object: samples >= min_samples, 0 < min <= ... <= max."""
    if not isinstance(d, dict):
        probs.append(f"{what}: rtt_us missing")
        return 0
    vals = [d.get(k) for k in RTT_FIELDS]
    if any(not isinstance(v, (int, float)) or isinstance(v, bool)
           for v in vals):
        probs.append(f"{what}: rtt_us lacks numbers: {d}")
        return 0
    n, order = vals[0], vals[1:]
    if n < min_samples:
        probs.append(f"{what}: {n} samples (want >= {min_samples})")
    if order != sorted(order) or order[0] <= 0:
        probs.append(f"{what}: rtt_us out of order or not positive: {d}")
    return n


def check_delay(probs, what, d, min_samples=1):
    """A sane delay_var_us object: 0 <= p50 <= p90 <= p99 <= max."""
    if not isinstance(d, dict):
        probs.append(f"{what}: delay_var_us missing")
        return None
    vals = [d.get(k) for k in DELAY_FIELDS]
    if any(not isinstance(v, (int, float)) or isinstance(v, bool)
           for v in vals):
        probs.append(f"{what}: delay_var_us lacks numbers: {d}")
        return None
    if vals[0] < min_samples:
        probs.append(f"{what}: {vals[0]} samples (want >= {min_samples})")
    if vals[1:] != sorted(vals[1:]) or vals[1] < 0:
        probs.append(f"{what}: delay_var_us out of order: {d}")
    return d


def check_count(probs, what, v):
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        probs.append(f"{what}: lost_in_receiver {v!r}")
        return None
    return v


# ---- TCP ----------------------------------------------------------------------

def case_tcp():
    probs = []
    doc, _ = run_json(probs, ["-t", "3", "-O", "1"])
    if doc is None:
        report("tcp: rtt_us", probs)
        return
    ivs = doc.get("intervals", [])
    kept = 0
    for i, iv in enumerate(ivs):
        st = iv["streams"][0]
        n = check_rtt(probs, f"interval {i}", st.get("rtt_us"), 10)
        check_rtt(probs, f"interval {i} sum", iv["sum"].get("rtt_us"), 10)
        if not st.get("omitted"):
            kept += n
    end = doc.get("end", {})
    n = check_rtt(probs, "end stream", end.get("streams", [{}])[0]
                  .get("sender", {}).get("rtt_us"), len(ivs) + 1)
    if n != kept:
        probs.append(f"end has {n} samples, the non-omitted intervals "
                     f"{kept}")
    check_rtt(probs, "end.sum_sent", end.get("sum_sent", {}).get("rtt_us"),
              len(ivs) + 1)
    if "rtt_us" in end.get("streams", [{}])[0].get("receiver", {}):
        probs.append("rtt_us in the receiver object")
    report(f"tcp -O 1: rtt_us in {len(ivs)} intervals and the end "
           f"({n} samples)", probs)


def case_tcp_reverse():
    probs = []
    doc, sout = run_json(probs, ["-t", "2", "-R", "-P", "2"],
                         server_args=["-J"])
    if doc is None:
        report("tcp -R -P 2: rtt_us from our server", probs)
        return
    found = [p for iv in doc.get("intervals", []) for p in find_keys(iv)]
    if found and not PEERIVAL:
        probs.append(f"receiving client has {found[:2]}")
    end = doc.get("end", {})
    total = 0
    for i, st in enumerate(end.get("streams", [])):
        total += check_rtt(probs, f"end stream {i}",
                           st.get("sender", {}).get("rtt_us"), 3)
    s = end.get("sum_sent", {}).get("rtt_us")
    if check_rtt(probs, "end.sum_sent", s, 3) != total:
        probs.append(f"sum_sent samples {s} != streams' {total}")
    try:
        sdoc = json.loads(sout)
        check_rtt(probs, "server's own interval",
                  sdoc["intervals"][0]["streams"][0].get("rtt_us"), 10)
    except (ValueError, KeyError, IndexError) as e:
        probs.append(f"server -J output: {type(e).__name__} {e}")
    report(f"tcp -R -P 2: rtt_us from our server ({total} samples)", probs)


def case_tcp_bidir():
    probs = []
    doc, _ = run_json(probs, ["-t", "2", "--bidir"])
    if doc is None:
        report("tcp --bidir: rtt_us both ways", probs)
        return
    end = doc.get("end", {})
    for st in end.get("streams", []):
        who = "client" if st["sender"]["sender"] else "server"
        check_rtt(probs, f"{who}-sent stream", st["sender"].get("rtt_us"), 3)
    for key in ("sum_sent", "sum_sent_bidir_reverse"):
        check_rtt(probs, key, end.get(key, {}).get("rtt_us"), 3)
    for iv in doc.get("intervals", []) if not PEERIVAL else []:
        if "rtt_us" not in iv["sum"] or \
                "rtt_us" in iv.get("sum_bidir_reverse", {}):
            probs.append("interval sums: rtt_us not only in the sending "
                         "one")
            break
    report("tcp --bidir: rtt_us both ways", probs)


def case_rtt_same_samples():
    """rtt_us holds every sample the stock min_rtt/max_rtt come from (the
    interval ends' reads, besides the sender's own every 5 ms): its min is
    at most min_rtt and its max at least max_rtt, for every sending
    stream, on both ends.  (A --bidir run once showed rtt_us 4..1021 us
    where min_rtt/max_rtt were 69..1662.)"""
    probs = []
    checked = 0
    # A paced sender (-b 1M: one 128K block a second) samples seldom:
    # there the interval ends' reads were outside rtt_us.
    for args in (["--bidir"], ["-P", "2"], ["-R"], ["-O", "1", "-t", "3"],
                 ["-b", "1M", "-t", "3"], ["-b", "1M", "-t", "3", "-R"]):
        doc, sout = run_json(probs, ["-t", "2", "-i", "0.5"] + args,
                             server_args=["-J"])
        try:
            sdoc = json.loads(sout)
        except ValueError:
            probs.append(f"{args}: server -J output unreadable")
            continue
        for who, d in (("client", doc), ("server", sdoc)):
            for st in (d or {}).get("end", {}).get("streams", []):
                snd = st.get("sender", {})
                r = snd.get("rtt_us")
                if not snd.get("sender") or not isinstance(r, dict) or \
                        not snd.get("max_rtt"):
                    continue
                checked += 1
                if not (r["min"] <= snd["min_rtt"] <= snd["max_rtt"] <=
                        r["max"]):
                    probs.append(f"{' '.join(args)} {who}: rtt_us "
                                 f"{r['min']}..{r['max']}, min_rtt/max_rtt "
                                 f"{snd['min_rtt']}..{snd['max_rtt']}")
    if checked < 5:
        probs.append(f"only {checked} sending streams had both figures")
    report(f"rtt_us spans min_rtt..max_rtt ({checked} streams)", probs)


# ---- our server's interval figures (peerival) ---------------------------------

def peer_intervals(probs, doc, what):
    """The intervals that must carry our server's figures: all but the
    client's final one (it does not wait for them)."""
    ivs = (doc or {}).get("intervals", [])
    if len(ivs) < 3:
        probs.append(f"{what}: {len(ivs)} intervals")
    return [iv for iv in ivs[:-1] if not iv["sum"].get("omitted")]


def case_peer_rtt():
    """-R and --bidir: the client's receiving streams and their sums carry
    rtt_us from our server's sending streams, in every interval."""
    if not PEERIVAL:
        skip("peer rtt_us: built with --disable-peerival")
        return
    for opts, key in ((["-R", "-P", "2"], "sum"),
                      (["--bidir", "-P", "2"], "sum_bidir_reverse")):
        probs = []
        label = f"peer intervals: rtt_us, tcp {' '.join(opts)}"
        doc, _ = run_json(probs, ["-t", "3", "-i", "0.5"] + opts)
        ivs = peer_intervals(probs, doc, label)
        for i, iv in enumerate(ivs):
            for j, st in enumerate(iv["streams"]):
                if not st.get("sender"):
                    check_rtt(probs, f"interval {i} stream {j}",
                              st.get("rtt_us"))
            check_rtt(probs, f"interval {i} {key}", iv.get(key, {})
                      .get("rtt_us"))
        report(f"{label}: {len(ivs)} intervals", probs)


def p50s_around(probs, what, sum_d, streams):
    """The sum's p50 lies between its streams' p50s (1 us of rounding)."""
    if not isinstance(sum_d, dict) or None in streams or not streams:
        return
    lo = min(d["p50"] for d in streams)
    hi = max(d["p50"] for d in streams)
    if not lo - 1 <= sum_d["p50"] <= hi + 1:
        probs.append(f"{what}: sum p50 {sum_d['p50']} outside the "
                     f"streams' {lo}..{hi}")


def case_peer_delay_sum():
    """UDP -P 2 upload (our server's figures) and -R (the client's own):
    intervals[].sum and end.sum/sum_received carry delay_var_us, with the
    sum's p50 between the streams' p50s; the upload's streams and sum
    carry peer_udp (the server's loss and jitter), -R's none."""
    if not PEERIVAL:
        skip("sums' delay_var_us: built with --disable-peerival")
        return
    for opts in (["-u", "-b", "20M", "-P", "2"],
                 ["-u", "-b", "20M", "-P", "2", "-R"]):
        probs = []
        label = f"sums' delay_var_us, {' '.join(opts)}"
        doc, _ = run_json(probs, ["-t", "3", "-i", "0.5"] + opts)
        ivs = peer_intervals(probs, doc, label)
        for i, iv in enumerate(ivs):
            st = [check_delay(probs, f"interval {i} stream {j}",
                              s.get("delay_var_us"))
                  for j, s in enumerate(iv["streams"])]
            d = check_delay(probs, f"interval {i} sum",
                            iv["sum"].get("delay_var_us"))
            p50s_around(probs, f"interval {i}", d, st)
            for what, o in [("sum", iv["sum"])] + list(enumerate(
                    iv["streams"])):
                u = o.get("peer_udp")
                if ("-R" in opts and u is not None) or ("-R" not in opts and
                                                       not (u or {}).get(
                                                           "packets")):
                    probs.append(f"interval {i} {what}: peer_udp {u}")
        end = (doc or {}).get("end", {})
        st = [check_delay(probs, f"end stream {j}",
                          s.get("udp", {}).get("delay_var_us"), 10)
              for j, s in enumerate(end.get("streams", []))]
        for key in ("sum", "sum_received"):
            d = check_delay(probs, f"end.{key}",
                            end.get(key, {}).get("delay_var_us"), 20)
            p50s_around(probs, f"end.{key}", d, st)
        report(f"{label}: {len(ivs)} intervals", probs)


# ---- UDP ----------------------------------------------------------------------

def udp_receiver_checks(probs, doc, local):
    """delay_var_us and lost_in_receiver where the receiver reports."""
    for i, iv in enumerate(doc.get("intervals", []) if local else []):
        st = iv["streams"][0]
        # a last sliver of an interval (a server's, after the client's
        # end) may hold a datagram or two
        check_delay(probs, f"interval {i}", st.get("delay_var_us"),
                    10 if iv["sum"].get("seconds", 1) >= 0.5 else 1)
        check_count(probs, f"interval {i}", st.get("lost_in_receiver"))
        check_count(probs, f"interval {i} sum",
                    iv["sum"].get("lost_in_receiver"))
    end = doc.get("end", {})
    u = end.get("streams", [{}])[0].get("udp", {})
    d = check_delay(probs, "end stream", u.get("delay_var_us"), 50)
    rxq = check_count(probs, "end stream", u.get("lost_in_receiver"))
    for key in ("sum", "sum_received"):
        check_count(probs, f"end.{key}", end.get(key, {})
                    .get("lost_in_receiver"))
    return d, rxq


def case_udp():
    for opts, local in ((["-b", "50M"], False), (["-b", "50M", "-R"], True),
                        (["-b", "50M", "--no-udp-offload"], False)):
        probs = []
        label = f"udp {' '.join(opts)}"
        rc, out, err, _ = pair(["-u", "-t", "2"] + opts)
        if HINT.search(out):
            probs.append("hint line at a paced rate")
        doc, _ = run_json(probs, ["-u", "-t", "2"] + opts)
        d, rxq = udp_receiver_checks(probs, doc, local) if doc else (None,
                                                                     None)
        if rxq:
            probs.append(f"lost_in_receiver {rxq} at 50 Mbit/s")
        report(f"{label}: delay_var_us {d}, lost_in_receiver {rxq}", probs)


def case_rxq():
    for opts in (["-u", "-b", "0", "-l", "1400", "-w", "4K"],
                 ["-u", "-b", "0", "-l", "1400", "-w", "4K",
                  "--no-udp-offload"],
                 ["-u", "-b", "0", "-l", "1400", "-w", "4K", "-R"]):
        probs = []
        label = " ".join(opts)
        doc, _ = run_json(probs, ["-t", "2"] + opts)
        figs = ""
        if doc:
            s = doc["end"].get("sum", {})
            lost, rxq = s.get("lost_packets", 0), s.get("lost_in_receiver")
            figs = f"lost {lost}, lost_in_receiver {rxq}"
            if not lost or not isinstance(rxq, int) or \
                    not 0.8 * lost <= rxq <= 1.05 * lost:
                probs.append(f"{figs}: want lost_in_receiver within 80-105 %"
                             " of lost_packets")
        rc, out, err, _ = pair(["-t", "2"] + opts)
        m = HINT.search(out)
        if not m:
            probs.append(f"no hint line (exit {rc}): {out[-300:]}")
        elif out.index(m.group(0)) < out.rfind(" receiver\n"):
            probs.append("hint line before the summary")
        report(f"rxq {label}: {figs}, hint "
               f"{m.group(3) + '%' if m else 'missing'}", probs)


# ---- stock peers ----------------------------------------------------------------

def case_stock_servers():
    for ver, path in stock_peers():
        for opts, want in ((["-t", "1"], "rtt"), (["-t", "1", "-R"], None),
                           (["-t", "2", "-i", "0.5", "--bidir"], "bidir"),
                           (["-t", "1", "-u", "-b", "20M", "-R"], "udp")):
            probs = []
            doc, _ = run_json(probs, opts, server=path)
            label = f"stock {ver} server, our client {' '.join(opts)}"
            if doc is None:
                report(label, probs)
                continue
            found = find_keys(doc)
            if want is None and found:
                probs.append(f"keys without a measurement: {found[:3]}")
            if want == "rtt":
                check_rtt(probs, "end.sum_sent",
                          doc["end"]["sum_sent"].get("rtt_us"), 10)
                check_rtt(probs, "interval 0", doc["intervals"][0]
                          ["streams"][0].get("rtt_us"), 10)
            if want == "udp":
                udp_receiver_checks(probs, doc, True)
            if want == "bidir":  # only the client's own sending streams
                found = [p for iv in doc.get("intervals", [])
                         for p in find_keys([s for s in iv["streams"]
                                             if not s.get("sender")] +
                                            [iv.get("sum_bidir_reverse")])]
                if found:
                    probs.append(f"receiving side has {found[:2]}")
            report(f"{label}: {want or 'no'} figures", probs)


def case_stock_clients():
    for ver, path in stock_peers():
        for opts in (["-t", "1", "-R"], ["-t", "1", "--bidir"],
                     ["-t", "1", "-u", "-b", "20M"],
                     ["-t", "1", "-u", "-b", "20M", "-R"]):
            probs = []
            label = f"stock {ver} client, our server {' '.join(opts)}"
            doc, sout = run_json(probs, opts + ["--get-server-output"],
                                 client=path, server_args=["-J"])
            if doc is None:
                report(label, probs)
                continue
            if "server_output_json" not in doc:
                probs.append("no server_output_json")
            found = find_keys(doc)
            if found:
                probs.append(f"our keys reach a stock client: {found[:3]}")
            if "-u" in opts and "-R" not in opts:
                try:
                    sdoc = json.loads(sout)
                    udp_receiver_checks(probs, sdoc, True)
                except ValueError:
                    probs.append(f"server -J: {sout[-200:]}")
            report(f"{label}: stock document", probs)


# ---- the bottleneck ---------------------------------------------------------------

def case_bottleneck():
    topo = topo_or_skip("bottleneck", BOTTLENECK_RATE, QUEUE_MS)
    if topo is None:
        return
    probs = []
    try:
        port = free_port()
        srv = topo.s.popen(OURS, "-s", "-p", port, "-1",
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if not topo.s.wait_listening(port, srv, time.time() + 10):
            report("bottleneck: server did not listen", ["no listen"])
            return
        r = topo.c.run(OURS, "-c", "10.77.2.2", "-p", port, "-t", "4", "-u",
                       "-b", "30M", "-l", "1400", "-J", timeout=40)
        stop(srv)
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            doc = None
            probs.append(f"client exit {r.returncode}: {r.stderr[-200:]}")
        figs = ""
        if doc:
            u = doc["end"]["streams"][0]["udp"]
            d = check_delay(probs, "end stream", u.get("delay_var_us"), 100)
            lost, rxq = u.get("lost_packets", 0), u.get("lost_in_receiver")
            if d:
                figs = (f"delay_var_us p50 {d['p50'] / 1000:.1f} ms, p99 "
                        f"{d['p99'] / 1000:.1f} ms, max "
                        f"{d['max'] / 1000:.1f} ms; lost {lost}, "
                        f"lost_in_receiver {rxq}")
                if not QUEUE_MS * 1000 / 4 <= d["p99"] <= QUEUE_MS * 2500:
                    probs.append(f"p99 {d['p99']} us is not of the order of "
                                 f"the {QUEUE_MS} ms queue")
            if not lost or not isinstance(rxq, int) or rxq * 2 > lost:
                probs.append(f"lost {lost}, lost_in_receiver {rxq}: want the "
                             "loss in the network")
        report(f"bottleneck: {BOTTLENECK_RATE} tbf with {QUEUE_MS} ms of "
               f"queue, UDP 30M: {figs}", probs)
    finally:
        topo.close()


CASES = [case_tcp, case_tcp_reverse, case_tcp_bidir, case_rtt_same_samples,
         case_peer_rtt, case_peer_delay_sum, case_udp, case_rxq,
         case_stock_servers, case_stock_clients, case_bottleneck]


if __name__ == "__main__":
    sys.exit(run_cases(CASES, FILTER))
