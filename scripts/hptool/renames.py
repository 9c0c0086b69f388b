# SPDX-License-Identifier: GPL-2.0
"""Kconfig symbols renamed between the kernels hardprobe builds against
(scripts/kconfig-renames): the module reads each under either name
(module/lib/compat.h), and the bench spells a fragment's symbols as the kernel
version it configures names them.
"""
import os
import re

from . import TOP, Error


def parse(path=None):
    """[(old, new, (major, minor), macro)] of scripts/kconfig-renames, in file order."""
    path = path or os.path.join(TOP, "scripts", "kconfig-renames")
    out = []
    for n, line in enumerate(open(path), 1):
        p = line.split("#", 1)[0].split()
        if not p:
            continue
        if len(p) != 4 or not re.match(r"^\d+\.\d+$", p[2]) or \
                not all(s.startswith("CONFIG_") for s in p[:2]):
            raise Error(f"{path}:{n}: want: CONFIG_OLD CONFIG_NEW <version> MACRO")
        out.append((p[0], p[1], tuple(int(x) for x in p[2].split(".")), p[3]))
    return out


def version(text):
    """(major, minor) of "6.1", "6.12.118", "6.1.0-57-amd64"."""
    m = re.match(r"^(\d+)\.(\d+)", text or "")
    if not m:
        raise Error(f"not a kernel version: '{text}'")
    return int(m.group(1)), int(m.group(2))


def spell(fragment, kver, table=None):
    """the fragment text with every renamed symbol spelled as kernel @kver names it."""
    v = version(kver)
    for old, new, since, _ in table if table is not None else parse():
        a, b = (new, old) if v < since else (old, new)
        fragment = re.sub(rf"\b{a}\b(?=[= ]|$)", b, fragment, flags=re.M)
    return fragment


def compat_mismatches(table=None, compat=None):
    """what module/lib/compat.h says otherwise than the table (empty: they agree):
    HP_CONFIG_<macro> must test both names, HP_SYM_<macro> (where defined) must name
    the new one from the table's version on and the old one before."""
    compat = compat or os.path.join(TOP, "module", "lib", "compat.h")
    text = open(compat).read()
    bad = []
    for old, new, since, macro in table if table is not None else parse():
        m = re.search(rf"#define\s+HP_CONFIG_{macro}\s+(\(.*?\))\s*\n(?!\s*IS_)", text, re.S)
        body = m.group(1) if m else ""
        if f"IS_ENABLED({old})" not in body or f"IS_ENABLED({new})" not in body:
            bad.append(f"HP_CONFIG_{macro} does not test both {old} and {new}")
        sym = re.search(rf"#if LINUX_VERSION_CODE >= KERNEL_VERSION\((\d+), (\d+), 0\)\n"
                        rf"(?:#define\s+HP_SYM_\w+\s+\"\w+\"\n)*?"
                        rf"#define\s+HP_SYM_{macro}\s+\"(\w+)\"\n"
                        rf"(?:#define\s+HP_SYM_\w+\s+\"\w+\"\n)*"
                        rf"#else\n(?:#define\s+HP_SYM_\w+\s+\"\w+\"\n)*?"
                        rf"#define\s+HP_SYM_{macro}\s+\"(\w+)\"", text)
        if f"HP_SYM_{macro}" in text:
            if not sym:
                bad.append(f"HP_SYM_{macro} is not spelled by version")
            elif ((int(sym.group(1)), int(sym.group(2))), sym.group(3), sym.group(4)) != \
                    (since, new, old):
                bad.append(f"HP_SYM_{macro}: {sym.group(3)} from {sym.group(1)}.{sym.group(2)}, "
                           f"{sym.group(4)} before; the table: {new} from "
                           f"{since[0]}.{since[1]}, {old} before")
    return bad
