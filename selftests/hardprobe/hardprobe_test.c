// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kselftest: run every hardprobe probe through debugfs and judge
 * it from the kernel messages that follow a unique marker, by the module's
 * own expectation rule: each verdict is looked up in the rules the module
 * exports in its JSON, read once before the probes (none read: every verdict
 * is an error; module_rules_complete says why). Fatal
 * probes run in a child process (a catch kills the writer). Prints KTAP
 * version 1 (kselftest.h); exits 0 (pass), 1 (a failure, or fewer results
 * than planned) or 4 (hardprobe is not loaded).
 *
 * Before the probes it reads debugfs "kstack" HP_KSTACK_READS times: each
 * read() is one syscall whose stack the kstack_offset and stack_erase
 * probes judge afterwards.
 *
 * Each safe probe runs alone after clear_warn_once (every WARN_ONCE site
 * armed again), and warn_count's rise across its run must not exceed the
 * WARN-class reports it declares ("warns_max" in the module's JSON, the
 * number its warn_limit refusal counts on): one result per safe probe,
 * warns_declared.<probe>, after the probes' own. Then the checks registered
 * in hp_checks.def (hp_checks[]), one result each.
 *
 * usage: hardprobe_test [-l] [-s] [-t seconds] [-x name]... [probe-or-feature ...]
 *	-l  print the name of every result line this run would print, one a line
 *	    (the probes only when the module is loaded), and exit
 *	-s  safe probes only (do not set allow_fatal)
 *	-x  skip the check, probe or feature @name (repeatable): its result line
 *	    is still printed, a skip, so the plan and the names do not change
 * HARDPROBE_SKIP in the environment adds names to -x's, separated by spaces or
 * commas; a name may carry the prefix "hardprobe:", as CI skip lists write a
 * kselftest name. Probe or feature arguments run only those probes (and no
 * check of the table).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hp_util.h"
#include "hp_user.h"

#define HP_KSTACK_READS	500
#define HP_WARN_COUNT	"/sys/kernel/warn_count"
#define HP_CLEAR_ONCE	"/sys/kernel/debug/clear_warn_once"

static int timeout_s = 30;

/*
 * warn_count before and after a safe probe's run (-1: unreadable), by probe,
 * and the WARN()s the log shows from other tasks meanwhile (another CPU's)
 */
static struct hp_warned {
	long before, after, foreign;
	bool cleared;	/* clear_warn_once was written first */
} warned[MAX_PROBES];

/* The skip list: -x NAME, $HARDPROBE_SKIP. */
static struct hp_skip {
	char *name;
	bool used;	/* it named a check of this run */
} *skips;
static int nr_skips;

/* The names in @list, separated by spaces or commas, onto the skip list. */
static void skip_add(const char *list)
{
	static const char sep[] = " ,\t\n";
	char *copy = list ? strdup(list) : NULL, *tok, *save = NULL;
	struct hp_skip *more;

	if (!copy)
		return;
	for (tok = strtok_r(copy, sep, &save); tok; tok = strtok_r(NULL, sep, &save)) {
		if (!strncmp(tok, "hardprobe:", 10))
			tok += 10;
		more = *tok ? realloc(skips, (nr_skips + 1) * sizeof(*skips)) : NULL;
		if (!more)
			continue;
		skips = more;
		skips[nr_skips].name = strdup(tok);
		skips[nr_skips].used = false;
		nr_skips += !!skips[nr_skips].name;
	}
	free(copy);
}

/* Is the check @name (or its feature @feature, when not NULL) on the skip list? */
static bool skipped(const char *name, const char *feature)
{
	bool hit = false;
	int i;

	for (i = 0; i < nr_skips; i++) {
		if (!strcmp(skips[i].name, name) || (feature && !strcmp(skips[i].name, feature))) {
			skips[i].used = true;
			hit = true;
		}
	}
	return hit;
}

/* A check skipped by request: its line as ever, a skip (the reason on a line of its own). */
static void skip_result(const char *name)
{
	result(true, name, "SKIP", "skipped by request");
}

/* The module's KTAP verdicts, as its JSON's "rules" spell them. */
enum hp_ktap { HP_KTAP_OK, HP_KTAP_NOT_OK, HP_KTAP_SKIP, HP_KTAP_ERROR, HP_KTAP_WORDS };

