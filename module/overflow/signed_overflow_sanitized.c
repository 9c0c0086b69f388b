// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe signed_overflow: the signed operations of overflow.h built with
 * -fsanitize=signed-integer-overflow added to the kernel's own flags, which
 * keep -fno-strict-overflow (Makefile).
 */
#include "overflow.h"

int hp_ovf_sop_sanitized(enum hp_ovf_sop op)
{
	return hp_ovf_sop_do(op);
}
