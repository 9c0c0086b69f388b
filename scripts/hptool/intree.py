# SPDX-License-Identifier: GPL-2.0
"""hptool intree KSRC (make intree KSRC=<tree>): drop the module, its KUnit suites and the
kselftests into a kernel tree:
  drivers/misc/hardprobe/            (Kconfig HARDPROBE, HARDPROBE_KUNIT_TEST, .kunitconfig)
  tools/testing/selftests/hardprobe/ (added to the selftests TARGETS list)
Idempotent: a second run refreshes the files and adds no line twice. Files of the tree that
it edits are replaced (new inode), never written in place, so a tree of hard links (cp -al)
to a pristine source stays pristine.

hptool intree-check (make check's last stage): the kernel-tree drop-in as CI bots use it. A
tree of hard links to the cached 6.12 source (kept in the cache, with kunit.py's build
directory) gets hptool intree; then in that tree:
  tools/testing/kunit/kunit.py run --kunitconfig=drivers/misc/hardprobe --arch=x86_64
  (and exec under lockdown=integrity: the built-in hardprobe refuses)
  make -C tools/testing/selftests TARGETS=hardprobe (build) and run_tests
  ... gen_tar (the kselftest tarball of KernelCI's kbuild), its run_kselftest.sh in a guest
  make kselftest-merge on a defconfig picks up selftests/hardprobe/config
Prints "check intree <what>: ok|FAIL|SKIP" lines.
"""
import argparse
import contextlib
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from . import CACHE, TOP, Error, kconfig, last_line, read_text, say, to_log


def replace(path, text):
    """@path's contents replaced by @text in a new file (a hard link to it is broken, the
    file it shared stays as it was)"""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", dir=os.path.dirname(path))
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)


def insert_after_last(lines, prefix, line, before=False):
    """@lines with @line after (or before) the last line that starts with @prefix"""
    idx = [i for i, ln in enumerate(lines) if ln.startswith(prefix)]
    if not idx:
        raise Error(f"no line starting with {prefix!r} to place {line!r} beside")
    i = idx[-1] + (0 if before else 1)
    return lines[:i] + [line + "\n"] + lines[i:]


def place(ksrc):
    """hardprobe into the kernel tree @ksrc"""
    if not (os.path.isfile(os.path.join(ksrc, "Makefile")) and
            os.path.isfile(os.path.join(ksrc, "drivers", "misc", "Kconfig"))):
        raise Error(f"KSRC={ksrc} is not a kernel source tree")
    d = os.path.join(ksrc, "drivers", "misc", "hardprobe")
    s = os.path.join(ksrc, "tools", "testing", "selftests", "hardprobe")
    for x in (d, s):
        shutil.rmtree(x, ignore_errors=True)
        os.makedirs(x)
    for sub in ("module", "kunit"):
        shutil.copytree(os.path.join(TOP, sub), os.path.join(d, sub))
    shutil.copy(os.path.join(TOP, "Kconfig"), os.path.join(d, "Kconfig"))
    shutil.copy(os.path.join(TOP, "kunit", ".kunitconfig"), os.path.join(d, ".kunitconfig"))
    # the same object lists as the out-of-tree build (Kbuild handles both)
    shutil.copy(os.path.join(TOP, "Kbuild"), os.path.join(d, "Makefile"))
    src = os.path.join(TOP, "selftests", "hardprobe")
    for f in os.listdir(src):
        if os.path.isfile(os.path.join(src, f)) and f not in ("hardprobe_test", "hardprobe_fuzz", "hardprobe_trust"):
            shutil.copy(os.path.join(src, f), s)

    k = os.path.join(ksrc, "drivers", "misc", "Kconfig")
    text = open(k).read()
    if "drivers/misc/hardprobe/Kconfig" not in text:
        # before the menu's closing endmenu (the last one in the file)
        replace(k, "".join(insert_after_last(text.splitlines(True), "endmenu",
                                             'source "drivers/misc/hardprobe/Kconfig"', before=True)))
    m = os.path.join(ksrc, "drivers", "misc", "Makefile")
    text = open(m).read()
    if "hardprobe/" not in text:
        replace(m, text + "obj-$(CONFIG_HARDPROBE)\t\t+= hardprobe/\n")
    t = os.path.join(ksrc, "tools", "testing", "selftests", "Makefile")
    text = open(t).read()
    if not re.search(r"^TARGETS \+= hardprobe$", text, re.M):
        replace(t, "".join(insert_after_last(text.splitlines(True), "TARGETS += ", "TARGETS += hardprobe")))
    say("intree", "-", f"hardprobe placed in {ksrc}: drivers/misc/hardprobe, tools/testing/selftests/hardprobe")


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool intree", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("ksrc", help="the kernel tree")
    a = ap.parse_args(argv)
    place(os.path.abspath(a.ksrc))
    return 0


