#!/usr/bin/env python3
"""The command lines of the Kubernetes network benchmarks, run as they
run them, and their output read as they read it.

kubernetes/perf-tests' nptest: a server `iperf3 -s <host> -J -i 60` (a
stray positional argument, which 3.21 ignores), clients
`iperf3 -c H -V -N -i 30 -t 10 -f m -w 512M -Z -P 8 -M <mss>` (mss 96,
536, 1460 here) and `iperf3 -c H -i 30 -t 10 -f m -b 0 -u`; it reads
the combined output with three regular expressions (below, as nptest
has them: Go's RE2 syntax, the same in Python's re here).  -t 2 stands
for -t 10, and -p PORT is added (nptest uses 5201).  -w 512M needs
net.core.rmem_max/wmem_max of 512 MB or more; this test does not touch
the host's limits (other tests depend on them): the lines run with -w at
the host's limit, and -w 512M is checked separately to get 3.21's
refusal (the same lines, exit status, and server error document).

k8s-netperf: a server `iperf3 -s -p 22865` (a free port here), clients
`iperf3 -J -P N -c IP -t N -l SIZE -p PORT [-u -b 0] --logfile=FILE`;
it reads end.sum_sent.retransmits and end.sum_received.bits_per_second
(TCP), end.sum.bits_per_second and end.sum.lost_percent (UDP) from FILE.

Pairs: ours client -> ours server, ours -> 3.21, 3.21 -> ours (3.21:
$IPERF3_PEER_321 or ../shared/peers/iperf3-3.21; without it, ours ->
ours only, with a SKIP line).  Where 3.21 is there, our output's lines
that the regexes match have the shape of 3.21's (numbers aside), and the
JSON figures k8s-netperf reads relate to the rest of the document as in
3.21's.

Usage: k8s_bench.py OURS [FILTER]
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testlib  # noqa: E402
from testlib import (free_port, json_values, listener_inode, report, skip,  # noqa: E402
                     stop, summary, wait_listening, wait_relisten)

# nptest's regular expressions (nptest.go), as it has them.
TCP_RE = re.compile(r"SUM.*\s+(\d+)\sMbits/sec\s+receiver", re.ASCII)
UDP_RE = re.compile(r"\s+(\S+)\sMbits/sec\s+\S+\s+ms\s+", re.ASCII)
CPU_RE = re.compile(r"local/sender\s(\d+\.\d+)%\s\((\d+\.\d+)%\w/"
                    r"(\d+\.\d+)%\w\),\sremote/receiver\s(\d+\.\d+)%\s\("
                    r"(\d+\.\d+)%\w/(\d+\.\d+)%\w\)", re.ASCII)
MSS = (96, 536, 1460)
DUR = "2"
BUFMSG = "socket buffer size not set correctly"
REFUSAL = [f"iperf3: SERVER ERROR - {BUFMSG}", f"iperf3: error - {BUFMSG}"]


class Server:
    """A long-running server (as the benchmarks keep theirs) on a free
    port; ready() waits until it can take the next client (3.21 listens
    on a new socket after each test, ours keeps its own)."""

    def __init__(self, label, prog, argv_of_port):
        self.label, self.prog = label, prog
        self.port = free_port()
        self.argv = [prog] + argv_of_port(self.port)
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.argv, stdout=self.out,
                                     stderr=self.err)
        self.up = wait_listening(self.port, self.proc, time.time() + 10)
        self.inode = listener_inode(self.port, self.proc.pid)
        self.tests = 0

    def ready(self):
        """Wait until it can take the next client (counted in tests)."""
        deadline = time.time() + 10
        self.tests += 1
        if self.label == "3.21" and self.tests > 1 and self.inode is not None:
            ok = wait_relisten(self.port, self.proc, self.inode, deadline)
        else:
            ok = wait_listening(self.port, self.proc, deadline)
        self.inode = listener_inode(self.port, self.proc.pid)
        return ok

    def close(self):
        """Stop it (SIGTERM); its stdout and stderr."""
        stop(self.proc, grace=5)
        texts = []
        for f in (self.out, self.err):
            f.seek(0)
            texts.append(f.read().decode(errors="replace"))
            f.close()
        return texts


def start_servers(servers, progs, pairs, what, argv_of_port):
    """Start a Server in `servers` for each program that is a server in
    `pairs`; True when all of them listen (each reported)."""
    for label, prog in progs.items():
        if any(s == label for _, s in pairs):
            servers[label] = Server(label, prog, argv_of_port)
            report(f"{what} server {label} listens",
                   [] if servers[label].up else ["not listening"])
    return all(s.up for s in servers.values())


def run(argv, timeout=30):
    """nptest's way: stdout and stderr together.  (rc, text, secs)."""
    t0 = time.time()
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s", timeout
    return p.returncode, p.stdout, time.time() - t0


