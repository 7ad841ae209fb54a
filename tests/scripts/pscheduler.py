#!/usr/bin/env python3
"""perfSONAR pScheduler's iperf3 tool, unmodified, driving ours.

pScheduler's own files (`run`, `participant-data`, iperf3_parser.py,
iperf3_utils.py, iperf3_defaults.py: $PSCHEDULER_TOOL_IPERF3, else
../shared/peers/pscheduler-tool-iperf3 beside the checkout; without them
the test is skipped visibly) run as pScheduler runs them, with a stub of
the `pscheduler` module (below: only what those files call, a logger,
JSON in and out, ISO 8601 durations, run_program(), and no NUMA or
interface lookups).  Nothing of the tool is copied or rewritten: the
command lines are those `run` builds, the versions those
`participant-data` reads from `iperf3 --version`, the keys and users
file those it makes (an RSA key in PKCS#1 "traditional" PEM, the users
file `user,sha256("{user}password")`), and every result goes through
iperf3_parser.parse_output() as `run` feeds it.  Two things are set as
pScheduler's configuration would: the tool's config file (iperf3_cmd:
the program under test; server_port: a free port) and its 3 s head start
for the server (DEFAULT_WAIT_SLEEP) cut to 1 s, to keep the test short
(and each test's spec has link-rtt 150 ms, which adds 3 s to run's time
limits on iperf3, for a loaded machine; the command lines stay as they
are).

Cases, each with pScheduler's authentication (participant-data always
offers it) unless named otherwise, -t 2, in three pairings: ours client ->
ours server, ours -> 3.21, 3.21 -> ours:
  tcp, parallel (-P 2), udp (-u -b 10M -l 1200), reverse (-R),
  tuned (-w -M -S -C -Z -O -i), v4bind (-4 -B), v6bind (-6 -B -L),
  fqrate (--fq-rate), noauth (an older pScheduler, schema 1: no auth).
Checked: the command lines have the issue's shape, both sides' results
parse (succeeded, intervals, throughput within sane bounds), the parsed
key sets of ours equal those of 3.21 in the same role.  Then: the
version each participant reports; with Debian's 3.12 (authentication):
3.12 client -> our server (our server gets --use-pkcs1-padding from
`run`), our client -> 3.12 server through `run` (refused exactly as a
3.21 client is: `run` puts --use-pkcs1-padding on the client too), and
the same client line with IPERF3_USE_PKCS1_PADDING=1 in place of it.

Usage: pscheduler.py OURS [FILTER]
       pscheduler.py --tool NAME CONFIG BINDIR   (internal: one tool run)
"""

import datetime
import hashlib
import json
import os
import re
import runpy
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
import types
import random

HERE = os.path.dirname(os.path.abspath(__file__))
WAIT_SLEEP = 1      # pScheduler's DEFAULT_WAIT_SLEEP (3 s) for this test


def tool_dir():
    import testlib
    return testlib.shared_path("PSCHEDULER_TOOL_IPERF3", "peers",
                               "pscheduler-tool-iperf3")


# ---- the stub of the pscheduler module ----------------------------------------

