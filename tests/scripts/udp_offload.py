#!/usr/bin/env python3
"""UDP GSO/GRO negotiated between two of our programs (udp_offload, ext.h).

  udp_offload.py OURS [STOCK]

Ours with ours: the client asks (a key of the parameter document), the
server grants it in each stream's hello reply, and both ends then send
with UDP GSO and receive with UDP GRO.  Checked from the JSON of both
ends (start.implementation.udp_offload) and from the figures: every
datagram still counts alone (received bytes are whole -l datagrams,
sequence numbers give no false loss), in both directions, with -P 2 and
--bidir, and a -b rate still holds.

With a stock peer (3.12, 3.21) in either role nothing is negotiated and
the peer sees the stock flow: where strace works, our end is seen never
to set UDP_SEGMENT or UDP_GRO and our server's hello reply to be the
stock 4 bytes.  --no-udp-offload on either end turns it off.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from testlib import (free_port, one_test, record, stock_peers,
                     strace_unavailable, summary)

OURS = None
LEN = 1400


def doc(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def offload(d):
    return d["start"].get("implementation", {}).get("udp_offload") \
        if d else None


def whole_datagrams(d, probs, where, loss_bound=None):
    """What a receiver counted is whole datagrams of LEN bytes: its bytes
    are (packets - lost) * LEN, in each direction's sum_received."""
    for key in ("sum_received", "sum_received_bidir_reverse"):
        r = d["end"].get(key)
        if not r or "packets" not in r:
            continue
        got = r["packets"] - r["lost_packets"]
        if r["bytes"] != got * LEN:
            probs.append(f"{where} {key}: {r['bytes']} bytes for {got} "
                         f"datagrams of {LEN}")
        if loss_bound is not None and \
                r["lost_packets"] > r["packets"] * loss_bound:
            probs.append(f"{where} {key}: {r['lost_packets']} of "
                         f"{r['packets']} lost")


def pair(server, client, sargs, cargs, strace_side=None):
    """One test; returns (client doc, server doc, client rc, server rc,
    strace text of the side named, or None)."""
    port = free_port()
    trace = None
    pre = []
    if strace_side is not None:
        fd, trace = tempfile.mkstemp(prefix="udpofl.", suffix=".strace")
        os.close(fd)
        pre = ["strace", "-f", "-qq", "-o", trace, "-e",
               "trace=setsockopt,sendto,send,sendmsg,write"]
    sv = [server, "-s", "-1", "-J", "-p", str(port)] + sargs
    cv = [client, "-c", "127.0.0.1", "-p", str(port), "-J", "-u",
          "-l", str(LEN)] + cargs
    if strace_side == "server":
        sv = pre + sv
    elif strace_side == "client":
        cv = pre + cv
    cli, src, sout, _ = one_test(sv, cv, timeout=40)
    text = None
    if trace is not None:
        with open(trace, errors="replace") as f:
            text = f.read()
        os.unlink(trace)
    return doc(cli.stdout), doc(sout), cli.returncode, src, text


def ours_with_ours():
    for args, label in [(["-b", "0", "-t", "1"], "-b 0"),
                        (["-b", "0", "-t", "1", "-R"], "-b 0 -R"),
                        (["-b", "0", "-t", "1", "-P", "2"], "-b 0 -P 2"),
                        (["-b", "0", "-t", "1", "--bidir"], "-b 0 --bidir"),
                        (["-b", "200M", "-t", "2"], "-b 200M"),
                        (["-b", "200M", "-t", "2", "-R"], "-b 200M -R")]:
        # Under -b every datagram goes alone (ext.h): offload only at -b 0.
        paced = "-b 0" not in label
        what = "offload off (paced)" if paced else "offload on"
        c, s, crc, src, _ = pair(OURS, OURS, [], args)
        probs = []
        if crc != 0 or src != 0 or c is None or s is None:
            record(f"ours<->ours {label}: {what}, datagrams whole", False,
                   f"exit {crc}/{src}")
            continue
        if offload(c) is not (not paced) or offload(s) is not (not paced):
            probs.append(f"udp_offload client {offload(c)} server "
                         f"{offload(s)}")
        # -b 0 drops at the receiver by design (UDP has no flow control);
        # a paced flow on loopback must not.
        bound = 0.05 if paced else None
        whole_datagrams(c, probs, "client", bound)
        whole_datagrams(s, probs, "server", bound)
        if paced:
            # The sender's rate.  Within 5 %: the pacer pays back a late
            # wake-up at up to twice the rate (src/measure/pacer.h), so on
            # a busy runner a shortfall in the last moments of a 2 s test
            # stays (a loaded local CI run saw 195.9 at -R); a pacer that
            # did not catch up at all gave 146-197 beside two busy loops.
            bps = c["end"]["sum_sent"]["bits_per_second"]
            if abs(bps - 200e6) > 200e6 * 0.05:
                probs.append(f"-b 200M gave {bps / 1e6:.1f} Mbit/s")
        record(f"ours<->ours {label}: {what}, datagrams whole",
               not probs, "; ".join(probs), detail_on_pass=False)
    # Paced: neither end sets UDP_SEGMENT or UDP_GRO (seen by strace).
    if strace_unavailable() is None:
        for side in ("client", "server"):
            _, _, crc, src, tr = pair(OURS, OURS, [], ["-b", "100M", "-t",
                                                       "1"], side)
            probs = [] if crc == 0 and src == 0 else [f"exit {crc}/{src}"]
            wire_is_stock(tr, probs)
            record(f"ours<->ours -b 100M: the {side} sends and receives "
                   "datagram by datagram", not probs, "; ".join(probs),
                   detail_on_pass=False)


