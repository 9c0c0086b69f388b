# SPDX-License-Identifier: GPL-2.0
"""hardprobe kaslr across boots: one boot shows whether the kernel moved, not how far it
could have. hptool kaslr (make kaslr [TARGET=...] [BOOTS=8]) boots a reference target
BOOTS times, each a small guest that loads the module and runs kaslr.text alone
(hardprobe.mode=one:kaslr.text, the one-probe guest of the panicking probes), and compares
where the kernel's text was: results/<target>/kaslr-entropy.txt, ending in "check <target>
kaslr-across-boots: ok|FAIL" (exit 1 on FAIL). KVER= as for make run; the module and
initramfs are built where make run builds them (results/.build/<target>/).

usage: hptool kaslr [TARGET] [--boots N]
       hptool kaslr-entropy NAME CONSOLE...   (the comparison alone, of consoles at hand)

The comparison prints one line per boot, then the summary and one check line: ok when
every boot found the text and at least two boots put it at different offsets (a fixed
offset, zero or not, is no randomization); a boot that did not judge kaslr.text is a FAIL.
"""
import argparse
import glob
import math
import os
import re

from . import initramfs, kbuild, qemu, results_root, say, targets

# the one-probe guest's "cat run" line (the kernel log has no evidence: it may hold the offset)
RESULT = re.compile(r"^kaslr\.text (\w+) (.*?)\r?$", re.M)
MOVED = re.compile(r"starts (-?\d+) MiB off its link address")


def offset(text):
    """(outcome, offset in MiB or None) of the kaslr.text result in one console log"""
    m = RESULT.search(text)
    if not m:
        return None, None
    if m.group(1) in ("vulnerable", "inconclusive") and "(offset 0)" in m.group(2):
        return m.group(1), 0
    mv = MOVED.search(m.group(2))
    return m.group(1), int(mv.group(1)) if mv else None


def summary(name, offsets):
    """the summary and check lines for the offsets (MiB; None: that boot did not judge)"""
    seen = [o for o in offsets if o is not None]
    distinct = sorted(set(seen))
    lines = [f"kaslr-entropy {name}: {len(offsets)} boots, {len(seen)} judged, "
             f"{len(distinct)} distinct offsets"
             + (f" (MiB: {', '.join(map(str, distinct))}; at least {math.log2(len(distinct)):.1f} "
                f"bits: {len(distinct)} places seen)" if distinct else "")]
    ok = len(seen) == len(offsets) and len(distinct) >= 2
    why = ("every boot judged, and the text moved between boots" if ok else
           "a boot did not judge kaslr.text" if len(seen) != len(offsets) else
           "the text was at the same offset every boot" if seen else "no boot judged kaslr.text")
    lines.append(f"check {name} kaslr-across-boots: {'ok' if ok else 'FAIL'} ({why})")
    return lines, ok


def main(argv):
    ap = argparse.ArgumentParser(prog="hptool kaslr-entropy", description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("consoles", nargs="+", metavar="CONSOLE")
    a = ap.parse_args(argv)
    lines, ok = compare(a.name, a.consoles)
    print("\n".join(lines))
    return 0 if ok else 1


def compare(name, consoles):
    """(lines, ok): a line per boot's console, then the summary and the check line"""
    offsets, out = [], []
    for n, path in enumerate(consoles, 1):
        try:
            text = open(path, errors="replace").read()
        except OSError as e:
            text = ""
            out.append(f"boot {n}: {path}: {e.strerror}")
        outcome, off = offset(text)
        offsets.append(off)
        out.append(f"boot {n}: {outcome or 'no result'}" + (f", offset {off} MiB" if off is not None else ""))
    lines, ok = summary(name, offsets)
    return out + lines, ok


def cli_run(argv):
    """hptool kaslr [TARGET] [--boots N]: kaslr.text alone in N boots of a reference target
    (default x86_64-gcc, 8 boots; env: KVER, RESULTS, CMDLINE, BOOT_TIMEOUT, HP_MTE, SMP)."""
    ap = argparse.ArgumentParser(prog="hptool kaslr", description=cli_run.__doc__)
    ap.add_argument("target", nargs="?", default="x86_64-gcc")
    ap.add_argument("--boots", type=int, default=8)
    a = ap.parse_args(argv)
    if a.boots < 1:
        ap.error("--boots: at least 1")
    env = os.environ
    t = targets.resolve(a.target)       # a reference target: its tools checked before a build
    name = targets.result_name(a.target)
    results = results_root(env)
    kdir = kbuild.Build(a.target).build(False)
    rdir, image = os.path.join(results, name), os.path.join(kdir, qemu.image(t.arch))
    _, initrd = initramfs.guest_files(a.target, name, t.arch, kdir)
    os.makedirs(rdir, exist_ok=True)
    kvm = qemu.kvm_probe(t.arch, image, initrd) == "yes"
    for old in glob.glob(os.path.join(rdir, "console-kaslr-*.log")):
        os.remove(old)
    cmdline = f"panic=-1 tsc=unstable hardprobe.target={name} hardprobe.mode=one:kaslr.text " + \
        env.get("CMDLINE", "")
    logs = []
    for i in range(1, a.boots + 1):
        say("boot", name, f"kaslr.text alone, boot {i} of {a.boots}")
        logs.append(os.path.join(rdir, f"console-kaslr-{i}.log"))
        argv = qemu.command(t.arch, image, initrd, cmdline.strip(), kvm=kvm,
                            mte=env.get("HP_MTE") == "yes", smp=env.get("SMP") or qemu.SMP_DEFAULT)
        qemu.boot(argv, logs[-1], int(env.get("BOOT_TIMEOUT") or 600))
    lines, ok = compare(name, logs)
    with open(os.path.join(rdir, "kaslr-entropy.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if ok else 1
