#!/usr/bin/env python3
"""sctp_data in a virtual machine, for hosts whose kernel has no SCTP.

  sctp_vm.py BUILDDIR SRCDIR

Boots Debian's amd64 kernel (the package linux-image-amd64 depends on,
fetched with `apt-get download`, never installed) under
qemu-system-x86_64 with a small initramfs (busybox-static, fetched the
same way, and the kernel's own modules: virtio, 9p, sctp).  The guest
mounts this machine's root file system read-only over 9p, loads sctp and
runs tests/scripts/sctp_data.test there, with this machine's programs:
our build, Debian's iperf3, 3.21 when present, python3.  Its PASS/FAIL/SKIP lines
come back through a second, writable 9p export and are counted here as
"VM: ..." cases.

Skips (exit 77), with the reason, where it does not apply or cannot run:
the host kernel has SCTP (sctp_data runs there directly), the build has
no SCTP, the machine is not amd64, qemu-system-x86_64 or apt-get is
missing, or the packages cannot be downloaded.  A guest that does not
boot, or does not finish, is a failure.

Environment: IPERF3_VM_CACHE, where the extracted kernel and busybox are
kept (default BUILDDIR/tests/scripts/sctp_vm.cache; set it to keep them
across builds); IPERF3_VM_TIMEOUT, the bound on the guest's run in seconds
(default 900: a loaded 2-CPU machine without KVM); IPERF3_VM_SCRIPT, a
shell script (a path on this machine) the guest runs in place of
sctp_data.test, to look at SCTP by hand (its output comes back as "vm|"
lines).
"""
import lzma
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import sctp
from testlib import record, skip, summary

# What the guest loads (with their dependencies): the PCI transport and
# 9p for the file systems, sctp for the test.
WANT_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "sctp"]
# Where in the kernel package those and their dependencies live.
MODULE_DIRS = ["net", "fs", "lib", "crypto", "drivers/virtio"]
KERNEL_META = "linux-image-amd64"


class Skip(Exception):
    pass


def run(argv, timeout, **kw):
    try:
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=timeout, **kw)
    except FileNotFoundError:
        raise Skip(f"{argv[0]} not installed")
    except subprocess.TimeoutExpired:
        raise Skip(f"{' '.join(argv[:2])} took more than {timeout} s")


def first_line(text):
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    errs = [ln for ln in lines if ln.startswith("E:")]
    return (errs or lines or ["no message"])[0][:200]


# ---- the packages -----------------------------------------------------------

def kernel_package():
    """The versioned kernel package linux-image-amd64 depends on."""
    r = run(["apt-cache", "depends", KERNEL_META], 60)
    m = re.search(r"Depends: (linux-image-\S+)", r.stdout)
    if r.returncode != 0 or not m:
        raise Skip(f"apt knows no {KERNEL_META} ({first_line(r.stderr)}; "
                   f"not Debian, or no package index: apt-get update)")
    return m.group(1)


def download(pkg, where):
    """apt-get download PKG into `where`; the .deb's path."""
    argv = ["apt-get", "download", "-q"]
    if os.geteuid() == 0:
        # root downloads through the _apt user, which cannot write here
        argv += ["-o", "APT::Sandbox::User=root"]
    r = run(argv + [pkg], 600, cwd=where)
    debs = [f for f in os.listdir(where)
            if f.startswith(pkg + "_") and f.endswith(".deb")]
    if r.returncode != 0 or not debs:
        raise Skip(f"cannot download {pkg} (apt-get download: "
                   f"{first_line(r.stderr)})")
    return os.path.join(where, debs[0])


def unpack(deb, dest, patterns):
    """Extract the members of `deb` matching the tar wildcards (what is
    missing afterwards is found missing by the caller)."""
    os.makedirs(dest, exist_ok=True)
    r = run(["sh", "-c", 'deb=$1 dest=$2; shift 2; dpkg-deb --fsys-tarfile '
             '"$deb" | tar -x -C "$dest" --wildcards "$@"', "sh", deb, dest] +
            patterns, 600)
    if r.returncode not in (0, 2):      # 2: a pattern matched nothing
        raise Skip(f"cannot unpack {os.path.basename(deb)} "
                   f"({first_line(r.stderr)})")


def ko_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    return lzma.decompress(data) if path.endswith(".xz") else data


def modinfo(data):
    """The .modinfo fields of a module image: {key: [values]}."""
    info = {}
    for m in re.finditer(rb"(?<=\x00)(depends|alias|softdep)=([^\x00]*)",
                         data):
        info.setdefault(m.group(1).decode(), []).append(
            m.group(2).decode(errors="replace"))
    return info


