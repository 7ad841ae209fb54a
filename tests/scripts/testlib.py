"""Helpers shared by the Python test scripts in this directory.

The scripts run as `python3 SRCDIR/tests/scripts/NAME.py`, so this
directory is on sys.path and `import testlib` finds this file (in and out
of tree).

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
import tempfile
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


def run_cases(cases, filt=""):
    """Run each case function whose name contains `filt`; an exception is
    a defect, reported as a failure (not a traceback).  Returns summary()'s
    exit status."""
    for case in cases:
        if filt and filt not in case.__name__:
            continue
        try:
            case()
        except Exception as e:  # noqa: BLE001 (reported)
            report(f"{case.__name__}: {type(e).__name__}", [str(e)[:300]])
    return summary()


def summary():
    """Print "N passed, N failed"; returns the exit status (0: none failed)."""
    with _lock:
        passed = sum(_outcomes)
        failed = len(_outcomes) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


# ---- our JSON keys ------------------------------------------------------------

# Key paths only our -J documents have (stock parsers ignore them): which
# program wrote it, the figures of stats_dist.h (rtt_us, delay_var_us,
# lost_in_receiver, with what is inside them), the caps a server clamped
# the test to and the port of a server's range.
OUR_KEY = re.compile(r"(^|\.)(start\.implementation|rtt_us|delay_var_us|"
                     r"lost_in_receiver|start\.server_caps|"
                     r"start\.server_port|peer_udp)(\.|$)")


def check_distribution(probs, what, d, keys):
    """A latency object (min, percentiles..., max in `keys` order, and
    mean): every key a number, in order, above 0, the mean within
    [min, max]; problems appended to probs."""
    if not isinstance(d, dict):
        probs.append(f"{what} missing")
        return
    vals = [d.get(k) for k in keys]
    if any(not isinstance(v, (int, float)) for v in vals) or \
            not isinstance(d.get("mean"), (int, float)):
        probs.append(f"{what} lacks keys: {d}")
        return
    if vals != sorted(vals) or vals[0] <= 0:
        probs.append(f"{what} out of order: {d}")
    if not d["min"] <= d["mean"] <= d["max"]:
        probs.append(f"{what} mean outside [min, max]: {d}")


def refusal_problems(rc, out, err, secs):
    """What is wrong with our client's refusal of a stock server for
    --rr/--latency/--owd (exit 1, the message, no data stream, within
    5 s)."""
    probs = []
    if rc != 1:
        probs.append(f"exit {rc} (want 1)")
    if "does not do --rr" not in out + err:
        probs.append(f"message: {(out + err)[-200:]!r}")
    if "connected to" in out:
        probs.append("a data stream was connected")
    if secs > 5:
        probs.append(f"took {secs:.1f} s")
    return probs



# ---- the JSON schema ------------------------------------------------------------

SCHEMA_PATH = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
    "iperf3-json.schema.json"))
_validators = {}


def schema_validator(event=False):
    """A validator for a -J document (or, with event, one --json-stream
    line) from docs/iperf3-json.schema.json; None when the jsonschema
    module (Debian python3-jsonschema) is missing."""
    key = "event" if event else "document"
    if key not in _validators:
        try:
            from jsonschema import Draft202012Validator
        except ImportError:
            _validators[key] = None
            return None
        with open(SCHEMA_PATH) as f:
            schema = json.load(f)
        schema.pop("oneOf", None)
        schema["$ref"] = "#/$defs/" + key
        _validators[key] = Draft202012Validator(schema)
    return _validators[key]


def check_schema(doc, what, event=False):
    """What is wrong with `doc` (a parsed -J document, or with event a
    --json-stream line) by the schema: a list of "what: path: message"
    strings, empty when it validates or when jsonschema is missing."""
    v = schema_validator(event)
    if v is None:
        return []
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"{what}: schema: {'/'.join(str(p) for p in e.absolute_path)}"
            f": {e.message[:200]}" for e in errs[:3]]


def json_values(text, lenient=False):
    """The JSON values one after the other in text (the documents of a
    server's tests, --json-stream lines, a --json-stream-full-output run's
    lines and document).  ValueError where one does not parse, or with
    lenient, those before it."""
    dec = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        try:
            v, i = dec.raw_decode(text, i)
        except ValueError:
            if lenient:
                return out
            raise
        out.append(v)


def parse_doc(text, what="document", event=False):
    """json.loads(text), checked with check_schema(): a ValueError (as
    for text that is not JSON) names what the schema refuses."""
    doc = json.loads(text)
    probs = check_schema(doc, what, event)
    if probs:
        raise ValueError("; ".join(probs))
    return doc


# ---- ports ------------------------------------------------------------------

_given_ports = set()
_port_claims = []     # sockets that hold this process's claims (see below)
_port_random = random.Random()   # apart from tests that seed `random`


def _ephemeral_low():
    """The lowest port the kernel gives out on its own (to connect() and to
    bind() to port 0): the first number of ip_local_port_range."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _claim(port):
    """Claim `port` among the test processes running at once: an abstract
    Unix socket named after it, held until this process ends (the kernel
    drops it then, whatever way the process ends).  False if another
    process holds it."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(f"\0iperf3-tests-port-{port}")
    except OSError:
        s.close()
        return False
    _port_claims.append(s)
    return True


def _bindable(port, family):
    """Can a server bind `port` right now (TCP and UDP, any address)?"""
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        with socket.socket(family, kind) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("::" if family == socket.AF_INET6 else "0.0.0.0",
                        port))
            except OSError:
                return False
    return True


def free_port(family=socket.AF_INET):
    """A port for a test server: free now, never given to this process
    before (threads may ask at once), claimed against the other test
    processes running in parallel (_claim), and below the kernel's
    ephemeral range, so that no connection made meanwhile, by any test,
    can be given it as its local port before the server binds it (or in
    the moment a server re-creates its listener).  Where that range
    leaves no room, a port the kernel picks."""
    top = _ephemeral_low()
    low = max(1024, top - 12000)
    for _ in range(1000 if top - low >= 1000 else 0):
        port = _port_random.randrange(low, top)
        with _lock:
            if port in _given_ports or port == 5201:
                continue
            _given_ports.add(port)
        if _bindable(port, family) and _claim(port):
            return port
    while True:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
            port = s.getsockname()[1]
        with _lock:
            if port not in _given_ports:
                _given_ports.add(port)
                return port


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


def _tcp_sockets(pid=None):
    """The rows of /proc/PID/net/tcp and tcp6 (the network namespace of
    process `pid`; without one, ours), each split into its columns; None
    when /proc cannot tell (not mounted)."""
    base = f"/proc/{pid}/net" if pid is not None else "/proc/net"
    seen, out = False, []
    for name in ("tcp", "tcp6"):
        try:
            with open(f"{base}/{name}") as f:
                rows = f.readlines()[1:]
        except OSError:
            continue
        seen = True
        out += [cols for cols in (row.split() for row in rows)
                if len(cols) > 9]
    return out if seen else None


def _port(address):
    """The port of a /proc/net/tcp address column ("0100007F:1451")."""
    return int(address.rsplit(":", 1)[1], 16)


def _listener(port, pid):
    """The /proc row of the socket listening on `port`: the row, False
    when none listens, None when /proc cannot tell."""
    rows = _tcp_sockets(pid)
    if rows is None:
        return None
    for cols in rows:
        if cols[3] == "0A" and _port(cols[1]) == port:
            return cols
    return False


def listening(port, pid=None):
    """Is a TCP socket listening on `port`?  Read from /proc/PID/net/tcp
    and tcp6 (the network namespace of process `pid`; without one, ours):
    no socket is bound or connected, so the probe can neither take the
    port from a server that is about to bind it nor count as a client.
    None when /proc cannot tell (not mounted)."""
    row = _listener(port, pid)
    return None if row is None else bool(row)


def listener_inode(port, pid=None):
    """The inode of the socket listening on `port`, read as listening()
    does; None when none listens or /proc cannot tell."""
    row = _listener(port, pid)
    return row[9] if row else None


def wait_relisten(port, proc, inode, deadline):
    """A stock iperf3 server closes its listening socket when a test ends
    and listens on a new one; a client that connects in between is reset.
    After a test against such a server, wait (until `deadline`) for a
    listener on `port` other than the one with `inode` (listener_inode()
    taken before the test).  True once there is one, False when the
    process exits, /proc cannot tell or the time runs out."""
    if inode is None:
        return False
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        now = listener_inode(port, proc.pid)
        if now is not None and now != inode:
            return True
        time.sleep(0.02)
    return False


def wait_listening(port, proc, deadline, addr="127.0.0.1", reuseaddr=True):
    """Wait (until time.time() reaches `deadline`) for the server process
    `proc` to listen on the port: True once it does, False if it exits
    first or the time runs out.  Seen in /proc (listening(), in the
    network namespace of `proc`); only where /proc cannot tell, by a bind
    probe (bound(), with `addr` and `reuseaddr`)."""
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        up = listening(port, proc.pid)
        if up is None:
            up = bound(port, addr, reuseaddr)
        if up:
            return True
        time.sleep(0.02)
    return False


def connections(port, pid=None):
    """How many TCP connections to `port` are established (counted at the
    connecting end: remote port == port), from /proc/[PID/]net/tcp{,6}
    like listening()."""
    return sum(1 for cols in _tcp_sockets(pid) or ()
               if cols[3] == "01" and _port(cols[2]) == port)


def wait_connections(port, n, proc, deadline):
    """Wait until `n` TCP connections to `port` are established (the
    control connection and n - 1 TCP streams: the test is starting, so
    a signal from now on hits a running test, however slow the machine).
    False if `proc` exits first or `deadline` passes."""
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        if connections(port, proc.pid) >= n:
            return True
        time.sleep(0.02)
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


class NotListening(Exception):
    """A server started by start_server() did not listen in time."""


def start_server(argv, port, limit=10, pipes=True):
    """Start the server argv (which listens on 127.0.0.1:port) and wait,
    at most `limit` s, until it listens (no probe socket: a bind probe
    could take the port from the server in the instant it binds).  With
    `pipes`, its stdout and stderr are text pipes (the caller reads
    them); else stdout goes nowhere and stderr to a file nobody has to
    drain.  Returns the process; raises NotListening (the server stopped,
    with the end of what it said) otherwise."""
    err = None if pipes else tempfile.TemporaryFile()
    p = subprocess.Popen(argv, text=pipes,
                         stdout=subprocess.PIPE if pipes else subprocess.DEVNULL,
                         stderr=subprocess.PIPE if pipes else err)
    try:
        if wait_listening(port, p, time.time() + limit):
            return p
        stop(p)
        if pipes:
            text = p.stderr.read()
        else:
            err.seek(0)
            text = err.read().decode(errors="replace")
        raise NotListening(f"{os.path.basename(argv[0])} server did not "
                           f"listen on {port} (exit {p.returncode}: "
                           f"{text.strip()[-200:]!r})")
    finally:
        if err is not None:
            err.close()


def wait_exit(p, limit):
    """Wait up to `limit` seconds for p to exit: (exit status, seconds it
    took), or (None, None) if it is still running."""
    t0 = time.time()
    try:
        rc = p.wait(limit)
    except subprocess.TimeoutExpired:
        return None, None
    return rc, time.time() - t0


def timed_run(argv, timeout=30):
    """Run argv to its end (at most `timeout` s): (exit status, stdout,
    stderr, seconds it took); exit status None if it timed out."""
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s", timeout
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def argv_port(argv, default=5201):
    """The port an iperf3 command line names (-p N, --port N, --port=N)."""
    for i, a in enumerate(argv):
        if a in ("-p", "--port") and i + 1 < len(argv):
            return int(argv[i + 1])
        if a.startswith("--port="):
            return int(a.split("=", 1)[1])
    return default


def one_test(server_argv, client_argv, timeout=30, listen_timeout=10,
             env=None):
    """Start a server (with -1 or its own end), wait until it listens on
    its port (-p in server_argv, else 5201; at most `listen_timeout` s),
    run the client to its end (at most `timeout` s), then collect the
    server (at most 15 s).  Both run with `env` (None: ours).  Returns
    (client CompletedProcess, server exit status, server stdout, server
    stderr), all text; the server is killed if it is still running.  A
    server that never listens is a failure the caller sees: the client is
    not run, and its CompletedProcess has exit status None and says so on
    stderr."""
    srv = subprocess.Popen(server_argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
    try:
        port = argv_port(server_argv)
        if not wait_listening(port, srv, time.time() + listen_timeout):
            stop(srv)
            sout, serr = srv.communicate()
            cli = subprocess.CompletedProcess(
                client_argv, None, "",
                f"(not run: the server did not listen on port {port} within "
                f"{listen_timeout} s; server exit {srv.returncode}, stderr "
                f"{serr.strip()[-300:]!r})")
            return cli, srv.returncode, sout, serr
        cli = subprocess.run(client_argv, capture_output=True, text=True,
                             timeout=timeout, env=env)
        sout, serr = srv.communicate(timeout=15)
    finally:
        stop(srv)
    return cli, srv.returncode, sout, serr


# ---- what this machine allows -------------------------------------------------
# Each probe tries the thing itself (it does not guess from the uid) and
# returns None when it works, else the reason, for a "SKIP: ..." line.

def skip_unless_option(prog, option):
    """Exit 77 with a SKIP line when `prog` was built without `option`
    (configure --disable-plot and the like leave it out of --help)."""
    try:
        out = subprocess.run([prog, "--help"], capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        out = str(e)
    if f"  {option} " not in out:
        skip(f"{prog} is built without {option}")
        sys.exit(77)


def built_with(prog, name):
    """Whether `prog`'s build defines configure's `name` (HAVE_PEERIVAL
    and the like) in its config.h: $top_builddir's, else the one two
    folders above prog (src/iperf3 of a build tree)."""
    top = os.environ.get("top_builddir") or \
        os.path.dirname(os.path.dirname(os.path.abspath(prog)))
    try:
        with open(os.path.join(top, "config.h")) as f:
            return f"#define {name} 1" in f.read()
    except OSError:
        return False


def skip(reason):
    """Print "SKIP: reason" (a case or a whole script that cannot run
    here, and why)."""
    print(f"SKIP: {reason}")
    sys.stdout.flush()


def _first_line(text):
    lines = [ln for ln in (text or "").strip().splitlines() if ln.strip()]
    return lines[0].strip()[:160] if lines else "no message"


def _run(argv, **kw):
    """subprocess.run with output captured as text and a bound; an absent
    program or a timeout is an exit status of None with a message."""
    try:
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=kw.pop("timeout", 30), **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(argv, None, "", str(e))


class NetnsUnavailable(Exception):
    """A private network namespace (or nft in it) cannot be set up here;
    str() is the reason."""


class Netns:
    """A private network namespace with its loopback up, made with ip(8)
    under a unique name: the probe and the real thing at once.  Raises
    NetnsUnavailable with the reason when this machine does not allow it
    (not root, no CAP_SYS_ADMIN / CAP_NET_ADMIN as in an unprivileged
    container, a chroot where `ip netns exec` cannot remount /, no ip or
    nft); the namespace is gone again then.  With nft=True, nftables must
    work inside.  Use as a context manager, or call close()."""

    def __init__(self, tag, nft=False):
        self.name = f"iperf3compat-{tag}-{os.getpid()}-{random.randrange(1 << 20)}"
        self.created = False
        if shutil.which("ip") is None:
            raise NetnsUnavailable("ip (iproute2) not installed")
        if nft and shutil.which("nft") is None:
            raise NetnsUnavailable("nft (nftables) not installed")
        r = _run(["ip", "netns", "add", self.name])
        if r.returncode != 0:
            self.close()  # `ip netns add` may leave its file behind
            raise NetnsUnavailable("cannot create a network namespace "
                                   f"(ip netns add: {_first_line(r.stderr)})")
        self.created = True
        try:
            r = self.run("ip", "link", "set", "lo", "up")
            if r.returncode != 0:
                raise NetnsUnavailable(
                    "cannot run a program in a network namespace (ip netns "
                    f"exec ... ip link set lo up: exit {r.returncode}, "
                    f"{_first_line(r.stderr)})")
            if nft:
                r = self.run("nft", "add", "table", "inet", "probe")
                if r.returncode != 0:
                    raise NetnsUnavailable(
                        f"nft does not work in a network namespace "
                        f"({_first_line(r.stderr)})")
                self.run("nft", "delete", "table", "inet", "probe")
        except BaseException:
            self.close()
            raise

    def argv(self, *cmd):
        """cmd prefixed to run in the namespace."""
        return ["ip", "netns", "exec", self.name] + [str(c) for c in cmd]

    def run(self, *cmd, **kw):
        """Run cmd in the namespace: a CompletedProcess (text; exit
        status None if it could not run or timed out)."""
        return _run(self.argv(*cmd), **kw)

    def popen(self, *cmd, **kw):
        return subprocess.Popen(self.argv(*cmd), **kw)

    def inside(self, pid):
        """Is process `pid` in this namespace yet (`ip netns exec` has
        entered it)?"""
        try:
            return os.stat(f"/proc/{pid}/ns/net").st_ino == \
                os.stat(f"/run/netns/{self.name}").st_ino
        except OSError:
            return False

    def wait_listening(self, port, proc, deadline):
        """wait_listening() for a server started with popen()."""
        while time.time() < deadline:
            if proc.poll() is not None:
                return False
            if self.inside(proc.pid) and listening(port, proc.pid):
                return True
            time.sleep(0.02)
        return False

    def close(self):
        """Kill what still runs in the namespace and delete it."""
        if self.created:
            for pid in _run(["ip", "netns", "pids", self.name]).stdout.split():
                try:
                    os.kill(int(pid), 9)
                except (OSError, ValueError):
                    pass
        _run(["ip", "netns", "del", self.name])
        self.created = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Topo:
    """Three network namespaces: client (10.77.1.1) - router - server
    (10.77.2.2) on veth pairs, with a tbf bottleneck of `rate` (tc's
    syntax, "20mbit") and `queue_ms` of queue on the router's side of the
    router-server link (shape="fwd"), or on the router's side of the
    client-router link (shape="rev": the server-to-client direction).
    Raises NetnsUnavailable (build() too) where namespaces, veth or tc
    cannot be used; close() removes everything."""

    def __init__(self, rate, queue_ms, shape="fwd"):
        self.rate, self.queue_ms, self.shape = rate, queue_ms, shape
        self.ns = []
        try:
            for tag in ("lc", "lr", "ls"):
                self.ns.append(Netns(tag))
        except NetnsUnavailable:
            self.close()
            raise
        self.c, self.r, self.s = self.ns

    def sh(self, ns, *cmd):
        r = ns.run(*cmd)
        if r.returncode != 0:
            raise NetnsUnavailable(f"{' '.join(cmd)}: exit {r.returncode}, "
                                   f"{(r.stderr or '').strip()[:160]}")

    def build(self):
        for a, b, an, bn in ((self.c, self.r, "c0", "r0"),
                             (self.r, self.s, "r1", "s0")):
            r = subprocess.run(["ip", "-n", a.name, "link", "add", an, "type",
                                "veth", "peer", "name", bn, "netns", b.name],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise NetnsUnavailable("cannot make a veth pair between "
                                       f"namespaces: {r.stderr.strip()[:160]}")
        self.sh(self.c, "ip", "addr", "add", "10.77.1.1/24", "dev", "c0")
        self.sh(self.r, "ip", "addr", "add", "10.77.1.2/24", "dev", "r0")
        self.sh(self.r, "ip", "addr", "add", "10.77.2.1/24", "dev", "r1")
        self.sh(self.s, "ip", "addr", "add", "10.77.2.2/24", "dev", "s0")
        for ns, dev in ((self.c, "c0"), (self.r, "r0"), (self.r, "r1"),
                        (self.s, "s0")):
            self.sh(ns, "ip", "link", "set", dev, "up")
        self.sh(self.c, "ip", "route", "add", "default", "via", "10.77.1.2")
        self.sh(self.s, "ip", "route", "add", "default", "via", "10.77.2.1")
        self.sh(self.r, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
        self.sh(self.r, "tc", "qdisc", "add", "dev",
                "r0" if self.shape == "rev" else "r1", "root", "tbf",
                "rate", self.rate, "burst", "32kbit", "latency",
                f"{self.queue_ms}ms")

    def close(self):
        for ns in self.ns:
            ns.close()


def topo_or_skip(label, rate, queue_ms, shape="fwd"):
    """A built Topo(rate, queue_ms, shape), or None after a "SKIP: label:
    why" line where tc or network namespaces are unavailable."""
    if shutil.which("tc") is None:
        skip(f"{label}: tc (iproute2) not installed")
        return None
    topo = None
    try:
        topo = Topo(rate, queue_ms, shape)
        topo.build()
    except NetnsUnavailable as e:
        if topo is not None:
            topo.close()
        skip(f"{label}: {e}")
        return None
    return topo


