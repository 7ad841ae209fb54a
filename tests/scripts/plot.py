#!/usr/bin/env python3
"""--plot FILE: the SVG picture of a run, from real runs.

Each case runs a test with --plot and checks the SVG: well-formed XML
(xml.etree) with the SVG namespace and a viewBox, the title naming the
protocol, direction, peer, streams and a UTC date, the panels this end has
figures for (throughput always; retransmits and RTT for a TCP sender;
loss and jitter for a UDP receiver; with configure's peerival also the
RTT of a TCP -R client and the loss and jitter of a UDP sender, from our
server's interval figures) and no others, the number of line
series in the throughput panel (per direction: the sum, plus one per
stream with -P > 1), the axis labels with their units, no NaN or
infinity; then renders it with rsvg-convert (Debian librsvg2-bin; a SKIP
line when absent) to a non-empty PNG.

Cases: ours/ours TCP, UDP, -P 3, -R, UDP -R, --bidir -P 2, -O 1, the
server's own picture; our client against a 3.21 server and our server
with a 3.21 client (SKIP lines when 3.21 is absent; a server's picture
is FILE-1.svg, its path a pattern); an unwritable path (refused before
any data: the option, the path, the reason); a refused run (an earlier
picture stays, none is made); a server killed mid-run (drawn, the early
end noted); lines starting at the first interval's start and whole
retransmit ticks on an all-zero panel.

Usage: plot.py OURS [FILTER]
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import (built_with, free_port, report,  # noqa: E402
                     run_cases, skip, skip_unless_option, stock_peers, stop,
                     wait_exit, wait_listening)
from testlib import timed_run as run  # noqa: E402

OURS = os.path.abspath(sys.argv[1])
FILTER = sys.argv[2] if len(sys.argv) > 2 else ""
skip_unless_option(OURS, "--plot")
# configure's peerival: against our server, a UDP sender draws the loss
# and jitter our server measured, a TCP -R client its RTT
PEERIVAL = built_with(OURS, "HAVE_PEERIVAL")
NS = "{http://www.w3.org/2000/svg}"
TMP = tempfile.mkdtemp(prefix="plot-test-")
RSVG = shutil.which("rsvg-convert")
DATE = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
UNIT = re.compile(r"^throughput \((bit|Kbit|Mbit|Gbit|Tbit)/s\)$")
_peers = None


def peer321():
    global _peers
    if _peers is None:
        _peers = stock_peers(want=("3.21",))
    return _peers[0][1] if _peers else None


def server(prog, args=()):
    port = free_port()
    srv = subprocess.Popen([prog, "-s", "-1", "-p", str(port)] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if not wait_listening(port, srv, time.time() + 10):
        stop(srv)
        raise RuntimeError("server did not listen: " + srv.stderr.read())
    return srv, port


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(NS + "text")]


def panels(root):
    return {g.get("id")[len("panel-"):]: g for g in root.iter(NS + "g")
            if (g.get("id") or "").startswith("panel-")}


def check_svg(probs, path, title_re, want_panels, rate_lines):
    """Problems of the SVG at path; returns the parsed root or None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        root = ET.fromstring(data)
    except (OSError, ET.ParseError) as e:
        probs.append(f"{os.path.basename(path)}: {e}")
        return None
    if root.tag != NS + "svg" or not root.get("viewBox"):
        probs.append(f"root {root.tag} viewBox {root.get('viewBox')}")
    if re.search(rb"nan|inf|NaN|Infinity", data):
        probs.append("NaN or infinity in the document")
    title = [t for t in root.iter(NS + "text") if t.get("id") == "title"]
    ttext = "".join(title[0].itertext()) if title else ""
    if not re.fullmatch(title_re + ", " + DATE, ttext):
        probs.append(f"title {ttext!r} (want /{title_re}, <date>/)")
    got = panels(root)
    if sorted(got) != sorted(want_panels):
        probs.append(f"panels {sorted(got)} (want {sorted(want_panels)})")
    lines = list(got["throughput"].iter(NS + "polyline")) \
        if "throughput" in got else []
    if len(lines) != rate_lines:
        probs.append(f"{len(lines)} throughput series (want {rate_lines})")
    tx = texts(root)
    if not any(UNIT.match(t) for t in tx) or \
            not any(t.startswith("time (s)") for t in tx):
        probs.append("axis labels missing")
    render(probs, path)
    return root


def render(probs, path):
    if RSVG is None:
        return
    png = path[:-4] + ".png"
    rc, _, err, _ = run([RSVG, path, "-o", png], timeout=30)
    try:
        with open(png, "rb") as f:
            head = f.read(8)
        size = os.path.getsize(png)
    except OSError:
        head, size = b"", 0
    if rc != 0 or head != b"\x89PNG\r\n\x1a\n" or size < 2000:
        probs.append(f"rsvg-convert exit {rc}, {size} bytes: {err[-200:]}")


