#!/usr/bin/env python3
"""Replay the 3.21 captures with our iperf3 and compare the output line
by line, numbers aside.

Each capture in spec/captures/3.21 records the server and client command
lines and their stdout/stderr.  We run the same commands with our binary
(both ends ours, on a free port) and compare every line after normalising
what legitimately differs between runs: numbers (a number keeps no
width: ' *digits' becomes ' #'), unit prefixes (KBytes/MBytes, ...),
cookies, dates, the uname line, and the server's optional zero-length
final interval ('3.00-3.00 sec', or a few hundredths under load).  Spaces, including trailing spaces,
column order and every word must match.

Usage: capture_shapes.py OURS CAPTURE_DIR [name-filter]
"""

import json
import os
import re
import shlex
import subprocess
import sys

from testlib import (OUR_KEY, check_schema, count, free_port, one_test,
                     summary)

# Captures whose features are implemented; others are added with them.
CASES = [
    "tcp_basic", "tcp_reverse", "tcp_bidir", "tcp_bidir_P2", "tcp_parallel2",
    "tcp_omit", "tcp_verbose", "tcp_verbose_bidir", "tcp_bytes_n",
    "tcp_blocks_k", "tcp_format_k", "tcp_format_M", "tcp_title",
    "tcp_timestamps", "tcp_timestamps_fmt", "tcp_get_server_output",
    "udp_basic", "udp_reverse", "udp_bidir", "udp_parallel2", "udp_omit",
    "udp_default_rate", "udp_big_len", "tcp_cntl_ka", "tcp_server_max_duration",
    "tcp_server_max_duration_exceeded", "server_limit",
]

# Captures whose JSON documents are compared by ordered key paths.
JSON_CASES = [
    "tcp_json", "tcp_json_P2", "tcp_json_bidir", "tcp_json_extra",
    "tcp_json_omit", "tcp_json_reverse", "tcp_get_server_output_json_both",
    "udp_json", "udp_json_reverse", "udp_json_bidir_P2",
    "tcp_json_stream", "tcp_json_stream_server", "udp_json_stream",
]

DAYS = r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
MONTHS = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"


# What our output adds by design, on top of 3.21's (docs/iperf3.1): -V names
# this implementation after the version, says which of our control
# connection defaults are in effect, and which data path a test took
# ("data path: ...", "TCP -b: ...", "UDP receiver: ...", "UDP receive
# buffer: ..." past rmem_max);
# JSON has start.implementation.
OUR_VERSION = re.compile(r"^(.*iperf [0-9.]+) \(iperf3-compat [^)]*\)$")
OUR_LINES = re.compile(r"\(default; --(no-cntl-ka: none|snd-timeout 0: the "
                       r"system setting)\)$|^(data path: |TCP -b: \d+ sending "
                       r"stream|UDP receiver: after a short read, |UDP "
                       r"receive buffer: \d+ bytes, past )")


def ours_only_removed(lines):
    """Our output without what we add by design (see OUR_LINES)."""
    return [OUR_VERSION.sub(r"\1", ln) for ln in lines
            if not OUR_LINES.search(ln)]


def normalise(line):
    if re.match(r"^(\S+ )?Linux \S+ ", line) and "#" in line:
        return "<uname>"
    line = re.sub(r"Cookie: [a-z2-7]{36}", "Cookie: <cookie>", line)
    line = re.sub(DAYS, "<day>", line)
    line = re.sub(MONTHS, "<mon>", line)
    line = re.sub(r"\b(?:[KMGT])?(Bytes|bits|Byte|bit)(?=/sec|\b)", r"<u\1>",
                  line)
    line = re.sub(r" *\d+(\.\d+)?(e[+-]\d+)?", " #", line)
    return line


def zero_interval(line):
    """The server's final interval after the client's last one: data that
    arrived after the last tick; how long it lasts (0.00 to a few
    hundredths of a second) depends on scheduling, so it is optional."""
    m = re.search(r"(\d+\.\d+)-(\d+\.\d+) +sec", line)
    return m is not None and float(m.group(2)) - float(m.group(1)) < 0.1


def clean(lines):
    out = []
    for ln in lines:
        if zero_interval(ln):
            continue
        if out and ln.startswith("- - -") and out[-1].startswith("- - -"):
            continue
        out.append(ln)
    # a separator left before the summary separator by a dropped block
    return out


