# SPDX-License-Identifier: GPL-2.0
"""hptool kernel: configure and build (or only prepare) a reference kernel for a target,
cached under $HARDPROBE_CACHE/build/<target>-<key> (the key: hptool/kconfig.py). Prints the
build directory on stdout; progress lines on stderr.

The configuration is tinyconfig, then the target's fragments (comments removed) merged
with the kernel's merge_config.sh (a symbol set twice, as a variant does: the last line
counts), then olddefconfig; every CONFIG_ line of the fragments must have stuck ("#
required": fatal if not). One build per directory: a second bench on the same kernel
waits for the first. Environment: KSRC, KVER, EXTRA_CONFIG, HARDPROBE_CACHE, JOBS.
"""
import argparse
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

from . import CACHE, TOP, Error, say
from . import kconfig, qemu, targets

# a make's progress line every PROGRESS seconds, counting the objects its log names
PROGRESS = 30
OBJECT = re.compile(rb"^\s+(CC|AS|LD)", re.M)


def make_env(build):
    """the environment of the kernel's make: ccache's directory and base (hashes stay valid
    across checkouts), and with RANDSTRUCT the layout seed, a file of the build directory
    that ccache does not hash on its own: without it a compile cached for one build
    directory (one seed) is served to another, and the kernel and its modules disagree on
    struct layouts (seen: an oops in add_kallsyms when loading the module)."""
    env = dict(os.environ)
    env.setdefault("CCACHE_DIR", os.path.join(CACHE, "ccache"))
    env.setdefault("CCACHE_MAXSIZE", "6G")
    env["CCACHE_BASEDIR"] = CACHE
    try:
        with open(os.path.join(build, ".config")) as f:
            if re.search(r"^CONFIG_RANDSTRUCT=y$", f.read(), re.M):
                env["CCACHE_EXTRAFILES"] = os.path.join(build, "scripts", "basic", "randstruct.seed")
    except OSError:
        pass
    return env


def check_config(name, fragment, dotconfig):
    """the lines of @fragment (the merged fragments' bytes) that did not stick, on stderr;
    Error when a required one is lost."""
    msgs, lost, fatal = kconfig.check_config(fragment.decode(errors="replace"), dotconfig, name)
    for m in msgs:
        print(m, file=sys.stderr)
    if fatal:
        raise Error(f"{name}: {fatal} required option(s) missing after olddefconfig; see above")
    say("config", name, "every requested option stuck" if not lost else
        f"{lost} requested option(s) did not stick (listed above)")


