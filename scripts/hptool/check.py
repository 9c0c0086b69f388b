# SPDX-License-Identifier: GPL-2.0
"""hptool check (make check): host tests (collector, judge, compiler layer, matrix renderer
with headless Chromium), lint, the module built with W=1 for all four targets on 6.12 and
6.1 and against Debian's 6.1 and 6.12 headers, then x86_64-gcc (6.12, 6.1, and 7.1 where
the cache holds its tree), arm64-clang and Debian's 6.1 and 6.12 kernels booted (KUnit, the
kselftests incl. the fuzz run, the report judged), LKDTM agreement on x86_64-gcc and
arm64-clang, the variants of scripts/off-variants named in CHECK_VARIANTS (features turned
off and on: x86-boot, x86-checks, slab-debug, nomerge, kfence), a debugfs=off boot
(autorun KTAP in the log), lockdown, the refusal matrix, and the kernel-tree drop-in
(kunit.py run, kselftest build/run_tests, kselftest-merge).

usage: hptool check   (env CHECK_VARIANTS, KCIDB_SCHEMA, EXTRA_PKGS)

Every check prints a "check <name>: ok|FAIL|SKIP ..." line, kept in results/check.log;
the run ends with the time per stage and "N passed, N failed" (hptool tally), and every
name of scripts/check-manifest must have run. Exit 1 on any failure.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import traceback

from . import SCRIPTS, TOP, Error, last_line, lines, say, to_log, tool, tool_env
from . import debian, kconfig, offcheck, offvariants, targets

RESULTS = os.path.join(TOP, "results")
X86 = os.path.join(RESULTS, "x86_64-gcc")
HOST_TESTS = (
    ("test_deps", "install step against stand-in tools"),
    ("test_bench", "collector and judge on recorded guest logs"),
    ("test_mutations", "the pipeline fails on each known way of losing a check (mutations of a run)"),
    ("test_ccprobe", "compiler layer (ccprobe) on this machine's compilers"),
    ("test_kselftest", "kselftest programs against kselftest.h; their expectation rule against the module's JSON"),
    ("test_objdeps", "dependency-cycle finder on known graphs"),
    ("test_hptool", "host tool (scripts/hptool): targets, QEMU command lines, outcome rules, expectation table"),
    ("test_lava", "LAVA: the guest script, the jobs (lava-schema --strict), the device, the results against "
                  "report.json"),
    ("test_khc_join", "join with kernel-hardening-checker on a recorded k-h-c JSON and report.json"),
    ("test_matrix", "matrix renderer and make matrix's driver on recorded results; headless Chromium"),
)
# W=1: full kernels for the booted targets, prepared trees for the others; 6.12 and 6.1
W1_BUILDS = (("6.12", "x86_64-gcc", True), ("6.12", "arm64-clang", True), ("6.12", "x86_64-clang", False),
             ("6.12", "arm64-gcc", False), ("6.1", "x86_64-gcc", True), ("6.1", "arm64-clang", False),
             ("6.1", "x86_64-clang", False), ("6.1", "arm64-gcc", False))
# the booted runs: (KVER, target); 7.1 where the cache holds a 7.1 tree
BOOTS = (("", "x86_64-gcc"), ("6.1", "x86_64-gcc"), ("", "arm64-clang"), ("", "debian"), ("", "debian-6.12"),
         ("7.1", "x86_64-gcc"), ("7.1", "x86_64-clang-22"))
KTAP_FILES = ("selftest.ktap", "fuzz.ktap", "kunit.ktap", "trust.ktap", "ktap.txt")
VARIANTS = "x86-boot x86-checks slab-debug nomerge kfence"
# the refusal matrix: one guest per setting under which a catch panics, each reading the
# report and writing every fatal probe with allow_fatal=1 (from a child; from init itself
# for pid1): no guest may panic, and every refusal gives its reason. "all": every fatal
# probe must be refused; "any": those whose catch cannot panic under it run. long-cmdline:
# about 1,970 bytes in all, last a switch only the command line holds (x86 takes 2,047
# bytes at most)
PAD = " ".join(f"hp_pad.w{i}=xxxxxxxxxxxxxxxxxxxxxxxxxxxx" for i in range(1, 47))
REFUSALS = (
    ("taint-die", "refusals", "all", "panic_on_taint=0x80"),
    ("taint-warn", "refusals", "all", "panic_on_taint=0x200"),
    ("taint-bad-page", "refusals", "any", "panic_on_taint=0x20"),
    ("kasan-panic", "refusals", "any", "kasan.fault=panic"),
    ("kasan-panic-on-write", "refusals", "any", "kasan.fault=panic_on_write"),
    ("panic-on-warn", "refusals", "all", "panic_on_warn=1"),
    ("warn-limit-1", "refusals", "all", "sysctl.kernel.warn_limit=1"),
    ("warn-limit-2", "refusals", "any", "sysctl.kernel.warn_limit=2"),
    ("warn-limit-3", "refusals", "any", "sysctl.kernel.warn_limit=3"),
    ("warn-limit-4", "refusals", "any", "sysctl.kernel.warn_limit=4"),
    ("oops-limit", "refusals", "all", "sysctl.kernel.oops_limit=1"),
    ("pid1", "refusals-pid1", "all", ""),
    ("long-cmdline", "refusals", "all", f"{PAD} panic_on_taint=0x80"),
    ("hung-task-panic", "refusals", "any", "sysctl.kernel.hung_task_panic=1"),
)


class Log:
    """the check log of make check and make check-debug: each "check <what>: ok|FAIL ..."
    line (and its indented detail lines) shown and appended to the log; counted at the end
    by hptool tally"""

    def __init__(self, path):
        self.path = path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").close()

    def __call__(self, *lines):
        with open(self.path, "a") as f:
            for ln in lines:
                print(ln, flush=True)
                f.write(ln + "\n")

    def checked(self, name, argv, env=None, what=None):
        """a program that prints check lines: its lines, and a failure of its own when it
        exits non-zero (an exception, a crash): a check it never printed is the manifest's
        business"""
        rc = self.piped(argv, env)
        if rc:
            self(f"check {name}-exit: FAIL (exited {rc}: {what or os.path.basename(argv[1] if len(argv) > 1 else argv[0])})")
        return rc

    def piped(self, argv, env=None):
        """a program's output lines, recorded as they come (its status aside)"""
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env or tool_env(),
                             text=True, errors="replace")
        for ln in p.stdout:
            self(ln.rstrip("\n"))
        return p.wait()


