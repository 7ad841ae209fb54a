#!/usr/bin/env python3
"""docs/iperf3-json.schema.json against real output.

  captures   every -J document and --json-stream line in the stock
             captures (../shared/spec/captures/3.21 and 3.12 beside the
             checkout, or $IPERF3_SPEC_CAPTURES; skipped visibly when
             absent) and in tests/data/captures: *.json, *.jsonl and the
             JSON sections of the *.txt transcripts (client/server stdout)
  ours       client and server documents of our program for TCP, UDP,
             -P 2, -R, --bidir, -O 1, --rr, --latency, UDP -R, UDP
             --bidir, -F, an error document (connection refused), the
             --json-stream events (client and a --max-tests server's,
             which carry "test"), --get-server-output (server_output_json
             validated as a document too; server_output_text)
  stock      our client against a 3.21 server and a 3.21 client against
             our server (where 3.21 is present)
  negative   the schema refuses a document with a wrong type, a missing
             required key or an unknown event (it does check)

Needs the jsonschema module (Debian python3-jsonschema, 4.10 or later:
draft 2020-12); without it the script says SKIP and exits 77.

Usage: schema.py OURS [FILTER]
"""

import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (check_schema, free_port, json_values,  # noqa: E402
                     report, run_cases, schema_validator, shared_path, skip,
                     stock_peers, stop, wait_listening)

OURS = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.join(HERE, "..", "data", "captures")


def spec_captures():
    return shared_path("IPERF3_SPEC_CAPTURES", "spec", "captures")


def check_values(values, what):
    """Problems of each value: an event line or a document."""
    probs = []
    for n, v in enumerate(values):
        ev = isinstance(v, dict) and "event" in v and "data" in v
        probs += check_schema(v, f"{what}#{n}", event=ev)
        if ev and v["event"] == "server_output_json":
            probs += check_schema(v["data"], f"{what}#{n} server output")
        elif not ev and isinstance(v, dict) and \
                isinstance(v.get("server_output_json"), dict):
            probs += check_schema(v["server_output_json"],
                                  f"{what} server_output_json")
    return probs


def transcript_sections(text):
    """The stdout sections of a capture transcript that hold JSON."""
    for m in re.finditer(r"^=== (client|server) stdout ===\n(.*?)"
                         r"(?=^=== |\Z)", text, re.M | re.S):
        body = m.group(2)
        if body.lstrip().startswith("{"):
            yield m.group(1), body


def check_capture_dir(label, d):
    files = sorted(glob.glob(os.path.join(d, "*.json")) +
                   glob.glob(os.path.join(d, "*.jsonl")) +
                   glob.glob(os.path.join(d, "*.txt")))
    n = 0
    probs = []
    for path in files:
        name = os.path.basename(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if name.endswith(".txt"):
            parts = list(transcript_sections(text))
            if not parts and text.lstrip().startswith("{"):
                parts = [("file", text)]
        else:
            parts = [("file", text)]
        for side, body in parts:
            try:
                values = json_values(body)
            except ValueError as e:
                probs.append(f"{name} {side}: not JSON: {e}")
                continue
            n += len(values)
            probs += check_values(values, f"{name} {side}")
    report(f"captures {label}: {n} JSON values in {len(files)} files",
           probs if n else [f"no JSON found in {d}"])


def captures():
    base = spec_captures()
    for ver in ("3.21", "3.12"):
        d = os.path.join(base, ver)
        if not os.path.isdir(d):
            skip(f"captures {ver}: {d} absent (set IPERF3_SPEC_CAPTURES)")
            continue
        check_capture_dir(ver, d)
    check_capture_dir("tests/data/captures", CAPTURES)


def run_pair(server_bin, client_bin, sargs, cargs, label):
    """Our (or a stock) server -1 and client; both stdouts validated."""
    port = free_port()
    srv = subprocess.Popen([server_bin, "-s", "-1", "-p", str(port)] + sargs,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    probs = []
    t0 = time.time()
    try:
        if not wait_listening(port, srv, time.time() + 10):
            report(label, ["server did not listen"])
            return
        cli = subprocess.run([client_bin, "-c", "127.0.0.1", "-p", str(port)]
                             + cargs, capture_output=True, text=True,
                             timeout=40)
        sout, _ = srv.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        report(label, ["timed out"])
        return
    finally:
        stop(srv)
    sides = [("client", cli.stdout)]
    if "-J" in sargs or "--json-stream" in sargs:
        sides.append(("server", sout))
    for side, text in sides:
        if not text.strip():
            probs.append(f"{side}: no output")
            continue
        try:
            probs += check_values(json_values(text), side)
        except ValueError as e:
            probs.append(f"{side}: not JSON: {e}: {text[-200:]!r}")
    report(label, probs, time.time() - t0)


OUR_CASES = [
    ("tcp", ["-t", "1"]),
    ("udp", ["-u", "-b", "10M", "-t", "1"]),
    ("tcp -P 2", ["-P", "2", "-t", "1"]),
    ("tcp -R", ["-R", "-t", "1"]),
    ("tcp --bidir", ["--bidir", "-t", "1"]),
    ("tcp -O 1", ["-O", "1", "-t", "2"]),
    ("tcp --rr", ["--rr", "-t", "1"]),
    ("udp --rr", ["--rr", "-u", "-t", "1"]),
    ("tcp --latency", ["--latency", "-t", "1"]),
    ("udp -R", ["-u", "-R", "-b", "10M", "-t", "1"]),
    ("udp --bidir -P 2", ["-u", "--bidir", "-P", "2", "-b", "5M", "-t", "1"]),
    ("tcp --get-server-output", ["--get-server-output", "-t", "1"]),
    ("udp --get-server-output -R", ["--get-server-output", "-u", "-R",
                                    "-b", "5M", "-t", "1"]),
    ("-T and --extra-data", ["-T", "t", "--extra-data", "x", "-t", "1"]),
]


def ours():
    for label, args in OUR_CASES:
        run_pair(OURS, OURS, ["-J"], ["-J"] + args, f"ours {label}")
    # -F: end.streams[].diskfile
    with tempfile.NamedTemporaryFile(prefix="schema.", suffix=".bin") as f:
        f.write(os.urandom(1 << 20))
        f.flush()
        run_pair(OURS, OURS, ["-J"], ["-J", "-F", f.name, "-t", "1"],
                 "ours -F")
    run_pair(OURS, OURS, [], ["-J", "--get-server-output", "-t", "1"],
             "ours --get-server-output from a text server")
    run_pair(OURS, OURS, ["--json-stream"],
             ["--json-stream", "--get-server-output", "-t", "1"],
             "ours --json-stream (server_output_json event)")
    run_pair(OURS, OURS, [], ["--json-stream", "--json-stream-full-output",
                              "--get-server-output", "-u", "-b", "1M",
                              "-t", "1"],
             "ours --json-stream-full-output (server_output_text event)")
    refused()
    multi_stream()


def refused():
    port = free_port()
    probs = []
    for args in (["-J"], ["--json-stream"]):
        p = subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port)] + args,
                           capture_output=True, text=True, timeout=30)
        vals = json_values(p.stdout)
        probs += check_values(vals, args[0])
        if not any("error" in v or v.get("event") == "error" for v in vals):
            probs.append(f"{args[0]}: no error")
    report("ours error documents (connection refused)", probs)


