// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe fuzz kselftest: hostile use of the module's interfaces.
 *
 * First, one at a time: out-of-range values for allow_fatal (-1, 3, 99,
 * "abc", ...: EINVAL, and the value stays 0), writes at non-zero offsets,
 * several writes on one fd, writev, faulting user buffers, 1-byte, odd-size
 * and positioned reads (the same bytes as one full read), lseek, writable
 * opens of read-only files, mmap, poll and O_NONBLOCK.
 *
 * Then, at once: writer processes send random bytes, empty writes, oversize
 * buffers, unknown, partial and garbled names, and names of fatal probes
 * (allow_fatal stays 0, reloads included) to every writable file under
 * debugfs hardprobe/, each way above; reader processes read report, ktap,
 * json, probes, kstack and run each way above, counting the reads made while
 * a run was in flight; a flipper rewrites allow_fatal and moves
 * kernel.oops_limit, warn_limit and panic_on_warn between harmless values;
 * a child running as uid 65534 must be refused everywhere; and (with -m) one
 * process unloads and reloads the module in a loop.
 *
 * Last, a kmemleak scan (where there is kmemleak) and the kernel log since a
 * marker are read for findings: oopses, BUG reports (KASAN, sleeping in
 * atomic, "kernel BUG at", SLUB "BUG <cache>", ...), lockdep and RCU splats,
 * leaks, hung tasks, tasks that exited with preempt_count or irqs disabled,
 * and warnings raised by hardprobe or by kernel code on its behalf. Probes'
 * intended catches (UBSAN, refcount, list corruption, ... reports) are not
 * findings. A log that wrapped past the marker fails the check. Lockdep must
 * be on at the start (an earlier oops turns it off for good) and at the end.
 *
 * usage: hardprobe_fuzz [-n writes] [-p writers] [-r readers] [-t seconds]
 *                       [-m hardprobe.ko [-a "params"]] [-L cycles]
 *                       [-R readers] [-k hardprobe_kunit.ko]
 *	-n  writes per writable file, in total (default 10000)
 *	-m  also unload and reload this module file in a loop while fuzzing
 *	    (any allow_fatal= in -a is replaced by allow_fatal=0)
 *	-L  then this many plain unload/reload cycles (needs -m), while -R
 *	    readers read the module's files and (with -k) a process loads the
 *	    KUnit module (its suites run at load), reads their results and
 *	    unloads it, in a loop
 * Prints KTAP version 1 (kselftest.h); exits 0 (pass), 1 (a failure, or fewer
 * results than planned) or 4 (skip).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hp_util.h"

#define MAX_FILES	16
#define MAX_PROCS	32
#define NOBODY		65534
#define NR_TESTS	23	/* result() lines */
#define GRACE_S		15	/* after the deadline: then SIGKILL, as long again */
#define KUNIT_GRACE_S	600	/* for a KUnit load under way at the stop */
#define KUNIT_LOADS	10	/* KUnit loads spread over the -L cycles */
#define CYCLE_S		5	/* time allowed per -L cycle (a debug kernel under TCG) */

#define SYSCTL_OOPS	"/proc/sys/kernel/oops_limit"
#define SYSCTL_WARN	"/proc/sys/kernel/warn_limit"
#define SYSCTL_POW	"/proc/sys/kernel/panic_on_warn"
#define LOCKDEP_STATS	"/proc/lockdep_stats"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

/* How writers and readers use a file; each way is counted. */
enum w_way { W_PLAIN, W_OFFSET, W_MULTI, W_WRITEV, W_FAULT, W_NR };
enum r_way { R_FULL, R_BYTE, R_ODD, R_PREAD, R_SEEK, R_FAULT, R_MMAP_POLL, R_NONBLOCK,
	     R_WRITABLE, R_NR };

static const char *const w_way_name[W_NR] = {
	"plain", "at an offset", "several on one fd", "writev", "faulting buffer",
};

static const char *const r_way_name[R_NR] = {
	"full", "1-byte", "odd-size", "pread", "lseek", "faulting buffer", "mmap+poll",
	"O_NONBLOCK", "writable open",
};

/* shared between the processes */
struct fuzz_stats {
	long writes, w_ok, w_einval, w_eperm, w_e2big, w_gone, w_efault, w_eintr, w_other;
	long w_way[W_NR];
	long fatal_ran;		/* a fatal probe name accepted without allow_fatal */
	long reads, read_bytes, read_gone, read_other, read_eintr;
	long r_way[R_NR];
	long inflight;		/* writes to run being made right now */
	long read_inflight;	/* reads opened while one was */
	long cycles, cycle_busy, load_err;
	long kunit_runs, kunit_busy, kunit_err, kunit_notok;	/* during the -L cycles */
	/*
	 * -L cycles: the unloader raises @hold and waits (a bounded time) for
	 * the readers in a read (@in_read) and a KUnit load (@in_kunit) to end,
	 * then unloads; the readers start again at once, racing the unload and
	 * the load (many vCPUs: without it the module is never idle)
	 */
	int hold, in_read, in_kunit;
	/*
	 * the storm: its writers stop at its deadline (@writers_stop); the
	 * readers and the reloader go on until one reload under fire has
	 * happened, up to @storm_end
	 */
	int writers_stop;
	time_t storm_end;
	/* -L: cycles done, and a KUnit load every @kunit_every of them (-k) */
	long plain_done, kunit_every;
	int load_errno;
	long fatal_seen;	/* allow_fatal read back non-zero (reloads included) */
	long flips, flip_err, af_zero, af_bad, af_bad_accepted;
	long nobody_tries, nobody_denied, nobody_gone, nobody_bad;
	char nobody_what[160];
	long enxio;		/* of the "gone" ones: opens while the module was GOING */
	int other_errno;	/* the last unexpected errno, for the report */
	char other_what[96];
	int stop;
};

static struct fuzz_stats *st;

static void bump(long *counter)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

static void unexpected(long *counter, int e, const char *fmt, const char *what)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
	st->other_errno = e;
	snprintf(st->other_what, sizeof(st->other_what), fmt, what);
}

/*
 * Errors that mean the module is (being) unloaded under us: ENOENT, ENODEV
 * and EIO once its files are gone, ENXIO from debugfs's full_proxy_open()
 * while its owner is MODULE_STATE_GOING (rmmod waiting for a long open,
 * such as a report, to finish). The open proxy of debugfs_create_file_unsafe()
 * may answer any of them.
 */
static bool gone_errno(int e)
{
	if (e == ENXIO)
		bump(&st->enxio);
	return e == ENOENT || e == ENODEV || e == EIO || e == ENXIO;
}

static char files[MAX_FILES][300];
static int nr_files;
static const char *ko_path, *kunit_path;
static char ko_params[1024];
static char *fault_page;	/* a PROT_NONE page right after a readable one */

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

/* -a's parameters with every allow_fatal= dropped and allow_fatal=0 last. */
static void set_params(const char *in)
{
	char copy[sizeof(ko_params)], *tok, *save;
	size_t n = 0;

	snprintf(copy, sizeof(copy), "%s", in);
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "allow_fatal=", 12) || !strcmp(tok, "allow_fatal"))
			continue;
		n += snprintf(ko_params + n, sizeof(ko_params) - n, "%s ", tok);
		if (n >= sizeof(ko_params))
			n = sizeof(ko_params) - 1;
	}
	snprintf(ko_params + n, sizeof(ko_params) - n, "allow_fatal=0");
}

/* allow_fatal is 0, or the module is gone; anything else is counted. */
static void check_allow_fatal(void)
{
	char buf[32];

	if (!read_text(HP_PARAM, buf, sizeof(buf)) && strcmp(buf, "0"))
		bump(&st->fatal_seen);
}

