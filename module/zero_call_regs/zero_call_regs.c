// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe zero_call_regs: a callee leaves secrets in the call-clobbered
 * registers the compiler chose for it; the caller reads those registers
 * right after the return. The control callee opts out of register zeroing
 * with zero_call_used_regs("skip").
 *
 * The caller stores every call-clobbered register right after the return
 * (x86_64: rax, rcx, rdx, rsi, rdi, r8-r11; arm64: x0-x17, x18 being the
 * shadow call stack's). The control must leak, else inconclusive; the evidence
 * names the registers that leaked.
 */
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_ZCR_NKEYS	9
#define HP_ZCR_SECRET	0x5ec12e7000000000ULL

static u64 hp_zcr_key[HP_ZCR_NKEYS];
static u64 hp_zcr_sink;

/*
 * Nine secrets live in registers at once; the empty asm makes the compiler
 * allocate a register for each (its own choice, so "used" by its count).
 */
#define HP_ZCR_BODY {							\
	u64 a = hp_zcr_key[0], b = hp_zcr_key[1], c = hp_zcr_key[2];	\
	u64 d = hp_zcr_key[3], e = hp_zcr_key[4], f = hp_zcr_key[5];	\
	u64 g = hp_zcr_key[6], h = hp_zcr_key[7], i = hp_zcr_key[8];	\
	asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e),	\
		     "+r"(f), "+r"(g), "+r"(h), "+r"(i));		\
	WRITE_ONCE(hp_zcr_sink, a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i);	\
}

static noinline void hp_zcr_callee(void) HP_ZCR_BODY
static noinline __attribute__((zero_call_used_regs("skip")))
void hp_zcr_callee_skip(void) HP_ZCR_BODY

#if defined(CONFIG_X86_64)
static const char *const hp_zcr_names[] = {
	"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
};

/* Call @fn, then store the caller-saved registers before anything runs. */
#define HP_ZCR_SAMPLE(fn, out) do {					\
	register u64 r8 asm("r8");					\
	register u64 r9 asm("r9");					\
	register u64 r10 asm("r10");					\
	register u64 r11 asm("r11");					\
	u64 ax, cx, dx, si, di;						\
	fn();								\
	asm volatile("" : "=a"(ax), "=c"(cx), "=d"(dx), "=S"(si),	\
		     "=D"(di), "=r"(r8), "=r"(r9), "=r"(r10), "=r"(r11)); \
	(out)[0] = ax; (out)[1] = cx; (out)[2] = dx; (out)[3] = si;	\
	(out)[4] = di; (out)[5] = r8; (out)[6] = r9; (out)[7] = r10;	\
	(out)[8] = r11;							\
} while (0)

#elif defined(CONFIG_ARM64)
/* x18 is left out: the shadow call stack owns it. */
static const char *const hp_zcr_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
	"x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",
};

#define HP_ZCR_REG(n) register u64 x##n asm("x" #n)
#define HP_ZCR_SAMPLE(fn, out) do {					\
	HP_ZCR_REG(0); HP_ZCR_REG(1); HP_ZCR_REG(2); HP_ZCR_REG(3);	\
	HP_ZCR_REG(4); HP_ZCR_REG(5); HP_ZCR_REG(6); HP_ZCR_REG(7);	\
	HP_ZCR_REG(8); HP_ZCR_REG(9); HP_ZCR_REG(10); HP_ZCR_REG(11);	\
	HP_ZCR_REG(12); HP_ZCR_REG(13); HP_ZCR_REG(14); HP_ZCR_REG(15);	\
	HP_ZCR_REG(16); HP_ZCR_REG(17);					\
	fn();								\
	asm volatile("" : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3),	\
		     "=r"(x4), "=r"(x5), "=r"(x6), "=r"(x7), "=r"(x8),	\
		     "=r"(x9), "=r"(x10), "=r"(x11), "=r"(x12),		\
		     "=r"(x13), "=r"(x14), "=r"(x15), "=r"(x16),	\
		     "=r"(x17));					\
	(out)[0] = x0; (out)[1] = x1; (out)[2] = x2; (out)[3] = x3;	\
	(out)[4] = x4; (out)[5] = x5; (out)[6] = x6; (out)[7] = x7;	\
	(out)[8] = x8; (out)[9] = x9; (out)[10] = x10; (out)[11] = x11;	\
	(out)[12] = x12; (out)[13] = x13; (out)[14] = x14;		\
	(out)[15] = x15; (out)[16] = x16; (out)[17] = x17;		\
} while (0)
#endif