def output(argv, env=None, quiet=True):
    """(status, stdout) of @argv; its stderr dropped (@quiet) or shown"""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL if quiet else None, text=True,
                       env=env or tool_env(), stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout.strip()


def deps(args, extra_pkgs=""):
    env = tool_env(EXTRA_PKGS=(os.environ.get("EXTRA_PKGS", "") + " " + extra_pkgs).strip())
    if subprocess.run(tool("deps", *args), env=env).returncode:
        raise SystemExit(1)


def w1(log, name, kdir, *make_args):
    """W=1 module build of @name against the kernel build @kdir, then the dependency-cycle
    check on its objects"""
    say("W=1", name, "module build")
    d = os.path.join(RESULTS, ".build", f"{name}-w1")
    rc = subprocess.run(tool("module", name, kdir, d, "W=1", *make_args),
                        stderr=subprocess.DEVNULL, env=tool_env()).returncode
    if rc:
        log(f"check {name} build-W=1: FAIL (build error: {d}/module-build.log)")
        return
    build_log = open(os.path.join(d, "module-build.log"), errors="replace").read().splitlines()
    warns = [ln for ln in build_log if re.search(r": (warning|error):", ln)]
    if not warns:
        rel = (lines(os.path.join(kdir, "include", "config", "kernel.release")) or ["?"])[0]
        log(f"check {name} build-W=1: ok (kernel {rel})")
    else:
        log(f"check {name} build-W=1: FAIL ({len(warns)} warnings)", *("    " + w for w in warns))
    # the objects of hardprobe.ko depend one way: no cycle between files of module/
    od = os.path.join(d, "objdeps.txt")
    rc = to_log(tool("objdeps", os.path.join(d, "src")), od)
    if rc == 0:
        log(f"check {name} objdeps: ok ({last_line(od)})")
    else:
        log(f"check {name} objdeps: FAIL ({last_line(od)})",
            *("    " + ln for ln in lines(od) if ln.startswith("cycle: ")))


