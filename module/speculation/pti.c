// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe pti: the Meltdown mitigation, kernel page-table isolation. A
 * CPU affected by Meltdown lets user code read, speculatively, any kernel
 * memory mapped in the page tables it runs on; PTI gives every process a
 * second, user PGD that maps only the entry code. The timing attack is not
 * done here: the probe reads the page tables, not the secret.
 *
 * x86_64: a kmalloc'd object (direct map, what Meltdown reads) is looked
 * up, read-only, in the page tables this task runs on in user mode: the
 * user PGD (kernel_to_user_pgdp()) with PTI on, its one PGD without. The
 * control looks it up in the kernel PGD, where it must be mapped. A CPU
 * that is not affected and runs without PTI (pti=on forces it) is
 * unsupported: nothing to isolate against.
 *
 * arm64 (kpti, CONFIG_UNMAP_KERNEL_AT_EL0): EL0 runs with the trampoline
 * tables in TTBR1, which a module cannot reach: unsupported, with the
 * state read from arm64_kernel_unmapped_at_el0() and sysfs.
 */
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#ifdef CONFIG_ARM64
#include <asm/mmu.h>
#endif

#include "../hardprobe.h"

#define HP_MELTDOWN "/sys/devices/system/cpu/vulnerabilities/meltdown"

static void hp_meltdown_state(char *buf, size_t len)
{
	ssize_t n = hp_read_file(HP_MELTDOWN, buf, len);

	if (n <= 0)
		strscpy(buf, "unreadable", len);
	else
		strim(buf);
}

#ifdef CONFIG_X86_64
/* Is @addr mapped in the tables under @pgd? A read-only walk. */
static bool hp_pgd_maps(pgd_t *pgd, unsigned long addr)
{
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;
	pte_t *pte;

	pgd += pgd_index(addr);
	if (pgd_none(*pgd) || !pgd_present(*pgd))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(*p4d) || !p4d_present(*p4d))
		return false;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud) || !pud_present(*pud))
		return false;
	if (pud_leaf(*pud))
		return true;
	pmd = pmd_offset(pud, addr);
	if (pmd_none(*pmd) || !pmd_present(*pmd))
		return false;
	if (pmd_leaf(*pmd))
		return true;
	pte = pte_offset_kernel(pmd, addr);
	return pte_present(*pte);
}

static pgd_t *hp_user_pgd(pgd_t *pgd, bool pti)
{
#if HP_CONFIG_PTI_X86
	if (pti)
		return kernel_to_user_pgdp(pgd);
#endif
	return pgd;
}

static void hp_pti_user_pgd(struct hp_result *r)
{
	bool pti = boot_cpu_has(X86_FEATURE_PTI), in_kernel, in_user;
	char md[64];
	void *obj;
	pgd_t *pgd;

	hp_meltdown_state(md, sizeof(md));
	if (!pti && !boot_cpu_has_bug(X86_BUG_CPU_MELTDOWN)) {
		hp_set(r, HP_UNSUPPORTED,
		       "the CPU is not affected by Meltdown (meltdown: %s) and PTI is off (pti=on would force it)",
		       md);
		return;
	}
	if (!current->mm) {
		hp_set(r, HP_UNSUPPORTED, "no user address space in this task");
		return;
	}
	obj = kmalloc(64, GFP_KERNEL);
	if (!obj) {
		hp_set(r, HP_ERROR, "kmalloc failed");
		return;
	}
	pgd = current->mm->pgd;
	in_kernel = hp_pgd_maps(pgd, (unsigned long)obj);
	in_user = hp_pgd_maps(hp_user_pgd(pgd, pti), (unsigned long)obj);
	if (!in_kernel)
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the kmalloc'd object at %p is not found in the kernel PGD: the walk is broken",
		       obj);
	else if (in_user)
		hp_set(r, HP_VULNERABLE,
		       "a kmalloc'd object at %p is mapped in the page tables of user mode (%s; meltdown: %s)",
		       obj, pti ? "the user PGD" : "no PTI: the one PGD", md);
	else
		hp_set(r, HP_PROTECTED,
		       "a kmalloc'd object at %p is not mapped in this task's user PGD; control: the kernel PGD maps it (meltdown: %s)",
		       obj, md);
	kfree(obj);
}

/* the command line's PTI words: the last pti= (-1: none, else enum), nopti, mitigations=off */
enum { HP_PTI_OFF, HP_PTI_ON, HP_PTI_AUTO };

struct hp_pti_cmd {
	int mode;
	bool nopti, mitigations_off;
};

