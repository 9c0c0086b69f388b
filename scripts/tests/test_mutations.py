#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bench cannot pass by losing checks: each mutation of a run below must make the
pipeline fail (make check's `checked` and `hptool tally`, hptool collect, hptool judge), and the
run unmutated must pass.

The run is the recorded x86_64-gcc guest log (recorded-x86_64-gcc.log, its panicking
probe's guest recorded-x86_64-gcc-smash.log), judged against the x86_64-gcc column of
scripts/expect.table for the features that log holds. The log predates the fuzz and
trust runs and the kselftest user checks: where it lacks them, the frames below stand in,
in the programs' own form (the trust names are hardprobe_trust.c's, checked here; the fuzz
names are hardprobe_fuzz.c's), so a newer recorded log replaces them unchanged.

Prints one "check host mutation-<name>: ok|FAIL <detail>" line per mutation (ok: the
mutation was caught, the pipeline failed for the reason named) and one for the baseline;
exit 1 if a mutation went uncaught or the baseline failed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
TOP = os.path.dirname(SCRIPTS)
sys.path.insert(0, SCRIPTS)
# the host tool as make check runs it (its subcommands import hptool from SCRIPTS)
os.environ["PYTHONPATH"] = SCRIPTS + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
HPTOOL = [sys.executable, "-m", "hptool"]
from hptool import collect  # noqa: E402
from hptool import expect, outcome  # noqa: E402

TARGET = "x86_64-gcc"
LOG = collect.read(os.path.join(HERE, "recorded-x86_64-gcc.log"))
SMASH = collect.read(os.path.join(HERE, "recorded-x86_64-gcc-smash.log"))
SELFTESTS = os.path.join(TOP, "selftests", "hardprobe")
results = []

# hardprobe_trust's results in the order it prints them (nx.kmalloc its fatal probe)
TRUST = ["refused_in_private_mount_ns_with_fake_proc_sys", "refused_in_chroot_without_proc",
         "two_writers_one_oops_of_room", "report_one_warning_from_warn_limit",
         "allow_fatal_rejects_out_of_range", "run_reads_the_caught_probe", "rmmod_after_a_catch",
         "run_param_fatal_refused_at_load", "rmmod_after_run_param", "threaded_writer_refused",
         "rmmod_after_threaded_writer", "forked_writer_verdict_after_dmesg_clear",
         "rmmod_after_forked_writer", "cache_name_after_reload", "reload"]
DMESG_CLEAR = "forked_writer_verdict_after_dmesg_clear"


def check(name, ok, detail=""):
    results.append(ok)
    print(f"check host mutation-{name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


def framed(name, text):
    return f"----- hardprobe:file {name} -----\n{text.rstrip(chr(10))}\n----- hardprobe:end {name} -----\n"


def edit_frame(log, name, fn):
    """the log with the content of frame NAME replaced by fn(content)"""
    head = f"----- hardprobe:file {name} -----\n"
    a = log.index(head) + len(head)
    b = log.index(f"----- hardprobe:end {name} -----", a)
    return log[:a] + fn(log[a:b]).rstrip("\n") + "\n" + log[b:]


def ktap_doc(names, diag):
    lines = ["KTAP version 1", f"1..{len(names)}"]
    for n, name in enumerate(names, 1):
        lines += [f"# {name}: {diag(name)}", f"ok {n} {name}"]
    return "\n".join(lines + [f"# Totals: pass:{len(names)} fail:0 skip:0"]) + "\n"


def baseline():
    """the recorded log with what today's guest prints and the log lacks: the fuzz and
    trust documents, a kselftest user check (the frames in guest-init's order)"""
    log = LOG.replace("\r", "")
    files = collect.frames(log)
    if "fuzz.ktap" not in files:
        src = collect.read(os.path.join(SELFTESTS, "hardprobe_fuzz.c"))
        names = list(dict.fromkeys(re.findall(r'result\([^;]*?"(fuzz_[a-z0-9_]+)"', src, re.S)))
        i = log.index("----- hardprobe:file selftest.ktap")
        log = log[:i] + framed("fuzz.ktap", ktap_doc(names, lambda n: "as expected")) + log[i:]
    if "trust.ktap" not in files:
        i = log.index("----- hardprobe:file dmesg.txt")
        log = log[:i] + framed("trust.ktap", ktap_doc(TRUST, lambda n: "as expected")) + log[i:]
    if "; configured: " not in files.get("selftest.ktap", ""):
        def user(text):
            plan = int(re.search(r"^1\.\.(\d+)$", text, re.M).group(1)) + 1
            text = re.sub(r"^1\.\.\d+$", f"1..{plan}", text, count=1, flags=re.M)
            line = ("# null_page: protected: uid 65534 mapping page 0 refused (Operation not "
                    f"permitted); control: 0x30000000 mapped; configured: vm.mmap_min_addr=4096\n"
                    f"ok {plan} null_page\n")
            return re.sub(r"^(# Totals: pass:)(\d+)", lambda m: line + m.group(1) + str(int(m.group(2)) + 1),
                          text, count=1, flags=re.M)
        log = edit_frame(log, "selftest.ktap", user)
    if '"khc"' not in files.get("report.json", ""):
        # each feature's k-h-c record (judge's khc-records), as today's module prints it:
        # the recorded report of test_khc_join's inputs (none for a feature it lacks)
        with open(os.path.join(HERE, "khc", "x86_64-gcc.report.json")) as fh:
            rec = {f["feature"]: f["khc"] for f in json.load(fh)["features"]}

        def khc(text):
            data = json.loads(text)
            for f in data["features"]:
                f["khc"] = rec.get(f["feature"], "")
            return json.dumps(data) + "\n"
        log = edit_frame(log, "report.json", khc)
    return log


def table(log, d):
    """the x86_64-gcc column of scripts/expect.table for the features the log's report holds"""
    have = {f["feature"] for f in json.loads(collect.frames(log)["report.json"])["features"]}
    t = expect.parse(os.path.join(SCRIPTS, "expect.table"))
    rows = [(f, o) for f, o in t.expectations(TARGET) if f in have]
    rows += sorted(t.directives(TARGET).items())
    path = os.path.join(d, "expect.table")
    with open(path, "w") as f:
        f.write(f"feature {TARGET}\n" + "".join(f"{a} {b}\n" for a, b in rows))
    return path


class Run:
    """collect and judge one console log (and the panicking probes' guest logs), as
    hptool run and check.sh do; mutate(rdir) changes the results dir between the two"""

    def __init__(self, console, guests=None, mutate=None):
        d = tempfile.mkdtemp(prefix="hp-mut-")
        try:
            rdir = os.path.join(d, TARGET)
            os.makedirs(rdir)
            with open(os.path.join(rdir, "console.log"), "w") as f:
                f.write(console)
            for name, text in (guests or {}).items():
                with open(os.path.join(rdir, f"console-{name}.log"), "w") as f:
                    f.write(text)
            env = {k: v for k, v in os.environ.items() if k != "PANIC_GUESTS"}
            c = subprocess.run([*HPTOOL, "collect", rdir, TARGET],
                               capture_output=True, text=True, env=env)
            if mutate:
                mutate(rdir)
            j = subprocess.run([*HPTOOL, "judge", rdir,
                                table(LOG, d), TARGET], capture_output=True, text=True, env=env)
        finally:
            shutil.rmtree(d)
        self.collect_rc, self.problems = c.returncode, [
            ln.split(": ", 2)[-1] for ln in c.stderr.splitlines() if ln.startswith("hardprobe: ")]
        self.rc, self.out, self.err = j.returncode, j.stdout, j.stderr
        self.fails = [ln[len("check "):] for ln in j.stdout.splitlines()
                      if re.match(r"^check \S+ \S+: FAIL", ln)]

    def failed(self, *whats, only=False):
        """the judge failed (exit 1 and FAIL lines the tally counts) in the checks WHATS
        (only: in those and no other: the mutation was caught for the reason named)"""
        names = {f.split(": FAIL", 1)[0] for f in self.fails}
        want = {f"{TARGET} {w}" for w in whats}
        return self.rc != 0 and want <= names and (not only or names == want)

    def say(self):
        return (f"judge rc {self.rc}: " + ("; ".join(f[:110] for f in self.fails[:2]) or "no FAIL") +
                (f" (+{len(self.fails) - 2})" if len(self.fails) > 2 else "") +
                (f"; collect: {self.problems[0][:110]}" if self.problems else ""))


def variants(name, cases):
    """one check line for a mutation: every variant caught; the detail says what failed"""
    ok, detail = True, []
    for label, (caught, say) in cases.items():
        ok &= caught
        detail.append(f"{label}: {'' if caught else 'NOT CAUGHT: '}{say}")
    check(name, ok, " | ".join(detail))


# 1. a host test program that raises: `checked` (hptool/check.py's Log) adds a failure of its
# own, and the check it never printed fails by the manifest
THROWAWAY = """import sys
print("check host throwaway-first: ok")
if sys.argv[1] == "raise":
    raise RuntimeError("a bug in the test")
print("check host throwaway-second: ok")
"""


def host_test(mode, manifest):
    with tempfile.TemporaryDirectory(prefix="hp-mut-") as d:
        prog, man = os.path.join(d, "throwaway.py"), os.path.join(d, "manifest")
        with open(prog, "w") as f:
            f.write(THROWAWAY)
        with open(man, "w") as f:
            f.write("host throwaway-first\nhost throwaway-second\n")
        code = ("import sys; from hptool.check import Log; "
                "Log(sys.argv[1]).checked('host throwaway', ['python3', sys.argv[2], sys.argv[3]])")
        log = os.path.join(d, "check.log")
        env = dict(os.environ, PYTHONPATH=SCRIPTS)
        c = subprocess.run([sys.executable, "-c", code, log, prog, mode], capture_output=True, text=True,
                           env=env)
        p = subprocess.run([*HPTOOL, "tally", log, *(["--manifest", man] if manifest else [])],
                           capture_output=True, text=True, env=env)
    lines = (c.stdout + p.stdout).strip().splitlines()
    return p.returncode, "; ".join([ln for ln in lines if ": FAIL" in ln] + lines[-1:])


STAGES = """import sys
from hptool.check import Log, run_stages
def first(log):
    log("check host stage-first: ok")
def broken(log):
    log("check host stage-broken-before: ok")
    raise OSError(2, "a results file the stage took for granted is missing")
def last(log):
    log("check host stage-last: ok")
run_stages(Log(sys.argv[1]), (first, broken, last))
"""


def check_stages():
    """make check's stages: one that raises is a failure of its own, and the next still runs"""
    with tempfile.TemporaryDirectory(prefix="hp-mut-") as d:
        log = os.path.join(d, "check.log")
        c = subprocess.run([sys.executable, "-c", STAGES, log], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=SCRIPTS))
        p = subprocess.run([*HPTOOL, "tally", log], capture_output=True, text=True)
    out = c.stdout.splitlines()
    check("stage-raises", c.returncode == 0 and p.returncode == 1 and
          "check stage-broken: FAIL (FileNotFoundError: [Errno 2] a results file the stage took for granted "
          "is missing)" in out and out[-1] == "check host stage-last: ok" and p.stdout.strip().endswith(
              "3 passed, 1 failed"), f"{out}; {p.stdout.strip()}")


def host_tests():
    rc, out = host_test("pass", True)
    base = rc == 0 and out.endswith("2 passed, 0 failed")
    check("baseline-host-test", base, f"tally rc {rc}: {out}")
    rc, out = host_test("raise", False)
    rc2, out2 = host_test("raise", True)
    variants("host-test-raises", {
        "exit": (rc == 1 and "throwaway-exit: FAIL (exited 1" in out, f"tally rc {rc}: {out}"),
        "manifest": (rc2 == 1 and "throwaway-second: FAIL (did not run" in out2 and
                     out2.endswith("1 passed, 2 failed"), f"tally rc {rc2}: {out2}")})
    return base


def main():
    base_host = host_tests()
    check_stages()
    log = baseline()
    guests = {"stack_canary.smash": SMASH}
    b = Run(log, guests)
    base = b.collect_rc == 0 and b.rc == 0 and not b.fails and " ok" in b.out
    n = len(re.findall(r"^check .*: ok", b.out, re.M))
    check("baseline", base, f"collect rc {b.collect_rc}, judge rc {b.rc}: {n} checks ok" +
          (f"; {b.say()}" if not base else ""))

    # 2. the judge meets a report it cannot read: a FAIL, never a crash or an exit 0
    def edit_json(fn):
        def mutate(rdir):
            p = os.path.join(rdir, "report.json")
            text = collect.read(p)
            with open(p, "w") as f:
                f.write(fn(text))
        return mutate

    def drop(key, where):
        def fn(text):
            data = json.loads(text)
            for feat in data["features"]:
                if where == "feature":
                    feat.pop(key)
                    break
                for p in feat["probes"]:
                    if p["probe"] == where:
                        p.pop(key)
            return json.dumps(data)
        return fn

    cut = Run(log, guests, edit_json(lambda t: t[:len(t) // 2]))
    noev = Run(log, guests, edit_json(drop("evidence", "stack_init.u64")))
    nofeat = Run(log, guests, edit_json(drop("feature", "feature")))
    variants("judge-exception", {
        "report.json cut": (cut.failed("json"), cut.say()),
        "a probe without evidence": (noev.failed("evidence-stack_init", only=True), noev.say()),
        "a feature without its name": (nofeat.failed("judge", only=True), nofeat.say())})

    # 3. the console cut inside a frame: the guest stopped, or a frame's end line was lost
    i = log.index("----- hardprobe:file dmesg.txt")
    j = log.index("\n", (i + log.index("----- hardprobe:end dmesg.txt")) // 2) + 1
    r1 = Run(log[:j], guests)
    r2 = Run(log.replace("----- hardprobe:end dmesg.txt -----\n", "", 1), guests)
    i = log.index("----- hardprobe:file report.json")
    r3 = Run(log[:log.index("\n", i + 200)] + "\n", guests)
    variants("frame-cut", {
        "cut in dmesg.txt": (r1.failed("guest-finished") and r1.collect_rc != 0, r1.say()),
        "dmesg.txt end line lost": (r2.failed("guest-finished") and r2.collect_rc != 0, r2.say()),
        "cut in report.json": (r3.failed("guest-finished") and r3.failed("json"), r3.say())})

    # 4. the guest's end marker lost
    end = re.search(r"^===== hardprobe:end \S+ =====\n", log, re.M).group(0)
    r = Run(log.replace(end, ""), guests)
    variants("end-marker-lost", {"no end marker": (r.failed("guest-finished") and r.collect_rc != 0,
                                                    r.say())})

    # 5. a panic during the fuzz run: it runs before any frame is printed; the kernel stops
    begin = log.index("\n", log.index("===== hardprobe:begin")) + 1
    panic = ("[   61.250000] Oops: general protection fault, probably for non-canonical address\n"
             "[   61.260000] Kernel panic - not syncing: Fatal exception\n"
             "[   61.270000] ---[ end Kernel panic - not syncing: Fatal exception ]---\n")
    r = Run(log[:begin] + panic, guests)
    variants("fuzz-panic", {"panic in the fuzz": (
        r.failed("guest-finished") and "Kernel panic" in r.out and r.collect_rc != 0 and
        any("Kernel panic" in p for p in r.problems), r.say())})

    # 6. a panicking probe missing from probes.txt: hptool run gives it no guest of its own
    r = Run(edit_frame(log, "probes.txt",
                       lambda t: "".join(ln for ln in t.splitlines(True)
                                         if not ln.startswith("stack_canary.smash "))))
    variants("panic-probe-not-listed", {"stack_canary.smash not in probes.txt": (
        r.failed("panic-guests", "outcome-stack_canary", only=True) and r.collect_rc != 0, r.say())})

    # 7. a probe expected protected turned unsupported, as the module would report it: the
    # feature's outcome by the module's rules, and the kselftest runner's line alike; and
    # the report alone (the runner still sees it protected). Not caught: one probe of a
    # feature whose other probes stay protected, turned unsupported in the report and the
    # runner alike (the table expects features, and some such probes are unsupported by
    # design: stack_init.union_partial)
    def unsupported(probe, selftest_too, to="unsupported", chance=None):
        why = "the kernel lacks what the probe needs"

        def fn(text):
            data = json.loads(text)
            rules = outcome.rules_of(data)
            for feat in data["features"]:
                for p in feat["probes"]:
                    if p["probe"] == probe:
                        p["outcome"], p["evidence"] = to, why
                        if chance is not None:
                            p["chance"] = chance
                        feat["outcome"] = outcome.feature_outcome(rules, feat["probes"])
                        feat["ktap"] = outcome.ktap_of(rules, feat["outcome"], False, feat["configured_bool"])
            return json.dumps(data)
        out = edit_frame(log, "report.json", fn)
        if selftest_too:
            out = edit_frame(out, "selftest.ktap", lambda t: re.sub(
                rf"^# {re.escape(probe)}: protected: .*\n(ok \d+ {re.escape(probe)})$",
                rf"# {probe}: {to}: {why}\n# {probe}: skip: {to}\n\1 # SKIP", t,
                flags=re.M))
        return out
    feature = "heap_init_alloc"
    r1 = Run(unsupported("heap_init_alloc.slab", True), guests)
    r2 = Run(unsupported("stack_init.u64", False), guests)
    variants("probe-unsupported", {
        "heap_init_alloc.slab (report and runner)": (r1.failed(f"outcome-{feature}", only=True), r1.say()),
        "stack_init.u64 (report only)": (r2.failed("selftest-agrees-with-report", only=True), r2.say())})

    # 7b. the same probe inconclusive: by chance (report.json "chance": a random draw of
    # that boot, as KASLR's first slot), the judge skips the feature's outcome and passes
    # nothing; without "chance", the failed control fails the outcome
    r1 = Run(unsupported("heap_init_alloc.slab", True, "inconclusive", True), guests)
    r2 = Run(unsupported("heap_init_alloc.slab", True, "inconclusive", False), guests)
    skip = re.search(rf"^check {TARGET} outcome-{feature}: SKIP \(want protected, got inconclusive by chance",
                     r1.out, re.M)
    variants("probe-inconclusive", {
        "by chance: skipped, not passed": (r1.rc == 0 and not r1.fails and bool(skip) and
                                           f"outcome-{feature}: ok" not in r1.out, r1.say()),
        "a failed control": (r2.failed(f"outcome-{feature}", only=True), r2.say())})

    # 8. dmesg -C between a catch and the read: the trust run's check of it not ok, or
    # its result missing (the program stopped there, or the line was lost)
    def trust(fn):
        return edit_frame(log, "trust.ktap", fn)
    notok = trust(lambda t: re.sub(
        rf"^# {DMESG_CLEAR}: .*\nok (\d+) {DMESG_CLEAR}$",
        rf"# {DMESG_CLEAR}: writer killed by signal 9; after dmesg -c run reads: nx.kmalloc error: "
        rf"no verdict\nnot ok \1 {DMESG_CLEAR}", t, flags=re.M))
    lost = trust(lambda t: re.sub(rf"^# {DMESG_CLEAR}: .*\nok \d+ {DMESG_CLEAR}\n", "", t, flags=re.M))
    stopped = trust(lambda t: t[:t.index(f"# {DMESG_CLEAR}:")])
    r1, r2, r3 = Run(notok, guests), Run(lost, guests), Run(stopped, guests)
    variants("dmesg-clear", {
        "not ok": (notok != log and r1.failed("trust", only=True), r1.say()),
        "result line lost": (lost != log and r2.failed("trust", only=True), r2.say()),
        "trust stopped before it": (r3.failed("trust", only=True), r3.say())})

    # the stand-in trust names are hardprobe_trust.c's
    src = collect.read(os.path.join(SELFTESTS, "hardprobe_trust.c"))
    gone = [n for n in TRUST if f'"{n}"' not in src]
    if gone:
        check("trust-names", False, f"not in hardprobe_trust.c: {' '.join(gone)}")
    return 0 if all(results) and base and base_host else 1


if __name__ == "__main__":
    sys.exit(main())
