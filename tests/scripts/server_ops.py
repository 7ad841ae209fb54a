#!/usr/bin/env python3
"""Server-operation and control-connection options, by their effect.

Each case starts its own processes on loopback (its own ports), checks
what the option does (not only that it parses) and kills everything it
started.  Cases run a few at a time; every wait is bounded.

  --idle-timeout          the listener restarts while idle (-d messages,
                          same test number, no new banner without -d);
                          a -1 server exits 0
  --server-max-duration   refuses long and untimed tests (SERVER_ERROR 37),
                          to our client with --no-clamp too (caps.py has
                          the clamp our client gets without it),
                          accepts short ones, stops a test that runs on
                          (SERVER_ERROR 160 on the wire)
  --server-bitrate-limit  refuses at parameter time (27), aborts a test
                          whose measured average is above the limit
  -D, -I, --logfile       daemon with a pid file and a log; a second -I on
                          a live pid file is refused; removed at SIGTERM
  --rcv-timeout           a stopped sender (server side), a stopped sending
                          server (client -R)
  --snd-timeout, --cntl-ka
                          TCP_USER_TIMEOUT and keepalive read back from the
                          kernel on the live sockets of the process (a
                          duplicate taken with pidfd_getfd), and ss's
                          keepalive timer
  signals                 SIGINT/SIGTERM/SIGHUP: client and server exit 0
                          with 3.21's message

Options that cross the wire also run against the stock iperf3 (given as
the second argument) in the roles where they apply.

Usage: server_ops.py OURS [STOCK] [FILTER]
"""

import concurrent.futures
import ctypes
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

import testlib
from testlib import bound, free_port, report, send_doc, ss_unavailable, summary

OURS = None
STOCK = None
TMP = None
WORKERS = 4
CASE_TIMEOUT = 60
# Tests that need traffic but not speed stay light on the CPU (they run
# side by side, and next to other test programs).
SLOW = ["-b", "100M"]

REFUSED_37 = ("client's requested duration exceeds the server's maximum "
              "permitted limit")
REFUSED_27 = "total required bandwidth is larger than server limit"
NOMSG = "idle timeout for receiving data"

TCP_USER_TIMEOUT = 18
SYS_PIDFD_GETFD = 438
_libc = ctypes.CDLL(None, use_errno=True)


# ---- processes ----------------------------------------------------------------

class Proc:
    """A process with stdout/stderr in files (readable while it runs)."""

    def __init__(self, owner, argv, name):
        self.argv = argv
        base = os.path.join(TMP, f"{name}.{len(owner.procs)}")
        self.out_path, self.err_path = base + ".out", base + ".err"
        with open(self.out_path, "wb") as o, open(self.err_path, "wb") as e:
            self.p = subprocess.Popen(argv, stdout=o, stderr=e,
                                      stdin=subprocess.DEVNULL)
        self.pid = self.p.pid
        owner.procs.append(self)

    def out(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def err(self):
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def wait(self, timeout):
        """Exit status, or None if still running after `timeout` s."""
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def alive(self):
        return self.p.poll() is None

    def signal(self, sig):
        if self.alive():
            os.kill(self.pid, sig)

    def kill(self):
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGCONT)
                self.p.kill()
            except OSError:
                pass
        self.p.wait()


