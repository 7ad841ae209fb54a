#!/usr/bin/env python3
"""-J written as the run goes (report_json_doc.c) with flat memory.

Cases (loopback, ours on both ends unless said):
  same_bytes   the streamed document is byte for byte what cJSON_Print of
               the whole document gives: IPERF3_JSON_WHOLE_COPY=FILE (a
               test hook) makes the same run also keep the whole document
               and print it to FILE; client and server, TCP, -P 2 -R, UDP,
               UDP -R, --bidir -O 1, -T/--extra-data/--get-server-output
  partial      mid-run the output already holds start and the first
               intervals ({\\n\\t"start":\\t{ ... "intervals":\\t[{) and is
               not yet a complete document; complete at the end
  rss_flat     VmRSS of a -J -i 0.1 -P 8 client at 3 s and at 12 s: the
               difference stays under RSS_SLACK_KB (it grew by megabytes
               when every interval was kept)
  errors       connection refused (nothing streamed), the server killed
               mid-run and SIGINT mid-run: one complete document each, the
               "error" key after "end" as before
  server_out   a client asking for --get-server-output gets the server's
               whole document (intervals included) while the server prints
               its own; a 3.21 client does too, where present
  json_stream  --json-stream lines unchanged: one event per line, start,
               intervals, end
Every document is checked against docs/iperf3-json.schema.json where
python3-jsonschema is present (testlib.check_schema).

Usage: json_stream_out.py OURS [FILTER]
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (check_schema, free_port, report, run_cases,  # noqa: E402
                     stock_peers, stop, wait_listening)

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
TMP = tempfile.mkdtemp(prefix="json_stream_out.")
RSS_SLACK_KB = 768
HOOK = "IPERF3_JSON_WHOLE_COPY"


def path(name):
    return os.path.join(TMP, name)


def server(args=(), env=None, binary=OURS, out=subprocess.PIPE):
    port = free_port()
    srv = subprocess.Popen([binary, "-s", "-1", "-p", str(port)] + list(args),
                           stdout=out, stderr=subprocess.PIPE, env=env)
    if not wait_listening(port, srv, time.time() + 10):
        stop(srv)
        raise RuntimeError("server did not listen")
    return srv, port


def hook_env(name):
    env = dict(os.environ)
    env[HOOK] = path(name)
    try:
        os.unlink(env[HOOK])
    except OSError:
        pass
    return env


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


def doc_problems(raw, what, probs):
    """The parsed document, or None with a problem appended."""
    try:
        doc = json.loads(raw)
    except ValueError as e:
        probs.append(f"{what}: not JSON ({e}): {raw[-200:]!r}")
        return None
    for p in check_schema(doc, what):
        probs.append(p)
    return doc


def compare(raw, name, what, probs):
    """raw (what was streamed) equals the hook's whole-document print."""
    try:
        whole = read(name)
    except OSError:
        probs.append(f"{what}: no whole copy written (not streamed?)")
        return
    if raw != whole:
        i = next((k for k in range(min(len(raw), len(whole)))
                  if raw[k] != whole[k]), min(len(raw), len(whole)))
        probs.append(f"{what}: differs at byte {i} of {len(raw)}/"
                     f"{len(whole)}: {raw[max(0, i - 40):i + 40]!r} vs "
                     f"{whole[max(0, i - 40):i + 40]!r}")


SAME_CASES = [
    ("tcp", ["-t", "1", "-i", "0.2"]),
    ("P2_R", ["-t", "1", "-i", "0.25", "-P", "2", "-R"]),
    ("udp", ["-u", "-b", "5M", "-t", "1", "-i", "0.25"]),
    ("udp_R", ["-u", "-b", "5M", "-t", "1", "-R"]),
    ("bidir_O1", ["-t", "2", "-O", "1", "-i", "0.5", "--bidir"]),
    ("trailer", ["-t", "1", "-T", "tit\"le", "--extra-data", "x\ny",
                 "--get-server-output"]),
]


def same_bytes():
    for label, args in SAME_CASES:
        probs = []
        t0 = time.time()
        srv, port = server(["-J"], env=hook_env("srv_" + label))
        try:
            cli = subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port),
                                  "-J"] + args, capture_output=True,
                                 env=hook_env("cli_" + label), timeout=30)
            sout, _ = srv.communicate(timeout=15)
        finally:
            stop(srv)
        if cli.returncode != 0:
            probs.append(f"client exit {cli.returncode}: "
                         f"{cli.stderr[-200:]!r}")
        compare(cli.stdout, "cli_" + label, "client", probs)
        doc = doc_problems(cli.stdout, "client", probs)
        if doc is not None and not doc.get("intervals"):
            probs.append("client: no intervals")
        if "--get-server-output" in args:
            # The server kept its whole document to send it: not streamed.
            if os.path.exists(path("srv_" + label)):
                probs.append("server streamed though its document was asked")
            so = (doc or {}).get("server_output_json") or {}
            if not so.get("intervals"):
                probs.append("server_output_json without intervals")
            else:
                check_schema(so, "server_output_json")
        else:
            compare(sout, "srv_" + label, "server", probs)
        doc_problems(sout, "server", probs)
        report(f"same_bytes {label}", probs, time.time() - t0)


