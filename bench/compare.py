#!/usr/bin/env python3
"""Ours against iperf3 3.21 and the installed iperf3, side by side.

Each case runs with both ends the same program, for every program in
turn (ours, 3.21, installed, ours, 3.21, ...), so that a slow moment of
the machine falls on all of them alike.  It prints the median of the
runs per program, the ratios ours/3.21 and ours/installed, and under
each case every run's figure (all of them, not the best).

Two places to run:

  --path    two network namespaces joined by a veth pair (10.231.0.1 and
            10.231.0.2, made and removed by this script; root): each end
            has its own network stack, as between two hosts, and each end
            is pinned to its own CPU with taskset (client CPU 0, server
            CPU 1), for every program alike.  Nothing of the same-host
            special cases applies there.  --tbf RATE adds a case through
            a tbf bottleneck of that rate (tc's syntax, "2gbit") on the
            client's side of the link.
  (default) loopback, one host, no pinning: both ends share the host's
            CPUs, where ours takes its same-host paths.

Cases (goodput: the receiver's end.sum_received in Gbit/s; cpu/Gbit:
CPU % per Gbit/s of goodput, the lower the better, so its ratio is
ours/theirs as well; 100 % is one CPU busy for the whole run):

  tcp P1 .. P8    -P N, goodput
  tcp b4G cpu     -b 4G (path mode): client + server process CPU per
                  Gbit (end.cpu_utilization_percent host_total +
                  remote_total), and the whole machine's from /proc/stat
                  (softirq included) on the line below
  udp b0          -u -b 0 -l 1400: goodput and, below, its loss %
  udp b1G cpu     -u -b 1G -l 1400: CPU per Gbit as for tcp b4G

3.21 is ../shared/peers/iperf3-3.21 beside the checkout, or
$IPERF3_PEER_321; the installed one is `iperf3` on PATH (left out with
--no-installed).  A program that is missing is left out, with a note.

--curves SVG (path mode): throughput and CPU per Gbit against -P (1, 2,
4, 8, 16) and -l (1K .. 1M, -P 1) for ours and 3.21, drawn into SVG by
bench/svg_curves.py; about 40 minutes with the default runs and time.

Usage: compare.py [--path] [--tbf RATE] [--runs N] [--time S] [--only CASE]
                  [--no-installed] [--curves SVG] [--smoke] [OURS]
  --smoke   one 1-second run per case and program: checks that the
            script works (CI), measures nothing.
This is a benchmark, not a test: it never fails on a ratio.
"""
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "scripts"))
sys.path.insert(0, HERE)
from testlib import (Netns, NetnsUnavailable, free_port,  # noqa: E402
                     peer_321_path, peer_version, wait_listening)

LOOP_CASES = [
    ("tcp P1", ["-P", "1"], "goodput"),
    ("tcp P2", ["-P", "2"], "goodput"),
    ("tcp P8", ["-P", "8"], "goodput"),
    ("udp b0", ["-u", "-b", "0", "-l", "1400"], "goodput"),
    ("udp b1G cpu", ["-u", "-b", "1G", "-l", "1400"], "cpu"),
]
PATH_CASES = [
    ("tcp P1", ["-P", "1"], "goodput"),
    ("tcp P2", ["-P", "2"], "goodput"),
    ("tcp P4", ["-P", "4"], "goodput"),
    ("tcp P8", ["-P", "8"], "goodput"),
    ("tcp b4G cpu", ["-b", "4G"], "cpu"),
    ("udp b0", ["-u", "-b", "0", "-l", "1400"], "goodput"),
    ("udp b1G cpu", ["-u", "-b", "1G", "-l", "1400"], "cpu"),
]
ADDR_C, ADDR_S = "10.231.0.1", "10.231.0.2"


