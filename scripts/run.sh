#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: kernel -> module -> initramfs -> QEMU -> results/<target>/.
# usage: run.sh TARGET   (env: KSRC, KVER, EXTRA_CONFIG, CMDLINE, RESULTS, HARDPROBE_CACHE, BOOT_TIMEOUT,
#                         PANIC_GUESTS=no: skip the one-guest panicking probes)
#   TARGET=debian (Debian 12's default, 6.1), debian-6.12: the installed Debian amd64 kernel of
#   that series and its linux-headers (scripts/deps.sh --debian=TARGET)
#   KDIR=<prepared build dir> KIMAGE=<bzImage|Image> [ARCH=arm64]: a kernel you built; TARGET
#   then only names the results directory (default: custom)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:-x86_64-gcc}
if [ -n "${KIMAGE:-}" ] || [ -n "${KDIR:-}" ]; then
	[ -n "${KIMAGE:-}" ] && [ -n "${KDIR:-}" ] || hp_die "a kernel of your own needs both KDIR=<prepared build dir> and KIMAGE=<bzImage|Image>"
	[ -f "$KIMAGE" ] || hp_die "KIMAGE=$KIMAGE: no such file"
	[ -f "$KDIR/Module.symvers" ] || hp_die "KDIR=$KDIR: no Module.symvers (build the kernel, or run 'make modules_prepare' and accept unresolved-symbol warnings)"
	prebuilt=$KDIR image=$KIMAGE
elif series=$(hp_debian_series "$target") && [ "$(hp_debian_arch "$target")" = arm64 ]; then
	hp_debian_arm64 "$series"
	prebuilt=$HP_DEB_KDIR image=$HP_DEB_IMAGE
elif series=$(hp_debian_series "$target"); then
	ver=$(hp_debian_kernel "$series")
	[ -n "$ver" ] || hp_die "no Debian $series amd64 kernel with its headers installed: run scripts/deps.sh --debian=$target (as root)"
	prebuilt=/usr/src/linux-headers-$ver image=/boot/vmlinuz-$ver
	[ -r "$image" ] || hp_die "$image is not readable: run as root"
else
	prebuilt= image=
fi
hp_target_kdir "$target" "${prebuilt:-/nonexistent}"
# KVER=6.1: the reference kernel of that version; its results (and the name the guest
# reports) are <target>-6.1, beside the 6.12 ones
name=$target
[ -n "$prebuilt" ] || name=$(hp_tool result-name "$target") || exit 1
R=${RESULTS:-$HP_TOP/results}/$name
mkdir -p "$R"
rm -f "$R"/*.txt "$R"/*.json "$R"/*.ktap "$R"/*.log "$R"/*.rc "$R"/timings
T=$R/stages.txt
: >"$T"
stage_start=$(date +%s.%N)
stage() {
	local now
	now=$(date +%s.%N)
	printf '%-12s %6.1f s\n' "$1" "$(echo "$now - $stage_start" | bc)" >>"$T"
	stage_start=$now
}

if [ -n "$prebuilt" ]; then
	B=$prebuilt
	hp_say kernel "$target" "prebuilt: $image, modules against $B ($HP_ARCH, $HP_COMPILER)"
else
	B=$(hp_tool kernel "$target")
	image=$B/$(hp_image_name)
fi
stage kernel
# module, KUnit module and initramfs are per checkout: two checkouts share one kernel
M=${RESULTS:-$HP_TOP/results}/.build/$name
hp_say module "$name" "building hardprobe.ko, hardprobe_kunit.ko, hardprobe_test"
hp_tool module "$target" "$B" "$M"
stage module
hp_tool initramfs "$HP_ARCH" "$M" "$M/hardprobe_test" "$M/initramfs.cpio.gz"
stage initramfs

# KVM only if a quick probe boot proves it works (cached per machine; n/a: not tried)
HP_KVM=$(hp_tool kvm-probe "$HP_ARCH" "$image" "$M/initramfs.cpio.gz") || exit 1
if [ "$HP_KVM" != n/a ]; then
	stage kvm-probe
else
	HP_KVM=no
fi
export HP_KVM

cmdline="panic=-1 log_buf_len=4M tsc=unstable hardprobe.target=$name hardprobe.mode=all"
# KASAN hardware tags: the guest CPU needs MTE, and KASAN prints only the first report of
# a boot unless kasan_multi_shot (each mte probe looks for its own)
HP_MTE=
if [ "$HP_ARCH" = arm64 ] && grep -q '^CONFIG_KASAN_HW_TAGS=y' "$B/.config" 2>/dev/null; then
	HP_MTE=yes cmdline+=" kasan_multi_shot"
fi
export HP_MTE
cmdline+=" ${CMDLINE:-}"
# one guest: hptool boot ARCH KERNEL INITRD CMDLINE LOG (its status: QEMU's, 124 after
# BOOT_TIMEOUT, when "TIMEOUT after <s> s" ends the log)
boot() {
	hp_tool boot "$HP_ARCH" "$image" "$M/initramfs.cpio.gz" "$1" --log "$2" \
		--timeout "${BOOT_TIMEOUT:-600}" --kvm "$HP_KVM" --mte "${HP_MTE:-}" --smp "${SMP:-}"
}
hp_say boot "$name" "QEMU ($([ "$HP_KVM" = yes ] && echo KVM || echo TCG)), timeout ${BOOT_TIMEOUT:-600} s"
boot "$cmdline" "$R/console.log" || true
stage boot

# fatal probes that panic: one fresh guest each, up to nproc at once
panics=
export PANIC_GUESTS=${PANIC_GUESTS:-yes}
[ "$PANIC_GUESTS" = no ] ||
	panics=$(hp_tool panic-probes "$R/console.log" || true)
if [ -n "$panics" ]; then
	hp_say fatal "$name" "panicking probes, one guest each: $panics"
	for p in $panics; do
		{ boot "${cmdline/hardprobe.mode=all/hardprobe.mode=one:$p}" "$R/console-$p.log" ||
			true; } &
		while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 1; done
	done
	wait
	stage fatal-guests
fi
{
	if [ -n "$prebuilt" ]; then
		echo "target: $target"
		echo "source: prebuilt $(cat "$B/include/config/kernel.release" 2>/dev/null || echo unknown)"
		echo "compiler: $(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$B/.config")"
		echo "config_hash: $(sha256sum "$B/.config" | cut -c1-16)"
		echo "image: $image"
	else
		cat "$B/hardprobe-info.txt"
	fi
	echo "build_dir: $B"
	echo "accel: $([ "$HP_KVM" = yes ] && echo kvm || echo tcg)"
	echo "cmdline: $cmdline"
} >"$R/build-info.txt"
hp_tool collect "$R" "$name"
# the cost per feature (module debugfs "bench" + the variants' code sizes): bench.json
hp_tool bench "$R" "$M" >"$R/bench-table.txt" 2>&1 || true
