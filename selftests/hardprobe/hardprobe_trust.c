// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe trust kselftest: the refusals fail closed and the module always
 * unloads. Each test provokes the situation in which a wrong refusal would
 * crash the kernel, so a regression shows as a failed test or, at worst, as
 * a panic that ends the run loudly; never as a silent pass.
 *
 *  - a writer in a private mount namespace that overmounts /proc/sys with
 *    a tmpfs saying "no panic settings", and a writer chrooted into an empty
 *    directory, are refused while the real oops_limit is one oops away;
 *  - two writers fire at once with room for one oops: one is caught, the
 *    other refused or busy (the check and the trigger are one step);
 *  - allow_fatal rejects values outside 0..2 and keeps its value;
 *  - after a caught fatal probe, "run" reads that probe's verdict, and
 *    rmmod returns within seconds (no writer's debugfs reference left);
 *  - run=<fatal probe> at load is refused with a message, and the module
 *    is live afterwards;
 *  - a writer thread of a two-thread process is refused (its catch would
 *    leak its file reference and pin the module), and rmmod works after;
 *  - a forked child writing through its parent's descriptor is caught,
 *    "dmesg -c" runs, and the parent still reads the probe's verdict from
 *    "run" (the module copied the log at the catch); rmmod works after;
 *  - a private cache left behind by a caught probe does not collide with
 *    the same probe's cache after a reload;
 *  - a reader of "report" that dies inside a safe probe (inject_oops=)
 *    neither wedges the next writer (the probe lock of a dead holder is
 *    taken over) nor keeps the module from unloading;
 *  - cycles: each kind of writer death (a single-threaded child, a thread
 *    of a two-thread process, a forked child writing through its parent's
 *    descriptor, a reader dying inside a safe probe) -c times, with
 *    "dmesg -c" before "run" is read: every verdict kept, every rmmod done
 *    within 10 s, no task in D state.
 *
 * usage: hardprobe_trust -m hardprobe.ko [-a "params"] [-p fatal-probe] [-c cycles] [group ...]
 * groups: refusals serialised warn_limit allow_fatal unload run_param threads
 *	   forked_fd cache_reload dead_reader cycles (default: all)
 * It needs root, a caught fatal probe (default nx.kmalloc) and a loaded
 * hardprobe, which it unloads and reloads. Prints KTAP version 1 (kselftest.h);
 * exits 0 (pass), 1 (a failure, or fewer results than planned) or 4 (skip).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "hp_util.h"

#define OOPS_LIMIT	"/proc/sys/kernel/oops_limit"
#define OOPS_COUNT	"/sys/kernel/oops_count"

static const char *module_path, *module_args = "", *probe = "nx.kmalloc";
static int cycles = 20;

/* A result line, with its detail as a diagnostic line before it. */
static void check(bool ok, const char *name, const char *fmt, ...)
{
	char why[LINE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf("# %s: %s\n", name, why);
	result(ok, name, NULL, "%s", why);
}

static int set_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return write_file(path, buf, strlen(buf));
}

/* A child writes @name to "run" after @setup; its exit code says what it got. */
enum { W_RAN = 0, W_EPERM = 2, W_EBUSY = 3, W_OTHER = 4, W_SETUP = 5 };

static int writer_code(int err)
{
	return err == 0 ? W_RAN : err == -EPERM ? W_EPERM : err == -EBUSY ? W_EBUSY : W_OTHER;
}

/*
 * Wait for @pid up to @secs; its status, or -1: killed after the timeout,
 * and left behind if even SIGKILL cannot end it (a task in D state, as in
 * an rmmod that waits forever).
 */
static int wait_for(pid_t pid, int secs)
{
	int status, i;

	for (i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	for (i = 0; i < 10 && waitpid(pid, &status, WNOHANG) != pid; i++)
		usleep(100000);
	return -1;
}

static const char *status_str(int status, char *buf, size_t len)
{
	if (status < 0)
		snprintf(buf, len, "still running after the timeout");
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (the probe fired)", WTERMSIG(status));
	else
		snprintf(buf, len, "exit %d (%s)", WEXITSTATUS(status),
			 WEXITSTATUS(status) == W_RAN ? "ran and returned" :
			 WEXITSTATUS(status) == W_EPERM ? "refused" :
			 WEXITSTATUS(status) == W_EBUSY ? "busy" :
			 WEXITSTATUS(status) == W_SETUP ? "setup failed" : "other error");
	return buf;
}

/* A fake /proc/sys/kernel saying that nothing panics. */
static int fake_proc_sys(void)
{
	static const char *const files[] = {
		"panic_on_oops", "panic_on_warn", "oops_limit", "warn_limit",
	};
	char path[128];
	unsigned int i;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/proc/sys", "tmpfs", 0, "mode=0755") ||
	    mkdir("/proc/sys/kernel", 0755))
		return -1;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		int fd;

		snprintf(path, sizeof(path), "/proc/sys/kernel/%s", files[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "0\n", 2) != 2)
			return -1;
		close(fd);
	}
	/* the lie is in place: this process reads "0" where the kernel holds more */
	return read_long("/proc/sys/kernel/oops_limit") == 0 ? 0 : -1;
}

