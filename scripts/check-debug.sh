#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe check-debug (make check-debug): the x86_64-gcc-debug kernel (KASAN, kmemleak,
# lockdep, DEBUG_LIST, SLUB debugging) runs the safe probes, the kselftests in safe mode,
# the KUnit suites, the fuzz run and 1,000 unload/reload cycles; then the kernel log and a
# kmemleak scan must hold no finding. Ends with "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t=x86_64-gcc-debug
R=$HP_TOP/results
L=$R/check-debug.log
mkdir -p "$R"
: >"$L"
record() { tee -a "$L"; }

"$HP_TOP/scripts/deps.sh" || exit 1
hp_say run "$t" "boot: safe probes, selftests (-s), KUnit, fuzz, ${CYCLES:-1000} load/unload cycles"
PANIC_GUESTS=no CMDLINE="hardprobe.mode=safe hardprobe.cycles=${CYCLES:-1000} ${CMDLINE:-}" \
	RESULTS=$R BOOT_TIMEOUT=${BOOT_TIMEOUT:-1500} "$HP_TOP/scripts/run.sh" "$t" >"$R/$t.run.log" 2>&1 ||
	tail -n 20 "$R/$t.run.log" >&2
python3 "$HP_TOP/scripts/judge.py" "$R/$t" "$HP_TOP/scripts/expect/$t" | record

# findings: KASAN, other BUG reports, lockdep and RCU splats, kmemleak, warnings raised in
# hardprobe's own code unless right after a catch a safe probe provokes on purpose (the
# same rule as hardprobe_fuzz)
d=$R/$t/dmesg.txt
if [ -s "$d" ]; then
	out=$(python3 - "$d" <<'PY'
import re, sys
bad = re.compile(r"BUG: |general protection fault|WARNING: possible|WARNING: suspicious|"
                 r"INFO: task|unreferenced object|Oops")
intended = ("detected field-spanning write", "detected buffer overflow", "UBSAN:",
            "refcount_t:", "list_add corruption", "list_del corruption", "CFI failure")
prev, found = "", []
for line in open(sys.argv[1], errors="replace"):
    msg = re.sub(r"^\[\s*[0-9.]+\]\s*", "", line.rstrip())
    ours = msg.startswith("WARNING: CPU:") and "[hardprobe]" in msg
    if bad.search(msg) or (ours and not any(t in prev for t in intended)):
        found.append(msg)
    if msg:
        prev = msg
print(len(found), found[0] if found else "")
PY
)
	n=${out%% *}
	[ "$n" = 0 ] && echo "check $t log-findings: ok (0 in $(wc -l <"$d") lines)" | record ||
		echo "check $t log-findings: FAIL ($out)" | record
else
	echo "check $t log-findings: FAIL (no dmesg)" | record
fi
k=$R/$t/kmemleak.txt
if [ -f "$k" ]; then
	n=$(grep -c 'unreferenced object' "$k")
	[ "$n" = 0 ] && echo "check $t kmemleak: ok (scan: 0 unreferenced objects)" | record ||
		echo "check $t kmemleak: FAIL ($n unreferenced objects, see $k)" | record
else
	echo "check $t kmemleak: FAIL (no kmemleak scan: CONFIG_DEBUG_KMEMLEAK?)" | record
fi
grep -h '^# .*\(writes in\|plain unload\)' "$R/$t/fuzz.ktap" 2>/dev/null | sed 's/^/    /' | record

pass=$(grep -c ': ok' "$L")
fail=$(grep -c ': FAIL' "$L")
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
