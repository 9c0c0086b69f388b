/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe arm64 primitives (arm64.c). Off arm64 the PAC helpers are the
 * identity, so that the backward-edge mechanism builds everywhere.
 */
#ifndef _HP_ARCH_ARM64_H
#define _HP_ARCH_ARM64_H

#include <linux/types.h>

/* A64 encodings counted in the module's own code */
#define HP_A64_PACIASP	0xd503233fU
#define HP_A64_AUTIASP	0xd50323bfU
#define HP_A64_BTI_C	0xd503245fU
#define HP_A64_BTI_J	0xd503249fU
#define HP_A64_BTI_JC	0xd50324dfU
#define HP_A64_SCS_PUSH	0xf800865eU	/* str x30, [x18], #8 */
#define HP_A64_SCS_POP	0xf85f8e5eU	/* ldr x30, [x18, #-8]! */
#define HP_A64_RET	0xd65f03c0U
#define HP_A64_MOV_5A	0x52800b40U	/* mov w0, #0x5a */

struct hp_a64_count {
	unsigned int paciasp, autiasp, bti_c, bti_j, bti_jc, push, pop;
	unsigned long bytes;
};

#ifdef CONFIG_ARM64
unsigned long hp_arm64_pac_sign(unsigned long ptr, unsigned long modifier);
unsigned long hp_arm64_pac_strip(unsigned long ptr);
unsigned long hp_arm64_pac_flip(unsigned long ptr);
/* PAuth and BTI in the CPU (the raw ID registers, not what the kernel made of them) */
bool hp_arm64_cpu_pauth(bool *fpac);
bool hp_arm64_cpu_bti(void);
void hp_a64_scan(struct hp_a64_count *c, const u32 *start, unsigned long bytes);
bool hp_a64_module_text(struct hp_a64_count *c);
bool hp_a64_pushes(const void *fn);
bool hp_a64_landing(u32 insn);
bool hp_arm64_scs_live(unsigned long *x18, unsigned long *base);
#else
static inline unsigned long hp_arm64_pac_sign(unsigned long ptr,
					      unsigned long modifier)
{
	return ptr;
}

static inline unsigned long hp_arm64_pac_strip(unsigned long ptr)
{
	return ptr;
}

static inline unsigned long hp_arm64_pac_flip(unsigned long ptr)
{
	return ptr;
}
#endif

#endif /* _HP_ARCH_ARM64_H */
