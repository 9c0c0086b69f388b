#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the bench's host tool (scripts/hptool): targets, the QEMU command lines,
the kernel cache key, the outcome rules, the expectation table, KTAP through kunit_parser,
the tallies, the debug log's findings and symbol sizes through readelf.

What the shell scripts computed before is compared with the package's answer: the
command lines and targets recorded from lib.sh of b781ecb (hptool/lib-b781ecb.txt), and
where the old code can run here, the old code itself (git show b781ecb:...).
Prints one "check host <name>: ok|FAIL|SKIP" line per test; exit 1 on any FAIL.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
TOP = os.path.dirname(SCRIPTS)
sys.path.insert(0, SCRIPTS)
# the host tool as make check runs it (its subcommands import hptool from SCRIPTS)
os.environ["PYTHONPATH"] = SCRIPTS + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
HPTOOL = [sys.executable, "-m", "hptool"]
from hptool import CACHE, Error, expect, findings, kbuild, kcidb, kconfig, ktap, offvariants, outcome, qemu, renames, symbols, tally, targets  # noqa: E402

BASE = "b781ecb"
TARGETS = ["x86_64-gcc", "x86_64-gcc-6.1", "x86_64-gcc-7.1", "x86_64-clang-22-7.1", "x86_64-clang", "x86_64-clang-7.1",
           "x86_64-clang-6.1", "arm64-gcc", "arm64-gcc-7.1", "arm64-gcc-6.1",
           "arm64-clang", "arm64-clang-7.1", "arm64-clang-22-7.1", "arm64-clang-6.1", "debian", "debian-6.12", "debian-arm64", "debian-arm64-6.12",
           "x86_64-gcc-debug"]
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}", flush=True)


def skip(name, why):
    print(f"check host {name}: SKIP {why}", flush=True)