class Case:
    def __init__(self, name):
        self.name = name
        self.procs = []
        self.pids = []   # other processes to kill (daemons)
        self.probs = []

    def start(self, argv, name="p"):
        return Proc(self, argv, f"{self.name}.{name}")

    def check(self, ok, what):
        if not ok:
            self.probs.append(what)
        return ok

    def cleanup(self):
        for p in self.procs:
            p.kill()
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def wait_until(pred, timeout, step=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


def server(c, binary, port, *args, name="srv"):
    """Start `binary -s` on 127.0.0.1:port and wait until it listens."""
    p = c.start([binary, "-s", "-B", "127.0.0.1", "-p", str(port)] +
                list(args), name)
    if not testlib.wait_listening(port, p.p, time.time() + 15):
        c.check(False, f"{name} did not listen: {p.err()[-200:]!r}")
    return p


def running(c, cli, port, streams=1, settle=0.5):
    """Wait until the client's control connection and its `streams` TCP
    streams are established (the test is starting: seen in /proc, not
    guessed with a sleep), then `settle` seconds more, so that a signal
    or a look at the sockets from then on meets a running test."""
    ok = testlib.wait_connections(port, 1 + streams, cli.p, time.time() + 15)
    c.check(ok, f"the test did not start: client {cli.err()[-200:]!r}")
    time.sleep(settle)
    return ok


def listening(port):
    """Something (not a child of ours: a daemon) listens on the port."""
    up = testlib.listening(port)
    return bound(port) if up is None else up


def client(c, binary, port, *args, timeout=20, name="cli"):
    """Run a client to completion: (rc, stdout, stderr)."""
    p = c.start([binary, "-c", "127.0.0.1", "-p", str(port)] + list(args),
                name)
    rc = p.wait(timeout)
    if rc is None:
        p.kill()
        c.check(False, f"{name} {' '.join(args)} did not finish in {timeout}s")
    return rc, p.out(), p.err()


def lines(text):
    return [ln for ln in text.splitlines() if ln]


# ---- sockets of another process ---------------------------------------------

def peer_sockets(pid, port):
    """Connected TCP sockets of `pid` with `port` at either end, read
    through duplicates (pidfd_getfd): [(fd, keepalive, (idle, intvl, cnt),
    user_timeout, local, peer)] in fd order."""
    out = []
    pfd = os.pidfd_open(pid)
    try:
        for name in sorted(os.listdir(f"/proc/{pid}/fd"), key=int):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith(
                        "socket:"):
                    continue
            except OSError:
                continue
            fd = _libc.syscall(SYS_PIDFD_GETFD, pfd, int(name), 0)
            if fd < 0:
                raise OSError(ctypes.get_errno(), "pidfd_getfd")
            s = socket.socket(fileno=fd)
            try:
                if s.type != socket.SOCK_STREAM:
                    continue
                try:
                    local, peer = s.getsockname(), s.getpeername()
                except OSError:
                    continue  # a listener
                if port not in (local[1], peer[1]):
                    continue
                ka = s.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
                vals = (s.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE),
                        s.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL),
                        s.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT))
                uto = s.getsockopt(socket.IPPROTO_TCP, TCP_USER_TIMEOUT)
                out.append((int(name), ka, vals, uto, local, peer))
            finally:
                s.close()  # only our duplicate
    finally:
        os.close(pfd)
    return out


def pidfd_getfd_unavailable():
    """None if pidfd_getfd() can take a duplicate of a child's descriptor
    here, else why not (an old kernel, or a container whose seccomp
    profile or missing CAP_SYS_PTRACE refuses it)."""
    if not hasattr(os, "pidfd_open"):
        return "Python without os.pidfd_open"
    child = subprocess.Popen(["sleep", "30"], stdin=subprocess.PIPE)
    try:
        pfd = os.pidfd_open(child.pid)
        try:
            fd = _libc.syscall(SYS_PIDFD_GETFD, pfd, 0, 0)
            if fd < 0:
                e = ctypes.get_errno()
                return f"pidfd_getfd() refused here: {os.strerror(e)}"
            os.close(fd)
        finally:
            os.close(pfd)
    except OSError as e:
        return f"pidfd_open() refused here: {e.strerror}"
    finally:
        child.kill()
        child.wait()
    return None


# What some cases need beyond the stock peer: name -> probe (None: works).
NEEDS = {"pidfd_getfd": pidfd_getfd_unavailable, "ss": ss_unavailable}


def ss_timers(port):
    """ss -tnoi lines of connections on `port`, with their timer field."""
    r = subprocess.run(["ss", "-tno", "state", "established"],
                       capture_output=True, text=True, timeout=10)
    return [ln for ln in r.stdout.splitlines() if f":{port} " in ln + " "]


def kernel_keepalive_defaults():
    vals = []
    for f in ("tcp_keepalive_time", "tcp_keepalive_intvl",
              "tcp_keepalive_probes"):
        with open(f"/proc/sys/net/ipv4/{f}") as fh:
            vals.append(int(fh.read()))
    return tuple(vals)


# ---- cases ----------------------------------------------------------------------

CASES = []


def case(stock=False, needs=()):
    """Register a case; it needs the stock peer (stock=True) and what
    `needs` names in NEEDS (the sockets of another process)."""
    def reg(fn):
        CASES.append((fn.__name__, fn, stock, needs))
        return fn
    return reg