static bool is_name(const char *s)
{
	int i;

	for (i = 0; i < nr_probes; i++)
		if (!strcmp(s, probes[i].name) || !strcmp(s, probes[i].feature))
			return true;
	return false;
}

static const struct probe *safe_probe(void)
{
	int i;

	for (i = 0; i < nr_probes; i++)
		if (!strcmp(probes[i].kind, "safe"))
			return &probes[i];
	return NULL;
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

/*
 * Send @buf (@len bytes) to @fd the @way way; 0 or -errno of the first
 * failing call. W_FAULT sends the input's tail from right before the
 * PROT_NONE page, so the copy faults unless the module refuses the length
 * first; every other eighth time it sends from an unmapped address.
 */
static int send_input(int fd, const char *buf, size_t len, enum w_way way, unsigned int r)
{
	struct iovec iov[4];
	size_t k, cut;
	char *src;

	switch (way) {
	case W_OFFSET:
		return pwrite(fd, buf, len, r % 8 ? 1 + r % 8192 : 1LL << 40) < 0 ? -errno : 0;
	case W_MULTI:
		for (k = 0; k < 3; k++)
			if (write(fd, buf, len) < 0)
				return -errno;
		return 0;
	case W_WRITEV:
		cut = len ? r % len : 0;
		iov[0] = (struct iovec){ (void *)buf, cut };
		iov[1] = (struct iovec){ NULL, 0 };
		iov[2] = (struct iovec){ (void *)(buf + cut), len - cut };
		iov[3] = (struct iovec){ (void *)buf, r & 1 ? len : 0 };
		return writev(fd, iov, 4) < 0 ? -errno : 0;
	case W_FAULT:
		if (r % 8 == 0)
			return syscall(SYS_write, fd, 16UL, len ? len : 1) < 0 ? -errno : 0;
		k = len < 4096 ? len : 4096;
		src = fault_page - k / 2;	/* the second half of the input is unmapped */
		memcpy(src, buf, k / 2);
		return write(fd, src, k ? k : 1) < 0 ? -errno : 0;
	default:
		return write(fd, buf, len) < 0 ? -errno : 0;
	}
}

static void writer(int id, long quota)
{
	static char buf[1 << 20];
	unsigned int seed = 0x5eed + id, i;
	bool fatal;

	for (i = 0; i < quota && !st->stop && !st->writers_stop; i++) {
		const char *path = files[i % nr_files];
		size_t len = make_input(buf, sizeof(buf), i / nr_files + id, &seed, &fatal);
		unsigned int r = rand_r(&seed);
		enum w_way way = r % 3 ? W_PLAIN : r / 3 % (W_NR - 1) + 1;
		int fd = open(path, r & 0x100 ? O_WRONLY | O_NONBLOCK : O_WRONLY), err;

		if (fd < 0) {
			err = -errno;
		} else {
			__atomic_add_fetch(&st->inflight, 1, __ATOMIC_RELAXED);
			err = send_input(fd, buf, len, way, r >> 9);
			__atomic_sub_fetch(&st->inflight, 1, __ATOMIC_RELAXED);
			close(fd);
		}
		bump(&st->writes);
		bump(&st->w_way[way]);
		if (!err) {
			bump(&st->w_ok);
			/* pieces of a name (writev, a half-mapped buffer) are no name */
			if (fatal && way != W_WRITEV && way != W_FAULT)
				bump(&st->fatal_ran);
		} else if (err == -EINVAL) {
			bump(&st->w_einval);
		} else if (err == -EPERM) {
			bump(&st->w_eperm);
		} else if (err == -E2BIG || err == -ENOSPC) {
			bump(&st->w_e2big);
		} else if (err == -EFAULT && way == W_FAULT) {
			bump(&st->w_efault);
		} else if (err == -EINTR) {
			bump(&st->w_eintr);	/* mutex_lock_killable() */
		} else if (gone_errno(-err)) {
			bump(&st->w_gone);	/* the module was unloaded under us */
			/*
			 * wait for the reload as a reader does: a write to a
			 * module that is gone takes no time, and a quota spent
			 * while it is gone would end the storm with no write
			 * to run in flight for the readers to meet
			 */
			usleep(2000);
		} else {
			unexpected(&st->w_other, -err, "write %s", w_way_name[way]);
		}
	}
}

/*
 * Read the open @fd the @way way; bytes read or -errno. A wrong answer to a
 * call that must fail (a negative offset, a faulting buffer, mmap of a file
 * without mmap) is -EBADE.
 */
static ssize_t read_way(int fd, enum r_way way, unsigned int r, char *buf, size_t cap)
{
	ssize_t n, total = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	size_t sz = 1 + r % 4099;
	void *map;

	switch (way) {
	case R_BYTE:
	case R_ODD:
		sz = way == R_BYTE ? 1 : sz | 1;
		while (total < 4096 && (n = read(fd, buf, sz)) > 0)
			total += n;
		return n < 0 ? -errno : total;
	case R_PREAD:
		n = pread(fd, buf, 16, -1 - (off_t)r);
		if (n >= 0)
			return -EBADE;	/* a negative offset must be refused */
		if (errno != EINVAL)
			return -errno;
		n = pread(fd, buf, 16, 1LL << 40);
		if (n != 0)
			return n < 0 ? -errno : -EBADE;
		n = pread(fd, buf, sz < cap ? sz : cap, r % 65536);
		return n < 0 ? -errno : n;
	case R_SEEK:
		if (lseek(fd, -1 - (off_t)(r % 100), SEEK_SET) >= 0)
			return -EBADE;
		if (errno != EINVAL)
			return -errno;
		if (lseek(fd, r % 8192, SEEK_SET) < 0 || lseek(fd, -(off_t)(r % 64), SEEK_CUR) < 0)
			return errno == EINVAL ? 0 : -errno;
		lseek(fd, r % 3, SEEK_END);	/* debugfs files have no size: whatever */
		lseek(fd, r % 512, SEEK_SET);
		n = read(fd, buf, cap);
		return n < 0 ? -errno : n;
	case R_FAULT:
		n = r & 1 ? syscall(SYS_read, fd, 16UL, 64) : read(fd, fault_page, 64);
		if (n > 0)
			return -EBADE;
		return n == 0 || errno == EFAULT ? 0 : -errno;
	case R_MMAP_POLL:
		map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (map != MAP_FAILED) {
			munmap(map, 4096);
			return -EBADE;
		}
		if (errno != ENODEV && errno != EACCES && errno != EINVAL)
			return -errno;
		return poll(&pfd, 1, 20) < 0 ? -errno : 0;
	case R_WRITABLE:
		/* opened O_RDWR: a file with no write method refuses, "run" may not */
		n = write(fd, "probes", 6);
		if (n < 0 && errno != EINVAL && errno != EBADF && errno != EPERM)
			return -errno;
		n = read(fd, buf, cap);
		return n < 0 ? -errno : n;
	default:
		while ((n = read(fd, buf, cap)) > 0)
			total += n;
		return n < 0 ? -errno : total;
	}
}

static void reader(int id)
{
	/* report, ktap and json run every safe probe: one read in five is one of those */
	static const char *const names[] = {
		"report", "probes", "kstack", "probes", "run", "ktap", "kstack", "probes",
		"kstack", "run", "json", "probes", "kstack", "probes", "run",
	};
	unsigned int seed = 0x4ead + id, i;
	char path[256], buf[65536];

	for (i = id; !st->stop; i++) {
		unsigned int r = rand_r(&seed);
		enum r_way way = i % R_NR;	/* every way, even in a short storm */
		int flags = way == R_NONBLOCK ? O_RDONLY | O_NONBLOCK :
			    way == R_WRITABLE ? O_RDWR : O_RDONLY;
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), HP_DIR "/%s", names[i % ARRAY_SIZE(names)]);
		while (__atomic_load_n(&st->hold, __ATOMIC_ACQUIRE) && !st->stop)
			usleep(200);
		__atomic_add_fetch(&st->in_read, 1, __ATOMIC_ACQ_REL);
		if (st->inflight)
			bump(&st->read_inflight);
		fd = open(path, flags);
		if (fd < 0) {
			int e = errno;

			__atomic_sub_fetch(&st->in_read, 1, __ATOMIC_ACQ_REL);

			if (e == EINTR)
				bump(&st->read_eintr);
			else if (gone_errno(e))
				bump(&st->read_gone);
			else if (!(way == R_WRITABLE && (e == EACCES || e == EPERM)))
				unexpected(&st->read_other, e, "open for a %s read",
					   r_way_name[way]);
			usleep(2000);
			continue;
		}
		n = read_way(fd, way, r >> 8, buf, sizeof(buf));
		if (n >= 0)
			__atomic_add_fetch(&st->read_bytes, n, __ATOMIC_RELAXED);
		else if (n == -EINTR)
			bump(&st->read_eintr);
		else if (!gone_errno(-n))
			unexpected(&st->read_other, -n, "%s read", r_way_name[way]);
		close(fd);
		__atomic_sub_fetch(&st->in_read, 1, __ATOMIC_ACQ_REL);
		bump(&st->reads);
		bump(&st->r_way[way]);
		usleep(20000);	/* leave the loader a window */
	}
}

