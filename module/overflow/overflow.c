// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe signed_overflow, unsigned_overflow, truncation: integer
 * arithmetic that wraps and conversions that lose bits, in code built with
 * the kernel's own flags (here) and in one object per sanitizer
 * (signed_overflow_sanitized.c, unsigned_overflow_sanitized.c,
 * truncation_sanitized.c: the same code from overflow.h plus one
 * -fsanitize= flag). Each probe prints a unique marker,
 * runs its operations and looks for the sanitizer's report of each one
 * after the marker; the wrapped results are the positive control (the
 * overflow really happened) and part of the evidence.
 *
 * Each feature has two probes. <feature>.sanitizer runs the operations of
 * the sanitized object, built where the compiler takes the flag (cc-option)
 * and the kernel has the UBSAN runtime; otherwise it is unsupported ("flag
 * rejected by gcc 12.2.0", "no UBSAN runtime in this kernel") and the module
 * still loads. <feature>.kernel_flags runs them in overflow.o, built with the
 * kernel's flags only: what the kernel's own code gets. The reports looked
 * for are lib/ubsan.c's lines ("2147483647 + 1 cannot be represented in
 * type", "negation of -2147483648 cannot be represented", ...) under their
 * header ("UBSAN: signed-integer-overflow in .../overflow.h:<line>",
 * "UBSAN: negation-overflow in", "UBSAN: unsigned-integer-overflow in").
 * All reported is protected; none or some is vulnerable, the evidence listing
 * the unreported operations with their wrapped results ("INT_MAX + 1 =
 * INT_MIN"). Sites are re-armed before each run (hp_ubsan_rearm(), as for
 * array_bounds), a report is kept off the running KUnit case, and with
 * panic_on_warn set the probes whose reports come from lib/ubsan.c say
 * unsupported. In warn mode a catch is a report after which the wrapped
 * result is used: "detected, not stopped".
 *
 * A sanitizer probe's object is the module's own, built with a flag the
 * kernel may lack: unless the kernel's objects get that flag too (HP_OVF_KFLAGS
 * from module/overflow/Makefile), a caught run is unsupported ("the module's
 * own object has -fsanitize=..., the kernel is not built with it: make
 * ccprobe answers what the compiler can"), followed by what the object did;
 * in trap mode the signed probe is then not fired, since its death would
 * read as a catch.
 *
 * signed_overflow is configured by CONFIG_UBSAN_SIGNED_WRAP
 * (CONFIG_UBSAN_INTEGER_WRAP from 6.15), which in 6.12 depends on BROKEN:
 * where it is not set, kernel_flags is vulnerable and not configured, a KTAP
 * skip. GCC 12 emits no check at all under -fno-strict-overflow (it
 * implies -fwrapv; the evidence counts our UBSAN sites): the probe is
 * vulnerable with known_gap set and names the compiler and flags. Clang 19
 * instruments signed arithmetic even under -fwrapv and the object reports
 * all four.
 *
 * unsigned_overflow and truncation are Clang only, and no 6.12 option adds
 * either flag to the kernel: they are never configured and kernel_flags is
 * vulnerable (a KTAP skip). From 6.15 CONFIG_UBSAN_INTEGER_WRAP (depends on
 * BROKEN) adds both, for size_t only: configured there, and kernel_flags,
 * whose operations are on unsigned int, u8 and s16, is a known gap.
 * lib/ubsan.c (6.9 on) reports unsigned overflow through the same handlers
 * as signed; it has no handler for implicit
 * conversions in 6.12, so truncation_handler.c is the module's own, which
 * prints one lib/ubsan-like report per site, "hardprobe: UBSAN:
 * implicit-conversion in .../overflow.h:<line>:<col> (the module's own
 * handler)" followed by
 * "implicit conversion from type 'int' of value 300 (32-bit, signed) to
 * type 'u8' ... changed the value to 44"; the evidence gives its call count.
 *
 * Trap mode (CONFIG_UBSAN_TRAP, not exercised by make check):
 * -fsanitize-trap=undefined covers signed overflow, so
 * signed_overflow.sanitizer is a fatal probe judged by the trap's "UBSAN:
 * integer addition overflow"; unsigned overflow and implicit conversion are
 * not in the undefined group and keep calling their handlers.
 *
 * overflow_helpers: check_*_overflow() flag the overflow, size_add() and
 * friends saturate to SIZE_MAX so the allocation fails, while the same
 * open-coded arithmetic wraps to a small size that kmalloc() grants.
 * overflow_helpers.check_overflow: check_add_overflow(INT_MAX, 1),
 * check_sub_overflow(0U, 1) and check_mul_overflow(n, 16) must return true
 * and store the wrapped value (INT_MIN, UINT_MAX, 16), and 1 + 2 must not be
 * flagged. overflow_helpers.saturate: with n = SIZE_MAX / 16 + 2, size_mul(n,
 * 16), size_add(SIZE_MAX - 8, 16), array_size(n, 16) and struct_size() of a
 * struct with 16-byte elements must all be SIZE_MAX, and kmalloc(SIZE_MAX,
 * GFP_KERNEL | __GFP_NOWARN) must fail. Control (both): the same
 * multiplication open-coded wraps to 16 with no signal, and the saturate
 * probe allocates (and frees) those 16 bytes, the buffer an overflowing size
 * computation would have handed out; if it does not wrap or the allocation
 * fails, inconclusive. Always on: no Kconfig symbol.
 */
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"
#include "overflow.h"
#include "../lib/ubsan_sites.h"

#define HP_OVF_PATH	"module/overflow/overflow.h"	/* where the checked operations are */

#ifndef HP_FLAG_WRAP
#define HP_FLAG_WRAP ""
#endif
#ifndef HP_FLAG_SIO
#define HP_FLAG_SIO ""
#endif

#ifdef __clang__
#define HP_OVF_CC "clang %d.%d.%d", __clang_major__, __clang_minor__, __clang_patchlevel__
#define HP_OVF_CLANG_MAJOR __clang_major__
#else
#define HP_OVF_CC "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__
#define HP_OVF_CLANG_MAJOR 0
#endif

/* In trap mode a signed-overflow catch oopses (Clang: the trap names it). */
#define HP_OVF_SKIND (IS_ENABLED(CONFIG_UBSAN_TRAP) ? HP_FATAL : HP_SAFE)
#define HP_OVF_SSIG (IS_ENABLED(CONFIG_UBSAN_TRAP) ?			\
		     "UBSAN: integer addition overflow" : NULL)