@case()
def idle_timeout_restarts_with_debug(c):
    port = free_port()
    srv = server(c, OURS, port, "--idle-timeout", "1", "-d")
    time.sleep(2.6)
    out = srv.out()
    msg = ("Server restart (#1) in idle state as no connection request was "
           "received for 1 sec")
    c.check(out.count(msg) >= 2, f"want 2 restart messages, stdout={out!r}")
    banners = re.findall(r"Server listening on \d+ \(test #(\d+)\)", out)
    c.check(len(banners) >= 3 and set(banners) == {"1"},
            f"banners {banners}: one per restart, all test #1")
    c.check(srv.alive(), "server gone after idle restarts")
    # The re-created listener serves the next client (retry once: there
    # is a brief window between closing and re-opening it).
    for _ in range(2):
        rc, cout, cerr = client(c, OURS, port, "-t", "1", *SLOW)
        if "Connection refused" not in cerr:
            break
    c.check(rc == 0, f"client after restarts: rc {rc} {cerr!r}")
    c.check(wait_until(lambda: "(test #2)" in srv.out(), 5),
            "no test #2 banner after the test")
    srv.signal(signal.SIGTERM)
    c.check(srv.wait(5) == 0, "server exit status after SIGTERM")


@case(stock=True)
def idle_timeout_quiet_without_debug(c):
    port = free_port()
    srv = server(c, OURS, port, "--idle-timeout", "1")
    time.sleep(2.5)
    out = srv.out()
    c.check(out.count("Server listening on") == 1 and "restart" not in out,
            f"without -d: one banner, no message; got {out!r}")
    rc, _, cerr = client(c, STOCK, port, "-t", "1", *SLOW)
    if rc != 0 and "refused" in cerr:
        rc, _, cerr = client(c, STOCK, port, "-t", "1", *SLOW)
    c.check(rc == 0, f"stock client after idle restarts: rc {rc} {cerr!r}")
    c.check(wait_until(lambda: "(test #2)" in srv.out(), 5),
            f"the test after idle restarts is not #1 / next is not #2: "
            f"{srv.out()!r}")
    srv.signal(signal.SIGINT)
    c.check(srv.wait(5) == 0, "server exit status after SIGINT")


@case()
def idle_timeout_one_off_exits(c):
    for debug in (False, True):
        port = free_port()
        t0 = time.time()
        args = ["--idle-timeout", "1", "-1"] + (["-d"] if debug else [])
        srv = server(c, OURS, port, *args)
        rc = srv.wait(5)
        dt = time.time() - t0
        c.check(rc == 0 and 0.9 <= dt < 4, f"-1 idle exit: rc {rc} after "
                f"{dt:.1f}s")
        want = ["-" * 59, f"Server listening on {port} (test #1)", "-" * 59]
        if debug:
            want += ["Server restart (#1) in idle state as no connection "
                     "request was received for 1 sec",
                     "No connection request was received for 1 sec in "
                     "one-off mode; exiting."]
        c.check(lines(srv.out()) == want, f"stdout {srv.out()!r}")
        c.check(srv.err() == "", f"stderr {srv.err()!r}")


@case(stock=True)
def max_duration_refuses_at_parameter_time(c):
    port = free_port()
    srv = server(c, OURS, port, "--server-max-duration", "2")
    want = ["iperf3: SERVER ERROR - " + REFUSED_37, "iperf3: error - " +
            REFUSED_37]
    refused = 0
    for args in (["-t", "5"], ["-n", "1M"], ["-t", "1", "-O", "2"],
                 ["-k", "10"]):
        # --no-clamp: 3.21's refusal, not the clamp (caps.py)
        rc, out, err = client(c, OURS, port, "--no-clamp", *args)
        refused += 1
        c.check(rc == 1 and lines(err) == want,
                f"ours {' '.join(args)}: rc {rc} stderr {err!r}")
        c.check("connected to" not in out, "streams created before refusal")
    rc, out, err = client(c, OURS, port, "--no-clamp", "-t", "5", "-J")
    refused += 1
    c.check(rc == 1 and f'"error":\t"SERVER ERROR - {REFUSED_37}"' in out and
            f'"error":\t"{REFUSED_37}"' in out, f"-J: rc {rc} {out[-300:]!r}")
    rc, out, err = client(c, OURS, port, "-t", "1", *SLOW)
    c.check(rc == 0 and "iperf Done." in out, f"ours -t 1: rc {rc} {err!r}")
    rc, out, err = client(c, STOCK, port, "-t", "5")
    refused += 1
    c.check(rc == 1, f"stock -t 5 accepted: rc {rc}")
    rc, out, err = client(c, STOCK, port, "-t", "2", *SLOW)
    c.check(rc == 0, f"stock -t 2 (= the maximum): rc {rc} {err!r}")
    c.check(wait_until(lambda: srv.err().count(
        "iperf3: error - " + REFUSED_37) == refused, 3),
        f"server stderr {srv.err()!r}")
    c.check(srv.out().count("Accepted connection") == 2,
            "refused clients must not be announced as accepted")


