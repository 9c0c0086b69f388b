// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kcfi positive control: built without the kernel's CFI flags
 * (CFLAGS_REMOVE in Makefile), so this indirect call carries no type check.
 */
#include "../lib/compat.h"
#include "cfi.h"

/* never inlined (an LTO kernel would inline it into the checked caller) */
noinline int hp_cfi_call_unchecked(hp_cfi_int_fn fn, int arg)
{
	return fn(arg);
}

/* the unchecked call is the point: objtool need not warn */
HP_ANNOTATE_NOCFI_SYM(hp_cfi_call_unchecked);
