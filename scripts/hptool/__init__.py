# SPDX-License-Identifier: GPL-2.0
"""hptool: the hardprobe bench's host tool.

One package, one module per concern, as kunit.py has them: targets (targets), the
kernel build (kbuild, kconfig), QEMU from per-arch records (qemu, qemu_configs/), the
outcome rules read from the module's JSON (outcome), KTAP through the kernel's own
kunit_parser (ktap), the expectation table (expect), reports (matrix, kcidb), checks
(check, judge, tally), and one module per make target behind them. Run as
`python3 -m hptool <subcommand>` (PYTHONPATH=scripts); every make target is one
subcommand.
"""
import os
import sys

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(SCRIPTS)
CACHE = os.environ.get("HARDPROBE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "hardprobe")


class Error(Exception):
    """A user-facing error: printed as "hardprobe: error: <message>", exit 1."""


def die(msg):
    print(f"hardprobe: error: {msg}", file=sys.stderr)
    sys.exit(1)


def tool(*args):
    """the argv of an hptool subcommand in a process of its own (this interpreter)"""
    return [sys.executable, "-m", "hptool", *args]


def tool_env(**kw):
    """the environment of such a process: this one with @kw set, hptool importable"""
    return dict(os.environ, PYTHONPATH=SCRIPTS, **kw)


def to_log(argv, log, env=None, cwd=None, timeout=None, append=False):
    """@argv's stdout and stderr into the file @log (appended to with @append), no stdin;
    its status, 124 when killed after @timeout seconds (as timeout(1) answers)"""
    import subprocess
    with open(log, "ab" if append else "wb") as f:
        try:
            return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd,
                                  timeout=timeout, env=env or tool_env()).returncode
        except subprocess.TimeoutExpired:
            return 124


def results_root(env=None):
    """where runs write results/<target>/: RESULTS, else results/ of this checkout (absolute)"""
    return os.path.abspath((env if env is not None else os.environ).get("RESULTS") or os.path.join(TOP, "results"))


def read_text(path):
    """a text file's contents, "" when it cannot be read"""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def lines(path):
    """the lines of a text file, [] when it cannot be read"""
    return read_text(path).splitlines()


def last_line(path):
    """a text file's last line, "" when it has none or cannot be read"""
    t = lines(path)
    return t[-1] if t else ""


def say(stage, target, msg):
    """a progress line on stderr: elapsed time since HP_T0, stage, target."""
    import time
    s = int(time.time()) - int(os.environ.get("HP_T0") or time.time())
    el = f"{s // 60}m{s % 60:02d}s"
    print(f"[hardprobe {el:>7}] {stage:<8} {target or '-':<14} {msg}", file=sys.stderr)
    if os.environ.get("HP_STAGES"):
        try:
            with open(os.environ["HP_STAGES"], "a") as f:
                f.write(f"{int(time.time())}\t{stage}\t{target or '-'}\n")
        except OSError:
            pass


def stage_timings(text, now):
    """[(stage, target, seconds)] of an HP_STAGES file ("time stage target" lines): each
    line lasts until the next (the last until now), summed per stage and target in the
    order they first came; and the whole span"""
    rows = []
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) == 3 and f[0].isdigit():
            rows.append((int(f[0]), f[1], f[2]))
    out = {}
    for i, (t, stage, target) in enumerate(rows):
        end = rows[i + 1][0] if i + 1 < len(rows) else now
        out[(stage, target)] = out.get((stage, target), 0) + max(0, end - t)
    return [(s, t, n) for (s, t), n in out.items()], (now - rows[0][0] if rows else 0)
