#!/usr/bin/env python3
"""Authentication with RSA tokens, end to end, on loopback.

Keys and the users file are made with the openssl command line in a
temporary directory.  Cases:
  * our client <-> our server (OAEP), password from the environment or
    from stdin;
  * our client with PKCS#1 v1.5 (IPERF3_USE_PKCS1_PADDING) -> stock 3.12
    server; stock 3.12 client -> our server with --use-pkcs1-padding;
  * refusals: wrong password, unknown user, wrong padding, users file gone,
    on both sides, with the client's message and the server's -d line;
  * a raw-protocol client sends tokens made by `openssl pkeyutl` (fresh,
    skewed by an hour, garbled base64, oversized, another key's, missing):
    the server answers CREATE_STREAMS or SERVER_ERROR 142 (errno 0);
  * missing or unusable key files: the OpenSSL line, then the parameter
    error;
  * the server keeps serving, and -1 does not count a refused client.

Usage: auth.py OURS [STOCK]   (exit 77 when openssl or auth support is
missing)
"""

import base64
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import testlib
from testlib import free_port, listener, send_doc, summary

TIMEOUT = 30
COOKIE = b"abcdefghijklmnopqrstuvwxyz234567abcd\0"
PARAMS = {"tcp": True, "omit": 0, "time": 1, "num": 0, "blockcount": 0,
          "parallel": 1, "len": 131072, "pacing_timer": 1000,
          "client_version": "3.21"}
REFUSED = b"\xfe\x00\x00\x00\x8e\x00\x00\x00\x00"
NO_FILE = "iperf3: error:80000002:system library::No such file or directory"
E_CLIENT = ("iperf3: parameter error - you must specify a username, "
            "password, and path to a valid RSA public key")
E_SERVER = ("iperf3: parameter error - you must specify a path to a valid "
            "RSA private key and a user credential file")


def record(name, ok, detail=""):
    """The detail is shown on a failure only."""
    testlib.record(name, ok, detail, detail_on_pass=False)


def openssl(*args, data=None):
    return subprocess.run(["openssl"] + list(args), input=data,
                          capture_output=True, check=True,
                          timeout=TIMEOUT).stdout


class Server:
    """A server process with its output in files, stopped by SIGTERM."""

    def __init__(self, tmp, argv):
        self.out_path = tempfile.mktemp(dir=tmp, suffix=".out")
        self.err_path = tempfile.mktemp(dir=tmp, suffix=".err")
        self.port = free_port()
        with open(self.out_path, "w") as o, open(self.err_path, "w") as e:
            self.proc = subprocess.Popen(argv + ["-p", str(self.port)],
                                         stdout=o, stderr=e,
                                         stdin=subprocess.DEVNULL)
        # If it does not come up, the cases that use it fail (and say so).
        testlib.wait_listening(self.port, self.proc, time.time() + 15)

    def run_client(self, *args, **kw):
        """client() against this server, then wait for it to listen
        again: a stock server opens a new listening socket after every
        test, refused ones included."""
        inode = testlib.listener_inode(self.port, self.proc.pid)
        r = client(*args, **kw)
        testlib.wait_relisten(self.port, self.proc, inode, time.time() + 10)
        return r

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        testlib.stop(self.proc, grace=10)
        with open(self.out_path) as o, open(self.err_path) as e:
            return o.read(), e.read()


def client(prog, port, user, pub, password=None, pkcs1=False, extra=(),
           stdin_text=None):
    env = dict(os.environ)
    env.pop("IPERF3_PASSWORD", None)
    env.pop("IPERF3_USE_PKCS1_PADDING", None)
    if password is not None:
        env["IPERF3_PASSWORD"] = password
    if pkcs1:
        env["IPERF3_USE_PKCS1_PADDING"] = "1"
    argv = [prog, "-c", "127.0.0.1", "-p", str(port), "-t", "1"]
    if user is not None:
        argv += ["--username", user]
    if pub is not None:
        argv += ["--rsa-public-key-path", pub]
    try:
        r = subprocess.run(argv + list(extra), env=env, capture_output=True,
                           timeout=TIMEOUT,
                           input=(stdin_text or "").encode())
    except subprocess.TimeoutExpired:
        return None
    return r


def ok_run(r):
    return r is not None and r.returncode == 0 and b"iperf Done." in r.stdout


def refused(r, *wants):
    if r is None or r.returncode != 1:
        return False
    err = r.stderr.decode(errors="replace")
    return all(w in err for w in wants)


def show(r):
    if r is None:
        return "timed out"
    return f"rc={r.returncode} err={r.stderr.decode(errors='replace')[:300]!r}"