static const char *const hp_ktap_names[HP_KTAP_WORDS] = {
	[HP_KTAP_OK] = "ok",
	[HP_KTAP_NOT_OK] = "not ok",
	[HP_KTAP_SKIP] = "skip",
	[HP_KTAP_ERROR] = "error",
};

#define HP_OUTCOMES	16

/*
 * The module's expectation rule as it exports it, "rules" in debugfs "json":
 * its outcomes ("rank") and one "ktap" record per outcome, known gap and
 * configured layer. Every verdict line is looked up here (hp_verdict()); user
 * space has no rule of its own. @complete only when every combination of
 * every ranked outcome has exactly one record with a known verdict: until
 * then each verdict is an error that names @why.
 */
static struct hp_rules {
	int nr, records;
	char outcome[HP_OUTCOMES][32];
	signed char ktap[HP_OUTCOMES][2][2];	/* [outcome][known_gap][configured], -1: none */
	bool complete, unread;
	char why[LINE];
} rules = { .why = "the module's rules were not read" };

static __printf(1, 2) bool hp_rules_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rules.why, sizeof(rules.why), fmt, ap);
	va_end(ap);
	rules.complete = false;
	return false;
}

static int hp_rules_outcome(const char *outcome)
{
	int i;

	for (i = 0; i < rules.nr; i++)
		if (!strcmp(rules.outcome[i], outcome))
			return i;
	return -1;
}

/* One "ktap" record, [@rec, @end), into the table; false (and why) if it does not fit. */
static bool hp_rules_record(const char *rec, const char *end)
{
	char outcome[32], word[16];
	bool gap, conf;
	int o, k;

	rules.records++;
	if (!hp_json_string(rec, end, "\"outcome\"", outcome, sizeof(outcome)) ||
	    !hp_json_bool(rec, end, "\"known_gap\"", &gap) ||
	    !hp_json_bool(rec, end, "\"configured\"", &conf) ||
	    !hp_json_string(rec, end, "\"ktap\"", word, sizeof(word)))
		return hp_rules_fail("rules record %d: %s", rules.records,
				     "not {outcome, known_gap, configured, ktap}");
	o = hp_rules_outcome(outcome);
	if (o < 0)
		return hp_rules_fail("rules record %d: outcome \"%s\" is not in \"rank\"",
				     rules.records, outcome);
	for (k = 0; k < HP_KTAP_WORDS && strcmp(hp_ktap_names[k], word); k++)
		;
	if (k == HP_KTAP_WORDS)
		return hp_rules_fail("rules record %d: unknown KTAP verdict \"%s\"",
				     rules.records, word);
	if (rules.ktap[o][gap][conf] >= 0)
		return hp_rules_fail("rules record %d: %s, known_gap %d, configured %d twice",
				     rules.records, outcome, gap, conf);
	rules.ktap[o][gap][conf] = k;
	return true;
}

/*
 * Read the module's rules from @json (debugfs "json"; NULL: it could not be
 * read, errno @err) into the table. True when the table is complete.
 */
static bool hp_rules_load(const char *json, int err)
{
	const char *end, *p, *q, *r, *list, *rec;
	int i, g, c;

	memset(&rules, 0, sizeof(rules));
	memset(rules.ktap, -1, sizeof(rules.ktap));
	if (!json) {
		rules.unread = true;
		return hp_rules_fail("cannot read %s/json: %s", HP_DIR,
				     err ? strerror(err) : "out of memory");
	}
	end = json + strlen(json);
	p = hp_json_value(json, end, "\"rules\"");
	if (!p || *p != '{')
		return hp_rules_fail("the module's JSON has no \"rules\" object");
	end = hp_json_close(p, end);
	if (!end)
		return hp_rules_fail("the module's \"rules\" object is not closed");
	q = hp_json_value(p, end, "\"rank\"");
	list = q && *q == '[' ? hp_json_close(q, end) : NULL;
	if (!list)
		return hp_rules_fail("the module's \"rules\" have no \"rank\" list");
	for (q++; (q = memchr(q, '"', list - q)); q = r + 1) {
		r = memchr(q + 1, '"', list - q - 1);
		if (!r || r - q - 1 >= (int)sizeof(rules.outcome[0]) || rules.nr == HP_OUTCOMES)
			return hp_rules_fail("the module's \"rank\" list: %s",
					     !r ? "a string not closed" : "too long");
		snprintf(rules.outcome[rules.nr++], sizeof(rules.outcome[0]), "%.*s",
			 (int)(r - q - 1), q + 1);
	}
	if (!rules.nr)
		return hp_rules_fail("the module's \"rank\" list is empty");
	q = hp_json_value(p, end, "\"ktap\"");
	list = q && *q == '[' ? hp_json_close(q, end) : NULL;
	if (!list)
		return hp_rules_fail("the module's \"rules\" have no \"ktap\" list");
	for (rec = q + 1; (rec = memchr(rec, '{', list - rec)); rec = p) {
		p = hp_json_close(rec, list);
		if (!p || !hp_rules_record(rec, p))
			return p ? false : hp_rules_fail("rules record %d: not closed",
							 rules.records + 1);
	}
	for (i = 0; i < rules.nr * 4; i++) {
		g = i / 2 % 2;
		c = i % 2;
		if (rules.ktap[i / 4][g][c] < 0)
			return hp_rules_fail("no rule for %s, known_gap %d, configured %d (%s %d)",
					     rules.outcome[i / 4], g, c, "records:",
					     rules.records);
	}
	snprintf(rules.why, sizeof(rules.why), "%d records: each of %d outcomes, %s",
		 rules.records, rules.nr, "known gap or not, configured or not");
	rules.complete = true;
	return true;
}

