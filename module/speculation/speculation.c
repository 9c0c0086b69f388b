// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe sls, retpoline, retbleed, srso, its: read the module's own machine code as the
 * kernel left it after loading. The family's spectre_v1 and slh probes are
 * in spectre_v1.c.
 *
 * There is no exported instruction decoder, so only functions whose shape
 * we know are read, each from its kallsyms address to the next symbol: the
 * last instruction is found as the one byte pattern (ret, jmp *%reg,
 * jmp rel32) that is followed only by int3 and the assembler's nop padding
 * up to the next symbol. An indirect call site is found from its return
 * address (the call instruction ends there).
 *
 * sls: the compiler's own "ret" and "jmp *%reg" (sls_unthunked.o, kernel flags
 * minus the thunks) must be followed by int3; the control, the same code
 * built with -mharden-sls=none, must not be. The return of a function built
 * with every kernel flag is reported too: with MITIGATION_RETHUNK it is
 * "jmp __x86_return_thunk", which the loader (apply_returns) leaves as a
 * thunk jump or rewrites to "ret; int3..." depending on the CPU (Clang
 * adds its own int3 after the thunk jump). The two objects are compiled with
 * -ffunction-sections and each function's section is embedded as bytes
 * (sls_code.S, objcopy in the Makefile), never linked as code: objtool
 * rightly refuses bare returns in a RETHUNK/RETPOLINE module. sls.ret_int3
 * is protected when every ret and jmp *%reg of the kernel-flag code is
 * followed by int3 and the control's are bare (else inconclusive), and
 * vulnerable for a bare one in the kernel-flag code. arm64: unsupported (the
 * kernel does not use it there).
 *
 * retpoline: an indirect call built with the kernel's flags is a call to
 * __x86_indirect_thunk_<reg>, which the loader (apply_retpolines) keeps or
 * rewrites to "lfence; call *%reg" / "call *%reg" depending on the
 * spectre_v2 mode; what is found must agree with
 * /sys/devices/system/cpu/vulnerabilities/spectre_v2 ("Retpolines": the
 * thunk kept; "LFENCE": lfence; otherwise a plain call), else error. The
 * control makes the same call from an object built without the retpoline
 * flags, which must be a plain "call *%reg" (found in its embedded code),
 * else inconclusive. retpoline.indirect_call is protected on agreement under
 * a "Mitigation:" line, vulnerable for a plain call and no retpoline flags or
 * under "Vulnerable", unsupported under "Not affected", and inconclusive when
 * another mitigation (IBRS, eIBRS, ...) made the loader take the thunk out.
 * Off x86_64: unsupported.
 */
#include <linux/compiler.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"
#include "speculation.h"
#include "spectre_v1.h"

#define HP_SPECTRE_V2 HP_VULN_DIR "spectre_v2"

/* The kernel's line of vulnerabilities/@entry into @line: its length, or < 0. */
ssize_t hp_vuln_read(const char *entry, char *line, size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), HP_VULN_DIR "%s", entry);
	return hp_read_file(path, line, len);
}

/*
 * The result where vulnerabilities/@entry could not be read (hp_vuln_read()
 * gave @n): unsupported where sysfs answers (the kernel predates the
 * mitigation), inconclusive where it does not; @label and @words: what the
 * probe read of the code.
 */
void hp_vuln_absent(struct hp_result *r, const char *entry, ssize_t n, const char *label,
		    const char *words)
{
	char v2[16];

	if (hp_read_file(HP_SPECTRE_V2, v2, sizeof(v2)) >= 0)
		hp_set(r, HP_UNSUPPORTED,
		       "this kernel has no vulnerabilities/%s (it predates the mitigation); %s: %s",
		       entry, label, words);
	else
		hp_set(r, HP_INCONCLUSIVE,
		       "cannot read %s%s (%zd; sysfs not mounted yet?): cannot tell off from not affected; %s: %s",
		       HP_VULN_DIR, entry, n, label, words);
}

