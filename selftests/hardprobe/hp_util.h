/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe kselftests: what hardprobe_test, hardprobe_fuzz and hardprobe_trust
 * share: the KTAP header and result line (kselftest.h's counters and exit
 * codes), JSON and debugfs file helpers, the probe list, and markers in the
 * kernel log with a scanner for what follows them. The verdict of an outcome
 * is the module's alone: hardprobe_test looks it up in the rules the module
 * exports (hp_verdict()).
 */
#ifndef HP_UTIL_H
#define HP_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "hp_compiler.h"

/* the module's debugfs directory (a host test may point it elsewhere) */
#ifndef HP_DIR
#define HP_DIR		"/sys/kernel/debug/hardprobe"
#endif
#define HP_PARAM	"/sys/module/hardprobe/parameters/allow_fatal"
#define MAX_PROBES	256
#define LINE		1024

struct probe {
	char name[64], feature[64], kind[16], signature[256];
	bool configured;
};

static struct probe probes[MAX_PROBES];
static int nr_probes;

/*
 * ksft_print_header() with the header line the bench's judge and the kernel's
 * kunit.py read: "KTAP version 1" (kselftest.h prints "TAP version 13"), and,
 * like it, none under a runner that printed its own (KSFT_TAP_LEVEL), and
 * stdout line-buffered (no line written twice by a fork()ed child).
 */
static inline void hp_print_header(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!getenv("KSFT_TAP_LEVEL"))
		printf("KTAP version 1\n");
}

/*
 * One result line through kselftest.h's counters: "ok N name", "not ok N name",
 * "ok N name # SKIP" (@ok with @directive "SKIP") or "not ok N name # ERROR"
 * (@directive "ERROR", "TIMEOUT"). The line itself never changes from run to
 * run: CI parsers (Linaro's, as KernelCI and LKFT use it) append a SKIP's
 * reason to the test name, so the reason (@fmt, which may hold counts, paths
 * or bytes) goes on a "# name: reason" diagnostic line before it. Without a
 * directive, @fmt is not printed. '#' and newlines in the reason become spaces.
 */
static inline void result(bool ok, const char *name, const char *directive,
			  const char *fmt, ...)
{
	char why[LINE];
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (p = why; *p; p++)
		if (*p == '#' || *p == '\n')
			*p = ' ';
	if (directive && why[0])
		printf("# %s: %s: %s\n", name, ok ? "skip" : directive, why);
	if (!directive)
		ksft_test_result_code(ok ? KSFT_PASS : KSFT_FAIL, name, NULL);
	else if (ok)
		ksft_test_result_code(KSFT_SKIP, name, NULL);
	else
		ksft_test_result_code(KSFT_FAIL, name, "%s", directive);
}

/* After @key (a quoted JSON key) in [@p, @end): its value, or NULL. */
static inline const char *hp_json_value(const char *p, const char *end, const char *key)
{
	size_t n = strlen(key);

	for (; (p = strstr(p, key)) && p + n < end; p += n) {
		const char *v = p + n;

		while (v < end && (*v == ' ' || *v == '\n' || *v == '\t'))
			v++;
		if (v < end && *v == ':') {
			for (v++; v < end && (*v == ' ' || *v == '\n' || *v == '\t'); v++)
				;
			return v < end ? v : NULL;
		}
	}
	return NULL;
}

/* The string value of @key in [@p, @end) into @out; false if there is none. */
static inline bool hp_json_string(const char *p, const char *end, const char *key,
				  char *out, size_t len)
{
	const char *v = hp_json_value(p, end, key), *q;

	if (!v || *v != '"')
		return false;
	q = memchr(v + 1, '"', end - v - 1);
	if (!q)
		return false;
	snprintf(out, len, "%.*s", (int)(q - v - 1), v + 1);
	return true;
}

/* The boolean value of @key in [@p, @end) into @out; false if there is none. */
static inline bool hp_json_bool(const char *p, const char *end, const char *key, bool *out)
{
	const char *v = hp_json_value(p, end, key);

	if (!v)
		return false;
	if (end - v >= 4 && !strncmp(v, "true", 4))
		*out = true;
	else if (end - v >= 5 && !strncmp(v, "false", 5))
		*out = false;
	else
		return false;
	return true;
}

/*
 * One past the bracket that closes the object or array opening at @p, within
 * @end (strings and their escapes skipped), or NULL when it is not closed.
 */
static inline const char *hp_json_close(const char *p, const char *end)
{
	bool str = false;
	int depth = 0;

	for (; p < end; p++) {
		if (str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				str = false;
		} else if (*p == '"') {
			str = true;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && !--depth) {
			return p + 1;
		}
	}
	return NULL;
}

