#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of scripts/registry_doc.py: the feature list of Documentation/hardprobe.rst.

The generator must see every feature of module/registry.h (39 today) and every probe
that module/ declares (counted here a second, simpler way: the HP_REGISTRY( lines of the registry,
the literal HP_PROBE() lines and the stack_init X-macro list), and the rst must be up
to date (--check). A stale copy must make --check fail. Prints one
"check host <name>: ok|FAIL" line per test; exit 1 on any FAIL.
"""
import glob
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
import registry_doc  # noqa: E402

GEN = os.path.join(SCRIPTS, "registry_doc.py")
RST = os.path.join(TOP, "Documentation", "hardprobe.rst")
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


def declared_features():
    """The ids of the registry's HP_REGISTRY( lines, by a plain regex."""
    text = open(os.path.join(TOP, "module", "registry.h")).read()
    return re.findall(r"^\s*HP_REGISTRY\((\w+),", text, re.M)


def declared_probes():
    """<feature>.<probe> of every HP_PROBE() in module/*/*.c whose names are
    literal, and stack_init's, whose names come from HP_SI_CASES."""
    names = set()
    for path in glob.glob(os.path.join(TOP, "module", "*", "*.c")):
        for feat, probe in re.findall(r"\bHP_PROBE\(\s*(\w+)\s*,\s*(\w+)\s*,",
                                      open(path).read()):
            if (feat, probe) != ("stack_init", "name"):
                names.add(f"{feat}.{probe}")
    leaves = open(os.path.join(TOP, "module", "stack_init", "stack_init_leaves.h")).read()
    cases = leaves[leaves.index("#define HP_SI_CASES(X)"):]
    cases = cases[:cases.index("\n\n")]
    names |= {f"stack_init.{n}" for n in re.findall(r"\bX\((\w+),", cases)}
    return names


def main():
    try:
        feats, probes = registry_doc.load(TOP)
    except registry_doc.ParseError as e:
        check("registry-doc-parse", False, str(e))
        return 1
    ids = [f["id"] for f in feats]
    want = declared_features()
    # every HP_REGISTRY( line of the registry, and no fewer than the 39 features of today (a
    # hard 39 would make a new feature edit this test too)
    check("registry-doc-features", len(ids) >= 39 and ids == want,
          f"{len(ids)} features of {len(want)} HP_REGISTRY( lines, registry order"
          + ("" if ids == want else f": differs from the HP_REGISTRY( lines: {sorted(set(ids) ^ set(want))}"))
    check("registry-doc-titles", all(f["title"] and f["group"] for f in feats) and
          all(os.path.isdir(os.path.join(TOP, "module", f["family"])) for f in feats),
          "every feature has a title, a group and its folder module/<family>/")
    got = [f"{f}.{p}" for f, p, _ in probes]
    want_p = declared_probes()
    dups = sorted({n for n in got if got.count(n) > 1})
    check("registry-doc-probes", set(got) == want_p and not dups,
          f"{len(got)} probes" + (f"; duplicates {dups}" if dups else "")
          + (f"; missing {sorted(want_p - set(got))}" if want_p - set(got) else "")
          + (f"; not declared {sorted(set(got) - want_p)}" if set(got) - want_p else ""))
    empty = [i for i in ids if not any(f == i for f, _, _ in probes)]
    check("registry-doc-every-feature-probed", not empty,
          f"features without a probe: {empty}" if empty else "")
    def by_version(f):
        return all(k.endswith("+") or k.startswith("before ") for k in f["symbol"])
    arch = [f["id"] for f in feats if "" not in f["symbol"] and not by_version(f)]
    check("registry-doc-arch-symbols",
          all({"x86_64", "arm64"} <= set(f["symbol"]) for f in feats if f["id"] in arch)
          and {"user_exec", "user_access", "spectre_v1"} <= set(arch),
          f"per-arch symbols: {', '.join(arch)}")
    # the Kconfig symbols renamed after 6.12 (module/lib/compat.h) come with both names
    renamed = {f["id"]: f["symbol"] for f in feats if by_version(f)}
    want = {"kcfi": ("CONFIG_CFI", "CONFIG_CFI_CLANG"),
            "stack_erase": ("CONFIG_KSTACK_ERASE", "CONFIG_GCC_PLUGIN_STACKLEAK"),
            "signed_overflow": ("CONFIG_UBSAN_INTEGER_WRAP", "CONFIG_UBSAN_SIGNED_WRAP")}
    check("registry-doc-version-symbols",
          all(set(names) == set(renamed.get(fid, {}).values()) and len(renamed[fid]) == 2
              for fid, names in want.items()),
          "; ".join(f"{k}: {' / '.join(f'{c} {v}' for c, v in s.items())}"
                    for k, s in renamed.items()))

    p = subprocess.run([sys.executable, GEN, "--check"], capture_output=True, text=True)
    check("registry-doc-check", p.returncode == 0,
          (p.stderr.strip() or "Documentation/hardprobe.rst is up to date"))
    text = open(RST).read()
    block = text[text.find(registry_doc.BEGIN):text.find(registry_doc.END)]
    missing = [f"{f}.{q}" for f, q, _ in probes if f"``{q}``" not in block] + \
              [i for i in ids if f"``{i}``" not in block]
    check("registry-doc-table-complete", bool(block) and not missing,
          f"missing in the rst table: {missing[:5]}" if missing else "")

    d = tempfile.mkdtemp(prefix="hp-regdoc-")
    try:
        stale = os.path.join(d, "hardprobe.rst")
        shutil.copy(RST, stale)
        with open(stale, "w") as f:
            f.write(text.replace(block, block.replace("``stack_init``", "``stack_init_old``", 1)))
        p = subprocess.run([sys.executable, GEN, "--check", "--rst", stale],
                           capture_output=True, text=True)
        check("registry-doc-stale-fails", p.returncode == 1, p.stderr.strip())
        p = subprocess.run([sys.executable, GEN, "--rst", stale], capture_output=True, text=True)
        p2 = subprocess.run([sys.executable, GEN, "--check", "--rst", stale],
                            capture_output=True, text=True)
        check("registry-doc-regenerates", p.returncode == 0 and p2.returncode == 0 and
              open(stale).read() == text, p.stdout.strip())
    finally:
        shutil.rmtree(d)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
