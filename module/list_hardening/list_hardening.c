// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe list_hardening: list_add() and list_del() on a corrupted private
 * list. With CONFIG_LIST_HARDENED (and no CONFIG_DEBUG_LIST) <linux/list.h>
 * checks inline that next->prev == prev, prev->next == next and new is
 * neither (add), and that prev->next == entry and next->prev == entry (del);
 * only when one fails does it call the out-of-line report, which also
 * checks for NULL and poison pointers, warns ("list_add corruption. ...")
 * and refuses the operation. CONFIG_DEBUG_LIST calls the full out-of-line
 * check every time. With CONFIG_BUG_ON_DATA_CORRUPTION the report BUG()s,
 * so the probes become fatal.
 *
 * Protected: the operation was refused (the list is unchanged) and the
 * report is in the log after the probe's marker. The positive control is a
 * hand-written, unchecked pointer update on a copy of the corrupted list,
 * which goes through. A double list_del (poisoned pointers) is not probed:
 * without DEBUG_LIST the inline check dereferences the poison and faults.
 *
 * The list is head, a, b, c. add_corrupt: list_add() after a when b->prev no
 * longer points at a ("list_add corruption. next->prev should be prev");
 * del_bad_prev, del_bad_next: list_del(b) when a->next or c->prev no longer
 * points at b ("list_del corruption. prev->next should be", "list_del
 * corruption. next->prev should be"). The list operations run in noinline
 * helpers so that the compiler cannot fold the checks. A refusal without
 * the report in the log is an error. The report WARNs every time; under
 * panic_on_warn (without BUG_ON_DATA_CORRUPTION) the probes say unsupported.
 * The built layer says which check applies.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/list.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "../hardprobe.h"

#define HP_LIST_KIND (IS_ENABLED(CONFIG_BUG_ON_DATA_CORRUPTION) ? HP_FATAL : HP_SAFE)

#define HP_LIST_SIG_ADD		"list_add corruption. next->prev should be prev"
#define HP_LIST_SIG_DEL_PREV	"list_del corruption. prev->next should be"
#define HP_LIST_SIG_DEL_NEXT	"list_del corruption. next->prev should be"

/* a private list: head <-> a <-> b <-> c, and a stray entry */
struct hp_list {
	struct list_head head, a, b, c, stray, new;
};

static atomic_t hp_list_seq = ATOMIC_INIT(0);

static void hp_list_build(struct hp_list *l)
{
	INIT_LIST_HEAD(&l->head);
	list_add_tail(&l->a, &l->head);
	list_add_tail(&l->b, &l->head);
	list_add_tail(&l->c, &l->head);
	INIT_LIST_HEAD(&l->stray);
	INIT_LIST_HEAD(&l->new);
}

/* out of line, so the compiler cannot fold the checks on known pointers */
static noinline void hp_list_add(struct list_head *new, struct list_head *head)
{
	list_add(new, head);
}

static noinline void hp_list_del(struct list_head *entry)
{
	list_del(entry);
}

static bool hp_list_refuse(struct hp_result *r)
{
	if (!IS_ENABLED(CONFIG_BUG_ON_DATA_CORRUPTION) && hp_warn_panics()) {
		hp_set(r, HP_UNSUPPORTED,
		       "panic_on_warn is set: the corruption warning would panic the kernel");
		return true;
	}
	return false;
}

static void hp_list_judge(struct hp_result *r, const char *marker, const char *sig,
			  bool unchanged, const char *what)
{
	char line[160];
	bool logged = hp_log_find(marker, sig, line, sizeof(line));

	if (unchanged && logged)
		hp_set(r, HP_PROTECTED,
		       "%s refused, list unchanged; control went through; log: %s", what, line);
	else if (unchanged)
		hp_set(r, HP_ERROR, "%s left the list unchanged but no '%s' in the log",
		       what, sig);
	else
		hp_set(r, HP_VULNERABLE,
		       "%s went through on the corrupted list; control too; log: %s", what,
		       logged ? line : "nothing");
}

static void hp_list_mark(char *marker, size_t len, const char *what)
{
	snprintf(marker, len, "list %s [%d]", what, atomic_inc_return(&hp_list_seq));
	pr_info("%s\n", marker);
}

/* list_add(new, a) where b->prev no longer points back at a */
static void hp_list_hardening_add_corrupt(struct hp_result *r)
{
	struct hp_list l, ctl;
	char marker[48];

	if (hp_list_refuse(r))
		return;
	hp_list_build(&ctl);
	ctl.b.prev = &ctl.stray;
	/* control: __list_add without validation, by hand */
	ctl.b.prev = &ctl.new;
	ctl.new.next = &ctl.b;
	ctl.new.prev = &ctl.a;
	WRITE_ONCE(ctl.a.next, &ctl.new);
	if (ctl.a.next != &ctl.new || ctl.b.prev != &ctl.new) {
		hp_set(r, HP_INCONCLUSIVE, "control: the unchecked add did not link the entry");
		return;
	}

	hp_list_build(&l);
	l.b.prev = &l.stray;
	hp_list_mark(marker, sizeof(marker), "add corrupted");
	hp_list_add(&l.new, &l.a);
	hp_list_judge(r, marker, HP_LIST_SIG_ADD,
		      l.a.next == &l.b && l.b.prev == &l.stray && l.new.next == &l.new,
		      "list_add after an entry whose next->prev is wrong");
}

/* list_del(b) where a->next (prev) or c->prev (next) no longer points at b */
static void hp_list_del_corrupt(struct hp_result *r, bool bad_prev)
{
	struct hp_list l, ctl;
	const char *what = bad_prev ? "list_del of an entry whose prev->next is wrong" :
			   "list_del of an entry whose next->prev is wrong";
	char marker[48];

	if (hp_list_refuse(r))
		return;
	hp_list_build(&ctl);
	if (bad_prev)
		ctl.a.next = &ctl.stray;
	else
		ctl.c.prev = &ctl.stray;
	/* control: __list_del without validation, by hand */
	ctl.b.next->prev = ctl.b.prev;
	WRITE_ONCE(ctl.b.prev->next, ctl.b.next);
	if (ctl.a.next != &ctl.c || ctl.c.prev != &ctl.a) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the unchecked delete did not unlink the entry");
		return;
	}

	hp_list_build(&l);
	if (bad_prev)
		l.a.next = &l.stray;
	else
		l.c.prev = &l.stray;
	hp_list_mark(marker, sizeof(marker), "del corrupted");
	/* a refused list_del() still poisons the entry itself: b is not looked at */
	hp_list_del(&l.b);
	if (bad_prev)
		hp_list_judge(r, marker, HP_LIST_SIG_DEL_PREV,
			      l.a.next == &l.stray && l.c.prev == &l.b, what);
	else
		hp_list_judge(r, marker, HP_LIST_SIG_DEL_NEXT,
			      l.a.next == &l.b && l.c.prev == &l.stray, what);
}

