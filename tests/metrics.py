#!/usr/bin/env python3
"""--metrics FILE: OpenMetrics text read back with prometheus_client's
OpenMetrics parser, compared with the -J document of the same run.

Ours on both ends, on loopback:
  tcp       the families, labels (host, port, protocol, direction,
            stream="sum"), sent/received bytes and rates equal to
            end.sum_sent/sum_received, retransmits, rtt quantiles in order
  udp       -u: packets, lost, jitter (in seconds) from end.sum_received
  parallel  -P 2: the sums of both streams
  reverse   -R: direction="download"
  bidir     --bidir: one series per direction, download from the
            _bidir_reverse sums
  server    a --metrics -J server: its own side only (upload: received
            figures, no sent ones), the client's address as host
  atomic    an existing file is replaced (a new inode), no FILE.tmp.*
            left, mode 0666 less the umask (022: 0644, 077: 0600)
  unwritable  a missing directory: the error line, exit 1, the report
            still printed
Stock 3.21 (where present): our client against its server, our server
with its client.

Usage: metrics.py OURS [FILTER]   (needs python3-prometheus-client)
"""

import json
import os
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (free_port, report, run_cases, skip,  # noqa: E402
                     stock_peers, stop, wait_listening)

try:
    from prometheus_client.openmetrics.parser import \
        text_string_to_metric_families
except ImportError:
    skip("python3-prometheus-client not installed for " + sys.executable)
    sys.exit(77)

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
TMP = tempfile.mkdtemp(prefix="metrics-test.")


