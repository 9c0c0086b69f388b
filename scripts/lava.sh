#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe make lava: the bench's kernel, module, runner and ramdisk as a LAVA job (lava/),
# run by Debian's lava-dispatcher alone (lava-run, no server), each result compared with
# report.json's outcome for the same kernel. Ends with "N passed, N failed".
# usage: lava.sh [TARGET]   (default x86_64-gcc; env SMP: vCPUs, default 2)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t=${1:-x86_64-gcc}
"$HP_TOP/scripts/deps.sh" --lava || exit 1
[ "$(id -u)" = 0 ] || hp_die "lava-run runs as root only (it writes /var/lib/lava/dispatcher)"
name=$(hp_tool result-name "$t") || exit 1
R=$HP_TOP/results/$name
M=$HP_TOP/results/.build/$name
L=$HP_TOP/results/lava/$name
rm -rf "$L"
mkdir -p "$L/ramdisk"
LOG=$L/check.log
: >"$LOG"
# the run this job must agree with: this checkout's make run of the target
if [ ! -s "$R/report.json" ] || [ ! -f "$M/hardprobe.ko" ] || [ ! -s "$R/build-info.txt" ]; then
	hp_say lava "$name" "no run of this target in this checkout: make run TARGET=$t first"
	hp_tool run "$t" >"$HP_TOP/results/$name.run.log" 2>&1 ||
		hp_die "make run TARGET=$t failed: see results/$name.run.log"
fi
B=$(sed -n 's/^build_dir: //p' "$R/build-info.txt")
image=$(sed -n 's/^image: //p' "$R/build-info.txt")
hp_target_kdir "$t" "$B"
[ -n "$image" ] || image=$B/$(hp_image_name)
[ -f "$image" ] || hp_die "the kernel of results/$name ($image) is gone: make run TARGET=$t again"

machine='' append=''
if [ "$HP_ARCH" = arm64 ] && grep -q '^CONFIG_KASAN_HW_TAGS=y' "$B/.config"; then
	machine=virt,mte=on append=kasan_multi_shot
fi
hp_say lava "$name" "job inputs: kernel, ramdisk (busybox, module, runner, lava/init), device, job"
cp "$HP_TOP/lava/init" "$HP_TOP/lava/hardprobe-lava.sh" "$L/ramdisk/"
hp_tool initramfs "$HP_ARCH" "$M" "$M/hardprobe_test" "$L/ramdisk.cpio.gz" --extra "$L/ramdisk" ||
	hp_die "the ramdisk could not be built"
cp "$image" "$L/kernel"
hp_tool lava-device "$HP_ARCH" --smp "${SMP:-2}" ${machine:+--machine "$machine"} \
	-d "$L/device.jinja2" >"$L/device.yaml" || exit 1
hp_tool lava-job "$HP_ARCH" "$name" "file://$L/kernel" "file://$L/ramdisk.cpio.gz" "$R/probes.txt" \
	--smp "${SMP:-2}" ${machine:+--machine "$machine"} ${append:+--append "$append"} >"$L/job.yaml" || exit 1
if /usr/bin/python3 /usr/share/lava-common/lava-schema.py job --strict "$L/job.yaml" >"$L/schema.txt" 2>&1; then
	echo "check lava-schema-$name: ok (lava-schema.py job --strict)"
else
	echo "check lava-schema-$name: FAIL ($(tail -n 1 "$L/schema.txt"))"
fi | tee -a "$LOG"

hp_say lava "$name" "lava-run (QEMU TCG): the module and its runner, then $(grep -c '^    interactive:' "$L/job.yaml") panicking probe(s), a fresh boot each"
t0=$(date +%s)
rc=0
lava-run --job-id 1 --output-dir "$L/out" --device "$L/device.yaml" "$L/job.yaml" >"$L/lava.log" 2>&1 || rc=$?
el=$(( $(date +%s) - t0 ))
# the figure beside it: make run's guests on the same kernel (its stages.txt, boot and
# the panicking probes' guests; a benchmark figure, not a check)
mr=$(awk '$1 == "boot" || $1 == "fatal-guests" { s += $2 } END { printf "%d", s }' "$R/stages.txt" 2>/dev/null)
echo "lava-run: rc $rc in $el s; make run's guests on this kernel: ${mr:-?} s ($L/lava.log)" | tee -a "$LOG"
hp_say lava "$name" "lava-run ended (rc $rc) in ${el} s"
if ! grep -q '"lvl": "results"' "$L/lava.log"; then
	echo "check lava-results-$name: FAIL (no results in $L/lava.log)" | tee -a "$LOG"
else
	hp_tool lava-compare "$L/lava.log" "$R/report.json" >"$L/compare.txt" 2>&1
	grep -v '^check ' "$L/compare.txt"
	sed -n 's/^check lava-results:/check lava-results-'"$name"':/p' "$L/compare.txt" | tee -a "$LOG"
	grep -q '^check ' "$L/compare.txt" ||
		echo "check lava-results-$name: FAIL ($(tail -n 1 "$L/compare.txt"))" | tee -a "$LOG"
fi
hp_tool tally "$LOG"