def fake_client_until_error(port, params, limit_s):
    """Run a test by hand that never ends; returns (seconds from
    TEST_START to SERVER_ERROR, code) or raises."""
    cookie = b"abcdefghijklmnopqrstuvwxyz234567abcd\0"
    ctrl = socket.create_connection(("127.0.0.1", port), timeout=limit_s)
    data = None
    try:
        ctrl.sendall(cookie)
        if ctrl.recv(1) != b"\x09":
            raise RuntimeError("no PARAM_EXCHANGE")
        send_doc(ctrl, params)
        if ctrl.recv(1) != b"\x0a":
            raise RuntimeError("no CREATE_STREAMS")
        data = socket.create_connection(("127.0.0.1", port), timeout=5)
        data.sendall(cookie)
        if ctrl.recv(1) != b"\x01":
            raise RuntimeError("no TEST_START")
        t0 = time.time()
        buf = b""
        while b"\xfe" not in buf or len(buf) < buf.index(b"\xfe") + 9:
            chunk = ctrl.recv(64)
            if not chunk:
                break
            buf += chunk
        i = buf.find(b"\xfe")
        if i < 0 or len(buf) < i + 5:
            raise RuntimeError(f"no SERVER_ERROR: {buf!r}")
        return time.time() - t0, struct.unpack(">i", buf[i + 1:i + 5])[0]
    finally:
        ctrl.close()
        if data is not None:
            data.close()


@case()
def max_duration_stops_a_test_that_runs_on(c):
    port = free_port()
    srv = server(c, OURS, port, "--server-max-duration", "2", "-1")
    params = {"tcp": True, "omit": 0, "time": 1, "num": 0, "blockcount": 0,
              "parallel": 1, "len": 131072, "pacing_timer": 1000,
              "client_version": "3.21"}
    dt, code = fake_client_until_error(port, params, 15)
    c.check(code == 160, f"SERVER_ERROR {code}, want 160")
    # 2 s + 2 s of slack, far from the 41 s safety timer.
    c.check(2.0 <= dt < 6.5, f"stopped after {dt:.1f}s")
    c.check(srv.wait(10) == 0, "one-off server exit status")
    c.check("iperf3: error - server test duration expired - test is "
            "terminated by the server" in lines(srv.err()),
            f"server stderr {srv.err()!r}")


@case(stock=True)
def max_duration_stops_a_stopped_client(c):
    for binary in (OURS, STOCK):
        port = free_port()
        srv = server(c, OURS, port, "--server-max-duration", "2", "-1")
        cli = c.start([binary, "-c", "127.0.0.1", "-p", str(port), "-t", "2"] +
                      SLOW, "cli")
        running(c, cli, port, settle=0.5)
        cli.signal(signal.SIGSTOP)
        t0 = time.time()
        rc = srv.wait(12)
        c.check(rc == 0 and time.time() - t0 < 9,
                f"server with a stopped client: rc {rc}")
        c.check("iperf3: error - server test duration expired - test is "
                "terminated by the server" in srv.err(),
                f"server stderr {srv.err()!r}")
        c.check("receiver" in srv.out(), "no partial summary on the server")
        cli.signal(signal.SIGCONT)
        rc = cli.wait(15)
        c.check(rc not in (0, None), f"client after the server gave up: {rc}")
        if binary == OURS:
            c.check("iperf3: SERVER ERROR - server test duration expired" in
                    cli.err(), f"our client stderr {cli.err()!r}")