def old(path):
    """a file of the tree before the host tool (git show b781ecb:path), or None."""
    p = subprocess.run(["git", "-C", TOP, "show", f"{BASE}:{path}"], capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else None


def recorded():
    """{key: value} of hptool/lib-b781ecb.txt ("key: value" lines)."""
    out = {}
    for line in open(os.path.join(HERE, "hptool", "lib-b781ecb.txt")):
        if line.startswith("#") or ": " not in line:
            continue
        k, v = line.rstrip("\n").split(": ", 1)
        out[k] = v
    return out


def hptool(*args, env=None):
    """python3 -m hptool ARGS, as the make targets run it"""
    return subprocess.run([sys.executable, "-m", "hptool", *args], capture_output=True, text=True,
                          cwd=SCRIPTS, env=env, timeout=120)


def test_targets(rec):
    bad = []
    for k, v in rec.items():
        if not k.startswith("target "):
            continue
        t = targets.resolve(k.split()[1], check_tools=False)
        got = f"HP_ARCH={t.arch} HP_COMPILER={t.compiler} HP_FRAGS={' '.join(t.frags)}"
        if got != v:
            bad.append(f"{k}: {got}")
    check("hptool-targets-as-lib-sh", not bad and len([k for k in rec if k.startswith("target ")]) >= 8,
          "; ".join(bad[:2]))

    # x86_64-clang-22 (a line of its own) and x86_64-clang-21 (the x86_64-clang line
    # with clang-21): the error names the packages when the compiler is missing, the
    # target resolves when it is there (stand-ins on PATH)
    def missing_then_found(d, name, ver):
        """(the error without clang-<ver> on PATH, the target with stand-ins for it)"""
        try:
            targets.resolve(name)
            err = f"resolved without clang-{ver}"
        except Error as e:
            err = str(e)
        for tool in (f"clang-{ver}", f"ld.lld-{ver}", f"llvm-ar-{ver}"):
            with open(os.path.join(d, tool), "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(os.path.join(d, tool), 0o755)
        return err, targets.resolve(name)

    path = os.environ["PATH"]
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        try:
            os.environ["PATH"] = d
            err, t = missing_then_found(d, "x86_64-clang-22", 22)
            err21, t21 = missing_then_found(d, "x86_64-clang-21", 21)
        finally:
            os.environ["PATH"] = path
    want = rec["target-error x86_64-clang-22"].removeprefix("hardprobe: error: ")
    check("hptool-target-clang-n-missing", err == want, err)
    check("hptool-target-clang-n", (t.arch, t.compiler, t.frags, t.make_args(ccache=False)) ==
          ("x86_64", "clang-22", ["common", "hardening", "x86_64", "clang", "clang-22"],
           ["ARCH=x86_64", "LLVM=-22", "CC=clang-22"]) and
          err21 == want.replace("22", "21") and
          (t21.compiler, t21.frags) == ("clang-21", ["common", "hardening", "x86_64", "clang"]),
          f"{t}; {t21}; {err21}")
    try:
        targets.resolve("bogus")
        err = ""
    except Error as e:
        err = str(e)
    # the recorded error listed the targets of its day; the known list is the table's
    want = re.sub(r"\(known: .* and ", f"(known: {' '.join(targets.table())} and ",
                  rec["target-error bogus"].removeprefix("hardprobe: error: "))
    check("hptool-target-unknown", err == want, err)
    for name in ("riscv-clang-19", "x86_64-clang-", "x86_64-gcc-13"):
        try:
            targets.resolve(name, check_tools=False)
            err = ""
        except Error as e:
            err = str(e)
        if not err.startswith(f"unknown target '{name}'"):
            check("hptool-target-malformed", False, f"{name}: {err or 'resolved'}")
            break
    else:
        check("hptool-target-malformed", True, "riscv-clang-19, x86_64-clang-, x86_64-gcc-13 refused")
    # "ARCH COMPILER", one line (two words); a kernel of its own: from its .config
    p = hptool("target", "arm64-gcc")
    with tempfile.TemporaryDirectory(prefix="hp-target-") as d:
        with open(os.path.join(d, ".config"), "w") as f:
            f.write("CONFIG_ARM64=y\nCONFIG_CC_IS_CLANG=y\nCONFIG_CLANG_VERSION=190107\n")
        q = hptool("target", "custom", "--kdir", d)
    check("hptool-target-arch-compiler", p.stdout == "arm64 gcc-12\n" and q.stdout == "arm64 clang-19\n",
          p.stdout + q.stdout + q.stderr)
    bad = []
    for k, v in rec.items():
        if k.startswith("make "):
            t = targets.resolve(k.split()[1])
            want_cc, want_make = v.split(" HP_MAKE=")
            if (f"HP_CC={t.cc()}", shlex.split(want_make)) != (want_cc, t.make_args(ccache=True)):
                bad.append(k)
    check("hptool-make-args-as-lib-sh", not bad, " ".join(bad))

    # kernels the bench did not configure: arch and compiler from .config
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        for name, text in (("k1", "CONFIG_X86_64=y\nCONFIG_CC_IS_GCC=y\nCONFIG_GCC_VERSION=120200\n"),
                           ("k2", "CONFIG_ARM64=y\nCONFIG_CC_IS_CLANG=y\nCONFIG_CLANG_VERSION=190107\n")):
            os.makedirs(os.path.join(d, name))
            with open(os.path.join(d, name, ".config"), "w") as f:
                f.write(text)
        bad = []
        for k, v in rec.items():
            if not k.startswith("kdir ") or k == "kdir-error":
                continue
            _, name, kd = k.split()
            t = targets.from_config(name, os.path.join(d, kd))
            got = f"HP_ARCH={t.arch} HP_COMPILER={t.compiler} HP_FRAGS={' '.join(t.frags)}"
            if got != v:
                bad.append(f"{k}: {got}")
        try:
            targets.from_config("custom", "/nonexistent")
            err = ""
        except Error as e:
            err = str(e)
        check("hptool-target-kdir", not bad and err == rec["kdir-error"].removeprefix("hardprobe: error: "),
              "; ".join(bad) or err)


def test_matrix_targets():
    try:
        targets.matrix_targets([], "gcc-13")
        err = ""
    except Error as e:
        err = str(e)
    check("hptool-matrix-targets", targets.matrix_targets([], "") == targets.MATRIX_DEFAULT
          and targets.matrix_targets(["arm64-gcc", "x86_64-gcc", "arm64-gcc"], "clang-22, clang-22") ==
          ["arm64-gcc", "x86_64-gcc", "x86_64-clang-22", "arm64-clang-22"]
          and "'gcc-13' is not clang-<N>" in err, err)


def test_qemu(rec):
    bad, n = [], 0
    for k, v in rec.items():
        if not k.startswith("qemu "):
            continue
        n += 1
        kv = dict(x.split("=") for x in k.split()[1:])
        want = shlex.split(v)
        got = qemu.command(kv["arch"], "/k/Image", "/m/initramfs.cpio.gz", "panic=-1 hardprobe.mode=all",
                           kvm=kv["kvm"] == "yes", mte=kv["mte"] == "yes", smp=1)
        # (b781ecb booted one vCPU: --smp 1 asks for that); hptool boot --print: what it boots
        p = hptool("boot", kv["arch"], "/k/Image", "/m/initramfs.cpio.gz", "panic=-1 hardprobe.mode=all",
                   "--kvm", kv["kvm"], "--mte", "yes" if kv["mte"] == "yes" else "", "--smp", "1", "--print")
        if got != want or p.stdout.splitlines() != want:
            bad.append(f"{k}: {' '.join(got)}")
    check("hptool-boot-command-lines", n == 8 and not bad, "; ".join(bad[:1]) or f"{n} command lines")
    # two vCPUs unless --smp says otherwise; 1..8 (CONFIG_NR_CPUS of the reference kernels)
    smp = [hptool("boot", "arm64", "k", "i", "", "--smp", n, "--print") for n in ("", "4", "9", "x")]
    check("hptool-boot-smp", "\n-smp\n2\n" in smp[0].stdout and "\n-smp\n4\n" in smp[1].stdout and
          smp[2].returncode and "between 1 and 8" in smp[2].stderr and smp[3].returncode,
          " | ".join((x.stdout + x.stderr).strip()[-80:].replace("\n", " ") for x in smp))
    # a guest with a stand-in QEMU on PATH: its console in the log and its status; killed at
    # the timeout (124, "TIMEOUT after 1 s" ends the log); no QEMU: 127 and why, in the log
    with tempfile.TemporaryDirectory(prefix="hp-boot-") as d:
        fake = os.path.join(d, "qemu-system-x86_64")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\necho "console: $*"\nread -r line && echo "stdin: $line"\n'
                    'case "$*" in *hang*) exec sleep 30 ;; esac\nexit 3\n')
        os.chmod(fake, 0o755)
        env = dict(os.environ, PATH=d + os.pathsep + os.environ["PATH"])
        log = os.path.join(d, "console.log")
        runs = []
        for cmdline, timeout in (("panic=-1", "5"), ("hang", "1")):
            t0 = time.monotonic()
            r = hptool("boot", "x86_64", "k", "i", cmdline, "--log", log, "--timeout", timeout, env=env)
            runs.append((r.returncode, open(log).read(), time.monotonic() - t0))
        r = hptool("boot", "x86_64", "k", "i", "", "--log", log, env=dict(os.environ, PATH=d + "/none"))
        missing = (r.returncode, open(log).read())
    check("hptool-boot-stand-in-qemu",
          runs[0][0] == 3 and "console: -accel" in runs[0][1] and "-append console=ttyS0 panic=-1 " in runs[0][1]
          and "stdin:" not in runs[0][1] and runs[1][0] == 124 and runs[1][1].endswith("TIMEOUT after 1 s\n")
          and runs[1][2] < 15 and missing[0] == 127 and "cannot start qemu-system-x86_64" in missing[1]
          and "qemu-system-x86" in missing[1],
          f"{runs[0][0]}, {runs[1][0]} in {runs[1][2]:.1f} s, {missing[0]}: {missing[1].strip()}")
    check("hptool-qemu-image", all(qemu.image(a) == rec[f"image arch={a}"] for a in ("x86_64", "arm64")))
    try:
        qemu.command("riscv", "k", "i", "")
        err = ""
    except Error as e:
        err = str(e)
    check("hptool-qemu-unknown-arch", "no QEMU record for arch 'riscv'" in err, err)


def test_initramfs():
    """hptool initramfs: the guest's / as a newc cpio owned by root, in find's byte order:
    busybox, /init, the modules, the three programs (executable), and --extra's files over them"""
    with tempfile.TemporaryDirectory(prefix="hp-initramfs-") as d:
        mod, extra = os.path.join(d, "mod"), os.path.join(d, "extra")
        os.makedirs(mod)
        os.makedirs(os.path.join(extra, "etc"))
        for n in ("hardprobe.ko", "hardprobe_test", "hardprobe_fuzz", "hardprobe_trust"):
            with open(os.path.join(mod, n), "w") as f:
                f.write(n)
        with open(os.path.join(extra, "init"), "w") as f:
            f.write("#!/bin/sh\n# another init\n")
        with open(os.path.join(extra, "etc", "x"), "w") as f:
            f.write("x")
        out = os.path.join(d, "i.cpio.gz")
        r = hptool("initramfs", "x86_64", mod, os.path.join(mod, "hardprobe_test"), out, "--extra", extra)
        if r.returncode:
            return check("hptool-initramfs", False, r.stderr.strip()[-200:])
        cpio = subprocess.run(["sh", "-c", f"zcat {out} | cpio -tv --quiet"], capture_output=True, text=True)
        rows = [ln.split() for ln in cpio.stdout.splitlines()]
        got = [(r[0], r[2], r[8]) for r in rows]
        init = subprocess.run(["sh", "-c", f"zcat {out} | cpio -i --quiet --to-stdout init"],
                              capture_output=True, text=True).stdout
    want = [("drwxr-xr-x", "root", "."), ("drwxr-xr-x", "root", "bin"), ("-rwxr-xr-x", "root", "bin/busybox"),
            ("drwxr-xr-x", "root", "etc"), ("-rw-r--r--", "root", "etc/x"),
            ("-rw-r--r--", "root", "hardprobe.ko"), ("-rwxr-xr-x", "root", "hardprobe_fuzz"),
            ("-rwxr-xr-x", "root", "hardprobe_test"), ("-rwxr-xr-x", "root", "hardprobe_trust"),
            ("-rwxr-xr-x", "root", "init")]
    check("hptool-initramfs", got == want and "another init" in init, repr(got) if got != want else
          f"{len(got)} entries, --extra's /init over guest-init")


def test_cache_key():
    """the cache key from the same bytes as lib.sh's hp_builddir of b781ecb (else every
    cached kernel is rebuilt)."""
    lib = old("scripts/lib.sh")
    if lib is None:
        return skip("hptool-kernel-cache-key", "not a git checkout with b781ecb")
    srcid = "debian:linux-source-6.12:6.12.118-1~deb12u1"
    done = []
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        with open(os.path.join(d, "lib.sh"), "w") as f:
            f.write(lib)
        for t in ("x86_64-gcc", "arm64-clang", "x86_64-gcc-debug"):
            tg = targets.resolve(t, check_tools=False)
            if shutil.which(tg.cc()) is None:
                continue
            p = subprocess.run(["bash", "-c", f". {d}/lib.sh; HP_TOP={TOP}; hp_target {t}; hp_make_args; "
                                f"HP_SRCID='{srcid}'; hp_builddir {t}; echo ${{HP_BUILD##*/}}"],
                               capture_output=True, text=True)
            key = kconfig.cache_key(srcid, tg.arch, kconfig.compiler_version(tg.cc()),
                                    kconfig.merged_fragment(tg.frags, extra=""))
            if p.stdout.strip() != f"{t}-{key}":
                return check("hptool-kernel-cache-key", False, f"{t}: lib.sh {p.stdout.strip()}, hptool {t}-{key}")
            done.append(f"{t}-{key}")
    if not done:
        return skip("hptool-kernel-cache-key", "no compiler installed")
    check("hptool-kernel-cache-key", True, " ".join(done))
    # hptool kernel builds in the directory of that key (the source as kconfig.ksrc finds it)
    env = {k: os.environ.pop(k) for k in ("KVER", "EXTRA_CONFIG") if k in os.environ}
    try:
        b = kbuild.Build("x86_64-gcc")
        tg = targets.resolve("x86_64-gcc")
        key = kconfig.cache_key(b.srcid, tg.arch, kconfig.compiler_version(tg.cc()),
                                kconfig.merged_fragment(tg.frags, extra=""))
        check("hptool-kernel-dir-is-cache-key", b.dir == os.path.join(CACHE, "build", f"x86_64-gcc-{key}"),
              b.dir)
    finally:
        os.environ.update(env)


def old_ktap_of(o, known_gap, configured):
    """hptool collect's copy of the module's hp_expect(), as it was (b781ecb)."""
    if o == "protected":
        return "ok"
    if o == "vulnerable":
        return "skip" if known_gap or not configured else "not ok"
    return "error" if o == "error" else "skip"


def test_outcome():
    reps = {t: json.load(open(os.path.join(HERE, "matrix", t, "report.json")))
            for t in ("x86_64-gcc", "arm64-clang")}
    rules = outcome.rules_of(reps["x86_64-gcc"])
    combos = [(o, g, c) for o in outcome.OUTCOMES for g in (False, True) for c in (False, True)]
    check("outcome-ktap-rule", len(rules["ktap"]) == 24 and
          all(outcome.ktap_of(rules, *x) == old_ktap_of(*x) for x in combos),
          "24 records, as hp_expect()")
    check("outcome-rank", rules["rank"] == ["not_run", "unsupported", "protected", "inconclusive",
                                            "vulnerable", "error"]
          and outcome.feature_outcome(rules, []) == "not_run"
          and outcome.feature_outcome(rules, [{"outcome": "protected"}, {"outcome": "unsupported"}]) == "protected"
          and outcome.feature_outcome(rules, [{"outcome": "protected"},
                                              {"outcome": "vulnerable", "known_gap": True}]) == "protected"
          and outcome.feature_outcome(rules, [{"outcome": "inconclusive"}, {"outcome": "vulnerable"}]) == "vulnerable"
          and outcome.feature_outcome(rules, [{"outcome": "error"}, {"outcome": "vulnerable"}]) == "error")
    # the module's own verdicts in the recorded reports follow its exported rules
    off, n = [], 0
    for t, rep in reps.items():
        r = outcome.rules_of(rep)
        for f in rep["features"]:
            n += 1
            if (outcome.feature_outcome(r, f["probes"]) != f["outcome"] or
                    outcome.ktap_of(r, f["outcome"], False, f["configured_bool"]) != f["ktap"]):
                off.append(f"{t}/{f['feature']}")
    check("outcome-recorded-reports-agree", n > 70 and not off, ", ".join(off[:4]) or f"{n} features")
    # an older report (no rules), or a broken table: refused, never a fallback
    errs = []
    for bad in ({}, {"rules": {"rank": rules["rank"], "ktap": rules["ktap"][:-1]}},
                {"rules": {"rank": rules["rank"][:-1], "ktap": rules["ktap"]}}):
        try:
            outcome.rules_of(bad)
            errs.append(None)
        except outcome.RulesError as e:
            errs.append(str(e))
    check("outcome-rules-required", errs[0] and "has no \"rules\"" in errs[0] and all(errs),
          " | ".join(str(e)[:60] for e in errs))


def test_expect():
    path = os.path.join(SCRIPTS, "expect.table")
    try:
        table = expect.parse(path)
    except expect.TableError as e:
        return check("expect-table-parses", False, str(e))
    full = all(len(r.cells) == len(table.targets) and all(v for v in r.cells.values()) for r in table.rows)
    check("expect-table-cell-every-row-target", full and table.targets == TARGETS,
          f"{len(table.rows)} rows x {len(table.targets)} targets")
    # every row is a feature of the registry, once (a feature without a row is predicted)
    # the registry's ids, read as a plain regex of its HP_REGISTRY( lines
    feats = re.findall(r"^\s*HP_REGISTRY\((\w+),",
                       open(os.path.join(TOP, "module", "registry.h")).read(), re.M)
    rows = [r.name for r in table.rows if not r.name.startswith("@")]
    bad = sorted(set(rows) - set(feats)) + sorted({r for r in rows if rows.count(r) > 1})
    check("expect-table-rows-are-features", not bad,
          f"{len(rows)} rows of {len(feats)} features" + (f"; not a feature, or twice: {bad}" if bad else ""))
    # on the recorded runs (hptool expect-record of make check's results): no cell repeats
    # the prediction (deviations only), and the table with the predictions gives each
    # run's outcomes
    rec = {}
    with open(os.path.join(HERE, "expect-recorded.txt")) as f:
        for ln in f:
            if ln.strip() and not ln.startswith("#"):
                t, feat, conf, out = ln.split()
                rec.setdefault(t, []).append({"feature": feat, "configured_bool": conf == "y", "outcome": out})
    redundant, wrong, n = [], [], 0
    for t, fs in rec.items():
        conf = {f["feature"]: f["configured_bool"] for f in fs}
        got = {f["feature"]: f["outcome"] for f in fs}
        for feat, cell in table.expectations(t):
            if feat in conf and cell == expect.predict(conf[feat]):
                redundant.append(f"{t} {feat} {cell}")
        for feat, want, _ in table.expected(t, fs):
            n += 1
            if got.get(feat) != want:
                wrong.append(f"{t} {feat}: table {want}, recorded {got.get(feat, 'missing')}")
    check("expect-table-deviations-only", len(rec) >= 6 and not redundant,
          f"{len(rec)} recorded runs" + (": the prediction repeated: " + ", ".join(redundant[:4]) if redundant else ""))
    check("expect-table-recorded-runs", len(rec) >= 6 and n > 300 and not wrong,
          f"{n} expectations" + (": " + "; ".join(wrong[:3]) if wrong else ""))
    # the resolution itself: no row or "." predicted from the configured layer, "-" not
    # judged, an outcome kept, a row the report lacks kept (its check fails: missing)
    tb = expect.parse("t", "feature a b\nf1 . unsupported\nf2 - inconclusive\nf9 vulnerable .\n")
    fs = [{"feature": "f0", "configured_bool": True}, {"feature": "f1", "configured_bool": False},
          {"feature": "f2", "configured_bool": True}]
    ga, gb = tb.expected("a", fs), tb.expected("b", fs)
    check("expect-table-predicts",
          ga == [("f0", "protected", False), ("f1", "vulnerable", False), ("f9", "vulnerable", True)] and
          gb == [("f0", "protected", False), ("f1", "unsupported", True), ("f2", "inconclusive", True),
                 ("f9", "as-configured", True)],
          "" if ga and gb else "nothing resolved")
    # judge's view: the directives
    d = [table.directives(t) for t in ("debian", "debian-6.12")]
    check("expect-table-directives", d == [{"@kunit": "skip"}] * 2 and not table.directives("x86_64-gcc"))
    for text, want in (("feature a b\nstack_init protected\n", "1 cells for 2 targets"),
                       ("feature a\nstack_init protectd\n", "'protectd' is not one of"),
                       ("feature a\n@kunit .\n", "'.' is not one of"),
                       ("# [a c]\n# why\nfeature a\n", "unknown target(s) c"),
                       ("stack_init protected\n", "the first row must be the header")):
        try:
            expect.parse("t", text)
            err = ""
        except expect.TableError as e:
            err = str(e)
        if want not in err:
            return check("expect-table-errors", False, f"{text!r}: {err}")
    check("expect-table-errors", True)


def test_stage_timings():
    from hptool import stage_timings
    rows, span = stage_timings("100\thost\t-\n160\tW=1\tx86_64-gcc\nnot a line\n400\tW=1\tarm64-clang\n"
                               "500\thost\t-\n520\tW=1\tx86_64-gcc\n", 600)
    check("hptool-stage-timings", rows == [("host", "-", 80), ("W=1", "x86_64-gcc", 320), ("W=1", "arm64-clang", 100)]
          and span == 500 and stage_timings("", 5) == ([], 0), f"{rows} {span}")


def test_config_agrees():
    """hptool judge's config-agrees: each CONFIG_X=v a configured layer states is the .config's"""
    from hptool import judge
    with tempfile.TemporaryDirectory() as d:
        b = os.path.join(d, "build")
        os.mkdir(b)
        with open(os.path.join(b, ".config"), "w") as f:
            f.write('CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_N=4096\nCONFIG_S="-Wx=5"\n')
        with open(os.path.join(d, "build-info.txt"), "w") as f:
            f.write(f"target: t\nbuild_dir: {b}\n")

        def run(configured):
            lines = []
            judge.config_agrees(d, [{"feature": "f", "configured": c} for c in configured],
                                lambda what, ok, detail="": lines.append((what, ok, detail)))
            return lines
        good = run(["CONFIG_A=y (STRONG), CONFIG_B=n", "CONFIG_N=4096; x", 'CONFIG_S="-Wx=5"',
                    "CONFIG_C=n (not in this kernel)", "CONFIG_A: y", "no switch"])
        bad = run(["CONFIG_A=y CONFIG_B=y:"]), run(["CONFIG_N=65536"]), run(["no Kconfig value"])
        os.remove(os.path.join(b, ".config"))
        gone = run(["CONFIG_A=y"])
    check("judge-config-agrees", good == [("config-agrees", True, "5 Kconfig values stated, 0 not the kernel's")]
          and [x[0][1] for x in bad] == [False] * 3 and "CONFIG_B=y, .config CONFIG_B=n" in bad[0][0][2]
          and gone and not gone[0][1] and "no kernel .config" in gone[0][2], f"{good} {bad} {gone}")


def test_ktap():
    from hptool import collect  # noqa: E402
    oldjudge = old("scripts/judge.py")
    try:
        ktap.parser()
    except Error as e:
        return skip("ktap-kunit-parser-counts", str(e))
    if oldjudge is None:
        return skip("ktap-kunit-parser-counts", "not a git checkout with b781ecb")
    ns = {}
    exec(oldjudge.split("def main(")[0], ns)
    files = collect.frames(open(os.path.join(HERE, "recorded-x86_64-gcc.log"), errors="replace").read())
    files["kunit.ktap"] = collect.merge_ktap(files["kunit.ktap"])
    docs = {n: files[n] for n in ("selftest.ktap", "ktap.txt", "kunit.ktap")}
    docs["ktap.txt not ok"] = files["ktap.txt"].replace("ok 1 stack_init\n", "not ok 1 stack_init\n", 1)
    docs["selftest not ok"] = files["selftest.ktap"].replace("\nok ", "\nnot ok ", 2)
    bad = [n for n, t in docs.items() if ktap.counts(t)[:2] != ns["ktap_counts"](t)]
    check("ktap-kunit-parser-counts", not bad, ", ".join(bad) or
          ", ".join(f"{n} {ktap.counts(t)[0]}/{ktap.counts(t)[1]}" for n, t in docs.items()))
    raw = "".join(f"[    1.{i:06d}] hardprobe: {line}\n" for i, line in enumerate(files["ktap.txt"].splitlines()))
    raw = raw.replace("[    1.000003] hardprobe: ", "[    1.000003] detected buffer overflow\n"
                      "[    1.000003] hardprobe: ", 1)
    want = files["ktap.txt"].splitlines()
    want = want[want.index("KTAP version 1"):]
    check("ktap-extract-raw-log", ktap.extract("[    0.500000] booting\n" + raw,
                                               only="] hardprobe: ").splitlines() == want,
          f"{len(want)} lines")


def test_kver_tree():
    """KVER=7.1: a kernel.org tarball or a tree named as KSRC= is kept in the cache
    (src/linux-<version>) and found there later without KSRC=; none stops with the hint; a
    tarball without a kernel tree leaves nothing behind."""
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        tree = os.path.join(d, "linux-7.1.9")
        os.makedirs(os.path.join(tree, "sub"))
        with open(os.path.join(tree, "Makefile"), "w") as f:
            f.write("VERSION = 7\nPATCHLEVEL = 1\nSUBLEVEL = 9\n")
        subprocess.run(["tar", "-C", d, "-cJf", tree + ".tar.xz", "linux-7.1.9"], check=True)
        os.makedirs(os.path.join(d, "bad"))
        subprocess.run(["tar", "-C", d, "-cJf", os.path.join(d, "linux-7.1.7.tar.xz"), "bad"],
                       check=True)

        def ksrc(cache, src=None):
            env = dict(os.environ, KVER="7.1", HARDPROBE_CACHE=os.path.join(d, cache),
                       PYTHONPATH=SCRIPTS)
            env.pop("KSRC", None)
            if src:
                env["KSRC"] = src
            return subprocess.run([sys.executable, "-m", "hptool", "ksrc", "--kver", "env"],
                                  capture_output=True, text=True, env=env)
        got = [ksrc("c1", tree + ".tar.xz"), ksrc("c2", tree), ksrc("c2"), ksrc("c3"),
               ksrc("c4", os.path.join(d, "linux-7.1.7.tar.xz"))]
        want = [os.path.join(d, c, "src", "linux-7.1.9") for c in ("c1", "c2", "c2")]
        ok = (all(g.stdout == f"{w}\n" for g, w in zip(got, want)) and
              os.path.isfile(os.path.join(want[1], "Makefile")) and
              got[3].returncode and "pass KSRC=" in got[3].stderr and
              got[4].returncode and "holds no kernel tree" in got[4].stderr and
              not os.listdir(os.path.join(d, "c4", "src")))
        check("kver-7.1-tree-in-cache", ok, " | ".join(
            (g.stdout + g.stderr).strip().replace("\n", "; ")[-90:] for g in got))


def test_ci_names():
    """the names Linaro's kselftest parser (KernelCI, LKFT) files results under: a SKIP's
    reason joins the name, so a reason that carries evidence makes a new name every run;
    hardprobe's result lines carry none (the reason is the diagnostic line before)."""
    old = ("KTAP version 1\n1..3\nok 1 a.b # SKIP not configured: 812 of 812 bytes at /tmp/x1\n"
           "# c.d: vulnerable: pid 71 went on\nnot ok 2 c.d #  ERROR pid 71\nok 3 e-f [12]\n")
    got = ktap.ci_names(old, "hardprobe: hardprobe_test")
    check("ci-names-as-linaro", got == [
        ("hardprobe_hardprobe_test_a_b_not_configured_812_of_812_bytes_at_tmp_x1", "skip"),
        ("hardprobe_hardprobe_test_c_d", "fail"), ("hardprobe_hardprobe_test_e-f", "pass")],
        repr(got))
    # a "selftests:" header names the program; an indented (nested) result line counts too
    got = ktap.ci_names("# selftests: hardprobe: hardprobe_fuzz\n    ok 1 x # SKIP\n")
    check("ci-names-header-and-bare-skip", got == [("hardprobe_hardprobe_fuzz_x", "skip")], repr(got))
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        for x, pid in ((a, 71), (b, 93)):
            os.makedirs(x)
            with open(os.path.join(x, "selftest.ktap"), "w") as f:
                f.write(f"# a.b: skip: not configured: pid {pid}\nok 1 a.b # SKIP \n")
            with open(os.path.join(x, "ktap.txt"), "w") as f:
                f.write(f"ok 1 a.b # SKIP not configured: pid {pid}\n")
        res = {n: ok for n, ok, _ in ktap.ci_compare(a, b)}
        check("ci-names-compare-two-runs", res == {"selftest.ktap": True, "ktap.txt": False}, repr(res))


KCIDB_SCHEMA = os.environ.get("KCIDB_SCHEMA") or os.path.join(
    TOP, "..", "shared", "kcidb", "kcidb-io.schema.v5.3.json")


def test_ci_names_recorded():
    """two recorded runs of the x86_64-gcc guest (ci-names/run1, run2: the KTAP of the
    module, the three kselftest programs and KUnit): the same result names as a CI system
    files them; with each SKIP's reason (the line before it) put back on the result line,
    as hardprobe wrote it before, they differ (pids, counts, addresses)."""
    import gzip
    runs = [os.path.join(HERE, "ci-names", r) for r in ("run1", "run2")]
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        dirs = []
        for i, r in enumerate(runs):
            for old in (False, True):
                out = os.path.join(d, f"{i}-{old}")
                os.makedirs(out, exist_ok=True)
                for name in ktap.CI_FILES:
                    with gzip.open(os.path.join(r, name + ".gz"), "rt") as f:
                        text = f.read()
                    if old:
                        text = re.sub(r"^(\s*)# (\S+): skip: (.*)\n(\s*ok \d+ \2) # SKIP ?$",
                                      r"\1\4 # SKIP \3", text, flags=re.M)
                    with open(os.path.join(out, name), "w") as f:
                        f.write(text)
                dirs.append(out)
        now = ktap.ci_compare(dirs[0], dirs[2])
        then = ktap.ci_compare(dirs[1], dirs[3])
    check("ci-names-two-recorded-runs", len(now) == 5 and all(ok for _, ok, _ in now) and
          not all(ok for _, ok, _ in then),
          "; ".join(f"{n}: {d}" for n, ok, d in now + then if not ok)[:300] or "no mutation seen")


def test_kcidb():
    """hptool kcidb: a test per feature and per probe, named hardprobe.<feature>[.<probe>],
    status by the module's KTAP rule (panic guests' verdicts merged), valid KCIDB 5.3."""
    with open(os.path.join(HERE, "module-rules.json")) as f:
        rules = json.load(f)["rules"]
    report = {"schema": 1, "target": "x86_64-gcc", "rules": rules,
              "kernel": {"release": "6.12.118", "version": "#1 SMP", "arch": "x86_64",
                         "compiler": "gcc-12", "cmdline": "console=ttyS0"},
              "features": [
                  {"feature": "a_b", "outcome": "vulnerable", "configured_bool": True, "probes": [
                      {"probe": "a_b.one", "kind": "safe", "outcome": "vulnerable", "known_gap": False},
                      {"probe": "a_b.two.x", "kind": "safe", "outcome": "protected"}]},
                  {"feature": "c", "outcome": "not_run", "configured_bool": True, "probes": [
                      {"probe": "c.smash", "kind": "panic", "outcome": "not_run"}]},
                  {"feature": "d", "outcome": "vulnerable", "configured_bool": False, "probes": [
                      {"probe": "d.gap", "kind": "safe", "outcome": "vulnerable", "known_gap": True},
                      {"probe": "d.err", "kind": "safe", "outcome": "error"}]}],
              "panic_probes": [{"probe": "c.smash", "outcome": "protected", "evidence": "panic"}]}
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        path = os.path.join(d, "report.json")
        with open(path, "w") as f:
            json.dump(report, f)
        sub = kcidb.submission(path)
    got = {t["path"]: t["status"] for t in sub["tests"]}
    check("kcidb-tests-by-ktap-rule", got == {
        "hardprobe.a_b": "FAIL", "hardprobe.a_b.one": "FAIL", "hardprobe.a_b.two_x": "PASS",
        "hardprobe.c": "PASS", "hardprobe.c.smash": "PASS", "hardprobe.d": "ERROR",
        "hardprobe.d.gap": "SKIP", "hardprobe.d.err": "ERROR"} and
        all(t["build_id"] == sub["builds"][0]["id"] for t in sub["tests"]), repr(got))
    other = json.loads(json.dumps(sub))
    same, _ = kcidb.same_paths(sub, other)
    other["tests"][-1]["path"] += "_x"
    differ, detail = kcidb.same_paths(sub, other)
    check("kcidb-same-paths", same and not differ and "hardprobe.d.err_x" in detail, detail)
    try:
        kcidb.timestamp(0)
        bad_clock = ""
    except Error as e:
        bad_clock = str(e)
    check("kcidb-timestamp-checked", "wrong clock" in bad_clock and
          re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$", sub["tests"][0]["start_time"]),
          bad_clock or "1970 accepted")
    if not os.path.isfile(KCIDB_SCHEMA):
        skip("kcidb-schema-valid", f"no KCIDB schema at {KCIDB_SCHEMA} (KCIDB_SCHEMA=)")
        return
    errs = kcidb.validate(sub, KCIDB_SCHEMA)
    bad = json.loads(json.dumps(sub))
    bad["tests"][0]["path"] = "hardprobe.a b"
    bad["tests"][1]["start_time"] = "yesterday"
    del bad["builds"][0]["checkout_id"]
    berrs = kcidb.validate(bad, KCIDB_SCHEMA)
    check("kcidb-schema-valid", not errs and len(berrs) >= 3,
          "; ".join(errs[:2]) or f"a broken copy: {len(berrs)} errors")


def test_tally_findings():
    log = "check a: ok\ncheck b: FAIL (x)\ncheck c: ok 3\nlint x: ok\nnoise\n"
    check("tally-summary", tally.summary(log) == "3 passed, 1 failed" and
          tally.summary(log + "check d: SKIP why\n") == "1 skipped\n3 passed, 1 failed")
    # a passing check whose detail quotes a failing one counts once, as passed
    quoted = "check host e: ok rc 1: check t kaslr-across-boots: FAIL (same offset)\n"
    check("tally-first-verdict", tally.summary(log + quoted) == "4 passed, 1 failed",
          tally.summary(log + quoted).replace("\n", "; "))
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        p = os.path.join(d, "check.log")
        with open(p, "w") as f:
            f.write(log)
        r = subprocess.run([sys.executable, "-m", "hptool", "tally", p], capture_output=True, text=True,
                           cwd=SCRIPTS)
        check("tally-exit-status", r.returncode == 1 and r.stdout == "3 passed, 1 failed\n", r.stdout.strip())
    dmesg = ["[    1.000000] hardprobe: result fortify.strcpy protected: detected buffer overflow",
             "[    1.100000] detected buffer overflow in strcpy",
             "[    1.100001] WARNING: CPU: 0 PID: 70 at lib/string_helpers.c:1028 __fortify_report+0x45/0x50",
             "[    1.100002] Modules linked in: hardprobe",
             "[    1.100003] ---[ end trace 0000000000000000 ]---",
             "[    2.000000] WARNING: CPU: 0 PID: 71 at mm/slub.c:1 foo+0x1/0x2",
             "[    2.000001] CPU: 0 UID: 0 PID: 71 Comm: hardprobe_fuzz Not tainted",
             "[    3.000000] BUG: KASAN: slab-out-of-bounds in bar+0x1/0x2",
             "[    4.000000] unreferenced object 0xffff888003f1c000 (size 64):"]
    with open(os.path.join(HERE, "module-rules.json")) as f:
        recorded = json.load(f)["reports"]
    got = findings.findings(dmesg, recorded)
    # a probe's own catch, in one of our tasks: intended with the reports, a finding without
    catch = ["[    1.100000] detected buffer overflow in strcpy",
             "[    1.100001] WARNING: CPU: 0 PID: 70 at lib/string_helpers.c:1028 __fortify_report+0x45/0x50",
             "[    1.100002] CPU: 0 UID: 0 PID: 70 Comm: hardprobe_test Not tainted",
             "[    1.100003] ---[ end trace 0000000000000000 ]---"]
    check("findings-catch-intended-by-reports", findings.findings(catch, recorded) == [] and
          findings.findings(catch) == [catch[1][15:]], "no reports: every warning counts")
    # 7.x spells a WARN()'s first line "WARNING: <file>:<line> at <where>, CPU#<n>: <task>":
    # the same block, intended or not; lockdep's "WARNING: possible ..." stays a finding
    catch7 = [catch[0], "[    1.100001] WARNING: lib/string_helpers.c:1028 at __fortify_report+0x45/0x50, "
              "CPU#0: hardprobe_test/70"] + catch[2:] + [
              "[    1.200000] WARNING: possible circular locking dependency detected"]
    race = ["[    3.725610] debugfs file owner did not clean up at exit: report",
            "[    3.725772] WARNING: CPU: 1 PID: 61 at fs/debugfs/file.c:281 open_proxy_open+0xd8/0x110",
            "[    3.725851] CPU: 1 UID: 0 PID: 61 Comm: hardprobe_fuzz Tainted: G        W  OE    N",
            "[    3.728731] ---[ end trace 0000000000000000 ]---"]
    check("findings-unload-race", findings.findings(race) == [] and
          findings.findings([race[0].replace("debugfs file owner", "other")] + race[1:]) == [race[1][15:]],
          repr(findings.findings(race)))
    # the WARN() header corpus the selftests' warn_header_pid() is held to as well
    corpus = []
    with open(os.path.join(HERE, "logs", "warn-headers.txt")) as f:
        for line in f:
            if not line.startswith("#") and line.strip():
                pid, msg = line.rstrip("\n").split("\t", 1)
                corpus.append((None if pid == "-" else int(pid), msg))
    bad = [(pid, msg, findings.warn_pid(msg)) for pid, msg in corpus if findings.warn_pid(msg) != pid]
    check("findings-warn-header-corpus", not bad and len(corpus) >= 15,
          f"{len(corpus)} lines" if not bad else repr(bad[:3]))
    # a header without the file (CONFIG_DEBUG_BUGVERBOSE=n) opens a block like any other
    nofile = [catch[0], "[    1.100001] WARNING: at __fortify_report+0x45/0x50, CPU#0: hardprobe_test/70"] + catch[2:]
    check("findings-warn-header-no-file", findings.findings(nofile, recorded) == [] and
          findings.findings(nofile) == [nofile[1][15:]], repr(findings.findings(nofile)))
    check("findings-warn-header-7x", findings.findings(catch7, recorded) == [catch7[4][15:]] and
          findings.findings(catch7) == [catch7[1][15:], catch7[4][15:]],
          repr(findings.findings(catch7, recorded)))
    # SLUB's report on a probe's own cache (slab_debug: "BUG hp_slab_debug..."), while that
    # probe runs, with the warning object_err() raises inside it from 6.12 on: intended; the
    # same on another cache, or a warning after SLUB's "FIX" line ends the report: findings
    slub = ["[    4.900000] hardprobe: begin slab_debug.redzone",
            "[    5.000000] [Right Redzone overwritten] 0x0000000012345678-0x0000000012345678 "
            "@offset=92. First byte 0x33 instead of 0xcc",
            "[    5.000001] BUG hp_slab_debug_rz (Tainted: G    B      O      ): Object corrupt",
            "[    5.000002] ------------[ cut here ]------------",
            "[    5.000003] WARNING: CPU: 0 PID: 70 at mm/slub.c:1127 object_err+0x40/0x50",
            "[    5.000004] CPU: 0 UID: 0 PID: 70 Comm: hardprobe_test Tainted: G    B   W  O",
            "[    5.000005]  hp_sd_write_check+0x5c/0xe0 [hardprobe]",
            "[    5.000006] ---[ end trace 0000000000000000 ]---",
            "[    5.000007] FIX hp_slab_debug_rz: Restoring Right Redzone 0x0-0x0=0xcc"]
    other = [line.replace("hp_slab_debug_rz", "kmalloc-64") for line in slub]
    late = [line for line in slub if "WARNING" not in line] + [slub[4], slub[5]]
    mine, sd = ("BUG hp_slab_debug",), {"slab_debug.redzone": "BUG hp_slab_debug"}
    check("findings-slub-report-intended", findings.findings(slub, mine, sd) == [] and
          findings.findings(other, mine, sd) == [other[2][15:], other[4][15:]] and
          findings.findings(late, mine, sd) == [slub[4][15:]] and
          findings.findings(slub[1:], mine, sd) == [slub[2][15:], slub[4][15:]],
          repr(findings.findings(other, mine, sd)))
    # the stress run's catches: the full rules up to the marker (anchored: the command line
    # echoed into the log does not split it); after it the oopses are the point, and KASAN,
    # lockdep, hung tasks and RCU stalls are still findings
    st = ["[    7.0] Kernel command line: x hardprobe-stress: catches",
          "[    7.1] BUG: KASAN: use-after-free in early+0x1/0x2",
          "[    8.0] hardprobe-stress: catches",
          "[    8.1] Oops: 0011 [#1] SMP NOPTI",
          "[    8.2] kernel BUG at mm/foo.c:1!",
          "[    8.3] INFO: task rmmod:99 blocked for more than 122 seconds.",
          "[    8.4] WARNING: possible circular locking dependency detected",
          "[    8.5] BUG: KASAN: slab-use-after-free in hp_x+0x1/0x2 [hardprobe]"]
    before, after = findings.split_stress(st)
    check("findings-stress-split", before == st[:2] and after == st[3:] and
          findings.findings(before) == [st[1][10:]] and
          findings.stress_findings(after) == [st[5][10:], st[6][10:], st[7][10:]] and
          findings.split_stress(st[:2])[1] is None, repr(findings.stress_findings(after or [])))
    # a BUG report is a probe's catch only while that probe, declaring it, is in flight
    kf = ["[    5.0] hardprobe: begin kfence.oob_read [7]",
          "[    5.1] BUG: KFENCE: out-of-bounds read in hp_kf_read+0x5/0x10 [hardprobe]",
          "[    5.2] hardprobe: end kfence.oob_read",
          "[    5.3] BUG: KFENCE: use-after-free read in foo+0x1/0x2",
          "[    6.0] hardprobe: begin slab_debug.redzone [8]",
          "[    6.1] BUG hp_slab (Not tainted): Right Redzone overwritten",
          "[    6.2] BUG: KASAN: slab-out-of-bounds in bar+0x1/0x2",
          "[    6.3] Oops: general protection fault, probably for non-canonical address",
          "[    6.4] hardprobe: result slab_debug.redzone protected: ..."]
    own = {"kfence.oob_read": "BUG: KFENCE: ", "slab_debug.redzone": "Redzone overwritten"}
    got_kf = findings.findings(kf, (), own)
    check("findings-bug-report-in-flight", got_kf == [kf[3][10:], kf[6][10:], kf[7][10:]] and
          len(findings.findings(kf)) == 5, "; ".join(got_kf))
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        p = os.path.join(d, "report.json")
        with open(p, "w") as f:
            json.dump({"features": [{"probes": [{"reports": r} for r in recorded] +
                                     [{"probe": k, "reports": v} for k, v in own.items()]}]}, f)
        check("findings-intended-from-json", findings.intended(p) == tuple(sorted(set(recorded) | set(own.values())))
              and findings.intended(os.path.join(d, "none.json")) == () and findings.probe_reports(p) == own
              and findings.probe_reports(os.path.join(d, "none.json")) == {})
    want = ["WARNING: CPU: 0 PID: 71 at mm/slub.c:1 foo+0x1/0x2",
            "BUG: KASAN: slab-out-of-bounds in bar+0x1/0x2",
            "unreferenced object 0xffff888003f1c000 (size 64):"]
    same = True
    sh_old = old("scripts/check-debug.sh")
    if sh_old is not None:
        code = sh_old.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
        with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
            p = os.path.join(d, "dmesg.txt")
            with open(p, "w") as f:
                f.write("\n".join(dmesg) + "\n")
            r = subprocess.run([sys.executable, "-", p], input=code, capture_output=True, text=True)
            same = r.stdout == f"{len(want)} {want[0]}\n"
    check("findings-as-check-debug", got == want and same, f"{len(got)} findings; "
          f"{'same as the embedded Python of b781ecb' if sh_old else 'b781ecb not available'}")


def test_symbols():
    cc = shutil.which("gcc-12") or shutil.which("gcc")
    bench_old = old("scripts/bench.py")
    if not cc or bench_old is None:
        return skip("symbols-readelf-sizes", "no gcc or no b781ecb")
    ns = {}
    exec(bench_old.split("def parse(text)")[0], ns)
    with tempfile.TemporaryDirectory(prefix="hp-tool-") as d:
        src = os.path.join(d, "t.c")
        with open(src, "w") as f:
            f.write("int a(int x) { return x * 3; }\nstatic int b(int x) { return x + a(x); }\n"
                    "int c(int x) { return b(x) << 2; }\nint data = 4;\n")
        subprocess.run([cc, "-O2", "-fno-inline", "-c", "-o", os.path.join(d, "t.o"), src], check=True)
        new = symbols.function_sizes(os.path.join(d, "t.o"))
        was = ns["elf_symbol_sizes"](os.path.join(d, "t.o"))
    check("symbols-readelf-sizes", new == was and {"a", "c"} <= set(new) and "data" not in new, str(new))


def test_offvariants():
    """scripts/off-variants: name | target | features, each line as the file has it; the
    old five-field shape (its own switches) is refused."""
    vs = offvariants.parse()
    want = []
    for line in open(os.path.join(SCRIPTS, "off-variants")):
        f = [x.strip() for x in line.rstrip("\n").split("|")]
        if f[0] and not f[0].startswith("#"):
            want.append(f)
    got = [[v[k] for k in ("name", "target", "features")] for v in vs]
    try:
        offvariants.select(vs, "x86-boot,nope")
        err = ""
    except Error as e:
        err = str(e)
    d = tempfile.mkdtemp(prefix="hp-test-")
    old = os.path.join(d, "off-variants")
    with open(old, "w") as f:
        f.write("x86-boot | x86_64-gcc | cmdline | rodata=off | rodata\n")
    try:
        offvariants.parse(old)
        refused = ""
    except Error as e:
        refused = str(e)
    shutil.rmtree(d)
    check("offvariants-parse", got == want and len(got) > 5 and
          [v["name"] for v in offvariants.select(vs, "init-free,x86-boot")] == ["x86-boot", "init-free"] and
          "no variant nope" in err and "want name | target" in refused, f"{len(got)} variants; {refused}")


def test_offvariants_switches():
    """a variant's switches come from the module's records in report.json: "off" for a
    feature, "on" for +feature and *feature, none for ~feature; one boot key twice merged,
    repeats dropped, Kconfig lines apart; a missing feature, a missing switch and a report
    without the records are errors."""
    def rep(**feats):
        return {k: {"feature": k, "off": v[0], "on": v[1]} for k, v in feats.items()}
    r = rep(rodata=(["rodata=off"], []), ro_after_init=(["rodata=off"], []),
            user_access=(["clearcpuid=smap"], []), user_exec=(["clearcpuid=smep"], []),
            kaslr=(["nokaslr"], []), its=([], ["indirect_target_selection=force"]),
            fortify=(["CONFIG_FORTIFY_SOURCE=n"], []), slab_free=(["CONFIG_SLAB_FREELIST_HARDENED=n"], []),
            freelist_hardened=(["CONFIG_SLAB_FREELIST_HARDENED=n"], []),
            slab_debug=([], ["slub_debug=ZP,hp_slab_debug*"]), pointer_hashing=(["no_hash_pointers"], []),
            umh=([], ['CONFIG_STATIC_USERMODEHELPER=y', 'CONFIG_STATIC_USERMODEHELPER_PATH=""']))

    def sw(features, report=r):
        try:
            return offvariants.switches({"name": "t", "target": "x", "features": features}, report)
        except Error as e:
            return str(e)
    got = [sw("rodata,ro_after_init,user_access,user_exec,kaslr,*its"),
           sw("fortify,slab_free,freelist_hardened,+umh"),
           sw("+slab_debug,~pointer_hashing")]
    want = [(["rodata=off", "clearcpuid=smap,smep", "nokaslr", "indirect_target_selection=force"], []),
            ([], ["CONFIG_FORTIFY_SOURCE=n", "CONFIG_SLAB_FREELIST_HARDENED=n", "CONFIG_STATIC_USERMODEHELPER=y",
                  'CONFIG_STATIC_USERMODEHELPER_PATH=""']),
            (["slub_debug=ZP,hp_slab_debug*"], [])]
    errs = [sw("nope"), sw("+kaslr"), sw("rodata", {"rodata": {"feature": "rodata"}}),
            sw("kaslr,+x", rep(kaslr=(["nokaslr"], []), x=([], ["nokaslr=1"])))]
    frag = offvariants.fragment({"name": "t", "target": "x"}, want[1][1])
    check("offvariants-switches", got == want and "no feature 'nope'" in errs[0] and
          "no switch that turns it on" in errs[1] and "older" in errs[2] and "with and without" in errs[3] and
          frag.count("  # required\n") == 4, f"{got} {errs}")


def test_offcheck():
    """hptool offcheck: a feature turned off goes protected -> vulnerable, one turned on (+feature)
    vulnerable -> protected; the wrong direction, and any other feature that changes, fail."""
    def rep(d, outcomes):
        os.makedirs(d)
        with open(os.path.join(d, "report.json"), "w") as f:
            json.dump({"features": [{"feature": k, "outcome": v, "probes": []} for k, v in outcomes.items()]}, f)

    def run(base, var, feats):
        p = subprocess.run([*HPTOOL, "offcheck", "t", base, var, feats],
                           capture_output=True, text=True)
        return p.returncode, p.stdout

    with tempfile.TemporaryDirectory() as d:
        b, v, w = (os.path.join(d, x) for x in ("b", "v", "w"))
        rep(b, {"a": "protected", "on": "vulnerable", "x": "protected", "u": "unsupported"})
        rep(v, {"a": "vulnerable", "on": "protected", "x": "protected", "u": "unsupported"})
        rep(w, {"a": "vulnerable", "on": "vulnerable", "x": "vulnerable", "u": "unsupported"})
        rc, out = run(b, v, "a,+on")
        good = (rc == 0 and "check off-t a: ok protected -> vulnerable" in out
                and "check off-t on: ok vulnerable -> protected" in out
                and "others-unchanged: ok (2 features" in out)
        rc2, out2 = run(b, w, "a,+on")
        bad = (rc2 == 1 and "check off-t on: FAIL (turned on, yet vulnerable" in out2
               and "check off-t x: FAIL (unrelated feature changed" in out2)
        rc3, out3 = run(b, v, "+a,on")
        wrong = (rc3 == 1 and "check off-t a: FAIL (base run says protected, not vulnerable: nothing to turn on)"
                 in out3 and "nothing to turn off" in out3)
    check("offcheck-off-and-on", good and bad and wrong,
          " / ".join(x.replace("check ", "") for x in (out + out2 + out3).splitlines() if "FAIL" in x or "ok" in x)
          if not (good and bad and wrong) else "3 runs: off, on, both wrong")

    # an unrelated feature inconclusive by chance on one run (a random draw of that boot,
    # report.json "chance") is not compared: SKIP, never ok; without "chance" it changed
    def drawn(d, chance, extra=None):
        os.makedirs(d)
        feats = [{"feature": "a", "outcome": "vulnerable", "probes": []},
                 {"feature": "k", "outcome": "inconclusive", "probes": [
                     {"probe": "k.t", "outcome": "inconclusive", "chance": chance, "evidence": "slot 0"},
                     {"probe": "k.r", "outcome": "protected", "evidence": "moved"}]}]
        with open(os.path.join(d, "report.json"), "w") as f:
            json.dump({"features": feats + (extra or [])}, f)
    with tempfile.TemporaryDirectory() as d:
        b, c, n, o = (os.path.join(d, x) for x in ("b", "c", "n", "o"))
        rep(b, {"a": "protected", "k": "protected"})
        rep(o, {"a": "vulnerable", "k": "vulnerable"})
        drawn(c, True)
        drawn(n, False)
        rc4, out4 = run(b, c, "a")
        rc5, out5 = run(b, n, "a")
        rc6, out6 = run(c, o, "k")
    ok = (rc4 == 0 and "check off-t k: SKIP (protected -> inconclusive, inconclusive by chance: k.t: slot 0)"
          in out4 and "others-unchanged: ok (0 features as on the base run, 0 changed, 1 not compared" in out4
          and rc5 == 1 and "check off-t k: FAIL (unrelated feature changed" in out5
          and rc6 == 0 and "check off-t k: SKIP (base run inconclusive by chance" in out6)
    check("offcheck-chance", ok, "chance skipped, a failed control changed" if ok else
          " / ".join((out4 + out5 + out6).splitlines()))


def test_say():
    """hptool's progress line: "[hardprobe <elapsed since HP_T0>] <stage> <target> <text>" on
    stderr, the stage and target in columns; with HP_STAGES, "time<TAB>stage<TAB>target"
    appended there (hptool stage-timings reads it)"""
    import re
    import time
    st = tempfile.mkdtemp()
    stages = os.path.join(st, "stages")
    q = subprocess.run([sys.executable, "-c", "import hptool; hptool.say('build', 'x86_64-gcc', "
                        "'kernel and modules'); hptool.say('matrix', '-', 'x y'); hptool.say('run', '', 'z')"],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=SCRIPTS, HP_STAGES=stages, HP_T0=str(int(time.time()) - 75)))
    with open(stages) as f:
        got = [ln.split("\t") for ln in f.read().splitlines()]
    shutil.rmtree(st)
    check("say-stages", [g[1:] for g in got] == [["build", "x86_64-gcc"], ["matrix", "-"], ["run", "-"]]
          and all(abs(int(g[0]) - time.time()) < 60 for g in got), str(got))
    want = [r"build    x86_64-gcc     kernel and modules", r"matrix   -              x y", r"run      -              z"]
    lines = q.stderr.splitlines()
    check("say-line", len(lines) == 3 and all(re.match(r"^\[hardprobe +1m1\ds\] " + re.escape(w) + "$", ln)
                                              for w, ln in zip(want, lines)), q.stderr)


