#!/usr/bin/env python3
"""Thousands of hostile peers against ONE server process, on loopback.

One `iperf3 -s --rcv-timeout 3000` of ours serves at least MIN_CONNS
hostile peers from concurrent workers (each taken by the server as its
session, not just answered busy), drawn from these kinds:

  random bytes, short cookies, length prefixes from 0 and 8193 up to
  2^32-1, bodies shorter than their prefix, JSON with wrong types and
  out-of-range values, nesting on both sides of cJSON's depth limit (at
  the limit, {"a":{"a":...1}} is a valid document with an unknown key and
  is taken, as stock takes it; one level deeper it is refused, 114),
  huge arrays, unknown and
  out-of-order state bytes, peers that vanish (FIN or RST) in every
  protocol state (cookie, PARAM_EXCHANGE, CREATE_STREAMS, TEST_RUNNING,
  EXCHANGE_RESULTS, DISPLAY_RESULTS / before IPERF_DONE), data
  connections with wrong or short cookies, UDP tests whose hellos come
  from strangers, and a stream of UDP junk to the port from strangers.

Alongside: a few 1-byte-per-second trickles (cookie, parameters, and
ignored state bytes in CREATE_STREAMS), each cut off within its bound:
the receive timeout (every non-idle state; only data is progress) or
the 30 s limit of a unit, whichever is smaller, + 3 s.

A connection answered `FF` (busy: another hostile peer holds the server)
is counted apart and does not make a case served; a case retries (up to
15 s) until the server takes it, and every kind runs at least three times
first.  Afterwards a stock iperf3 client test against the same process
succeeds, and the server's open-fd count and RSS are back within a small
bound of where they were after a warm-up test (both printed).

Usage: hostile_mass.py OURS [STOCK]
"""

import ctypes
import ctypes.util
import json
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time

import testlib
from testlib import (free_port, random_cookie, read_all, record, recv_exact,
                     send_doc, server_error_code, summary, wait_listening)

MIN_CONNS = int(os.environ.get("HOSTILE_MASS_CONNS", "2000"))
WORKERS = 8
TIME_BUDGET = 150         # at most, for the mass phase (it ends when done)
RCV_TIMEOUT_MS = 3000
RSS_SLACK_KB = 24 * 1024  # allowed RSS growth over the warmed-up start
FD_SLACK = 1
SANITIZED = os.environ.get("IPERF3_SANITIZED") == "1"
PARAMS = {"tcp": True, "omit": 0, "time": 1, "num": 0, "blockcount": 0,
          "parallel": 1, "len": 131072, "pacing_timer": 1000,
          "client_version": "3.21"}

lock = threading.Lock()
stats = {}
tl = threading.local()   # tl.cookie: the cookie of this thread's session
gate = threading.Event()  # cleared while a trickle waits for the server
gate.set()


def bump(key):
    with lock:
        stats[key] = stats.get(key, 0) + 1


class Busy(Exception):
    """The server answered FF (another peer holds it)."""


def connect(port, timeout=5):
    s = testlib.connect(port, timeout)
    bump("conns")
    return s


def vanish(s, rst=None):
    """Close: FIN, or RST (SO_LINGER 0) when rst or by chance."""
    if rst or (rst is None and random.random() < 0.5):
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
        except OSError:
            pass
    s.close()


def expect(s, want, first=False):
    """Read len(want) bytes; FF (or, on the first read, a reset or EOF:
    the busy answer raced our cookie) raises Busy."""
    try:
        got = recv_exact(s, len(want))
    except ConnectionResetError:
        got = b""
    if (got[:1] == b"\xff" and want[:1] != b"\xff") or (first and not got):
        raise Busy()
    if got != want:
        raise AssertionError(f"wanted {want!r}, got {got!r}")