def multi_stream():
    """A --max-tests server's --json-stream events carry "test"."""
    port = free_port()
    srv = subprocess.Popen([OURS, "-s", "--max-tests", "2", "-p", str(port),
                            "--json-stream"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    probs = []
    try:
        if not wait_listening(port, srv, time.time() + 10):
            report("ours --max-tests --json-stream", ["did not listen"])
            return
        subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "1"],
                       capture_output=True, timeout=30)
        time.sleep(0.5)
    finally:
        stop(srv, grace=5)
    vals = json_values(srv.stdout.read())
    probs += check_values(vals, "server")
    if not vals or not all(isinstance(v.get("test"), int) for v in vals):
        probs.append(f"events without test: {[v.get('test') for v in vals]}")
    report("ours --max-tests server --json-stream", probs)


def stock():
    for ver, path in stock_peers(want=("3.21",)):
        for label, args in (("tcp", ["-t", "1"]),
                            ("udp -R", ["-u", "-R", "-b", "5M", "-t", "1"]),
                            ("--bidir --get-server-output",
                             ["--bidir", "--get-server-output", "-t", "1"])):
            run_pair(path, OURS, ["-J"], ["-J"] + args,
                     f"ours client, {ver} server: {label}")
            run_pair(OURS, path, ["-J"], ["-J"] + args,
                     f"{ver} client, our server: {label}")


def negative():
    probs = []
    with open(os.path.join(CAPTURES, "tcp_json.client.json")) as f:
        good = json.load(f)
    if check_schema(good, "good"):
        probs.append("a good document does not validate")
    bad = copy.deepcopy(good)
    bad["intervals"][0]["sum"]["bytes"] = 1.5
    if not check_schema(bad, "bad"):
        probs.append("a float byte count validates")
    bad = copy.deepcopy(good)
    del bad["end"]
    if not check_schema(bad, "bad"):
        probs.append("a document without end validates")
    bad = copy.deepcopy(good)
    bad["start"]["test_start"]["protocol"] = "QUIC"
    if not check_schema(bad, "bad"):
        probs.append("an unknown protocol validates")
    if not check_schema({"event": "intervals", "data": {}}, "bad", True):
        probs.append("an unknown event validates")
    if not check_schema({"event": "interval", "data": {"sum": {}}}, "b", True):
        probs.append("an interval event without streams validates")
    good["future_key"] = {"anything": [1]}
    if check_schema(good, "unknown key"):
        probs.append("an unknown key is refused (must be ignored)")
    report("negative: the schema refuses what it should", probs)


if __name__ == "__main__":
    if schema_validator() is None:
        print("SKIP: python3-jsonschema not installed (the jsonschema "
              "module is missing)")
        sys.exit(77)
    sys.exit(run_cases([negative, captures, ours, stock], FILTER))
