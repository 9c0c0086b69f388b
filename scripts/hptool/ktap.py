# SPDX-License-Identifier: GPL-2.0
"""KTAP through the kernel's own parser, tools/testing/kunit/kunit_parser.py.

kunit_parser is imported by path from the kernel source (KSRC, or the Debian
linux-source-6.12 extracted in the cache; hptool ksrc), at run time.
"""
import contextlib
import io
import os
import re
import sys

from . import Error
from . import kconfig

_parser = None


def _load(name, path):
    """the Python file @path imported as the module @name"""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def parser(ksrc=None):
    """the kunit_parser module of the kernel source."""
    global _parser
    if _parser is None:
        ksrc = ksrc or kconfig.ksrc_path()
        kdir = os.path.join(ksrc or "", "tools", "testing", "kunit")
        if not ksrc or not os.path.isfile(os.path.join(kdir, "kunit_parser.py")):
            raise Error("no kunit_parser.py: no kernel source (run hptool deps and make run once "
                        "to extract linux-source-6.12, or pass KSRC=<tree>)")
        # by path, without touching sys.path: kunit_printer first, under the name by which
        # kunit_parser imports it ("from kunit_printer import stdout")
        kunit_printer = _load("kunit_printer", os.path.join(kdir, "kunit_printer.py"))
        kunit_parser = _load("kunit_parser", os.path.join(kdir, "kunit_parser.py"))
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


def failed_names(text, ksrc=None):
    """the names of the failed (or crashed) tests of a KTAP document, nested ones included"""
    kp = parser(ksrc)
    names, stack = [], list(parse(text, ksrc).subtests)
    while stack:
        t = stack.pop()
        stack.extend(t.subtests)
        if t.status in (kp.TestStatus.FAILURE, kp.TestStatus.TEST_CRASHED):
            names.append(t.name)
    return names


def counts(text, ksrc=None):
    """(ok, not_ok, has_version) of a KTAP document (see result_counts)."""
    test = parse(text, ksrc)
    has_version = any(kp_line.strip() == "KTAP version 1" for kp_line in text.splitlines())
    return (*result_counts(test), has_version)


# The result names a CI system files a run under, read as Linaro's kselftest output parser
# (test-definitions automated/linux/kselftest, used by KernelCI and LKFT) reads KTAP: every
# line holding "ok <n> " (indented, or inside a diagnostic too) is a result; a SKIP keeps
# its reason in the name; the name is reduced to [A-Za-z0-9_-] ("[123]" dropped, every
# other run of characters one "_", none at either end); a "# selftests: <dir>: <prog>"
# header line names the program the following results belong to. The same rules, written
# for the bench: a result name that holds a count, an address or a path breaks a CI
# system's result history.
def _ci_slug(text):
    text = re.sub(r"\[\d{1,5}\]", "", text)
    text = re.sub(r"[^A-Za-z0-9_-]+", "_", text)
    return re.sub(r"_-", "_", re.sub(r"(^_|_$)", "", text))


def ci_names(text, program=""):
    """[(name, status)] of a KTAP text as a CI system names them; @program stands for the
    "selftests: <dir>: <prog>" header of the kselftest runner where the text has none."""
    out, prog = [], _ci_slug(program)
    for line in text.splitlines():
        if "# selftests: " in line:
            prog = _ci_slug(line.split("selftests:", 1)[1])
            continue
        m = re.match(r"^.*?not ok [0-9]+ (.*?)$", line)
        if m and re.search(r"^.*?not ok \d{1,5} ", line):
            name, status = _ci_slug(re.sub("# .*$", "", m.group(1))), "fail"
        else:
            m = re.match(r"^.*?ok [0-9]+ (.*?)$", line)
            if not (m and re.search(r"^.*?ok \d{1,5} ", line)):
                continue
            if "# SKIP" in m.group(1):
                name, status = _ci_slug(m.group(1).replace("# SKIP", "")), "skip"
            else:
                name, status = _ci_slug(m.group(1)), "pass"
        out.append((f"{prog}_{name}" if prog else name, status))
    return out


CI_FILES = ("selftest.ktap", "fuzz.ktap", "trust.ktap", "kunit.ktap", "ktap.txt")


def ci_compare(dir_a, dir_b, files=CI_FILES):
    """[(file, ok, detail)]: the CI names of each KTAP file of two guests' result
    directories (two runs) are the same set; a file both lack is left out, one only one
    has differs."""
    out = []
    for name in files:
        texts = []
        for d in (dir_a, dir_b):
            try:
                with open(os.path.join(d, name), errors="replace") as f:
                    texts.append(f.read())
            except OSError:
                texts.append(None)
        if texts == [None, None]:
            continue
        if None in texts:
            out.append((name, False, f"only in {dir_b if texts[0] is None else dir_a}"))
            continue
        prog = "hardprobe: " + name.split(".")[0]
        a, b = ({n for n, _ in ci_names(t, prog)} for t in texts)
        if not a:
            out.append((name, False, "no results"))
        elif a != b:
            diff = sorted(a ^ b)
            out.append((name, False, f"{len(diff)} names in one only, e.g. {diff[0][:160]}"))
        else:
            out.append((name, True, f"{len(a)} names"))
    return out