@case(stock=True)
def bitrate_limit_refuses_at_parameter_time(c):
    port = free_port()
    srv = server(c, OURS, port, "--server-bitrate-limit", "10M", "-V")
    want = ["iperf3: SERVER ERROR - " + REFUSED_27,
            "iperf3: error - " + REFUSED_27]
    for args in (["-P", "2", "-b", "10M"], ["--bidir", "-b", "6M"],
                 ["-b", "11M"]):
        rc, out, err = client(c, OURS, port, "--no-clamp", *args, "-t", "3")
        c.check(rc == 1 and lines(err) == want,
                f"ours {' '.join(args)}: rc {rc} stderr {err!r}")
        c.check("connected to" not in out,
                "refused after the streams were created")
    rc, out, err = client(c, OURS, port, "-P", "2", "-b", "4M", "-t", "1")
    c.check(rc == 0, f"-P 2 -b 4M under a 10M limit: rc {rc} {err!r}")
    rc, out, err = client(c, STOCK, port, "-P", "2", "-b", "10M", "-t", "3")
    c.check(rc == 1 and REFUSED_27 in err, f"stock: rc {rc} {err!r}")
    rc, out, err = client(c, STOCK, port, "-b", "9M", "-t", "1")
    c.check(rc == 0, f"stock -b 9M: rc {rc} {err!r}")
    # Streams x --fq-rate is held against the limit as well.
    rc, out, err = client(c, STOCK, port, "-P", "3", "--fq-rate", "4M",
                          "-b", "1M", "-t", "3")
    c.check(rc == 1 and REFUSED_27 in err, f"stock --fq-rate: rc {rc} {err!r}")
    e = srv.err()
    # -P 2 -b 10M: 20M; --bidir -b 6M: 12M; -P 3 --fq-rate 4M: 12M.
    c.check("iperf3: Client total requested throughput rate of 20000000 bps "
            "exceeded 10000000 bps limit" in e and
            e.count("rate of 12000000 bps exceeded 10000000 bps limit") == 2,
            f"-V messages in server stderr {e!r}")
    c.check(e.count("iperf3: error - " + REFUSED_27) == 5,
            f"server stderr {e!r}")


@case(stock=True)
def bitrate_limit_aborts_a_fast_test(c):
    port = free_port()
    srv = server(c, OURS, port, "--server-bitrate-limit", "50M/1", "-V")
    want = ["iperf3: SERVER ERROR - " + REFUSED_27,
            "iperf3: error - " + REFUSED_27]
    aborted = 0
    for args in (["-t", "6"], ["-t", "6", "-R"], ["-t", "6", "-u", "-b", "0"],
                 ["-t", "6", "--bidir"]):
        t0 = time.time()
        rc, out, err = client(c, OURS, port, "--no-clamp", *args)
        dt = time.time() - t0
        aborted += 1
        c.check(rc == 1 and lines(err) == want and dt < 5,
                f"ours {' '.join(args)}: rc {rc} after {dt:.1f}s {err!r}")
        c.check("connected to" in out, "not aborted mid-test")
    rc, out, err = client(c, OURS, port, "-t", "3", "-b", "20M")
    c.check(rc == 0, f"20 Mbit/s under a 50M/1 limit: rc {rc} {err!r}")
    t0 = time.time()
    rc, out, err = client(c, STOCK, port, "-t", "6")
    aborted += 1
    c.check(rc == 1 and REFUSED_27 in err and time.time() - t0 < 5,
            f"stock client: rc {rc} {err!r}")
    e = srv.err()
    c.check(len(re.findall(r"^iperf3: Total throughput of \d+ bps exceeded "
                           r"50000000 bps limit$", e, re.M)) == aborted,
            f"-V messages: {e!r}")
    c.check(e.count("iperf3: error - " + REFUSED_27) == aborted,
            f"server stderr {e!r}")