def stub_module():
    """A `pscheduler` module with what the tool's files call."""
    m = types.ModuleType("pscheduler")

    class Log:
        def __init__(self, prefix=None, quiet=False, **kw):
            self.prefix = prefix or "pscheduler"

        def _say(self, *args):
            if os.environ.get("PSCHEDULER_STUB_DEBUG") and args:
                msg = args[0] % args[1:] if len(args) > 1 else args[0]
                print(f"{self.prefix}: {msg}", file=sys.stderr)

        debug = info = warning = error = critical = _say

        def exception(self, *args):
            import traceback
            self._say(*(args or ("exception",)))
            traceback.print_exc(file=sys.stderr)

    def json_load(source=None, exit_on_error=False, **kw):
        try:
            text = sys.stdin.read() if source is None else source
            return json.loads(text)
        except ValueError as e:
            if exit_on_error:
                fail(f"Invalid JSON: {e}")
            raise

    def json_dump(obj, dest=None, pretty=False, **kw):
        return json.dumps(obj, indent=4 if pretty else None)

    def fail(message="Failure", **kw):
        print(message, file=sys.stderr)
        sys.exit(1)

    def succeed_json(obj, **kw):
        print(json.dumps(obj))
        sys.exit(0)

    def iso8601_as_timedelta(text):
        mt = re.fullmatch(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?"
                          r"(?:(\d+(?:\.\d+)?)S)?)?", text)
        if not mt:
            raise ValueError(f"bad ISO 8601 duration {text!r}")
        d, h, mi, s = (float(x) if x else 0.0 for x in mt.groups())
        return datetime.timedelta(days=d, hours=h, minutes=mi, seconds=s)

    def timedelta_as_seconds(td):
        return td.total_seconds()

    def sleep_until(when):
        at = datetime.datetime.fromisoformat(when)
        left = (at - datetime.datetime.now(datetime.timezone.utc)) \
            .total_seconds()
        if left > 0:
            time.sleep(left)

    def run_program(argv, timeout=None, env_add=None, **kw):
        env = dict(os.environ)
        env.update(env_add or {})
        try:
            p = subprocess.run([str(a) for a in argv], capture_output=True,
                               text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else ""
            return 2, out, "Process took too long to run."
        return p.returncode, p.stdout, p.stderr

    def random_string(length, randlength=False, safe=False):
        chars = string.ascii_letters + string.digits + \
            ("" if safe else string.punctuation)
        return "".join(random.choice(chars) for _ in range(length))

    # No NUMA, no interface lookups: no numactl in front of iperf3.
    def source_affinity(dest, ip_version=None):
        return None

    def address_interface(addr, ip_version=None):
        return None

    for name, v in list(locals().items()):
        if name != "m":
            setattr(m, name, v)
    return m


def install_stub(tooldir):
    sys.modules["pscheduler"] = stub_module()
    if tooldir not in sys.path:
        sys.path.insert(0, tooldir)


def tool_main(name, config, bindir):
    """One run of the tool's program `name` (stdin: its input JSON)."""
    tooldir = tool_dir()
    install_stub(tooldir)
    import iperf3_defaults
    iperf3_defaults.CONFIG_FILE = config
    iperf3_defaults.DEFAULT_WAIT_SLEEP = WAIT_SLEEP
    os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    sys.argv = [os.path.join(tooldir, name)]
    runpy.run_path(sys.argv[0], run_name="__main__")


# ---- the harness ------------------------------------------------------------------

if __name__ == "__main__" and sys.argv[1:2] == ["--tool"]:
    tool_main(*sys.argv[2:5])
    sys.exit(0)

sys.path.insert(0, HERE)
import testlib  # noqa: E402
from testlib import free_port, report, skip, stop, summary  # noqa: E402

TMP = None
DUR = 2


class Prog:
    """A program under test with a directory where it is `iperf3` (for
    participant-data, which runs `iperf3 --version` from PATH)."""

    def __init__(self, label, path):
        self.label, self.path = label, os.path.abspath(path)
        self.bindir = os.path.join(TMP, "bin-" + label)
        os.makedirs(self.bindir, exist_ok=True)
        os.symlink(self.path, os.path.join(self.bindir, "iperf3"))
        self.cmd = os.path.join(self.bindir, "iperf3")


def config(prog, port):
    fd, path = tempfile.mkstemp(prefix="iperf3-", suffix=".conf", dir=TMP)
    with os.fdopen(fd, "w") as f:
        f.write(f"[iperf3]\niperf3_cmd = {prog.cmd}\nserver_port = {port}\n")
    return path


def tool(name, prog, port, data, timeout):
    """Start the tool program `name` for `prog` with input `data`: the
    process (its stdin written and closed)."""
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                          "--tool", name, config(prog, port), prog.bindir],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    p.stdin.write(json.dumps(data))
    p.stdin.close()
    p.limit = timeout
    return p


def finish(p):
    """(exit status, output JSON or None, stderr) of a tool process."""
    try:
        p.wait(p.limit)
    except subprocess.TimeoutExpired:
        stop(p)
        return None, None, f"tool still running after {p.limit} s"
    out, err = p.stdout.read(), p.stderr.read()
    p.stdout.close()
    p.stderr.close()
    try:
        return p.returncode, json.loads(out), err
    except ValueError:
        return p.returncode, None, f"{err.strip()[-300:]} / stdout {out[:200]!r}"