static inline int write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	n = n < 0 ? -errno : n;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* (Re)read the module's list of probes into probes[]; 0, or -errno. */
static inline int load_probes(void)
{
	char line[LINE];
	FILE *f = fopen(HP_DIR "/probes", "r");

	nr_probes = 0;
	if (!f)
		return -errno;
	while (nr_probes < MAX_PROBES && fgets(line, sizeof(line), f)) {
		struct probe *p = &probes[nr_probes];
		char conf[4];

		if (sscanf(line, "%63s %63s %15s %3s %255[^\n]", p->name,
			   p->feature, p->kind, conf, p->signature) != 5)
			continue;
		p->configured = conf[0] == 'y';
		nr_probes++;
	}
	fclose(f);
	return 0;
}

/* Write a unique marker, "hardprobe-selftest: <word> <name> ...", into the kernel log. */
static inline void mark_word(char *marker, size_t len, const char *word, const char *name)
{
	static unsigned int n;
	struct timespec ts;
	char line[LINE];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(marker, len, "hardprobe-selftest: %s %s %d-%u-%ld", word, name,
		 getpid(), ++n, ts.tv_nsec);
	snprintf(line, sizeof(line), "<6>%s\n", marker);
	write_file("/dev/kmsg", line, strlen(line));
}

/* Write a unique marker into the kernel log. */
static inline void mark(char *marker, size_t len, const char *name)
{
	mark_word(marker, len, "begin", name);
}

/*
 * Read the kernel log from its start, one message at a time: @fn gets each
 * message's text without its newline, or NULL where records were overwritten
 * before they were read, and returns false to stop. 0, or -errno when
 * /dev/kmsg cannot be opened.
 */
static inline int kmsg_each(bool (*fn)(const char *msg, void *arg), void *arg)
{
	char rec[8192];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	for (;;) {
		char *msg, *nl;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE) {
			if (!fn(NULL, arg))
				break;
			continue;
		}
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		nl = strchr(++msg, '\n');
		if (nl)
			*nl = '\0';
		if (!fn(msg, arg))
			break;
	}
	close(fd);
	return 0;
}

/* log_scan()'s state */
struct log_scan_state {
	const char *marker;
	bool (*match)(const char *msg, const void *arg);
	const void *arg;
	bool first, after, lost;
	char *out;
	size_t len;
	long found;
};

static inline bool log_scan_msg(const char *msg, void *arg)
{
	struct log_scan_state *st = arg;

	if (!msg) {
		st->lost |= st->after;	/* overwritten records: after the marker? */
		return true;
	}
	if (strstr(msg, st->marker)) {
		st->after = true;
		return true;
	}
	if (st->after && st->match(msg, st->arg)) {
		if (!st->found++)
			snprintf(st->out, st->len, "%s", msg);
		if (st->first)
			return false;
	}
	return true;
}

/*
 * Scan the kernel log after @marker for messages @match accepts; copy the
 * first into @out. Returns how many matched (stops at the first if @first),
 * or a negative errno when the scan cannot vouch for the log after @marker:
 * -ENOENT if the marker is not in the log (overwritten: the buffer wrapped;
 * or never written), -EPIPE if records after it were overwritten before they
 * were read. Either way "no match" would be a claim about unread messages.
 */
static inline long log_scan(const char *marker,
			    bool (*match)(const char *msg, const void *arg),
			    const void *arg, bool first, char *out, size_t len)
{
	struct log_scan_state st = { .marker = marker, .match = match, .arg = arg,
				     .first = first, .out = out, .len = len };
	int err = kmsg_each(log_scan_msg, &st);

	if (err)
		return err;
	if (!st.after)
		return -ENOENT;
	return st.lost && !(first && st.found) ? -EPIPE : st.found;
}

static inline bool match_needle(const char *msg, const void *needle)
{
	return strstr(msg, needle);
}

/* Find @needle in the kernel log after @marker; the message goes to @out. */
static inline bool log_find(const char *marker, const char *needle, char *out, size_t len)
{
	return log_scan(marker, match_needle, needle, true, out, len) > 0;
}

/*
 * A catch is the kernel's message, never the module's own: a probe that
 * survived may quote the very address a fault line would name (pac_ret's
 * label) in its "hardprobe: result" line.
 */
static inline bool match_kernel_needle(const char *msg, const void *needle)
{
	return strncmp(msg, "hardprobe: ", 11) && strstr(msg, needle);
}

/* The kernel's own message with @needle after @marker (see match_kernel_needle()). */
static inline bool log_find_catch(const char *marker, const char *needle, char *out,
				  size_t len)
{
	return log_scan(marker, match_kernel_needle, needle, true, out, len) > 0;
}