def open_session(port):
    """Cookie sent, PARAM_EXCHANGE read; raises Busy.  A fresh cookie per
    session: a new connection that arrives while another session creates
    its streams is taken as a data connection candidate, and must not
    match that session's cookie."""
    s = connect(port)
    tl.cookie = random_cookie()
    try:
        s.sendall(tl.cookie)
        expect(s, b"\x09", first=True)
    except (Busy, AssertionError, OSError):
        s.close()
        raise
    return s


def created(port, params=None):
    s = open_session(port)
    send_doc(s, params or PARAMS)
    expect(s, b"\x0a")
    return s


# ---- the kinds of hostile peer ----------------------------------------------
# Each returns normally when the server behaved, raises Busy to be retried,
# or raises AssertionError for a wrong answer.

def k_random_bytes(port):
    s = connect(port, timeout=0.3)  # a short wait: trickles are below
    s.sendall(os.urandom(random.randint(0, 300)))
    read_all(s)
    vanish(s)


def k_short_cookie(port):
    s = connect(port)
    s.sendall(random_cookie()[:random.randint(0, 36)])
    vanish(s)


def k_vanish_after_cookie(port):
    vanish(open_session(port))


def k_bad_length(port):
    s = open_session(port)
    n = random.choice([0, 8193, 65536, 1 << 24, (1 << 31) - 1, 1 << 31,
                       (1 << 32) - 1, random.randint(8193, (1 << 32) - 1)])
    s.sendall(struct.pack(">I", n) + os.urandom(random.randint(0, 64)))
    s.settimeout(5)
    code = server_error_code(read_all(s))
    s.close()
    assert code == 114, f"length {n}: SERVER_ERROR {code}, want 114"


def k_short_body(port):
    s = open_session(port)
    s.sendall(struct.pack(">I", 500) + b'{"tcp":true')
    vanish(s)


def k_wrong_types(port):
    keys = ["tcp", "udp", "omit", "time", "num", "blockcount", "parallel",
            "len", "bandwidth", "window", "reverse", "bidirectional",
            "title", "MSS", "TOS", "flowlabel", "congestion", "fqrate",
            "pacing_timer", "client_version", "authtoken", "extra_data"]
    vals = ["x", [], {}, None, True, -1, 1e300, -1e300, 2 ** 63, "9" * 50,
            [[[1]]], {"a": {"b": 1}}, 0.5, ""]
    doc = {k: random.choice(vals) for k in random.sample(keys, 6)}
    s = open_session(port)
    send_doc(s, doc)
    s.settimeout(5)
    data = recv_exact(s, 1)  # the answer; a taken test is not kept waiting
    vanish(s)
    # Either refused (SERVER_ERROR) or taken (CREATE_STREAMS).
    assert data[:1] in (b"\xfe", b"\x0a"), f"{doc}: answer {data[:8]!r}"


PARAMS_MAX_BYTES = 8192   # the largest parameter document (ctrl.h)


