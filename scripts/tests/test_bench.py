#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the bench's collector and judge on recorded guest logs.

Prints one "check host <name>: ok|FAIL" line per test; exit 1 on any FAIL.
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
sys.path.insert(0, SCRIPTS)
# the host tool as make check runs it (its subcommands import hptool from SCRIPTS)
os.environ["PYTHONPATH"] = SCRIPTS + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
HPTOOL = [sys.executable, "-m", "hptool"]
from hptool import collect  # noqa: E402
from hptool import kconfig, ktap  # noqa: E402

LOG = open(os.path.join(HERE, "recorded-x86_64-gcc.log"), errors="replace").read()
SMASH = open(os.path.join(HERE, "recorded-x86_64-gcc-smash.log"), errors="replace").read()
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


def run_collect(console, extra=None):
    d = tempfile.mkdtemp(prefix="hp-test-")
    rdir = os.path.join(d, "x86_64-gcc")
    os.makedirs(rdir)
    with open(os.path.join(rdir, "console.log"), "w") as f:
        f.write(console)
    for name, text in (extra or {}).items():
        with open(os.path.join(rdir, name), "w") as f:
            f.write(text)
    p = subprocess.run([*HPTOOL, "collect",
                        rdir, "x86_64-gcc"], capture_output=True, text=True)
    return d, rdir, p


def kaslr_console(outcome, evidence):
    return ("[    0.000000] Linux version 6.12.118\n[    5.164361] hardprobe: one-probe guest\n"
            f"[    5.776185] hardprobe: result kaslr.text {outcome}\n"
            # the guest's "cat run": the evidence is not in the kernel log
            f"kaslr.text {outcome} {evidence}\r\n")


def test_kaslr_entropy():
    """scripts/hptool/kaslr_entropy.py: the text moved between boots, or it did not"""
    moved = "the kernel's text starts {} MiB off its link address; control: kallsyms names _printk"
    fixed0 = "the kernel's text starts at its link address 0xffffffff81000000 (offset 0)"
    cases = {
        "moved": ([kaslr_console("protected", moved.format(m)) for m in (190, 222, 190, 304)], 0,
                  "3 distinct offsets"),
        "same-offset": ([kaslr_console("protected", moved.format(190))] * 3, 1, "same offset every boot"),
        "nokaslr": ([kaslr_console("vulnerable", fixed0)] * 3, 1, "same offset every boot"),
        "one-boot-died": ([kaslr_console("protected", moved.format(190)), "Kernel panic\n",
                           kaslr_console("protected", moved.format(222))], 1, "did not judge"),
        # a randomized boot that drew the link address (inconclusive) is offset 0, judged
        "drew-slot-0": ([kaslr_console("inconclusive", fixed0 + ", yet the decompressor "
                                       "randomized this boot"),
                         kaslr_console("protected", moved.format(222))], 0, "2 distinct offsets"),
    }
    for name, (consoles, want_rc, want) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, text in enumerate(consoles, 1):
                paths.append(os.path.join(d, f"console-kaslr-{i}.log"))
                with open(paths[-1], "w") as f:
                    f.write(text)
            p = subprocess.run([*HPTOOL, "kaslr-entropy", "t"] + paths,
                               capture_output=True, text=True)
        last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr
        check(f"kaslr-entropy-{name}", p.returncode == want_rc and want in p.stdout,
              f"rc {p.returncode}: {last}")


