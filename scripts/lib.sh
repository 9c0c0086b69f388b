# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: shared shell helpers (sourced, not run).

HP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HP_CACHE=${HARDPROBE_CACHE:-$HOME/.cache/hardprobe}
HP_T0=${HP_T0:-$(date +%s)}
export HP_T0

hp_elapsed() { local s=$(( $(date +%s) - HP_T0 )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# progress line: stage, target, elapsed since the command started
hp_say() { printf '[hardprobe %7s] %-8s %-14s %s\n' "$(hp_elapsed)" "$1" "${2:--}" "${*:3}" >&2; }

hp_die() { printf 'hardprobe: error: %s\n' "$*" >&2; exit 1; }

# hp_target NAME: sets HP_ARCH, HP_COMPILER, HP_FRAGS from scripts/targets.
# <arch>-clang-<N> (e.g. x86_64-clang-22), when not a line of its own, is the <arch>-clang
# line built with clang-<N> (Debian packages clang-N lld-N llvm-N).
hp_target() {
	local name=$1 line base="" ver=""
	line=$(awk -v t="$1" '$1 == t { $1 = ""; print }' "$HP_TOP/scripts/targets")
	if [ -z "$line" ] && [[ "$1" =~ ^((x86_64|arm64)-clang)-([0-9]+)$ ]]; then
		base=${BASH_REMATCH[1]} ver=${BASH_REMATCH[3]}
		line=$(awk -v t="$base" '$1 == t { $1 = ""; print }' "$HP_TOP/scripts/targets")
	fi
	[ -n "$line" ] || hp_die "unknown target '$1' (known: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$HP_TOP/scripts/targets")and <arch>-clang-<N>)"
	# shellcheck disable=SC2086
	set -- $line
	HP_ARCH=$1 HP_COMPILER=$2
	if [ -n "$ver" ]; then
		HP_COMPILER=clang-$ver
		local tool
		for tool in "clang-$ver" "ld.lld-$ver" "llvm-ar-$ver"; do
			command -v "$tool" >/dev/null ||
				hp_die "target '$name' needs $tool: install the Debian packages clang-$ver lld-$ver llvm-$ver (apt-get install clang-$ver lld-$ver llvm-$ver)"
		done
	fi
	shift 2
	HP_FRAGS="$*"
	HP_TARGET_NAME=${HP_TARGET_NAME:-}
}

# hp_target_kdir NAME KDIR: like hp_target, for a kernel the bench did not configure
# (TARGET=debian, KDIR=/KIMAGE=): the architecture and compiler come from KDIR/.config.
hp_target_kdir() {
	local cfg=$2/.config cv
	if awk -v t="$1" '$1 == t { f = 1 } END { exit !f }' "$HP_TOP/scripts/targets" ||
	   [[ "$1" =~ ^(x86_64|arm64)-clang-[0-9]+$ ]]; then
		hp_target "$1"
		return
	fi
	[ -f "$cfg" ] || hp_die "$2 is not a prepared kernel build directory (no .config)"
	HP_ARCH=${ARCH:-x86_64}
	grep -q '^CONFIG_ARM64=y' "$cfg" && HP_ARCH=arm64
	grep -q '^CONFIG_X86_64=y' "$cfg" && HP_ARCH=x86_64
	if grep -q '^CONFIG_CC_IS_CLANG=y' "$cfg"; then
		cv=$(sed -n 's/^CONFIG_CLANG_VERSION=\([0-9]*\)..../\1/p' "$cfg")
		HP_COMPILER=clang-$cv
	else
		cv=$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)..../\1/p' "$cfg")
		HP_COMPILER=gcc-$cv
	fi
	HP_FRAGS=
}

