#!/usr/bin/env python3
"""A server operators can expose, by its effect (loopback; sources are
addresses of 127.0.0.0/8, and of a private namespace for IPv6 /64s).

  ports       -p FIRST-LAST serves stock 3.12 and 3.21 clients (TCP, UDP)
              on two of its ports; the text and -J say which port; a
              range on a client is refused
  allow_deny  --allow/--deny: a denied source gets the busy answer within
              1 s (a stock client prints its usual error), nothing else
              changes for an allowed one; IPv4-mapped addresses match
  allow_file  --allow-file: re-read on SIGHUP (the server goes on), a bad
              file keeps the previous list and says so; a bad one at start
              is refused
  audit       --audit-log: one JSON line per test and per refusal, every
              key; SIGHUP reopens it after a rename (logrotate)
  caps_audit  a clamped test's requested and applied caps, and a stock
              client's refusal by the caps, in the audit log
  data_source a test's cookie sent from another address is not taken as
              that test's stream; from its client's address it is
  accept_rate --accept-rate 2:2 refuses the third quick connection of a
              source, not another source's
  held        1,000+ silent connections from 127.0.0.2 while a stock
              client from 127.0.0.3 runs a test to completion
  storm       2,000 control connections from 20 sources against
              --max-tests 4 --max-tests-per-ip 1 while real clients run
              -n tests: admitted tests exact, every refused connection
              answered within 1 s, fds and RSS back, the audit log adds up
              with /metrics (when built with HTTP)
  prefix_v6   --max-tests-per-prefix 1 with IPv6 sources of one /64 and
              of another (a private namespace; skipped without one)
  metrics     --metrics-listen: /metrics parsed by prometheus_client and
              promtool, counters equal to the audit log's lines
  nohttp      --metrics-listen refused by a build without libmicrohttpd
              (tests/unit/iperf3_nohttp beside a build with it)
  activation  systemd-socket-activate passes the listening socket; a
              stock client is served

Usage: opserver.py OURS [STOCK] [FILTER]
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import testlib
from testlib import (free_port, report, start_server, stock_peers, stop,
                     summary, timed_run)

OURS = None
TMP = None
PEERS = []
BUSY = "the server is busy running a test. try again later"
AUDIT_KEYS = ["time", "event", "source", "source_port", "server_port",
              "protocol", "direction", "streams", "requested", "applied",
              "seconds", "bytes_sent", "bytes_received", "result", "error",
              "reason"]


def client_prog():
    """A stock client if there is one (the newest), else ours."""
    return PEERS[-1][1] if PEERS else OURS


def free_range(n):
    """n consecutive free ports (below the ephemeral range)."""
    for _ in range(50):
        p = free_port()
        if all(testlib._bindable(p + i, socket.AF_INET) for i in range(1, n)):
            return p
    raise RuntimeError("no free port range")


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def fd_targets(pid):
    out = []
    try:
        for f in os.listdir(f"/proc/{pid}/fd"):
            try:
                out.append(os.readlink(f"/proc/{pid}/fd/{f}"))
            except OSError:
                pass
    except OSError:
        pass
    return sorted(out)


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def audit_lines(path):
    try:
        with open(path) as f:
            return [json.loads(ln) for ln in f if ln.strip()]
    except (OSError, ValueError) as e:
        return [{"_error": str(e)}]


def first_byte(src, port, timeout=3.0, send_cookie=True):
    """Connect from `src`, send a cookie, read the first byte: (byte or
    None, seconds)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    t0 = time.time()
    try:
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        if send_cookie:
            s.sendall(testlib.random_cookie())
        b = s.recv(1)
        return (b[0] if b else None), time.time() - t0
    except OSError:
        return None, time.time() - t0
    finally:
        s.close()


# ---- cases ---------------------------------------------------------------------

