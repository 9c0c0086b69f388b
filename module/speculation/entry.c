// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe mds, taa, mmio_stale_data, rfds, tsa: the CPU-buffer clearing on
 * the way back to user space. Each of these mitigations makes the kernel run
 * "verw" with a memory operand (CLEAR_CPU_BUFFERS, which microcode turns into
 * a flush of the CPU's buffers) right before it returns to user space; the
 * entry code carries the instruction as an alternative that the boot patches
 * in (6.12: nops replaced by the verw) or enables (6.1: a jmp over it
 * replaced by nops) when X86_FEATURE_CLEAR_CPU_BUF is set.
 *
 * The probe reads the syscall return path as the boot left it: the entry
 * point is MSR_LSTAR (entry_SYSCALL_64), its exit the "swapgs; ...; sysretq"
 * at its end; between the two, either a verw that runs, or nops or a jmp
 * over it. That is judged against the kernel's line in
 * /sys/devices/system/cpu/vulnerabilities/<entry>: a "Clear CPU buffers"
 * or "Clear Register File" mitigation is protected when the verw runs and
 * vulnerable when it does not; "Vulnerable" is vulnerable (a verw without
 * the microcode that makes it clear anything is no protection); "Not
 * affected", or a kernel without the entry, is unsupported; a mitigation
 * that lives elsewhere (at VM entry, "TSX disabled", mmio_stale_data's
 * VM-entry clearing where neither MDS nor TAA applies) is inconclusive:
 * nothing on the return path shows it. Under FRED the return path is
 * another: inconclusive. Off x86_64: unsupported.
 *
 * bhi: Spectre-BHI's software mitigation clears the branch history on the way
 * in: the boot patches "call clear_bhb_loop" (CLEAR_BRANCH_HISTORY) into the
 * syscall entry, before its "call do_syscall_64". The entry code up to that
 * call is searched for a call to clear_bhb_loop; the call to do_syscall_64 is
 * the control (calls are decoded right and this is the syscall entry), its
 * absence inconclusive. Judged against the "BHI:" part of
 * vulnerabilities/spectre_v2: "SW loop" protected with the call there and
 * vulnerable without; "BHI_DIS_S" (the hardware control) protected when
 * MSR_IA32_SPEC_CTRL has the bit, vulnerable when not, inconclusive when the
 * MSR cannot be read; "Vulnerable" vulnerable; "Not affected", or a kernel
 * with no "BHI:" part, unsupported; "Retpoline" (retpolines stop the
 * injection: the retpoline feature's work) inconclusive.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/msr.h>
#endif

#include "../hardprobe.h"
#include "speculation.h"

#ifdef CONFIG_X86_64

/* how far from the syscall entry its sysretq may be */
#define HP_ENTRY_SCAN	4096

enum hp_verw {
	HP_VERW_RUNS,		/* verw on the way to sysretq */
	HP_VERW_SKIPPED,	/* nops, or a jmp over the verw */
	HP_VERW_UNKNOWN,	/* not found or not understood (@txt says) */
};

/* "verw <rip-relative m16>": 0f 00 /5, mod 00, r/m 101 */
static bool hp_is_verw(const u8 *p, const u8 *end)
{
	return p + 7 <= end && p[0] == 0x0f && p[1] == 0x00 && p[2] == 0x2d;
}

/*
 * What runs between the "swapgs" at @p and the "sysretq" at @end: the
 * verw, or nothing but nops and a short jmp that lands on @end.
 */
static enum hp_verw hp_verw_between(const u8 *p, const u8 *end, char *txt, size_t len)
{
	bool verw = false;

	while (p < end) {
		unsigned int n = hp_nop_len(p, end);

		if (hp_is_verw(p, end)) {
			verw = true;
			p += 7;
		} else if (p[0] == 0xeb && p + 2 <= end && p + 2 + (s8)p[1] == end) {
			snprintf(txt, len, "swapgs; jmp over the verw; sysretq");
			return HP_VERW_SKIPPED;
		} else if (n) {
			p += n;
		} else {
			snprintf(txt, len, "swapgs; %*ph ...; sysretq: not understood",
				 (int)min_t(long, end - p, 8), p);
			return HP_VERW_UNKNOWN;
		}
	}
	snprintf(txt, len, "swapgs; %s; sysretq", verw ? "verw" : "nops");
	return verw ? HP_VERW_RUNS : HP_VERW_SKIPPED;
}

/*
 * The syscall entry code (MSR_LSTAR, entry_SYSCALL_64) as the boot patched
 * it, @size bytes into @code; its address in @entry. False, and @txt why,
 * where it is not read: under FRED (syscalls enter and return through FRED's
 * entry) or when the copy faults.
 */
static bool hp_entry_code(u8 *code, size_t size, unsigned long *entry, char *txt, size_t len)
{
#ifdef X86_FEATURE_FRED
	if (cpu_feature_enabled(X86_FEATURE_FRED)) {
		snprintf(txt, len, "FRED: syscalls enter and return through FRED (not read)");
		return false;
	}
#endif
	hp_rdmsr(MSR_LSTAR, *entry);
	if (copy_from_kernel_nofault(code, (const void *)*entry, size)) {
		snprintf(txt, len, "cannot read the syscall entry code (MSR_LSTAR)");
		return false;
	}
	return true;
}

/* The syscall return path as the boot patched it: @txt says what was read. */
static enum hp_verw hp_verw_exit(char *txt, size_t len)
{
	static u8 code[HP_ENTRY_SCAN];
	static DEFINE_MUTEX(lock);
	enum hp_verw v = HP_VERW_UNKNOWN;
	unsigned long entry;
	unsigned int i, j;

	mutex_lock(&lock);
	if (!hp_entry_code(code, sizeof(code), &entry, txt, len))
		goto out;
	snprintf(txt, len, "no swapgs ... sysretq in the %u bytes after the syscall entry",
		 HP_ENTRY_SCAN);
	for (i = 17; i + 3 <= sizeof(code); i++) {
		if (code[i] != 0x48 || code[i + 1] != 0x0f || code[i + 2] != 0x07)
			continue;
		/* the last swapgs (0f 01 f8) at most 13 bytes before it */
		for (j = i - 3; j + 16 >= i; j--)
			if (code[j] == 0x0f && code[j + 1] == 0x01 && code[j + 2] == 0xf8)
				break;
		if (j + 16 < i)
			continue;
		v = hp_verw_between(code + j + 3, code + i, txt, len);
		break;
	}
out:
	mutex_unlock(&lock);
	return v;
}

/* True if the call at @p (e8 rel32) of the copy @code of @entry goes to @name. */
static bool hp_call_to(const u8 *code, const u8 *p, unsigned long entry, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long dest;
	size_t n = strlen(name);
	s32 rel;

	memcpy(&rel, p + 1, sizeof(rel));
	dest = entry + (p - code) + 5 + (long)rel;
	sprint_symbol(sym, dest);
	/* "name+0x0/0x..": the symbol's own start */
	return !strncmp(sym, name, n) && !strncmp(sym + n, "+0x0/", 5);
}

/*
 * The syscall entry up to its call of do_syscall_64: whether it calls
 * clear_bhb_loop first; false (and @txt why) if that call is not found.
 */
static bool hp_bhb_entry(bool *clears, char *txt, size_t len)
{
	static u8 code[512];
	static DEFINE_MUTEX(lock);
	unsigned long entry;
	unsigned int i;
	bool found = false;

	*clears = false;
	mutex_lock(&lock);
	if (!hp_entry_code(code, sizeof(code), &entry, txt, len))
		goto out;
	for (i = 0; i + 5 <= sizeof(code); i++) {
		if (code[i] != 0xe8)
			continue;
		if (hp_call_to(code, code + i, entry, "clear_bhb_loop")) {
			*clears = true;
		} else if (hp_call_to(code, code + i, entry, "do_syscall_64")) {
			found = true;
			break;
		}
	}
	if (found)
		snprintf(txt, len, "syscall entry: %s; call do_syscall_64",
			 *clears ? "call clear_bhb_loop" : "no call to clear_bhb_loop");
	else
		snprintf(txt, len, "no call to do_syscall_64 in the %zu bytes of the syscall entry",
			 sizeof(code));
out:
	mutex_unlock(&lock);
	return found;
}

static void hp_bhi_clear_loop(struct hp_result *r)
{
	char v2[192], code[96];
	const char *bhi;
	bool clears, read;
	u64 spec = 0;

	read = hp_bhb_entry(&clears, code, sizeof(code));
	if (hp_vuln_read("spectre_v2", v2, sizeof(v2)) < 0) {
		hp_set(r, HP_INCONCLUSIVE, "cannot read %sspectre_v2; %s", HP_VULN_DIR, code);
		return;
	}
	bhi = strstr(v2, "BHI: ");
	if (!bhi) {
		hp_set(r, HP_UNSUPPORTED,
		       "spectre_v2 has no \"BHI:\" part (the kernel predates the mitigation): %s; %s",
		       v2, code);
		return;
	}
	if (strstarts(bhi, "BHI: Not affected")) {
		hp_set(r, HP_UNSUPPORTED, "CPU not affected (spectre_v2: ...%s); %s", bhi, code);
		return;
	}
	if (strstarts(bhi, "BHI: Vulnerable")) {
		hp_set(r, HP_VULNERABLE, "spectre_v2: ...%s; %s", bhi, code);
		return;
	}
	if (strstarts(bhi, "BHI: BHI_DIS_S")) {
		if (hp_rdmsr_safe(MSR_IA32_SPEC_CTRL, &spec))
			hp_set(r, HP_INCONCLUSIVE,
			       "spectre_v2: ...%s, but MSR_IA32_SPEC_CTRL cannot be read; %s", bhi,
			       code);
		else if (spec & SPEC_CTRL_BHI_DIS_S)
			hp_set(r, HP_PROTECTED,
			       "spectre_v2: ...%s; MSR_IA32_SPEC_CTRL 0x%llx: BHI_DIS_S set; %s",
			       bhi, spec, code);
		else
			hp_set(r, HP_VULNERABLE,
			       "spectre_v2: ...%s; MSR_IA32_SPEC_CTRL 0x%llx: BHI_DIS_S clear; %s",
			       bhi, spec, code);
		return;
	}
	if (!strstarts(bhi, "BHI: SW loop")) {
		hp_set(r, HP_INCONCLUSIVE,
		       "spectre_v2: ...%s: a mitigation the entry code does not show; %s", bhi,
		       code);
		return;
	}
	if (!read)
		hp_set(r, HP_INCONCLUSIVE, "spectre_v2: ...%s; %s", bhi, code);
	else
		hp_set(r, clears ? HP_PROTECTED : HP_VULNERABLE, "spectre_v2: ...%s; %s", bhi,
		       code);
}

/* one vulnerabilities entry and the mitigation lines that clear on the way to user */
struct hp_verw_rule {
	const char *entry;
	const char *clear;	/* the "Mitigation: ..." prefix of a verw before sysretq */
	const char *elsewhere;	/* a prefix of such lines that means VM entry only */
	/*
	 * such a line with no verw on the return path may still clear at VM
	 * entry (MMIO where neither MDS nor TAA needs the verw): inconclusive
	 */
	bool vm_entry_without_verw;
};

static const struct hp_verw_rule hp_verw_rules[] = {
	{ "mds", "Mitigation: Clear CPU buffers" },
	{ "tsx_async_abort", "Mitigation: Clear CPU buffers" },
	{ "mmio_stale_data", "Mitigation: Clear CPU buffers", NULL, true },
	{ "reg_file_data_sampling", "Mitigation: Clear Register File" },
	{ "tsa", "Mitigation: Clear CPU buffers", "Mitigation: Clear CPU buffers: VM" },
};

/**
 * hardprobe_verw_decode() - what runs between a "swapgs" and a "sysretq"
 * @code: the bytes after the swapgs
 * @len: how many, up to the sysretq
 * @txt: what was read, in words
 * @txtlen: its size
 *
 * Return: 0 a verw that runs, 1 nops or a jmp over it, 2 not understood.
 */
int hardprobe_verw_decode(const u8 *code, size_t len, char *txt, size_t txtlen)
{
	return hp_verw_between(code, code + len, txt, txtlen);
}
EXPORT_SYMBOL_GPL(hardprobe_verw_decode);

/**
 * hardprobe_verw_verdict() - a VERW feature's outcome
 * @entry: its file in /sys/devices/system/cpu/vulnerabilities/
 * @line: that file's line
 * @v: hardprobe_verw_decode()'s answer for the syscall return path
 * @code: its words
 * @r: the result to set
 */
void hardprobe_verw_verdict(const char *entry, const char *line, int v, const char *code,
			    struct hp_result *r)
{
	const struct hp_verw_rule *rule = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hp_verw_rules); i++)
		if (!strcmp(hp_verw_rules[i].entry, entry))
			rule = &hp_verw_rules[i];
	if (!rule) {
		hp_set(r, HP_ERROR, "no rule for vulnerabilities/%s", entry);
		return;
	}
	if (strstarts(line, "Not affected")) {
		hp_set(r, HP_UNSUPPORTED, "CPU not affected (%s: %s); return path: %s", entry,
		       line, code);
		return;
	}
	if (strstarts(line, "Vulnerable")) {
		hp_set(r, HP_VULNERABLE, "%s: %s; return path: %s", entry, line, code);
		return;
	}
	if (!strstarts(line, rule->clear) ||
	    (rule->elsewhere && strstarts(line, rule->elsewhere))) {
		hp_set(r, HP_INCONCLUSIVE,
		       "%s: %s: a mitigation the return to user does not show; return path: %s",
		       entry, line, code);
		return;
	}
	switch (v) {
	case HP_VERW_RUNS:
		hp_set(r, HP_PROTECTED, "%s: %s; return path: %s", entry, line, code);
		break;
	case HP_VERW_SKIPPED:
		if (rule->vm_entry_without_verw)
			hp_set(r, HP_INCONCLUSIVE,
			       "%s: %s, with no verw on the return path: it clears at VM entry only where MDS and TAA do not apply; return path: %s",
			       entry, line, code);
		else
			hp_set(r, HP_VULNERABLE, "%s: %s, but the return path does not clear: %s",
			       entry, line, code);
		break;
	default:
		hp_set(r, HP_INCONCLUSIVE, "%s: %s; return path: %s", entry, line, code);
	}
}
EXPORT_SYMBOL_GPL(hardprobe_verw_verdict);