/* the kernel's own code is instrumented only with CONFIG_UBSAN_SIGNED_WRAP (INTEGER_WRAP) */
#define HP_OVF_KTRAP (IS_ENABLED(CONFIG_UBSAN_TRAP) && HP_CONFIG_INTEGER_WRAP)
#define HP_OVF_KKIND (HP_OVF_KTRAP ? HP_FATAL : HP_SAFE)
#define HP_OVF_KSIG (HP_OVF_KTRAP ? "UBSAN: integer addition overflow" : NULL)

/* one operation: what it is, the report line naming it, the wrapped result */
struct hp_ovf_op {
	const char *what;
	const char *needle;
	const char *alt;	/* another spelling of the report, or NULL */
	long long want;
	const char *wrapped;
};

static const struct hp_ovf_op hp_ovf_sops[HP_OVF_NR_SOP] = {
	[HP_OVF_SADD] = { "INT_MAX + 1", "2147483647 + 1 cannot be represented", NULL,
			  INT_MIN, "INT_MIN" },
	[HP_OVF_SSUB] = { "INT_MIN - 1", "-2147483648 - 1 cannot be represented", NULL,
			  INT_MAX, "INT_MAX" },
	[HP_OVF_SMUL] = { "65536 * 65536", "65536 * 65536 cannot be represented", NULL,
			  0, "0" },
	[HP_OVF_SNEG] = { "-INT_MIN", "negation of -2147483648 cannot be represented",
			  "0 - -2147483648 cannot be represented", INT_MIN, "INT_MIN" },
};

static const struct hp_ovf_op hp_ovf_uops[HP_OVF_NR_UOP] = {
	[HP_OVF_UADD] = { "UINT_MAX + 1", "4294967295 + 1 cannot be represented", NULL,
			  0, "0" },
	[HP_OVF_USUB] = { "0U - 1", "0 - 1 cannot be represented", NULL,
			  UINT_MAX, "UINT_MAX" },
	[HP_OVF_UMUL] = { "65536U * 65536", "65536 * 65536 cannot be represented", NULL,
			  0, "0" },
};

