// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe nx/user_exec caller: built without the kernel's CFI flags
 * (CFLAGS_REMOVE in Makefile), so a call into copied code is stopped by the
 * page permissions under test, not by a kCFI type check of the bytes in
 * front of the target.
 */
#include "../lib/compat.h"
#include "memexec.h"

/* never inlined (an LTO kernel would inline it into the checked caller) */
noinline int hp_exec_call(hp_exec_fn_t fn)
{
	return fn();
}

/* the unchecked call is the point: objtool need not warn */
HP_ANNOTATE_NOCFI_SYM(hp_exec_call);