def kernel(target, kver, prepare):
    """the kernel build directory of a reference target (hptool kernel), or None"""
    rc, out = output(tool("kernel", target, *(["--prepare"] if prepare else [])), tool_env(KVER=kver),
                     quiet=False)
    return out.splitlines()[-1] if rc == 0 and out else None


def run(target, log, **env):
    """hptool run of @target, its output into @log (the last lines on stderr if it failed)"""
    rc = to_log(tool("run", target), log, tool_env(**env))
    if rc:
        print("\n".join(lines(log)[-20:]), file=sys.stderr)
    return rc


def run_one(kv, base, t):
    say("run", t, "boot (judged when every target's run is done)")
    run(base, os.path.join(RESULTS, f"{t}.run.log"), KVER=kv, RESULTS=RESULTS)


def kunit_parse(ksrc, path, out):
    """kunit.py parse of @path into @out: its status"""
    return to_log(["python3", os.path.join(ksrc, "tools", "testing", "kunit", "kunit.py"), "parse", path], out)


def host_tests(log, ksrc, src71, no71):
    for test, what in HOST_TESTS:
        say("host", "-", what)
        argv = ["python3", os.path.join(SCRIPTS, "tests", f"{test}.py")]
        if test == "test_matrix":
            argv += ["--keep", os.path.join(RESULTS, "check-matrix")]
        log.checked(f"host {test}", argv, what=f"{test}.py")


def lint(log, ksrc, src71, no71):
    say("lint", "-", "checkpatch --strict")
    log.piped(tool("lint"))


def w1_builds(log, ksrc, src71, no71):
    # W=1 (KVER=6.1: linux-source-6.1, the results and checks named <target>-6.1)
    for kv, t, full in W1_BUILDS:
        name = targets.result_name(t, version=kv)
        kdir = kernel(t, kv, not full)
        if not kdir:
            log(f"check {name} kernel: FAIL (see the build log above)")
            continue
        w1(log, name, kdir, *([] if full else ["KBUILD_MODPOST_WARN=1"]))
    # Linux 7.1 (a tree the user named once as KSRC=, kept in the cache): the module against
    # prepared 7.1 trees of the four reference targets; skipped with the reason where none is
    # cached
    for t in ("x86_64-gcc", "x86_64-clang", "arm64-gcc", "arm64-clang"):
        if not src71:
            log(*(f"check {t}-7.1 {c}: {no71}" for c in ("build-W=1", "objdeps")))
            continue
        kdir = kernel(t, "7.1", True)
        if not kdir:
            log(f"check {t}-7.1 kernel: FAIL (see the build log above)")
            continue
        w1(log, f"{t}-7.1", kdir, "KBUILD_MODPOST_WARN=1")
    # and against Debian's own headers: Debian 12's default kernel (6.1) and its 6.12
    for t in ("debian", "debian-6.12"):
        w1(log, t, f"/usr/src/linux-headers-{debian.installed_kernel(debian.series(t)) or ''}")