static const struct hp_ovf_op hp_ovf_cops[HP_OVF_NR_COP] = {
	[HP_OVF_TRUNC_U8] = { "(u8)300", "of value 300 (", NULL, 44, "44" },
	[HP_OVF_TRUNC_S16] = { "(s16)40000", "of value 40000 (", NULL, -25536, "-25536" },
	[HP_OVF_SIGN] = { "(unsigned int)-1", "of value -1 (", NULL, UINT_MAX, "4294967295" },
};

/* the operations built with the kernel's own flags */
static noinline long long hp_ovf_sop_kernel(unsigned int op)
{
	return hp_ovf_sop_do(op);
}

static noinline long long hp_ovf_uop_kernel(unsigned int op)
{
	return hp_ovf_uop_do(op);
}

static noinline long long hp_ovf_cop_kernel(unsigned int op)
{
	return hp_ovf_cop_do(op);
}

/* the sanitized ones, where Makefile built them */
#ifdef HP_OVF_SIO
static long long hp_ovf_sop_san(unsigned int op)
{
	return hp_ovf_sop_sanitized(op);
}
#endif
#ifdef HP_OVF_UIO
static long long hp_ovf_uop_san(unsigned int op)
{
	return hp_ovf_uop_sanitized(op);
}
#endif
#ifdef HP_OVF_TRUNC
static long long hp_ovf_cop_san(unsigned int op)
{
	return hp_ovf_cop_sanitized(op);
}
#endif

struct hp_ovf_probe {
	const char *name;
	const struct hp_ovf_op *ops;
	unsigned int n;
	long long (*fn)(unsigned int op);
	bool lib_ubsan;		/* reports come from lib/ubsan.c (a WARN-like report) */
	char *first;		/* the first report seen, kept across runs */
};

/* the operations' results and which were reported */
struct hp_ovf_seen {
	unsigned int reported, wrong;
	int sites, suppressed;
	char line[160];
	char list[128];
};

static void hp_ovf_do(const struct hp_ovf_probe *pb, struct hp_ovf_seen *s)
{
	static unsigned int seq;
	const char *needles[1 + 2 * HP_OVF_NR_SOP];
	bool found[1 + 2 * HP_OVF_NR_SOP];
	long long got[HP_OVF_NR_SOP];
	char marker[64];
	unsigned int i;
	size_t off = 0;
	void *kt;

	memset(s, 0, sizeof(*s));
	s->sites = hp_ubsan_rearm(HP_OVF_PATH, &s->suppressed);
	snprintf(marker, sizeof(marker), "hardprobe: %s [%u]", pb->name, ++seq);
	pr_info("%s: %u operations that overflow\n", marker, pb->n);
	/* a report fails the running KUnit case: here it is the evidence */
	kt = hp_ubsan_hide_kunit();
	for (i = 0; i < pb->n; i++)
		got[i] = pb->fn(i);
	hp_ubsan_restore_kunit(kt);
	/* one pass over the log: the first report's site, each operation's line */
	needles[0] = "overflow.h:";
	for (i = 0; i < pb->n; i++) {
		needles[1 + 2 * i] = pb->ops[i].needle;
		needles[2 + 2 * i] = pb->ops[i].alt;
	}
	hp_log_find_all(marker, needles, 1 + 2 * pb->n, found, s->line, sizeof(s->line));
	for (i = 0; i < pb->n; i++) {
		const struct hp_ovf_op *op = &pb->ops[i];
		bool rep = found[1 + 2 * i] || found[2 + 2 * i];

		s->reported += rep;
		if (got[i] != op->want) {
			s->wrong++;
			off += scnprintf(s->list + off, sizeof(s->list) - off,
					 "%s%s = %lld, not %s", off ? ", " : "", op->what,
					 got[i], op->wrapped);
		} else if (!rep) {
			off += scnprintf(s->list + off, sizeof(s->list) - off, "%s%s = %s",
					 off ? ", " : "", op->what, op->wrapped);
		}
	}
}

/* "UBSAN: <check> in <path>/module/overflow.h:40:12 ..." -> "UBSAN: <check> in overflow.h:40:12" */
static void hp_ovf_site(char *line, char *out, size_t len)
{
	char *u = strstr(line, "UBSAN: "), *in = strstr(line, " in ");
	char *file = strstr(line, "overflow.h:"), *sp;

	if (!u || !in || !file || in > file || u > in) {
		strscpy(out, line, len);
		return;
	}
	in[4] = '\0';
	sp = strchr(file, ' ');
	if (sp)
		*sp = '\0';
	snprintf(out, len, "%s%s", u, file);
}

