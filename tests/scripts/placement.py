#!/usr/bin/env python3
"""Thread placement of same-host TCP tests (src/stream/placement.h).

While a loopback test runs, the CPUs each thread of the client and of the
server may use are read from /proc/PID/task/TID/status:

  - with at least two streams per usable CPU, every sending thread is
    pinned to one CPU, spread evenly, and every receiving thread is pinned
    to the CPU its data arrives on (so the receivers' CPUs mirror the
    senders'); the main threads keep every CPU; forward, -R and --bidir;
  - nothing is pinned with IPERF3_PLACEMENT=0, with fewer streams, for
    UDP, with -A (the client keeps -A's CPU), or when taskset leaves one
    CPU;
  - against iperf3 3.21 in both roles only our end's threads are placed,
    and the test's figures are whole.

With fewer streams than usable CPUs a sender hands the kernel its block
eight times per call (placement.h); seen in its -V note and, where
strace can trace, in the sendmsg calls themselves:

  - ours to ours forward and -R, our client to a 3.21 server, a 3.21
    client to our server with -R: the sending end batches, the other does
    not, figures whole;
  - -n and -k counts come out as without batching (-n 1000000: 8 blocks;
    -k 5: 5), forward and -R, and against 3.21;
  - no batch with -l 128K, -b, IPERF3_PLACEMENT=0, or one stream per CPU.

Skips (exit 77) with the reason printed on a machine with one CPU or
without /proc.  The 3.21 program is looked for as
testlib.peer_321_path() says.  Usage: placement.py OURS
"""

import json
import os
import subprocess
import sys
import time

from testlib import (free_port, one_test, peer_321_path, peer_version,
                     record, stop, strace_unavailable, summary, wait_exit,
                     wait_listening)

OURS = STOCK = None
NCPU = 0


