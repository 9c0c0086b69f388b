// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kselftest: run every hardprobe probe through debugfs and judge
 * it from the kernel messages that follow a unique marker. Fatal probes run
 * in a child process (a catch kills the writer). Prints KTAP version 1;
 * exits 0 (pass), 1 (a failure) or 4 (nothing could run).
 *
 * Before the probes it reads debugfs "kstack" HP_KSTACK_READS times: each
 * read() is one syscall whose stack the kstack_offset and stack_erase
 * probes judge afterwards.
 *
 * usage: hardprobe_test [-s] [-t seconds] [probe-or-feature ...]
 *	-s  safe probes only (do not set allow_fatal)
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

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

#define HP_DIR		"/sys/kernel/debug/hardprobe"
#define HP_PARAM	"/sys/module/hardprobe/parameters/allow_fatal"
#define HP_KSTACK_READS	500
#define MAX_PROBES	256
#define LINE		1024

struct probe {
	char name[64], feature[64], kind[16], signature[256];
	bool configured;
};

static struct probe probes[MAX_PROBES];
static int nr_probes;
static int timeout_s = 30;
static int failed, passed, skipped, testno;

static void result(bool ok, const char *name, const char *directive,
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
	printf("%s %d %s", ok ? "ok" : "not ok", ++testno, name);
	if (directive)
		printf(" # %s %s", directive, why);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failed++;
	else if (directive)
		skipped++;
	else
		passed++;
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

static int write_file(const char *path, const char *buf, size_t len)
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

static int load_probes(void)
{
	char line[LINE];
	FILE *f = fopen(HP_DIR "/probes", "r");

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

/* Write a unique marker into the kernel log. */
static void mark(char *marker, size_t len, const char *name)
{
	static unsigned int n;
	struct timespec ts;
	char line[LINE];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(marker, len, "hardprobe-selftest: begin %s %d-%u-%ld", name,
		 getpid(), ++n, ts.tv_nsec);
	snprintf(line, sizeof(line), "<6>%s\n", marker);
	write_file("/dev/kmsg", line, strlen(line));
}

/*
 * Scan the kernel log after @marker for @needle; copy the first matching
 * message into @out. Returns true if found.
 */
static bool log_find(const char *marker, const char *needle, char *out,
		     size_t len)
{
	char rec[8192];
	bool after = false;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return false;
	for (;;) {
		char *msg, *nl;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten record: skip it */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (strstr(msg, marker)) {
			after = true;
			continue;
		}
		if (after && strstr(msg, needle)) {
			snprintf(out, len, "%s", msg);
			close(fd);
			return true;
		}
	}
	close(fd);
	return false;
}

/* Outcome of a probe from its "result <name> <outcome>: evidence" line. */
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

/* Map an observed outcome onto KTAP, as the design's expectation table does. */
static void judge(const struct probe *p, const char *outcome,
		  const char *evidence)
{
	if (!strcmp(outcome, "vulnerable known_gap"))
		result(true, p->name, "SKIP", "XFAIL known gap: %s", evidence);
	else if (!strcmp(outcome, "protected"))
		result(true, p->name, NULL, "");
	else if (!strcmp(outcome, "vulnerable") && p->configured)
		result(false, p->name, NULL, "");
	else if (!strcmp(outcome, "vulnerable"))
		result(true, p->name, "SKIP", "not configured (observed vulnerable: %s)",
		       evidence);
	else if (!strcmp(outcome, "error"))
		result(false, p->name, "ERROR", "%s", evidence);
	else
		result(true, p->name, "SKIP", "%s: %s", outcome, evidence);
}

static void run_probe(const struct probe *p, bool safe_only)
{
	char marker[160], outcome[32], evidence[LINE], line[LINE];
	bool fatal = strcmp(p->kind, "safe") != 0;
	int status = 0, err;

	printf("# %s (%s, feature %s, configured %s)\n", p->name, p->kind,
	       p->feature, p->configured ? "y" : "n");
	if (fatal && (safe_only || !strcmp(p->kind, "panic"))) {
		result(true, p->name, "SKIP", "%s probe not run here%s", p->kind,
		       safe_only ? " (-s)" : ": it panics, the bench runs it in its own guest");
		return;
	}
	mark(marker, sizeof(marker), p->name);
	if (!fatal) {
		err = write_file(HP_DIR "/run", p->name, strlen(p->name));
		if (err) {
			result(false, p->name, "ERROR", "write to run: %s", strerror(-err));
			return;
		}
	} else if (run_child(p->name, &status) < 0) {
		result(false, p->name, "TIMEOUT", "no answer in %d s", timeout_s);
		return;
	}

	if (fatal && strcmp(p->signature, "-") &&
	    log_find(marker, p->signature, line, sizeof(line))) {
		printf("# %s: caught: %s\n", p->name, line);
		judge(p, "protected", line);
		return;
	}
	if (module_result(marker, p->name, outcome, sizeof(outcome), evidence,
			  sizeof(evidence))) {
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

/* Bad input must get an error back, and the module must keep answering. */
static void input_tests(void)
{
	static char big[1 << 20];
	struct stat st;
	int err, i, fd;
	char c;

	err = write_file(HP_DIR "/run", "no_such_probe", 13);
	result(err == -EINVAL, "run_rejects_unknown_name", NULL, "");
	if (err != -EINVAL)
		printf("# unknown name: got %s\n", strerror(-err));
	err = write_file(HP_DIR "/run", "\x01\xff;rm -rf /\n", 11);
	result(err == -EINVAL, "run_rejects_garbage", NULL, "");
	memset(big, 'a', sizeof(big));
	err = write_file(HP_DIR "/run", big, sizeof(big));
	result(err == -EINVAL || err == -E2BIG, "run_rejects_1MiB", NULL, "");
	err = write_file(HP_DIR "/run", "", 0);
	result(err == -EINVAL || err == 0, "run_rejects_empty", NULL, "");
	for (i = 0; i < nr_probes && !strcmp(probes[i].kind, "safe"); i++)
		;
	if (i == nr_probes || allow_fatal_now()) {
		result(true, "run_refuses_fatal", "SKIP",
		       i == nr_probes ? "no fatal probe" : "allow_fatal is set");
	} else {
		err = write_file(HP_DIR "/run", probes[i].name, strlen(probes[i].name));
		result(err == -EPERM, "run_refuses_fatal", NULL, "");
		if (err != -EPERM)
			printf("# %s without allow_fatal: got %s\n", probes[i].name,
			       err ? strerror(-err) : "success");
	}
	err = write_file(HP_DIR "/kstack", "1", 1);
	fd = open(HP_DIR "/kstack", O_RDONLY);
	result(err < 0 && fd >= 0 && pread(fd, &c, 1, 0) == 1 && pread(fd, &c, 0, 0) == 0 &&
	       pread(fd, &c, 1, 1 << 20) == 0, "kstack_rejects_write_reads_short", NULL, "");
	if (fd >= 0)
		close(fd);
	nr_probes = 0;
	result(stat(HP_DIR "/probes", &st) == 0 && load_probes() == 0,
	       "module_still_answers", NULL, "");
}

int main(int argc, char **argv)
{
	bool safe_only = false, set_fatal = false;
	char old[8] = "0";
	int i, j, opt, n = 0;
	FILE *f;

	while ((opt = getopt(argc, argv, "st:")) != -1) {
		if (opt == 's')
			safe_only = true;
		else if (opt == 't')
			timeout_s = atoi(optarg);
		else
			return fprintf(stderr, "usage: %s [-s] [-t s] [name...]\n", argv[0]), 1;
	}
	printf("KTAP version 1\n");
	if (load_probes()) {
		printf("1..0 # SKIP %s not found: load hardprobe.ko, mount debugfs, run as root\n",
		       HP_DIR);
		return KSFT_SKIP;
	}
	n = read_kstack();
	if (n < 0)
		printf("# kstack: %s\n", strerror(-n));
	else
		printf("# kstack: %d reads\n", n);
	n = 0;
	for (i = 0; i < nr_probes; i++) {
		bool want = optind == argc;

		for (j = optind; j < argc; j++)
			want |= !strcmp(argv[j], probes[i].name) ||
				!strcmp(argv[j], probes[i].feature);
		if (want)
			probes[n++] = probes[i];
	}
	printf("1..%d\n", n + (optind == argc ? 7 : 0));

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
	if (optind == argc)
		input_tests();
	printf("# Totals: pass:%d fail:%d skip:%d\n", passed, failed, skipped);
	if (failed)
		return KSFT_FAIL;
	return passed ? KSFT_PASS : KSFT_SKIP;
}
