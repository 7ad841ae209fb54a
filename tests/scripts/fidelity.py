#!/usr/bin/env python3
"""Figures that must be what iperf3 3.21 gives on the same run.

  end       a paced sender (-b) stops at the end of the test: the last
            interval and the summaries end within END_MARGIN of -t, TCP
            and UDP, -P, --bidir, -R, our server as the sender too;
  count     a UDP -n/-k count whose receiver loses datagrams (a 16 KB
            receive buffer under a 1 Gbit/s flow) ends within bounded time
            in every pairing of ours and stock; between our client and our
            server the sender sends exactly the count;
  reorder   on a quiet run `reorder` is what 3.21 reports (the kernel's
            count of reordering events: 0 here), both roles;
  bufs      start.tcp_mss_default, sndbuf_actual, rcvbuf_actual and the
            default UDP block size equal 3.21's for the same command
            against the same server, in both roles;
  identity  start.version stays "iperf 3.21", start.implementation names
            this program, and so does -V's first line;
  ctrl      -V states our control-connection defaults; --no-cntl-ka and
            --snd-timeout 0 restore stock behaviour (strace: no
            SO_KEEPALIVE, no TCP_USER_TIMEOUT).

The stock peers come from testlib.stock_peers(): cases that need 3.21
print SKIP when it is absent.  Every process is bounded by a timeout.
Usage: fidelity.py OURS [STOCK312] [case-filter]
"""

import json
import re
import subprocess
import sys
import time

import testlib
from testlib import (free_port, report, skip, stock_peers, stop,
                     strace_unavailable, summary)

# 3.21 ends 0.000-0.01 s past -t on a quiet loopback (more when loaded);
# a sender that slept through the end overran by up to 0.1 s.  A case
# past the margin runs up to twice more before it fails (load spikes: in
# CI this suite shares two cores with the cross builds and other tests).
END_MARGIN = 0.05
RUN_TIMEOUT = 20    # a run that hangs (the count bug) is killed and failed
COUNT_DATAGRAMS = 3745  # -n 5M with -l 1400


def start_server(binary, extra=()):
    port = free_port()
    return testlib.start_server([binary, "-s", "-p", str(port)] + list(extra),
                                port), port


