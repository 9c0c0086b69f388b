#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the join with kernel-hardening-checker (k-h-c): the k-h-c checks each
feature's record names (report.json "khc", the module's HP_FEATURE(.khc = ...)) and each
kselftest line's (the third column of selftests/hardprobe/hp_checks.def) against k-h-c's
check list, hptool collect's "verifies", hptool khc-join on a recorded k-h-c JSON, a
recorded report.json and the selftest.ktap beside it (scripts/tests/khc/), checks.txt
against k-h-c v0.6.17.1's own lists and hptool khc-join on its real outputs (at $KHC_LISTS
or <repo>/../shared/khc; skipped without them), a renamed Kconfig option joined under
either name, and hptool khc-coverage's figures recounted here. The judge's khc-records
check holds a real run's records to checks.txt (make check, every judged target).

The expected rows are computed here from the recorded files and hp_checks.def by a
second, plain reading, never written down. Prints one "check host <name>: ok|FAIL"
line per test; exit 1 on any FAIL.
"""
import copy
import glob
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
DATA = os.path.join(HERE, "khc")
sys.path.insert(0, SCRIPTS)
# the host tool as make check runs it (its subcommands import hptool from SCRIPTS)
os.environ["PYTHONPATH"] = SCRIPTS + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
HPTOOL = [sys.executable, "-m", "hptool"]
from hptool import khc  # noqa: E402

# k-h-c v0.6.17.1's own check lists (-p X86_64|ARM64 -m json) and real -m json runs
# (runs/*.json), kept outside the repository; the tests that read them skip without them
KHC_LISTS = os.environ.get("KHC_LISTS") or os.path.join(os.path.dirname(TOP), "shared", "khc")
KHC_VERSION = "v0.6.17.1"
KHC = os.path.join(DATA, "x86_64-gcc.khc.json")
REPORT = os.path.join(DATA, "x86_64-gcc.report.json")
SELFTEST = os.path.join(DATA, "selftest.ktap")  # beside the report: khc_join reads it there
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}", flush=True)


def skip(name, why):
    print(f"check host {name}: SKIP {why}", flush=True)


def join(khc_json, report, *extra):
    p = subprocess.run([*HPTOOL, "khc-join", khc_json, report,
                        *extra], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def rows(out):
    """{(option, k-h-c verdict): (hardprobe column, flag)} of khc_join's table."""
    got = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(kconfig|cmdline|sysctl)\s+\S+\s+((?:OK|FAIL).*?)\s+(\S+=\S+(?:, \S+=\S+)*|-)"
                     r"(?:\s+(MISMATCH|config-off-but-protected|not covered))?$", line)
        if m:
            got[(m.group(1), m.group(3))] = (m.group(4), m.group(5) or "")
    return got


def plain_options(arch="x86_64"):
    """{feature or kselftest line: [option]} for @arch (None: both) by a plain reading of the
    recorded report's "khc" strings and hp_checks.def's HP_USER_CHECK third column."""
    def keep(words):
        return [o.split("@")[0] for o in words.split()
                if "@" not in o or arch is None or o.endswith("@" + arch)]
    out = {f["feature"]: keep(f["khc"]) for f in json.load(open(REPORT))["features"]}
    text = re.sub(r"/\*.*?\*/", "", open(khc.HP_CHECKS).read(), flags=re.S)
    for m in re.finditer(r'HP_USER_CHECK\("([^"]+)",\s*\w+,\s*"([^"]*)"\)', text):
        out[m.group(1)] = keep(m.group(2))
    return out


def plain_renames():
    """{name: [its other names]} by a plain reading of scripts/kconfig-renames (old new ...)."""
    out = {}
    for line in open(os.path.join(SCRIPTS, "kconfig-renames")):
        w = line.split("#")[0].split()
        if w:
            out.setdefault(w[0], []).append(w[1])
            out.setdefault(w[1], []).append(w[0])
    return out