def proc_stat():
    """(busy, total) jiffies of the whole machine, all CPUs."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    v += [0] * (8 - len(v))
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return busy, busy + v[3] + v[4]


class Loopback:
    """Both ends on this host's loopback, unpinned."""
    label = "loopback, one host"
    target = "127.0.0.1"

    def server(self, binary, port):
        return subprocess.Popen([binary, "-s", "-1", "-p", str(port)],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    def listening(self, port, srv):
        return wait_listening(port, srv, time.time() + 5)

    def client(self, argv, timeout):
        return subprocess.run(argv, capture_output=True, timeout=timeout)

    def close(self):
        pass


class Path:
    """Two namespaces on a veth pair; client pinned to CPU 0, server to
    CPU 1 (when there are two)."""

    def __init__(self, tbf=None):
        self.ns = []
        self.tbf = tbf
        try:
            self.c = Netns("bc")
            self.ns.append(self.c)
            self.s = Netns("bs")
            self.ns.append(self.s)
            r = subprocess.run(["ip", "-n", self.c.name, "link", "add", "v0",
                                "type", "veth", "peer", "name", "v1",
                                "netns", self.s.name],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise NetnsUnavailable(f"veth: {r.stderr.strip()[:160]}")
            for ns, dev, addr in ((self.c, "v0", ADDR_C),
                                  (self.s, "v1", ADDR_S)):
                for cmd in (["ip", "addr", "add", addr + "/24", "dev", dev],
                            ["ip", "link", "set", dev, "up"]):
                    r = ns.run(*cmd)
                    if r.returncode != 0:
                        raise NetnsUnavailable(f"{' '.join(cmd)}: "
                                               f"{(r.stderr or '')[:160]}")
        except BaseException:
            self.close()
            raise
        ncpu = len(os.sched_getaffinity(0))
        self.pin_c = ["taskset", "-c", "0"] if ncpu >= 2 else []
        self.pin_s = ["taskset", "-c", "1"] if ncpu >= 2 else []
        self.label = ("two namespaces, one VM (veth; client pinned to CPU "
                      "0, server to CPU 1)" if ncpu >= 2 else
                      "two namespaces, one VM (veth; one CPU)")
        self.target = ADDR_S

    def shape(self, rate):
        """tbf of `rate` on the client's egress, or none (rate None)."""
        self.c.run("tc", "qdisc", "del", "dev", "v0", "root")
        if rate:
            r = self.c.run("tc", "qdisc", "add", "dev", "v0", "root", "tbf",
                           "rate", rate, "burst", "256kb", "latency", "20ms")
            if r.returncode != 0:
                raise NetnsUnavailable(f"tc tbf: {(r.stderr or '')[:160]}")

    def server(self, binary, port):
        return self.s.popen(*(self.pin_s + [binary, "-s", "-1", "-p",
                                            str(port)]),
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)

    def listening(self, port, srv):
        return self.s.wait_listening(port, srv, time.time() + 5)

    def client(self, argv, timeout):
        return subprocess.run(self.c.argv(*(self.pin_c + argv)),
                              capture_output=True, timeout=timeout)

    def close(self):
        for ns in self.ns:
            ns.close()
        self.ns = []


def run_once(place, binary, args, secs):
    """One test, both ends `binary`: (the client's -J end, the machine's
    CPU % over the client's run)."""
    port = free_port()
    srv = place.server(binary, port)
    try:
        if not place.listening(port, srv):
            raise RuntimeError(f"{binary}: server did not start")
        b0, t0 = proc_stat()
        cli = place.client([binary, "-c", place.target, "-p", str(port),
                            "-J", "-t", str(secs)] + args, secs + 30)
        b1, t1 = proc_stat()
        srv.wait(timeout=15)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    machine = (100.0 * os.cpu_count() * (b1 - b0) / (t1 - t0)
               if t1 > t0 else None)
    return json.loads(cli.stdout)["end"], machine


def figures(end, machine, kind):
    """(main figure, second figure, Gbit/s) of one run: goodput and loss
    %, or process and machine CPU % per Gbit."""
    if "sum" in end and "sum_received" not in end:    # 3.12 UDP
        rcv = end["sum"]
    else:
        rcv = end["sum_received"]
    gbit = rcv["bits_per_second"] / 1e9
    if kind == "cpu":
        cpu = end["cpu_utilization_percent"]
        proc = cpu["host_total"] + cpu["remote_total"]
        return (proc / gbit if gbit else None,
                machine / gbit if gbit and machine is not None else None,
                gbit)
    return gbit, rcv.get("lost_percent"), gbit


def programs(ours, installed=True):
    progs = [("ours", ours)]
    p321 = peer_321_path()
    if peer_version(p321):
        progs.append(("3.21", p321))
    else:
        print(f"note: no iperf3 3.21 at {p321} (set IPERF3_PEER_321)")
    if not installed:
        return progs
    inst = shutil.which("iperf3")
    ver = peer_version(inst)
    if ver:
        progs.append((ver, inst))
    else:
        print("note: no installed iperf3 (apt-get install iperf3)")
    return progs


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, width, prec):
    return f"{x:{width}.{prec}f}" if x is not None else f"{'-':>{width}}"


def usage(why):
    print(f"compare.py: {why}", file=sys.stderr)
    print("Usage: compare.py [--path] [--tbf RATE] [--runs N] [--time S] "
          "[--only CASE] [--no-installed] [--curves SVG] [--smoke] [OURS]",
          file=sys.stderr)
    return 2


def measure(place, progs, args, kind, runs, secs):
    """{name: [(main, second, gbit), ...]}, alternating the programs."""
    got = {n: [] for n, _ in progs}
    for _ in range(runs):
        for n, path in progs:
            end, machine = run_once(place, path, args, secs)
            got[n].append(figures(end, machine, kind))
    return got


def table(place, progs, cases, runs, secs):
    names = [n for n, _ in progs]
    head = f"{'case':14s}" + "".join(f"{n:>10s}" for n in names)
    head += "".join(f"{'ours/' + n:>11s}" for n in names[1:])
    print(head)
    for label, args, kind, rate in cases:
        if rate is not None:
            place.shape(rate)
        try:
            got = measure(place, progs, args, kind, runs, secs)
        finally:
            if rate is not None:
                place.shape(None)
        main_fig = {n: med(x[0] for x in got[n]) for n in names}
        line = f"{label:14s}" + "".join(fmt(main_fig[n], 10, 2)
                                        for n in names)
        for n in names[1:]:
            r = (main_fig["ours"] / main_fig[n]
                 if main_fig["ours"] and main_fig[n] else None)
            line += fmt(r, 11, 2)
        print(line)
        second = {n: med(x[1] for x in got[n]) for n in names}
        if kind == "cpu":
            line = f"{'  machine':14s}" + "".join(fmt(second[n], 10, 2)
                                                  for n in names)
            for n in names[1:]:
                r = (second["ours"] / second[n]
                     if second["ours"] and second[n] else None)
                line += fmt(r, 11, 2)
            print(line)
            gbit = {n: med(x[2] for x in got[n]) for n in names}
            print(f"{'  at Gbit/s':14s}" + "".join(fmt(gbit[n], 10, 2)
                                                   for n in names))
        elif "-u" in args:
            print(f"{'  loss %':14s}" + "".join(fmt(second[n], 10, 2)
                                                for n in names))
        for n in names:
            runs_txt = " ".join(fmt(x[0], 0, 2) + (
                f"/{x[1]:.2f}" if x[1] is not None else "") for x in got[n])
            print(f"    {n} runs: {runs_txt}")
        sys.stdout.flush()


def curves(place, progs, runs, secs, out):
    """The -P and -l curves of ours and 3.21, into SVG `out`."""
    from svg_curves import draw
    progs = [p for p in progs if p[0] in ("ours", "3.21")]
    series = {"P": {}, "l": {}}
    for key, xs, mk in (("P", [1, 2, 4, 8, 16],
                         lambda x: ["-P", str(x)]),
                        ("l", [1, 4, 16, 64, 128, 256, 1024],
                         lambda x: ["-l", f"{x}K"])):
        for x in xs:
            got = measure(place, progs, mk(x), "cpu", runs, secs)
            for n, _ in progs:
                series[key].setdefault(n, []).append(
                    (x, med(g[2] for g in got[n]), med(g[0] for g in got[n])))
                _, g, c = series[key][n][-1]
                print(f"-{key} {x}: {n} {fmt(g, 0, 2)} Gbit/s, "
                      f"{fmt(c, 0, 1)} %/Gbit")
                sys.stdout.flush()
    with open(out, "w") as f:
        f.write(draw(series, f"{place.label}; {secs} s runs, median of "
                     f"{runs}; {platform.node()}, {time.strftime('%Y-%m-%d')}"))
    print(f"wrote {out}")


def main():
    argv = sys.argv[1:]
    runs, secs, only, smoke = 5, 5, None, False
    path, tbf, installed, curves_out = False, None, True, None
    rest = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in ("--runs", "--time", "--only", "--tbf", "--curves"):
            if i + 1 >= len(argv):
                return usage(f"{a} needs a value")
            val = argv[i + 1]
            if a in ("--runs", "--time"):
                try:
                    n = int(val)
                except ValueError:
                    return usage(f"{a}: not a number: {val}")
                if n < 1:
                    return usage(f"{a} must be at least 1")
                if a == "--runs":
                    runs = n
                else:
                    secs = n
            elif a == "--only":
                only = val
            elif a == "--tbf":
                tbf = val
            else:
                curves_out = val
            i += 2
            continue
        if a == "--smoke":
            smoke = True
        elif a == "--path":
            path = True
        elif a == "--no-installed":
            installed = False
        elif a.startswith("-"):
            return usage(f"unknown option {a}")
        else:
            rest.append(a)
        i += 1
    if len(rest) > 1:
        return usage("one program at most")
    if (tbf or curves_out) and not path:
        return usage("--tbf and --curves need --path")
    if smoke:
        runs, secs = 1, 1
    ours = rest[0] if rest else os.path.join(HERE, "..", "_build", "src",
                                             "iperf3")
    if not (os.path.isfile(ours) and os.access(ours, os.X_OK)):
        return usage(f"no program to run at {ours} (build first, or name "
                     "it)")
    if path:
        try:
            place = Path()
        except NetnsUnavailable as e:
            print(f"SKIP: --path: {e}")
            return 77
    else:
        place = Loopback()
    try:
        progs = programs(ours, installed)
        print(f"{place.label}; both ends the same program, {secs} s runs, "
              f"median of {runs}, alternating; {platform.node()}, "
              f"{os.cpu_count()} CPUs, {platform.release()}, "
              f"{time.strftime('%Y-%m-%d')}")
        if curves_out:
            curves(place, progs, runs, secs, curves_out)
            return 0
        cases = [c + (None,) for c in (PATH_CASES if path else LOOP_CASES)]
        if tbf:
            cases.append((f"tcp P1 tbf", ["-P", "1"], "goodput", tbf))
        cases = [c for c in cases if not only or only in c[0]]
        table(place, progs, cases, runs, secs)
        print("units: goodput Gbit/s; cpu: client + server process CPU % per "
              "Gbit/s, machine: /proc/stat (all CPUs, softirq included) per "
              "Gbit/s; both lower is better")
    finally:
        place.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
