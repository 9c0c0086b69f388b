# SPDX-License-Identifier: GPL-2.0
"""The checks' tally: "check <what>: ok|FAIL ..." lines counted into the summary line
"N passed, N failed" that make check, make check-debug and .ci/run end with (skips, if
any, on the line before it: the last line keeps its shape).

A check that never ran prints nothing to count: with a manifest (the committed list of
the names make check runs, scripts/check-manifest), every name missing from the log is a
failure of its own, so a bench cannot pass by losing checks."""
import re

LINE = re.compile(r": (ok|FAIL|SKIP)\b")
NAME = re.compile(r"^check (.+?): (?:ok|FAIL|SKIP)\b")


def count(text):
    """(passed, failed, skipped): each line counted once, by the first ": ok", ": FAIL"
    or ": SKIP" in it (a detail that quotes another check's line does not count twice)."""
    n = {"ok": 0, "FAIL": 0, "SKIP": 0}
    for line in text.splitlines():
        m = LINE.search(line)
        if m:
            n[m.group(1)] += 1
    return n["ok"], n["FAIL"], n["SKIP"]


def names(text):
    """the names of the checks in a log: "<target> <check>" of each "check ..." line"""
    return {m.group(1) for m in map(NAME.match, text.splitlines()) if m}


def manifest_names(text):
    """the names a manifest keeps of a log: not the lines a failure alone prints (a program
    that exited non-zero, "<name>-exit"; a judge stopped by an exception, "<target> judge")"""
    return sorted(n for n in names(text) if not n.endswith(("-exit", " judge")))


def read_manifest(path):
    """the names of a manifest file: one a line, '#' comments and blank lines skipped"""
    with open(path) as f:
        return {ln.strip() for ln in f if ln.strip() and not ln.startswith("#")}


def missing(text, manifest):
    """the "check ...: FAIL (did not run)" lines of the manifest's names the log lacks"""
    ran = names(text)
    return [f"check {n}: FAIL (did not run: in the manifest, not in this log)"
            for n in sorted(manifest - ran)]


def summary(text):
    p, f, s = count(text)
    return (f"{s} skipped\n" if s else "") + f"{p} passed, {f} failed"