/*
 * Unloads race the readers; after STORM_TRIES_BUSY refusals in a row (on many
 * vCPUs the readers, each running every safe probe, never leave the module
 * idle) the loader holds new reads, waits for those under way (up to the
 * storm's end: a report read runs every safe probe, minutes on a KASAN kernel
 * under TCG) and unloads, again for STORM_RETRY_S while a writer's write (one
 * probe, short: the writers do not wait) holds the module; longer would
 * starve the readers.
 */
#define STORM_TRIES_BUSY	200
/* after the storm's deadline, for one reload under fire at least */
#define STORM_RELOAD_GRACE_S	300
/* unload tries while the readers are held (the writers go on) */
#define STORM_RETRY_S		5

static void loader(void)
{
	int busy = 0;

	while (!st->stop) {
		time_t r;
		int err;

		if (busy >= STORM_TRIES_BUSY) {
			__atomic_store_n(&st->hold, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&st->in_read, __ATOMIC_ACQUIRE) &&
			       time(NULL) < st->storm_end && !st->stop)
				usleep(200);
			/* the writers never wait: a few seconds of tries, not the storm */
			r = time(NULL) + STORM_RETRY_S;
			while ((err = unload_module()) && time(NULL) < r && !st->stop)
				usleep(1000);
			__atomic_store_n(&st->hold, 0, __ATOMIC_RELEASE);
			busy = 0;
		} else {
			err = unload_module();
		}
		if (err) {
			bump(&st->cycle_busy);
			busy++;
			usleep(200);
			continue;
		}
		busy = 0;
		usleep(500);
		while ((err = load_module()) == -EBUSY || err == -EINTR)
			usleep(100);
		if (err) {
			bump(&st->load_err);
			st->load_errno = -err;
			usleep(100000);
			continue;
		}
		check_allow_fatal();
		bump(&st->cycles);
		usleep(5000);
	}
}

/*
 * During the plain cycles (-R): open, read whole and close the files that run
 * no probe (run, probes), with a pause of 50 to 150 ms between: the opens race
 * the unloads and loads, and the module is idle often enough to unload (a
 * report read runs every safe probe: seconds on a KASAN kernel, during which
 * no unload could happen).
 */
static void cycle_reader(int id)
{
	static const char *const names[] = {
		HP_DIR "/run", HP_DIR "/probes", HP_DIR "/run", HP_DIR "/run",
	};
	unsigned int seed = 0xc1c1e + id, i;
	char buf[4096];

	for (i = id; !st->stop; i++) {
		const char *path = names[i % ARRAY_SIZE(names)];
		int fd;

		while (__atomic_load_n(&st->hold, __ATOMIC_ACQUIRE) && !st->stop)
			usleep(200);
		__atomic_add_fetch(&st->in_read, 1, __ATOMIC_ACQ_REL);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			if (gone_errno(errno))
				bump(&st->read_gone);
			else if (errno == EINTR)
				bump(&st->read_eintr);
			else
				unexpected(&st->read_other, errno, "open for a %s read",
					   strrchr(path, '/') + 1);
		} else {
			ssize_t n;

			while ((n = read(fd, buf, sizeof(buf))) > 0)
				__atomic_add_fetch(&st->read_bytes, n, __ATOMIC_RELAXED);
			if (n < 0 && !gone_errno(errno) && errno != EINTR)
				unexpected(&st->read_other, errno, "a %s read",
					   strrchr(path, '/') + 1);
			close(fd);
			bump(&st->reads);
		}
		__atomic_sub_fetch(&st->in_read, 1, __ATOMIC_ACQ_REL);
		usleep(rand_r(&seed) % 20000);
	}
}

/*
 * During the plain cycles (-k): load the KUnit module (its suites run at
 * load and call into hardprobe, which pins it), read the suites' results,
 * unload it, wait until kunit_every more cycles are done (KUNIT_LOADS in all:
 * a load pins hardprobe for a minute on a debug kernel, and a pause in
 * seconds would leave the cycles no room); again until the stop. A load
 * while hardprobe is gone fails (unknown symbols): counted as busy. A stop
 * never interrupts a load (a signal there fails the running case, -EINTR):
 * the parent waits for it, and the module is always unloaded.
 */
static void kunit_loop(void)
{
	char buf[16384];
	struct dirent *e;
	long since;

	signal(SIGTERM, SIG_IGN);
	while (!st->stop) {
		int fd;
		DIR *d;

		while (__atomic_load_n(&st->hold, __ATOMIC_ACQUIRE) && !st->stop)
			usleep(1000);
		__atomic_store_n(&st->in_kunit, 1, __ATOMIC_RELEASE);
		fd = open(kunit_path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
			/* (a load that failed leaves nothing loaded) */
			int err = fd < 0 ? EBADF : errno;

			if (fd >= 0)
				close(fd);
			if (err == ENOENT || err == EBUSY || err == EINTR || err == EEXIST)
				bump(&st->kunit_busy);
			else
				bump(&st->kunit_err);
			__atomic_store_n(&st->in_kunit, 0, __ATOMIC_RELEASE);
			usleep(2000);
			continue;
		}
		close(fd);
		bump(&st->kunit_runs);
		d = opendir("/sys/kernel/debug/kunit");
		while (d && (e = readdir(d))) {
			char path[300];

			if (strncmp(e->d_name, "hardprobe_", 10))
				continue;
			snprintf(path, sizeof(path), "/sys/kernel/debug/kunit/%s/results",
				 e->d_name);
			if (!read_text(path, buf, sizeof(buf)) && strstr(buf, "not ok "))
				bump(&st->kunit_notok);
		}
		if (d)
			closedir(d);
		while (syscall(SYS_delete_module, "hardprobe_kunit", O_NONBLOCK) &&
		       errno != ENOENT)
			usleep(1000);
		__atomic_store_n(&st->in_kunit, 0, __ATOMIC_RELEASE);
		/* the suites pin hardprobe while they run: room for the cycles */
		for (since = __atomic_load_n(&st->plain_done, __ATOMIC_ACQUIRE);
		     !st->stop && __atomic_load_n(&st->plain_done, __ATOMIC_ACQUIRE) <
		     since + st->kunit_every;)
			usleep(10000);
	}
}

