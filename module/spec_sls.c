// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe sls: two returns and an indirect tail jump, built with the
 * kernel's -mharden-sls but without its retpoline and return-thunk flags
 * (Kbuild), so the compiler's own "ret" and "jmp *%reg" stay in the code.
 * Not linked: spec_code.S embeds the code of each function as bytes.
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

/* a call through a pointer in tail position: "jmp *%reg" */
noinline int hp_sls_tail_jmp(hp_spec_fn fn, int x)
{
	return fn(x + 2);
}
