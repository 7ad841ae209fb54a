#!/usr/bin/env python3
"""Hostile peers on the control channel, both ways, on loopback.

Server side: one persistent `iperf3 -s` of ours receives broken, hostile
or vanishing clients (truncated cookies, absurd length prefixes, bad and
deeply nested JSON, wrong types, out-of-range values, unknown and
out-of-order states, wrong data cookies, a client that vanishes mid-test,
a second client while busy).  Each case checks the server's answer where
iperf3 defines one (SERVER_ERROR with the right code, ACCESS_DENIED), the
server must stay up, and afterwards a stock iperf3 client test succeeds
and the server's open descriptors are back where they started.

Client side: our `iperf3 -c` meets fake servers that close, send unknown
or out-of-order states, SERVER_ERROR (short form), ACCESS_DENIED, an
oversized result document, or stall; it must exit 1 with iperf3's message
within a bounded time.

Usage: hostile.py OURS [STOCK]
"""

import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import testlib
from testlib import (free_port, listener, read_all, record, recv_exact,
                     send_doc, server_error_code, stop, summary,
                     wait_listening)

IO_TIMEOUT = 15
COOKIE = b"abcdefghijklmnopqrstuvwxyz234567abcd\0"
# Set in main(): the build has --multicast (configure --disable-multicast
# leaves it out).
MULTICAST = False
PARAMS = {"tcp": True, "omit": 0, "time": 1, "num": 0, "blockcount": 0,
          "parallel": 1, "len": 131072, "pacing_timer": 1000,
          "client_version": "3.21"}


def connect(port):
    return testlib.connect(port, IO_TIMEOUT)


def expect_server_error(s, code):
    """Read until SERVER_ERROR; return None if found with `code`."""
    data = read_all(s, limit=None)
    got = server_error_code(data)
    if got is None:
        return f"no SERVER_ERROR in {data[:16]!r}"
    return None if got == code else f"SERVER_ERROR code {got}, want {code}"


def handshake(port, params=PARAMS):
    s = connect(port)
    s.sendall(COOKIE)
    if recv_exact(s, 1) != b"\x09":
        raise RuntimeError("no PARAM_EXCHANGE")
    send_doc(s, params)
    return s


# ---- server side ------------------------------------------------------------

