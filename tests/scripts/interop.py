#!/usr/bin/env python3
"""Interop tests: our iperf3 against the stock iperf3, both roles, loopback.

The stock peers are Debian's iperf3 (3.12) and the real 3.21 when it is
present (testlib.stock_peers(); each absent one is reported as SKIP).
For every case and peer, our client runs against the stock server and
the stock client runs against our server (the IPv6 cases and the key
paths against the newest peer only) (on 127.0.0.1, and a subset on ::1).  Both
ends run with -J so the figures can be compared:

  * both exit codes are 0;
  * the byte counts agree: wherever both documents carry a figure for the
    same direction (sum_sent / sum_received and their bidir variants), the
    values are equal, and the receiving side moved data;
  * our -J document has the same key paths as the stock client's document
    for the same case, apart from the keys iperf3 added after 3.12.

Every process is bounded by a timeout and killed on the way out.
Usage: interop.py OURS STOCK312 [case-filter]
"""

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from testlib import (OUR_KEY, free_port, parse_doc, report, stock_peers,
                     stop, summary, wait_listening)

# Keys 3.13-3.21 added (spec surface.md 3.7); the stock peer may be 3.12.
ADDED_AFTER_312 = {
    "start.fq_rate", "start.test_start.bidir", "start.test_start.fqrate",
    "start.test_start.interval", "start.test_start.gso",
    "start.test_start.gro", "start.timestamp.timemillisecs",
    "intervals[].streams[].reorder", "end.streams[].sender.reorder",
}

# Keys only our implementation adds (stock parsers ignore unknown keys):
# testlib.OUR_KEY, wherever they appear (also inside server_output_json).

# name, client arguments, address family filter (None = v4 only)
TCP_CASES = [
    ("tcp", ["-t", "1"], True),
    ("tcp-R", ["-t", "1", "-R"], True),
    ("tcp-bidir", ["-t", "1", "--bidir"], False),
    ("tcp-P4", ["-t", "1", "-P", "4"], False),
    ("tcp-n20M", ["-n", "20M"], False),
    ("tcp-k300", ["-k", "300"], False),
    ("tcp-O1", ["-t", "1", "-O", "1"], False),
    ("tcp-i0.5", ["-t", "1", "-i", "0.5"], False),
    ("tcp-get-server-output", ["-t", "1", "--get-server-output"], False),
]

UDP_CASES = [
    ("udp", ["-u", "-t", "1"], True),
    ("udp-R", ["-u", "-t", "1", "-R"], True),
    ("udp-bidir", ["-u", "-t", "1", "--bidir"], False),
    ("udp-P3", ["-u", "-t", "1", "-P", "3"], False),
    ("udp-64bit", ["-u", "-t", "1", "--udp-counters-64bit"], False),
    ("udp-b200M-l1400", ["-u", "-t", "1", "-b", "200M", "-l", "1400"], False),
    ("udp-n5M-b1G", ["-u", "-n", "5M", "-b", "1G"], False),
    ("udp-O1", ["-u", "-t", "1", "-O", "1"], False),
]

CASE_TIMEOUT = 30


def key_paths(obj, prefix=""):
    out = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{prefix}.{k}" if prefix else k
            out.add(p)
            out |= key_paths(v, p)
    elif isinstance(obj, list):
        for v in obj:
            out |= key_paths(v, prefix + "[]")
    return out


