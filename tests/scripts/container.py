#!/usr/bin/env python3
"""The container image of contrib/container/: built, exported, and run.

  container.py BUILDDIR SRCDIR

Builds the image with contrib/container/build.sh (which builds the musl
static program with contrib/cross-build.sh) into a private podman store
(vfs, in a temporary folder removed at the end: the machine's own images
are left alone), then checks
  - its configuration: entrypoint /usr/bin/iperf3, user 65534:65534,
    5201/tcp and 5201/udp exposed, the labels (version = configure.ac's);
  - its size: under 2 MB (2,000,000 bytes) as podman counts it and as the
    exported file system's tar;
  - its files, from `podman create` + `podman export`: exactly
    /usr/bin/iperf3 (static: no program interpreter), /etc/passwd,
    /etc/group and /tmp (1777), owned by root;
and runs the program from the exported file system (chroot
--userspec=65534:65534: the image's user, checked in /proc) against the
stock peers (Debian's 3.12, 3.21 when present): server for their -J
client (TCP, UDP), client of their server (TCP, -Z, which maps its buffer
from a file in /tmp, and a host name from /etc/hosts, as the container
runtime provides it), --version, the server's /metrics over HTTP, and
the exporter's /probe when the program has --exporter.

This machine's podman cannot start containers (crun is refused
RLIMIT_NOFILE), hence chroot.  Not in `make check`: building the program
takes minutes; contrib/run-tests.sh runs it after the main suite in CI or
with IPERF3_CONTAINER=1; by hand: make check TESTS=tests/scripts/container.test.

Skips (exit 77), with the reason: not root (chroot, podman's store), no
podman, or the packages and sources the build fetches cannot be had (no
network).  IPERF3_CONTAINER_PROGRAM=FILE uses that static program in
place of building one (build.sh --program).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request

from testlib import (free_port, record, report, skip, start_server,
                     stock_peers, stop, summary, wait_listening)

UID = 65534
LIMIT = 2_000_000
EXPECTED = {"etc/": (0o755, "d"), "etc/passwd": (0o644, "f"),
            "etc/group": (0o644, "f"), "tmp/": (0o1777, "d"),
            "usr/": (0o755, "d"), "usr/bin/": (0o755, "d"),
            "usr/bin/iperf3": (0o755, "f")}
# What says that the build could not fetch what it needs (no network).
NO_NET = re.compile(r"Temporary failure resolving|Could not resolve|"
                    r"Failed to fetch|Unable to fetch|could not install|"
                    r"Unable to locate package|Network is unreachable")


class Skip(Exception):
    pass


def configure_version(srcdir):
    with open(os.path.join(srcdir, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[[^]]*\],\s*\[([^]]*)\]", f.read())
    return m.group(1) if m else None


def has_interp(path):
    """Whether the ELF program names a program interpreter (dynamic)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        return True
    b64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if b64:
        phoff, = struct.unpack_from(end + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 0x36)
    else:
        phoff, = struct.unpack_from(end + "I", data, 0x1c)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 0x2a)
    for i in range(phnum):
        ptype, = struct.unpack_from(end + "I", data, phoff + i * phentsize)
        if ptype == 3:  # PT_INTERP
            return True
    return False


