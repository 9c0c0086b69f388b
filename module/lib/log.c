// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe log search: the kernel log after a probe's marker line, which
 * is where its catch (or its absence) is found. A leaf.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../hardprobe.h"
#include "log.h"

/* the record of the last marker found: a hint, a wrong one only costs a rescan */
static u64 hp_log_seen;

static void hp_scan_copy(struct hp_scan *sc, char *text)
{
	if (!sc->line)
		return;
	/* drop the "[    4.386934] " time stamp */
	if (text[0] == '[' && strstr(text, "] "))
		text = strstr(text, "] ") + 2;
	strscpy(sc->line, strim(text), sc->len);
}

/* The record's text: past its "[    4.386934] " time stamp and "[  T123] " caller. */
static const char *hp_scan_text(const char *buf)
{
	int i;

	for (i = 0; i < 2 && buf[0] == '[' && strstr(buf, "] "); i++)
		buf = strstr(buf, "] ") + 2;
	return buf;
}

/*
 * A marker or a stop line is a record of its own that begins with it (the
 * module's "hardprobe: " may come first), never a quote of it somewhere in
 * another record: the command line, echoed into the log at boot, can hold
 * any text.
 */
static bool hp_scan_anchored(const char *buf, const char *needle)
{
	size_t n = strlen(needle);

	buf = hp_scan_text(buf);
	if (!strncmp(buf, needle, n))
		return true;
	return str_has_prefix(buf, "hardprobe: ") &&
	       !strncmp(buf + strlen("hardprobe: "), needle, n);
}

/* Whether the log line @buf holds @needle (begins with it, for @sc->at_start). */
static bool hp_scan_match(const struct hp_scan *sc, const char *buf, const char *needle)
{
	if (!sc->at_start)
		return strstr(buf, needle);
	return !strncmp(hp_scan_text(buf), needle, strlen(needle));
}

/* Where a pass is: what hp_scan_line() keeps from one line to the next. */
struct hp_scan_pos {
	unsigned int since_tie, nr;
	unsigned int pending[HP_TIE_MAX];	/* lines left to meet the tie, per needle */
	u64 mark;
};

/* One line of the log, numbered @seq; false: the pass ends here (@sc->stop). */
static bool hp_scan_line(struct hp_scan *sc, struct hp_scan_pos *pos, char *buf, u64 seq)
{
	unsigned int i;

	if (pos->nr++ < HP_BOOT_LINES && strstr(buf, "Linux version "))
		sc->boot = true;
	if (sc->stop && hp_scan_anchored(buf, sc->stop))
		return false;
	if (sc->marker && hp_scan_anchored(buf, sc->marker)) {
		sc->marked = true;
		pos->mark = seq;
		pos->since_tie = UINT_MAX;
		memset(pos->pending, 0, sizeof(pos->pending));
		memset(sc->found, 0, sc->n * sizeof(*sc->found));
		return true;
	}
	if (!sc->marked)
		return true;
	if (sc->tie) {
		unsigned int w = sc->tie_lines ?: HP_TIE_LINES;

		pos->since_tie = strstr(buf, sc->tie) ? 0 :
				 pos->since_tie == UINT_MAX ? UINT_MAX : pos->since_tie + 1;
		/*
		 * a needle's line counts once the task's line is within @w
		 * lines of it, before or after; the last line holding
		 * needles[0] not yet counted is the evidence
		 */
		for (i = 0; i < min_t(unsigned int, sc->n, HP_TIE_MAX); i++) {
			if (sc->found[i] || !sc->needles[i])
				continue;
			if (hp_scan_match(sc, buf, sc->needles[i])) {
				if (!i)
					hp_scan_copy(sc, buf);
				pos->pending[i] = w + 1;
			}
			if (pos->pending[i] && pos->since_tie <= w)
				sc->found[i] = true;
			pos->pending[i] -= !!pos->pending[i];
		}
	}
	for (i = sc->tie ? HP_TIE_MAX : 0; i < sc->n; i++) {
		if (sc->found[i] || !sc->needles[i] ||
		    !hp_scan_match(sc, buf, sc->needles[i]))
			continue;
		sc->found[i] = true;
		if (!i)
			hp_scan_copy(sc, buf);
	}
	return true;
}

/* The lines of @sc->text (a copy of the log taken at a catch), one by one. */
static void hp_scan_text_lines(struct hp_scan *sc, struct hp_scan_pos *pos, char *buf)
{
	const char *t = sc->text, *nl;
	u64 seq = 0;
	size_t k;

	for (; *t; t = nl ? nl + 1 : t + k, seq++) {
		nl = strchr(t, '\n');
		k = nl ? nl - t : strlen(t);
		memcpy(buf, t, min_t(size_t, k, 1023));
		buf[min_t(size_t, k, 1023)] = '\0';
		if (!hp_scan_line(sc, pos, buf, seq))
			break;
	}
}

/*
 * One pass over the kernel log (or over @sc->text): for each needle
 * whether a line after the last line holding the marker holds it.
 *
 * A marker is printed right before the search for it, after the markers of
 * earlier searches: the pass starts at the last marker found, and goes
 * back to the start of the log only if the marker is not there.
 */
