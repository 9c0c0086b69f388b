/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe: UBSAN's per-site source locations, shared by the families that
 * judge a sanitizer from its report (array_bounds.c, overflow.c).
 */
#ifndef _HARDPROBE_UBSAN_SITES_H
#define _HARDPROBE_UBSAN_SITES_H

#include <linux/types.h>

/* The compiler's source location of a check (lib/ubsan.h's layout). */
struct hp_ubsan_loc {
	const char *file_name;
	union {
		unsigned long reported;	/* bit 31: lib/ubsan.c reported it */
		struct {
			u32 line;
			u32 column;
		};
	};
};

#define HP_UBSAN_REPORTED_BIT	31

int hp_ubsan_rearm(const char *path, int *suppressed);
void *hp_ubsan_hide_kunit(void);
void hp_ubsan_restore_kunit(void *kt);

#endif /* _HARDPROBE_UBSAN_SITES_H */