def cjson_nesting_limit():
    """How deep cJSON nests arrays and objects (CJSON_NESTING_LIMIT, 1000
    unless a build changes it), asked of the system's libcjson itself,
    the library our server parses with: (limit, how it was found)."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("cjson") or
                          "libcjson.so.1")
        lib.cJSON_Parse.restype = ctypes.c_void_p
        lib.cJSON_Parse.argtypes = [ctypes.c_char_p]
        lib.cJSON_Delete.argtypes = [ctypes.c_void_p]
    except (OSError, AttributeError):
        return 1000, "libcjson not loadable here, cJSON's default assumed"

    def parses(depth):
        doc = lib.cJSON_Parse(b"[" * depth + b"]" * depth)
        if doc:
            lib.cJSON_Delete(doc)
        return bool(doc)

    lo, hi = 1, PARAMS_MAX_BYTES  # deeper than fits in a document
    if not parses(lo) or parses(hi):
        return 1000, "libcjson answered oddly, cJSON's default assumed"
    while hi - lo > 1:             # parses(lo), not parses(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if parses(mid) else (lo, mid)
    return lo, "asked of libcjson"


NEST_LIMIT, NEST_HOW = cjson_nesting_limit()
NEST_OBJ = (b'{"a":', b"}")
NEST_ARR = (b"[", b"]")


def nested(shape, depth):
    o, c = shape
    return o * depth + b"1" + c * depth


def deepest(shape):
    """The deepest nesting of `shape` that fits in a parameter document."""
    return (PARAMS_MAX_BYTES - 1) // (len(shape[0]) + len(shape[1]))


def k_nesting_at_limit(port):
    """{"a":{"a":...1}} as deep as cJSON goes (or less): a valid document
    with an unknown key, taken like any other (stock takes it too).
    (Arrays are not sent within the limit: that would test a top-level
    value that is not an object, another question.)"""
    depth = random.choice([NEST_LIMIT, random.randint(2, NEST_LIMIT)])
    s = open_session(port)
    send_doc(s, nested(NEST_OBJ, depth))
    s.settimeout(5)
    data = recv_exact(s, 1)  # the answer; a taken test is not kept waiting
    vanish(s)
    assert data == b"\x0a", f"object nesting {depth} (limit " \
        f"{NEST_LIMIT}): answer {data!r}, want CREATE_STREAMS"


def k_nesting_over_limit(port):
    """Objects or arrays one level deeper than cJSON goes, or more (up to
    what fits in a document): not parsed, SERVER_ERROR 114."""
    shape = random.choice([s for s in (NEST_OBJ, NEST_ARR)
                           if deepest(s) > NEST_LIMIT])
    depth = random.choice([NEST_LIMIT + 1,
                           random.randint(NEST_LIMIT + 1, deepest(shape))])
    s = open_session(port)
    send_doc(s, nested(shape, depth))
    s.settimeout(5)
    code = server_error_code(read_all(s))
    vanish(s)
    assert code == 114, f"{shape[0].decode()} nesting {depth} (limit " \
        f"{NEST_LIMIT}): SERVER_ERROR {code}, want 114"


def k_huge_array(port):
    body = (b'{"parallel":[' + b"0," * 4000)[:8190] + b"0]}"
    body = body[:8192]
    s = open_session(port)
    send_doc(s, body)
    s.settimeout(5)
    data = recv_exact(s, 1)
    vanish(s)
    assert data[:1] in (b"\xfe", b"\x0a"), f"huge array: {data[:8]!r}"


def k_bad_state(port):
    s = created(port)
    s.sendall(bytes([random.choice([0, 3, 5, 7, 8, 9, 10, 13, 14, 15, 17,
                                    0x7f, 0x80, 0xfe, 0xff, 0x04])]))
    s.settimeout(5)
    code = server_error_code(read_all(s))
    s.close()
    assert code == 110, f"bad state: SERVER_ERROR {code}, want 110"


def k_vanish_create_streams(port):
    s = created(port, dict(PARAMS, parallel=random.randint(1, 128)))
    vanish(s)


def k_wrong_data_cookie(port):
    s = created(port)
    d = connect(port)
    d.sendall(random.choice([b"x" * 37, tl.cookie[:20], os.urandom(37),
                             tl.cookie[:-2] + b"!\0"]))
    d.shutdown(socket.SHUT_WR)  # a short cookie ends here, not at a timeout
    d.settimeout(15)
    got = recv_exact(d, 1)
    d.close()
    vanish(s)
    assert got in (b"\xff", b""), f"wrong data cookie got {got!r}"


def running(port, params=None):
    s = created(port, params)
    d = connect(port)
    d.sendall(tl.cookie)
    expect(s, b"\x01\x02")
    return s, d


def k_vanish_running(port):
    s, d = running(port, dict(PARAMS, reverse=random.random() < 0.5))
    d.settimeout(0.2)
    try:
        d.sendall(b"\0" * 65536)
        d.recv(65536)
    except OSError:
        pass
    rst = random.random() < 0.5
    vanish(d, rst)
    vanish(s, rst)


def to_results(port):
    s, d = running(port)
    d.sendall(b"\0" * 32768)
    s.sendall(b"\x04")
    expect(s, b"\x0d")
    return s, d


def k_vanish_exchange_results(port):
    s, d = to_results(port)
    d.close()
    vanish(s)


RESULTS = {"cpu_util_total": 1, "cpu_util_user": 0.5, "cpu_util_system": 0.5,
           "sender_has_retransmits": 0,
           "streams": [{"id": 1, "bytes": 32768, "retransmits": 0,
                        "jitter": 0, "errors": 0, "packets": 0,
                        "start_time": 0, "end_time": 1.0}]}


def k_bad_results(port):
    s, d = to_results(port)
    d.close()
    body = random.choice([b"[" * 5000, b"{}", b'{"streams":5}',
                          json.dumps(dict(RESULTS, streams=[{}] * 300)).encode(),
                          os.urandom(100)])
    send_doc(s, body)
    s.settimeout(5)
    read_all(s)
    vanish(s)


def k_vanish_before_done(port):
    s, d = to_results(port)
    d.close()
    send_doc(s, RESULTS)
    s.settimeout(5)
    n = struct.unpack(">I", recv_exact(s, 4))[0]
    recv_exact(s, n)
    expect(s, b"\x0e")
    vanish(s)  # no IPERF_DONE


def k_udp_strangers(port):
    s = created(port, dict(PARAMS, tcp=None, udp=True, len=100,
                           bandwidth=100000))
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b"9876", ("127.0.0.1", port))
    u.sendto(os.urandom(7), ("127.0.0.1", port))
    u.close()
    s.settimeout(3)
    data = read_all(s, 2)
    vanish(s)
    assert data in (b"\x01\x02", b"\x01", b""), f"udp: {data!r}"


KINDS = [
    (k_random_bytes, 6), (k_short_cookie, 4), (k_vanish_after_cookie, 3),
    (k_bad_length, 3), (k_short_body, 2), (k_wrong_types, 4),
    (k_nesting_at_limit, 1), (k_nesting_over_limit, 2), (k_huge_array, 2),
    (k_bad_state, 2), (k_vanish_create_streams, 2),
    (k_wrong_data_cookie, 1), (k_vanish_running, 2),
    (k_vanish_exchange_results, 1), (k_bad_results, 1),
    (k_vanish_before_done, 1), (k_udp_strangers, 1),
]
failures = []


must_do = [k for k, _ in KINDS for _ in range(3)]  # each kind a few times
random.shuffle(must_do)


def next_kind(pool):
    with lock:
        if must_do:
            return must_do.pop()
    return random.choice(pool)


def worker(port, deadline, stop):
    pool = [k for k, w in KINDS for _ in range(w)]
    while not stop.is_set() and time.time() < deadline:
        kind = next_kind(pool)
        give_up = min(deadline, time.time() + 15)
        while time.time() < give_up:
            gate.wait(30)
            try:
                kind(port)
                bump("ok:" + kind.__name__)
                bump("served")
                break
            except Busy:
                bump("busy")
                time.sleep(0.002 + 0.008 * random.random())
            except (ConnectionResetError, BrokenPipeError):
                bump("reset")  # busy answer raced our writes
            except socket.timeout:
                bump("timeout:" + kind.__name__)
                break
            except AssertionError as e:
                with lock:
                    failures.append(f"{kind.__name__}: {e}")
                break
            except OSError as e:
                bump("oserror:" + type(e).__name__)
                break
        with lock:
            if stats.get("served", 0) >= MIN_CONNS and \
                    all(stats.get("ok:" + k.__name__, 0) >= 3
                        for k, _ in KINDS):
                stop.set()


def udp_junk(port, stop):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    while not stop.is_set():
        u.sendto(random.choice([b"9876", b"", os.urandom(random.randint(
            1, 1500))]), ("127.0.0.1", port))
        bump("udp junk")
        time.sleep(0.005)
    u.close()


def trickle(port, what, out):
    """1 byte per second once the server holds us: how long until it cut
    us off.  Retries while the server is busy with other peers."""
    end = time.time() + 60
    s = None
    gate.clear()  # the workers hold back until the server has us
    # Let the sessions in flight end (within the receive timeout): a
    # connection made during another session's CREATE_STREAMS would be a
    # data connection candidate, not a control connection.
    time.sleep(RCV_TIMEOUT_MS / 1000 + 1.5)
    while time.time() < end:
        try:
            t0 = time.time()
            if what == "cookie":
                s = connect(port, timeout=60)
                s.settimeout(1.0)
                cookie = random_cookie()
                s.sendall(cookie[:1])
                try:
                    s.recv(1)  # FF or EOF: busy
                    s.close()
                    s = None
                    time.sleep(0.05)
                    continue
                except socket.timeout:
                    pass
                payload = cookie[1:]
            elif what == "params":
                s = open_session(port)
                t0 = time.time()
                body = json.dumps(PARAMS).encode()
                payload = struct.pack(">I", len(body)) + body
            else:  # ignored TEST_START bytes while CREATE_STREAMS
                s = created(port)
                t0 = time.time()
                payload = b"\x01" * 200
            break
        except (Busy, AssertionError, OSError):
            s = None
            time.sleep(0.05)
    gate.set()
    if s is None:
        out[what] = "never served"
        return
    s.settimeout(1.0)
    try:
        for b in payload:
            try:
                data = s.recv(64)
                if data == b"" or data[:1] in (b"\xff", b"\xfe"):
                    break
            except socket.timeout:
                pass
            if time.time() - t0 > 70:
                break
            s.sendall(bytes([b]))
    except OSError:
        pass
    s.close()
    out[what] = time.time() - t0


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def stock_test(stock, port, tries=20):
    r = None
    for _ in range(tries):
        r = subprocess.run([stock, "-c", "127.0.0.1", "-p", str(port),
                            "-t", "1"], capture_output=True, timeout=60)
        if r.returncode == 0 or b"busy" not in r.stderr:
            break
        time.sleep(0.5)
    return r


def main():
    ours = sys.argv[1]
    stock = sys.argv[2] if len(sys.argv) > 2 else None
    who = "stock"
    if not stock:
        print("SKIP: a stock client against the server: stock iperf3 not "
              "installed (apt-get install iperf3); our client stands in")
        stock, who = ours, "our"
    print(f"cJSON nesting limit {NEST_LIMIT} ({NEST_HOW})")
    if deepest(NEST_ARR) <= NEST_LIMIT:
        print("SKIP: nesting beyond cJSON's limit: it does not fit in a "
              "parameter document")
        KINDS.remove((k_nesting_over_limit, 2))
        must_do[:] = [k for k in must_do if k is not k_nesting_over_limit]
    elif deepest(NEST_OBJ) <= NEST_LIMIT:
        print("note: objects nested beyond cJSON's limit do not fit in a "
              "parameter document; only arrays are sent that deep")
    port = free_port()
    log = open(os.environ.get("HOSTILE_MASS_SERVER_LOG", os.devnull), "w")
    srv = subprocess.Popen([ours, "-s", "-p", str(port), "--rcv-timeout",
                            str(RCV_TIMEOUT_MS)], stdout=log, stderr=log)
    if not wait_listening(port, srv, time.time() + 15):
        record("server listening", False, f"exit {testlib.stop(srv)}")
        log.close()
        return summary()
    try:
        # Warm up (first-test allocations), then the baseline.
        r = stock_test(stock, port)
        record("warm-up client test", r.returncode == 0,
               r.stderr.decode(errors="replace")[-200:])
        time.sleep(0.5)
        fd0, rss0 = fd_count(srv.pid), rss_kb(srv.pid)
        print(f"server at start: {fd0} open fds, RSS {rss0} kB")

        t_start = time.time()
        stop = threading.Event()
        trickles = {}
        threads = [threading.Thread(target=worker,
                                    args=(port, t_start + TIME_BUDGET, stop))
                   for _ in range(WORKERS)]
        threads.append(threading.Thread(target=udp_junk, args=(port, stop)))
        tthreads = []
        for i, what in enumerate(("cookie", "params", "state")):
            t = threading.Timer(2 + 12 * i, trickle, (port, what, trickles))
            tthreads.append(t)
        for t in threads + tthreads:
            t.daemon = True
            t.start()
        for t in tthreads:
            t.join(120)
        for t in threads[:WORKERS]:
            t.join(TIME_BUDGET + 60)
        stop.set()
        threads[-1].join(5)
        took = time.time() - t_start
        print(f"mass phase: {took:.1f} s, {stats.get('served', 0)} hostile "
              f"peers served, {stats.get('conns', 0)} control "
              f"and data connections, {stats.get('busy', 0)} busy answers, "
              f"{stats.get('udp junk', 0)} junk datagrams")
        for k in sorted(stats):
            if k.startswith(("ok:", "timeout:", "oserror:")) or k == "reset":
                print(f"  {k}: {stats[k]}")
        record("server alive after the mass phase", srv.poll() is None)
        record(f"at least {MIN_CONNS} hostile peers served (not just "
               f"answered busy)", stats.get("served", 0) >= MIN_CONNS,
               str(stats.get("served")))
        missing = [k.__name__ for k, _ in KINDS
                   if stats.get("ok:" + k.__name__, 0) == 0]
        record("every kind of hostile peer was served", not missing,
               ", ".join(missing))
        record("every answer as expected", not failures,
               "; ".join(failures[:5]))
        # The trickles: cut off within their bound (or turned away busy).
        # Units have 30 s (session.c), and every state but idle has the
        # receive timeout (3.16+: only data blocks are progress), so the
        # smaller of the two applies; +3 s for the 1 s check period.
        unit = min(30, RCV_TIMEOUT_MS / 1000) + 3
        bounds = {"cookie": unit, "params": unit,
                  "state": RCV_TIMEOUT_MS / 1000 + 3}
        for what, bound in bounds.items():
            got = trickles.get(what)
            print(f"trickle in {what}: {got if isinstance(got, str) else f'{got:.1f} s'}"
                  if got is not None else f"trickle in {what}: did not run")
            # Not much sooner either: that would be some other path.
            low = min(30, RCV_TIMEOUT_MS / 1000) - 1
            ok = isinstance(got, float) and low <= got <= bound
            record(f"1-byte/s trickle in {what} cut off after {low:.0f} to "
                   f"{bound:.0f} s", ok, repr(got))

        # The same process still serves a stock client.
        time.sleep(RCV_TIMEOUT_MS / 1000 + 1)
        r = stock_test(stock, port)
        record(f"{who} client test succeeds afterwards", r.returncode == 0,
               r.stderr.decode(errors="replace")[-200:])
        time.sleep(0.5)
        fd1, rss1 = fd_count(srv.pid), rss_kb(srv.pid)
        print(f"server at end:   {fd1} open fds, RSS {rss1} kB "
              f"(start {fd0} fds, {rss0} kB; growth {rss1 - rss0} kB)")
        record("open fds back within the bound", fd1 <= fd0 + FD_SLACK,
               f"{fd0} -> {fd1}")
        if SANITIZED:
            print("RSS bound not checked under ASan (quarantine)")
        else:
            record("RSS back within the bound", rss1 <= rss0 + RSS_SLACK_KB,
                   f"{rss0} -> {rss1} kB")
    finally:
        rc = testlib.stop(srv, grace=10)
        log.close()
        record("server exits cleanly on SIGTERM", rc in (0, 1, -15),
               f"rc {rc}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
