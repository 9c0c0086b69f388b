#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe build-time checks of two compiler features, written once for both their users:
# module/layout/layout_build.sh sources this file and runs them with kbuild's compiler and the
# flags of a module C file (the fallthrough and stack_clash probes of the report), and
# scripts/hptool/ccprobe.py runs it as a script with each host compiler and kernel-like flags
# (the compiler layer).
#
# hp_bp_fallthrough LOGDIR "CC" FLAGS...
#	compiles fallthrough.c three ways: "plain" (the unannotated fall-through must warn),
#	"annotated" (-DHP_FT_ANNOTATE: the kernel's fallthrough; must silence it) and
#	"control" (plus -Wno-implicit-fallthrough: no warning, so the warning is that
#	flag's doing). Sets rc_<way> (exit code), n_<way> (fall-through diagnostics) and
#	msg_<way> (the first, without file and line; or the first error).
# hp_bp_stack_clash LOGDIR "CC" FLAGS...
#	compiles stack_clash.c to assembly with FLAGS ("kernel") and with FLAGS
#	-fstack-clash-protection ("on") and counts the stack probes of hp_sc_small (12 KiB
#	frame) and hp_sc_large (96 KiB). Sets rc_<way>, sc_<way>_small, sc_<way>_large (probes;
#	-1 if not compiled), sc_<way>_small_loop, sc_<way>_large_loop (1: a probing loop),
#	sc_<way>_sample (one probe instruction) and scerr (the first compile error).
# CC is one or more words (ccache gcc-12, clang-19 --target=aarch64-linux-gnu). Every
# diagnostic and the assembly stay in LOGDIR; no object is written.
#
# As a script: checks.sh fallthrough|stack_clash LOGDIR "CC" FLAGS...
# prints those variables as NAME=VALUE lines (each value one line).

HP_BP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# GCC: "this statement may fall through"; Clang: "unannotated fall-through between switch labels"
HP_BP_FT_RE='this statement may fall through|unannotated fall-through between switch labels'

# hp_bp_ft_one WAY LOGDIR "CC" FLAGS...: one compile of fallthrough.c
hp_bp_ft_one() {
	local way=$1 log=$2/fallthrough-$1.log cc=$3 rc msg
	shift 3
	# shellcheck disable=SC2086
	LC_ALL=C $cc "$@" -c -o /dev/null "$HP_BP_DIR/fallthrough.c" >"$log" 2>&1
	rc=$?
	printf -v "rc_$way" '%s' "$rc"
	printf -v "n_$way" '%s' "$(grep -cE "$HP_BP_FT_RE" "$log")"
	# the diagnostic without the path and line: "warning: this statement ..."
	msg=$(grep -m1 -E "$HP_BP_FT_RE" "$log" | sed -e 's#^.*: \(warning\|error\): #\1: #')
	[ -n "$msg" ] || msg=$(grep -m1 -E 'error' "$log" | sed 's|^.*/||')
	printf -v "msg_$way" '%s' "$msg"
}

hp_bp_fallthrough() {
	local dir=$1 cc=$2
	shift 2
	hp_bp_ft_one plain "$dir" "$cc" "$@"
	hp_bp_ft_one annotated "$dir" "$cc" "$@" -DHP_FT_ANNOTATE
	hp_bp_ft_one control "$dir" "$cc" "$@" -Wno-implicit-fallthrough
}

