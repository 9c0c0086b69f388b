// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe x86_64: the architecture's primitives for the probes of cfi/
 * (ibt) and memexec/ (nx, user_exec, user_access): what the CPU itself
 * offers (CPUID), what is on (CR4), the endbr64 encodings. A leaf: it uses
 * nothing of the families. Built only on x86_64.
 */
#include <linux/bits.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>

#include "x86.h"

const u8 hp_x86_endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
const u8 hp_x86_endbr_poison[4] = { 0x66, 0x0f, 0x1f, 0x00 };
const u8 hp_x86_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/*
 * What the CPU itself offers (CPUID leaf 7, EBX), as opposed to what the
 * kernel uses (its capability bits, which clearcpuid= can remove).
 */
bool hp_x86_cpuid7_has(unsigned int bit)
{
	unsigned int eax, ebx, ecx, edx;

	cpuid_count(7, 0, &eax, &ebx, &ecx, &edx);
	return ebx & BIT(bit);
}

/* NX in the CPU: CPUID.80000001:EDX[20] */
bool hp_x86_cpu_nx(void)
{
	return cpuid_edx(0x80000001) & BIT(20);
}

unsigned long hp_x86_cr4(void)
{
	return __read_cr4();
}

/* IBT enforced: the kernel uses it and CR4.CET is set */
bool hp_x86_ibt_active(void)
{
	return cpu_feature_enabled(X86_FEATURE_IBT) && (__read_cr4() & X86_CR4_CET);
}
