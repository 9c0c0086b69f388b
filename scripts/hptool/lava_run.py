# SPDX-License-Identifier: GPL-2.0
"""hptool lava (make lava): the bench's kernel, module, runner and ramdisk as a LAVA job
(lava/), run by Debian's lava-dispatcher alone (lava-run, no server), each result compared
with report.json's outcome for the same kernel. Ends with "N passed, N failed".

usage: hptool lava [TARGET]   (default x86_64-gcc; env SMP: vCPUs, default 2)
Results in results/lava/<target>/: the job, the device, lava-run's log, the comparison.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

from . import TOP, Error, say, to_log, tool, tool_env
from . import initramfs, kbuild, qemu, targets
from .check import Log


def compared(record, results, report, out, check, server=False):
    """hptool lava-compare of a job's @results (lava-run's log, or with @server a server's
    lavacli results) and @report: its lines into @out, the per-result lines shown, its
    check line recorded as "check @check: ..." (a FAIL of its own when it printed none)"""
    p = subprocess.run(tool("lava-compare", results, report, *(["--server"] if server else [])), env=tool_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    with open(out, "w") as f:
        f.write(p.stdout)
    lines = p.stdout.splitlines()
    for ln in lines:
        if not ln.startswith("check "):
            print(ln)
    sys.stdout.flush()
    for ln in lines:
        if ln.startswith("check lava-results:"):
            record(ln.replace("check lava-results:", f"check {check}:", 1))
    if not any(ln.startswith("check ") for ln in lines):
        record(f"check {check}: FAIL ({(lines or [''])[-1]})")


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool lava", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("target", nargs="?", default="x86_64-gcc")
    a = ap.parse_args(argv)
    t = a.target
    env = tool_env()
    if subprocess.run(tool("deps", "--lava"), env=env).returncode:
        return 1
    if os.getuid() != 0:
        raise Error("lava-run runs as root only (it writes /var/lib/lava/dispatcher)")
    name = targets.result_name(t)
    results = os.path.join(TOP, "results")
    rdir, mdir, ldir = (os.path.join(results, name), kbuild.module_dir(name, env={}),
                        os.path.join(results, "lava", name))
    shutil.rmtree(ldir, ignore_errors=True)
    os.makedirs(os.path.join(ldir, "ramdisk"))
    record = Log(os.path.join(ldir, "check.log"))
    # the run this job must agree with: this checkout's make run of the target
    info = os.path.join(rdir, "build-info.txt")

    def nonempty(path):
        return os.path.isfile(path) and os.path.getsize(path) > 0
    if not (nonempty(os.path.join(rdir, "report.json")) and os.path.isfile(os.path.join(mdir, "hardprobe.ko"))
            and nonempty(info)):
        say("lava", name, f"no run of this target in this checkout: make run TARGET={t} first")
        if to_log(tool("run", t), os.path.join(results, f"{name}.run.log"), env):
            raise Error(f"make run TARGET={t} failed: see results/{name}.run.log")
    fields = dict(ln.split(": ", 1) for ln in open(info).read().splitlines() if ": " in ln)
    kdir, image = fields.get("build_dir", ""), fields.get("image", "")
    tg = targets.from_config(t, kdir)
    image = image or os.path.join(kdir, qemu.image(tg.arch))
    if not os.path.isfile(image):
        raise Error(f"the kernel of results/{name} ({image}) is gone: make run TARGET={t} again")
    machine = append = ""
    if tg.arch == "arm64" and re.search(r"^CONFIG_KASAN_HW_TAGS=y$", open(os.path.join(kdir, ".config")).read(),
                                        re.M):
        machine, append = "virt,mte=on", "kasan_multi_shot"
    say("lava", name, "job inputs: kernel, ramdisk (busybox, module, runner, lava/init), device, job")
    for f in ("init", "hardprobe-lava.sh"):
        shutil.copy(os.path.join(TOP, "lava", f), os.path.join(ldir, "ramdisk"))
    try:
        initramfs.build(tg.arch, mdir, os.path.join(mdir, "hardprobe_test"), os.path.join(ldir, "ramdisk.cpio.gz"),
                        os.path.join(ldir, "ramdisk"))
    except (Error, OSError) as e:
        raise Error(f"the ramdisk could not be built: {e}") from None
    shutil.copy(image, os.path.join(ldir, "kernel"))
    smp = os.environ.get("SMP") or "2"
    opt = (["--machine", machine] if machine else [])
    with open(os.path.join(ldir, "device.yaml"), "w") as f:
        if subprocess.run(tool("lava-device", tg.arch, "--smp", smp, *opt, "-d", os.path.join(ldir, "device.jinja2")),
                          stdout=f, env=env).returncode:
            return 1
    job = os.path.join(ldir, "job.yaml")
    with open(job, "w") as f:
        if subprocess.run(tool("lava-job", tg.arch, name, f"file://{ldir}/kernel", f"file://{ldir}/ramdisk.cpio.gz",
                                 os.path.join(rdir, "probes.txt"), "--smp", smp, *opt,
                                 *(["--append", append] if append else [])), stdout=f, env=env).returncode:
            return 1
    schema = os.path.join(ldir, "schema.txt")
    with open(schema, "w") as f:
        rc = subprocess.run(["/usr/bin/python3", "/usr/share/lava-common/lava-schema.py", "job", "--strict", job],
                            stdout=f, stderr=subprocess.STDOUT).returncode
    last = (open(schema).read().splitlines() or [""])[-1]
    record(f"check lava-schema-{name}: ok (lava-schema.py job --strict)" if rc == 0 else
           f"check lava-schema-{name}: FAIL ({last})")

    steps = len(re.findall(r"^    interactive:", open(job).read(), re.M))
    say("lava", name, f"lava-run (QEMU TCG): the module and its runner, then {steps} panicking probe(s), "
        "a fresh boot each")
    t0 = time.time()
    lava_log = os.path.join(ldir, "lava.log")
    with open(lava_log, "wb") as f:
        rc = subprocess.run(["lava-run", "--job-id", "1", "--output-dir", os.path.join(ldir, "out"), "--device",
                             os.path.join(ldir, "device.yaml"), job], stdout=f, stderr=subprocess.STDOUT).returncode
    el = int(time.time() - t0)
    # the figure beside it: make run's guests on the same kernel (its stages.txt, boot and
    # the panicking probes' guests; a benchmark figure, not a check)
    mr = "?"
    try:
        mr = str(int(sum(float(ln.split()[1]) for ln in open(os.path.join(rdir, "stages.txt"))
                         if ln.split()[:1] in (["boot"], ["fatal-guests"]))))
    except (OSError, ValueError, IndexError):
        pass
    record(f"lava-run: rc {rc} in {el} s; make run's guests on this kernel: {mr} s ({lava_log})")
    say("lava", name, f"lava-run ended (rc {rc}) in {el} s")
    if '"lvl": "results"' not in open(lava_log, errors="replace").read():
        record(f"check lava-results-{name}: FAIL (no results in {lava_log})")
    else:
        compared(record, lava_log, os.path.join(rdir, "report.json"), os.path.join(ldir, "compare.txt"),
                 f"lava-results-{name}")
    sys.stdout.flush()
    return subprocess.run(tool("tally", record.path), env=env).returncode