/*
 * The task a WARN()'s first line names: "WARNING: CPU: 0 PID: 50 at
 * lib/x.c:1 f+0x1/0x2" up to 6.x, "WARNING: lib/x.c:1 at f+0x1/0x2, CPU#0:
 * comm/50" in 7.x (the comm may hold a '/': the pid follows the last one);
 * without a file (CONFIG_DEBUG_BUGVERBOSE=n) "WARNING: CPU: 0 PID: 50 at f+0x1/0x2"
 * and "WARNING: at f+0x1/0x2, CPU#0: comm/50". False for any other line
 * (lockdep's and RCU's "WARNING: possible ..."). The one parser of the
 * selftests; hptool/findings.py's warn_pid() and the module's
 * hp_warn_header_pid() keep the same rule, scripts/tests/logs/warn-headers.txt
 * is the corpus the host tests hold both to.
 */
static inline bool warn_header_pid(const char *msg, long *pid)
{
	const char *cpu, *slash;
	char *end;
	int c;

	if (sscanf(msg, "WARNING: CPU: %d PID: %ld at ", &c, pid) == 2)
		return true;
	if (strncmp(msg, "WARNING: ", 9))
		return false;
	cpu = strstr(msg + 9, ", CPU#");
	slash = strrchr(msg, '/');
	if (!cpu || !slash || slash < cpu)
		return false;
	if (slash[1] < '0' || slash[1] > '9')
		return false;
	*pid = strtol(slash + 1, &end, 10);
	return !*end;
}

/*
 * The WARN()s of tasks other than @pid in a window of the log, from the line
 * holding @marker to the one holding @end (their headers: a report without
 * one stays the probe's).
 */
struct warn_window {
	const char *marker, *end;
	long pid;
	long count;
	int state;	/* 0: before @marker, 1: inside, 2: after @end */
};

/* One message of the log, in order. */
static inline void warn_window_feed(struct warn_window *w, const char *msg)
{
	long pid;

	if (w->state == 0 && strstr(msg, w->marker))
		w->state = 1;
	else if (w->state == 1 && strstr(msg, w->end))
		w->state = 2;
	else if (w->state == 1 && warn_header_pid(msg, &pid) && pid != w->pid)
		w->count++;
}

/*
 * A report is being printed: one of the last REPORT_LINES messages opened a
 * report ("cut here": a WARN, a UBSAN report, an oops) that no end of trace
 * closed yet. A WARN prints its header, its registers and stack trace, then
 * counts itself in warn_count, then "---[ end trace".
 */
#define REPORT_LINES	128
struct report_state {
	unsigned char kind[REPORT_LINES];	/* 1: opens a report, 2: closes one */
	unsigned long lines;
};

static inline void report_state_feed(struct report_state *r, const char *msg)
{
	r->kind[r->lines++ % REPORT_LINES] =
		!strncmp(msg, "------------[ cut here ]", 24) ? 1 :
		!strncmp(msg, "---[ end trace", 14) ? 2 : 0;
}

static inline bool report_state_open(const struct report_state *r)
{
	unsigned long i = r->lines > REPORT_LINES ? r->lines - REPORT_LINES : 0;
	long open = 0;

	for (; i < r->lines; i++) {
		if (r->kind[i % REPORT_LINES] == 1)
			open++;
		else if (r->kind[i % REPORT_LINES] == 2 && open)
			open--;
	}
	return open;
}

struct warn_window_state {
	struct warn_window *w;
	bool lost;
};

static inline bool warn_window_msg(const char *msg, void *arg)
{
	struct warn_window_state *st = arg;

	if (!msg)
		st->lost |= st->w->state == 1;
	else
		warn_window_feed(st->w, msg);
	return st->w->state != 2;
}

/*
 * Feed the kernel log to @w: 0, or a negative errno (-ENOENT: @w->marker is
 * not in the log, -EPIPE: lines of the window were overwritten unread).
 */
static inline int log_warn_window(struct warn_window *w)
{
	struct warn_window_state st = { .w = w };
	int err = kmsg_each(warn_window_msg, &st);

	return err ? err : !w->state ? -ENOENT : st.lost ? -EPIPE : 0;
}

static inline bool report_state_msg(const char *msg, void *arg)
{
	if (msg)
		report_state_feed(arg, msg);
	return true;
}

/* Whether a report is being printed now (report_state_open()); false if unreadable. */
static inline bool log_report_open(void)
{
	struct report_state r = { .lines = 0 };

	return !kmsg_each(report_state_msg, &r) && report_state_open(&r);
}

/*
 * Wait up to 50 ms for no report to be open, before warn_count is read at
 * either end of a run: a WARN another task began before the run is then
 * counted before it, one it began in the run is counted in it.
 */
static inline void log_settle(void)
{
	int i;

	for (i = 0; i < 50 && log_report_open(); i++)
		usleep(1000);
}

/* Read a one-line text file into @buf without its newline; 0 or -errno. */
static inline int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return err;
}

static inline long read_long(const char *path)
{
	char buf[32];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

#endif /* HP_UTIL_H */