def plain_ktap(text):
    """{name: outcome} of a selftest.ktap's "# name: outcome: ..." comment lines."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^# (\S+): ([a-z_]+): ", line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2)
    return out


def expected(checks, report, ktap_text=None):
    """the rows khc_join must print, computed from the inputs: the report's features,
    then hp_checks.def's user-space lines (the kselftest lines) with their outcome in the
    selftest.ktap text (not_run without it). not_run, and unsupported on a policy.*
    line or on bpf_jit_harden (no bpf(), no JIT), are no evidence: never a MISMATCH."""
    outcome = {f["feature"]: f["outcome"] for f in report["features"]}
    lines = plain_ktap(ktap_text or "")
    by_opt = {}
    for fid, opts in plain_options().items():
        if fid not in outcome:
            outcome[fid] = lines.get(fid, "not_run")
        for o in opts:
            if fid in outcome:
                by_opt.setdefault(o, []).append(fid)
    other = plain_renames()
    want = {}
    for c in checks:
        fs = []
        for n in [c["option_name"]] + other.get(c["option_name"], []):
            fs += [f for f in by_opt.get(n, []) if f not in fs]
        if not fs:
            continue
        hp = ", ".join(f"{f}={outcome[f]}" for f in fs)
        ok = c["check_result"].startswith("OK")
        seen = [f for f in fs if outcome[f] != "not_run"
                and not ((f.startswith("policy.") or f == "bpf_jit_harden")
                         and outcome[f] == "unsupported")]
        bad = [f for f in seen if outcome[f] != "protected"]
        every = all(outcome[f] == "protected" for f in fs)
        flag = "MISMATCH" if ok and bad else "config-off-but-protected" if not ok and every else ""
        want[(c["option_name"], c["check_result"])] = (hp, flag)
    return want


def test_options():
    user = khc.kselftest_names()
    # the kselftest names as the runner prints them: the recorded selftest.ktap's lines
    ktap = open(SELFTEST).read()
    printed = [n for n in user if re.search(rf"^# {re.escape(n)}: [a-z_]+: ", ktap, re.M)]
    check("khc-records-kselftest-names", printed == user and len(user) > 10,
          f"{len(user)} names from hp_checks.def" + ("" if printed == user else
          f"; not printed in {os.path.basename(SELFTEST)}: {[n for n in user if n not in printed]}"))
    # the table is read as a declaration list of one shape: anything else is an error
    bad_defs = {"code": 'HP_USER_CHECK("a.b", f, "")\nstatic int x;\n',
                "no quotes": 'HP_USER_CHECK(a.b, f, "")\n',
                "twice": 'HP_USER_CHECK("a.b", f, "")\nHP_TEST_CHECK("a.b", g)\n',
                "a user check without its k-h-c column": 'HP_USER_CHECK("a.b", f)\n',
                "a bad option": 'HP_USER_CHECK("a.b", f, "kernel.x@mips")\n',
                "empty": '/* HP_USER_CHECK("a.b", f, "") */\n'}
    refused = []
    for label, text in bad_defs.items():
        with tempfile.NamedTemporaryFile("w", suffix=".def", delete=False) as f:
            f.write(text)
        try:
            khc.kselftest_options(f.name)
        except khc.Error:
            refused.append(label)
        os.unlink(f.name)
    with tempfile.NamedTemporaryFile("w", suffix=".def", delete=False) as f:
        f.write('/* HP_USER_CHECK("in.comment", f, "")\n */\n\nHP_TEST_CHECK("t", g)\n'
                'HP_USER_CHECK("policy.x", h,\n\t      "kernel.x CONFIG_X@arm64")\n')
    good = khc.kselftest_options(f.name)
    os.unlink(f.name)
    check("khc-kselftest-checks-one-shape", refused == list(bad_defs) and good ==
          {"policy.x": [("kernel.x", None), ("CONFIG_X", "arm64")]},
          f"refused: {', '.join(refused)}; read {good}")
    # every k-h-c check the kselftest lines and the recorded report's features name is one
    # of k-h-c's runtime-observable checks: the judge's khc-records check, here on
    # hp_checks.def and the recorded report (make check runs it on every judged target)
    from hptool import judge
    rep = json.load(open(REPORT))
    rep["features"] += [{"feature": n, "khc": " ".join(o + (f"@{a}" if a else "") for o, a in v)}
                        for n, v in khc.kselftest_options().items()]
    got = []
    judge.khc_records(rep, lambda what, ok, detail="": got.append((what, ok, detail)))
    check("khc-records-names-observable", len(got) == 1 and got[0][1], got[0][2] if got else "no check")
    # the control: a misspelled option, and one k-h-c does not rate runtime-observable
    for f in rep["features"]:
        if f["feature"] == "stack_init":
            f["khc"] += " CONFIG_INIT_STACK_ALL_ZEROO CONFIG_DEBUG_WX"
    bad = []
    judge.khc_records(rep, lambda what, ok, detail="": bad.append((what, ok, detail)))
    check("khc-records-control", len(bad) == 1 and not bad[0][1]
          and "CONFIG_INIT_STACK_ALL_ZEROO" in bad[0][2] and "CONFIG_DEBUG_WX" in bad[0][2],
          bad[0][2] if bad else "no check")


def test_collect_verifies():
    """hptool collect writes each feature's "verifies" into the report.json it finalizes."""
    log = open(os.path.join(HERE, "recorded-x86_64-gcc.log")).read()
    # the recorded log predates the records: give its report.json the recorded report's
    # "khc" strings (none for a feature that report lacks), as today's module prints them
    rec = {f["feature"]: f["khc"] for f in json.load(open(REPORT))["features"]}
    i = log.index("----- hardprobe:file report.json -----\n") + len("----- hardprobe:file report.json -----\n")
    j = log.index("----- hardprobe:end report.json -----", i)
    data = json.loads(log[i:j])
    for f in data["features"]:
        f["khc"] = rec.get(f["feature"], "")
    log = log[:i] + json.dumps(data) + "\n" + log[j:]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "console.log"), "w") as f:
            f.write(log)
        p = subprocess.run([*HPTOOL, "collect", d,
                            "x86_64-gcc"], capture_output=True, text=True, timeout=120)
        try:
            rep = json.load(open(os.path.join(d, "report.json")))
        except (OSError, ValueError) as e:
            check("collect-verifies", False, f"no report.json ({e}); {p.stderr[-200:]}")
            return
    opts = plain_options()
    feats = rep.get("features", [])
    wrong = [f["feature"] for f in feats if f.get("verifies") != opts.get(f["feature"], [])]
    check("collect-verifies", feats and not wrong,
          f"{len(feats)} features, {sum(len(f.get('verifies', [])) for f in feats)} options"
          + (f"; wrong: {wrong}" if wrong else ""))