/* The active layer of a mitigation: its line in vulnerabilities/@entry, or its absence. */
void hp_vuln_layer(struct hp_layers *l, const char *entry)
{
	char line[HP_LAYER_LEN - 48];

	if (hp_vuln_read(entry, line, sizeof(line)) < 0)
		hp_layer(l->active, sizeof(l->active), "no %s%s", HP_VULN_DIR, entry);
	else
		hp_layer(l->active, sizeof(l->active), "%s: %s", entry, line);
}

#ifdef CONFIG_X86_64

/* The compiler's code of sls_unthunked.c and sls_unhardened.c (sls_code.S). */
#define HP_CODE(name) extern const u8 name[], name##_end[]
HP_CODE(hp_code_sls_ret_a);
HP_CODE(hp_code_sls_ret_b);
HP_CODE(hp_code_sls_tail_jmp);
HP_CODE(hp_code_ctl_ret_a);
HP_CODE(hp_code_ctl_ret_b);
HP_CODE(hp_code_ctl_tail_jmp);
HP_CODE(hp_code_ctl_icall);

/* The length of the nop at @p (the encodings assemblers pad code with), or 0. */
unsigned int hp_nop_len(const u8 *p, const u8 *end)
{
	static const u8 nops[][11] = {
		{ 1, 0x90 },
		{ 2, 0x66, 0x90 },
		{ 3, 0x0f, 0x1f, 0x00 },
		{ 4, 0x0f, 0x1f, 0x40, 0x00 },
		{ 5, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 6, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 7, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 8, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
		{ 9, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	};
	static const u8 cs_nopw[] = { 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 };
	unsigned int i, pre = 0;

	/* long nops: 0x66 prefixes before "cs nopw 0x0(%rax,%rax,1)" */
	while (p + pre < end && p[pre] == 0x66 && pre < 6)
		pre++;
	if (pre && p + pre + sizeof(cs_nopw) <= end &&
	    !memcmp(p + pre, cs_nopw, sizeof(cs_nopw)))
		return pre + sizeof(cs_nopw);
	for (i = 0; i < ARRAY_SIZE(nops); i++) {
		unsigned int n = nops[i][0];

		if (p + n <= end && !memcmp(p, &nops[i][1], n))
			return n;
	}
	return 0;
}

/*
 * True if [@p, @end) is int3s then nop padding only; @int3 counts the
 * int3s that directly follow.
 */
static bool hp_tail(const u8 *p, const u8 *end, unsigned int *int3)
{
	unsigned int n;

	*int3 = 0;
	while (p < end && *p == 0xcc) {
		p++;
		(*int3)++;
	}
	while (p < end) {
		n = hp_nop_len(p, end);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

enum hp_last {
	HP_LAST_NONE,
	HP_LAST_RET,		/* c3 */
	HP_LAST_JMP_REG,	/* [41] ff e0+r */
	HP_LAST_JMP_REL,	/* e9 rel32 */
};

struct hp_fn_end {
	enum hp_last kind;
	unsigned int off, int3;
	const void *dest;	/* of a jmp rel32 */
};

/*
 * An e9 byte followed by padding may be the tail of another instruction
 * ("lea -0x17(%rdi),%eax" is 8d 47 e9, then "ret; int3..."): a jmp rel32
 * counts only if it lands on a symbol kallsyms knows (a thunk, a function).
 */
static bool hp_jmp_dest_named(const void *dest)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sym, (unsigned long)dest);
	return !strstarts(sym, "0x");
}

/* Find the last instruction of the code in [@p, @end) (see the file comment). */
static void hp_fn_end(const u8 *p, const u8 *end, struct hp_fn_end *e)
{
	unsigned int i, n = end - p;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < n; i++) {
		if (p[i] == 0xc3 && hp_tail(p + i + 1, end, &e->int3)) {
			e->kind = HP_LAST_RET;
		} else if (i + 3 <= n && p[i] == 0x41 && p[i + 1] == 0xff &&
			   (p[i + 2] & 0xf8) == 0xe0 && hp_tail(p + i + 3, end, &e->int3)) {
			e->kind = HP_LAST_JMP_REG;
		} else if (i + 2 <= n && p[i] == 0xff && (p[i + 1] & 0xf8) == 0xe0 &&
			   hp_tail(p + i + 2, end, &e->int3)) {
			e->kind = HP_LAST_JMP_REG;
		} else if (i + 5 <= n && p[i] == 0xe9 && hp_tail(p + i + 5, end, &e->int3) &&
			   hp_jmp_dest_named(p + i + 5 + get_unaligned((const s32 *)(p + i + 1)))) {
			e->kind = HP_LAST_JMP_REL;
			e->dest = p + i + 5 + get_unaligned((const s32 *)(p + i + 1));
		} else {
			continue;
		}
		e->off = i;
		return;
	}
}

struct hp_sls_count {
	unsigned int seen, int3, bare;
};

static bool hp_sls_fn(const u8 *p, const u8 *end, enum hp_last want,
		      struct hp_sls_count *c)
{
	struct hp_fn_end e;

	hp_fn_end(p, end, &e);
	if (e.kind != want)
		return false;
	c->seen++;
	if (e.int3)
		c->int3++;
	else
		c->bare++;
	return true;
}

/* a function built with every kernel flag: its return as the loader left it */
static noinline int hp_spec_ret_main(int x)
{
	return x ^ 0x5a;
}

static void hp_sls_main_txt(char *buf, size_t len)
{
	const u8 *p = (const u8 *)hp_spec_ret_main;
	struct hp_fn_end e;

	hp_fn_end(p, p + hp_fn_size(p), &e);
	if (e.kind == HP_LAST_RET && e.int3 >= 4)
		snprintf(buf, len, "ret + %u int3 (a return-thunk jmp rewritten at load)",
			 e.int3);
	else if (e.kind == HP_LAST_RET)
		snprintf(buf, len, "ret + %u int3", e.int3);
	else if (e.kind == HP_LAST_JMP_REL)
		snprintf(buf, len, "jmp %ps", e.dest);
	else
		snprintf(buf, len, "end not found");
}

static void hp_sls_ret_int3(struct hp_result *r)
{
	struct hp_sls_count ret = {}, jmp = {}, cret = {}, cjmp = {};
	char main_txt[96];
	bool ok = true;

	if (hp_spec_ret_main(1) != 0x5b) {
		hp_set(r, HP_ERROR, "a scanned function returned a wrong value");
		return;
	}
	ok &= hp_sls_fn(hp_code_sls_ret_a, hp_code_sls_ret_a_end, HP_LAST_RET, &ret);
	ok &= hp_sls_fn(hp_code_sls_ret_b, hp_code_sls_ret_b_end, HP_LAST_RET, &ret);
	ok &= hp_sls_fn(hp_code_sls_tail_jmp, hp_code_sls_tail_jmp_end, HP_LAST_JMP_REG, &jmp);
	ok &= hp_sls_fn(hp_code_ctl_ret_a, hp_code_ctl_ret_a_end, HP_LAST_RET, &cret);
	ok &= hp_sls_fn(hp_code_ctl_ret_b, hp_code_ctl_ret_b_end, HP_LAST_RET, &cret);
	ok &= hp_sls_fn(hp_code_ctl_tail_jmp, hp_code_ctl_tail_jmp_end, HP_LAST_JMP_REG, &cjmp);
	hp_sls_main_txt(main_txt, sizeof(main_txt));
	if (!ok) {
		hp_set(r, HP_ERROR,
		       "could not find the final ret/jmp *%%reg of the scanned functions (%u/2 ret, %u/1 jmp, control %u/2, %u/1)",
		       ret.seen, jmp.seen, cret.seen, cjmp.seen);
		return;
	}
	if (cret.int3 || cjmp.int3) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control (-mharden-sls=none) also has int3 after %u ret, %u jmp *%%reg",
		       cret.int3, cjmp.int3);
		return;
	}
	hp_set(r, ret.bare || jmp.bare ? HP_VULNERABLE : HP_PROTECTED,
	       "int3 after %u/%u ret, %u/%u jmp *%%reg (kernel flags, no thunks); control (-mharden-sls=none): bare %u/%u ret, %u/%u jmp; a kernel-flag function ends: %s",
	       ret.int3, ret.seen, jmp.int3, jmp.seen, cret.bare, cret.seen,
	       cjmp.bare, cjmp.seen, main_txt);
}