class Image:
    def __init__(self, srcdir, tmp):
        self.srcdir = srcdir
        self.tmp = tmp
        store = os.path.join(tmp, "store")
        self.podman = ["podman", "--root", os.path.join(store, "root"),
                       "--runroot", os.path.join(store, "run"),
                       "--tmpdir", os.path.join(store, "tmp"),
                       "--storage-driver", "vfs",
                       "--cgroup-manager", "cgroupfs",
                       "--events-backend", "file"]
        self.tag = None
        self.root = os.path.join(tmp, "rootfs")

    def pod(self, *args, timeout=120):
        return subprocess.run(self.podman + list(args), capture_output=True,
                              text=True, timeout=timeout)

    def build(self, version):
        env = dict(os.environ, PODMAN=" ".join(self.podman))
        self.tag = f"localhost/iperf3-compat:{version}"
        argv = ["sh", os.path.join(self.srcdir, "contrib", "container",
                                   "build.sh")]
        prog = os.environ.get("IPERF3_CONTAINER_PROGRAM")
        if prog:
            argv += ["--program", prog]
        else:
            argv = ["nice", "-n", "19"] + argv
        log = os.path.join(self.tmp, "build.log")
        t0 = time.time()
        with open(log, "w") as out:
            try:
                rc = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=env,
                                    timeout=2400).returncode
            except subprocess.TimeoutExpired:
                rc = None
        secs = time.time() - t0
        with open(log) as f:
            text = f.read()
        if rc != 0:
            m = NO_NET.search(text)
            if m:
                raise Skip(f"the build could not fetch packages or sources "
                           f"({m.group(0)}): no network for apt?")
            tail = " | ".join(text.strip().splitlines()[-15:])
            report(f"build.sh builds the image ({secs:.0f} s)",
                   [f"exit {rc}: {tail[-1500:]}"])
            return False
        last = text.strip().splitlines()[-1] if text.strip() else ""
        record(f"build.sh builds {self.tag} in {secs:.0f} s", True, last)
        return True

    def check_config(self, version):
        r = self.pod("image", "inspect", self.tag)
        if r.returncode != 0:
            report("image inspect", [r.stderr.strip()[-300:]])
            return
        info = json.loads(r.stdout)[0]
        cfg = info.get("Config", {})
        probs = []
        if cfg.get("Entrypoint") != ["/usr/bin/iperf3"]:
            probs.append(f"entrypoint {cfg.get('Entrypoint')}")
        if cfg.get("User") != f"{UID}:{UID}":
            probs.append(f"user {cfg.get('User')!r}")
        if set(cfg.get("ExposedPorts") or {}) != {"5201/tcp", "5201/udp"}:
            probs.append(f"ports {sorted(cfg.get('ExposedPorts') or {})}")
        if cfg.get("Cmd"):
            probs.append(f"a default command {cfg.get('Cmd')}")
        labels = cfg.get("Labels") or {}
        want = {"org.opencontainers.image.version": version,
                "org.opencontainers.image.title": "iperf3-compat",
                "org.opencontainers.image.licenses": "BSD-3-Clause"}
        for k, v in want.items():
            if labels.get(k) != v:
                probs.append(f"label {k}={labels.get(k)!r} (want {v!r})")
        for k in ("org.opencontainers.image.source",
                  "org.opencontainers.image.revision"):
            if k not in labels:
                probs.append(f"no label {k}")
        report("image configuration: entrypoint /usr/bin/iperf3, user "
               f"{UID}:{UID}, 5201/tcp+udp, labels (version {version})",
               probs)
        size = info.get("Size")
        record(f"image size {size} bytes < {LIMIT}",
               isinstance(size, int) and 0 < size < LIMIT)

    def export(self):
        """The container file system as a tar, listed, checked, unpacked."""
        name = f"iperf3-container-test-{os.getpid()}"
        r = self.pod("create", "--name", name, self.tag)
        if r.returncode != 0:
            report("podman create", [r.stderr.strip()[-300:]])
            return False
        tarpath = os.path.join(self.tmp, "rootfs.tar")
        try:
            r = self.pod("export", "-o", tarpath, name)
        finally:
            self.pod("rm", "-f", name)
        if r.returncode != 0:
            report("podman export", [r.stderr.strip()[-300:]])
            return False
        size = os.path.getsize(tarpath)
        record(f"exported file system {size} bytes < {LIMIT}", size < LIMIT)
        probs = []
        seen = {}
        with tarfile.open(tarpath) as t:
            for m in t.getmembers():
                name = m.name.lstrip("./") + ("/" if m.isdir() else "")
                if not name or name == "/":
                    continue
                seen[name] = (m.mode & 0o7777, "d" if m.isdir() else
                              "f" if m.isfile() else m.type.decode())
                if m.uid != 0 or m.gid != 0:
                    probs.append(f"{name} owned by {m.uid}:{m.gid}")
        extra = sorted(set(seen) - set(EXPECTED))
        missing = sorted(set(EXPECTED) - set(seen))
        if extra:
            probs.append(f"unexpected: {extra}")
        if missing:
            probs.append(f"missing: {missing}")
        for k in set(seen) & set(EXPECTED):
            if seen[k] != EXPECTED[k]:
                probs.append(f"{k}: mode {oct(seen[k][0])} {seen[k][1]} "
                             f"(want {oct(EXPECTED[k][0])} {EXPECTED[k][1]})")
        report("exported file system: /usr/bin/iperf3, /etc/passwd, "
               "/etc/group, /tmp and nothing else", probs)
        os.makedirs(self.root)
        r = subprocess.run(["tar", "-C", self.root, "--numeric-owner",
                            "-xpf", tarpath], capture_output=True, text=True)
        if r.returncode != 0:
            report("unpacking the export", [r.stderr.strip()[-300:]])
            return False
        prog = os.path.join(self.root, "usr", "bin", "iperf3")
        record("the program is static (no program interpreter)",
               not has_interp(prog))
        with open(os.path.join(self.root, "etc", "passwd")) as f:
            record(f"/etc/passwd names {UID}",
                   f":x:{UID}:{UID}:" in f.read())
        return True

    def cleanup(self):
        if self.tag:
            self.pod("rmi", "-f", self.tag)