def shape(line):
    """A line with its numbers (and the unit prefix of a byte count) and
    runs of blanks made alike."""
    line = re.sub(r"\d+(\.\d+)?( [KMGT]?(?=Bytes))?", "N ", line)
    return re.sub(r"\s+", " ", line).strip()


def matched_line(text, m):
    """The line(s) holding regex match m (shape())."""
    a = text.rfind("\n", 0, m.start()) + 1
    b = text.find("\n", m.end())
    return shape(text[a:b if b >= 0 else len(text)])


def sysctl(name):
    try:
        with open("/proc/sys/" + name.replace(".", "/")) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def window():
    """nptest's -w 512M where this host grants it, else the host's limit
    (what the kernel lets a socket have without privileges)."""
    lim = [sysctl("net.core.rmem_max"), sysctl("net.core.wmem_max")]
    if None in lim:
        return None
    low = min(lim)
    return "512M" if low * 2 >= 512 << 20 else f"{low // 1024}K"


# ---- nptest --------------------------------------------------------------------

def nptest_tcp(label, client, srv, w, mss, shapes):
    argv = [client, "-c", "127.0.0.1", "-V", "-N", "-i", "30", "-t", DUR,
            "-f", "m", "-w", w, "-Z", "-P", "8", "-M", str(mss),
            "-p", str(srv.port)]
    probs = []
    if not srv.ready():
        return report(label, [f"{srv.label} server not listening"])
    rc, text, secs = run(argv)
    if rc != 0:
        return report(label, [f"exit {rc}: {text[-300:]!r}"], secs)
    m = TCP_RE.search(text)
    if not m:
        probs.append("TCP regex does not match")
    else:
        mbits = int(m.group(1))
        shapes.setdefault(("tcp", label.split(":")[0]), matched_line(text, m))
        sums = [ln for ln in text.splitlines()
                if ln.startswith("[SUM]") and ln.endswith("receiver")]
        if not mbits > 0:
            probs.append(f"TCP regex reads {mbits} Mbits/sec")
        if len(sums) != 1 or f" {mbits} Mbits/sec" not in sums[0]:
            probs.append(f"TCP regex read {mbits}, not the receiver "
                         f"[SUM] line {sums}")
    c = CPU_RE.search(text)
    if not c:
        probs.append("CPU regex does not match")
    else:
        local, remote = float(c.group(1)), float(c.group(4))
        ncpu = os.cpu_count() or 1
        if not (0 <= local <= 100 * ncpu and 0 <= remote <= 100 * ncpu):
            probs.append(f"CPU regex reads {local} and {remote}")
        shapes.setdefault(("cpu", label.split(":")[0]), matched_line(text, c))
    if f"TCP MSS: {mss}" not in text:
        probs.append(f"-V does not say TCP MSS: {mss}")
    report(label, probs, secs)


def nptest_udp(label, client, srv, shapes):
    argv = [client, "-c", "127.0.0.1", "-i", "30", "-t", DUR, "-f", "m",
            "-b", "0", "-u", "-p", str(srv.port)]
    if not srv.ready():
        return report(label, [f"{srv.label} server not listening"])
    rc, text, secs = run(argv)
    if rc != 0:
        return report(label, [f"exit {rc}: {text[-300:]!r}"], secs)
    probs = []
    m = UDP_RE.search(text)
    if not m:
        probs.append("UDP regex does not match")
    else:
        try:
            mbits = float(m.group(1))
        except ValueError:
            mbits = None
        if not mbits or mbits <= 0:
            probs.append(f"UDP regex reads {m.group(1)!r}")
        shapes.setdefault(("udp", label.split(":")[0]), matched_line(text, m))
    report(label, probs, secs)