unsigned int hp_log_scan(struct hp_scan *sc)
{
	struct hp_scan_pos pos = { .since_tie = UINT_MAX };
	unsigned int i, hits = 0;
	struct kmsg_dump_iter iter;
	bool rescan = false;
	u64 from, seq;
	size_t k;
	char *buf;

	sc->marked = !sc->marker;
	sc->boot = false;
	memset(sc->found, 0, sc->n * sizeof(*sc->found));
	buf = kmalloc(1024, GFP_KERNEL);
	if (!buf)
		return 0;
	if (sc->text) {
		hp_scan_text_lines(sc, &pos, buf);
		goto out;
	}
	kmsg_dump_rewind(&iter);
	from = READ_ONCE(hp_log_seen);
	if (sc->marker && from > iter.cur_seq && from < iter.next_seq) {
		iter.cur_seq = from;
		rescan = true;
	}
again:
	for (seq = iter.cur_seq; kmsg_dump_get_line(&iter, false, buf, 1023, &k);
	     seq = iter.cur_seq) {
		buf[k] = '\0';
		if (!hp_scan_line(sc, &pos, buf, seq))
			break;
	}
	if (rescan && !sc->marked) {
		kmsg_dump_rewind(&iter);
		rescan = false;
		pos.nr = 0;
		goto again;
	}
	if (sc->marker && sc->marked)
		WRITE_ONCE(hp_log_seen, pos.mark);
out:
	kfree(buf);
	for (i = 0; i < sc->n; i++)
		hits += sc->found[i];
	return hits;
}

/**
 * hp_log_find() - search the kernel log after a marker line
 * @marker: text of the line that starts the search (exclusive), or NULL
 *	to search the whole log
 * @needle: text to find in a later line
 * @line: where to copy the matching line (may be NULL)
 * @len: size of @line
 *
 * Return: true if a line after the last line holding @marker holds @needle;
 * @line then holds the first such line.
 */
bool hp_log_find(const char *marker, const char *needle, char *line,
		 size_t len)
{
	bool found;

	return hp_log_find_all(marker, &needle, 1, &found, line, len) == 1;
}

/**
 * hp_log_find_all() - search the kernel log after a marker for several needles
 * @marker: as for hp_log_find()
 * @needles: texts to find in later lines (NULL entries are skipped)
 * @n: number of @needles
 * @found: set per needle: found after the last @marker line
 * @line: where to copy the first line holding needles[0] (may be NULL)
 * @len: size of @line
 *
 * One pass over the log, where hp_log_find() per needle would make @n.
 * After a marker, a needle counts only in a report of the calling task: its
 * "PID: <pid> " line (dump_stack()'s, a WARNING's) within
 * HP_TIE_REPORT_LINES lines; a report another task printed meanwhile (two
 * CPUs) is not this probe's catch.
 *
 * Return: how many of @needles were found.
 */
unsigned int hp_log_find_all(const char *marker, const char *const *needles,
			     unsigned int n, bool *found, char *line, size_t len)
{
	struct hp_scan sc = { .marker = marker, .needles = needles, .n = n,
			      .found = found, .line = line, .len = len,
			      .tie_lines = HP_TIE_REPORT_LINES };
	char tie[24];

	if (marker) {
		snprintf(tie, sizeof(tie), " PID: %d ", task_pid_nr(current));
		sc.tie = tie;
	}
	return hp_log_scan(&sc);
}

/**
 * hp_log_find_printed() - search after a marker for a line printed on request
 * @marker: as for hp_log_find()
 * @needle: text to find in a later line
 * @line: where to copy the matching line (may be NULL)
 * @len: size of @line
 *
 * For the lines the probe had the kernel print for it (kmem_dump_obj()'s,
 * after its own "hp_obj <n>:"), which are no report and hold no "PID: "
 * line to tie them to the task: the marker and the needle are the probe's own.
 *
 * Return: true if a line after the last line holding @marker holds @needle.
 */
bool hp_log_find_printed(const char *marker, const char *needle, char *line, size_t len)
{
	bool found;
	struct hp_scan sc = { .marker = marker, .needles = &needle, .n = 1,
			      .found = &found, .line = line, .len = len };

	return hp_log_scan(&sc) == 1;
}

/**
 * hp_log_find_boot() - search the whole kernel log, and say if it is whole
 * @needles: texts a line begins with (after its time stamp): the kernel's
 *	own lines, not quotes of them in later ones (NULL entries are skipped)
 * @n: number of @needles
 * @found: set per needle: a line of the log begins with it
 * @line: where to copy the first line beginning with needles[0] (may be NULL)
 * @len: size of @line
 * @stop: text of the line where the search ends (NULL: the log's end), for
 *	needles the boot prints before it ("as init process")
 * @whole: set if the log still starts with the boot (its banner, "Linux
 *	version ...", within its first lines): then a needle not found was
 *	never printed in this boot (before @stop)
 *
 * Return: how many of @needles were found.
 */
