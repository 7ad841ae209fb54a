#!/usr/bin/env python3
"""libiperf's stage functions against the stock iperf3, both roles.

examples/stages (a program that includes only <iperf_api.h>) drives a
client or a server step by step: iperf_connect / iperf_accept, then
iperf_handle_message_* (or the named stages iperf_exchange_parameters,
iperf_create_streams, iperf_exchange_results, iperf_client_end).  For
each stock peer present (Debian's 3.12, the real 3.21; testlib.stock_peers
reports an absent one as SKIP):

  * our stage-driven client against `iperf3 -s -1 -J`, and the stock
    client against our stage-driven server, TCP and UDP, -R, --bidir:
    both exit 0 and the byte counts of both -J documents agree;
  * the same with the 3.12-era pattern (select() on the control socket,
    bounded, before each call), with the named stages, and with calls out
    of order (each one refused with IEBADSTAGE, the test then goes on);
  * a stage-driven test prints what iperf_run_client / iperf_run_server
    print (-J key paths; text lines with the numbers masked);
  * errors: no server, the peer killed mid-test (the call returns -1
    within the test's own bounds; a server then serves the next client),
    a server test reset while its streams run, a second client while
    busy, iperf_client_end during the test, SIGINT
    while a stage waits, and the per-interval TCP figures through the
    JSON callback (the documented alternative to the interval-record
    getters).

The first two run against every stock peer present; the rest, which do not
depend on the peer's version, against the newest one only (3.21 when
present).  Every process is bounded by a timeout and killed on the way out.
Usage: stages.py STAGES_PROGRAM [case-filter]
"""

import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from interop import check_bytes, key_paths
import testlib
from testlib import (free_port, listener, parse_doc, read_all, recv_exact,
                     record, report, stock_peers, stop, summary)

RUN_TIMEOUT = 30

# (name, mode, iperf3 arguments)
CASES = [
    ("tcp", "loop", ["-t", "1"]),
    ("tcp-R", "loop", ["-t", "1", "-R"]),
    ("udp", "loop", ["-u", "-t", "1"]),
    ("udp-R", "loop", ["-u", "-t", "1", "-R"]),
    ("tcp-bidir-P2", "loop", ["-t", "1", "--bidir", "-P", "2"]),
    ("tcp-n", "loop", ["-n", "20M"]),
    ("tcp", "steps", ["-t", "1"]),
    ("udp-R", "steps", ["-u", "-t", "1", "-R"]),
    ("tcp-R", "select", ["-t", "1", "-R"]),
    ("udp", "select", ["-u", "-t", "1"]),
    ("tcp", "order", ["-t", "1"]),
    ("udp-R", "order", ["-u", "-t", "1", "-R"]),
]


def start_server(argv, port):
    """A server on 127.0.0.1:port; (process, error or None)."""
    try:
        return testlib.start_server(argv, port), None
    except testlib.NotListening:
        return None, "server did not start listening"


def collect(p, limit):
    """Wait for p (at most `limit` s): (rc, stdout, stderr); killed on
    timeout (rc None)."""
    try:
        out, err = p.communicate(timeout=limit)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        stop(p)
        out, err = p.communicate()
        return None, out, err


def program_checks(label, err):
    """The stages program's "check:" lines, one PASS/FAIL each; returns the
    failed ones."""
    bad = []
    for line in err.splitlines():
        m = re.match(r"check: (.*): (ok|FAIL)(.*)$", line)
        if m:
            record(f"{label}: {m.group(1)}", m.group(2) == "ok",
                   m.group(3).strip(), detail_on_pass=False)
            if m.group(2) != "ok":
                bad.append(m.group(1))
    return bad


def parse_json(text, who):
    try:
        return parse_doc(text, who), None
    except ValueError as e:
        return None, f"{who} JSON unreadable ({e}): {text[:200]!r}"