def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def server_cases(port):
    cases = []

    def case(fn):
        cases.append(fn)
        return fn

    @case
    def close_immediately():
        connect(port).close()

    @case
    def truncated_cookie():
        s = connect(port)
        s.sendall(COOKIE[:10])
        s.close()

    @case
    def cookie_then_vanish():
        s = connect(port)
        s.sendall(COOKIE)
        assert recv_exact(s, 1) == b"\x09"
        s.close()

    def bad_params(body, code):
        s = connect(port)
        s.sendall(COOKIE)
        assert recv_exact(s, 1) == b"\x09"
        s.sendall(body)
        err = expect_server_error(s, code)
        s.close()
        assert err is None, err

    @case
    def length_prefix_4_gigabytes():
        bad_params(b"\xff\xff\xff\xff", 114)

    @case
    def length_prefix_just_over_8k():
        bad_params(struct.pack(">I", 8193) + b"{" * 100, 114)

    @case
    def zero_length_document():
        bad_params(b"\0\0\0\0", 114)

    @case
    def garbage_json():
        bad_params(struct.pack(">I", 20) + b"\x00\x01junk{{{]]]]]]]]]]]]", 114)

    @case
    def deeply_nested_json():
        body = b"[" * 4000 + b"]" * 4000
        bad_params(struct.pack(">I", len(body)) + body, 114)

    @case
    def out_of_range_parallel():
        body = json.dumps(dict(PARAMS, parallel=100000)).encode()
        bad_params(struct.pack(">I", len(body)) + body, 6)

    @case
    def huge_number():
        body = b'{"tcp":true,"time":1e999,"parallel":1}'
        bad_params(struct.pack(">I", len(body)) + body, 5)

    @case
    def wrong_types_are_ignored():
        s = handshake(port, {"parallel": "x", "time": [1], "udp": "y",
                             "len": {"a": 1}, "title": 5})
        assert recv_exact(s, 1) == b"\x0a", "no CREATE_STREAMS"
        s.close()

    @case
    def unknown_state_byte():
        s = handshake(port)
        assert recv_exact(s, 1) == b"\x0a"
        s.sendall(b"\x7f")
        err = expect_server_error(s, 110)
        s.close()
        assert err is None, err

    @case
    def out_of_order_state():
        s = handshake(port)
        assert recv_exact(s, 1) == b"\x0a"
        s.sendall(b"\x04")  # TEST_END before the streams exist
        err = expect_server_error(s, 110)
        s.close()
        assert err is None, err

    @case
    def wrong_data_cookie():
        s = handshake(port)
        assert recv_exact(s, 1) == b"\x0a"
        d = connect(port)
        d.sendall(b"x" * 37)
        got = recv_exact(d, 1)
        d.close()
        s.close()
        assert got == b"\xff", f"data connection got {got!r}"

    @case
    def second_client_while_busy():
        s = handshake(port)
        assert recv_exact(s, 1) == b"\x0a"
        d = connect(port)
        d.sendall(COOKIE.replace(b"a", b"b"))
        got = recv_exact(d, 1)
        d.close()
        s.close()
        assert got == b"\xff", f"second client got {got!r}"

    @case
    def vanish_while_running():
        s = handshake(port)
        assert recv_exact(s, 1) == b"\x0a"
        d = connect(port)
        d.sendall(COOKIE)
        assert recv_exact(s, 2) == b"\x01\x02", "no TEST_START/RUNNING"
        d.sendall(b"\0" * 65536)
        d.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
        d.close()
        s.close()  # RST on both

    @case
    def client_sends_done_early():
        s = handshake(port)
        assert recv_exact(s, 1) == b"\x0a"
        s.sendall(b"\x10")  # IPERF_DONE before any stream
        s.settimeout(5)
        assert s.recv(16) in (b"",), "server kept the connection"
        s.close()

    @case
    def udp_datagrams_short_oversized_late_duplicate():
        udp_accounting_case(port)

    @case
    def udp_hellos_from_strangers_and_junk():
        s = handshake(port, dict(PARAMS, tcp=None, udp=True, len=100,
                                 bandwidth=1000000))
        assert recv_exact(s, 1) == b"\x0a"
        stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for junk in (b"", b"x", b"\0" * 3, b"\xff" * 9000):
            stranger.sendto(junk, ("127.0.0.1", port))
        stranger.close()
        time.sleep(0.2)
        s.close()

    if MULTICAST:
        def mcast(ext, **kw):
            p = dict(PARAMS, tcp=None, udp=True, len=1400, bandwidth=1000000)
            p.update(kw)
            p["iperf3_compat"] = {"version": "0.1.0",
                                  "want": ["multicast"], "multicast": ext}
            body = json.dumps(p).encode()
            return struct.pack(">I", len(body)) + body

        good = {"group": "239.1.2.3", "ttl": 1, "test_id": "00ff"}

        @case
        def multicast_group_not_allowed():
            bad_params(mcast(good), 413)  # IEMCASTDENIED

        @case
        def multicast_unicast_group():
            bad_params(mcast(dict(good, group="10.0.0.1")), 114)

        @case
        def multicast_ttl_out_of_range():
            bad_params(mcast(dict(good, ttl=0)), 114)
            bad_params(mcast(dict(good, ttl=256)), 114)

        @case
        def multicast_group_not_a_string():
            bad_params(mcast(dict(good, group=[1, 2])), 114)

        @case
        def multicast_source_of_the_other_family():
            bad_params(mcast(dict(good, source="::1")), 114)

        @case
        def multicast_with_reverse_or_streams():
            bad_params(mcast(good, reverse=True), 114)
            bad_params(mcast(good, parallel=2), 114)
            p = mcast(good)
            body = json.loads(p[4:])
            body.pop("udp")
            body["tcp"] = True
            raw = json.dumps(body).encode()
            bad_params(struct.pack(">I", len(raw)) + raw, 114)

    return cases


def udp_header(seq, length):
    now = time.monotonic()
    hdr = struct.pack(">III", int(now) & 0xffffffff,
                      int((now % 1) * 1e6), seq & 0xffffffff)
    return hdr + b"\0" * (length - len(hdr))


