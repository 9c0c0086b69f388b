// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe build-time probe (fallthrough): never linked into the module.
 * module/layout/buildprobe/checks.sh compiles it three times with the
 * kernel's own flags (in the module build) or a host compiler's
 * (scripts/hptool/ccprobe.py): as is (the unannotated fall-through from case 0 must
 * warn), with -DHP_FT_ANNOTATE (the kernel's `fallthrough;` must silence it)
 * and, as the positive control, as is plus -Wno-implicit-fallthrough (no
 * warning: the warning is that flag's doing).
 *
 * layout.c judges fallthrough.warning from the results: with the kernel's
 * flags (CONFIG_CC_IMPLICIT_FALLTHROUGH: GCC -Wimplicit-fallthrough=5, Clang
 * -Wimplicit-fallthrough) the plain file warns ("this statement may fall
 * through", "unannotated fall-through between switch labels") and the
 * annotated one does not: protected; no warning is vulnerable; a warning on
 * the annotated case or a failed compile is an error; a warning from the
 * control is inconclusive.
 */
#include "buildprobe.h"

int hp_ft_switch(int c, int x)
{
	switch (c) {
	case 0:
		x += 3;
#ifdef HP_FT_ANNOTATE
		fallthrough;
#endif
	case 1:
		x *= 5;
		break;
	default:
		x = 0;
		break;
	}
	return x;
}
