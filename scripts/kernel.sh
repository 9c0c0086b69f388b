#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe bench: configure and build (or just prepare) a reference kernel for a target,
# cached under $HARDPROBE_CACHE/build/<target>-<key>. Prints the build directory on stdout.
#
# usage: kernel.sh TARGET [--prepare]     (env: KSRC, EXTRA_CONFIG, HARDPROBE_CACHE, JOBS)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:?usage: kernel.sh TARGET [--prepare]}
mode=${2:-full}
hp_target "$target"
hp_make_args
hp_ksrc
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

# Check that every CONFIG_ line of the merged fragment stuck after olddefconfig
# (for a symbol set twice, as a variant does, the last line is the one that counts).
check_config() {
	local line sym val want got lost=0 fatal=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		want=${line%%#*}
		want=$(echo "$want" | tr -d '[:space:]')
		sym=${want%%=*} val=${want#*=}
		got=$(grep -E "^$sym=|^# $sym is not set" "$B/.config" | tail -n 1 || true)
		case "$val" in
		n) [ -z "$got" ] || [ "$got" = "# $sym is not set" ] && continue ;;
		*) [ "$got" = "$sym=$val" ] && continue ;;
		esac
		lost=$((lost + 1))
		if [[ "$line" == *"# required"* ]]; then
			fatal=$((fatal + 1))
			echo "hardprobe: $target: required option $sym=$val did not stick (got: ${got:-unset})" >&2
		else
			echo "hardprobe: $target: option $sym=$val did not stick (got: ${got:-unset})" >&2
		fi
	done < <(hp_merged_fragment | grep -E '^CONFIG_' | tac | awk -F= '!seen[$1]++' | tac)
	[ "$fatal" = 0 ] || hp_die "$target: $fatal required option(s) missing after olddefconfig; see above"
	if [ "$lost" = 0 ]; then
		hp_say config "$target" "every requested option stuck"
	else
		hp_say config "$target" "$lost requested option(s) did not stick (listed above)"
	fi
}

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
	hp_merged_fragment | sed -e 's/[[:space:]]*#.*$//' -e '/^$/d' >>"$B/.config"
	mk olddefconfig >>"$log" 2>&1 || hp_die "$target: make olddefconfig failed; log: $log"
	check_config
	hp_merged_fragment >"$B/hardprobe-fragment.config"
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
