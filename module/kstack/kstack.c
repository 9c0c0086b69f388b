// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kstack_offset, stack_erase: what one syscall leaves on the task
 * stack for the next, seen from debugfs "kstack". No probe can make
 * syscalls itself, so each read() of kstack is one experiment and the
 * probes judge what the reads recorded (the kselftest runner reads it ~500
 * times before it runs the probes).
 *
 * kstack_offset: each read samples the stack pointer at a fixed call depth
 * as an offset into the task stack. With randomize_kstack_offset the
 * syscall entry moves the stack by a random amount, so the offsets differ;
 * the probe counts the distinct values and, like LKDTM's stack-entropy.sh,
 * calls it protected at >= 5 bits (binary digits of the distinct count).
 * Control: two samples at the same depth inside one syscall are equal.
 * The samples are a ring of the last 1024; fewer than 200 is not_run ("read
 * .../hardprobe/kstack 200 times first"), so later reports and KUnit see the
 * runner's samples. active is randomize_kstack_offset= from the command line
 * (the static key itself is not exported).
 *
 * stack_erase (STACKLEAK): each read first looks for the pattern that the
 * previous read of the same task wrote deep into the (then unused) stack,
 * then writes the pattern again, in ~4 KiB of frames below its own. With
 * stack erasing the kernel poisons the used stack on the way back to user
 * space, so the next read finds STACKLEAK_POISON there instead. Control:
 * the probe writes the pattern and finds it again inside one syscall (the
 * method sees old data when nothing erases it).
 * The pattern is written into eight recursive 512-byte frames; pattern
 * words, poison words and words scanned are summed over the reads of one
 * task (same pid and stack). stack_erase.previous_syscall is vulnerable if
 * any read found the previous read's pattern, protected if none did and most
 * of the scanned words hold the poison, inconclusive if none did without
 * poison (overwritten, not erased), and not_run without two reads from one
 * process. Interrupts taken between two reads only touch the top of the
 * stack (the entry frame) and then run on the IRQ stack: they do not reach
 * the filled region. An interrupt (or a preemption) taken during the next
 * read saves registers below its stack pointer, inside the region scanned:
 * that read never holds the previous pattern in a register, so that such a
 * save cannot plant it (the scan compares each word xor the fill's
 * generation with HP_ERASE_MAGIC). 6.12 has STACKLEAK only as a GCC plugin
 * (CONFIG_GCC_PLUGIN_STACKLEAK; CONFIG_KSTACK_ERASE from 6.17): without it
 * the probe is vulnerable and not configured (on Clang: "6.12 erases the
 * stack only with the GCC plugin"; from 6.17 Clang 21 or later builds it).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "../hardprobe.h"

#define HP_KS_FILE	"/sys/kernel/debug/hardprobe/kstack"
#define HP_KS_RING	1024
#define HP_KS_MIN	200	/* samples the probe needs */
#define HP_KS_BITS	5	/* stack-entropy.sh's threshold */

#define HP_ERASE_MAGIC	0x4850455241534531ULL	/* "HPERASE1" */
#define HP_ERASE_CTL	0x48504354524c3031ULL	/* "HPCTRL01" */
#define HP_ERASE_DEPTH	8
#define HP_ERASE_WORDS	64			/* 512 bytes a frame */
#define HP_ERASE_POISON	(-0xBEEFUL)		/* STACKLEAK_POISON */

static DEFINE_SPINLOCK(hp_ks_lock);
static u16 hp_ks_ring[HP_KS_RING];
static unsigned int hp_ks_total;

/* The last fill of a read, and what the reads after it found. */
static struct {
	pid_t pid;
	const void *stack;
	unsigned long lo, hi;	/* the filled words */
	u64 fill_gen;		/* they hold HP_ERASE_MAGIC ^ fill_gen */
	unsigned int gen;
	/* statistics of the reads that found a fill of their own task */
	unsigned int measured, seen_reads;
	unsigned long seen_words, poison_words, words;
} hp_er;

static noinline unsigned long hp_ks_sample(void)
{
	return current_stack_pointer - (unsigned long)task_stack_page(current);
}

/*
 * Write @pattern into HP_ERASE_DEPTH frames of HP_ERASE_WORDS words each,
 * below the caller; returns the lowest filled address in *@lo.
 */
static noinline void hp_erase_fill(int depth, u64 pattern, unsigned long *lo)
{
	u64 buf[HP_ERASE_WORDS];
	int i;

	for (i = 0; i < HP_ERASE_WORDS; i++)
		buf[i] = pattern;
	/* the stores are the point: keep them although buf is never read */
	barrier_data(buf);
	*lo = (unsigned long)buf;
	if (depth > 1)
		hp_erase_fill(depth - 1, pattern, lo);
}

/*
 * Count the words of [@lo, @hi) that hold @magic ^ @key, and poison words,
 * kept below our own frame. The pattern itself is never computed here: the
 * registers an interrupt saves below the stack pointer must not hold it.
 */
static noinline void hp_erase_scan(unsigned long lo, unsigned long hi, u64 magic, u64 key,
				   unsigned long *seen, unsigned long *poison,
				   unsigned long *words)
{
	unsigned long top = current_stack_pointer - 256;
	const unsigned long *p;

	*seen = 0;
	*poison = 0;
	*words = 0;
	lo = max(lo, (unsigned long)task_stack_page(current) + 64);
	hi = min(hi, top);
	for (p = (const unsigned long *)ALIGN(lo, sizeof(long));
	     (unsigned long)(p + 1) <= hi; p++) {
		unsigned long v = READ_ONCE(*p);
		u64 x = v ^ key;

		/* no folding of the test into v == (magic ^ key) */
		OPTIMIZER_HIDE_VAR(x);
		(*words)++;
		if (x == magic)
			(*seen)++;
		else if (v == HP_ERASE_POISON)
			(*poison)++;
	}
}

/* One read: measure what the previous read of this task left, then fill again. */
static noinline void hp_erase_step(void)
{
	unsigned long seen, poison, words, lo, hi;
	const void *stack = task_stack_page(current);
	u64 pattern, gen;

	spin_lock(&hp_ks_lock);
	if (hp_er.pid == current->pid && hp_er.stack == stack) {
		lo = hp_er.lo;
		hi = hp_er.hi;
		gen = hp_er.fill_gen;
		spin_unlock(&hp_ks_lock);
		hp_erase_scan(lo, hi, HP_ERASE_MAGIC, gen, &seen, &poison, &words);
		spin_lock(&hp_ks_lock);
		if (words) {
			hp_er.measured++;
			hp_er.seen_reads += !!seen;
			hp_er.seen_words += seen;
			hp_er.poison_words += poison;
			hp_er.words += words;
		}
	}
	gen = ++hp_er.gen;
	pattern = HP_ERASE_MAGIC ^ gen;
	spin_unlock(&hp_ks_lock);

	hi = current_stack_pointer - 128;
	hp_erase_fill(HP_ERASE_DEPTH, pattern, &lo);

	spin_lock(&hp_ks_lock);
	hp_er.pid = current->pid;
	hp_er.stack = stack;
	hp_er.lo = lo;
	hp_er.hi = hi;
	hp_er.fill_gen = gen;
	spin_unlock(&hp_ks_lock);
}

static ssize_t hp_kstack_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned long off;
	unsigned int total;
	char buf[48];
	int n;

	n = hp_may_use();
	if (n)
		return n;
	off = hp_ks_sample();
	spin_lock(&hp_ks_lock);
	hp_ks_ring[hp_ks_total % HP_KS_RING] = off;
	total = ++hp_ks_total;
	spin_unlock(&hp_ks_lock);
	hp_erase_step();
	n = scnprintf(buf, sizeof(buf), "%lu %u\n", off, total);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

const struct file_operations hp_kstack_fops = {
	.owner = THIS_MODULE,
	.read = hp_kstack_read,
	.llseek = default_llseek,
};

static int hp_u16_cmp(const void *a, const void *b)
{
	return *(const u16 *)a - *(const u16 *)b;
}

static void hp_kstack_offset_syscall(struct hp_result *r)
{
	unsigned int i, n, total, distinct = 1, bits;
	unsigned long a, b;
	u16 *s;

	/* control: the same depth inside one syscall gives the same offset */
	a = hp_ks_sample();
	b = hp_ks_sample();
	if (a != b) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: two samples in one syscall differ (%lu, %lu)", a, b);
		return;
	}
	s = kmalloc_array(HP_KS_RING, sizeof(*s), GFP_KERNEL);
	if (!s) {
		hp_set(r, HP_ERROR, "out of memory");
		return;
	}
	spin_lock(&hp_ks_lock);
	total = hp_ks_total;
	n = min(total, HP_KS_RING);
	memcpy(s, hp_ks_ring, n * sizeof(*s));
	spin_unlock(&hp_ks_lock);
	if (n < HP_KS_MIN) {
		hp_set(r, HP_NOT_RUN, "%u samples: read %s %u times first", n,
		       HP_KS_FILE, HP_KS_MIN);
		kfree(s);
		return;
	}
	sort(s, n, sizeof(*s), hp_u16_cmp, NULL);
	for (i = 1; i < n; i++)
		distinct += s[i] != s[i - 1];
	bits = fls(distinct);
	hp_set(r, bits >= HP_KS_BITS ? HP_PROTECTED : HP_VULNERABLE,
	       "%u read() syscalls: %u distinct stack offsets at one call depth (%u..%u), %u bits (stack-entropy.sh wants >= %u); control: one syscall, same depth, same offset",
	       n, distinct, s[0], s[n - 1], bits, HP_KS_BITS);
	kfree(s);
}

static void hp_stack_erase_previous_syscall(struct hp_result *r)
{
	unsigned long seen, poison, words, lo, hi;
	unsigned int measured, seen_reads;
	unsigned long sw, pw, w;

	/* control: a fill in this syscall, left behind and found again */
	hi = current_stack_pointer - 128;
	hp_erase_fill(HP_ERASE_DEPTH, HP_ERASE_CTL, &lo);
	hp_erase_scan(lo, hi, HP_ERASE_CTL, 0, &seen, &poison, &words);
	if (!seen) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: a pattern written below the stack pointer in this syscall was not found (%lu words scanned)",
		       words);
		return;
	}
	spin_lock(&hp_ks_lock);
	measured = hp_er.measured;
	seen_reads = hp_er.seen_reads;
	sw = hp_er.seen_words;
	pw = hp_er.poison_words;
	w = hp_er.words;
	spin_unlock(&hp_ks_lock);
	if (!measured) {
		hp_set(r, HP_NOT_RUN,
		       "no measurement: read %s at least twice from one process first",
		       HP_KS_FILE);
		return;
	}
	if (seen_reads) {
		hp_set(r, HP_VULNERABLE,
		       "%u of %u read()s found the previous read's stack pattern: %lu of %lu words, %lu poison; control in one syscall: %lu of %lu",
		       seen_reads, measured, sw, w, pw, seen, words);
		return;
	}
	hp_set(r, pw * 2 > w ? HP_PROTECTED : HP_INCONCLUSIVE,
	       "%u read()s: none found the previous read's pattern; %lu of %lu words hold STACKLEAK_POISON%s; control in one syscall: %lu of %lu",
	       measured, pw, w, pw * 2 > w ? "" : " (overwritten, not erased?)",
	       seen, words);
}

