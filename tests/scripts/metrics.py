#!/usr/bin/env python3
"""--metrics FILE: OpenMetrics text read back with prometheus_client's
OpenMetrics parser, compared with the -J document of the same run.

Ours on both ends, on loopback:
  tcp       the families, labels (host, port, protocol, direction,
            stream="sum"), sent/received bytes and rates equal to
            end.sum_sent/sum_received, retransmits, rtt quantiles in order
  udp       -u: packets, lost, jitter (in seconds) from end.sum_received
  parallel  -P 2: the sums of both streams
  per stream  -P 3, --bidir -P 2, -R -P 2, -u -P 2 and a server's file:
            one series per stream and gauge (stream="<socket>", its
            direction) equal to end.streams[i], rtt summaries per sender
            stream, beside the sums
  reverse   -R: direction="download"
  bidir     --bidir: one series per direction, download from the
            _bidir_reverse sums
  server    a --metrics -J server: its own side only (upload: received
            figures, no sent ones), the client's address as host; its
            path is a pattern (FILE-1.prom for test 1, a test label)
  server patterns  two tests at once under --max-tests 2: a file each
            (m-1, m-2; p-{peer}-{test}), each with its test label
  failed run  a refused client replaces a good file with iperf3_success 0
            and the attempt's time, no figures
  max-tests ENOTDIR  a --max-tests server with a --metrics or --plot
            pattern under a regular file refuses to start
  later failure  a --max-tests server (-J, then text) whose directory
            becomes a regular file before test 2: test 2's
            end.output_errors / text report name the option, path and
            reason, test 3 writes its files, the server exits 0 on SIGINT
  promtool  every file made passes `promtool check metrics`
  atomic    an existing file is replaced (a new inode), no FILE.tmp.*
            left, mode 0666 less the umask (022: 0644, 077: 0600)
  unwritable  a missing directory, /proc/version: refused before any data
            (the option, the path, the reason; exit 1; the server never
            reached); a server with one refuses to start
Stock 3.21 (where present): our client against its server, our server
with its client.

Usage: metrics.py OURS [FILTER]   (needs python3-prometheus-client)
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (check_schema, free_port, report,  # noqa: E402
                     run_cases, skip, skip_unless_option, stock_peers, stop,
                     wait_listening)

try:
    from prometheus_client.openmetrics.parser import \
        text_string_to_metric_families
except ImportError:
    skip("python3-prometheus-client not installed for " + sys.executable)
    sys.exit(77)

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
skip_unless_option(OURS, "--metrics")
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
        ("iperf3_sent_bytes_per_second", "bits_per_second", 0.125)]
RECEIVED = [("iperf3_received_bytes", "bytes", 1),
            ("iperf3_received_bytes_per_second", "bits_per_second", 0.125)]
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


def streams_of(m, name):
    """{stream label: (direction, value)} of a family's per-stream series."""
    out = {}
    for (n, ls), v in m.items():
        d = dict(ls)
        if n == name and d.get("stream", "sum") != "sum":
            out[d["stream"]] = (d.get("direction"), v)
    return out


def check_streams(probs, m, end, client=True, bidir=False, udp=False,
                  direction="upload"):
    """One series per stream and gauge (stream="<socket>"), equal to that
    stream's record in end.streams[]."""
    want = {}
    for st in end["streams"]:
        if udp:
            rec = st["udp"]
            recs = [(SENT if rec["sender"] else RECEIVED, rec),
                    (UDP, rec)]
        else:
            rec = st["sender"]
            recs = [(SENT, st["sender"]), (RECEIVED, st["receiver"])]
            if not client:  # a server has its own side only
                recs = recs[1:] if not rec["sender"] else recs[:1]
        d = direction
        if bidir:
            d = "upload" if rec["sender"] == client else "download"
        for pairs, r in recs:
            for name, key, scale in pairs:
                want.setdefault(name, {})[str(rec["socket"])] = \
                    (d, r[key] * scale)
    for name, streams in want.items():
        got = streams_of(m, name)
        if set(got) != set(streams):
            probs.append(f"{name}: streams {sorted(got)}, want "
                         f"{sorted(streams)}")
            continue
        for sid, (d, v) in streams.items():
            if got[sid][0] != d or not close(got[sid][1], v):
                probs.append(f"{name}{{stream={sid}}} {got[sid]} != "
                             f"{(d, v)}")
    if not udp and client:
        rtt = streams_of(m, "iperf3_rtt_seconds_count")
        want = {str(st["sender"]["socket"]): st["sender"]["rtt_us"]["samples"]
                for st in end["streams"]
                if st["sender"].get("rtt_us", {}).get("samples")}
        if {k: v[1] for k, v in rtt.items()} != want:
            probs.append(f"rtt summary counts {rtt}, want {want}")


