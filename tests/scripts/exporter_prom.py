#!/usr/bin/env python3
"""The exporter (`iperf3 --exporter`) as Prometheus uses it:

  prometheus  Debian's prometheus server (our own instance on loopback,
              never the packaged service) scrapes /probe with the
              multi-target relabel recipe for a TCP and a UDP target
              served by ours and by 3.21 (four jobs); its query API returns
              probe_success 1 and iperf3_received_bytes > 0 for each, and
              the series' names and label sets are iperf3_exporter's
  syn_drop    a target whose SYNs are dropped (nftables in a private
              namespace): probe_success 0 and iperf3_up 0 within the
              scrape timeout the request names, the error in the
              exporter's log; the exporter goes on serving

Usage: exporter_prom.py OURS [FILTER]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (Netns, NetnsUnavailable, free_port, peer_321_path,  # noqa: E402
                     peer_version, report, run_cases, skip, start_server,
                     stop, wait_listening)
from exporter import BLACKBOX, COMMON, TCP_ONLY, UDP_ONLY  # noqa: E402

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""

# iperf3_exporter's families and blackbox's two: exporter.py's lists.
PROBE = BLACKBOX
# What Prometheus adds to every scrape by itself.
SYNTHETIC = {"up", "scrape_duration_seconds", "scrape_samples_scraped",
             "scrape_samples_post_metric_relabeling", "scrape_series_added"}


def exporter_supported():
    try:
        out = subprocess.run([OURS, "--help"], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--exporter " in out


def start_exporter(argv_prefix, port, deadline_s=10):
    """Our exporter on 127.0.0.1:port (argv_prefix runs it in a
    namespace); returns the process once it listens."""
    err = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(argv_prefix + [OURS, "--exporter",
                                        f"127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=err, text=True)
    p.errfile = err
    return p


def read_err(p):
    p.errfile.seek(0)
    return p.errfile.read()


def http_get(url, headers=None, timeout=20):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def prom_query(base, q):
    st, body = http_get(f"{base}/api/v1/query?" +
                        urllib.parse.urlencode({"query": q}))
    if st != 200:
        return None
    return json.loads(body)["data"]["result"]


def prom_series(base, match):
    st, body = http_get(f"{base}/api/v1/series?" +
                        urllib.parse.urlencode({"match[]": match}))
    if st != 200:
        return None
    return json.loads(body)["data"]


def case_prometheus():
    probs = []
    prom = shutil.which("prometheus")
    if prom is None:
        skip("prometheus: Debian's prometheus server not installed "
             "(apt-get install --no-install-recommends prometheus)")
        return None
    peer = peer_321_path()
    have321 = peer_version(peer) is not None
    if not have321:
        skip(f"prometheus: 3.21 targets (iperf3 3.21 not found at {peer})")
    procs = []
    tmp = tempfile.mkdtemp(prefix="iperf3-prom-")
    try:
        targets = []  # (job, server program, udp)
        for who, prog in [("ours", OURS)] + ([("v321", peer)] if have321 else []):
            for udp in (False, True):
                port = free_port()
                procs.append(start_server([prog, "-s", "-p", str(port)],
                                          port, pipes=False))
                targets.append((f"{who}_{'udp' if udp else 'tcp'}", port, udp))
        eport = free_port()
        exp = start_exporter([], eport)
        procs.append(exp)
        if not wait_listening(eport, exp, time.time() + 10):
            return [f"exporter did not listen: {read_err(exp)[-300:]!r}"]
        pport = free_port()
        jobs = []
        for job, port, udp in targets:
            params = {"port": [str(port)], "period": ["1s"]}
            if udp:
                params["udp_mode"] = ["true"]
                params["bitrate"] = ["10M"]
            jobs.append({
                "job_name": job,
                "metrics_path": "/probe",
                "scrape_interval": "5s",
                "scrape_timeout": "4s",
                "params": params,
                "static_configs": [{"targets": ["127.0.0.1"]}],
                "relabel_configs": [
                    {"source_labels": ["__address__"],
                     "target_label": "__param_target"},
                    {"source_labels": ["__param_target"],
                     "target_label": "instance"},
                    {"target_label": "__address__",
                     "replacement": f"127.0.0.1:{eport}"},
                ],
            })
        jobs.append({"job_name": "exporter",
                     "scrape_interval": "5s", "scrape_timeout": "4s",
                     "static_configs": [{"targets": [f"127.0.0.1:{eport}"]}]})
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(cfg, "w") as f:
            # JSON is YAML: no YAML writer needed.
            json.dump({"global": {"scrape_interval": "5s"},
                       "scrape_configs": jobs}, f)
        chk = shutil.which("promtool")
        if chk:
            r = subprocess.run([chk, "check", "config", cfg],
                               capture_output=True, text=True, timeout=30)
            if r.returncode != 0:
                return [f"promtool check config: {r.stdout}{r.stderr}"]
        perr = open(os.path.join(tmp, "prometheus.log"), "w+")
        pp = subprocess.Popen([prom, f"--config.file={cfg}",
                               f"--storage.tsdb.path={tmp}/data",
                               f"--web.listen-address=127.0.0.1:{pport}",
                               "--log.level=warn"],
                              stdout=subprocess.DEVNULL, stderr=perr)
        procs.append(pp)
        if not wait_listening(pport, pp, time.time() + 30):
            perr.seek(0)
            return [f"prometheus did not listen: {perr.read()[-400:]!r}"]
        base = f"http://127.0.0.1:{pport}"
        want_jobs = {t[0] for t in targets}
        deadline = time.time() + 45
        ok_jobs = set()
        while time.time() < deadline:
            ok_jobs = set()
            succ = prom_query(base, "probe_success == 1") or []
            rx = prom_query(base, "iperf3_received_bytes > 0") or []
            sj = {r["metric"].get("job") for r in succ}
            rj = {r["metric"].get("job") for r in rx}
            ok_jobs = want_jobs & sj & rj
            own = prom_query(base, "iperf3_exporter_duration_seconds_count"
                             '{job="exporter"}')
            if ok_jobs == want_jobs and own and \
                    float(own[0]["value"][1]) >= len(want_jobs):
                break
            time.sleep(1)
        if ok_jobs != want_jobs:
            missing = sorted(want_jobs - ok_jobs)
            probs.append(f"no probe_success 1 with iperf3_received_bytes > 0 "
                         f"within 45 s for {missing}; exporter log "
                         f"{read_err(exp)[-400:]!r}")
            up = prom_query(base, "up") or []
            probs.append("up: " + ", ".join(
                f"{r['metric'].get('job')}={r['value'][1]}" for r in up))
        for job, port, udp in targets:
            series = prom_series(base, f'{{job="{job}"}}') or []
            names = {}
            for s in series:
                n = s["__name__"]
                if n in SYNTHETIC:
                    continue
                labels = frozenset(k for k in s if k not in
                                   ("__name__", "job", "instance"))
                names.setdefault(n, set()).add(labels)
            want = COMMON + PROBE + (UDP_ONLY if udp else TCP_ONLY)
            lack = [n for n in want if n not in names]
            if lack:
                probs.append(f"{job}: series missing {lack}")
            wrong = (TCP_ONLY if udp else UDP_ONLY)
            extra = [n for n in wrong if n in names]
            if extra:
                probs.append(f"{job}: series of the other protocol {extra}")
            for n, sets in sorted(names.items()):
                if n in PROBE:
                    if sets != {frozenset()}:
                        probs.append(f"{job}: {n} labels {sorted(map(sorted, sets))}, "
                                     "want none")
                elif n in want:
                    if sets != {frozenset(("target", "port"))}:
                        probs.append(f"{job}: {n} labels {sorted(map(sorted, sets))}, "
                                     "want target, port")
            v = prom_query(base, f'iperf3_received_bytes{{job="{job}"}}') or []
            if v and v[0]["metric"].get("port") != str(port):
                probs.append(f"{job}: port label {v[0]['metric'].get('port')!r}, "
                             f"want {port}")
            if v and v[0]["metric"].get("target") != "127.0.0.1":
                probs.append(f"{job}: target label {v[0]['metric'].get('target')!r}")
        if not own:
            probs.append("the exporter's own /metrics: no "
                         "iperf3_exporter_duration_seconds_count scraped")
        elif float(own[0]["value"][1]) < len(want_jobs):
            probs.append(f"iperf3_exporter_duration_seconds_count "
                         f"{own[0]['value'][1]} < {len(want_jobs)} probes")
        return probs
    finally:
        for p in procs:
            stop(p, grace=5)
        shutil.rmtree(tmp, ignore_errors=True)


FETCH = r"""
import sys, time, urllib.request
url, tmo = sys.argv[1], sys.argv[2]
t0 = time.time()
req = urllib.request.Request(url, headers={"X-Prometheus-Scrape-Timeout-Seconds": tmo})
try:
    with urllib.request.urlopen(req, timeout=30) as r:
        st, body = r.status, r.read().decode()
