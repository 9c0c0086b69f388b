# SPDX-License-Identifier: GPL-2.0
"""Findings in a debug kernel's log (make check-debug): KASAN and other BUG reports
("kernel BUG at", SLUB's "BUG <cache> (...)"), lockdep and RCU splats, kmemleak, hung
tasks, tasks that exited with preempt_count or irqs disabled, warnings raised by
hardprobe or by kernel code on its behalf (a [hardprobe] frame, or one of our tasks)
unless right after a catch a safe probe provokes on purpose: the same rules as
hardprobe_fuzz."""
import re

BAD = re.compile(r"Oops|BUG:|kernel BUG at|general protection fault|unreferenced object|"
                 r"INFO: task|exited with preempt_count|exited with irqs disabled|"
                 r"^BUG \S+ \(|^WARNING: (?!CPU:)")
INTENDED = ("detected field-spanning write", "detected buffer overflow", "UBSAN:",
            "refcount_t:", "list_add corruption", "list_del corruption", "list_add double add",
            "CFI failure", "Wrong slab cache", "Object is not a Slab page")


def findings(lines):
    """the finding lines of a kernel log (timestamps removed)."""
    prev, found, warn = "", [], None
    for line in lines:
        msg = re.sub(r"^\[\s*[0-9.]+\]\s*", "", line.rstrip())
        if not msg:
            continue
        if msg.startswith(("hardprobe: ", "hardprobe-selftest: ")):
            pass
        elif BAD.search(msg):
            found.append(msg)
        elif msg.startswith("WARNING: CPU:"):
            warn = None if any(t in prev for t in INTENDED) else msg
            if warn and "[hardprobe]" in msg:
                found.append(warn)
                warn = None
        elif warn and ("[hardprobe]" in msg or "Comm: hardprobe_" in msg):
            found.append(warn)
            warn = None
        elif "---[ end trace" in msg:
            warn = None
        prev = msg
    return found
