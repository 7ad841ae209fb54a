#!/usr/bin/env python3
"""--rr: request/response transactions between our client and server.

Loopback cases (ours on both ends):
  text      the --rr tables (iperf3(1)): interval rows with Trans/s and
            p50/p90/p99, a summary with Trans, Trans/s, p50..max; the
            server's intervals have no latencies, its summary the
            client's; the test ends on time
  json      intervals[].streams[i].rr and .sum.rr, end.streams[i].rr and
            end.rr: transactions > 0 (or 0 at 0 tx/s in a last interval
            under 0.25 s), transactions_per_second =
            transactions / seconds, min <= p50 <= p90 <= p99 <= p999 <=
            max, mean within [min, max]; interval transactions add up to
            the end's; every stock key still there; the server's end.rr
            has the client's latencies
  P2        -P 2: two streams, sums of both
  udp       -u: "lost" and "stale" keys, UDP stock keys
  sizes     -l 100 --rr-response 1000, TCP and UDP: bytes moved are
            1100 per transaction
  omit      -O 1: the omitted second counts nowhere in the end figures
  multi     two --rr clients at once on one --max-tests 2 server
Loss (network namespace, an nft rule on input dropping 5 % of the data
datagrams each way): the test still ends on time, losses are counted,
answered transactions go on.  Skipped with the reason where namespaces
or nft are unavailable.
  reverse   -R and --bidir, TCP and UDP: the end whose stream sends
            requests (its intervals have the latencies); the client's
            end.streams[i].rr and end.rr have the same round trips as the
            server's
  old server  a server of ours from before -R/--bidir (IPERF3_OLD_OURS;
            without it, emulated: SERVER_ERROR IERECVPARAMS after the
            parameters) refuses --rr -R and --bidir before data
Stock servers (3.12, 3.21 where present): the client stops before any
data connection with the refusal message and exit 1 within seconds
(plain --rr, -R and --bidir).

Usage: rr.py OURS [CASE-FILTER]
"""

import concurrent.futures
import json
import os
import re
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (Netns, NetnsUnavailable, check_distribution,  # noqa: E402
                     check_schema, skip_unless_option, listener, recv_exact,
                     free_port, parse_doc, refusal_problems, report,
                     run_cases, skip, stock_peers, stop, wait_listening)
from testlib import timed_run as run  # noqa: E402

OURS = os.path.abspath(sys.argv[1])
skip_unless_option(OURS, "--rr")
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
PCT = ("min", "p50", "p90", "p99", "p999", "max")
LAT = r"\d+\.\d+ (?:us|ms|s)"
ROW_IV = re.compile(r"^\[\s*(\d+|SUM)\]\s+(\d+\.\d+)-\s*(\d+\.\d+)\s+sec\s+"
                    r"\S+ \w?Bytes\s+\S+ \w?bits/sec\s+(\d+)"
                    rf"\s+({LAT})\s+({LAT})\s+({LAT})(?:\s+(\d+))?$", re.M)
ROW_IV_SRV = re.compile(r"^\[\s*(\d+|SUM)\]\s+(\d+\.\d+)-\s*(\d+\.\d+)\s+sec"
                        r"\s+\S+ \w?Bytes\s+\S+ \w?bits/sec\s+(\d+)$", re.M)
ROW_SUM = re.compile(r"^\[\s*(\d+|SUM)\]\s+(\d+\.\d+)-\s*(\d+\.\d+)\s+sec\s+"
                     r"\S+ \w?Bytes\s+\S+ \w?bits/sec\s+(\d+)\s+(\d+)"
                     rf"\s+({LAT})\s+({LAT})\s+({LAT})\s+({LAT})\s+({LAT})"
                     r"(?:\s+(\d+))?$", re.M)
HDR_IV = ("[ ID] Interval           Transfer     Bitrate         Trans/s"
          "       p50       p90       p99")
HDR_SUM = ("[ ID] Interval           Transfer     Bitrate             Trans"
           "  Trans/s       p50       p90       p99     p99.9       max")