HAVE_CRYPTOGRAPHY = True
try:
    import cryptography  # noqa: F401 (participant-data's)
    del cryptography
except ImportError:
    HAVE_CRYPTOGRAPHY = False


def openssl_pdata(prog, participant, port):
    """participant-data's output, made with openssl where the python
    cryptography module is missing (the same formats: a PKCS#1
    "traditional" PEM key, its SubjectPublicKeyInfo public key, the users
    line user,sha256("{user}password"))."""
    out = subprocess.run([prog.cmd, "--version"], capture_output=True,
                         text=True, timeout=10).stdout
    res = {"schema": 3, "iperf3-version": out.split()[1]}
    if participant == 1:
        key = subprocess.run(["openssl", "genrsa", "-traditional", "2048"],
                             capture_output=True, text=True, check=True,
                             timeout=60).stdout
        pub = subprocess.run(["openssl", "rsa", "-pubout"], input=key,
                             capture_output=True, text=True, check=True,
                             timeout=60).stdout
        chars = string.ascii_letters + string.digits
        user = "".join(random.choice(chars) for _ in range(20))
        pw = "".join(random.choice(chars + string.punctuation)
                     for _ in range(20))
        digest = hashlib.sha256(f"{{{user}}}{pw}".encode()).hexdigest()
        res.update(server_port=port, _auth={
            "private": key, "public": pub, "username": user,
            "password": pw, "credentials": f"{user},{digest}\n"})
    return res


def pdata(prog, participant, port):
    """(participant-data's result for prog, problems)."""
    return pdata_many([(prog, participant, port)])[0]


def pdata_many(asks):
    """pdata() for each (prog, participant, port) of asks, run at once."""
    return pdata_collect(asks, pdata_start(asks))


def pdata_start(asks):
    """Start participant-data for each of asks; pdata_collect() waits."""
    if not HAVE_CRYPTOGRAPHY:
        return [(openssl_pdata(*a), []) for a in asks]
    return [tool("participant-data", prog, port,
                 {"participant": participant}, 30)
            for prog, participant, port in asks]


def pdata_collect(asks, procs):
    res = []
    for (prog, _, _), p in zip(asks, procs):
        if isinstance(p, tuple):
            res.append(p)
            continue
        rc, out, err = finish(p)
        if rc != 0 or out is None:
            res.append((None, [f"participant-data ({prog.label}): exit {rc} "
                               f"{err!r}"]))
        else:
            res.append((out, []))
    return res


_pdata0 = {}


def prepare(cprog, sprog, spec):
    """Start what one test needs before it runs: a port, participant-data
    of both sides (the client's, which is the same every time, once per
    program); a function that waits for them: (port, d0, d1, problems)."""
    port = free_port(socket.AF_INET6 if spec.get("ip-version") == 6
                     else socket.AF_INET)
    if cprog.label not in _pdata0:
        _pdata0[cprog.label] = pdata(cprog, 0, port)
    asks = [(sprog, 1, port)]
    procs = pdata_start(asks)

    def ready():
        (d1, p1), = pdata_collect(asks, procs)
        d0, p0 = _pdata0[cprog.label]
        return port, json.loads(json.dumps(d0)), d1, p0 + p1
    return ready


# ---- expected command lines ---------------------------------------------------------

def want_client(spec, port, padding, auth):
    """The client line the issue describes, from the spec (the key file
    is any path)."""
    a = ["--use-pkcs1-padding"] if padding else []
    a += ["-p", str(port)]
    if "ip-version" in spec:
        a += ["-4" if spec["ip-version"] == 4 else "-6"]
        if "source" in spec:
            a += ["-B", spec["source"]]
    a += ["-c", spec["dest"], "-t", str(DUR), "--json"]
    for key, opt in (("interval", "-i"), ("parallel", "-P"),
                     ("window-size", "-w"), ("mss", "-M"), ("omit", "-O"),
                     ("bandwidth", "-b"), ("fq-rate", "--fq-rate")):
        if key in spec:
            v = spec[key]
            a += [opt, str(int(v[2:-1]) if key in ("interval", "omit")
                           else v)]
    if spec.get("udp"):
        a += ["-u"]
    for key, opt in (("buffer-length", "-l"), ("ip-tos", "-S"),
                     ("congestion", "-C")):
        if key in spec:
            a += [opt, str(spec[key])]
    if "zero-copy" in spec:
        a += ["-Z"]
    if "flow-label" in spec:
        a += ["-L", str(spec["flow-label"])]
    if spec.get("reverse"):
        a += ["-R"]
    if auth:
        a += ["--rsa-public-key-path", "*", "--username", auth["username"]]
    return a


