#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hardprobe in a LAVA test shell: load the module, run the kselftest runner, report.
# usage: hardprobe-lava.sh TARGET [MODULE_PARAMS]
# Results (KernelCI names them hardprobe.<set>.<case>):
#   set <feature>, case <probe>   each probe the runner ran here (its KTAP line)
#   case <feature>                the feature's outcome (the module's KTAP), for every
#                                 feature without a panicking probe: a panicking probe runs
#                                 in a fresh boot (an interactive step of the job) and the
#                                 feature's outcome joins both boots, which no boot can see
#   set selftest                  the runner's other checks (refusals, user-space policy)
# ok = pass, "# SKIP" = skip, not ok (hardprobe's error too) = fail; a probe the runner
# did not report is "unknown". The KTAP files are printed whole between markers.
target=${1:-unknown}
params=${2:-}
# HP_ROOT, HP_DEBUGFS, HP_OUT: other places, for the host test (scripts/tests)
R=${HP_ROOT:-}
D=${HP_DEBUGFS:-/sys/kernel/debug/hardprobe}
O=${HP_OUT:-/tmp/hardprobe-lava}
mkdir -p "$O"
[ -d "$D" ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# shellcheck disable=SC2086
if ! insmod "$R/hardprobe.ko" target="$target" $params; then
	lava-test-case insmod --result fail
	lava-test-raise "insmod hardprobe.ko failed"
	exit 1
fi
lava-test-case insmod --result pass
# fatal (oopsing) probes run in children; panicking ones are left to their own boots
HARDPROBE_DISPOSABLE=1 "$R/hardprobe_test" >"$O/selftest.ktap" 2>&1
cat "$D/ktap" >"$O/ktap.txt"
cat "$D/probes" >"$O/probes.txt"
for f in selftest.ktap ktap.txt; do
	echo "----- hardprobe:file $f -----"
	cat "$O/$f"
	echo "----- hardprobe:end $f -----"
done

# one "set|case|result" line per result, in the module's feature order
awk '
function res(line) {
	if (line ~ /^not ok /) return "fail"
	if (line ~ /# [Ss][Kk][Ii][Pp]/) return "skip"
	return "pass"
}
FILENAME ~ /probes.txt$/ {
	if (NF >= 3) { feat[$1] = $2; kind[$1] = $3; probes[$2] = probes[$2] " " $1 }
	if ($3 == "panic") haspanic[$2] = 1
	next
}
FILENAME ~ /selftest.ktap$/ {
	if ($0 !~ /^(not )?ok [0-9]+ /) next
	name = $0; sub(/^(not )?ok [0-9]+ /, "", name); sub(/ .*/, "", name)
	r = res($0)
	if (name in feat) { got[name] = r; next }
	n_other++; other[n_other] = name; ores[n_other] = r
	next
}
/^(not )?ok [0-9]+ / {	# the module KTAP: top-level lines are the features
	name = $0; sub(/^(not )?ok [0-9]+ /, "", name); sub(/ .*/, "", name)
	nf = split(probes[name], list, " ")
	for (i = 1; i <= nf; i++) {
		p = list[i]
		if (kind[p] == "panic") continue
		short = substr(p, length(name) + 2)
		print name "|" short "|" ((p in got) ? got[p] : "unknown")
	}
	if (!(name in haspanic)) print "|" name "|" res($0)
}
END {
	for (i = 1; i <= n_other; i++) {
		c = other[i]; gsub(/[^A-Za-z0-9_-]/, "_", c)
		print "selftest|" c "|" ores[i]
	}
}' "$O/probes.txt" "$O/selftest.ktap" "$O/ktap.txt" >"$O/results"

cur=
while IFS='|' read -r set case result; do
	if [ "$set" != "$cur" ]; then
		[ -z "$cur" ] || lava-test-set stop "$cur"
		[ -z "$set" ] || lava-test-set start "$set"
		cur=$set
	fi
	lava-test-case "$case" --result "$result"
done <"$O/results"
[ -z "$cur" ] || lava-test-set stop "$cur"
exit 0
