// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe arm64: the architecture's primitives for the probes of
 * backward/ (pac_ret, shadow_call_stack) and cfi/bti.c: PAC signing and
 * stripping, the CPU's PAuth and BTI ID fields, counts of the A64
 * instructions of interest in the module's own code, the shadow call stack
 * pointer. A leaf: it uses nothing of the families. Built only on arm64.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/scs.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/memory.h>
#include <asm/sysreg.h>

#include "../lib/compat.h"
#include "arm64.h"

/* one PAC bit of a kernel address (bit 55 selects the range; 54 is PAC) */
#define HP_PAC_FLIP	BIT_ULL(54)

/* PACIA1716: sign x17 with the A key and modifier x16 (a hint: a nop without PAuth or keys) */
unsigned long hp_arm64_pac_sign(unsigned long ptr, unsigned long modifier)
{
	register unsigned long x17 asm("x17") = ptr;
	register unsigned long x16 asm("x16") = modifier;

	asm volatile("hint #8" : "+r" (x17) : "r" (x16));
	return x17;
}

/* A kernel address without its PAC: the PAC bits of a kernel address are all ones. */
unsigned long hp_arm64_pac_strip(unsigned long ptr)
{
	return ptr | GENMASK_ULL(63, vabits_actual);
}

unsigned long hp_arm64_pac_flip(unsigned long ptr)
{
	return ptr ^ HP_PAC_FLIP;
}

static unsigned int hp_id_field(u64 reg, unsigned int shift)
{
	return (reg >> shift) & 0xf;
}

/* PAuth in the CPU (not what the kernel made of it): the raw ID registers */
bool hp_arm64_cpu_pauth(bool *fpac)
{
	u64 isar1 = read_sysreg_s(SYS_ID_AA64ISAR1_EL1);
	u64 isar2 = read_sysreg_s(SYS_ID_AA64ISAR2_EL1);
	unsigned int apa = hp_id_field(isar1, ID_AA64ISAR1_EL1_APA_SHIFT);
	unsigned int api = hp_id_field(isar1, ID_AA64ISAR1_EL1_API_SHIFT);
	unsigned int apa3 = hp_id_field(isar2, ID_AA64ISAR2_EL1_APA3_SHIFT);

	/* 4: FEAT_FPAC, 5: FEAT_FPACCOMBINE */
	*fpac = max3(apa, api, apa3) >= 4;
	return apa || api || apa3;
}

bool hp_arm64_cpu_bti(void)
{
	return hp_id_field(read_sysreg_s(SYS_ID_AA64PFR1_EL1),
			   ID_AA64PFR1_EL1_BT_SHIFT) != 0;
}

/* Count the instructions of interest in [start, start + bytes). */
void hp_a64_scan(struct hp_a64_count *c, const u32 *start, unsigned long bytes)
{
	unsigned long i;

	for (i = 0; i < bytes / 4; i++) {
		switch (READ_ONCE(start[i])) {
		case HP_A64_PACIASP:
			c->paciasp++;
			break;
		case HP_A64_AUTIASP:
			c->autiasp++;
			break;
		case HP_A64_BTI_C:
			c->bti_c++;
			break;
		case HP_A64_BTI_J:
			c->bti_j++;
			break;
		case HP_A64_BTI_JC:
			c->bti_jc++;
			break;
		case HP_A64_SCS_PUSH:
			c->push++;
			break;
		case HP_A64_SCS_POP:
			c->pop++;
			break;
		}
	}
	c->bytes += bytes;
}

/* The module's own .text; false when built in (no module text of our own). */
bool hp_a64_module_text(struct hp_a64_count *c)
{
	memset(c, 0, sizeof(*c));
#ifdef MODULE
	unsigned long base, size;

	hp_mod_region(HP_MOD_TEXT, &base, &size);
	hp_a64_scan(c, (void *)base, size);
	return true;
#else
	return false;
#endif
}

/* Does a function push its return address on the shadow stack (first 16 instructions)? */
bool hp_a64_pushes(const void *fn)
{
	struct hp_a64_count c = {};

	hp_a64_scan(&c, fn, 64);
	return c.push;
}

/* Is x18 inside this task's shadow call stack? (@x18, @base: what was read) */
bool hp_arm64_scs_live(unsigned long *x18, unsigned long *base)
{
	asm volatile("mov %0, x18" : "=r" (*x18));
	*base = 0;
#ifdef CONFIG_SHADOW_CALL_STACK
	*base = (unsigned long)task_scs(current);
	return *base && *x18 >= *base && *x18 < *base + SCS_SIZE;
#else
	return false;
#endif
}

bool hp_a64_landing(u32 insn)
{
	return insn == HP_A64_BTI_C || insn == HP_A64_BTI_JC ||
	       insn == HP_A64_PACIASP;
}