class Build:
    def __init__(self, name):
        self.name = name
        self.t = targets.resolve(name)
        self.args = self.t.make_args()      # an unknown compiler fails here, before anything runs
        self.ksrc, self.srcid = kconfig.ksrc(say=say, version=kconfig.kver())
        self.ccver = kconfig.compiler_version(self.t.cc())
        # the merged fragments (+ EXTRA_CONFIG, spelled for the version): the key's bytes
        self.fragment = kconfig.merged_fragment(self.t.frags)
        key = kconfig.cache_key(self.srcid, self.t.arch, self.ccver, self.fragment)
        self.dir = os.path.join(CACHE, "build", f"{name}-{key}")
        self.log = os.path.join(self.dir, "hardprobe-build.log")
        self.jobs = jobs()

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def make(self, *args):
        return ["make", "-C", self.ksrc, f"O={self.dir}", *self.args, *args]

    def run(self, argv, what, cwd=None):
        """@argv with its output appended to the build log; Error naming the log on failure."""
        with open(self.log, "ab") as log:
            if subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              cwd=cwd, env=make_env(self.dir)).returncode:
                raise Error(f"{self.name}: {what} failed; log: {self.log}")

    def run_long(self, what, *args):
        """a long make, with a progress line every PROGRESS seconds; on failure the log's
        last 40 lines on stderr"""
        with open(self.log, "ab") as log:
            p = subprocess.Popen(self.make(*args), stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=make_env(self.dir))
            try:
                t = 0
                while p.poll() is None:
                    time.sleep(2)
                    t += 2
                    if t % PROGRESS == 0:
                        n = len(OBJECT.findall(open(self.log, "rb").read()))
                        say(what, self.name, f"{n} objects so far ({self.ccver})")
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        if p.returncode:
            tail = open(self.log, "rb").read().decode(errors="replace").splitlines()[-40:]
            print("\n".join(tail), file=sys.stderr)
            raise Error(f"{self.name}: kernel {what} failed; full log: {self.log}")

    def write_info(self):
        if os.path.exists(self.path("hardprobe-info.txt")):
            return
        kv = subprocess.run(["make", "-s", "-C", self.ksrc, "kernelversion"], capture_output=True,
                            text=True).stdout.strip()
        with open(self.path(".config"), "rb") as f:
            chash = hashlib.sha256(f.read()).hexdigest()[:16]
        with open(self.path("hardprobe-info.txt"), "w") as f:
            f.write(f"target: {self.name}\nsource: {self.srcid}\nkver: {kv}\ncompiler: {self.ccver}\n"
                    f"config_hash: {chash}\nextra_config: {os.environ.get('EXTRA_CONFIG') or 'none'}\n")

    def configure(self):
        extra = os.environ.get("EXTRA_CONFIG")
        say("config", self.name, f"tinyconfig + {','.join(self.t.frags)}{' + ' + extra if extra else ''} "
            f"in {self.dir}")
        self.run(self.make("tinyconfig"), "make tinyconfig")
        with open(self.path("hardprobe-merge.config"), "w") as f:
            f.write(kconfig.stripped(self.fragment.decode(errors="replace")))
        self.run([os.path.join(self.ksrc, "scripts", "kconfig", "merge_config.sh"), "-m", "-O", self.dir,
                  self.path(".config"), self.path("hardprobe-merge.config")], "merge_config.sh", cwd=self.dir)
        self.run(self.make("olddefconfig"), "make olddefconfig")
        check_config(self.name, self.fragment, self.path(".config"))
        with open(self.path("hardprobe-fragment.config"), "wb") as f:
            f.write(self.fragment)
        open(self.path(".hardprobe-configured"), "w").close()

    def build(self, prepare):
        os.makedirs(os.path.join(CACHE, "build"), exist_ok=True)
        lock = open(os.path.join(CACHE, "build", f".{os.path.basename(self.dir)}.lock"), "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            say("wait", self.name, "another build of this kernel is running; waiting for it")
            fcntl.flock(lock, fcntl.LOCK_EX)
        done = self.path(".hardprobe-prepared" if prepare else ".hardprobe-built")
        if os.path.exists(self.path(".hardprobe-built")) or os.path.exists(done):
            self.write_info()
            say("kernel", self.name, f"cached: {self.dir}")
            return self.dir
        os.makedirs(self.dir, exist_ok=True)
        open(self.log, "w").close()
        if not os.path.exists(self.path(".hardprobe-configured")):
            self.configure()
        if prepare:
            say("prepare", self.name, "modules_prepare")
            self.run_long("prepare", f"-j{self.jobs}", "modules_prepare")
        else:
            image = qemu.image(self.t.arch)
            say("build", self.name, f"kernel and modules, {self.jobs} jobs (log: {self.log})")
            self.run_long("build", f"-j{self.jobs}", "all", os.path.basename(image))
            if not os.path.exists(self.path(image)):
                raise Error(f"{self.name}: build finished but {image} is missing")
        for mark in (".hardprobe-prepared",) + (() if prepare else (".hardprobe-built",)):
            open(self.path(mark), "w").close()
        self.write_info()
        say("kernel", self.name, f"ready: {self.dir}")
        return self.dir


def cli(args):
    """hptool kernel TARGET [--prepare]: the target's kernel, configured and built (or only
    prepared for module builds), from the cache when it is there; prints its build directory."""
    ap = argparse.ArgumentParser(prog="hptool kernel", description=cli.__doc__)
    ap.add_argument("target")
    ap.add_argument("--prepare", action="store_true", help="modules_prepare only, no kernel image")
    a = ap.parse_args(args)
    print(Build(a.target).build(a.prepare))
    return 0


def jobs():
    """make's job count: JOBS, else the CPUs this process may run on"""
    return os.environ.get("JOBS") or str(len(os.sched_getaffinity(0)))


def module_dir(name, kdir=None, env=os.environ):
    """where hptool run builds @name's modules, selftest programs and initramfs against the
    kernel build @kdir: one directory per checkout and kernel, whatever RESULTS says, so that
    the runs of one kernel (make check's base run, its boot-parameter variants, the
    nodebugfs, lockdown and refusal guests) share one build and make's own dependencies
    decide what to rebuild. The target's own kernel: results/.build/<name> (where hptool
    lava, lkdtm, kaslr and the kernel-tree drop-in read it); another one (KDIR=,
    EXTRA_CONFIG=): results/.build/<name>-<digest of its build directory>."""
    base = os.path.join(TOP, "results", ".build")
    if env.get("KDIR") or env.get("EXTRA_CONFIG"):
        return os.path.join(base, f"{name}-{hashlib.sha256(os.path.realpath(kdir).encode()).hexdigest()[:12]}")
    return os.path.join(base, name)


_HELD = []      # the module directories' locks this process holds, until it exits


def lock_module_dir(mdir, name):
    """@mdir locked for this process until it exits: one run at a time builds there and
    boots what it built"""
    os.makedirs(mdir, exist_ok=True)
    lock = open(os.path.join(mdir, ".lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        say("wait", name, f"another run uses {mdir}; waiting for it")
        fcntl.flock(lock, fcntl.LOCK_EX)
    _HELD.append(lock)


def module(name, kdir, out, make_args=()):
    """hardprobe.ko, hardprobe_kunit.ko and the selftest programs for target @name against
    the kernel build @kdir, in a private copy of the sources under @out; the static kselftest
    programs (hardprobe_test, hardprobe_fuzz, hardprobe_trust) by the kernel's own lib.mk
    against the kselftest.h of the kernel source (6.12's, or KSRC)."""
    t = targets.from_config(name, kdir)
    env = make_env(kdir)
    os.makedirs(out, exist_ok=True)
    src = os.path.join(out, "src")
    subprocess.run(["rsync", "-a", "--delete", "--exclude", ".git", "--exclude", "results",
                    "--exclude", "*.o", "--exclude", "*.ko", "--include", "Kbuild",
                    "--include", "module/***", "--include", "kunit/***", "--exclude", "*",
                    TOP + "/", src + "/"], check=True)
    log = os.path.join(out, "module-build.log")
    with open(log, "wb") as f:
        rc = subprocess.run(["make", "-C", kdir, f"-j{jobs()}", f"M={src}", *t.make_args(), *make_args, "modules"],
                            stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env).returncode
    if rc:
        sys.stderr.write(open(log, errors="replace").read())
        raise Error(f"{name}: module build failed")
    shutil.copy(os.path.join(src, "hardprobe.ko"), out)
    kunit = os.path.join(out, "hardprobe_kunit.ko")
    if os.path.exists(kunit):
        os.remove(kunit)
    if os.path.exists(os.path.join(src, "hardprobe_kunit.ko")):
        shutil.copy(os.path.join(src, "hardprobe_kunit.ko"), out)

    # the kselftest programs, static, for the target's architecture: built by the kernel's own
    # lib.mk (selftests/hardprobe/Makefile) in a copy laid out as in a kernel tree,
    # <dir>/hardprobe beside the kernel source's kselftest.h (their "../kselftest.h") and lib.mk
    ks = os.path.join(kconfig.ksrc(say=say)[0], "tools", "testing", "selftests")
    if not os.path.isfile(os.path.join(ks, "kselftest.h")):
        raise Error(f"no {ks}/kselftest.h in the kernel source")
    ucc = t.user_cc()       # the user-space compiler of the arch's record
    if shutil.which(ucc) is None:
        raise Error(f"{ucc} not found: run hptool deps")
    progs = ("hardprobe_test", "hardprobe_fuzz", "hardprobe_trust")
    kst = os.path.join(out, "kselftest")
    os.makedirs(kst, exist_ok=True)
    subprocess.run(["rsync", "-a", "--delete"] + [x for p in progs for x in ("--exclude", p)] +
                   [os.path.join(TOP, "selftests", "hardprobe") + "/", os.path.join(kst, "hardprobe") + "/"],
                   check=True)
    for f in ("lib.mk", "kselftest.h", "kselftest_harness.h"):
        link = os.path.join(kst, f)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(os.path.join(ks, f), link)
    for p in progs:
        if os.path.exists(os.path.join(out, p)):
            os.remove(os.path.join(out, p))
    log = os.path.join(out, "selftest-build.log")
    # (MAKEFLAGS: none of the calling make's variables, such as TARGET=, reach lib.mk)
    env = dict(os.environ, MAKEFLAGS="")
    with open(log, "wb") as f:
        rc = subprocess.run(["make", "-C", os.path.join(kst, "hardprobe"), f"-j{jobs()}", f"OUTPUT={out}",
                             f"CROSS_COMPILE={ucc[:-len('gcc')]}", "USERCFLAGS=-Werror",
                             "USERLDFLAGS=-static"], stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env).returncode
    if rc:
        sys.stderr.write(open(log, errors="replace").read())
        raise Error(f"{name}: kselftest build failed")


def cli_module(args):
    """hptool module TARGET KBUILD_DIR OUTDIR [make args...]: the modules and the selftest
    programs of a target against its kernel build, in OUTDIR (prints nothing on success)."""
    ap = argparse.ArgumentParser(prog="hptool module", description=cli_module.__doc__)
    ap.add_argument("target")
    ap.add_argument("kdir")
    ap.add_argument("out")
    ap.add_argument("make_args", nargs=argparse.REMAINDER, help="extra make arguments (W=1, ...)")
    a = ap.parse_args(args)
    module(a.target, a.kdir, os.path.abspath(a.out), a.make_args)
    return 0


def cli_kmake(args):
    """hptool kmake TARGET KDIR [make args...]: make -C KDIR with the target's arch and
    compiler variables and the build cache's ccache (make's status; its output as it comes)."""
    if len(args) < 2 or args[0].startswith("-"):
        print("usage: hptool kmake TARGET KDIR [make args...]", file=sys.stderr)
        return 2
    t = targets.from_config(args[0], args[1])
    return subprocess.run(["make", "-C", args[1], *t.make_args(), *args[2:]], stdin=subprocess.DEVNULL,
                          env=make_env(args[1])).returncode
