#!/usr/bin/env python3
"""The server's caps: 3.21's refusals for stock clients, a clamp for ours.

Every case starts its own servers on their own loopback ports (one test
each, -1) and bounds every run; tests run 1 to 3 s.

  stock     stock 3.12 and 3.21 clients against our server with each cap
            (duration, -b above the rate cap, unlimited TCP under it,
            bytes, streams): the exit status and the "iperf3:" lines a
            3.21 server gives the same client for the equivalent case (for
            bytes and streams: the duration cap and a -t above it)
  clamp     our client against our server: each cap clamps, the client
            exits 0, prints "Server cap: ..." for what changed, records
            start.server_caps (the server's -J the same object), and runs
            what was applied (duration, bytes, streams, rate, generous
            tolerances); -t 0 and -n end at the duration cap, -n and -b 0
            at the byte cap
  no_clamp  --no-clamp gets 3.21's refusal
  watchdog  a client that sends beyond the byte bound it asked for is
            stopped by the byte cap (SERVER_ERROR 160) mid-test
  stock_srv our client against a 3.21 server with caps: the stock refusal;
            the parameter document is the one --no-clamp sends plus the
            "iperf3_compat" key

Usage: caps.py OURS [FILTER]
"""

import json
import os
import re
import socket
import sys

import testlib
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (connect, free_port, one_test, parse_doc,  # noqa: E402
                     random_cookie, record, recv_exact, send_doc,
                     server_error_code,
                     skip, start_server, stock_peers, stop, summary)

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
PEERS = stock_peers()
P321 = dict(PEERS).get("3.21")
M = 1000000
MIB = 1048576
REFUSED_37 = ("client's requested duration exceeds the server's maximum "
              "permitted limit")
REFUSED_27 = "total required bandwidth is larger than server limit"


def pair(server, sargs, client, cargs, timeout=30):
    """One test: (client CompletedProcess, server stdout)."""
    port = free_port()
    cli, _, sout, _ = one_test(
        [server, "-s", "-1", "-p", str(port)] + sargs,
        [client, "-c", "127.0.0.1", "-p", str(port)] + cargs,
        timeout=timeout)
    return cli, sout


def iperf_lines(text):
    """The "iperf3: ..." lines (errors), without timestamps."""
    return [ln.strip() for ln in (text or "").splitlines()
            if ln.strip().startswith("iperf3:")]


# ---- (a) stock clients: what a 3.21 server gives them --------------------

# Its client's failed write then ends the output ("unable to write to
# stream socket: Connection reset by peer", or with no reason at all).
RACE = re.compile(r"Connection reset by peer|Broken pipe|"
                  r"unable to write to stream socket")

# (label, our server's cap, client args, 3.21 server's cap, client args)
STOCK_CASES = [
    ("duration", ["--server-max-duration", "2"], ["-t", "5"],
     ["--server-max-duration", "2"], ["-t", "5"]),
    ("bitrate -b too high", ["--server-bitrate-limit", "10M"],
     ["-b", "20M", "-t", "2"], ["--server-bitrate-limit", "10M"],
     ["-b", "20M", "-t", "2"]),
    ("bitrate, unlimited TCP", ["--server-bitrate-limit", "50M/1"],
     ["-t", "3"], ["--server-bitrate-limit", "50M/1"], ["-t", "3"]),
    ("bytes -n above", ["--server-max-bytes", "10M"], ["-n", "20M"],
     ["--server-max-duration", "2"], ["-t", "5"]),
    ("bytes, unbounded -t", ["--server-max-bytes", "10M"], ["-t", "2"],
     ["--server-max-duration", "2"], ["-t", "5"]),
    ("bytes, rate x time above", ["--server-max-bytes", "1M"],
     ["-b", "10M", "-t", "2"], ["--server-max-duration", "2"], ["-t", "5"]),
    ("streams", ["--server-max-streams", "2"], ["-P", "3", "-t", "2"],
     ["--server-max-duration", "2"], ["-t", "5"]),
    ("streams --bidir", ["--server-max-streams", "3"],
     ["--bidir", "-P", "2", "-t", "2"], ["--server-max-duration", "2"],
     ["-t", "5"]),
]


