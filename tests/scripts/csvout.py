#!/usr/bin/env python3
"""--csv: the rows read back with Python's csv module.

Ours on both ends, on loopback:
  tcp       -t 2 -i 1: the header, CRLF line ends, 2 interval rows, the
            stream's sender and receiver rows and the two sums; bits per
            second = bytes * 8 / seconds in every row; nothing else on
            stdout
  parallel  -P 2: sums per interval, 2 x 3 interval and 6 summary rows
  udp       -u: jitter/packets filled, one "udp" summary row per stream
  reverse   -R: direction download, this host the receiver
  bidir     --bidir -P 2: sums per direction, both directions' summaries
  omit      -O 1: the omitted interval flagged, 2 counted intervals
  title     -T with a comma and quotes reads back whole
  same      the client's summary receiver row equals the -J of the same
            run's server (bytes exactly, rate within rounding), and a
            --csv server's equals its -J client's
  server    a --csv server serving two tests: one header, test 1 and 2
  multi     --max-tests 2 with two tests at once: one header, rows of both
  logfile   --logfile gets the rows, stdout nothing
  error     a refused connection: exit 1, "iperf3: error - " on stderr,
            nothing on stdout (the header comes with the first row); with
            --logfile, the file of an earlier run left as it was
  rr        --rr and --latency still write rows (stock figures)
Stock 3.21 (where present): our --csv client against its server, and our
--csv server with its client.

Usage: csvout.py OURS [FILTER]

(Not named csv.py: the script's directory comes first on sys.path, and
the file would hide the standard csv module.)
"""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (free_port, report, run_cases, skip_unless_option,  # noqa: E402
                     stock_peers, stop, wait_listening)

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
skip_unless_option(OURS, "--csv")
HEADER = ["test", "host", "title", "kind", "stream", "direction", "role",
          "start", "end", "seconds", "bytes", "bits_per_second",
          "retransmits", "snd_cwnd", "rtt_us", "rtt_p50_us", "jitter_ms",
          "lost_packets", "packets", "lost_percent", "lost_in_receiver",
          "omitted"]