# ---- raw protocol client ---------------------------------------------------

def raw_answer(port, token, key="authtoken"):
    """Send parameters with `token`; return the server's bytes until EOF
    (or just its first byte when that is CREATE_STREAMS)."""
    params = dict(PARAMS)
    if token is not None:
        params[key] = token
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    try:
        s.sendall(COOKIE)
        if s.recv(1) != b"\x09":
            return b"<no PARAM_EXCHANGE>"
        send_doc(s, params)
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk or data + chunk == b"\x0a":
                return data + chunk
            data += chunk
    except OSError as e:
        return f"<{e}>".encode()
    finally:
        s.close()


def token(pub, user, pwd, ts, padding="oaep"):
    text = f"user: {user}\npwd:  {pwd}\nts:   {ts}".encode()
    ct = openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", pub,
                 "-pkeyopt", f"rsa_padding_mode:{padding}", data=text)
    return base64.b64encode(ct).decode()


# ---- cases -------------------------------------------------------------------

class Env:
    def __init__(self, tmp, ours, stock):
        self.tmp, self.ours, self.stock = tmp, ours, stock
        self.priv = os.path.join(tmp, "private.pem")
        self.pub = os.path.join(tmp, "public.pem")
        self.priv2 = os.path.join(tmp, "other-private.pem")
        self.pub2 = os.path.join(tmp, "other-public.pem")
        self.users = os.path.join(tmp, "users.csv")
        for priv, pub in ((self.priv, self.pub), (self.priv2, self.pub2)):
            openssl("genrsa", "-out", priv, "2048")
            openssl("rsa", "-in", priv, "-pubout", "-out", pub)
        self.write_users([("mario", "rossi")])

    def write_users(self, pairs):
        lines = ["# authorized users", ""]
        for user, pwd in pairs:
            digest = openssl("dgst", "-sha256", "-r",
                             data=f"{{{user}}}{pwd}".encode())
            lines.append(f"{user},{digest.split()[0].decode()}")
        with open(self.users, "w") as f:
            f.write("\r\n".join(lines) + "\r\n")

    def server(self, prog, *extra):
        return Server(self.tmp, [prog, "-s", "-d", "--rsa-private-key-path",
                                 self.priv, "--authorized-users-path",
                                 self.users] + list(extra))


def ours_vs_ours(e):
    srv = e.server(e.ours)
    want_lines = []
    try:
        r = client(e.ours, srv.port, "mario", e.pub, "rossi")
        record("ours <-> ours, OAEP, password from IPERF3_PASSWORD",
               ok_run(r), show(r))
        want_lines.append("Authentication succeeded for user 'mario' ts ")
        r = client(e.ours, srv.port, "mario", e.pub, stdin_text="rossi\n")
        record("ours <-> ours, password read from stdin after 'Password: '",
               ok_run(r) and r.stdout.startswith(b"Password: "), show(r))
        bad = [("wrong password", "mario", "rossi2", False, 3),
               ("unknown user", "luigi", "rossi", False, 3),
               ("PKCS#1 token to an OAEP server", "mario", "rossi", True, 1)]
        for name, user, pwd, pkcs1, code in bad:
            r = client(e.ours, srv.port, user, e.pub, pwd, pkcs1=pkcs1)
            record(f"ours <-> ours refuses: {name}",
                   refused(r, "iperf3: SERVER ERROR - test authorization failed",
                           "iperf3: error - test authorization failed"),
                   show(r))
            shown = user if code == 3 else ""
            want_lines.append("Authentication failed with return code "
                              f"{code} for user '{shown}' ts ")
            record(f"server still up after: {name}", srv.alive())
        users_file_reread(e, srv, want_lines)
        r = client(e.ours, srv.port, "mario", e.pub, "rossi")
        record("ours <-> ours, a good test after the refusals", ok_run(r),
               show(r))
    finally:
        out, err = srv.stop()
    pos = 0
    for w in want_lines:
        i = out.find(w, pos)
        record(f"server -d line: {w}...", i >= 0)
        pos = i + 1 if i >= 0 else pos
    record("server stderr: 'iperf3: error - test authorization failed'",
           "iperf3: error - test authorization failed" in err, err[:200])


