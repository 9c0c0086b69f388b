// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe build-time probe (stack_clash): never linked into the module.
 * module/layout/buildprobe/checks.sh compiles it to assembly with the
 * kernel's own flags (in the module build; a host compiler's kernel-like
 * flags for scripts/hptool/ccprobe.py), which end in -fno-stack-clash-protection,
 * and again with -fstack-clash-protection added, and counts the stack probes
 * in each function's prologue. Two frames: 3 pages (probed page by page where the
 * probe interval is a page: x86_64, clang arm64) and 24 pages (past GCC
 * arm64's 64 KiB probe interval). Fixed-size arrays: the kernel forbids
 * VLAs (-Wvla). The buffer goes to an external function, so it stays.
 */
#include "buildprobe.h"

void hp_sc_small(void)
{
	char buf[3 * 4096];

	hp_sc_use(buf);
}

void hp_sc_large(void)
{
	char buf[24 * 4096];

	hp_sc_use(buf);
}
