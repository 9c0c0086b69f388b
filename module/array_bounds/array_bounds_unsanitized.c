// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe array_bounds, positive control: the same accesses in an
 * object built without UBSAN (Makefile), so nothing checks the index and the
 * write lands on the arena's guard byte.
 */
#include "array_bounds.h"

void hp_ab_unchecked(enum hp_ab_case c, struct hp_ab_arena *a, size_t idx)
{
	hp_ab_do(c, a, idx);
}
