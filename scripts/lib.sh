# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: shared shell helpers (sourced, not run).

HP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HP_CACHE=${HARDPROBE_CACHE:-$HOME/.cache/hardprobe}
HP_T0=${HP_T0:-$(date +%s)}
export HP_T0

hp_elapsed() { local s=$(( $(date +%s) - HP_T0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# progress line: stage, target, elapsed since the command started (hptool's say() prints
# the same line from Python; scripts/tests/test_hptool.py ties the two). With HP_STAGES set
# (make check, make check-debug), each line's time, stage and target are appended to that
# file: "hptool stage-timings" sums them at the end.
hp_say() {
	printf '[hardprobe %7s] %-8s %-14s %s\n' "$(hp_elapsed)" "$1" "${2:--}" "${*:3}" >&2
	[ -z "${HP_STAGES:-}" ] || printf '%s\t%s\t%s\n' "$(date +%s)" "$1" "${2:--}" >>"$HP_STAGES" 2>/dev/null || true
}

hp_die() { printf 'hardprobe: error: %s\n' "$*" >&2; exit 1; }

# The check log of make check and make check-debug (the caller sets L): "check <what>:
# ok|FAIL ..." lines, counted at the end by "hptool tally". record: stdin, shown and
# appended to the log.
record() { tee -a "${L:?record: no check log L}"; }
# A program that prints check lines: its lines, and a failure of its own when it exits
# non-zero (an exception, a crash): a check it never printed is the manifest's business.
# usage: checked NAME COMMAND...
checked() {
	local name=$1 rc
	shift
	"$@" | record
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || echo "check $name-exit: FAIL (exited $rc: $(basename "${2:-$1}"))" | record
}

# hptool: the bench's host tool (scripts/hptool), run as "hp_tool <subcommand>"
hp_tool() { PYTHONPATH=$HP_TOP/scripts${PYTHONPATH:+:$PYTHONPATH} python3 -m hptool "$@"; }

# hp_target NAME: sets HP_ARCH and HP_COMPILER from scripts/targets, <arch>-clang-<N>
# included (hptool/targets.py holds the rules; fails when the compiler is missing)
hp_target() {
	local tc
	tc=$(hp_tool target "$1") || exit 1
	read -r HP_ARCH HP_COMPILER <<<"$tc"
}

# hp_target_kdir NAME KDIR: like hp_target, for a kernel the bench did not configure
# (TARGET=debian, KDIR=/KIMAGE=): the architecture and compiler come from KDIR/.config.
hp_target_kdir() {
	local tc
	tc=$(hp_tool target "$1" --kdir "$2") || exit 1
	read -r HP_ARCH HP_COMPILER <<<"$tc"
}

# Debian's own kernels, by target name: "debian" is Debian 12's default kernel (the 6.1
# series of linux-image-amd64), "debian-6.12" the 6.12 series of bookworm, "debian-6.1"
# the default again; "debian-arm64" and "debian-arm64-6.12" the same for arm64 (booted
# from the package unpacked into the cache, not installed).
# hp_debian_series NAME: prints the series ("6.1", "6.12"), or fails for another name
hp_debian_series() {
	case "$1" in
	debian | debian-6.1 | debian-arm64 | debian-arm64-6.1) echo 6.1 ;;
	debian-6.12 | debian-arm64-6.12) echo 6.12 ;;
	*) return 1 ;;
	esac
}

# hp_debian_arch NAME: the Debian architecture of a Debian kernel target (amd64, arm64)
hp_debian_arch() {
	case "$1" in
	debian-arm64*) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# hp_debian_version_re SERIES [ARCH]: the package version of that series' kernels
# (default amd64), as an extended regular expression ("6.1.0-57-amd64",
# "6.12.118+deb12-arm64")
hp_debian_version_re() {
	local a=${2:-amd64}
	case "$1" in
	6.1) echo "6\\.1\\.0-[0-9]+-$a" ;;
	6.12) echo "6\\.12\\.[0-9]+\\+deb12-$a" ;;
	*) hp_die "no Debian $a kernel series '$1' (known: 6.1, 6.12)" ;;
	esac
}