/* The indirect call site that called us, from our return address. */
static const u8 *hp_spec_site;

static noinline int hp_spec_callee(int x)
{
	WRITE_ONCE(hp_spec_site, __builtin_return_address(0));
	return x + 1;
}

/*
 * built with every kernel flag: the result is used, so no tail call; the
 * pointer is hidden so that the compiler cannot turn it into a direct call
 */
static noinline int hp_spec_icall_main(hp_spec_fn fn, int x)
{
	OPTIMIZER_HIDE_VAR(fn);
	return fn(x) + 1;
}

enum hp_site { HP_SITE_UNKNOWN, HP_SITE_THUNK, HP_SITE_LFENCE, HP_SITE_PLAIN };

static const char *const hp_regs[] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* The call instruction that ends at @ra. */
static enum hp_site hp_site_kind(const u8 *ra, char *txt, size_t len)
{
	const void *dest = ra + get_unaligned((const s32 *)(ra - 4));
	char sym[KSYM_SYMBOL_LEN];
	const u8 *call = ra - 2;
	bool lfence;

	if (ra[-5] == 0xe8) {
		sprint_symbol(sym, (unsigned long)dest);
		*strchrnul(sym, ' ') = '\0';
		/* the rax thunk starts the array: kallsyms names the array */
		if (strstarts(sym, "__x86_indirect_thunk_array+0x0/"))
			strscpy(sym, "__x86_indirect_thunk_rax (array+0x0)", sizeof(sym));
		snprintf(txt, len, "call %.50s", sym);
		return strstr(sym, "indirect") && strstr(sym, "thunk") ?
		       HP_SITE_THUNK : HP_SITE_UNKNOWN;
	}
	if (ra[-2] != 0xff || (ra[-1] & 0xf8) != 0xd0) {
		snprintf(txt, len, "unknown call %*ph", 6, ra - 6);
		return HP_SITE_UNKNOWN;
	}
	if (ra[-3] == 0x41)
		call--;
	lfence = !memcmp(call - 3, "\x0f\xae\xe8", 3);
	snprintf(txt, len, "%scall *%%%s", lfence ? "lfence; " : "",
		 hp_regs[(ra[-1] & 7) + (call != ra - 2 ? 8 : 0)]);
	return lfence ? HP_SITE_LFENCE : HP_SITE_PLAIN;
}