@case()
def daemon_pidfile_and_logfile(c):
    port = free_port()
    pidfile = os.path.join(TMP, f"{c.name}.pid")
    log = os.path.join(TMP, f"{c.name}.log")
    launcher = c.start([OURS, "-s", "-D", "-B", "127.0.0.1", "-p", str(port),
                        "-I", pidfile, "--logfile", log], "launch")
    c.check(launcher.wait(5) == 0, "launcher exit status")
    c.check(launcher.out() == "" and launcher.err() == "",
            "the daemon's terminal output is not empty")
    if not c.check(wait_until(lambda: os.path.exists(pidfile) and
                              os.path.getsize(pidfile) > 0, 5),
                   "no pid file"):
        return
    with open(pidfile, "rb") as f:
        raw = f.read()
    c.check(re.fullmatch(rb"[1-9][0-9]*", raw) is not None,
            f"pid file content {raw!r} (decimal, no newline)")
    pid = int(raw)
    c.pids.append(pid)
    c.check(os.path.exists(f"/proc/{pid}") and pid != launcher.pid,
            f"pid {pid} is not a live daemon")
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        c.check(b"-D" in f.read().split(b"\0"), "pid file names another "
                "process")
    with open(f"/proc/{pid}/stat") as f:
        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
    c.check(ppid != launcher.pid, "daemon still a child of the launcher")
    c.check(os.readlink(f"/proc/{pid}/cwd") == os.getcwd(),
            "daemon changed directory (3.17+ keeps it)")
    c.check(wait_until(lambda: listening(port), 15), "daemon not listening")
    rc, _, err = client(c, OURS, port, "-t", "1", *SLOW)
    c.check(rc == 0, f"client against the daemon: rc {rc} {err!r}")
    # A second server with the same live pid file is refused.
    second = c.start([OURS, "-s", "-B", "127.0.0.1", "-p", str(free_port()),
                      "-I", pidfile], "second")
    rc = second.wait(5)
    c.check(rc == 1 and lines(second.err()) ==
            ["iperf3: Another instance of iperf3 appears to be running"],
            f"second instance: rc {rc} stderr {second.err()!r}")
    with open(pidfile, "rb") as f:
        c.check(f.read() == raw, "the second instance touched the pid file")
    os.kill(pid, signal.SIGTERM)
    c.check(wait_until(lambda: not os.path.exists(f"/proc/{pid}"), 5),
            "daemon still running after SIGTERM")
    c.check(not os.path.exists(pidfile), "pid file left behind")
    with open(log) as f:
        text = f.read()
    for want in (f"Server listening on {port} (test #1)", "receiver",
                 f"Server listening on {port} (test #2)",
                 "iperf3: interrupt - the server has terminated by signal "
                 "Terminated(15)"):
        c.check(want in text, f"log lacks {want!r}: {text!r}")


@case()
def pidfile_of_a_client_and_a_stale_file(c):
    port = free_port()
    pidfile = os.path.join(TMP, f"{c.name}.pid")
    dead = subprocess.Popen(["true"])
    dead.wait()
    with open(pidfile, "w") as f:
        f.write(str(dead.pid))  # stale: that process is gone
    server(c, OURS, port, "-1")
    cli = c.start([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "2",
                   "-I", pidfile] + SLOW, "cli")

    def pid_written():
        try:
            with open(pidfile) as f:
                return f.read() == str(cli.pid)
        except OSError:
            return False
    c.check(wait_until(pid_written, 10), "client did not write its pid")
    rc = cli.wait(10)
    c.check(rc == 0, f"client rc {rc} {cli.err()!r}")
    c.check(not os.path.exists(pidfile), "client left its pid file")


@case(stock=True)
def rcv_timeout_server_drops_a_stopped_sender(c):
    # Stock and our client stop sending (SIGSTOP): the server gives up.
    for binary in (STOCK, OURS):
        port = free_port()
        srv = server(c, OURS, port, "-1", "-V", "--rcv-timeout", "1000")
        cli = c.start([binary, "-c", "127.0.0.1", "-p", str(port), "-t", "10"] +
                      SLOW, "cli")
        running(c, cli, port, settle=0.7)
        cli.signal(signal.SIGSTOP)
        t0 = time.time()
        rc = srv.wait(10)
        dt = time.time() - t0
        c.check(rc == 0 and dt < 6, f"server: rc {rc} after {dt:.1f}s")
        err = lines(srv.err())
        c.check("iperf3: Server restart (#1) during active test due to idle "
                "timeout for receiving data" in err and
                "iperf3: error - " + NOMSG in err, f"server stderr {err}")
        cli.signal(signal.SIGCONT)
        rc = cli.wait(15)
        c.check(rc not in (0, None), f"client rc {rc}")
        if binary == OURS:
            c.check(lines(cli.err()) == ["iperf3: SERVER ERROR - " + NOMSG,
                                         "iperf3: error - " + NOMSG],
                    f"our client stderr {cli.err()!r}")


@case(stock=True)
def rcv_timeout_relayed_to_a_stock_client(c):
    # A stock client that stops sending without being stopped (-b 1:
    # after the first block it waits) reads the relayed error.
    port = free_port()
    server(c, OURS, port, "-1", "--rcv-timeout", "1000")
    t0 = time.time()
    rc, out, err = client(c, STOCK, port, "-t", "10", "-b", "1")
    c.check(rc == 1 and "iperf3: error - " + NOMSG in lines(err) and
            time.time() - t0 < 6, f"stock client: rc {rc} {err!r}")