def per_stream():
    """-P 3, --bidir -P 2, UDP -P 2 and a server's file: per-stream
    series beside the sums."""
    for label, args, kw in (("streams", ["-P", "3"], {}),
                            ("streams-bidir", ["-P", "2", "--bidir"],
                             {"bidir": True}),
                            ("streams-reverse", ["-P", "2", "-R"],
                             {"direction": "download"}),
                            ("streams-udp", ["-P", "2", "-u"],
                             {"udp": True})):
        probs, m, end = client_case(label, args, **{
            k: v for k, v in kw.items() if k in ("udp", "direction")})
        check_streams(probs, m, end, **kw)
        n = len(streams_of(m, "iperf3_sent_bytes") or
                streams_of(m, "iperf3_received_bytes"))
        if n != len(end["streams"]):
            probs.append(f"{n} streams labelled, {len(end['streams'])} run")
        report(f"per stream {' '.join(args)}: a series per stream = -J",
               probs)
    path = os.path.join(TMP, "server-streams.prom")
    cli, sout, _ = pair(["-t", "1", "-P", "2"],
                        ("-1", "-J", "--metrics", path))
    probs = [] if cli.returncode == 0 else [f"exit {cli.returncode}"]
    m = load(os.path.join(TMP, "server-streams-1.prom"))
    check_streams(probs, m, json.loads(sout)["end"], client=False)
    report("per stream, server: its own side of each stream = its -J",
           probs)


def server_role():
    path = os.path.join(TMP, "server.prom")
    cli, sout, port = pair(["-t", "1", "-P", "2"],
                           ("-1", "-J", "--metrics", path))
    probs = [] if cli.returncode == 0 else [f"exit {cli.returncode}"]
    end = json.loads(sout)["end"]
    # a server's path is a pattern: test 1's file is server-1.prom
    m = load(os.path.join(TMP, "server-1.prom"))
    if value(m, "iperf3_received_bytes", test="1") is None:
        probs.append("no test=\"1\" label")
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
    """Checked before any data: the client stops at once with the option,
    the path and the reason, and never reaches the server (which still
    waits for its one test); a server refuses to start."""
    for path, why in ((os.path.join(TMP, "no", "such", "dir.prom"),
                       "No such file or directory"),
                      ("/proc/version", "No such file or directory")):
        srv, port = server(OURS, ("-1",))
        try:
            cli = subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port),
                                  "-t", "3", "--metrics", path],
                                 capture_output=True, text=True, timeout=30)
            time.sleep(0.3)
            probs = [] if cli.returncode == 1 else [f"exit {cli.returncode}"]
            want = f"iperf3: error - unable to write the --metrics file " \
                f"{path}: {why}"
            if want not in cli.stderr:
                probs.append(f"stderr {cli.stderr[-200:]!r}, want {want!r}")
            if "Connecting" in cli.stdout or srv.poll() is not None:
                probs.append("the client reached the server")
        finally:
            stop(srv)
        report(f"unwritable {path}: refused before any data", probs)
    r = subprocess.run([OURS, "-s", "-p", str(free_port()), "--metrics",
                        os.path.join(TMP, "no", "m.prom")],
                       capture_output=True, text=True, timeout=30)
    want = f"unable to write the --metrics file {TMP}/no/m.prom: No such " \
        "file or directory"
    report("unwritable: a server refuses to start", [] if r.returncode == 1
           and want in r.stderr else [f"exit {r.returncode}, {r.stderr!r}"])


