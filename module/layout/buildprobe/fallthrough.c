// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe build-time probe (fallthrough): never linked into the module.
 * module/layout_build.sh compiles it with the kernel's own flags three times:
 * as is (the unannotated fall-through from case 0 must warn), with
 * -DHP_FT_ANNOTATE (the kernel's `fallthrough;` must silence it) and, as the
 * positive control, as is plus -Wno-implicit-fallthrough (no warning: the
 * warning is that flag's doing).
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
