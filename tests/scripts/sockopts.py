#!/usr/bin/env python3
"""Socket options seen on the wire, inside a private network namespace.

nftables counters in a namespace the test creates observe what our
iperf3 really puts on packets, against the stock iperf3 in both roles:

  -S / --dscp    IP TOS / DSCP of data packets (client side and, through
                 the parameters, the server's side)
  -L             the IPv6 flow label of the client's data connection
  --dont-fragment  IPv4 DF: with a 1500-byte MTU, 3000-byte datagrams are
                 not fragmented but refused (nothing arrives)
  --bind-dev     binding to a device that cannot reach the server (a veth)
                 fails, binding to lo works
  --fq-rate      the kernel paces the data to the requested rate
  -C             the congestion algorithm in use, as JSON reports it, on
                 both ends

Skips (exit 77) with the reason printed when the stock iperf3 is missing
or this machine cannot give the test a namespace with nft in it (probed
with testlib.Netns: not root, an unprivileged container without
CAP_SYS_ADMIN / CAP_NET_ADMIN, a chroot where `ip netns exec` fails, ip
or nft not installed).  Usage: sockopts.py OURS STOCK
"""

import json
import os
import subprocess
import sys
import time

from testlib import Netns, NetnsUnavailable, record, stop, summary, wait_exit

NS = None     # the testlib.Netns of this run
PORT = 5402


class Failed(Exception):
    """A command in the namespace failed: a defect once the namespace
    works (reported as FAIL, not a traceback)."""


def sh(*cmd, check=True, **kw):
    r = NS.run(*cmd, **kw)
    if check and r.returncode != 0:
        raise Failed(f"{' '.join(cmd[:4])}: exit {r.returncode}: "
                     f"{r.stderr.strip()[:200]}")
    return r


def nft(rules):
    sh("nft", "-f", "-", input=rules)


def counter(name):
    out = sh("nft", "-j", "list", "counter", "inet", "t", name).stdout
    for item in json.loads(out)["nftables"]:
        if "counter" in item:
            return item["counter"]["packets"]
    return 0


def reset_counters():
    sh("nft", "reset", "counters", "table", "inet", "t")