# hp_debian_kernel SERIES: the newest installed Debian amd64 kernel of that series that
# has its headers installed too; prints "<version>" or nothing
hp_debian_kernel() {
	local v ver re
	re=$(hp_debian_version_re "${1:?series}") || exit 1
	for v in $(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V -r); do
		ver=${v#/boot/vmlinuz-}
		[[ "$ver" =~ ^$re$ ]] || continue
		[ -f "/usr/src/linux-headers-$ver/.config" ] && { echo "$ver"; return; }
	done
	true
}

# hp_debian_pkgs SERIES [ARCH]: the newest Debian kernel of that series (default amd64) the archive offers
# both the unsigned image and the headers for: prints "linux-image-<v>-unsigned
# linux-headers-<v>" or nothing. Every answer is captured before it is matched: under
# pipefail, "apt-cache ... | grep -q" fails whenever grep matches before apt-cache has
# finished writing (SIGPIPE), and every candidate would be rejected
# (scripts/tests/test_deps.py runs this against a stand-in).
hp_debian_pkgs() {
	local v names policy re a=${2:-amd64}
	re=$(hp_debian_version_re "${1:?series}" "$a") || exit 1
	names=$(apt-cache search --names-only "^linux-headers-$re\$" 2>/dev/null) || true
	for v in $(awk '{ print $1 }' <<<"$names" | sed -n 's/^linux-headers-//p' | sort -V -r); do
		policy=$(apt-cache policy "linux-image-$v-unsigned$([ "$a" = amd64 ] || echo ":$a")" \
			2>/dev/null) || true
		if grep -q '^ *Candidate: [0-9]' <<<"$policy"; then
			echo "linux-image-$v-unsigned linux-headers-$v"
			return
		fi
	done
	true
}

# hp_debian_arm64 SERIES: Debian's arm64 kernel of that series, unpacked into the cache
# (apt-get download, dpkg-deb -x: not installed), and the same version's source
# (linux-source-SERIES) configured with Debian's .config, prepared for modules with
# Debian's Module.symvers and kernel release: sets HP_DEB_KDIR, HP_DEB_IMAGE. The arm64
# headers package cannot serve: its scripts are arm64 programs.
hp_debian_arm64() {
	local series=$1 pkgs v d B
	pkgs=$(hp_debian_pkgs "$series" arm64)
	[ -n "$pkgs" ] || hp_die "no Debian $series arm64 kernel in the package lists (run scripts/deps.sh --arm64, as root: it enables the arm64 architecture)"
	v=${pkgs##* linux-headers-}
	d=$HP_CACHE/debian/$v
	if [ ! -f "$d/.unpacked" ]; then
		hp_say fetch debian-arm64 "linux-image-$v-unsigned, linux-headers-$v (arm64, unpacked into $d)"
		rm -rf "$d" && mkdir -p "$d/deb" || exit 1
		(cd "$d/deb" && apt-get download "linux-image-$v-unsigned:arm64" "linux-headers-$v:arm64" \
			>/dev/null 2>&1) || hp_die "cannot download Debian's arm64 kernel $v (apt-get download)"
		for p in "$d"/deb/*.deb; do dpkg-deb -x "$p" "$d/root" || hp_die "cannot unpack $p"; done
		touch "$d/.unpacked"
	fi
	HP_DEB_IMAGE=$d/root/boot/vmlinuz-$v
	B=$d/build
	if [ ! -f "$B/.hardprobe-prepared" ]; then
		hp_ksrc --kver "$series"
		# the source must be the kernel's own version, or Module.symvers' CRCs will not match
		local want have
		want=$(dpkg-deb -f "$d"/deb/linux-image-*.deb Version)
		have=$(hp_tool ksrc --kver "$series" --id) || exit 1
		have=${have##*:}
		[ "$want" = "$have" ] || hp_die "Debian's arm64 kernel $v is $want, linux-source-$series is $have: install the matching linux-source-$series"
		hp_say prepare debian-arm64 "linux-source-$series with Debian's config and Module.symvers in $B"
		rm -rf "$B" && mkdir -p "$B" && cp "$d/root/boot/config-$v" "$B/.config" || exit 1
		local mk=(make -C "$HP_KSRC" O="$B" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
			  CC=aarch64-linux-gnu-gcc-12 KERNELRELEASE="$v")
		"${mk[@]}" olddefconfig >"$B/hardprobe-build.log" 2>&1 &&
			"${mk[@]}" -j"$(nproc)" modules_prepare >>"$B/hardprobe-build.log" 2>&1 ||
			hp_die "preparing linux-source-$series for Debian's arm64 kernel failed; log: $B/hardprobe-build.log"
		cp "$d/root/usr/src/linux-headers-$v/Module.symvers" "$B/" || exit 1
		touch "$B/.hardprobe-prepared"
	fi
	HP_DEB_KDIR=$B
}

hp_image_name() { hp_tool image "$HP_ARCH" || exit 1; }

# hp_ksrc [--kver env]: the kernel source tree (KSRC, or the Debian package extracted once
# into the cache): sets HP_KSRC; linux-source-6.12, or with "--kver env" the reference
# kernels' version KVER (6.12, 6.1, 7.1)
hp_ksrc() {
	HP_KSRC=$(hp_tool ksrc "$@") || exit 1
}
