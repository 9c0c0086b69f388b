/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe spectre_v1, slh: the bounds-check-bypass gadget and the objects
 * it is built in (Makefile): spectre_v1_gadget.c with the kernel's flags (the
 * unprotected control and the array_index_nospec() variant), slh_hardened.c
 * with -mspeculative-load-hardening (Clang only) and slh_unhardened.c, the
 * same source with the same flags minus SLH.
 */
#ifndef _HARDPROBE_SPEC_V1_H
#define _HARDPROBE_SPEC_V1_H

#include <linux/types.h>

/* one probe line per byte value, a page apart (no two share a prefetch stream) */
#define HP_V1_STRIDE	4096

struct hp_v1 {
	const unsigned long *len;	/* the bound, in its own cache line */
	const u8 *array;		/* len bytes in bounds, the secret after them */
	const u8 *probe;		/* 256 lines, HP_V1_STRIDE apart */
};

u8 hp_v1_gadget_ctl(const struct hp_v1 *v, unsigned long idx);
u8 hp_v1_gadget_nospec(const struct hp_v1 *v, unsigned long idx);
u8 hp_v1_gadget_slh(const struct hp_v1 *v, unsigned long idx);
u8 hp_v1_gadget_twin(const struct hp_v1 *v, unsigned long idx);
unsigned long hp_slh_load_slh(unsigned long idx);
unsigned long hp_slh_load_twin(unsigned long idx);

/* what hp_slh_load() returns for an in-bounds index on the correct path */
#define HP_SLH_LOAD_WANT(idx)	(0x1111111111111111UL * ((idx) + 1))
#define HP_SLH_LOAD_N		4

/* spectre_v1.c: probes and layers for speculation.c's tables */
struct hp_result;
struct hp_layers;
void hp_spectre_v1_control(struct hp_result *r);
void hp_spectre_v1_nospec(struct hp_result *r);
void hp_spectre_v1_slh(struct hp_result *r);
void hp_slh_masking(struct hp_result *r);
void hp_spectre_v1_layers(struct hp_layers *l);
void hp_slh_layers(struct hp_layers *l);
const char *hp_slh_unavailable(void);

#endif /* _HARDPROBE_SPEC_V1_H */
