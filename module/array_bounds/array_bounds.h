/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe array_bounds: the out-of-bounds accesses, built twice: in
 * array_bounds.c with the kernel's UBSAN flags and in array_bounds_unsanitized.c without
 * them (UBSAN_SANITIZE_... := n in Kbuild), the positive control.
 *
 * Each access writes index 8 of an 8-element array that sits in a 64-byte
 * arena of ours, so the out-of-bounds byte is the arena's byte 12, a guard
 * byte we own: nothing outside our object is touched.
 */
#ifndef _HARDPROBE_BOUNDS_H
#define _HARDPROBE_BOUNDS_H

#include <linux/compiler.h>
#include <linux/types.h>

#include "../lib/compat.h"

#define HP_AB_N		8	/* elements of each array; index 8 is out */
#define HP_AB_HIT	12	/* arena byte the out-of-bounds index lands on */
#define HP_AB_FILL	0xa5
#define HP_AB_VAL	0x5a

struct hp_ab_arena {
	u8 b[64];
} __aligned(8);

/* a fixed-size array with a neighbour after it */
struct hp_array_bounds_fixed {
	u32 n;
	u8 data[HP_AB_N];
	u8 guard[8];
};

/* a trailing fixed-size array: "flexible" to the compiler unless -fstrict-flex-arrays=3 */
struct hp_array_bounds_trailing {
	u32 n;
	u8 tail[HP_AB_N];
};

/* a true flexible array member, its bound given by __counted_by */
struct hp_array_bounds_counted_by {
	u32 count;
	u8 data[] __counted_by(count);
};

/*
 * a pointer member bounded by another member: __counted_by_ptr (Linux 7.0;
 * lib/compat.h), which honours the bound where the compiler can
 * (CONFIG_CC_HAS_COUNTED_BY_PTR: Clang 22.1, GCC 16)
 */
struct hp_array_bounds_counted_ptr {
	u32 len;
	/* buf[0] to buf[len - 1], no further */
	u8 *buf __counted_by_ptr(len);
};

enum hp_ab_case { HP_AB_FIXED, HP_AB_TRAILING, HP_AB_COUNTED, HP_AB_COUNTED_PTR, HP_AB_CASES };

void hp_ab_unchecked(enum hp_ab_case c, struct hp_ab_arena *a, size_t idx);

/*
 * Write HP_AB_VAL at @idx of the case's array. The struct pointer and the
 * index are hidden from the optimiser, so the compiler cannot prove the
 * access out of bounds (a compile-time warning, or code removed as
 * undefined) and the sanitizer's check is what runs.
 */
static __always_inline void hp_ab_do(enum hp_ab_case c, struct hp_ab_arena *a,
				     size_t idx)
{
	void *p = a->b;

	OPTIMIZER_HIDE_VAR(p);
	OPTIMIZER_HIDE_VAR(idx);
	switch (c) {
	case HP_AB_FIXED:
		((struct hp_array_bounds_fixed *)p)->data[idx] = HP_AB_VAL;
		break;
	case HP_AB_TRAILING:
		((struct hp_array_bounds_trailing *)p)->tail[idx] = HP_AB_VAL;
		break;
	case HP_AB_COUNTED:
		((struct hp_array_bounds_counted_by *)p)->count = HP_AB_N;
		OPTIMIZER_HIDE_VAR(p);
		((struct hp_array_bounds_counted_by *)p)->data[idx] = HP_AB_VAL;
		break;
	case HP_AB_COUNTED_PTR: {
		/* buf[8] is the arena's byte 12, as in the other cases */
		struct hp_array_bounds_counted_ptr s = {
			.len = HP_AB_N, .buf = a->b + HP_AB_HIT - HP_AB_N,
		}, *sp = &s;

		OPTIMIZER_HIDE_VAR(sp);
		sp->buf[idx] = HP_AB_VAL;
		break;
	}
	case HP_AB_CASES:
		break;
	}
}

#endif /* _HARDPROBE_BOUNDS_H */