def kunit_run(tree, kdir, logdir):
    """kunit.py run: a full x86_64 kernel build on a cold cache (ccache helps), then QEMU,
    with a progress line every 30 s"""
    say("kunit.py", "x86_64", f"kunit.py run --kunitconfig=drivers/misc/hardprobe (build dir {kdir})")
    env = dict(os.environ)
    env.setdefault("CCACHE_DIR", os.path.join(CACHE, "ccache"))
    env["CCACHE_BASEDIR"] = CACHE
    cc = "ccache gcc" if shutil.which("ccache") else "gcc"
    log = os.path.join(logdir, "kunit.log")
    with open(log, "wb") as f:
        p = subprocess.Popen(["python3", "tools/testing/kunit/kunit.py", "run", "--arch=x86_64",
                              "--kunitconfig=drivers/misc/hardprobe", f"--build_dir={kdir}",
                              f"--jobs={len(os.sched_getaffinity(0))}", "--make_options", f"CC={cc}",
                              "--timeout=600"], cwd=tree, stdout=f, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env)
        t0 = time.time()
        while p.poll() is None:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                if time.time() - t0 > 3000:
                    p.kill()
                    p.wait()
                    break
                n = len(glob.glob(os.path.join(kdir, "**", "*.o"), recursive=True))
                say("kunit.py", "x86_64", f"{n} objects so far; {last_line(log)[:60]}")
    rc = 124 if p.returncode is None or p.returncode < 0 else p.returncode
    text = read_text(log)
    if rc == 0 and re.search(r"Testing complete\. Ran [1-9]", text) and "hardprobe_stack_init" in text:
        print(f"check intree kunit.py-run: ok ({re.findall(r'Ran [0-9]* tests.*', text)[-1]})")
    else:
        first = re.search(r"^.*(FAILED|ERROR|error).*$", text, re.M)
        print(f"check intree kunit.py-run: FAIL (exit {rc}: {first.group(0)[:160] if first else ''})")

    # the same kernel under lockdown=integrity: the built-in hardprobe refuses at init, in
    # its own words, and no probe runs (the suites are then empty or skipped)
    ll = os.path.join(logdir, "kunit-lockdown.log")
    to_log(["python3", "tools/testing/kunit/kunit.py", "exec", "--arch=x86_64", f"--build_dir={kdir}",
            "--kernel_args=lockdown=integrity", "--raw_output=all", "--timeout=300"], ll, cwd=tree, timeout=600)
    text = read_text(ll)
    refused = re.search(r"hardprobe: the kernel is locked down[^:\n]*", text)
    if ("Kernel is locked down from command line" in text and refused and
            not re.search(r": (protected|vulnerable|inconclusive|unsupported|error): ", text) and
            "hardprobe: loaded: " not in text):
        print(f"check intree kunit.py-lockdown-refused: ok ({refused.group(0)})")
    else:
        print(f"check intree kunit.py-lockdown-refused: FAIL (see {ll})")