def test_join():
    checks = json.load(open(KHC))
    report = json.load(open(REPORT))
    ktap = open(SELFTEST).read()
    rc, out, err = join(KHC, REPORT)
    got, want = rows(out), expected(checks, report, ktap)
    check("khc-join-rows", got == want and len(want) > 10,
          f"{len(got)} rows" if got == want else
          f"missing {sorted(set(want) - set(got))[:3]}, extra {sorted(set(got) - set(want))[:3]}, "
          f"differ {[k for k in want if k in got and got[k] != want[k]][:3]}")
    # the planted ones: k-h-c OK and the report vulnerable
    planted = [k for k, v in want.items() if v[1] == "MISMATCH" and "=vulnerable" in v[0]]
    check("khc-join-mismatch-flagged", planted and all(got.get(k, ("", ""))[1] == "MISMATCH"
                                                        for k in planted),
          ", ".join(k[0] for k in planted))
    # a kselftest line: k-h-c's kernel.dmesg_restrict OK, the runner's syslog() as uid
    # 65534 allowed (policy.dmesg_restrict vulnerable in selftest.ktap)
    dm = got.get(("kernel.dmesg_restrict", "OK"))
    check("khc-join-kselftest-mismatch", dm == ("policy.dmesg_restrict=vulnerable", "MISMATCH")
          and f"kselftest: {SELFTEST}" in out, str(dm))
    # ... and where they agree: OK beside protected, FAIL beside vulnerable; a FAIL beside
    # protected at the weaker level the line needs; a policy line on a kernel without the
    # mechanism is no evidence against k-h-c's OK, nor is bpf_jit_harden on one without bpf()
    agree = {("fs.protected_symlinks", "OK"): ("policy.protected_symlinks=protected", ""),
             ("fs.protected_fifos", 'FAIL: "0"'): ("policy.protected_fifos=vulnerable", ""),
             ("CONFIG_X86_UMIP", "OK"): ("umip=protected", ""),
             ("vm.mmap_min_addr", 'FAIL: "4096"'): ("null_page=protected", "config-off-but-protected"),
             ("kernel.unprivileged_bpf_disabled", "OK: CONFIG_BPF_SYSCALL is not found"):
                 ("policy.unprivileged_bpf_disabled=unsupported", ""),
             ("net.core.bpf_jit_harden", "OK: CONFIG_BPF_JIT is not found"):
                 ("bpf_jit_harden=unsupported", "")}
    check("khc-join-kselftest-agrees", all(got.get(k) == v for k, v in agree.items()),
          "; ".join(f"{k[0]}: {got.get(k)}" for k, v in agree.items() if got.get(k) != v))
    nmis = sum(1 for v in want.values() if v[1] == "MISMATCH")
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    check("khc-join-summary-exit-1", rc == 1 and summary ==
          f"{len(want)} checks joined, {nmis} mismatches, {len(checks) - len(want)} not covered",
          f"rc {rc}: {summary}")
    # --all: every k-h-c check once, the others marked not covered
    rc2, out2, _ = join(KHC, REPORT, "--all")
    nc = [k for k, v in rows(out2).items() if v[1] == "not covered"]
    check("khc-join-all", rc2 == 1 and len(rows(out2)) == len(checks)
          and len(nc) == len(checks) - len(want), f"{len(nc)} not covered")
    # arch-bound options: arm64.nopauth is in the x86_64 k-h-c run, but pac_ret is
    # unsupported there by construction and must not be joined
    check("khc-join-arch-bound", any(c["option_name"] == "arm64.nopauth" for c in checks)
          and not any(k[0] == "arm64.nopauth" for k in got))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "report.json")
        # no selftest.ktap beside the report: the kselftest lines are not_run, which is no
        # evidence (no MISMATCH), as a feature not run
        json.dump(report, open(path, "w"))
        rc8, out8, _ = join(KHC, path)
        got8, want8 = rows(out8), expected(checks, report)
        users = {k: v for k, v in got8.items()
                 if re.match(r"(policy\.\w+|umip|null_page|bpf_jit_harden)=", v[0])}
        check("khc-join-kselftest-absent", got8 == want8 and users
              and all(v == (v[0], "") and v[0].endswith("=not_run") for v in users.values())
              and "kselftest: no selftest.ktap" in out8
              and sum(v[1] == "MISMATCH" for v in got8.values()) == nmis - 1,
              f"{len(users)} rows not_run, rc {rc8}: {out8.strip().splitlines()[-1]}")
        # a registry feature not run is no evidence either: list_hardening not_run beside
        # k-h-c's CONFIG_LIST_HARDENED OK
        nr = copy.deepcopy(report)
        for f in nr["features"]:
            if f["feature"] == "list_hardening":
                f["outcome"] = "not_run"
        json.dump(nr, open(path, "w"))
        rc10, out10, _ = join(KHC, path)
        lh = rows(out10).get(("CONFIG_LIST_HARDENED", "OK"))
        check("khc-join-feature-not-run", lh == ("list_hardening=not_run", "")
              and rows(out10) == expected(checks, nr), str(lh))
        # the same join from a report that carries "verifies" (as hptool collect writes it)
        shutil.copy(SELFTEST, os.path.join(d, "selftest.ktap"))
        annotated = khc.annotate(copy.deepcopy(report))
        json.dump(annotated, open(path, "w"))
        rc3, out3, _ = join(KHC, path)
        check("khc-join-verifies-key", rc3 == rc and rows(out3) == got)
        # a line's unsupported outside policy.* still counts: umip on a CPU without UMIP
        # beside k-h-c's CONFIG_X86_UMIP OK
        open(os.path.join(d, "selftest.ktap"), "w").write(
            re.sub(r"^# umip: protected: ", "# umip: unsupported: ", ktap, flags=re.M))
        rc9, out9, _ = join(KHC, path)
        um = rows(out9).get(("CONFIG_X86_UMIP", "OK"))
        check("khc-join-kselftest-umip-unsupported", um == ("umip=unsupported", "MISMATCH"), str(um))
        # positive control: the mismatched features and lines fixed, nothing else changed
        fixed = copy.deepcopy(report)
        bad = {f for k, v in want.items() if v[1] == "MISMATCH"
               for f in re.findall(r"([\w.]+)=(?!protected)", v[0])}
        for f in fixed["features"]:
            if f["feature"] in bad:
                f["outcome"] = "protected"
        fixed_ktap = ktap
        for f in bad:
            fixed_ktap = re.sub(rf"^# {re.escape(f)}: [a-z_]+: ", f"# {f}: protected: ", fixed_ktap,
                                flags=re.M)
        json.dump(fixed, open(path, "w"))
        open(os.path.join(d, "selftest.ktap"), "w").write(fixed_ktap)
        rc4, out4, _ = join(KHC, path)
        last = out4.strip().splitlines()[-1]
        check("khc-join-control-exit-0", "policy.dmesg_restrict" in bad and rc4 == 0
              and ", 0 mismatches," in last and "MISMATCH" not in out4, f"rc {rc4}: {last}")
        # bad input: exit 2, the file named, no traceback
        cases = {"truncated": open(KHC).read()[:200], "object": '{"option_name": "CONFIG_BUG"}',
                 "print-mode": json.dumps([{k: v for k, v in checks[0].items()
                                            if not k.startswith("check_result")}])}
        for name, text in cases.items():
            bad_path = os.path.join(d, f"{name}.json")
            open(bad_path, "w").write(text)
            rc5, out5, err5 = join(bad_path, REPORT)
            check(f"khc-join-bad-khc-{name}", rc5 == 2 and bad_path in err5
                  and "Traceback" not in err5 + out5, err5.strip()[:150])
        rc6, _, err6 = join(KHC, KHC)
        check("khc-join-bad-report", rc6 == 2 and KHC in err6 and "Traceback" not in err6,
              err6.strip()[:150])
        rc7, _, err7 = join(KHC, os.path.join(d, "absent.json"))
        check("khc-join-missing-file", rc7 == 2 and "absent.json" in err7 and "Traceback" not in err7,
              err7.strip()[:150])


