#!/usr/bin/env python3
"""Faults: killed, stopped and cut-off peers, and hostile servers.

* kill -9 of a client in each protocol state (after the cookie, after the
  parameters, during CREATE_STREAMS, TEST_RUNNING, after TEST_END, while
  the server waits for IPERF_DONE; a scripted client process, plus our
  and the stock client during TEST_RUNNING): our server is serving again
  (a new client gets PARAM_EXCHANGE) within KILL_GRACE seconds.
* SIGSTOP of the sender: our server with --rcv-timeout ends the test and
  exits (-1) in time; our server sending (-R) to a stopped client, and our
  client sending to a stopped server, end because the worker sits in one
  send() (the send-stall watchdog) and the worker is still joined.
* The control connection dropped (an nft rule in a network namespace the
  test creates) in the middle of a test: both ends end within a bound,
  through the control keepalive / TCP_USER_TIMEOUT defaults.  Skipped
  (with the reason) where this machine cannot give it a namespace with
  nft in it (testlib.Netns: not root, an unprivileged container, a
  chroot, ip or nft missing).
* Hostile servers against our client: random bytes, or a stall, at every
  step of the protocol; the client exits with an error within a bound.

Usage: fault.py OURS [STOCK]
       fault.py --puppet STATE PORT   (the scripted client; internal)
"""

import os
import re
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import testlib
from testlib import (Netns, NetnsUnavailable, free_port, listener,
                     random_cookie, record, send_doc, stop, summary, wait_exit)

KILL_GRACE = 5.0      # server serving again after a killed client
RCV_TIMEOUT_MS = 2000
PARAMS = {"tcp": True, "omit": 0, "time": 30, "num": 0, "blockcount": 0,
          "parallel": 1, "len": 131072, "bandwidth": 20000000,
          "pacing_timer": 1000, "client_version": "3.21"}
RESULTS = {"cpu_util_total": 1, "cpu_util_user": 0.5, "cpu_util_system": 0.5,
           "sender_has_retransmits": 0,
           "streams": [{"id": 1, "bytes": 1000, "retransmits": 0,
                        "jitter": 0, "errors": 0, "packets": 0,
                        "start_time": 0, "end_time": 1.0}]}


def recv_exact(s, n):
    """Here an early EOF raises EOFError (the fake servers end on it)."""
    return testlib.recv_exact(s, n, eof_error=True)


