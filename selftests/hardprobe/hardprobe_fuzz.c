// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe fuzz kselftest: hostile use of the module's interfaces.
 *
 * Several writer processes send random bytes, empty writes, oversize
 * buffers, unknown, partial and garbled names, and names of fatal probes
 * (allow_fatal stays 0) to every writable file under debugfs hardprobe/,
 * while reader processes read report, ktap, json and probes, and (with -m)
 * one process unloads and reloads the module in a loop. Then the kernel log
 * since a marker is scanned for findings: oopses, BUG reports (KASAN,
 * sleeping in atomic, ...), lockdep and RCU splats, kmemleak reports, and any
 * warning raised in hardprobe's own code. Probes' intended catches (UBSAN,
 * refcount, list corruption reports from kernel code) are not findings.
 *
 * usage: hardprobe_fuzz [-n writes] [-p writers] [-r readers] [-t seconds]
 *                       [-m hardprobe.ko [-a "params"]] [-L cycles]
 *	-n  writes per writable file, in total (default 10000)
 *	-m  also unload and reload this module file in a loop while fuzzing
 *	-L  then this many plain unload/reload cycles (needs -m)
 * Prints KTAP version 1; exits 0 (pass), 1 (a failure) or 4 (skip).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hp_util.h"

#define MAX_FILES	16
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* shared between the processes */
struct fuzz_stats {
	long writes, w_ok, w_einval, w_eperm, w_e2big, w_gone, w_other;
	long fatal_ran;		/* a fatal probe name accepted without allow_fatal */
	long reads, read_bytes, read_gone, read_other;
	long cycles, cycle_busy;
	long enxio;		/* of the "gone" ones: opens while the module was GOING */
	int other_errno;	/* the last unexpected errno, for the report */
	int stop;
};

static struct fuzz_stats *st;

/*
 * Errors that mean the module is (being) unloaded under us: ENOENT, ENODEV
 * and EIO once its files are gone, ENXIO from debugfs's full_proxy_open()
 * while its owner is MODULE_STATE_GOING (rmmod waiting for a long open,
 * such as a report, to finish).
 */
static bool gone_errno(int e)
{
	if (e == ENXIO)
		__atomic_add_fetch(&st->enxio, 1, __ATOMIC_RELAXED);
	return e == ENOENT || e == ENODEV || e == EIO || e == ENXIO;
}

static char files[MAX_FILES][300];
static int nr_files;
static const char *ko_path, *ko_params = "";

static int load_module(void)
{
	int fd = open(ko_path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, ko_params, 0))
		err = -errno;
	close(fd);
	return err;
}

static int unload_module(void)
{
	return syscall(SYS_delete_module, "hardprobe", O_NONBLOCK) ? -errno : 0;
}

static bool is_name(const char *s)
{
	int i;

	for (i = 0; i < nr_probes; i++)
		if (!strcmp(s, probes[i].name) || !strcmp(s, probes[i].feature))
			return true;
	return false;
}