def case_stock():
    if not PEERS:
        return
    if P321 is None:
        skip("stock clients: no 3.21 server to compare with")
        return
    for ver, path in PEERS:
        for label, ours_s, ours_c, ref_s, ref_c in STOCK_CASES:
            got, _ = pair(OURS, ours_s, path, ours_c)
            # A 3.21 server that ends a running test races its client:
            # now and then the client's write meets the closed stream
            # first ("Connection reset by peer") instead of the reason.
            # Up to three runs for the reason to compare with.
            for _ in range(3):
                want, _ = pair(P321, ref_s, path, ref_c)
                if not RACE.search(want.stderr or ""):
                    break
            gl, wl = iperf_lines(got.stderr), iperf_lines(want.stderr)
            # Three races in a row: the server's reason, its first line,
            # is what the two must share.
            raced = bool(RACE.search(want.stderr or ""))
            ok = (got.returncode == want.returncode and
                  want.returncode not in (0, None) and
                  (gl == wl or (raced and gl[:1] == wl[:1] and
                                len(wl) > 0)))
            record(f"stock {ver} client, {label}: as from a 3.21 server",
                   ok, f"ours rc {got.returncode} {gl}; 3.21 rc "
                   f"{want.returncode} {wl}", detail_on_pass=False)
        # within every cap: a test runs
        got, _ = pair(OURS, ["--server-max-bytes", "10M",
                             "--server-max-streams", "2"],
                      path, ["-b", "10M", "-t", "1", "-P", "2"])
        record(f"stock {ver} client within the caps runs",
               got.returncode == 0, got.stderr[-200:], detail_on_pass=False)


# ---- (b) our client against our server: the clamp -------------------------

def caps_of(doc):
    return doc.get("start", {}).get("server_caps")


def sums(doc):
    end = doc.get("end", {})
    return end.get("sum_sent", end.get("sum", {})), end


def clamp_run(name, sargs, cargs, want_caps, check, line):
    """Our pair: -J (the caps, the figures, the server's -J) and text (the
    line)."""
    probs = []
    cli, sout = pair(OURS, sargs + ["-J"], OURS, cargs + ["-J"])
    try:
        doc = parse_doc(cli.stdout, "client -J")
        sdoc = parse_doc(sout, "server -J")
    except Exception as e:  # noqa: BLE001 - reported
        record(f"clamp {name}", False, f"rc {cli.returncode}: {e}; "
               f"{cli.stderr[-200:]!r}")
        return
    if cli.returncode != 0 or "error" in doc:
        probs.append(f"rc {cli.returncode} {doc.get('error')!r}")
    caps = caps_of(doc)
    for k, (req, app) in want_caps.items():
        c = (caps or {}).get(k, {})
        if c.get("requested") != req or c.get("applied") != app:
            probs.append(f"server_caps.{k} {c} want {req} -> {app}")
    if caps_of(sdoc) != caps:
        probs.append(f"server's start.server_caps {caps_of(sdoc)} != {caps}")
    probs += check(doc)
    cli, _ = pair(OURS, sargs, OURS, cargs)
    if cli.returncode != 0 or not all(ln in cli.stdout.splitlines()
                                      for ln in line):
        probs.append(f"text: rc {cli.returncode}, want lines {line}; got "
                     f"{[ln for ln in cli.stdout.splitlines() if 'cap' in ln]}"
                     f" {cli.stderr[-200:]!r}")
    record(f"clamp {name}", not probs, "; ".join(probs)[:600],
           detail_on_pass=False)


def seconds_near(lo, hi):
    def check(doc):
        s, _ = sums(doc)
        secs = s.get("seconds", 0)
        return [] if lo <= secs <= hi else [f"ran {secs:.2f} s, want "
                                            f"{lo}..{hi}"]
    return check


def bytes_near(lo, hi, secs_max=None):
    def check(doc):
        s, end = sums(doc)
        b = s.get("bytes", 0)
        back = end.get("sum_received", {}).get("bytes", 0)
        probs = [] if lo <= b <= hi else [f"sent {b} bytes, want {lo}..{hi}"]
        if back > hi:
            probs.append(f"received {back} bytes, above {hi}")
        if secs_max is not None and s.get("seconds", 0) > secs_max:
            probs.append(f"ran {s.get('seconds')} s")
        return probs
    return check