/* what Makefile found: the compiler takes the flag (_CC), the object is built */
#ifdef HP_OVF_CC_SIO
#define HP_OVF_SIO_CC	true
#else
#define HP_OVF_SIO_CC	false
#endif
#ifdef HP_OVF_CC_UIO
#define HP_OVF_UIO_CC	true
#else
#define HP_OVF_UIO_CC	false
#endif
#ifdef HP_OVF_CC_TRUNC
#define HP_OVF_TRUNC_CC	true
#else
#define HP_OVF_TRUNC_CC	false
#endif
#ifdef HP_OVF_UIO
#define HP_OVF_UIO_BUILT true
#else
#define HP_OVF_UIO_BUILT false
#endif
#ifdef HP_OVF_TRUNC
#define HP_OVF_TRUNC_BUILT true
#else
#define HP_OVF_TRUNC_BUILT false
#endif

static const char *hp_ovf_cc(void)
{
	static char cc[24];

	snprintf(cc, sizeof(cc), HP_OVF_CC);
	return cc;
}

/*
 * why a sanitized object was not built: no UBSAN runtime, the flag rejected,
 * or both; or, for a sanitizer reporting through lib/ubsan.c's arithmetic
 * handlers (@arith), a runtime without them (HP_OVF_NO_RT, before 6.9)
 */
static void __maybe_unused hp_ovf_unbuilt(struct hp_result *r, const char *flag,
					  bool accepted, bool arith)
{
	bool ubsan = IS_ENABLED(CONFIG_UBSAN);

#ifdef HP_OVF_NO_RT
	if (ubsan && accepted && arith) {
		hp_set(r, HP_UNSUPPORTED,
		       "this kernel's UBSAN runtime has no arithmetic overflow handlers (lib/ubsan.c: 6.9 on)");
		return;
	}
#endif
	hp_set(r, HP_UNSUPPORTED, "%s%s%s%s%s",
	       ubsan ? "" : "no UBSAN runtime in this kernel (CONFIG_UBSAN=n)",
	       !ubsan && !accepted ? "; " : "", accepted ? "" : flag,
	       accepted ? "" : ": flag rejected by ", accepted ? "" : hp_ovf_cc());
}

/*
 * Run @pb and judge: every operation reported = protected, none = vulnerable
 * (a known gap if @gap says why), some = vulnerable. A result that did not
 * wrap means the operation did not overflow: the control failed.
 */
static void hp_ovf_judge(struct hp_result *r, const struct hp_ovf_probe *pb,
			 const char *flags, const char *gap)
{
	struct hp_ovf_seen s;

	if (pb->lib_ubsan && !IS_ENABLED(CONFIG_UBSAN_TRAP) && hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED, "panic_on_warn is set: a UBSAN report would panic");
		return;
	}
	hp_ovf_do(pb, &s);
	if (s.wrong) {
		hp_set(r, HP_INCONCLUSIVE, "control: the operations did not wrap as expected: %s",
		       s.list);
		return;
	}
	if (s.reported == pb->n && s.line[0]) {
		char site[96];

		hp_ovf_site(s.line, site, sizeof(site));
		snprintf(pb->first, HP_EVIDENCE_LEN, "%u/%u reported: \"%s\"", s.reported,
			 pb->n, site);
		/* a report, and the wrapped result is used: caught and went on */
		r->went_on = true;
		hp_set(r, HP_PROTECTED, "detected, not stopped: %s (%s); results still wrap%s",
		       pb->first, flags,
		       s.suppressed ? "; our sites that had reported before re-armed" : "");
		return;
	}
	if (!s.reported && s.sites <= 0 && pb->first[0]) {
		/* could not re-arm (built in): the one report per site came earlier */
		r->went_on = true;
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: reported once per site, earlier: %s", pb->first);
		return;
	}
	r->known_gap = !s.reported && gap;
	hp_set(r, HP_VULNERABLE, "%u/%u reported (%s): %s unreported%s%s", s.reported, pb->n,
	       flags, s.list, r->known_gap ? "; known gap: " : "", r->known_gap ? gap : "");
}

#ifndef HP_OVF_KFLAGS
#define HP_OVF_KFLAGS ""
#endif

/*
 * A sanitizer probe's object is the module's own, built with @flag: its
 * reports show what the compiler can. Unless the kernel itself is built with
 * @flag (HP_OVF_KFLAGS: the overflow sanitizers kbuild gives every object),
 * they protect nothing of the kernel's: the verdict is then not protected.
 */