def allowed(pid):
    """{tid: frozenset of CPUs} for each thread of pid."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("Cpus_allowed_list:"):
                        out[int(tid)] = parse_list(line.split(":")[1])
        except OSError:
            continue
    return out


def parse_list(text):
    cpus = set()
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            cpus.update(range(int(a), int(b) + 1))
        elif part:
            cpus.add(int(part))
    return frozenset(cpus)


def pinned(threads, pid):
    """CPU of each data thread pinned to exactly one CPU (main excluded)."""
    return sorted(next(iter(c)) for t, c in threads.items()
                  if t != pid and len(c) == 1)


def run(args, server=None, client=None, env=None, prefix=(), secs=3):
    """One loopback test; (client threads, server threads, client pid,
    server pid, client -J document or None, client exit status), the
    threads sampled 1.5 s in."""
    port = free_port()
    e = dict(os.environ)
    e.update(env or {})
    srv = subprocess.Popen(list(prefix) + [server or OURS, "-s", "-1", "-p",
                                           str(port)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=e)
    cli = None
    try:
        if not wait_listening(port, srv, time.time() + 10):
            raise RuntimeError("server did not listen")
        cli = subprocess.Popen(list(prefix) + [client or OURS, "-c",
                                               "127.0.0.1", "-p", str(port),
                                               "-J", "-t", str(secs)] + args,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=e)
        time.sleep(1.5)
        ct, st = allowed(cli.pid), allowed(srv.pid)
        out, _ = cli.communicate(timeout=secs + 30)
        wait_exit(srv, 15)
        try:
            doc = json.loads(out)
        except ValueError:
            doc = None
        return ct, st, cli.pid, srv.pid, doc, cli.returncode
    finally:
        if cli is not None and cli.poll() is None:
            stop(cli)
        stop(srv)


def whole(doc):
    """Problems with the figures of a -J document."""
    if doc is None:
        return ["no JSON document"]
    end = doc.get("end", {})
    sent = end.get("sum_sent", {}).get("bytes", 0)
    rcvd = end.get("sum_received", {}).get("bytes", 0)
    # 3.21's client may count a few blocks fewer sent than its server
    # received (seen between two 3.21 programs too).
    if sent <= 0 or rcvd <= 0 or rcvd > sent * 1.01:
        return [f"sent {sent}, received {rcvd}"]
    return []


def spread(cpus, streams):
    """Problems unless `cpus` holds `streams` threads, as many per CPU."""
    per = streams // NCPU
    want = sorted(c for c in range(NCPU) for _ in range(per))
    return [] if cpus == want else [f"pinned {cpus}, expected {want}"]


def base_cpus():
    return sorted(os.sched_getaffinity(0))


def placed(label, args, streams, env=None):
    ct, st, cp, sp, doc, rc = run(args, env=env)
    probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
    probs += spread(pinned(ct, cp), streams)
    probs += spread(pinned(st, sp), streams)
    if len(ct.get(cp, ())) != NCPU or len(st.get(sp, ())) != NCPU:
        probs.append("a main thread was pinned")
    record(label, not probs, "; ".join(probs) or
           f"client {pinned(ct, cp)}, server {pinned(st, sp)}")


def not_placed(label, args, env=None, prefix=(), keep=None):
    ct, st, cp, sp, doc, rc = run(args, env=env, prefix=prefix)
    probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
    for who, threads, pid in (("client", ct, cp), ("server", st, sp)):
        want = keep.get(who) if keep else None
        for tid, cpus in threads.items():
            if want is not None and cpus != want:
                probs.append(f"{who} thread {tid} on {sorted(cpus)}")
            elif want is None and len(cpus) != len(base_cpus()):
                probs.append(f"{who} thread {tid} pinned to {sorted(cpus)}")
    record(label, not probs, "; ".join(probs))


def case_forward():
    n = 2 * NCPU
    placed(f"-P {n}: senders spread, receivers follow", ["-P", str(n)], n)


def case_reverse():
    n = 2 * NCPU
    placed(f"-R -P {n}", ["-R", "-P", str(n)], n)


def case_bidir():
    # Each end has NCPU senders and NCPU receivers: one of each per CPU
    # per end once the receivers follow.
    n = NCPU
    ct, st, cp, sp, doc, rc = run(["--bidir", "-P", str(n)])
    probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
    probs += spread(pinned(ct, cp), 2 * n)
    probs += spread(pinned(st, sp), 2 * n)
    record(f"--bidir -P {n}", not probs, "; ".join(probs))


def case_off():
    not_placed("IPERF3_PLACEMENT=0: nothing pinned",
               ["-P", str(2 * NCPU)], env={"IPERF3_PLACEMENT": "0"})


def case_few():
    not_placed(f"-P {2 * NCPU - 1}: nothing pinned",
               ["-P", str(2 * NCPU - 1)])


def case_udp():
    not_placed("UDP -P 4: nothing pinned",
               ["-u", "-b", "50M", "-P", str(2 * NCPU)])


def case_affinity():
    # -A 0 pins the whole client to CPU 0; the server (not asked to pin)
    # places its receivers where the data arrives: CPU 0.
    ct, st, cp, sp, doc, rc = run(["-A", "0", "-P", str(2 * NCPU)])
    probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
    bad = [sorted(c) for c in ct.values() if c != frozenset({0})]
    if bad:
        probs.append(f"client threads on {bad}")
    record("-A 0: the client keeps -A's CPU", not probs, "; ".join(probs))


def case_taskset():
    if not subprocess.run(["sh", "-c", "command -v taskset"],
                          capture_output=True).stdout:
        print("SKIP: taskset not installed (util-linux)")
        return
    one = base_cpus()[0]
    not_placed("taskset to one CPU: nothing pinned", ["-P", "4"],
               prefix=("taskset", "-c", str(one)),
               keep={"client": frozenset({one}), "server": frozenset({one})})


def case_stock():
    if STOCK is None:
        print("SKIP: iperf3 3.21 not found (set IPERF3_PEER_321): "
              "placement against 3.21")
        return
    n = 2 * NCPU
    # Our client sends to a 3.21 server.
    ct, st, cp, sp, doc, rc = run(["-P", str(n)], server=STOCK)
    probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
    probs += spread(pinned(ct, cp), n)
    if pinned(st, sp):
        probs.append(f"3.21 server pinned {pinned(st, sp)}")
    record(f"our client -P {n} to a 3.21 server", not probs,
           "; ".join(probs))
    # A 3.21 client sends to our server: our receivers follow.
    ct, st, cp, sp, doc, rc = run(["-P", str(n)], client=STOCK)
    probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
    got = pinned(st, sp)
    if len(got) != n:
        probs.append(f"our server pinned {got}, expected {n} receivers")
    record(f"3.21 client -P {n} to our server", not probs, "; ".join(probs))


BATCH_NOTE = "sending stream(s) write 1048576 bytes per call"


def debug_run(args, server=None, client=None, env=None, prefix=()):
    """A 1-second loopback test with --debug=2 -V on our ends (text): the
    client's output, the server's, and the client's exit status."""
    port = free_port()
    e = dict(os.environ)
    e.update(env or {})
    server = server or OURS
    client = client or OURS
    sargs = [server, "-s", "-1", "-p", str(port)]
    if server == OURS:
        sargs += ["--debug=2", "-V"]
    cargs = list(prefix) + [client, "-c", "127.0.0.1", "-p", str(port),
                            "-t", "1"] + args
    if client == OURS:
        cargs += ["--debug=2", "-V"]
    cli, _, sout, serr = one_test(sargs, cargs, timeout=40, env=e)
    return cli.stdout + cli.stderr, sout + serr, cli.returncode


def batch_check(label, args, sender_batches, receiver=None, **kw):
    """The sending end batches (or not); the receiving end never does."""
    cout, sout, rc = debug_run(args, **kw)
    reverse = "-R" in args
    snd, rcv = (sout, cout) if reverse else (cout, sout)
    probs = [f"client exit {rc}"] if rc != 0 else []
    if (BATCH_NOTE in snd) != sender_batches:
        probs.append("the sender " + ("did not batch" if sender_batches
                                      else "batched"))
    if BATCH_NOTE in rcv:
        probs.append("the receiver batched")
    if "receiver" not in cout:
        probs.append("no receiver line in the client's output")
    record(label, not probs, "; ".join(probs))