def ports():
    base = free_range(4)
    probs = []
    srv = start_server([OURS, "-s", "-p", f"{base}-{base + 3}"], base + 3)
    try:
        for ver, prog in PEERS or [("ours", OURS)]:
            for port, extra in ((base + 1, []), (base + 3, ["-u", "-b", "10M"])):
                rc, out, err, _ = timed_run([prog, "-c", "127.0.0.1", "-p",
                                             str(port), "-t", "1"] + extra, 30)
                if rc != 0:
                    probs.append(f"{ver} client to port {port}: exit {rc} "
                                 f"{err.strip()[-120:]!r}")
    finally:
        stop(srv)
    out = srv.stdout.read()
    if f"Server listening on {base}-{base + 3}" not in out:
        probs.append("banner does not name the range")
    for port in (base + 1, base + 3):
        if f"Serving on port {port}" not in out:
            probs.append(f"no 'Serving on port {port}' line")
    # -J: start.server_port
    srv = start_server([OURS, "-s", "-1", "-J", "-p", f"{base}-{base + 1}"],
                       base + 1)
    try:
        rc, _, err, _ = timed_run([client_prog(), "-c", "127.0.0.1", "-p",
                                   str(base + 1), "-t", "1"], 30)
        testlib.wait_exit(srv, 15)  # -1: its document, then its end
    finally:
        stop(srv)
    docs = testlib.json_values(srv.stdout.read(), lenient=True)
    got = [d.get("start", {}).get("server_port") for d in docs
           if isinstance(d, dict)]
    if rc != 0 or base + 1 not in got:
        probs.append(f"-J start.server_port {got} (client exit {rc})")
    rc, out, err, _ = timed_run([OURS, "-c", "127.0.0.1", "-p",
                                 f"{base}-{base + 1}", "-t", "1"], 15)
    if rc == 0 or "port range" not in err + out:
        probs.append(f"a client with a range: exit {rc} {err.strip()!r}")
    rc, out, err, _ = timed_run([OURS, "-s", "-p", "5300-5200"], 15)
    if rc == 0 or "invalid value for -p" not in err + out:
        probs.append(f"a reversed range: exit {rc} {err.strip()!r}")
    report("ports: -p FIRST-LAST serves stock clients on two ports", probs)


def allow_deny():
    port = free_port()
    probs = []
    srv = start_server([OURS, "-s", "-p", str(port), "--allow", "127.0.0.0/8",
                        "--deny", "127.0.0.2"], port)
    try:
        prog = client_prog()
        rc, out, err, secs = timed_run([prog, "-c", "127.0.0.1", "-p",
                                        str(port), "-B", "127.0.0.2", "-t",
                                        "1"], 15)
        if rc == 0 or BUSY not in out + err or secs > 1.5:
            probs.append(f"denied source: exit {rc} in {secs:.2f}s "
                         f"{(out + err).strip()[-120:]!r}")
        rc, out, err, _ = timed_run([prog, "-c", "127.0.0.1", "-p",
                                     str(port), "-B", "127.0.0.3", "-t", "1"],
                                    30)
        if rc != 0:
            probs.append(f"allowed source: exit {rc} {err.strip()[-120:]!r}")
    finally:
        stop(srv)
    # outside every --allow: refused too; a bad CIDR stops the server
    srv = start_server([OURS, "-s", "-p", str(port), "--allow", "10.0.0.0/8"],
                       port)
    try:
        b, secs = first_byte("127.0.0.1", port)
        if b != 0xff or secs > 1.0:
            probs.append(f"outside --allow: byte {b} after {secs:.2f}s")
    finally:
        stop(srv)
    rc, out, err, _ = timed_run([OURS, "-s", "-p", str(port), "--allow",
                                 "10.0.0.300/8"], 10)
    if rc == 0 or "invalid value for --allow" not in err + out:
        probs.append(f"bad CIDR: exit {rc} {(out + err).strip()!r}")
    report("allow_deny: denied and outside sources told busy at once", probs)