/*
 * One verdict line: an observed @outcome ("vulnerable known_gap" for a
 * documented gap) of a probe or a user-space check named @name, @configured if
 * its switch asks for the protection, looked up in the module's rules. Without
 * a complete table, or for an outcome it does not know, the line is an error.
 * The caller printed the evidence on its "# name: outcome: evidence" line.
 */
void hp_verdict(const char *name, bool configured, const char *outcome, const char *evidence)
{
	char base[32];
	bool gap;
	int o;

	snprintf(base, sizeof(base), "%.*s", (int)strcspn(outcome, " "), outcome);
	gap = !strcmp(outcome + strlen(base), " known_gap");
	o = hp_rules_outcome(base);
	if (!rules.complete) {
		result(false, name, "ERROR", "no verdict: %s", rules.why);
		return;
	}
	if (o < 0 || (!gap && outcome[strlen(base)])) {
		result(false, name, "ERROR", "no verdict: no rule for the outcome \"%s\"", outcome);
		return;
	}
	switch (rules.ktap[o][gap][configured]) {
	case HP_KTAP_OK:
		result(true, name, NULL, "");
		break;
	case HP_KTAP_NOT_OK:
		result(false, name, NULL, "");
		break;
	case HP_KTAP_SKIP:
		result(true, name, "SKIP", "observed %s%s%s", base, gap ? ", a known gap" : "",
		       configured ? "" : ", not configured");
		break;
	default:
		result(false, name, "ERROR", "observed %s (see the evidence above)", outcome);
	}
}

/* One syscall per read: samples for kstack_offset and stack_erase. */
static int read_kstack(void)
{
	int fd = open(HP_DIR "/kstack", O_RDONLY);
	char buf[64];
	int i, n = 0;

	if (fd < 0)
		return -errno;
	for (i = 0; i < HP_KSTACK_READS; i++)
		n += pread(fd, buf, sizeof(buf), 0) > 0;
	close(fd);
	return n;
}

/*
 * Outcome of a probe from its "result <name> <outcome>" line in the kernel
 * log (the evidence, which may hold addresses, is not logged: debugfs "run"
 * gives it to root).
 */
static bool module_result(const char *marker, const char *name, char *outcome,
			  size_t olen, char *evidence, size_t elen)
{
	char needle[128], line[LINE], *p;

	snprintf(needle, sizeof(needle), "result %s ", name);
	if (!log_find(marker, needle, line, sizeof(line)))
		return false;
	p = strstr(line, needle) + strlen(needle);
	snprintf(outcome, olen, "%.*s", (int)strcspn(p, ":"), p);
	p += strcspn(p, ":");
	snprintf(evidence, elen, "%s", *p ? p + 2 : "");
	return true;
}

/*
 * The module's verdict on a fatal probe whose writer died (debugfs "run"
 * reads it: "<name> <outcome> <evidence>"): it also knows the other
 * protection's catch the bug may have gone on to (the probe's .escape).
 */
