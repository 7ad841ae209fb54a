#!/usr/bin/env python3
"""libiperf through Python ctypes, the way iperf3-python drives it.

Loads OUR libiperf.so.0, builds a client test with iperf_new_test /
iperf_defaults and the setters, runs it against our server and against
the stock `iperf3 -s`, reads the JSON document with
iperf_get_test_json_output_string and the error with
c_int.in_dll(lib, "i_errno").  Then a refused connection: i_errno is
IECONNECT (103) and iperf_strerror() says why.  The data object `version`
is read as the binding reads it, (c_char * 30).in_dll(lib, "version"):
without that export the binding fails on every client run.

Usage: api_ctypes.py LIBIPERF_SO OUR_IPERF3 [STOCK_IPERF3]
Loopback only; every server process is bounded and killed on the way out.
"""

import ctypes
import json
import os
import socket
import subprocess
import sys
import time

import testlib
from testlib import count, free_port, stop, summary

IECONNECT = 103
VERSION_TEXT = "iperf 3.21"     # what the stock 3.21 library has there


def check(ok, what):
    count(ok)
    print(("ok: " if ok else "FAILED: ") + what, flush=True)


def wait_listening(port, proc, limit=15.0):
    """Wait until the server listens (no connection is made, so a -1
    server keeps its one test)."""
    return testlib.wait_listening(port, proc, time.time() + limit)


