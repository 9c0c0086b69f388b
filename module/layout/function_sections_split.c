// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe function_sections: eight small functions, built with
 * -ffunction-sections (Makefile), so each has its own .text.hp_fs_f<N>
 * section in the object, as built-in code gets with
 * CONFIG_LD_DEAD_CODE_DATA_ELIMINATION and as FG-KASLR needs. The loader
 * places the sections of a module in their order in the object; a
 * function-granular KASLR would shuffle them. layout.c compares the load
 * addresses with the order in the object (recorded at build time).
 */
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "layout.h"

#define HP_FS_FN(n)						\
noinline int hp_fs_f##n(int x)					\
{								\
	OPTIMIZER_HIDE_VAR(x);					\
	return x + (n);						\
}

HP_FS_FN(0)
HP_FS_FN(1)
HP_FS_FN(2)
HP_FS_FN(3)
HP_FS_FN(4)
HP_FS_FN(5)
HP_FS_FN(6)
HP_FS_FN(7)

int (*const hp_fs_fns[HP_FS_N])(int) = {
	hp_fs_f0, hp_fs_f1, hp_fs_f2, hp_fs_f3,
	hp_fs_f4, hp_fs_f5, hp_fs_f6, hp_fs_f7,
};
