#!/usr/bin/env python3
"""The Debian packages (debian/), built, linted, installed in a fresh
Debian root, run, replaced and purged.

  debpkg.py BUILDDIR SRCDIR

1. Copies the source tree (git's files, or the tree without build
   directories) to a temporary directory and runs `dpkg-buildpackage -us
   -uc -b` there (DEB_BUILD_OPTIONS=nocheck: the unit suites run in `make
   check`), so the checkout is never touched.  Checks the three packages'
   relations and files, that the build products are all in .gitignore and
   that `debian/rules clean` leaves the tree as it was.
2. lintian on the .changes: any E: line fails (W: lines are shown).
3. contrib/debroot.sh makes a minbase bookworm root (while the packages
   build) from the mirror this machine's apt uses; inside it (chroot, /proc
   mounted, policy-rc.d saying 101): `apt-get install ./*.deb`, a loopback
   test with the installed /usr/bin/iperf3, the service installed but
   neither enabled nor started, `iperf3 --version` saying 3.21; then
   Debian's iperf3 installed over ours (refused, or replacing ours: which
   one is printed), ours installed over Debian's, `dpkg --audit` empty
   after each; then everything purged, and the root's file list compared
   with the one before: nothing of ours (nor of Debian's iperf3) left.

The packages are never installed on this machine (they would remove
Debian's iperf3, the tests' 3.12 peer).  Skips (exit 77) with the reason
when not root, without dpkg-buildpackage, dh, lintian or debootstrap,
with unmet build dependencies, or when the mirror cannot be reached.

Slow (a package build and a debootstrap: several minutes), so not in
`make check`'s list: contrib/run-tests.sh runs it in CI (CI=true) or with
IPERF3_DEBPKG=1, beside the robustness jobs.  By hand:
  cd _build && make check TESTS=tests/scripts/debpkg.test

Environment: IPERF3_DEBPKG_TIMEOUT bounds the whole run (default 1500 s;
each step has its own bound within it); for work on this test only,
IPERF3_DEBPKG_BASE=DIR copies a root made by contrib/debroot.sh instead
of making one, and IPERF3_DEBPKG_DEBS=DIR takes the .debs and .changes
of an earlier build from DIR instead of building (the build's own checks
are then skipped); IPERF3_DEBPKG_KEEP=1 keeps the temporary directory.
"""
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import testlib
from testlib import free_port, record, skip, summary, wait_listening

PACKAGES = ["iperf3-compat", "libiperf0-compat", "libiperf-compat-dev"]
DEBIAN_PACKAGES = ["iperf3", "libiperf0"]
COMPAT = "3.21"
UNITS = ["iperf3.service", "iperf3.socket", "iperf3@.service"]
CHROOT_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "DEBIAN_FRONTEND": "noninteractive", "LANG": "C", "HOME": "/root",
}
# What apt, dpkg and the package scripts change in any root by working
# (logs, caches, databases, backups of the user files): not left-overs.
NOISE_PREFIXES = ("var/log/", "var/cache/", "var/lib/apt/", "tmp/",
                  "var/lib/dpkg/status", "var/lib/dpkg/available",
                  "var/lib/dpkg/lock", "var/lib/dpkg/triggers/",
                  "var/lib/dpkg/diversions", "var/lib/dpkg/statoverride",
                  "var/lib/dpkg/info/format", "var/lib/dpkg/updates/",
                  "etc/ld.so.cache")
NOISE_FILES = {"etc/passwd-", "etc/group-", "etc/shadow-", "etc/gshadow-",
               "etc/subuid-", "etc/subgid-"}

T_START = time.time()
LIMIT = float(os.environ.get("IPERF3_DEBPKG_TIMEOUT", "1500"))


class Skip(Exception):
    pass


class Abort(Exception):
    """A step failed so that the rest cannot run (already recorded)."""


def left():
    return max(10.0, LIMIT - (time.time() - T_START))