def test_renames():
    """module/lib/renames.h is what scripts/kconfig-renames generates; fragments are spelled
    per kernel version."""
    table = renames.parse()
    have = {(o, n) for o, n, _, _ in table}
    want = {("CONFIG_CFI_CLANG", "CONFIG_CFI"), ("CONFIG_UBSAN_SIGNED_WRAP", "CONFIG_UBSAN_INTEGER_WRAP"),
            ("CONFIG_GCC_PLUGIN_STACKLEAK", "CONFIG_KSTACK_ERASE"), ("CONFIG_SLS", "CONFIG_MITIGATION_SLS"),
            ("CONFIG_RETPOLINE", "CONFIG_MITIGATION_RETPOLINE")}
    check("renames-table", want <= have, f"{len(table)} renames")
    stale = renames.header_stale()
    check("renames-header-generated", stale is None,
          stale or f"{renames.HEADER}: {len(table)} renames, as the table generates it")
    # positive control: a header edited by hand, or a table row it lacks, is caught
    text = open(os.path.join(TOP, renames.HEADER)).read()
    with tempfile.TemporaryDirectory() as d:
        wrong = os.path.join(d, "renames.h")
        with open(wrong, "w") as f:
            f.write(text.replace("KERNEL_VERSION(6, 18, 0)", "KERNEL_VERSION(6, 13, 0)"))
        more = table + [("CONFIG_X_OLD", "CONFIG_X_NEW", (7, 2), "X")]
        gen = renames.header(more)
        check("renames-header-stale-caught",
              renames.header_stale(wrong) is not None and renames.header_stale(None, more) is not None
              and "#define HP_SYM_X\t\"CONFIG_X_NEW\"" in gen and "KERNEL_VERSION(7, 2, 0)" in gen,
              "a hand edit and a new row both caught")
    frag = "CONFIG_MITIGATION_SLS=y  # required\n# CONFIG_MITIGATION_RETPOLINE is not set\nCONFIG_CFI_CLANG=y\n"
    old61 = renames.spell(frag, "6.1")
    main = renames.spell(frag, "6.18.3")
    check("renames-spell-per-version",
          old61 == "CONFIG_SLS=y  # required\n# CONFIG_RETPOLINE is not set\nCONFIG_CFI_CLANG=y\n" and
          renames.spell(frag, "6.12.118") == frag and
          main == "CONFIG_MITIGATION_SLS=y  # required\n# CONFIG_MITIGATION_RETPOLINE is not set\nCONFIG_CFI=y\n" and
          renames.spell(main, "6.12") == frag, old61.replace("\n", " | "))


