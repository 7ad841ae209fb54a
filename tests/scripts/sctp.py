#!/usr/bin/env python3
"""SCTP tests, in two modes.

  sctp.py data OURS [STOCK]    needs SCTP in the kernel: ours <-> ours and
                               ours <-> each stock peer present (STOCK,
                               Debian's 3.12, and 3.21: testlib.stock_peers)
                               `--sctp` in both roles, -P 2, -R,
                               --nstreams 4.  Without kernel SCTP it prints
                               SKIP with the reason and exits 77 (on such
                               a machine sctp_vm.py runs it in a VM).
  sctp.py errors OURS [STOCK]  where the kernel has no SCTP: client and
                               server both report 3.21's error (client exit
                               1, the server goes on serving).  With kernel
                               SCTP the error cannot happen: SKIP, exit 77.

Both modes skip (77) when our binary was built without SCTP.
"""
import json
import re
import socket
import subprocess
import sys

import time

from testlib import (free_port, one_test, record, stock_peers, stop,
                     summary, wait_listening)


def kernel_sctp():
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM,
                          socket.IPPROTO_SCTP)
        s.close()
        return None
    except OSError as e:
        return f"socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP): {e.strerror}"


def built_with_sctp(ours):
    out = subprocess.run([ours, "-v"], capture_output=True, text=True).stdout
    return "SCTP" in out


def pair(server, client, args, sargs=()):
    """one_test()'s results; a client or server that hangs is this case's
    failure (exit status None, and why on the client's stderr), not the
    end of the script."""
    port = free_port()
    try:
        return one_test([server, "-s", "-1", "-p", str(port)] + list(sargs),
                        [client, "-c", "127.0.0.1", "-p", str(port)] + args)
    except subprocess.TimeoutExpired as e:
        return (subprocess.CompletedProcess(e.cmd, None, "",
                                            f"timed out: {e}"),
                None, "", "")


WANT = "unable to start stream listener: Protocol not supported"


def errors(ours, stock):
    cli, src, _, serr = pair(ours, ours, ["--sctp", "-t", "1"])
    record("our client -> our server: client exits 1 with the relayed error",
           cli.returncode == 1 and f"SERVER ERROR - {WANT}" in cli.stderr and
           f"iperf3: error - {WANT}" in cli.stderr, cli.stderr.strip())
    record("our server prints the error and goes on (exit 0 with -1)",
           src == 0 and f"iperf3: error - {WANT}" in serr, serr.strip())
    if stock:
        cli, _, _, _ = pair(stock, ours, ["--sctp", "-t", "1"])
        record("our client -> stock server: exit 1 with the relayed error",
               cli.returncode == 1 and WANT in cli.stderr, cli.stderr.strip())
        cli, src, _, serr = pair(ours, stock, ["--sctp", "-t", "1"])
        record("stock client -> our server: stock client shows the error",
               cli.returncode == 1 and WANT in cli.stderr and src == 0,
               cli.stderr.strip())


def data(ours, stock):
    peers = [("ours->ours", ours, ours)]
    for ver, path in stock_peers(stock):
        peers += [(f"ours->{ver}", path, ours), (f"{ver}->ours", ours, path)]
    for name, srv, cli in peers:
        for args in (["-t", "1"], ["-t", "1", "-P", "2"], ["-t", "1", "-R"],
                     ["-t", "1", "--nstreams", "4"], ["-t", "1", "-J"],
                     ["-t", "1", "--bidir"], ["-t", "1", "-l", "8K"]):
            c, src, sout, _ = pair(srv, cli, ["--sctp"] + args)
            ok = c.returncode == 0 and src == 0 and \
                ("receiver" in c.stdout or '"sum_received"' in c.stdout)
            record(f"SCTP {name} {' '.join(args)}", ok,
                   "" if ok else c.stderr.strip()[:200])
        # --xbind on both ends (the server's listener is bound by
        # sctp_bindx alone; a bind() after it failed with EINVAL).
        c, src, _, serr = pair(srv, cli, ["-4", "--sctp", "--xbind",
                                          "127.0.0.1", "-t", "1"],
                               ["-4", "--xbind", "127.0.0.1"])
        ok = c.returncode == 0 and src == 0 and "receiver" in c.stdout
        record(f"SCTP {name} -4 --xbind 127.0.0.1 on both ends", ok,
               "" if ok else (c.stderr + serr).strip()[:200])
    # Without -4: whatever 3.21 does with 3.21, ours does with ours.
    ref = [p for v, p in stock_peers(stock, want=("3.21",))]
    xb = (["--sctp", "--xbind", "127.0.0.1", "-t", "1"],
          ["--xbind", "127.0.0.1"])
    if ref:
        want, wsrc, _, _ = pair(ref[0], ref[0], *xb)
        got, gsrc, _, gerr = pair(ours, ours, *xb)
        record("SCTP --xbind 127.0.0.1 without -4: ours/ours exits as "
               "3.21/3.21", (got.returncode, gsrc) == (want.returncode, wsrc),
               f"3.21 {want.returncode}/{wsrc}, ours {got.returncode}/{gsrc}"
               f" {gerr.strip()[:120]}")
    if ref:
        shapes(ours, ref[0])
        text_shapes(ours, ref[0])
    multi(ours)


