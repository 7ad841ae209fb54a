#!/usr/bin/env python3
"""The server's live figures (src/server/server_stats.c) and their HTTP
endpoint (src/server/server_metrics_http.c), through tests/unit/stats_dump
(a registry with a sample of everything counted):

  text      its rendering passes `promtool check metrics` and reads back
            with prometheus_client's text parser: every family, its type,
            the sample's values, the histogram cumulative
  http      served on 127.0.0.1 port 0: GET /metrics (200, the 0.0.4
            content type, the same families), HEAD (no body), another
            path 404, POST 405; [::1] where there is IPv6
  spec      a malformed [ADDR:]PORT and a port in use are refused, saying
            why

Built without libmicrohttpd, the http and spec cases cannot run: "SKIP:
built without libmicrohttpd" (77), or a failure when CI=true (CI builds
with it).

Usage: server_stats.py STATS_DUMP [FILTER]
"""

import http.client
import os
import shutil
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import report, run_cases, skip, stop  # noqa: E402

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

DUMP = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
CT = "text/plain; version=0.0.4; charset=utf-8"

FAMILIES = {
    "iperf3_server_tests_running": "gauge",
    "iperf3_server_tests": "counter",
    "iperf3_server_refusals": "counter",
    "iperf3_server_bytes": "counter",
    "iperf3_server_test_duration_seconds": "histogram",
    "iperf3_server_limits_hit": "counter",
    "iperf3_server_start_time_seconds": "gauge",
    "process_open_fds": "gauge",
    "process_max_fds": "gauge",
    "process_resident_memory_bytes": "gauge",
    "process_cpu_seconds": "counter",
}

# (sample name, labels) -> value, from stats_dump's sample()
WANT = {
    ("iperf3_server_tests_running", (("protocol", "TCP"),)): 1,
    ("iperf3_server_tests_running", (("protocol", "UDP"),)): 0,
    ("iperf3_server_tests_total", (("protocol", "TCP"), ("result", "ok"))): 1,
    ("iperf3_server_tests_total", (("protocol", "UDP"), ("result", "error"))): 1,
    ("iperf3_server_tests_total", (("protocol", "SCTP"), ("result", "ok"))): 1,
    ("iperf3_server_tests_total", (("protocol", "UDP"), ("result", "ok"))): 0,
    ("iperf3_server_refusals_total", (("reason", "busy"),)): 1,
    ("iperf3_server_refusals_total", (("reason", "per_ip"),)): 2,
    ("iperf3_server_refusals_total", (("reason", "other"),)): 1,
    ("iperf3_server_refusals_total", (("reason", "denied"),)): 0,
    ("iperf3_server_bytes_total", (("direction", "sent"),)): 1239,
    ("iperf3_server_bytes_total", (("direction", "received"),)): 1250000006,
    ("iperf3_server_limits_hit_total", (("limit", "duration"),)): 1,
    ("iperf3_server_limits_hit_total", (("limit", "bitrate"),)): 1,
    ("iperf3_server_limits_hit_total", (("limit", "streams"),)): 0,
    ("iperf3_server_test_duration_seconds_count", ()): 3,
    ("iperf3_server_test_duration_seconds_bucket", (("le", "1"),)): 1,
    ("iperf3_server_test_duration_seconds_bucket", (("le", "10"),)): 1,
    ("iperf3_server_test_duration_seconds_bucket", (("le", "30"),)): 2,
    ("iperf3_server_test_duration_seconds_bucket", (("le", "300"),)): 2,
    ("iperf3_server_test_duration_seconds_bucket", (("le", "600"),)): 3,
    ("iperf3_server_test_duration_seconds_bucket", (("le", "+Inf"),)): 3,
}


def check_text(text, what):
    """Problems of an exposition text: families, types, values."""
    probs = []
    try:
        fams = {f.name: f for f in text_string_to_metric_families(text)}
    except Exception as e:  # noqa: BLE001 (reported)
        return [f"{what}: the parser refused it: {e}"]
    for name, typ in FAMILIES.items():
        if name not in fams:
            probs.append(f"{what}: no family {name}")
        elif fams[name].type != typ:
            probs.append(f"{what}: {name} is a {fams[name].type}, not a {typ}")
    got = {}
    for f in fams.values():
        for s in f.samples:
            got[(s.name, tuple(sorted(s.labels.items())))] = s.value
            if "addr" in s.labels or "host" in s.labels or "peer" in s.labels:
                probs.append(f"{what}: a series by address: {s.name}{s.labels}")
    for key, v in WANT.items():
        if got.get(key) != v:
            probs.append(f"{what}: {key[0]}{dict(key[1])} is {got.get(key)}, not {v}")
    dsum = got.get(("iperf3_server_test_duration_seconds_sum", ()))
    if dsum is None or abs(dsum - 410.27) > 1e-6:
        probs.append(f"{what}: duration sum {dsum}, not 410.27")
    buckets = [v for (n, _), v in got.items()
               if n == "iperf3_server_test_duration_seconds_bucket"]
    if len(buckets) != 10:
        probs.append(f"{what}: {len(buckets)} buckets, not 10")
    return probs


