#!/usr/bin/env python3
"""A socket option one end's host refuses: the test ends at once, with
iperf3 3.21's error, in every pairing of ours, 3.21 and 3.12.

The server applies the client's -w, -M, -C, -S and --fq-rate to its data
sockets, and the client applies them to its own.  When one host refuses
one of them (a -w above net.core.wmem_max/rmem_max, a congestion
algorithm an unprivileged server may not use, ...), 3.21 ends the test
before any data and the other end prints why.  Our programs once hung:
`-w 512M` between two of ours waited 120 s for a control message
(the server dropped the refused data connection and went on waiting), a
UDP client waited 30 s for the reply of a server that had already sent
SERVER_ERROR.

One machine has one set of limits, so the refusing end runs with
tests/scripts/sockshim.c preloaded (LD_PRELOAD): in that process alone,
buffer requests above a cap are cut to the cap, or named options fail
with a given errno.  The same shim runs under ours and under the stock
programs, so 3.21 is the reference for what the other end sees:

  server refuses   ours as server, against our, 3.21 and 3.12 clients:
                   the client's exit status and error lines are the
                   ones the same client gets from a 3.21 server with the
                   same limits (or, where a 3.21 server leaves its UDP
                   client waiting 30 s, the SERVER ERROR the 3.21 TCP
                   case shows), within SECS
  client refuses   our client against our, 3.21 and 3.12 servers: exit
                   status and error lines equal a 3.21 client's
  without a shim   `-w 512M` (above this host's limits) in every pairing,
                   TCP and UDP, both directions; -C with an algorithm the
                   kernel has but does not allow to users, against a
                   server run as nobody (EPERM); --bind-dev naming no
                   device, on a client and on a server

Usage: sockfail.py OURS SHIM   (SHIM: the built libsockshim.so)
"""

import os
import subprocess
import sys
import time

from testlib import (free_port, record, skip, stock_peers, stop, summary,
                     wait_listening)

SECS = 5.0      # "at once": a failure ends the client within this
WAIT = 40       # bound on any one client run (3.21 waits 30 s in places)
BUF = "SOCKSHIM_BUF_MAX=1048576"    # -w 4M is then refused (2M < 4M)

OURS = None
SHIM = None
PEERS = {}      # "3.21"/"3.12" -> path


def env_with(spec):
    """The environment for a program under the shim: SPEC is
    "NAME=VALUE[ NAME=VALUE...]" of SOCKSHIM_* settings, or None (no
    shim at all)."""
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("SOCKSHIM_")]:
        del env[k]
    if spec is None:
        return env
    env["LD_PRELOAD"] = SHIM
    for item in spec.split():
        k, v = item.split("=", 1)
        env[k] = v
    return env


def lines_of(text):
    """The lines that say what went wrong (errors, warnings), in order."""
    return [ln.strip() for ln in text.splitlines()
            if ln.startswith("iperf3: ") or ln.startswith("warning: ")]


