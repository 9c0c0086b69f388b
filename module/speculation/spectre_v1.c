// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe spectre_v1, slh: a bounds-check-bypass gadget timed with
 * flush+reload, and the code the compiler's speculative load hardening
 * emits.
 *
 * The gadget is "if (idx < *len) y = probe[array[idx] * 4096]". A round
 * flushes the 256 probe lines, calls the gadget 30 times with *len flushed
 * before each call, every sixth call out of bounds (the others train the
 * branch), then times a load of each probe line. The out-of-bounds index
 * points at a secret byte in the same allocation as the array: the gadget
 * never reads memory that is not ours, architecturally or speculatively.
 * The secret is a fresh random byte every round, and the training bytes
 * are all 0, whose line is not a candidate. A round "hits" a line when it
 * is strictly the fastest of the other 255 and not slower than the
 * threshold (half way between the medians of 64 timed cached and 64 timed
 * flushed loads); a tie counts for no line. x86_64 flushes with clflush and
 * mfence and times with "lfence; rdtsc; lfence" around the load; arm64
 * flushes with "dc civac" and "dsb ish; isb" and reads CNTVCT_EL0 between
 * "dsb ish; isb" pairs (the counter's frequency and the length of a tick are
 * in the evidence: the counter is far coarser than a CPU cycle, so a hit may
 * only show as 0 ticks against 1-3). The gadgets are called directly: a
 * retpoline or kCFI check in the loop would only add noise. 200 rounds a
 * variant, interrupts off during each round, and a 250 ms budget per probe
 * (the rounds done are in the evidence).
 *
 * A variant leaks when the secret's line was the hit in at least a tenth
 * of the rounds and in more than twice as many rounds as any other line
 * (the best other line is the noise floor).
 *
 * Outcomes: spectre_v1.control runs the unprotected gadget alone; if it
 * leaks, it reports vulnerable as a known gap (a bounds check without
 * array_index_nospec() is a gadget: the kernel mitigates the sites it
 * annotates, not all bounds checks), else inconclusive. spectre_v1.nospec
 * and spectre_v1.slh run the control and their own variant in alternate
 * rounds: inconclusive when the control leaks nothing (QEMU TCG does not
 * speculate), else protected if the variant does not leak, vulnerable if
 * it does. An emulator that does not speculate, or whose cache flushes change
 * no load time, leaves the control silent: the hit rates and the cached and
 * flushed load times are the evidence, and a real answer needs the module
 * loaded on the machine itself. spectre_v1.slh is unsupported with GCC (no
 * -mspeculative-load-hardening) and on x86_64 (see slh below: the gadget
 * would load through a pointer poisoned to -1, so it is never called there).
 * Layers: configured is CONFIG_MITIGATION_SPECTRE_V1 on x86_64 (the swapgs
 * barriers; array_index_nospec() is always built) and always on arm64;
 * active is /sys/devices/system/cpu/vulnerabilities/spectre_v1, which the
 * kselftest checks too (spectre_v1_sysfs).
 *
 * slh.masking reads the loaded code of the functions built with
 * -mspeculative-load-hardening and of their twin built without it, and
 * counts what the pass emits: the predicate state taken from the stack
 * pointer at entry (x86: "mov %rsp; sar $63", arm64: "cmp sp, #0; csetm
 * x16"), the state updated after a branch (cmov, csel x16), and merged
 * back into the stack pointer (x86: "or reg, %rsp") or into loaded values
 * (arm64: "and reg, x16" + csdb). On arm64 it also calls an SLH-built load
 * with in-bounds indices. On x86 the state comes from bit 63 of %rsp, which
 * every kernel stack address has set, so kernel code would start
 * "misspeculated": its loads poisoned on the correct path and the poison
 * merged into %rsp before each ret (a corrupt stack pointer with 5-level
 * paging). There the probe reads that bit of its own stack pointer and
 * never calls SLH code.
 *
 * slh is never configured: no Kconfig option builds the kernel with
 * -mspeculative-load-hardening (it uses array_index_nospec() instead). With
 * GCC neither SLH object is built (Makefile) and the probes say unsupported,
 * "flag rejected by gcc". The twin must show none of the pass's marks, else
 * inconclusive; SLH code without them is vulnerable (the flag accepted,
 * nothing emitted). On x86_64 SLH code runs misspeculated (not called): x86 SLH
 * cannot protect kernel code, and slh.masking is unsupported (for the same
 * reason the bench's SLH cost pair is built on arm64 only). On arm64 both
 * hold, but slh_hardened.o is the module's own object: unless the kernel's
 * code has SLH too (kstrtoull(), memparse() and sort() read for the same
 * marks, as in a kernel built with the flag through KCFLAGS), a protected
 * verdict becomes unsupported ("the module's own object has
 * -mspeculative-load-hardening, the kernel is not built with it ...: make
 * ccprobe answers what the compiler can"); the same rule applies to
 * spectre_v1.slh.
 */
#include <linux/bitops.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_ARM64
#include <asm/sysreg.h>
#endif

#include "../hardprobe.h"
#include "spectre_v1.h"

#define HP_SPECTRE_V1	"/sys/devices/system/cpu/vulnerabilities/spectre_v1"

#define HP_V1_LEN	16	/* in-bounds bytes, all HP_V1_TRAIN */
#define HP_V1_TRAIN	0
#define HP_V1_SECRET	160	/* offset of the secret byte in lab->buf */
#define HP_V1_ROUNDS	200
#define HP_V1_CALLS	30	/* per round: every sixth out of bounds */
#define HP_V1_CAL	64	/* timed loads per calibration side */
#define HP_V1_BUDGET_NS	(250 * NSEC_PER_MSEC)

#ifdef CONFIG_X86_64
#define HP_V1_UNIT	"cycles"

static __always_inline void hp_v1_flush(const void *p)
{
	asm volatile("clflush %0" : : "m" (*(const char *)p) : "memory");
}

static __always_inline void hp_v1_fence(void)
{
	asm volatile("mfence" : : : "memory");
}

/* lfence before: earlier loads are done; after: later ones have not started */
static __always_inline u64 hp_v1_now(void)
{
	u32 lo, hi;

	asm volatile("lfence; rdtsc; lfence" : "=a" (lo), "=d" (hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

static void hp_v1_clock(char *buf, size_t len)
{
	snprintf(buf, len, "TSC");
}

#elif defined(CONFIG_ARM64)
#define HP_V1_UNIT	"ticks"

static __always_inline void hp_v1_flush(const void *p)
{
	asm volatile("dc civac, %0" : : "r" (p) : "memory");
}

static __always_inline void hp_v1_fence(void)
{
	asm volatile("dsb ish; isb" : : : "memory");
}

/* dsb: earlier loads are done; isb: the counter is read in program order */
static __always_inline u64 hp_v1_now(void)
{
	u64 t;

	asm volatile("dsb ish; isb; mrs %0, cntvct_el0; isb" : "=r" (t) : : "memory");
	return t;
}

static void hp_v1_clock(char *buf, size_t len)
{
	u64 f = read_sysreg(cntfrq_el0);

	snprintf(buf, len, "CNTVCT %llu kHz, %llu ps a tick", f / 1000,
		 f ? 1000000000000ULL / f : 0);
}

#else
#define HP_V1_NO_TIMER
#endif

#ifndef HP_V1_NO_TIMER

struct hp_v1_score {
	unsigned int rounds, secret;
	unsigned int line[256];
};

struct hp_v1_lab {
	unsigned long len ____cacheline_aligned;
	u8 buf[256] ____cacheline_aligned;
	struct hp_v1 v;
	u8 *probe;
	u64 t[256];
	u64 cal_hit[HP_V1_CAL], cal_miss[HP_V1_CAL];
	u64 hit, miss, threshold;
	struct hp_v1_score ctl, var;
	u8 sink;
};

static __always_inline u64 hp_v1_time_load(const u8 *p)
{
	u64 t0 = hp_v1_now();

	(void)READ_ONCE(*p);
	return hp_v1_now() - t0;
}

static int hp_v1_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* medians of a timed cached load and a timed flushed one; the threshold half way */
static void hp_v1_calibrate(struct hp_v1_lab *lab)
{
	const u8 *p = lab->probe + 17 * HP_V1_STRIDE;
	unsigned long flags;
	unsigned int k;

	local_irq_save(flags);
	for (k = 0; k < HP_V1_CAL; k++) {
		(void)READ_ONCE(*p);
		lab->cal_hit[k] = hp_v1_time_load(p);
		hp_v1_flush(p);
		hp_v1_fence();
		lab->cal_miss[k] = hp_v1_time_load(p);
	}
	local_irq_restore(flags);
	sort(lab->cal_hit, HP_V1_CAL, sizeof(u64), hp_v1_u64_cmp, NULL);
	sort(lab->cal_miss, HP_V1_CAL, sizeof(u64), hp_v1_u64_cmp, NULL);
	lab->hit = lab->cal_hit[HP_V1_CAL / 2];
	lab->miss = lab->cal_miss[HP_V1_CAL / 2];
	lab->threshold = lab->miss > lab->hit ? lab->hit + (lab->miss - lab->hit) / 2 :
			 lab->hit;
}

enum hp_v1_variant { HP_V1_CTL, HP_V1_NOSPEC, HP_V1_SLH };

/* direct calls: an indirect one would go through a retpoline and kCFI */
static __always_inline u8 hp_v1_call(enum hp_v1_variant w, const struct hp_v1 *v,
				     unsigned long idx)
{
	switch (w) {
	case HP_V1_NOSPEC:
		return hp_v1_gadget_nospec(v, idx);
#ifdef HP_SLH
	case HP_V1_SLH:
		return hp_v1_gadget_slh(v, idx);
#endif
	default:
		return hp_v1_gadget_ctl(v, idx);
	}
}

/*
 * One round of train, flush, attack, reload on gadget @w (file comment). A
 * round counts only when one line is strictly the fastest: under an
 * emulator every line times the same, and a tie must not crown the first.
 */
static void hp_v1_round(struct hp_v1_lab *lab, enum hp_v1_variant w,
			struct hp_v1_score *s)
{
	unsigned long train = s->rounds % HP_V1_LEN, evil = HP_V1_SECRET, x, idx, flags;
	u8 secret = 1 + get_random_u32_below(255), sink = 0;
	unsigned int i, m, best = 1;
	u64 tbest = U64_MAX, tnext = U64_MAX;
	int j;

	WRITE_ONCE(lab->buf[HP_V1_SECRET], secret);
	local_irq_save(flags);
	for (i = 0; i < 256; i++)
		hp_v1_flush(lab->probe + i * HP_V1_STRIDE);
	hp_v1_fence();
	for (j = HP_V1_CALLS - 1; j >= 0; j--) {
		hp_v1_flush(&lab->len);
		hp_v1_fence();
		/* evil when j % 6 == 0, without a branch the predictor could learn */
		x = ((unsigned long)(j % 6) - 1) & ~0xffffUL;
		x |= x >> 16;
		idx = train ^ (x & (evil ^ train));
		sink ^= hp_v1_call(w, &lab->v, idx);
	}
	/* a scrambled order, so that no prefetcher can follow it */
	for (i = 0; i < 256; i++) {
		m = (i * 167 + 13) & 255;
		lab->t[m] = hp_v1_time_load(lab->probe + m * HP_V1_STRIDE);
	}
	local_irq_restore(flags);
	WRITE_ONCE(lab->sink, lab->sink ^ sink);
	for (m = 0; m < 256; m++) {
		if (m == HP_V1_TRAIN)
			continue;
		if (lab->t[m] < tbest) {
			tnext = tbest;
			tbest = lab->t[m];
			best = m;
		} else if (lab->t[m] < tnext) {
			tnext = lab->t[m];
		}
	}
	s->rounds++;
	if (tbest > lab->threshold || tbest == tnext)
		return;
	if (best == secret)
		s->secret++;
	else
		s->line[best]++;
}

static unsigned int hp_v1_other(const struct hp_v1_score *s)
{
	unsigned int m, n = 0;

	for (m = 0; m < 256; m++)
		n = max(n, s->line[m]);
	return n;
}

static bool hp_v1_leaks(const struct hp_v1_score *s)
{
	return s->rounds && s->secret * 10 >= s->rounds &&
	       s->secret > 2 * hp_v1_other(s);
}

static struct hp_v1_lab *hp_v1_lab_alloc(void)
{
	struct hp_v1_lab *lab = kzalloc(sizeof(*lab), GFP_KERNEL);
	unsigned int i;

	if (!lab)
		return NULL;
	lab->probe = vmalloc(256 * HP_V1_STRIDE);
	if (!lab->probe) {
		kfree(lab);
		return NULL;
	}
	/* every probe page present and distinct (no shared zero page) */
	for (i = 0; i < 256; i++)
		memset(lab->probe + i * HP_V1_STRIDE, i, HP_V1_STRIDE);
	memset(lab->buf, HP_V1_TRAIN, HP_V1_LEN);
	lab->len = HP_V1_LEN;
	lab->v.len = &lab->len;
	lab->v.array = lab->buf;
	lab->v.probe = lab->probe;
	return lab;
}

static void hp_v1_lab_free(struct hp_v1_lab *lab)
{
	if (!lab)
		return;
	vfree(lab->probe);
	kfree(lab);
}

/* control alone (@variant HP_V1_CTL) or control and @variant in alternate rounds */
static void hp_v1_run(struct hp_v1_lab *lab, enum hp_v1_variant variant)
{
	u64 deadline = ktime_get_ns() + HP_V1_BUDGET_NS;
	unsigned int r;

	hp_v1_calibrate(lab);
	for (r = 0; r < HP_V1_ROUNDS && ktime_get_ns() < deadline; r++) {
		hp_v1_round(lab, HP_V1_CTL, &lab->ctl);
		if (variant != HP_V1_CTL)
			hp_v1_round(lab, variant, &lab->var);
		cond_resched();
	}
}

/* "control leaked 0/200 rounds (best other line 3/200)" */
static int hp_v1_score_txt(char *buf, size_t len, const char *who,
			   const struct hp_v1_score *s)
{
	return snprintf(buf, len, "%s leaked %u/%u rounds (best other line %u/%u)",
			who, s->secret, s->rounds, hp_v1_other(s), s->rounds);
}

static void hp_v1_timing_txt(const struct hp_v1_lab *lab, char *buf, size_t len)
{
	char clk[64];

	hp_v1_clock(clk, sizeof(clk));
	snprintf(buf, len, "threshold %llu %s (hit %llu, miss %llu; %s)",
		 lab->threshold, HP_V1_UNIT, lab->hit, lab->miss, clk);
}

/* Why the control leaked nothing, for the inconclusive verdicts. */
static const char *hp_v1_why_not(const struct hp_v1_lab *lab)
{
	if (lab->miss <= lab->hit + 1)
		return "cached and flushed loads time the same: no side channel (emulator?)";
	return "no speculation seen (QEMU TCG does not speculate)";
}

/*
 * The verdict on @variant ("nospec", "slh") from the control and the
 * variant, which ran in alternate rounds.
 */
static void hp_v1_judge(struct hp_result *r, const struct hp_v1_lab *lab,
			const char *who)
{
	char ctl[80], var[80], tim[160];

	hp_v1_score_txt(ctl, sizeof(ctl), "control", &lab->ctl);
	hp_v1_score_txt(var, sizeof(var), who, &lab->var);
	hp_v1_timing_txt(lab, tim, sizeof(tim));
	if (!hp_v1_leaks(&lab->ctl))
		hp_set(r, HP_INCONCLUSIVE, "%s; %s; %s; %s", ctl, var, tim,
		       hp_v1_why_not(lab));
	else
		hp_set(r, hp_v1_leaks(&lab->var) ? HP_VULNERABLE : HP_PROTECTED,
		       "%s; %s; %s", var, ctl, tim);
}

/*
 * A lab for gadget @w, checked with one in-bounds call and run; NULL (with
 * @r set) if it could not be.
 */
static struct hp_v1_lab *hp_v1_start(struct hp_result *r, enum hp_v1_variant w,
				     const char *what)
{
	struct hp_v1_lab *lab = hp_v1_lab_alloc();

	if (!lab) {
		hp_set(r, HP_ERROR, "out of memory");
		return NULL;
	}
	if (hp_v1_call(w, &lab->v, 1) != HP_V1_TRAIN) {
		hp_set(r, HP_ERROR, "the in-bounds %s call returned a wrong byte", what);
		hp_v1_lab_free(lab);
		return NULL;
	}
	hp_v1_run(lab, w);
	return lab;
}

void hp_spectre_v1_control(struct hp_result *r)
{
	struct hp_v1_lab *lab = hp_v1_start(r, HP_V1_CTL, "gadget");
	char ctl[80], tim[160];

	if (!lab)
		return;
	hp_v1_score_txt(ctl, sizeof(ctl), "control", &lab->ctl);
	hp_v1_timing_txt(lab, tim, sizeof(tim));
	if (hp_v1_leaks(&lab->ctl)) {
		/* the unprotected gadget is a real gadget: not the mitigation's failure */
		r->known_gap = true;
		hp_set(r, HP_VULNERABLE,
		       "%s; %s: a bounds check without array_index_nospec() leaks on this CPU",
		       ctl, tim);
	} else {
		hp_set(r, HP_INCONCLUSIVE, "%s; %s; %s", ctl, tim, hp_v1_why_not(lab));
	}
	hp_v1_lab_free(lab);
}

void hp_spectre_v1_nospec(struct hp_result *r)
{
	struct hp_v1_lab *lab = hp_v1_start(r, HP_V1_NOSPEC, "gadget");

	if (!lab)
		return;
	hp_v1_judge(r, lab, "nospec");
	hp_v1_lab_free(lab);
}

#else /* HP_V1_NO_TIMER */

void hp_spectre_v1_control(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "no flush+reload primitives for this architecture");
}

void hp_spectre_v1_nospec(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "no flush+reload primitives for this architecture");
}

#endif /* HP_V1_NO_TIMER */

/* What the SLH pass emits, counted in machine code (file comment). */
struct hp_slh_marks {
	unsigned int state_in;	/* predicate state from the stack pointer */
	unsigned int select;	/* state updated on the flags after a branch */
	unsigned int merge;	/* state into %rsp (x86) / into a value (arm64) */
	unsigned int csdb;	/* arm64 */
};

static __maybe_unused void hp_slh_scan(const void *fn, struct hp_slh_marks *k)
{
	const u8 *p = fn;
	unsigned long i, n = hp_fn_size(fn);

	if (IS_ENABLED(CONFIG_X86_64)) {
		for (i = 0; i + 4 <= n; i++) {
			u8 rex = p[i], op = p[i + 1], m = p[i + 2];

			/* sar $63, r64: REX.W c1 /7 ib */
			if ((rex == 0x48 || rex == 0x49) && op == 0xc1 &&
			    (m & 0xf8) == 0xf8 && p[i + 3] == 0x3f)
				k->state_in++;
			/* cmovcc r64, r64: REX.W 0f 40+cc, register operands */
			if ((rex & 0xfa) == 0x48 && op == 0x0f && (m & 0xf0) == 0x40 &&
			    (p[i + 3] & 0xc0) == 0xc0)
				k->select++;
			/* or r64, %rsp: REX.W 09 /r with rm = rsp */
			if ((rex == 0x48 || rex == 0x4c) && op == 0x09 && (m & 0xc7) == 0xc4)
				k->merge++;
		}
	} else if (IS_ENABLED(CONFIG_ARM64)) {
		for (i = 0; i + 4 <= n; i += 4) {
			u32 insn = get_unaligned_le32(p + i);

			if ((insn & 0xffff0fff) == 0xda9f03f0)	/* csetm x16, cc */
				k->state_in++;
			if ((insn & 0xffff0fff) == 0x9a9f0210)	/* csel x16, x16, xzr, cc */
				k->select++;
			if ((insn & 0x7ffffc00) == 0x0a100000)	/* and reg, reg, x16 */
				k->merge++;
			if (insn == 0xd503229f)			/* csdb */
				k->csdb++;
		}
	}
}

static __maybe_unused int hp_slh_marks_txt(char *buf, size_t len,
					   const struct hp_slh_marks *k)
{
	if (!k->state_in && !k->select && !k->merge && !k->csdb)
		return snprintf(buf, len, "none");
	if (IS_ENABLED(CONFIG_X86_64))
		return snprintf(buf, len, "%u sar $63, %u cmov, %u or ,%%rsp",
				k->state_in, k->select, k->merge);
	return snprintf(buf, len, "%u csetm x16, %u csel x16, %u and x16, %u csdb",
			k->state_in, k->select, k->merge, k->csdb);
}

#ifdef HP_SLH

/*
 * Is the kernel's own code built with -mspeculative-load-hardening? No
 * Kconfig option adds it, but KCFLAGS may: read the pass's marks in a few
 * exported C functions of the kernel that branch and load. No kallsyms
 * sizes, no marks: not built (never credited on a guess).
 */
static bool hp_slh_kernel(char *buf, size_t len)
{
	static const struct { const char *name; const void *fn; } fns[] = {
		{ "kstrtoull", kstrtoull }, { "memparse", memparse }, { "sort", sort },
	};
	struct hp_slh_marks k = {};
	char marks[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fns); i++)
		hp_slh_scan(fns[i].fn, &k);
	hp_slh_marks_txt(marks, sizeof(marks), &k);
	snprintf(buf, len, "%s, %s, %s: %s", fns[0].name, fns[1].name, fns[2].name, marks);
	return k.state_in && k.select && (IS_ENABLED(CONFIG_ARM64) || k.merge);
}

/*
 * A protected verdict from slh_hardened.o, an object of the module's own
 * built with a flag the kernel may lack: it shows what the compiler can,
 * not what protects this kernel. Unless the kernel's code has SLH too, the
 * verdict is unsupported.
 */
static void hp_slh_own_object(struct hp_result *r)
{
	char ev[HP_EVIDENCE_LEN], kern[96];

	if (r->outcome != HP_PROTECTED || hp_slh_kernel(kern, sizeof(kern)))
		return;
	strscpy(ev, r->evidence, sizeof(ev));
	hp_set(r, HP_UNSUPPORTED,
	       "the module's own object has -mspeculative-load-hardening, the kernel is not built with it (%s): make ccprobe answers what the compiler can; the object: %s",
	       kern, ev);
}

/*
 * The SLH-built load and its twin called with in-bounds indices: on the
 * correct path both must return the table's values. True if they do.
 */
static bool hp_slh_state_ok(char *buf, size_t len)
{
	unsigned long sp = (unsigned long)__builtin_frame_address(0);
	unsigned long i, got, want;

	/*
	 * Never on an x86_64 kernel stack: the state would say "misspeculating"
	 * and the function merges it into %rsp before its ret, which corrupts the
	 * stack pointer wherever bits 47-62 of a kernel stack are not all set (5-level
	 * paging: a double fault, seen on 7.1 with Clang 22)
	 */
	if (IS_ENABLED(CONFIG_X86_64) && (sp >> 63)) {
		snprintf(buf, len, "SLH code not called (bit 63 of the kernel stack pointer set)");
		return false;
	}
	for (i = 0; i < HP_SLH_LOAD_N; i++) {
		want = HP_SLH_LOAD_WANT(i);
		got = hp_slh_load_twin(i);
		if (got != want) {
			snprintf(buf, len, "the twin (no SLH) loaded %#lx, not %#lx", got, want);
			return false;
		}
		got = hp_slh_load_slh(i);
		if (got != want) {
			snprintf(buf, len, "in-bounds SLH load returned %#lx, not %#lx%s",
				 got, want, got == ~0UL ? " (all ones)" :
				 got == 0x6775617264UL ? " (guard word: index -1)" : "");
			return false;
		}
	}
	snprintf(buf, len, "in-bounds loads in SLH code right (%u of %u)",
		 HP_SLH_LOAD_N, HP_SLH_LOAD_N);
	return true;
}

/* Why SLH code misbehaves in this kernel. */
static const char *hp_slh_state_why(void)
{
	unsigned long sp = (unsigned long)__builtin_frame_address(0);

	if (IS_ENABLED(CONFIG_X86_64) && (sp >> 63))
		return "x86 SLH state is bit 63 of %rsp, set on kernel stacks: runs misspeculated";
	return "SLH predicate state wrong on the correct path";
}

#ifndef HP_V1_NO_TIMER
void hp_spectre_v1_slh(struct hp_result *r)
{
	struct hp_v1_lab *lab;
	char st[112];

	/* first: a poisoned pointer in the gadget would load from address -1 */
	if (!hp_slh_state_ok(st, sizeof(st))) {
		hp_set(r, HP_UNSUPPORTED, "%s; %s; gadget not run (a hardened pointer is -1)",
		       st, hp_slh_state_why());
		return;
	}
	lab = hp_v1_start(r, HP_V1_SLH, "SLH gadget");
	if (!lab)
		return;
	hp_v1_judge(r, lab, "slh");
	hp_v1_lab_free(lab);
	hp_slh_own_object(r);
}
#else
void hp_spectre_v1_slh(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "no flush+reload primitives for this architecture");
}
#endif

void hp_slh_masking(struct hp_result *r)
{
	struct hp_slh_marks slh = {}, twin = {};
	char ts[64], tt[64], st[112];
	bool state;

	hp_slh_scan(hp_slh_load_slh, &slh);
	hp_slh_scan(hp_v1_gadget_slh, &slh);
	hp_slh_scan(hp_slh_load_twin, &twin);
	hp_slh_scan(hp_v1_gadget_twin, &twin);
	hp_slh_marks_txt(ts, sizeof(ts), &slh);
	hp_slh_marks_txt(tt, sizeof(tt), &twin);
	if (twin.state_in || (IS_ENABLED(CONFIG_X86_64) ? twin.merge : twin.csdb)) {
		hp_set(r, HP_INCONCLUSIVE, "the twin (no SLH) has the pattern too: %s", tt);
		return;
	}
	if (!slh.state_in || !slh.select || !slh.merge ||
	    (IS_ENABLED(CONFIG_ARM64) && !slh.csdb)) {
		hp_set(r, HP_VULNERABLE,
		       "flag accepted but the masking is missing: SLH code %s; twin %s", ts, tt);
		return;
	}
	state = hp_slh_state_ok(st, sizeof(st));
	if (!state)
		hp_set(r, HP_UNSUPPORTED, "SLH code %s (twin %s); %s; %s", ts, tt, st,
		       hp_slh_state_why());
	else
		hp_set(r, HP_PROTECTED, "SLH code %s; twin (no SLH) %s; %s", ts, tt, st);
	hp_slh_own_object(r);
}

#else /* !HP_SLH */

#define HP_SLH_REJECTED \
	"flag rejected by " HP_CC_NAME ": no -mspeculative-load-hardening (Clang only)"
#ifdef CONFIG_CC_IS_GCC
#define HP_CC_NAME "gcc"
#else
#define HP_CC_NAME "the compiler"
#endif

void hp_spectre_v1_slh(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, HP_SLH_REJECTED);
}

void hp_slh_masking(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, HP_SLH_REJECTED);
}