def case_batch():
    n = NCPU - 1
    batch_check(f"-P {n}: the sender batches", ["-P", str(n)], True)
    batch_check(f"-R -P {n}: the server's sender batches",
                ["-R", "-P", str(n)], True)
    ct, st, cp, sp, doc, rc = run(["-P", str(n)], secs=2)
    probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
    record(f"-P {n} batched: figures whole", not probs, "; ".join(probs))


def case_batch_not():
    batch_check("-l 128K: no batch", ["-l", "128K"], False)
    batch_check("-b 1G: no batch", ["-b", "1G"], False)
    batch_check("IPERF3_PLACEMENT=0: no batch", [], False,
                env={"IPERF3_PLACEMENT": "0"})
    batch_check(f"-P {NCPU} (a stream per CPU): no batch",
                ["-P", str(NCPU)], False)


def counted(args, server=None, client=None):
    """(bytes sent, bytes received) of a -J loopback test."""
    port = free_port()
    cli, _, _, _ = one_test([server or OURS, "-s", "-1", "-p", str(port)],
                            [client or OURS, "-c", "127.0.0.1", "-p",
                             str(port), "-J"] + args, timeout=40)
    end = json.loads(cli.stdout)["end"]
    return end["sum_sent"]["bytes"], end["sum_received"]["bytes"]


def case_batch_counts():
    blk = 131072
    for args, want in ((["-n", "1000000"], 8 * blk), (["-k", "5"], 5 * blk),
                       (["-n", "3M", "-R"], 24 * blk),
                       (["-k", "7", "-R"], 7 * blk)):
        got = counted(args)
        off = counted(args + ["-l", "128K"])
        probs = []
        if got != (want, want):
            probs.append(f"sent/received {got}, expected {want} each")
        if got != off:
            probs.append(f"without batching {off}")
        record(f"{' '.join(args)}: counts as without batching", not probs,
               "; ".join(probs))
    if STOCK is not None:
        got = counted(["-k", "5"], server=STOCK)
        record("-k 5 to a 3.21 server: 5 blocks", got == (5 * blk, 5 * blk),
               f"sent/received {got}")


def case_batch_stock():
    if STOCK is None:
        print("SKIP: iperf3 3.21 not found (set IPERF3_PEER_321): "
              "batches against 3.21")
        return
    batch_check("our client to a 3.21 server: our sender batches", [],
                True, server=STOCK)
    batch_check("a 3.21 client -R from our server: our sender batches",
                ["-R"], True, client=STOCK)
    for label, kw, args in (("our client to a 3.21 server", {"server": STOCK},
                             []),
                            ("3.21 client -R from our server",
                             {"client": STOCK}, ["-R"])):
        ct, st, cp, sp, doc, rc = run(args, secs=2, **kw)
        probs = whole(doc) + ([f"client exit {rc}"] if rc != 0 else [])
        record(f"{label}, batched: figures whole", not probs,
               "; ".join(probs))


def case_batch_syscalls():
    """The calls themselves: sendmsg with 8 blocks of 131072 bytes."""
    why = strace_unavailable()
    if why:
        print(f"SKIP: {why}: the batch's sendmsg calls")
        return
    for label, extra, want in (("batch: sendmsg of 8 blocks", [], True),
                               ("-l 128K: no sendmsg batch", ["-l", "128K"],
                                False)):
        trace = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                             f"placement-strace-{os.getpid()}.txt")
        try:
            cout, sout, rc = debug_run(extra, prefix=(
                "strace", "-f", "-qq", "-e", "trace=sendmsg", "-o", trace))
            with open(trace, encoding="utf-8", errors="replace") as f:
                calls = [ln for ln in f if "sendmsg(" in ln]
        finally:
            if os.path.exists(trace):
                os.unlink(trace)
        full = [c for c in calls if c.count("iov_len=131072") == 8]
        probs = [f"client exit {rc}"] if rc != 0 else []
        if want and not full:
            probs.append(f"no sendmsg of 8 blocks in {len(calls)} calls")
        if not want and full:
            probs.append(f"{len(full)} sendmsg calls of 8 blocks")
        record(label, not probs, "; ".join(probs) or
               f"{len(full)} of {len(calls)} sendmsg calls carry 8 blocks")


def main():
    global OURS, STOCK, NCPU
    OURS = sys.argv[1]
    p321 = peer_321_path()
    if peer_version(p321):
        STOCK = p321
    if not os.path.exists("/proc/self/task"):
        print("SKIP: no /proc")
        return 77
    NCPU = len(os.sched_getaffinity(0))
    if NCPU < 2:
        print("SKIP: one usable CPU (placement needs two)")
        return 77
    if NCPU > 8:
        print(f"note: {NCPU} CPUs: -P {2 * NCPU} tests")
    for case in (case_forward, case_reverse, case_bidir, case_off,
                 case_few, case_udp, case_affinity, case_taskset,
                 case_stock, case_batch, case_batch_not, case_batch_counts,
                 case_batch_stock, case_batch_syscalls):
        try:
            case()
        except (OSError, RuntimeError, subprocess.SubprocessError,
                ValueError) as e:
            record(case.__name__, False, f"{type(e).__name__}: {e}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