def want_server(spec, port, padding, auth):
    a = ["--use-pkcs1-padding"] if padding else []
    a += ["-s", "-1", "--idle-timeout", str(DUR), "--json", "-p", str(port)]
    if "ip-version" in spec:
        a += ["-B", spec["dest"], "-4" if spec["ip-version"] == 4 else "-6"]
    if auth:
        a += ["--authorized-users-path", "*", "--rsa-private-key-path", "*"]
    return a


def line_problems(what, result, prog, want):
    """The command line `run` ran (the first line of its diags) against
    the expected one."""
    line = (result.get("diags") or "").split("\n", 1)[0].split(" ")
    got = line[1:] if line[:1] == [prog.cmd] else None
    if got is None:
        return [f"{what}: ran {line[:1]}, not {prog.cmd}"]
    if len(got) != len(want) or any(w != "*" and w != g
                                    for w, g in zip(want, got)):
        return [f"{what}: command line {' '.join(got)!r}, want "
                f"{' '.join(want)!r}"]
    return []


# ---- result checks ---------------------------------------------------------------

def shape(result):
    """The parsed result's key sets (what the parser found in the JSON)."""
    s = result.get("summary", {})
    iv = result.get("intervals") or [{}]
    return {
        "top": sorted(k for k in result if k != "diags"),
        "summary": sorted(s.get("summary", {})),
        "summary.streams": sorted({k for st in s.get("streams", [])
                                   for k in st}),
        "interval.summary": sorted(iv[0].get("summary", {})),
        "interval.streams": sorted({k for st in iv[0].get("streams", [])
                                    for k in st}),
    }


def result_problems(what, result, spec):
    """Problems of a parsed result: succeeded, its intervals and streams,
    the throughput of the data's direction within sane bounds (this side's
    figure: a receiving server has only its receiver figure, a sending one
    only its sender figure; a client has both, which must agree)."""
    if not result.get("succeeded"):
        return [f"{what}: not succeeded: "
                f"{str(result.get('error'))[:300]!r}"]
    probs = []
    iv = result.get("intervals") or []
    s = result.get("summary", {})
    summ, streams = s.get("summary", {}), s.get("streams", [])
    omit = 1 if "omit" in spec else 0
    if not DUR <= len(iv) <= DUR + omit + 1:
        probs.append(f"{what}: {len(iv)} intervals")
    n = spec.get("parallel", 1)
    if len(streams) != n or any(len(i.get("streams", [])) != n for i in iv):
        probs.append(f"{what}: streams {len(streams)} (want {n})")
    if omit and not any(i.get("summary", {}).get("omitted") for i in iv):
        probs.append(f"{what}: no omitted interval with -O")
    if spec.get("udp"):
        lo, hi = 0.7 * spec["bandwidth"], 1.3 * spec["bandwidth"]
    elif "fq-rate" in spec:
        lo, hi = 1e6, 1.3 * spec["fq-rate"]
    else:
        lo, hi = 10e6, 1e12
    keys = ["throughput-bits", "receiver-throughput-bits"]
    if what == "server":
        keys = keys[:1] if spec.get("reverse") else keys[1:]
    for k in keys:
        v = summ.get(k)
        if not isinstance(v, (int, float)) or not lo <= v <= hi:
            probs.append(f"{what}: {k} {v} outside [{lo:.3g}, {hi:.3g}]")
    if what == "client" and not probs and not spec.get("udp") and \
            not 0.5 <= summ[keys[1]] / summ[keys[0]] <= 1.5:
        probs.append(f"{what}: sender and receiver disagree: {summ}")
    if what == "client" and summ.get("throughput-bytes", 0) <= 0:
        probs.append(f"{what}: throughput-bytes {summ.get('throughput-bytes')}")
    if spec.get("udp") and not {"sent", "lost", "jitter"} <= set(summ):
        probs.append(f"{what}: UDP summary lacks sent/lost/jitter: {summ}")
    return probs