static void hp_kstack_layers(struct hp_layers *l)
{
	bool param = true, given = hp_cmdline_bool("randomize_kstack_offset", &param);

	l->configured = IS_ENABLED(CONFIG_RANDOMIZE_KSTACK_OFFSET) &&
			(given ? param : IS_ENABLED(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT));
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_RANDOMIZE_KSTACK_OFFSET=%s, _DEFAULT=%s",
		 IS_ENABLED(CONFIG_RANDOMIZE_KSTACK_OFFSET) ? "y" : "n",
		 IS_ENABLED(CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT) ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "syscall entry code: nothing to build");
	if (given)
		hp_layer(l->active, sizeof(l->active),
			 "randomize_kstack_offset=%s on the command line", param ? "on" : "off");
	else
		hp_layer(l->active, sizeof(l->active),
			 "no boot parameter: the default (the static key is not exported)");
}

/* only GCC's plugin, or from 6.17 a compiler with the stack-depth callback (compat.h) */
static const char *hp_erase_unavailable(void)
{
	return IS_ENABLED(CONFIG_CC_IS_GCC) ? NULL : HP_ERASE_NO_CC;
}

static void hp_erase_layers(struct hp_layers *l)
{
	char buf[16];

	l->configured = HP_CONFIG_KSTACK_ERASE;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 HP_SYM_KSTACK_ERASE "=%s", l->configured ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "erasing is the kernel's entry code%s",
		 !l->configured ? "" : IS_ENABLED(CONFIG_CC_IS_GCC) ?
		 "; the stackleak plugin tracks the stack depth" :
		 "; the compiler's stack-depth callback tracks it");
	if (hp_read_file("/proc/sys/kernel/stack_erasing", buf, sizeof(buf)) > 0)
		hp_layer(l->active, sizeof(l->active), "kernel.stack_erasing=%s", buf);
	else
		hp_layer(l->active, sizeof(l->active), "%s",
			 l->configured ? "always on (no runtime switch)" : "off (not built)");
}

static const struct hp_probe hp_probes_kstack_offset[] = {
	HP_PROBE(kstack_offset, syscall, HP_SAFE),
};

HP_FEATURE(kstack_offset, .layers = hp_kstack_layers,
	   .khc = "CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT randomize_kstack_offset",
	   .off = HP_LIST("randomize_kstack_offset=off"));

static const struct hp_probe hp_probes_stack_erase[] = {
	HP_PROBE(stack_erase, previous_syscall, HP_SAFE),
};

/*
 * LKDTM: REPORT_STACK (kstack_offset) is judged by LKDTM's stack-entropy.sh
 * over 1000 runs, not by tests.txt: not paired.
 */
HP_FEATURE(stack_erase, .layers = hp_erase_layers, .unavailable = hp_erase_unavailable,
	   .khc = "CONFIG_KSTACK_ERASE",
	   .lkdtm = HP_LIST("STACKLEAK_ERASING"));
