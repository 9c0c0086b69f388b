// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kcfi positive control: built without the kernel's CFI flags
 * (CFLAGS_REMOVE in Makefile), so this indirect call carries no type check.
 */
#include "cfi.h"

int hp_cfi_call_unchecked(hp_cfi_int_fn fn, int arg)
{
	return fn(arg);
}