def main():
    test_kaslr_entropy()
    files = collect.frames(LOG)
    check("frames-found", {"report.txt", "report.json", "selftest.ktap", "kunit.ktap",
                           "probes.txt", "dmesg.txt"} <= set(files), ",".join(sorted(files)))
    check("json-parses", json.loads(files["report.json"])["schema"] == 1)

    # a complete run: the panicking probe's own guest log is merged into the model
    d, rdir, p = run_collect(LOG, {"console-stack_canary.smash.log": SMASH})
    data = json.load(open(os.path.join(rdir, "report.json")))
    canary = [f for f in data["features"] if f["feature"] == "stack_canary"][0]
    smash = [x for x in canary["probes"] if x["probe"] == "stack_canary.smash"][0]
    check("panic-merged", p.returncode == 0 and smash["outcome"] == "protected" and
          "Kernel stack is corrupted" in smash["evidence"], smash["outcome"])
    # the text report's first table shows the final outcome, as report.json does
    text = open(os.path.join(rdir, "report.txt")).read()
    row = re.search(r"^stack_canary +(\S+) +(\S+) +(.*)$", text.split("\nDETAIL\n")[0], re.M)
    check("report-txt-final-outcomes", row is not None and
          (row.group(1), row.group(2)) == (canary["outcome"], canary["ktap"]) and
          "stack_canary.smash protected" in row.group(3) and
          re.search(r"^stack_canary: " + re.escape(canary["outcome"]) + "$", text, re.M),
          row.group(0) if row else "no stack_canary row")
    shutil.rmtree(d)

    # the panicking probe's guest never said anything: error, not protected
    d, rdir, p = run_collect(LOG, {"console-stack_canary.smash.log": "TIMEOUT\n"})
    data = json.load(open(os.path.join(rdir, "report.json")))
    canary = [f for f in data["features"] if f["feature"] == "stack_canary"][0]
    check("panic-silent-is-error", canary["outcome"] == "error" and canary["ktap"] == "error",
          canary["outcome"])
    shutil.rmtree(d)

    # the guest hung half way: partial results kept, the run fails, the judge says why
    cut = LOG[:LOG.index("----- hardprobe:file kunit.ktap")] + "TIMEOUT after 600 s\n"
    d, rdir, p = run_collect(cut)
    check("timeout-fails-run", p.returncode != 0 and "TIMEOUT" in p.stderr, p.stderr.strip())
    check("timeout-keeps-partial", os.path.exists(os.path.join(rdir, "report.json")))
    j = subprocess.run([*HPTOOL, "judge", rdir,
                        os.path.join(SCRIPTS, "expect.table"), "x86_64-gcc"],
                       capture_output=True, text=True)
    check("timeout-judged-fail", j.returncode != 0 and "guest-finished: FAIL" in j.stdout)
    shutil.rmtree(d)

    # the kernel died before user space: the run fails and says why, in the kernel's words
    early = ("[    0.000000] Booting Linux\n"
             "[    0.000000] BUG: KASAN: slab-out-of-bounds in __kasan_slab_alloc+0xe4/0x100\n"
             "[    0.100000] BUG: KASAN: double-free in put_fs_context+0xc8/0x17c\n"
             "[   13.876800] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b\n")
    d, rdir, p = run_collect(early)
    check("early-death-explained", p.returncode != 0 and
          "reported 2 bug(s) before hardprobe loaded, the first: BUG: KASAN: slab-out-of-bounds" in p.stderr
          and "Attempted to kill init" in p.stderr, p.stderr.strip().replace("\n", " | "))
    shutil.rmtree(d)

    # a "not ok" in the module's KTAP is a failure of the judge
    bad = LOG.replace("ok 1 stack_init\n", "not ok 1 stack_init\n", 1)
    d, rdir, p = run_collect(bad)
    j = subprocess.run([*HPTOOL, "judge", rdir,
                        os.path.join(SCRIPTS, "expect.table"), "x86_64-gcc"],
                       capture_output=True, text=True)
    check("not-ok-judged-fail", j.returncode != 0 and "report-ktap: FAIL" in j.stdout)
    shutil.rmtree(d)

    # a report of an older module (no "rules"): the collector says so and fails, and the
    # judge fails the rules check; neither falls back to a copy of the rules
    older = re.sub(r'\n"rules":\{.*?\},(\r?\n"features")', r"\n\1", LOG, count=1, flags=re.S)
    d, rdir, p = run_collect(older, {"console-stack_canary.smash.log": SMASH})
    j = subprocess.run([*HPTOOL, "judge", rdir,
                        os.path.join(SCRIPTS, "expect.table"), "x86_64-gcc"],
                       capture_output=True, text=True)
    check("no-rules-refused", older != LOG and p.returncode != 0 and 'has no "rules"' in p.stderr
          and j.returncode != 0 and "json-rules: FAIL" in j.stdout, p.stderr.strip()[:100])
    shutil.rmtree(d)

    # several KUnit suite documents become one KTAP document
    raw = files["kunit.ktap"]
    merged = collect.merge_ktap(raw)
    plan = int(merged.splitlines()[1][3:])
    tops = [l for l in merged.splitlines() if l.startswith(("ok ", "not ok "))]
    check("kunit-merged", merged.startswith("KTAP version 1\n1..") and
          plan == raw.count("# Subtest: hardprobe_") == len(tops) and
          [int(re.match(r"^(?:not )?ok (\d+)", l).group(1)) for l in tops] ==
          list(range(1, plan + 1)),
          f"plan {plan}, {len(tops)} suites")
    # 6.1's debugfs keeps only the last parameter's result line of a parameterised test:
    # such a document is flagged, and the run is read from the kernel log instead
    # (the lines below as 6.1.192 printed them, one suite, the probes' messages between)
    debugfs61 = ("KTAP version 1\n# Subtest: hardprobe_randstruct\n1..1\n"
                 "    KTAP version 1\n    # Subtest: probe_matches_config\n"
                 "    # probe_matches_config: randstruct.seed_match: unsupported: no seed\n"
                 "        ok 2 randstruct.seed_match # SKIP unsupported: no seed\n"
                 "    # probe_matches_config: pass:1 fail:0 skip:1 total:2\n"
                 "    ok 1 probe_matches_config\nok 1 hardprobe_randstruct\n")
    log61 = ("[   10.83] hardprobe-kunit: insmod\n[   10.84]     KTAP version 1\n"
             "[   10.84]     # Subtest: hardprobe_randstruct\n[   10.84]     1..1\n"
             "[   10.84]         KTAP version 1\n[   10.84]         # Subtest: probe_matches_config\n"
             "[   10.85] hardprobe: randstruct [3]: struct order\n"
             "[   10.85]     # probe_matches_config: randstruct.struct_order: vulnerable: declaration order\n"
             "[   10.85]         ok 1 randstruct.struct_order\n"
             "[   10.86] ================================================================================\n"
             "[   10.86]  dump_stack_lvl+0x1d/0x31\n"
             "[   10.86]         ok 2 randstruct.seed_match # SKIP unsupported: no seed\n"
             "[   10.86]     # probe_matches_config: pass:1 fail:0 skip:1 total:2\n"
             "[   10.86]     ok 1 probe_matches_config\n[   10.86] ok 1 hardprobe_randstruct\n"
             "[   10.87] hardprobe-kunit: read\n[   10.88]     ok 9 not_ours\n")
    fromlog = collect.kunit_from_log(log61)
    try:
        ok_n, bad_n, _ = ktap.counts(fromlog)
    except ktap.ParseError as e:
        ok_n, bad_n = 0, str(e)
    check("kunit-6.1-incomplete-debugfs-read-from-log",
          collect.kunit_incomplete(debugfs61) == ["probe_matches_config (1 of 2 results)"]
          and not collect.kunit_incomplete(fromlog) and not collect.kunit_incomplete(raw)
          and fromlog.startswith("KTAP version 1\n1..1\n") and "dump_stack" not in fromlog
          and "not_ours" not in fromlog and ok_n == 4 and bad_n == 0,
          f"{ok_n} ok, {bad_n} not ok from the log")
    # a catch is the kernel's line: a probe's own result line quoting the signature is not one
    own = ("hardprobe: one-probe guest: stack_canary.smash\n"
           "[    3.100000] hardprobe: result stack_canary.smash vulnerable: no "
           "stack-protector: Kernel stack is corrupted in: seen\n"
           "hardprobe: survived stack_canary.smash\n")
    got = collect.judge_panic(own, "stack_canary.smash", "stack-protector: Kernel stack is corrupted")
    check("panic-own-line-not-a-catch", got[0] == "vulnerable", str(got))
    lkdtm_tests()
    return 0 if all(results) else 1