def kselftest(tree, logdir):
    """the kselftest collection, built and run the kselftest way (on this host the module is
    not loaded, so the programs report a skip; the bench runs them in its guests); the
    tarball the way KernelCI's kbuild makes it (gen_tar); the tarball, or None"""
    st = os.path.join(tree, "tools", "testing", "selftests")
    out = os.path.join(logdir, "kselftest")
    kb = os.path.join(logdir, "kselftest-build.log")
    progs = os.path.join(out, "kselftest", "hardprobe")
    if to_log(["make", "-C", st, "TARGETS=hardprobe", f"O={out}"], kb) == 0 and all(
            os.access(os.path.join(progs, p), os.X_OK) for p in ("hardprobe_test", "hardprobe_fuzz")):
        print("check intree kselftest-build: ok")
    else:
        print(f"check intree kselftest-build: FAIL ({last_line(kb)})")
    kr = os.path.join(logdir, "kselftest-run.log")
    to_log(["make", "-C", st, "TARGETS=hardprobe", f"O={out}", "run_tests"], kr)
    text = read_text(kr)
    line = re.search(r"^(not )?ok [0-9]+ selftests: hardprobe: hardprobe_test.*$", text, re.M)
    if line and not re.search(r"^not ok [0-9]+ selftests: hardprobe", text, re.M):
        print(f"check intree kselftest-run_tests: ok ({line.group(0)})")
    else:
        print(f"check intree kselftest-run_tests: FAIL ({last_line(kr)})")

    ti = os.path.join(logdir, "kselftest-install")
    shutil.rmtree(ti, ignore_errors=True)
    tarball = os.path.join(ti, "kselftest-packages", "kselftest.tar.gz")
    kt = os.path.join(logdir, "kselftest-tar.log")
    names = []
    if to_log(["make", "-C", st, "TARGETS=hardprobe", f"O={out}", f"KSFT_INSTALL_PATH={ti}", "FORMAT=.gz", "gen_tar"],
          kt) == 0 and os.path.isfile(tarball):
        with tarfile.open(tarball) as tf:
            names = tf.getnames()
    names = [n if n.startswith("./") or n == "." else "./" + n for n in names]
    if all(x in names for x in ("./run_kselftest.sh", "./hardprobe/hardprobe_test", "./hardprobe/settings")):
        files = sum(1 for n in names if n.startswith("./hardprobe/") and len(n) > len("./hardprobe/"))
        print(f"check intree kselftest-gen_tar: ok ({(os.path.getsize(tarball) + 1023) // 1024} KiB, "
              f"{files} files of hardprobe)")
        return tarball
    print(f"check intree kselftest-gen_tar: FAIL ({last_line(kt)})")
    return None


def tarball_guest(tarball, logdir):
    """that tarball's own run_kselftest.sh in a guest of the bench's x86_64-gcc kernel (the
    same 6.12) with the module loaded: a CI lab's run, on a ramdisk with busybox and the C
    library the programs are linked against"""
    from . import initramfs, kbuild, qemu
    g = os.path.join(TOP, "results", "x86_64-gcc")
    info = dict(ln.split(": ", 1) for ln in read_text(os.path.join(g, "build-info.txt")).splitlines() if ": " in ln)
    image = os.path.join(info.get("build_dir", "/nonexistent"), "arch", "x86", "boot", "bzImage")
    ko = kbuild.module_dir("x86_64-gcc", env={})
    if not tarball:
        print("check intree kselftest-tarball-guest: FAIL (no tarball)")
        return
    if not (os.path.isfile(os.path.join(ko, "hardprobe.ko")) and os.path.isfile(image)):
        print("check intree kselftest-tarball-guest: SKIP (no x86_64-gcc run in this checkout: make run first)")
        return
    x = os.path.join(logdir, "kselftest-guest")
    shutil.rmtree(x, ignore_errors=True)
    root = os.path.join(x, "root")
    os.makedirs(os.path.join(root, "kselftest"))
    os.makedirs(os.path.join(root, "usr", "bin"))
    with tarfile.open(tarball) as tf:
        tf.extractall(os.path.join(root, "kselftest"))
    # the programs' shared libraries and loader, as on the build host
    libs = set()
    for f in glob.glob(os.path.join(root, "kselftest", "hardprobe", "hardprobe_*")):
        p = subprocess.run(["ldd", f], capture_output=True, text=True)
        libs.update(re.findall(r"(/[^ ]*)", p.stdout))
    for lib in sorted(libs):
        if os.path.exists(lib):
            os.makedirs(root + os.path.dirname(lib), exist_ok=True)
            shutil.copy(lib, root + lib)      # (follows the link, as cp -L)
    # runner.sh calls /usr/bin/timeout --foreground: busybox's timeout has no such option
    tw = os.path.join(root, "usr", "bin", "timeout")
    with open(tw, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = --foreground ] && shift\nexec /bin/busybox timeout "$@"\n')
    os.chmod(tw, 0o755)
    initrd = os.path.join(x, "initramfs.cpio.gz")
    initramfs.build("x86_64", ko, os.path.join(ko, "hardprobe_test"), initrd, root)
    say("intree", "x86_64-gcc", "the kselftest tarball's run_kselftest.sh in a guest")
    console = os.path.join(x, "console.log")
    qemu.boot(qemu.command("x86_64", image, initrd,
                           "panic=-1 tsc=unstable hardprobe.target=x86_64-gcc hardprobe.mode=kselftest",
                           mte=os.environ.get("HP_MTE") == "yes", smp=os.environ.get("SMP") or qemu.SMP_DEFAULT),
              console, 1200)
    text = read_text(console).replace("\r", "")
    m = re.search(r"^----- hardprobe:file kselftest\.txt -----$(.*?)^----- hardprobe:end kselftest\.txt -----$",
                  text, re.M | re.S)
    out = m.group(1) if m else ""
    ran = len(re.findall(r"^(?:not )?ok [0-9]+ selftests: hardprobe: hardprobe_", out, re.M))
    bad = len(re.findall(r"^not ok [0-9]+ selftests: hardprobe", out, re.M))
    probes = len(re.findall(r"^# (?:not )?ok [0-9]+ [a-z0-9_]+\.[a-z0-9_]+", out, re.M))
    if ran == 3 and bad == 0 and probes > 100:
        print(f"check intree kselftest-tarball-guest: ok (run_kselftest.sh -c hardprobe: 3 programs ok, "
              f"{probes} probe results)")
    else:
        print(f"check intree kselftest-tarball-guest: FAIL ({ran} programs reported, {bad} not ok, {probes} probe "
              f"results; see {console})")