def failed_run():
    """A test that fails writes its failure, never leaves the figures of
    an older test in place: iperf3_success 0 and the time of the attempt
    only."""
    path = os.path.join(TMP, "failed.prom")
    probs = []
    pair(["-t", "1", "--metrics", path])
    good = load(path)
    if value(good, "iperf3_success") != 1:
        probs.append(f"a good run: iperf3_success {value(good, 'iperf3_success')}")
    port = free_port()   # nobody listens there
    t0 = time.time()
    cli = subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "1",
                          "--metrics", path], capture_output=True, text=True,
                         timeout=30)
    m = load(path)
    if cli.returncode != 1:
        probs.append(f"refused run: exit {cli.returncode}")
    if value(m, "iperf3_success", port=str(port)) != 0:
        probs.append(f"iperf3_success {value(m, 'iperf3_success')}")
    start = value(m, "iperf3_test_start_timestamp_seconds")
    if start is None or abs(start - t0) > 5:
        probs.append(f"attempt time {start} (now {t0:.0f})")
    if value(m, "iperf3_sent_bytes") is not None:
        probs.append("figures in a failed run's file")
    report("failed run: iperf3_success 0 and the attempt's time", probs)


def promtool():
    """Every file this script made passes `promtool check metrics` (its
    lint: base units, suffixes)."""
    if shutil.which("promtool") is None:
        skip("promtool: not installed (Debian's prometheus package)")
        return
    probs = []
    made = [n for n in sorted(os.listdir(TMP)) if n.endswith(".prom")]
    for n in made:
        with open(os.path.join(TMP, n)) as f:
            r = subprocess.run(["promtool", "check", "metrics"], stdin=f,
                               capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            probs.append(f"{n}: {(r.stdout + r.stderr).strip()[:300]}")
    report(f"promtool check metrics: {len(made)} files", probs if made else
           ["no files"])


def server_patterns():
    """A server's path is a pattern: two tests at once under --max-tests
    write two files, each with its test label; {peer} and {test}."""
    probs = []
    for pattern, names in (("m.prom", ("m-1.prom", "m-2.prom")),
                           ("p-{peer}-{test}.prom",
                            ("p-127.0.0.1-1.prom", "p-127.0.0.1-2.prom"))):
        srv, port = server(OURS, ("--max-tests", "2", "--metrics",
                                  os.path.join(TMP, pattern)))
        try:
            clis = [subprocess.Popen([OURS, "-c", "127.0.0.1", "-p",
                                      str(port), "-t", "2"],
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
                    for _ in range(2)]
            for c in clis:
                if c.wait(timeout=30) != 0:
                    probs.append(f"{pattern}: a client exit {c.returncode}")
            time.sleep(0.5)
        finally:
            stop(srv)
        for i, n in enumerate(names):
            p = os.path.join(TMP, n)
            if not os.path.exists(p):
                probs.append(f"{pattern}: no {n} ({os.listdir(TMP)})")
                continue
            m = load(p)
            if value(m, "iperf3_received_bytes", test=str(i + 1)) is None:
                probs.append(f"{n}: no test=\"{i + 1}\" series")
    report("server patterns: a file per test, test labels", probs)


def side_options(d):
    """--metrics (and --plot where built) into directory d, as patterns."""
    opts = ["--metrics", os.path.join(d, "m.prom")]
    helptext = subprocess.run([OURS, "--help"], capture_output=True,
                              text=True, timeout=10).stdout
    if "--plot" in helptext:
        opts += ["--plot", os.path.join(d, "p.svg")]
    return opts


def max_tests_enotdir():
    """A --max-tests server whose pattern's directory is under a regular
    file (ENOTDIR: root ignores modes) refuses to start, for each
    option."""
    base = os.path.join(TMP, "regular-file")
    with open(base, "w"):
        pass
    opts = side_options(os.path.join(base, "sub"))
    for i in range(0, len(opts), 2):
        r = subprocess.run([OURS, "-s", "-p", str(free_port()),
                            "--max-tests", "2", opts[i], opts[i + 1]],
                           capture_output=True, text=True, timeout=30)
        want = f"unable to write the {opts[i]} file {opts[i + 1]}: Not a " \
            "directory"
        report(f"--max-tests server, {opts[i]} under a regular file: "
               f"refused at start", [] if r.returncode == 1 and want in
               r.stderr else [f"exit {r.returncode}, {r.stderr[-300:]!r}"])


def wait_files(d, names):
    """Until every file of names is in d (the server writes them after the
    client has its results), at most 10 s."""
    deadline = time.time() + 10
    while time.time() < deadline and not all(
            os.path.exists(os.path.join(d, n)) for n in names):
        time.sleep(0.05)
    time.sleep(0.1)


def run_three(srv, port, d, files):
    """Three tests in turn; d is replaced by a regular file for test 2 and
    made a directory again for test 3.  Problems, server out and err."""
    probs = []
    for t in (1, 2, 3):
        if t == 2:
            wait_files(d, [n % 1 for n in files])
            shutil.rmtree(d)
            with open(d, "w"):
                pass
        elif t == 3:
            os.unlink(d)
            os.mkdir(d)
        cli = subprocess.run([OURS, "-c", "127.0.0.1", "-p", str(port),
                              "-t", "1"], capture_output=True, text=True,
                             timeout=30)
        if cli.returncode != 0:
            probs.append(f"test {t}: client exit {cli.returncode}")
    wait_files(d, [n % 3 for n in files])
    srv.send_signal(2)
    try:
        out, err = srv.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        stop(srv)
        return probs + ["the server did not end on SIGINT"], "", ""
    if srv.returncode != 0:
        probs.append(f"server exit {srv.returncode}")
    return probs, out, err


def later_failure():
    """--max-tests server: the directory is there at start, replaced by a
    file before test 2: test 2's -J has end.output_errors (option, path,
    error), the text report its error line; test 3 writes again and the
    server exits 0."""
    for mode in ("json", "text"):
        d = os.path.join(TMP, f"later-{mode}")
        os.mkdir(d)
        opts = side_options(d)
        srv, port = server(OURS, ["--max-tests", "2"] + opts +
                           (["-J"] if mode == "json" else []))
        files = ["m-%d.prom"] + (["p-%d.svg"] if len(opts) > 2 else [])
        try:
            probs, out, err = run_three(srv, port, d, files)
        finally:
            stop(srv)
        want = [{"option": opts[i], "path": os.path.join(
            d, ("m-2.prom" if opts[i] == "--metrics" else "p-2.svg")),
            "error": "Not a directory"} for i in range(0, len(opts), 2)]
        for w in want:
            line = f"iperf3: error - unable to write the {w['option']} " \
                f"file {w['path']}: Not a directory"
            if line not in err:
                probs.append(f"stderr lacks {line!r}")
            if mode == "text" and line not in out:
                probs.append(f"text report lacks {line!r}")
        if mode == "json":
            dec, i, docs = json.JSONDecoder(), 0, []
            while i < len(out.rstrip()):
                while out[i].isspace():
                    i += 1
                doc, i = dec.raw_decode(out, i)
                docs.append(doc)
            got = [doc.get("end", {}).get("output_errors") for doc in docs]
            if got != [None, want, None]:
                probs.append(f"output_errors of the 3 tests: {got}")
            for k, doc in enumerate(docs):
                probs += check_schema(doc, f"test {k + 1}")
        for n in files:
            if not os.path.exists(os.path.join(d, n % 3)):
                probs.append(f"test 3 wrote no {n % 3}")
        report(f"later failure ({mode}): in test 2's report, the server "
               f"goes on and exits 0", probs)


def stock():
    for ver, path in stock_peers(want=("3.21",)):
        probs, _, _ = client_case("stock_c", ["-P", "2"], sbin=path)
        report(f"stock: our client vs {ver} server", probs)
        out = os.path.join(TMP, "stock_s.prom")
        cli, sout, _ = pair(["-t", "1", "-u"],
                            ("-1", "-J", "--metrics", out), cbin=path)
        probs = [] if cli.returncode == 0 else [f"exit {cli.returncode}"]
        m = load(os.path.join(TMP, "stock_s-1.prom"))  # test 1's file
        compare(probs, m, json.loads(sout)["end"]["sum_received"], "upload",
                RECEIVED + UDP)
        report(f"stock: our server with a {ver} UDP client", probs)


CASES = [tcp, udp, parallel, reverse, bidir, server_role, atomic,
         unwritable, failed_run, server_patterns, stock, per_stream,
         max_tests_enotdir, later_failure, promtool]

if __name__ == "__main__":
    try:
        rc = run_cases(CASES, FILTER)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
