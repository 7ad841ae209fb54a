#!/usr/bin/env python3
"""--multicast (client, server) and --multicast-listen (an extra receiver).

No namespaces needed:
  client errors  --multicast 10.0.0.1 (unicast), --multicast without -u,
                 --ttl 0 and 256: exit 1 and the parameter error
  listener error --multicast-listen with --bind-dev nosuchif: exit 1,
                 "unable to join the multicast group: No such device",
                 no hang (text; -J: a document with "error")
  stock servers  our client --multicast against 3.12 and 3.21 (where
                 present): exit 1, "the server does not do --multicast",
                 no data stream
  stock clients  a 3.12 / 3.21 client's plain UDP test into our server
                 with --multicast-allow: unchanged (no loss, figures)

A LAN: four network namespaces, a bridge (multicast snooping off) in one
and a sender, a server and a listener on it by veth, IPv4 10.236.0.0/24
and IPv6 fd00:236::/64 (nodad), routes for 224.0.0.0/4 and ff00::/8.
Listener cases, fed by pysend (this script run with --pysend: the stock
UDP header and the datagram extension of src/proto/dgram_ext.h, then the
end marker three times), IPv4 and IPv6:
  alone          (joined on -B's address / --bind-dev's interface)
                 bytes, datagrams and the sender's totals equal what was
                 sent, no loss, intervals, one-way delay, join latency,
                 the plain datagrams sent before the test counted foreign
                 (IPv6: 64-bit counters)
  shared         two listeners in one namespace and one in another on the
                 same group and port: each sees every datagram
  nft loss       nft drops every 10th datagram in the listener's
                 namespace: about 10 % lost
  late           the listener starts 1 s into a 3 s test: "joined_late",
                 counted from its first datagram (no loss)
  no end         no end marker: "left_early", ends within 3 s of silence
  signal         SIGINT during a test (text): the summary, "Left early /
                 no end marker", exit 0
  logfile        text with -i 0.5 and --logfile: the rows in the file,
                 the foreign datagrams counted
  two tests      without -1: two tests in a row, two documents, SIGTERM
Each listener -J document is checked against
docs/multicast-listen.schema.json (where python3-jsonschema is).
End-to-end: our server -s -1 --multicast-allow, a listener, our client
-u --multicast GROUP -b 10M -t 2 -J; the server's and the listener's
bytes equal the client's, IPv4 and IPv6, and the listener saw the end
marker; with nft dropping every 10th datagram at the listener, the
listener ~10 % lost and the server ~0 %; a second listener beside the
server (same namespace, group and port) sees every byte too.
  ttl            --ttl 5: an nft counter in the listener's namespace sees
                 every datagram with TTL 5 (none with 1), start.multicast
                 says 5; without --ttl they arrive with TTL 1
  ssm            --ssm-source the sender's address: the server receives
                 every byte; another address: it receives none (joined
                 that source only), the test still ends with exit 0

Usage: multicast.py OURS [FILTER]
       multicast.py --pysend GROUP PORT [options] (see pysend())
"""

import argparse
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (Netns, NetnsUnavailable, free_port,  # noqa: E402
                     json_values, report, run_cases, skip, stock_peers,
                     stop, timed_run, wait_listening)

NOT_DONE = "the server does not do --multicast or --isochronous"
JOIN_FAIL = "unable to join the multicast group: No such device"
G4, G6 = "239.236.1.1", "ff15::236:1"
NET4, NET6 = "10.236.0.", "fd00:236::"
HOSTS = {"snd": 1, "srv": 2, "lis": 3, "lis2": 4}


# ---- pysend: a --multicast sender as the datagram extension defines it ----

DGX_MCAST, DGX_END = 1, 2


def dgx(flags, test_id, start_us, duration_ms, sent_us, tp=0, tb=0):
    """The extension (64 bytes, dgram_ext.h)."""
    return b"i3x1" + struct.pack(">IQQIIQIIQQ", flags, test_id, start_us,
                                 duration_ms, 0, sent_us, 0, 0, tp, tb)