def run(argv, timeout, env=None, cwd=None, log=None):
    """Run argv in its own process group, bounded by `timeout` (and by
    the whole run's); on a timeout the group is killed.  Returns (exit
    status or None on a timeout, output); with `log`, the output goes to
    that file and the returned output is its last 40 lines."""
    timeout = min(timeout, left())
    out = open(log, "w") if log else subprocess.PIPE
    try:
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                             text=True, start_new_session=True)
    except OSError as e:
        if log:
            out.close()
        return 127, str(e)
    try:
        text, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        text, _ = p.communicate()
        rc = None
        text = (text or "") + f"\n(timed out after {timeout:.0f} s)"
    if log:
        out.close()
        with open(log, errors="replace") as f:
            text = "".join(f.readlines()[-40:])
        if rc is None:
            text += f"\n(timed out after {timeout:.0f} s)"
    return rc, text or ""


def tail(text, n=8):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:])[-1500:]


def host_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DEB_", "DH_", "MAKEFLAGS", "MFLAGS",
                                "MAKELEVEL", "CFLAGS", "CPPFLAGS",
                                "LDFLAGS"))}
    env["LC_ALL"] = "C"
    env.update(extra)
    return env


# ---- preconditions ----------------------------------------------------------

def preconditions():
    if os.geteuid() != 0:
        raise Skip("not root (debootstrap and chroot need root)")
    for prog, pkg in (("dpkg-buildpackage", "dpkg-dev"), ("dh", "debhelper"),
                      ("lintian", "lintian"), ("debootstrap", "debootstrap"),
                      ("chroot", "coreutils"), ("git", "git")):
        if not shutil.which(prog):
            raise Skip(f"{prog} not installed (apt-get install {pkg})")


# ---- the source copy and the build ----------------------------------------