/* Build the @i-th hostile input into @buf; returns its length. */
static size_t make_input(char *buf, size_t cap, unsigned int i, unsigned int *seed,
			 bool *fatal)
{
	const struct probe *p = nr_probes ? &probes[rand_r(seed) % nr_probes] : NULL;
	size_t n, k;

	*fatal = false;
	switch (i % 8) {
	case 0:		/* random bytes */
		n = rand_r(seed) % 300;
		for (k = 0; k < n; k++)
			buf[k] = rand_r(seed);
		return n;
	case 1:		/* empty */
		return 0;
	case 2:		/* oversize: 4 KiB, now and then the whole 1 MiB buffer */
		n = i % 1000 == 2 ? cap : 4096;
		memset(buf, 'a' + i % 26, n);
		return n;
	case 3:		/* unknown name */
		return snprintf(buf, cap, "no_such_probe_%u", i);
	case 4:		/* a strict prefix of a real name that is no name itself */
		if (!p || strlen(p->name) < 2)
			return snprintf(buf, cap, "x");
		n = 1 + rand_r(seed) % (strlen(p->name) - 1);
		snprintf(buf, cap, "%.*s", (int)n, p->name);
		if (is_name(buf))
			n = snprintf(buf, cap, "%.*sZ", (int)n, p->name);
		return n;
	case 5:		/* a fatal probe's name: allow_fatal is 0, must be refused */
		for (k = 0; k < (size_t)nr_probes; k++) {
			p = &probes[(i + k) % nr_probes];
			if (strcmp(p->kind, "safe")) {
				*fatal = true;
				return snprintf(buf, cap, "%s\n", p->name);
			}
		}
		return snprintf(buf, cap, "no_fatal_probe");
	case 6:		/* a name with garbage after a NUL or a space */
		if (!p)
			return snprintf(buf, cap, "x y");
		n = snprintf(buf, cap, "%s", p->name);
		buf[n++] = i & 1 ? '\0' : ' ';
		return n + snprintf(buf + n, cap - n, "junk%u", i);
	default:	/* names made of characters outside [A-Za-z0-9_.-] */
		return snprintf(buf, cap, "../%s;$(id)%%n%%s", p ? p->name : "x");
	}
}

static void writer(int id, long quota)
{
	static char buf[1 << 20];
	unsigned int seed = 0x5eed + id, i;
	bool fatal;

	for (i = 0; i < quota && !st->stop; i++) {
		const char *path = files[i % nr_files];
		size_t len = make_input(buf, sizeof(buf), i / nr_files + id, &seed, &fatal);
		int fd = open(path, O_WRONLY), err = 0;

		if (fd < 0) {
			err = -errno;
		} else {
			if (write(fd, buf, len) < 0)
				err = -errno;
			close(fd);
		}
		__atomic_add_fetch(&st->writes, 1, __ATOMIC_RELAXED);
		if (!err) {
			__atomic_add_fetch(&st->w_ok, 1, __ATOMIC_RELAXED);
			if (fatal)
				__atomic_add_fetch(&st->fatal_ran, 1, __ATOMIC_RELAXED);
		} else if (err == -EINVAL) {
			__atomic_add_fetch(&st->w_einval, 1, __ATOMIC_RELAXED);
		} else if (err == -EPERM) {
			__atomic_add_fetch(&st->w_eperm, 1, __ATOMIC_RELAXED);
		} else if (err == -E2BIG || err == -ENOSPC) {
			__atomic_add_fetch(&st->w_e2big, 1, __ATOMIC_RELAXED);
		} else if (gone_errno(-err)) {
			/* the module was unloaded under us */
			__atomic_add_fetch(&st->w_gone, 1, __ATOMIC_RELAXED);
		} else {
			__atomic_add_fetch(&st->w_other, 1, __ATOMIC_RELAXED);
			st->other_errno = -err;
		}
	}
}

static void reader(int id)
{
	/* report, ktap and json run every safe probe: one read in four is one of those */
	static const char *const names[] = {
		"report", "probes", "kstack", "probes", "ktap", "kstack", "probes", "kstack",
		"json", "probes", "kstack", "probes",
	};
	char path[256], buf[65536];
	unsigned int i;

	for (i = id; !st->stop; i++) {
		int fd;
		ssize_t n;

		snprintf(path, sizeof(path), HP_DIR "/%s", names[i % ARRAY_LEN(names)]);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			int e = errno;
			bool gone = gone_errno(e);

			if (!gone)
				st->other_errno = e;
			__atomic_add_fetch(gone ? &st->read_gone : &st->read_other, 1,
					   __ATOMIC_RELAXED);
			usleep(2000);
			continue;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			__atomic_add_fetch(&st->read_bytes, n, __ATOMIC_RELAXED);
		if (n < 0 && !gone_errno(errno)) {
			st->other_errno = errno;
			__atomic_add_fetch(&st->read_other, 1, __ATOMIC_RELAXED);
		}
		close(fd);
		__atomic_add_fetch(&st->reads, 1, __ATOMIC_RELAXED);
		usleep(20000);	/* leave the loader a window */
	}
}