def pair(server, senv, client, cenv, cargs, sargs=(), prefix=()):
    """One test: `server` (under senv) and `client` (under cenv).
    Returns a dict: rc (None if it did not end within WAIT), lines (the
    client's error and warning lines), secs, slines (the server's)."""
    port = free_port()
    srv = subprocess.Popen([*prefix, server, "-s", "-1", "-p", str(port),
                            *sargs], env=env_with(senv),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    try:
        if not wait_listening(port, srv, time.time() + 10):
            stop(srv)
            return {"rc": "no server", "lines": [], "secs": 0,
                    "slines": lines_of(srv.communicate()[0])}
        t0 = time.time()
        try:
            r = subprocess.run([client, "-c", "127.0.0.1", "-p", str(port),
                                "-t", "1", *cargs], env=env_with(cenv),
                               capture_output=True, text=True, timeout=WAIT)
            rc, out = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            rc, out = None, (e.stdout or b"").decode(errors="replace")
        secs = time.time() - t0
        try:
            # A client that failed may never have reached the server,
            # which then waits on: its last words come at once or never.
            sout = srv.communicate(timeout=5 if rc == 0 else 1)[0]
        except subprocess.TimeoutExpired:
            stop(srv)
            sout = srv.communicate()[0]
    finally:
        stop(srv)
    return {"rc": rc, "lines": lines_of(out), "secs": secs,
            "slines": lines_of(sout)}


def show(res):
    return (f"exit {res['rc']}, {res['secs']:.1f} s, "
            f"{' | '.join(res['lines']) or 'no error lines'}")


def clients():
    """Our client and the stock ones present: [(label, path)]."""
    return [("ours", OURS)] + [(v, p) for v, p in sorted(PEERS.items())]


def server_err(msg, errno_text=None):
    """What a 3.21 (or our) client prints when the server fails with
    msg; a 3.12 client prints only the second line."""
    relay = f"iperf3: SERVER ERROR - {msg}" + \
        (f", errno: {errno_text}" if errno_text else "")
    return {"new": [relay, f"iperf3: error - {msg}"],
            "3.12": [f"iperf3: error - {msg}"]}


def expect_for(expected, label):
    return expected["3.12" if label == "3.12" else "new"]


# ---- the server's host refuses -------------------------------------------

BUFMSG = "socket buffer size not set correctly"
SERVER_CASES = [
    # (name, shim of the server, client args, server args, expected
    #  client lines by client kind (None: compare with 3.21 only), rc,
    #  does a 3.21 server answer it at once?)
    ("-w over the server's limit", BUF, ["-w", "4M"], [],
     server_err(BUFMSG), 1, True),
    ("-w over the server's limit, -R", BUF, ["-w", "4M", "-R"], [],
     server_err(BUFMSG), 1, True),
    ("-w over the server's receive limit only",
     "SOCKSHIM_RCVBUF_MAX=1048576", ["-w", "4M"], [],
     server_err(BUFMSG), 1, True),
    # A 3.21 server refuses it at the UDP stream's first datagram, and
    # its client waits 30 s ("unable to read from stream socket"); ours
    # refuses before any stream, so every client hears it at once.
    ("UDP -w over the server's limit", BUF,
     ["-u", "-b", "10M", "-w", "4M"], [], server_err(BUFMSG), 1, False),
    ("UDP -w over the server's limit, -R", BUF,
     ["-u", "-b", "10M", "-w", "4M", "-R"], [], server_err(BUFMSG), 1,
     False),
    ("UDP -w over the server's limit, --bidir", BUF,
     ["-u", "-b", "10M", "-w", "4M", "--bidir"], [], server_err(BUFMSG), 1,
     False),
    ("-M refused by the server", "SOCKSHIM_FAIL=TCP_MAXSEG:22",
     ["-M", "1000"], [],
     server_err("unable to set TCP/SCTP MSS: Invalid argument",
                "Invalid argument"), 1, True),
    ("-S refused by the server (IPv6 socket)", "SOCKSHIM_FAIL=IPV6_TCLASS:22",
     ["-S", "16"], [],
     server_err("unable to set IPv6 traffic class: Invalid argument",
                "Invalid argument"), 1, True),
    ("UDP -S refused by the server", "SOCKSHIM_FAIL=IPV6_TCLASS:22",
     ["-u", "-b", "1M", "-S", "16"], [],
     server_err("unable to set IPv6 traffic class: Invalid argument",
                "Invalid argument"), 1, True),
    ("-S refused by an IPv4 server", "SOCKSHIM_FAIL=IP_TOS:22",
     ["-S", "16"], ["-4"],
     server_err("unable to set IP TOS: Invalid argument",
                "Invalid argument"), 1, True),
    # EPERM (not in tcp_allowed_congestion_control): 3.21 closes the
    # control connection without SERVER_ERROR.
    ("-C not allowed on the server", "SOCKSHIM_FAIL=TCP_CONGESTION:1",
     ["-C", "reno"], [],
     {"new": ["iperf3: error - control socket has closed unexpectedly"],
      "3.12": ["iperf3: error - control socket has closed unexpectedly"]},
     1, True),
    ("-C not allowed on the server, -R", "SOCKSHIM_FAIL=TCP_CONGESTION:1",
     ["-C", "reno", "-R"], [],
     {"new": ["iperf3: error - control socket has closed unexpectedly"],
      "3.12": ["iperf3: error - control socket has closed unexpectedly"]},
     1, True),
    # ENOENT (the server's kernel lacks it): a warning there, the test runs.
    ("-C unknown to the server", "SOCKSHIM_FAIL=TCP_CONGESTION:2",
     ["-C", "reno"], [], {"new": [], "3.12": []}, 0, True),
    ("--fq-rate refused by the server", "SOCKSHIM_FAIL=SO_MAX_PACING_RATE:22",
     ["--fq-rate", "10M"], [], {"new": [], "3.12": []}, 0, True),
]

SERVER_WARNINGS = {
    "-C unknown to the server":
        "warning: TCP congestion control algorithm not supported",
    "--fq-rate refused by the server": "warning: Unable to set socket pacing",
}


def server_refuses():
    for name, shim, cargs, sargs, expected, rc, instant in SERVER_CASES:
        for label, client in clients():
            res = pair(OURS, shim, client, None, cargs, sargs)
            want = expect_for(expected, label)
            probs = []
            if res["rc"] != rc:
                probs.append(f"exit {res['rc']}, want {rc}")
            if res["lines"] != want:
                probs.append(f"client said {res['lines']}, want {want}")
            if rc != 0 and res["secs"] > SECS:
                probs.append(f"took {res['secs']:.1f} s")
            warn = SERVER_WARNINGS.get(name)
            if warn and warn not in res["slines"]:
                probs.append(f"server said {res['slines']}, want {warn!r}")
            if not probs and instant and "3.21" in PEERS:
                ref = pair(PEERS["3.21"], shim, client, None, cargs, sargs)
                if (ref["rc"], ref["lines"]) != (res["rc"], res["lines"]):
                    probs.append(f"a 3.21 server gives {show(ref)}")
            record(f"server refuses: {name}: {label} client",
                   not probs, "; ".join(probs) or show(res))


# ---- the client's host refuses ---------------------------------------------

CLIENT_CASES = [
    ("-w over the client's limit", BUF, ["-w", "4M"]),
    ("-w over the client's limit, -R", BUF, ["-w", "4M", "-R"]),
    ("UDP -w over the client's limit", BUF, ["-u", "-b", "1M", "-w", "4M"]),
    ("-w over the client's send limit only", "SOCKSHIM_SNDBUF_MAX=1048576",
     ["-w", "4M"]),
    ("-M refused by the client", "SOCKSHIM_FAIL=TCP_MAXSEG:22",
     ["-M", "1000"]),
    ("-C refused by the client", "SOCKSHIM_FAIL=TCP_CONGESTION:1",
     ["-C", "reno"]),
    # A 3.21 client goes on without -S (3.12 fails): so does ours.
    ("-S refused by the client", "SOCKSHIM_FAIL=IP_TOS:22", ["-S", "16"]),
    ("UDP -S refused by the client", "SOCKSHIM_FAIL=IP_TOS:22",
     ["-u", "-b", "1M", "-S", "16"]),
    ("--fq-rate refused by the client", "SOCKSHIM_FAIL=SO_MAX_PACING_RATE:22",
     ["--fq-rate", "10M"]),
    ("--bind-dev refused by the client", "SOCKSHIM_FAIL=SO_BINDTODEVICE:1",
     ["--bind-dev", "lo"]),
]


def client_refuses():
    if "3.21" not in PEERS:
        skip("client refuses: the 3.21 client is the reference (absent)")
        return
    servers = [("ours", OURS)] + [(v, p) for v, p in sorted(PEERS.items())]
    for name, shim, cargs in CLIENT_CASES:
        for label, server in servers:
            res = pair(server, None, OURS, shim, cargs)
            ref = pair(server, None, PEERS["3.21"], shim, cargs)
            probs = []
            if (res["rc"], res["lines"]) != (ref["rc"], ref["lines"]):
                probs.append(f"ours: {show(res)}; 3.21: {show(ref)}")
            if res["rc"] != 0 and res["secs"] > SECS:
                probs.append(f"took {res['secs']:.1f} s")
            record(f"client refuses: {name}: {label} server", not probs,
                   "; ".join(probs) or show(res))


# ---- the machine's own limits ----------------------------------------------

def sysctl(name):
    try:
        with open("/proc/sys/" + name.replace(".", "/")) as f:
            return f.read().strip()
    except OSError:
        return None


def big_window():
    """-w 512M, above this host's limits (the kernel grants twice the
    capped request, which must stay below 512M)."""
    lim = [sysctl("net.core.wmem_max"), sysctl("net.core.rmem_max")]
    if None in lim or min(int(v) for v in lim) * 2 >= 512 * 1024 * 1024:
        skip(f"-w 512M: this host's limits ({lim}) grant it")
        return
    progs = clients()
    for udp in ([], ["-u", "-b", "10M"]):
        for rev in ([], ["-R"]):
            args = ["-w", "512M", *udp, *rev]
            for slabel, server in progs:
                for clabel, client in progs:
                    if slabel != "ours" and clabel != "ours":
                        continue
                    res = pair(server, None, client, None, args)
                    ok = res["rc"] == 1 and res["secs"] <= SECS and \
                        res["lines"] and \
                        res["lines"][-1] == f"iperf3: error - {BUFMSG}"
                    record(f"{' '.join(args)}: {clabel} client, {slabel} "
                           "server", ok, show(res))


def congestion_not_allowed():
    """An algorithm the kernel has but lets only privileged users pick."""
    avail = (sysctl("net.ipv4.tcp_available_congestion_control") or "").split()
    allowed = (sysctl("net.ipv4.tcp_allowed_congestion_control") or "").split()
    cands = [a for a in avail if a not in allowed]
    if os.geteuid() != 0:
        skip("-C not allowed: needs root to run the server as nobody")
        return
    if not cands:
        skip(f"-C not allowed: every algorithm ({avail}) is allowed here")
        return
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    want = ["iperf3: error - control socket has closed unexpectedly"]
    servers = [("ours", OURS)] + ([("3.21", PEERS["3.21"])]
                                  if "3.21" in PEERS else [])
    for slabel, server in servers:
        for clabel, client in clients():
            res = pair(server, None, client, None, ["-C", cands[0]],
                       prefix=prefix)
            if res["rc"] == "no server":
                skip(f"-C not allowed: setpriv cannot run the server "
                     f"({res['slines']})")
                return
            ok = res["rc"] == 1 and res["lines"] == want and \
                res["secs"] <= SECS and \
                any("unable to set TCP_CONGESTION" in ln
                    for ln in res["slines"])
            record(f"-C {cands[0]} (not allowed) against a {slabel} server "
                   f"run as nobody: {clabel} client", ok,
                   show(res) + f"; server: {res['slines']}")


def bind_dev_missing():
    refs = [("3.21", PEERS["3.21"])] if "3.21" in PEERS else []
    if not refs:
        skip("--bind-dev with no such device: the 3.21 reference is absent")
        return
    for udp in ([], ["-u", "-b", "1M"]):
        args = ["--bind-dev", "nosuch0", *udp]
        res = pair(OURS, None, OURS, None, args)
        ref = pair(OURS, None, refs[0][1], None, args)
        record(f"client {' '.join(args)}: as 3.21", (res["rc"], res["lines"])
               == (ref["rc"], ref["lines"]), f"ours: {show(res)}; 3.21: "
               f"{show(ref)}")
    outs = []
    for prog in (OURS, refs[0][1]):
        r = subprocess.run([prog, "-s", "-1", "-p", str(free_port()),
                            "-B", "127.0.0.1", "--bind-dev", "nosuch0"],
                           capture_output=True, text=True, timeout=WAIT)
        outs.append((r.returncode, lines_of(r.stdout + r.stderr)))
    record("server --bind-dev nosuch0: as 3.21", outs[0] == outs[1],
           f"ours: {outs[0]}; 3.21: {outs[1]}")


def max_tests_server():
    """A --max-tests server: the refused test ends at once and the
    server goes on serving (its data connections come through a shared
    listener, where -w and -M are applied after the handshake)."""
    cases = [(BUF, ["-w", "4M"], BUFMSG, None),
             (BUF, ["-u", "-b", "10M", "-w", "4M"], BUFMSG, None),
             ("SOCKSHIM_FAIL=TCP_MAXSEG:22", ["-M", "1000"],
              "unable to set TCP/SCTP MSS: Invalid argument",
              "Invalid argument")]
    port = free_port()
    for shim, cargs, msg, err in cases:
        srv = subprocess.Popen([OURS, "-s", "-p", str(port), "--max-tests",
                                "2"], env=env_with(shim),
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            if not wait_listening(port, srv, time.time() + 10):
                record(f"--max-tests server, {' '.join(cargs)}", False,
                       "server did not listen")
                continue
            for label, client in clients():
                t0 = time.time()
                r = subprocess.run([client, "-c", "127.0.0.1", "-p",
                                    str(port), "-t", "1", *cargs],
                                   capture_output=True, text=True,
                                   timeout=WAIT)
                got = lines_of(r.stdout + r.stderr)
                want = expect_for(server_err(msg, err), label)
                secs = time.time() - t0
                record(f"--max-tests server refuses {' '.join(cargs)}: "
                       f"{label} client", r.returncode == 1 and got == want
                       and secs <= SECS, f"exit {r.returncode}, "
                       f"{secs:.1f} s, {got}")
            record(f"--max-tests server serves on after {' '.join(cargs)}",
                   srv.poll() is None, f"exit {srv.poll()}")
        finally:
            stop(srv)


def main():
    global OURS, SHIM
    if len(sys.argv) != 3:
        sys.exit("usage: sockfail.py OURS SHIM")
    OURS, SHIM = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for ver, path in stock_peers():
        PEERS[ver] = path
    big_window()
    congestion_not_allowed()
    bind_dev_missing()
    if not os.path.exists(SHIM):
        skip(f"the shim cases: no {SHIM} (a build without shared "
             "libraries)")
    else:
        server_refuses()
        client_refuses()
        max_tests_server()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