static void hp_verw_judge(struct hp_result *r, const char *entry)
{
	char line[128], code[96];
	enum hp_verw v;
	ssize_t n;

	v = hp_verw_exit(code, sizeof(code));
	n = hp_vuln_read(entry, line, sizeof(line));
	if (n < 0)
		hp_vuln_absent(r, entry, n, "return path", code);
	else
		hardprobe_verw_verdict(entry, line, v, code, r);
}

static void hp_mds_verw_exit(struct hp_result *r)
{
	hp_verw_judge(r, "mds");
}

static void hp_taa_verw_exit(struct hp_result *r)
{
	hp_verw_judge(r, "tsx_async_abort");
}

static void hp_mmio_stale_data_verw_exit(struct hp_result *r)
{
	hp_verw_judge(r, "mmio_stale_data");
}

static void hp_rfds_verw_exit(struct hp_result *r)
{
	hp_verw_judge(r, "reg_file_data_sampling");
}

static void hp_tsa_verw_exit(struct hp_result *r)
{
	hp_verw_judge(r, "tsa");
}

/* the option, nothing the module builds, the sysfs line */
static void hp_verw_layers(struct hp_layers *l, bool configured, const char *sym,
			   const char *entry)
{
	l->configured = configured;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s: %s", sym,
		 configured ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "the kernel's entry code: nothing to build");
	hp_vuln_layer(l, entry);
}

