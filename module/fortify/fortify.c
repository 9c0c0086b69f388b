// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe fortify: CONFIG_FORTIFY_SOURCE overflows of a whole object and
 * of a struct member by strscpy(), strcpy(), memcpy() and memset(), with
 * lengths only known at run time.
 *
 * The safe probes run the calls in fortify_counting_hook.o, where the failure hook
 * counts and returns (lib/fortify_kunit.c's way), and the same calls in
 * fortify_unfortified.o, built without fortify, as the positive control. The
 * field-spanning memcpy() probe goes through the kernel's own WARN_ONCE and
 * is judged from the log; the fatal probe goes through the kernel's own
 * __fortify_panic(), which WARNs and then BUGs.
 *
 * fortify.strscpy, .strcpy, .memcpy and .memset each make a legal 16-byte
 * write (which must not be refused) and the two overflows; protected is 2 of
 * 2 caught, and for the string functions also 0 neighbour bytes changed in
 * the 96-byte arena. For memcpy() and memset() the counting hook returns into
 * the macro, which copies anyway (as under fortify_kunit): the evidence counts
 * those bytes; the kernel's own handler BUGs before the copy, which
 * fortify.strcpy_bug shows. The control (fortify_unfortified.o) must change
 * neighbour bytes, else inconclusive. Before 6.9 the failure hook cannot
 * return, and those four probes are unsupported.
 *
 * fortify.memcpy_field_spanning is protected when "memcpy: detected
 * field-spanning write (size 20) of single field "p->name"" follows its
 * marker in the log. WARN_ONCE fires once per call site and boot: later
 * runs quote the first run's line, provided the counted copy still trips the
 * check. With panic_on_warn set it says unsupported rather than panic; a
 * first run taints the kernel with W.
 *
 * fortify.strcpy_bug (fatal): "strcpy: detected buffer overflow: 24 byte
 * write of buffer size 16" (before 6.9 "detected buffer overflow in
 * strcpy"); if it returns, the copy went into our guard: vulnerable. built
 * says whether fortify-string.h reached the module's objects and whether
 * sizes come from __builtin_dynamic_object_size.
 */
#include <linux/kernel.h>
#include <linux/printk.h>

#include "fortify.h"
#include "../hardprobe.h"

/* what the kernel's handler prints for the fatal probe's strcpy() */
#define HP_FO_SIG_STRCPY HP_FORTIFY_SIG("strcpy", 24, 16)
#define HP_FO_SIG_SPAN	 "memcpy: detected field-spanning write (size 20) of single field \"p->name\""

static void hp_fo_fill(struct hp_fo_arena *a)
{
	memset(a->b, HP_FO_FILL, sizeof(a->b));
}

/* bytes of the arena changed outside the HP_FO_OBJ bytes written to */
static unsigned int hp_fo_changed(const struct hp_fo_arena *a)
{
	unsigned int i, n = 0;

	for (i = 0; i < sizeof(a->b); i++)
		if ((i < HP_FO_AT || i >= HP_FO_AT + HP_FO_OBJ) &&
		    a->b[i] != HP_FO_FILL)
			n++;
	return n;
}

static const char *const hp_fo_names[] = {
	[HP_FO_STRSCPY] = "strscpy", [HP_FO_STRCPY] = "strcpy",
	[HP_FO_MEMCPY] = "memcpy", [HP_FO_MEMSET] = "memset",
};

/*
 * The overflow lengths: 24 bytes into the 16-byte object; into the 16-byte
 * member of the 24-byte struct, 20 bytes for the string functions (they
 * check the member) and 32 for memcpy()/memset() (they stop writes beyond
 * the enclosing struct; within it memcpy() only warns, see span).
 */
static size_t hp_fo_len(enum hp_fo_op op, enum hp_fo_dst dst)
{
	if (dst == HP_FO_OBJECT)
		return HP_FO_OBJ + 8;
	if (op == HP_FO_STRSCPY || op == HP_FO_STRCPY)
		return HP_FO_OBJ + 4;
	return sizeof(struct hp_fo_pair) + 8;
}

static void hp_fo_run(struct hp_result *r, enum hp_fo_op op)
{
	static const char *const dname[] = { "object", "member" };
	struct hp_fo_arena a;
	struct hp_fo_count legal = {}, c[2] = {};
	unsigned int ctl[2], kept[2], caught = 0, d;
	bool mem = op == HP_FO_MEMCPY || op == HP_FO_MEMSET;
	const char *name = hp_fo_names[op];

	if (!HP_HAVE_FORTIFY_HOOK) {
		hp_set(r, HP_UNSUPPORTED,
		       "%s: this kernel's fortify_panic() cannot return (before 6.9): no hook counts a catch and goes on; strcpy_bug tests the real handler",
		       name);
		return;
	}
	/* positive control: the overflows unchecked really pass the object */
	for (d = HP_FO_OBJECT; d <= HP_FO_MEMBER; d++) {
		hp_fo_fill(&a);
		hp_fo_unfortified(op, d, &a, hp_fo_len(op, d));
		ctl[d] = hp_fo_changed(&a);
	}
	/* a legal full-size call must not trip the check */
	hp_fo_fill(&a);
	hp_fo_counted(op, HP_FO_OBJECT, &a, HP_FO_OBJ, &legal);
	if (legal.caught || hp_fo_changed(&a)) {
		hp_set(r, HP_ERROR,
		       "%s: a legal %d-byte write into a %d-byte object was refused or spilled",
		       name, HP_FO_OBJ, HP_FO_OBJ);
		return;
	}
	for (d = HP_FO_OBJECT; d <= HP_FO_MEMBER; d++) {
		hp_fo_fill(&a);
		hp_fo_counted(op, d, &a, hp_fo_len(op, d), &c[d]);
		kept[d] = hp_fo_changed(&a);
		caught += !!c[d].caught;
	}
	if (!ctl[HP_FO_OBJECT] || !ctl[HP_FO_MEMBER]) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control (no fortify): %s overflow changed %u (object) and %u (member) neighbour bytes",
		       name, ctl[0], ctl[1]);
		return;
	}
	if (caught < 2) {
		hp_set(r, HP_VULNERABLE,
		       "%s overflow of a 16-byte %s went unchecked (%u of 2 caught); %u/%u neighbour bytes changed (object/member); control %u/%u",
		       name, c[0].caught ? dname[1] : dname[0], caught,
		       kept[0], kept[1], ctl[0], ctl[1]);
		return;
	}
	if (mem) {
		/* the counting hook returns true and the macro copies anyway */
		hp_set(r, HP_PROTECTED,
		       "%s: 2 of 2 caught (%zu-byte write into 16-byte object, %zu into member of 24-byte struct; last: %lu-byte write, %lu available); the counting hook lets the copy run on (%u/%u bytes), the kernel's handler BUGs first; control changed %u/%u",
		       name, hp_fo_len(op, 0), hp_fo_len(op, 1), c[1].size,
		       c[1].avail, kept[0], kept[1], ctl[0], ctl[1]);
		return;
	}
	hp_set(r, kept[0] || kept[1] ? HP_ERROR : HP_PROTECTED,
	       "%s: 2 of 2 caught (%zu-byte write into 16-byte object, %zu into 16-byte member; last: %lu-byte write, %lu available), %u/%u neighbour bytes changed; control (no fortify) changed %u/%u",
	       name, hp_fo_len(op, 0), hp_fo_len(op, 1), c[1].size, c[1].avail,
	       kept[0], kept[1], ctl[0], ctl[1]);
}