def boots(log, ksrc, src71, no71):
    table = os.path.join(SCRIPTS, "expect.table")
    todo = []
    for kv, base in BOOTS:
        t = targets.result_name(base, version=kv)
        if kv == "7.1":
            if not src71:
                log(f"check {t} tree: {no71}")
                continue
            log(f"check {t} tree: ok ({src71})")
        todo.append((kv, base, t))
    # the runs side by side, as many at once as there are CPUs (the W=1 stage has built
    # the 6.x kernels: each run is then a module build and guests that keep about one CPU
    # busy), then judged in order
    with concurrent.futures.ThreadPoolExecutor(len(os.sched_getaffinity(0))) as pool:
        for f in [pool.submit(run_one, kv, base, t) for kv, base, t in todo]:
            f.result()
    for kv, base, t in todo:
        log.checked(f"{t} judge", tool("judge", os.path.join(RESULTS, t), table, t), what="judge")
        # the kernel's own KTAP parser must accept what we print (it exits 1 on a failed
        # test too: those the judge holds against the table's expected ones above; here
        # the parse itself must go through, no [ERROR] or [CRASHED] line)
        for f in KTAP_FILES:
            if t.startswith("debian") and f == "kunit.ktap":
                continue
            parsed = os.path.join(RESULTS, t, f"{f}.parsed")
            if kunit_parse(ksrc, os.path.join(RESULTS, t, f), parsed) == 0:
                log(f"check {t} kunit.py-parse-{f}: ok")
                continue
            text = open(parsed, errors="replace").read()
            if re.search(r"Testing complete\. Ran [1-9]", text) and not re.search(
                    r"\[ERROR\]|\[CRASHED\]|NO TESTS", text):
                fails = re.search(r"(Failures: .*)", text)
                log(f"check {t} kunit.py-parse-{f}: ok (parsed; {fails.group(1)[:120] if fails else ''}: "
                    "the judge's)")
            else:
                log(f"check {t} kunit.py-parse-{f}: FAIL ({last_line(parsed)})")


def variants(log, ksrc, src71, no71):
    # features turned off must come out vulnerable, features turned on (+feature)
    # protected, and nothing else may change: the variants of scripts/off-variants named
    # here, each against the x86_64-gcc run above (x86-checks is a kernel build of its own:
    # cached like the others)
    for v in (os.environ.get("CHECK_VARIANTS") or VARIANTS).split():
        try:
            var = offvariants.select(offvariants.parse(), v)[0]
            vt = var["target"]
            o = os.path.join(RESULTS, "off", v)
            # the switches from the module's records, as the boots stage's run of the
            # target published them
            offcheck.run_offvariant(var, os.path.join(RESULTS, vt), o, f"{o}.run.log")
        except Error as e:
            log(f"check off {v} offcheck: FAIL ({e})")
            continue
        log.checked(f"off {v} offcheck", tool("offcheck", v, os.path.join(RESULTS, vt), os.path.join(o, vt),
                                                 var["features"]), what="offcheck")


def ci_names(log, ksrc, src71, no71):
    # two runs of one kernel and module (the x86-boot variant turns features off at boot):
    # a CI system must file their results under the same names, read as Linaro's kselftest
    # parser reads them (a SKIP's reason is part of the name there; no result line carries
    # evidence)
    if "x86-boot" in (os.environ.get("CHECK_VARIANTS") or "x86-boot").split():
        say("host", "x86_64-gcc", "CI result names of two runs (x86_64-gcc, x86-boot variant)")
        boot_off = os.path.join(RESULTS, "off", "x86-boot", "x86_64-gcc")
        log.checked("x86_64-gcc ci-names", tool("ci-names", X86, boot_off, "--label", "x86_64-gcc ci-names"),
                    what="ci-names")
        log.checked("x86_64-gcc kcidb-paths", tool("kcidb", os.path.join(X86, "report.json"), "--same-paths",
                                                      os.path.join(boot_off, "report.json")), what="kcidb")


def kcidb(log, ksrc, src71, no71):
    # KCIDB: the x86_64-gcc run as a KCIDB v5.3 submission, validated against the schema
    # (KCIDB_SCHEMA=, or the copy beside the project); skipped with the reason without one
    schema = os.environ.get("KCIDB_SCHEMA") or os.path.join(TOP, "..", "shared", "kcidb",
                                                            "kcidb-io.schema.v5.3.json")
    if os.path.isfile(schema):
        log.checked("x86_64-gcc kcidb", tool("kcidb", os.path.join(X86, "report.json"), "-o",
                                                os.path.join(X86, "kcidb.json"), "--check", schema), what="kcidb")
    else:
        log(f"check kcidb-schema: SKIP (no KCIDB schema at {schema}: KCIDB_SCHEMA=<kcidb-io.schema.v5.3.json>)")