@case(stock=True)
def rcv_timeout_client_reverse_with_a_stopped_server(c):
    for binary in (STOCK, OURS):
        port = free_port()
        srv = server(c, binary, port, "-1")
        cli = c.start([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "10",
                       "-R", "--rcv-timeout", "1000"] + SLOW, "cli")
        running(c, cli, port, settle=0.7)
        srv.signal(signal.SIGSTOP)
        t0 = time.time()
        rc = cli.wait(10)
        dt = time.time() - t0
        c.check(rc == 1 and dt < 4, f"client: rc {rc} after {dt:.1f}s")
        c.check("iperf3: error - " + NOMSG in lines(cli.err()),
                f"client stderr {cli.err()!r}")
        srv.kill()


def check_ctrl_sockets(c, pid, port, uto, ka, nstreams, who):
    socks = peer_sockets(pid, port)
    c.check(len(socks) == 1 + nstreams,
            f"{who}: {len(socks)} connections on port {port}")
    # uto: one value for all connections, or (control, data).
    want = [uto[0]] + [uto[1]] * nstreams if isinstance(uto, tuple) else \
        [uto] * (1 + nstreams)
    c.check([s[3] for s in socks] == want,
            f"{who}: TCP_USER_TIMEOUT {[s[3] for s in socks]}, want {want}")
    kas = [s for s in socks if s[1]]
    if ka is None:
        c.check(not kas, f"{who}: keepalive on {kas}")
        return
    c.check(len(kas) == 1 and kas[0][2] == ka and socks and
            kas[0][0] == socks[0][0],
            f"{who}: keepalive only on the control socket with {ka}: {socks}")
    if len(kas) == 1:
        local = kas[0][4][1]
        c.check(any(f":{local} " in ln and "timer:(keepalive" in ln
                    for ln in ss_timers(port)),
                f"{who}: ss shows no keepalive timer for port {local}")


@case(stock=True, needs=("pidfd_getfd", "ss"))
def snd_timeout_and_cntl_ka_on_our_client(c):
    for binary in (STOCK, OURS):
        port = free_port()
        server(c, binary, port, "-1")
        cli = c.start([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "3",
                       "-P", "2", "-V", "--cntl-ka=20/5/3",
                       "--snd-timeout", "3000"] + SLOW, "cli")
        running(c, cli, port, streams=2, settle=0.3)
        check_ctrl_sockets(c, cli.pid, port, 3000, (20, 5, 3), 2,
                           f"our client vs {os.path.basename(binary)}")
        rc = cli.wait(10)
        c.check(rc == 0, f"client rc {rc} {cli.err()!r}")
        out = lines(cli.out())
        kal = ("Control connection TCP Keepalive TCP_KEEPIDLE/TCP_KEEPINTVL/"
               "TCP_KEEPCNT are set to 20/5/3")
        c.check(kal in out and out.index(kal) + 1 < len(out) and
                out[out.index(kal) + 1].startswith("Control connection MSS"),
                f"-V line missing or misplaced: {out[:6]}")


@case(stock=True, needs=("pidfd_getfd", "ss"))
def snd_timeout_and_cntl_ka_on_our_server(c):
    for binary in (STOCK, OURS):
        port = free_port()
        srv = server(c, OURS, port, "-1", "--cntl-ka=30/4/2",
                     "--snd-timeout", "2500")
        cli = c.start([binary, "-c", "127.0.0.1", "-p", str(port), "-t", "3",
                       "-P", "2"] + SLOW, "cli")
        running(c, cli, port, streams=2, settle=0.3)
        check_ctrl_sockets(c, srv.pid, port, 2500, (30, 4, 2), 2,
                           f"our server vs {os.path.basename(binary)}")
        c.check(cli.wait(10) == 0, f"client rc {cli.err()!r}")
        c.check(srv.wait(5) == 0, "server rc")