# hp_debian_kernel: the newest installed Debian amd64 kernel that has its headers
# installed too; prints "<version>" or nothing
hp_debian_kernel() {
	local v ver
	for v in $(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V -r); do
		ver=${v#/boot/vmlinuz-}
		[ -f "/usr/src/linux-headers-$ver/.config" ] && { echo "$ver"; return; }
	done
	true
}

# hp_debian_pkgs: the newest Debian 6.12 amd64 kernel the archive offers both the unsigned
# image and the headers for: prints "linux-image-<v>-unsigned linux-headers-<v>" or nothing.
# Every answer is captured before it is matched: under pipefail, "apt-cache ... | grep -q"
# fails whenever grep matches before apt-cache has finished writing (SIGPIPE), and every
# candidate would be rejected (scripts/tests/test_deps.sh runs this against a stand-in).
hp_debian_pkgs() {
	local v names policy
	names=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null) || true
	for v in $(awk '{ print $1 }' <<<"$names" | sed -n 's/^linux-headers-//p' | sort -V -r); do
		policy=$(apt-cache policy "linux-image-$v-unsigned" 2>/dev/null) || true
		if grep -q '^ *Candidate: [0-9]' <<<"$policy"; then
			echo "linux-image-$v-unsigned linux-headers-$v"
			return
		fi
	done
	true
}

# hp_make_args: the kbuild variables that select arch and compiler (array HP_MAKE)
hp_make_args() {
	local ccache=""
	command -v ccache >/dev/null && ccache="ccache "
	HP_MAKE=(ARCH="$HP_ARCH")
	case "$HP_COMPILER" in
	clang-*)
		HP_MAKE+=(LLVM="-${HP_COMPILER#clang-}" CC="${ccache}$HP_COMPILER")
		HP_CC=$HP_COMPILER ;;
	gcc-*)
		if [ "$HP_ARCH" = arm64 ]; then
			HP_MAKE+=(CROSS_COMPILE=aarch64-linux-gnu- CC="${ccache}aarch64-linux-gnu-$HP_COMPILER")
			HP_CC=aarch64-linux-gnu-$HP_COMPILER
		else
			HP_MAKE+=(CC="${ccache}$HP_COMPILER")
			HP_CC=$HP_COMPILER
		fi ;;
	*) hp_die "unknown compiler '$HP_COMPILER'" ;;
	esac
	export CCACHE_DIR=${CCACHE_DIR:-$HP_CACHE/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-6G}
	export CCACHE_BASEDIR=$HP_CACHE
}

# hp_ccache_seed BUILD_DIR: with RANDSTRUCT the layout seed is a file of the build
# directory that ccache does not hash on its own: without this, a compile cached for one
# build directory (one seed) is served to another, and the kernel and its modules
# disagree on struct layouts (seen: an oops in add_kallsyms when loading the module).
hp_ccache_seed() {
	if grep -q '^CONFIG_RANDSTRUCT=y' "$1/.config" 2>/dev/null; then
		export CCACHE_EXTRAFILES=$1/scripts/basic/randstruct.seed
	fi
}

hp_image_name() { [ "$HP_ARCH" = arm64 ] && echo arch/arm64/boot/Image || echo arch/x86/boot/bzImage; }

# hp_ksrc: the kernel source tree (KSRC, or the Debian package extracted once into the cache)
hp_ksrc() {
	if [ -n "${KSRC:-}" ]; then
		[ -f "$KSRC/Makefile" ] || hp_die "KSRC=$KSRC is not a kernel source tree"
		HP_KSRC=$(cd "$KSRC" && pwd)
		HP_SRCID="tree:$HP_KSRC:$(make -s -C "$HP_KSRC" kernelversion 2>/dev/null):$(git -C "$HP_KSRC" rev-parse HEAD 2>/dev/null)"
		return
	fi
	local tarball=/usr/src/linux-source-6.12.tar.xz ver
	[ -f "$tarball" ] || hp_die "no kernel source: install the Debian package linux-source-6.12 (scripts/deps.sh) or pass KSRC=<tree>"
	ver=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	HP_KSRC=$HP_CACHE/src/linux-source-6.12-$ver
	if [ ! -f "$HP_KSRC/.hardprobe-extracted" ]; then
		hp_say extract - "linux-source-6.12 $ver into $HP_KSRC"
		rm -rf "$HP_KSRC.tmp" && mkdir -p "$HP_KSRC.tmp"
		tar -xf "$tarball" -C "$HP_KSRC.tmp" --strip-components=1 || hp_die "cannot extract $tarball"
		rm -rf "$HP_KSRC" && mv "$HP_KSRC.tmp" "$HP_KSRC"
		touch "$HP_KSRC/.hardprobe-extracted"
	fi
	HP_SRCID="debian:linux-source-6.12:$ver"
}

