#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe offcheck (make offcheck [OFF=name,...]): for each variant of
# scripts/off-variants, boot the target as it is and with the features turned off (boot
# parameters, or a config fragment: that one is a kernel build of its own), then
# hptool offcheck: the features turned off must come out vulnerable, all others as
# on the base run. Results in results/off/<name>/; prints "check off-..." lines.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

variants=$(hp_tool off-variants "${OFF:-}") || exit 1
fail=0
declare -A based
while IFS=$'\t' read -r name target kind value feats; do
	[ -n "$name" ] || continue
	O=$HP_TOP/results/off/$name
	mkdir -p "$O"
	if [ -z "${based[$target]:-}" ]; then
		hp_say off "$target" "base run"
		RESULTS=$HP_TOP/results/off/base hp_tool run "$target" \
			>"$HP_TOP/results/off/base-$target.log" 2>&1 ||
			tail -n 5 "$HP_TOP/results/off/base-$target.log" >&2
		based[$target]=1
	fi
	hp_say off "$target" "$name: $kind $value"
	if [ "$kind" = cmdline ]; then
		CMDLINE="$value" RESULTS=$O hp_tool run "$target" >"$O/run.log" 2>&1
	else
		EXTRA_CONFIG=$HP_TOP/$value RESULTS=$O hp_tool run "$target" >"$O/run.log" 2>&1
	fi || tail -n 5 "$O/run.log" >&2
	hp_tool offcheck "$name" "$HP_TOP/results/off/base/$target" \
		"$O/$target" "$feats" || fail=1
done <<<"$variants"
exit $fail
