#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: configure and build (or just prepare) a reference kernel for a target,
# cached under $HARDPROBE_CACHE/build/<target>-<key>. Prints the build directory on stdout.
#
# usage: kernel.sh TARGET [--prepare]     (env: KSRC, KVER, EXTRA_CONFIG, HARDPROBE_CACHE, JOBS)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:?usage: kernel.sh TARGET [--prepare]}
mode=${2:-full}
hp_target "$target"
hp_make_args
hp_ksrc --kver env
hp_builddir "$target"
jobs=${JOBS:-$(nproc)}
B=$HP_BUILD
mk() { make -C "$HP_KSRC" O="$B" "${HP_MAKE[@]}" "$@"; }

# one build per directory: a second bench on the same kernel waits for the first
mkdir -p "$HP_CACHE/build"
exec 9>"$HP_CACHE/build/.${B##*/}.lock"
if ! flock -n 9; then
	hp_say wait "$target" "another build of this kernel is running; waiting for it"
	flock 9
fi

write_info() {
	[ -f "$B/hardprobe-info.txt" ] && return
	{
		echo "target: $target"
		echo "source: $HP_SRCID"
		echo "kver: $(make -s -C "$HP_KSRC" kernelversion 2>/dev/null)"
		echo "compiler: $HP_CCVER"
		echo "config_hash: $(sha256sum "$B/.config" | cut -c1-16)"
		echo "extra_config: ${EXTRA_CONFIG:-none}"
	} >"$B/hardprobe-info.txt"
}

if [ -f "$B/.hardprobe-built" ] || { [ "$mode" = --prepare ] && [ -f "$B/.hardprobe-prepared" ]; }; then
	write_info
	hp_say kernel "$target" "cached: $B"
	echo "$B"
	exit 0
fi
mkdir -p "$B"
log=$B/hardprobe-build.log
: >"$log"

# Run a long make with a progress line every 30 s.
run_make() {
	local what=$1 pid t n
	shift
	mk "$@" >>"$log" 2>&1 &
	pid=$!
	t=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		t=$((t + 2))
		if [ $((t % 30)) = 0 ]; then
			n=$(grep -c -E '^\s+(CC|AS|LD)' "$log" || true)
			hp_say "$what" "$target" "$n objects so far ($HP_CCVER)"
		fi
	done
	if ! wait "$pid"; then
		tail -n 40 "$log" >&2
		hp_die "$target: kernel $what failed; full log: $log"
	fi
}

if [ ! -f "$B/.hardprobe-configured" ]; then
	hp_say config "$target" "tinyconfig + ${HP_FRAGS// /,}${EXTRA_CONFIG:+ + $EXTRA_CONFIG} in $B"
	mk tinyconfig >>"$log" 2>&1 || hp_die "$target: make tinyconfig failed; log: $log"
	# the fragments, comments removed, merged with the kernel's merge_config.sh (a symbol
	# set twice, as a variant does: the last line counts), then every CONFIG_ line of them
	# must have stuck after olddefconfig ("# required": fatal if not)
	hp_tool fragment "$target" --stripped >"$B/hardprobe-merge.config" || exit 1
	(cd "$B" && "$HP_KSRC/scripts/kconfig/merge_config.sh" -m -O "$B" "$B/.config" \
		"$B/hardprobe-merge.config") >>"$log" 2>&1 || hp_die "$target: merge_config.sh failed; log: $log"
	mk olddefconfig >>"$log" 2>&1 || hp_die "$target: make olddefconfig failed; log: $log"
	hp_tool check-config "$target" "$B/.config" || exit 1
	hp_tool fragment "$target" >"$B/hardprobe-fragment.config" || exit 1
	touch "$B/.hardprobe-configured"
fi

hp_ccache_seed "$B"
if [ "$mode" = --prepare ]; then
	hp_say prepare "$target" "modules_prepare"
	run_make prepare -j"$jobs" modules_prepare
	touch "$B/.hardprobe-prepared"
else
	hp_say build "$target" "kernel and modules, $jobs jobs (log: $log)"
	run_make build -j"$jobs" all "$(hp_image_name | sed 's#.*/##')"
	[ -f "$B/$(hp_image_name)" ] || hp_die "$target: build finished but $(hp_image_name) is missing"
	touch "$B/.hardprobe-prepared" "$B/.hardprobe-built"
fi
write_info
hp_say kernel "$target" "ready: $B"
echo "$B"