def run_pair(cprog, sprog, spec, auth=True, prepared=None):
    """One pScheduler test: participant-data on both sides (`prepared`:
    from prepare(), else made now), `run` as the server (participant 1)
    and as the client (participant 0).  Returns (client rc, result, err),
    (server rc, result, err), pdata, problems."""
    port, d0, d1, probs = (prepared or prepare(cprog, sprog, spec))()
    if probs:
        return None, None, None, probs
    if not auth:   # an older pScheduler: schema 1, no authentication
        d0["schema"] = 1
        d1.pop("_auth", None)
    start = (datetime.datetime.now(datetime.timezone.utc) +
             datetime.timedelta(seconds=0.5)).isoformat()
    base = {"participant-data": [d0, d1], "test": {"spec": spec},
            "schedule": {"start": start}}
    srv = tool("run", sprog, port, dict(base, participant=1), 30)
    cli = tool("run", cprog, port, dict(base, participant=0), 30)
    c, s = finish(cli), finish(srv)
    return c, s, (d0, d1), []


def pad(me, other):
    """run's rule: --use-pkcs1-padding when the other end is below 3.17
    and this end is not."""
    v = lambda d: tuple(int(x) for x in d.get("iperf3-version", "0.0").split("."))
    return v(other) < (3, 17) <= v(me)