unsigned int hp_log_find_boot(const char *const *needles, unsigned int n, bool *found,
			      char *line, size_t len, const char *stop, bool *whole)
{
	struct hp_scan sc = { .needles = needles, .n = n, .found = found,
			      .line = line, .len = len, .at_start = true,
			      .stop = stop };
	unsigned int hits = hp_log_scan(&sc);

	*whole = sc.boot;
	return hits;
}

/**
 * hp_log_seq() - where the kernel log ends now
 *
 * Return: the sequence number the log's next record will get, for
 * hp_log_foreign_warns().
 */
u64 hp_log_seq(void)
{
	struct kmsg_dump_iter iter;

	kmsg_dump_rewind(&iter);
	return iter.next_seq;
}

/*
 * The task a WARN's header names: "WARNING: CPU: 1 PID: 42 at ..." (6.x),
 * "WARNING: <file>:<line> at <func>, CPU#1: <comm>/42" (7.x; "WARNING: at
 * <func>, ..." without the file). False for any other line, or a header
 * this parser does not know. The selftests' warn_header_pid() and hptool's
 * findings.warn_pid() keep the same rule; scripts/tests/logs/warn-headers.txt
 * is their corpus.
 */
static bool hp_warn_header_pid(const char *text, pid_t *pid)
{
	const char *slash;
	int cpu, v;

	if (!str_has_prefix(text, "WARNING: "))
		return false;
	if (sscanf(text, "WARNING: CPU: %d PID: %d at ", &cpu, &v) == 2) {
		*pid = v;
		return true;
	}
	/* the comm may hold a '/' ("swapper/1"): the pid follows the last one */
	slash = strrchr(text, '/');
	if (!strstr(text, ", CPU#") || !slash || slash < strstr(text, ", CPU#") ||
	    kstrtoint(slash + 1, 10, &v))
		return false;
	*pid = v;
	return true;
}

/*
 * A report is being printed: one of the last HP_REPORT_LINES records opened
 * a report ("cut here": a WARN, a UBSAN report, an oops) that no end of
 * trace has closed yet. A WARN prints its header, its registers and stack
 * trace, then counts itself (check_panic_on_warn()), then "---[ end trace".
 */
#define HP_REPORT_LINES	128
/* how long hp_log_settle() waits for an open report to close */
#define HP_SETTLE_MS	50

static bool hp_log_report_open(char *buf)
{
	struct kmsg_dump_iter iter;
	unsigned int open = 0;
	const char *text;
	size_t k;

	kmsg_dump_rewind(&iter);
	if (iter.next_seq > HP_REPORT_LINES && iter.next_seq - HP_REPORT_LINES > iter.cur_seq)
		iter.cur_seq = iter.next_seq - HP_REPORT_LINES;
	while (kmsg_dump_get_line(&iter, false, buf, 1023, &k)) {
		buf[k] = '\0';
		text = hp_scan_text(buf);
		if (str_has_prefix(text, "------------[ cut here ]"))
			open++;
		else if (str_has_prefix(text, "---[ end trace"))
			open -= !!open;
	}
	return open;
}

/**
 * hp_log_settle() - wait until no report is being printed, for a while
 *
 * Before warn_count is read at either end of a probe's run: a WARN another
 * task began before the run is then counted before it, and one it began in
 * the run is counted in it, so that hp_log_foreign_warns() can take out
 * exactly the WARNs warn_count holds. After HP_SETTLE_MS of an open report
 * it returns anyway: the count is then read as it is.
 */
void hp_log_settle(void)
{
	unsigned int i;
	char *buf;

	buf = kmalloc(1024, GFP_KERNEL);
	if (!buf)
		return;
	for (i = 0; i < HP_SETTLE_MS && hp_log_report_open(buf); i++)
		usleep_range(1000, 1100);
	kfree(buf);
}

/**
 * hp_log_foreign_warns() - WARNs other tasks raised in a window of the log
 * @from: hp_log_seq() when the window opened
 * @to: hp_log_seq() when it closed
 * @pid: the task whose warnings are its own
 *
 * warn_count is the machine's: a WARN another CPU raises while a probe runs
 * (an idle task's, a kworker's) counts there too. A WARN's header names its
 * task; the headers in [@from, @to) that name another task are counted here.
 * A header that cannot be read, a report without a WARN header (UBSAN's,
 * KASAN's), or one lost to a wrapped log is not counted: it stays the probe's.
 *
 * Return: how many WARN headers in the window name a task other than @pid.
 */
unsigned int hp_log_foreign_warns(u64 from, u64 to, pid_t pid)
{
	struct kmsg_dump_iter iter;
	unsigned int n = 0;
	pid_t who;
	char *buf;
	size_t k;

	buf = kmalloc(1024, GFP_KERNEL);
	if (!buf)
		return 0;
	kmsg_dump_rewind(&iter);
	if (from > iter.cur_seq)
		iter.cur_seq = from;
	if (to < iter.next_seq)
		iter.next_seq = to;
	while (kmsg_dump_get_line(&iter, false, buf, 1023, &k)) {
		buf[k] = '\0';
		if (hp_warn_header_pid(hp_scan_text(buf), &who) && who != pid)
			n++;
	}
	kfree(buf);
	return n;
}