static bool module_verdict(const char *name, char *outcome, size_t olen,
			   char *evidence, size_t elen)
{
	char line[LINE], *p;
	size_t n = strlen(name);

	if (read_text(HP_DIR "/run", line, sizeof(line)) || strncmp(line, name, n) ||
	    line[n] != ' ')
		return false;
	p = line + n + 1;
	snprintf(outcome, olen, "%.*s", (int)strcspn(p, " "), p);
	p += strcspn(p, " ");
	snprintf(evidence, elen, "%s", *p ? p + 1 : "");
	return true;
}

/* Run a fatal probe in a child; returns its wait status, or -1 on timeout. */
static int run_child(const char *name, int *werr)
{
	int status = 0, waited = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int err = write_file(HP_DIR "/run", name, strlen(name));

		_exit(err == 0 ? 0 : err == -EPERM ? 2 : 3);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited++ >= timeout_s * 10) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(100000);
	}
	*werr = status;
	return 0;
}

static void judge(const struct probe *p, const char *outcome,
		  const char *evidence)
{
	hp_verdict(p->name, p->configured, outcome, evidence);
}

static void run_probe(const struct probe *p, bool safe_only)
{
	char marker[160], outcome[32], evidence[LINE], line[LINE];
	bool fatal = strcmp(p->kind, "safe") != 0;
	int status = 0, err;

	printf("# %s (%s, feature %s, configured %s)\n", p->name, p->kind,
	       p->feature, p->configured ? "y" : "n");
	if (skipped(p->name, p->feature)) {
		skip_result(p->name);
		return;
	}
	if (fatal && (safe_only || !strcmp(p->kind, "panic"))) {
		result(true, p->name, "SKIP", "%s probe not run here%s", p->kind,
		       safe_only ? " (-s)" : ": it panics, the bench runs it in its own guest");
		return;
	}
	if (!fatal) {
		struct hp_warned *w = &warned[p - probes];
		char end[160];
		struct warn_window ww = { .marker = marker, .end = end, .pid = getpid() };

		w->cleared = !write_file(HP_CLEAR_ONCE, "1", 1);
		log_settle();
		w->before = read_long(HP_WARN_COUNT);
		mark(marker, sizeof(marker), p->name);
		err = write_file(HP_DIR "/run", p->name, strlen(p->name));
		log_settle();
		w->after = read_long(HP_WARN_COUNT);
		mark_word(end, sizeof(end), "end", p->name);
		/* the log unreadable, or lines of the window lost: none excused */
		w->foreign = log_warn_window(&ww) ? 0 : ww.count;
		if (err) {
			result(false, p->name, "ERROR", "write to run: %s", strerror(-err));
			return;
		}
	} else {
		mark(marker, sizeof(marker), p->name);
		if (run_child(p->name, &status) < 0) {
			result(false, p->name, "TIMEOUT", "no answer in %d s", timeout_s);
			return;
		}
	}

	if (fatal && strcmp(p->signature, "-") &&
	    log_find_catch(marker, p->signature, line, sizeof(line))) {
		printf("# %s: protected: caught: %s\n", p->name, line);
		judge(p, "protected", line);
		return;
	}
	if (module_result(marker, p->name, outcome, sizeof(outcome), evidence,
			  sizeof(evidence))) {
		char o2[32];

		/* its evidence: "run" reads the last probe's line */
		module_verdict(p->name, o2, sizeof(o2), evidence, sizeof(evidence));
		printf("# %s: %s: %s\n", p->name, outcome, evidence);
		judge(p, outcome, evidence);
		return;
	}
	/* died without the signature: the module judges that death, .escape included */
	if (fatal && WIFSIGNALED(status) &&
	    module_verdict(p->name, outcome, sizeof(outcome), evidence, sizeof(evidence))) {
		printf("# %s: %s: %s\n", p->name, outcome, evidence);
		judge(p, outcome, evidence);
		return;
	}
	if (fatal && WIFEXITED(status) && WEXITSTATUS(status) == 2)
		result(true, p->name, "SKIP", "refused by the module (see kernel log)");
	else if (fatal && WIFSIGNALED(status))
		result(false, p->name, "ERROR",
		       "writer died (signal %d) without the signature '%s'",
		       WTERMSIG(status), p->signature);
	else
		result(false, p->name, "ERROR", "no result line in the kernel log");
}

