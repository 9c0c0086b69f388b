#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe matrix (make matrix): hptool run for each target, one after another (each
# run also writes the cost per feature, bench.json), then the compiler layer
# (hptool ccprobe), then hptool matrix-render: results/matrix.md,
# matrix.html, matrix.json.
# usage: matrix.sh [TARGET...]
#   env: TARGETS (default: x86_64-gcc x86_64-clang arm64-gcc arm64-clang),
#        COMPILERS="clang-22 ..." (adds x86_64-clang-N and arm64-clang-N for each),
#        KVERS="6.1 6.12" (each target once per reference kernel version, side by side:
#        results/<target>-6.1 beside results/<target>),
#        RESULTS (default results/), and what hptool run takes (EXTRA_CONFIG, CMDLINE, ...);
#        HP_MATRIX_RUN: the command run per target instead of hptool run (for the tests)
# A target that fails is recorded in results/<target>/matrix-status.json and shown in the
# matrix; the others still run. Exit status 1 if any target failed, after rendering.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

RES=${RESULTS:-$HP_TOP/results}
mkdir -p "$RES"
RES=$(cd "$RES" && pwd)

# the targets given (default x86_64-gcc x86_64-clang arm64-gcc arm64-clang), then
# <arch>-clang-<N> for each clang-<N> of COMPILERS, no repeats (hptool/targets.py)
list=$(hp_tool matrix-targets "$@") || exit 1
mapfile -t bases <<<"$list"
# each target once per version of KVERS (default: the default version only): the runs,
# by results name (<target> for 6.12, <target>-6.1), and each run's KVER
read -r -a kvers <<<"${KVERS:-}"
[ ${#kvers[@]} != 0 ] || kvers=("")
targets=()
declare -A kver_of base_of
for b in "${bases[@]}"; do
	for v in "${kvers[@]}"; do
		name=$(KVER=$v hp_tool result-name "$b") || exit 1
		[ -z "${base_of[$name]:-}" ] || continue	# a Debian kernel has one version
		targets+=("$name")
		kver_of[$name]=$v base_of[$name]=$b
	done
done
n=${#targets[@]}

# status FILE TARGET STATUS STAGE RC ELAPSED REASON LOG: results/<target>/matrix-status.json
status() { hp_tool status "$@"; }

# the stage after the last one hptool run recorded in stages.txt
failed_stage() {
	local last
	last=$(awk 'END { print $1 }' "$1" 2>/dev/null)
	case "$last" in
	"") echo kernel ;;
	kernel) echo module ;;
	module) echo initramfs ;;
	initramfs|kvm-probe) echo boot ;;
	*) echo collect ;;
	esac
}

hp_say matrix - "$n targets: ${targets[*]}"
failed=()
i=0
for t in "${targets[@]}"; do
	i=$((i + 1))
	R=$RES/$t
	log=$RES/$t.matrix.log
	mkdir -p "$R"
	# no stale results from an earlier run may stand in for this one
	rm -f "$R/report.json" "$R/bench.json" "$R/matrix-status.json" "$R/stages.txt"
	t0=$(date +%s)
	hp_say matrix "$t" "target $i/$n: run (kernel, module, boot, fatal guests); log $log"
	rc=0 stage=complete reason=
	b=${base_of[$t]}
	if ! hp_debian_series "$b" >/dev/null && ! err=$( (hp_target "$b") 2>&1 ); then
		rc=1 stage=target reason=${err#hardprobe: error: }
		echo "$err" >"$log"
	else
		KVER=${kver_of[$t]} RESULTS=$RES ${HP_MATRIX_RUN:-hp_tool run} "$b" 2>&1 | tee "$log" |
			grep --line-buffered '^\[hardprobe' >&2
		rc=${PIPESTATUS[0]}
		if [ "$rc" != 0 ]; then
			stage=$(failed_stage "$R/stages.txt")
			reason=$(grep -E '^hardprobe(: error)?: ' "$log" | tail -n 1 | sed 's/^hardprobe\(: error\)\?: //')
			grep -q '^TIMEOUT' "$R/console.log" 2>/dev/null && reason="guest TIMEOUT (BOOT_TIMEOUT=${BOOT_TIMEOUT:-600} s); $reason"
			reason="failed at stage $stage (exit $rc)${reason:+: $reason}; see $log"
		fi
	fi
	# the cost per feature: hptool run writes bench.json (hptool bench) when the module's
	# bench ran; without it the cost shows —
	if [ "$rc" = 0 ] && [ ! -f "$R/bench.json" ]; then
		hp_say matrix "$t" "target $i/$n: no bench.json (cost: —); see $R/bench-table.txt"
	fi
	el=$(( $(date +%s) - t0 ))
	if [ "$rc" = 0 ]; then
		status "$R/matrix-status.json" "$t" ok "$stage" 0 "$el" "" "$log"
		hp_say matrix "$t" "target $i/$n: ok in ${el}s"
	else
		status "$R/matrix-status.json" "$t" failed "$stage" "$rc" "$el" "$reason" "$log"
		hp_say matrix "$t" "target $i/$n: FAILED in ${el}s: $reason"
		failed+=("$t")
	fi
done

# the compiler layer: what each target's compiler accepts and emits
ccs=()
for t in "${bases[@]}"; do
	( hp_target "$t" ) >/dev/null 2>&1 || continue
	read -r arch comp <<<"$(hp_tool arch-compiler "$t")"
	ccs+=("$comp/$arch")	# hptool ccprobe's compiler ids
done
mapfile -t ccs < <(printf '%s\n' "${ccs[@]}" | awk 'NF && !seen[$0]++')
hp_say matrix - "compiler layer: hptool ccprobe ${ccs[*]}"
rm -f "$RES/compiler.json"
hp_tool ccprobe -o "$RES/compiler.json" --compilers "$(IFS=,; echo "${ccs[*]}")" \
	>"$RES/ccprobe.log" 2>&1 ||
	hp_say matrix - "hptool ccprobe failed (the compiler layer shows —); see $RES/ccprobe.log"

hp_say matrix - "rendering $RES/matrix.md, matrix.html, matrix.json"
hp_tool matrix-render --results "$RES" --targets "${targets[*]}" || exit 1
echo "matrix: $RES/matrix.md"
echo "matrix: $RES/matrix.html"
echo "matrix: $RES/matrix.json"
if [ ${#failed[@]} != 0 ]; then
	echo "matrix: ${#failed[@]} of $n targets failed: ${failed[*]} (reasons in the matrix and results/<target>/matrix-status.json)" >&2
	exit 1
fi
