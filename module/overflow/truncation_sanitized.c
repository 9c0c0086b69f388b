// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe truncation: the implicit conversions of overflow.h built with
 * -fsanitize=implicit-conversion (Makefile; Clang only). The checks call
 * __ubsan_handle_implicit_conversion, which truncation_handler.c provides.
 */
#include "overflow.h"

long long hp_ovf_cop_sanitized(enum hp_ovf_cop op)
{
	return hp_ovf_cop_do(op);
}