def partial():
    probs = []
    srv, port = server()
    out = path("partial.json")
    try:
        with open(out, "wb") as f:
            cli = subprocess.Popen([OURS, "-c", "127.0.0.1", "-p", str(port),
                                    "-J", "-t", "3", "-i", "0.5", "-b", "1M"],
                                   stdout=f, stderr=subprocess.DEVNULL)
            time.sleep(1.8)
            mid = read("partial.json")
            rc = cli.wait(20)
    finally:
        stop(srv)
    if not mid.startswith(b'{\n\t"start":\t{\n'):
        probs.append(f"mid-run output starts {mid[:40]!r}")
    if b'"intervals":\t[{' not in mid:
        probs.append("no interval written mid-run")
    try:
        json.loads(mid)
        probs.append("mid-run output is already a whole document")
    except ValueError:
        pass
    if b'\n\t"end":' in mid:
        probs.append("end written before the end")
    if rc != 0:
        probs.append(f"client exit {rc}")
    doc = doc_problems(read("partial.json"), "final", probs)
    if doc is not None and len(doc.get("intervals", [])) < 5:
        probs.append(f"{len(doc.get('intervals', []))} intervals (want 6)")
    report("partial document mid-run", probs)


def vmrss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def rss_flat():
    probs = []
    srv, port = server(out=subprocess.DEVNULL)
    try:
        cli = subprocess.Popen([OURS, "-c", "127.0.0.1", "-p", str(port),
                                "-J", "-i", "0.1", "-P", "8", "-b", "5M",
                                "-t", "13"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(3)
        early = vmrss_kb(cli.pid)
        time.sleep(9)
        late = vmrss_kb(cli.pid)
        rc = cli.wait(20)
    finally:
        stop(srv)
    if rc != 0:
        probs.append(f"client exit {rc}")
    if early is None or late is None:
        probs.append("VmRSS not readable")
    elif late - early > RSS_SLACK_KB:
        probs.append(f"VmRSS grew {late - early} kB in 9 s "
                     f"({early} -> {late}; bound {RSS_SLACK_KB})")
    report(f"rss flat ({early} -> {late} kB over 9 s of -i 0.1 -P 8)", probs)


def keys_after_end(doc, probs, what):
    keys = list(doc)
    if keys[:3] != ["start", "intervals", "end"]:
        probs.append(f"{what}: keys {keys}")
    if "error" not in keys:
        probs.append(f"{what}: no error")


def errors():
    # refused: nothing was streamed, the whole document as before
    probs = []
    port = free_port()
    cli = subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port), "-J"],
                         capture_output=True, timeout=30)
    doc = doc_problems(cli.stdout, "refused", probs)
    if doc is not None:
        keys_after_end(doc, probs, "refused")
    if cli.returncode != 1:
        probs.append(f"exit {cli.returncode}")
    report("errors: connection refused", probs)
    # the server killed mid-run, then SIGINT mid-run
    for label in ("server killed", "SIGINT"):
        probs = []
        srv, port = server(out=subprocess.DEVNULL)
        try:
            cli = subprocess.Popen([OURS, "-c", "127.0.0.1", "-p", str(port),
                                    "-J", "-t", "5", "-i", "0.2", "-b", "1M"],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
            time.sleep(1.2)
            if label == "SIGINT":
                cli.send_signal(signal.SIGINT)
            else:
                stop(srv)
            out, _ = cli.communicate(timeout=40)
        finally:
            stop(srv)
            stop(cli)
        doc = doc_problems(out, label, probs)
        if doc is not None:
            keys_after_end(doc, probs, label)
            if not doc.get("intervals"):
                probs.append("no intervals")
        report(f"errors: {label} mid-run", probs)


def server_out():
    peers = [("ours", OURS)] + [(v, p) for v, p in
                                stock_peers(want=("3.21",))]
    for label, client in peers:
        probs = []
        srv, port = server(["-J"])
        try:
            cli = subprocess.run([client, "-c", "127.0.0.1", "-p", str(port),
                                  "-J", "-t", "1", "-i", "0.25",
                                  "--get-server-output"],
                                 capture_output=True, timeout=30)
            sout, _ = srv.communicate(timeout=15)
        finally:
            stop(srv)
        doc = doc_problems(cli.stdout, "client", probs)
        sdoc = doc_problems(sout, "server", probs)
        so = (doc or {}).get("server_output_json")
        if not isinstance(so, dict) or not so.get("intervals"):
            probs.append("server_output_json lacks the intervals")
        elif sdoc is not None and len(sdoc.get("intervals", [])) != \
                len(so["intervals"]):
            probs.append("server printed other intervals than it sent")
        report(f"server_out: {label} client --get-server-output", probs)


def json_stream():
    probs = []
    srv, port = server()
    try:
        cli = subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port),
                              "--json-stream", "-t", "1", "-i", "0.25"],
                             capture_output=True, timeout=30)
    finally:
        stop(srv)
    events = []
    for line in cli.stdout.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            probs.append(f"line not JSON: {line[:80]!r}")
            continue
        probs.extend(check_schema(ev, "event", event=True))
        events.append(ev.get("event"))
    if not events or events[0] != "start" or events[-1] != "end" or \
            events.count("interval") < 3:
        probs.append(f"events {events}")
    report("json_stream lines unchanged", probs)


if __name__ == "__main__":
    try:
        sys.exit(run_cases([same_bytes, partial, rss_flat, errors,
                            server_out, json_stream], FILTER))
    finally:
        for n in os.listdir(TMP):
            os.unlink(os.path.join(TMP, n))
        os.rmdir(TMP)
