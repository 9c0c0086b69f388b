# SPDX-License-Identifier: GPL-2.0
"""hptool run (make run): kernel -> module -> initramfs -> QEMU -> results/<target>/.

usage: hptool run [TARGET]   (default x86_64-gcc)

TARGET is a reference target (scripts/targets, <arch>-clang-<N>), or a Debian kernel:
debian (Debian 12's default, 6.1), debian-6.12, debian-arm64, debian-arm64-6.12: the
installed Debian amd64 kernel of that series and its linux-headers (hptool deps
--debian=TARGET), or Debian's arm64 kernel unpacked into the cache. With KDIR=<prepared
build dir> and KIMAGE=<bzImage|Image> [ARCH=arm64], a kernel you built; TARGET then only
names the results directory.

Environment: KSRC, KVER, EXTRA_CONFIG, CMDLINE, RESULTS, HARDPROBE_CACHE, BOOT_TIMEOUT,
SMP, KDIR, KIMAGE, ARCH; PANIC_GUESTS=no skips the one-guest panicking probes. The stages'
times go to results/<target>/stages.txt; the status is 1 when a stage fails or the
results hold a problem (hptool collect), the guests' own status aside.
"""
import argparse
import concurrent.futures
import contextlib
import glob
import hashlib
import os
import re
import time
import traceback

from . import Error, read_text, results_root, say
from . import bench, collect, debian, initramfs, kbuild, qemu, targets


class Stages:
    """results/<target>/stages.txt: each stage's name and seconds since the last one"""

    def __init__(self, path):
        self.path, self.t = path, time.monotonic()
        open(path, "w").close()

    def __call__(self, name):
        now = time.monotonic()
        with open(self.path, "a") as f:
            f.write(f"{name:<12} {now - self.t:6.1f} s\n")
        self.t = now


def prebuilt_kernel(target, env):
    """(kdir, image) of a kernel the bench does not build (KDIR/KIMAGE, a Debian kernel), or
    (None, None) for a reference target"""
    kdir, kimage = env.get("KDIR") or "", env.get("KIMAGE") or ""
    if kdir or kimage:
        if not (kdir and kimage):
            raise Error("a kernel of your own needs both KDIR=<prepared build dir> and KIMAGE=<bzImage|Image>")
        if not os.path.isfile(kimage):
            raise Error(f"KIMAGE={kimage}: no such file")
        if not os.path.isfile(os.path.join(kdir, "Module.symvers")):
            raise Error(f"KDIR={kdir}: no Module.symvers (build the kernel, or run 'make modules_prepare' "
                        "and accept unresolved-symbol warnings)")
        return kdir, kimage
    ser = debian.series(target)
    if not ser:
        return None, None
    if debian.arch(target) == "arm64":
        return debian.arm64(ser)
    ver = debian.installed_kernel(ser)
    if not ver:
        raise Error(f"no Debian {ser} amd64 kernel with its headers installed: run hptool deps "
                    f"--debian={target} (as root)")
    image = f"/boot/vmlinuz-{ver}"
    if not os.access(image, os.R_OK):
        raise Error(f"{image} is not readable: run as root")
    return f"/usr/src/linux-headers-{ver}", image


def build_info(target, kdir, image, prebuilt, kvm, cmdline):
    """build-info.txt: what was booted, how"""
    if prebuilt:
        cc = re.search(r'^CONFIG_CC_VERSION_TEXT="(.*)"$', read_text(os.path.join(kdir, ".config")), re.M)
        rel = (read_text(os.path.join(kdir, "include", "config", "kernel.release")) or "unknown").strip()
        with open(os.path.join(kdir, ".config"), "rb") as f:
            chash = hashlib.sha256(f.read()).hexdigest()[:16]
        text = (f"target: {target}\nsource: prebuilt {rel}\ncompiler: {cc.group(1) if cc else ''}\n"
                f"config_hash: {chash}\nimage: {image}\n")
    else:
        text = open(os.path.join(kdir, "hardprobe-info.txt"), errors="replace").read()
    return text + f"build_dir: {kdir}\naccel: {'kvm' if kvm else 'tcg'}\ncmdline: {cmdline}\n"