static void loader(void)
{
	while (!st->stop) {
		int err = unload_module();

		if (err) {
			__atomic_add_fetch(&st->cycle_busy, 1, __ATOMIC_RELAXED);
			usleep(200);
			continue;
		}
		usleep(500);
		while (load_module() == -EBUSY)
			usleep(100);
		__atomic_add_fetch(&st->cycles, 1, __ATOMIC_RELAXED);
		usleep(5000);
	}
}

static int list_writable(void)
{
	DIR *d = opendir(HP_DIR);
	struct dirent *e;
	struct stat sb;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && nr_files < MAX_FILES) {
		snprintf(files[nr_files], sizeof(files[0]), HP_DIR "/%s", e->d_name);
		if (e->d_name[0] != '.' && !stat(files[nr_files], &sb) &&
		    S_ISREG(sb.st_mode) && (sb.st_mode & 0200))
			nr_files++;
	}
	closedir(d);
	return 0;
}

/*
 * A finding in the kernel log: an oops, a BUG report (KASAN, sleeping in
 * atomic, ...), a lockdep or RCU splat, a kmemleak report, a hung task, or a
 * warning raised in hardprobe's own code ("WARNING: CPU: ... [hardprobe]")
 * unless the message right before it is one of the catches a safe probe
 * provokes on purpose (the field-spanning memcpy warning is raised inline in
 * the probe's own function).
 */
static bool is_finding(const char *msg, const void *arg)
{
	static const char *const bad[] = {
		"Oops", "BUG:", "general protection fault", "WARNING: possible",
		"WARNING: suspicious", "unreferenced object", "INFO: task", NULL,
	};
	static const char *const intended[] = {
		"detected field-spanning write", "detected buffer overflow", "UBSAN:",
		"refcount_t:", "list_add corruption", "list_del corruption", "CFI failure",
		NULL,
	};
	static char prev[LINE];
	bool warn, found = false;
	int i;

	(void)arg;
	for (i = 0; bad[i]; i++)
		found |= !!strstr(msg, bad[i]);
	warn = !strncmp(msg, "WARNING: CPU:", 13) && strstr(msg, "[hardprobe]");
	for (i = 0; warn && intended[i]; i++)
		if (strstr(prev, intended[i]))
			warn = false;
	snprintf(prev, sizeof(prev), "%s", msg);
	return found || warn;
}