def khc_lists():
    """({arch: [check]} of k-h-c KHC_VERSION's -p lists in KHC_LISTS, None) or (None, why)."""
    out = {}
    for arch in ("X86_64", "ARM64"):
        path = os.path.join(KHC_LISTS, f"checks-{KHC_VERSION}-{arch}.json")
        try:
            out[arch] = json.load(open(path))
        except OSError as e:
            return None, f"no k-h-c {KHC_VERSION} list at {path} ({e.strerror}; KHC_LISTS=)"
    return out, None


def list_problems(lines, lists):
    """what checks.txt's lines (read_checks) say otherwise than k-h-c's lists: (the lists'
    option names checks.txt lacks, [the lines of one side the other lacks, each marked
    "list:" or "checks.txt:"]); a line is type, name, reason, desired value and arches."""
    keys = {}
    for arch, checks in lists.items():
        for c in checks:
            k = (c["type"], c["option_name"], c["reason"], c["desired_val"])
            keys.setdefault(k, set()).add(arch.lower())
    want = {k + ("both" if len(a) == 2 else a.pop(),) for k, a in keys.items()}
    have = [(c["type"], c["name"], c["reason"], c["desired"], c["arches"]) for c in lines]
    names = {c["name"] for c in lines}
    missing = sorted({k[1] for k in keys if k[1] not in names})
    differ = [f"list: {' '.join(k)}" for k in sorted(want - set(have))] + \
        [f"checks.txt: {' '.join(k)}" for k in sorted(set(have) - want)] + \
        [f"checks.txt twice: {' '.join(k)}" for k in sorted({k for k in have if have.count(k) > 1})]
    return missing, differ


