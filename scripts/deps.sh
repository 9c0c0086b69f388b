#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe: install the Debian packages the bench needs (Debian 12). As root it runs
# apt-get; otherwise it prints the exact command and fails. No other downloads.
# (chromium: make check looks at the matrix HTML in headless Chromium.)
# usage: deps.sh [--arm64] [--debian[=TARGET]]... [--kver=V] [--lava] [--lava-server]
#   --arm64   also enables the arm64 package architecture, for the guest's
#             busybox-static:arm64, fetched later into the cache
#   --debian=TARGET  also the stock Debian amd64 kernel of that target with its headers
#             (debian: Debian 12's default 6.1; debian-6.12: the 6.12 series), unless one
#             of that series is installed already; --debian alone means --debian=debian
#   --kver=V  also linux-source-V, the reference kernels' source of that version (KVER=6.1)
#   --lava    also LAVA's dispatcher (lava-run, lava-schema.py) and lavacli, without their
#             recommends, and lava-server's device-type templates alone: Debian's package
#             unpacked into the cache (installing it would pull Django and PostgreSQL)
#   --lava-server  also lava-server itself and PostgreSQL, without recommends (make
#             lava-lab); its postinst creates no database while no PostgreSQL answers on
#             the default port, and starts nothing without systemd
set -euo pipefail

pkgs=(make gcc-12 libc6-dev perl python3 rsync bc flex bison cpio gzip xz-utils kmod
      libelf-dev libssl-dev ccache linux-source-6.12 busybox-static qemu-system-x86
      qemu-system-arm gcc-12-aarch64-linux-gnu gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      clang-19 lld-19 llvm-19 chromium openssl python3-jsonschema)

# EXTRA_PKGS: more Debian packages (make matrix COMPILERS=clang-22: clang-22 lld-22 llvm-22)
# shellcheck disable=SC2206
pkgs+=(${EXTRA_PKGS:-})
. "$(dirname "$0")/lib.sh"
arm64=no series=() lava=() server=()
for a in "$@"; do
	case "$a" in
	--arm64) arm64=yes ;;
	--lava) lava=(lava-dispatcher lava-common lavacli python3-jinja2 python3-yaml) ;;
	--lava-server) server=(lava-server postgresql) ;;
	--debian) series+=(6.1) ;;
	--kver=*)
		case "${a#--kver=}" in
		6.1 | 6.12) pkgs+=("linux-source-${a#--kver=}") ;;
		# Debian 12 packages no 7.1: its tree comes from KSRC= (hptool/kconfig.py)
		7.1) ;;
		*) echo "hardprobe: KVER=${a#--kver=}: no such reference kernel version (known: 6.12, 6.1, 7.1)" >&2; exit 2 ;;
		esac ;;
	--debian=*)
		s=$(hp_debian_series "${a#--debian=}") || {
			echo "hardprobe: no Debian kernel target '${a#--debian=}' (known: debian, debian-6.1, debian-6.12, debian-arm64, debian-arm64-6.12)" >&2
			exit 2
		}
		[ "$(hp_debian_arch "${a#--debian=}")" = amd64 ] || s=arm64:$s
		series+=("$s") ;;
	*) echo "usage: deps.sh [--arm64] [--debian[=TARGET]]... [--kver=V] [--lava] [--lava-server]" >&2; exit 2 ;;
	esac
done

for s in ${series[@]+"${series[@]}"}; do
	# Debian's arm64 kernels are unpacked into the cache at run time (hp_debian_arm64),
	# from the arm64 architecture and linux-source-<series>
	if [[ "$s" == arm64:* ]]; then
		arm64=yes
		pkgs+=("linux-source-${s#arm64:}")
		continue
	fi
	[ -z "$(hp_debian_kernel "$s")" ] || continue
	dp=$(hp_debian_pkgs "$s")
	[ -n "$dp" ] || { echo "hardprobe: no Debian $s amd64 kernel (linux-image-<version>-amd64-unsigned with matching linux-headers) in the package lists (apt-get update?)" >&2; exit 1; }
	# shellcheck disable=SC2206
	pkgs+=($dp)
done

installed() {
	local st
	# the answer is captured first: a "| grep -q" under pipefail fails when the writer
	# is still writing after grep has matched (SIGPIPE)
	st=$(dpkg-query -W -f '${Status}\n' "$1" 2>/dev/null || true)
	[[ "$st" == *"install ok installed"* ]]
}
missing=() lmissing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
for p in ${lava[@]+"${lava[@]}"} ${server[@]+"${server[@]}"}; do
	installed "$p" || lmissing+=("$p")
done
# lava-server's device-type templates (qemu.jinja2), for make lava's device dictionary
LT=$HP_CACHE/lava/server
lava_templates() {
	[ ${#lava[@]} != 0 ] && [ ! -f "$LT/usr/share/lava-server/device-types/qemu.jinja2" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "hardprobe: lava-server's device-type templates are missing; run as root: scripts/deps.sh --lava" >&2
		return 1
	fi
	echo "hardprobe: unpacking lava-server's device-type templates into $LT" >&2
	rm -rf "$LT.tmp" && mkdir -p "$LT.tmp" &&
		(cd "$LT.tmp" && apt-get download -qq lava-server 2>/dev/null && dpkg-deb -x lava-server_*.deb x) &&
		rm -rf "$LT" && mv "$LT.tmp/x" "$LT" && rm -rf "$LT.tmp" || {
		echo "hardprobe: could not fetch lava-server (apt-get download lava-server; apt-get update?)" >&2
		return 1
	}
}
need_arm64=no
if [ $arm64 = yes ] && ! grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)"; then
	need_arm64=yes
fi
[ ${#missing[@]} = 0 ] && [ ${#lmissing[@]} = 0 ] && [ $need_arm64 = no ] && { lava_templates; exit; }

cmd="apt-get update && apt-get install -y ${missing[*]}"
[ ${#lmissing[@]} = 0 ] || cmd+=" && apt-get install -y --no-install-recommends ${lmissing[*]}"
[ $need_arm64 = yes ] && cmd="dpkg --add-architecture arm64 && $cmd"
if [ "$(id -u)" != 0 ]; then
	echo "hardprobe: missing Debian packages: ${missing[*]:-}${lmissing[*]:+ ${lmissing[*]}}${need_arm64/yes/ (and the arm64 package architecture)}" >&2
	echo "hardprobe: run as root:  $cmd" >&2
	exit 1
fi
arch_note=
[ $need_arm64 = yes ] && arch_note=" (and the arm64 package architecture)"
echo "hardprobe: installing: ${missing[*]:-}$arch_note" >&2
[ $need_arm64 = yes ] && dpkg --add-architecture arm64
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || echo "hardprobe: apt-get update failed; trying the install anyway" >&2
if [ ${#missing[@]} != 0 ]; then
	apt-get install -y -qq "${missing[@]}" >/dev/null || {
		echo "hardprobe: apt-get install failed; the command was: $cmd" >&2
		exit 1
	}
fi
if [ ${#lmissing[@]} != 0 ]; then
	apt-get install -y -qq --no-install-recommends "${lmissing[@]}" >/dev/null || {
		echo "hardprobe: apt-get install failed; the command was: $cmd" >&2
		exit 1
	}
fi
lava_templates