_strace_probe = {}


def strace_unavailable():
    """None if strace(1) can trace a child here, else why not (not
    installed; ptrace refused, as in a container without CAP_SYS_PTRACE
    under a strict seccomp profile or with Yama's ptrace_scope 3)."""
    if "why" not in _strace_probe:
        path = shutil.which("strace")
        if path is None:
            why = "strace not installed (apt-get install strace)"
        else:
            r = _run([path, "-f", "-qq", "-o", os.devnull, "-e",
                      "trace=getpid", "true"])
            why = None if r.returncode == 0 else \
                f"strace cannot trace here ({_first_line(r.stderr)})"
        _strace_probe["why"] = why
    return _strace_probe["why"]


def ss_unavailable():
    """None if ss(8) lists sockets here, else why not."""
    if shutil.which("ss") is None:
        return "ss (iproute2) not installed"
    r = _run(["ss", "-tln"])
    return None if r.returncode == 0 else \
        f"ss does not work here ({_first_line(r.stderr)})"


# ---- stock peers ------------------------------------------------------------

def shared_path(env, *parts):
    """$env if set, else ../shared/<parts> beside the checkout (the
    project's machines have ../shared; a user's clone does not)."""
    if os.environ.get(env):
        return os.environ[env]
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "shared",
                                         *parts))


def peer_321_path():
    """Where the real iperf3 3.21 is looked for: $IPERF3_PEER_321, else
    ../shared/peers/iperf3-3.21 beside the checkout."""
    return shared_path("IPERF3_PEER_321", "peers", "iperf3-3.21")


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
    # IPERF3_PEERS=newest: only the newest present (a sanitizer run checks
    # our code, not the peers' variety).
    if os.environ.get("IPERF3_PEERS") == "newest" and len(peers) > 1:
        for ver, _ in peers[:-1]:
            print(f"SKIP: stock {ver} cases: IPERF3_PEERS=newest")
        peers = peers[-1:]
    return peers


if __name__ == "__main__":
    # `python3 testlib.py free-port`: free_port() for a shell test (the
    # claim ends with this process; the port stays below the kernel's
    # ephemeral range, which is what keeps it free).
    if sys.argv[1:] != ["free-port"]:
        sys.exit("usage: testlib.py free-port")
    print(free_port())