def server(args=(), ns=None):
    port = 5201 if ns else free_port()
    argv = [OURS, "-s", "-p", str(port)] + list(args)
    if ns:
        srv = ns.popen(*argv, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
        ok = ns.wait_listening(port, srv, time.time() + 10)
    else:
        srv = subprocess.Popen(argv, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        ok = wait_listening(port, srv, time.time() + 10)
    if not ok:
        stop(srv)
        raise RuntimeError("server did not listen: " + srv.stderr.read())
    return srv, port


def client(port, extra, secs=2):
    return run([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", str(secs),
                "--rr"] + extra)


def us(cell):
    v, unit = cell.split()
    return float(v) * {"us": 1, "ms": 1e3, "s": 1e6}[unit]


def check_rr(probs, what, rr, seconds, udp=False, lat=True, stale=True,
             may_be_idle=False):
    if not isinstance(rr, dict):
        probs.append(f"{what}: no rr object")
        return 0
    n = rr.get("transactions")
    tps = rr.get("transactions_per_second")
    if may_be_idle and n == 0 and tps == 0:
        return 0
    if not isinstance(n, int) or n <= 0:
        probs.append(f"{what}: transactions {n}")
        return 0
    if not isinstance(tps, (int, float)) or seconds <= 0 or \
            abs(tps - n / seconds) > 0.01 * tps + 1:
        probs.append(f"{what}: {tps} tx/s is not {n} / {seconds} s")
    if lat:
        check_distribution(probs, f"{what}: latency_us",
                           rr.get("latency_us"), PCT)
    elif "latency_us" in rr:
        probs.append(f"{what}: latency_us where none is known")
    if udp and lat and not isinstance(rr.get("lost"), int):
        probs.append(f"{what}: no lost count")
    if udp and stale and not isinstance(rr.get("stale"), int):
        probs.append(f"{what}: no stale count")
    return n


def check_doc(probs, doc, udp=False, client=True, omit=0, sends=None):
    """The rr objects of a whole document; returns end.rr.transactions.
    sends(stream record) tells whether this end requests on the stream
    (default: the client does)."""
    if sends is None:
        def sends(st):
            return client
    ivs = doc.get("intervals", [])
    total = {}
    kept = 0
    for i, iv in enumerate(ivs):
        secs = iv["sum"]["seconds"]
        # A server's last interval can be a few ms after the last whole
        # second, in which one stream of a loaded machine may answer none.
        idle_ok = i == len(ivs) - 1 and secs < 0.25
        asks = False
        for st in iv["streams"]:
            asks = asks or sends(st)
            n = check_rr(probs, f"interval {i} stream {st['socket']}",
                         st.get("rr"), st["seconds"], udp, lat=sends(st),
                         stale=sends(st), may_be_idle=idle_ok)
            if not st.get("omitted"):
                total[st["socket"]] = total.get(st["socket"], 0) + n
                kept += n
        check_rr(probs, f"interval {i} sum", iv["sum"].get("rr"), secs, udp,
                 lat=asks, stale=asks, may_be_idle=idle_ok)
    end = doc.get("end", {})
    for k in (("sum", "sum_sent", "sum_received") if udp else
              ("sum_sent", "sum_received")):
        if not isinstance(end.get(k), dict):
            probs.append(f"stock end.{k} missing")
    streams = end.get("streams", [])
    n_streams = 0
    for st in streams:
        who = st.get("udp") or st.get("sender")
        secs = who["seconds"]
        n = check_rr(probs, f"end stream {who['socket']}", st.get("rr"),
                     secs, udp, stale=sends(who))
        n_streams += n
        if n != total.get(who["socket"]):
            probs.append(f"stream {who['socket']}: end {n} transactions, "
                         f"intervals {total.get(who['socket'])}")
    first = streams[0].get("udp") or streams[0].get("sender") if streams \
        else {"seconds": 0}
    n_all = check_rr(probs, "end.rr", end.get("rr"), first["seconds"], udp,
                     stale=any(sends(st.get("udp") or st.get("sender"))
                               for st in streams))
    if n_all != n_streams or n_all != kept:
        probs.append(f"end.rr {n_all} transactions, streams {n_streams}, "
                     f"intervals {kept}")
    return n_all


# ---- loopback ---------------------------------------------------------------

def case_text():
    probs = []
    srv, port = server(["-1"])
    try:
        rc, out, err, secs = client(port, [])
        sout, serr = srv.communicate(timeout=15)
    finally:
        stop(srv)
    if rc != 0:
        probs.append(f"exit {rc}: {err[-200:]}")
    if secs > 4:
        probs.append(f"took {secs:.1f} s for -t 2")
    if HDR_IV not in out or HDR_SUM not in out:
        probs.append(f"headers: {out[:600]!r}")
    rows = ROW_IV.findall(out)
    sums = ROW_SUM.findall(out)
    if len(rows) != 2 or len(sums) != 1:
        probs.append(f"{len(rows)} interval rows, {len(sums)} summary rows:"
                     f" {out[-600:]!r}")
    for r in rows:
        if int(r[3]) <= 0 or not us(r[4]) <= us(r[5]) <= us(r[6]):
            probs.append(f"interval row {r}")
    for r in sums:
        n, tps, secs_ = int(r[3]), int(r[4]), float(r[2])
        if n <= 0 or abs(tps - n / secs_) > 0.01 * tps + 1:
            probs.append(f"summary {n} transactions, {tps}/s in {secs_} s")
        if not [us(c) for c in r[5:10]] == sorted(us(c) for c in r[5:10]):
            probs.append(f"summary percentiles out of order: {r}")
    srows = ROW_IV_SRV.findall(sout)
    ssums = ROW_SUM.findall(sout)
    if len(srows) < 2 or len(ssums) != 1:
        probs.append(f"server: {len(srows)} interval rows, {len(ssums)} "
                     f"summary rows: {sout[-600:]!r}")
    elif sums and ssums[0][5:10] != sums[0][5:10]:
        probs.append(f"server summary latencies {ssums[0][5:10]} are not "
                     f"the client's {sums[0][5:10]}")
    report("text: --rr tables on both ends, on time", probs)


def own_flag(st):
    """This end sends (so requests) on the stream: its "sender" flag."""
    return bool(st.get("sender"))


def same_latencies(probs, doc, sdoc):
    """Both ends report the requesters' round trips: the same figures for
    the test and, stream by stream, the same set."""
    def lats(d):
        return sorted(json.dumps(st.get("rr", {}).get("latency_us"),
                                 sort_keys=True)
                      for st in d["end"]["streams"])
    if doc["end"]["rr"].get("latency_us") != \
            sdoc["end"]["rr"].get("latency_us"):
        probs.append(f"end.rr latencies differ: client "
                     f"{doc['end']['rr'].get('latency_us')}, server "
                     f"{sdoc['end']['rr'].get('latency_us')}")
    if lats(doc) != lats(sdoc):
        probs.append(f"stream latencies differ: {lats(doc)} / {lats(sdoc)}")


def json_case(label, extra, udp=False, omit=0, both=True, direction=False):
    """direction: -R or --bidir, each end requests where it sends."""
    sends = own_flag if direction else None
    probs = []
    srv, port = server(["-1", "-J"])
    try:
        rc, out, err, secs = client(port, ["-J"] + extra)
        sout, _ = srv.communicate(timeout=15)
    finally:
        stop(srv)
    if rc != 0:
        probs.append(f"exit {rc}: {err[-200:]}")
        report(label, probs)
        return None
    doc = parse_doc(out, "client")
    n = check_doc(probs, doc, udp=udp, omit=omit, sends=sends)
    if both:
        sdoc = parse_doc(sout, "server")
        sub = []
        sn = check_doc(sub, sdoc, udp=udp, client=False, omit=omit,
                       sends=sends)
        probs += [f"server: {p}" for p in sub]
        if direction:
            same_latencies(probs, doc, sdoc)
            probs += check_schema(doc, "client") + check_schema(sdoc,
                                                                "server")
        # the server answered every request the client saw answered (and
        # maybe the one in flight at the end, and lost answers); each end
        # ends its omit period by its own clock
        slack = n // 100 if omit else 0
        if direction:
            # each end answers on some streams: the answerer may count
            # the one in flight at the end (and lost answers), per stream
            slack += 2 * len(doc["end"]["streams"])
            if n and sn and abs(sn - n) > slack + (n // 5 if udp else 0):
                probs.append(f"server counted {sn}, client {n}")
        elif n and sn and not n - slack <= sn <= n + 2 + slack + \
                (n // 5 if udp else 0):
            probs.append(f"server answered {sn}, client counted {n}")
    report(label, probs)
    return doc


def case_json():
    json_case("json: rr objects in intervals and end, both ends", [])


def case_p2():
    doc = json_case("P2: two streams and their sums", ["-P", "2"])
    if doc is not None and len(doc["end"]["streams"]) != 2:
        report("P2: two streams", [f"{len(doc['end']['streams'])} streams"])


def case_udp():
    json_case("udp: rr objects with lost and stale, UDP stock keys", ["-u"],
              udp=True)


def case_sizes():
    for extra, udp in (([], False), (["-u"], True)):
        probs = []
        srv, port = server(["-1"])
        try:
            rc, out, err, _ = client(port, ["-J", "-l", "100",
                                            "--rr-response", "1000"] + extra)
        finally:
            stop(srv)
        if rc != 0:
            probs.append(f"exit {rc}: {err[-200:]}")
        else:
            doc = json.loads(out)
            check_doc(probs, doc, udp=udp)
            st = doc["end"]["streams"][0]
            rr = st["rr"]
            moved = (st.get("udp") or st["sender"])["bytes"]
            want = rr["transactions"] * 1100
            # UDP: lost requests and stale answers move bytes too
            if moved != want and not (udp and moved > want and
                                      rr["lost"] + rr["stale"] > 0):
                probs.append(f"{moved} bytes for {rr['transactions']} "
                             f"transactions of 100 + 1000")
            if doc["end"]["rr"].get("request_bytes") != 100 or \
                    doc["end"]["rr"].get("response_bytes") != 1000:
                probs.append(f"end.rr sizes: {doc['end']['rr']}")
        report(f"sizes: -l 100 --rr-response 1000 {' '.join(extra)}".strip(),
               probs)


def case_reverse():
    """-R and --bidir, TCP and UDP: the end whose stream sends requests;
    the client's end.streams[i].rr has the server's round trips."""
    for extra, udp in ((["-R"], False), (["-R", "-u"], True),
                       (["--bidir"], False), (["--bidir", "-u", "-P", "2"],
                                              True)):
        doc = json_case(f"{' '.join(extra)}: the sending end requests, "
                        f"both ends report its round trips", extra, udp=udp,
                        direction=True)
        want = 2 * (2 if "-P" in extra else 1) if "--bidir" in extra else 1
        if doc is not None and len(doc["end"]["streams"]) != want:
            report(f"{' '.join(extra)}: {want} streams",
                   [f"{len(doc['end']['streams'])} streams"])


def fake_old_server():
    """What a server of ours from before -R/--bidir does with --rr and
    either: it reads the parameters and answers SERVER_ERROR
    IERECVPARAMS (114).  (port, thread, what it saw)."""
    ls = listener(4, 10)
    seen = {}

    def serve():
        try:
            conn, _ = ls.accept()
            with conn:
                conn.settimeout(10)
                recv_exact(conn, 37, eof_error=True)
                conn.sendall(b"\x09")  # PARAM_EXCHANGE
                n = struct.unpack(">I", recv_exact(conn, 4, True))[0]
                seen["params"] = json.loads(recv_exact(conn, n, True))
                conn.sendall(b"\xfe" + struct.pack(">ii", 114, 0))
                ls.settimeout(1)
                try:  # a data connection must never come
                    d, _ = ls.accept()
                    d.close()
                    seen["data"] = True
                except OSError:
                    pass
        except (OSError, EOFError, ValueError) as e:
            seen["error"] = repr(e)
        finally:
            ls.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return ls.getsockname()[1], t, seen


def old_server_emulated():
    for extra in (["-R"], ["--bidir", "-u"]):
        port, t, seen = fake_old_server()
        rc, out, err, secs = client(port, extra)
        t.join(15)
        probs = []
        params = seen.get("params", {})
        if not params.get("reverse") and not params.get("bidirectional"):
            probs.append(f"parameters without the direction: {params}")
        if "rr" not in json.dumps(params.get("iperf3_compat", {})):
            probs.append("parameters without the rr extension")
        if rc != 1 or "unable to receive parameters" not in out + err:
            probs.append(f"exit {rc}: {(out + err)[-200:]!r}")
        if seen.get("data") or "connected to" in out:
            probs.append("a data stream was connected")
        if "error" in seen:
            probs.append(f"fake server: {seen['error']}")
        report(f"old server of ours (emulated): --rr {' '.join(extra)} "
               f"refused before any data, exit 1 in {secs:.1f} s", probs)


def case_old_server():
    """A server of ours from before -R/--bidir with --rr refuses the
    parameters: our client stops before any data, exit 1.  The real one
    with IPERF3_OLD_OURS (a build of ours from before), else emulated."""
    old = os.environ.get("IPERF3_OLD_OURS")
    if not old or not os.access(old, os.X_OK):
        old_server_emulated()
        return
    for extra in (["-R"], ["--bidir", "-u"]):
        probs = []
        port = free_port()
        srv = subprocess.Popen([old, "-s", "-1", "-p", str(port)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        secs = 0
        try:
            if not wait_listening(port, srv, time.time() + 10):
                probs.append("old server did not listen")
            else:
                rc, out, err, secs = client(port, extra)
                if rc != 1 or "error" not in out + err:
                    probs.append(f"exit {rc}: {(out + err)[-200:]!r}")
                if "connected to" in out:
                    probs.append("a data stream was connected")
                if secs > 5:
                    probs.append(f"took {secs:.1f} s")
        finally:
            stop(srv)
        report(f"old server of ours: --rr {' '.join(extra)} refused before "
               f"any data, exit 1 in {secs:.1f} s", probs)


def case_omit():
    json_case("omit: -O 1 counts nowhere in the end figures", ["-O", "1"],
              omit=1)


def case_multi():
    probs = []
    srv, port = server(["--max-tests", "2"])
    try:
        argvs = [[OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "2", "--rr",
                  "-J"] + extra for extra in ([], ["-P", "2"])]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            res = list(ex.map(run, argvs))
    finally:
        stop(srv)
    for rc, out, err, secs in res:
        if rc != 0:
            probs.append(f"exit {rc}: {err[-200:]}")
            continue
        check_doc(probs, json.loads(out))
        if secs > 6:
            probs.append(f"took {secs:.1f} s")
    report("multi: two --rr tests at once on a --max-tests 2 server", probs)


# ---- loss in a network namespace ---------------------------------------------

def case_loss():
    name = "loss: 5 % of datagrams dropped each way, the test ends on time"
    try:
        ns = Netns("rr", nft=True)
    except NetnsUnavailable as e:
        skip(f"{name}: {e}")
        return
    srv = None
    try:
        # Only the data datagrams (100 bytes): the 4-byte hellos pass.
        rules = """
table inet rrloss {
  chain in {
    type filter hook input priority 0; policy accept;
    udp dport 5201 meta length > 100 numgen random mod 100 < 5 drop
    udp sport 5201 meta length > 100 numgen random mod 100 < 5 drop
  }
}
"""
        r = ns.run("nft", "-f", "-", input=rules)
        if r.returncode != 0:
            skip(f"{name}: nft rules not supported ({r.stderr.strip()[:100]})")
            return
        srv, port = server(["-1", "-J"], ns=ns)
        t0 = time.time()
        r = ns.run(OURS, "-c", "127.0.0.1", "-p", port, "-t", "3", "--rr",
                   "-u", "-l", "100", "-J", timeout=30)
        took = time.time() - t0
        probs = []
        if r.returncode != 0:
            probs.append(f"exit {r.returncode}: {r.stderr[-200:]}")
        else:
            doc = json.loads(r.stdout)
            check_doc(probs, doc, udp=True)
            rr = doc["end"]["rr"]
            n, lost = rr["transactions"], rr["lost"]
            share = lost / (n + lost) if n + lost else 0
            # about 1 - 0.95^2 = 9.75 % of transactions lose a datagram
            if not 0.04 <= share <= 0.2:
                probs.append(f"lost {lost} of {n + lost} ({share:.1%})")
            if doc["intervals"] and \
                    min(iv["sum"]["rr"]["transactions"]
                        for iv in doc["intervals"]) == 0:
                probs.append("an interval without answered transactions")
            print(f"loss: {n} answered, {lost} lost ({share:.1%}), "
                  f"{rr['stale']} stale, p99 {rr['latency_us']['p99']} us, "
                  f"{took:.1f} s")
        if took > 6:
            probs.append(f"-t 3 took {took:.1f} s")
        try:
            srv.wait(10)
        except subprocess.TimeoutExpired:
            probs.append("the server did not end")
        report(name, probs)
    finally:
        if srv is not None:
            stop(srv)
        ns.close()


# ---- stock servers ----------------------------------------------------------

def case_stock():
    for ver, path in stock_peers():
        probs = []
        port = free_port()
        srv = subprocess.Popen([path, "-s", "-p", str(port)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        secs = 0
        try:
            if not wait_listening(port, srv, time.time() + 10):
                report(f"stock {ver} server refuses --rr",
                       ["server did not listen"])
                continue
            rc, out, err, secs = client(port, [])
            probs += refusal_problems(rc, out, err, secs)
            for extra in (["-R"], ["--bidir"]):
                if srv.poll() is not None:
                    break
                rc, out, err, s2 = client(port, extra)
                probs += [f"{extra[0]}: {p}" for p in
                          refusal_problems(rc, out, err, s2)]
        finally:
            stop(srv)
        report(f"stock {ver} server: --rr (also -R, --bidir) refused before "
               f"any data, exit 1 in {secs:.1f} s", probs)


CASES = [case_text, case_json, case_p2, case_udp, case_reverse,
         case_old_server, case_sizes, case_omit, case_multi, case_loss,
         case_stock]


def main():
    return run_cases(CASES, FILTER)


if __name__ == "__main__":
    sys.exit(main())