def header(seq, now_us, c64):
    """The stock UDP header: sec, usec, seq (32 or 64 bits)."""
    return struct.pack(">IIQ" if c64 else ">III", (now_us // 1000000) &
                       0xffffffff, now_us % 1000000, seq)


def pysend(argv):
    """Send a test to GROUP:PORT: --count datagrams of --len bytes at --pps
    a second (sequence numbers from --first), then (unless --no-end) the
    end marker three times 5 ms apart; --foreign N plain datagrams first.
    Prints {"packets", "bytes", "test_id"} as JSON."""
    ap = argparse.ArgumentParser()
    ap.add_argument("group")
    ap.add_argument("port", type=int)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--pps", type=float, default=1000.0)
    ap.add_argument("--len", type=int, default=1200)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--no-end", action="store_true")
    ap.add_argument("--c64", action="store_true")
    ap.add_argument("--foreign", type=int, default=0)
    a = ap.parse_args(argv)
    fam = socket.AF_INET6 if ":" in a.group else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 4)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 4)
    dest = (a.group, a.port)
    for _ in range(a.foreign):
        s.sendto(os.urandom(100), dest)
    test_id = int.from_bytes(os.urandom(8), "big") | 1
    start = time.time_ns() // 1000
    dur = int(a.count / a.pps * 1000)
    t0 = time.monotonic()
    sent = 0
    for i in range(a.count):
        delay = t0 + i / a.pps - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        now = time.time_ns() // 1000
        d = header(a.first + i, now, a.c64) + dgx(DGX_MCAST, test_id, start,
                                                  dur, now)
        s.sendto(d + bytes(max(0, a.len - len(d))), dest)
        sent += max(a.len, len(d))
    for _ in range(0 if a.no_end else 3):
        time.sleep(0.005)
        now = time.time_ns() // 1000
        s.sendto(header(0, now, a.c64) +
                 dgx(DGX_MCAST | DGX_END, test_id, start, dur, now,
                     a.first + a.count - 1, sent), dest)
    print(json.dumps({"packets": a.count, "bytes": sent,
                      "test_id": f"{test_id:016x}"}))
    return 0


if len(sys.argv) > 1 and sys.argv[1] == "--pysend":
    sys.exit(pysend(sys.argv[2:]))

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
SELF = os.path.abspath(__file__)


# ---- the LAN ----------------------------------------------------------------

class Lan:
    """A bridge namespace and one namespace per host of HOSTS on it."""

    def __init__(self):
        self.ns = {}
        try:
            self.br = Netns("mcbr")
            self.sh(self.br, "ip", "link", "add", "br0", "type", "bridge")
            self.sh(self.br, "ip", "link", "set", "br0", "type", "bridge",
                    "mcast_snooping", "0")
            self.sh(self.br, "ip", "link", "set", "br0", "up")
            for name, n in HOSTS.items():
                self.ns[name] = Netns("mc" + name)
                self.attach(self.ns[name], n)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def sh(ns, *cmd, must=True):
        r = ns.run(*cmd)
        if must and r.returncode != 0:
            raise NetnsUnavailable(f"{' '.join(cmd)}: exit {r.returncode}, "
                                   f"{(r.stderr or '').strip()[:160]}")
        return r

    def attach(self, ns, n):
        r = subprocess.run(["ip", "-n", self.br.name, "link", "add", f"p{n}",
                            "type", "veth", "peer", "name", "m0", "netns",
                            ns.name], capture_output=True, text=True)
        if r.returncode != 0:
            raise NetnsUnavailable(f"veth: {r.stderr.strip()[:160]}")
        self.sh(self.br, "ip", "link", "set", f"p{n}", "master", "br0", "up")
        self.sh(ns, "ip", "addr", "add", f"{NET4}{n}/24", "dev", "m0")
        self.sh(ns, "ip", "-6", "addr", "add", f"{NET6}{n}/64", "dev", "m0",
                "nodad")
        self.sh(ns, "ip", "link", "set", "m0", "up")
        self.sh(ns, "ip", "route", "add", "224.0.0.0/4", "dev", "m0")
        self.sh(ns, "ip", "-6", "route", "add", "ff00::/8", "dev", "m0",
                must=False)

    def addr(self, name, v6):
        return f"{NET6}{HOSTS[name]}" if v6 else f"{NET4}{HOSTS[name]}"

    def close(self):
        for ns in list(self.ns.values()) + [getattr(self, "br", None)]:
            if ns is not None:
                ns.close()


def lan_or_skip(label):
    if os.geteuid() != 0:
        skip(f"{label}: not root (network namespaces)")
        return None
    try:
        return Lan()
    except NetnsUnavailable as e:
        skip(f"{label}: {e}")
        return None


