/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe signed_overflow, unsigned_overflow, truncation: the arithmetic
 * under test, built once per object: in overflow.c with the kernel's own
 * flags, and in signed_overflow_sanitized.c, unsigned_overflow_sanitized.c
 * and truncation_sanitized.c with one sanitizer added each (Makefile). Every
 * object's UBSAN sites point into this file, which is how the probes
 * recognise their reports.
 *
 * The operands are hidden from the optimiser so that nothing is folded at
 * compile time: each operation runs, and wraps (the kernel builds with
 * -fno-strict-overflow, so signed arithmetic wraps too).
 */
#ifndef _HARDPROBE_OVERFLOW_H
#define _HARDPROBE_OVERFLOW_H

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/types.h>

/* the signed operations: INT_MAX + 1, INT_MIN - 1, 65536 * 65536, -INT_MIN */
enum hp_ovf_sop { HP_OVF_SADD, HP_OVF_SSUB, HP_OVF_SMUL, HP_OVF_SNEG, HP_OVF_NR_SOP };
/* the unsigned ones: UINT_MAX + 1, 0 - 1, 65536 * 65536 */
enum hp_ovf_uop { HP_OVF_UADD, HP_OVF_USUB, HP_OVF_UMUL, HP_OVF_NR_UOP };
/* implicit conversions: int 300 to u8, int 40000 to s16, int -1 to unsigned int */
enum hp_ovf_cop { HP_OVF_TRUNC_U8, HP_OVF_TRUNC_S16, HP_OVF_SIGN, HP_OVF_NR_COP };

static __always_inline int hp_ovf_sop_do(enum hp_ovf_sop op)
{
	int a = INT_MAX, b = 1, m = 65536, n = INT_MIN;

	OPTIMIZER_HIDE_VAR(a);
	OPTIMIZER_HIDE_VAR(b);
	OPTIMIZER_HIDE_VAR(m);
	OPTIMIZER_HIDE_VAR(n);
	switch (op) {
	case HP_OVF_SADD:
		return a + b;
	case HP_OVF_SSUB:
		return n - b;
	case HP_OVF_SMUL:
		return m * m;
	default:
		return -n;
	}
}

static __always_inline unsigned int hp_ovf_uop_do(enum hp_ovf_uop op)
{
	unsigned int a = UINT_MAX, b = 1, z = 0, m = 65536;

	OPTIMIZER_HIDE_VAR(a);
	OPTIMIZER_HIDE_VAR(b);
	OPTIMIZER_HIDE_VAR(z);
	OPTIMIZER_HIDE_VAR(m);
	switch (op) {
	case HP_OVF_UADD:
		return a + b;
	case HP_OVF_USUB:
		return z - b;
	default:
		return m * m;
	}
}

/* the converted value, widened back to long long for the report */
static __always_inline long long hp_ovf_cop_do(enum hp_ovf_cop op)
{
	int big = 300, wide = 40000, neg = -1;
	unsigned int u;
	s16 s;
	u8 c;

	OPTIMIZER_HIDE_VAR(big);
	OPTIMIZER_HIDE_VAR(wide);
	OPTIMIZER_HIDE_VAR(neg);
	switch (op) {
	case HP_OVF_TRUNC_U8:
		c = big;
		OPTIMIZER_HIDE_VAR(c);
		return c;
	case HP_OVF_TRUNC_S16:
		s = wide;
		OPTIMIZER_HIDE_VAR(s);
		return s;
	default:
		u = neg;
		OPTIMIZER_HIDE_VAR(u);
		return u;
	}
}

/* the sanitized objects, each built only where Makefile says (HP_OVF_SIO, ...) */
int hp_ovf_sop_sanitized(enum hp_ovf_sop op);
unsigned int hp_ovf_uop_sanitized(enum hp_ovf_uop op);
long long hp_ovf_cop_sanitized(enum hp_ovf_cop op);

/*
 * lib/ubsan.c has no handler for -fsanitize=implicit-conversion in 6.12:
 * truncation_handler.c provides the module's own (a counter and a report line).
 */
void __ubsan_handle_implicit_conversion(void *data, void *src, void *dst);
unsigned int hp_ovf_conversions(void);

#endif /* _HARDPROBE_OVERFLOW_H */