# hp_bp_sc_one WAY LOGDIR "CC" FLAGS...: assembly of stack_clash.c, then the probes per function
hp_bp_sc_one() {
	local way=$1 dir=$2 cc=$3 s=$2/stack_clash-$1.s
	shift 3
	# the frames are larger than the kernel's -Wframe-larger-than on purpose
	# shellcheck disable=SC2086
	LC_ALL=C $cc "$@" -Wframe-larger-than=1048576 -S -o "$s" "$HP_BP_DIR/stack_clash.c" \
		>"$dir/stack_clash-$way.log" 2>&1
	printf -v "rc_$way" '%s' "$?"
	[ -f "$s" ] || : >"$s"
	# a probe: x86 GCC "orq $0,(%rsp)", x86 Clang "movq $0,(%rsp)", arm64 "str xzr,[sp...]";
	# a loop: a branch back to a label with a probe after it
	LC_ALL=C awk -v pre="sc_$way" '
	function flush() {
		if (fn != "")
			printf "%s_%s=%d\n%s_%s_loop=%d\n", pre, fn, n, pre, fn, loop
	}
	/^hp_sc_(small|large):/ { flush(); fn = substr($1, 7, 5); n = 0; loop = 0; delete at; next }
	fn == "" { next }
	/^\.?L[A-Za-z0-9_.$]*:/ { l = $1; sub(/:.*/, "", l); at[l] = n; next }
	/^[ \t]*(or[bwlq]?|mov[bwlq]?)[ \t]+\$0x?0*,[ \t]*(-?[0-9a-fx]*)?\(%rsp\)/ ||
	/^[ \t]*str[ \t]+xzr,[ \t]*\[sp(,[ \t]*#?[0-9]+)?\]/ {
		n++
		if (sample == "") { sample = $0; gsub(/[ \t]+/, " ", sample); sub(/^ /, "", sample); sub(/ *(#|\/\/).*$/, "", sample) }
		next
	}
	/^[ \t]*(j[a-z]+|b\.[a-z]+|b)[ \t]+\.?L/ { t = $2; if (t in at && n > at[t]) loop = 1 }
	END { flush(); if (sample != "") printf "%s_sample=\047%s\047\n", pre, sample }
	' "$s" >"$dir/stack_clash-$way.count"
	# shellcheck disable=SC1090
	. "$dir/stack_clash-$way.count"
}

# shellcheck disable=SC2034,SC2154 # the variables are this function's results
hp_bp_stack_clash() {
	local dir=$1 cc=$2
	shift 2
	sc_kernel_small=-1 sc_kernel_large=-1 sc_kernel_small_loop=0 sc_kernel_large_loop=0
	sc_kernel_sample=
	sc_on_small=-1 sc_on_large=-1 sc_on_small_loop=0 sc_on_large_loop=0 sc_on_sample=
	hp_bp_sc_one kernel "$dir" "$cc" "$@"
	hp_bp_sc_one on "$dir" "$cc" "$@" -fstack-clash-protection
	scerr=
	[ "$rc_kernel" = 0 ] || scerr=$(grep -m1 error "$dir/stack_clash-kernel.log" | sed 's|^.*/||')
	[ "$rc_on" = 0 ] || [ -n "$scerr" ] ||
		scerr=$(grep -m1 error "$dir/stack_clash-on.log" | sed 's|^.*/||')
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	[ $# -ge 3 ] || { echo "usage: $0 fallthrough|stack_clash LOGDIR CC FLAGS..." >&2; exit 2; }
	what=$1 dir=$2 cc=$3
	shift 3
	mkdir -p "$dir" || exit 1
	case $what in
	fallthrough)
		hp_bp_fallthrough "$dir" "$cc" "$@"
		vars="rc_plain n_plain msg_plain rc_annotated n_annotated msg_annotated"
		vars+=" rc_control n_control msg_control" ;;
	stack_clash)
		hp_bp_stack_clash "$dir" "$cc" "$@"
		vars="rc_kernel rc_on scerr"
		for w in kernel on; do
			vars+=" sc_${w}_small sc_${w}_large sc_${w}_small_loop sc_${w}_large_loop"
			vars+=" sc_${w}_sample"
		done ;;
	*) echo "$0: unknown check '$what'" >&2; exit 2 ;;
	esac
	for v in $vars; do
		printf '%s=%s\n' "$v" "${!v}"
	done
fi