def refusal(label, client, srv, want):
    """-w 512M where the host's limits do not grant it: 3.21's refusal
    (`want`: its exit status and stderr lines, None: only taken).
    Returns what this one gave."""
    argv = [client, "-c", "127.0.0.1", "-V", "-N", "-i", "30", "-t", DUR,
            "-f", "m", "-w", "512M", "-Z", "-P", "8", "-M", "1460",
            "-p", str(srv.port)]
    if not srv.ready():
        report(label, [f"{srv.label} server not listening"])
        return None
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        report(label, ["timed out"], 30)
        return None
    got = (p.returncode, [ln for ln in p.stderr.splitlines() if ln.strip()])
    if want is not None:
        report(label, [] if got == want else
               [f"exit {got[0]}, stderr {got[1]}; 3.21: exit {want[0]}, "
                f"stderr {want[1]}"], time.time() - t0)
    return got


def refusals(progs, pairs, servers, host):
    """-w 512M against each pair's server.  A 3.21 server that has run
    tests before sends the refusal with a stale errno (", errno: Bad file
    descriptor"), a fresh one without: the reference for our server is a
    fresh 3.21 server's refusal, for the 3.21 server a 3.21 client's
    against it just before."""
    fresh = long = (1, REFUSAL)
    if "3.21" in progs:
        srv = Server("3.21", progs["3.21"], lambda port: [
            "-s", host, "-J", "-i", "60", "-p", str(port)])
        fresh = refusal("", progs["3.21"], srv, None) if srv.up else None
        srv.close()
        long = refusal("", progs["3.21"], servers["3.21"], None)
        report("-w 512M: 3.21's refusals (references)",
               [] if fresh and long and fresh[0] == 1 and long[0] == 1 and
               fresh[1][-1:] == REFUSAL[-1:] else [f"{fresh} {long}"])
        if not (fresh and long):
            return
    for c, s in pairs:
        refusal(f"{c} client -> {s} server: -w 512M refused as by 3.21",
                progs[c], servers[s], fresh if s == "ours" else long)


def nptest(progs, pairs):
    w = window()
    if w is None:
        skip("nptest: cannot read net.core.rmem_max/wmem_max")
        return
    host = socket.gethostname()
    servers = {}
    shapes = {}
    try:
        if not start_servers(servers, progs, pairs, f"nptest: `-s {host} -J "
                             "-i 60`", lambda port: ["-s", host, "-J", "-i",
                                                     "60", "-p", str(port)]):
            return
        for c, s in pairs:
            who = f"{c} client -> {s} server"
            for mss in MSS:
                nptest_tcp(f"{who}: nptest TCP -w {w} -P 8 -M {mss}",
                           progs[c], servers[s], w, mss, shapes)
            nptest_udp(f"{who}: nptest UDP -b 0", progs[c], servers[s],
                       shapes)
        if w != "512M":
            refusals(progs, pairs, servers, host)
        else:
            skip("-w 512M refusal: this host's limits grant it")
    finally:
        docs = {}
        for label, srv in servers.items():
            out, err = srv.close()
            docs[label] = json_values(out, lenient=True)
    # The servers' -J documents: one per test, the refused one with 3.21's
    # error (a last document at SIGTERM is 3.21's only: not compared).
    errs = {}
    for label, got in docs.items():
        n = servers[label].tests
        tests = got[:n]
        errs[label] = sorted({d.get("error") for d in tests if "error" in d})
        probs = []
        if len(tests) != n or any(not {"start", "intervals", "end"} <= set(d)
                                  for d in tests):
            probs.append(f"{len(got)} documents, want {n} (+1) with start, "
                         f"intervals, end")
        if (w != "512M") != bool(errs[label]):
            probs.append(f"errors {errs[label]}")
        if label == "ours" and "3.21" in docs and errs["ours"] != \
                errs.setdefault("3.21", sorted(
                    {d.get("error") for d in docs["3.21"][:servers["3.21"].tests]
                     if "error" in d})):
            probs.append(f"errors {errs['ours']}, 3.21's {errs['3.21']}")
        report(f"nptest: {label} server's -J documents", probs)
    compare(shapes, "nptest")


def compare(shapes, what):
    """The matched lines of our client have the shape of 3.21's."""
    for (kind, who), line in sorted(shapes.items()):
        if not who.startswith("ours client"):
            continue
        server = who.split("-> ")[1]
        ref = shapes.get((kind, f"3.21 client -> {server}"))
        if ref is None:
            continue
        report(f"{what}: {kind} regex matches our line as 3.21's "
               f"({server})", [] if line == ref else
               [f"ours {line!r}, 3.21 {ref!r}"])