def dump():
    r = subprocess.run([DUMP], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError(f"stats_dump: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def text():
    """The rendered sample: promtool and the parser."""
    out = dump()
    probs = check_text(out, "text")
    report("text: read back with prometheus_client", probs)
    if shutil.which("promtool") is None:
        skip("promtool: not installed (Debian's prometheus package)")
        return
    r = subprocess.run(["promtool", "check", "metrics"], input=out,
                       capture_output=True, text=True, timeout=60)
    report("text: promtool check metrics",
           [] if r.returncode == 0 else [(r.stdout + r.stderr).strip()[:500]])


class Served:
    """stats_dump SPEC running; .port once it listens."""

    def __init__(self, spec):
        self.p = subprocess.Popen([DUMP, spec], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        self.port = int(line.split()[1]) if line.startswith("port ") else None
        if self.port is None:
            self.rc = self.p.wait(timeout=10)
            self.err = self.p.stderr.read().strip()

    def close(self):
        if self.port is not None:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                stop(self.p)
        for f in (self.p.stdout, self.p.stderr):
            f.close()


def no_http():
    """Built without libmicrohttpd: SKIP, or fail under CI."""
    s = Served("127.0.0.1:0")
    s.close()
    return s.port is None and s.rc == 3


def request(host, port, method, path):
    c = http.client.HTTPConnection(host, port, timeout=10)
    c.request(method, path, body=b"x" if method == "POST" else None)
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    return r.status, r.getheader("Content-Type"), r.getheader("Content-Length"), \
        r.getheader("Allow"), body


def serve_on(host, spec, label):
    s = Served(spec)
    if s.port is None:
        report(label, [f"not served: exit {s.rc}: {s.err}"])
        return
    probs = []
    try:
        st, ct, cl, _, body = request(host, s.port, "GET", "/metrics")
        if st != 200 or ct != CT:
            probs.append(f"GET /metrics: {st} {ct}")
        probs += check_text(body, "GET /metrics")
        if cl != str(len(body.encode())):
            probs.append(f"GET /metrics: Content-Length {cl}, body {len(body)}")
        st, ct, cl, _, body = request(host, s.port, "HEAD", "/metrics")
        if st != 200 or ct != CT or body != "" or not cl or int(cl) < 1000:
            probs.append(f"HEAD /metrics: {st} {ct} length {cl} body {len(body)}")
        for path in ("/", "/metrics/", "/other", "/metrics?x=1"):
            st, _, _, _, body = request(host, s.port, "GET", path)
            want = 200 if path == "/metrics?x=1" else 404
            if st != want:
                probs.append(f"GET {path}: {st}, not {want}")
        st, _, _, allow, _ = request(host, s.port, "POST", "/metrics")
        if st != 405 or allow != "GET, HEAD":
            probs.append(f"POST /metrics: {st}, Allow {allow}")
    finally:
        s.close()
    report(label, probs)


def http_v4():
    serve_on("127.0.0.1", "127.0.0.1:0", "http: 127.0.0.1")
    serve_on("127.0.0.1", "0", "http: the default address (127.0.0.1)")


def http_v6():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as t:
            t.bind(("::1", 0))
    except OSError:
        skip("http: [::1]: no IPv6 loopback")
        return
    serve_on("::1", "[::1]:0", "http: [::1]")


def spec():
    probs = []
    for bad in ("localhost:9100", "9100:", "99999", "[::1]9100"):
        s = Served(bad)
        s.close()
        if s.port is not None or s.rc != 2 or \
                f"invalid metrics address '{bad}'" not in s.err:
            probs.append(f"{bad}: {s.port} exit {getattr(s, 'rc', None)} "
                         f"{getattr(s, 'err', '')}")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        s = Served(f"127.0.0.1:{port}")
        s.close()
        if s.port is not None or s.rc != 2 or f"port {port}" not in s.err:
            probs.append(f"a port in use: {s.port} {getattr(s, 'err', '')}")
    report("spec: malformed or busy, refused with the reason", probs)


def main():
    nohttp = no_http()
    ci = os.environ.get("CI") == "true"
    if nohttp and ci:
        report("http: built without libmicrohttpd under CI=true "
               "(apt-get install libmicrohttpd-dev; configure "
               "--with-libmicrohttpd)", ["no HTTP in this build"])
    rc = run_cases([text] if nohttp else [text, http_v4, http_v6, spec],
                   FILTER)
    if nohttp and not ci:
        skip("built without libmicrohttpd")
        return 77 if rc == 0 else rc
    return rc


if __name__ == "__main__":
    sys.exit(main())