def allow_file():
    port = free_port()
    probs = []
    path = os.path.join(TMP, "allow.txt")
    with open(path, "w") as f:
        f.write("# test list\n127.0.0.0/8\ndeny 127.0.0.2  # a comment\n")
    srv = start_server([OURS, "-s", "-p", str(port), "--allow-file", path],
                       port)
    try:
        b, _ = first_byte("127.0.0.2", port)
        if b != 0xff:
            probs.append(f"before SIGHUP, denied source got {b}")
        with open(path, "w") as f:
            f.write("127.0.0.0/8\ndeny 127.0.0.4\n")
        srv.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        if srv.poll() is not None:
            probs.append(f"SIGHUP ended the server (exit {srv.returncode})")
        b, _ = first_byte("127.0.0.2", port)
        if b == 0xff:
            probs.append("after SIGHUP, 127.0.0.2 still refused")
        b, _ = first_byte("127.0.0.4", port)
        if b != 0xff:
            probs.append(f"after SIGHUP, 127.0.0.4 got {b}")
        with open(path, "w") as f:
            f.write("127.0.0.0/8\nnot-a-cidr\n")
        srv.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        b, _ = first_byte("127.0.0.4", port)
        if b != 0xff:
            probs.append("a bad file at SIGHUP replaced the list")
    finally:
        stop(srv)
    err = srv.stderr.read()
    if "line 2" not in err:
        probs.append(f"bad file at SIGHUP not reported: {err.strip()[-200:]!r}")
    rc, out, err, _ = timed_run([OURS, "-s", "-p", str(port), "--allow-file",
                                 os.path.join(TMP, "missing")], 10)
    if rc == 0 or "--allow-file" not in out + err:
        probs.append(f"missing file at start: exit {rc} {(out + err)!r}")
    # without --allow-file or --audit-log, SIGHUP ends the server (3.21)
    srv = start_server([OURS, "-s", "-p", str(port), "--deny", "10.0.0.0/8"],
                       port)
    srv.send_signal(signal.SIGHUP)
    rc, _ = testlib.wait_exit(srv, 10)
    stop(srv)
    if rc is None:
        probs.append("SIGHUP without --allow-file/--audit-log: still running")
    report("allow_file: SIGHUP re-reads it, a bad one keeps the list", probs)


def check_audit_line(probs, d, what):
    if list(d.keys()) != AUDIT_KEYS:
        probs.append(f"{what}: keys {list(d.keys())}")
        return
    if not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", d["time"]):
        probs.append(f"{what}: time {d['time']!r}")


def audit():
    port = free_port()
    probs = []
    path = os.path.join(TMP, "audit.log")
    srv = start_server([OURS, "-s", "-p", str(port), "--audit-log", path,
                        "--deny", "127.0.0.2"], port)
    try:
        rc, _, err, _ = timed_run([client_prog(), "-c", "127.0.0.1", "-p",
                                   str(port), "-t", "1", "-P", "2"], 30)
        if rc != 0:
            probs.append(f"client exit {rc}: {err.strip()[-100:]!r}")
        first_byte("127.0.0.2", port)
        time.sleep(0.3)
        os.rename(path, path + ".1")
        srv.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        first_byte("127.0.0.2", port)
        time.sleep(0.3)
    finally:
        stop(srv)
    old, new = audit_lines(path + ".1"), audit_lines(path)
    tests = [d for d in old if d.get("event") == "test"]
    refused = [d for d in old if d.get("event") == "refused"]
    if len(tests) != 1 or len(refused) != 1:
        probs.append(f"old file: {len(tests)} test, {len(refused)} refused "
                     f"lines: {old!r}"[:300])
    for d in old + new:
        check_audit_line(probs, d, d.get("event"))
    if tests:
        t = tests[0]
        if (t["result"] != "ok" or t["protocol"] != "TCP" or
                t["streams"] != 2 or t["direction"] != "forward" or
                t["bytes_received"] <= 0 or t["server_port"] != port or
                t["source"] != "127.0.0.1"):
            probs.append(f"test line {t}")
    if refused and (refused[0]["reason"] != "denied" or
                    refused[0]["source"] != "127.0.0.2"):
        probs.append(f"refused line {refused[0]}")
    if len(new) != 1 or new[0].get("event") != "refused":
        probs.append(f"after the rename and SIGHUP the new file has {new}")
    report("audit: JSON lines, reopened on SIGHUP", probs)