def server(binary=OURS, args=()):
    port = free_port()
    srv = subprocess.Popen([binary, "-s", "-p", str(port)] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if not wait_listening(port, srv, time.time() + 10):
        stop(srv)
        raise RuntimeError("server did not listen")
    return srv, port


def client(port, args, binary=OURS, timeout=30):
    p = subprocess.run([binary, "-c", "127.0.0.1", "-p", str(port)] +
                       list(args), capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def pair(cargs, sargs=("-1",), cbin=OURS, sbin=OURS):
    """(client rc, client stdout, client stderr, server stdout)."""
    srv, port = server(sbin, sargs)
    try:
        rc, out, err = client(port, cargs, cbin)
        sout, _ = srv.communicate(timeout=15)
    finally:
        stop(srv)
    return rc, out, err, sout.decode()


def parse(text, probs):
    """Rows as dicts; problems when the header, the line ends or a row's
    width are wrong."""
    if text and not text.endswith("\r\n"):
        probs.append("the last row does not end with CRLF")
    if "\n" in text.replace("\r\n", ""):
        probs.append("a bare LF outside a quoted field")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows or rows[0] != HEADER:
        probs.append(f"header {rows[:1]}")
        return []
    bad = [r for r in rows[1:] if len(r) != len(HEADER)]
    if bad:
        probs.append(f"{len(bad)} rows of the wrong width: {bad[0]}")
    return [dict(zip(HEADER, r)) for r in rows[1:] if len(r) == len(HEADER)]


def select(rows, **want):
    return [r for r in rows if all(r[k] == v for k, v in want.items())]


def check_rates(rows, probs):
    """bits_per_second = bytes * 8 / seconds (or the span end - start)."""
    for r in rows:
        if not r["seconds"] or float(r["seconds"]) <= 0:
            continue
        b, bps = float(r["bytes"]), float(r["bits_per_second"])
        spans = [float(r["seconds"]), float(r["end"]) - float(r["start"])]
        if not any(abs(b * 8 / s - bps) <= 1e-6 * max(bps, 1)
                   for s in spans if s > 0):
            probs.append(f"rate {bps} != {b} * 8 / {spans}")
            return


def counts(probs, rows, ivs, sums):
    n_iv = len(select(rows, kind="interval"))
    n_sum = len(select(rows, kind="summary"))
    if (n_iv, n_sum) != (ivs, sums):
        probs.append(f"{n_iv} interval and {n_sum} summary rows "
                     f"(want {ivs} and {sums})")


def run_case(label, cargs, ivs, sums, check=None, **kw):
    rc, out, err, _ = pair(cargs, **kw)
    probs = [] if rc == 0 else [f"exit {rc}: {err.strip()[-200:]}"]
    rows = parse(out, probs)
    counts(probs, rows, ivs, sums)
    check_rates(rows, probs)
    if check is not None and rows:
        check(rows, probs)
    report(label, probs)


def tcp():
    def check(rows, probs):
        if {r["direction"] for r in rows} != {"upload"}:
            probs.append("direction not upload")
        if any(r["test"] or r["host"] != "127.0.0.1" for r in rows):
            probs.append("test/host columns")
        s = select(rows, kind="summary", stream="sum", role="sender")
        if not s or not s[0]["retransmits"]:
            probs.append("no retransmits in the sender sum")
    run_case("tcp: -t 2 -i 1", ["-t", "2", "-i", "1", "--csv"], 2, 4, check)


def parallel():
    run_case("parallel: -P 2", ["-t", "2", "-i", "1", "-P", "2", "--csv"],
             6, 6)


def udp():
    def check(rows, probs):
        r = select(rows, kind="summary", stream="sum", role="receiver")
        if not r or not r[0]["jitter_ms"] or not r[0]["packets"]:
            probs.append(f"no UDP figures in the receiver sum: {r}")
        if any(r["retransmits"] for r in rows):
            probs.append("retransmits in a UDP row")
    run_case("udp: -u", ["-t", "2", "-i", "1", "-u", "--csv"], 2, 3, check)


def reverse():
    def check(rows, probs):
        iv = select(rows, kind="interval")
        if {(r["direction"], r["role"]) for r in iv} != \
                {("download", "receiver")}:
            probs.append("interval rows not download/receiver")
        if {r["direction"] for r in rows} != {"download"}:
            probs.append("a row not download")
    run_case("reverse: -R", ["-t", "2", "-i", "1", "-R", "--csv"], 2, 4,
             check)


def bidir():
    def check(rows, probs):
        sums = select(rows, kind="interval", stream="sum")
        got = sorted((r["direction"], r["role"]) for r in sums)
        want = [("download", "receiver")] * 2 + [("upload", "sender")] * 2
        if got != want:
            probs.append(f"interval sums {got}")
        ends = select(rows, kind="summary", stream="sum")
        if len({(r["direction"], r["role"]) for r in ends}) != 4:
            probs.append("summary sums not both roles of both directions")
    # 4 streams x 2 intervals + 2 sums x 2; 4 streams x 2 + 4 sums
    run_case("bidir: --bidir -P 2",
             ["-t", "2", "-i", "1", "-P", "2", "--bidir", "--csv"], 12, 12,
             check)


def omit():
    def check(rows, probs):
        iv = select(rows, kind="interval")
        if len(select(iv, omitted="1")) < 1 or \
                len(select(iv, omitted="0")) != 2:
            probs.append(f"omitted flags {[r['omitted'] for r in iv]}")
        if any(r["omitted"] for r in select(rows, kind="summary")):
            probs.append("omitted set in a summary row")
    rc, out, err, _ = pair(["-t", "2", "-i", "1", "-O", "1", "--csv"])
    probs = [] if rc == 0 else [f"exit {rc}"]
    rows = parse(out, probs)
    check(rows, probs)
    report("omit: -O 1", probs)


def title():
    t = 'a,"b" c'
    rc, out, err, _ = pair(["-t", "1", "-T", t, "--csv"])
    probs = [] if rc == 0 else [f"exit {rc}"]
    rows = parse(out, probs)
    if not rows or any(r["title"] != t for r in rows):
        probs.append(f"title read back as {rows[0]['title'] if rows else None!r}")
    if '"a,""b"" c"' not in out:
        probs.append("the title is not quoted with doubled quotes")
    report("title: -T with a comma and quotes", probs)


def same_client():
    """Our --csv client; the server's -J of the same run."""
    probs = []
    rc, out, err, sout = pair(["-t", "1", "-P", "2", "--csv"], ("-1", "-J"))
    rows = parse(out, probs)
    end = json.loads(sout)["end"]["sum_received"]
    r = select(rows, kind="summary", stream="sum", role="receiver")
    if not r or int(r[0]["bytes"]) != end["bytes"] or \
            abs(float(r[0]["bits_per_second"]) - end["bits_per_second"]) > \
            1e-9 * end["bits_per_second"]:
        probs.append(f"csv {r[:1]} vs -J {end}")
    report("same: client csv = server -J (sum_received)", probs)


def same_server():
    """Our --csv server; the client's -J of the same run."""
    probs = []
    rc, out, err, sout = pair(["-t", "1", "-P", "2", "-J"], ("-1", "--csv"))
    rows = parse(sout, probs)
    end = json.loads(out)["end"]
    for st in end["streams"]:
        rec = st["receiver"]
        r = select(rows, kind="summary", stream=str(rec["socket"]),
                   role="receiver")
        if not r or int(r[0]["bytes"]) != rec["bytes"]:
            probs.append(f"stream {rec['socket']}: csv {r[:1]} vs -J {rec}")
    if any(r["test"] != "1" for r in rows):
        probs.append("test column not 1")
    report("same: server csv = client -J (receiver bytes)", probs)


def serve_two():
    srv, port = server(args=["--csv"])
    try:
        for _ in range(2):
            client(port, ["-t", "1"])
        time.sleep(0.5)
    finally:
        stop(srv, grace=5)
    out = srv.stdout.read().decode()
    probs = []
    rows = parse(out, probs)
    if out.count("test,host,") != 1:
        probs.append("the header is not written once")
    if {r["test"] for r in rows} != {"1", "2"}:
        probs.append(f"test column {sorted({r['test'] for r in rows})}")
    for n in ("1", "2"):   # a server may end on a short last interval
        if not select(rows, test=n, kind="interval") or \
                len(select(rows, test=n, kind="summary")) != 4:
            probs.append(f"test {n}: {len(select(rows, test=n))} rows")
    report("server: two tests, one header, test 1 and 2", probs)


def multi():
    srv, port = server(args=["--csv", "--max-tests", "2"])
    try:
        cl = [subprocess.Popen([OURS, "-c", "127.0.0.1", "-p", str(port),
                                "-t", "2"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) for _ in range(2)]
        rcs = [c.wait(30) for c in cl]
        time.sleep(0.5)
    finally:
        stop(srv, grace=5)
    out = srv.stdout.read().decode()
    probs = [] if rcs == [0, 0] else [f"clients exit {rcs}"]
    rows = parse(out, probs)
    if out.count("test,host,") != 1:
        probs.append("the header is not written once")
    for n in ("1", "2"):
        if len(select(rows, test=n, kind="summary")) != 4:
            probs.append(f"test {n}: {len(select(rows, test=n))} rows")
    report("multi: --max-tests 2, two tests at once", probs)


def logfile():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.csv")
        rc, out, err, _ = pair(["-t", "1", "--csv", "--logfile", path])
        with open(path, newline="") as f:
            text = f.read()
    probs = [] if rc == 0 else [f"exit {rc}"]
    if out:
        probs.append(f"stdout not empty: {out[:100]!r}")
    counts(probs, parse(text, probs), 1, 4)
    report("logfile: --logfile gets the rows", probs)


def error():
    port = free_port()
    rc, out, err = client(port, ["-t", "1", "--csv"])
    probs = [] if rc == 1 else [f"exit {rc}"]
    if not err.startswith("iperf3: error - "):
        probs.append(f"stderr {err[:100]!r}")
    if out:
        probs.append(f"stdout {out[:100]!r} (not even a header)")
    report("error: refused connection, error on stderr, stdout empty",
           probs)


def error_logfile():
    """A refused run leaves the --logfile of earlier runs as it was: no
    header with nothing under it, no error line among the rows."""
    probs = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.csv")
        rc, _, _, _ = pair(["-t", "1", "--csv", "--logfile", path])
        with open(path, "rb") as f:
            before = f.read()
        rc2, _, err = client(free_port(), ["-t", "1", "--csv", "--logfile",
                                           path])
        with open(path, "rb") as f:
            after = f.read()
    if rc != 0 or rc2 != 1:
        probs.append(f"exit {rc}, then {rc2}")
    if after != before:
        probs.append(f"the file grew by {after[len(before):][:120]!r}")
    if "iperf3: error - " not in err:
        probs.append(f"stderr {err[:100]!r}")
    report("error with --logfile: the file is left as it was", probs)


def rr():
    for extra in (["--rr"], ["--latency"]):
        rc, out, err, _ = pair(["-t", "1", "--csv"] + extra)
        probs = [] if rc == 0 else [f"exit {rc}: {err[-200:]}"]
        rows = parse(out, probs)
        if len(select(rows, kind="summary", stream="sum")) != 2:
            probs.append("no summary sums")
        report(f"rr: {extra[0]} writes rows", probs)


def stock():
    for ver, path in stock_peers(want=("3.21",)):
        rc, out, err, _ = pair(["-t", "2", "-i", "1", "-P", "2", "--csv"],
                               sbin=path)
        probs = [] if rc == 0 else [f"exit {rc}: {err[-200:]}"]
        rows = parse(out, probs)
        counts(probs, rows, 6, 6)
        check_rates(rows, probs)
        report(f"stock: our client vs {ver} server", probs)
        rc, out, err, sout = pair(["-t", "2", "-i", "1", "-u"],
                                  ("-1", "--csv"), cbin=path)
        probs = [] if rc == 0 else [f"exit {rc}: {err[-200:]}"]
        rows = parse(sout, probs)
        if len(select(rows, kind="interval")) < 2 or \
                len(select(rows, kind="summary", stream="sum")) != 2:
            probs.append(f"{len(rows)} rows")
        check_rates(rows, probs)
        report(f"stock: our server with a {ver} UDP client", probs)


CASES = [tcp, parallel, udp, reverse, bidir, omit, title, same_client,
         same_server, serve_two, multi, logfile, error, error_logfile, rr,
         stock]

if __name__ == "__main__":
    sys.exit(run_cases(CASES, FILTER))