#endif /* HP_SLH */

const char *hp_slh_unavailable(void)
{
#ifdef HP_SLH
	return "no Kconfig option: the kernel never builds with -mspeculative-load-hardening";
#else
	return "the compiler has no -mspeculative-load-hardening";
#endif
}

void hp_spectre_v1_layers(struct hp_layers *l)
{
	char v1[HP_LAYER_LEN - 16];

	if (IS_ENABLED(CONFIG_X86_64)) {
		l->configured = IS_ENABLED(CONFIG_MITIGATION_SPECTRE_V1);
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "CONFIG_MITIGATION_SPECTRE_V1=%s (swapgs barriers; array_index_nospec() always)",
			 l->configured ? "y" : "n");
	} else {
		l->configured = true;
		hp_layer(l->configured_txt, sizeof(l->configured_txt),
			 "always (no Kconfig): array_index_nospec() + csdb, __user pointer masking");
	}
	hp_layer(l->built, sizeof(l->built),
		 "source annotations: array_index_nospec() at the sites the kernel marks");
	if (hp_read_file(HP_SPECTRE_V1, v1, sizeof(v1)) < 0)
		hp_layer(l->active, sizeof(l->active), "no %s", HP_SPECTRE_V1);
	else
		hp_layer(l->active, sizeof(l->active), "spectre_v1: %s", v1);
}

void hp_slh_layers(struct hp_layers *l)
{
	/* nothing in Kconfig enables it: the probe reports, KTAP skips a hole */
	l->configured = false;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "no Kconfig option (the kernel uses array_index_nospec() instead)");
#ifdef HP_SLH
	hp_layer(l->built, sizeof(l->built),
		 "slh_hardened.o only: -mspeculative-load-hardening; kernel objects: none");
#else
	hp_layer(l->built, sizeof(l->built), "%s rejects -mspeculative-load-hardening",
		 IS_ENABLED(CONFIG_CC_IS_GCC) ? "gcc" : "the compiler");
#endif
	hp_layer(l->active, sizeof(l->active), "compile time only (per object)");
}
