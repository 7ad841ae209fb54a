"""Helpers shared by the Python test scripts in this directory.

The scripts run as `python3 SRCDIR/tests/NAME.py`, so this directory is
on sys.path and `import testlib` finds this file (in and out of tree).

Outcomes: record() / report() print one PASS: or FAIL: line per check
and count it; summary() prints the final "N passed, N failed" line that
contrib/run-tests.sh adds up, and gives the exit status.
"""

import json
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

_outcomes = []
_lock = threading.Lock()   # record() may be called from several threads
COOKIE_ALPHABET = b"abcdefghijklmnopqrstuvwxyz234567"


# ---- outcomes ---------------------------------------------------------------

def count(ok):
    """Count one outcome without printing (for scripts with their own
    PASS/FAIL format); returns it as a bool."""
    with _lock:
        _outcomes.append(bool(ok))
    return bool(ok)


def record(name, ok, detail="", detail_on_pass=True):
    """Print "PASS: name" or "FAIL: name", with " (detail)" when there is
    one (and, with detail_on_pass=False, only on a failure)."""
    with _lock:
        _outcomes.append(bool(ok))
        shown = detail and (detail_on_pass or not ok)
        print(("PASS" if ok else "FAIL") + f": {name}" +
              (f" ({detail})" if shown else ""))
        sys.stdout.flush()


def report(label, probs, secs=None):
    """PASS or FAIL for a list of problems: "FAIL: label [1.2s]: a; b"."""
    took = f" [{secs:.1f}s]" if secs is not None else ""
    with _lock:
        _outcomes.append(not probs)
        if probs:
            print(f"FAIL: {label}{took}: " + "; ".join(probs))
        else:
            print(f"PASS: {label}{took}")
        sys.stdout.flush()


def summary():
    """Print "N passed, N failed"; returns the exit status (0: none failed)."""
    with _lock:
        passed = sum(_outcomes)
        failed = len(_outcomes) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


# ---- ports ------------------------------------------------------------------

def free_port(family=socket.AF_INET):
    """A TCP port the kernel just gave out on loopback (free, most likely)."""
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
        return s.getsockname()[1]


def bound(port, addr="127.0.0.1", reuseaddr=True):
    """Does something own addr:port?  Probed by binding it ourselves, not
    by connecting (a connection would count as a client, and a -1 server
    would spend its one test on it).  With SO_REUSEADDR only a listening
    socket makes the bind fail, not connections left in TIME_WAIT."""
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        if reuseaddr:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((addr, port))
        except OSError:
            return True
    return False


def wait_listening(port, proc, deadline, addr="127.0.0.1", reuseaddr=True):
    """Wait (until time.time() reaches `deadline`) for the server process
    `proc` to own the port (see bound()): True once it does, False if it
    exits first or the time runs out."""
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        if bound(port, addr, reuseaddr):
            return True
        time.sleep(0.05)
    return False


def wait_connectable(port, deadline):
    """Wait until a connection to 127.0.0.1:port succeeds (the probe is a
    client that vanishes at once); False if `deadline` passes first."""
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


# ---- the control protocol ---------------------------------------------------

def random_cookie():
    """A fresh session cookie: 36 characters of [a-z2-7] and a NUL."""
    return bytes(random.choice(COOKIE_ALPHABET) for _ in range(36)) + b"\0"


def connect(port, timeout):
    """A control connection to 127.0.0.1:port, TCP_NODELAY set."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def listener(backlog, timeout):
    """A listening socket on 127.0.0.1 (a port of the kernel's choice; see
    getsockname()), SO_REUSEADDR set, accept() bounded by `timeout`."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(backlog)
    ls.settimeout(timeout)
    return ls


def recv_exact(s, n, eof_error=False):
    """Read n bytes.  On EOF: what came so far, or with eof_error, raise
    EOFError."""
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            if eof_error:
                raise EOFError(f"EOF after {buf!r}")
            break
        buf += chunk
    return buf


