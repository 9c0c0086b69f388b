// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe spectre_v1: the bounds-check-bypass gadget, built with the
 * kernel's own flags. hp_v1_gadget_ctl() is the unprotected positive
 * control; hp_v1_gadget_nospec() is the same code with the kernel's
 * mitigation, array_index_nospec(), on the index.
 */
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/nospec.h>

#include "spectre_v1.h"

noinline u8 hp_v1_gadget_ctl(const struct hp_v1 *v, unsigned long idx)
{
	if (idx < READ_ONCE(*v->len))
		return v->probe[v->array[idx] * HP_V1_STRIDE];
	return 0;
}

noinline u8 hp_v1_gadget_nospec(const struct hp_v1 *v, unsigned long idx)
{
	unsigned long len = READ_ONCE(*v->len);

	if (idx < len) {
		idx = array_index_nospec(idx, len);
		return v->probe[v->array[idx] * HP_V1_STRIDE];
	}
	return 0;
}