@case(needs=("pidfd_getfd", "ss"))
def cntl_ka_defaults_and_no_options(c):
    port = free_port()
    server(c, OURS, port, "-1")
    cli = c.start([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "2", "-V",
                   "--cntl-ka"] + SLOW, "cli")
    running(c, cli, port, settle=0.3)
    dflt = kernel_keepalive_defaults()
    check_ctrl_sockets(c, cli.pid, port, 0, dflt, 1, "--cntl-ka")
    c.check(cli.wait(10) == 0, "client rc")
    c.check("Control connection TCP Keepalive TCP_KEEPIDLE/TCP_KEEPINTVL/"
            "TCP_KEEPCNT are set to %d/%d/%d" % dflt in cli.out(),
            "-V line with the system defaults")
    # Without the options: the defaults that notice a vanished peer
    # (iperf.h: keepalive 10/5/4 and TCP_USER_TIMEOUT 30 s on the control
    # connection only), on both ends.
    port = free_port()
    srv = server(c, OURS, port, "-1")
    cli = c.start([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "2"] +
                  SLOW, "plain")
    running(c, cli, port, settle=0.3)
    check_ctrl_sockets(c, cli.pid, port, (30000, 0), (10, 5, 4), 1,
                       "client without options")
    check_ctrl_sockets(c, srv.pid, port, (30000, 0), (10, 5, 4), 1,
                       "server without options")
    c.check(cli.wait(10) == 0, "client rc")
    # --snd-timeout 0 alone: no user timeout, default keepalive.
    port = free_port()
    server(c, OURS, port, "-1")
    cli = c.start([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "2",
                   "--snd-timeout", "0"] + SLOW, "snd0")
    running(c, cli, port, settle=0.3)
    check_ctrl_sockets(c, cli.pid, port, 0, (10, 5, 4), 1,
                       "--snd-timeout 0")
    c.check(cli.wait(10) == 0, "client rc")


SIGNALS = [(signal.SIGINT, "Interrupt(2)"), (signal.SIGTERM, "Terminated(15)"),
           (signal.SIGHUP, "Hangup(1)")]


@case()
def signals_stop_our_client(c):
    for sig, text in SIGNALS:
        port = free_port()
        server(c, STOCK or OURS, port, "-1")
        cli = c.start([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "10"] +
                      SLOW, "cli")
        running(c, cli, port, settle=1.0)
        cli.signal(sig)
        rc = cli.wait(5)
        c.check(rc == 0, f"{text}: client rc {rc}")
        c.check(lines(cli.err()) == ["iperf3: interrupt - the client has "
                                     f"terminated by signal {text}"],
                f"{text}: stderr {cli.err()!r}")
        out = cli.out()
        c.check("sender" in out and "iperf Done." not in out,
                f"{text}: no partial summary {out[-200:]!r}")


@case()
def signals_stop_our_server(c):
    for sig, text in SIGNALS:
        for busy in (False, True):
            port = free_port()
            srv = server(c, OURS, port)
            if busy:
                cli = c.start([STOCK or OURS, "-c", "127.0.0.1", "-p",
                               str(port), "-t", "10"] + SLOW, "cli")
                running(c, cli, port, settle=1.0)
            else:
                time.sleep(0.3)
            srv.signal(sig)
            rc = srv.wait(5)
            what = f"{text} {'during a test' if busy else 'idle'}"
            c.check(rc == 0, f"{what}: server rc {rc}")
            c.check(lines(srv.err())[-1:] == [
                "iperf3: interrupt - the server has terminated by signal "
                f"{text}"], f"{what}: stderr {srv.err()!r}")
            if busy:
                c.check("receiver" in srv.out(),
                        f"{what}: no partial summary")
                c.check(cli.wait(10) not in (0, None), f"{what}: client rc")


# ---- runner -----------------------------------------------------------------

def run_case(name, fn):
    c = Case(name)
    t0 = time.time()
    try:
        fn(c)
    except Exception as e:  # a broken case fails, it does not stop the run
        c.probs.append(f"{type(e).__name__}: {e}")
    finally:
        c.cleanup()
    return name, c.probs, time.time() - t0


def main():
    global OURS, STOCK, TMP
    OURS = sys.argv[1]
    STOCK = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    filt = sys.argv[3] if len(sys.argv) > 3 else ""
    TMP = tempfile.mkdtemp(prefix="server_ops.")
    todo = []
    why_not = {}
    for name, fn, needs_stock, needs in CASES:
        if filt and filt not in name:
            continue
        if needs_stock and STOCK is None:
            print(f"SKIP: {name}: stock iperf3 not installed "
                  "(apt-get install iperf3)")
            continue
        for need in needs:
            if need not in why_not:
                why_not[need] = NEEDS[need]()
        missing = [why_not[n] for n in needs if why_not[n]]
        if missing:
            print(f"SKIP: {name}: " + "; ".join(missing))
            continue
        todo.append((name, fn))
    try:
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
            futs = [pool.submit(run_case, n, f) for n, f in todo]
            for fut in futs:
                name, probs, dt = fut.result(timeout=CASE_TIMEOUT * len(todo))
                report(name, probs, dt)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