static bool hp_ovf_kernel_has(const char *flag)
{
	return strstr(HP_OVF_KFLAGS, flag);
}

static void __maybe_unused hp_ovf_own(struct hp_result *r, const char *flag,
				      const char *what, const char *ev)
{
	r->went_on = false;
	hp_set(r, HP_UNSUPPORTED,
	       "the module's own object has %s, the kernel is not built with it: make ccprobe answers what the compiler can; %s%s",
	       flag, what, ev);
}

static void __maybe_unused hp_ovf_own_flag(struct hp_result *r, const char *flag)
{
	char ev[HP_EVIDENCE_LEN];

	if (r->outcome != HP_PROTECTED || hp_ovf_kernel_has(flag))
		return;
	strscpy(ev, r->evidence, sizeof(ev));
	hp_ovf_own(r, flag, "the object: ", ev);
}

static void hp_signed_overflow_kernel_flags(struct hp_result *r)
{
	static char first[HP_EVIDENCE_LEN];
	const struct hp_ovf_probe pb = {
		"signed_overflow.kernel_flags", hp_ovf_sops, HP_OVF_NR_SOP, hp_ovf_sop_kernel,
		HP_FLAG_SIO[0], first,
	};
	char flags[96], gap[96];

	snprintf(flags, sizeof(flags), "kernel flags: %s, %s",
		 HP_FLAG_WRAP[0] ? HP_FLAG_WRAP : "no -fno-strict-overflow",
		 HP_FLAG_SIO[0] ? HP_FLAG_SIO : "no -fsanitize=signed-integer-overflow");
	snprintf(gap, sizeof(gap), HP_OVF_CC);
	strlcat(gap, " emits no check under -fno-strict-overflow", sizeof(gap));
	hp_ovf_judge(r, &pb, flags,
		     HP_FLAG_SIO[0] && (!HP_OVF_CLANG_MAJOR || HP_OVF_CLANG_MAJOR < 19) ?
		     gap : NULL);
}

static void hp_signed_overflow_sanitizer(struct hp_result *r)
{
#ifdef HP_OVF_SIO
	static char first[HP_EVIDENCE_LEN];
	const struct hp_ovf_probe pb = {
		"signed_overflow.sanitizer", hp_ovf_sops, HP_OVF_NR_SOP, hp_ovf_sop_san,
		true, first,
	};
	char flags[96], gap[112];
	int sites, supp;

	/* in trap mode a catch kills the task, and the fatal judge would say protected */
	if (IS_ENABLED(CONFIG_UBSAN_TRAP) &&
	    !hp_ovf_kernel_has("-fsanitize=signed-integer-overflow")) {
		hp_ovf_own(r, "-fsanitize=signed-integer-overflow", "not run (trap mode)", "");
		return;
	}
	snprintf(flags, sizeof(flags), "%s -fsanitize=signed-integer-overflow",
		 HP_FLAG_WRAP[0] ? HP_FLAG_WRAP : "kernel flags");
	/* how many checks the compiler left in the module (all objects) */
	sites = hp_ubsan_rearm(HP_OVF_PATH, &supp);
	snprintf(gap, sizeof(gap), HP_OVF_CC);
	scnprintf(gap + strlen(gap), sizeof(gap) - strlen(gap),
		  " emits no check under -fno-strict-overflow: %d UBSAN sites", sites);
	hp_ovf_judge(r, &pb, flags,
		     !HP_OVF_CLANG_MAJOR || HP_OVF_CLANG_MAJOR < 19 ? gap : NULL);
	hp_ovf_own_flag(r, "-fsanitize=signed-integer-overflow");
#else
	hp_ovf_unbuilt(r, "-fsanitize=signed-integer-overflow", HP_OVF_SIO_CC, true);
#endif
}

/* what the kernel's flags add for unsigned overflow and truncation */
static const char *hp_ovf_wrap_flags(void)
{
	if (!HP_WRAP_SIZE_T)
		return "kernel flags: no " HP_KVER_STR " option adds the sanitizer";
	return HP_CONFIG_INTEGER_WRAP ?
	       "kernel flags: " HP_SYM_INTEGER_WRAP "=y, which sanitizes size_t only" :
	       "kernel flags: " HP_SYM_INTEGER_WRAP "=n (" HP_WRAP_NOTE ")";
}

/*
 * With INTEGER_WRAP the kernel's flags cover size_t only: our operations
 * (unsigned int, conversions to u8 and s16) go unreported by design.
 */
