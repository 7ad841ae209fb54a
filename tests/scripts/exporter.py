#!/usr/bin/env python3
"""iperf3 --exporter on loopback, by its effect (src/exporter/).

  cli        --exporter with -s or -c, with an option it does not take,
             with a bad value, and its options without it: refused at
             start (exit 1); a name in --exporter-allow that does not
             resolve: refused at start
  endpoints  the "Exporter listening on ADDR:PORT" line; /health and
             /ready 200 "OK"; 404; 405 (POST) with Allow; HEAD; IPv6 [::1]
  probe_ours TCP, UDP, TCP -R and UDP -R against our server: HTTP 200,
             the names, types and label sets of iperf3_exporter (parsed
             by prometheus_client) plus ours, probe_success 1, bytes > 0
  probe_321  the same against iperf3 3.21's server
  bad        400 (missing target, bad bool, bitrate, period, port, bind,
             period above --exporter-max-period), each a one-line reason
  forbidden  403: a target outside the default (loopback) list, a name
             resolving outside --exporter-allow, a bind address that is
             not on this host
  busy       --exporter-max-probes 1 and two probes at once: one 503, the
             other 200; /metrics counts the 503
  refused    a closed port: iperf3_up 0, probe_success 0 within 2 s, the
             error in the exporter's log with the target
  timeout    a target that accepts the connection and never answers:
             probe_success 0 within the scrape timeout less 0.5 s (+0.8 s);
             the period shortened to fit, and both logged
  capped     --exporter-max-bitrate 2M and a probe asking 500M: capped
             (iperf3_bitrate_capped 1, the bytes of 2 Mbit/s, a log line)
  isolated   two probes at once against two servers succeed while a third
             hangs on a silent target
  metrics    /metrics: the summary and the counter move with the probes
  shutdown   SIGTERM during a probe: exit 0 within 3 s

A build without the exporter (no libmicrohttpd, --disable-exporter) is
checked to refuse --exporter with exit 1; the cases above then skip.

Usage: exporter.py OURS [FILTER]
"""

import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import testlib
from testlib import free_port, report, start_server, stop

OURS = None
TMP = None

# iperf3_exporter's families (edgard/iperf3_exporter): every one a gauge
# labelled target and port; UDP's only for UDP, retransmits only for TCP.
COMMON = ["iperf3_up", "iperf3_sent_seconds", "iperf3_sent_bytes",
          "iperf3_received_seconds", "iperf3_received_bytes"]
TCP_ONLY = ["iperf3_retransmits"]
UDP_ONLY = ["iperf3_sent_packets", "iperf3_sent_jitter_ms",
            "iperf3_sent_lost_packets", "iperf3_sent_lost_percent",
            "iperf3_received_packets", "iperf3_received_jitter_ms",
            "iperf3_received_lost_packets", "iperf3_received_lost_percent"]
BLACKBOX = ["probe_success", "probe_duration_seconds"]
# Ours (the names of --metrics where it has the figure): summaries (their
# quantiles labelled "quantile", their _count not) and gauges.
OURS_FAMILIES = {"iperf3_rtt_seconds": "summary",
                 "iperf3_udp_delay_variation_seconds": "summary",
                 "iperf3_udp_lost_in_receiver_packets": "gauge",
                 "iperf3_bitrate_capped": "gauge"}


# ---- the exporter -------------------------------------------------------------