static void hp_list_hardening_del_bad_prev(struct hp_result *r)
{
	hp_list_del_corrupt(r, true);
}

static void hp_list_hardening_del_bad_next(struct hp_result *r)
{
	hp_list_del_corrupt(r, false);
}

static void hp_list_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_LIST_HARDENED) || IS_ENABLED(CONFIG_DEBUG_LIST);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_LIST_HARDENED=%s, CONFIG_DEBUG_LIST=%s, CONFIG_BUG_ON_DATA_CORRUPTION=%s",
		 IS_ENABLED(CONFIG_LIST_HARDENED) ? "y" : "n",
		 IS_ENABLED(CONFIG_DEBUG_LIST) ? "y" : "n",
		 IS_ENABLED(CONFIG_BUG_ON_DATA_CORRUPTION) ? "y" : "n");
	if (IS_ENABLED(CONFIG_DEBUG_LIST))
		hp_layer(l->built, sizeof(l->built),
			 "every list_add/list_del calls the full out-of-line check");
	else if (IS_ENABLED(CONFIG_LIST_HARDENED))
		hp_layer(l->built, sizeof(l->built),
			 "inline link checks; NULL/poison checked only in the out-of-line report");
	else
		hp_layer(l->built, sizeof(l->built), "no list checks in <linux/list.h>");
	hp_layer(l->active, sizeof(l->active), "%s",
		 !l->configured ? "off" :
		 IS_ENABLED(CONFIG_BUG_ON_DATA_CORRUPTION) ? "corruption: BUG()" :
		 "corruption: WARN and refuse the operation");
}

static const struct hp_probe hp_probes_list_hardening[] = {
	HP_PROBE(list_hardening, add_corrupt, HP_LIST_KIND,
		 .signature = HP_LIST_SIG_ADD, .warns = 1, .reports = "list_add ",
		 .lkdtm = HP_LIST("CORRUPT_LIST_ADD")),
	HP_PROBE(list_hardening, del_bad_prev, HP_LIST_KIND,
		 .signature = HP_LIST_SIG_DEL_PREV, .warns = 1, .reports = "list_del corruption"),
	HP_PROBE(list_hardening, del_bad_next, HP_LIST_KIND,
		 .signature = HP_LIST_SIG_DEL_NEXT, .warns = 1, .reports = "list_del corruption",
		 .lkdtm = HP_LIST("CORRUPT_LIST_DEL")),
};

/*
 * kernel-hardening-checker: CONFIG_BUG_ON_DATA_CORRUPTION is not listed: the
 * probes do not provoke what it adds (BUG instead of WARN).
 */
HP_FEATURE(list_hardening, .layers = hp_list_layers, .khc = "CONFIG_LIST_HARDENED");
