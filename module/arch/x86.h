/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe x86_64 primitives (x86.c), beside arm64.h */
#ifndef _HP_ARCH_X86_H
#define _HP_ARCH_X86_H

#include <linux/types.h>

#ifdef CONFIG_X86_64
/* CPUID leaf 7 EBX bits */
#define HP_CPUID_SMEP	7
#define HP_CPUID_SMAP	20

/* endbr64, and FineIBT's poison of the landing pad it moves into __cfi_ */
extern const u8 hp_x86_endbr64[4];
extern const u8 hp_x86_endbr_poison[4];
/* the 5-byte nop of an ftrace call site (__fentry__) before patching in a tracer */
extern const u8 hp_x86_nop5[5];

bool hp_x86_cpuid7_has(unsigned int bit);
bool hp_x86_cpu_nx(void);
unsigned long hp_x86_cr4(void);
bool hp_x86_ibt_active(void);
#endif

#endif /* _HP_ARCH_X86_H */
