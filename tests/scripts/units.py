#!/usr/bin/env python3
"""contrib/'s systemd units: iperf3.service, iperf3.socket, iperf3@.service.

Each unit is copied to a temporary folder with its ExecStart's
/usr/local/bin/iperf3 (what `make install` gives) replaced by the build
tree's iperf3, and checked by `systemd-analyze verify --man=no` (our man
page is not installed where the tests run): iperf3.service alone,
iperf3.socket with iperf3.service beside it, iperf3@.service as the
instance iperf3@5202.service.  A line of its output that names one of our
units (or the temporary folder) fails the case; other lines (about the
machine's own units, in some environments) are shown and ignored.
A control case checks that a unit with an unknown key does get a line
here (else the verify cases would pass on a tool that reports nothing).

Also: the ExecStart lines say /usr/local/bin/iperf3; the template runs
`iperf3 -s -p %i $IPERF3_OPTS` and, expanded for a free port with
IPERF3_OPTS="-1", serves one client test; its confinement is the same
as iperf3.service's; the socket unit listens on stream port 5201 with
Accept=no and activates iperf3.service.

Not a verdict: `systemd-analyze security --offline=yes` of each service
is printed as "# exposure ..." lines (systemd 250 and later).

Usage: units.py CONTRIB_DIR OURS [case-filter]
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import testlib
from testlib import report, run_cases

CONTRIB = sys.argv[1]
OURS = os.path.realpath(sys.argv[2])
FILTER = sys.argv[3] if len(sys.argv) > 3 else ""
INSTALLED = "/usr/local/bin/iperf3"
UNITS = ("iperf3.service", "iperf3.socket", "iperf3@.service")
# A line about one of our units: its name (an instance too) or its file.
OURS_RE = re.compile(r"iperf3(@[^\s.:]*)?\.(service|socket)\b")


def read_unit(name):
    with open(os.path.join(CONTRIB, name)) as f:
        return f.read()


def sections(text):
    """{section: [(key, value)]} of a unit file, in order (comments and
    blank lines left out; no line continuations in our units)."""
    out, cur = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            cur = out.setdefault(line[1:-1], [])
        elif "=" in line and cur is not None:
            k, v = line.split("=", 1)
            cur.append((k.strip(), v.strip()))
    return out


def values(text, section, key):
    return [v for k, v in sections(text).get(section, []) if k == key]


def for_build_tree(text):
    """The unit with ExecStart running the build tree's iperf3 (quoted if
    the path has blanks; '%' doubled, systemd's specifier escape)."""
    path = OURS.replace("%", "%%")
    if re.search(r"\s", path):
        path = '"' + path + '"'
    return re.sub(r"^ExecStart=" + re.escape(INSTALLED) + r"(?=\s|$)",
                  "ExecStart=" + path.replace("\\", "\\\\"), text,
                  flags=re.M)


def stage(names, extra=None):
    """A temporary folder with the units `names` for the build tree (and
    `extra`: {file name: text}, written as is)."""
    d = tempfile.mkdtemp(prefix="iperf3-units-")
    for n in names:
        with open(os.path.join(d, n), "w") as f:
            f.write(for_build_tree(read_unit(n)))
    for n, text in (extra or {}).items():
        with open(os.path.join(d, n), "w") as f:
            f.write(text)
    return d


def verify(folder, names):
    """Run systemd-analyze verify on folder/names: (exit status, lines
    about our units, other lines)."""
    env = dict(os.environ, SYSTEMD_LOG_COLOR="0", SYSTEMD_PAGER="",
               SYSTEMD_COLORS="0")
    p = subprocess.run(["systemd-analyze", "verify", "--man=no"] +
                       [os.path.join(folder, n) for n in names],
                       capture_output=True, text=True, timeout=120,
                       cwd=folder, env=env)
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    ours = [l for l in lines if OURS_RE.search(l) or folder in l]
    return p.returncode, ours, [l for l in lines if l not in ours]


def verify_case(label, names, targets):
    folder = stage(names)
    try:
        rc, ours, other = verify(folder, targets)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for l in other:
        print(f"# not about our units, ignored: {l}")
    probs = list(ours)
    if rc != 0 and not other:
        probs.append(f"systemd-analyze verify exit {rc}")
    report(f"verify: {label}", probs)


def case_verify_service():
    verify_case("iperf3.service", ["iperf3.service"], ["iperf3.service"])


def case_verify_socket():
    verify_case("iperf3.socket with iperf3.service",
                ["iperf3.socket", "iperf3.service"],
                ["iperf3.socket", "iperf3.service"])


def case_verify_template():
    verify_case("iperf3@.service as iperf3@5202.service",
                ["iperf3@.service"], ["iperf3@5202.service"])