def pair(server_argv, client_argv, port):
    """Run one test: (crc, srv_rc, cout, cerr, sout, serr, problem)."""
    srv, err = start_server(server_argv, port)
    if srv is None:
        return None, None, "", "", "", "", err
    try:
        try:
            cli = subprocess.run(client_argv, capture_output=True, text=True,
                                 timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, None, "", "", "", "", "client timed out"
        src, sout, serr = collect(srv, 15)
        return cli.returncode, src, cli.stdout, cli.stderr, sout, serr, None
    finally:
        stop(srv)


def agree(cj, sj, args, ver, ours_role):
    """check_bytes(), with 3.21's own difference when it is the sending
    server (interop.sender_block_slack)."""
    return check_bytes(cj, sj, args, ver if ours_role == "client" else None)


def run_one(label, server_argv, client_argv, port, ours_role, args, ver):
    """One stage-driven test against a stock peer, with its checks."""
    t0 = time.time()
    crc, src, cout, cerr, sout, serr, err = pair(server_argv, client_argv,
                                                 port)
    probs = [err] if err else []
    ours_err = cerr if ours_role == "client" else serr
    if not err:
        if crc != 0:
            probs.append(f"client exit {crc}: {cerr.strip()[-300:]!r}")
        if src != 0:
            probs.append(f"server exit {src}: {serr.strip()[-300:]!r}")
        cj, e1 = parse_json(cout, "client")
        sj, e2 = parse_json(sout, "server")
        probs += [e for e in (e1, e2) if e]
        if cj is not None and sj is not None:
            probs += agree(cj, sj, args, ver, ours_role)
    bad = program_checks(label, ours_err)
    if bad:
        probs.append(f"{len(bad)} stage checks failed")
    report(label, probs, time.time() - t0)


def client_cases(stages, peer, filt):
    ver, stock = peer
    for name, mode, args in CASES:
        label = f"client {mode} {name} vs {ver} ({' '.join(args)})"
        if filt and filt not in label:
            continue
        port = free_port()
        run_one(label, [stock, "-s", "-1", "-J", "-p", str(port)],
                [stages, mode, "-c", "127.0.0.1", "-p", str(port), "-J"] +
                args, port, "client", args, ver)


def server_cases(stages, peer, filt):
    ver, stock = peer
    for name, mode, args in CASES:
        label = f"server {mode} {name} vs {ver} ({' '.join(args)})"
        if filt and filt not in label:
            continue
        port = free_port()
        run_one(label, [stages, mode, "-s", "-1", "-J", "-p", str(port)],
                [stock, "-c", "127.0.0.1", "-p", str(port), "-J"] + args,
                port, "server", args, ver)


# ---- the same output as iperf_run_client / iperf_run_server --------------

NUM = re.compile(r"[0-9]+(\.[0-9]+)?")
UNIT = re.compile(r"\b[KMGT]?(Bytes|bits/sec)\b")


def text_shape(out):
    """Text output with every number (ports, times, rates) and unit prefix
    masked, runs of blanks (column widths follow the numbers) made one,
    and repeated lines once (how many intervals a 1 s test reports
    depends on when TEST_END arrives, whatever runs the test)."""
    shape = []
    for line in out.splitlines():
        if line.strip():
            line = UNIT.sub(r"\1", NUM.sub("#", line))
            line = " ".join(line.split())
            if not shape or shape[-1] != line:
                shape.append(line)
    return shape


def output_of(argv_ours, stock_argv, ours_role, port):
    if ours_role == "client":
        crc, src, cout, cerr, sout, serr, err = pair(
            stock_argv, argv_ours, port)
        return cout, err or (None if crc == 0 else f"exit {crc}")
    crc, src, cout, cerr, sout, serr, err = pair(argv_ours, stock_argv, port)
    return sout, err or (None if src == 0 else f"exit {src}")


def same_output(stages, peer, filt):
    """run vs loop: the same -J key paths and the same text shape."""
    ver, stock = peer
    for role in ("client", "server"):
        for fmt, args in (("json", ["-J", "-t", "1"]),
                          ("text", ["-t", "1", "-R"]),
                          ("text-udp", ["-u", "-t", "1"])):
            label = f"{role} stage output = run output ({fmt}) vs {ver}"
            if filt and filt not in label:
                continue
            outs, probs = {}, []
            for mode in ("run", "loop"):
                port = free_port()
                if role == "client":
                    ours = [stages, mode, "-c", "127.0.0.1", "-p", str(port)]
                    theirs = [stock, "-s", "-1", "-p", str(port)]
                else:
                    ours = [stages, mode, "-s", "-1", "-p", str(port)]
                    theirs = [stock, "-c", "127.0.0.1", "-p", str(port)]
                if role == "client":
                    ours, theirs = ours + args, theirs + \
                        (["-J"] if "-J" in args else [])
                else:
                    ours, theirs = ours + (["-J"] if "-J" in args else []), \
                        theirs + args
                out, err = output_of(ours, theirs, role, port)
                if err:
                    probs.append(f"{mode}: {err}")
                outs[mode] = out
            if not probs and fmt == "json":
                a, e1 = parse_json(outs["run"], "run")
                b, e2 = parse_json(outs["loop"], "loop")
                probs += [e for e in (e1, e2) if e]
                if a is not None and b is not None and \
                        key_paths(a) != key_paths(b):
                    probs.append("key paths differ: " + str(sorted(
                        key_paths(a) ^ key_paths(b))[:8]))
            elif not probs:
                ra, rb = text_shape(outs["run"]), text_shape(outs["loop"])
                if ra != rb:
                    diff = [f"{x!r} / {y!r}" for x, y in zip(ra, rb)
                            if x != y][:3]
                    probs.append(f"text differs ({len(ra)} vs {len(rb)} "
                                 f"lines): {diff}")
            report(label, probs)


# ---- errors -----------------------------------------------------------------

def no_server(stages, filt):
    label = "client: iperf_connect with no server fails (IECONNECT)"
    if filt and filt not in label:
        return
    port = free_port()
    try:
        cli = subprocess.run([stages, "loop", "-c", "127.0.0.1", "-p",
                              str(port), "-t", "1"], capture_output=True,
                             text=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        report(label, ["timed out"])
        return
    probs = []
    if cli.returncode != 1:
        probs.append(f"exit {cli.returncode}")
    if "test 1: failed: unable to connect" not in cli.stderr:
        probs.append(f"stderr {cli.stderr[-200:]!r}")
    report(label, probs)


def killed_server(stages, peer, proto, filt):
    """Our client; the stock server dies (SIGKILL) during the test."""
    ver, stock = peer
    label = f"client: stock {ver} server killed mid-test ({proto}): " \
        "the stage call fails, bounded"
    if filt and filt not in label:
        return
    port = free_port()
    srv, err = start_server([stock, "-s", "-1", "-p", str(port)], port)
    if srv is None:
        report(label, [err])
        return
    extra = ["-u", "-b", "10M"] if proto == "udp" else []
    cli = subprocess.Popen([stages, "loop", "-c", "127.0.0.1", "-p",
                            str(port), "-t", "8"] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        time.sleep(1.5)
        srv.send_signal(signal.SIGKILL)
        t0 = time.time()
        rc, out, err = collect(cli, 20)
        took = time.time() - t0
        probs = []
        if rc is None:
            probs.append("client still running 20 s after the kill")
        elif rc != 1:
            probs.append(f"exit {rc}")
        if "test 1: failed:" not in err:
            probs.append(f"stderr {err[-200:]!r}")
        report(label, probs, took)
    finally:
        stop(srv)
        stop(cli)


def killed_client(stages, peer, filt, abandon=False):
    """Our server; the stock client dies during a test (or, abandon, our
    server resets the test while its streams run), then the next one runs
    normally."""
    ver, stock = peer
    label = f"server: stock {ver} client killed mid-test: the test " \
        "fails, the next client is served"
    if abandon:
        label = f"server: test reset in TEST_RUNNING (vs {ver}): the " \
            "threads stop, the next client is served"
    if filt and filt not in label:
        return
    port = free_port()
    srv, err = start_server([stages, "abandon" if abandon else "loop", "-s",
                             "-J", "-p", str(port)], port)
    if srv is None:
        report(label, [err])
        return
    probs = []
    try:
        c1 = subprocess.Popen([stock, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "8"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        if abandon:
            rc1, _, _ = collect(c1, 20)
            if rc1 is None or rc1 == 0:
                probs.append(f"first client: exit {rc1}")
        else:
            time.sleep(1.5)
            c1.send_signal(signal.SIGKILL)
            c1.wait()
        time.sleep(0.5)
        try:
            c2 = subprocess.run([stock, "-c", "127.0.0.1", "-p", str(port),
                                 "-t", "1", "-J"], capture_output=True,
                                text=True, timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            c2 = None
            probs.append("second client timed out")
        time.sleep(0.5)
    finally:
        stop(srv)
        out, serr = srv.communicate()
    first = r"^test 1: left midway$" if abandon else r"^test 1: failed: "
    if not re.search(first, serr, re.M):
        probs.append(f"first test not reported failed: {serr[-300:]!r}")
    if not re.search(r"^test 2: ok$", serr, re.M):
        probs.append(f"second test not ok: {serr[-300:]!r}")
    if c2 is not None and c2.returncode != 0:
        probs.append(f"second client exit {c2.returncode}")
    report(label, probs)


def busy_server(stages, peer, filt):
    ver, stock = peer
    label = f"server: a second stock {ver} client meanwhile gets busy"
    if filt and filt not in label:
        return
    port = free_port()
    srv, err = start_server([stages, "loop", "-s", "-1", "-J", "-p",
                             str(port)], port)
    if srv is None:
        report(label, [err])
        return
    probs = []
    try:
        c1 = subprocess.Popen([stock, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "3", "-J"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        time.sleep(1.2)
        try:
            c2 = subprocess.run([stock, "-c", "127.0.0.1", "-p", str(port),
                                 "-t", "1"], capture_output=True, text=True,
                                timeout=RUN_TIMEOUT)
            if c2.returncode == 0 or "busy" not in c2.stdout + c2.stderr:
                probs.append(f"second client: exit {c2.returncode}, "
                             f"{(c2.stdout + c2.stderr)[-200:]!r}")
        except subprocess.TimeoutExpired:
            probs.append("second client timed out")
        rc1, out1, _ = collect(c1, RUN_TIMEOUT)
        if rc1 != 0:
            probs.append(f"first client exit {rc1}")
        src, sout, serr = collect(srv, 15)
        if src != 0:
            probs.append(f"server exit {src}: {serr[-200:]!r}")
        elif rc1 == 0:
            cj, e1 = parse_json(out1, "client")
            sj, e2 = parse_json(sout, "server")
            probs += [e for e in (e1, e2) if e]
            if cj is not None and sj is not None:
                probs += agree(cj, sj, [], ver, "server")
    finally:
        stop(srv)
    report(label, probs)


# ---- one message per call, whatever arrives together ------------------------

RESULTS = {"cpu_util_total": 1, "cpu_util_user": 0.5, "cpu_util_system": 0.5,
           "sender_has_retransmits": 0,
           "streams": [{"id": 1, "bytes": 1000, "retransmits": 0,
                        "jitter": 0, "errors": 0, "packets": 0,
                        "start_time": 0, "end_time": 1.0}]}


def bunched_server(ls, failures):
    """A scripted server that sends TEST_START and TEST_RUNNING in one
    segment, and its results document with DISPLAY_RESULTS behind it."""
    conns = []
    try:
        conn, _ = ls.accept()
        conns.append(conn)
        conn.settimeout(20)
        recv_exact(conn, 37, eof_error=True)
        conn.sendall(b"\x09")
        n = struct.unpack(">I", recv_exact(conn, 4, eof_error=True))[0]
        recv_exact(conn, n, eof_error=True)
        conn.sendall(b"\x0a")
        d, _ = ls.accept()
        conns.append(d)
        d.settimeout(20)
        recv_exact(d, 37, eof_error=True)
        conn.sendall(b"\x01\x02")
        t0 = time.time()
        while time.time() - t0 < 20:
            r, _, _ = select.select([conn, d], [], [], 1)
            if conn in r:
                if conn.recv(1) != b"\x04":
                    raise EOFError("no TEST_END")
                break
            if d in r:
                d.recv(1 << 20)
        conn.sendall(b"\x0d")
        n = struct.unpack(">I", recv_exact(conn, 4, eof_error=True))[0]
        recv_exact(conn, n, eof_error=True)
        doc = json.dumps(RESULTS).encode()
        conn.sendall(struct.pack(">I", len(doc)) + doc + b"\x0e")
        if recv_exact(conn, 1, eof_error=True) != b"\x10":
            raise EOFError("no IPERF_DONE")
        read_all(conn)
    except (OSError, EOFError, ValueError) as e:
        failures.append(f"scripted server: {e!r}")
    finally:
        for c in conns:
            c.close()


def one_message_per_call(stages, filt):
    """Messages that arrive together are still handled one per call, and
    the control socket stays readable for the next one."""
    for mode, want in (
            ("steps", r"check: handle_message_client: TEST_START: ok\n"
             r"check: handle_message_client: TEST_RUNNING until TEST_END: "
             r"ok\ncheck: exchange_results: ok\n"
             r"check: client_end after the results: ok"),
            ("selectwait", r"control socket waits: 6 readable, 0 timed out")):
        label = f"client {mode}: messages that arrive together, one per call"
        if filt and filt not in label:
            continue
        ls = listener(4, 20)
        failures = []
        th = threading.Thread(target=bunched_server, args=(ls, failures),
                              daemon=True)
        th.start()
        port = ls.getsockname()[1]
        try:
            cli = subprocess.run([stages, mode, "-c", "127.0.0.1", "-p",
                                  str(port), "-t", "1"], capture_output=True,
                                 text=True, timeout=RUN_TIMEOUT)
            probs = [] if cli.returncode == 0 else [f"exit {cli.returncode}"]
            if not re.search(want, cli.stderr):
                probs.append(f"stderr {cli.stderr[-400:]!r}")
        except subprocess.TimeoutExpired:
            probs = ["client timed out"]
        th.join(25)
        ls.close()
        report(label, probs + failures)


def interrupted(stages, peer, filt):
    """SIGINT (iperf_catch_sigend + iperf_got_sigend) while a stage waits:
    a server idle in iperf_accept (no peer: peer is None), a client whose
    handler runs the test.  The call reports and returns -1 at once."""
    role = "server" if peer is None else "client"
    label = f"{role}: SIGINT while a stage waits ends it" + \
        (f" (vs {peer[0]})" if peer else "")
    if filt and filt not in label:
        return
    port = free_port()
    peer_p, err = None, None
    if peer is None:
        p, err = start_server([stages, "loop", "-s", "-p", str(port)], port)
        want = "test 1: failed: the server has terminated"
    else:
        peer_p, err = start_server([peer[1], "-s", "-1", "-p", str(port)],
                                   port)
        p = None if err else subprocess.Popen(
            [stages, "loop", "-c", "127.0.0.1", "-p", str(port), "-t", "8"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        want = "test 1: failed: the client has terminated"
    if err:
        report(label, [err])
        return
    try:
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        t0 = time.time()
        rc, out, serr = collect(p, 10)
        probs = []
        if rc is None:
            probs.append("still running 10 s after SIGINT")
        elif rc != 1 or want not in serr:
            probs.append(f"exit {rc}, stderr {serr[-200:]!r}")
        report(label, probs, time.time() - t0)
    finally:
        stop(p)
        if peer_p is not None:
            stop(peer_p)


def client_misc(stages, peer, filt):
    """iperf_client_end during the test; a run reset in TEST_START, then
    a new one; per-interval TCP figures through the JSON callback
    (--json-stream)."""
    ver, stock = peer
    for mode, args, want in (
            ("early", ["-t", "2"], r"check: client_end right after "
             r"TEST_START: ok"),
            ("abandon", ["-t", "1"], r"check: reset: ok\n(.*\n)*test 1: ok"),
            # Readable exactly when a message waits, and a client returns
            # only where the server's next message is due: no wait times
            # out (each is bounded by 5 s).
            ("selectwait", ["-t", "1", "-R"],
             r"control socket waits: [1-9][0-9]* readable, 0 timed out"),
            ("selectwait", ["-u", "-t", "1"],
             r"control socket waits: [1-9][0-9]* readable, 0 timed out"),
            ("jsoncb", ["-t", "2", "--json-stream"],
             r"[1-9][0-9]* interval events, [1-9][0-9]* with TCP figures")):
        label = f"client {mode} vs {ver} ({' '.join(args)})"
        if filt and filt not in label:
            continue
        port = free_port()
        once = [] if mode == "abandon" else ["-1"]  # abandon: two clients
        srv, err = start_server([stock, "-s", "-p", str(port)] + once, port)
        if srv is None:
            report(label, [err])
            continue
        probs = []
        try:
            try:
                cli = subprocess.run([stages, mode, "-c", "127.0.0.1", "-p",
                                      str(port)] + args, capture_output=True,
                                     text=True, timeout=RUN_TIMEOUT)
                if cli.returncode != 0:
                    probs.append(f"exit {cli.returncode}: "
                                 f"{cli.stderr[-300:]!r}")
                if not re.search(want, cli.stderr):
                    probs.append(f"stderr {cli.stderr[-300:]!r}")
            except subprocess.TimeoutExpired:
                probs.append("client timed out")
            if not once:
                pass  # a server without -1 keeps serving: stopped below
            elif collect(srv, 15)[0] is None:
                probs.append("stock server did not end its test")
        finally:
            stop(srv)
        report(label, probs)


def main():
    stages = sys.argv[1]
    filt = sys.argv[2] if len(sys.argv) > 2 else ""
    if not os.access(stages, os.X_OK):
        print(f"SKIP: {stages} not built")
        return 77
    no_server(stages, filt)
    one_message_per_call(stages, filt)
    interrupted(stages, None, filt)
    peers = stock_peers()
    if not peers:
        print("SKIP: no stock iperf3 peer to run against")
        return summary()
    newest = peers[-1][0]
    # The plain cases check exit codes and figures, not rates, and are
    # mostly waiting: two at a time.
    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [pool.submit(f, stages, peer, filt) for peer in peers
                for f in (client_cases, server_cases)]
        for j in jobs:
            j.result()
    for peer in peers:
        if peer[0] != newest:
            # The older peer: the test runs, both roles, every case; how
            # the stages are driven and how they fail does not depend on
            # the peer's version, and is covered against the newest.
            continue
        same_output(stages, peer, filt)
        client_misc(stages, peer, filt)
        interrupted(stages, peer, filt)
        for proto in ("tcp", "udp"):
            killed_server(stages, peer, proto, filt)
        killed_client(stages, peer, filt)
        killed_client(stages, peer, filt, abandon=True)
        busy_server(stages, peer, filt)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