def udp_bound(pid, port):
    """Is a UDP socket bound to `port` in the namespace of process pid?"""
    for name in ("udp", "udp6"):
        try:
            with open(f"/proc/{pid}/net/{name}") as f:
                rows = f.readlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if len(cols) > 2 and int(cols[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def start_listener(ns, group, port, extra=(), json_out=True, one_off=True):
    """Our listener in ns (-1), running once its socket is bound (the join
    follows at once); None if it did not get there within 10 s."""
    p = ns.popen(OURS, "-s", "--multicast-listen", group, "-p", port,
                 *(["-1"] if one_off else []),
                 *(["-J"] if json_out else []), *extra,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 10
    while time.time() < deadline:
        if p.poll() is not None:
            break
        if ns.inside(p.pid) and udp_bound(p.pid, port):
            time.sleep(0.2)
            return p
        time.sleep(0.02)
    stop(p)
    return None


def collect(p, limit=20):
    """(exit status, stdout, stderr) of a listener within `limit` s (it is
    killed after that: exit None)."""
    try:
        out, err = p.communicate(timeout=limit)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        stop(p)
        out, err = p.communicate()
        return None, out, err


def send(ns, group, port, *args, limit=30):
    """pysend in ns: its JSON summary, or None."""
    r = ns.run(sys.executable, SELF, "--pysend", group, port, *args,
               timeout=limit)
    try:
        return json.loads(r.stdout)
    except (ValueError, TypeError):
        return None


SCHEMA = os.path.normpath(os.path.join(os.path.dirname(SELF), "..", "..",
                                      "docs", "multicast-listen.schema.json"))
_validator = []


def schema_problems(doc):
    """What docs/multicast-listen.schema.json finds wrong in doc (nothing
    without python3-jsonschema)."""
    if not _validator:
        try:
            from jsonschema import Draft202012Validator
            with open(SCHEMA) as f:
                _validator.append(Draft202012Validator(json.load(f)))
        except ImportError:
            _validator.append(None)
    v = _validator[0]
    if v is None:
        return []
    return [f"schema: {'/'.join(str(p) for p in e.absolute_path)}: "
            f"{e.message[:160]}" for e in list(v.iter_errors(doc))[:3]]


def listener_doc(rc, out, err, probs):
    """The listener's one -J document (problems appended to probs, the
    schema's among them)."""
    if rc != 0:
        probs.append(f"listener exit {rc}: {(err or '').strip()[-200:]!r}")
    try:
        docs = json_values(out or "")
    except ValueError:
        docs = []
    if len(docs) != 1:
        probs.append(f"{len(docs)} listener documents")
        return None
    probs += schema_problems(docs[0])
    return docs[0]


def totals(doc):
    end = doc.get("end", {})
    return end.get("sum", {}), end


def check_clean(doc, sent, probs, what="listener"):
    """Every datagram: bytes, packets, no loss, the end marker's totals."""
    s, end = totals(doc)
    if s.get("bytes") != sent["bytes"]:
        probs.append(f"{what} bytes {s.get('bytes')} of {sent['bytes']}")
    if s.get("packets") != sent["packets"] or s.get("lost_packets") != 0:
        probs.append(f"{what} packets {s.get('packets')}, lost "
                     f"{s.get('lost_packets')} of {sent['packets']}")
    if not end.get("end_marker") or end.get("left_early"):
        probs.append(f"{what} end_marker {end.get('end_marker')}, "
                     f"left_early {end.get('left_early')}")
    if end.get("sender_packets") != sent["packets"] or \
            end.get("sender_bytes") != sent["bytes"]:
        probs.append(f"{what} sender totals {end.get('sender_packets')}/"
                     f"{end.get('sender_bytes')}")


# ---- without namespaces -----------------------------------------------------

def case_client_errors():
    for args, text in (
            (["-u", "--multicast", "10.0.0.1"],
             "invalid value for --multicast: '10.0.0.1'"),
            (["--multicast", G4], "--multicast needs -u"),
            (["-u", "--multicast", G4, "--ttl", "0"],
             "invalid value for --ttl: '0'"),
            (["-u", "--multicast", G4, "--ttl", "256"],
             "invalid value for --ttl: '256'")):
        rc, out, err, secs = timed_run([OURS, "-c", "127.0.0.1", "-p",
                                        "9", *args], timeout=10)
        probs = [] if rc not in (0, None) else [f"exit {rc}"]
        if text not in out + err:
            probs.append(f"said {(out + err).strip()[:160]!r}")
        report(f"client {' '.join(args)}: refused", probs)


def case_listener_errors():
    for extra, json_out in (([], False), (["-J"], True)):
        rc, out, err, secs = timed_run(
            [OURS, "-s", "--multicast-listen", G4, "-p", str(free_port()),
             "--bind-dev", "nosuchif", *extra], timeout=10)
        probs = [] if rc == 1 else [f"exit {rc}"]
        if json_out:
            try:
                doc = json.loads(out)
                if doc.get("error") != JOIN_FAIL:
                    probs.append(f"error {doc.get('error')!r}")
                probs += schema_problems(doc)
            except ValueError:
                probs.append(f"no JSON document: {out[:120]!r}")
        elif f"iperf3: error - {JOIN_FAIL}" not in err:
            probs.append(f"said {err.strip()[:160]!r}")
        if secs > 5:
            probs.append(f"took {secs:.1f} s")
        report(f"listener --bind-dev nosuchif{' -J' if json_out else ''}: "
               "fails cleanly", probs)


def case_stock():
    for ver, path in stock_peers():
        port = free_port()
        srv = subprocess.Popen([path, "-s", "-1", "-p", str(port)],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            probs = []
            if not wait_listening(port, srv, time.time() + 10):
                probs.append("the stock server did not listen")
            else:
                rc, out, err, secs = timed_run(
                    [OURS, "-c", "127.0.0.1", "-p", str(port), "-u",
                     "--multicast", G4, "-b", "10M", "-t", "2"], timeout=20)
                if rc != 1:
                    probs.append(f"exit {rc}")
                if NOT_DONE not in out + err:
                    probs.append(f"said {(out + err).strip()[-160:]!r}")
                if "connected to" in out or secs > 5:
                    probs.append(f"data stream or {secs:.1f} s")
            report(f"our client --multicast, stock {ver} server: refused "
                   "before any data", probs)
        finally:
            stop(srv)
        port = free_port()
        srv = subprocess.Popen([OURS, "-s", "-1", "-p", str(port),
                                "--multicast-allow", "239.0.0.0/8"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            probs = []
            if not wait_listening(port, srv, time.time() + 10):
                probs.append("our server did not listen")
            else:
                rc, out, err, secs = timed_run(
                    [path, "-c", "127.0.0.1", "-p", str(port), "-u", "-b",
                     "10M", "-t", "1", "-J"], timeout=20)
                probs += [] if rc == 0 else [f"client exit {rc}"]
                try:
                    r = json.loads(out)["end"]["sum"]
                    if not r.get("bytes") or r.get("lost_percent", 100) > 1:
                        probs.append(f"sum {r}")
                except (ValueError, KeyError):
                    probs.append(f"no document: {out[:120]!r}")
            report(f"stock {ver} client, plain UDP into our server with "
                   "--multicast-allow: unchanged", probs)
        finally:
            stop(srv)


# ---- the listener on the LAN ------------------------------------------------

def listener_alone(lan, v6):
    group = G6 if v6 else G4
    port = free_port()
    # the interface: --bind-dev (IPv6), -B's address (IPv4)
    iface = "m0" if v6 else lan.addr("lis", False)
    p = start_listener(lan.ns["lis"], group, port,
                       extra=["--bind-dev" if v6 else "-B", iface])
    probs = []
    try:
        if p is None:
            report(f"listener alone {group}", ["the listener did not start"])
            return
        sent = send(lan.ns["snd"], group, port, "--count", "2000", "--pps",
                    "1000", "--foreign", "5", *(["--c64"] if v6 else []))
        rc, out, err = collect(p)
    finally:
        stop(p)
    doc = listener_doc(rc, out, err, probs)
    if doc is None or sent is None:
        report(f"listener alone {group}", probs + ([] if sent else
                                                   ["pysend failed"]))
        return
    check_clean(doc, sent, probs)
    m = doc.get("start", {}).get("multicast", {})
    s, end = totals(doc)
    if m.get("test_id") != sent["test_id"] or m.get("joined_late") or \
            m.get("group") != group or m.get("port") != port or \
            m.get("sender") != lan.addr("snd", v6) or \
            m.get("counters_64bit") != v6 or m.get("interface") != iface:
        probs.append(f"start {m}")
    if not isinstance(m.get("join_latency_ms"), (int, float)) or \
            m["join_latency_ms"] <= 0:
        probs.append(f"join latency {m.get('join_latency_ms')}")
    if len(doc.get("intervals", [])) < 2:
        probs.append(f"{len(doc.get('intervals', []))} intervals")
    owd = s.get("owd_ms", {})
    if not (-5 < owd.get("min", -99) <= owd.get("mean", -99) <=
            owd.get("max", -99) < 500) or owd.get("samples") != 2000:
        probs.append(f"owd {owd}")
    if end.get("foreign_datagrams") != 5:
        probs.append(f"foreign {end.get('foreign_datagrams')} (want 5)")
    report(f"listener alone {group} ({iface}): every byte, no loss, owd, "
           f"join latency "
           f"{m.get('join_latency_ms')} ms, owd mean "
           f"{owd.get('mean', 0):.3f} ms", probs)


def listeners_shared(lan):
    port = free_port()
    ps = []
    try:
        for ns in (lan.ns["lis"], lan.ns["lis"], lan.ns["lis2"]):
            ps.append(start_listener(ns, G4, port))
        if None in ps:
            report("three listeners share the port", ["a listener did not "
                                                      "start"])
            return
        sent = send(lan.ns["snd"], G4, port, "--count", "1000")
        probs = []
        for i, p in enumerate(ps):
            doc = listener_doc(*collect(p), probs)
            if doc is not None and sent is not None:
                check_clean(doc, sent, probs, f"listener {i + 1}")
        report("three listeners (two in one namespace) share the group's "
               "port: each sees every datagram", probs)
    finally:
        for p in ps:
            if p is not None:
                stop(p)


def nft_drop(ns, port):
    """nft in ns drops every 10th UDP datagram to port (input hook: the
    6th, 16th...; never the first, whose loss would look like a late
    join); raises NetnsUnavailable where nft does not work."""
    for cmd in (["nft", "add", "table", "inet", "mcl"],
                ["nft", "add", "chain", "inet", "mcl", "in", "{ type filter "
                 "hook input priority 0 ; }"],
                ["nft", "add", "rule", "inet", "mcl", "in", "udp", "dport",
                 str(port), "numgen", "inc", "mod", "10", "==", "5",
                 "drop"]):
        Lan.sh(ns, *cmd)


def nft_clear(ns):
    ns.run("nft", "delete", "table", "inet", "mcl")


def listener_nft(lan, v6):
    group = G6 if v6 else G4
    port = free_port()
    try:
        nft_drop(lan.ns["lis"], port)
    except NetnsUnavailable as e:
        skip(f"listener loss {group}: {e}")
        return
    p = None
    try:
        p = start_listener(lan.ns["lis"], group, port)
        if p is None:
            report(f"listener loss {group}", ["the listener did not start"])
            return
        sent = send(lan.ns["snd"], group, port, "--count", "2000")
        probs = []
        doc = listener_doc(*collect(p), probs)
    finally:
        nft_clear(lan.ns["lis"])
        if p is not None:
            stop(p)
    pct = None
    if doc is not None and sent is not None:
        s, end = totals(doc)
        pct = s.get("lost_percent", -1)
        if not 8 <= pct <= 12 or s.get("packets") != sent["packets"]:
            probs.append(f"lost {s.get('lost_packets')}/{s.get('packets')} "
                         f"({pct} %)")
        lost_iv = sum(iv["sum"]["lost_packets"] for iv in doc["intervals"])
        if lost_iv > s.get("lost_packets", 0) or lost_iv < 150:
            probs.append(f"intervals' lost {lost_iv}")
    report(f"listener {group}, nft drops every 10th: "
           f"{'?' if pct is None else '%.2f' % pct} % lost", probs)


def listener_late(lan):
    port = free_port()
    snd = lan.ns["snd"].popen(sys.executable, SELF, "--pysend", G4, port,
                              "--count", "3000", stdout=subprocess.PIPE,
                              text=True)
    p = None
    try:
        time.sleep(1.0)
        p = start_listener(lan.ns["lis"], G4, port)
        probs = []
        try:
            sent = json.loads(snd.communicate(timeout=20)[0])
        except (ValueError, subprocess.TimeoutExpired):
            sent = None
            probs.append("pysend failed")
        doc = listener_doc(*collect(p), probs) if p else None
    finally:
        stop(snd)
        if p is not None:
            stop(p)
    if doc is not None and sent is not None:
        m = doc["start"]["multicast"]
        s, end = totals(doc)
        if not m.get("joined_late") or m.get("first_seq", 0) <= 1:
            probs.append(f"joined_late {m.get('joined_late')}, first_seq "
                         f"{m.get('first_seq')}")
        want = sent["packets"] - m.get("first_seq", 0) + 1
        if s.get("packets") != want or s.get("lost_packets") != 0 or \
                not end.get("end_marker"):
            probs.append(f"packets {s.get('packets')} (want {want}), lost "
                         f"{s.get('lost_packets')}")
    report("listener started 1 s into the test: joined late, counted from "
           "its first datagram", probs)


def listener_no_end(lan):
    port = free_port()
    p = start_listener(lan.ns["lis"], G4, port)
    probs = []
    try:
        if p is None:
            report("no end marker", ["the listener did not start"])
            return
        sent = send(lan.ns["snd"], G4, port, "--count", "1000", "--no-end")
        t0 = time.time()
        rc, out, err = collect(p, 10)
        secs = time.time() - t0
    finally:
        stop(p)
    doc = listener_doc(rc, out, err, probs)
    if doc is not None and sent is not None:
        s, end = totals(doc)
        if end.get("end_marker") or not end.get("left_early"):
            probs.append(f"end_marker {end.get('end_marker')}, left_early "
                         f"{end.get('left_early')}")
        if s.get("bytes") != sent["bytes"]:
            probs.append(f"bytes {s.get('bytes')} of {sent['bytes']}")
        if not 2 <= secs <= 4.5:
            probs.append(f"ended {secs:.1f} s after the last datagram")
    report("no end marker: left early, within 3 s of silence", probs)


def listener_signal(lan):
    port = free_port()
    p = start_listener(lan.ns["lis"], G4, port, json_out=False)
    snd = None
    probs = []
    try:
        if p is None:
            report("SIGINT during a test", ["the listener did not start"])
            return
        snd = lan.ns["snd"].popen(sys.executable, SELF, "--pysend", G4, port,
                                  "--count", "4000", stdout=subprocess.PIPE)
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        rc, out, err = collect(p, 5)
    finally:
        stop(p)
        if snd is not None:
            stop(snd)
    if rc != 0:
        probs.append(f"exit {rc}")
    for want in ("Multicast listener on " + G4, "join latency",
                 "clocks are assumed synchronised", "receiver",
                 "Left early / no end marker", "interrupted"):
        if want not in out:
            probs.append(f"no {want!r}")
    report("SIGINT during a test (text): summary, left early, exit 0",
           probs)


def listener_logfile(lan):
    port = free_port()
    log = f"/tmp/iperf3-mcast-{os.getpid()}-{port}.log"
    p = start_listener(lan.ns["lis"], G4, port, json_out=False,
                       extra=["-i", "0.5", "--logfile", log])
    probs = []
    try:
        if p is None:
            report("text, -i 0.5, --logfile", ["the listener did not start"])
            return
        send(lan.ns["snd"], G4, port, "--count", "1000", "--foreign", "3")
        rc, out, err = collect(p, 10)
        try:
            with open(log) as f:
                text = f.read()
        except OSError as e:
            text = ""
            probs.append(f"no log file: {e}")
    finally:
        stop(p)
        if os.path.exists(log):
            os.unlink(log)
    if rc != 0 or out.strip():
        probs.append(f"exit {rc}, stdout {out.strip()[:80]!r}")
    for want in ("Multicast listener on " + G4, "[  1]   0.00-0.50   sec",
                 "[  1]   0.50-1.00   sec", "0/1000 (0%)  receiver",
                 "End marker: the sender sent 1000 datagrams, 1200000 "
                 "bytes", "One-way delay min/mean/max",
                 "3 datagrams of no test"):
        if want not in text:
            probs.append(f"no {want!r}")
    report("text, -i 0.5, --logfile: intervals, summary, end marker in the "
           "file", probs)


def listener_two_tests(lan):
    """Without -1: two tests one after the other, then SIGTERM."""
    port = free_port()
    p = start_listener(lan.ns["lis"], G4, port, one_off=False)
    probs = []
    try:
        if p is None:
            report("two tests", ["the listener did not start"])
            return
        sent = [send(lan.ns["snd"], G4, port, "--count", "500"),
                send(lan.ns["snd"], G4, port, "--count", "700")]
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        rc, out, err = collect(p, 5)
    finally:
        stop(p)
    try:
        docs = json_values(out or "")
    except ValueError:
        docs = []
    if rc != 0 or len(docs) != 2 or None in sent:
        probs.append(f"exit {rc}, {len(docs)} documents")
    else:
        for doc, snt in zip(docs, sent):
            probs += schema_problems(doc)
            check_clean(doc, snt, probs, f"test {snt['test_id']}")
            if doc["start"]["multicast"]["test_id"] != snt["test_id"]:
                probs.append("test ids")
    report("without -1: two tests, two documents, SIGTERM ends it (exit 0)",
           probs)


def case_listener():
    lan = lan_or_skip("listener on a bridge")
    if lan is None:
        return
    try:
        listener_alone(lan, False)
        listener_alone(lan, True)
        listeners_shared(lan)
        listener_nft(lan, False)
        listener_nft(lan, True)
        listener_late(lan)
        listener_no_end(lan)
        listener_signal(lan)
        listener_logfile(lan)
        listener_two_tests(lan)
    finally:
        lan.close()


# ---- end to end: client, server and listener (needs the data path) ----------

def e2e(lan, v6, nft, beside=False):
    """Client, server and listener; with `beside` a second listener in the
    server's namespace (the same group and port on one host)."""
    group = G6 if v6 else G4
    label = (f"end-to-end {group}" + (", nft drops every 10th at the "
                                      "listener" if nft else "") +
             (", a listener beside the server" if beside else ""))
    port = free_port()
    srv = lan.ns["srv"].popen(OURS, "-s", "-1", "-p", port,
                              "--multicast-allow", "239.0.0.0/8",
                              "--multicast-allow", "ff00::/8",
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    lis = near = None
    probs = []
    try:
        if nft:
            nft_drop(lan.ns["lis"], port)
        if not lan.ns["srv"].wait_listening(port, srv, time.time() + 10):
            report(label, ["our server did not listen"])
            return
        lis = start_listener(lan.ns["lis"], group, port)
        if beside:
            near = start_listener(lan.ns["srv"], group, port)
        if lis is None or (beside and near is None):
            report(label, ["a listener did not start"])
            return
        cli = lan.ns["snd"].run(OURS, "-c", lan.addr("srv", v6), "-p", port,
                                "-u", "--multicast", group, "-b", "10M", "-t",
                                "2", "-J", timeout=30)
        ldoc = listener_doc(*collect(lis, 8), probs)
        ndoc = listener_doc(*collect(near, 3), probs) if beside else None
    except NetnsUnavailable as e:
        skip(f"{label}: {e}")
        return
    finally:
        if nft:
            nft_clear(lan.ns["lis"])
        stop(srv)
        for p in (lis, near):
            if p is not None:
                stop(p)
    try:
        end = json.loads(cli.stdout)["end"]
        sent = end["sum_sent"]["bytes"]
        rcvd = end["sum_received"]
    except (ValueError, KeyError, TypeError):
        report(label, probs + [f"client exit {cli.returncode}: "
                               f"{(cli.stdout + cli.stderr)[-200:]!r}"])
        return
    if cli.returncode != 0:
        probs.append(f"client exit {cli.returncode}")
    if not sent:
        probs.append("nothing sent")
    if ldoc is not None:
        ls, lend = totals(ldoc)
        if nft:
            if not 8 <= ls.get("lost_percent", -1) <= 12:
                probs.append(f"listener lost {ls.get('lost_percent')} %")
            if rcvd.get("lost_percent", 100) > 1 or rcvd.get("bytes") != sent:
                probs.append(f"server received {rcvd.get('bytes')} of {sent}"
                             f", lost {rcvd.get('lost_percent')} %")
        else:
            if ls.get("bytes") != sent:
                probs.append(f"listener {ls.get('bytes')} of {sent} bytes")
            if rcvd.get("bytes") != sent:
                probs.append(f"server {rcvd.get('bytes')} of {sent} bytes")
        if not lend.get("end_marker"):
            probs.append("the listener saw no end marker")
    if ndoc is not None and totals(ndoc)[0].get("bytes") != sent:
        probs.append(f"the listener beside the server: "
                     f"{totals(ndoc)[0].get('bytes')} of {sent} bytes")
    report(label + f": sent {sent} bytes", probs)


def e2e_server(lan, port):
    return lan.ns["srv"].popen(OURS, "-s", "-1", "-p", port,
                               "--multicast-allow", "239.0.0.0/8",
                               "--multicast-allow", "ff00::/8",
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)


def e2e_client(lan, port, *extra):
    """Our client to the group, 1 s: (exit, its -J document or None)."""
    cli = lan.ns["snd"].run(OURS, "-c", lan.addr("srv", False), "-p", port,
                            "-u", "--multicast", G4, "-b", "5M", "-t", "1",
                            "-J", *extra, timeout=30)
    try:
        return cli.returncode, json.loads(cli.stdout)
    except ValueError:
        return cli.returncode, None


def e2e_ttl(lan):
    """--ttl 5: the datagrams reach the listener's namespace with TTL 5
    (an nft counter there counts them), start.multicast.ttl says 5; and
    without --ttl they leave with TTL 1."""
    label = f"end-to-end {G4} --ttl 5 on the wire (nft counter), default 1"
    port = free_port()
    srv = e2e_server(lan, port)
    probs = []
    try:
        for cmd in (["nft", "add", "table", "inet", "mct"],
                    ["nft", "add", "chain", "inet", "mct", "in",
                     "{ type filter hook prerouting priority 0 ; }"],
                    ["nft", "add", "rule", "inet", "mct", "in", "ip", "ttl",
                     "5", "udp", "dport", str(port), "counter"],
                    ["nft", "add", "rule", "inet", "mct", "in", "ip", "ttl",
                     "1", "udp", "dport", str(port), "counter"]):
            Lan.sh(lan.ns["lis"], *cmd)
        if not lan.ns["srv"].wait_listening(port, srv, time.time() + 10):
            report(label, ["our server did not listen"])
            return
        rc, doc = e2e_client(lan, port, "--ttl", "5")
        if rc != 0 or doc is None:
            probs.append(f"client --ttl 5 exit {rc}")
        elif doc["start"].get("multicast", {}).get("ttl") != 5:
            probs.append(f"start.multicast {doc['start'].get('multicast')}")
        out = lan.ns["lis"].run("nft", "list", "chain", "inet", "mct",
                                "in").stdout
        counts = {m[0]: int(m[1]) for m in re.findall(
            r"ip ttl (\d+) udp dport \d+ counter packets (\d+)", out)}
        sent = doc["end"]["sum_sent"]["packets"] if doc else 0
        if counts.get("5", 0) < sent or counts.get("1", 0) != 0:
            probs.append(f"TTL 5: {counts.get('5')} of {sent} datagrams, "
                         f"TTL 1: {counts.get('1')}")
        stop(srv)
        srv = e2e_server(lan, port)
        if not lan.ns["srv"].wait_listening(port, srv, time.time() + 10):
            report(label, probs + ["our server did not listen again"])
            return
        rc, doc = e2e_client(lan, port)
        out = lan.ns["lis"].run("nft", "list", "chain", "inet", "mct",
                                "in").stdout
        counts2 = {m[0]: int(m[1]) for m in re.findall(
            r"ip ttl (\d+) udp dport \d+ counter packets (\d+)", out)}
        if rc != 0 or counts2.get("1", 0) == 0 or \
                counts2.get("5", 0) != counts.get("5", 0):
            probs.append(f"default TTL: exit {rc}, counters {counts2}")
    except NetnsUnavailable as e:
        skip(f"{label}: {e}")
        return
    finally:
        lan.ns["lis"].run("nft", "delete", "table", "inet", "mct")
        stop(srv)
    report(label, probs)


def e2e_ssm(lan, right):
    """--ssm-source: the sender's own address, the server receives it all;
    another address, the server receives nothing (it joined that source
    only) and the test still ends cleanly."""
    source = lan.addr("snd", False) if right else lan.addr("lis", False)
    label = (f"end-to-end {G4} --ssm-source {source} "
             f"({'the sender' if right else 'not the sender'})")
    port = free_port()
    srv = e2e_server(lan, port)
    probs = []
    try:
        if not lan.ns["srv"].wait_listening(port, srv, time.time() + 10):
            report(label, ["our server did not listen"])
            return
        rc, doc = e2e_client(lan, port, "--ssm-source", source)
    finally:
        stop(srv)
    if rc != 0 or doc is None:
        report(label, [f"client exit {rc}"])
        return
    sent = doc["end"]["sum_sent"]["bytes"]
    got = doc["end"]["sum_received"]["bytes"]
    if doc["start"].get("multicast", {}).get("ssm_source") != source:
        probs.append(f"start.multicast {doc['start'].get('multicast')}")
    if not sent or got != (sent if right else 0):
        probs.append(f"server received {got} of {sent} bytes")
    report(label + f": {got} of {sent} bytes", probs)


def case_e2e():
    lan = lan_or_skip("end to end")
    if lan is None:
        return
    try:
        e2e(lan, False, False)
        e2e(lan, True, False)
        e2e(lan, False, True)
        e2e(lan, False, False, beside=True)
        e2e_ttl(lan)
        e2e_ssm(lan, True)
        e2e_ssm(lan, False)
    finally:
        lan.close()


if __name__ == "__main__":
    sys.exit(run_cases([case_client_errors, case_listener_errors, case_stock,
                        case_listener, case_e2e], FILTER))