def case_verify_reports_here():
    """The control: an unknown key in our unit is reported here."""
    bad = for_build_tree(read_unit("iperf3.service")).replace(
        "[Service]\n", "[Service]\nNoSuchKeyForTheControl=1\n", 1)
    folder = stage([], {"iperf3.service": bad})
    try:
        rc, ours, other = verify(folder, ["iperf3.service"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    hit = [l for l in ours if "NoSuchKeyForTheControl" in l]
    report("verify: an unknown key in our unit is reported",
           [] if hit else [f"nothing said about it (exit {rc}; "
                           f"{(ours + other)[:3]})"])


def case_exec_paths():
    probs = []
    for n in UNITS:
        if n.endswith(".socket"):
            continue
        starts = values(read_unit(n), "Service", "ExecStart")
        if len(starts) != 1 or not starts[0].startswith(INSTALLED + " "):
            probs.append(f"{n}: ExecStart {starts}, want one of {INSTALLED}")
        elif OURS not in values(for_build_tree(read_unit(n)), "Service",
                                "ExecStart")[0]:
            probs.append(f"{n}: ExecStart not rewritten for the build tree")
    report(f"ExecStart runs {INSTALLED}", probs)


def expand(text, instance, opts):
    """The template's command line for `instance`, with IPERF3_OPTS=opts
    (systemd's $VAR form: split into words), the build tree's iperf3."""
    words = shlex.split(values(text, "Service", "ExecStart")[0])
    argv = []
    for w in words:
        if w == "$IPERF3_OPTS":
            argv += opts.split()
        else:
            argv.append(w.replace("%i", str(instance)))
    return [OURS] + argv[1:]


def case_template_runs_a_server():
    text = read_unit("iperf3@.service")
    probs = []
    words = shlex.split(values(text, "Service", "ExecStart")[0])
    if words[1:4] != ["-s", "-p", "%i"]:
        probs.append(f"ExecStart arguments {words[1:]}, want -s -p %i first")
    files = values(text, "Service", "EnvironmentFile")
    if not any(f.startswith("-") and "%i" in f for f in files):
        probs.append(f"no optional per-instance EnvironmentFile: {files}")
    port = testlib.free_port()
    srv = expand(text, port, "-1")
    cli, src, _, serr = testlib.one_test(
        srv, [OURS, "-c", "127.0.0.1", "-p", str(port), "-t", "1"])
    if cli.returncode != 0 or src != 0:
        probs.append(f"{' '.join(srv[1:])}: client exit {cli.returncode} "
                     f"({cli.stderr.strip()[-200:]}), server exit {src} "
                     f"({serr.strip()[-200:]})")
    report(f"iperf3@{port}: iperf3 -s -p {port} with IPERF3_OPTS=-1 serves "
           "a test", probs)


def confinement(text):
    """The [Service] lines that confine (all but what names the command,
    its options and the instance) and [Install]."""
    s = sections(text)
    keep = [(k, v) for k, v in s.get("Service", [])
            if k not in ("ExecStart", "EnvironmentFile")]
    return keep, s.get("Install", [])


def case_template_same_confinement():
    a = confinement(read_unit("iperf3.service"))
    b = confinement(read_unit("iperf3@.service"))
    probs = []
    for what, x, y in (("[Service]", a[0], b[0]), ("[Install]", a[1], b[1])):
        if x != y:
            probs.append(f"{what}: only in iperf3.service "
                         f"{[l for l in x if l not in y]}, only in "
                         f"iperf3@.service {[l for l in y if l not in x]}")
    keys = {k for k, _ in a[0]}
    for k in ("DynamicUser", "NoNewPrivileges", "CapabilityBoundingSet"):
        if k not in keys:
            probs.append(f"iperf3.service has no {k}=")
    if ("CapabilityBoundingSet", "") not in a[0]:
        probs.append("CapabilityBoundingSet= is not empty")
    report("iperf3@.service is confined like iperf3.service", probs)


def case_socket_unit():
    s = sections(read_unit("iperf3.socket")).get("Socket", [])
    probs = []
    if [v for k, v in s if k == "ListenStream"] != ["5201"]:
        probs.append(f"ListenStream {[v for k, v in s if k == 'ListenStream']}")
    if ("Accept", "no") not in s:
        probs.append("no Accept=no")
    svc = [v for k, v in s if k == "Service"] or ["iperf3.service"]
    if svc != ["iperf3.service"]:
        probs.append(f"activates {svc}, not iperf3.service")
    if any(k in ("ListenDatagram", "ListenSequentialPacket") for k, _ in s):
        probs.append("passes more than the stream socket")
    report("iperf3.socket: stream port 5201, Accept=no, iperf3.service", probs)


def case_security_scores():
    """Printed, not judged."""
    folder = stage(["iperf3.service", "iperf3@.service"])
    try:
        for n in ("iperf3.service", "iperf3@5202.service"):
            p = subprocess.run(["systemd-analyze", "security", "--offline=yes",
                                "--no-pager", os.path.join(folder, n)],
                               capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, SYSTEMD_COLORS="0"))
            m = re.search(r"Overall exposure level for \S+: ([0-9.]+ \w+)",
                          p.stdout)
            print(f"# exposure {n}: " + (m.group(1) if m else
                  f"not available (exit {p.returncode}: "
                  f"{(p.stderr.strip().splitlines() or [''])[-1]})"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


CASES = [case_verify_reports_here, case_verify_service, case_verify_socket,
         case_verify_template, case_exec_paths, case_template_runs_a_server,
         case_template_same_confinement, case_socket_unit,
         case_security_scores]


if __name__ == "__main__":
    sys.exit(run_cases(CASES, FILTER))
