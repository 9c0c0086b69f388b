// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe fortify, positive control: the same calls in an object built
 * with -D__NO_FORTIFY (Makefile), so <linux/string.h> leaves out
 * fortify-string.h and the copies run unchecked into the arena's guard.
 */
#include "fortify.h"

void hp_fo_unfortified(enum hp_fo_op op, enum hp_fo_dst dst,
		       struct hp_fo_arena *a, size_t len)
{
	hp_fo_do(op, dst, a, len);
}