def client_case(label, args, title_re, want_panels, rate_lines,
                srv_prog=OURS):
    """Our client with --plot against a server (ours or stock)."""
    t0 = time.time()
    probs = []
    svg = os.path.join(TMP, label + ".svg")
    srv, port = server(srv_prog)
    try:
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "2", "-i", "0.5", "--plot", svg] + args)
    finally:
        stop(srv, grace=5)
    if rc != 0 or "iperf Done." not in out:
        probs.append(f"client exit {rc}: {err[-300:]}")
    else:
        check_svg(probs, svg, title_re.replace("PORT", str(port)),
                  want_panels, rate_lines)
    report(label, probs, time.time() - t0)


TCP_SEND = ["throughput", "retransmits", "rtt"]
UDP_RECV = ["throughput", "loss", "jitter"]
TO = r"to 127\.0\.0\.1:PORT"


def case_tcp():
    client_case("tcp", [], r"iperf3 TCP upload " + TO + ", 1 stream",
                TCP_SEND, 1)


def case_udp():
    client_case("udp", ["-u", "-b", "20M"],
                r"iperf3 UDP upload " + TO + ", 1 stream",
                UDP_RECV if PEERIVAL else ["throughput"], 1)


def case_parallel():
    client_case("tcp_P3", ["-P", "3"],
                r"iperf3 TCP upload " + TO + ", 3 streams", TCP_SEND, 4)


def case_reverse():
    client_case("tcp_R", ["-R", "-P", "2"],
                r"iperf3 TCP download " + TO + ", 2 streams",
                ["throughput", "rtt"] if PEERIVAL else ["throughput"], 3)


def case_udp_reverse():
    client_case("udp_R", ["-u", "-b", "20M", "-R"],
                r"iperf3 UDP download " + TO + ", 1 stream", UDP_RECV, 1)


def case_bidir():
    client_case("bidir_P2", ["--bidir", "-P", "2"],
                r"iperf3 TCP bidirectional " + TO + ", 2 streams each way",
                TCP_SEND, 6)


def case_omit():
    client_case("omit", ["-O", "1"],
                r"iperf3 TCP upload " + TO + ", 1 stream", TCP_SEND, 1)
    # the omitted second is not drawn and said so
    root = ET.parse(os.path.join(TMP, "omit.svg")).getroot()
    probs = []
    if not any("omitted" in t for t in texts(root)):
        probs.append("no line about the omitted intervals")
    xs = [float(p.split(",")[0]) for pl in root.iter(NS + "polyline")
          for p in pl.get("points").split()]
    if len(xs) < 3:
        probs.append(f"{len(xs)} points")
    report("omit: omitted intervals not drawn, noted", probs)


def server_case(label, client, args, title_re, want_panels, rate_lines):
    """Our server with --plot; the client ours or stock."""
    t0 = time.time()
    probs = []
    svg = os.path.join(TMP, label + ".svg")
    srv, port = server(OURS, ["--plot", svg])
    svg = os.path.join(TMP, label + "-1.svg")  # a server's: test 1's file
    try:
        rc, _, err, _ = run([client, "-c", "127.0.0.1", "-p", str(port),
                             "-t", "2", "-i", "0.5"] + args)
        src, _ = wait_exit(srv, 10)
    finally:
        stop(srv)
    if rc != 0 or src != 0:
        probs.append(f"client exit {rc}, server exit {src}: {err[-300:]}")
    else:
        check_svg(probs, svg, title_re, want_panels, rate_lines)
    report(label, probs, time.time() - t0)


FROM = r"from 127\.0\.0\.1"


def case_server():
    server_case("server_udp", OURS, ["-u", "-b", "20M", "-P", "2"],
                r"iperf3 server: UDP upload " + FROM + ", 2 streams",
                UDP_RECV, 3)


def case_stock_server():
    p = peer321()
    if p is None:
        return
    client_case("vs_3.21_server_tcp_P2", ["-P", "2"],
                r"iperf3 TCP upload " + TO + ", 2 streams", TCP_SEND, 3,
                srv_prog=p)
    client_case("vs_3.21_server_udp_R", ["-u", "-b", "20M", "-R"],
                r"iperf3 UDP download " + TO + ", 1 stream", UDP_RECV, 1,
                srv_prog=p)
    # a stock server sends no interval figures: nothing to draw there
    client_case("vs_3.21_server_tcp_R", ["-R"],
                r"iperf3 TCP download " + TO + ", 1 stream", ["throughput"],
                1, srv_prog=p)
    client_case("vs_3.21_server_udp", ["-u", "-b", "20M"],
                r"iperf3 UDP upload " + TO + ", 1 stream", ["throughput"], 1,
                srv_prog=p)


def case_stock_client():
    p = peer321()
    if p is None:
        return
    server_case("3.21_client_tcp_P2", p, ["-P", "2"],
                r"iperf3 server: TCP upload " + FROM + ", 2 streams",
                ["throughput"], 3)
    server_case("3.21_client_bidir", p, ["--bidir"],
                r"iperf3 server: TCP bidirectional " + FROM +
                ", 1 stream each way", TCP_SEND, 2)