def copy_tree(top, dest):
    """The source files, as git lists them (tracked and untracked but not
    ignored), or the whole tree without build directories."""
    rc, out = run(["git", "-C", top, "ls-files", "-co", "--exclude-standard",
                   "-z"], 60)
    if rc == 0 and out:
        files = [f for f in out.split("\0") if f]
    else:
        files = []
        for d, dirs, names in os.walk(top):
            rel = os.path.relpath(d, top)
            dirs[:] = [x for x in dirs if not x.startswith(("_", ".git",
                                                            "obj-"))]
            files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    for f in files:
        src = os.path.join(top, f)
        if not os.path.lexists(src):   # deleted in the work tree
            continue
        dst = os.path.join(dest, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
    return len(files)


def git(src, *args):
    return run(["git", "-C", src, "-c", "user.name=debpkg",
                "-c", "user.email=debpkg@invalid", *args], 120)


def build(top, work):
    """Build the packages out of a copy; returns the .changes path."""
    src = os.path.join(work, "src")
    os.makedirs(src)
    n = copy_tree(top, src)
    # A repository of its own for the copy: after the build `git status`
    # shows what .gitignore misses; after `debian/rules clean`, anything
    # left at all.
    rc1, _ = git(src, "init", "-q")
    rc2, _ = git(src, "add", "-A")
    rc3, out = git(src, "commit", "-q", "-m", "source")
    if None in (rc1, rc2, rc3) or rc1 or rc2 or rc3:
        raise Skip(f"git cannot make a repository of the copy ({tail(out)})")
    # debian/changelog's version follows configure.ac's AC_INIT.
    with open(os.path.join(src, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[[^]]*\], \[([^]]*)\]", f.read())
    rc, out = run(["dpkg-parsechangelog", "-S", "Version"], 30, cwd=src)
    record("debian/changelog's version is AC_INIT's",
           m is not None and out.strip() == m.group(1),
           f"{out.strip()} / {m.group(1) if m else 'no AC_INIT'}")
    rc, out = run(["dpkg-checkbuilddeps"], 60, cwd=src, env=host_env())
    if rc != 0:
        raise Skip("build dependencies missing: " + tail(out, 2))
    t0 = time.time()
    log = os.path.join(work, "build.log")
    rc, out = run(["dpkg-buildpackage", "-us", "-uc", "-b"], 900, cwd=src,
                  log=log, env=host_env(DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=2"))
    record(f"dpkg-buildpackage -us -uc -b ({n} files, "
           f"{time.time() - t0:.0f} s)", rc == 0,
           "" if rc == 0 else tail(out, 15))
    if rc != 0:
        raise Abort()
    rc, out = git(src, "status", "--porcelain")
    record("the build's products are all in .gitignore", rc == 0 and
           not out.strip(), tail(out, 10) if out.strip() else "",
           detail_on_pass=False)
    rc, out = run(["debian/rules", "clean"], 300, cwd=src, env=host_env())
    st, left_over = git(src, "status", "--porcelain", "--ignored")
    record("debian/rules clean leaves the tree as it was",
           rc == 0 and st == 0 and not left_over.strip(),
           tail(out, 5) if rc else tail(left_over, 10))
    changes = glob.glob(os.path.join(work, "*.changes"))
    if len(changes) != 1:
        record("one .changes file", False, ", ".join(changes) or "none")
        raise Abort()
    return changes[0]


def debs_of(changes):
    d = os.path.dirname(changes)
    found = {}
    for p in PACKAGES:
        m = glob.glob(os.path.join(d, f"{p}_*.deb"))
        if len(m) == 1:
            found[p] = m[0]
    record("three packages: " + ", ".join(PACKAGES), len(found) == 3,
           "missing: " + ", ".join(set(PACKAGES) - set(found))
           if len(found) != 3 else "")
    if len(found) != 3:
        raise Abort()
    return found


def field(deb, name):
    rc, out = run(["dpkg-deb", "-f", deb, name], 30)
    return out.strip() if rc == 0 else ""


def contents(deb):
    rc, out = run(["dpkg-deb", "-c", deb], 30)
    return {ln.split()[5].lstrip(".") for ln in out.splitlines()
            if len(ln.split()) >= 6}


def check_packages(debs):
    want = {
        "iperf3-compat": {"Provides": f"iperf3 (= {COMPAT})",
                          "Conflicts": "iperf3", "Replaces": "iperf3"},
        "libiperf0-compat": {"Provides": f"libiperf0 (= {COMPAT})",
                             "Conflicts": "libiperf0",
                             "Replaces": "libiperf0",
                             "Breaks": f"iperf3 (<< {COMPAT})"},
        "libiperf-compat-dev": {"Provides": f"libiperf-dev (= {COMPAT})",
                                "Conflicts": "libiperf-dev",
                                "Replaces": "libiperf-dev"},
    }
    for p, fields in want.items():
        got = {k: field(debs[p], k) for k in fields}
        bad = [f"{k}: {got[k]!r}, not {v!r}" for k, v in fields.items()
               if got[k] != v]
        record(f"{p}: " + "; ".join(f"{k}: {v}" for k, v in fields.items()),
               not bad, "; ".join(bad), detail_on_pass=False)
    files = {p: contents(d) for p, d in debs.items()}
    multi = "/usr/lib/" + (run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"],
                               30)[1].strip() or "x86_64-linux-gnu")
    want_files = {
        "iperf3-compat": ["/usr/bin/iperf3", "/usr/share/man/man1/iperf3.1.gz"]
        + [f"/lib/systemd/system/{u}" for u in UNITS],
        "libiperf0-compat": [f"{multi}/libiperf.so.0",
                             f"{multi}/libiperf.so.0.0.0"],
        "libiperf-compat-dev": ["/usr/include/iperf_api.h",
                                f"{multi}/libiperf.so",
                                f"{multi}/pkgconfig/libiperf.pc",
                                "/usr/share/man/man3/libiperf.3.gz"],
    }
    for p, paths in want_files.items():
        missing = [f for f in paths if f not in files[p]]
        record(f"{p} holds " + ", ".join(os.path.basename(f) for f in paths),
               not missing, "missing: " + ", ".join(missing),
               detail_on_pass=False)
    # No library file in two packages (the .so link is the dev package's).
    libs = [f for f in files["iperf3-compat"] if "libiperf" in f]
    record("iperf3-compat holds no libiperf (the program has it linked in)",
           not libs, ", ".join(libs), detail_on_pass=False)


def lint(changes):
    """lintian's tags, all shown (overridden ones as O:); an error (E:, or lintian failing: exit
    1 is an error tag, 2 lintian's own failure) fails."""
    rc, out = run(["lintian", "--pedantic", "-I", "--show-overrides",
                   "--tag-display-limit", "0", changes], 300, env=host_env())
    lines = [ln for ln in out.splitlines() if ln[:2] in ("E:", "W:", "I:",
                                                          "P:", "X:")]
    # The overridden ones (debian/*.lintian-overrides say why), shown.
    for ln in out.splitlines():
        if ln.startswith("O:"):
            print("  lintian: " + ln)
    errors = [ln for ln in lines if ln.startswith("E:")]
    for ln in lines:
        print("  lintian: " + ln)
    warnings = sum(ln.startswith("W:") for ln in lines)
    record(f"lintian: no errors ({warnings} warnings, "
           f"{len(lines) - warnings - len(errors)} info/pedantic)",
           rc == 0 and not errors,
           "; ".join(errors[:10]) or f"exit {rc}: " + tail(out, 5),
           detail_on_pass=False)


# ---- the root -----------------------------------------------------------------

def start_debroot(top, work):
    root = os.path.join(work, "root")
    base = os.environ.get("IPERF3_DEBPKG_BASE")
    if base:
        argv = ["cp", "-a", base, root]
    else:
        argv = ["sh", os.path.join(top, "contrib", "debroot.sh"), root]
    log = open(os.path.join(work, "debroot.log"), "w")
    p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True,
                         env=host_env(DEBROOT_TIMEOUT="420"))
    log.close()
    return root, p, time.time()


def finish_debroot(work, p, t0):
    try:
        rc = p.wait(timeout=min(1400, left()))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        rc = p.wait()
        rc = None
    with open(os.path.join(work, "debroot.log"), errors="replace") as f:
        out = f.read()
    if rc == 3:
        raise Skip("the Debian mirror cannot be reached: " + tail(out, 1))
    if rc == 2:
        raise Skip("contrib/debroot.sh cannot run here: " + tail(out, 1))
    record(f"a fresh bookworm root (contrib/debroot.sh, "
           f"{time.time() - t0:.0f} s)", rc == 0, tail(out, 6))
    if rc != 0:
        raise Abort()
    for ln in out.splitlines():
        if "mirror" in ln:
            print("  " + ln)
            break


class Chroot:
    """Commands inside the root (chroot), and what it takes: /proc,
    policy-rc.d, resolv.conf; close() undoes the mounts."""

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.mounted = False

    def setup(self):
        policy = os.path.join(self.root, "usr/sbin/policy-rc.d")
        with open(policy, "w") as f:
            f.write("#!/bin/sh\n# debpkg.test: no service starts here\n"
                    "exit 101\n")
        os.chmod(policy, 0o755)
        shutil.copy2("/etc/resolv.conf",
                     os.path.join(self.root, "etc/resolv.conf"))
        rc, out = run(["mount", "-t", "proc", "proc",
                       os.path.join(self.root, "proc")], 30)
        if rc != 0:
            raise Skip("cannot mount /proc in the root: " + tail(out, 1))
        self.mounted = True

    def run(self, cmd, timeout=60):
        """A shell command line inside the root."""
        return run(["chroot", self.root, "/bin/sh", "-c", cmd], timeout,
                   env=CHROOT_ENV)

    def popen(self, argv):
        return subprocess.Popen(["chroot", self.root] + argv, env=CHROOT_ENV,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL)

    def pids(self):
        """Processes running in the root (found by their /proc/PID/root)."""
        out = []
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                r = os.readlink(f"/proc/{d}/root")
            except OSError:
                continue
            if r == self.root or r.startswith(self.root + "/"):
                out.append(int(d))
        return out

    def mounts(self):
        """Mount points in the root, deepest first."""
        out = []
        try:
            with open("/proc/mounts") as f:
                for ln in f:
                    mp = ln.split()[1].replace("\\040", " ")
                    if mp == self.root or mp.startswith(self.root + "/"):
                        out.append(mp)
        except OSError:
            pass
        return sorted(out, reverse=True)

    def close(self):
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for mp in self.mounts():
            if subprocess.run(["umount", mp], capture_output=True).returncode:
                subprocess.run(["umount", "-l", mp], capture_output=True)
        self.mounted = False


def file_list(root):
    """Every path in the root but the pseudo file systems."""
    out = set()
    skip_top = {"proc", "sys", "dev", "run"}
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel == ".":
            dirs[:] = [x for x in dirs if x not in skip_top]
            rel = ""
        for n in dirs + names:
            out.add(os.path.join(rel, n))
    return out


def noise(path):
    return path in NOISE_FILES or path.startswith(NOISE_PREFIXES)


def status_of(ch, names):
    """{package: dpkg status abbreviation (ii, rc, ...)} for those known."""
    rc, out = ch.run("dpkg-query -W -f='${db:Status-Abbrev} ${Package} "
                     "${Version}\\n' " + " ".join(names) + " 2>/dev/null",
                     60)
    st = {}
    for ln in out.splitlines():
        parts = ln.split()
        if len(parts) >= 3:
            st[parts[1]] = (parts[0], parts[2])
    return st


def audit(ch, label):
    rc, out = ch.run("dpkg --audit", 120)
    rc2, out2 = ch.run("apt-get check -q", 120)
    record(f"{label}: dpkg --audit empty, apt-get check clean",
           rc == 0 and not out.strip() and rc2 == 0,
           tail(out, 6) if out.strip() else tail(out2, 4),
           detail_on_pass=False)


def in_root(ch, debs):
    ch.setup()
    rc, out = ch.run("apt-get update -q", 300)
    if rc != 0:
        record("apt-get update in the root", False, tail(out, 4))
        raise Abort()
    before = file_list(ch.root)
    debdir = os.path.join(ch.root, "tmp/debs")
    os.makedirs(debdir, exist_ok=True)
    for d in debs.values():
        shutil.copy2(d, debdir)
    names = " ".join(f"./{os.path.basename(debs[p])}" for p in PACKAGES)

    # -- install ours
    t0 = time.time()
    rc, out = ch.run(f"cd /tmp/debs && apt-get install -y -q "
                     f"--no-install-recommends {names}", 400)
    st = status_of(ch, PACKAGES)
    ok = rc == 0 and all(st.get(p, ("",))[0] == "ii" for p in PACKAGES)
    record(f"apt-get install ./*.deb in the root ({time.time() - t0:.0f} s)",
           ok, tail(out, 8) if not ok else
           ", ".join(f"{p} {st[p][1]}" for p in PACKAGES))
    if not ok:
        raise Abort()
    audit(ch, "after installing ours")
    ours = set()
    for p in PACKAGES:
        rc, out = ch.run(f"dpkg -L {p}", 30)
        ours |= {ln.strip().lstrip("/") for ln in out.splitlines()
                 if ln.strip() and ln.strip() != "/."}
    rc, out = ch.run("dpkg -S /usr/bin/iperf3 && "
                     "dpkg -S \"$(readlink -f "
                     "/usr/lib/*/libiperf.so.0)\"", 30)
    record("the root's iperf3 and libiperf.so.0 are ours",
           rc == 0 and "iperf3-compat:" in out and
           "libiperf0-compat:" in out, tail(out, 3), detail_on_pass=False)

    # -- the service: installed, not enabled, not started
    unit = os.path.join(ch.root, "lib/systemd/system/iperf3.service")
    try:
        with open(unit) as f:
            text = f.read()
    except OSError as e:
        text = str(e)
    record("iperf3.service runs /usr/bin/iperf3",
           "\nExecStart=/usr/bin/iperf3 -s" in text,
           "no ExecStart=/usr/bin/iperf3 -s", detail_on_pass=False)
    # Enabled: a link in a .wants folder (systemctl's, or the one
    # deb-systemd-helper keeps where systemd is not running); its
    # *.dsh-also state files are written for every unit, enabled or not.
    wants = [w for d in ("etc/systemd/system",
                         "var/lib/systemd/deb-systemd-helper-enabled")
             for w in glob.glob(os.path.join(ch.root, d, "*.wants",
                                             "iperf3*"))]
    enabled = []
    for u in ("iperf3.service", "iperf3.socket"):
        # (it answers only "from dpkg", i.e. with this variable set)
        rc, out = ch.run("DPKG_MAINTSCRIPT_PACKAGE=iperf3-compat "
                         f"deb-systemd-helper is-enabled {u}", 30)
        if rc != 1 or "disabled" not in out:
            enabled.append(u + f" (exit {rc}: {tail(out, 1)})")
    running = ch.pids()
    record("the service is neither enabled nor started",
           not wants and not enabled and not running,
           "; ".join([os.path.relpath(w, ch.root) for w in wants] +
                     [f"deb-systemd-helper is-enabled {u}" for u in enabled] +
                     [f"pid {p} runs in the root" for p in running]),
           detail_on_pass=False)

    # -- the installed program
    rc, out = ch.run("/usr/bin/iperf3 --version", 30)
    words = out.split()
    record(f"iperf3 --version: second word {COMPAT}",
           rc == 0 and len(words) > 1 and words[1] == COMPAT,
           (out.splitlines() or [""])[0])
    loopback(ch)

    # -- Debian's iperf3 after ours
    t0 = time.time()
    rc, out = ch.run("apt-get install -y -q --no-install-recommends iperf3",
                     400)
    st = status_of(ch, PACKAGES + DEBIAN_PACKAGES)
    debian_in = all(st.get(p, ("",))[0] == "ii" for p in DEBIAN_PACKAGES)
    ours_gone = all(st.get(p, ("",))[0] != "ii" for p in PACKAGES)
    ours_in = all(st.get(p, ("",))[0] == "ii" for p in PACKAGES)
    if rc == 0 and debian_in and ours_gone:
        how = "replaced ours"
        rc2, out2 = ch.run("iperf3 --version; dpkg -S /usr/bin/iperf3", 30)
        ok = (rc2 == 0 and not out2.startswith(f"iperf {COMPAT}") and
              "iperf3: /usr/bin/iperf3" in out2)
        detail = (f"{how}: iperf3 --version: " +
                  (out2.splitlines() or [""])[0] + "; " + tail(out2, 1))
    elif rc != 0 and ours_in and "iperf3" not in st:
        how = "refused"
        ok, detail = True, f"{how}: " + tail(out, 2)
    else:
        how, ok = "neither", False
        detail = f"exit {rc}: {st}; " + tail(out, 6)
    record(f"Debian's iperf3 installed after ours: {how} "
           f"({time.time() - t0:.0f} s)", ok, detail)
    audit(ch, f"after Debian's iperf3 ({how})")

    # -- ours after Debian's iperf3 (where it went in): ours replace it
    if how == "replaced ours":
        rc, out = ch.run(f"cd /tmp/debs && apt-get install -y -q "
                         f"--no-install-recommends {names}", 400)
        st = status_of(ch, PACKAGES + DEBIAN_PACKAGES)
        ok = (rc == 0 and
              all(st.get(p, ("",))[0] == "ii" for p in PACKAGES) and
              all(st.get(p, ("",))[0] != "ii" for p in DEBIAN_PACKAGES))
        record("ours installed over Debian's iperf3: it is removed", ok,
               tail(out, 6) if not ok else "")
        audit(ch, "after ours over Debian's")
        rc, out = ch.run("/usr/bin/iperf3 --version", 30)
        record("iperf3 --version again ours", rc == 0 and
               out.split()[1:2] == [COMPAT], (out.splitlines() or [""])[0],
               detail_on_pass=False)

    # -- purge everything, then nothing of it is left
    everything = " ".join(PACKAGES + DEBIAN_PACKAGES)
    rc, out = ch.run(f"apt-get purge -y -q {everything} && "
                     f"apt-get autoremove --purge -y -q", 300)
    st = status_of(ch, PACKAGES + DEBIAN_PACKAGES)
    record("purged: " + everything, rc == 0 and not st,
           tail(out, 6) if rc else f"still known to dpkg: {st}",
           detail_on_pass=bool(st) or rc != 0)
    audit(ch, "after the purge")
    shutil.rmtree(debdir, ignore_errors=True)
    after = file_list(ch.root)
    new = sorted(f for f in after - before if not noise(f))
    gone = sorted(f for f in before - after if not noise(f))
    ours_left = sorted(f for f in ours if f in after and f not in before)
    record("nothing of ours left (dpkg -L of our packages)", not ours_left,
           ", ".join(ours_left[:10]))
    record("the root's files are those before the install",
           not new and not gone,
           ", ".join(["+" + f for f in new[:10]] + ["-" + f for f in gone[:10]]))
    rc, out = ch.run("ls /usr/lib/*/libiperf* /usr/bin/iperf3 "
                     "/lib/systemd/system/iperf3* 2>/dev/null; "
                     "getent passwd iperf3; true", 30)
    record("no iperf3, libiperf, unit or iperf3 user left", not out.strip(),
           tail(out, 5), detail_on_pass=False)


def loopback(ch):
    port = free_port()
    srv = ch.popen(["/usr/bin/iperf3", "-s", "-1", "-p", str(port)])
    try:
        if not wait_listening(port, srv, time.time() + 20):
            srv.kill()
            _, err = srv.communicate()
            record("the installed iperf3 -s -1 listens", False,
                   f"exit {srv.returncode}: {err.strip()[-200:]}")
            return
        rc, out = ch.run(f"/usr/bin/iperf3 -c 127.0.0.1 -p {port} -t 1 -J",
                         60)
        try:
            doc = json.loads(out)
            got = doc["end"]["sum_received"]["bytes"]
        except (ValueError, KeyError, TypeError) as e:
            doc, got = None, f"no JSON result ({e}): {tail(out, 3)}"
        try:
            src = srv.wait(30)
            serr = srv.stderr.read()
        except subprocess.TimeoutExpired:
            srv.kill()
            src, serr = None, "still running 30 s after the test"
        ok = rc == 0 and src == 0 and isinstance(got, int) and got > 0
        record("loopback test with the installed iperf3 (-s -1, "
               "-c 127.0.0.1 -t 1 -J)", ok,
               f"{got} bytes received" if ok else
               f"client exit {rc}, server exit {src}: {got} "
               f"{serr.strip()[-200:]}")
    finally:
        if srv.poll() is None:
            srv.kill()
        srv.wait()


def cleanup(work, root, debroot):
    """Stop what runs in the root, unmount what is mounted in it (ours,
    or debootstrap's if it was stopped halfway), then remove the
    temporary directory, unless something would not unmount."""
    if debroot is not None and debroot.poll() is None:
        os.killpg(debroot.pid, signal.SIGKILL)
        debroot.wait()
    if root is None:
        return
    Chroot(root).close()
    if Chroot(root).mounts():
        print(f"  {root}: still mounted, not removed: "
              + ", ".join(Chroot(root).mounts()))
        return
    if os.environ.get("IPERF3_DEBPKG_KEEP") == "1":
        print(f"  kept {work}")
        return
    shutil.rmtree(work, ignore_errors=True)


def main():
    srcdir = sys.argv[2] if len(sys.argv) > 2 else "."
    top = os.path.realpath(os.path.join(srcdir, "..", ".."))
    work = root = debroot = None
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *a: sys.exit(129))
    try:
        preconditions()
        if not os.path.isfile(os.path.join(top, "debian", "control")):
            raise Skip(f"no debian/ in {top}")
        # The mirror first: without it nothing past the build could run.
        rc, out = run(["sh", os.path.join(top, "contrib", "debroot.sh"),
                       "--check"], 120, env=host_env(DEBROOT_TRIES="2"))
        if rc != 0:
            raise Skip("the Debian mirror cannot be reached: "
                       + tail(out, 1))
        work = tempfile.mkdtemp(prefix="debpkg.")
        os.chmod(work, 0o755)
        # The root is made while the packages build (one is network and
        # disk, the other CPU).
        root, debroot, t_root = start_debroot(top, work)
        given = os.environ.get("IPERF3_DEBPKG_DEBS")
        if given:
            changes = (glob.glob(os.path.join(given, "*.changes")) or [""])[0]
            skip("the build's own checks (IPERF3_DEBPKG_DEBS: .debs of "
                 "an earlier build)")
        else:
            changes = build(top, work)
        debs = debs_of(changes)
        check_packages(debs)
        lint(changes)
        finish_debroot(work, debroot, t_root)
        in_root(Chroot(root), debs)
    except Skip as e:
        skip(str(e))
        if not testlib._outcomes:
            cleanup(work, root, debroot)
            print("0 passed, 0 failed")
            return 77
    except Abort:
        pass
    finally:
        cleanup(work, root, debroot)
    print(f"  took {time.time() - T_START:.0f} s")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