def keyset(o, path=""):
    out = set()
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "implementation":  # ours, by design (iperf3(1))
                continue
            out.add(f"{path}.{k}")
            out |= keyset(v, f"{path}.{k}")
    elif isinstance(o, list):
        for v in o[:1]:
            out |= keyset(v, f"{path}[]")
    return out


def shapes(ours, ref):
    """-J of the same run, ours/ours against 3.21/3.21: the same keys, and
    the sender's association figures (snd_cwnd, pmtu) filled where 3.21
    fills them.  (rtt comes from the same SCTP_STATUS, but a smoothed RTT
    in ms under an emulated CPU is 0 in some runs of either program.)"""
    for args in (["-t", "1", "-J"], ["-t", "1", "-J", "-P", "2"],
                 ["-t", "1", "-J", "-R"], ["-t", "1", "-J", "--bidir"]):
        docs = []
        for prog in (ref, ours):
            c, src, _, _ = pair(prog, prog, ["--sctp"] + args)
            try:
                docs.append(json.loads(c.stdout))
            except ValueError:
                docs.append(None)
        name = f"SCTP {' '.join(args)}: JSON keys and figures as 3.21's"
        if None in docs:
            record(name, False, "no JSON document")
            continue
        want, got = keyset(docs[0]), keyset(docs[1])
        probs = []
        if got - want:
            probs.append(f"extra {sorted(got - want)}")
        if want - got:
            probs.append(f"missing {sorted(want - got)}")
        for key in ("snd_cwnd", "pmtu"):
            def senders(d):
                return [st[key] for iv in d["intervals"]
                        for st in iv["streams"]
                        if st.get("sender") and key in st]
            w, g = senders(docs[0]), senders(docs[1])
            if any(w) and not any(g):
                probs.append(f"{key} 0 where 3.21 has {w[:2]}")
        record(name, not probs, "; ".join(probs), detail_on_pass=False)


def text_shape(out):
    """Each report line as (kind, tail tokens): numbers as N, byte units
    as U; the tail is what follows the bitrate (Retr, Cwnd, role)."""
    rows = []
    for ln in out.splitlines():
        m = re.match(r"\[\s*(SUM|\d+)\](\[[A-Z-]+\])?.*?bits/sec(.*)$", ln)
        if not m:
            continue
        kind = ("SUM" if m.group(1) == "SUM" else "S") + (m.group(2) or "")
        toks = ["N" if re.fullmatch(r"-?[0-9.]+", t) else
                "U" if t.endswith("Bytes") else t for t in m.group(3).split()]
        rows.append((kind, toks))
    return rows


def text_shapes(ours, ref):
    """Text of the same run, ours/ours against 3.21/3.21: the same rows
    with the same columns (Retr on stream sender rows, -1 where the peer
    sent; none on [SUM] rows; a Cwnd on interval rows)."""
    for args in (["-t", "2", "-P", "2"], ["-t", "2", "-R"],
                 ["-t", "2", "--bidir"]):
        outs = []
        for prog in (ref, ours):
            c, _, _, _ = pair(prog, prog, ["--sctp"] + args)
            outs.append(c.stdout)
        want, got = text_shape(outs[0]), text_shape(outs[1])
        diff = [f"{w} != {g}" for w, g in zip(want, got) if w != g]
        if len(want) != len(got):
            diff.append(f"{len(got)} rows, 3.21 {len(want)}")
        record(f"SCTP {' '.join(args)}: text columns as 3.21's", not diff,
               "; ".join(diff[:3]), detail_on_pass=False)
        if args[-1] in ("-R", "--bidir"):
            record(f"SCTP {' '.join(args)}: remote sender's Retr is -1",
                   re.search(r"\s-1\s+sender", outs[1]) is not None,
                   outs[1][-400:], detail_on_pass=False)


def multi(ours):
    """--max-tests 2: two SCTP tests at once on one server."""
    port = free_port()
    srv = subprocess.Popen([ours, "-s", "-p", str(port), "--max-tests", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        if not wait_listening(port, srv, time.time() + 10):
            record("SCTP --max-tests 2: two tests at once", False,
                   "server did not listen")
            return
        clis = [subprocess.Popen([ours, "-c", "127.0.0.1", "-p", str(port),
                                  "--sctp", "-t", "2"] + extra,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for extra in ([], ["-R"])]
        outs = []
        for c in clis:
            try:
                o, e = c.communicate(timeout=40)
            except subprocess.TimeoutExpired:
                c.kill()
                o, e = c.communicate()
            outs.append((c.returncode, o, e))
        ok = all(rc == 0 and "receiver" in o for rc, o, _ in outs)
        record("SCTP --max-tests 2: two tests at once (one -R)", ok,
               "" if ok else "; ".join(f"{rc}: {e.strip()[:100]}"
                                       for rc, _, e in outs))
    finally:
        stop(srv)


def main():
    mode, ours = sys.argv[1], sys.argv[2]
    stock = sys.argv[3] if len(sys.argv) > 3 else None
    if not built_with_sctp(ours):
        print("SKIP: this build has no SCTP support (configure found no "
              "netinet/sctp.h or libsctp)")
        return 77
    missing = kernel_sctp()
    if mode == "data":
        if missing:
            print(f"SKIP: the kernel has no SCTP ({missing})")
            return 77
        data(ours, stock)
    else:
        if not missing:
            print("SKIP: the kernel has SCTP, so its absence cannot be tested")
            return 77
        print(f"kernel without SCTP: {missing}")
        errors(ours, stock)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
