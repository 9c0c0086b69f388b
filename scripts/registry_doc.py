#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hardprobe: the feature list of Documentation/hardprobe.rst, from the registry.

usage: registry_doc.py [--check] [--top DIR] [--rst FILE]

Reads module/registry.h (its HP_REGISTRY() lines; HP_SYM_* symbols spelled per
architecture at the top of the header) and the HP_PROBE() lines of module/*/*.c
(probes declared through an X-macro list, as stack_init's HP_SI_CASES, are
expanded), and writes the feature table between the lines ".. registry-begin" and
".. registry-end" of the rst. --check writes nothing and exits 1 if the rst is
stale. Exit 2 when the sources cannot be parsed.
"""
import argparse
import glob
import os
import re
import sys
import textwrap

BEGIN = ".. registry-begin"
END = ".. registry-end"
ARCH_CONDS = {"CONFIG_X86_64": "x86_64", "CONFIG_ARM64": "arm64"}


class ParseError(Exception):
    pass


def strip_comments(text):
    """C source without its comments (strings and characters kept), lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j) or " ")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def logical_lines(text):
    """Lines with their backslash continuations joined."""
    return text.replace("\\\n", " ").splitlines()


def split_args(s, start):
    """The arguments of the call whose "(" is at s[start], and the index after ")"."""
    args, cur, depth, i = [], [], 0, start + 1
    while i < len(s):
        c = s[i]
        if c in "\"'":
            j = i + 1
            while j < len(s) and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    raise ParseError("unbalanced parentheses")


def c_string(arg):
    """The value of a C string literal (adjacent literals joined), else None."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', arg)
    if not parts or re.sub(r'"(?:[^"\\]|\\.)*"', "", arg).strip():
        return None
    return "".join(parts).encode().decode("unicode_escape")


def calls(s, name):
    """The argument lists of every call name(...) in s, in order."""
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), s):
        yield split_args(s, m.end() - 1)[0]


def parse_registry(path, compat=None):
    """[{id, family, group, title, symbol}] in registry order; symbol is
    {arch: text} for an HP_SYM_* macro ("" key: every architecture), or
    {"6.18+": text, "before 6.18": text} for one of module/lib/compat.h
    spelled per kernel version (a Kconfig symbol renamed)."""
    if compat is None:
        compat = os.path.join(os.path.dirname(path), "lib", "compat.h")
    text = strip_comments(open(path).read())
    pre = strip_comments(open(compat).read()) if os.path.isfile(compat) else ""
    syms, cond = {}, None
    for line in logical_lines(pre + "\n" + text):
        m = re.match(r"\s*#\s*if\s+LINUX_VERSION_CODE\s*>=\s*KERNEL_VERSION\((\d+),\s*(\d+)", line)
        if m:
            cond = f"{m.group(1)}.{m.group(2)}+"
            continue
        m = re.match(r"\s*#\s*(if|elif)\s+defined\s*\(?\s*(\w+)", line)
        if m:
            cond = ARCH_CONDS.get(m.group(2), m.group(2))
            continue
        if re.match(r"\s*#\s*else\b", line):
            cond = f"before {cond[:-1]}" if cond and cond.endswith("+") else "other"
            continue
        if re.match(r"\s*#\s*endif\b", line):
            cond = None
            continue
        m = re.match(r"\s*#\s*define\s+(HP_SYM_\w+)\s+(.*)$", line)
        if m:
            val = c_string(m.group(2))
            if val is None:
                raise ParseError(f"{path}: {m.group(1)} is not a string")
            syms.setdefault(m.group(1), {})[cond or ""] = val
    # the list: every HP_REGISTRY() line outside a preprocessor directive
    body = "\n".join(line for line in logical_lines(text) if not re.match(r"\s*#", line))
    feats = []
    for args in calls(body, "HP_REGISTRY"):
        if len(args) != 5:
            raise ParseError(f"{path}: HP_REGISTRY() with {len(args)} arguments: {args}")
        fid, fam, group, title, sym = args
        group_s, title_s = c_string(group), c_string(title)
        if group_s is None or title_s is None:
            raise ParseError(f"{path}: {fid}: group and title must be strings")
        if c_string(sym) is not None:
            symbol = {"": c_string(sym)}
        elif sym in syms:
            symbol = syms[sym]
        else:
            raise ParseError(f"{path}: {fid}: symbol {sym} is neither a string nor HP_SYM_*")
        feats.append({"id": fid, "family": fam, "group": group_s, "title": title_s,
                      "symbol": symbol})
    if not feats:
        raise ParseError(f"{path}: no HP_REGISTRY() line")
    return feats


def macro_defs(files):
    """{name: (params, body)} of the function-like macros of @files."""
    defs = {}
    for path in files:
        for line in logical_lines(strip_comments(open(path).read())):
            m = re.match(r"\s*#\s*define\s+(\w+)\(([^)]*)\)(.*)$", line)
            if m:
                defs[m.group(1)] = ([p.strip() for p in m.group(2).split(",")], m.group(3))
    return defs


def parse_probes(top):
    """[(feature, probe, source file)] of every HP_PROBE() of module/*/*.c, in
    file and line order; a probe named by a macro parameter is expanded through
    the X-macro lists that the file applies that macro to."""
    module = os.path.join(top, "module")
    sources = sorted(glob.glob(os.path.join(module, "*", "*.c")))
    headers = sorted(glob.glob(os.path.join(module, "*.h")) +
                     glob.glob(os.path.join(module, "*", "*.h")))
    defs = macro_defs(sources + headers)
    out = []
    for path in sources:
        rel = os.path.relpath(path, top)
        code = []
        for line in logical_lines(strip_comments(open(path).read())):
            m = re.match(r"\s*#\s*define\s+(\w+)\(([^)]*)\)(.*)$", line)
            if m:
                params = [p.strip() for p in m.group(2).split(",")]
                for args in calls(m.group(3), "HP_PROBE"):
                    if args[1] not in params:
                        out.append((args[0], args[1], rel))
            elif not re.match(r"\s*#", line):
                code.append(line)
        code = "\n".join(code)
        found = [(m.start(), split_args(code, m.end() - 1)[0])
                 for m in re.finditer(r"\bHP_PROBE\s*\(", code)]
        # LIST(ENTRY): ENTRY a macro of HP_PROBE() lines, LIST an X-macro list
        for m in re.finditer(r"\b(\w+)\s*\(\s*(\w+)\s*\)", code):
            lst, entry = m.group(1), m.group(2)
            if lst not in defs or entry not in defs:
                continue
            eparams, ebody = defs[entry]
            lparams, lbody = defs[lst]
            for pargs in calls(ebody, "HP_PROBE"):
                if pargs[1] not in eparams:
                    continue
                k = eparams.index(pargs[1])
                for n, xargs in enumerate(calls(lbody, lparams[0])):
                    found.append((m.start() + n / 1e6, [pargs[0], xargs[k]]))
        out += [(args[0], args[1], rel) for _, args in sorted(found, key=lambda x: x[0])]
    return out


def rst_literal(text):
    return "``%s``" % text


def render(feats, probes):
    """The rst between the markers: one list-table row per feature."""
    by_feat = {}
    for feat, probe, _ in probes:
        by_feat.setdefault(feat, []).append(probe)
    lines = [BEGIN, "",
             ".. Generated by scripts/registry_doc.py from module/registry.h and the",
             "   HP_PROBE() lines of module/*/*.c: edit those and run the script.", "",
             ".. list-table::",
             "   :header-rows: 1",
             "   :widths: 16 22 14 14 18 26", "",
             "   * - id", "     - title", "     - group", "     - folder",
             "     - symbol", "     - probes"]
    for f in feats:
        sym = f["symbol"]
        if "" in sym:
            sym_cell = [rst_literal(sym[""])]
        else:
            sym_cell = ["%s: %s" % (arch, rst_literal(val)) for arch, val in sym.items()]
        names = by_feat.get(f["id"], [])
        cells = [[rst_literal(f["id"])], [f["title"]], [f["group"]],
                 [rst_literal("module/%s/" % f["family"])], sym_cell,
                 [", ".join(rst_literal(n) for n in names) or "(none)"]]
        for i, cell in enumerate(cells):
            lead = "   * - " if i == 0 else "     - "
            if len(cell) > 1:
                # several values: a bullet list inside the cell
                lines.append(lead + "- " + cell[0])
                lines += ["       - " + c for c in cell[1:]]
                continue
            lines += textwrap.wrap(cell[0], 96, initial_indent=lead, subsequent_indent=" " * 7,
                                   break_long_words=False, break_on_hyphens=False)
    lines += ["", END]
    return "\n".join(lines) + "\n"


def splice(rst, block):
    """@rst with the text from BEGIN to END (inclusive) replaced by @block."""
    lines = rst.splitlines(keepends=True)
    try:
        b = next(i for i, l in enumerate(lines) if l.rstrip() == BEGIN)
        e = next(i for i, l in enumerate(lines) if l.rstrip() == END and i > b)
    except StopIteration:
        raise ParseError(f"the rst has no '{BEGIN}' ... '{END}' lines")
    return "".join(lines[:b]) + block + "".join(lines[e + 1:])


def load(top):
    feats = parse_registry(os.path.join(top, "module", "registry.h"))
    probes = parse_probes(top)
    ids = {f["id"] for f in feats}
    unknown = sorted({p[0] for p in probes} - ids)
    if unknown:
        raise ParseError("HP_PROBE() of features not in the registry: " + ", ".join(unknown))
    return feats, probes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the rst is stale")
    ap.add_argument("--top", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--rst", help="default: <top>/Documentation/hardprobe.rst")
    a = ap.parse_args(argv)
    rst_path = a.rst or os.path.join(a.top, "Documentation", "hardprobe.rst")
    try:
        feats, probes = load(a.top)
        old = open(rst_path).read()
        new = splice(old, render(feats, probes))
    except (ParseError, OSError) as e:
        print(f"registry_doc: {e}", file=sys.stderr)
        return 2
    if a.check:
        if new != old:
            print(f"registry_doc: {rst_path} is stale: run scripts/registry_doc.py",
                  file=sys.stderr)
            return 1
        return 0
    if new != old:
        with open(rst_path, "w") as f:
            f.write(new)
    print(f"registry_doc: {len(feats)} features, {len(probes)} probes in {rst_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
