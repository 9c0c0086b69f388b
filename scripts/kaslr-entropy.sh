#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe kaslr across boots (make kaslr [TARGET=...] [BOOTS=8]): one boot shows whether
# the kernel moved, not how far it could have. Boot the target BOOTS times, each a small
# guest that loads the module and runs kaslr.text alone (hardprobe.mode=one:kaslr.text, the
# one-probe guest of the panicking probes), and compare where the kernel's text was:
# results/<target>/kaslr-entropy.txt, ending in "check <target> kaslr-across-boots: ok|FAIL".
# A reference target (KVER= as for make run); builds the module and initramfs into
# results/.build/<target>/ as make run does.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:-x86_64-gcc}
boots=${BOOTS:-8}
hp_target_kdir "$target" /nonexistent
name=$(hp_tool result-name "$target") || exit 1
R=${RESULTS:-$HP_TOP/results}/$name
M=${RESULTS:-$HP_TOP/results}/.build/$name
B=$(hp_tool kernel "$target")
image=$B/$(hp_image_name)
hp_say module "$name" "building hardprobe.ko and the initramfs"
hp_tool module "$target" "$B" "$M"
hp_tool initramfs "$HP_ARCH" "$M" "$M/hardprobe_test" "$M/initramfs.cpio.gz"
mkdir -p "$R"
HP_KVM=$(hp_tool kvm-probe "$HP_ARCH" "$image" "$M/initramfs.cpio.gz") || exit 1
[ "$HP_KVM" != n/a ] || HP_KVM=no
export HP_KVM
rm -f "$R"/console-kaslr-*.log
for i in $(seq 1 "$boots"); do
	hp_say boot "$name" "kaslr.text alone, boot $i of $boots"
	hp_tool boot "$HP_ARCH" "$image" "$M/initramfs.cpio.gz" \
		"panic=-1 tsc=unstable hardprobe.target=$name hardprobe.mode=one:kaslr.text ${CMDLINE:-}" \
		--log "$R/console-kaslr-$i.log" --timeout "${BOOT_TIMEOUT:-600}" --kvm "$HP_KVM" \
		--mte "${HP_MTE:-}" --smp "${SMP:-}" || true
done
hp_tool kaslr-entropy "$name" "$R"/console-kaslr-*.log | tee "$R/kaslr-entropy.txt"
grep -q "kaslr-across-boots: ok" "$R/kaslr-entropy.txt"
