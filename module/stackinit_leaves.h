/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe stack_init leaves, compiled twice: in stackinit.c with the
 * kernel's flags, and in stackinit_control.c with auto-initialization turned
 * off (the positive control). Each leaf is called twice at the same depth:
 * the fill pass writes HP_FILL into its variable's own stack slot, the read
 * pass leaves the variable uninitialized and copies its bytes out.
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

typedef char hp_si_chars[32];

union hp_si_union {
	u8 small;
	u64 word;
	char bytes[24];
};

/* leaf(fill, out, where): @out gets the variable's bytes, @where its address */
typedef void (*hp_si_leaf)(bool fill, u8 *out, void **where);

#define HP_SI_LEAF(prefix, name, type)					\
noinline void prefix##_##name(bool fill, u8 *out, void **where)	\
{									\
	type var;							\
									\
	if (fill)							\
		memset(&var, HP_FILL, sizeof(var));			\
	/* the slot may have been written: the copy must really read it */ \
	barrier_data(&var);						\
	*where = &var;							\
	memcpy(out, &var, sizeof(var));					\
}

#define HP_SI_LEAVES(prefix)						\
	HP_SI_LEAF(prefix, u64, u64)					\
	HP_SI_LEAF(prefix, char_array, hp_si_chars)			\
	HP_SI_LEAF(prefix, struct_padding, struct hp_si_padded)	\
	HP_SI_LEAF(prefix, union, union hp_si_union)

#define HP_SI_DECLARE(prefix)						\
	void prefix##_u64(bool fill, u8 *out, void **where);		\
	void prefix##_char_array(bool fill, u8 *out, void **where);	\
	void prefix##_struct_padding(bool fill, u8 *out, void **where); \
	void prefix##_union(bool fill, u8 *out, void **where)

HP_SI_DECLARE(hp_si_ctl);
HP_SI_DECLARE(hp_si_krn);

#endif /* _HARDPROBE_STACKINIT_LEAVES_H */