def users_file_reread(e, srv, want_lines):
    """The users file is read again for every test."""
    os.rename(e.users, e.users + ".away")
    r = client(e.ours, srv.port, "mario", e.pub, "rossi")
    os.rename(e.users + ".away", e.users)
    record("refused while the users file is gone",
           refused(r, "test authorization failed"), show(r))
    want_lines.append("Authentication failed with return code 4 for user "
                      "'mario' ts ")
    e.write_users([("mario", "rossi"), ("luigi", "verdi")])
    r = client(e.ours, srv.port, "luigi", e.pub, "verdi")
    record("a user added to the file while serving is accepted",
           ok_run(r), show(r))
    want_lines.append("Authentication succeeded for user 'luigi' ts ")
    e.write_users([("mario", "rossi")])


def raw_tokens(e):
    srv = e.server(e.ours)
    now = int(time.time())
    try:
        cases = [
            ("fresh openssl-made OAEP token",
             token(e.pub, "mario", "rossi", now), b"\x0a"),
            ("token an hour old", token(e.pub, "mario", "rossi", now - 3600),
             REFUSED),
            ("token an hour ahead",
             token(e.pub, "mario", "rossi", now + 3600), REFUSED),
            ("token of another key", token(e.pub2, "mario", "rossi", now),
             REFUSED),
            ("PKCS#1 token", token(e.pub, "mario", "rossi", now, "pkcs1"),
             REFUSED),
            ("garbled base64", "!!!not*base64???", REFUSED),
            ("base64 of the wrong length", "QUFBQQ==", REFUSED),
            ("base64 with a line break",
             token(e.pub, "mario", "rossi", now)[:100] + "\n"
             + token(e.pub, "mario", "rossi", now)[100:], REFUSED),
            ("oversized base64 (4000 chars)", "A" * 4000, REFUSED),
            ("oversized base64 (6000 chars)", "B" * 6000, REFUSED),
            ("garbage plaintext",
             base64.b64encode(openssl(
                 "pkeyutl", "-encrypt", "-pubin", "-inkey", e.pub,
                 "-pkeyopt", "rsa_padding_mode:oaep",
                 data=b"user: mario\npwd:  rossi\nts:   1x")).decode(),
             REFUSED),
            ("no token", None, REFUSED),
        ]
        for name, tok, want in cases:
            got = raw_answer(srv.port, tok)
            record(f"raw client, {name}: server answers {want.hex()}",
                   got == want, f"got {got[:20].hex()}")
            time.sleep(0.1)
            record(f"server still up after: {name}", srv.alive())
        got = raw_answer(srv.port, 12345)
        record("raw client, authtoken as a number: refused", got == REFUSED,
               got[:20].hex())
    finally:
        srv.stop()
    srv = e.server(e.ours, "--time-skew-threshold", "7200")
    try:
        got = raw_answer(srv.port, token(e.pub, "mario", "rossi",
                                         int(time.time()) - 3600))
        record("--time-skew-threshold 7200 accepts an hour-old token",
               got == b"\x0a", got[:20].hex())
    finally:
        srv.stop()


def one_off(e):
    srv = e.server(e.ours, "-1")
    try:
        r = client(e.ours, srv.port, "mario", e.pub, "wrong")
        time.sleep(0.5)
        record("-1: a refused client is not the one test",
               refused(r, "test authorization failed") and srv.alive(),
               show(r))
        r = client(e.ours, srv.port, "mario", e.pub, "rossi")
        record("-1: the next good client runs", ok_run(r), show(r))
        try:
            rc = srv.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            rc = None
        record("-1: then the server exits 0", rc == 0, f"rc={rc}")
    finally:
        srv.stop()