class Lib:
    """The subset of iperf3-python's bindings that a client run needs."""

    def __init__(self, path):
        lib = ctypes.cdll.LoadLibrary(path)
        lib.iperf_new_test.restype = ctypes.c_void_p
        lib.iperf_defaults.argtypes = [ctypes.c_void_p]
        lib.iperf_free_test.argtypes = [ctypes.c_void_p]
        lib.iperf_set_test_role.argtypes = [ctypes.c_void_p, ctypes.c_char]
        lib.iperf_get_test_role.argtypes = [ctypes.c_void_p]
        lib.iperf_get_test_role.restype = ctypes.c_char
        lib.iperf_set_test_server_hostname.argtypes = [ctypes.c_void_p,
                                                       ctypes.c_char_p]
        lib.iperf_set_test_server_port.argtypes = [ctypes.c_void_p,
                                                   ctypes.c_int]
        lib.iperf_get_test_server_port.argtypes = [ctypes.c_void_p]
        lib.iperf_set_test_duration.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.iperf_get_test_duration.argtypes = [ctypes.c_void_p]
        lib.iperf_set_test_json_output.argtypes = [ctypes.c_void_p,
                                                   ctypes.c_int]
        lib.iperf_set_test_num_streams.argtypes = [ctypes.c_void_p,
                                                   ctypes.c_int]
        lib.iperf_set_test_blksize.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.iperf_set_test_reverse.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.iperf_set_test_rate.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
        lib.set_protocol.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.iperf_get_test_protocol_id.argtypes = [ctypes.c_void_p]
        lib.iperf_run_client.argtypes = [ctypes.c_void_p]
        lib.iperf_get_test_json_output_string.argtypes = [ctypes.c_void_p]
        lib.iperf_get_test_json_output_string.restype = ctypes.c_char_p
        lib.iperf_strerror.argtypes = [ctypes.c_int]
        lib.iperf_strerror.restype = ctypes.c_char_p
        lib.iperf_get_iperf_version.restype = ctypes.c_char_p
        lib.iperf_get_test_errno.argtypes = [ctypes.c_void_p]
        self.lib = lib

    @property
    def version(self):
        """iperf3-python's IPerf3.iperf_version, to the letter: 30 bytes
        read from the exported array, up to its NUL.  None when the
        library does not export `version` (ctypes raises ValueError)."""
        try:
            vtype = ctypes.c_char * 30
            return vtype.in_dll(self.lib, "version").value.decode("utf-8")
        except ValueError:
            return None

    @property
    def i_errno(self):
        return ctypes.c_int.in_dll(self.lib, "i_errno").value

    def client(self, port, duration=1, udp=False, reverse=False, streams=1):
        lib = self.lib
        t = lib.iperf_new_test()
        assert t, "iperf_new_test"
        lib.iperf_defaults(t)
        lib.iperf_set_test_role(t, b"c")
        lib.iperf_set_test_server_hostname(t, b"127.0.0.1")
        lib.iperf_set_test_server_port(t, port)
        lib.iperf_set_test_duration(t, duration)
        lib.iperf_set_test_num_streams(t, streams)
        if udp:
            lib.set_protocol(t, socket.SOCK_DGRAM)
            lib.iperf_set_test_rate(t, 10 * 1000 * 1000)
        if reverse:
            lib.iperf_set_test_reverse(t, 1)
        lib.iperf_set_test_json_output(t, 1)
        # Like iperf3-python: keep stdout out of the way of the JSON that
        # the library also prints.
        sys.stdout.flush()
        saved = os.dup(1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        try:
            rc = lib.iperf_run_client(t)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(devnull)
        raw = lib.iperf_get_test_json_output_string(t)
        err = self.i_errno
        per_test = lib.iperf_get_test_errno(t)
        lib.iperf_free_test(t)
        doc = json.loads(raw.decode()) if raw else None
        return rc, err, per_test, doc


def received_bytes(doc):
    end = doc.get("end", {})
    for key in ("sum_received", "sum"):
        if key in end:
            return end[key].get("bytes", 0)
    return 0


def against(lib, name, argv):
    for udp, reverse in ((False, False), (False, True), (True, False)):
        port = free_port()
        proc = subprocess.Popen(argv + ["-s", "-1", "-p", str(port)],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            if not wait_listening(port, proc):
                check(False, "%s server listening on %d" % (name, port))
                continue
            rc, err, per_test, doc = lib.client(port, udp=udp,
                                                reverse=reverse)
            what = "%s server, %s%s" % (name, "UDP" if udp else "TCP",
                                        " -R" if reverse else "")
            check(rc == 0 and err == 0 and per_test == 0,
                  what + ": rc 0, i_errno 0 (rc=%d i_errno=%d)" % (rc, err))
            check(doc is not None and "error" not in doc,
                  what + ": JSON document without error")
            if doc:
                check(received_bytes(doc) > 0, what + ": bytes received > 0")
                check(doc["start"].get("version") == lib.version,
                      what + ": JSON start.version is the version object")
                check(doc["start"]["test_start"]["protocol"] ==
                      ("UDP" if udp else "TCP"), what + ": protocol")
                check(doc["start"]["test_start"]["reverse"] == int(reverse),
                      what + ": reverse flag")
            proc.wait(timeout=20)
        finally:
            stop(proc)


def auth_case(lib, ours):
    """Credentials set through the API (the key as base64 of its PEM
    text) against our server with a key and a users file."""
    import base64
    import hashlib
    import shutil
    import tempfile
    if not shutil.which("openssl"):
        print("SKIP: authentication through the API: the openssl command "
              "line tool is not installed (apt-get install openssl)")
        return
    v = subprocess.run([ours, "-v"], capture_output=True, text=True).stdout
    if "authentication" not in v:
        print("SKIP: authentication through the API: built without "
              "OpenSSL")
        return
    d = tempfile.mkdtemp()
    try:
        key, pub = os.path.join(d, "k.pem"), os.path.join(d, "p.pem")
        users = os.path.join(d, "users.csv")
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt",
                        "rsa_keygen_bits:2048", "-out", key], check=True,
                       capture_output=True)
        subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-out",
                        pub], check=True, capture_output=True)
        with open(users, "w") as f:
            f.write("alice,%s\n" % hashlib.sha256(b"{alice}s3cret").hexdigest())
        with open(pub, "rb") as f:
            pub_b64 = base64.b64encode(f.read())
        l = lib.lib
        for name in ("iperf_set_test_client_username",
                     "iperf_set_test_client_password",
                     "iperf_set_test_client_rsa_pubkey"):
            getattr(l, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        for pwd, want in ((b"s3cret", 0), (b"wrong", 142)):
            port = free_port()
            proc = subprocess.Popen([ours, "-s", "-p", str(port),
                                     "--rsa-private-key-path", key,
                                     "--authorized-users-path", users],
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            try:
                if not wait_listening(port, proc):
                    check(False, "auth server listening")
                    continue
                t = l.iperf_new_test()
                l.iperf_defaults(t)
                l.iperf_set_test_role(t, b"c")
                l.iperf_set_test_server_hostname(t, b"127.0.0.1")
                l.iperf_set_test_server_port(t, port)
                l.iperf_set_test_duration(t, 1)
                l.iperf_set_test_json_output(t, 1)
                l.iperf_set_test_client_username(t, b"alice")
                l.iperf_set_test_client_password(t, pwd)
                l.iperf_set_test_client_rsa_pubkey(t, pub_b64)
                sys.stdout.flush()
                saved = os.dup(1)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                try:
                    rc = l.iperf_run_client(t)
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
                    os.close(devnull)
                err = l.iperf_get_test_errno(t)
                l.iperf_free_test(t)
                check(err == want and (rc == 0) == (want == 0),
                      "auth through the API, password %s: rc %d errno %d"
                      % (pwd.decode(), rc, err))
            finally:
                stop(proc)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    so, ours = sys.argv[1], sys.argv[2]
    stock = sys.argv[3] if len(sys.argv) > 3 else ""
    lib = Lib(so)
    check(lib.lib.iperf_get_iperf_version() == b"3.21", "version 3.21")
    check(lib.version == VERSION_TEXT,
          'data object version read as iperf3-python does: %r == %r'
          % (lib.version, VERSION_TEXT))
    if lib.version is not None:
        # The whole object: the text, its NUL, nothing after it (11 bytes,
        # the stock size; tests/scripts/abi.test checks the symbol's size).
        raw = (ctypes.c_char * 11).in_dll(lib.lib, "version").raw
        check(raw == VERSION_TEXT.encode() + b"\0",
              "version object holds the text and its NUL: %r" % raw)
    check(lib.i_errno == 0, "i_errno starts at 0")

    against(lib, "our", [ours])
    if stock:
        against(lib, "stock", [stock])
    else:
        print("SKIP: the stock iperf3 server cases: stock iperf3 not "
              "installed (apt-get install iperf3)")

    auth_case(lib, ours)

    # A refused connection.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))          # bound, not listening: refused
    port = s.getsockname()[1]
    rc, err, per_test, doc = lib.client(port)
    s.close()
    check(rc == -1, "refused: rc -1")
    check(err == IECONNECT, "refused: i_errno %d == IECONNECT" % err)
    check(per_test == IECONNECT, "refused: per-test errno IECONNECT")
    text = lib.lib.iperf_strerror(err).decode()
    check(text.startswith("unable to connect to server - server may have "
                          "stopped running or use a different port"),
          "refused: strerror text: " + text)
    check(doc is not None and "unable to connect to server" in
          doc.get("error", ""), "refused: JSON has the error")
    check(doc is not None and doc["start"]["connected"] == [],
          "refused: JSON start.connected is empty")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
