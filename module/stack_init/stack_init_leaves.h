/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe stack_init leaves, compiled twice: in stack_init.c with the
 * kernel's flags, and in stack_init_uninitialized.c with auto-initialization turned
 * off (the positive control). Each leaf is called twice at the same depth:
 * the fill pass writes HP_FILL into its variable's own stack slot, the read
 * pass declares (and partly initializes, or passes by reference) the
 * variable and copies its bytes out. Bytes that still hold HP_FILL were
 * never initialized.
 */
#ifndef _HARDPROBE_STACKINIT_LEAVES_H
#define _HARDPROBE_STACKINIT_LEAVES_H

#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/types.h>

#define HP_FILL		0xa5
#define HP_LEAF_MAX	64

struct hp_si_padded {
	u8 a;		/* 7 bytes of padding follow */
	u64 b;
	u16 c;		/* 6 bytes of tail padding follow */
};

struct hp_si_packed {
	u8 a;
	u32 b;
	u16 c;
} __packed;

union hp_si_union {
	u8 small;
	u64 word;
	char bytes[24];
};

typedef char hp_si_chars[32];
typedef int hp_si_ints[8];
typedef void *hp_si_ptr;

/* leaf(fill, out, where): @out gets the variable's bytes, @where its address */
typedef void (*hp_si_leaf)(bool fill, u8 *out, void **where);

/* passing the variable's address to code the compiler cannot see into */
static noinline void hp_si_byref(void *p)
{
	barrier_data(p);
}

#define HP_SI_NOTHING	do { } while (0)

/*
 * The matrix: X(name, type, initializer, read-pass statement, padded).
 * "none": no initialization; "partial": a designated initializer of one
 * member; "assigned": one member assigned after the declaration; "byref":
 * the uninitialized variable's address escapes to another function.
 */
#define HP_SI_CASES(X)							\
	X(u8_none, u8, , HP_SI_NOTHING, false)				\
	X(u8_byref, u8, , hp_si_byref(&var), false)			\
	X(u16_none, u16, , HP_SI_NOTHING, false)			\
	X(u16_byref, u16, , hp_si_byref(&var), false)			\
	X(u32_none, u32, , HP_SI_NOTHING, false)			\
	X(u32_byref, u32, , hp_si_byref(&var), false)			\
	X(u64_none, u64, , HP_SI_NOTHING, false)			\
	X(u64_byref, u64, , hp_si_byref(&var), false)			\
	X(ptr_none, hp_si_ptr, , HP_SI_NOTHING, false)			\
	X(ptr_byref, hp_si_ptr, , hp_si_byref(&var), false)		\
	X(char_array_none, hp_si_chars, , HP_SI_NOTHING, false)	\
	X(char_array_assigned, hp_si_chars, , var[0] = 1, false)	\
	X(char_array_byref, hp_si_chars, , hp_si_byref(&var), false)	\
	X(int_array_none, hp_si_ints, , HP_SI_NOTHING, false)		\
	X(int_array_assigned, hp_si_ints, , var[0] = 1, false)		\
	X(int_array_byref, hp_si_ints, , hp_si_byref(&var), false)	\
	X(struct_padding_none, struct hp_si_padded, , HP_SI_NOTHING, true) \
	X(struct_padding_partial, struct hp_si_padded, = { .b = 1 },	\
	  HP_SI_NOTHING, true)						\
	X(struct_padding_assigned, struct hp_si_padded, , var.b = 1, true) \
	X(struct_padding_byref, struct hp_si_padded, , hp_si_byref(&var), true) \
	X(packed_none, struct hp_si_packed, , HP_SI_NOTHING, false)	\
	X(packed_assigned, struct hp_si_packed, , var.b = 1, false)	\
	X(packed_byref, struct hp_si_packed, , hp_si_byref(&var), false) \
	X(union_none, union hp_si_union, , HP_SI_NOTHING, false)	\
	X(union_partial, union hp_si_union, = { .small = 1 },		\
	  HP_SI_NOTHING, false)						\
	X(union_assigned, union hp_si_union, , var.small = 1, false)	\
	X(union_byref, union hp_si_union, , hp_si_byref(&var), false)

#define HP_SI_LEAF(prefix, name, type, init, use)			\
noinline void prefix##_##name(bool fill, u8 *out, void **where)	\
{									\
	type var init;							\
									\
	if (fill)							\
		memset(&var, HP_FILL, sizeof(var));			\
	else								\
		use;							\
	/* the slot may have been written: the copy must really read it */ \
	barrier_data(&var);						\
	*where = &var;							\
	memcpy(out, &var, sizeof(var));					\
}

/*
 * A variable declared in a switch before the first case: no compiler
 * initializes it (KSPP #125), a documented gap of auto-initialization.
 */
#define HP_SI_SWITCH_LEAF(prefix)					\
noinline void prefix##_switch_u64(bool fill, u8 *out, void **where)	\
{									\
	int path = fill;						\
									\
	switch (path) {							\
		u64 var;						\
	case 1:								\
		memset(&var, HP_FILL, sizeof(var));			\
		fallthrough;						\
	default:							\
		barrier_data(&var);					\
		*where = &var;						\
		memcpy(out, &var, sizeof(var));				\
	}								\
}

#define HP_SI_DEFINE_KRN(name, type, init, use, pad)			\
	HP_SI_LEAF(hp_si_krn, name, type, init, use)
#define HP_SI_DEFINE_CTL(name, type, init, use, pad)			\
	HP_SI_LEAF(hp_si_ctl, name, type, init, use)
#define HP_SI_DECLARE(name, type, init, use, pad)			\
	void hp_si_krn_##name(bool fill, u8 *out, void **where);	\
	void hp_si_ctl_##name(bool fill, u8 *out, void **where);

HP_SI_CASES(HP_SI_DECLARE)
HP_SI_DECLARE(switch_u64, u64, , , false)

#endif /* _HARDPROBE_STACKINIT_LEAVES_H */