def read_all(s, limit=1 << 16):
    """Read until EOF, an error or a timeout (or `limit` bytes, None for
    no limit); whatever came."""
    data = b""
    try:
        while limit is None or len(data) < limit:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


def server_error_code(data):
    """The code of the first SERVER_ERROR (FE and a big-endian int) in
    data, or None."""
    i = data.find(b"\xfe")
    if i < 0 or len(data) < i + 5:
        return None
    return struct.unpack(">i", data[i + 1:i + 5])[0]


def send_doc(s, body):
    """Send a JSON document (an object, or bytes as they are) behind its
    32-bit big-endian length."""
    if not isinstance(body, bytes):
        body = json.dumps(body).encode()
    s.sendall(struct.pack(">I", len(body)) + body)


# ---- processes --------------------------------------------------------------

def stop(p, grace=None):
    """End process p and reap it; returns its exit status.  SIGKILL at
    once, or with `grace`, SIGTERM first and SIGKILL only if it is still
    running `grace` seconds later."""
    if p.poll() is None:
        if grace is None:
            p.kill()
        else:
            p.terminate()
            try:
                return p.wait(grace)
            except subprocess.TimeoutExpired:
                p.kill()
    return p.wait()


def wait_exit(p, limit):
    """Wait up to `limit` seconds for p to exit: (exit status, seconds it
    took), or (None, None) if it is still running."""
    t0 = time.time()
    try:
        rc = p.wait(limit)
    except subprocess.TimeoutExpired:
        return None, None
    return rc, time.time() - t0


def one_test(server_argv, client_argv, timeout=30):
    """Start a server (with -1 or its own end), give it 0.4 s, run the
    client to its end (at most `timeout` s), then collect the server (at
    most 15 s).  Returns (client CompletedProcess, server exit status,
    server stdout, server stderr), all text; the server is killed if it
    is still running."""
    srv = subprocess.Popen(server_argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.4)
        cli = subprocess.run(client_argv, capture_output=True, text=True,
                             timeout=timeout)
        sout, serr = srv.communicate(timeout=15)
    finally:
        stop(srv)
    return cli, srv.returncode, sout, serr


# ---- stock peers ------------------------------------------------------------

def peer_321_path():
    """Where the real iperf3 3.21 is looked for: $IPERF3_PEER_321, else
    ../shared/peers/iperf3-3.21 beside the checkout (present on the
    project's machines, absent from a user's clone)."""
    env = os.environ.get("IPERF3_PEER_321")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "shared", "peers",
                                         "iperf3-3.21"))


def peer_version(path):
    """The version a stock iperf3 program reports ("3.12"), or None if it
    is missing or does not run (3.21 needs libssl3 and libsctp1)."""
    if not path or not os.access(path, os.X_OK):
        return None
    try:
        out = subprocess.run([path, "-v"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"iperf (3\.[0-9]+)", out)
    return m.group(1) if m else None


def stock_peers(stock312=None, want=("3.12", "3.21")):
    """The stock peers present, as [(version, path)]: Debian's iperf3
    (`stock312`, else $IPERF3_STOCK, else `iperf3` on PATH) and 3.21
    (peer_321_path()).  Each one wanted but absent prints a SKIP line
    with the reason, so its cases are visibly skipped."""
    cands = []
    if "3.12" in want:
        path = stock312 or os.environ.get("IPERF3_STOCK") or \
            shutil.which("iperf3")
        cands.append(("3.12", path, "Debian's iperf3 not installed "
                      "(apt-get install iperf3)"))
    if "3.21" in want:
        path = peer_321_path()
        cands.append(("3.21", path, f"iperf3 3.21 not found or not runnable "
                      f"at {path} (set IPERF3_PEER_321)"))
    peers = []
    for label, path, why in cands:
        ver = peer_version(path)
        if ver is None:
            print(f"SKIP: stock {label} cases: {why}")
            sys.stdout.flush()
        else:
            peers.append((ver, path))
    return peers