static void hp_fortify_strscpy(struct hp_result *r)
{
	hp_fo_run(r, HP_FO_STRSCPY);
}

static void hp_fortify_strcpy(struct hp_result *r)
{
	hp_fo_run(r, HP_FO_STRCPY);
}

static void hp_fortify_memcpy(struct hp_result *r)
{
	hp_fo_run(r, HP_FO_MEMCPY);
}

static void hp_fortify_memset(struct hp_result *r)
{
	hp_fo_run(r, HP_FO_MEMSET);
}

/*
 * memcpy() of 20 bytes into the 16-byte member of a 24-byte struct: the
 * kernel's fortify_warn_once() (WARN_ONCE) reports it and the copy still
 * happens, inside the struct. WARN_ONCE fires once per call site and boot,
 * so the first report is kept and quoted by later runs.
 */
static noinline void hp_fo_span_copy(struct hp_fo_arena *a, size_t len)
{
	struct hp_fo_pair *p = hp_fo_place(a, sizeof(*p));
	char src[HP_FO_SRC];

	OPTIMIZER_HIDE_VAR(len);
	if (len > sizeof(*p))
		return;
	memset(src, 'A', sizeof(src));
	memcpy(p->name, src, len);
}

static void hp_fortify_memcpy_field_spanning(struct hp_result *r)
{
	static char first[HP_EVIDENCE_LEN];
	static unsigned int seq, first_run;
	struct hp_fo_arena a;
	struct hp_fo_count c = {};
	char marker[48], line[160];
	unsigned int spill;

	if (hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED,
		       "panic_on_warn is set: the WARN this probe looks for would panic");
		return;
	}
	/* the same copy through the counting hook: is the check compiled in? */
	hp_fo_fill(&a);
	if (HP_HAVE_FORTIFY_HOOK)
		hp_fo_counted(HP_FO_MEMCPY, HP_FO_MEMBER, &a, HP_FO_OBJ + 4, &c);
	snprintf(marker, sizeof(marker), "hardprobe: fortify span [%u]", ++seq);
	pr_info("%s: memcpy 20 bytes into a 16-byte member\n", marker);
	hp_fo_fill(&a);
	hp_fo_span_copy(&a, HP_FO_OBJ + 4);
	spill = hp_fo_changed(&a);
	if (hp_log_find(marker, HP_FO_SIG_SPAN, line, sizeof(line))) {
		if (!first_run) {
			first_run = seq;
			strscpy(first, line, sizeof(first));
		}
		/* a WARN, and the copy ran on: caught and went on */
		r->went_on = true;
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: %s (the copy ran on by design: %u bytes of the next member)",
		       line, spill);
		return;
	}
	/*
	 * WARN_ONCE fired here in an earlier run of this load: the counted copy
	 * shows the check is still there; before 6.9 there is no counting
	 * hook, and the call site that warned is the same code
	 */
	if (first_run && (c.spanned || !HP_HAVE_FORTIFY_HOOK)) {
		r->went_on = true;
		hp_set(r, HP_PROTECTED,
		       "detected, not stopped: WARN_ONCE already fired at this call site in run %u: \"%s\"; %s",
		       first_run, first, HP_HAVE_FORTIFY_HOOK ?
		       "the counted copy still trips the check" :
		       "the same code (no counting hook before 6.9 to trip it again)");
		return;
	}
	if (!spill) {
		hp_set(r, HP_INCONCLUSIVE, "the 20-byte copy did not reach the next member");
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "no field-spanning warning after the marker; %u bytes of the next member overwritten; counted check %s",
	       spill, c.spanned ? "tripped" : "silent");
}