def server(binary=OURS, args=()):
    port = free_port()
    srv = subprocess.Popen([binary, "-s", "-p", str(port)] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if not wait_listening(port, srv, time.time() + 10):
        stop(srv)
        raise RuntimeError("server did not listen")
    return srv, port


def pair(cargs, sargs=("-1",), cbin=OURS, sbin=OURS, umask=None):
    """(client CompletedProcess, server stdout, port)."""
    srv, port = server(sbin, sargs)
    try:
        pre = (lambda: os.umask(umask)) if umask is not None else None
        cli = subprocess.run([cbin, "-c", "127.0.0.1", "-p", str(port)] +
                             list(cargs), capture_output=True, text=True,
                             timeout=30, preexec_fn=pre)
        sout, _ = srv.communicate(timeout=15)
    finally:
        stop(srv)
    return cli, sout, port


def load(path):
    """{(name, frozenset(labels)): value}; raises on a parse error."""
    with open(path) as f:
        text = f.read()
    if not text.endswith("# EOF\n"):
        raise ValueError("no # EOF at the end")
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(m, name, **labels):
    for (n, ls), v in m.items():
        if n == name and all((k, v2) in ls for k, v2 in labels.items()):
            return v
    return None


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(
        abs(a), abs(b), 1e-12)


def compare(probs, m, rec, direction, pairs):
    """Each (metric, key, scale) of pairs equals rec[key] * scale."""
    for name, key, scale in pairs:
        got = value(m, name, direction=direction, stream="sum")
        if not close(got, rec[key] * scale):
            probs.append(f"{name}{{{direction}}} {got} != {key} "
                         f"{rec[key]}")


SENT = [("iperf3_sent_bytes", "bytes", 1),
        ("iperf3_sent_bits_per_second", "bits_per_second", 1)]
RECEIVED = [("iperf3_received_bytes", "bytes", 1),
            ("iperf3_received_bits_per_second", "bits_per_second", 1)]
UDP = [("iperf3_udp_packets", "packets", 1),
       ("iperf3_udp_lost_packets", "lost_packets", 1),
       ("iperf3_udp_jitter_seconds", "jitter_ms", 0.001)]


def client_case(label, args, direction="upload", udp=False, **kw):
    path = os.path.join(TMP, label + ".prom")
    cli, _, port = pair(["-t", "1", "-J", "--metrics", path] + args, **kw)
    probs = [] if cli.returncode == 0 else [f"exit {cli.returncode}"]
    end = json.loads(cli.stdout)["end"]
    m = load(path)
    compare(probs, m, end["sum_sent"], direction, SENT)
    compare(probs, m, end["sum_received"], direction, RECEIVED + (
        UDP if udp else []))
    host = value(m, "iperf3_sent_bytes", host="127.0.0.1", port=str(port),
                 protocol="udp" if udp else "tcp")
    if host is None:
        probs.append("host/port/protocol labels")
    return probs, m, end


def tcp():
    probs, m, end = client_case("tcp", [])
    if not close(value(m, "iperf3_retransmits", direction="upload"),
                 end["sum_sent"]["retransmits"]):
        probs.append("retransmits")
    q = [value(m, "iperf3_rtt_seconds", quantile=x)
         for x in ("0.5", "0.9", "0.99")]
    if None in q or q != sorted(q) or q[0] <= 0 or q[2] > 1:
        probs.append(f"rtt quantiles {q}")
    start = value(m, "iperf3_test_start_timestamp_seconds")
    if start is None or abs(start - time.time()) > 60:
        probs.append(f"start timestamp {start}")
    report("tcp: families, labels, values = -J", probs)


def udp():
    probs, _, _ = client_case("udp", ["-u"], udp=True)
    report("udp: packets, lost, jitter = -J", probs)


def parallel():
    probs, _, _ = client_case("parallel", ["-P", "2"])
    report("parallel: -P 2 sums = -J", probs)


def reverse():
    probs, m, _ = client_case("reverse", ["-R"], direction="download")
    if value(m, "iperf3_sent_bytes", direction="upload") is not None:
        probs.append("an upload series in a -R test")
    report("reverse: -R is download", probs)


def bidir():
    probs, m, end = client_case("bidir", ["--bidir"])
    compare(probs, m, end["sum_sent_bidir_reverse"], "download", SENT)
    compare(probs, m, end["sum_received_bidir_reverse"], "download",
            RECEIVED)
    report("bidir: both directions = -J", probs)


def server_role():
    path = os.path.join(TMP, "server.prom")
    cli, sout, port = pair(["-t", "1", "-P", "2"],
                           ("-1", "-J", "--metrics", path))
    probs = [] if cli.returncode == 0 else [f"exit {cli.returncode}"]
    end = json.loads(sout)["end"]
    m = load(path)
    compare(probs, m, end["sum_received"], "upload", RECEIVED)
    if value(m, "iperf3_sent_bytes") is not None:
        probs.append("the client's side (sent) in the server's file")
    if value(m, "iperf3_received_bytes", host="127.0.0.1",
             port=str(port)) is None:
        probs.append("host/port labels")
    report("server: its own side = its -J", probs)


def atomic():
    probs = []
    for umask, mode in ((0o022, 0o644), (0o077, 0o600)):
        path = os.path.join(TMP, f"atomic{umask:o}.prom")
        with open(path, "w") as f:
            f.write("old\n")
        os.chmod(path, 0o666)
        ino = os.stat(path).st_ino
        cli, _, _ = pair(["-t", "1", "--metrics", path], umask=umask)
        st = os.stat(path)
        if cli.returncode != 0:
            probs.append(f"exit {cli.returncode}")
        if st.st_ino == ino:
            probs.append("the file was rewritten in place, not renamed")
        if stat.S_IMODE(st.st_mode) != mode:
            probs.append(f"umask {umask:o}: mode {stat.S_IMODE(st.st_mode):o}")
        load(path)
    left = [n for n in os.listdir(TMP) if ".tmp." in n]
    if left:
        probs.append(f"left behind: {left}")
    report("atomic: replaced by rename, mode by umask, no temp file", probs)


def unwritable():
    path = os.path.join(TMP, "no", "such", "dir.prom")
    cli, _, _ = pair(["-t", "1", "--metrics", path])
    probs = [] if cli.returncode == 1 else [f"exit {cli.returncode}"]
    if "iperf3: error - unable to write the --metrics file: No such file " \
            "or directory" not in cli.stderr:
        probs.append(f"stderr {cli.stderr[-200:]!r}")
    if "iperf Done." not in cli.stdout or "receiver" not in cli.stdout:
        probs.append("the report is not complete")
    report("unwritable: error line, exit 1, report printed", probs)


def stock():
    for ver, path in stock_peers(want=("3.21",)):
        probs, _, _ = client_case("stock_c", ["-P", "2"], sbin=path)
        report(f"stock: our client vs {ver} server", probs)
        out = os.path.join(TMP, "stock_s.prom")
        cli, sout, _ = pair(["-t", "1", "-u"],
                            ("-1", "-J", "--metrics", out), cbin=path)
        probs = [] if cli.returncode == 0 else [f"exit {cli.returncode}"]
        m = load(out)
        compare(probs, m, json.loads(sout)["end"]["sum_received"], "upload",
                RECEIVED + UDP)
        report(f"stock: our server with a {ver} UDP client", probs)


CASES = [tcp, udp, parallel, reverse, bidir, server_role, atomic,
         unwritable, stock]

if __name__ == "__main__":
    try:
        rc = run_cases(CASES, FILTER)
    finally:
        for n in os.listdir(TMP):
            os.unlink(os.path.join(TMP, n))
        os.rmdir(TMP)
    sys.exit(rc)