def lava(log, ksrc, src71, no71):
    # LAVA: the same kernels as a LAVA job, run by lava-dispatcher alone; each result must
    # equal report.json's outcome (lava-run needs root)
    for t in ("x86_64-gcc", "arm64-clang"):
        if os.getuid() != 0:
            log(f"check lava-results-{t}: SKIP (lava-run runs as root only)")
            continue
        say("lava", t, "the LAVA job (lava-run), each result beside report.json's")
        ll = os.path.join(RESULTS, f"{t}.lava.log")
        to_log(tool("lava", t), ll)
        got = lines(ll)
        log(*(("    " + ln if ln.startswith("lava-run:") else ln) for ln in got
              if ln.startswith("check ") or ln.startswith("lava-run:")))
        if not any(ln.startswith("check lava-results") for ln in got):
            log(f"check lava-results-{t}: FAIL (no result: {last_line(ll)})")


def kaslr(log, ksrc, src71, no71):
    # KASLR across boots: the kernel's text must move between four one-probe guests
    say("kaslr", "x86_64-gcc", "kaslr.text alone, four boots")
    kl = os.path.join(RESULTS, "kaslr.log")
    to_log(tool("kaslr", "x86_64-gcc", "--boots", "4"), kl)
    got = [ln for ln in lines(kl) if ln.startswith("check ")]
    log(*got)
    if not got:
        log(f"check x86_64-gcc kaslr-across-boots: FAIL (no result: {last_line(kl)})")


def lkdtm(log, ksrc, src71, no71):
    # hardprobe and the kernel's own LKDTM must agree on the same kernel
    for t in ("x86_64-gcc", "arm64-clang"):
        say("lkdtm", t, "LKDTM tests, compared with hardprobe's outcomes")
        ll = os.path.join(RESULTS, f"{t}.lkdtm.log")
        if to_log(tool("lkdtm", t), ll) == 0:
            log(f"check {t} lkdtm-agreement: ok ({last_line(ll)})")
        else:
            log(f"check {t} lkdtm-agreement: FAIL ({last_line(ll)})",
                *("    " + ln for ln in lines(ll) if " NO " in ln))


def nodebugfs(log, ksrc, src71, no71):
    # without debugfs (lockdown, debugfs=off) autorun=1 must still print a parseable KTAP
    say("run", "x86_64-gcc", "boot with debugfs=off hardprobe.autorun=1")
    nd = os.path.join(RESULTS, "nodebugfs")
    to_log(tool("run", "x86_64-gcc"), os.path.join(RESULTS, "nodebugfs.run.log"),
           tool_env(RESULTS=nd, CMDLINE="debugfs=off hardprobe.autorun=1"))
    # hardprobe's lines of the kernel log, their "[time] hardprobe: " prefix removed by the
    # kernel's own kunit_parser (extract_tap_lines)
    os.makedirs(nd, exist_ok=True)      # (a run that failed early made none)
    ak, ap = os.path.join(nd, "autorun.ktap"), os.path.join(nd, "autorun.parsed")
    with open(ak, "w") as f:
        subprocess.run(tool("ktap-extract", os.path.join(nd, "x86_64-gcc", "dmesg.txt"), "--only", "] hardprobe: "),
                       stdout=f, stderr=subprocess.DEVNULL, env=tool_env())
    ran = re.search(r"Ran [1-9][0-9]* tests.*", open(ap, errors="replace").read()) \
        if kunit_parse(ksrc, ak, ap) == 0 else None
    log(f"check nodebugfs autorun-ktap-in-log: ok ({ran.group(0)})" if ran else
        f"check nodebugfs autorun-ktap-in-log: FAIL ({last_line(ap)})")


def lockdown(log, ksrc, src71, no71):
    # under lockdown no probe may run: the unsigned module is refused (by the kernel's
    # signature rule here; hardprobe's own refusal is checked in kunit.py's built-in boot)
    say("run", "x86_64-gcc", "boot with lockdown=integrity")
    ld = os.path.join(RESULTS, "lockdown")
    to_log(tool("run", "x86_64-gcc"), os.path.join(RESULTS, "lockdown.run.log"),
           tool_env(RESULTS=ld, CMDLINE="lockdown=integrity hardprobe.mode=lockdown", PANIC_GUESTS="no"))
    log.checked("lockdown judge", tool("judge", "--lockdown", os.path.join(ld, "x86_64-gcc")), what="judge")