def caps_audit():
    port = free_port()
    probs = []
    path = os.path.join(TMP, "caps.log")
    srv = start_server([OURS, "-s", "-p", str(port), "--max-tests", "2",
                        "--server-max-duration", "2", "--audit-log", path],
                       port)
    try:
        rc, out, err, secs = timed_run([OURS, "-c", "127.0.0.1", "-p",
                                        str(port), "-t", "5", "-b", "10M"],
                                       30)
        if rc != 0 or secs > 4.5:
            probs.append(f"our client: exit {rc} after {secs:.1f}s")
        if PEERS:
            rc, out, err, _ = timed_run([PEERS[-1][1], "-c", "127.0.0.1",
                                         "-p", str(port), "-t", "5"], 30)
            if rc == 0:
                probs.append("stock client with -t 5 was not refused")
        time.sleep(0.3)
    finally:
        stop(srv)
    lines = audit_lines(path)
    tests = [d for d in lines if d.get("event") == "test"]
    refused = [d for d in lines if d.get("event") == "refused"]
    if len(tests) != 1 or tests[0].get("requested") != {"duration": 5} or \
            tests[0].get("applied") != {"duration": 2}:
        probs.append(f"clamped test line: {tests}"[:300])
    if PEERS and (len(refused) != 1 or refused[0].get("reason") != "caps" or
                  "maximum" not in (refused[0].get("error") or "")):
        probs.append(f"stock refusal line: {refused}"[:300])
    report("caps_audit: a clamped test and a stock refusal in the audit log",
           probs)