/*
 * Fire @probe from a child whose view of the kernel's settings is a lie:
 * @how 0, /proc/sys overmounted in a private mount namespace; 1, chrooted
 * into an empty directory (the "run" file opened before).
 */
static int refused_writer(int how)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open(HP_DIR "/run", O_WRONLY);
		char dir[] = "/tmp/hp-trust-XXXXXX";
		ssize_t n;

		if (fd < 0)
			_exit(W_SETUP);
		if (how == 0 && (unshare(CLONE_NEWNS) || fake_proc_sys()))
			_exit(W_SETUP);
		if (how == 1 && (!mkdtemp(dir) || chroot(dir) || chdir("/")))
			_exit(W_SETUP);
		n = write(fd, probe, strlen(probe));
		_exit(writer_code(n < 0 ? -errno : 0));
	}
	return wait_for(pid, 30);
}

static void test_refusals(void)
{
	static const char *const names[] = {
		"refused_in_private_mount_ns_with_fake_proc_sys",
		"refused_in_chroot_without_proc",
	};
	long limit = read_long(OOPS_LIMIT), count = read_long(OOPS_COUNT);
	char buf[96], marker[160], line[LINE];
	int how, status;

	for (how = 0; how < 2; how++) {
		if (limit < 0 || count < 0 || set_long(OOPS_LIMIT, count + 1)) {
			result(true, names[how], "SKIP",
			       "cannot read or set oops_limit/oops_count");
			continue;
		}
		mark(marker, sizeof(marker), names[how]);
		status = refused_writer(how);
		set_long(OOPS_LIMIT, limit);
		check(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == W_EPERM &&
		      log_find(marker, "hardprobe: refused", line, sizeof(line)),
		      names[how], "oops_limit=%ld, oops_count=%ld: %s; log: %s",
		      count + 1, count, status_str(status, buf, sizeof(buf)),
		      log_find(marker, "hardprobe: refused", line, sizeof(line)) ? line :
		      "no refusal");
	}
}