def test_khc_lists():
    """checks.txt is k-h-c KHC_VERSION's list: every check of -p X86_64 and -p ARM64, as
    the JSON names it, and nothing else."""
    from hptool.khc_coverage import read_checks
    names = ("khc-list-names", "khc-list-lines", "khc-list-control")
    lists, why = khc_lists()
    if lists is None:
        for n in names:
            skip(n, why)
        return
    lines = read_checks()
    missing, differ = list_problems(lines, lists)
    n = len({c["option_name"] for v in lists.values() for c in v})
    check(names[0], not missing and n > 300,
          f"{n} names of {KHC_VERSION}'s X86_64 and ARM64 lists, all in checks.txt" if not missing
          else f"{len(missing)} of {n} not in checks.txt: {' '.join(missing)}")
    check(names[1], not differ and len(lines) > 300,
          f"{len(lines)} lines, as the lists give them" if not differ
          else f"{len(differ)} differ: {'; '.join(differ[:6])}")
    # the control, on the lines the lists themselves give (whatever checks.txt says): the
    # stack-erase check missing, its old name in its place, a line's arches wrong and a
    # line twice, each caught by the same comparison
    arches = {}
    for a, v in lists.items():
        for c in v:
            arches.setdefault((c["type"], c["option_name"], c["reason"], c["desired_val"]),
                              set()).add(a.lower())
    lines = [dict(type=k[0], name=k[1], reason=k[2], desired=k[3],
                  arches="both" if len(a) == 2 else min(a)) for k, a in arches.items()]
    drop = [c for c in lines if c["name"] != "CONFIG_KSTACK_ERASE"]
    old = [dict(c, name="CONFIG_GCC_PLUGIN_STACKLEAK") if c["name"] == "CONFIG_KSTACK_ERASE" else c
           for c in lines]
    arch = [dict(c, arches="both") if c["name"] == "CONFIG_X86_SMAP" else c for c in lines]
    twice = lines + lines[:1]
    check(names[2], list_problems(lines, lists) == ([], [])
          and list_problems(drop, lists)[0] == ["CONFIG_KSTACK_ERASE"]
          and list_problems(old, lists)[0] == ["CONFIG_KSTACK_ERASE"]
          and any("CONFIG_GCC_PLUGIN_STACKLEAK" in d for d in list_problems(old, lists)[1])
          and not list_problems(arch, lists)[0]
          and len(list_problems(arch, lists)[1]) == 2
          and len(list_problems(twice, lists)[1]) == 1)