/* The control's code: a plain "call *%reg", and no call to a thunk. */
static bool hp_site_control(char *txt, size_t len)
{
	const u8 *p = hp_code_ctl_icall, *end = hp_code_ctl_icall_end;
	unsigned int i, n = end - p;

	for (i = 0; i + 2 <= n; i++) {
		if (p[i] == 0xff && (p[i + 1] & 0xf8) == 0xd0) {
			bool rex = i && p[i - 1] == 0x41;

			snprintf(txt, len, "call *%%%s at +%u",
				 hp_regs[(p[i + 1] & 7) + (rex ? 8 : 0)], i - rex);
			return true;
		}
	}
	snprintf(txt, len, "no call *%%reg in %u bytes", n);
	return false;
}

static void hp_retpoline_indirect_call(struct hp_result *r)
{
	char site[64], csite[64], v2[128];
	enum hp_site kind, want;
	ssize_t n;

	if (!hp_site_control(csite, sizeof(csite))) {
		hp_set(r, HP_INCONCLUSIVE, "control built without retpoline flags: %s", csite);
		return;
	}
	WRITE_ONCE(hp_spec_site, NULL);
	if (hp_spec_icall_main(hp_spec_callee, 1) != 3 || !READ_ONCE(hp_spec_site)) {
		hp_set(r, HP_ERROR, "the indirect call went wrong");
		return;
	}
	kind = hp_site_kind(READ_ONCE(hp_spec_site), site, sizeof(site));
	n = hp_read_file(HP_SPECTRE_V2, v2, sizeof(v2));
	if (n < 0)
		snprintf(v2, sizeof(v2), "unreadable (%zd)", n);
	if (kind == HP_SITE_UNKNOWN) {
		hp_set(r, HP_ERROR, "call site not recognised: %s; spectre_v2: %s", site, v2);
		return;
	}
	if (kind == HP_SITE_PLAIN && !HP_FLAG_RETPOLINE[0]) {
		hp_set(r, HP_VULNERABLE,
		       "built without retpoline flags: %s; spectre_v2: %s", site, v2);
		return;
	}
	/*
	 * Built into the kernel, KUnit runs before user space mounts sysfs: no
	 * spectre_v2 file to compare with, so the call site alone is the
	 * evidence (a thunk or an lfence'd call is the mitigation in place).
	 */
	if (n < 0) {
		if (kind == HP_SITE_PLAIN)
			hp_set(r, HP_INCONCLUSIVE,
			       "site patched to a plain %s and spectre_v2 %s: cannot tell off from not affected",
			       site, v2);
		else
			hp_set(r, HP_PROTECTED,
			       "indirect call site: %s; spectre_v2 %s (sysfs not mounted yet?): judged from the site; control built without the flags: %s",
			       site, v2, csite);
		return;
	}
	/* what apply_retpolines leaves for this spectre_v2 mode */
	if (strstr(v2, "Retpolines"))
		want = HP_SITE_THUNK;
	else if (strstr(v2, "LFENCE"))
		want = HP_SITE_LFENCE;
	else
		want = HP_SITE_PLAIN;
	if (kind != want) {
		hp_set(r, HP_ERROR, "site %s disagrees with spectre_v2: %s (control: %s)",
		       site, v2, csite);
		return;
	}
	if (strstarts(v2, "Not affected"))
		hp_set(r, HP_UNSUPPORTED,
		       "CPU not affected: site patched to %s; spectre_v2: %s", site, v2);
	else if (want == HP_SITE_PLAIN && !strstarts(v2, "Vulnerable"))
		/* the loader took the thunk out: another mitigation (IBRS, eIBRS, ...) is in use */
		hp_set(r, HP_INCONCLUSIVE,
		       "spectre_v2 is mitigated without retpolines (%s): the loader patched the thunk call to a plain %s; control built without the flags: %s",
		       v2, site, csite);
	else
		hp_set(r, strstarts(v2, "Vulnerable") ? HP_VULNERABLE : HP_PROTECTED,
		       "indirect call site: %s; spectre_v2: %s; control built without the flags: %s",
		       site, v2, csite);
}