/* Two writers at once with room for exactly one oops: one caught, one refused. */
static void test_serialised(void)
{
	const char *name = "two_writers_one_oops_of_room";
	long limit = read_long(OOPS_LIMIT), count = read_long(OOPS_COUNT);
	int go[2], i, status[2], died = 0, refused = 0;
	char b0[96], b1[96];
	pid_t pid[2];

	if (limit < 0 || count < 0 || pipe(go) || set_long(OOPS_LIMIT, count + 2)) {
		result(true, name, "SKIP", "cannot read or set oops_limit/oops_count");
		return;
	}
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (!pid[i]) {
			int fd = open(HP_DIR "/run", O_WRONLY);
			char c;
			ssize_t n;

			close(go[1]);
			if (fd < 0 || read(go[0], &c, 1) != 0)
				_exit(W_SETUP);
			n = write(fd, probe, strlen(probe));
			_exit(writer_code(n < 0 ? -errno : 0));
		}
	}
	close(go[0]);
	close(go[1]);	/* both start now */
	for (i = 0; i < 2; i++) {
		status[i] = pid[i] > 0 ? wait_for(pid[i], 30) : -1;
		died += status[i] >= 0 && WIFSIGNALED(status[i]);
		/*
		 * not fired: refused at the limit, or busy (the other one was in
		 * flight, alive: a writer fails at once then)
		 */
		refused += status[i] >= 0 && WIFEXITED(status[i]) &&
			   (WEXITSTATUS(status[i]) == W_EPERM || WEXITSTATUS(status[i]) == W_EBUSY);
	}
	set_long(OOPS_LIMIT, limit);
	check(died == 1 && refused == 1, name,
	      "oops_limit=%ld from oops_count=%ld: writer 1 %s, writer 2 %s", count + 2, count,
	      status_str(status[0], b0, sizeof(b0)), status_str(status[1], b1, sizeof(b1)));
}

/*
 * One warning away from warn_limit, a report reads every safe probe: those
 * that may warn must refuse (a warning now panics), and none may warn.
 */