int main(int argc, char **argv)
{
	long quota = 10000, cycles_wanted = 0;
	int writers = 3, readers = 2, seconds = 120, opt, i, nproc = 0;
	char marker[256], first[LINE], buf[64];
	long warn0, warn1, found;
	bool deadline = false;
	pid_t pids[32];
	time_t t0;

	while ((opt = getopt(argc, argv, "n:p:r:t:m:a:L:")) != -1) {
		switch (opt) {
		case 'n':
			quota = atol(optarg);
			break;
		case 'p':
			writers = atoi(optarg);
			break;
		case 'r':
			readers = atoi(optarg);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'm':
			ko_path = optarg;
			break;
		case 'a':
			ko_params = optarg;
			break;
		case 'L':
			cycles_wanted = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n writes] [-p writers] [-r readers] [-t s]",
				argv[0]);
			fprintf(stderr, " [-m ko [-a params]] [-L cycles]\n");
			return 2;
		}
	}
	if (writers < 1 || writers > 16 || readers < 0 || readers > 8 || quota < 1)
		return fprintf(stderr, "bad -n/-p/-r\n"), 2;
	printf("KTAP version 1\n");
	if (load_probes() || list_writable() || !nr_files) {
		printf("1..0 # SKIP %s not found or nothing writable: %s\n", HP_DIR,
		       "load hardprobe.ko, mount debugfs, run as root");
		return KSFT_SKIP;
	}
	printf("1..6\n");
	if (read_text(HP_PARAM, buf, sizeof(buf)) || strcmp(buf, "0")) {
		write_file(HP_PARAM, "0", 1);
		printf("# allow_fatal was %s: set to 0 for the fuzz run\n", buf);
	}
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		return perror("mmap"), KSFT_FAIL;
	warn0 = read_long("/sys/kernel/warn_count");
	mark(marker, sizeof(marker), "fuzz");
	t0 = time(NULL);
	for (i = 0; i < writers + readers + !!ko_path; i++) {
		pids[nproc] = fork();
		if (pids[nproc++])
			continue;
		if (i < writers)
			writer(i, quota * nr_files / writers + (i < quota * nr_files % writers));
		else if (i < writers + readers)
			reader(i - writers);
		else
			loader();
		_exit(0);
	}
	/* writers first; then stop readers and loader; the deadline bounds it all */
	for (i = 0; i < writers; i++) {
		while (waitpid(pids[i], NULL, WNOHANG) == 0) {
			if (time(NULL) - t0 > seconds && !st->stop) {
				st->stop = 1;
				deadline = true;
			}
			usleep(20000);
		}
	}
	st->stop = 1;
	for (i = writers; i < nproc; i++)
		waitpid(pids[i], NULL, 0);
	if (ko_path && access(HP_DIR "/probes", F_OK))
		load_module();

	printf("# %ld writes in %lds to %d file(s) by %d writers: ", st->writes,
	       (long)(time(NULL) - t0), nr_files, writers);
	printf("%ld accepted, %ld EINVAL, %ld EPERM, %ld too long, %ld module gone, %ld other\n",
	       st->w_ok, st->w_einval, st->w_eperm, st->w_e2big, st->w_gone, st->w_other);
	if (deadline)
		result(true, "fuzz_writes_done", "SKIP",
		       "stopped at the %d s deadline after %ld of %ld writes", seconds,
		       st->writes, quota * nr_files);
	else
		result(st->writes == quota * nr_files, "fuzz_writes_done", NULL, "");
	result(!st->fatal_ran, "fuzz_fatal_names_refused", NULL, "");
	if (st->fatal_ran)
		printf("# %ld fatal probe writes accepted with allow_fatal=0\n", st->fatal_ran);
	result(!st->w_other && !st->read_other, "fuzz_errors_expected", NULL, "");
	printf("# %ld reads (%ld bytes), %ld while unloaded, %ld unexpected errors\n",
	       st->reads, st->read_bytes, st->read_gone, st->read_other);
	if (st->enxio)
		printf("# %ld opens while the module was going (ENXIO)\n", st->enxio);
	if (st->w_other || st->read_other)
		printf("# last unexpected error: %s\n", strerror(st->other_errno));
	if (ko_path)
		printf("# %ld unload/reload cycles during the fuzz (%ld refused: busy)\n",
		       st->cycles, st->cycle_busy);

	if (ko_path && cycles_wanted) {
		long done = 0, busy = 0;

		while (done < cycles_wanted && time(NULL) - t0 <= seconds * 4) {
			if (unload_module()) {
				busy++;
				usleep(1000);
				continue;
			}
			if (load_module())
				break;
			done++;
		}
		if (access(HP_DIR "/probes", F_OK))
			load_module();
		printf("# %ld of %ld plain unload/reload cycles (%ld busy)\n", done, cycles_wanted,
		       busy);
		result(done == cycles_wanted, "load_unload_cycles", NULL, "");
	} else {
		result(true, "load_unload_cycles", "SKIP",
		       "needs -m <hardprobe.ko> and -L <cycles>");
	}

	found = log_scan(marker, is_finding, NULL, false, first, sizeof(first));
	warn1 = read_long("/sys/kernel/warn_count");
	printf("# kernel log since the marker: %ld finding(s)%s%s;", found,
	       found ? ", first: " : "", found ? first : "");
	printf(" warn_count %ld -> %ld (probes' intended reports included)\n", warn0, warn1);
	result(!found, "fuzz_no_findings", NULL, "");
	result(read_text(HP_PARAM, buf, sizeof(buf)) == 0 && !strcmp(buf, "0"),
	       "fuzz_allow_fatal_unchanged", NULL, "");
	printf("# Totals: pass:%d fail:%d skip:%d\n", passed, failed, skipped);
	return failed ? KSFT_FAIL : KSFT_PASS;
}
