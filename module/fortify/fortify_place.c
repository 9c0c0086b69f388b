// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe fortify: the allocator the probes and both of their variants
 * (fortify_counting_hook.c, fortify_unfortified.c) place objects with. A leaf
 * of the family, so that the variants depend on it and not on fortify.c.
 */
#include <linux/compiler.h>

#include "fortify.h"

/*
 * Our allocator: a place for an object of @size bytes in @a. Out of line,
 * with its result hidden, so the compiler knows the object only through
 * __alloc_size(), as it knows a kmalloc()ed one, and not the arena around.
 */
noinline void *hp_fo_place(struct hp_fo_arena *a, size_t size)
{
	void *p = &a->b[HP_FO_AT];

	OPTIMIZER_HIDE_VAR(p);
	return p;
}