def compat_macros(names):
    """The #define lines of module/lib/compat.h for @names, with their continuations."""
    out, keep = [], False
    for line in open(os.path.join(TOP, "module", "lib", "compat.h")):
        m = re.match(r"#define (\w+)", line)
        if m:
            keep = m.group(1) in names
        if keep:
            out.append(line)
            keep = line.rstrip().endswith("\\")
    return "".join(out)


KUNIT_SIGS = {"6.12": "const void *prev, char *desc",
              "mainline": "struct kunit *test, const void *prev, char *desc"}


def kunit_gen_compiles(sig, use="HP_KUNIT_GEN(gen)"):
    """Compile, for the host, a struct kunit_case whose generate_params() has the signature
    @sig, initialised with @use, and the two macros of module/lib/compat.h: (rc, output,
    which of gen and gen_test the field holds)."""
    macros = compat_macros(("HP_KUNIT_GEN_TAKES_TEST", "HP_KUNIT_GEN"))
    if macros.count("#define") != 2:
        return 1, "module/lib/compat.h: no HP_KUNIT_GEN_TAKES_TEST / HP_KUNIT_GEN", None
    src = ("#include <stddef.h>\n#include <stdio.h>\nstruct kunit { int x; };\n"
           f"struct kunit_case {{ const void *(*generate_params)({sig}); }};\n" + macros +
           "static const void *gen(const void *prev, char *desc) { return prev; }\n"
           "static const void *gen_test(struct kunit *test, const void *prev, char *desc)"
           " { return prev; }\n"
           f"static struct kunit_case c = {{ .generate_params = {use} }};\n"
           "int main(void) { puts((void *)c.generate_params == (void *)gen ? \"gen\" :\n"
           " (void *)c.generate_params == (void *)gen_test ? \"gen_test\" : \"?\"); return 0; }\n")
    with tempfile.TemporaryDirectory() as d:
        c, exe = os.path.join(d, "gen.c"), os.path.join(d, "gen")
        with open(c, "w") as f:
            f.write(src)
        p = subprocess.run(["gcc", "-Wall", "-Wno-unused-function", "-Werror=incompatible-pointer-types",
                            "-o", exe, c], capture_output=True, text=True)
        if p.returncode:
            return p.returncode, p.stderr, None
        return 0, "", subprocess.run([exe], capture_output=True, text=True).stdout.strip()