def module_order(tree):
    """WANT_MODULES and what they need (depends=, and softdep=pre:
    through aliases: libcrc32c's crc32c), in load order: [(name, path)]."""
    mods = {}
    aliases = {}
    for root, _, files in sorted(os.walk(tree)):
        for f in sorted(files):
            if not re.search(r"\.ko(\.xz)?$", f):
                continue
            path = os.path.join(root, f)
            info = modinfo(ko_bytes(path))
            name = re.sub(r"\.ko(\.xz)?$", "", f).replace("-", "_")
            deps = [d.replace("-", "_") for v in info.get("depends", [])
                    for d in v.split(",") if d]
            for v in info.get("softdep", []):
                pre = re.search(r"pre:\s*(.*?)(?:\s+post:|$)", v)
                deps += pre.group(1).split() if pre else []
            mods[name] = (path, deps)
            for a in info.get("alias", []):
                aliases.setdefault(a, name)
    order = []

    def visit(name, chain):
        name = name.replace("-", "_")
        if name not in mods:
            name = aliases.get(name, name)
        if name in order or name in chain:
            return
        if name not in mods:
            raise Skip(f"module {name} (for {chain[-1] if chain else 'the guest'}) "
                       f"not in the kernel package, or built in?")
        for d in mods[name][1]:
            visit(d, chain + [name])
        order.append(name)

    for w in WANT_MODULES:
        visit(w, [])
    return [(n, mods[n][0]) for n in order]


def fetch_kernel(cache):
    """Debian's kernel and the guest's modules, downloaded and extracted
    once per kernel package (the rest of the package is not kept):
    (package, vmlinuz, [(module, path)] in load order)."""
    pkg = kernel_package()
    kdir = os.path.join(cache, pkg)
    order = os.path.join(kdir, "modules")
    if not os.path.exists(order):
        shutil.rmtree(kdir, ignore_errors=True)
        tmp = os.path.join(kdir, "unpacked")
        os.makedirs(tmp)
        deb = download(pkg, kdir)
        unpack(deb, tmp, ["./boot/vmlinuz-*"] +
               [f"./lib/modules/*/kernel/{d}/*" for d in MODULE_DIRS])
        os.unlink(deb)
        boot = os.path.join(tmp, "boot")
        kernels = sorted(os.listdir(boot)) if os.path.isdir(boot) else []
        if not kernels:
            raise Skip(f"{pkg} has no /boot/vmlinuz-*")
        os.rename(os.path.join(boot, kernels[0]),
                  os.path.join(kdir, "vmlinuz"))
        names = []
        for name, path in module_order(tmp):
            with open(os.path.join(kdir, name + ".ko"), "wb") as f:
                f.write(ko_bytes(path))
            names.append(name)
        shutil.rmtree(tmp)
        with open(order + ".tmp", "w") as f:
            f.write("".join(n + "\n" for n in names))
        os.rename(order + ".tmp", order)
    with open(order) as f:
        names = f.read().split()
    return (pkg, os.path.join(kdir, "vmlinuz"),
            [(n, os.path.join(kdir, n + ".ko")) for n in names])


def fetch_busybox(cache):
    """busybox-static's program, downloaded and extracted once."""
    bdir = os.path.join(cache, "busybox-static")
    path = os.path.join(bdir, "bin", "busybox")
    if not os.path.exists(path):
        shutil.rmtree(bdir, ignore_errors=True)
        os.makedirs(bdir)
        deb = download("busybox-static", bdir)
        unpack(deb, bdir, ["./bin/busybox"])
        os.unlink(deb)
    if not os.path.exists(path):
        raise Skip("busybox-static has no /bin/busybox")
    return path


# ---- the initramfs ----------------------------------------------------------

def cpio(entries):
    """A newc archive of [(name, mode, data-or-None, rdev)]; mode has the
    file type bits (the archive is written, not collected from disk, so
    /dev/console needs no privilege)."""
    out = bytearray()

    def pad():
        out.extend(b"\0" * (-len(out) % 4))

    for ino, (name, mode, data, rdev) in enumerate(
            entries + [("TRAILER!!!", 0, None, (0, 0))], 1):
        data = data or b""
        nm = name.encode() + b"\0"
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0,
                  rdev[0], rdev[1], len(nm), 0]
        out.extend(b"070701" + b"".join(b"%08X" % f for f in fields) + nm)
        pad()
        out.extend(data)
        pad()
    return bytes(out)