static const char *hp_ovf_size_t_gap(void)
{
	/* scripts/integer-wrap-ignore.scl */
	static const char gap[] = "the kernel checks size_t only: unsigned int, u8, s16 here";

	return HP_WRAP_SIZE_T && HP_CONFIG_INTEGER_WRAP ? gap : NULL;
}

static void hp_unsigned_overflow_kernel_flags(struct hp_result *r)
{
	static char first[HP_EVIDENCE_LEN];
	const struct hp_ovf_probe pb = {
		"unsigned_overflow.kernel_flags", hp_ovf_uops, HP_OVF_NR_UOP, hp_ovf_uop_kernel,
		false, first,
	};

	hp_ovf_judge(r, &pb, hp_ovf_wrap_flags(), hp_ovf_size_t_gap());
}

static void hp_unsigned_overflow_sanitizer(struct hp_result *r)
{
#ifdef HP_OVF_UIO
	static char first[HP_EVIDENCE_LEN];
	const struct hp_ovf_probe pb = {
		"unsigned_overflow.sanitizer", hp_ovf_uops, HP_OVF_NR_UOP, hp_ovf_uop_san,
		true, first,
	};

	hp_ovf_judge(r, &pb, "+ -fsanitize=unsigned-integer-overflow", NULL);
	hp_ovf_own_flag(r, "-fsanitize=unsigned-integer-overflow");
#else
	hp_ovf_unbuilt(r, "-fsanitize=unsigned-integer-overflow", HP_OVF_UIO_CC, true);
#endif
}

static void hp_truncation_kernel_flags(struct hp_result *r)
{
	static char first[HP_EVIDENCE_LEN];
	const struct hp_ovf_probe pb = {
		"truncation.kernel_flags", hp_ovf_cops, HP_OVF_NR_COP, hp_ovf_cop_kernel,
		false, first,
	};

	hp_ovf_judge(r, &pb, hp_ovf_wrap_flags(), hp_ovf_size_t_gap());
}

static void hp_truncation_sanitizer(struct hp_result *r)
{
#ifdef HP_OVF_TRUNC
	static char first[HP_EVIDENCE_LEN];
	const struct hp_ovf_probe pb = {
		"truncation.sanitizer", hp_ovf_cops, HP_OVF_NR_COP, hp_ovf_cop_san,
		false, first,
	};
	unsigned int calls = hp_ovf_conversions();
	char note[96];

	hp_ovf_judge(r, &pb, "+ -fsanitize=implicit-conversion", NULL);
	hp_ovf_own_flag(r, "-fsanitize=implicit-conversion");
	/* lib/ubsan.c in 6.12 has no __ubsan_handle_implicit_conversion */
	snprintf(note, sizeof(note), "; the module's own handler (the kernel has none): %u calls",
		 hp_ovf_conversions() - calls);
	strlcat(r->evidence, note, sizeof(r->evidence));
#else
	hp_ovf_unbuilt(r, "-fsanitize=implicit-conversion", HP_OVF_TRUNC_CC, false);
#endif
}

/*
 * overflow_helpers: n * 16 with n = SIZE_MAX / 16 + 2 is 2^N + 16, which an
 * open-coded multiplication wraps to 16.
 */
#define HP_OVF_ESZ	16

struct hp_ovf_elem {
	u8 b[HP_OVF_ESZ];
};

struct hp_ovf_flex {
	u64 count;
	struct hp_ovf_elem e[];
};

static void hp_overflow_helpers_check_overflow(struct hp_result *r)
{
	size_t n = SIZE_MAX / HP_OVF_ESZ + 2, esz = HP_OVF_ESZ, z = 0, wrap;
	int imax = INT_MAX, one = 1, s = 0, small = 0;
	unsigned int uzero = 0, u = 0;
	bool add, sub, mul, ok;

	OPTIMIZER_HIDE_VAR(n);
	OPTIMIZER_HIDE_VAR(imax);
	OPTIMIZER_HIDE_VAR(uzero);
	add = check_add_overflow(imax, one, &s);
	sub = check_sub_overflow(uzero, 1U, &u);
	mul = check_mul_overflow(n, esz, &z);
	ok = !check_add_overflow(one, 2, &small) && small == 3;
	/* control: the same multiplication open-coded wraps without a word */
	wrap = n * esz;
	if (wrap != HP_OVF_ESZ || !ok) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: open-coded n * %zu = %zu (want %d), 1 + 2 = %d", esz, wrap,
		       HP_OVF_ESZ, small);
		return;
	}
	hp_set(r, add && sub && mul && s == INT_MIN && u == UINT_MAX && z == HP_OVF_ESZ ?
	       HP_PROTECTED : HP_VULNERABLE,
	       "check_add_overflow(INT_MAX, 1) %s, stored %d; check_sub_overflow(0U, 1) %s, stored %u; check_mul_overflow(n, 16) %s, stored %zu; control: open-coded n * 16 = %zu, no signal; 1 + 2 not flagged",
	       add ? "true" : "FALSE", s, sub ? "true" : "FALSE", u, mul ? "true" : "FALSE", z,
	       wrap);
}