def udp_accounting_case(port):
    """Crafted datagrams on a real UDP stream; check the server's figures."""
    params = dict(PARAMS, len=100, bandwidth=1000000, udp=True)
    del params["tcp"]
    s = handshake(port, params)
    assert recv_exact(s, 1) == b"\x0a", "no CREATE_STREAMS"
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(IO_TIMEOUT)
    u.connect(("127.0.0.1", port))
    u.send(b"9876")
    assert u.recv(16) == b"6789", "no UDP hello reply"
    assert recv_exact(s, 2) == b"\x01\x02", "no TEST_START/RUNNING"
    # seq 1,2,3, gap to 10 (4..9 lost = 6), 5 late (lost 5), 5 again
    # (duplicate: lost 4), a 5-byte datagram (bytes only), and a 200-byte
    # datagram with seq 11 (truncated to len, still parsed).
    for seq in (1, 2, 3, 10, 5, 5):
        u.send(udp_header(seq, 100))
        time.sleep(0.01)
    u.send(b"short")
    u.send(udp_header(11, 200))
    time.sleep(0.3)
    s.sendall(b"\x04")
    assert recv_exact(s, 1) == b"\x0d", "no EXCHANGE_RESULTS"
    send_doc(s, {"cpu_util_total": 1, "cpu_util_user": 0.5,
                  "cpu_util_system": 0.5, "sender_has_retransmits": 0,
                  "streams": [{"id": 1, "bytes": 805, "retransmits": -1,
                               "jitter": 0, "errors": 0, "omitted_errors": 0,
                               "packets": 11, "omitted_packets": 0,
                               "start_time": 0, "end_time": 1.0}]})
    n = struct.unpack(">I", recv_exact(s, 4))[0]
    res = json.loads(recv_exact(s, n))
    assert recv_exact(s, 1) == b"\x0e", "no DISPLAY_RESULTS"
    s.sendall(b"\x10")
    s.close()
    u.close()
    st = res["streams"][0]
    got = (st["packets"], st["errors"], st["bytes"])
    assert got == (11, 4, 6 * 100 + 5 + 100), f"packets/errors/bytes {got}"