static void hp_mds_layers(struct hp_layers *l)
{
	hp_verw_layers(l, HP_CONFIG_MDS, HP_SYM_MDS, "mds");
}

static void hp_taa_layers(struct hp_layers *l)
{
	hp_verw_layers(l, HP_CONFIG_TAA, HP_SYM_TAA, "tsx_async_abort");
}

static void hp_mmio_stale_data_layers(struct hp_layers *l)
{
	hp_verw_layers(l, HP_CONFIG_MMIO, HP_SYM_MMIO, "mmio_stale_data");
}

static void hp_rfds_layers(struct hp_layers *l)
{
	hp_verw_layers(l, IS_ENABLED(CONFIG_MITIGATION_RFDS), HP_SYM_RFDS,
		       "reg_file_data_sampling");
}

static void hp_tsa_layers(struct hp_layers *l)
{
	hp_verw_layers(l, IS_ENABLED(CONFIG_MITIGATION_TSA), HP_SYM_TSA, "tsa");
}

static void hp_bhi_layers(struct hp_layers *l)
{
	hp_verw_layers(l, IS_ENABLED(CONFIG_MITIGATION_SPECTRE_BHI), HP_SYM_BHI, "spectre_v2");
}

#define hp_verw_unavailable NULL

#else /* !CONFIG_X86_64 */

