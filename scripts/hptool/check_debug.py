# SPDX-License-Identifier: GPL-2.0
"""hptool check-debug (make check-debug): the x86_64-gcc-debug kernel (KASAN, kmemleak,
lockdep, DEBUG_LIST, SLUB debugging), booted with 4 vCPUs, runs the safe probes, the
kselftests in safe mode, the KUnit suites, the fuzz run and 1,000 unload/reload cycles
raced by 8 readers and a loop loading the KUnit module; then the kernel log and a kmemleak
scan must hold no finding. Last, 50 caught fatal probes of each kind of writer death, a
reload between each: no KASAN, lockdep, hung-task or RCU report after them.

usage: hptool check-debug   (env SMP (4), CYCLES (1000), CATCHES (50), CMDLINE, BOOT_TIMEOUT
                            (7200))
Ends with "N passed, N failed"; the check lines are kept in results/check-debug.log.
"""
import argparse
import os
import re
import subprocess
import sys

from . import SCRIPTS, TOP, lines, say, to_log, tool, tool_env
from .check import Log

TARGET = "x86_64-gcc-debug"
# the fuzz run's summary lines worth a look beside the checks
FUZZ_NOTES = re.compile(r"^# .*(writes in|by way|plain unload|during them|findings:|lockdep:|uid 65534|flipper|"
                        r"allow_fatal)")


def main():
    t, env = TARGET, os.environ
    res = os.path.join(TOP, "results")
    log = Log(os.path.join(res, "check-debug.log"))
    stages = os.path.join(res, "check-debug-stages.txt")
    os.environ["HP_STAGES"] = stages
    open(stages, "w").close()
    if subprocess.run(tool("deps"), env=tool_env()).returncode:
        return 1
    smp, cycles, catches = env.get("SMP") or "4", env.get("CYCLES") or "1000", env.get("CATCHES") or "50"
    say("run", t, f"boot ({smp} vCPUs): safe probes, selftests (-s), KUnit, fuzz, {cycles} raced load/unload "
        f"cycles, {catches} catches of each writer death")
    run_log = os.path.join(res, f"{t}.run.log")
    cmdline = (f"hardprobe.mode=safe hardprobe.reports=0 hardprobe.cycles={cycles} hardprobe.catches={catches} "
               + env.get("CMDLINE", ""))
    if to_log(tool("run", t), run_log, tool_env(SMP=smp, PANIC_GUESTS="no", CMDLINE=cmdline, RESULTS=res,
                                                  BOOT_TIMEOUT=env.get("BOOT_TIMEOUT") or "7200")):
        print("\n".join(lines(run_log)[-20:]), file=sys.stderr)
    rdir = os.path.join(res, t)
    log.checked(f"{t} judge", tool("judge", rdir, os.path.join(SCRIPTS, "expect.table"), t), what="judge")

    # findings: KASAN and other BUG reports, lockdep and RCU splats, kmemleak, hung tasks,
    # warnings on hardprobe's behalf (the rules: hptool/findings.py)
    d = os.path.join(rdir, "dmesg.txt")
    have_log = os.path.isfile(d) and os.path.getsize(d) > 0
    if have_log:
        # the reports the probes provoke on purpose: their "reports" in the module's JSON
        p = subprocess.run(tool("findings", d, os.path.join(rdir, "report.json")), capture_output=True, text=True,
                           env=tool_env())
        out = p.stdout.strip()
        nlines = len(open(d, errors="replace").read().splitlines())
        log(f"check {t} log-findings: ok (0 in {nlines} lines)" if out.split(" ", 1)[0] == "0" else
            f"check {t} log-findings: FAIL ({out or p.stderr.strip()[-200:]})")
    else:
        log(f"check {t} log-findings: FAIL (no dmesg)")
    # the stress catches: their own KTAP, then the log after their marker
    c = os.path.join(rdir, "catches.ktap")
    if os.path.isfile(c) and os.path.getsize(c):
        ktap = lines(c)
        log(*("    " + m.group(1) + ": " + m.group(2) for m in
              (re.match(r"^# (unload_cycles_[a-z_]*): (.*)$", ln) for ln in ktap) if m))
        ok = sum(ln.startswith("ok ") for ln in ktap)
        bad = sum(ln.startswith("not ok ") for ln in ktap)
        log(f"check {t} stress-catches: ok ({ok} ok)" if bad == 0 and ok >= 5 else
            f"check {t} stress-catches: FAIL ({ok} ok, {bad} not ok; see {c})")
    else:
        log(f"check {t} stress-catches: FAIL (no catches.ktap: the guest did not reach them)")
    if have_log and not re.search(r"hardprobe-stress: catches done$", open(d, errors="replace").read(), re.M):
        log(f"check {t} stress-log-findings: FAIL (the log of the catches is cut: no end marker)")
    elif have_log:
        p = subprocess.run(tool("findings", d, "--stress", "yes"), capture_output=True, text=True, env=tool_env())
        out = p.stdout.strip()
        if p.returncode:
            log(f"check {t} stress-log-findings: FAIL (no log of the catches)")
        elif out.split(" ", 1)[0] == "0":
            log(f"check {t} stress-log-findings: ok (0 KASAN, lockdep, hung-task, RCU reports after the catches)")
        else:
            log(f"check {t} stress-log-findings: FAIL ({out})")
    else:
        log(f"check {t} stress-log-findings: FAIL (no log of the catches)")
    # the lockdep part of log-findings means something only while lockdep is on: an oops
    # or a first splat turns it off for good (guest-init records debug_locks per stage)
    lk = os.path.join(rdir, "lockdep.txt")
    rows = [ln.split() for ln in lines(lk) if ln.split()]
    if rows:
        off = [r[0] for r in rows if len(r) < 2 or r[1] != "1"]
        log(f"check {t} lockdep-on: ok (debug_locks 1: {' '.join(r[0] for r in rows)})" if not off else
            f"check {t} lockdep-on: FAIL (debug_locks 0 {off[0]}: lockdep could not report)")
    else:
        log(f"check {t} lockdep-on: FAIL (no lockdep.txt: CONFIG_PROVE_LOCKING?)")
    k = os.path.join(rdir, "kmemleak.txt")
    if os.path.isfile(k):
        n = sum("unreferenced object" in ln for ln in lines(k))
        log(f"check {t} kmemleak: ok (scan: 0 unreferenced objects)" if n == 0 else
            f"check {t} kmemleak: FAIL ({n} unreferenced objects, see {k})")
    else:
        log(f"check {t} kmemleak: FAIL (no kmemleak scan: CONFIG_DEBUG_KMEMLEAK?)")
    log(*("    " + ln for ln in lines(os.path.join(rdir, "fuzz.ktap")) if FUZZ_NOTES.match(ln)))

    subprocess.run(tool("stage-timings", stages), env=tool_env())
    return subprocess.run(tool("tally", log.path), env=tool_env()).returncode


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool check-debug", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.parse_args(argv)
    return main()