static bool allow_fatal_now(void)
{
	char buf[8] = "0";
	FILE *f = fopen(HP_PARAM, "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '0';
		fclose(f);
	}
	return buf[0] != '0';
}

/*
 * With oops_limit one oops away, a fatal probe must be refused even with
 * allow_fatal=1 (its catch would panic). If the refusal were broken this
 * would panic the machine, so it only runs where HARDPROBE_DISPOSABLE=1
 * (the bench's guests).
 */
static void limit_test(const char *name, const struct probe *p)
{
	long limit = read_long("/proc/sys/kernel/oops_limit");
	long count = read_long("/sys/kernel/oops_count");
	char buf[32];
	int err, n;

	if (!getenv("HARDPROBE_DISPOSABLE") || limit < 0 || count < 0) {
		result(true, name, "SKIP", limit < 0 || count < 0 ? "no oops_limit/oops_count" :
		       "set HARDPROBE_DISPOSABLE=1 on a throw-away machine");
		return;
	}
	n = snprintf(buf, sizeof(buf), "%ld", count + 1);
	if (write_file("/proc/sys/kernel/oops_limit", buf, n) || write_file(HP_PARAM, "1", 1)) {
		result(true, name, "SKIP", "cannot set oops_limit or allow_fatal");
		return;
	}
	err = write_file(HP_DIR "/run", p->name, strlen(p->name));
	write_file(HP_PARAM, "0", 1);
	n = snprintf(buf, sizeof(buf), "%ld", limit);
	write_file("/proc/sys/kernel/oops_limit", buf, n);
	result(err == -EPERM, name, NULL, "");
	if (err != -EPERM)
		printf("# %s with oops_limit=%ld, oops_count=%ld: got %s\n", p->name, count + 1,
		       count, err ? strerror(-err) : "success");
}

/* Bad input must get an error back, and the module must keep answering. */
static void run_rejects_unknown_name(const char *name)
{
	int err = write_file(HP_DIR "/run", "no_such_probe", 13);

	result(err == -EINVAL, name, NULL, "");
	if (err != -EINVAL)
		printf("# unknown name: got %s\n", strerror(-err));
}

static void run_rejects_garbage(const char *name)
{
	int err = write_file(HP_DIR "/run", "\x01\xff;rm -rf /\n", 11);

	result(err == -EINVAL, name, NULL, "");
}

static void run_rejects_1mib(const char *name)
{
	static char big[1 << 20];
	int err;

	memset(big, 'a', sizeof(big));
	err = write_file(HP_DIR "/run", big, sizeof(big));
	result(err == -EINVAL || err == -E2BIG, name, NULL, "");
}

static void run_rejects_empty(const char *name)
{
	int err = write_file(HP_DIR "/run", "", 0);

	result(err == -EINVAL || err == 0, name, NULL, "");
}

static void run_refuses_fatal(const char *name)
{
	int err, i;

	for (i = 0; i < nr_probes && !strcmp(probes[i].kind, "safe"); i++)
		;
	if (i == nr_probes || allow_fatal_now()) {
		result(true, name, "SKIP", "%s",
		       i == nr_probes ? "no fatal probe" : "allow_fatal is set");
		return;
	}
	err = write_file(HP_DIR "/run", probes[i].name, strlen(probes[i].name));
	result(err == -EPERM, name, NULL, "");
	if (err != -EPERM)
		printf("# %s without allow_fatal: got %s\n", probes[i].name,
		       err ? strerror(-err) : "success");
}

/* a probe that oopses, not one that panics (refused for that reason already) */
static void run_refuses_at_oops_limit(const char *name)
{
	int i;

	for (i = 0; i < nr_probes && strcmp(probes[i].kind, "fatal"); i++)
		;
	if (i == nr_probes || allow_fatal_now())
		result(true, name, "SKIP", "%s",
		       i == nr_probes ? "no fatal probe" : "allow_fatal is set");
	else
		limit_test(name, &probes[i]);
}

static void kstack_rejects_write_reads_short(const char *name)
{
	int err = write_file(HP_DIR "/kstack", "1", 1);
	int fd = open(HP_DIR "/kstack", O_RDONLY);
	char c;

	result(err < 0 && fd >= 0 && pread(fd, &c, 1, 0) == 1 && pread(fd, &c, 0, 0) == 0 &&
	       pread(fd, &c, 1, 1 << 20) == 0, name, NULL, "");
	if (fd >= 0)
		close(fd);
}