static void test_warn_limit(void)
{
	const char *name = "report_one_warning_from_warn_limit";
	long limit = read_long("/proc/sys/kernel/warn_limit");
	long count = read_long("/sys/kernel/warn_count"), after;
	char buf[65536];
	int fd, refused = 0;
	ssize_t n, len = 0;
	char *p;

	if (limit < 0 || count < 0 || set_long("/proc/sys/kernel/warn_limit", count + 1)) {
		result(true, name, "SKIP", "cannot read or set warn_limit/warn_count");
		return;
	}
	fd = open(HP_DIR "/json", O_RDONLY);
	while (fd >= 0 && len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	if (fd >= 0)
		close(fd);
	buf[len] = '\0';
	after = read_long("/sys/kernel/warn_count");
	set_long("/proc/sys/kernel/warn_limit", limit);
	for (p = buf; (p = strstr(p, "refused: kernel.warn_limit=")); p++)
		refused++;
	check(len > 0 && after == count && refused > 0, name,
	      "warn_limit=%ld, warn_count %ld before, %ld after; %d probes refused",
	      count + 1, count, after, refused);
}

static void test_allow_fatal_range(void)
{
	static const char *const bad[] = { "-1", "3", "99", "0x10", "abc", "\n", "2147483648" };
	char before[16], after[16];
	unsigned int i, rejected = 0;

	if (read_text(HP_PARAM, before, sizeof(before))) {
		result(true, "allow_fatal_rejects_out_of_range", "SKIP", "no %s", HP_PARAM);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		rejected += write_file(HP_PARAM, bad[i], strlen(bad[i])) == -EINVAL;
	read_text(HP_PARAM, after, sizeof(after));
	check(rejected == ARRAY_SIZE(bad) && !strcmp(before, after),
	      "allow_fatal_rejects_out_of_range",
	      "%u of %zu bad values rejected with EINVAL; value %s before, %s after",
	      rejected, ARRAY_SIZE(bad), before, after);
}

static int load(const char *extra)
{
	char args[LINE];
	int fd = open(module_path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	snprintf(args, sizeof(args), "%s %s", module_args, extra);
	err = syscall(SYS_finit_module, fd, args, 0) ? -errno : 0;
	close(fd);
	return err;
}

/* insmod from a child: a probe that fires in module init kills it, not us */
static int load_in_child(const char *extra)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(-load(extra));
	status = wait_for(pid, 30);
	if (status < 0)
		return -ETIMEDOUT;
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -EINTR;
}

/* rmmod from a child, so that a hang is seen and does not hang us. */
static int unload(int secs, char *why, size_t len)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(syscall(SYS_delete_module, "hardprobe", O_NONBLOCK) ? errno : 0);
	status = wait_for(pid, secs);
	if (status < 0)
		snprintf(why, len, "rmmod still blocked after %d s", secs);
	else
		snprintf(why, len, "rmmod: %s", WEXITSTATUS(status) ?
			 strerror(WEXITSTATUS(status)) : "ok");
	return status < 0 ? -1 : WEXITSTATUS(status);
}

static void test_catch_then_unload(void)
{
	char b[96], why[96], run[LINE] = "", want[128];
	pid_t pid;
	int status;

	if (write_file(HP_PARAM, "1", 1)) {
		check(false, "run_reads_the_caught_probe", "cannot set allow_fatal=1");
		check(false, "rmmod_after_a_catch", "cannot set allow_fatal=1");
		return;
	}
	pid = fork();
	if (!pid) {
		int err = write_file(HP_DIR "/run", probe, strlen(probe));

		_exit(writer_code(err));
	}
	status = pid > 0 ? wait_for(pid, 30) : -1;
	read_text(HP_DIR "/run", run, sizeof(run));
	snprintf(want, sizeof(want), "%s protected ", probe);
	check(status >= 0 && WIFSIGNALED(status) && !strncmp(run, want, strlen(want)),
	      "run_reads_the_caught_probe", "writer %s; run reads: %.200s",
	      status_str(status, b, sizeof(b)), run);
	status = unload(10, why, sizeof(why));
	check(status == 0, "rmmod_after_a_catch", "%s", why);
}

static void test_fatal_run_at_load(void)
{
	char marker[160], line[LINE], state[32] = "", arg[128], why[96];
	int err;

	unload(10, why, sizeof(why));	/* loaded or not: load it anew below */
	mark(marker, sizeof(marker), "run_param_fatal");
	snprintf(arg, sizeof(arg), "allow_fatal=1 run=%s", probe);
	err = load_in_child(arg);
	read_text("/sys/module/hardprobe/initstate", state, sizeof(state));
	check(!err && !strcmp(state, "live") &&
	      log_find(marker, "cannot run at load", line, sizeof(line)),
	      "run_param_fatal_refused_at_load", "insmod %s: %s, initstate %s; log: %s",
	      arg, err ? strerror(-err) : "ok", state[0] ? state : "-",
	      log_find(marker, "cannot run at load", line, sizeof(line)) ? line : "no refusal");
	err = err ? err : unload(10, why, sizeof(why));
	check(!err, "rmmod_after_run_param", "%s", err ? "failed" : why);
}

/* load the module for a test that needs it (it may be loaded already) */
static int ensure_loaded(void)
{
	char state[32] = "";
	int err;

	if (!read_text("/sys/module/hardprobe/initstate", state, sizeof(state)) &&
	    !strcmp(state, "live"))
		return write_file(HP_PARAM, "1", 1);
	err = load_in_child("allow_fatal=1");
	return err ?: write_file(HP_PARAM, "1", 1);
}

static void *idle_thread(void *arg)
{
	pause();
	return arg;
}

/*
 * A writer that shares its file table (the main thread of a two-thread
 * process): refused, no catch, and the module unloads after.
 */
static void test_threaded_writer(void)
{
	char why[96], b[96];
	pid_t pid;
	int status;

	if (ensure_loaded()) {
		check(false, "threaded_writer_refused", "cannot load hardprobe with allow_fatal=1");
		check(false, "rmmod_after_threaded_writer", "not loaded");
		return;
	}
	pid = fork();
	if (!pid) {
		pthread_t t;
		int err;

		if (pthread_create(&t, NULL, idle_thread, NULL))
			_exit(W_SETUP);
		err = write_file(HP_DIR "/run", probe, strlen(probe));
		_exit(writer_code(err));
	}
	status = pid > 0 ? wait_for(pid, 30) : -1;
	check(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == W_EPERM,
	      "threaded_writer_refused", "a thread of a two-thread process wrote %s: %s",
	      probe, status_str(status, b, sizeof(b)));
	status = unload(10, why, sizeof(why));
	check(status == 0, "rmmod_after_threaded_writer", "%s", why);
}

/*
 * A forked child writes through the descriptor its parent opened and is
 * killed by the catch; the log is read and cleared ("dmesg -c") before the
 * parent reads "run": the verdict must survive both. Then rmmod.
 */
static void test_forked_fd(void)
{
	char why[96], b[96], run[LINE] = "", want[128], junk[4096];
	pid_t pid;
	int fd, status;

	fd = ensure_loaded() ? -1 : open(HP_DIR "/run", O_RDWR);
	if (fd < 0) {
		check(false, "forked_writer_verdict_after_dmesg_clear", "cannot load or open run");
		check(false, "rmmod_after_forked_writer", "not loaded");
		return;
	}
	pid = fork();
	if (!pid)
		_exit(writer_code(write(fd, probe, strlen(probe)) < 0 ? -errno : 0));
	status = pid > 0 ? wait_for(pid, 30) : -1;
	/* dmesg -c: read the whole log and clear it */
	klogctl(4, junk, sizeof(junk));
	if (pread(fd, run, sizeof(run) - 1, 0) < 0)
		snprintf(run, sizeof(run), "read: %s", strerror(errno));
	close(fd);
	snprintf(want, sizeof(want), "%s protected ", probe);
	check(status >= 0 && WIFSIGNALED(status) && !strncmp(run, want, strlen(want)),
	      "forked_writer_verdict_after_dmesg_clear",
	      "writer %s; after dmesg -c run reads: %.200s",
	      status_str(status, b, sizeof(b)), run);
	status = unload(10, why, sizeof(why));
	check(status == 0, "rmmod_after_forked_writer", "%s", why);
}

/* Fire @name from a child; the verdict "run" reads after, into @run. */
static int fire_read(const char *name, char *run, size_t len)
{
	pid_t pid = fork();
	int status;

	if (!pid)
		_exit(writer_code(write_file(HP_DIR "/run", name, strlen(name))));
	status = pid > 0 ? wait_for(pid, 30) : -1;
	if (read_text(HP_DIR "/run", run, len))
		snprintf(run, len, "cannot read run");
	return status;
}

/*
 * A caught usercopy probe leaves its private cache in sysfs; after a
 * reload the same probe must still get a cache of its own.
 */
static void test_cache_reload(void)
{
	static const char *const uc = "usercopy.slab_size_to";
	char run[LINE] = "", want[96], why[96] = "";
	bool have = false;
	int i, err;

	for (i = 0; i < nr_probes; i++)
		have |= !strcmp(probes[i].name, uc) && probes[i].configured &&
			!strcmp(probes[i].kind, "fatal");
	if (!have) {
		result(true, "cache_name_after_reload", "SKIP",
		       "%s is not a configured fatal probe here", uc);
		return;
	}
	snprintf(want, sizeof(want), "%s protected ", uc);
	for (i = 0; i < 2; i++) {
		err = ensure_loaded();
		if (!err) {
			fire_read(uc, run, sizeof(run));
			err = strncmp(run, want, strlen(want)) ? -1 : 0;
		}
		if (err || unload(10, why, sizeof(why)))
			break;
	}
	check(i == 2, "cache_name_after_reload", "%d of 2 loads caught it (%s): %.200s", i,
	      uc, err ? run : why);
}

/*
 * A reader of "report" dies inside a safe probe, holding the probe lock
 * (the module loaded with inject_oops=<that probe>): the next writer of
 * another safe probe runs, and rmmod works.
 */
static void test_dead_reader(void)
{
	const char *victim = NULL, *other = NULL;
	char arg[160], why[96] = "", b[96], b2[96];
	int i, status, st2, err;
	pid_t pid;

	for (i = 0; i < nr_probes; i++) {
		if (strcmp(probes[i].kind, "safe"))
			continue;
		if (!victim)
			victim = probes[i].name;
		else if (!other)
			other = probes[i].name;
	}
	unload(10, why, sizeof(why));
	snprintf(arg, sizeof(arg), "allow_fatal=1 inject_oops=%.64s", victim ?: "-");
	err = victim && other ? load_in_child(arg) : -ENOENT;
	if (err) {
		check(false, "next_writer_after_dead_reader", "insmod %s: %s", arg, strerror(-err));
		check(false, "rmmod_after_dead_reader", "not loaded");
		return;
	}
	pid = fork();
	if (!pid) {
		char buf[4096];
		int fd = open(HP_DIR "/report", O_RDONLY);

		if (fd < 0)
			_exit(W_SETUP);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(W_RAN);
	}
	status = pid > 0 ? wait_for(pid, 30) : -1;
	pid = fork();
	if (!pid)
		_exit(writer_code(write_file(HP_DIR "/run", other, strlen(other))));
	st2 = pid > 0 ? wait_for(pid, 10) : -1;
	check(status >= 0 && WIFSIGNALED(status) && st2 >= 0 && WIFEXITED(st2) &&
	      WEXITSTATUS(st2) == W_RAN, "next_writer_after_dead_reader",
	      "reader of report (%s oopses): %s; then a writer of %s: %s", victim,
	      status_str(status, b, sizeof(b)), other, status_str(st2, b2, sizeof(b2)));
	status = unload(10, why, sizeof(why));
	check(status == 0, "rmmod_after_dead_reader", "%s", why);
}

/* A task in D state (uninterruptible sleep), into @why; false if none. */
static bool task_in_d_state(char *why, size_t len)
{
	char path[300], stat[512], *p;
	struct dirent *e;
	bool found = false;
	DIR *d = opendir("/proc");

	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (read_text(path, stat, sizeof(stat)))
			continue;
		p = strrchr(stat, ')');
		if (p && p[1] == ' ' && p[2] == 'D') {
			snprintf(why, len, "task in D state: %.200s", stat);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

enum death { D_CHILD, D_THREAD, D_FORKED_FD, D_READER, D_KINDS };

static const char *const death_names[D_KINDS] = {
	"unload_cycles_single_child", "unload_cycles_threaded_writer",
	"unload_cycles_forked_fd", "unload_cycles_dead_reader",
};

/*
 * One cycle of one kind of death: load, the death, dmesg -c, the verdict
 * read from "run" (a refusal for the threaded writer; after a reader that
 * died in @victim, the line of another safe probe, @safe), rmmod within
 * 10 s, no task in D state.
 */
static bool death_cycle(enum death kind, const char *victim, const char *safe, char *why,
			size_t len)
{
	char run[LINE] = "", want[128], b[96], junk[4096], arg[160] = "allow_fatal=1";
	int fd = -1, status, err;
	pid_t pid;

	if (kind == D_READER)
		snprintf(arg, sizeof(arg), "allow_fatal=1 inject_oops=%.64s", victim);
	unload(10, why, len);
	err = load_in_child(arg);
	if (err) {
		snprintf(why, len, "insmod %s: %s", arg, strerror(-err));
		return false;
	}
	if (kind == D_FORKED_FD)
		fd = open(HP_DIR "/run", O_RDWR);
	pid = fork();
	if (!pid) {
		char buf[4096];
		pthread_t t;

		if (kind == D_THREAD && pthread_create(&t, NULL, idle_thread, NULL))
			_exit(W_SETUP);
		if (kind == D_FORKED_FD)
			_exit(writer_code(write(fd, probe, strlen(probe)) < 0 ? -errno : 0));
		if (kind != D_READER)
			_exit(writer_code(write_file(HP_DIR "/run", probe, strlen(probe))));
		fd = open(HP_DIR "/report", O_RDONLY);
		while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(W_RAN);
	}
	status = pid > 0 ? wait_for(pid, 30) : -1;
	klogctl(4, junk, sizeof(junk));
	if (kind == D_READER && write_file(HP_DIR "/run", safe, strlen(safe)))
		snprintf(run, sizeof(run), "the next writer of %s failed", safe);
	else if (fd >= 0 ? pread(fd, run, sizeof(run) - 1, 0) < 0 :
		 read_text(HP_DIR "/run", run, sizeof(run)) != 0)
		snprintf(run, sizeof(run), "cannot read run");
	if (fd >= 0)
		close(fd);
	snprintf(want, sizeof(want), "%s %s", kind == D_READER ? safe : probe,
		 kind == D_READER ? "" : "protected ");
	if (kind == D_THREAD ? !(status >= 0 && WIFEXITED(status) &&
				 WEXITSTATUS(status) == W_EPERM) :
	    !(status >= 0 && WIFSIGNALED(status)) || strncmp(run, want, strlen(want))) {
		snprintf(why, len, "writer %s; run reads: %.200s", status_str(status, b, sizeof(b)),
			 run);
		return false;
	}
	if (unload(10, why, len))
		return false;
	return !task_in_d_state(why, len);
}

static void test_cycles(void)
{
	const char *victim = NULL, *safe = NULL;
	char why[LINE] = "";
	int i, k, n;

	for (i = 0; i < nr_probes && !safe; i++) {
		if (strcmp(probes[i].kind, "safe"))
			continue;
		if (victim)
			safe = probes[i].name;
		else
			victim = probes[i].name;
	}
	for (k = 0; k < D_KINDS; k++) {
		for (n = 0; n < cycles && safe; n++)
			if (!death_cycle(k, victim, safe, why, sizeof(why)))
				break;
		check(safe && n == cycles, death_names[k], "%d of %d cycles%s%s", n, cycles,
		      n < cycles ? ": " : "", n < cycles ? why : "");
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
	int tests;
} groups[] = {
	{ "refusals", test_refusals, 2 },
	{ "serialised", test_serialised, 1 },
	{ "warn_limit", test_warn_limit, 1 },
	{ "allow_fatal", test_allow_fatal_range, 1 },
	{ "unload", test_catch_then_unload, 2 },
	{ "run_param", test_fatal_run_at_load, 2 },
	{ "threads", test_threaded_writer, 2 },
	{ "forked_fd", test_forked_fd, 2 },
	{ "cache_reload", test_cache_reload, 1 },
	{ "dead_reader", test_dead_reader, 2 },
	{ "cycles", test_cycles, D_KINDS },
};

/* Every planned test skipped: the counts, and the kselftest exit code for a skip. */
static __noreturn void skip_exit(void)
{
	ksft_print_cnts();
	exit(KSFT_SKIP);
}

static bool wanted(const char *name, char **argv, int argc)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return !argc;
}

int main(int argc, char **argv)
{
	int c, i, nr_tests = 1;
	unsigned int g;

	while ((c = getopt(argc, argv, "m:a:p:c:")) != -1) {
		if (c == 'm')
			module_path = optarg;
		else if (c == 'a')
			module_args = optarg;
		else if (c == 'p')
			probe = optarg;
		else if (c == 'c')
			cycles = atoi(optarg);
	}
	for (g = 0; g < ARRAY_SIZE(groups); g++)
		nr_tests += wanted(groups[g].name, argv + optind, argc - optind) ?
			    groups[g].tests : 0;
	hp_print_header();
	ksft_set_plan(nr_tests);
	if (!module_path || geteuid() || load_probes()) {
		for (i = 0; i < nr_tests; i++)
			result(true, "trust", "SKIP", "%s", !module_path ? "needs -m hardprobe.ko" :
			       geteuid() ? "needs root" : "hardprobe is not loaded");
		skip_exit();
	}
	for (i = 0; i < nr_probes && strcmp(probes[i].name, probe); i++)
		;
	if (i == nr_probes || strcmp(probes[i].kind, "fatal") || !probes[i].configured) {
		for (i = 0; i < nr_tests; i++)
			result(true, "trust", "SKIP", "%s is not a configured fatal probe here",
			       probe);
		skip_exit();
	}
	if (write_file(HP_PARAM, "1", 1)) {
		for (i = 0; i < nr_tests; i++)
			check(false, "trust", "cannot set allow_fatal=1");
		ksft_exit_fail();
	}
	for (g = 0; g < ARRAY_SIZE(groups); g++)
		if (wanted(groups[g].name, argv + optind, argc - optind))
			groups[g].fn();
	/* the module as we found it, for whatever runs next */
	c = load_in_child("");
	check(!c, "reload", "insmod %s: %s", module_path, c ? strerror(-c) : "ok");
	ksft_finished();
}
