/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe slh: the code compiled twice, with -mspeculative-load-hardening
 * (slh_hardened.c) and without (slh_unhardened.c); HP_SLH_NAME() names each copy.
 *
 * HP_SLH_NAME(hp_v1_gadget) is spectre_v1's gadget. HP_SLH_NAME(hp_slh_load)
 * is a bounds-checked load whose only hardened register is an index into a
 * table of the module's own: it is the one the probes call architecturally
 * first, because on x86 the pass takes its predicate state from bit 63 of
 * %rsp, and if that says "misspeculating" a hardened index becomes -1 and
 * reads the guard word in front of the table (still ours), or a hardened
 * value becomes all ones; a hardened pointer (the gadget's) would point
 * at address -1.
 */
#include <linux/compiler.h>

#include "spectre_v1.h"

static const struct {
	unsigned long guard;
	unsigned long tab[HP_SLH_LOAD_N];
} HP_SLH_NAME(hp_slh_data) = {
	.guard = 0x6775617264UL,	/* "guard" */
	.tab = {
		HP_SLH_LOAD_WANT(0), HP_SLH_LOAD_WANT(1),
		HP_SLH_LOAD_WANT(2), HP_SLH_LOAD_WANT(3),
	},
};

noinline unsigned long HP_SLH_NAME(hp_slh_load)(unsigned long idx)
{
	if (idx < HP_SLH_LOAD_N)
		return HP_SLH_NAME(hp_slh_data).tab[idx];
	return 0;
}

noinline u8 HP_SLH_NAME(hp_v1_gadget)(const struct hp_v1 *v, unsigned long idx)
{
	if (idx < READ_ONCE(*v->len))
		return v->probe[v->array[idx] * HP_V1_STRIDE];
	return 0;
}
