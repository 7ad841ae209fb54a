#!/usr/bin/env python3
"""What our iperf3 puts on the wire, checked byte by byte by a fake peer.

A small fake server (python) speaks the control protocol to our client
and a fake client speaks it to our server, and they check:
  * the cookie (36 characters of [a-z2-7] + NUL, the same on every data
    connection) and the exact parameter document for given options;
  * --repeating-payload: TCP payload is "0123456789" repeated from offset
    0; UDP datagrams carry big-endian sec/usec/seq (seq from 1, 32- or
    64-bit) and the same pattern from the header's end;
  * the UDP hello is "9876" and our server answers "6789";
  * our server in reverse mode sends the repeating pattern when asked.

Usage: wire.py OURS
"""

import re
import socket
import struct
import subprocess
import sys
import threading
import time

from testlib import (free_port, listener, record, recv_exact, send_doc, stop,
                     summary, wait_exit, wait_listening)

TIMEOUT = 10


def pattern(offset, n):
    digits = b"0123456789"
    return bytes(digits[(offset + i) % 10] for i in range(n))


class FakeServer:
    """Accepts our client, records what it sends, then ends the test with
    a SERVER_ERROR so the client stops."""

    def __init__(self, udp=False):
        self.ls = listener(4, TIMEOUT)
        self.port = self.ls.getsockname()[1]
        self.udp = udp
        self.cookie = self.data_cookie = self.params = None
        self.payload = b""
        self.hello = None
        self.error = None
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        try:
            c, _ = self.ls.accept()
            c.settimeout(TIMEOUT)
            self.cookie = recv_exact(c, 37)
            c.sendall(b"\x09")
            n = struct.unpack(">I", recv_exact(c, 4))[0]
            self.params = recv_exact(c, n)
            if self.udp:
                self.run_udp(c)
            else:
                self.run_tcp(c)
            c.sendall(b"\xfe\x00\x00\x00\x0e\x00\x00\x00\x00")
            time.sleep(0.5)
            c.close()
        except Exception as e:  # noqa: BLE001 - reported by the checks
            self.error = repr(e)
        finally:
            self.ls.close()

    def run_tcp(self, c):
        c.sendall(b"\x0a")
        d, _ = self.ls.accept()
        d.settimeout(TIMEOUT)
        self.data_cookie = recv_exact(d, 37)
        c.sendall(b"\x01\x02")
        self.payload = recv_exact(d, 4000)
        d.close()

    def run_udp(self, c):
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(("127.0.0.1", self.port))
        u.settimeout(TIMEOUT)
        c.sendall(b"\x0a")
        self.hello, peer = u.recvfrom(64)
        u.connect(peer)
        u.send(b"6789")
        c.sendall(b"\x01\x02")
        self.datagrams = [u.recv(70000) for _ in range(3)]
        u.close()


def run_client(ours, port, args):
    return subprocess.run([ours, "-c", "127.0.0.1", "-p", str(port)] + args,
                          capture_output=True, timeout=30)


def client_cases(ours):
    fs = FakeServer()
    run_client(ours, fs.port, ["-t", "2", "-b", "4M", "--repeating-payload"])
    fs.t.join(TIMEOUT)
    ok = fs.cookie is not None and re.fullmatch(rb"[a-z2-7]{36}\0",
                                                 fs.cookie) is not None
    record("control cookie is 36 chars of [a-z2-7] and a NUL", ok,
           repr(fs.cookie))
    record("data connection repeats the same cookie",
           fs.data_cookie == fs.cookie, repr(fs.data_cookie))
    want = (b'{"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,'
            b'"parallel":1,"len":131072,"bandwidth":4000000,'
            b'"pacing_timer":1000,"repeating_payload":1,'
            b'"client_version":"3.21"}')
    # Our client asks any server for "clamp" (ext.h): the one key it
    # adds, last; the rest is the stock document, byte for byte.
    ext = re.compile(rb',"iperf3_compat":\{"version":"[^"]*",'
                     rb'"want":\["clamp"\]\}\}$')
    record("parameter document for -t 2 -b 4M --repeating-payload",
           fs.params is not None and ext.search(fs.params) is not None and
           ext.sub(b"}", fs.params) == want, repr(fs.params))
    nc = FakeServer()
    run_client(ours, nc.port, ["-t", "2", "-b", "4M", "--repeating-payload",
                               "--no-clamp"])
    nc.t.join(TIMEOUT)
    record("... with --no-clamp: the stock document", nc.params == want,
           repr(nc.params))
    record("TCP --repeating-payload sends 0123456789 from offset 0",
           len(fs.payload) == 4000 and fs.payload == pattern(0, 4000),
           repr(fs.payload[:24]))

    for bits, hdr in ((32, 12), (64, 16)):
        fs = FakeServer(udp=True)
        extra = ["--udp-counters-64bit"] if bits == 64 else []
        run_client(ours, fs.port, ["-u", "-t", "1", "-l", "200", "-b", "1M",
                                   "--repeating-payload"] + extra)
        fs.t.join(TIMEOUT)
        record(f"UDP hello is 9876 ({bits}-bit counters)", fs.hello == b"9876",
               repr(fs.hello))
        dg = getattr(fs, "datagrams", [])
        ok = len(dg) == 3 and all(len(d) == 200 for d in dg)
        seqs, stamps = [], []
        for d in dg:
            sec, usec = struct.unpack(">II", d[:8])
            seq = struct.unpack(">Q" if bits == 64 else ">I", d[8:hdr])[0]
            seqs.append(seq)
            stamps.append(sec * 1000000 + usec)
            ok = ok and usec < 1000000 and d[hdr:] == pattern(hdr, 200 - hdr)
        record(f"UDP {bits}-bit header: big-endian, seq 1,2,3, pattern "
               f"from offset {hdr}",
               ok and seqs == [1, 2, 3] and stamps == sorted(stamps),
               f"seqs={seqs} err={fs.error}")


def server_reverse_case(ours):
    port = free_port()
    srv = subprocess.Popen([ours, "-s", "-1", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(port, srv, time.time() + 15):
            record("our server -R sends the repeating pattern when asked",
                   False, "our server did not listen")
            return
        c = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        cookie = b"b" * 36 + b"\0"
        c.sendall(cookie)
        assert recv_exact(c, 1) == b"\x09"
        send_doc(c, {"tcp": True, "omit": 0, "time": 1, "num": 0,
                     "blockcount": 0, "parallel": 1, "reverse": True,
                     "len": 1000, "repeating_payload": 1,
                     "client_version": "3.12"})
        ok = recv_exact(c, 1) == b"\x0a"
        d = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        d.sendall(cookie)
        ok = ok and recv_exact(c, 2) == b"\x01\x02"
        data = recv_exact(d, 5000)
        record("our server -R sends the repeating pattern when asked",
               ok and data == pattern(0, 5000), repr(data[:24]))
        c.sendall(b"\x0c")  # CLIENT_TERMINATE
        d.close()
        c.close()
    finally:
        wait_exit(srv, 10)  # the -1 server ends after its test
        stop(srv)


def main():
    ours = sys.argv[1]
    client_cases(ours)
    server_reverse_case(ours)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