def merge(tree, logdir):
    """kselftest-merge picks up our config fragment"""
    m = os.path.join(logdir, "merge")
    shutil.rmtree(m, ignore_errors=True)
    log = os.path.join(logdir, "merge.log")
    ok = (to_log(["make", "-C", tree, f"O={m}", "ARCH=x86_64", "defconfig"], log) == 0 and
          to_log(["make", "-C", tree, f"O={m}", "ARCH=x86_64", "kselftest-merge"], log, append=True) == 0 and
          re.search(r"^CONFIG_HARDPROBE=m$", read_text(os.path.join(m, ".config")), re.M))
    print("check intree kselftest-merge: ok" if ok else
          "check intree kselftest-merge: FAIL (CONFIG_HARDPROBE not =m after kselftest-merge)")
    shutil.rmtree(m, ignore_errors=True)


def check():
    ksrc = kconfig.ksrc(say=say)[0]
    tree = os.path.join(CACHE, "intree", os.path.basename(ksrc))
    kdir = os.path.join(CACHE, "intree", "kunit-x86_64")
    logdir = os.path.join(TOP, "results", "intree")
    os.makedirs(logdir, exist_ok=True)
    os.makedirs(os.path.join(CACHE, "intree"), exist_ok=True)
    if not os.path.isfile(os.path.join(tree, ".hardprobe-tree")):
        say("intree", "-", f"hard-linked copy of {ksrc}")
        shutil.rmtree(tree, ignore_errors=True)
        if subprocess.run(["cp", "-al", ksrc, tree]).returncode:
            print(f"check intree tree: FAIL (cannot copy {ksrc})")
            return 1
        open(os.path.join(tree, ".hardprobe-tree"), "w").close()
    # twice: the second run adds no line
    ilog = os.path.join(logdir, "intree.log")
    try:
        with open(ilog, "w") as f, contextlib.redirect_stderr(f):
            place(tree)
            place(tree)
        twice = (open(os.path.join(tree, "drivers", "misc", "Kconfig")).read().count("drivers/misc/hardprobe/Kconfig")
                 == 1 and len(re.findall(r"^TARGETS \+= hardprobe$", open(os.path.join(
                     tree, "tools", "testing", "selftests", "Makefile")).read(), re.M)) == 1)
        why = ""
    except (Error, OSError) as e:
        twice, why = False, str(e)
    print("check intree make-intree-twice: ok" if twice else f"check intree make-intree-twice: FAIL ({why})")
    sys.stdout.flush()
    kunit_run(tree, kdir, logdir)
    sys.stdout.flush()
    tarball = kselftest(tree, logdir)
    sys.stdout.flush()
    tarball_guest(tarball, logdir)
    sys.stdout.flush()
    merge(tree, logdir)
    return 0


def cli_check(argv):
    ap = argparse.ArgumentParser(prog="hptool intree-check", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.parse_args(argv)
    return check()
