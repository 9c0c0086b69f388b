# SPDX-License-Identifier: GPL-2.0
"""The checks' tally: "check <what>: ok|FAIL ..." lines counted into the summary line
"N passed, N failed" that make check, make check-debug and .ci/run end with (skips, if
any, on the line before it: the last line keeps its shape)."""
import re

LINE = re.compile(r": (ok|FAIL|SKIP)\b")


def count(text):
    """(passed, failed, skipped): each line counted once, by the first ": ok", ": FAIL"
    or ": SKIP" in it (a detail that quotes another check's line does not count twice)."""
    n = {"ok": 0, "FAIL": 0, "SKIP": 0}
    for line in text.splitlines():
        m = LINE.search(line)
        if m:
            n[m.group(1)] += 1
    return n["ok"], n["FAIL"], n["SKIP"]


def summary(text):
    p, f, s = count(text)
    return (f"{s} skipped\n" if s else "") + f"{p} passed, {f} failed"