def test_kunit_gen():
    """KUnit's generate_params() gained the test as first argument after 6.12: the
    suites' initialiser compiles against both signatures and picks the matching generator."""
    got = {k: kunit_gen_compiles(sig) for k, sig in KUNIT_SIGS.items()}
    check("kunit-gen-params-both-signatures",
          got["6.12"][2] == "gen" and got["mainline"][2] == "gen_test",
          "; ".join(f"{k}: {v[2] or v[1].strip().splitlines()[-1:]}" for k, v in got.items()))
    # positive control: the plain 6.12 generator does not compile against mainline's field
    rc, err, _ = kunit_gen_compiles(KUNIT_SIGS["mainline"], use="gen")
    check("kunit-gen-params-mismatch-caught", rc != 0 and "incompatible" in err,
          "gen(prev, desc) into mainline's field: " + ("refused" if rc else "accepted"))


def test_run_args():
    """hptool run refuses an unknown target and a kernel of one's own without both KDIR and
    KIMAGE, or without Module.symvers, before it builds, boots or writes anything"""
    res = tempfile.mkdtemp(prefix="hp-run-")
    kdir = tempfile.mkdtemp(prefix="hp-run-kdir-")
    image = os.path.join(kdir, "bzImage")
    open(image, "w").close()
    got = []
    for target, extra, want in (
            ("no-such-target", {}, "unknown target 'no-such-target'"),
            ("custom", {"KDIR": kdir}, "needs both KDIR="),
            ("custom", {"KIMAGE": image}, "needs both KDIR="),
            ("custom", {"KDIR": kdir, "KIMAGE": image + ".gone"}, "no such file"),
            ("custom", {"KDIR": kdir, "KIMAGE": image}, "no Module.symvers")):
        env = {k: v for k, v in os.environ.items() if k not in ("KDIR", "KIMAGE")}
        env.update(extra, RESULTS=res)
        p = subprocess.run([*HPTOOL, "run", target], capture_output=True, text=True, env=env, timeout=60)
        got.append((p.returncode == 1 and want in p.stderr, f"{target} {sorted(extra)}: {p.returncode} "
                    f"{p.stderr.strip()[-120:]!r}"))
    made = os.listdir(res)
    shutil.rmtree(res)
    shutil.rmtree(kdir)
    check("hptool-run-refuses", all(ok for ok, _ in got) and not made,
          "; ".join(d for ok, d in got if not ok) + (f" wrote {made}" if made else ""))
    # make offcheck's and make lkdtm's commands: a wrong name is refused before any run
    p = subprocess.run([*HPTOOL, "off", "x86-boot,no-such-variant"], capture_output=True, text=True, timeout=60)
    q = subprocess.run([*HPTOOL, "lkdtm", "no-such-target"], capture_output=True, text=True, timeout=60)
    check("hptool-off-lkdtm-refuse", p.returncode == 1 and "no variant no-such-variant" in p.stderr
          and q.returncode == 1 and "unknown target 'no-such-target'" in q.stderr,
          f"off: {p.returncode} {p.stderr.strip()[-100:]!r}; lkdtm: {q.returncode} {q.stderr.strip()[-100:]!r}")


