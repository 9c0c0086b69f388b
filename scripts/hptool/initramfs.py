# SPDX-License-Identifier: GPL-2.0
"""hptool initramfs: the guest's initramfs (a static busybox, scripts/guest-init as /init,
the modules and the three selftest programs), and the static busybox it needs per
architecture (x86_64: the host's busybox-static; arm64: Debian's busybox-static:arm64,
unpacked into the cache, not installed)."""
import argparse
import glob
import gzip
import os
import shutil
import subprocess
import tempfile

from . import CACHE, TOP, Error, say
from . import kbuild

PROGRAMS = ("hardprobe_test", "hardprobe_fuzz", "hardprobe_trust")


def is_static(path):
    """no program interpreter in the ELF program headers (readelf's whole answer is read
    before it is searched: a reader that stops early would be a dynamic binary's SIGPIPE)"""
    try:
        p = subprocess.run(["readelf", "-l", path], capture_output=True, env=dict(os.environ, LC_ALL="C"))
    except OSError:
        return False
    return p.returncode == 0 and b"Requesting program interpreter" not in p.stdout


def busybox(arch, cache=CACHE):
    """the path of a static busybox for the guest's architecture"""
    if arch == "x86_64":
        if not (os.access("/bin/busybox", os.X_OK) and is_static("/bin/busybox")):
            raise Error("no static busybox: install busybox-static (hptool deps)")
        return "/bin/busybox"
    d = os.path.join(cache, f"busybox-{arch}")
    exe = os.path.join(d, "bin", "busybox")
    if os.access(exe, os.X_OK):
        return exe
    debdir = os.path.join(d, "deb")
    os.makedirs(debdir, exist_ok=True)
    pattern = os.path.join(debdir, f"busybox-static_*_{arch}.deb")
    if not glob.glob(pattern):
        say("fetch", "-", f"busybox-static:{arch} (Debian package, unpacked into the cache)")
        if subprocess.run(["apt-get", "download", f"busybox-static:{arch}"], cwd=debdir,
                          capture_output=True).returncode or not glob.glob(pattern):
            raise Error(f"cannot download busybox-static:{arch}: run hptool deps (it enables the "
                        f"{arch} package architecture)")
    deb = sorted(glob.glob(pattern))[0]
    if subprocess.run(["dpkg-deb", "-x", deb, os.path.join(d, "root")]).returncode:
        raise Error(f"cannot unpack {deb}")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    shutil.copy(os.path.join(d, "root", "bin", "busybox"), exe)
    return exe


def names(root):
    """every path under @root as find(1) prints them from inside it, in byte order"""
    out = ["."]
    for dirpath, dirs, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for n in dirs + files:
            out.append("./" + (n if rel == "." else os.path.join(rel, n)))
    return sorted(out, key=os.fsencode)


def guest_files(target, name, arch, kdir, env=os.environ, stage=None):
    """what a guest of @name boots with: hardprobe.ko, hardprobe_kunit.ko, the selftest
    programs and the initramfs, built per checkout and kernel (kbuild.module_dir) and locked
    for this process until it exits (the runs of one kernel share one build, one at a time);
    @stage("module") after the module build; (module dir, initramfs)"""
    mdir = kbuild.module_dir(name, kdir, env)
    kbuild.lock_module_dir(mdir, name)
    say("module", name, f"building hardprobe.ko, hardprobe_kunit.ko, hardprobe_test in {mdir}")
    kbuild.module(target, kdir, mdir)
    if stage:
        stage("module")
    initrd = os.path.join(mdir, "initramfs.cpio.gz")
    build(arch, mdir, os.path.join(mdir, "hardprobe_test"), initrd)
    return mdir, initrd


def build(arch, moddir, runner, out, extra=None):
    """@out: a gzip'ed newc cpio of the guest's / (owner root), from the modules in @moddir,
    the runner @runner with the other two programs beside it, and @extra's files"""
    with tempfile.TemporaryDirectory(prefix="hp-initramfs-") as stage:
        # other users must reach /proc, /dev and /tmp (hardprobe_test's checks run as uid 65534)
        os.chmod(stage, 0o755)
        os.makedirs(os.path.join(stage, "bin"))
        shutil.copy(busybox(arch), os.path.join(stage, "bin", "busybox"))
        shutil.copy(os.path.join(TOP, "scripts", "guest-init"), os.path.join(stage, "init"))
        shutil.copy(os.path.join(moddir, "hardprobe.ko"), stage)
        if os.path.isfile(os.path.join(moddir, "hardprobe_kunit.ko")):
            shutil.copy(os.path.join(moddir, "hardprobe_kunit.ko"), stage)
        shutil.copy(runner, os.path.join(stage, "hardprobe_test"))
        for p in PROGRAMS[1:]:
            shutil.copy(os.path.join(os.path.dirname(runner), p), os.path.join(stage, p))
        if extra:
            shutil.copytree(extra, stage, dirs_exist_ok=True, symlinks=True)
        for p in ("init", "bin/busybox") + PROGRAMS:
            f = os.path.join(stage, p)
            os.chmod(f, os.stat(f).st_mode | 0o111)
        listing = "".join(n + "\n" for n in names(stage)).encode()
        p = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet", "-R", "0:0"], input=listing,
                           cwd=stage, capture_output=True)
        if p.returncode:
            raise Error(f"cpio failed: {p.stderr.decode(errors='replace').strip()}")
        with open(out, "wb") as f:
            f.write(gzip.compress(p.stdout, compresslevel=1, mtime=0))


def cli(args):
    """hptool initramfs ARCH MODDIR RUNNER OUT.cpio.gz [--extra DIR]: the guest's initramfs
    (busybox, /init, the modules of MODDIR, RUNNER and the programs beside it; --extra: more
    files for /)."""
    ap = argparse.ArgumentParser(prog="hptool initramfs", description=cli.__doc__)
    ap.add_argument("arch")
    ap.add_argument("moddir")
    ap.add_argument("runner")
    ap.add_argument("out")
    ap.add_argument("--extra", help="a directory whose files join /")
    a = ap.parse_args(args)
    build(a.arch, a.moddir, a.runner, a.out, a.extra)
    return 0