# setsockopt(fd, SOL_UDP, UDP_SEGMENT|UDP_GRO, ...): strace names them,
# or prints the numbers (17, 103 / 104) when it does not know them.
OFFLOAD_SET = re.compile(r"setsockopt\(\d+, (SOL_UDP|17|IPPROTO_UDP), "
                         r"(UDP_SEGMENT|UDP_GRO|103|104)")
REPLY_8 = re.compile(r'(send|sendto|write)\(\d+, "6789\+gso"')


def wire_is_stock(trace, probs):
    if trace is None:
        return
    if OFFLOAD_SET.search(trace):
        probs.append("our end set UDP_SEGMENT/UDP_GRO: " +
                     OFFLOAD_SET.search(trace).group(0))
    if REPLY_8.search(trace):
        probs.append("our server sent the 8-byte grant")


def with_stock(peers):
    why = strace_unavailable()
    if why:
        print(f"SKIP: strace checks of the stock wire: {why}")
    side = None if why else True
    for ver, path in peers:
        for args, label in [(["-b", "0", "-t", "1"], ""),
                            (["-b", "0", "-t", "1", "-R"], " -R")]:
            # ours client, stock server
            c, _, crc, src, tr = pair(path, OURS, [], args,
                                      side and "client")
            probs = [] if crc == 0 and src == 0 and c else \
                [f"exit {crc}/{src}"]
            if c and offload(c) is not False:
                probs.append(f"client udp_offload {offload(c)}")
            wire_is_stock(tr, probs)
            record(f"ours->{ver}{label}: no offload, stock wire", not probs,
                   "; ".join(probs), detail_on_pass=False)
            # stock client, ours server
            _, s, crc, src, tr = pair(OURS, path, [], args,
                                      side and "server")
            probs = [] if crc == 0 and src == 0 and s else \
                [f"exit {crc}/{src}"]
            if s and offload(s) is not False:
                probs.append(f"server udp_offload {offload(s)}")
            wire_is_stock(tr, probs)
            record(f"{ver}->ours{label}: no offload, stock wire", not probs,
                   "; ".join(probs), detail_on_pass=False)


def opted_out():
    why = strace_unavailable()
    for sargs, cargs, label in [([], ["--no-udp-offload"], "client"),
                                (["--no-udp-offload"], [], "server")]:
        c, s, crc, src, tr = pair(OURS, OURS, sargs,
                                  cargs + ["-b", "0", "-t", "1"],
                                  None if why else "server")
        probs = [] if crc == 0 and src == 0 and c and s else \
            [f"exit {crc}/{src}"]
        if c and s and (offload(c) is not False or offload(s) is not False):
            probs.append(f"udp_offload client {offload(c)} server "
                         f"{offload(s)}")
        wire_is_stock(tr, probs)
        record(f"--no-udp-offload on the {label}: plain datagrams", not probs,
               "; ".join(probs), detail_on_pass=False)


def main():
    global OURS
    OURS = sys.argv[1]
    stock = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    r = subprocess.run([OURS, "--help"], capture_output=True, text=True)
    if "--no-udp-offload" not in r.stdout:
        print("SKIP: this build has no UDP GSO/GRO (no udp_offload)")
        return 77
    ours_with_ours()
    opted_out()
    with_stock(stock_peers(stock))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
