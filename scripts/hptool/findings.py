# SPDX-License-Identifier: GPL-2.0
"""Findings in a debug kernel's log (make check-debug): KASAN and other BUG reports
("kernel BUG at", SLUB's "BUG <cache> (...)"), lockdep and RCU splats, kmemleak, hung
tasks, tasks that exited with preempt_count or irqs disabled, warnings raised by
hardprobe or by kernel code on its behalf (a [hardprobe] frame, or one of our tasks)
unless right after a catch a safe probe provokes on purpose (the "reports" its
declaration gives, in the module's JSON), and BUG reports a probe provokes on purpose
(KFENCE's "BUG: KFENCE:", SLUB's "BUG <cache> (...): Redzone overwritten") while that
probe is in flight, between the module's "begin <probe>" line and its "end <probe>"
(safe) or "result <probe>" (fatal) line; the module runs one probe at a time: the same
rules as hardprobe_fuzz.

After the stress run's marker ("hardprobe-stress: catches": caught fatal probes, each an
oops, a reload between each) an oops is the point; there the findings are the reports
a catch must never bring: KASAN, lockdep (while it is still on), hung tasks, RCU stalls,
sleeping in atomic context. An exit with irqs disabled or a preempt count is the oops's
own doing (a kernel page fault oopses with irqs off), and a second report inside a catch
is left to the catches' own test."""
import json
import re

BAD = re.compile(r"Oops|BUG:|kernel BUG at|general protection fault|unreferenced object|"
                 r"INFO: task|exited with preempt_count|exited with irqs disabled|"
                 r"^BUG \S+ \(")
UNLOAD_RACE = "debugfs file owner did not clean up at exit: "
WARN_6X = re.compile(r"^WARNING: CPU: \d+ PID: (\d+) at ")
WARN_7X = re.compile(r"^WARNING: .*, CPU#.*/(\d+)$")


def warn_pid(msg):
    """the task a WARN()'s first line names: "WARNING: CPU: 0 PID: 50 at lib/x.c:1 f+0x1/0x2"
    up to 6.x, "WARNING: lib/x.c:1 at f+0x1/0x2, CPU#0: comm/50" in 7.x (the comm may hold a
    '/': the pid follows the last one), both also without the file; None for any other line
    (lockdep's and RCU's "WARNING: possible ..."). The selftests' warn_header_pid() and the
    module's hp_warn_header_pid() keep the same rule; scripts/tests/logs/warn-headers.txt
    holds the lines all are tested on."""
    m = WARN_6X.match(msg) or (WARN_7X.match(msg) if ", CPU#" in msg else None)
    return int(m.group(1)) if m else None


def intended(report):
    """the reports the probes provoke on purpose: every probe's "reports" in the module's
    JSON (report.json); none (every warning counts) when it cannot be read."""
    try:
        with open(report) as f:
            data = json.load(f)
    except (OSError, ValueError, TypeError):
        return ()
    return tuple(sorted({p.get("reports") for f in data.get("features", [])
                         for p in f.get("probes", []) if p.get("reports")}))


def probe_reports(report):
    """{probe: its "reports"} for every probe of the module's JSON that declares one; {}
    when it cannot be read (every BUG report counts)."""
    try:
        with open(report) as f:
            data = json.load(f)
    except (OSError, ValueError, TypeError):
        return {}
    return {p["probe"]: p["reports"] for f in data.get("features", [])
            for p in f.get("probes", []) if p.get("reports") and p.get("probe")}


# a BUG report a probe may provoke on purpose (never an oops, a "kernel BUG at" or a leak)
BUG_REPORT = re.compile(r"^BUG: |^BUG \S+ \(")
FLIGHT = re.compile(r"^hardprobe: (begin|end|result) (\S+)")


def findings(lines, intended=(), own=None):
    """the finding lines of a kernel log (timestamps removed); a warning right after one
    of @intended is a probe's catch, not a finding, and so is a BUG report holding the
    "reports" (@own: {probe: reports}) of a probe in flight."""
    prev, found, warn, flight, slub = "", [], None, None, False
    own = own or {}
    for line in lines:
        msg = re.sub(r"^\[\s*[0-9.]+\]\s*", "", line.rstrip())
        if not msg:
            continue
        # a "WARNING: " line: a WARN()'s first line (header), or lockdep's kind (a finding)
        header = msg.startswith("WARNING: ") and warn_pid(msg) is not None
        if msg.startswith(("hardprobe: ", "hardprobe-selftest: ")):
            m = FLIGHT.match(msg)
            if m and m.group(1) == "begin":
                flight = m.group(2)
            elif m and m.group(2) == flight:
                flight = None
        elif BUG_REPORT.search(msg) and flight and own.get(flight) and own[flight] in msg:
            # in SLUB's report, so is the warning inside it (object_err() warns from
            # 6.12 on), up to its end trace or SLUB's "FIX <cache>:" line
            slub = msg.startswith("BUG ") and not msg.startswith("BUG: ")
        elif BAD.search(msg) or (msg.startswith("WARNING: ") and not header):
            found.append(msg)
        elif header:
            # not hardprobe's: the kernel's race of an open with rmmod, which the reloads
            # provoke on purpose (try_stop_module() drops the last reference before it marks
            # the module GOING; open_proxy_open() warns in that gap)
            warn = None if slub or any(t in prev for t in intended) or prev.startswith(UNLOAD_RACE) else msg
            if warn and "[hardprobe]" in msg:
                found.append(warn)
                warn = None
        elif warn and ("[hardprobe]" in msg or "Comm: hardprobe_" in msg):
            found.append(warn)
            warn = None
        elif "---[ end trace" in msg:
            warn = None
            slub = False
        elif msg.startswith("FIX "):
            slub = False
        prev = msg
    return found


STRESS_MARKER = "hardprobe-stress: catches"
STRESS_BAD = re.compile(r"BUG: KASAN|BUG: KFENCE|INFO: task .* blocked for more than|"
                        r"possible circular locking|possible recursive locking|"
                        r"inconsistent lock state|possible irq lock inversion|"
                        r"suspicious RCU usage|rcu: INFO: .* stall|self-detected stall|"
                        r"BUG: sleeping function|BUG: scheduling while atomic|"
                        r"unreferenced object|BUG: workqueue lockup|soft lockup")


def split_stress(lines):
    """(lines before the stress marker, lines after it); after is None without one."""
    lines = list(lines)
    for i, line in enumerate(lines):
        if re.search(r"(^|\]\s*)" + re.escape(STRESS_MARKER) + r"\s*$", line.rstrip()):
            return lines[:i], lines[i + 1:]
    return lines, None


def stress_findings(lines):
    """the reports no catch may bring (KASAN, lockdep, hung tasks, RCU stalls, ...) in the
    log of the stress run's catches."""
    return [re.sub(r"^\[\s*[0-9.]+\]\s*", "", x.rstrip()) for x in lines if STRESS_BAD.search(x)]