# the lines of tools/testing/selftests/lkdtm/tests.txt (6.12) that the cases below use, and
# each form the file has: skipped with and without a reason, repeat:N, no expected text
TESTS_TXT = """#PANIC
#LOOP Hangs the system
BUG kernel BUG at
EXCEPTION
ARRAY_BOUNDS call trace:|UBSAN: array-index-out-of-bounds
REPORT_STACK_CANARY repeat:2 ok: stack canaries differ
WRITE_RO
"""


def lkdtm_report(records, release="6.12.118"):
    """a report.json with the module's "lkdtm" records: {feature or feature.probe: [tests]}
    (every other feature and probe of it an empty list)"""
    feats = {}
    for name, tests in records.items():
        f = feats.setdefault(name.split(".", 1)[0], {"feature": name.split(".", 1)[0], "outcome": "protected",
                                                     "lkdtm": [], "probes": []})
        if "." in name:
            f["probes"].append({"probe": name, "outcome": "protected", "lkdtm": tests})
        else:
            f["lkdtm"] = tests
    return {"kernel": {"release": release}, "features": list(feats.values())}


def lkdtm_case(runs, outcome, records=None, release="6.12.118"):
    """hptool lkdtm-compare on a report whose only record pairs stack_canary with
    REPORT_STACK_CANARY (or @records) and a synthetic LKDTM console."""
    d = tempfile.mkdtemp(prefix="hp-test-")
    rdir = os.path.join(d, "arm64-clang")
    os.makedirs(rdir)
    msgs = []
    for i, lines in enumerate(runs):
        msgs.append(f"[    1.{i:06d}] hardprobe-lkdtm: begin REPORT_STACK_CANARY")
        msgs += [f"[    1.{i:06d}] lkdtm: {x}" for x in lines]
        msgs.append(f"[    1.{i:06d}] hardprobe-lkdtm: end REPORT_STACK_CANARY rc=0")
    with open(os.path.join(rdir, "console-lkdtm.log"), "w") as f:
        f.write("----- hardprobe:file lkdtm-dmesg.txt -----\n" + "\n".join(msgs) +
                "\n----- hardprobe:end lkdtm-dmesg.txt -----\n")
    report = lkdtm_report(records or {"stack_canary": ["REPORT_STACK_CANARY"]}, release)
    for f in report["features"]:
        f["outcome"] = outcome
    with open(os.path.join(rdir, "report.json"), "w") as f:
        json.dump(report, f)
    tt = os.path.join(d, "tests.txt")
    with open(tt, "w") as f:
        f.write(TESTS_TXT)
    p = subprocess.run([*HPTOOL, "lkdtm-compare", rdir, tt], capture_output=True, text=True)
    shutil.rmtree(d)
    return p