def pair(server, client, cargs, sargs=(), addr="127.0.0.1", timeout=30):
    """Run one test in the namespace; returns (client rc, client json)."""
    srv = NS.popen(server, "-s", "-1", "-p", PORT, *sargs,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if not NS.wait_listening(PORT, srv, time.time() + 10):
            stop(srv)
            err = srv.communicate()[1].decode(errors="replace")
            return None, {"error": f"server did not listen: {err[-200:]}"}
        r = sh(client, "-c", addr, "-p", str(PORT), "-J", *cargs,
               check=False, timeout=timeout)
        wait_exit(srv, 10)  # killed below if it has not ended
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            doc = {}
        return r.returncode, doc
    finally:
        stop(srv)


COUNTERS = """
table inet t {
	counter c2s_cs1 {}
	counter s2c_cs1 {}
	counter c2s_ef {}
	counter s2c_ef {}
	counter c2s_label {}
	counter c2s_nolabel {}
	chain out {
		type filter hook output priority 0; policy accept;
		tcp dport %(p)d ip dscp cs1 counter name c2s_cs1
		tcp sport %(p)d ip dscp cs1 counter name s2c_cs1
		udp dport %(p)d ip dscp ef counter name c2s_ef
		udp sport %(p)d ip dscp ef counter name s2c_ef
		tcp dport %(p)d ip6 flowlabel 0x12345 counter name c2s_label
		tcp dport %(p)d ip6 flowlabel 0 counter name c2s_nolabel
	}
}
""" % {"p": PORT}


def tos_cases(ours, stock):
    # Our client marks its data packets; our server marks its side too,
    # from the TOS parameter (the stock 3.12 server does not, so only the
    # side that is ours is required).
    for who, s, c in (("ours->stock", stock, ours), ("stock->ours", ours, stock)):
        ours_side = "c2s" if c == ours else "s2c"
        reset_counters()
        rc, _ = pair(s, c, ["-t", "1", "-S", "0x20"])
        n = {"c2s": counter("c2s_cs1"), "s2c": counter("s2c_cs1")}
        record(f"-S 0x20 {who}: our {ours_side} data packets carry DSCP cs1",
               rc == 0 and n[ours_side] > 0 and n["c2s"] > 0, f"rc={rc} {n}")
        reset_counters()
        rc, _ = pair(s, c, ["-u", "-t", "1", "--dscp", "ef", "--bidir"])
        n = {"c2s": counter("c2s_ef"), "s2c": counter("s2c_ef")}
        record(f"--dscp ef UDP --bidir {who}: our {ours_side} datagrams carry "
               "DSCP ef", rc == 0 and n[ours_side] > 0, f"rc={rc} {n}")


def flowlabel_cases(ours, stock):
    reset_counters()
    rc, _ = pair(stock, ours, ["-t", "1", "-L", "0x12345"], addr="::1")
    lab, nolab = counter("c2s_label"), counter("c2s_nolabel")
    record("-L 0x12345 ours->stock over ::1: data packets carry the label",
           rc == 0 and lab > 0, f"rc={rc} labelled={lab} unlabelled={nolab}")


def received_datagrams(doc):
    end = doc.get("end", {})
    s = end.get("sum_received") or end.get("sum") or {}
    return s.get("packets", 0) - s.get("lost_packets", 0), s.get("bytes", 0)


def df_cases(ours, stock):
    sh("ip", "link", "set", "lo", "mtu", "1500")
    try:
        base = ["-u", "-t", "1", "-l", "3000", "-b", "5M"]
        rc, doc = pair(stock, ours, base)
        got, _ = received_datagrams(doc)
        record("without --dont-fragment 3000-byte datagrams are fragmented "
               "and arrive", rc == 0 and got > 0, f"rc={rc} received={got}")
        rc, doc = pair(stock, ours, base + ["--dont-fragment"])
        pk, byt = received_datagrams(doc)
        record("ours --dont-fragment: DF set, oversized datagrams refused",
               byt == 0, f"rc={rc} bytes received={byt}")
        rc, doc = pair(ours, stock, base + ["-R", "--dont-fragment"])
        pk, byt = received_datagrams(doc)
        record("stock -R --dont-fragment: our server sets DF too",
               byt == 0, f"rc={rc} bytes received={byt}")
    finally:
        sh("ip", "link", "set", "lo", "mtu", "65536", check=False)


def bind_dev_cases(ours, stock):
    sh("ip", "link", "add", "veth0", "type", "veth", "peer", "name", "veth1")
    sh("ip", "link", "set", "veth0", "up")
    sh("ip", "link", "set", "veth1", "up")
    rc, _ = pair(stock, ours, ["-t", "1", "--bind-dev", "lo"])
    record("--bind-dev lo works", rc == 0, f"rc={rc}")
    rc, doc = pair(stock, ours, ["-t", "1", "--bind-dev", "veth0",
                                 "--connect-timeout", "2000"])
    err = doc.get("error", "")
    record("--bind-dev veth0 cannot reach 127.0.0.1", rc == 1,
           f"rc={rc} error={err!r}")
    rc, doc = pair(stock, ours, ["-t", "1", "-B", "127.0.0.1%veth0",
                                 "--connect-timeout", "2000"])
    record("-B 127.0.0.1%veth0 binds the device too", rc == 1,
           f"rc={rc} error={doc.get('error', '')!r}")


def fq_rate_cases(ours, stock):
    for who, s, c, extra in (("ours->stock", stock, ours, []),
                             ("stock->ours -R", ours, stock, ["-R"])):
        rc, doc = pair(s, c, ["-t", "2", "--fq-rate", "50M"] + extra)
        bps = doc.get("end", {}).get("sum_received", {}).get(
            "bits_per_second", 0)
        record(f"--fq-rate 50M {who}: paced to 50 Mbit/s",
               rc == 0 and 40e6 < bps < 60e6, f"rc={rc} {bps / 1e6:.1f} Mbit/s")


def congestion_cases(ours, stock):
    # reno is always built into Linux; our default here is something else.
    rc, doc = pair(stock, ours, ["-t", "1", "-C", "reno"])
    got = doc.get("end", {}).get("sender_tcp_congestion")
    record("-C reno ours->stock: JSON sender_tcp_congestion is reno",
           rc == 0 and got == "reno", f"rc={rc} got={got!r}")
    srv = NS.popen(ours, "-s", "-1", "-J", "-p", PORT, stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL, text=True)
    r = None
    try:
        if not NS.wait_listening(PORT, srv, time.time() + 10):
            raise ValueError("server did not listen")
        r = sh(stock, "-c", "127.0.0.1", "-p", str(PORT), "-t", "1", "-C",
               "reno", check=False, timeout=30)
        out, _ = srv.communicate(timeout=10)
        got = json.loads(out).get("end", {}).get("receiver_tcp_congestion")
    except (ValueError, subprocess.TimeoutExpired):
        got = None
    finally:
        stop(srv)
    record("-C reno stock->ours: our server applies it (receiver_tcp_"
           "congestion)", r is not None and r.returncode == 0 and
           got == "reno", f"got={got!r}")


CASES = [tos_cases, flowlabel_cases, df_cases, bind_dev_cases, fq_rate_cases,
         congestion_cases]


def main():
    global NS
    ours, stock = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
    if not stock or not os.path.exists(stock):
        print("SKIP: stock iperf3 not installed (apt-get install iperf3)")
        return 77
    try:
        NS = Netns("opts", nft=True)
    except NetnsUnavailable as e:
        print(f"SKIP: {e}")
        return 77
    try:
        try:
            nft(COUNTERS)
        except Failed as e:
            print(f"SKIP: nft counters not available: {e}")
            return 77
        for fn in CASES:
            try:
                fn(ours, stock)
            except (Failed, subprocess.SubprocessError, OSError,
                    ValueError, KeyError) as e:
                record(fn.__name__, False, f"{type(e).__name__}: {e}")
    finally:
        NS.close()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