def run_pair(server_bin, client_bin, addr, args):
    """Run one test; returns (client_rc, server_rc, client_json, server_json, err)."""
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    port = free_port(fam)
    srv = subprocess.Popen([server_bin, "-s", "-1", "-J", "-B", addr,
                            "-p", str(port)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if not wait_listening(port, srv, time.time() + 5, addr):
            return None, None, None, None, "server did not start"
        try:
            cli = subprocess.run([client_bin, "-c", addr, "-p", str(port),
                                  "-J"] + args, capture_output=True,
                                 timeout=CASE_TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, None, None, None, "client timed out"
        try:
            sout, serr = srv.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            return cli.returncode, None, None, None, "server did not exit"
        try:
            cj = parse_doc(cli.stdout, "client")
            sj = parse_doc(sout, "server")
        except ValueError as e:
            return cli.returncode, srv.returncode, None, None, \
                f"bad JSON: {e}; client stderr={cli.stderr[:300]!r} " \
                f"server stderr={serr[:300]!r}"
        return cli.returncode, srv.returncode, cj, sj, None
    finally:
        stop(srv)


SUM_KEYS = ["sum_sent", "sum_received", "sum_sent_bidir_reverse",
            "sum_received_bidir_reverse"]
# Figures both ends must agree on, where both report them.
AGREE = ["bytes", "packets", "lost_packets"]


def sender_block_slack(sent_by_321_server, args, blksize):
    """A 3.21 server sending (-R, --bidir) may report to the client up to
    one block per stream more than it prints itself: its sending threads
    count a last block after it took the figures it prints.  Two 3.21s
    show it now and then, our client more often (its receivers stop
    reading at TEST_END at once).  The client relays the server's figure
    unchanged, so this is 3.21's own difference: tolerated, and noted."""
    if not sent_by_321_server:
        return 0
    streams = int(args[args.index("-P") + 1]) if "-P" in args else 1
    return blksize * streams


def check_bytes(cj, sj, args, server_ver=None):
    """Figures both documents carry for a direction must be equal.

    With -O, iperf3 3.12 neither sends nor reads the omitted datagram
    counts (added in 3.14), so the two ends legitimately count datagrams
    differently; only bytes are compared then.  server_ver "3.21": see
    sender_block_slack()."""
    problems, compared = [], 0
    agree = ["bytes"] if "-O" in args else AGREE
    ce, se = cj.get("end", {}), sj.get("end", {})
    for k in SUM_KEYS:
        if k not in ce or k not in se:
            continue
        for f in agree:
            cb, sb = ce[k].get(f, 0), se[k].get(f, 0)
            # the server sends what its sum_sent* (-R) or
            # sum_*_bidir_reverse (--bidir) counts
            by_server = k.startswith("sum_sent") == ("-R" in args) or \
                k.endswith("bidir_reverse")
            slack = sender_block_slack(
                server_ver == "3.21" and by_server and f == "bytes", args,
                cj.get("start", {}).get("test_start", {}).get("blksize", 0))
            if cb and sb:
                compared += 1
                if cb != sb and 0 < cb - sb <= slack:
                    print(f"note: {k}.{f}: client says {cb}, server says "
                          f"{sb} (3.21 server, a block per stream)")
                elif cb != sb:
                    problems.append(f"{k}.{f}: client says {cb}, "
                                    f"server says {sb}")
    rcv = [ce.get(k, {}).get("bytes", 0)
           for k in ("sum_received", "sum_received_bidir_reverse")]
    if not any(rcv):
        problems.append("no bytes received")
    if compared == 0:
        problems.append("no direction reported by both ends")
    return problems


def check_keys(ours, stock, peer_ver):
    po, ps = key_paths(ours), key_paths(stock)
    allowed = ADDED_AFTER_312 if peer_ver == "3.12" else set()
    extra = sorted(p for p in po - ps - allowed if not OUR_KEY.search(p))
    missing = sorted(ps - po)
    probs = []
    if extra:
        probs.append(f"keys only in ours: {extra[:8]}")
    if missing:
        probs.append(f"keys missing from ours: {missing[:8]}")
    return probs


def run_case(ours, peer, name, args, v6, keys):
    """Both roles against one peer; with `keys`, our key paths against
    the peer's own document for the same case."""
    ver, stock = peer
    ref = run_pair(stock, stock, "127.0.0.1", args) if keys else \
        (None, None, None, None, None)
    addrs = ["127.0.0.1"] + (["::1"] if v6 and socket.has_ipv6 else [])
    for addr in addrs:
        for role, sbin, cbin in (("ours->stock", stock, ours),
                                 ("stock->ours", ours, stock)):
            t0 = time.time()
            crc, src, cj, sj, err = run_pair(sbin, cbin, addr, args)
            probs = [err] if err else []
            if not err:
                if crc != 0:
                    probs.append(f"client exit {crc}")
                if src != 0:
                    probs.append(f"server exit {src}")
                probs += check_bytes(cj, sj, args,
                                     ver if role == "ours->stock" else None)
                if ref[2] is not None:
                    mine = cj if role == "ours->stock" else sj
                    theirs = ref[2] if role == "ours->stock" else ref[3]
                    probs += check_keys(mine, theirs, ver)
            label = f"{name} {role.replace('stock', ver)} {addr} " \
                f"({' '.join(args)})"
            report(label, probs, time.time() - t0)


def main():
    ours, stock312 = sys.argv[1], sys.argv[2]
    filt = sys.argv[3] if len(sys.argv) > 3 else ""
    peers = stock_peers(stock312 or None)
    if not peers:
        print("SKIP: no stock iperf3 peer to run against")
        return 77
    newest = peers[-1][0]
    work = []
    for peer in peers:
        # An older peer beside a newer one: every case over IPv4; the key
        # paths (normative: 3.21's) and IPv6 against the newest.
        full = peer[0] == newest
        for name, args, v6 in TCP_CASES + UDP_CASES:
            if not filt or filt in name:
                work.append((ours, peer, name, args, v6 and full, full))
    # Two cases at a time: they check figures and keys, not rates, and
    # most of a case is waiting (-t 1, the server's start and end).
    with ThreadPoolExecutor(max_workers=2) as pool:
        for f in [pool.submit(run_case, *w) for w in work]:
            f.result()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