def key_files(e):
    missing = os.path.join(e.tmp, "missing.pem")
    r = client(e.ours, 9, "mario", missing, "rossi")
    lines = r.stderr.decode().split("\n") if r else []
    record("client, missing public key: OpenSSL line, empty line, error",
           r is not None and r.returncode == 1 and lines[:3] ==
           [NO_FILE, "", E_CLIENT], show(r))
    r = client(e.ours, 9, "mario", e.priv, "rossi")
    lines = r.stderr.decode().split("\n") if r else []
    record("client, a private key as public key: refused",
           r is not None and r.returncode == 1 and
           lines[0].startswith("iperf3: error:") and lines[2] == E_CLIENT,
           show(r))
    r = client(e.ours, 9, "mario", None, "rossi")
    record("client, --username alone: refused", refused(r, E_CLIENT), show(r))
    r = client(e.ours, 9, "mario", e.pub, None)
    record("client, no password on stdin: refused", refused(r, E_CLIENT),
           show(r))
    r = client(e.ours, 9, "mario", e.pub, "two words")
    record("client, a password with a space: refused", refused(r, E_CLIENT),
           show(r))
    for name, priv, users, want in (
            ("missing private key", missing, e.users, [NO_FILE, "", E_SERVER]),
            ("public key as private key", e.pub, e.users, None),
            ("missing users file", e.priv, missing,
             ["iperf3: parameter error - cannot access authorized users "
              "file"])):
        try:
            r = subprocess.run([e.ours, "-s", "-p", str(free_port()),
                                "--rsa-private-key-path", priv,
                                "--authorized-users-path", users],
                               capture_output=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            r = None
        lines = r.stderr.decode().split("\n") if r else []
        if want is None:
            good = r is not None and len(lines) > 2 and \
                lines[0].startswith("iperf3: error:") and lines[2] == E_SERVER
        else:
            good = r is not None and lines[:len(want)] == want
        record(f"server, {name}: refused at start", good and r.returncode == 1,
               show(r))


def split_refusal(ours):
    """A 3.12-style refusal: FE, then the code in its own segment, close."""
    ls = listener(1, TIMEOUT)
    port = ls.getsockname()[1]

    def serve():
        try:
            c, _ = ls.accept()
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            c.settimeout(TIMEOUT)
            c.recv(37)
            c.sendall(b"\x09")
            n = struct.unpack(">I", c.recv(4))[0]
            while n > 0:
                n -= len(c.recv(n))
            c.sendall(b"\xfe")
            time.sleep(0.3)
            c.sendall(b"\x00\x00\x00\x8e")
            time.sleep(0.1)
            c.close()
        except OSError:
            pass
        finally:
            ls.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    r = subprocess.run([ours, "-c", "127.0.0.1", "-p", str(port), "-t", "1"],
                       capture_output=True, timeout=TIMEOUT)
    t.join(timeout=10)
    record("client reads a short SERVER_ERROR 142 sent in two segments",
           refused(r, "iperf3: SERVER ERROR - test authorization failed"),
           show(r))


def with_stock(e):
    if not e.stock:
        print("SKIP: stock 3.12 interop cases: stock iperf3 not installed "
              "(apt-get install iperf3)")
        return
    srv = e.server(e.stock)
    try:
        r = srv.run_client(e.ours, srv.port, "mario", e.pub, "rossi",
                           pkcs1=True)
        record("ours (PKCS#1) -> stock 3.12 server", ok_run(r), show(r))
        for name, pwd, pkcs1 in (("wrong password", "nope", True),
                                 ("OAEP token", "rossi", False)):
            r = srv.run_client(e.ours, srv.port, "mario", e.pub, pwd,
                               pkcs1=pkcs1)
            record(f"ours -> stock 3.12 server refuses: {name}",
                   refused(r, "test authorization failed"), show(r))
        r = srv.run_client(e.ours, srv.port, "mario", e.pub, "rossi",
                           pkcs1=True)
        record("ours (PKCS#1) -> stock 3.12 server, again", ok_run(r), show(r))
    finally:
        srv.stop()
    for extra, pwd, good, name in (
            (["--use-pkcs1-padding"], "rossi", True,
             "stock 3.12 client -> ours --use-pkcs1-padding"),
            (["--use-pkcs1-padding"], "nope", False,
             "stock 3.12 client, wrong password -> ours"),
            ([], "rossi", False, "stock 3.12 client -> ours without "
             "--use-pkcs1-padding")):
        srv = e.server(e.ours, *extra)
        try:
            r = client(e.stock, srv.port, "mario", e.pub, pwd)
            ok = ok_run(r) if good else \
                refused(r, "iperf3: error - test authorization failed")
            record(name + (" succeeds" if good else " is refused"), ok,
                   show(r))
            # A client that can authenticate to this server.
            if extra:
                r = client(e.stock, srv.port, "mario", e.pub, "rossi",
                           extra=["-R"])
            else:
                r = client(e.ours, srv.port, "mario", e.pub, "rossi",
                           extra=["-R"])
            record(f"server still serves after: {name}", ok_run(r), show(r))
        finally:
            srv.stop()


def main():
    ours = sys.argv[1]
    stock = sys.argv[2] if len(sys.argv) > 2 else None
    if shutil.which("openssl") is None:
        print("SKIP: the openssl command line tool is not installed")
        return 77
    v = subprocess.run([ours, "-v"], capture_output=True, timeout=TIMEOUT)
    if not re.search(rb"Optional features available:.*authentication",
                     v.stdout):
        print(f"SKIP: {ours} is built without authentication (OpenSSL)")
        return 77
    with tempfile.TemporaryDirectory(prefix="auth_test.") as tmp:
        e = Env(tmp, ours, stock)
        ours_vs_ours(e)
        raw_tokens(e)
        one_off(e)
        key_files(e)
        split_refusal(ours)
        with_stock(e)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
