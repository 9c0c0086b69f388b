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

# hptool: the bench's host tool (scripts/hptool), run as "hp_tool <subcommand>"
hp_tool() { PYTHONPATH=$HP_TOP/scripts${PYTHONPATH:+:$PYTHONPATH} python3 -m hptool "$@"; }

# hp_ksrc [--kver env]: the kernel source tree (KSRC, or the Debian package extracted once
# into the cache): sets HP_KSRC; linux-source-6.12, or with "--kver env" the reference
# kernels' version KVER (6.12, 6.1, 7.1)
hp_ksrc() {
	HP_KSRC=$(hp_tool ksrc "$@") || exit 1
}
