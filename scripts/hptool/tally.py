# SPDX-License-Identifier: GPL-2.0
"""The checks' tally: "check <what>: ok|FAIL ..." lines counted into the summary line
"N passed, N failed" that make check, make check-debug and .ci/run end with (skips, if
any, on the line before it: the last line keeps its shape)."""
import re

LINE = re.compile(r": (ok|FAIL|SKIP)\b")


def count(text):
    """(passed, failed, skipped): lines holding ": ok", ": FAIL", ": SKIP" (as grep -c did)."""
    p = f = s = 0
    for line in text.splitlines():
        p += ": ok" in line
        f += ": FAIL" in line
        s += bool(re.search(r": SKIP\b", line))
    return p, f, s


def summary(text):
    p, f, s = count(text)
    return (f"{s} skipped\n" if s else "") + f"{p} passed, {f} failed"