#ifdef HP_ZCR_SAMPLE
#define HP_ZCR_NREGS ARRAY_SIZE(hp_zcr_names)

static noinline void hp_zcr_sample(u64 *out)
{
	HP_ZCR_SAMPLE(hp_zcr_callee, out);
}

static noinline void hp_zcr_sample_skip(u64 *out)
{
	HP_ZCR_SAMPLE(hp_zcr_callee_skip, out);
}

/* Which registers hold one of the secrets; names go to @names. */
static unsigned int hp_zcr_leaks(const u64 *regs, char *names, size_t len)
{
	unsigned int i, k, n = 0;

	names[0] = '\0';
	for (i = 0; i < HP_ZCR_NREGS; i++) {
		for (k = 0; k < HP_ZCR_NKEYS; k++)
			if (regs[i] == hp_zcr_key[k])
				break;
		if (k == HP_ZCR_NKEYS)
			continue;
		n++;
		strlcat(names, n > 1 ? "," : "", len);
		strlcat(names, hp_zcr_names[i], len);
	}
	return n;
}

static void hp_zero_call_regs_gpr(struct hp_result *r)
{
	u64 regs[HP_ZCR_NREGS], ctl[HP_ZCR_NREGS];
	char leaked[96], leaked_ctl[96];
	unsigned int i, n, n_ctl;

	for (i = 0; i < HP_ZCR_NKEYS; i++)
		hp_zcr_key[i] = HP_ZCR_SECRET | (get_random_u32() & 0xffffff00) | i;
	hp_zcr_sample_skip(ctl);
	hp_zcr_sample(regs);
	n_ctl = hp_zcr_leaks(ctl, leaked_ctl, sizeof(leaked_ctl));
	n = hp_zcr_leaks(regs, leaked, sizeof(leaked));
	if (!n_ctl) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control (zero_call_used_regs(\"skip\")) leaked no secret: the read-back does not see the callee's registers");
		return;
	}
	if (n)
		hp_set(r, HP_VULNERABLE,
		       "%u of %zu call-clobbered registers held a secret after return (%s); control leaked %u (%s)",
		       n, HP_ZCR_NREGS, leaked, n_ctl, leaked_ctl);
	else
		hp_set(r, HP_PROTECTED,
		       "0 of %zu call-clobbered registers held a secret after return; control leaked %u (%s)",
		       HP_ZCR_NREGS, n_ctl, leaked_ctl);
}
#else
static void hp_zero_call_regs_gpr(struct hp_result *r)
{
	hp_set(r, HP_UNSUPPORTED, "no register sampler for this architecture");
}
#endif

static void hp_zcr_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_ZERO_CALL_USED_REGS);
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "CONFIG_ZERO_CALL_USED_REGS=%s",
		 l->configured ? "y" : "n");
	hp_built_flags(l, HP_FLAG_ZCR, "no -fzero-call-used-regs");
	hp_layer(l->active, sizeof(l->active),
		 "compile-time feature: always on where built");
}

static const struct hp_probe hp_probes_zero_call_regs[] = {
	HP_PROBE(zero_call_regs, gpr, HP_SAFE),
};

HP_FEATURE(zero_call_regs, .layers = hp_zcr_layers, .khc = "CONFIG_ZERO_CALL_USED_REGS",
	   .off = HP_LIST("CONFIG_ZERO_CALL_USED_REGS=n"));