# hp_merged_fragment: the target's fragments plus EXTRA_CONFIG, on stdout
hp_merged_fragment() {
	local f
	for f in $HP_FRAGS; do
		[ -f "$HP_TOP/configs/$f.config" ] || hp_die "missing fragment configs/$f.config"
		cat "$HP_TOP/configs/$f.config"
	done
	if [ -n "${EXTRA_CONFIG:-}" ]; then
		[ -f "$EXTRA_CONFIG" ] || hp_die "EXTRA_CONFIG=$EXTRA_CONFIG: no such file"
		cat "$EXTRA_CONFIG"
	fi
}

# hp_builddir: sets HP_BUILD, the cache directory keyed by source, merged config and compiler
hp_builddir() {
	local ccver key
	command -v "$HP_CC" >/dev/null || hp_die "compiler $HP_CC not found: run scripts/deps.sh"
	ccver=$("$HP_CC" --version | sed -n 1p)
	HP_CCVER=$ccver
	key=$( { echo "$HP_SRCID"; echo "$HP_ARCH"; echo "$ccver"; hp_merged_fragment; } | sha256sum | cut -c1-16)
	HP_BUILD=$HP_CACHE/build/$1-$key
}

# hp_busybox ARCH: path of a static busybox for the guest's architecture
hp_busybox() {
	local deb dir=$HP_CACHE/busybox-$1
	if [ "$1" = x86_64 ]; then
		[ -x /bin/busybox ] && file_is_static /bin/busybox ||
			hp_die "no static busybox: install busybox-static (scripts/deps.sh)"
		echo /bin/busybox
		return
	fi
	if [ ! -x "$dir/bin/busybox" ]; then
		mkdir -p "$dir/deb"
		deb=$(ls "$dir"/deb/busybox-static_*_arm64.deb 2>/dev/null | sed -n 1p)
		if [ -z "$deb" ]; then
			hp_say fetch - "busybox-static:arm64 (Debian package, unpacked into the cache)"
			(cd "$dir/deb" && apt-get download busybox-static:arm64 >/dev/null 2>&1) ||
				hp_die "cannot download busybox-static:arm64: run scripts/deps.sh (it enables the arm64 package architecture)"
			deb=$(ls "$dir"/deb/busybox-static_*_arm64.deb | sed -n 1p)
		fi
		dpkg-deb -x "$deb" "$dir/root" || hp_die "cannot unpack $deb"
		mkdir -p "$dir/bin" && cp "$dir/root/bin/busybox" "$dir/bin/busybox"
	fi
	echo "$dir/bin/busybox"
}

# (readelf's answer captured first: "readelf | grep -q" under pipefail fails on SIGPIPE,
# and the "!" would then call a dynamic binary static)
file_is_static() {
	local ph
	ph=$(LC_ALL=C readelf -l "$1" 2>/dev/null) || return 1
	! grep -q 'Requesting program interpreter' <<<"$ph"
}

# hp_qemu ARCH KERNEL INITRD CMDLINE: the QEMU command line (array HP_QEMU)
hp_qemu() {
	local accel=tcg
	if [ "$1" = x86_64 ]; then
		[ "${HP_KVM:-no}" = yes ] && accel=kvm
		HP_QEMU=(qemu-system-x86_64 -accel "$accel" -cpu max -m 512 -smp 1
			 -kernel "$2" -initrd "$3" -append "console=ttyS0 $4")
	else
		# HP_MTE=yes: a KASAN_HW_TAGS kernel, whose tag checks need the CPU's MTE
		HP_QEMU=(qemu-system-aarch64 -M "virt${HP_MTE:+,mte=on}" -cpu max,pauth-impdef=on -m 512 -smp 1
			 -kernel "$2" -initrd "$3" -append "console=ttyAMA0 $4")
	fi
	HP_QEMU+=(-nographic -no-reboot -monitor none -serial stdio -nodefaults)
}