static void hp_verw_na(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only (its entry code's buffer and history clearing)");
}

static void hp_mds_verw_exit(struct hp_result *r) { hp_verw_na(r); }
static void hp_taa_verw_exit(struct hp_result *r) { hp_verw_na(r); }
static void hp_mmio_stale_data_verw_exit(struct hp_result *r) { hp_verw_na(r); }
static void hp_rfds_verw_exit(struct hp_result *r) { hp_verw_na(r); }
static void hp_tsa_verw_exit(struct hp_result *r) { hp_verw_na(r); }
static void hp_bhi_clear_loop(struct hp_result *r) { hp_verw_na(r); }

static void hp_verw_layers_na(struct hp_layers *l)
{
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "n/a: x86_64 only");
	hp_layer(l->built, sizeof(l->built), "n/a");
	hp_layer(l->active, sizeof(l->active), "n/a");
}

#define hp_mds_layers hp_verw_layers_na
#define hp_taa_layers hp_verw_layers_na
#define hp_mmio_stale_data_layers hp_verw_layers_na
#define hp_rfds_layers hp_verw_layers_na
#define hp_tsa_layers hp_verw_layers_na
#define hp_bhi_layers hp_verw_layers_na

static const char *hp_verw_unavailable(void)
{
	return "x86_64 only";
}

