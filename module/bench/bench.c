// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe bench: the run-time cost of each code-changing feature. The same
 * workload (bench_work.h) is compiled with and without one feature's flags;
 * both are timed in interleaved rounds of many calls, with preemption off
 * during a round, and the median and the spread (half the interquartile
 * range) per call are reported for each, with their ratio. Under QEMU TCG
 * these are timings of the emulator, not of a CPU: the bench says so.
 *
 * Read /sys/kernel/debug/hardprobe/bench: one line per feature,
 *   bench <feature> <on-variant> <off-variant> calls=N on_ps=M on_spread_ps=S
 *         off_ps=M off_spread_ps=S ratio_milli=R
 * (ps: picoseconds per call; ratio_milli: 1000 * on / off).
 */
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "bench.h"
#include "../hardprobe.h"

#define HP_BENCH_ROUNDS		31
#define HP_BENCH_ROUND_NS	200000ULL	/* calibrate a round to about this */

/* the indirect-call target: built with the kernel's flags (kCFI hash included) */
static noinline int hp_bench_leaf(int x)
{
	return x * 3 + 1;
}

static int hp_bench_in[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/*
 * One timed round of @calls calls of variant @v. Each variant gets its own
 * round function that calls it directly: a variant built without kCFI has no
 * type hash, so an indirect call into it would be a CFI failure.
 */
#define HP_BENCH_ROUND(v)						\
static noinline u64 hp_round_##v(unsigned int calls, int *sink)	\
{									\
	unsigned int i;							\
	u64 t0, t;							\
	int acc = 0;							\
									\
	preempt_disable();						\
	t0 = ktime_get_ns();						\
	for (i = 0; i < calls; i++)					\
		acc += hp_bench_##v(hp_bench_in, 16, i & 15, hp_bench_leaf);	\
	t = ktime_get_ns() - t0;					\
	preempt_enable();						\
	*sink += acc;							\
	return t;							\
}

HP_BENCH_ROUND(base)
HP_BENCH_ROUND(zcr_off)
HP_BENCH_ROUND(autovar_off)
HP_BENCH_ROUND(ssp_off)
HP_BENCH_ROUND(fortify_off)
HP_BENCH_ROUND(bounds_off)
#ifdef HP_BENCH_SIO
HP_BENCH_ROUND(sio_on)
#endif
#ifdef HP_BENCH_CFI
HP_BENCH_ROUND(cfi_off)
#endif
#ifdef HP_BENCH_SLH
HP_BENCH_ROUND(slh_on)
HP_BENCH_ROUND(slh_base)
#endif
#ifdef HP_BENCH_SLS
HP_BENCH_ROUND(sls_off)
#endif
#ifdef HP_BENCH_PAC
HP_BENCH_ROUND(pac_off)
#endif
#ifdef HP_BENCH_SCS
HP_BENCH_ROUND(scs_off)
#endif

struct hp_bench_pair {
	const char *feature;
	u64 (*on)(unsigned int calls, int *sink);
	u64 (*off)(unsigned int calls, int *sink);
	const char *on_name, *off_name;
};

#define HP_PAIR_OFF(feat, v)	{ feat, hp_round_base, hp_round_##v, "base", #v }
#define HP_PAIR_ON(feat, v)	{ feat, hp_round_##v, hp_round_base, #v, "base" }

/* Kbuild defines HP_BENCH_<X> for each variant it could build on this kernel. */
static const struct hp_bench_pair hp_bench_pairs[] = {
	HP_PAIR_OFF("zero_call_regs", zcr_off),
	HP_PAIR_OFF("stack_init", autovar_off),
	HP_PAIR_OFF("stack_canary", ssp_off),
#ifdef HP_BENCH_CFI
	HP_PAIR_OFF("kcfi", cfi_off),
#endif
#ifdef HP_BENCH_SLH
	/* both sides without FORTIFY and canary (see Makefile): they differ by SLH alone */
	{ "slh", hp_round_slh_on, hp_round_slh_base, "slh_on", "slh_base" },
#endif
	HP_PAIR_OFF("fortify", fortify_off),
	HP_PAIR_OFF("array_bounds", bounds_off),
#ifdef HP_BENCH_SLS
	HP_PAIR_OFF("sls", sls_off),
#endif
#ifdef HP_BENCH_PAC
	HP_PAIR_OFF("pac_ret", pac_off),
#endif
#ifdef HP_BENCH_SCS
	HP_PAIR_OFF("shadow_call_stack", scs_off),
#endif
#ifdef HP_BENCH_SIO
	HP_PAIR_ON("signed_overflow", sio_on),
#endif
};

static int hp_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* median and half the interquartile range of @t, in ps per call */
static void hp_bench_stats(u64 *t, unsigned int calls, u64 *median, u64 *spread)
{
	sort(t, HP_BENCH_ROUNDS, sizeof(*t), hp_u64_cmp, NULL);
	*median = div_u64(t[HP_BENCH_ROUNDS / 2] * 1000, calls);
	*spread = div_u64((t[HP_BENCH_ROUNDS * 3 / 4] - t[HP_BENCH_ROUNDS / 4]) * 500, calls);
}

static int hp_bench_show(struct seq_file *m, void *v)
{
	u64 *on, *off, on_med, on_spr, off_med, off_spr;
	unsigned int i, r, calls;
	int sink = 0;

	on = kcalloc(2 * HP_BENCH_ROUNDS, sizeof(*on), GFP_KERNEL);
	if (!on)
		return -ENOMEM;
	off = on + HP_BENCH_ROUNDS;
	/*
	 * warm every variant up (caches; under TCG, the translation of the code),
	 * then calibrate on the base variant: calls per round of about
	 * HP_BENCH_ROUND_NS, judged by the fastest of three tries
	 */
	for (i = 0; i < ARRAY_SIZE(hp_bench_pairs); i++) {
		hp_bench_pairs[i].on(256, &sink);
		hp_bench_pairs[i].off(256, &sink);
	}
	for (calls = 64; calls < (1U << 24); calls *= 2) {
		u64 best = U64_MAX;

		for (r = 0; r < 3; r++)
			best = min(best, hp_round_base(calls, &sink));
		if (best >= HP_BENCH_ROUND_NS)
			break;
	}
	seq_printf(m, "# hardprobe bench: %u rounds of %u calls per variant, interleaved\n",
		   HP_BENCH_ROUNDS, calls);
	for (i = 0; i < ARRAY_SIZE(hp_bench_pairs); i++) {
		const struct hp_bench_pair *p = &hp_bench_pairs[i];

		for (r = 0; r < HP_BENCH_ROUNDS; r++) {
			on[r] = p->on(calls, &sink);
			off[r] = p->off(calls, &sink);
			cond_resched();
		}
		hp_bench_stats(on, calls, &on_med, &on_spr);
		hp_bench_stats(off, calls, &off_med, &off_spr);
		seq_printf(m, "bench %s %s %s calls=%u on_ps=%llu on_spread_ps=%llu off_ps=%llu off_spread_ps=%llu ratio_milli=%llu\n",
			   p->feature, p->on_name, p->off_name, calls, on_med, on_spr, off_med,
			   off_spr, off_med ? div64_u64(on_med * 1000, off_med) : 0);
	}
	seq_printf(m, "# sink %d\n", sink);
	kfree(on);
	return 0;
}

static int hp_bench_open(struct inode *inode, struct file *file)
{
	int err = hp_may_use();

	return err ?: single_open(file, hp_bench_show, NULL);
}

const struct file_operations hp_bench_fops = {
	.owner = THIS_MODULE,
	.open = hp_bench_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};