def sock_from(src, port, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def data_source():
    """A data connection with a test's cookie from another address does
    not reach that test; the one from its client's address does."""
    port = free_port()
    probs = []
    srv = start_server([OURS, "-s", "-p", str(port), "--max-tests", "2",
                        "--deny", "10.0.0.0/8"], port, pipes=False)
    socks = []
    try:
        cookie = testlib.random_cookie()
        ctrl = sock_from("127.0.0.3", port)
        socks.append(ctrl)
        ctrl.sendall(cookie)
        if testlib.recv_exact(ctrl, 1) != bytes([9]):
            raise RuntimeError("no PARAM_EXCHANGE")
        testlib.send_doc(ctrl, {"tcp": True, "omit": 0, "time": 1, "num": 0,
                                "blockcount": 0, "parallel": 1, "len": 1024,
                                "pacing_timer": 1000,
                                "client_version": "3.21"})
        if testlib.recv_exact(ctrl, 1) != bytes([10]):
            raise RuntimeError("no CREATE_STREAMS")
        stranger = sock_from("127.0.0.4", port)
        socks.append(stranger)
        stranger.sendall(cookie)
        b = testlib.recv_exact(stranger, 1)
        if b == b"":
            b = None
        # taken as a new control connection (PARAM_EXCHANGE), never as
        # the test's stream
        if b not in (bytes([9]), bytes([0xff])):
            probs.append(f"stranger got {b!r}")
        data = sock_from("127.0.0.3", port)
        socks.append(data)
        data.sendall(cookie)
        b = testlib.recv_exact(ctrl, 1)
        if b != bytes([1]):  # TEST_START: the test has its one stream
            probs.append(f"after its own data connection the test sent "
                         f"{b!r}, not TEST_START")
    except (OSError, RuntimeError) as e:
        probs.append(str(e))
    finally:
        for x in socks:
            x.close()
        stop(srv)
    report("data_source: a test's cookie from another address is not its "
           "stream", probs)


def accept_rate():
    port = free_port()
    probs = []
    srv = start_server([OURS, "-s", "-p", str(port), "--max-tests", "4",
                        "--accept-rate", "2/10:2"], port)
    try:
        got = [first_byte("127.0.0.2", port, timeout=1.0,
                          send_cookie=False)[0] for _ in range(3)]
        # the first two wait for a cookie (no byte in 1 s), the third is
        # refused at once
        if got[:2] != [None, None] or got[2] != 0xff:
            probs.append(f"127.0.0.2: {got}")
        other, _ = first_byte("127.0.0.3", port, timeout=1.0,
                              send_cookie=False)
        if other is not None:
            probs.append(f"127.0.0.3 refused too ({other})")
    finally:
        stop(srv)
    report("accept_rate: the bucket of a source, not of others", probs)


def hold(src, port, n):
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((src, 0))
            s.connect_ex(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        socks.append(s)
    return socks


def held():
    port = free_port()
    probs = []
    srv = start_server([OURS, "-s", "-p", str(port), "--max-tests", "4",
                        "--max-tests-per-ip", "1"], port, pipes=False)
    socks = []
    try:
        fd0 = fd_count(srv.pid)
        socks = hold("127.0.0.2", port, 1100)
        time.sleep(0.5)
        rc, out, err, secs = timed_run([client_prog(), "-c", "127.0.0.1",
                                        "-p", str(port), "-B", "127.0.0.3",
                                        "-t", "1"], 30)
        if rc != 0:
            probs.append(f"client from 127.0.0.3: exit {rc} "
                         f"{(out + err).strip()[-160:]!r}")
        for s in socks:
            s.close()
        socks = []
        deadline = time.time() + 15
        while time.time() < deadline and fd_count(srv.pid) > fd0:
            time.sleep(0.2)
        if fd_count(srv.pid) > fd0:
            probs.append(f"fds {fd_count(srv.pid)} > {fd0} at start")
    finally:
        for s in socks:
            s.close()
        stop(srv)
    report("held: 1,100 silent connections do not starve another source",
           probs)


def real_client(prog, src, port, results, deadline):
    """Retry until admitted (or the deadline): one -n test from src."""
    while time.time() < deadline:
        rc, out, err, secs = timed_run([prog, "-c", "127.0.0.1", "-p",
                                        str(port), "-B", src, "-n", "4M",
                                        "-J"], 30)
        if rc == 0:
            results.append((src, out))
            return
        if BUSY not in out + err:
            results.append((src, f"ERROR exit {rc}: {(out + err)[-200:]}"))
            return
        time.sleep(0.2)
    results.append((src, "never admitted"))


def storm_worker(srcs, port, n, answers):
    for i in range(n):
        b, secs = first_byte(srcs[i % len(srcs)], port, timeout=3.0)
        answers.append((b, secs))


def metrics_text(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                timeout=5) as r:
        return r.read().decode()


def metric_sum(text, name, label=None):
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            if label and label not in line:
                continue
            total += float(line.rsplit(" ", 1)[1])
    return total


def http_built():
    r = subprocess.run([OURS, "-s", "--metrics-listen", "0"],
                       capture_output=True, text=True, timeout=10)
    return "without libmicrohttpd" not in r.stdout + r.stderr


def storm():
    port = free_port()
    mport = free_port()
    probs = []
    path = os.path.join(TMP, "storm.log")
    argv = [OURS, "-s", "-p", str(port), "--max-tests", "4",
            "--max-tests-per-ip", "1", "--audit-log", path]
    with_http = http_built()
    if with_http:
        argv += ["--metrics-listen", f"127.0.0.1:{mport}"]
    # stdout to nowhere: a pipe nobody drains would stop the server's
    # tests in mid-line (1,000s of error lines from the storm)
    srv = start_server(argv, port, pipes=False)
    try:
        time.sleep(0.3)
        fd0, rss0 = fd_count(srv.pid), rss_kb(srv.pid)
        srcs = [f"127.0.1.{i}" for i in range(1, 21)]
        answers, results, threads = [], [], []
        deadline = time.time() + 40
        for i in range(4):
            t = threading.Thread(target=real_client, args=(
                client_prog(), f"127.0.2.{i + 1}", port, results, deadline))
            threads.append(t)
        for i in range(8):
            t = threading.Thread(target=storm_worker, args=(
                srcs[i::8], port, 250, answers))
            threads.append(t)
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        slow = [s for b, s in answers if b == 0xff and s > 1.0]
        unanswered = [b for b, s in answers if b is None]
        if len(answers) != 2000 or unanswered or slow:
            probs.append(f"{len(answers)} storm connections, {len(unanswered)}"
                         f" unanswered, {len(slow)} answered busy after 1 s")
        for src, out in results:
            if out.startswith("ERROR") or out == "never admitted":
                probs.append(f"{src}: {out[:160]}")
                continue
            end = json.loads(out)["end"]
            got = end["sum_received"]["bytes"]
            if got != 4 * 1024 * 1024:
                probs.append(f"{src}: received {got} bytes, not 4 MiB")
        time.sleep(2)
        deadline = time.time() + 15
        while time.time() < deadline and fd_count(srv.pid) > fd0:
            time.sleep(0.3)
        fd1, rss1 = fd_count(srv.pid), rss_kb(srv.pid)
        if fd1 > fd0:
            probs.append(f"fds {fd1} > {fd0} at start: {fd_targets(srv.pid)}")
        if rss1 > rss0 + 16 * 1024:
            probs.append(f"RSS {rss1} kB > {rss0} kB + 16 MiB at start")
        lines = audit_lines(path)
        ntest = sum(1 for d in lines if d.get("event") == "test")
        nref = sum(1 for d in lines if d.get("event") == "refused")
        okt = sum(1 for d in lines if d.get("event") == "test" and
                  d.get("result") == "ok")
        if okt < len([r for r in results if not r[1].startswith(("ERROR",
                                                                  "never"))]):
            probs.append(f"audit: {okt} ok tests, fewer than the clients'")
        if with_http:
            text = metrics_text(mport)
            mt = metric_sum(text, "iperf3_server_tests_total")
            mr = metric_sum(text, "iperf3_server_refusals_total")
            if int(mt) != ntest or int(mr) != nref:
                probs.append(f"metrics tests {mt} refusals {mr} vs audit "
                             f"{ntest} and {nref}")
        if srv.poll() is not None:
            probs.append(f"server exited {srv.returncode}")
    finally:
        stop(srv)
    report(f"storm: 2,000 connections from 20 sources ({len(results)} real "
           "tests)", probs)


def prefix_v6():
    try:
        ns = testlib.Netns("op6")
    except testlib.NetnsUnavailable as e:
        testlib.skip(f"prefix_v6: {e}")
        return
    probs = []
    with ns:
        for a in ("fd00:1::2", "fd00:1::3", "fd00:2::2", "fd00:9::1"):
            r = ns.run("ip", "-6", "addr", "add", f"{a}/128", "dev", "lo",
                       "nodad")
            if r.returncode != 0:
                testlib.skip(f"prefix_v6: no IPv6 here ({r.stderr.strip()})")
                return
        port = 5201
        srv = ns.popen(OURS, "-s", "-p", str(port), "--max-tests", "4",
                       "--max-tests-per-prefix", "1", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
        try:
            if not ns.wait_listening(port, srv, time.time() + 10):
                probs.append("server did not listen")
                raise RuntimeError("no server")
            prog = client_prog()
            first = ns.popen(prog, "-c", "fd00:9::1", "-p", str(port), "-B",
                             "fd00:1::2", "-t", "3", "-b", "10M",
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
            time.sleep(1.0)
            r = ns.run(prog, "-c", "fd00:9::1", "-p", str(port), "-B",
                       "fd00:1::3", "-t", "1", timeout=20)
            if r.returncode == 0 or BUSY not in r.stdout + r.stderr:
                probs.append(f"same /64: exit {r.returncode} "
                             f"{(r.stdout + r.stderr).strip()[-120:]!r}")
            r = ns.run(prog, "-c", "fd00:9::1", "-p", str(port), "-B",
                       "fd00:2::2", "-t", "1", "-b", "10M", timeout=20)
            if r.returncode != 0:
                probs.append(f"other /64: exit {r.returncode} "
                             f"{(r.stdout + r.stderr).strip()[-120:]!r}")
            rc, _ = testlib.wait_exit(first, 20)
            if rc != 0:
                probs.append(f"first client exit {rc}")
            stop(first)
        except RuntimeError:
            pass
        finally:
            stop(srv)
    report("prefix_v6: --max-tests-per-prefix counts a /64", probs)


def nohttp():
    """--metrics-listen in a build without libmicrohttpd: the program
    built without it (tests/unit/iperf3_nohttp, made beside a build that
    has it), or ours when ours has none."""
    prog = os.path.join(os.path.dirname(os.path.dirname(OURS)), "tests",
                        "unit", "iperf3_nohttp")
    if http_built() and not os.access(prog, os.X_OK):
        testlib.skip("nohttp: no iperf3_nohttp beside this build")
        return
    if not http_built():
        prog = OURS
    rc, out, err, _ = timed_run([prog, "-s", "--metrics-listen", "9100"], 10)
    ok = rc == 1 and "built without libmicrohttpd" in out + err
    report("nohttp: --metrics-listen refused without the HTTP library",
           [] if ok else [f"exit {rc} {(out + err).strip()[:200]!r}"])


def metrics():
    if not http_built():
        rc, out, err, _ = timed_run([OURS, "-s", "--metrics-listen", "9100"],
                                    10)
        ok = rc != 0 and "without libmicrohttpd" in out + err
        if os.environ.get("CI") == "true" and os.environ.get(
                "IPERF3_NO_HTTP") != "1":
            report("metrics: CI builds with libmicrohttpd", ["built without"])
            return
        report("metrics: --metrics-listen refused without HTTP support",
               [] if ok else [f"exit {rc} {(out + err).strip()!r}"])
        return
    port, mport = free_port(), free_port()
    probs = []
    path = os.path.join(TMP, "metrics.log")
    srv = start_server([OURS, "-s", "-p", str(port), "--audit-log", path,
                        "--deny", "127.0.0.2", "--metrics-listen",
                        f"127.0.0.1:{mport}"], port)
    try:
        timed_run([client_prog(), "-c", "127.0.0.1", "-p", str(port), "-t",
                   "1"], 30)
        timed_run([client_prog(), "-c", "127.0.0.1", "-p", str(port), "-t",
                   "1", "-u", "-b", "10M"], 30)
        first_byte("127.0.0.2", port)
        time.sleep(0.3)
        text = metrics_text(mport)
    finally:
        stop(srv)
    try:
        from prometheus_client.parser import text_string_to_metric_families
        fams = {f.name: f for f in text_string_to_metric_families(text)}
        for name in ("iperf3_server_tests", "iperf3_server_refusals",
                     "iperf3_server_test_duration_seconds", "process_open_fds"):
            if name not in fams:
                probs.append(f"prometheus_client: no family {name}")
    except ImportError:
        testlib.skip("metrics: python3-prometheus-client not installed")
    if shutil.which("promtool"):
        r = subprocess.run(["promtool", "check", "metrics"], input=text,
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            probs.append(f"promtool: {(r.stdout + r.stderr).strip()[:200]}")
    lines = audit_lines(path)
    tests = [d for d in lines if d.get("event") == "test"]
    if metric_sum(text, "iperf3_server_tests_total") != len(tests) or \
            metric_sum(text, "iperf3_server_refusals_total",
                       'reason="denied"') != 1:
        probs.append("counters differ from the audit log")
    for proto in ("TCP", "UDP"):
        n = sum(1 for d in tests if d["protocol"] == proto)
        if metric_sum(text, "iperf3_server_tests_total",
                      f'protocol="{proto}"') != n:
            probs.append(f"{proto} tests differ")
    sent = sum(d["bytes_received"] for d in tests)
    if metric_sum(text, "iperf3_server_bytes_total",
                  'direction="received"') != sent:
        probs.append("received bytes differ from the audit log")
    report("metrics: /metrics parsed, counters match the audit log", probs)


def activation():
    tool = shutil.which("systemd-socket-activate")
    if tool is None:
        testlib.skip("activation: systemd-socket-activate not installed")
        return
    port = free_port()
    probs = []
    p = subprocess.Popen([tool, "-l", f"127.0.0.1:{port}", OURS, "-s", "-1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        if not testlib.wait_listening(port, p, time.time() + 10):
            probs.append("systemd-socket-activate did not listen")
        else:
            rc, out, err, _ = timed_run([client_prog(), "-c", "127.0.0.1",
                                         "-p", str(port), "-t", "1"], 30)
            if rc != 0:
                probs.append(f"client exit {rc}: {(out + err)[-160:]!r}")
            rc, _ = testlib.wait_exit(p, 15)
            if rc != 0:
                probs.append(f"activated -1 server exit {rc}")
    finally:
        stop(p)
    out = p.stdout.read()
    if f"Server listening on {port}" not in out:
        probs.append(f"banner: {out[:200]!r}")
    report("activation: the passed socket serves a stock client", probs)


CASES = [ports, allow_deny, allow_file, audit, caps_audit, data_source,
         accept_rate, held, storm,
         prefix_v6, metrics, nohttp, activation]


def main():
    global OURS, TMP, PEERS
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    OURS = os.path.abspath(sys.argv[1])
    stock = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    filt = sys.argv[3] if len(sys.argv) > 3 else ""
    testlib.skip_unless_option(OURS, "--allow")
    PEERS = stock_peers(stock)
    TMP = tempfile.mkdtemp(prefix="opserver-")
    try:
        return testlib.run_cases(CASES, filt)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