static void hp_overflow_helpers_saturate(struct hp_result *r)
{
	size_t n = SIZE_MAX / HP_OVF_ESZ + 2, big = SIZE_MAX - 8, esz = HP_OVF_ESZ;
	size_t mul, add, arr, st, wrap, swrap;
	struct hp_ovf_flex *p = NULL;
	void *huge, *ctl;

	OPTIMIZER_HIDE_VAR(n);
	OPTIMIZER_HIDE_VAR(big);
	mul = size_mul(n, esz);
	add = size_add(big, esz);
	arr = array_size(n, esz);
	st = struct_size(p, e, n);
	/* control: the same sizes open-coded wrap to small ones */
	wrap = n * esz;
	swrap = sizeof(*p) + n * sizeof(p->e[0]);
	ctl = kmalloc(wrap, GFP_KERNEL);
	if (wrap != HP_OVF_ESZ || !ctl) {
		kfree(ctl);
		hp_set(r, HP_INCONCLUSIVE, "control: open-coded n * 16 = %zu, kmalloc of it %s",
		       wrap, ctl ? "succeeded" : "failed");
		return;
	}
	kfree(ctl);
	OPTIMIZER_HIDE_VAR(mul);
	huge = kmalloc(mul, GFP_KERNEL | __GFP_NOWARN);
	kfree(huge);
	hp_set(r, mul == SIZE_MAX && add == SIZE_MAX && arr == SIZE_MAX && st == SIZE_MAX &&
	       !huge ? HP_PROTECTED : HP_VULNERABLE,
	       "size_mul, size_add, array_size, struct_size = %s, %s, %s, %s; kmalloc(size_mul) %s; control: open-coded n * 16 = %zu, struct size %zu, kmalloc(%zu) succeeded (freed)",
	       mul == SIZE_MAX ? "SIZE_MAX" : "wrapped", add == SIZE_MAX ? "SIZE_MAX" : "wrapped",
	       arr == SIZE_MAX ? "SIZE_MAX" : "wrapped", st == SIZE_MAX ? "SIZE_MAX" : "wrapped",
	       huge ? "SUCCEEDED" : "failed", wrap, swrap, wrap);
}

static const char *hp_ovf_mode(void)
{
	if (!IS_ENABLED(CONFIG_UBSAN))
		return "no UBSAN runtime (CONFIG_UBSAN=n)";
	return IS_ENABLED(CONFIG_UBSAN_TRAP) ? "trap mode: a signed-overflow catch oopses" :
	       "warn mode: lib/ubsan.c reports a site once, the result wraps";
}

static void hp_ovf_signed_layers(struct hp_layers *l)
{
	l->configured = HP_CONFIG_INTEGER_WRAP;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 HP_SYM_INTEGER_WRAP
		 "=%s (" HP_WRAP_NOTE "), CONFIG_UBSAN=%s, CONFIG_UBSAN_TRAP=%s",
		 l->configured ? "y" : "n", IS_ENABLED(CONFIG_UBSAN) ? "y" : "n",
		 IS_ENABLED(CONFIG_UBSAN_TRAP) ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "kernel flags: %s%s%s; %s (%s)",
		 HP_FLAG_WRAP[0] ? HP_FLAG_WRAP : "no -fno-strict-overflow",
		 HP_FLAG_SIO[0] ? " " : "", HP_FLAG_SIO,
#ifdef HP_OVF_SIO
		 "sanitized object: + -fsanitize=signed-integer-overflow",
#else
		 "no sanitized object",
#endif
		 hp_ovf_cc());
	hp_layer(l->active, sizeof(l->active), "%s", hp_ovf_mode());
}