class Exporter:
    """iperf3 --exporter ADDR:0 ARGS; .port once it said it listens; its
    log (stderr) in a file."""

    def __init__(self, *args, addr="127.0.0.1"):
        self.log = tempfile.NamedTemporaryFile(dir=TMP, delete=False)
        self.addr = addr
        spec = f"[{addr}]:0" if ":" in addr else f"{addr}:0"
        self.p = subprocess.Popen([OURS, "--exporter", spec, *args],
                                  stdout=subprocess.PIPE, stderr=self.log,
                                  text=True)
        self.line = ""
        if select.select([self.p.stdout], [], [], 10)[0]:
            self.line = self.p.stdout.readline().strip()
        try:
            self.port = int(self.line.rsplit(":", 1)[1])
        except (IndexError, ValueError):
            stop(self.p)
            raise RuntimeError(f"no listening line: {self.line!r} "
                               f"({self.log_text()[-200:]!r})") from None

    def url(self, path):
        host = f"[{self.addr}]" if ":" in self.addr else self.addr
        return f"http://{host}:{self.port}{path}"

    def get(self, path, headers=None, method="GET", timeout=40):
        """(status, body text, headers, seconds)."""
        req = urllib.request.Request(self.url(path), headers=headers or {},
                                     method=method)
        t0 = time.time()
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read().decode(), r.headers, time.time() - t0
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), e.headers, time.time() - t0

    def log_text(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def close(self):
        rc = stop(self.p, grace=5)
        self.p.stdout.close()
        self.log.close()
        return rc

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def parse(text):
    """{family: (type, [(name, labels, value)])} of exposition text, read
    line by line (our own reading, beside prometheus_client's)."""
    fams, kind = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            kind[name] = typ
            fams.setdefault(name, (typ, []))
            continue
        if not line or line.startswith("#"):
            continue
        head, value = line.rsplit(" ", 1)
        name, labels = head, {}
        if "{" in head:
            name, rest = head.split("{", 1)
            for part in rest.rstrip("}").split('",'):
                k, v = part.split("=", 1)
                labels[k] = v.strip('"')
        fam = name
        for suffix in ("_sum", "_count", "_total"):
            if name.endswith(suffix) and name[:-len(suffix)] in kind:
                fam = name[:-len(suffix)]
        if fam not in fams:
            fams[fam] = (kind.get(fam, "untyped"), [])
        fams[fam][1].append((name, labels, float(value)))
    return fams


def value(fams, name, **labels):
    """The value of the sample `name` with those labels, or None."""
    for _, samples in fams.values():
        for n, l, v in samples:
            if n == name and all(l.get(k) == str(x)
                                 for k, x in labels.items()):
                return v
    return None


def prom_problems(text):
    """What prometheus_client's parser says of text ([] when it reads it,
    or when it is not installed: then a SKIP line once)."""
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        if not getattr(prom_problems, "said", False):
            testlib.skip("prometheus_client not installed: the exposition "
                         "is read by this script alone")
            prom_problems.said = True
        return []
    try:
        fams = list(text_string_to_metric_families(text))
    except Exception as e:  # noqa: BLE001 (reported)
        return [f"prometheus_client: {e}"]
    return [] if fams else ["prometheus_client: no family"]


def shape_problems(text, udp, target, port):
    """The families of a successful probe against the list."""
    probs = prom_problems(text)
    fams = parse(text)
    want = COMMON + (UDP_ONLY if udp else TCP_ONLY)
    for name in want:
        typ, samples = fams.get(name, (None, []))
        if typ != "gauge" or len(samples) != 1:
            probs.append(f"{name}: {typ}, {len(samples)} samples")
        elif samples[0][1] != {"target": target, "port": str(port)}:
            probs.append(f"{name} labels {samples[0][1]}")
    for name in BLACKBOX:
        typ, samples = fams.get(name, (None, []))
        if typ != "gauge" or [s[1] for s in samples] != [{}]:
            probs.append(f"{name}: {typ} {samples}")
    for name, (typ, samples) in fams.items():
        if name in want or name in BLACKBOX:
            continue
        if name not in OURS_FAMILIES:
            probs.append(f"unexpected family {name}")
            continue
        if typ != OURS_FAMILIES[name]:
            probs.append(f"{name}: {typ}")
        for sample, labels, _ in samples:
            keys = {"target", "port"} | ({"quantile"} if sample == name and
                                         typ == "summary" else set())
            if set(labels) != keys:
                probs.append(f"{sample} labels {labels}")
    for name in (UDP_ONLY if not udp else TCP_ONLY):
        if name in fams:
            probs.append(f"{name} in a {'UDP' if udp else 'TCP'} probe")
    return probs, fams


# ---- cases -----------------------------------------------------------------------

def cli():
    bad = [["--exporter", "0", "-s"], ["-c", "127.0.0.1", "--exporter", "0"],
           ["--exporter", "0", "-p", "5201"], ["--exporter", "0", "-u"],
           ["--exporter", "x"], ["--exporter", "[::1]"],
           ["--exporter", "0", "--exporter-max-probes", "0"],
           ["--exporter", "0", "--exporter-max-period", "-1"],
           ["--exporter", "0", "--exporter-max-bitrate", "1X"],
           ["-s", "--exporter-allow", "127.0.0.1"], ["--exporter"],
           ["--exporter", "0", "--exporter-allow", "no-such-name.invalid"]]
    probs = []
    for args in bad:
        rc, out, err, secs = testlib.timed_run([OURS, *args], 20)
        if rc != 1 or "iperf3: " not in err or secs > 15:
            probs.append(f"{' '.join(args)}: exit {rc}, {err.strip()[:100]!r}")
    report("cli: bad uses refused at start", probs)


def endpoints():
    probs = []
    with Exporter() as ex:
        if not ex.line.startswith("Exporter listening on 127.0.0.1:"):
            probs.append(f"line {ex.line!r}")
        for path in ("/health", "/ready"):
            st, body, _, _ = ex.get(path)
            if (st, body) != (200, "OK"):
                probs.append(f"{path}: {st} {body!r}")
        st, body, _, _ = ex.get("/health", method="HEAD")
        if (st, body) != (200, ""):
            probs.append(f"HEAD /health: {st} {body!r}")
        st, body, _, _ = ex.get("/no/such")
        if st != 404:
            probs.append(f"/no/such: {st}")
        st, _, hdrs, _ = ex.get("/probe?target=127.0.0.1", method="POST")
        if st != 405 or "GET" not in (hdrs.get("Allow") or ""):
            probs.append(f"POST: {st} Allow {hdrs.get('Allow')}")
        st, body, hdrs, _ = ex.get("/metrics")
        if st != 200 or "version=0.0.4" not in (hdrs.get("Content-Type") or ""):
            probs.append(f"/metrics: {st} {hdrs.get('Content-Type')}")
    if socket.has_ipv6 and testlib._bindable(0, socket.AF_INET6):
        try:
            with Exporter(addr="::1") as ex:
                st, body, _, _ = ex.get("/health")
                if not ex.line.startswith("Exporter listening on [::1]:") \
                        or st != 200:
                    probs.append(f"[::1]: {ex.line!r} {st}")
        except (RuntimeError, OSError) as e:
            probs.append(f"[::1]: {e}")
    report("endpoints: listening line, /health, /ready, 404, 405, HEAD",
           probs)


def probe_all(server_prog, what):
    port = free_port()
    srv = start_server([server_prog, "-s", "-p", str(port)], port)
    probs = []
    try:
        with Exporter() as ex:
            for q, udp in (("", False), ("&udp_mode=1", True),
                           ("&reverse_mode=true", False),
                           ("&udp_mode=T&reverse_mode=1&bitrate=5M", True)):
                st, text, _, secs = ex.get(f"/probe?target=127.0.0.1&port="
                                           f"{port}&period=1s{q}")
                name = f"{'UDP' if udp else 'TCP'}{' -R' if 'reverse' in q else ''}"
                if st != 200:
                    probs.append(f"{name}: HTTP {st}: {text.strip()[:100]}")
                    continue
                more, fams = shape_problems(text, udp, "127.0.0.1", port)
                probs += [f"{name}: {m}" for m in more]
                if value(fams, "probe_success") != 1 or \
                        not (value(fams, "iperf3_received_bytes") or 0) > 0:
                    probs.append(f"{name}: not a success: "
                                 f"{ex.log_text()[-200:]!r}")
                if secs > 6:
                    probs.append(f"{name}: {secs:.1f} s")
                # a stock server closes and reopens its listener
                time.sleep(0.3)
    finally:
        stop(srv)
    report(f"probe_{what}: TCP, UDP and -R, the names, types and labels",
           probs)


def probe_ours():
    probe_all(OURS, "ours")


def probe_321():
    peer = testlib.peer_321_path()
    if testlib.peer_version(peer) is None:
        testlib.skip(f"probe_321: iperf3 3.21 not found or not runnable at "
                     f"{peer} (set IPERF3_PEER_321)")
        return
    probe_all(peer, "321")


def bad():
    cases = [("", "missing parameter 'target'"),
             ("?port=5201", "missing parameter 'target'"),
             ("?target=127.0.0.1&reverse_mode=yes", "invalid reverse_mode"),
             ("?target=127.0.0.1&udp_mode=2", "invalid udp_mode"),
             ("?target=127.0.0.1&bitrate=10mbit", "invalid bitrate"),
             ("?target=127.0.0.1&period=5", "invalid period"),
             ("?target=127.0.0.1&period=0s", "invalid period"),
             ("?target=127.0.0.1&period=11s", "above the maximum of 10s"),
             ("?target=127.0.0.1&port=70000", "invalid port"),
             ("?target=127.0.0.1&bind=localhost", "invalid bind"),
             ("?target=a%20b", "invalid target"),
             ("?target=127.0.0.1%0Ax", "invalid target")]
    probs = []
    with Exporter("--exporter-max-period", "10") as ex:
        for q, why in cases:
            st, body, _, secs = ex.get("/probe" + q)
            if st != 400 or why not in body or body.count("\n") != 1 or \
                    secs > 2:
                probs.append(f"{q}: {st} {body!r}")
    report("bad: 400 with a one-line reason", probs)


def forbidden():
    probs = []
    with Exporter() as ex:
        for q, why in (("?target=192.0.2.1", "not allowed"),
                       ("?target=[2001:db8::1]:5201", "not allowed"),
                       ("?target=127.0.0.1&bind=192.0.2.1",
                        "not an address of this host")):
            st, body, _, _ = ex.get("/probe" + q)
            if st != 403 or why not in body:
                probs.append(f"{q}: {st} {body!r}")
    with Exporter("--exporter-allow", "127.0.0.2/32") as ex:
        st, body, _, _ = ex.get("/probe?target=localhost")
        if st != 403:
            probs.append(f"localhost outside 127.0.0.2/32: {st} {body!r}")
        st, text, _, _ = ex.get(f"/probe?target=127.0.0.2&port={free_port()}")
        if st != 200:
            probs.append(f"127.0.0.2 inside: {st}")
    report("forbidden: 403 outside the list and for a foreign bind address",
           probs)


def silent_target():
    """A listener that accepts and never answers; (port, close())."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(64)
    held = []

    def accept():
        while True:
            try:
                held.append(lsock.accept()[0])
            except OSError:
                return
    threading.Thread(target=accept, daemon=True).start()

    def close():
        lsock.close()
        for s in held:
            s.close()
    return lsock.getsockname()[1], close


def busy():
    probs = []
    sport, close = silent_target()
    try:
        with Exporter("--exporter-max-probes", "1") as ex:
            first = []
            t = threading.Thread(target=lambda: first.append(ex.get(
                f"/probe?target=127.0.0.1&port={sport}",
                {"X-Prometheus-Scrape-Timeout-Seconds": "3"})))
            t.start()
            time.sleep(0.5)
            st, body, _, secs = ex.get(f"/probe?target=127.0.0.1&port={sport}")
            if st != 503 or "too many probes" not in body or secs > 1:
                probs.append(f"second: {st} {body!r} {secs:.1f} s")
            t.join(10)
            if not first or first[0][0] != 200:
                probs.append(f"first: {first[:1]}")
            fams = parse(ex.get("/metrics")[1])
            if value(fams, "iperf3_exporter_rejected_total", code=503) != 1:
                probs.append("503 not counted")
    finally:
        close()
    report("busy: 503 beyond --exporter-max-probes", probs)


def refused():
    port = free_port()
    with Exporter() as ex:
        st, text, _, secs = ex.get(f"/probe?target=127.0.0.1&port={port}")
        time.sleep(0.2)
        log = ex.log_text()
    fams = parse(text)
    probs = prom_problems(text)
    if st != 200 or value(fams, "iperf3_up", target="127.0.0.1",
                          port=port) != 0 or \
            value(fams, "probe_success") != 0 or secs > 2:
        probs.append(f"{st}, {secs:.1f} s: {text[-300:]!r}")
    if f"probe of 127.0.0.1 port {port} failed" not in log:
        probs.append(f"log: {log[-200:]!r}")
    report("refused: a closed port is iperf3_up 0 at once, logged", probs)


def timeout():
    sport, close = silent_target()
    probs = []
    try:
        with Exporter() as ex:
            for hdr in ("3", "2.5"):
                st, text, _, secs = ex.get(
                    f"/probe?target=127.0.0.1&port={sport}&period=5s",
                    {"X-Prometheus-Scrape-Timeout-Seconds": hdr})
                fams = parse(text)
                if st != 200 or value(fams, "probe_success") != 0 or \
                        not float(hdr) - 0.7 < secs < float(hdr) - 0.5 + 0.8:
                    probs.append(f"header {hdr}: {st} in {secs:.2f} s")
            time.sleep(0.2)
            if "stopped at the deadline" not in ex.log_text() or \
                    "period 5s shortened to 1 s" not in ex.log_text():
                probs.append(f"log: {ex.log_text()[-200:]!r}")
    finally:
        close()
    report("timeout: a silent target answered within the scrape timeout",
           probs)


def capped():
    port = free_port()
    srv = start_server([OURS, "-s", "-p", str(port)], port)
    probs = []
    try:
        with Exporter("--exporter-max-bitrate", "2M") as ex:
            st, text, _, _ = ex.get(f"/probe?target=127.0.0.1&port={port}"
                                    f"&period=2s&bitrate=500M")
            time.sleep(0.2)
            log = ex.log_text()
    finally:
        stop(srv)
    fams = parse(text)
    sent = value(fams, "iperf3_sent_bytes") or 0
    if st != 200 or value(fams, "iperf3_bitrate_capped") != 1 or \
            not 0 < sent < 2 * 2e6 / 8 * 1.5:
        probs.append(f"{st}: capped {value(fams, 'iperf3_bitrate_capped')}, "
                     f"sent {sent}")
    if "capped to 2000000" not in log:
        probs.append(f"log: {log[-200:]!r}")
    report("capped: the bitrate lowered to --exporter-max-bitrate", probs)


def isolated():
    ports = [free_port(), free_port()]
    srvs = [start_server([OURS, "-s", "-p", str(p)], p) for p in ports]
    sport, close = silent_target()
    probs, res = [], {}
    try:
        with Exporter() as ex:
            def one(key, q, hdrs=None):
                res[key] = ex.get(q, hdrs)
            ts = [threading.Thread(target=one, args=(
                "silent", f"/probe?target=127.0.0.1&port={sport}",
                {"X-Prometheus-Scrape-Timeout-Seconds": "4"}))]
            ts += [threading.Thread(target=one, args=(
                p, f"/probe?target=127.0.0.1&port={p}&period=2s"
                   f"{'&udp_mode=1' if i else ''}")) for i, p in enumerate(ports)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(20)
            for p in ports:
                st, text, _, secs = res.get(p, (None, "", None, 0))
                if st != 200 or value(parse(text), "probe_success") != 1:
                    probs.append(f"port {p}: {st} {text[-200:]!r}")
            if value(parse(res.get("silent", (0, ""))[1]),
                     "probe_success") != 0:
                probs.append("the silent target succeeded")
    finally:
        close()
        for s in srvs:
            stop(s)
    report("isolated: probes at once, one of them hanging", probs)


def metrics():
    port = free_port()
    srv = start_server([OURS, "-s", "-p", str(port)], port)
    probs = []
    try:
        with Exporter() as ex:
            before = ex.get("/metrics")[1]
            probs += prom_problems(before)
            ex.get(f"/probe?target=127.0.0.1&port={port}&period=1s")
            ex.get(f"/probe?target=127.0.0.1&port={free_port()}")
            ex.get("/probe")
            after = ex.get("/metrics")[1]
    finally:
        stop(srv)
    probs += prom_problems(after)
    b, a = parse(before), parse(after)
    if b.get("iperf3_exporter_duration_seconds", ("",))[0] != "summary" or \
            b.get("iperf3_exporter_errors_total", ("",))[0] != "counter":
        probs.append(f"types: {sorted((k, v[0]) for k, v in b.items())}")
    if value(a, "iperf3_exporter_duration_seconds_count") != 2 or \
            not (value(a, "iperf3_exporter_duration_seconds_sum") or 0) > 0.9 \
            or value(a, "iperf3_exporter_errors_total") != 1 or \
            value(a, "iperf3_exporter_rejected_total", code=400) != 1 or \
            value(b, "iperf3_exporter_errors_total") != 0:
        probs.append(f"after: {after[-600:]!r}")
    report("metrics: the exporter's own, moving with the probes", probs)


def shutdown():
    sport, close = silent_target()
    probs = []
    try:
        ex = Exporter()

        def probe():
            try:
                ex.get(f"/probe?target=127.0.0.1&port={sport}&period=20s",
                       timeout=30)
            except OSError:
                pass  # the connection closed as the exporter stops
        t = threading.Thread(target=probe)
        t.start()
        time.sleep(0.5)
        t0 = time.time()
        ex.p.send_signal(signal.SIGTERM)
        try:
            rc = ex.p.wait(5)
        except subprocess.TimeoutExpired:
            rc = None
        secs = time.time() - t0
        ex.close()
        t.join(5)
        if rc != 0 or secs > 3:
            probs.append(f"exit {rc} after {secs:.1f} s")
    finally:
        close()
    report("shutdown: SIGTERM during a probe ends the exporter", probs)


def without_exporter():
    """A build without the exporter (no libmicrohttpd, or configure
    --disable-exporter): --exporter refused at once, exit 1.  False when
    --help lists the option (the exporter is built)."""
    rc, out, err, _ = testlib.timed_run([OURS, "--help"], 20)
    if "  --exporter " in out:
        return False
    rc, out, err, _ = testlib.timed_run([OURS, "--exporter", "9579"], 20)
    report("a build without the exporter refuses --exporter",
           [] if rc == 1 and ("built without the exporter" in err or
                              "unrecognized option" in err)
           else [f"exit {rc}: {err.strip()[:200]!r}"])
    return True


CASES = [cli, endpoints, probe_ours, probe_321, bad, forbidden, busy, refused,
         timeout, capped, isolated, metrics, shutdown]


def main():
    global OURS, TMP
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    OURS = os.path.abspath(sys.argv[1])
    filt = sys.argv[2] if len(sys.argv) > 2 else ""
    if without_exporter():
        testlib.skip("the other cases: built without the exporter")
        return testlib.summary()
    TMP = tempfile.mkdtemp(prefix="exporter-")
    try:
        return testlib.run_cases(CASES, filt)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
