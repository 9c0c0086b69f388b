// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe sls positive control: the same functions as sls_unthunked.c, built
 * with -mharden-sls=none and without the retpoline and return-thunk flags
 * (Makefile): a bare "ret" and a bare "jmp *%reg". Not linked: sls_code.S
 * embeds the code of each function as bytes.
 */
#include "sls_fns.h"

/* retpoline's control: an indirect call without the retpoline flags */
noinline int hp_spec_icall(hp_spec_fn fn, int x)
{
	return fn(x) + 1;
}