def streams_are(n, lo_bps=None, hi_bps=None):
    def check(doc):
        probs = []
        got = len(doc.get("end", {}).get("streams", []))
        if got != n:
            probs.append(f"{got} streams, want {n}")
        s, _ = sums(doc)
        bps = s.get("bits_per_second", 0)
        if lo_bps is not None and not lo_bps <= bps <= hi_bps:
            probs.append(f"{bps / M:.1f} Mbit/s, want {lo_bps / M:.0f}.."
                         f"{hi_bps / M:.0f}")
        return probs
    return check


def rate_near(bps, tol=0.25, dirs=1):
    def check(doc):
        end = doc.get("end", {})
        keys = ["sum_sent"] + (["sum_sent_bidir_reverse"] if dirs == 2
                               else [])
        got = sum(end.get(k, {}).get("bits_per_second", 0) for k in keys)
        if "sum" in end and "sum_sent" not in end:
            got = end["sum"].get("bits_per_second", 0)
        ok = bps * (1 - tol) <= got <= bps * (1 + tol)
        return [] if ok else [f"{got / M:.1f} Mbit/s, want {bps / M:.0f} "
                              f"(+-{tol:.0%})"]
    return check


def line(what, req, app, opt, lim):
    return f"Server cap: {what} {req} -> {app} (server {opt} {lim})"


def case_clamp():
    clamp_run("-t 5 under --server-max-duration 2",
              ["--server-max-duration", "2"], ["-t", "5"],
              {"duration": (5, 2)}, seconds_near(1.8, 2.6),
              [line("duration", "5 s", "2 s", "--server-max-duration", "2")])
    clamp_run("-t 3 -O 1 under --server-max-duration 2",
              ["--server-max-duration", "2"], ["-t", "3", "-O", "1"],
              {"duration": (3, 1)}, seconds_near(0.8, 1.6),
              [line("duration", "3 s", "1 s", "--server-max-duration", "2")])
    clamp_run("-t 0 ends at --server-max-duration 2",
              ["--server-max-duration", "2"], ["-t", "0"],
              {"duration": (0, 2)}, seconds_near(1.8, 2.6),
              [line("duration", "untimed", "2 s", "--server-max-duration",
                    "2")])
    clamp_run("-n 50G ends at --server-max-duration 2",
              ["--server-max-duration", "2"], ["-n", "50G", "-b", "100M"],
              {"duration": (0, 2)}, seconds_near(1.8, 2.6),
              [line("duration", "untimed", "2 s", "--server-max-duration",
                    "2")])
    clamp_run("-n 100M ends at --server-max-bytes 20M",
              ["--server-max-bytes", "20M"], ["-n", "100M"],
              {"bytes": (100 * MIB, 20 * MIB)},
              bytes_near(20 * MIB, 20 * MIB + 2 * 131072),
              [line("bytes", "100 MBytes", "20.0 MBytes",
                    "--server-max-bytes", "20.0 MBytes")])
    clamp_run("-t 3 -b 0 ends at --server-max-bytes 20M",
              ["--server-max-bytes", "20M"], ["-t", "3"],
              {"bytes": (0, 20 * MIB)},
              bytes_near(20 * MIB, 20 * MIB + 2 * 131072, secs_max=3.2),
              [line("bytes", "unbounded", "20.0 MBytes",
                    "--server-max-bytes", "20.0 MBytes")])
    clamp_run("-R -n 100M ends at --server-max-bytes 20M",
              ["--server-max-bytes", "20M"], ["-R", "-n", "100M"],
              {"bytes": (100 * MIB, 20 * MIB)},
              bytes_near(20 * MIB, 20 * MIB + 2 * 131072), [])
    clamp_run("-P 4 under --server-max-streams 2",
              ["--server-max-streams", "2"], ["-P", "4", "-t", "1"],
              {"streams": (4, 2)}, streams_are(2),
              [line("streams", "4", "2", "--server-max-streams", "2")])
    clamp_run("--bidir -P 2 under --server-max-streams 3",
              ["--server-max-streams", "3"], ["--bidir", "-P", "2", "-t", "1"],
              {"streams": (4, 2)}, streams_are(2),
              [line("streams", "4", "2", "--server-max-streams", "3")])
    clamp_run("-b 0 under --server-bitrate-limit 40M",
              ["--server-bitrate-limit", "40M"], ["-t", "2"],
              {"bitrate": (0, 40 * M)}, rate_near(40 * M),
              [line("bitrate", "unlimited", "40.0 Mbits/sec",
                    "--server-bitrate-limit", "40.0 Mbits/sec")])
    clamp_run("-P 2 -b 50M under --server-bitrate-limit 40M",
              ["--server-bitrate-limit", "40M"], ["-P", "2", "-b", "50M",
                                                   "-t", "2"],
              {"bitrate": (100 * M, 40 * M)}, rate_near(40 * M),
              [line("bitrate", "100 Mbits/sec", "40.0 Mbits/sec",
                    "--server-bitrate-limit", "40.0 Mbits/sec")])
    clamp_run("--bidir -b 0 under --server-bitrate-limit 40M",
              ["--server-bitrate-limit", "40M"], ["--bidir", "-t", "2"],
              {"bitrate": (0, 40 * M)}, rate_near(40 * M, dirs=2), [])
    clamp_run("UDP -b 100M under --server-bitrate-limit 20M",
              ["--server-bitrate-limit", "20M"], ["-u", "-b", "100M", "-t",
                                                   "2"],
              {"bitrate": (100 * M, 20 * M)}, rate_near(20 * M), [])
    clamp_run("every cap at once", ["--server-max-duration", "2",
                                    "--server-max-streams", "2",
                                    "--server-bitrate-limit", "40M",
                                    "--server-max-bytes", "100M"],
              ["-t", "10", "-P", "4"],
              {"duration": (10, 2), "streams": (4, 2), "bitrate": (0, 40 * M),
               "bytes": (10 * M, 10 * M)},
              streams_are(2, 30 * M, 50 * M), [])
    # within the caps: nothing changes, the document says so, no line
    cli, _ = pair(OURS, ["--server-max-duration", "5"], OURS, ["-t", "1"])
    record("clamp within the caps: no line", cli.returncode == 0 and
           "Server cap" not in cli.stdout, cli.stdout[-300:],
           detail_on_pass=False)
    cli, _ = pair(OURS, [], OURS, ["-t", "1", "-J"])
    record("a server without caps: no start.server_caps",
           cli.returncode == 0 and
           caps_of(json.loads(cli.stdout)) is None, cli.stdout[-200:],
           detail_on_pass=False)


