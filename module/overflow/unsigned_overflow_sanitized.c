// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe unsigned_overflow: the unsigned operations of overflow.h built
 * with -fsanitize=unsigned-integer-overflow (Makefile; Clang only).
 */
#include "overflow.h"

unsigned int hp_ovf_uop_sanitized(enum hp_ovf_uop op)
{
	return hp_ovf_uop_do(op);
}
