# SPDX-License-Identifier: GPL-2.0
"""hptool matrix (make matrix): hptool run for each target, one after another (each run
also writes the cost per feature, bench.json), then the compiler layer (hptool ccprobe),
then hptool matrix-render: results/matrix.md, matrix.html, matrix.json.

usage: hptool matrix [TARGET...]
  env: TARGETS (default: x86_64-gcc x86_64-clang arm64-gcc arm64-clang),
       COMPILERS="clang-22 ..." (adds x86_64-clang-N and arm64-clang-N for each),
       KVERS="6.1 6.12" (each target once per reference kernel version, side by side:
       results/<target>-6.1 beside results/<target>),
       RESULTS (default results/), and what hptool run takes (EXTRA_CONFIG, CMDLINE, ...);
       HP_MATRIX_RUN: the command run per target instead of hptool run (for the tests)
A target that fails is recorded in results/<target>/matrix-status.json and shown in the
matrix; the others still run. Exit status 1 if any target failed, after rendering.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time

from . import Error, lines, read_text, results_root, say, to_log, tool, tool_env
from . import debian, matrix, targets

# the stage that failed: the one after the last that hptool run recorded in stages.txt
NEXT_STAGE = {"": "kernel", "kernel": "module", "module": "initramfs", "initramfs": "boot",
              "kvm-probe": "boot"}


def failed_stage(stages):
    last = [ln.split()[0] for ln in lines(stages) if ln.split()]
    return NEXT_STAGE.get(last[-1] if last else "", "collect")


def write_status(path, target, status, stage, rc, elapsed, reason, log):
    with open(path, "w") as out:
        json.dump({"schema": 1, "target": target, "status": status, "stage": stage, "rc": int(rc),
                   "elapsed_s": int(elapsed), "reason": reason, "log": log}, out, indent=1)
        out.write("\n")


def runs(bases, kvers):
    """[(results name, base target, KVER)]: each target once per version (a Debian kernel,
    which has one version, once)"""
    out, seen = [], set()
    for b in bases:
        for v in kvers or [""]:
            name = targets.result_name(b, version=v)
            if name not in seen:
                seen.add(name)
                out.append((name, b, v))
    return out


def run_one(name, base, kver, res, runner):
    """(status, stage, rc, reason) of one target's run; its output into <res>/<name>.matrix.log,
    its progress lines on stderr"""
    rdir, log = os.path.join(res, name), os.path.join(res, f"{name}.matrix.log")
    if not debian.series(base):
        try:
            targets.resolve(base).make_args()
        except Error as e:
            with open(log, "w") as f:
                f.write(f"hardprobe: error: {e}\n")
            return "failed", "target", 1, str(e)
    env = tool_env(KVER=kver, RESULTS=res)
    with open(log, "wb") as f:
        p = subprocess.Popen(runner + [base], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env)
        for line in p.stdout:
            f.write(line)
            if line.startswith(b"[hardprobe"):
                sys.stderr.write(line.decode(errors="replace"))
                sys.stderr.flush()
        rc = p.wait()
    if rc == 0:
        return "ok", "complete", 0, ""
    stage = failed_stage(os.path.join(rdir, "stages.txt"))
    errs = re.findall(r"^hardprobe(?:: error)?: (.*)$", read_text(log), re.M)
    reason = errs[-1] if errs else ""
    if re.search(r"^TIMEOUT", read_text(os.path.join(rdir, "console.log")), re.M):
        reason = f"guest TIMEOUT (BOOT_TIMEOUT={os.environ.get('BOOT_TIMEOUT') or 600} s); {reason}"
    return "failed", stage, rc, f"failed at stage {stage} (exit {rc}){': ' + reason if reason else ''}; see {log}"


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool matrix", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("targets", nargs="*")
    a = ap.parse_args(argv)
    res = results_root()
    os.makedirs(res, exist_ok=True)
    # the targets given (default x86_64-gcc x86_64-clang arm64-gcc arm64-clang), then
    # <arch>-clang-<N> for each clang-<N> of COMPILERS, no repeats
    bases = targets.matrix_targets(a.targets or os.environ.get("TARGETS", "").split(),
                                   os.environ.get("COMPILERS", ""))
    plan = runs(bases, os.environ.get("KVERS", "").split())
    runner = shlex.split(os.environ.get("HP_MATRIX_RUN") or "") or tool("run")
    n = len(plan)
    say("matrix", "-", f"{n} targets: {' '.join(p[0] for p in plan)}")
    failed = []
    for i, (name, base, kver) in enumerate(plan, 1):
        rdir = os.path.join(res, name)
        os.makedirs(rdir, exist_ok=True)
        # no stale results from an earlier run may stand in for this one
        for f in ("report.json", "bench.json", "matrix-status.json", "stages.txt"):
            if os.path.exists(os.path.join(rdir, f)):
                os.remove(os.path.join(rdir, f))
        t0 = time.time()
        log = os.path.join(res, f"{name}.matrix.log")
        say("matrix", name, f"target {i}/{n}: run (kernel, module, boot, fatal guests); log {log}")
        status, stage, rc, reason = run_one(name, base, kver, res, runner)
        # the cost per feature: hptool run writes bench.json when the module's bench ran;
        # without it the cost shows —
        if rc == 0 and not os.path.isfile(os.path.join(rdir, "bench.json")):
            say("matrix", name, f"target {i}/{n}: no bench.json (cost: —); see {rdir}/bench-table.txt")
        el = int(time.time() - t0)
        write_status(os.path.join(rdir, "matrix-status.json"), name, status, stage, rc, el, reason, log)
        if rc == 0:
            say("matrix", name, f"target {i}/{n}: ok in {el}s")
        else:
            say("matrix", name, f"target {i}/{n}: FAILED in {el}s: {reason}")
            failed.append(name)

    # the compiler layer: what each target's compiler accepts and emits
    ccs = []
    for b in bases:
        try:
            targets.resolve(b).make_args()
        except Error:
            continue
        arch, comp = targets.arch_compiler(b)
        if f"{comp}/{arch}" not in ccs:
            ccs.append(f"{comp}/{arch}")      # hptool ccprobe's compiler ids
    say("matrix", "-", f"compiler layer: hptool ccprobe {' '.join(ccs)}")
    cj = os.path.join(res, "compiler.json")
    if os.path.exists(cj):
        os.remove(cj)
    if to_log(tool("ccprobe", "-o", cj, "--compilers", ",".join(ccs)), os.path.join(res, "ccprobe.log")):
        say("matrix", "-", f"hptool ccprobe failed (the compiler layer shows —); see {res}/ccprobe.log")
    say("matrix", "-", f"rendering {res}/matrix.md, matrix.html, matrix.json")
    if matrix.main(["--results", res, "--targets", " ".join(p[0] for p in plan)]):
        return 1
    for ext in ("md", "html", "json"):
        print(f"matrix: {res}/matrix.{ext}")
    if failed:
        print(f"matrix: {len(failed)} of {n} targets failed: {' '.join(failed)} (reasons in the matrix and "
              "results/<target>/matrix-status.json)", file=sys.stderr)
        return 1
    return 0