#endif /* CONFIG_X86_64 */

static const struct hp_probe hp_probes_mds[] = {
	HP_PROBE(mds, verw_exit, HP_SAFE),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: x86_64: the syscall
 * return path as the boot patched it (verw before sysretq), against sysfs mds,
 * tsx_async_abort, mmio_stale_data, reg_file_data_sampling, tsa.
 */
HP_FEATURE(mds, .layers = hp_mds_layers, .unavailable = hp_verw_unavailable,
	   .khc = "CONFIG_MITIGATION_MDS mds@x86_64");

static const struct hp_probe hp_probes_taa[] = {
	HP_PROBE(taa, verw_exit, HP_SAFE),
};

HP_FEATURE(taa, .layers = hp_taa_layers, .unavailable = hp_verw_unavailable,
	   .khc = "CONFIG_MITIGATION_TAA tsx_async_abort@x86_64");

static const struct hp_probe hp_probes_mmio_stale_data[] = {
	HP_PROBE(mmio_stale_data, verw_exit, HP_SAFE),
};

HP_FEATURE(mmio_stale_data, .layers = hp_mmio_stale_data_layers, .unavailable = hp_verw_unavailable,
	   .khc = "CONFIG_MITIGATION_MMIO_STALE_DATA mmio_stale_data@x86_64");

static const struct hp_probe hp_probes_rfds[] = {
	HP_PROBE(rfds, verw_exit, HP_SAFE),
};

HP_FEATURE(rfds, .layers = hp_rfds_layers, .unavailable = hp_verw_unavailable,
	   .khc = "CONFIG_MITIGATION_RFDS reg_file_data_sampling@x86_64");

static const struct hp_probe hp_probes_tsa[] = {
	HP_PROBE(tsa, verw_exit, HP_SAFE),
};

HP_FEATURE(tsa, .layers = hp_tsa_layers, .unavailable = hp_verw_unavailable,
	   .khc = "CONFIG_MITIGATION_TSA tsa@x86_64");

static const struct hp_probe hp_probes_bhi[] = {
	HP_PROBE(bhi, clear_loop, HP_SAFE),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: x86_64: the syscall
 * entry as the boot patched it (call clear_bhb_loop), against the BHI part of
 * sysfs spectre_v2.
 */
HP_FEATURE(bhi, .layers = hp_bhi_layers, .unavailable = hp_verw_unavailable,
	   .khc = "CONFIG_MITIGATION_SPECTRE_BHI spectre_bhi@x86_64");
