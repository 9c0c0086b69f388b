// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe fortify, counted: the fortified calls with the failure hooks
 * redefined before any header is read, the way lib/fortify_kunit.c does
 * it, so a detected overflow is counted here and the fortified function
 * returns its failure value instead of calling __fortify_panic() (WARN +
 * BUG). Only this object is built that way; the rest of the module keeps
 * the kernel's handler.
 */
void hp_fo_caught(unsigned long avail, unsigned long size);
void hp_fo_spanned(void);

#define fortify_panic(func, write, avail, size, retfail) do {		\
	hp_fo_caught(avail, size);					\
	return retfail;						\
} while (0)

#define fortify_warn_once(chk_func, x...) do {				\
	if (chk_func)							\
		hp_fo_spanned();					\
} while (0)

#include "fortify.h"

static struct hp_fo_count *hp_fo_now;

void hp_fo_caught(unsigned long avail, unsigned long size)
{
	if (!hp_fo_now)
		return;
	hp_fo_now->caught++;
	hp_fo_now->avail = avail;
	hp_fo_now->size = size;
}

void hp_fo_spanned(void)
{
	if (hp_fo_now)
		hp_fo_now->spanned++;
}

/* Called under the core's probe lock: one counter in use at a time. */
void hp_fo_counted(enum hp_fo_op op, enum hp_fo_dst dst,
		   struct hp_fo_arena *a, size_t len, struct hp_fo_count *c)
{
	hp_fo_now = c;
	hp_fo_do(op, dst, a, len);
	hp_fo_now = NULL;
}