/*
 * retbleed, srso, its: the return sequence the kernel chose at boot. The
 * compiler ends every function built with the kernel's flags under
 * MITIGATION_RETHUNK with "jmp __x86_return_thunk" and lists it in
 * .return_sites; the loader (apply_returns) rewrites each to "jmp
 * <x86_return_thunk>" (retbleed_return_thunk, call_depth_return_thunk,
 * srso_return_thunk, srso_alias_return_thunk, its_return_thunk) or to "ret;
 * int3" when no return thunk is wanted, and under ITS's aligned thunks only
 * where the return is in the lower half of its 64-byte line (bit 5 clear).
 * The returns of four such functions of ours are read as the loader left
 * them, and must agree with the kernel's line in
 * /sys/devices/system/cpu/vulnerabilities/: protected when the thunk that
 * line names is where the returns go, vulnerable under "Vulnerable" or when
 * the line names a return-thunk mitigation that the returns do not use,
 * unsupported under "Not affected" or where the kernel has no such line,
 * and inconclusive for a mitigation with no return thunk (IBRS, IBPB,
 * microcode: nothing in our code shows it) or when sysfs cannot be read.
 */
#define HP_RET_SITES 4

static noinline int hp_spec_ret_b(int x)
{
	return x ^ 0x3c;
}

static noinline int hp_spec_ret_c(int x)
{
	return x + 0x21;
}

static noinline int hp_spec_ret_d(int x)
{
	return x - 0x17;
}

struct hp_ret_site {
	bool upper;		/* in the upper half of its 64-byte line */
	bool thunk;		/* "jmp <thunk>", else "ret" */
	char dest[48];		/* the thunk's name */
};