# The guest's /init.  Its failures go to the console (ttyS0), whose tail
# the host shows when no status comes back.
INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
die() { echo "sctp-vm: $*"; reboot -f; }
for m in $(cat /modules); do
	insmod "/lib/modules/$m.ko" || die "insmod $m failed"
done
p9=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$p9" out /out || die "cannot mount the results export"
mount -t 9p -o "$p9,ro,cache=loose" hostroot /host || die "cannot mount the host's root"
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev || die "cannot mount /dev in the host's root"
mkdir -p /host/dev/shm
mount -t tmpfs tmpfs /host/dev/shm
ip link set lo up || die "no loopback"
echo "sctp-vm: running the test"
chroot /host /bin/sh -c "$(cat /cmd)" > /out/log 2>&1
echo $? > /out/status
umount /out
reboot -f
"""


def guest_command(build, src):
    """What the guest runs, in the host's root: sctp_data.test, with this
    machine's programs (the paths are the same there)."""
    stock = os.environ.get("IPERF3_STOCK") or shutil.which("iperf3") or ""
    env = {
        "PATH": os.path.dirname(sys.executable) + ":" +
        os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/", "TMPDIR": "/dev/shm", "PYTHONDONTWRITEBYTECODE": "1",
        "top_builddir": build, "srcdir": src,
        "IPERF3_OURS": os.environ.get("IPERF3_OURS") or
        os.path.join(build, "src", "iperf3"),
        "IPERF3_STOCK": stock and os.path.abspath(stock),
    }
    for k in ("IPERF3_PEER_321", "IPERF3_PEERS"):
        if os.environ.get(k):
            env[k] = os.path.abspath(os.environ[k]) if k.endswith("321") \
                else os.environ[k]
    return ("cd / && exec env -i " +
            " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) +
            " sh " + shlex.quote(os.environ.get("IPERF3_VM_SCRIPT") or
                                 os.path.join(src, "sctp_data.test")))


def initramfs(busybox, modules, command):
    entries = [(d, 0o40755, None, (0, 0)) for d in
               ("bin", "dev", "proc", "sys", "host", "out", "lib",
                "lib/modules")]
    entries.append(("dev/console", 0o20600, None, (5, 1)))
    with open(busybox, "rb") as f:
        entries.append(("bin/busybox", 0o100755, f.read(), (0, 0)))
    entries.append(("init", 0o100755, INIT.encode(), (0, 0)))
    for name, path in modules:
        with open(path, "rb") as f:
            entries.append((f"lib/modules/{name}.ko", 0o100644, f.read(),
                            (0, 0)))
    entries.append(("modules", 0o100644,
                    "".join(n + "\n" for n, _ in modules).encode(), (0, 0)))
    entries.append(("cmd", 0o100644, command.encode(), (0, 0)))
    return cpio(entries)


# ---- the run ----------------------------------------------------------------

def boot(qemu, vmlinuz, initrd, outdir, console, limit, kvm):
    """Run the guest to its end (at most `limit` s); (exit status or None
    on timeout, seconds, accelerator)."""

    def opt(path):      # a path in a qemu option: commas doubled
        return path.replace(",", ",,")

    accel = ["-accel", "kvm", "-accel", "tcg"] if kvm else ["-accel", "tcg"]
    argv = [qemu, "-nodefaults", "-no-user-config", "-display", "none",
            "-no-reboot", "-machine", "pc"] + accel + [
            "-cpu", "max", "-smp", "1", "-m", "512",
            "-kernel", vmlinuz, "-initrd", initrd,
            "-append", "console=ttyS0 quiet panic=-1 rdinit=/init",
            "-serial", f"file:{opt(console)}",
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,"
            "readonly=on,multidevs=remap",
            "-virtfs", f"local,path={opt(outdir)},mount_tag=out,"
            "security_model=none,multidevs=remap"]
    if os.path.exists(console):
        os.unlink(console)      # a previous run's
    t0 = time.time()
    with open(console + ".qemu", "w") as err:
        # timeout(1) bounds the guest even if this script is killed
        p = subprocess.Popen(["timeout", "-k", "10", str(limit)] + argv,
                             stdin=subprocess.DEVNULL, stdout=err,
                             stderr=subprocess.STDOUT)
        try:
            rc = p.wait(timeout=limit + 30)
        except subprocess.TimeoutExpired:
            rc = 124
        finally:
            if p.poll() is None:
                p.terminate()       # timeout(1) passes it on to qemu
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    return (None if rc == 124 else rc), time.time() - t0, \
        "KVM" if kvm else "TCG"


