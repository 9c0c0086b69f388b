# SPDX-License-Identifier: GPL-2.0
"""Findings in a debug kernel's log (make check-debug): KASAN and other BUG reports
("kernel BUG at", SLUB's "BUG <cache> (...)"), lockdep and RCU splats, kmemleak, hung
tasks, tasks that exited with preempt_count or irqs disabled, warnings raised by
hardprobe or by kernel code on its behalf (a [hardprobe] frame, or one of our tasks)
unless right after a catch a safe probe provokes on purpose (the "reports" its
declaration gives, in the module's JSON): the same rules as hardprobe_fuzz."""
import json
import re

BAD = re.compile(r"Oops|BUG:|kernel BUG at|general protection fault|unreferenced object|"
                 r"INFO: task|exited with preempt_count|exited with irqs disabled|"
                 r"^BUG \S+ \(|^WARNING: (?!CPU:)")
# SLUB's report headline: "BUG <cache> (Tainted: ...): <what>"
SLUB = re.compile(r"^BUG \S+ \(")


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


def findings(lines, intended=()):
    """the finding lines of a kernel log (timestamps removed); a warning right after one
    of @intended is a probe's catch, not a finding. So is SLUB's report whose headline
    ("BUG <cache> (...)") holds one of @intended, and the warning inside it (object_err()
    warns from 6.12 on), up to its end trace or SLUB's "FIX <cache>:" line."""
    prev, found, warn, slub = "", [], None, False
    for line in lines:
        msg = re.sub(r"^\[\s*[0-9.]+\]\s*", "", line.rstrip())
        if not msg:
            continue
        if msg.startswith(("hardprobe: ", "hardprobe-selftest: ")):
            pass
        elif SLUB.search(msg) and any(t in msg for t in intended):
            slub = True
        elif BAD.search(msg):
            found.append(msg)
        elif msg.startswith("WARNING: CPU:"):
            warn = None if slub or any(t in prev for t in intended) else msg
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