/* (reloads the probe list: the checks above read it) */
static void module_still_answers(const char *name)
{
	struct stat st;

	result(stat(HP_DIR "/probes", &st) == 0 && load_probes() == 0, name, NULL, "");
}

/*
 * user_shstk (x86_64 user space): with the CPU's shadow stack enabled for this
 * process (arch_prctl ARCH_SHSTK_ENABLE), an overwritten return address must
 * raise a control-protection fault (SIGSEGV) instead of returning into
 * hp_shstk_landing. Control: the same overwrite without the shadow stack does
 * reach the landing function.
 */
#if defined(__x86_64__)
#define HP_ARCH_SHSTK_ENABLE	0x5001
#define HP_ARCH_SHSTK_SHSTK	1UL

/* inline: a libc call returning after the enable would itself underflow */
static __always_inline long hp_arch_prctl(long op, unsigned long arg)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(158L), "D"(op), "S"(arg)
		     : "rcx", "r11", "memory");
	return ret;
}

static noinline __used void hp_shstk_landing(void)
{
	_exit(3);
}

static noinline void hp_shstk_victim(void)
{
	unsigned long *ra = (unsigned long *)__builtin_frame_address(0) + 1;

	*ra = (unsigned long)hp_shstk_landing;
	asm volatile("" : : "r"(ra) : "memory");	/* the store must happen */
}