except urllib.error.HTTPError as e:
    st, body = e.code, e.read().decode(errors="replace")
print(st, round(time.time() - t0, 3))
print(body)
"""


def case_syn_drop():
    try:
        ns = Netns("exporter", nft=True)
    except NetnsUnavailable as e:
        skip(f"syn_drop: {e}")
        return None
    with ns:
        dport = free_port()
        r = ns.run("nft", "-f", "-", input=(
            "table inet synblock {\n"
            " chain input {\n"
            "  type filter hook input priority 0;\n"
            f"  tcp dport {dport} drop\n"
            " }\n"
            "}\n"))
        if r.returncode != 0:
            return [f"nft: {r.stderr!r}"]
        eport = free_port()
        exp = start_exporter(ns.argv(), eport)
        try:
            if not ns.wait_listening(eport, exp, time.time() + 10):
                return [f"exporter did not listen in the namespace: "
                        f"{read_err(exp)[-300:]!r}"]
            probs = []
            py = sys.executable
            url = (f"http://127.0.0.1:{eport}/probe?target=127.0.0.1"
                   f"&port={dport}&period=5s")
            for tmo in ("3", "2.5"):
                r = ns.run(py, "-c", FETCH, url, tmo, timeout=40)
                lines = (r.stdout or "").split("\n", 1)
                try:
                    st, secs = lines[0].split()
                    st, secs = int(st), float(secs)
                except ValueError:
                    probs.append(f"timeout {tmo}: no answer ({r.stdout!r} "
                                 f"{r.stderr!r})")
                    continue
                body = lines[1] if len(lines) > 1 else ""
                vals = {}
                for ln in body.splitlines():
                    if ln.startswith("#") or not ln.strip():
                        continue
                    name = ln.split("{")[0].split()[0]
                    vals[name] = ln.split()[-1]
                if st != 200:
                    probs.append(f"timeout {tmo}: HTTP {st}, want 200")
                if float(vals.get("probe_success", "nan")) != 0:
                    probs.append(f"timeout {tmo}: probe_success "
                                 f"{vals.get('probe_success')!r}, want 0")
                if float(vals.get("iperf3_up", "nan")) != 0:
                    probs.append(f"timeout {tmo}: iperf3_up "
                                 f"{vals.get('iperf3_up')!r}, want 0")
                if secs > float(tmo) + 0.3:
                    probs.append(f"timeout {tmo}: answered after {secs} s "
                                 f"(past the scrape timeout)")
                print(f"# syn_drop: timeout {tmo} s answered in {secs} s "
                      f"(HTTP {st})")
            log = read_err(exp)
            if "127.0.0.1" not in log:
                probs.append(f"the exporter's log does not name the target: "
                             f"{log[-300:]!r}")
            # Still serving.
            r = ns.run(py, "-c", FETCH, f"http://127.0.0.1:{eport}/health",
                       "3", timeout=20)
            if not (r.stdout or "").startswith("200"):
                probs.append(f"/health after the drops: {r.stdout!r}")
            if exp.poll() is not None:
                probs.append(f"the exporter exited ({exp.returncode})")
            return probs
        finally:
            stop(exp, grace=5)


def reported(label, fn):
    def case():
        t0 = time.time()
        probs = fn()
        if probs is not None:
            report(label, probs, time.time() - t0)
    case.__name__ = label
    return case


CASES = [reported("prometheus", case_prometheus),
         reported("syn_drop", case_syn_drop)]

if __name__ == "__main__":
    if not exporter_supported():
        skip(f"{OURS} is built without --exporter (configure found no "
             "libmicrohttpd, or --disable-exporter)")
        if os.environ.get("CI") == "true":
            print("FAIL: CI builds with the exporter")
            print("0 passed, 1 failed")
            sys.exit(1)
        sys.exit(77)
    sys.exit(run_cases(CASES, FILTER))