def at_once(*fns):
    """Run the functions in threads at once; their results in order."""
    out = [None] * len(fns)

    def one(i, fn):
        try:
            out[i] = fn()
        except Exception as e:  # noqa: BLE001 (reported)
            out[i] = e
    threads = [threading.Thread(target=one, args=(i, fn))
               for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def pair_problems(name, spec, cprog, sprog, shapes, prepared):
    """Problems of one pScheduler test of case `name`."""
    auth = name != "noauth"
    c, s, data, probs = run_pair(cprog, sprog, spec, auth, prepared)
    if probs:
        return probs
    d0, d1 = data
    a = d1.get("_auth") if auth else None
    for what, (rc, res, err), prog, want in (
            ("client", c, cprog, want_client(spec, d1["server_port"],
                                              pad(d0, d1), a)),
            ("server", s, sprog, want_server(spec, d1["server_port"],
                                              pad(d1, d0), a))):
        if rc != 0 or res is None:
            probs.append(f"{what}: run exit {rc}: {err[-300:]!r}")
            continue
        probs += line_problems(what, res, prog, want)
        probs += result_problems(what, res, spec)
        shapes.setdefault((name, what, prog.label), shape(res))
    return probs


def full_spec(spec):
    """A test's spec with what every case has: pScheduler's link-rtt
    (150 ms: 3 s of setup time added to run's time limits, which leaves
    the command lines as they are) gives slack on a loaded machine."""
    return dict({"dest": "127.0.0.1", "duration": f"PT{DUR}S",
                 "link-rtt": "PT0.15S"}, **spec)


def case(name, spec, pairs, shapes, prepared):
    """Case `name` in each pairing, the pairings at once (`prepared`: one
    prepare() for each pairing)."""
    spec = full_spec(spec)
    t0 = time.time()
    got = at_once(*[lambda c=c, s=s, p=p: pair_problems(name, spec, c, s,
                                                         shapes, p)
                    for (c, s), p in zip(pairs, prepared)])
    secs = time.time() - t0
    for (cprog, sprog), probs in zip(pairs, got):
        if isinstance(probs, Exception):
            probs = [f"{type(probs).__name__}: {probs}"]
        report(f"{name}: {cprog.label} client -> {sprog.label} server",
               probs, secs)


def compare_shapes(shapes):
    """Our results' parsed key sets equal 3.21's in the same role."""
    for (name, what, label), sh in sorted(shapes.items()):
        if label != "3.21":
            continue
        ours = shapes.get((name, what, "ours"))
        if ours is None:
            continue
        diff = [f"{k}: ours {ours[k]} 3.21 {sh[k]}" for k in sh
                if ours[k] != sh[k]]
        report(f"{name}: parsed {what} result, ours as 3.21's", diff)


CASES = [
    ("tcp", {}),
    ("parallel", {"parallel": 2}),
    ("udp", {"udp": True, "bandwidth": 10000000, "buffer-length": 1200}),
    ("reverse", {"reverse": True}),
    ("tuned", {"window-size": 262144, "mss": 1300, "ip-tos": 32,
               "congestion": "reno", "zero-copy": True, "omit": "PT1S",
               "interval": "PT1S"}),
    ("v4bind", {"ip-version": 4, "source": "127.0.0.1"}),
    ("v6bind", {"ip-version": 6, "source": "::1", "dest": "::1",
                "flow-label": 12345}),
    ("fqrate", {"fq-rate": 100000000}),
    ("noauth", {}),
]


def have_ipv6():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def versions(progs):
    """participant-data's iperf3-version for each program: a plain
    version, ours the same as 3.21's."""
    got = {}
    for prog in progs:
        d, probs = pdata(prog, 0, 0)
        v = d.get("iperf3-version") if d else None
        got[prog.label] = v
        if v is not None and not re.fullmatch(r"\d+\.\d+", v):
            probs.append(f"version {v!r} is not a plain version")
        report(f"version: participant-data of {prog.label} says {v}", probs)
    if "3.21" in got:
        report("version: ours reports 3.21's", [] if got["ours"] ==
               got["3.21"] else [f"ours {got['ours']} 3.21 {got['3.21']}"])


SPEC312 = full_spec({})


def from_312(ours, p312):
    """3.12 client -> our server: run gives our server
    --use-pkcs1-padding."""
    c, s, data, probs = run_pair(p312, ours, SPEC312)
    if probs:
        return probs
    d0, d1 = data
    for what, (rc, res, err), prog, want in (
            ("client", c, p312, want_client(SPEC312, d1["server_port"],
                                            False, d1["_auth"])),
            ("server", s, ours, want_server(SPEC312, d1["server_port"],
                                            True, d1["_auth"]))):
        if rc != 0 or res is None:
            probs.append(f"{what}: run exit {rc}: {err[-300:]!r}")
            continue
        probs += line_problems(what, res, prog, want)
        probs += result_problems(what, res, SPEC312)
    return probs


def to_312_by_run(cprog, p312):
    """A client -> 3.12 server through run: --use-pkcs1-padding on the
    client, which 3.21 refuses (a server option).  (problems, error)."""
    c, s, data, probs = run_pair(cprog, p312, SPEC312)
    if probs:
        return probs, None
    rc, res, err = c
    if rc != 0 or res is None:
        return [f"client: run exit {rc}: {err[-300:]!r}"], None
    if res.get("succeeded"):
        return ["client: succeeded with --use-pkcs1-padding"], None
    if "server only" not in str(res.get("error")):
        probs.append(f"client: error {res.get('error')!r}")
    return probs, res.get("error")


def to_312_by_env(ours, p312):
    """The same client line without that option, with
    IPERF3_USE_PKCS1_PADDING=1 (README): our client against run's 3.12
    server; its JSON through the parser as run feeds it."""
    import iperf3_parser
    import iperf3_utils
    port = free_port()
    (d0, p0), (d1, p1) = pdata_many([(ours, 0, port), (p312, 1, port)])
    if p0 or p1:
        return p0 + p1
    probs = []
    start = (datetime.datetime.now(datetime.timezone.utc) +
             datetime.timedelta(seconds=0.5)).isoformat()
    base = {"participant-data": [d0, d1], "test": {"spec": SPEC312},
            "schedule": {"start": start}}
    srv = tool("run", p312, port, dict(base, participant=1), 30)
    keyf = os.path.join(TMP, f"pub-{port}")
    with open(keyf, "w") as f:
        f.write(d1["_auth"]["public"])
    argv = [ours.cmd] + want_client(SPEC312, port, False, d1["_auth"])
    argv[argv.index("*")] = keyf
    env = dict(os.environ, IPERF3_PASSWORD=d1["_auth"]["password"],
               IPERF3_USE_PKCS1_PADDING="1")
    testlib.wait_listening(port, srv, time.time() + 10)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                       env=env)
    rc, sres, serr = finish(srv)
    res = iperf3_parser.parse_output(
        iperf3_utils.strip_output(r.stdout).split("\n"))
    if r.returncode != 0:
        probs.append(f"client exit {r.returncode}: {r.stderr[-200:]!r}")
    probs += result_problems("client", res, SPEC312)
    if rc != 0 or sres is None:
        probs.append(f"server: run exit {rc}: {serr[-300:]!r}")
    else:
        probs += result_problems("server", sres, SPEC312)
    return probs