def refusals(log, ksrc, src71, no71):
    # the refusal matrix (the guests share results/refusals/, each result moved aside, and
    # the module build of every x86_64-gcc run)
    rf = os.path.join(RESULTS, "refusals")
    os.makedirs(rf, exist_ok=True)
    for name, gmode, want, cmd in REFUSALS:
        say("refusal", "x86_64-gcc", f"{name}: {cmd[:60]}")
        to_log(tool("run", "x86_64-gcc"), os.path.join(rf, f"{name}.run.log"),
               tool_env(RESULTS=rf, CMDLINE=f"{cmd} hardprobe.mode={gmode}", PANIC_GUESTS="no",
                        BOOT_TIMEOUT="300"))
        shutil.rmtree(os.path.join(rf, name), ignore_errors=True)
        if os.path.isdir(os.path.join(rf, "x86_64-gcc")):
            os.rename(os.path.join(rf, "x86_64-gcc"), os.path.join(rf, name))
        log.checked(f"refusals-{name} judge", tool("judge", "--refusals", name, want, os.path.join(rf, name)),
                    what="judge")


def intree(log, ksrc, src71, no71):
    # the kernel-tree drop-in: kunit.py, kselftest build/run_tests, kselftest-merge
    log.piped(tool("intree-check"))


# make check's stages, in order
STAGES = (host_tests, lint, w1_builds, boots, variants, ci_names, kcidb, lava, kaslr, lkdtm, nodebugfs,
          lockdown, refusals, intree)


def run_stages(log, stages, *args):
    """each stage on its own: an exception in one is a failure of its own ("check
    stage-<name>: FAIL"), and the others still run (the checks it never printed fail by
    the manifest)"""
    for fn in stages:
        try:
            fn(log, *args)
        except Exception as e:      # noqa: BLE001 -- reported, counted, never lost
            traceback.print_exc()
            log(f"check stage-{fn.__name__}: FAIL ({type(e).__name__}: {e})")


def main():
    log = Log(os.path.join(RESULTS, "check.log"))
    # the time of each stage, printed at the end (hptool stage-timings)
    stages = os.path.join(RESULTS, "check-stages.txt")
    os.environ["HP_STAGES"] = stages
    open(stages, "w").close()
    say("deps", "-", "packages (hptool deps)")
    # Clang 22 for the x86_64-clang-22 kernel on 7.1, booted where the cache holds a 7.1
    # tree (src71: the cached 7.1 tree's id, empty without one; no71: why its checks are
    # skipped)
    rc, src71 = output(tool("ksrc", "--kver", "env", "--id"), tool_env(KVER="7.1"))
    src71 = src71 if rc == 0 else ""
    no71 = ("SKIP (no Linux 7.1 tree in the cache: make run KVER=7.1 KSRC=<tree or linux-7.1.N.tar.xz> "
            "once)")
    deps(["--arm64", "--debian=debian", "--debian=debian-6.12", "--kver=6.1", "--lava"],
         "clang-22 lld-22 llvm-22" if src71 else "")
    ksrc = kconfig.ksrc(say=say)[0]

    run_stages(log, STAGES, ksrc, src71, no71)

    # "N passed, N failed" (.ci/run ends with it); exit 1 on any failure. Every check of
    # scripts/check-manifest must have run (CHECK_VARIANTS, a subset of the variants, runs
    # fewer: no manifest then)
    subprocess.run(tool("stage-timings", stages), env=tool_env())
    manifest = os.path.join(SCRIPTS, "check-manifest")
    tally = tool("tally", log.path)
    if not os.environ.get("CHECK_VARIANTS") and os.path.isfile(manifest):
        tally += ["--manifest", manifest]
    return subprocess.run(tally, env=tool_env()).returncode


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool check", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.parse_args(argv)
    try:
        return main()
    except Error as e:
        print(f"hardprobe: error: {e}", file=sys.stderr)
        return 1
