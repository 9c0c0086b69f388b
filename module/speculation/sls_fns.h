/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe sls: two returns and an indirect tail jump. Included by
 * sls_unthunked.c (the kernel's -mharden-sls) and sls_unhardened.c (the positive
 * control, -mharden-sls=none): the same source, built twice.
 */
#include <linux/compiler.h>

#include "speculation.h"

noinline int hp_sls_ret_a(int x)
{
	return x + 1;
}

noinline int hp_sls_ret_b(int x)
{
	return x * 3;
}

/* a call through a pointer in tail position: "jmp *%reg" */
noinline int hp_sls_tail_jmp(hp_spec_fn fn, int x)
{
	return fn(x + 2);
}