/*
 * The kernel's own handler: strcpy() of 24 bytes into a 16-byte object.
 * __fortify_panic() WARNs and BUGs, which kills this task; nothing is
 * written. If it returns, the copy went into our arena's guard.
 */
static noinline void hp_fo_real(enum hp_fo_op op, enum hp_fo_dst dst,
				struct hp_fo_arena *a, size_t len)
{
	hp_fo_do(op, dst, a, len);
}

static void hp_fortify_strcpy_bug(struct hp_result *r)
{
	struct hp_fo_arena a;
	unsigned int spill;

	hp_fo_fill(&a);
	hp_fo_real(HP_FO_STRCPY, HP_FO_OBJECT, &a, HP_FO_OBJ + 8);
	spill = hp_fo_changed(&a);
	hp_set(r, spill ? HP_VULNERABLE : HP_ERROR,
	       "survived: strcpy of 24 bytes into a 16-byte object returned, %u guard bytes overwritten",
	       spill);
}

#ifdef _LINUX_FORTIFY_STRING_H_
#if __has_builtin(__builtin_dynamic_object_size)
#define HP_FO_BUILT "fortify-string.h in module objects, sizes by __builtin_dynamic_object_size"
#else
#define HP_FO_BUILT "fortify-string.h in module objects, sizes by __builtin_object_size"
#endif
#else
#define HP_FO_BUILT "fortify-string.h not included in module objects"
#endif

static void hp_fo_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_FORTIFY_SOURCE);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_FORTIFY_SOURCE=%s", l->configured ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "%s; control object built with __NO_FORTIFY",
		 HP_FO_BUILT);
	hp_layer(l->active, sizeof(l->active),
		 "compile-time feature: checks inline in each caller");
}

static const struct hp_probe hp_probes_fortify[] = {
	/*
	 * LKDTM: strncpy() there, strcpy() here: the same fortify string check,
	 * whole object and struct member.
	 */
	HP_PROBE(fortify, strscpy, HP_SAFE,
		 .lkdtm = HP_LIST("FORTIFY_STRSCPY")),
	HP_PROBE(fortify, strcpy, HP_SAFE,
		 .lkdtm = HP_LIST("FORTIFY_STR_OBJECT", "FORTIFY_STR_MEMBER")),
	HP_PROBE(fortify, memcpy, HP_SAFE,
		 .lkdtm = HP_LIST("FORTIFY_MEM_OBJECT")),
	HP_PROBE(fortify, memset, HP_SAFE),
	HP_PROBE(fortify, memcpy_field_spanning, HP_SAFE, .warns = 1,
		 .reports = "detected field-spanning write",
		 .lkdtm = HP_LIST("FORTIFY_MEM_MEMBER")),
	/* __fortify_panic() WARNs, then BUGs */
	HP_PROBE(fortify, strcpy_bug, HP_FATAL, .signature = HP_FO_SIG_STRCPY, .warns = 1,
		 .reports = "detected buffer overflow"),
};

HP_FEATURE(fortify, .layers = hp_fo_layers, .khc = "CONFIG_FORTIFY_SOURCE",
	   .off = HP_LIST("CONFIG_FORTIFY_SOURCE=n"));
