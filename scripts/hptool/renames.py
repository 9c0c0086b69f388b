# SPDX-License-Identifier: GPL-2.0
"""Kconfig symbols renamed between the kernels hardprobe builds against
(scripts/kconfig-renames): the module reads each under either name
(module/lib/renames.h, generated from the table), and the bench spells a fragment's symbols as the kernel
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


HEADER = "module/lib/renames.h"


def header(table=None):
    """module/lib/renames.h, generated from the table: for each rename HP_CONFIG_<macro>
    (true under either name) and HP_SYM_<macro> (the name of the kernel the module is
    built against, from its version). The committed file must be this text (test_hptool);
    "python3 -m hptool renames --write" regenerates it."""
    out = ["/* SPDX-License-Identifier: GPL-2.0 */",
           "/*",
           " * hardprobe: Kconfig symbols renamed between the kernels it builds",
           " * against. Generated from scripts/kconfig-renames by \"python3 -m hptool",
           " * renames --write\" (PYTHONPATH=scripts): edit the table, not this file.",
           " * HP_CONFIG_<macro> is true under either name; HP_SYM_<macro> is the name",
           " * this kernel uses, for the reports.",
           " */",
           "#ifndef _HARDPROBE_RENAMES_H",
           "#define _HARDPROBE_RENAMES_H",
           "",
           "#include <linux/kconfig.h>",
           "#include <linux/version.h>"]
    for old, new, since, macro in table if table is not None else parse():
        out += ["",
                f"/* {old}, {new} from {since[0]}.{since[1]} */",
                f"#define HP_CONFIG_{macro} \\",
                f"\t(IS_ENABLED({old}) || \\",
                f"\t IS_ENABLED({new}))",
                f"#if LINUX_VERSION_CODE >= KERNEL_VERSION({since[0]}, {since[1]}, 0)",
                f"#define HP_SYM_{macro}\t\"{new}\"",
                "#else",
                f"#define HP_SYM_{macro}\t\"{old}\"",
                "#endif"]
    out += ["", "#endif /* _HARDPROBE_RENAMES_H */"]
    return "\n".join(out) + "\n"


def header_stale(path=None, table=None):
    """what is wrong with the committed renames.h: None when it is the table's text."""
    path = path or os.path.join(TOP, HEADER)
    try:
        have = open(path).read()
    except OSError as e:
        return f"{path}: {e.strerror}"
    if have != header(table):
        return (f"{path} is not what scripts/kconfig-renames generates: run "
                "PYTHONPATH=scripts python3 -m hptool renames --write")
    return None


def main(argv):
    """hptool renames [--write]: module/lib/renames.h as scripts/kconfig-renames generates it
    (stdout; --write: into the file)."""
    import argparse
    ap = argparse.ArgumentParser(prog="hptool renames", description=main.__doc__)
    ap.add_argument("--write", action="store_true", help=f"write {HEADER}")
    a = ap.parse_args(argv)
    text = header()
    if a.write:
        with open(os.path.join(TOP, HEADER), "w") as f:
            f.write(text)
    else:
        print(text, end="")
    return 0