def run_server_side(ours, stock):
    port = free_port()
    srv = subprocess.Popen([ours, "-s", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(port, srv, time.time() + 15):
            record("server starts", False)
            return
        fds_before = fd_count(srv.pid)
        for fn in server_cases(port):
            name = "server survives " + fn.__name__.replace("_", " ")
            try:
                fn()
                time.sleep(0.2)
                alive = srv.poll() is None
                record(name, alive, "" if alive else "server exited")
            except Exception as e:  # noqa: BLE001 - report and go on
                record(name, False, repr(e))
        time.sleep(0.5)
        if stock:
            r = subprocess.run([stock, "-c", "127.0.0.1", "-p", str(port),
                                "-t", "1"], capture_output=True, timeout=30)
            record("stock client test succeeds afterwards", r.returncode == 0,
                   r.stderr.decode(errors="replace").strip()[:200])
        else:
            print("SKIP: stock client test afterwards: stock iperf3 not "
                  "installed (apt-get install iperf3)")
        time.sleep(0.5)
        fds_after = fd_count(srv.pid)
        print(f"server open fds: before {fds_before}, after {fds_after}")
        record("server fd count back to its start",
               0 <= fds_after <= fds_before + 1,
               f"{fds_before} -> {fds_after}")
    finally:
        stop(srv)


# ---- client side ------------------------------------------------------------

def fake_server(behaviour):
    """Listen once; run behaviour(conn, listener) in a thread."""
    ls = listener(8, IO_TIMEOUT)

    def serve():
        try:
            conn, _ = ls.accept()
            conn.settimeout(IO_TIMEOUT)
            behaviour(conn, ls)
        except OSError:
            pass
        finally:
            ls.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return ls.getsockname()[1], t


def read_cookie_and_params(conn):
    recv_exact(conn, 37)
    conn.sendall(b"\x09")
    n = struct.unpack(">I", recv_exact(conn, 4))[0]
    recv_exact(conn, n)


def b_close(conn, ls):
    recv_exact(conn, 37)
    conn.close()


def b_junk_state(conn, ls):
    recv_exact(conn, 37)
    conn.sendall(b"\x55")
    time.sleep(1)
    conn.close()


def b_out_of_order(conn, ls):
    read_cookie_and_params(conn)
    conn.sendall(b"\x0d")  # EXCHANGE_RESULTS out of order
    time.sleep(1)
    conn.close()


def b_server_error_short(conn, ls):
    read_cookie_and_params(conn)
    conn.sendall(b"\xfe\x00\x00\x00\x25")  # 37, then close (short form)
    conn.close()


def b_busy(conn, ls):
    conn.sendall(b"\xff")
    conn.close()


def b_huge_results(conn, ls):
    read_cookie_and_params(conn)
    conn.sendall(b"\x0a")
    d, _ = ls.accept()
    recv_exact(d, 37)
    conn.sendall(b"\x01\x02")
    conn.settimeout(IO_TIMEOUT)
    while conn.recv(1) != b"\x04":
        pass
    conn.sendall(b"\x0d")
    n = struct.unpack(">I", recv_exact(conn, 4))[0]
    recv_exact(conn, n)
    conn.sendall(b"\xff\xff\xff\xff" + b"{" * 1000)
    time.sleep(2)
    d.close()
    conn.close()


def pival_server(doc):
    """A server that starts a -R test and then sends byte 103 (our
    server's interval figures, docs/protocol.md) followed by doc."""
    def behaviour(conn, ls):
        read_cookie_and_params(conn)
        conn.sendall(b"\x0a")
        d, _ = ls.accept()
        recv_exact(d, 37)
        conn.sendall(b"\x01\x02" + b"\x67" + doc)
        time.sleep(3)
        d.close()
        conn.close()
    return behaviour


PIVAL_PLOT = os.path.join("/tmp", f"hostile-pival-{os.getpid()}.svg")


def b_stall(conn, ls):
    recv_exact(conn, 37)
    time.sleep(8)
    conn.close()


CLIENT_CASES = [
    ("closes after the cookie", b_close, [],
     "control socket has closed unexpectedly"),
    ("unknown state byte", b_junk_state, [], "unknown control message"),
    ("out-of-order state", b_out_of_order, [], "unknown control message"),
    ("short SERVER_ERROR", b_server_error_short, [],
     "SERVER ERROR - client's requested duration exceeds"),
    ("ACCESS_DENIED", b_busy, [], "the server is busy running a test"),
    ("result document of 4 GiB", b_huge_results, ["-t", "1"],
     "unable to receive results"),
    ("stalled server", b_stall, ["-R", "--rcv-timeout", "1500"],
     "unable to receive control message"),
]
# configure's peerival: a client that asked for the figures (--plot) takes
# at most 64 KiB of JSON; one that did not ask takes no byte 103.
PIVAL_CASES = [
    ("interval figures over 64 KiB",
     pival_server(struct.pack(">I", 65537) + b"{" * 65537),
     ["-R", "--plot", PIVAL_PLOT], "unknown control message"),
    ("interval figures not JSON",
     pival_server(struct.pack(">I", 5) + b"nope!"),
     ["-R", "--plot", PIVAL_PLOT], "unknown control message"),
    ("interval figures not asked for",
     pival_server(struct.pack(">I", 8) + b'{"i":1}'),
     ["-R"], "unknown control message"),
]


def run_client_side(ours):
    cases = CLIENT_CASES
    if testlib.built_with(ours, "HAVE_PEERIVAL"):
        cases = cases + PIVAL_CASES
    for name, behaviour, extra, want in cases:
        port, t = fake_server(behaviour)
        t0 = time.time()
        try:
            r = subprocess.run([ours, "-c", "127.0.0.1", "-p", str(port),
                                "-t", "1"] + extra, capture_output=True,
                               timeout=30)
        except subprocess.TimeoutExpired:
            record(f"client vs {name}", False, "client hung")
            continue
        dt = time.time() - t0
        err = r.stderr.decode(errors="replace")
        ok = r.returncode == 1 and want in err and dt < 20
        record(f"client vs {name} exits 1 in {dt:.1f}s", ok,
               "" if ok else f"rc={r.returncode} stderr={err.strip()[:160]!r}")
        t.join(timeout=10)
    if os.path.exists(PIVAL_PLOT):
        os.remove(PIVAL_PLOT)


def main():
    global MULTICAST
    ours = sys.argv[1]
    stock = sys.argv[2] if len(sys.argv) > 2 else None
    MULTICAST = testlib.built_with(ours, "HAVE_MULTICAST")
    run_server_side(ours, stock)
    run_client_side(ours)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