static void hp_ovf_clang_layers(struct hp_layers *l, const char *flag, bool built,
				bool accepted)
{
	l->configured = HP_WRAP_SIZE_T && HP_CONFIG_INTEGER_WRAP;
	if (HP_WRAP_SIZE_T)
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 HP_SYM_INTEGER_WRAP "=%s (" HP_WRAP_NOTE
			 "): adds %s for size_t only (Clang only)",
			 l->configured ? "y" : "n", flag);
	else
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "no " HP_KVER_STR " option adds %s (Clang only)", flag);
	hp_layer(l->built, sizeof(l->built), "%s %s by %s%s", flag,
		 accepted ? "accepted" : "rejected", hp_ovf_cc(),
		 built ? "; sanitized object built" :
		 accepted ? "; no sanitized object (no UBSAN runtime)" : "");
}

static void hp_ovf_unsigned_layers(struct hp_layers *l)
{
	hp_ovf_clang_layers(l, "-fsanitize=unsigned-integer-overflow",
			    HP_OVF_UIO_BUILT, HP_OVF_UIO_CC);
	hp_layer(l->active, sizeof(l->active), "%s", hp_ovf_mode());
}

static void hp_ovf_trunc_layers(struct hp_layers *l)
{
	hp_ovf_clang_layers(l, "-fsanitize=implicit-conversion",
			    HP_OVF_TRUNC_BUILT, HP_OVF_TRUNC_CC);
	if (HP_WRAP_SIZE_T)
		hp_layer(l->active, sizeof(l->active), "%s",
			 "reports by the module's own handler (lib/ubsan.c has one since 6.15, for the kernel's size_t checks)");
	else
		hp_layer(l->active, sizeof(l->active), "%s",
			 "reports by the module's own handler: lib/ubsan.c in " HP_KVER_STR
			 " has no __ubsan_handle_implicit_conversion");
}

static void hp_ovf_helpers_layers(struct hp_layers *l)
{
	l->configured = true;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "always on (include/linux/overflow.h, no Kconfig symbol)");
	hp_layer(l->built, sizeof(l->built),
		 "__builtin_*_overflow() and saturating size helpers (%s)", hp_ovf_cc());
	hp_layer(l->active, sizeof(l->active), "a SIZE_MAX allocation fails");
}

static const struct hp_probe hp_probes_signed_overflow[] = {
	HP_PROBE(signed_overflow, sanitizer, HP_OVF_SKIND,
		 .signature = HP_OVF_SSIG, .warns = HP_OVF_NR_SOP, .reports = "UBSAN:"),
	/*
	 * LKDTM's signed and unsigned additions are built with the kernel's
	 * flags: paired with the probes built with those flags, not the ones
	 * built with the sanitizer forced on.
	 */
	HP_PROBE(signed_overflow, kernel_flags, HP_OVF_KKIND,
		 .signature = HP_OVF_KSIG, .warns = HP_OVF_NR_SOP, .reports = "UBSAN:",
		 .lkdtm = HP_LIST("OVERFLOW_SIGNED")),
};

HP_FEATURE(signed_overflow, .layers = hp_ovf_signed_layers);

static const struct hp_probe hp_probes_unsigned_overflow[] = {
	HP_PROBE(unsigned_overflow, sanitizer, HP_SAFE, .warns = HP_OVF_NR_UOP,
		 .reports = "UBSAN:"),
	HP_PROBE(unsigned_overflow, kernel_flags, HP_SAFE, .warns = HP_OVF_NR_UOP,
		 .reports = "UBSAN:",
		 .lkdtm = HP_LIST("OVERFLOW_UNSIGNED")),
};

HP_FEATURE(unsigned_overflow, .layers = hp_ovf_unsigned_layers);

static const struct hp_probe hp_probes_truncation[] = {
	HP_PROBE(truncation, sanitizer, HP_SAFE, .warns = HP_OVF_NR_COP,
		 .reports = "UBSAN:"),
	HP_PROBE(truncation, kernel_flags, HP_SAFE, .warns = HP_OVF_NR_COP,
		 .reports = "UBSAN:"),
};

HP_FEATURE(truncation, .layers = hp_ovf_trunc_layers);

static const struct hp_probe hp_probes_overflow_helpers[] = {
	HP_PROBE(overflow_helpers, check_overflow, HP_SAFE),
	HP_PROBE(overflow_helpers, saturate, HP_SAFE),
};

HP_FEATURE(overflow_helpers, .layers = hp_ovf_helpers_layers);