def in_image(root, *args):
    return ["chroot", f"--userspec={UID}:{UID}", f"--groups={UID}", root,
            "/usr/bin/iperf3"] + list(args)


def ids(pid):
    """(uid, gid) of a running process, from /proc."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    u = re.search(r"^Uid:\s+(\d+)", text, re.M)
    g = re.search(r"^Gid:\s+(\d+)", text, re.M)
    return (int(u.group(1)), int(g.group(1))) if u and g else None


def result_problems(out, udp):
    try:
        doc = json.loads(out)
    except ValueError:
        return [f"not JSON: {out[-200:]!r}"]
    if doc.get("error"):
        return [f"error: {doc['error']}"]
    end = doc.get("end", {})
    if udp:
        got = end.get("sum", {}).get("bytes", 0)
    else:
        got = end.get("sum_received", {}).get("bytes", 0)
    return [] if got > 0 else [f"no bytes in end: {json.dumps(end)[:200]}"]


def serve(root, peer, ver, udp):
    port = free_port()
    label = (f"image's server (uid {UID}) <- stock {ver} client"
             f"{' UDP' if udp else ''}")
    probs = []
    srv = start_server(in_image(root, "-s", "-1", "-p", str(port)), port,
                       pipes=False)
    try:
        who = ids(srv.pid)
        if who != (UID, UID):
            probs.append(f"server runs as {who}")
        argv = [peer, "-c", "127.0.0.1", "-p", str(port), "-t", "1", "-J"]
        if udp:
            argv += ["-u", "-b", "10M"]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        probs += result_problems(r.stdout, udp)
        try:
            rc = srv.wait(15)
            if rc != 0:
                probs.append(f"server exit {rc}")
        except subprocess.TimeoutExpired:
            probs.append("server did not end after its one test")
    finally:
        stop(srv)
    report(label, probs)


def client(root, peer, ver, extra, what, host="127.0.0.1"):
    port = free_port()
    probs = []
    srv = start_server([peer, "-s", "-1", "-p", str(port)], port,
                       pipes=False)
    try:
        cli = subprocess.Popen(in_image(root, "-c", host, "-p", str(port),
                                        "-t", "1", "-J", *extra),
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        time.sleep(0.2)
        who = ids(cli.pid)
        try:
            out, err = cli.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            stop(cli)
            out, err = cli.communicate()
            probs.append("client did not end")
        if who is not None and who != (UID, UID):
            probs.append(f"client runs as {who}")
        if cli.returncode != 0:
            probs.append(f"client exit {cli.returncode}: {err.strip()[-200:]}")
        probs += result_problems(out, False)
        try:
            srv.wait(15)
        except subprocess.TimeoutExpired:
            probs.append("stock server did not end")
    finally:
        stop(srv)
    report(f"image's client (uid {UID}) -> stock {ver} server: {what}", probs)


def version(root, want):
    r = subprocess.run(in_image(root, "--version"), capture_output=True,
                       text=True, timeout=30)
    record(f"--version in the image names iperf3-compat {want}",
           r.returncode == 0 and f"iperf3-compat {want}" in r.stdout,
           r.stdout.splitlines()[0] if r.stdout else r.stderr.strip()[-200:])
    return r


def get(url, timeout=20):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except OSError as e:
        return None, str(e)


def metrics(root):
    port, mport = free_port(), free_port()
    srv = start_server(in_image(root, "-s", "-p", str(port), "--metrics-listen",
                                f"127.0.0.1:{mport}"), port, pipes=False)
    probs = []
    try:
        if not wait_listening(mport, srv, time.time() + 10):
            probs.append(f"nothing listens on {mport}")
        else:
            code, body = get(f"http://127.0.0.1:{mport}/metrics")
            if code != 200 or "iperf3_server_" not in body:
                probs.append(f"GET /metrics: {code} {body[:200]!r}")
    finally:
        stop(srv)
    report("image's server (static libmicrohttpd) serves /metrics "
           "(--metrics-listen)", probs)


def exporter(root, help_text, peers):
    if "--exporter" not in help_text:
        skip("exporter cases: this program has no --exporter")
        return
    ver, peer = peers[-1]
    port, eport = free_port(), free_port()
    srv = start_server([peer, "-s", "-1", "-p", str(port)], port, pipes=False)
    probs = []
    exp = subprocess.Popen(in_image(root, "--exporter", f"127.0.0.1:{eport}"),
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        if not wait_listening(eport, exp, time.time() + 10):
            probs.append(f"the exporter does not listen on {eport}")
        else:
            code, body = get(f"http://127.0.0.1:{eport}/probe?target=127.0.0.1"
                             f"&port={port}&period=1s")
            if code != 200:
                probs.append(f"GET /probe: {code} {body[:200]!r}")
            for name in ("iperf3_up", "probe_success"):
                if not re.search(rf"^{name}(\{{[^}}]*\}})? 1(\.0)?$", body,
                                 re.M):
                    probs.append(f"no {name} 1 in {body[:300]!r}")
    finally:
        stop(exp)
        stop(srv)
    report(f"image's exporter (uid {UID}) probes a stock {ver} server", probs)


def main():
    srcdir = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else ".")
    top = os.path.normpath(os.path.join(srcdir, "..", ".."))
    if os.geteuid() != 0:
        skip("the image test needs root (chroot, podman's store)")
        return 77
    for tool in ("podman", "chroot", "tar"):
        if shutil.which(tool) is None:
            skip(f"{tool} not installed (apt-get install podman)")
            return 77
    version_ac = configure_version(top)
    peers = stock_peers()
    tmp = tempfile.mkdtemp(prefix="iperf3-container-")
    img = Image(top, tmp)
    try:
        if not img.build(version_ac):
            return summary()
        img.check_config(version_ac)
        if not img.export():
            return summary()
        root = img.root
        # The runtime's /etc/hosts (bind-mounted at run time), to resolve
        # a name through musl.
        with open(os.path.join(root, "etc", "hosts"), "w") as f:
            f.write("127.0.0.1 localhost iperf3-image-test\n")
        version(root, version_ac)
        help_text = subprocess.run(in_image(root, "--help"),
                                   capture_output=True, text=True,
                                   timeout=30).stdout
        for ver, peer in peers:
            serve(root, peer, ver, False)
            serve(root, peer, ver, True)
            client(root, peer, ver, [], "TCP")
        if peers:
            ver, peer = peers[-1]
            client(root, peer, ver, ["-Z"], "-Z (buffer file in /tmp)")
            client(root, peer, ver, [], "host name from /etc/hosts",
                   host="iperf3-image-test")
        metrics(root)
        if peers:
            exporter(root, help_text, peers)
    except Skip as e:
        skip(str(e))
        return 77
    finally:
        img.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