def lkdtm_tests_txt():
    """LKDTM's tests.txt read as its run.sh reads it; the guest's list from it and the
    module's records."""
    from hptool import lkdtm_compare
    t = lkdtm_compare.lkdtm_tests(TESTS_TXT)
    good = (t["PANIC"] == {"skip": "crashes entire system", "repeat": 0, "expect": None} and
            t["LOOP"]["skip"] == "Hangs the system" and
            t["BUG"] == {"skip": None, "repeat": 1, "expect": "kernel BUG at"} and
            t["EXCEPTION"]["expect"] == "call trace:" and
            t["REPORT_STACK_CANARY"] == {"skip": None, "repeat": 2,
                                         "expect": "ok: stack canaries differ"})
    check("lkdtm-tests-txt-parse", good, "" if good else str(t))
    ok = [lkdtm_compare.expected(t["ARRAY_BOUNDS"]["expect"], x) for x in
          ("UBSAN: array-index-out-of-bounds in x.c:1", "Call Trace:", "lkdtm: FAIL")]
    check("lkdtm-tests-txt-expect-is-ere", ok == [True, True, False], str(ok))
    # the records in the module's order (a feature's own before its probes'), each test
    # once, a skipped or unknown one not run, LAST (memory-corrupting when not caught) last
    rows = lkdtm_compare.records(lkdtm_report({
        "rodata": ["WRITE_RO"], "x.a": ["SLAB_LINEAR_OVERFLOW", "?PANIC"],
        "a.b": ["REPORT_STACK_CANARY"], "b.c": ["REPORT_STACK_CANARY", "NOT_IN_TESTS_TXT"]}))
    got = lkdtm_compare.guest_list(rows, lkdtm_compare.all_tests(TESTS_TXT, "SLAB_LINEAR_OVERFLOW x\n"))
    check("lkdtm-guest-list", got == ["WRITE_RO 1", "REPORT_STACK_CANARY 2", "SLAB_LINEAR_OVERFLOW 1"] and
          rows[2] == ("x.a", "PANIC", True, None), f"{got} {rows}")
    # "TEST@7.0": the first kernel version with the test; any other shape is refused, and
    # so is a report without the records (an older module)
    bad, old = [], False
    for rec in ({"a.b": ["PTR_BOUNDS@7"]}, {"a.b": ["ptr_bounds"]}, {"a.b": "PTR_BOUNDS"}):
        try:
            lkdtm_compare.records(lkdtm_report(rec))
            bad.append(f"{rec} accepted")
        except ValueError:
            pass
    try:
        lkdtm_compare.records({"features": [{"feature": "a", "probes": []}]})
        bad.append("a report without records accepted")
    except ValueError as e:
        old = "older" in str(e)
    since = lkdtm_compare.records(lkdtm_report({"a.b": ["PTR_BOUNDS@7.0"]}))
    check("lkdtm-records-since", since == [("a.b", "PTR_BOUNDS", False, (7, 0))] and not bad and old,
          f"{since} {bad}")
    # a test tests.txt lacks comes from the unlisted file; one it has (even marked "#")
    # is never overridden
    both = lkdtm_compare.all_tests(TESTS_TXT, "FAM_BOUNDS call trace:|UBSAN: x\n"
                                   "PANIC oops\nWRITE_RO never\n")
    got = lkdtm_compare.guest_list(lkdtm_compare.records(lkdtm_report(
        {"a": ["FAM_BOUNDS"], "b": ["PANIC"], "c": ["WRITE_RO"]})), both)
    check("lkdtm-unlisted", got == ["FAM_BOUNDS 1", "WRITE_RO 1"] and
          both["FAM_BOUNDS"].get("unlisted") and both["PANIC"]["skip"] and
          both["WRITE_RO"]["expect"] == "call trace:", f"{got} {both.get('FAM_BOUNDS')}")
    # "feature.probe" compares that probe's outcome, "feature" the feature's
    report = {"usercopy": {"outcome": "protected", "probes": [
        {"probe": "usercopy.stack_frame", "outcome": "vulnerable"}]}}
    got = [lkdtm_compare.hardprobe_outcome(report, x) for x in
           ("usercopy", "usercopy.stack_frame", "usercopy.nope", "nx.data")]
    check("lkdtm-probe-outcome", got == ["protected", "vulnerable", "missing", "missing"],
          str(got))
    # the kernel source's own files: LKDTM's tests.txt parses, and scripts/lkdtm/unlisted
    # only adds what it lacks (the module's records are held to this tree's LKDTM by
    # every make lkdtm: lkdtm-unknown-test-fails below)
    src = kconfig.ksrc()[0]
    path = os.path.join(src, "tools/testing/selftests/lkdtm/tests.txt")
    if not os.path.isfile(path):
        check("lkdtm-tests-txt-kernel", False, f"no {path}")
        return
    t = lkdtm_compare.lkdtm_tests(collect.read(path))
    n = len(t)
    t = lkdtm_compare.all_tests(collect.read(path),
                                collect.read(os.path.join(SCRIPTS, "lkdtm", "unlisted")))
    shadow = [x for x in lkdtm_compare.lkdtm_tests(
        collect.read(os.path.join(SCRIPTS, "lkdtm", "unlisted"))) if not t[x].get("unlisted")]
    check("lkdtm-tests-txt-kernel", n > 50 and not shadow and t["REPORT_STACK_CANARY"]["repeat"] == 2,
          f"{n} tests in {path}" + (f"; unlisted but in tests.txt: {shadow}" if shadow else ""))