/* The returns of our kernel-flag functions; false (and @txt why) if one is not found. */
static bool hp_ret_sites(struct hp_ret_site *s, char *txt, size_t len)
{
	static const hp_spec_fn fns[HP_RET_SITES] = {
		hp_spec_ret_main, hp_spec_ret_b, hp_spec_ret_c, hp_spec_ret_d,
	};
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i, n = 0;

	if (hp_spec_ret_main(1) != 0x5b || hp_spec_ret_b(1) != 0x3d ||
	    hp_spec_ret_c(1) != 0x22 || hp_spec_ret_d(0x18) != 1) {
		snprintf(txt, len, "a scanned function returned a wrong value");
		return false;
	}
	for (i = 0; i < HP_RET_SITES; i++) {
		const u8 *p = (const u8 *)fns[i];
		struct hp_fn_end e;

		hp_fn_end(p, p + hp_fn_size(p), &e);
		if (e.kind != HP_LAST_RET && e.kind != HP_LAST_JMP_REL) {
			snprintf(txt, len, "the return of function %u of %u not found", i + 1,
				 HP_RET_SITES);
			return false;
		}
		s[i].upper = ((unsigned long)p + e.off) & 0x20;
		s[i].thunk = e.kind == HP_LAST_JMP_REL;
		s[i].dest[0] = '\0';
		if (s[i].thunk) {
			sprint_symbol_no_offset(sym, (unsigned long)e.dest);
			strscpy(s[i].dest, sym, sizeof(s[i].dest));
		}
	}
	for (i = 0; i < HP_RET_SITES && n < len; i++)
		n += scnprintf(txt + n, len - n, "%s%s %s%s", i ? ", " : "",
			       s[i].upper ? "U" : "L", s[i].thunk ? "jmp " : "ret",
			       s[i].dest);
	return true;
}

/* True if @name is one of the thunks in @want (substrings, NULL-ended). */
static bool hp_thunk_is(const char *name, const char *const *want)
{
	for (; *want; want++)
		if (strstr(name, *want))
			return true;
	return false;
}

/*
 * One mitigation line and the return thunks it puts in place: @its, the
 * aligned thunks of ITS (lower-half returns through it, upper-half ones
 * plain ret).
 */
struct hp_thunk_rule {
	const char *line;
	const char *thunks[4];
	bool its;
};

static void hp_ret_judge(struct hp_result *r, const char *entry,
			 const struct hp_thunk_rule *rules, unsigned int nrules)
{
	struct hp_ret_site s[HP_RET_SITES];
	char line[128], sites[192];
	unsigned int i, lower = 0, good = 0;
	const struct hp_thunk_rule *rule = NULL;
	ssize_t n;

	if (!hp_ret_sites(s, sites, sizeof(sites))) {
		hp_set(r, HP_ERROR, "%s", sites);
		return;
	}
	n = hp_vuln_read(entry, line, sizeof(line));
	if (n < 0) {
		hp_vuln_absent(r, entry, n, "returns", sites);
		return;
	}
	if (strstarts(line, "Not affected")) {
		hp_set(r, HP_UNSUPPORTED, "CPU not affected (%s: %s); returns: %s", entry, line,
		       sites);
		return;
	}
	if (strstarts(line, "Vulnerable")) {
		hp_set(r, HP_VULNERABLE, "%s: %s; returns: %s", entry, line, sites);
		return;
	}
	for (i = 0; i < nrules; i++)
		if (!strncasecmp(line, rules[i].line, strlen(rules[i].line)))
			rule = &rules[i];
	if (!rule) {
		hp_set(r, HP_INCONCLUSIVE,
		       "%s: %s: a mitigation without a return thunk (MSR, entry code or microcode): nothing in our code shows it; returns: %s",
		       entry, line, sites);
		return;
	}
	/* the kernel's flags would have given us return thunks: headers of another build */
	if (!HP_FLAG_RETHUNK[0]) {
		hp_set(r, HP_INCONCLUSIVE,
		       "%s: %s, but the module was built without -mfunction-return: its returns cannot show the thunk; returns: %s",
		       entry, line, sites);
		return;
	}
	for (i = 0; i < HP_RET_SITES; i++) {
		bool want_thunk = !rule->its || !s[i].upper;

		lower += !s[i].upper;
		if (want_thunk ? s[i].thunk && hp_thunk_is(s[i].dest, rule->thunks) :
				 !s[i].thunk)
			good++;
	}
	if (good < HP_RET_SITES) {
		hp_set(r, HP_VULNERABLE,
		       "%s: %s, but %u of %u returns are not what it puts there: %s",
		       entry, line, HP_RET_SITES - good, HP_RET_SITES, sites);
		return;
	}
	if (rule->its && !lower) {
		hp_set(r, HP_INCONCLUSIVE,
		       "%s: %s; every return of ours is in an upper half (plain ret there): %s",
		       entry, line, sites);
		return;
	}
	hp_set(r, HP_PROTECTED, "%s: %s; returns as the loader patched them: %s", entry,
	       line, sites);
}