# ---- k8s-netperf ---------------------------------------------------------------

def dig(doc, path):
    for k in path.split("."):
        if not isinstance(doc, dict) or k not in doc:
            return None
        doc = doc[k]
    return doc


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def netperf_run(label, client, srv, udp, tmp):
    logfile = os.path.join(tmp, f"{srv.port}-{int(time.time() * 1e6)}.json")
    argv = [client, "-J", "-P", "2", "-c", "127.0.0.1", "-t", DUR, "-l",
            "1024" if udp else "8192", "-p", str(srv.port)]
    argv += ["-u", "-b", "0"] if udp else []
    argv += [f"--logfile={logfile}"]
    if not srv.ready():
        return report(label, [f"{srv.label} server not listening"])
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return report(label, ["timed out"], 30)
    secs = time.time() - t0
    probs = []
    if p.returncode != 0:
        probs.append(f"exit {p.returncode}: {p.stderr[-200:]!r}")
    if p.stdout.strip():
        probs.append(f"stdout not empty with --logfile: {p.stdout[:100]!r}")
    try:
        with open(logfile) as f:
            doc = json.load(f)   # k8s-netperf: json.Unmarshal of the file
    except (OSError, ValueError) as e:
        return report(label, probs + [f"{logfile}: {e}"], secs)
    if udp:
        bps, lost = dig(doc, "end.sum.bits_per_second"), \
            dig(doc, "end.sum.lost_percent")
        if not num(bps) or bps <= 0:
            probs.append(f"end.sum.bits_per_second {bps}")
        if not num(lost) or not 0 <= lost <= 100:
            probs.append(f"end.sum.lost_percent {lost}")
        # as in 3.21's documents: the sender's rate, the loss of the sum
        sent = dig(doc, "end.sum_sent.bits_per_second")
        if num(bps) and bps != sent:
            probs.append(f"end.sum.bits_per_second {bps} is not "
                         f"end.sum_sent's {sent}")
        lp, pk = dig(doc, "end.sum.lost_packets"), dig(doc, "end.sum.packets")
        if num(lost) and num(lp) and num(pk) and pk > 0 and \
                abs(lost - 100.0 * lp / pk) > 1e-6:
            probs.append(f"end.sum.lost_percent {lost} is not "
                         f"{lp}/{pk}")
    else:
        rt = dig(doc, "end.sum_sent.retransmits")
        bps = dig(doc, "end.sum_received.bits_per_second")
        if not num(rt) or rt < 0 or rt != int(rt):
            probs.append(f"end.sum_sent.retransmits {rt}")
        if not num(bps) or bps <= 0:
            probs.append(f"end.sum_received.bits_per_second {bps}")
        streams = dig(doc, "end.streams") or []
        if num(rt) and rt != sum(dig(s, "sender.retransmits") or 0
                                 for s in streams):
            probs.append(f"end.sum_sent.retransmits {rt} is not the "
                         "streams' sum")
    report(label, probs, secs)


def k8s_netperf(progs, pairs):
    servers = {}
    tmp = tempfile.mkdtemp(prefix="k8s_bench.")
    try:
        if not start_servers(servers, progs, pairs, "k8s-netperf: `-s -p "
                             "PORT`", lambda port: ["-s", "-p", str(port)]):
            return
        for c, s in pairs:
            who = f"{c} client -> {s} server"
            netperf_run(f"{who}: k8s-netperf TCP -P 2 -l 8192", progs[c],
                        servers[s], False, tmp)
            netperf_run(f"{who}: k8s-netperf UDP -P 2 -l 1024 -b 0",
                        progs[c], servers[s], True, tmp)
    finally:
        for srv in servers.values():
            srv.close()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


def main():
    ours = os.path.abspath(sys.argv[1])
    filt = sys.argv[2] if len(sys.argv) > 2 else ""
    progs = {"ours": ours}
    peers = dict(testlib.stock_peers(want=("3.21",)))
    if "3.21" in peers:
        progs["3.21"] = peers["3.21"]
    pairs = [("ours", "ours")]
    if "3.21" in progs:
        pairs += [("ours", "3.21"), ("3.21", "ours")]
    if not filt or "nptest" in filt:
        nptest(progs, pairs)
    if not filt or "netperf" in filt:
        k8s_netperf(progs, pairs)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
