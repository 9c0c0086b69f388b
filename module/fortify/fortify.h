/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe fortify: the overflowing calls, shared by three objects built
 * with different flags: fortify.c (the kernel's real failure handler),
 * fortify_counting_hook.c (the handler redefined to count and return, as
 * lib/fortify_kunit.c does) and fortify_unfortified.c (built with __NO_FORTIFY,
 * the positive control).
 *
 * Every destination lives in a struct hp_fo_arena of ours, placed by
 * hp_fo_place(), whose __alloc_size() tells fortify how big the object is.
 * An overflow that gets through lands in the arena's guard bytes, never
 * outside our own memory.
 */
#ifndef _HARDPROBE_FORTIFY_H
#define _HARDPROBE_FORTIFY_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/types.h>

#define HP_FO_OBJ	16	/* the object, and the member, written to */
#define HP_FO_AT	16	/* where in the arena the object starts */
#define HP_FO_FILL	0xa5	/* arena fill; no copy writes this value */
#define HP_FO_SRC	64

/* a struct whose first member is overflowed; @next is its neighbour */
struct hp_fo_pair {
	char name[HP_FO_OBJ];
	u64 next;
};

struct hp_fo_arena {
	u8 b[96];
} __aligned(8);

enum hp_fo_op { HP_FO_STRSCPY, HP_FO_STRCPY, HP_FO_MEMCPY, HP_FO_MEMSET };
enum hp_fo_dst { HP_FO_OBJECT, HP_FO_MEMBER };

/* __alloc_size__ without __malloc: the object does alias the arena */
void *hp_fo_place(struct hp_fo_arena *a, size_t size) __alloc_size__(2);

/* fortify_counting_hook.c: what the counting failure hook saw */
struct hp_fo_count {
	unsigned int caught;	/* fortify_panic() calls: write or read refused */
	unsigned int spanned;	/* field-spanning memcpy warnings */
	unsigned long avail, size;	/* of the last catch */
};

void hp_fo_counted(enum hp_fo_op op, enum hp_fo_dst dst,
		   struct hp_fo_arena *a, size_t len, struct hp_fo_count *c);
void hp_fo_unfortified(enum hp_fo_op op, enum hp_fo_dst dst,
		       struct hp_fo_arena *a, size_t len);

/*
 * Write @len bytes into the object or the member with @op. @len is hidden
 * from the optimiser: a length the compiler can see is a compile-time
 * error in fortified code (__write_overflow), and the run-time check is
 * what is probed.
 */
static __always_inline void hp_fo_do(enum hp_fo_op op, enum hp_fo_dst dst,
				     struct hp_fo_arena *a, size_t len)
{
	char src[HP_FO_SRC];
	struct hp_fo_pair *p;
	char *obj;

	OPTIMIZER_HIDE_VAR(len);
	if (!len || len >= sizeof(src))
		return;
	memset(src, 'A', sizeof(src));
	/* strcpy() writes strlen + 1; strscpy() len - 1 characters and a NUL */
	src[op == HP_FO_STRCPY ? len - 1 : sizeof(src) - 1] = '\0';

	if (dst == HP_FO_OBJECT) {
		obj = hp_fo_place(a, HP_FO_OBJ);
		switch (op) {
		case HP_FO_STRSCPY:
			strscpy(obj, src, len);
			break;
		case HP_FO_STRCPY:
			strcpy(obj, src);
			break;
		case HP_FO_MEMCPY:
			memcpy(obj, src, len);
			break;
		case HP_FO_MEMSET:
			memset(obj, 0x5a, len);
			break;
		}
		return;
	}
	p = hp_fo_place(a, sizeof(*p));
	switch (op) {
	case HP_FO_STRSCPY:
		strscpy(p->name, src, len);
		break;
	case HP_FO_STRCPY:
		strcpy(p->name, src);
		break;
	case HP_FO_MEMCPY:
		memcpy(p->name, src, len);
		break;
	case HP_FO_MEMSET:
		memset(p->name, 0x5a, len);
		break;
	}
}

#endif /* _HARDPROBE_FORTIFY_H */