def run(target, env=os.environ):
    kdir, image = prebuilt_kernel(target, env)
    prebuilt = kdir is not None
    # a reference target (its tools checked here, an unknown name refused), or another
    # kernel's arch and compiler from its .config
    t = targets.from_config(target, kdir) if prebuilt else targets.resolve(target)
    t.make_args()       # an unknown compiler fails here
    # KVER=6.1: the reference kernel of that version; its results (and the name the guest
    # reports) are <target>-6.1, beside the 6.12 ones
    name = target if prebuilt else targets.result_name(target)
    results = results_root(env)
    rdir = os.path.join(results, name)
    os.makedirs(rdir, exist_ok=True)
    for pat in ("*.txt", "*.json", "*.ktap", "*.log", "*.rc", "timings"):
        for old in glob.glob(os.path.join(rdir, pat)):
            os.remove(old)
    stage = Stages(os.path.join(rdir, "stages.txt"))

    if prebuilt:
        say("kernel", target, f"prebuilt: {image}, modules against {kdir} ({t.arch}, {t.compiler})")
    else:
        kdir = kbuild.Build(target).build(False)
        image = os.path.join(kdir, qemu.image(t.arch))
    stage("kernel")
    # module, KUnit module and initramfs: per checkout and kernel (two checkouts share one
    # kernel), one run at a time (held until this run's guests are done with them)
    mdir, initrd = initramfs.guest_files(target, name, t.arch, kdir, env, stage)
    stage("initramfs")

    # KVM only if a quick probe boot proves it works (cached per machine; n/a: not tried)
    kvm = qemu.kvm_probe(t.arch, image, initrd)
    if kvm != "n/a":
        stage("kvm-probe")
    kvm = kvm == "yes"

    cmdline = f"panic=-1 log_buf_len=4M tsc=unstable hardprobe.target={name} hardprobe.mode=all"
    # KASAN hardware tags: the guest CPU needs MTE, and KASAN prints only the first report
    # of a boot unless kasan_multi_shot (each mte probe looks for its own)
    mte = False
    if t.arch == "arm64":
        try:
            mte = re.search(r"^CONFIG_KASAN_HW_TAGS=y$", open(os.path.join(kdir, ".config")).read(),
                            re.M) is not None
        except OSError:
            pass
    if mte:
        cmdline += " kasan_multi_shot"
    cmdline += " " + env.get("CMDLINE", "")
    timeout = int(env.get("BOOT_TIMEOUT") or 600)
    smp = env.get("SMP") or qemu.SMP_DEFAULT

    def boot(cmd, log):
        return qemu.boot(qemu.command(t.arch, image, initrd, cmd, kvm=kvm, mte=mte, smp=smp), log, timeout)

    say("boot", name, f"QEMU ({'KVM' if kvm else 'TCG'}), timeout {timeout} s")
    boot(cmdline, os.path.join(rdir, "console.log"))
    stage("boot")

    # fatal probes that panic: one fresh guest each, up to as many at once as there are CPUs
    panics = []
    if env.get("PANIC_GUESTS", "yes") != "no":
        panics = [r[0] for r in collect.probe_table(collect.frames(collect.read(os.path.join(rdir, "console.log"))))
                  if r[2] == "panic"]
    if panics:
        say("fatal", name, f"panicking probes, one guest each: {' '.join(panics)}")
        with concurrent.futures.ThreadPoolExecutor(len(os.sched_getaffinity(0))) as pool:
            for f in [pool.submit(boot, cmdline.replace("hardprobe.mode=all", f"hardprobe.mode=one:{p}", 1),
                                  os.path.join(rdir, f"console-{p}.log")) for p in panics]:
                f.result()
        stage("fatal-guests")
    with open(os.path.join(rdir, "build-info.txt"), "w") as f:
        f.write(build_info(target, kdir, image, prebuilt, kvm, cmdline))
    rc = collect.collect(rdir, name)
    if rc:
        return rc
    # the cost per feature (module debugfs "bench" + the variants' code sizes): bench.json
    # (its failure is the table's business: the file says why, the run stands)
    with open(os.path.join(rdir, "bench-table.txt"), "w") as out:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                bench.main(rdir, mdir)
            except Exception:       # noqa: BLE001 -- as "|| true": any failure, kept in the file
                traceback.print_exc()
    return 0


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool run", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("target", nargs="?", default="x86_64-gcc")
    a = ap.parse_args(argv)
    return run(a.target)