def case_unwritable():
    """Refused before any data: the option, the path, the reason."""
    t0 = time.time()
    probs = []
    path = os.path.join(TMP, "no", "such", "dir.svg")
    srv, port = server(OURS)
    try:
        rc, out, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                               "-t", "1", "--plot", path])
        if srv.poll() is not None:
            probs.append("the client reached the server")
    finally:
        stop(srv, grace=5)
    if rc != 1:
        probs.append(f"exit {rc} (want 1)")
    want = f"iperf3: error - unable to write the --plot file {path}: No " \
        "such file or directory"
    if want not in err:
        probs.append(f"stderr {err[-200:]!r}")
    if "Connecting" in out:
        probs.append("the client connected")
    report("unwritable path: refused before any data", probs,
           time.time() - t0)


def case_failed_run():
    """A test that never reached its first interval leaves an earlier
    picture as it was (and makes none where there was none)."""
    probs = []
    old = os.path.join(TMP, "tcp.svg")
    if not os.path.exists(old):
        client_case("tcp", [], r"iperf3 TCP upload " + TO + ", 1 stream",
                    TCP_SEND, 1)
    with open(old, "rb") as f:
        before = f.read()
    port = free_port()  # nobody listens
    for path in (old, os.path.join(TMP, "never.svg")):
        rc, _, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                             "-t", "1", "--plot", path])
        if rc != 1 or "Connection refused" not in err:
            probs.append(f"exit {rc}: {err[-200:]!r}")
    with open(old, "rb") as f:
        if f.read() != before:
            probs.append("the earlier picture was replaced")
    if os.path.exists(os.path.join(TMP, "never.svg")):
        probs.append("a picture of a refused run was made")
    if [n for n in os.listdir(TMP) if ".tmp." in n]:
        probs.append("a temporary file was left")
    report("failed run: the earlier picture stays", probs)


def case_partial():
    """The server goes away mid-run: what was measured is drawn, and the
    picture says the test ended early."""
    probs = []
    svg = os.path.join(TMP, "partial.svg")
    srv, port = server(OURS)
    try:
        cli = subprocess.Popen([OURS, "-c", "127.0.0.1", "-p", str(port),
                                "-t", "6", "-i", "0.5", "--plot", svg],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        time.sleep(2)
        srv.kill()
        out, err = cli.communicate(timeout=60)
    finally:
        stop(srv)
    if cli.returncode != 1:
        probs.append(f"client exit {cli.returncode}")
    if not os.path.exists(svg):
        probs.append("no picture")
    else:
        root = ET.parse(svg).getroot()
        if not any(t.startswith("the test ended early: ")
                   for t in texts(root)):
            probs.append(f"no note of the early end: {texts(root)[:3]}")
    report("partial run: drawn, with the early end noted", probs)


def case_lines_from_zero():
    """Lines start where the first interval starts (the left edge of the
    plot area), not at its end; an all-zero retransmits panel has whole
    ticks (0, 1), not a lone 0.5."""
    probs = []
    svg = os.path.join(TMP, "slow.svg")
    srv, port = server(OURS)
    try:
        rc, _, err, _ = run([OURS, "-c", "127.0.0.1", "-p", str(port),
                             "-t", "3", "-b", "10M", "--plot", svg])
    finally:
        stop(srv, grace=5)
    if rc != 0:
        report("lines from zero", [f"exit {rc}: {err[-200:]}"])
        return
    root = ET.parse(svg).getroot()
    pn = panels(root)
    left = [float(r.get("x")) for r in pn["throughput"].iter(NS + "rect")]
    first = [float(pl.get("points").split()[0].split(",")[0])
             for pl in pn["throughput"].iter(NS + "polyline")]
    if not left or not first or abs(first[0] - min(left)) > 1:
        probs.append(f"first point at x={first[:1]}, plot area from "
                     f"{min(left) if left else None}")
    ticks = ["".join(t.itertext()) for t in
             pn["retransmits"].iter(NS + "text")
             if t.get("text-anchor") == "end"] if "retransmits" in pn else []
    if "0.5" in ticks or not ticks or any("." in t for t in ticks):
        probs.append(f"retransmit ticks {ticks}")
    report("lines from zero, whole retransmit ticks", probs)


def main():
    if RSVG is None:
        skip("rendering with rsvg-convert: not installed "
             "(apt-get install librsvg2-bin)")
    try:
        return run_cases([case_tcp, case_udp, case_parallel, case_reverse,
                          case_udp_reverse, case_bidir, case_omit,
                          case_server, case_stock_server, case_stock_client,
                          case_unwritable, case_failed_run, case_partial,
                          case_lines_from_zero], FILTER)
    finally:
        if os.environ.get("PLOT_KEEP") is None:
            shutil.rmtree(TMP, ignore_errors=True)
        else:
            print(f"(pictures kept in {TMP})")


if __name__ == "__main__":
    sys.exit(main())