def lkdtm_tests():
    lkdtm_tests_txt()
    rec = "Recorded stack canary for pid 34 at offset 9"
    moved = "ERROR: canary offset changed from 9 to 1!?"
    ok = "ok: stack canaries differ between pid 36 and pid 37 at offset 1."
    same = "FAIL: canary identical for pid 36 and pid 37 at offset 1!"
    # LKDTM's own experiment failed every time: no verdict, not a disagreement
    p = lkdtm_case([[rec], [moved], [rec], [moved], [rec], [moved]], "protected")
    check("lkdtm-error-inconclusive", p.returncode == 0 and "inconclusive" in p.stdout and
          "after 6 runs" in p.stdout, p.stdout.strip().splitlines()[-1])
    # the retried pair caught it: agreement
    p = lkdtm_case([[rec], [moved], [rec], [ok]], "protected")
    check("lkdtm-retry-agrees", p.returncode == 0 and " yes " in p.stdout,
          p.stdout.strip().splitlines()[-1])
    # identical canaries while hardprobe says protected: a disagreement, exit 1
    p = lkdtm_case([[rec], [same]], "protected")
    check("lkdtm-disagreement-fails", p.returncode == 1 and " NO " in p.stdout,
          p.stdout.strip().splitlines()[-1])
    # a record naming a test this kernel's LKDTM lacks fails the run (a misspelling, a
    # rename), unless it names a later first version than the kernel's
    recs = {"stack_canary": ["REPORT_STACK_CANARY"], "stack_canary.x": ["REPORT_STACK_CANRY"]}
    p = lkdtm_case([[rec], [ok]], "protected", recs)
    later = lkdtm_case([[rec], [ok]], "protected", {"stack_canary": ["REPORT_STACK_CANARY"],
                                                    "stack_canary.x": ["PTR_BOUNDS@7.0"]})
    now = lkdtm_case([[rec], [ok]], "protected", {"stack_canary": ["REPORT_STACK_CANARY"],
                                                  "stack_canary.x": ["PTR_BOUNDS@7.0"]}, "7.1.5")
    check("lkdtm-unknown-test-fails", p.returncode == 1 and "stack_canary.x: REPORT_STACK_CANRY" in p.stdout and
          later.returncode == 0 and now.returncode == 1,
          f"{p.returncode} {later.returncode} {now.returncode}: {p.stdout.strip().splitlines()[-1]}")


if __name__ == "__main__":
    sys.exit(main())
