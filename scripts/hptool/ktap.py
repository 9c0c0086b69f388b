# SPDX-License-Identifier: GPL-2.0
"""KTAP through the kernel's own parser, tools/testing/kunit/kunit_parser.py.

kunit_parser is imported by path from the kernel source (KSRC, or the Debian
linux-source-6.12 extracted in the cache; scripts/lib.sh hp_ksrc), at run time.
"""
import contextlib
import io
import os
import sys

from . import Error
from . import kconfig

_parser = None


def parser(ksrc=None):
    """the kunit_parser module of the kernel source."""
    global _parser
    if _parser is None:
        ksrc = ksrc or kconfig.ksrc_path()
        kdir = os.path.join(ksrc or "", "tools", "testing", "kunit")
        if not ksrc or not os.path.isfile(os.path.join(kdir, "kunit_parser.py")):
            raise Error("no kunit_parser.py: no kernel source (run scripts/deps.sh and make run once "
                        "to extract linux-source-6.12, or pass KSRC=<tree>)")
        sys.path.insert(0, kdir)
        try:
            import kunit_parser  # noqa: E402
            import kunit_printer  # noqa: E402
        finally:
            sys.path.remove(kdir)
        # the parser prints its progress; the bench wants only the result
        kunit_printer.stdout._output = io.StringIO()
        kunit_printer.stdout._use_color = False
        _parser = kunit_parser
    return _parser


class ParseError(Error):
    pass


def parse(text, ksrc=None):
    """the kunit_parser Test tree of a KTAP document or a raw console log (the KTAP
    lines are found with extract_tap_lines, any prefix before "KTAP version" removed)."""
    kp = parser(ksrc)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return kp.parse_run_tests(text.splitlines())
    except ValueError as e:       # kunit_parser's LineStream past its end
        raise ParseError(f"kunit_parser: {e}") from None


def extract(text, ksrc=None, only=None):
    """the KTAP lines of a raw log, their prefix removed (kunit_parser.extract_tap_lines);
    only: keep only the log lines holding this text (one writer's lines of a kernel log,
    whose other messages fall between them)."""
    kp = parser(ksrc)
    lines = text.splitlines()
    if only:
        lines = [line for line in lines if only in line]
    lines = kp.extract_tap_lines(lines)
    out = []
    while lines:
        out.append(lines.pop())
    return "\n".join(out) + ("\n" if out else "")


def result_counts(test):
    """(ok, not_ok): the result lines of every test of the tree, nested ones included
    (ok: passed or skipped; not ok: failed or crashed; the top level is not a line)."""
    kp = parser()
    ok = bad = 0
    stack = list(test.subtests)
    while stack:
        t = stack.pop()
        stack.extend(t.subtests)
        if t.status in (kp.TestStatus.SUCCESS, kp.TestStatus.SKIPPED):
            ok += 1
        elif t.status in (kp.TestStatus.FAILURE, kp.TestStatus.TEST_CRASHED):
            bad += 1
    return ok, bad


def counts(text, ksrc=None):
    """(ok, not_ok, has_version) of a KTAP document (see result_counts)."""
    test = parse(text, ksrc)
    has_version = any(kp_line.strip() == "KTAP version 1" for kp_line in text.splitlines())
    return (*result_counts(test), has_version)
