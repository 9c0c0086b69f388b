#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe vs LKDTM on the same kernel (make lkdtm [TARGET=...]): build the kernel's own
# LKDTM (drivers/misc/lkdtm) as a module against the target's kernel, boot a guest that
# runs the LKDTM tests scripts/lkdtm/map names one per child shell (as often as LKDTM's
# own tools/testing/selftests/lkdtm/tests.txt says, none it marks as crashing the machine;
# the few it does not list at all with the expected text of scripts/lkdtm/unlisted),
# and compare LKDTM's verdicts (judged by the expected text of that tests.txt) with
# hardprobe's outcomes from results/<target>/report.json (run first if missing).
# Writes results/<target>/lkdtm-compare.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:-x86_64-gcc}
hp_target "$target"
hp_ksrc
T=$HP_KSRC/tools/testing/selftests/lkdtm/tests.txt
[ -f "$T" ] || hp_die "no $T: LKDTM's expectations come from the kernel source"
R=${RESULTS:-$HP_TOP/results}/$target
M=${RESULTS:-$HP_TOP/results}/.build/$target
if [ ! -f "$R/report.json" ] || [ ! -f "$M/hardprobe.ko" ]; then
	hp_say lkdtm "$target" "no hardprobe results yet: make run first"
	hp_tool run "$target" >/dev/null
fi
B=$(hp_tool kernel "$target")
L=$M/lkdtm
hp_say lkdtm "$target" "building lkdtm.ko from $HP_KSRC/drivers/misc/lkdtm"
rm -rf "$L" && mkdir -p "$L/src" "$L/guest"
cp "$HP_KSRC"/drivers/misc/lkdtm/* "$L/src/"
# x86 exports native_write_cr4 only to an in-tree LKDTM (UNSET_SMEP, not run here):
# out of tree that one call becomes a no-op
sed -i 's/native_write_cr4/hp_lkdtm_no_write_cr4/g' "$L/src/bugs.c"
echo 'static void __attribute__((unused)) hp_lkdtm_no_write_cr4(unsigned long v) { }' >"$L/src/hp_compat.h"
hp_tool kmake "$target" "$B" M="$L/src" CONFIG_LKDTM=m KCFLAGS="-include $L/src/hp_compat.h" \
	modules >"$L/build.log" 2>&1 || {
	tail -n 20 "$L/build.log" >&2
	hp_die "$target: lkdtm.ko build failed (log: $L/build.log)"
}
cp "$L/src/lkdtm.ko" "$L/guest/"
hp_tool lkdtm-guest-list "$HP_TOP/scripts/lkdtm/map" "$T" \
	"$HP_TOP/scripts/lkdtm/unlisted" >"$L/guest/lkdtm-tests"
hp_tool initramfs "$HP_ARCH" "$M" "$M/hardprobe_test" "$L/initramfs.cpio.gz" --extra "$L/guest"
hp_say boot "$target" "LKDTM tests in one guest (TCG), timeout ${BOOT_TIMEOUT:-600} s"
hp_tool boot "$HP_ARCH" "$B/$(hp_image_name)" "$L/initramfs.cpio.gz" \
	"panic=-1 log_buf_len=4M tsc=unstable hardprobe.target=$target hardprobe.mode=lkdtm" \
	--log "$R/console-lkdtm.log" --timeout "${BOOT_TIMEOUT:-600}" --kvm "${HP_KVM:-no}" \
	--mte "${HP_MTE:-}" --smp "${SMP:-}" || true
hp_tool lkdtm-compare "$R" "$HP_TOP/scripts/lkdtm/map" "$T" \
	"$HP_TOP/scripts/lkdtm/unlisted" | tee "$R/lkdtm-compare.txt"
