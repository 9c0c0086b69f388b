#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the compiler layer (scripts/hptool/ccprobe.py) on this machine's compilers.

Asserts facts that must hold with the Debian compilers the bench installs and that a broken
probe would get wrong. Prints one "check host <name>: ok|FAIL|SKIP" line per test; exit 1 on
any FAIL. A compiler the bench does not install (clang-22) is SKIPped when absent.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)
# the host tool as make check runs it (its subcommands import hptool from SCRIPTS)
os.environ["PYTHONPATH"] = SCRIPTS + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
HPTOOL = [sys.executable, "-m", "hptool"]
from hptool import ccprobe  # noqa: E402

# the feature ids of DESIGN.md's catalogue that have a compiler side
DESIGN_IDS = {"stack_init", "zero_call_regs", "stack_canary", "kcfi", "ibt", "bti", "pac_ret",
              "shadow_call_stack", "sls", "retpoline", "slh", "stack_clash", "signed_overflow",
              "unsigned_overflow", "truncation", "array_bounds", "fortify", "randstruct",
              "function_sections", "lto", "fallthrough"}
results = []


def check(name, ok, detail=""):
    if ok is None:
        print(f"check host ccprobe-{name}: SKIP {detail}")
        return
    results.append(ok)
    print(f"check host ccprobe-{name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


def main():
    out = tempfile.mktemp(prefix="hp-compiler-", suffix=".json")
    p = subprocess.run([*HPTOOL, "ccprobe", "-o", out],
                       capture_output=True, text=True)
    check("runs", p.returncode == 0 and os.path.exists(out),
          p.stderr.strip()[-200:] if p.returncode else "")
    if not os.path.exists(out):
        return 1
    r = json.load(open(out))
    os.unlink(out)
    F = r["features"]
    present = {c["id"] for c in r["compilers"] if not c.get("absent")}

    def c(feat, cc):
        return F[feat][cc]

    # the schema the matrix renderer reads
    cells = [x for f in F.values() for x in f.values()]
    check("schema", r["schema"] == 1 and set(F) == DESIGN_IDS and
          all(set(x) == {"accepted", "emits", "flag", "evidence"} for x in cells) and
          all(x["emits"] is None for x in cells if x["accepted"] is False) and
          all(set(f) == {x["id"] for x in r["compilers"]} for f in F.values()),
          f"{len(F)} features x {len(r['compilers'])} compilers")
    check("table-printed", "signed_overflow" in p.stdout and "E = accepted" in p.stdout)

    for cc in ("gcc-12/x86_64", "clang-19/x86_64"):
        if cc not in present:
            check(f"{cc}-present", False, "missing: make deps")
            return 1

    # SLH: clang only
    check("slh-gcc-12-rejects", c("slh", "gcc-12/x86_64")["accepted"] is False,
          c("slh", "gcc-12/x86_64")["evidence"])
    x = c("slh", "clang-19/x86_64")
    check("slh-clang-19-emits", x["accepted"] is True and x["emits"] is True, x["evidence"])

    # signed overflow under the kernel's -fno-strict-overflow: gcc-12 instruments nothing
    g, k = c("signed_overflow", "gcc-12/x86_64"), c("signed_overflow", "clang-19/x86_64")
    check("signed-overflow-gcc-12-none", g["accepted"] is True and g["emits"] is False and
          g["evidence"].startswith("0 "), g["evidence"])
    check("signed-overflow-clang-19-emits", k["emits"] is True and
          not k["evidence"].startswith("0 "), k["evidence"])

    # kCFI: clang only
    check("kcfi-gcc-12-rejects", c("kcfi", "gcc-12/x86_64")["accepted"] is False)
    for cc in ("clang-19/x86_64", "clang-19/arm64", "clang-22/x86_64", "clang-22/arm64"):
        if cc not in present:
            check(f"kcfi-{cc}", None, f"(absent: apt-get install {cc.split('/')[0]})")
            continue
        x = c("kcfi", cc)
        check(f"kcfi-{cc}", x["accepted"] is True and x["emits"] is True, x["evidence"])

    # stack clash (module/layout/buildprobe/checks.sh, the module build's own check): page probes
    # for a 12 KiB frame with the flag, none without
    for cc in ("gcc-12/x86_64", "clang-19/x86_64", "clang-19/arm64"):
        if cc not in present:
            continue
        x = c("stack_clash", cc)
        m = re.search(r"12 KiB frame (\d+) with the flag vs (\d+) with the kernel's", x["evidence"])
        check(f"stack-clash-{cc}", x["emits"] is True and m is not None and
              int(m.group(1)) > 0 and m.group(2) == "0", x["evidence"])

    # randstruct: two seeds give two layouts with clang; GCC needs the kernel's plugin
    x = c("randstruct", "clang-19/x86_64")
    m = re.search(r"seed 1 ([\d,]+), seed 2 ([\d,]+) \(declared ([\d,]+)\)", x["evidence"])
    check("randstruct-clang-19-seeds", x["emits"] is True and m is not None and
          len({m.group(1), m.group(2), m.group(3)}) == 3, x["evidence"])
    check("randstruct-gcc-12-no-plugin", c("randstruct", "gcc-12/x86_64")["accepted"] is False)

    # a missing compiler is recorded as absent with its Debian package, not a failure
    saved = ccprobe.COMPILERS
    ccprobe.COMPILERS = [("clang-99", "x86_64", ["hp-no-such-clang-99"], "clang-99")]
    try:
        with open(os.devnull, "w") as null:
            old, sys.stdout = sys.stdout, null
            try:
                rc = ccprobe.main(["-o", out, "--features", "kcfi,fallthrough"])
            finally:
                sys.stdout = old
        a = json.load(open(out))
        os.unlink(out)
        cell = a["features"]["kcfi"]["clang-99/x86_64"]
        check("absent-compiler", rc == 0 and a["compilers"][0].get("absent") is True and
              a["compilers"][0].get("package") == "clang-99" and cell["accepted"] is None and
              "apt-get install clang-99" in cell["evidence"], cell["evidence"])
    finally:
        ccprobe.COMPILERS = saved
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