static void hp_retbleed_return_thunk(struct hp_result *r)
{
	static const struct hp_thunk_rule rules[] = {
		/* srso_return_thunk untrains too (Zen 1/2, where both apply) */
		{ "Mitigation: untrained return thunk",
		  { "retbleed_return_thunk", "untrain_ret", "srso_return_thunk" } },
		{ "Mitigation: Stuffing", { "call_depth_return_thunk" } },
	};

	hp_ret_judge(r, "retbleed", rules, ARRAY_SIZE(rules));
}

static void hp_srso_return_thunk(struct hp_result *r)
{
	static const struct hp_thunk_rule rules[] = {
		{ "Mitigation: Safe RET", { "srso_return_thunk", "srso_alias_return_thunk" } },
	};

	hp_ret_judge(r, "spec_rstack_overflow", rules, ARRAY_SIZE(rules));
}

static void hp_its_return_thunk(struct hp_result *r)
{
	static const struct hp_thunk_rule rules[] = {
		{ "Mitigation: Aligned branch/return thunks", { "its_return_thunk" }, true },
		{ "Mitigation: Retpolines, Stuffing RSB", { "call_depth_return_thunk" } },
	};

	hp_ret_judge(r, "indirect_target_selection", rules, ARRAY_SIZE(rules));
}

#else /* !CONFIG_X86_64 */

static void hp_sls_ret_int3(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "not used by the kernel on arm64");
}

static void hp_retpoline_indirect_call(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only");
}

static void hp_retbleed_return_thunk(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only");
}

static void hp_srso_return_thunk(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only");
}

static void hp_its_return_thunk(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "x86_64 only");
}

#endif /* CONFIG_X86_64 */

static const char *hp_sls_unavailable(void)
{
	return IS_ENABLED(CONFIG_X86_64) ? NULL : "not used by the kernel on arm64";
}

static const char *hp_retpoline_unavailable(void)
{
	return IS_ENABLED(CONFIG_X86_64) ? NULL : "x86_64 only";
}

static void hp_spec_layers_na(struct hp_layers *l, const char *why)
{
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "n/a: %s", why);
	hp_layer(l->built, sizeof(l->built), "n/a");
	hp_layer(l->active, sizeof(l->active), "n/a");
}

static void hp_sls_layers(struct hp_layers *l)
{
	if (!IS_ENABLED(CONFIG_X86_64)) {
		hp_spec_layers_na(l, "not used by the kernel on arm64");
		return;
	}
	l->configured = HP_CONFIG_SLS;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 HP_SYM_SLS "=%s", l->configured ? "y" : "n");
	hp_built_flags(l, HP_FLAG_SLS, "no -mharden-sls");
	hp_layer(l->active, sizeof(l->active), "compile time only (int3 in the code)");
}

static void hp_retpoline_layers(struct hp_layers *l)
{
	char v2[HP_LAYER_LEN - 16];

	if (!IS_ENABLED(CONFIG_X86_64)) {
		hp_spec_layers_na(l, "x86_64 only");
		return;
	}
	l->configured = HP_CONFIG_RETPOLINE;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 HP_SYM_RETPOLINE "=%s, " HP_SYM_RETHUNK "=%s",
		 l->configured ? "y" : "n",
		 HP_CONFIG_RETHUNK ? "y" : "n");
	hp_built_flags(l, HP_FLAG_RETPOLINE, "no retpoline/return thunk flags");
	if (hp_read_file(HP_SPECTRE_V2, v2, sizeof(v2)) < 0)
		hp_layer(l->active, sizeof(l->active), "no %s", HP_SPECTRE_V2);
	else
		hp_layer(l->active, sizeof(l->active), "spectre_v2: %s", v2);
}