def serving(port, timeout=1.0):
    """True if the server takes a new client (answers PARAM_EXCHANGE)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout) as s:
            s.settimeout(timeout)
            s.sendall(random_cookie())
            return s.recv(1) == b"\x09"
    except OSError:
        return False


def wait_serving(port, limit):
    t0 = time.time()
    while time.time() - t0 < limit:
        if serving(port):
            return time.time() - t0
        time.sleep(0.05)
    return None


# A server of the test did not come up (reported as the case's failure).
NotListening = testlib.NotListening


def mid_test(port, cli, streams=1, settle=1.0):
    """Wait until the client's control connection and `streams` TCP
    streams are established (in /proc: the test is starting, however
    slow the machine), then `settle` s into the test.  False if the
    test did not start within 15 s."""
    ok = testlib.wait_connections(port, 1 + streams, cli, time.time() + 15)
    time.sleep(settle)
    return ok


def first_interval(p, deadline):
    """Read p's text report until its first interval line ("... sec ...")
    comes: True, or False at its end or the deadline."""
    import select
    buf = b""
    while time.time() < deadline:
        r, _, _ = select.select([p.stdout], [], [], 0.1)
        if not r:
            continue
        chunk = os.read(p.stdout.fileno(), 4096)
        if not chunk:
            return False
        buf += chunk
        if re.search(rb"\]\s+\d+\.\d+-\d+\.\d+\s+sec", buf):
            return True
    return False


def start_server(binary, port, *args):
    """Start `binary -s` on 127.0.0.1:port and wait until it listens."""
    return testlib.start_server([binary, "-s", "-B", "127.0.0.1", "-p",
                                 str(port)] + list(args), port, limit=15,
                                pipes=False)


# ---- the scripted client ------------------------------------------------------

def puppet(state, port):
    """Run the protocol up to `state`, say READY, then wait to be killed."""
    c = random_cookie()
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.sendall(c)
    feeder = None
    if state != "cookie":
        assert recv_exact(s, 1) == b"\x09"
        send_doc(s, PARAMS)
    if state not in ("cookie", "params"):
        assert recv_exact(s, 1) == b"\x0a"
    if state not in ("cookie", "params", "create_streams"):
        d = socket.create_connection(("127.0.0.1", port), 5)
        d.sendall(c)
        assert recv_exact(s, 2) == b"\x01\x02"

        def feed():
            try:
                while True:
                    d.sendall(b"\0" * 65536)
                    time.sleep(0.01)
            except OSError:
                pass
        if state == "running":
            feeder = threading.Thread(target=feed, daemon=True)
            feeder.start()
        else:
            d.sendall(b"\0" * 100000)
    if state in ("test_end", "before_done"):
        s.sendall(b"\x04")
        assert recv_exact(s, 1) == b"\x0d"
    if state == "before_done":
        send_doc(s, RESULTS)
        n = struct.unpack(">I", recv_exact(s, 4))[0]
        recv_exact(s, n)
        assert recv_exact(s, 1) == b"\x0e"
    print("READY", flush=True)
    time.sleep(3600)


# ---- kill -9 in each state ----------------------------------------------------

PUPPET_STATES = ["cookie", "params", "create_streams", "running", "test_end",
                 "before_done"]


def kill_puppet_case(ours, state):
    port = free_port()
    srv = start_server(ours, port)
    try:
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                              "--puppet", state, str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = p.stdout.readline()
        if line.strip() != b"READY":
            p.kill()
            record(f"kill -9 client {state}: client reached the state", False,
                   p.stderr.read().decode(errors="replace")[-300:])
            return
        time.sleep(0.5)
        p.send_signal(signal.SIGKILL)
        p.wait()
        dt = wait_serving(port, KILL_GRACE + 10)
        record(f"kill -9 client {state}: server serving again within "
               f"{KILL_GRACE:.0f} s", dt is not None and dt <= KILL_GRACE,
               "never" if dt is None else f"{dt:.2f} s")
        record(f"kill -9 client {state}: server still running",
               srv.poll() is None)
    finally:
        stop(srv)


def kill_real_client_case(ours, client, who):
    port = free_port()
    srv = start_server(ours, port)
    try:
        p = subprocess.Popen([client, "-c", "127.0.0.1", "-p", str(port),
                              "-t", "30", "-b", "200M", "-P", "2"],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        started = mid_test(port, p, streams=2)
        record(f"kill -9 {who} client running: the test was running",
               started and p.poll() is None)
        p.send_signal(signal.SIGKILL)
        p.wait()
        dt = wait_serving(port, KILL_GRACE + 10)
        record(f"kill -9 {who} client running: server serving again within "
               f"{KILL_GRACE:.0f} s", dt is not None and dt <= KILL_GRACE,
               "never" if dt is None else f"{dt:.2f} s")
    finally:
        stop(srv)


# ---- SIGSTOP --------------------------------------------------------------------

def stop_sender_case(ours, client, who):
    """Our server receiving; the client (sender) stopped: --rcv-timeout."""
    port = free_port()
    srv = start_server(ours, port, "-1", "--rcv-timeout", str(RCV_TIMEOUT_MS))
    cli = subprocess.Popen([client, "-c", "127.0.0.1", "-p", str(port),
                            "-t", "30", "-b", "200M"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        running = mid_test(port, cli) and cli.poll() is None and \
            srv.poll() is None
        cli.send_signal(signal.SIGSTOP)
        # The watchdog's 1 s period, the server's 2 s drain of the control
        # connection and slack for a loaded (or sanitized) run.
        bound = RCV_TIMEOUT_MS / 1000 + 5
        rc, dt = wait_exit(srv, bound + 10)
        record(f"SIGSTOP {who} sender: the test was running", running)
        record(f"SIGSTOP {who} sender: our server ends the test within "
               f"{bound:.0f} s", dt is not None and dt <= bound,
               f"rc {rc}, {dt if dt is None else round(dt, 2)} s")
        cli.send_signal(signal.SIGCONT)
        rc, dt = wait_exit(cli, 15)
        record(f"SIGSTOP {who} sender: the client exits with an error "
               f"after SIGCONT", rc not in (None, 0),
               f"rc {rc}, {dt if dt is None else round(dt, 2)} s")
    finally:
        cli.send_signal(signal.SIGCONT)
        stop(cli)
        stop(srv)


def stop_receiver_of_our_server_case(ours, client, who):
    """Our server sending (-R) to a stopped client: stuck in send()."""
    port = free_port()
    srv = start_server(ours, port, "-1", "--rcv-timeout", str(RCV_TIMEOUT_MS))
    cli = subprocess.Popen([client, "-c", "127.0.0.1", "-p", str(port),
                            "-t", "30", "-R"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        running = mid_test(port, cli) and cli.poll() is None and \
            srv.poll() is None
        cli.send_signal(signal.SIGSTOP)
        # + filling the socket buffers, the 1 s watchdog period, the 2 s
        # drain of the control connection and slack for a loaded run.
        bound = RCV_TIMEOUT_MS / 1000 + 7
        rc, dt = wait_exit(srv, bound + 20)
        record(f"SIGSTOP {who} receiver: the test was running", running)
        record(f"SIGSTOP {who} receiver: our sending server ends the test "
               f"within {bound:.0f} s", dt is not None and dt <= bound,
               f"rc {rc}, {dt if dt is None else round(dt, 2)} s")
    finally:
        cli.send_signal(signal.SIGCONT)
        stop(cli)
        stop(srv)


def stop_server_of_our_client_case(ours, server_bin, who, opts, bound):
    """Our client sending to a stopped server: stuck in send().  With
    --snd-timeout the send-stall watchdog (or the kernel) ends it; without
    options the client's deadline (time + omit + 50 s) does."""
    port = free_port()
    srv = start_server(server_bin, port, "-1")
    # Its first interval line says the test runs (connections alone do
    # not: on a loaded machine the stock server may still be about to
    # send TEST_START, and a client waiting for it is not sending).
    cli = subprocess.Popen([ours, "-c", "127.0.0.1", "-p", str(port), "-i",
                            "0.5", "--forceflush"] + opts,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    what = " ".join(opts)
    try:
        running = mid_test(port, cli, settle=0) and \
            first_interval(cli, time.time() + 15) and \
            cli.poll() is None and srv.poll() is None
        srv.send_signal(signal.SIGSTOP)
        rc, dt = wait_exit(cli, bound + 20)
        err = cli.stderr.read().decode(errors="replace") if rc is not None \
            else ""
        record(f"SIGSTOP {who} server ({what}): the test was running", running)
        record(f"SIGSTOP {who} server ({what}): our sending client exits "
               f"with an error within {bound:.0f} s",
               rc not in (None, 0) and dt <= bound,
               f"rc {rc}, {dt if dt is None else round(dt, 2)} s, "
               f"{err.strip()[-120:]!r}")
    finally:
        srv.send_signal(signal.SIGCONT)
        stop(cli)
        stop(srv)


# ---- control connection dropped in a network namespace --------------------------

NS_BOUND = 50.0  # keepalive/user-timeout defaults: ~30 s after the last ack


def netns_case(ours):
    name = "control connection dropped mid-test: both ends end"
    try:
        ns = Netns("fault", nft=True)
    except NetnsUnavailable as e:
        print(f"SKIP: {name}: {e}")
        return
    srv = cli = None
    try:
        port, cport = 5201, 40123
        srv = ns.popen(ours, "-s", "-1", "-B", "127.0.0.1", "-p", port,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not ns.wait_listening(port, srv, time.time() + 15):
            record(name, False, "our server did not listen in the namespace")
            return
        # The data connection comes from --cport; everything else on the
        # server port is the control connection.
        cli = ns.popen(ours, "-c", "127.0.0.1", "-p", port, "--cport", cport,
                       "-t", "120", "-b", "50M", stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
        time.sleep(2)
        rules = f"""
table inet iperf3fault {{
  chain out {{
    type filter hook output priority 0; policy accept;
    tcp dport {port} tcp sport != {cport} drop
    tcp sport {port} tcp dport != {cport} drop
  }}
}}
"""
        r = ns.run("nft", "-f", "-", input=rules)
        if r.returncode != 0:
            print(f"SKIP: {name}: nft rules not supported "
                  f"({r.stderr.strip()[:100]})")
            return
        t0 = time.time()
        rc_c, _ = wait_exit(cli, NS_BOUND + 5)
        rc_s, _ = wait_exit(srv, max(1.0, NS_BOUND + 10 - (time.time() - t0)))
        dt = time.time() - t0
        print(f"control dropped: client rc {rc_c}, server rc {rc_s}, "
              f"both ended {dt:.1f} s after the drop")
        record(f"{name} within {NS_BOUND:.0f} s",
               rc_c not in (None, 0) and rc_s is not None and dt <= NS_BOUND,
               f"client rc {rc_c}, server rc {rc_s}, {dt:.1f} s")
    finally:
        for p in (cli, srv):
            if p is not None:
                stop(p)
        ns.close()


# ---- hostile servers against our client --------------------------------------------

def fake_server(behaviour):
    ls = listener(16, 30)
    done = threading.Event()

    def serve():
        conns = []
        try:
            conn, _ = ls.accept()
            conns.append(conn)
            conn.settimeout(30)
            behaviour(conn, ls, conns, done)
        except (OSError, EOFError):
            pass
        finally:
            done.wait(60)
            for c in conns:
                c.close()
            ls.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return ls.getsockname()[1], done


def to_step(step, conn, ls, conns, reverse):
    """Play a well-behaved server up to `step` (sending the data when the
    client runs -R)."""
    recv_exact(conn, 37)
    if step == "accept":
        return
    conn.sendall(b"\x09")
    if step == "param_exchange":
        return
    n = struct.unpack(">I", recv_exact(conn, 4))[0]
    recv_exact(conn, n)
    if step == "params_read":
        return
    conn.sendall(b"\x0a")
    d, _ = ls.accept()
    conns.append(d)
    d.settimeout(30)
    recv_exact(d, 37)
    if step == "create_streams":
        return
    conn.sendall(b"\x01")
    if step == "test_start":
        return
    conn.sendall(b"\x02")
    if step == "running_no_read":
        return  # never reads the data: the client's send() blocks
    # move the data until TEST_END arrives on the control connection
    conn.settimeout(0.05)
    d.settimeout(0.05)
    t0 = time.time()
    while time.time() - t0 < 30:
        try:
            if conn.recv(1) == b"\x04":
                break
        except socket.timeout:
            pass
        try:
            if reverse:
                d.send(b"\0" * 65536)
            else:
                d.recv(1 << 20)
        except (socket.timeout, BlockingIOError):
            pass
    conn.settimeout(30)
    if step == "test_end":
        return
    conn.sendall(b"\x0d")
    n = struct.unpack(">I", recv_exact(conn, 4))[0]
    recv_exact(conn, n)
    if step == "results_read":
        return
    if step == "results_partial":
        conn.sendall(struct.pack(">I", 500) + b'{"cpu_util_total":')
        return
    send_doc(conn, RESULTS)
    if step == "results_sent":
        return
    conn.sendall(b"\x0e")


STEPS = ["accept", "param_exchange", "params_read", "create_streams",
         "test_start", "running_no_read", "test_end", "results_read",
         "results_partial", "results_sent"]


def hostile_server_case(ours, step, mode):
    """mode 'stall': stop answering after `step`; 'junk': random bytes.
    The client runs -R --rcv-timeout (which bounds every wait on the
    server), except for running_no_read, where it sends with
    --snd-timeout into a server that never reads."""
    reached = threading.Event()
    sending = step == "running_no_read"

    def behaviour(conn, ls, conns, done):
        to_step(step, conn, ls, conns, not sending)
        reached.set()
        if mode == "junk":
            # Not DISPLAY_RESULTS or IPERF_DONE first: those could end a
            # test well by chance.
            first = random.choice([b for b in range(256)
                                   if b not in (0x0e, 0x10)])
            conn.sendall(bytes([first]) + os.urandom(random.randint(0, 63)))
        done.wait(60)

    port, done = fake_server(behaviour)
    # results_partial waits for the 10 s unit limit (or the receive
    # timeout, as no byte comes); the rest for the receive timeout or the
    # send-stall limit, after the 2 s test where the step is later.
    lim = RCV_TIMEOUT_MS / 1000
    bound = {"results_partial": 12, "running_no_read": lim + 3}.get(
        step, 2 + lim + 3)
    opts = (["--snd-timeout", str(RCV_TIMEOUT_MS)] if sending else
            ["-R", "--rcv-timeout", str(RCV_TIMEOUT_MS)])
    # running_no_read: a 10 s test, so that the stall (not the end of the
    # test, then the deadline) is what ends it.
    cli = subprocess.Popen([ours, "-c", "127.0.0.1", "-p", str(port), "-t",
                            "10" if sending else "2"] + opts,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = time.time()
    try:
        out, err = cli.communicate(timeout=bound + 30)
    except subprocess.TimeoutExpired:
        cli.kill()
        out, err = cli.communicate()
    dt = time.time() - t0
    done.set()
    msg = (err or out).decode(errors="replace").strip().splitlines()
    record(f"hostile server ({mode} after {step}): our client got there "
           f"and exits with an error within {bound:.0f} s",
           reached.is_set() and cli.returncode not in (None, 0) and
           dt <= bound,
           f"reached {reached.is_set()}, rc {cli.returncode}, {dt:.1f} s, "
           f"{msg[-1] if msg else ''!r}")


def trickle_after_display_case(ours):
    """A server that trickles bytes after DISPLAY_RESULTS: the client's
    drain is capped (IPERF_DRAIN_MAX_US, 15 s)."""
    def behaviour(conn, ls, conns, done):
        to_step("display", conn, ls, conns, False)
        t0 = time.time()
        while time.time() - t0 < 60 and not done.is_set():
            try:
                conn.sendall(b"\x00")
            except OSError:
                break
            time.sleep(1)

    port, done = fake_server(behaviour)
    t0 = time.time()
    cli = subprocess.Popen([ours, "-c", "127.0.0.1", "-p", str(port), "-t",
                            "2"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    try:
        cli.wait(60)
    except subprocess.TimeoutExpired:
        cli.kill()
        cli.wait()
    dt = time.time() - t0
    done.set()
    bound = 2 + 15 + 3
    record(f"server trickling after DISPLAY_RESULTS: our client exits within "
           f"{bound} s", dt <= bound, f"rc {cli.returncode}, {dt:.1f} s")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--puppet":
        puppet(sys.argv[2], int(sys.argv[3]))
        return 0
    ours = sys.argv[1]
    stock = sys.argv[2] if len(sys.argv) > 2 else None
    t_start = time.time()
    jobs = []
    for st in PUPPET_STATES:
        jobs.append((kill_puppet_case, (ours, st)))
    jobs.append((kill_real_client_case, (ours, ours, "our")))
    jobs.append((stop_sender_case, (ours, ours, "our")))
    jobs.append((stop_receiver_of_our_server_case, (ours, ours, "our")))
    jobs.append((stop_server_of_our_client_case,
                 (ours, ours, "our", ["-t", "30", "--snd-timeout",
                                      str(RCV_TIMEOUT_MS)],
                  RCV_TIMEOUT_MS / 1000 + 4)))
    if stock:
        jobs.append((kill_real_client_case, (ours, stock, "stock")))
        jobs.append((stop_sender_case, (ours, stock, "stock")))
        jobs.append((stop_receiver_of_our_server_case, (ours, stock, "stock")))
        jobs.append((stop_server_of_our_client_case,
                     (ours, stock, "stock", ["-t", "30", "--snd-timeout",
                                             str(RCV_TIMEOUT_MS)],
                      RCV_TIMEOUT_MS / 1000 + 4)))
        # No options: the client's deadline, time + omit + 50 s.
        jobs.insert(0, (stop_server_of_our_client_case,
                        (ours, stock, "stock", ["-t", "2"], 2 + 50 + 3)))
    else:
        print("SKIP: stock iperf3 cases (kill -9 and SIGSTOP of a stock "
              "client or server): stock iperf3 not installed")
    for step in STEPS:
        jobs.append((hostile_server_case, (ours, step, "stall")))
        if step not in ("running_no_read", "results_partial"):
            jobs.append((hostile_server_case, (ours, step, "junk")))
    jobs.append((trickle_after_display_case, (ours,)))

    # The namespace case takes longest: first, in its own thread.
    def guarded(fn, args):
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - report and go on
            record(f"{fn.__name__}{args[1:]}", False, repr(e))

    threads = [threading.Thread(target=guarded, args=(netns_case, (ours,)))]
    threads[0].start()
    # The rest, a few at a time (the data tests are rate-limited).
    sem = threading.Semaphore(4)

    def run(fn, args):
        with sem:
            guarded(fn, args)
    for fn, args in jobs:
        t = threading.Thread(target=run, args=(fn, args))
        t.start()
        threads.append(t)
    for t in threads:
        t.join(300)
    print(f"fault tests took {time.time() - t_start:.1f} s")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