def with_312(ours, p321, p312):
    """Authentication with Debian's 3.12 on the other end."""
    cprogs = [ours] + ([p321] if p321 else [])
    t0 = time.time()
    got = at_once(lambda: from_312(ours, p312),
                  lambda: to_312_by_env(ours, p312),
                  *[lambda c=c: to_312_by_run(c, p312) for c in cprogs])
    secs = time.time() - t0
    got = [[f"{type(g).__name__}: {g}"] if isinstance(g, Exception) else g
           for g in got]
    report("auth: 3.12 client -> ours server", got[0], secs)
    report("auth: ours client (IPERF3_USE_PKCS1_PADDING=1) -> 3.12 server "
           "(run)", got[1], secs)
    errs = {}
    for cprog, g in zip(cprogs, got[2:]):
        probs, errs[cprog.label] = g if isinstance(g, tuple) else (g, None)
        report(f"auth: {cprog.label} client -> 3.12 server through run "
               "(--use-pkcs1-padding on a client: refused)", probs, secs)
    if errs.get("3.21") and errs.get("ours"):
        report("auth: that refusal, ours as 3.21's",
               [] if errs["ours"] == errs["3.21"] else
               [f"ours {errs['ours']!r} 3.21 {errs['3.21']!r}"])


def main():
    global TMP
    ours_path = sys.argv[1]
    filt = sys.argv[2] if len(sys.argv) > 2 else ""
    tooldir = tool_dir()
    need = ("run", "participant-data", "iperf3_parser.py", "iperf3_utils.py",
            "iperf3_defaults.py")
    missing = [f for f in need if not os.path.exists(os.path.join(tooldir, f))]
    if missing:
        skip(f"pScheduler's iperf3 tool not found at {tooldir} (missing "
             f"{', '.join(missing)}; set PSCHEDULER_TOOL_IPERF3)")
        return 77
    if not HAVE_CRYPTOGRAPHY and shutil.which("openssl") is None:
        skip("neither python3-cryptography nor openssl: no keys for "
             "pScheduler's authentication")
        return 77
    if not HAVE_CRYPTOGRAPHY:
        skip("participant-data: python3-cryptography missing; its data "
             "made with openssl instead")
    install_stub(tooldir)   # for the parser in this process
    peers = dict(testlib.stock_peers())
    TMP = tempfile.mkdtemp(prefix="pscheduler_test.")
    try:
        ours = Prog("ours", ours_path)
        p321 = Prog("3.21", peers["3.21"]) if "3.21" in peers else None
        p312 = Prog("3.12", peers["3.12"]) if "3.12" in peers else None
        if not filt or "version" in filt:
            versions([p for p in (ours, p321) if p])
        pairs = [(ours, ours)]
        if p321:
            pairs += [(ours, p321), (p321, ours)]
        shapes = {}
        todo = []
        for name, spec in CASES:
            if filt and filt not in name:
                continue
            if spec.get("ip-version") == 6 and not have_ipv6():
                skip(f"{name}: no IPv6 loopback here")
                continue
            todo.append((name, spec))
        # Each case's participant-data runs while the case before it runs.
        prep = lambda spec: [prepare(c, s, full_spec(spec)) for c, s in pairs]
        nxt = prep(todo[0][1]) if todo else None
        for i, (name, spec) in enumerate(todo):
            cur, nxt = nxt, prep(todo[i + 1][1]) if i + 1 < len(todo) else None
            case(name, spec, pairs, shapes, cur)
        compare_shapes(shapes)
        if p312 and (not filt or "auth" in filt):
            with_312(ours, p321, p312)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