def kstack_row(out):
    """the rows of khc_join's output that name a stack-erase check, {option: (hp, flag)}"""
    return {k[0]: v for k, v in rows(out).items()
            if k[0] in ("CONFIG_KSTACK_ERASE", "CONFIG_GCC_PLUGIN_STACKLEAK")}


def test_join_renamed():
    """a renamed Kconfig option joins under either name: k-h-c v0.6.17.1's
    CONFIG_KSTACK_ERASE and an older one's CONFIG_GCC_PLUGIN_STACKLEAK both join
    stack_erase, whether a record or a report's "verifies" names it."""
    report = json.load(open(REPORT))
    se = {f["feature"]: f["outcome"] for f in report["features"]}["stack_erase"]
    text = open(KHC).read()
    old = "CONFIG_GCC_PLUGIN_STACKLEAK"
    want_row = (f"stack_erase={se}", "")
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(SELFTEST, os.path.join(d, "selftest.ktap"))
        new_json = os.path.join(d, "v0.6.17.1.khc.json")
        open(new_json, "w").write(text.replace(f'"{old}"', '"CONFIG_KSTACK_ERASE"'))
        bogus_json = os.path.join(d, "bogus.khc.json")
        open(bogus_json, "w").write(text.replace(f'"{old}"', '"CONFIG_KSTACK_ERASEX"'))
        path = os.path.join(d, "report.json")
        json.dump(report, open(path, "w"))
        _, out_new, _ = join(new_json, path)
        _, out_old, _ = join(KHC, path)
        # a report whose "verifies" hptool collect wrote before the records said CONFIG_KSTACK_ERASE
        ann = khc.annotate(copy.deepcopy(report))
        for f in ann["features"]:
            if f["feature"] == "stack_erase":
                f["verifies"] = [old]
        json.dump(ann, open(path, "w"))
        _, out_ann, _ = join(new_json, path)
        # the control: a name no rename lists does not join
        _, out_bogus, _ = join(bogus_json, path)
    check("khc-join-stack-erase-renamed",
          f'"{old}"' in text and kstack_row(out_new) == {"CONFIG_KSTACK_ERASE": want_row}
          and kstack_row(out_old) == {old: want_row}
          and kstack_row(out_ann) == {"CONFIG_KSTACK_ERASE": want_row}
          and "CONFIG_KSTACK_ERASEX" not in out_bogus and kstack_row(out_bogus) == {},
          f"CONFIG_KSTACK_ERASE: {kstack_row(out_new).get('CONFIG_KSTACK_ERASE')}; {old}: "
          f"{kstack_row(out_old).get(old)}; from \"verifies\": {kstack_row(out_ann)}")
    # the real -m json runs of k-h-c v0.6.17.1 (runs/*.json), against the recorded report
    runs = sorted(glob.glob(os.path.join(KHC_LISTS, "runs", f"*.{KHC_VERSION}.json")))
    if not runs:
        return skip("khc-join-real-runs", f"no {KHC_LISTS}/runs/*.{KHC_VERSION}.json (KHC_LISTS=)")
    bad = []
    for r in runs:
        rc, out, err = join(r, REPORT)
        got, want = rows(out), expected(json.load(open(r)), report, open(SELFTEST).read())
        if rc not in (0, 1) or got != want or len(want) < 10 \
                or kstack_row(out) != {"CONFIG_KSTACK_ERASE": want_row}:
            bad.append(f"{os.path.basename(r)}: rc {rc}, stack erase {kstack_row(out)}, "
                       f"{len(got)} rows, {len(want)} expected {err.strip()[:100]}")
    check("khc-join-real-runs", not bad, f"{len(runs)} runs, CONFIG_KSTACK_ERASE joins stack_erase"
          if not bad else "; ".join(bad))


def test_coverage():
    from hptool.khc_coverage import read_checks
    p = subprocess.run([*HPTOOL, "khc-coverage", REPORT],
                       capture_output=True, text=True, timeout=60)
    names = {o for v in plain_options(None).values() for o in v}
    names |= {o for n in list(names) for o in plain_renames().get(n, [])}
    n = {}
    for c in read_checks():
        if c["observable"] == "yes":
            t = n.setdefault(c["cls"], [0, 0])
            t[1] += 1
            t[0] += c["name"] in names
    s, pol = n.get("self", [0, 0]), n.get("policy", [0, 0])
    line = (f"covered by the module's records: {s[0] + pol[0]} of {s[1] + pol[1]} runtime-observable "
            f"({s[0]} of {s[1]} self-protection, {pol[0]} of {pol[1]} policy knobs)")
    check("khc-coverage-figures", p.returncode == 0 and line in p.stdout.splitlines(), line)


def main():
    test_options()
    test_collect_verifies()
    test_join()
    test_khc_lists()
    test_join_renamed()
    test_coverage()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