/* the return-thunk mitigations: the kernel's options, the module's flag, the sysfs line */
static void hp_thunk_layers(struct hp_layers *l, bool configured, const char *sym,
			    const char *entry)
{
	if (!IS_ENABLED(CONFIG_X86_64)) {
		hp_spec_layers_na(l, "x86_64 only");
		return;
	}
	l->configured = configured;
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "%s: %s, %s=%s", sym,
		 configured ? "y" : "n", HP_SYM_RETHUNK, HP_CONFIG_RETHUNK ? "y" : "n");
	hp_built_flags(l, HP_FLAG_RETHUNK, "no -mfunction-return (no return thunks)");
	hp_vuln_layer(l, entry);
}

static void hp_retbleed_layers(struct hp_layers *l)
{
	hp_thunk_layers(l, HP_CONFIG_UNRET || HP_CONFIG_CALL_DEPTH, HP_SYM_RETBLEED,
			"retbleed");
}

static void hp_srso_layers(struct hp_layers *l)
{
	hp_thunk_layers(l, HP_CONFIG_SRSO, HP_SYM_SRSO_ARCH, "spec_rstack_overflow");
}

static void hp_its_layers(struct hp_layers *l)
{
	hp_thunk_layers(l, IS_ENABLED(CONFIG_MITIGATION_ITS), HP_SYM_ITS,
			"indirect_target_selection");
}

static const struct hp_probe hp_probes_spectre_v1[] = {
	HP_PROBE(spectre_v1, control, HP_SAFE),
	HP_PROBE(spectre_v1, nospec, HP_SAFE),
	HP_PROBE(spectre_v1, slh, HP_SAFE),
};

HP_FEATURE(spectre_v1, .layers = hp_spectre_v1_layers);

static const struct hp_probe hp_probes_slh[] = {
	HP_PROBE(slh, masking, HP_SAFE),
};

HP_FEATURE(slh, .layers = hp_slh_layers, .unavailable = hp_slh_unavailable);

static const struct hp_probe hp_probes_sls[] = {
	HP_PROBE(sls, ret_int3, HP_SAFE),
};

HP_FEATURE(sls, .layers = hp_sls_layers, .unavailable = hp_sls_unavailable,
	   .khc = "CONFIG_MITIGATION_SLS");

static const struct hp_probe hp_probes_retpoline[] = {
	HP_PROBE(retpoline, indirect_call, HP_SAFE),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: the module's indirect
 * call site as the loader patched it, against sysfs spectre_v2.
 */
HP_FEATURE(retpoline, .layers = hp_retpoline_layers, .unavailable = hp_retpoline_unavailable,
	   .khc = "CONFIG_MITIGATION_RETPOLINE spectre_v2 nospectre_v2@x86_64");

static const struct hp_probe hp_probes_retbleed[] = {
	HP_PROBE(retbleed, return_thunk, HP_SAFE),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: x86_64: the module's
 * returns as the loader patched them, against sysfs retbleed,
 * spec_rstack_overflow, indirect_target_selection.
 */
HP_FEATURE(retbleed, .layers = hp_retbleed_layers, .unavailable = hp_retpoline_unavailable,
	   .khc =
	   "CONFIG_MITIGATION_UNRET_ENTRY CONFIG_MITIGATION_CALL_DEPTH_TRACKING retbleed@x86_64",
	   .on = HP_X86_64(HP_LIST("retbleed=force")));

static const struct hp_probe hp_probes_srso[] = {
	HP_PROBE(srso, return_thunk, HP_SAFE),
};

HP_FEATURE(srso, .layers = hp_srso_layers, .unavailable = hp_retpoline_unavailable,
	   .khc = "CONFIG_MITIGATION_SRSO spec_rstack_overflow@x86_64");

static const struct hp_probe hp_probes_its[] = {
	HP_PROBE(its, return_thunk, HP_SAFE),
};

HP_FEATURE(its, .layers = hp_its_layers, .unavailable = hp_retpoline_unavailable,
	   .khc = "CONFIG_MITIGATION_ITS indirect_target_selection@x86_64",
	   .on = HP_X86_64(HP_LIST("indirect_target_selection=force")));
