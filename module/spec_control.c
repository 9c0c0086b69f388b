// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe sls positive control: the same functions as spec_sls.c, built
 * with -mharden-sls=none and without the retpoline and return-thunk flags
 * (Kbuild): a bare "ret" and a bare "jmp *%reg". Not linked: spec_code.S
 * embeds the code of each function as bytes.
 */
#include <linux/compiler.h>

#include "spec.h"

noinline int hp_sls_ret_a(int x)
{
	return x + 1;
}

noinline int hp_sls_ret_b(int x)
{
	return x * 3;
}

noinline int hp_sls_tail_jmp(hp_spec_fn fn, int x)
{
	return fn(x + 2);
}

/* retpoline's control: an indirect call without the retpoline flags */
noinline int hp_spec_icall(hp_spec_fn fn, int x)
{
	return fn(x) + 1;
}