# ---- (c) --no-clamp --------------------------------------------------------

def case_no_clamp():
    want = ["iperf3: SERVER ERROR - " + REFUSED_37,
            "iperf3: error - " + REFUSED_37]
    for sargs, cargs in ((["--server-max-duration", "2"], ["-t", "5"]),
                         (["--server-max-bytes", "10M"], ["-n", "20M"]),
                         (["--server-max-streams", "2"], ["-P", "3"])):
        cli, _ = pair(OURS, sargs, OURS, ["--no-clamp"] + cargs)
        record(f"--no-clamp {' '.join(cargs)} under {' '.join(sargs)}: "
               "refused", cli.returncode == 1 and
               iperf_lines(cli.stderr) == want and
               "connected to" not in cli.stdout,
               f"rc {cli.returncode} {cli.stderr!r}", detail_on_pass=False)
    cli, _ = pair(OURS, ["--server-bitrate-limit", "10M"], OURS,
                  ["--no-clamp", "-b", "20M", "-t", "2"])
    record("--no-clamp -b 20M under --server-bitrate-limit 10M: refused",
           cli.returncode == 1 and iperf_lines(cli.stderr) ==
           ["iperf3: SERVER ERROR - " + REFUSED_27,
            "iperf3: error - " + REFUSED_27],
           f"rc {cli.returncode} {cli.stderr!r}", detail_on_pass=False)


# ---- the byte cap's watchdog ------------------------------------------------

