# SPDX-License-Identifier: GPL-2.0
"""hardprobe kaslr across boots: where the kernel's text was at each boot, from the
consoles of one-probe guests that ran kaslr.text (scripts/kaslr-entropy.sh).

usage: hptool kaslr-entropy NAME CONSOLE...

Prints one line per boot, then the summary and one check line: ok when every boot
found the text and at least two boots put it at different offsets (a fixed offset,
zero or not, is no randomization); a boot that did not judge kaslr.text is a FAIL.
"""
import argparse
import math
import re

# the one-probe guest's "cat run" line (the kernel log has no evidence: it may hold the offset)
RESULT = re.compile(r"^kaslr\.text (\w+) (.*?)\r?$", re.M)
MOVED = re.compile(r"starts (-?\d+) MiB off its link address")


def offset(text):
    """(outcome, offset in MiB or None) of the kaslr.text result in one console log"""
    m = RESULT.search(text)
    if not m:
        return None, None
    if m.group(1) in ("vulnerable", "inconclusive") and "(offset 0)" in m.group(2):
        return m.group(1), 0
    mv = MOVED.search(m.group(2))
    return m.group(1), int(mv.group(1)) if mv else None


def summary(name, offsets):
    """the summary and check lines for the offsets (MiB; None: that boot did not judge)"""
    seen = [o for o in offsets if o is not None]
    distinct = sorted(set(seen))
    lines = [f"kaslr-entropy {name}: {len(offsets)} boots, {len(seen)} judged, "
             f"{len(distinct)} distinct offsets"
             + (f" (MiB: {', '.join(map(str, distinct))}; at least {math.log2(len(distinct)):.1f} "
                f"bits: {len(distinct)} places seen)" if distinct else "")]
    ok = len(seen) == len(offsets) and len(distinct) >= 2
    why = ("every boot judged, and the text moved between boots" if ok else
           "a boot did not judge kaslr.text" if len(seen) != len(offsets) else
           "the text was at the same offset every boot" if seen else "no boot judged kaslr.text")
    lines.append(f"check {name} kaslr-across-boots: {'ok' if ok else 'FAIL'} ({why})")
    return lines, ok


def main(argv):
    ap = argparse.ArgumentParser(prog="hptool kaslr-entropy", description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("consoles", nargs="+", metavar="CONSOLE")
    a = ap.parse_args(argv)
    name, offsets = a.name, []
    for n, path in enumerate(a.consoles, 1):
        try:
            text = open(path, errors="replace").read()
        except OSError as e:
            text = ""
            print(f"boot {n}: {path}: {e.strerror}")
        outcome, off = offset(text)
        offsets.append(off)
        print(f"boot {n}: {outcome or 'no result'}" + (f", offset {off} MiB" if off is not None else ""))
    lines, ok = summary(name, offsets)
    print("\n".join(lines))
    return 0 if ok else 1