def test_kaslr_args():
    """hptool kaslr refuses an unknown target and --boots 0 before it builds or boots anything"""
    env = dict(os.environ, RESULTS=tempfile.mkdtemp(prefix="hp-kaslr-"))
    p = subprocess.run([*HPTOOL, "kaslr", "no-such-target", "--boots", "2"], capture_output=True,
                       text=True, env=env, timeout=60)
    q = subprocess.run([*HPTOOL, "kaslr", "x86_64-gcc", "--boots", "0"], capture_output=True,
                       text=True, env=env, timeout=60)
    made = os.listdir(env["RESULTS"])
    os.rmdir(env["RESULTS"])
    check("hptool-kaslr-refuses", p.returncode == 1 and "unknown target 'no-such-target'" in p.stderr
          and q.returncode == 2 and "--boots: at least 1" in q.stderr and not made,
          f"rc {p.returncode}: {p.stderr.strip()[-80:]} | rc {q.returncode}: "
          f"{q.stderr.strip().splitlines()[-1] if q.stderr.strip() else ''}")


def main():
    rec = recorded()
    test_renames()
    test_kunit_gen()
    test_say()
    test_offvariants()
    test_offvariants_switches()
    test_offcheck()
    test_run_args()
    test_kaslr_args()
    test_targets(rec)
    test_matrix_targets()
    test_qemu(rec)
    test_initramfs()
    test_cache_key()
    test_outcome()
    test_expect()
    test_config_agrees()
    test_stage_timings()
    test_ktap()
    test_tally_findings()
    test_kver_tree()
    test_ci_names()
    test_ci_names_recorded()
    test_kcidb()
    test_symbols()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