def parse_capture(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    cmds = dict(re.findall(r"^### command \((server|client)\): (.*)$", text,
                           re.M))
    parts = {}
    for m in re.finditer(r"^=== (client|server) (stdout|stderr) ===\n(.*?)"
                         r"(?=^=== |\Z)", text, re.M | re.S):
        parts[(m.group(1), m.group(2))] = m.group(3).splitlines()
    return cmds, parts


def our_argv(ours, cmd, port):
    argv = shlex.split(cmd)
    argv[0] = ours
    for i, a in enumerate(argv):
        if a == "-p" and i + 1 < len(argv):
            argv[i + 1] = str(port)
    return argv


def run_case(ours, capdir, name):
    cmds, want = parse_capture(os.path.join(capdir, name + ".txt"))
    port = free_port()
    # the captures are 3.21 against 3.21: our client asks for no clamp
    # (a capped server's refusal, not an iperf3-compat clamp)
    client = our_argv(ours, cmds["client"], port)
    client.insert(1, "--no-clamp")
    cli, _, sout, serr = one_test(our_argv(ours, cmds["server"], port),
                                  client, 40)
    got = {("client", "stdout"): cli.stdout.splitlines(),
           ("client", "stderr"): cli.stderr.splitlines(),
           ("server", "stdout"): sout.splitlines(),
           ("server", "stderr"): serr.splitlines()}
    problems = []
    for key, lines in want.items():
        w = [normalise(x) for x in clean(lines)]
        g = [normalise(x) for x in
             clean(ours_only_removed(got.get(key, [])))]
        if w != g:
            for i in range(max(len(w), len(g))):
                a = w[i] if i < len(w) else "<missing>"
                b = g[i] if i < len(g) else "<missing>"
                if a != b:
                    problems.append(f"{key[0]} {key[1]} line {i + 1}:\n"
                                    f"      3.21: {a!r}\n      ours: {b!r}")
                    break
    return problems


def ordered_paths(obj, prefix="", out=None):
    """Key paths in document order (first occurrence), arrays as [],
    without the keys only we add (OUR_KEY)."""
    if out is None:
        out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{prefix}.{k}" if prefix else k
            if OUR_KEY.search(p):
                continue
            if p not in out:
                out.append(p)
            ordered_paths(v, p, out)
    elif isinstance(obj, list):
        for v in obj:
            ordered_paths(v, prefix + "[]", out)
    return out


def json_docs(text, stream):
    """The documents of a -J output (one) or --json-stream (one per line)."""
    if not stream:
        return [json.loads(text)]
    return [json.loads(ln) for ln in text.splitlines() if ln.strip()]


def stream_paths(docs):
    """Per event name, the ordered key paths (events may repeat)."""
    out = {}
    for d in docs:
        ordered_paths(d.get("data"), d.get("event", "?"), out.setdefault(
            d.get("event", "?"), []))
    return out


def run_json_case(ours, capdir, name):
    cmds, _ = parse_capture(os.path.join(capdir, name + ".txt"))
    port = free_port()
    cli, _, sout, _ = one_test(our_argv(ours, cmds["server"], port),
                               our_argv(ours, cmds["client"], port), 40)
    problems = []
    for side, text in (("client", cli.stdout), ("server", sout)):
        for ext, stream in ((".json", False), (".jsonl", True)):
            path = os.path.join(capdir, f"{name}.{side}{ext}")
            if not os.path.exists(path):
                continue
            want = json_docs(open(path).read(), stream)
            try:
                got = json_docs(text, stream)
            except ValueError as e:
                problems.append(f"{side}: not JSON: {e}")
                continue
            for d in got:
                problems += check_schema(d, f"{side}{ext}", stream)
            if stream:
                w, g = stream_paths(want), stream_paths(got)
                same = list(w) == list(g) and w == g
            else:
                w, g = ordered_paths(want[0]), ordered_paths(got[0])
                same = w == g
            if not same:
                problems.append(f"{side}{ext}: key paths differ\n"
                                f"      3.21: {w}\n      ours: {g}")
    return problems


def main():
    ours, capdir = sys.argv[1], sys.argv[2]
    filt = sys.argv[3] if len(sys.argv) > 3 else ""
    for names, run, what in ((CASES, run_case, ""),
                             (JSON_CASES, run_json_case, " (JSON key order)")):
        for name in names:
            if filt and filt not in name:
                continue
            try:
                probs = run(ours, capdir, name)
            except (subprocess.TimeoutExpired, KeyError, OSError) as e:
                probs = [f"could not run: {e!r}"]
            print(("FAIL: " if probs else "PASS: ") + name + what +
                  ("\n    " + "\n    ".join(probs) if probs else ""))
            count(not probs)
            sys.stdout.flush()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