static void hp_pti_cmd_one(char *param, char *val, void *arg)
{
	static const char *const modes[] = { "off", "on", "auto" };
	struct hp_pti_cmd *c = arg;
	int i;

	if (hp_param_eq(param, "pti") && val) {
		/* pti_parse_cmdline(): another value changes nothing */
		i = match_string(modes, ARRAY_SIZE(modes), val);
		if (i >= 0)
			c->mode = i;
	} else if (hp_param_eq(param, "nopti")) {
		c->nopti = true;
		/* an early_param() setting the same mode as pti=off */
		if (HP_PTI_EARLY_PARAMS)
			c->mode = HP_PTI_OFF;
	} else if (hp_param_eq(param, "mitigations") && val) {
		/* mitigations_parse_cmdline(): off, auto, auto,nosmt; else unchanged */
		if (!strcmp(val, "off"))
			c->mitigations_off = true;
		else if (!strcmp(val, "auto") || !strcmp(val, "auto,nosmt"))
			c->mitigations_off = false;
	}
}

/*
 * Does the command line turn PTI off (pti_check_boottime_disable())? 6.12:
 * the last of pti= and nopti, and mitigations=off over both; 6.1: pti=off,
 * else pti=on or pti=auto over nopti and mitigations=off. @why: the words.
 */
static bool hp_pti_cmdline_off(char *why, size_t len)
{
	struct hp_pti_cmd c = { .mode = -1 };
	bool off;

	if (hp_cmdline_walk(hp_pti_cmd_one, &c)) {
		strscpy(why, ", command line unreadable: unknown", len);
		return false;
	}
	if (HP_PTI_EARLY_PARAMS)
		off = c.mode == HP_PTI_OFF || c.mitigations_off;
	else
		off = c.mode == HP_PTI_OFF || (c.mode < 0 && (c.nopti || c.mitigations_off));
	scnprintf(why, len, "%s%s%s", c.mode == HP_PTI_OFF && !c.nopti ? ", pti=off" : "",
		  c.nopti ? ", nopti" : "", c.mitigations_off ? ", mitigations=off" : "");
	return off;
}

static void hp_pti_layers(struct hp_layers *l)
{
	char md[64], words[64];
	bool off = hp_pti_cmdline_off(words, sizeof(words));

	hp_meltdown_state(md, sizeof(md));
	l->configured = HP_CONFIG_PTI_X86 && !off;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s=%s%s", HP_SYM_PTI_X86,
		 HP_CONFIG_PTI_X86 ? "y" : "n", words);
	hp_layer(l->built, sizeof(l->built), "page tables: nothing to build");
	hp_layer(l->active, sizeof(l->active),
		 "X86_FEATURE_PTI: %s; CPU bug MELTDOWN: %s; meltdown: %s",
		 boot_cpu_has(X86_FEATURE_PTI) ? "yes" : "no",
		 boot_cpu_has_bug(X86_BUG_CPU_MELTDOWN) ? "yes" : "no", md);
}
#else
static void hp_pti_user_pgd(struct hp_result *r)
{
	char md[64];

	hp_meltdown_state(md, sizeof(md));
#ifdef CONFIG_ARM64
	hp_set(r, HP_UNSUPPORTED,
	       "kpti %s (meltdown: %s): EL0's trampoline tables are not reachable from a module, not observed",
	       arm64_kernel_unmapped_at_el0() ? "on" : "off", md);
#else
	hp_set(r, HP_UNSUPPORTED, "no probe for this architecture (meltdown: %s)", md);
#endif
}

static void hp_pti_layers(struct hp_layers *l)
{
	char md[64];

	hp_meltdown_state(md, sizeof(md));
#ifdef CONFIG_ARM64
	l->configured = IS_ENABLED(CONFIG_UNMAP_KERNEL_AT_EL0);
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "CONFIG_UNMAP_KERNEL_AT_EL0=%s",
		 l->configured ? "y" : "n");
	hp_layer(l->active, sizeof(l->active), "kernel unmapped at EL0: %s; meltdown: %s",
		 arm64_kernel_unmapped_at_el0() ? "yes" : "no", md);
#else
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "no such mechanism here");
	hp_layer(l->active, sizeof(l->active), "meltdown: %s", md);
#endif
	hp_layer(l->built, sizeof(l->built), "page tables: nothing to build");
}
#endif

static const struct hp_probe hp_probes_pti[] = {
	HP_PROBE(pti, user_pgd, HP_SAFE),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: x86_64: the page tables
 * user mode runs on (the user PGD with PTI) against a kernel object; arm64's
 * kpti is not observed.
 */
HP_FEATURE(pti, .layers = hp_pti_layers,
	   .khc = "CONFIG_MITIGATION_PAGE_TABLE_ISOLATION pti@x86_64 nopti@x86_64");