def client(binary, port, args, timeout=RUN_TIMEOUT):
    """Run a -J client: (exit status, document or None, seconds)."""
    t0 = time.time()
    try:
        r = subprocess.run([binary, "-c", "127.0.0.1", "-p", str(port), "-J"]
                           + args, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, time.time() - t0
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = None
    return r.returncode, doc, time.time() - t0


def one_server_run(server, client_bin, args):
    """A -1 -J server and one client: (client doc, server doc)."""
    srv, port = start_server(server, ["-1", "-J"])
    try:
        _, cdoc, _ = client(client_bin, port, args)
        try:
            out, _ = srv.communicate(timeout=10)
            sdoc = json.loads(out)
        except (subprocess.TimeoutExpired, ValueError):
            sdoc = None
    finally:
        stop(srv)
    return cdoc, sdoc


# ---- end: paced senders stop at -t ------------------------------------------

END_CASES = [["-b", "5M"], ["-u", "-b", "5M"], ["-b", "5M", "-P", "3"],
             ["-b", "5M", "--bidir"], ["-b", "5M", "-R"],
             ["-u", "-b", "5M", "-R", "-P", "2"]]


def end_times(doc):
    """Every end time the document reports for the test as a whole."""
    out = {}
    e = doc.get("end", {})
    for k in ("sum_sent", "sum_received", "sum_sent_bidir_reverse",
              "sum_received_bidir_reverse", "sum"):
        if k in e and "end" in e[k]:
            out[k] = e[k]["end"]
    if doc.get("intervals"):
        out["last interval"] = doc["intervals"][-1]["sum"]["end"]
    return out


def case_end(ours, stock):
    """Ours in both roles; the stock pair runs too, as the reference its
    end times are printed beside."""
    duration = 1
    pairs = [("ours->ours", ours, ours, False)]
    if stock:
        ver, path = stock
        pairs += [(f"ours->{ver}", path, ours, False),
                  (f"{ver}->ours", ours, path, False),
                  (f"{ver}->{ver}", path, path, True)]
    for args in END_CASES:
        for label, sbin, cbin, reference in pairs:
            name = f"end {label} -t {duration} {' '.join(args)}"
            for attempt in (1, 2, 3):
                srv, port = start_server(sbin)
                try:
                    rc, doc, _ = client(cbin, port,
                                        ["-t", str(duration)] + args)
                finally:
                    stop(srv)
                if rc != 0 or doc is None:
                    probs = [f"client exit {rc}"]
                    break
                times = end_times(doc)
                if reference:
                    print(f"  reference {name}: ends at "
                          f"{max(times.values()):.4f} s")
                    break
                probs = [f"{k} ends at {v:.4f} s" for k, v in times.items()
                         if v > duration + END_MARGIN]
                if not probs:
                    break
                if attempt < 3:
                    print(f"  {name}: {'; '.join(probs)}; once more")
            if not reference:
                report(name, probs)


# ---- count: lost datagrams never hold a -n/-k test open ----------------------

COUNT_CASES = [["-n", "5M", "-R"], ["-n", "5M", "--bidir"],
               ["-n", "5M", "-R", "-P", "3"], ["-k", "2000", "-R"]]
COUNT_BASE = ["-u", "-b", "1G", "-l", "1400", "-w", "16K"]


def case_count(ours, peers):
    pairs = [("ours->ours", ours, ours)]
    for ver, path in peers:
        pairs += [(f"ours->{ver}", path, ours), (f"{ver}->ours", ours, path)]
    for args in COUNT_CASES:
        for label, sbin, cbin in pairs:
            srv, port = start_server(sbin)
            try:
                rc, doc, secs = client(cbin, port, COUNT_BASE + args)
            finally:
                stop(srv)
            name = f"count {label} {' '.join(COUNT_BASE + args)}"
            probs = []
            if rc is None:
                probs.append(f"still running after {RUN_TIMEOUT} s")
            elif rc != 0 or doc is None:
                probs.append(f"client exit {rc}")
            lost = sent = None
            if doc is not None:
                e = doc["end"]
                lost = e.get("sum_received", {}).get("lost_packets")
                sent = e.get("sum_sent", {}).get("packets")
            if label == "ours->ours" and "-R" in args and sent is not None:
                want = 2000 if "-k" in args else COUNT_DATAGRAMS
                streams = int(args[args.index("-P") + 1]) if "-P" in args \
                    else 1
                # each stream checks the shared count before its send
                if not want <= sent < want + streams:
                    probs.append(f"the sender sent {sent} datagrams, "
                                 f"not the count {want}")
            report(name, probs, secs)
            if lost is not None and rc == 0:
                print(f"  (lost {lost}, sent {sent})")


# ---- reorder, buffers, MSS: equal to 3.21's ----------------------------------

START_KEYS = ("tcp_mss_default", "sock_bufsize", "sndbuf_actual",
              "rcvbuf_actual")
BUF_CASES = [[], ["-w", "300K"], ["-R"], ["-u"], ["-u", "-w", "300K"]]
SERVER_BUF_CASES = [[], ["-w", "300K"], ["-u"], ["-u", "-w", "300K"]]


def start_fields(doc):
    s = doc["start"]
    out = {k: s.get(k) for k in START_KEYS}
    out["blksize"] = s.get("test_start", {}).get("blksize")
    return out


def reorders(doc):
    """Every reorder figure of the sending streams: intervals, then end."""
    out = [st.get("reorder") for iv in doc.get("intervals", [])
           for st in iv["streams"] if st.get("sender")]
    out += [st["sender"].get("reorder") for st in doc["end"].get("streams", [])
            if "sender" in st]
    return out


def client_role(ours, ref, args):
    """Our client and 3.21's, same command, same (our) server: their
    documents."""
    srv, port = start_server(ours)
    try:
        _, mine, _ = client(ours, port, args)
        _, theirs, _ = client(ref, port, args)
    finally:
        stop(srv)
    return mine, theirs


def server_role(ours, ref, args):
    """Our server and 3.21's, each with a 3.21 client: their documents."""
    return one_server_run(ours, ref, args)[1], \
        one_server_run(ref, ref, args)[1]


def compare(name, docs, extract, ver):
    """Report whether extract() gives the same for ours and 3.21."""
    mine, theirs = docs
    if mine is None or theirs is None:
        report(name, ["a document is missing"])
        return
    a, b = extract(mine), extract(theirs)
    if isinstance(a, dict):
        report(name, [f"{k}: ours {a[k]}, {ver} {b[k]}" for k in a
                      if a[k] != b[k]])
    else:
        report(f"{name}: ours {a}, {ver} {b}", [] if a and a == b else
               ["differ"])


def case_equal(ours, ref):
    ver, path = ref
    # The control connection's MSS is the peer's largest window / 2 once
    # the peer's first window update is in: 32768 on loopback, 32741 when
    # a loaded machine has not yet processed it when the client reads it
    # (3.21 the same). A difference runs once more before it counts.
    for role, cases, make in (("client", BUF_CASES, client_role),
                              ("server", SERVER_BUF_CASES, server_role)):
        for args in cases:
            name = f"bufs {role} role, ours vs {ver} ({' '.join(args)})"
            docs = make(ours, path, ["-t", "1"] + args)
            if None not in docs and \
                    start_fields(docs[0]) != start_fields(docs[1]):
                print(f"  {name}: ours {start_fields(docs[0])}, {ver} "
                      f"{start_fields(docs[1])}; once more")
                docs = make(ours, path, ["-t", "1"] + args)
            compare(name, docs, start_fields, ver)
    # A quiet (paced) run: no reordering event, where the old metric said 3+.
    # A loaded machine can reorder a segment on either side: a difference
    # runs once more before it counts.
    quiet = ["-t", "1", "-b", "100M"]
    for name, run in (("reorder client role",
                       lambda: client_role(ours, path, quiet)),
                      ("reorder server role (-R)",
                       lambda: server_role(ours, path, quiet + ["-R"]))):
        docs = run()
        if None not in docs and reorders(docs[0]) != reorders(docs[1]):
            print(f"  {name}: ours {reorders(docs[0])}, {ver} "
                  f"{reorders(docs[1])}; once more")
            docs = run()
        compare(name, docs, reorders, ver)


# ---- identity and the control-connection defaults ----------------------------

def our_version(ours):
    out = subprocess.run([ours, "-v"], capture_output=True, text=True,
                         timeout=10).stdout
    m = re.match(r"iperf 3\.21 \(iperf3-compat ([^;]+);", out)
    return m.group(1) if m else None


def case_identity(ours):
    pkgver = our_version(ours)
    srv, port = start_server(ours)
    try:
        _, doc, _ = client(ours, port, ["-t", "1", "-b", "10M"])
        v = subprocess.run([ours, "-c", "127.0.0.1", "-p", str(port), "-t",
                            "1", "-b", "10M", "-V"], capture_output=True,
                           text=True, timeout=RUN_TIMEOUT).stdout
    finally:
        stop(srv)
    probs = []
    if doc is None:
        probs.append("no JSON")
    else:
        s = doc["start"]
        if s.get("version") != "iperf 3.21":
            probs.append(f"start.version {s.get('version')!r}")
        want = {"name": "iperf3-compat", "version": pkgver}
        if s.get("implementation") != want:
            probs.append(f"start.implementation {s.get('implementation')}")
    first = v.splitlines()[0] if v else ""
    if first != f"iperf 3.21 (iperf3-compat {pkgver})":
        probs.append(f"-V first line {first!r}")
    report("identity: start.version, start.implementation, -V", probs)


def traced_ctrl_options(ours, port, extra):
    """setsockopt calls of a traced client run: the set of option names
    (None if the run failed)."""
    r = subprocess.run(["strace", "-f", "-e", "trace=setsockopt", ours, "-c",
                        "127.0.0.1", "-p", str(port), "-t", "1", "-b", "10M"]
                       + extra, capture_output=True, text=True,
                       timeout=RUN_TIMEOUT)
    if r.returncode != 0:
        return None
    return set(re.findall(r"setsockopt\(\d+, \w+, (\w+)", r.stderr))


def case_ctrl(ours):
    srv, port = start_server(ours)
    try:
        v = subprocess.run([ours, "-c", "127.0.0.1", "-p", str(port), "-t",
                            "1", "-b", "10M", "-V"], capture_output=True,
                           text=True, timeout=RUN_TIMEOUT).stdout
        probs = []
        if "are set to 10/5/4 (default; --no-cntl-ka: none)" not in v:
            probs.append("-V does not state the keepalive default")
        if "TCP_USER_TIMEOUT is set to 30000 ms (default" not in v:
            probs.append("-V does not state the TCP_USER_TIMEOUT default")
        report("ctrl: -V states the control connection defaults", probs)
        why = strace_unavailable()
        if why:
            skip(f"ctrl stock restore: {why}")
            return
        dflt = traced_ctrl_options(ours, port, [])
        stock = traced_ctrl_options(ours, port,
                                    ["--no-cntl-ka", "--snd-timeout", "0"])
        probs = []
        if dflt is None or stock is None:
            probs.append("a traced client run failed")
        elif not {"SO_KEEPALIVE", "TCP_USER_TIMEOUT"} <= dflt:
            probs.append(f"default run set only {sorted(dflt)}")
        if stock & {"SO_KEEPALIVE", "TCP_KEEPIDLE", "TCP_USER_TIMEOUT"}:
            probs.append(f"--no-cntl-ka --snd-timeout 0 still set "
                         f"{sorted(stock)}")
        report("ctrl: --no-cntl-ka --snd-timeout 0 set no keepalive and no "
               "user timeout", probs)
    finally:
        stop(srv)


def main():
    ours = sys.argv[1]
    filt = sys.argv[3] if len(sys.argv) > 3 else ""
    peers = stock_peers(sys.argv[2] if len(sys.argv) > 2 and sys.argv[2]
                        else None)
    ref = dict(peers).get("3.21")
    newest = ("3.21", ref) if ref else (peers[-1] if peers else None)
    cases = [("end", lambda: case_end(ours, newest)),
             ("count", lambda: case_count(ours, peers)),
             ("identity", lambda: case_identity(ours)),
             ("ctrl", lambda: case_ctrl(ours))]
    if ref:
        cases.append(("equal", lambda: case_equal(ours, ("3.21", ref))))
    else:
        skip("bufs and reorder against 3.21: no 3.21 peer")
    for name, fn in cases:
        if not filt or filt == name:
            fn()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