def tail(path, n=8):
    try:
        with open(path, errors="replace") as f:
            lines = [ln.rstrip("\r\n") for ln in f if ln.strip()]
    except OSError:
        return "nothing"
    return " | ".join(lines[-n:]) or "nothing"


def main():
    # killed (make's harness, run-tests.sh): clean up on the way out
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    build = os.path.abspath(sys.argv[1])
    src = os.path.abspath(sys.argv[2])
    ours = os.environ.get("IPERF3_OURS") or os.path.join(build, "src",
                                                         "iperf3")
    if not sctp.built_with_sctp(ours):
        skip("this build has no SCTP support (configure found no "
             "netinet/sctp.h or libsctp)")
        return 77
    if sctp.kernel_sctp() is None:
        skip("this machine's kernel has SCTP: sctp_data runs here directly")
        return 77
    try:
        arch = run(["dpkg", "--print-architecture"], 30).stdout.strip()
        if arch != "amd64":
            raise Skip(f"the VM boots Debian's amd64 kernel; this machine "
                       f"is {arch or 'not Debian'}")
        qemu = shutil.which("qemu-system-x86_64")
        if not qemu:
            raise Skip("qemu-system-x86_64 not installed "
                       "(apt-get install qemu-system-x86)")
        if not shutil.which("apt-get"):
            raise Skip("apt-get not found: the kernel comes from Debian's "
                       "packages")
        cache = os.environ.get("IPERF3_VM_CACHE") or \
            os.path.join(build, "tests", "scripts", "sctp_vm.cache")
        os.makedirs(cache, exist_ok=True)
        pkg, vmlinuz, modules = fetch_kernel(cache)
        busybox = fetch_busybox(cache)
    except Skip as e:
        skip(str(e))
        return 77

    work = tempfile.mkdtemp(prefix="sctp_vm.", dir=cache)
    try:
        outdir = os.path.join(work, "out")
        os.makedirs(outdir)
        initrd = os.path.join(work, "initrd")
        with open(initrd, "wb") as f:
            f.write(initramfs(busybox, modules, guest_command(build, src)))
        console = os.path.join(build, "tests", "scripts",
                               "sctp_vm.console")
        limit = int(os.environ.get("IPERF3_VM_TIMEOUT", "900"))
        kvm = os.access("/dev/kvm", os.R_OK | os.W_OK)
        rc, secs, accel = boot(qemu, vmlinuz, initrd, outdir, console, limit,
                               kvm)
        if kvm and rc not in (0, None) and \
                not os.path.exists(os.path.join(outdir, "status")):
            # /dev/kvm is there but qemu could not use it (a nested
            # hypervisor refusing an MSR, seen on CI machines): the same
            # guest under TCG, slower but the same result
            print(f"qemu under KVM failed (exit {rc}: "
                  f"{tail(console + '.qemu', 2)}); booting again under TCG")
            rc, secs, accel = boot(qemu, vmlinuz, initrd, outdir, console,
                                   limit, False)
        print(f"guest: {pkg} under {os.path.basename(qemu)} ({accel}), "
              f"{secs:.0f} s, qemu exit {rc}; console in {console}")
        status = None
        try:
            with open(os.path.join(outdir, "status")) as f:
                status = int(f.read().strip())
        except (OSError, ValueError):
            pass
        try:
            with open(os.path.join(outdir, "log"), errors="replace") as f:
                log = f.read().splitlines()
        except OSError:
            log = []
    finally:
        shutil.rmtree(work, ignore_errors=True)

    cases = 0
    for ln in log:
        m = re.match(r"(PASS|FAIL|SKIP): (.*)", ln)
        if not m:
            # the rest of the guest's output, kept apart from this
            # script's own lines (its "N passed, N failed" among them)
            print(f"vm| {ln}")
        elif m.group(1) == "SKIP":
            skip(f"VM: {m.group(2)}")
        else:
            cases += 1
            record(f"VM: {m.group(2)}", m.group(1) == "PASS")
    if status == 77 and cases == 0:
        # the guest skipped as a whole: its reason is printed above
        return 77
    why = (f"did not finish within {limit} s" if rc is None else
           f"exit status {status}" if status is not None else
           f"no result (console: {tail(console)}; qemu: "
           f"{tail(console + '.qemu', 3)})")
    record(f"the VM boots {pkg}, loads sctp and runs sctp_data",
           status in (0, 1) and cases > 0,
           "" if status in (0, 1) and cases > 0 else why)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