/* The sysctls the flipper moves, what they were, and their counters. */
static struct sysctl {
	const char *path, *counter;
	char orig[32];
	bool have;
} sysctls[] = {
	{ SYSCTL_OOPS, "/sys/kernel/oops_count" },
	{ SYSCTL_WARN, "/sys/kernel/warn_count" },
	{ SYSCTL_POW, NULL },
};

static char allow_fatal_orig[32] = "0";
static pid_t parent_pid;

static void write_str(const char *path, const char *s)
{
	write_file(path, s, strlen(s));
}

static void restore_sysctls(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sysctls); i++)
		if (sysctls[i].have)
			write_str(sysctls[i].path, sysctls[i].orig);
}

/* Put the sysctls and allow_fatal back (open, write, close: signal-safe). */
static void restore(void)
{
	restore_sysctls();
	write_str(HP_PARAM, allow_fatal_orig);
}

static void on_signal(int sig)
{
	if (getpid() == parent_pid) {
		if (st)
			st->stop = 1;
		restore();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* a value a limit can take without making the next oops or warning panic */
static void harmless_limit(const struct sysctl *s, bool far, char *buf, size_t len)
{
	long c = s->counter ? read_long(s->counter) : 0;

	if (far && c >= 0)
		snprintf(buf, len, "%ld", c + 1000);
	else
		snprintf(buf, len, "%s", s->orig);
}

static const char *const bad_allow_fatal[] = {
	"-1", "3", "99", "abc", "1x", " 5", "2147483648", "0x10",
};

/*
 * While the writers send fatal names: rewrite allow_fatal to 0 (and, when
 * the module rejected them one at a time, send the out-of-range values too),
 * and move oops_limit and warn_limit between far-off limits and their old
 * values, panic_on_warn to its harmless 0. allow_fatal must read 0 throughout.
 */
static void flipper(bool send_bad)
{
	unsigned int k;
	char v[32];
	size_t i;
	int err;

	for (k = 0; !st->stop; k++) {
		err = write_file(HP_PARAM, "0", 1);
		if (!err)
			bump(&st->af_zero);
		if (send_bad) {
			const char *b = bad_allow_fatal[k % ARRAY_SIZE(bad_allow_fatal)];

			err = write_file(HP_PARAM, b, strlen(b));
			bump(&st->af_bad);
			if (!err) {
				bump(&st->af_bad_accepted);
				write_file(HP_PARAM, "0", 1);
			}
		}
		check_allow_fatal();
		for (i = 0; i < ARRAY_SIZE(sysctls); i++) {
			if (!sysctls[i].have)
				continue;
			if (sysctls[i].counter)
				harmless_limit(&sysctls[i], k & 1, v, sizeof(v));
			else
				snprintf(v, sizeof(v), "0");
			if (write_file(sysctls[i].path, v, strlen(v)))
				bump(&st->flip_err);
			bump(&st->flips);
		}
		usleep(3000);
	}
}

/* Every way in, as uid 65534: each must fail with EACCES or EPERM. */
static void nobody_try(int ok, int e, const char *what)
{
	bump(&st->nobody_tries);
	if (ok < 0 && (e == EACCES || e == EPERM)) {
		bump(&st->nobody_denied);
	} else if (ok < 0 && e == ENOENT) {
		bump(&st->nobody_gone);
	} else {
		bump(&st->nobody_bad);
		snprintf(st->nobody_what, sizeof(st->nobody_what), "%s: %s", what,
			 ok < 0 ? strerror(e) : "allowed");
	}
}

static void nobody(int ko_fd)
{
	static const char *const names[] = {
		"probes", "report", "ktap", "json", "run", "bench", "kstack",
	};
	const char *const sys[] = { HP_PARAM, SYSCTL_OOPS, SYSCTL_WARN, SYSCTL_POW };
	char path[320];
	size_t i;
	int fd;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) || geteuid() != NOBODY) {
		nobody_try(0, 0, "setuid(65534)");
		return;
	}
	while (!st->stop) {
		for (i = 0; i < ARRAY_SIZE(names); i++) {
			snprintf(path, sizeof(path), HP_DIR "/%s", names[i]);
			fd = open(path, O_RDONLY);
			nobody_try(fd, errno, path);
			if (fd >= 0)
				close(fd);
			fd = open(path, O_WRONLY);
			nobody_try(fd, errno, path);
			if (fd >= 0)
				close(fd);
		}
		for (i = 0; i < ARRAY_SIZE(sys); i++) {
			/* the sysctls are world-readable: only writing must fail */
			fd = open(sys[i], O_WRONLY);
			nobody_try(fd, errno, sys[i]);
			if (fd >= 0)
				close(fd);
		}
		if (ko_fd >= 0)
			nobody_try(syscall(SYS_finit_module, ko_fd, "", 0), errno, "finit_module");
		nobody_try(syscall(SYS_delete_module, "hardprobe", O_NONBLOCK), errno,
			   "delete_module");
		usleep(50000);
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

/* lockdep's debug_locks: 1 on, 0 turned off (by an oops, a splat), -1 no lockdep */
static int lockdep_on(void)
{
	char line[128];
	int v = -1;
	FILE *f = fopen(LOCKDEP_STATS, "r");

	if (!f)
		return access("/proc/lockdep", F_OK) ? -1 : 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " debug_locks: %d", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* --- one at a time, before the storm: each answer is known in advance --- */

/* Out-of-range allow_fatal values: EINVAL each, and the value stays 0. */
static bool bad_values_test(void)
{
	char buf[32], got[256] = "";
	size_t i, n = 0, rejected = 0;
	int err;

	for (i = 0; i < ARRAY_SIZE(bad_allow_fatal); i++) {
		const char *b = bad_allow_fatal[i];

		err = write_file(HP_PARAM, b, strlen(b));
		if (read_text(HP_PARAM, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "?");
		if (err == -EINVAL && !strcmp(buf, "0")) {
			rejected++;
			continue;
		}
		n += snprintf(got + n, sizeof(got) - n, " '%s' -> %s, reads %s;", b,
			      err ? strerror(-err) : "accepted", buf);
		n = n < sizeof(got) ? n : sizeof(got) - 1;
		write_file(HP_PARAM, "0", 1);
	}
	printf("# allow_fatal: %zu of %zu out-of-range writes rejected (EINVAL, stays 0)%s%s\n",
	       rejected, ARRAY_SIZE(bad_allow_fatal), *got ? ":" : "", got);
	result(rejected == ARRAY_SIZE(bad_allow_fatal), "fuzz_allow_fatal_rejects_bad", NULL, "");
	return rejected == ARRAY_SIZE(bad_allow_fatal);
}

/* All of @path through one read() of @cap bytes at a time, or pread()s. */
static ssize_t slurp(const char *path, char *out, size_t len, size_t cap, bool positioned)
{
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while (got < len) {
		size_t want = cap < len - got ? cap : len - got;

		n = positioned ? pread(fd, out + got, want, got) : read(fd, out + got, want);
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	return n < 0 ? -errno : (ssize_t)got;
}

/* "probes" is the same text read whole, a byte, 7, 333 bytes at a time or by pread. */
static void small_reads_test(void)
{
	static char whole[1 << 16], part[1 << 16];
	static const size_t sizes[] = { 1, 7, 333, 4097 };
	ssize_t n = slurp(HP_DIR "/probes", whole, sizeof(whole), sizeof(whole), false), m;
	char why[160] = "";
	size_t i;

	for (i = 0; n > 0 && i < ARRAY_SIZE(sizes) * 2 && !*why; i++) {
		m = slurp(HP_DIR "/probes", part, sizeof(part), sizes[i / 2], i & 1);
		if (m != n || memcmp(whole, part, n))
			snprintf(why, sizeof(why), "%s of %zu bytes: %zd bytes, %s",
				 i & 1 ? "pread" : "reads", sizes[i / 2], m,
				 m == n ? "different text" : "not the same length");
	}
	if (n <= 0)
		snprintf(why, sizeof(why), "probes: %s", n ? strerror(-n) : "empty");
	printf("# probes: %zd bytes, read whole and 1, 7, 333, 4097 bytes at a time%s%s\n", n,
	       *why ? ": " : "", why);
	result(!*why, "fuzz_small_reads_consistent", NULL, "");
}

/* The same @way of writing to "run", one at a time: the answers expected. */
static void write_way_test(const char *name, enum w_way way, const char *input,
			   int want1, int want2)
{
	int fd = open(HP_DIR "/run", O_WRONLY), err;

	if (fd < 0) {
		result(false, name, NULL, "");
		printf("# %s: open run: %s\n", name, strerror(errno));
		return;
	}
	err = send_input(fd, input, strlen(input), way, 5);
	close(fd);
	result(err == want1 || err == want2, name, NULL, "");
	printf("# %s: '%s' %s: %s\n", name, input, w_way_name[way],
	       err ? strerror(-err) : "accepted");
}

/* A read-only file opened for writing, mmap, poll, O_NONBLOCK: refused or harmless. */
static void odd_opens_test(void)
{
	static const char *const ro[] = { "probes", "report", "kstack" };
	char path[256], buf[4096], why[200] = "";
	struct pollfd pfd;
	size_t i;
	void *map;
	int fd, pr;

	for (i = 0; i < ARRAY_SIZE(ro) && !*why; i++) {
		snprintf(path, sizeof(path), HP_DIR "/%s", ro[i]);
		fd = open(path, O_WRONLY | O_TRUNC);
		if (fd >= 0 && write(fd, "1", 1) >= 0)
			snprintf(why, sizeof(why), "%s: a write to a read-only file succeeded",
				 ro[i]);
		else if (fd >= 0 && errno != EINVAL && errno != EBADF)
			snprintf(why, sizeof(why), "%s: write: %s", ro[i], strerror(errno));
		else if (fd < 0 && errno != EACCES && errno != EPERM)
			snprintf(why, sizeof(why), "%s: open O_WRONLY: %s", ro[i], strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			snprintf(why, sizeof(why), "%s: open O_NONBLOCK: %s", ro[i],
				 strerror(errno));
			break;
		}
		map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };
		pr = poll(&pfd, 1, 100);
		if (map != MAP_FAILED)
			snprintf(why, sizeof(why), "%s: mmap succeeded", ro[i]);
		else if (pr < 0)
			snprintf(why, sizeof(why), "%s: poll: %s", ro[i], strerror(errno));
		else if (read(fd, buf, sizeof(buf)) <= 0)
			snprintf(why, sizeof(why), "%s: O_NONBLOCK read: %s", ro[i],
				 strerror(errno));
		if (map != MAP_FAILED)
			munmap(map, 4096);
		close(fd);
	}
	printf("# read-only files opened O_WRONLY, mmap, poll, O_NONBLOCK reads%s%s\n",
	       *why ? ": " : ": refused or harmless", why);
	result(!*why, "fuzz_odd_opens", NULL, "");
}

static void one_at_a_time(void)
{
	const struct probe *p = safe_probe();
	char name[80];

	small_reads_test();
	snprintf(name, sizeof(name), "%s", p ? p->name : "no_safe_probe");
	write_way_test("fuzz_write_at_offset", W_OFFSET, name, 0, p ? 0 : -EINVAL);
	write_way_test("fuzz_writes_on_one_fd", W_MULTI, name, 0, p ? 0 : -EINVAL);
	/* one ->write per iovec: the first piece is not a name */
	write_way_test("fuzz_writev", W_WRITEV, name, -EINVAL, 0);
	write_way_test("fuzz_faulting_buffer", W_FAULT, name, -EFAULT, -EINVAL);
	odd_opens_test();
}

/* --- after the storm --- */

/* Wait for @n children until @until; returns how many are still running. */
static int reap(pid_t *pids, int n, time_t until)
{
	int i, left;

	for (;;) {
		for (i = 0, left = 0; i < n; i++) {
			if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) == pids[i])
				pids[i] = 0;
			left += pids[i] > 0;
		}
		if (!left || time(NULL) >= until)
			return left;
		usleep(20000);
	}
}

/* A process that did not die of SIGKILL: where it sleeps. */
static void report_stuck(pid_t pid)
{
	char path[64], wchan[128] = "?";

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	read_text(path, wchan, sizeof(wchan));
	printf("# process %d still running %d s after SIGKILL, in %s\n", pid, GRACE_S, wchan);
}

/*
 * After the stop: the children that do not exit within @grace_s seconds
 * are SIGKILLed (how many: *@killed), and those still running GRACE_S
 * seconds later are reported; returns how many those are.
 */
static int stop_children(pid_t *pids, int n, int grace_s, int *killed)
{
	int i, left;

	*killed = reap(pids, n, time(NULL) + grace_s);
	if (!*killed)
		return 0;
	printf("# %d process(es) still running %d s after the stop: SIGKILL\n", *killed,
	       grace_s);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	left = reap(pids, n, time(NULL) + GRACE_S);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			report_stuck(pids[i]);
	return left;
}

/*
 * Findings in the kernel log; see the header comment. A WARN() block
 * (warn_header_pid()) is hardprobe's when its first line names [hardprobe] code or, for a
 * warning in kernel code, when a frame of its trace is [hardprobe]'s or its
 * task is one of ours (Comm: hardprobe_...). The message right before the
 * block tells an intended catch.
 */
/*
 * The reports the probes provoke on purpose (UBSAN, refcount_t, list
 * corruption, ...): the "reports" of every probe in the module's JSON, so
 * that a probe declares its own. None readable: every warning counts.
 */
#define MAX_INTENDED 32
static char intended[MAX_INTENDED][LINE];
static int nr_intended;

/*
 * A BUG report a probe provokes on purpose (KFENCE's "BUG: KFENCE:", SLUB's
 * "BUG <cache> (...): Redzone overwritten") is intended only while that
 * probe, which declares it, is in flight: between the module's "begin
 * <probe>" line and its "end <probe>" (safe) or "result <probe>" (fatal)
 * line. The module runs one probe at a time (hp_lock), so one is in flight.
 */
#define MAX_OWN 128
#define NAME 64
static struct {
	char probe[NAME];
	char report[LINE];
} own[MAX_OWN];
static int nr_own;

/* The reports of the module's JSON document in @json (@n bytes, NUL-terminated). */
static void parse_intended(const char *json, size_t n)
{
	const char *p, *q, *end = json + n, *r, *next;
	int i;

	for (p = json; (p = hp_json_value(p, end, "\"reports\"")) && *p == '"'; p = q) {
		q = memchr(p + 1, '"', end - p - 1);
		if (!q || q == p + 1 || q - p - 1 >= LINE)
			continue;
		for (i = 0; i < nr_intended; i++)
			if ((size_t)(q - p - 1) == strlen(intended[i]) &&
			    !strncmp(intended[i], p + 1, q - p - 1))
				break;
		if (i == nr_intended && nr_intended < MAX_INTENDED)
			snprintf(intended[nr_intended++], LINE, "%.*s", (int)(q - p - 1), p + 1);
	}
	/* each probe's own: its "reports", before the next probe's "probe" */
	for (p = hp_json_value(json, end, "\"probe\""); p && *p == '"'; p = next) {
		next = hp_json_value(p, end, "\"probe\"");
		r = hp_json_value(p, next ?: end, "\"reports\"");
		q = memchr(p + 1, '"', end - p - 1);
		if (!q || !r || *r != '"' || r[1] == '"' || q - p - 1 >= NAME ||
		    nr_own == MAX_OWN)
			continue;
		snprintf(own[nr_own].probe, NAME, "%.*s", (int)(q - p - 1), p + 1);
		q = memchr(r + 1, '"', end - r - 1);
		if (q && q - r - 1 < LINE)
			snprintf(own[nr_own++].report, LINE, "%.*s", (int)(q - r - 1), r + 1);
	}
	printf("# intended reports (the probes' own \"reports\" in json): %d, of %d probes\n",
	       nr_intended, nr_own);
}

static void load_intended(void)
{
	static char json[256 * 1024];
	ssize_t n = slurp(HP_DIR "/json", json, sizeof(json) - 1, sizeof(json) - 1, false);

	if (n <= 0) {
		printf("# intended reports: cannot read %s/json: every warning counts\n", HP_DIR);
		return;
	}
	json[n] = '\0';
	parse_intended(json, n);
}

static struct scan_state {
	char prev[LINE], warn[LINE], first[LINE];
	char flight[NAME];	/* the probe in flight, "" if none */
	bool in_warn, intended, in_slub;
	long n;
} sc;

/* one of the intended reports in @msg */
static bool is_intended(const char *msg)
{
	int i;

	for (i = 0; i < nr_intended; i++)
		if (strstr(msg, intended[i]))
			return true;
	return false;
}

/* Follow the module's "hardprobe: begin|end|result <probe> ..." lines. */
static void track_flight(const char *msg)
{
	bool begin = false;
	const char *name;
	size_t len;

	msg += 11;	/* "hardprobe: " */
	if (!strncmp(msg, "begin ", 6)) {
		begin = true;
		name = msg + 6;
	} else if (!strncmp(msg, "end ", 4)) {
		name = msg + 4;
	} else if (!strncmp(msg, "result ", 7)) {
		name = msg + 7;
	} else {
		return;
	}
	len = strcspn(name, " ");
	if (!len || len >= NAME)
		return;
	if (begin)
		snprintf(sc.flight, NAME, "%.*s", (int)len, name);
	else if (strlen(sc.flight) == len && !strncmp(sc.flight, name, len))
		sc.flight[0] = '\0';
}

/* A BUG report of @msg that the probe in flight declares as its own. */
static bool bug_in_flight(const char *msg)
{
	int j;

	for (j = 0; sc.flight[0] && j < nr_own; j++)
		if (!strcmp(own[j].probe, sc.flight) && strstr(msg, own[j].report))
			return true;
	return false;
}

/* SLUB: "BUG kmalloc-64 (Tainted: ...): Poison overwritten" */
static bool slub_bug(const char *msg)
{
	const char *c = strchr(msg, ' ');

	return !strncmp(msg, "BUG ", 4) && c && strchr(c + 1, ' ') &&
	       !strncmp(strchr(c + 1, ' '), " (", 2);
}

#define UNLOAD_RACE "debugfs file owner did not clean up at exit: "

static void finding(const char *msg)
{
	if (!sc.n++)
		snprintf(sc.first, sizeof(sc.first), "%s", msg);
}

static bool is_finding(const char *msg, const void *arg)
{
	static const char *const bad[] = {
		"Oops", "BUG:", "kernel BUG at", "general protection fault",
		"unreferenced object", "INFO: task", "exited with preempt_count",
		"exited with irqs disabled", NULL,
	};
	long before = sc.n, pid;
	bool is_warn;
	int i;

	(void)arg;
	if (!strncmp(msg, "hardprobe: ", 11) || !strncmp(msg, "hardprobe-selftest: ", 20)) {
		track_flight(msg);
		goto out;	/* the module's and our own lines quote, never report */
	}
	/*
	 * a probe's own catch, declared, while it runs; in SLUB's report
	 * ("BUG <cache> (...): ..."), so is the warning inside it (object_err()
	 * warns from 6.12 on), up to its end trace or SLUB's "FIX <cache>:" line
	 */
	if ((!strncmp(msg, "BUG: ", 5) || slub_bug(msg)) && bug_in_flight(msg)) {
		sc.in_slub = slub_bug(msg);
		goto out;
	}
	for (i = 0; bad[i]; i++)
		if (strstr(msg, bad[i])) {
			finding(msg);
			goto out;
		}
	if (slub_bug(msg)) {
		finding(msg);
		goto out;
	}
	/*
	 * lockdep and RCU: "WARNING: possible ...", "WARNING: inconsistent lock
	 * state"; a WARN()'s first line names its task (warn_header_pid())
	 */
	is_warn = warn_header_pid(msg, &pid);
	if (!strncmp(msg, "WARNING: ", 9) && !is_warn) {
		finding(msg);
		goto out;
	}
	if (is_warn) {
		/*
		 * not hardprobe's: the kernel's race of an open with rmmod, which
		 * the reloads provoke on purpose (try_stop_module() drops the last
		 * reference before it marks the module GOING; open_proxy_open()
		 * warns in that gap)
		 */
		sc.intended = sc.in_slub || is_intended(sc.prev) ||
			      !strncmp(sc.prev, UNLOAD_RACE, strlen(UNLOAD_RACE));
		snprintf(sc.warn, sizeof(sc.warn), "%s", msg);
		sc.in_warn = !sc.intended;
		if (sc.in_warn && strstr(msg, "[hardprobe]")) {
			finding(msg);
			sc.in_warn = false;
		}
	} else if (sc.in_warn && (strstr(msg, "[hardprobe]") || strstr(msg, "Comm: hardprobe_"))) {
		finding(sc.warn);
		sc.in_warn = false;
	} else if (strstr(msg, "---[ end trace")) {
		sc.in_warn = false;
		sc.in_slub = false;
	} else if (!strncmp(msg, "FIX ", 4)) {
		sc.in_slub = false;
	}
out:
	snprintf(sc.prev, sizeof(sc.prev), "%s", msg);
	return sc.n > before;
}

/*
 * kmemleak: scan now (objects younger than 5 s are not reported: wait that
 * long after the last reload first) and count the unreferenced objects that
 * our processes allocated or hardprobe's code did. Returns -1 with no kmemleak.
 */
static long kmemleak_ours(long *all, char *first, size_t len)
{
	char line[LINE], rec[LINE] = "";
	bool ours = false;
	long n = 0;
	FILE *f;

	*all = 0;
	if (access(KMEMLEAK, W_OK))
		return -1;
	sleep(6);
	if (write_file(KMEMLEAK, "scan", 4))
		return -1;
	f = fopen(KMEMLEAK, "r");
	if (!f)
		return -1;
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);

		if (eof || !strncmp(line, "unreferenced object", 19)) {
			if (ours && !n++)
				snprintf(first, len, "%s", rec);
			if (eof)
				break;
			(*all)++;
			ours = false;
			snprintf(rec, sizeof(rec), "%.*s", (int)strcspn(line, "\n"), line);
		}
		ours |= !!strstr(line, "hardprobe");
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long quota = 10000, cycles_wanted = 0, found, leaks = -1, leaks_all = 0;
	int writers = 3, readers = 2, seconds = 120, opt, i, nproc = 0, stuck, fork_errno = 0;
	int cycle_readers = 0;
	int lockdep0, lockdep1, ko_fd = -1, killed;
	char marker[256], first[LINE], leak_first[LINE] = "", buf[64];
	long warn0, warn1;
	bool deadline = false, send_bad, reloads = false;
	pid_t pids[MAX_PROCS];
	time_t t0;
	size_t k;

	set_params("");
	while ((opt = getopt(argc, argv, "n:p:r:t:m:a:L:R:k:")) != -1) {
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
			set_params(optarg);
			break;
		case 'L':
			cycles_wanted = atol(optarg);
			break;
		case 'R':
			cycle_readers = atoi(optarg);
			break;
		case 'k':
			kunit_path = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-n writes] [-p writers] [-r readers] [-t s]",
				argv[0]);
			fprintf(stderr, " [-m ko [-a params]] [-L cycles] [-R readers] [-k ko]\n");
			return 2;
		}
	}
	if (writers < 1 || writers > 16 || readers < 0 || readers > 8 || quota < 1 ||
	    cycle_readers < 0 || cycle_readers > 8)
		return fprintf(stderr, "bad -n/-p/-r/-R\n"), 2;
	hp_print_header();
	if (load_probes() || list_writable() || !nr_files)
		ksft_exit_skip("%s not found or nothing writable: %s\n", HP_DIR,
			       "load hardprobe.ko, mount debugfs, run as root");
	ksft_set_plan(NR_TESTS);
	load_intended();
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fault_page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED || fault_page == MAP_FAILED ||
	    mprotect(fault_page + 4096, 4096, PROT_NONE))
		ksft_exit_fail_perror("mmap");
	fault_page += 4096;
	parent_pid = getpid();

	/* lockdep first: an oops before us (a fatal probe's catch) turns it off for good */
	lockdep0 = lockdep_on();
	if (lockdep0 < 0)
		printf("# lockdep: not in this kernel (no %s): its splats cannot be checked\n",
		       LOCKDEP_STATS);
	else
		printf("# lockdep: debug_locks %d at the start%s\n", lockdep0, lockdep0 ? "" :
		       ": turned off before the fuzz (an oops or splat): it cannot report");

	if (read_text(HP_PARAM, allow_fatal_orig, sizeof(allow_fatal_orig)))
		snprintf(allow_fatal_orig, sizeof(allow_fatal_orig), "0");
	for (k = 0; k < ARRAY_SIZE(sysctls); k++)
		sysctls[k].have = !read_text(sysctls[k].path, sysctls[k].orig,
					     sizeof(sysctls[k].orig));
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	if (strcmp(allow_fatal_orig, "0")) {
		write_file(HP_PARAM, "0", 1);
		printf("# allow_fatal was %s: set to 0 for the fuzz run, restored after\n",
		       allow_fatal_orig);
	}
	if (ko_path) {
		/* loaded already: EEXIST if a reload would work, EPERM under lockdown */
		int err = load_module();

		reloads = err == -EEXIST || !err;
		if (!reloads)
			printf("# %s cannot be reloaded here (%s): no unload/reload cycles\n",
			       ko_path, strerror(-err));
		ko_fd = open(ko_path, O_RDONLY | O_CLOEXEC);
		printf("# reloads with: %s\n", ko_params);
	}

	warn0 = read_long("/sys/kernel/warn_count");
	mark(marker, sizeof(marker), "fuzz");
	t0 = time(NULL);
	st->storm_end = t0 + seconds + STORM_RELOAD_GRACE_S;

	send_bad = bad_values_test();
	one_at_a_time();

	for (i = 0; i < writers + readers + 2 + reloads; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fork_errno = errno;
			st->stop = 1;
			break;
		}
		if (pid) {
			pids[nproc++] = pid;
			continue;
		}
		signal(SIGTERM, SIG_DFL);
		if (i < writers)
			writer(i, quota * nr_files / writers + (i < quota * nr_files % writers));
		else if (i < writers + readers)
			reader(i - writers);
		else if (i == writers + readers)
			flipper(send_bad);
		else if (i == writers + readers + 1)
			nobody(ko_fd);
		else
			loader();
		_exit(0);
	}
	result(!fork_errno, "fuzz_processes_started", NULL, "");
	if (fork_errno)
		printf("# fork() failed after %d of %d processes: %s\n", nproc,
		       writers + readers + 2 + reloads, strerror(fork_errno));
	/* writers first, stopped at the deadline (GRACE_S to end their write); then the others */
	while (!st->stop && reap(pids, nproc < writers ? nproc : writers,
				 deadline ? time(NULL) + 1 : t0 + seconds)) {
		if (deadline && time(NULL) >= t0 + seconds + GRACE_S)
			break;
		if (time(NULL) >= t0 + seconds) {
			st->writers_stop = 1;
			deadline = true;
		}
	}
	/*
	 * the writers may finish before the reloader ever found the module
	 * idle: readers and the reloader go on (STORM_RELOAD_GRACE_S past the
	 * deadline at most) until one unload/reload cycle under fire has happened
	 */
	while (reloads && !st->stop && !__atomic_load_n(&st->cycles, __ATOMIC_RELAXED) &&
	       time(NULL) < st->storm_end)
		usleep(10000);
	st->stop = 1;
	stuck = stop_children(pids, nproc, GRACE_S, &killed);
	/* a reader killed in a read left its count */
	st->in_read = 0;
	st->hold = 0;
	result(!stuck, "fuzz_processes_exit", NULL, "");
	restore_sysctls();
	if (ko_path && access(HP_DIR "/probes", F_OK))
		load_module();

	printf("# %ld writes in %lds to %d file(s) by %d writers: ", st->writes,
	       (long)(time(NULL) - t0), nr_files, writers);
	printf("%ld accepted, %ld EINVAL, %ld EPERM, %ld too long, %ld EFAULT, %ld EINTR, ",
	       st->w_ok, st->w_einval, st->w_eperm, st->w_e2big, st->w_efault, st->w_eintr);
	printf("%ld module gone, %ld other\n", st->w_gone, st->w_other);
	printf("# writes by way:");
	for (k = 0; k < W_NR; k++)
		printf(" %s %ld%s", w_way_name[k], st->w_way[k], k + 1 < W_NR ? "," : "\n");
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
	printf("# %ld reads (%ld bytes), %ld while unloaded, %ld EINTR, %ld unexpected errors\n",
	       st->reads, st->read_bytes, st->read_gone, st->read_eintr, st->read_other);
	printf("# reads by way:");
	for (k = 0; k < R_NR; k++)
		printf(" %s %ld%s", r_way_name[k], st->r_way[k], k + 1 < R_NR ? "," : "\n");
	printf("# %ld reads opened while a write to run was in flight\n", st->read_inflight);
	result(st->read_inflight > 0, "fuzz_reads_during_runs", NULL, "");
	if (st->enxio)
		printf("# %ld opens while the module was going (ENXIO)\n", st->enxio);
	if (st->w_other || st->read_other)
		printf("# last unexpected error: %s: %s\n", st->other_what,
		       strerror(st->other_errno));

	printf("# flipper: %ld sysctl writes (%ld failed), allow_fatal=0 %ld times, ", st->flips,
	       st->flip_err, st->af_zero);
	if (send_bad)
		printf("%ld out-of-range values, %ld accepted\n", st->af_bad, st->af_bad_accepted);
	else
		printf("no out-of-range values (accepted one at a time: not sent in the storm)\n");
	result(st->flips > 0 && !st->flip_err && !st->af_bad_accepted, "fuzz_sysctl_flips",
	       NULL, "");
	printf("# uid 65534: %ld tries, %ld refused (EACCES/EPERM), %ld module gone, ",
	       st->nobody_tries, st->nobody_denied, st->nobody_gone);
	printf("%ld let in%s%s\n", st->nobody_bad, st->nobody_bad ? ": last: " : "",
	       st->nobody_what);
	result(st->nobody_tries > 0 && !st->nobody_bad, "fuzz_nonroot_refused", NULL, "");

	if (!reloads) {
		result(true, "fuzz_reload_cycles", "SKIP", "%s",
		       ko_path ? "the module cannot be reloaded" : "needs -m <hardprobe.ko>");
	} else {
		printf("# %ld unload/reload cycles during the fuzz (%ld refused: busy, ",
		       st->cycles, st->cycle_busy);
		printf("%ld loads failed%s%s)\n", st->load_err, st->load_err ? ", last: " : "",
		       st->load_err ? strerror(st->load_errno) : "");
		result(st->cycles > 0 && !st->load_err, "fuzz_reload_cycles", NULL, "");
	}

	if (reloads && cycles_wanted) {
		long done = 0, busy = 0, reads0 = st->reads;
		int last_uerr = 0;	/* the last unload's error, for the report */
		int err = 0, nc = 0, want = cycle_readers + !!kunit_path, left;
		time_t t1 = time(NULL), until = t1 + seconds * 4 + cycles_wanted * CYCLE_S;

		/* the readers and the KUnit loader race the cycles (-R, -k) */
		st->stop = 0;
		st->plain_done = 0;
		st->kunit_every = cycles_wanted / KUNIT_LOADS > 0 ? cycles_wanted / KUNIT_LOADS : 1;
		for (i = 0; i < want; i++) {
			pid_t pid = fork();

			if (pid < 0)
				break;
			if (pid) {
				pids[nc++] = pid;
				continue;
			}
			signal(SIGTERM, SIG_DFL);
			if (i < cycle_readers)
				cycle_reader(i);
			else
				kunit_loop();
			_exit(0);
		}
		while (done < cycles_wanted && time(NULL) <= until) {
			time_t w = time(NULL) + 5, wk = time(NULL) + KUNIT_GRACE_S;
			int uerr;

			/*
			 * hold new reads and KUnit loads, let those under way end: a
			 * read 5 s at most, a KUnit load (it pins hardprobe) as long
			 * as its suites run
			 */
			__atomic_store_n(&st->hold, 1, __ATOMIC_RELEASE);
			while ((time(NULL) < w &&
				__atomic_load_n(&st->in_read, __ATOMIC_ACQUIRE)) ||
			       (time(NULL) < wk &&
				__atomic_load_n(&st->in_kunit, __ATOMIC_ACQUIRE)))
				usleep(200);
			uerr = unload_module();
			__atomic_store_n(&st->hold, 0, __ATOMIC_RELEASE);

			if (uerr) {
				busy++;
				last_uerr = -uerr;
				usleep(1000);
				continue;
			}
			while ((err = load_module()) == -EBUSY || err == -EINTR)
				usleep(100);
			if (err)
				break;
			check_allow_fatal();
			done++;
			__atomic_store_n(&st->plain_done, done, __ATOMIC_RELEASE);
		}
		st->stop = 1;
		/* a KUnit load under way runs every suite: minutes on a debug kernel */
		stop_children(pids, nc, kunit_path ? KUNIT_GRACE_S : GRACE_S, &left);
		/* the KUnit module pins hardprobe: never left loaded, even after a SIGKILL */
		for (i = 0; kunit_path && i < 100; i++) {
			if (!syscall(SYS_delete_module, "hardprobe_kunit", O_NONBLOCK) ||
			    errno == ENOENT)
				break;
			usleep(100000);
		}
		if (access(HP_DIR "/probes", F_OK))
			load_module();
		printf("# %ld of %ld plain unload/reload cycles in %lds (%ld busy, last: %s)%s%s\n",
		       done, cycles_wanted, (long)(time(NULL) - t1), busy,
		       last_uerr ? strerror(last_uerr) : "none", err ? ", load: " : "",
		       err ? strerror(-err) : "");
		if (want) {
			printf("# during them: %d of %d racing processes, %d stopped by SIGKILL, ",
			       nc, want, left);
			printf("%ld reads by %d readers; ", st->reads - reads0, cycle_readers);
			printf("KUnit module: %ld loads (suites run), %ld with a \"not ok\", ",
			       st->kunit_runs, st->kunit_notok);
			printf("%ld refused (hardprobe gone or busy), %ld failed\n", st->kunit_busy,
			       st->kunit_err);
		}
		result(done == cycles_wanted && nc == want && !left &&
		       (!cycle_readers || st->reads > reads0) &&
		       (!kunit_path || (st->kunit_runs && !st->kunit_err)),
		       "load_unload_cycles", NULL, "");
	} else {
		result(true, "load_unload_cycles", "SKIP",
		       reloads ? "needs -L <cycles>" : "needs -m <hardprobe.ko> and -L <cycles>");
	}
	printf("# allow_fatal read non-zero %ld times during the fuzz (reloads included)\n",
	       st->fatal_seen);
	result(!st->fatal_seen, "fuzz_allow_fatal_stays_0", NULL, "");

	leaks = kmemleak_ours(&leaks_all, leak_first, sizeof(leak_first));
	if (leaks < 0)
		printf("# kmemleak: not in this kernel (no %s)\n", KMEMLEAK);
	else
		printf("# kmemleak: scan: %ld unreferenced objects, %ld of hardprobe's%s%s\n",
		       leaks_all, leaks, leaks ? ": first: " : "", leak_first);
	result(leaks <= 0, "fuzz_no_leaks", leaks < 0 ? "SKIP" : NULL,
	       "not configured: CONFIG_DEBUG_KMEMLEAK");

	found = log_scan(marker, is_finding, NULL, false, first, sizeof(first));
	warn1 = read_long("/sys/kernel/warn_count");
	if (found < 0)
		printf("# kernel log: %s: not all of it could be read (log_buf_len=?)\n",
		       found == -ENOENT ? "the marker was overwritten" :
		       "records after the marker were overwritten");
	else
		printf("# kernel log since the marker: %ld finding(s)%s%s;", found,
		       found ? ", first: " : "", found ? sc.first : "");
	if (found >= 0)
		printf(" warn_count %ld -> %ld (probes' intended reports included)\n", warn0,
		       warn1);
	result(found >= 0, "fuzz_log_complete", NULL, "");
	result(found == 0, "fuzz_no_findings", NULL, "");
	printf("# findings: %ld in the log, %ld kmemleak\n", found < 0 ? 0 : found,
	       leaks < 0 ? 0 : leaks);

	lockdep1 = lockdep_on();
	if (lockdep0 >= 0)
		printf("# lockdep: debug_locks %d at the start, %d at the end\n", lockdep0,
		       lockdep1);
	if (lockdep0 < 0)
		result(true, "fuzz_lockdep_on", "SKIP", "not configured: CONFIG_PROVE_LOCKING");
	else
		result(lockdep0 == 1 && lockdep1 == 1, "fuzz_lockdep_on", NULL, "");

	result(read_text(HP_PARAM, buf, sizeof(buf)) == 0 && !strcmp(buf, "0"),
	       "fuzz_allow_fatal_unchanged", NULL, "");
	write_file(HP_PARAM, allow_fatal_orig, strlen(allow_fatal_orig));
	if (ko_fd >= 0)
		close(ko_fd);
	ksft_finished();
}