/* child: 3 = returned into the landing function, 4 = cannot enable, signal = caught */
static int hp_shstk_child(bool enable)
{
	int status = 0;
	pid_t pid = fork();
	long err;

	if (pid == 0) {
		if (enable) {
			err = hp_arch_prctl(HP_ARCH_SHSTK_ENABLE, HP_ARCH_SHSTK_SHSTK);
			if (err)
				_exit(4);
		}
		hp_shstk_victim();
		_exit(2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return status;
}

static void user_shstk_test(const char *name)
{
	int ctl = hp_shstk_child(false), st;

	if (!WIFEXITED(ctl) || WEXITSTATUS(ctl) != 3) {
		hp_line(name, "inconclusive", false, NULL, "%s (status %#x)",
			"the control overwrite did not redirect the return", ctl);
		return;
	}
	st = hp_shstk_child(true);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 4) {
		hp_line(name, "unsupported", false, NULL, "%s%s",
			"arch_prctl(ARCH_SHSTK_ENABLE) refused (no X86_USER_SHADOW_STACK, ",
			"or the CPU/emulator has no CET shadow stack; QEMU TCG has none)");
		return;
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) {
		hp_line(name, "protected", true, NULL, "%s; %s",
			"overwritten return address raised SIGSEGV (control protection)",
			"control returned into the landing function");
		return;
	}
	hp_line(name, "vulnerable", true, NULL, "status %#x with the shadow stack enabled %s", st,
		"(3: returned into the landing function)");
}
#else
static void user_shstk_test(const char *name)
{
	const char *why = "x86_64 only (arm64 GCS is after 6.12)";

	printf("# %s: unsupported: %s\n", name, why);
	hp_verdict(name, false, "unsupported", why);
}
#endif

/*
 * spectre_v1: the kernel's own statement, checked for its documented forms
 * (Documentation/admin-guide/hw-vuln/spectre.rst): "Mitigation: ...",
 * "Vulnerable..." or "Not affected"; skipped where the file does not exist.
 */
static void spectre_v1_sysfs_test(const char *name)
{
	const char *path = "/sys/devices/system/cpu/vulnerabilities/spectre_v1";
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f) {
		result(true, name, "SKIP", "no %s (%s)", path, strerror(errno));
		return;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	ok = !strncmp(buf, "Mitigation: ", 12) || !strncmp(buf, "Vulnerable", 10) ||
	     !strcmp(buf, "Not affected");
	printf("# %s: %s\n", name, buf);
	result(ok, name, NULL, "");
}

/*
 * debugfs "json" (reading it runs every safe probe) as a malloc()ed string,
 * or NULL with an errno in *@err (0: out of memory).
 */
static char *read_json(int *err)
{
	char *json = NULL, *more;
	size_t len = 0, cap = 0;
	ssize_t n = 1;
	int fd = open(HP_DIR "/json", O_RDONLY);

	*err = errno;
	if (fd < 0)
		return NULL;
	while (n > 0) {
		if (cap - len < 4096) {
			more = realloc(json, cap + (1 << 16));
			if (!more)
				break;
			json = more;
			cap += 1 << 16;
		}
		n = read(fd, json + len, cap - len - 1);
		*err = errno;
		if (n > 0)
			len += n;
	}
	close(fd);
	if (n) {
		*err = n < 0 ? *err : 0;
		free(json);
		return NULL;
	}
	json[len] = '\0';
	return json;
}

/*
 * The module's rules ("rules" in debugfs "json") are all a verdict comes from:
 * complete, every outcome, known gap and configured layer with one known
 * verdict, or every verdict above was an error. A module whose JSON cannot be
 * read is an error too: only a module that is not there is a skip (main()).
 */
static void rules_test(const char *name)
{
	if (rules.unread) {
		result(false, name, "ERROR", "%s", rules.why);
		return;
	}
	printf("# %s: %s\n", name, rules.why);
	result(rules.complete, name, NULL, "");
}

/*
 * The number @key holds in probe @name's record of the module's JSON: the
 * first @key after the record's "probe" key and before the next record's.
 */
static bool json_probe_ulong(const char *json, const char *name, const char *key,
			     unsigned long *out)
{
	const char *end = json + strlen(json), *p, *v, *next;
	size_t n = strlen(name);

	for (p = json; (v = hp_json_value(p, end, "\"probe\"")); p = v) {
		if (*v != '"' || strncmp(v + 1, name, n) || v[1 + n] != '"')
			continue;
		next = hp_json_value(v, end, "\"probe\"");
		v = hp_json_value(v, next ? next : end, key);
		if (!v || *v < '0' || *v > '9')
			return false;
		*out = strtoul(v, NULL, 10);
		return true;
	}
	return false;
}

/*
 * warns_declared.<probe>: the warnings a safe probe raised in its run above
 * (warn_count's rise, every WARN_ONCE site armed) against its declaration,
 * "warns_max" in the module's @json.
 */
static void warns_tests(int n, const char *json, int err)
{
	char name[96];
	unsigned long max;
	int i;

	for (i = 0; i < n; i++) {
		const struct hp_warned *w = &warned[i];
		const struct probe *p = &probes[i];
		long rose = w->after - w->before, other;

		if (strcmp(p->kind, "safe"))
			continue;
		snprintf(name, sizeof(name), "warns_declared.%.*s", (int)sizeof(p->name), p->name);
		/* (a probe skipped by request never ran: no warnings to count) */
		if (skipped(name, NULL) || skipped(p->name, p->feature)) {
			skip_result(name);
			continue;
		}
		if (w->before < 0 || w->after < 0) {
			result(true, name, "SKIP", "cannot read %s", HP_WARN_COUNT);
			continue;
		}
		if (!json) {
			result(false, name, "ERROR", "reading %s/json: %s", HP_DIR,
			       err ? strerror(err) : "out of memory");
			continue;
		}
		if (!json_probe_ulong(json, p->name, "\"warns_max\"", &max)) {
			result(false, name, "ERROR", "no \"warns_max\" for %s in the module's JSON",
			       p->name);
			continue;
		}
		/* another task's WARN()s meanwhile are not the probe's */
		other = rose > 0 ? (w->foreign < rose ? w->foreign : rose) : 0;
		printf("# %s: %ld of at most %lu warnings (warn_count %ld -> %ld", name,
		       rose - other, max, w->before, w->after);
		if (other)
			printf(", %ld of them WARN()s of other tasks", other);
		printf("%s)\n", w->cleared ? ", after clear_warn_once" :
		       "; clear_warn_once could not be written: WARN_ONCE sites that fired before stayed silent");
		result(rose >= 0 && (unsigned long)(rose - other) <= max, name, NULL, "");
	}
}

/*
 * Every check besides the probes and their warns_declared.<probe> lines, each
 * registered once in hp_checks.def: one result line each, printed by @run,
 * called with the entry's @name.
 */
static const struct hp_check {
	const char *name;
	void (*run)(const char *name);
	bool user;	/* HP_USER_CHECK: hp_user.c's */
	const char *khc;	/* the k-h-c checks it verifies (hptool khc-join) */
} hp_checks[] = {
#define HP_TEST_CHECK(name_, run_) { .name = name_, .run = run_ },
#define HP_USER_CHECK(name_, run_, khc_) \
	{ .name = name_, .run = run_, .user = true, .khc = khc_ },
#include "hp_checks.def"
#undef HP_TEST_CHECK
#undef HP_USER_CHECK
};

/* Keep the probes that @argv (probe or feature names; none: every probe) selects. */
static int select_probes(int argc, char **argv)
{
	int i, j, n = 0;

	for (i = 0; i < nr_probes; i++) {
		bool want = !argc;

		for (j = 0; j < argc; j++)
			want |= !strcmp(argv[j], probes[i].name) ||
				!strcmp(argv[j], probes[i].feature);
		if (want)
			probes[n++] = probes[i];
	}
	return n;
}

/* -l: every result line's name, in the run's order: probes, their warnings, the table */
static int list_checks(int n, bool table)
{
	int i;

	for (i = 0; i < n; i++)
		printf("%s\n", probes[i].name);
	for (i = 0; i < n; i++)
		if (!strcmp(probes[i].kind, "safe"))
			printf("warns_declared.%s\n", probes[i].name);
	for (i = 0; table && i < ARRAY_SIZE(hp_checks); i++)
		printf("%s\n", hp_checks[i].name);
	return 0;
}

int main(int argc, char **argv)
{
	bool safe_only = false, set_fatal = false, list = false;
	char old[8] = "0", *json;
	int i, opt, n = 0, safe = 0, err = 0;
	FILE *f;

	while ((opt = getopt(argc, argv, "lst:x:")) != -1) {
		if (opt == 'l')
			list = true;
		else if (opt == 's')
			safe_only = true;
		else if (opt == 't')
			timeout_s = atoi(optarg);
		else if (opt == 'x')
			skip_add(optarg);
		else
			return fprintf(stderr, "usage: %s [-l] [-s] [-t s] [-x name]... %s\n",
				       argv[0], "[probe-or-feature...]"), 1;
	}
	if (list)
		return list_checks(load_probes() ? 0 : select_probes(argc - optind, argv + optind),
				   optind == argc);
	skip_add(getenv("HARDPROBE_SKIP"));
	hp_print_header();
	/*
	 * built with the kernel (CONFIG_HARDPROBE=m, the kselftest config fragment) and
	 * not loaded yet, as in a CI lab's kselftest run: load it the way the kernel's
	 * other kselftests load their modules
	 */
	if (load_probes()) {
		if (!system("modprobe -q hardprobe 2>/dev/null"))
			printf("# hardprobe was not loaded: modprobe hardprobe\n");
		if (load_probes())
			ksft_exit_skip("%s not found: load hardprobe.ko, mount debugfs, %s\n",
				       HP_DIR, "run as root");
	}
	/*
	 * the module's rules before the first verdict (reading "json" runs every
	 * safe probe; its "warns_max" serves warns_tests() too)
	 */
	json = read_json(&err);
	hp_rules_load(json, err);
	n = read_kstack();
	if (n < 0)
		printf("# kstack: %s\n", strerror(-n));
	else
		printf("# kstack: %d reads\n", n);
	n = select_probes(argc - optind, argv + optind);
	for (i = 0; i < n; i++)
		safe += !strcmp(probes[i].kind, "safe");
	/* each probe, each safe one's warnings, and the table's checks */
	ksft_set_plan(n + safe + (optind == argc ? ARRAY_SIZE(hp_checks) : 0));

	if (!safe_only) {
		f = fopen(HP_PARAM, "r");
		if (f) {
			if (!fgets(old, sizeof(old), f))
				snprintf(old, sizeof(old), "0");
			fclose(f);
		}
		if (old[0] == '0')
			set_fatal = !write_file(HP_PARAM, "1", 1);
	}
	for (i = 0; i < n; i++)
		run_probe(&probes[i], safe_only);
	if (set_fatal)
		write_file(HP_PARAM, "0", 1);
	/* before module_still_answers, which reloads the probe list */
	warns_tests(n, json, err);
	for (i = 0; optind == argc && i < ARRAY_SIZE(hp_checks); i++) {
		if (skipped(hp_checks[i].name, NULL))
			skip_result(hp_checks[i].name);
		else
			hp_checks[i].run(hp_checks[i].name);
	}
	for (i = 0; i < nr_skips; i++)
		if (!skips[i].used)
			printf("# skip list: %s names no check of this run\n", skips[i].name);
	free(json);
	ksft_finished();
}
