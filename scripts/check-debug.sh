#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe check-debug (make check-debug): the x86_64-gcc-debug kernel (KASAN, kmemleak,
# lockdep, DEBUG_LIST, SLUB debugging), booted with 4 vCPUs, runs the safe probes, the
# kselftests in safe mode, the KUnit suites, the fuzz run and 1,000 unload/reload cycles
# raced by 8 readers and a loop loading the KUnit module; then the kernel log and a
# kmemleak scan must hold no finding. Last, 50 caught fatal probes of each kind of writer
# death, a reload between each: no KASAN, lockdep, hung-task or RCU report after them.
# Ends with "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t=x86_64-gcc-debug
R=$HP_TOP/results
L=$R/check-debug.log
mkdir -p "$R"
: >"$L"
export HP_STAGES=$R/check-debug-stages.txt
: >"$HP_STAGES"

"$HP_TOP/scripts/deps.sh" || exit 1
hp_say run "$t" "boot (${SMP:-4} vCPUs): safe probes, selftests (-s), KUnit, fuzz, ${CYCLES:-1000} raced load/unload cycles, ${CATCHES:-50} catches of each writer death"
SMP=${SMP:-4} PANIC_GUESTS=no \
	CMDLINE="hardprobe.mode=safe hardprobe.reports=0 hardprobe.cycles=${CYCLES:-1000} hardprobe.catches=${CATCHES:-50} ${CMDLINE:-}" \
	RESULTS=$R BOOT_TIMEOUT=${BOOT_TIMEOUT:-7200} hp_tool run "$t" >"$R/$t.run.log" 2>&1 ||
	tail -n 20 "$R/$t.run.log" >&2
checked "$t judge" hp_tool judge "$R/$t" "$HP_TOP/scripts/expect.table" "$t"

# findings: KASAN and other BUG reports, lockdep and RCU splats, kmemleak, hung tasks,
# warnings on hardprobe's behalf (the rules: scripts/hptool/findings.py)
d=$R/$t/dmesg.txt
if [ -s "$d" ]; then
	# the reports the probes provoke on purpose: their "reports" in the module's JSON
	out=$(hp_tool findings "$d" "$R/$t/report.json")
	n=${out%% *}
	[ "$n" = 0 ] && echo "check $t log-findings: ok (0 in $(wc -l <"$d") lines)" | record ||
		echo "check $t log-findings: FAIL ($out)" | record
else
	echo "check $t log-findings: FAIL (no dmesg)" | record
fi
# the stress catches: their own KTAP, then the log after their marker
c=$R/$t/catches.ktap
if [ -s "$c" ]; then
	sed -n 's/^# \(unload_cycles_[a-z_]*\): /\1: /p' "$c" | sed 's/^/    /' | record
	ok=$(grep -c '^ok ' "$c")
	bad=$(grep -c '^not ok ' "$c")
	[ "$bad" = 0 ] && [ "$ok" -ge 5 ] && echo "check $t stress-catches: ok ($ok ok)" | record ||
		echo "check $t stress-catches: FAIL ($ok ok, $bad not ok; see $c)" | record
else
	echo "check $t stress-catches: FAIL (no catches.ktap: the guest did not reach them)" | record
fi
if [ -s "$d" ] && ! grep -q 'hardprobe-stress: catches done$' "$d"; then
	echo "check $t stress-log-findings: FAIL (the log of the catches is cut: no end marker)" | record
elif [ -s "$d" ] && out=$(hp_tool findings "$d" --stress yes); then
	n=${out%% *}
	[ "$n" = 0 ] && echo "check $t stress-log-findings: ok (0 KASAN, lockdep, hung-task, RCU reports after the catches)" | record ||
		echo "check $t stress-log-findings: FAIL ($out)" | record
else
	echo "check $t stress-log-findings: FAIL (no log of the catches)" | record
fi
# the lockdep part of log-findings means something only while lockdep is on: an oops
# or a first splat turns it off for good (guest-init records debug_locks per stage)
l=$R/$t/lockdep.txt
if [ -s "$l" ]; then
	off=$(awk '$2 != 1 { print $1; exit }' "$l")
	if [ -z "$off" ]; then
		echo "check $t lockdep-on: ok (debug_locks 1: $(awk '{ print $1 }' "$l" | paste -sd' '))"
	else
		echo "check $t lockdep-on: FAIL (debug_locks 0 $off: lockdep could not report)"
	fi | record
else
	echo "check $t lockdep-on: FAIL (no lockdep.txt: CONFIG_PROVE_LOCKING?)" | record
fi
k=$R/$t/kmemleak.txt
if [ -f "$k" ]; then
	n=$(grep -c 'unreferenced object' "$k")
	[ "$n" = 0 ] && echo "check $t kmemleak: ok (scan: 0 unreferenced objects)" | record ||
		echo "check $t kmemleak: FAIL ($n unreferenced objects, see $k)" | record
else
	echo "check $t kmemleak: FAIL (no kmemleak scan: CONFIG_DEBUG_KMEMLEAK?)" | record
fi
grep -h '^# .*\(writes in\|by way\|plain unload\|during them\|findings:\|lockdep:\|uid 65534\|flipper\|allow_fatal\)' "$R/$t/fuzz.ktap" 2>/dev/null | sed 's/^/    /' | record

hp_tool stage-timings "$HP_STAGES"
hp_tool tally "$L"