def case_watchdog():
    """A hand-made client asks for 2 s at 8 kbit/s (2000 bytes, within a
    1 MiB cap), then sends unpaced: the server stops it (160)."""
    port = free_port()
    srv = start_server([OURS, "-s", "-1", "-p", str(port),
                        "--server-max-bytes", "1M"], port)
    cookie, ctrl, data, probs = random_cookie(), None, None, []
    try:
        ctrl = connect(port, 10)
        ctrl.sendall(cookie)
        if ctrl.recv(1) != b"\x09":
            raise RuntimeError("no PARAM_EXCHANGE")
        send_doc(ctrl, {"tcp": True, "omit": 0, "time": 2, "num": 0,
                        "blockcount": 0, "parallel": 1, "len": 131072,
                        "bandwidth": 8000, "pacing_timer": 1000,
                        "client_version": "3.21"})
        if ctrl.recv(1) != b"\x0a":
            raise RuntimeError("no CREATE_STREAMS")
        data = socket.create_connection(("127.0.0.1", port), timeout=5)
        data.sendall(cookie)
        if recv_exact(ctrl, 2) != b"\x01\x02":
            raise RuntimeError("no TEST_START, TEST_RUNNING")
        t0, sent, block = time.time(), 0, b"x" * 65536
        data.settimeout(0.2)
        ctrl.setblocking(False)
        got = b""
        while time.time() - t0 < 3 and server_error_code(got) is None:
            try:
                sent += data.send(block)
            except OSError:
                pass
            try:
                got += ctrl.recv(64)
            except OSError:
                pass
        code = server_error_code(got)
        if code != 160:
            probs.append(f"SERVER_ERROR {code} after {sent} bytes, want 160")
        if time.time() - t0 > 1.5:
            probs.append(f"stopped after {time.time() - t0:.1f} s")
    except Exception as e:  # noqa: BLE001 - reported
        probs.append(f"{type(e).__name__}: {e}")
    finally:
        for s in (ctrl, data):
            if s is not None:
                s.close()
        rc = srv.wait(10)
        err = srv.stderr.read()
        stop(srv)
    if "server test duration expired" not in err:
        probs.append(f"server rc {rc} stderr {err[-200:]!r}")
    record("the byte cap stops a client sending beyond its bound", not probs,
           "; ".join(probs), detail_on_pass=False)


# ---- (d) our client against a stock server ---------------------------------

def sent_params(out):
    """The parameter document of -d's "send_parameters:" dump."""
    m = re.search(r"send_parameters:\n(\{.*?\n\})\n", out, re.S)
    return json.loads(m.group(1)) if m else None


def case_stock_srv():
    if P321 is None:
        skip("our client against a 3.21 server: no 3.21")
        return
    for sargs, cargs, why in (
            (["--server-max-duration", "2"], ["-t", "5"], REFUSED_37),
            (["--server-bitrate-limit", "10M"], ["-b", "20M", "-t", "2"],
             REFUSED_27)):
        outs = {}
        for extra in ([], ["--no-clamp"]):
            cli, _ = pair(P321, sargs, OURS, cargs + extra + ["-d"])
            outs[bool(extra)] = cli
            record(f"our client {' '.join(cargs + extra)} against 3.21 "
                   f"{' '.join(sargs)}: refused", cli.returncode == 1 and
                   "iperf3: error - " + why in iperf_lines(cli.stderr),
                   f"rc {cli.returncode} {iperf_lines(cli.stderr)}",
                   detail_on_pass=False)
        asked, plain = (sent_params(outs[False].stdout),
                        sent_params(outs[True].stdout))
        ext = (asked or {}).pop("iperf3_compat", None)
        record(f"parameters to 3.21 ({' '.join(cargs)}): stock plus the key",
               plain is not None and asked == plain and
               "iperf3_compat" not in plain and
               ext is not None and ext.get("want") == ["clamp"],
               f"{asked} / {plain} / {ext}", detail_on_pass=False)


CASES = [("stock", case_stock), ("clamp", case_clamp),
         ("no_clamp", case_no_clamp), ("watchdog", case_watchdog),
         ("stock_srv", case_stock_srv)]


def main():
    testlib.skip_unless_option(OURS, "--server-max-bytes")
    for name, fn in CASES:
        if FILTER and FILTER not in name:
            continue
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - a broken case is a failure
            record(f"{name}: {type(e).__name__}", False, str(e)[:300])
    return summary()


if __name__ == "__main__":
    sys.exit(main())
