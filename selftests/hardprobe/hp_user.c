// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe kselftest: user-space checks of hardening that only a process
 * can show, each provoked by trying the operation, never by reading the
 * setting: proc_mem_force, umip, null_page, bpf_jit_harden and one
 * policy.<knob> line per unprivileged-access knob. Those a real unprivileged
 * process would try run in a child that dropped to uid/gid 65534 ("nobody":
 * no capabilities); those only root can show run as root. Each
 * prints "# <name>: <outcome>: <evidence>; configured: <layer>" and one KTAP
 * line by the module's rules (hp_verdict()): the "configured" layer is the
 * sysctl's value or the boot parameter, so under the module's rules a knob
 * that asks for the protection but was observed allowed is "not ok", and an
 * allowed knob that does not ask is a skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>

#include "hp_util.h"
#include "hp_user.h"

/*
 * kselftest.h keeps its counts in each translation unit: a result line
 * printed here would be missing from hardprobe_test's plan and numbering.
 * Every line goes through hp_verdict() (hardprobe_test.c).
 */
#pragma GCC poison result ksft_test_result_code ksft_test_result_pass ksft_test_result_fail
#pragma GCC poison ksft_test_result_skip ksft_test_result_error ksft_set_plan

#define HP_NOBODY	65534

/* what a child tried, shared with the parent (MAP_SHARED) */
struct hp_try {
	long ret;	/* the call's return value */
	int err;	/* its errno */
	long v[4];	/* values the check reads back */
	char note[256];
};

typedef void (*hp_try_fn)(struct hp_try *t, void *arg);

/*
 * Run @fn in a child, as uid/gid 65534 when @nobody (setuid() from root drops
 * every capability), time-limited; its answer lands in *@t. Returns the
 * child's wait status, or -1 when it could not run as asked (t->note: why).
 */
static int hp_try_as(bool nobody, hp_try_fn fn, void *arg, struct hp_try *t)
{
	struct hp_try *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status = -1;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	if (sh == MAP_FAILED) {
		snprintf(t->note, sizeof(t->note), "mmap: %s", strerror(errno));
		return -1;
	}
	memset(sh, 0, sizeof(*sh));
	sh->ret = -1000;
	pid = fork();
	if (!pid) {
		alarm(10);
		if (nobody && (setgroups(0, NULL) || setgid(HP_NOBODY) || setuid(HP_NOBODY))) {
			snprintf(sh->note, sizeof(sh->note), "cannot become uid %d: %s",
				 HP_NOBODY, strerror(errno));
			_exit(100);
		}
		fn(sh, arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		snprintf(t->note, sizeof(t->note), "fork/wait: %s", strerror(errno));
		status = -1;
	} else {
		*t = *sh;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
			status = -1;
	}
	munmap(sh, sizeof(*sh));
	return status;
}

/* the call's answer: "ok" (with its value) or its errno's name */
static const char *hp_said(const struct hp_try *t)
{
	static char buf[4][64];
	static int i;

	i = (i + 1) % 4;
	if (t->ret >= 0)
		snprintf(buf[i], sizeof(buf[i]), "allowed (%ld)", t->ret);
	else if (t->ret == -1000)
		snprintf(buf[i], sizeof(buf[i]), "not reached");
	else
		snprintf(buf[i], sizeof(buf[i]), "refused (%s)", strerror(t->err));
	return buf[i];
}

/* the /proc/sys file of a sysctl by its dotted name */
static void hp_sysctl_path(const char *name, char *path, size_t len)
{
	char *p;

	snprintf(path, len, "/proc/sys/%s", name);
	for (p = path + 10; *p; p++)
		if (*p == '.')
			*p = '/';
}

/* a sysctl by its dotted name: 0 and its value, or -errno */
static int hp_sysctl(const char *name, long *v)
{
	char path[128], buf[32];
	int err;

	hp_sysctl_path(name, path, sizeof(path));
	err = read_text(path, buf, sizeof(buf));
	if (!err)
		*v = strtol(buf, NULL, 10);
	return err;
}

/*
 * The configured layer of a sysctl knob: its value, appended to @conf as
 * "name=value" (or "no name"); true when it asks for the protection (value
 * >= @want, or <= @want when @le).
 */
static bool hp_knob(const char *name, long want, bool le, char *conf, size_t len)
{
	size_t n = strnlen(conf, len);
	long v = 0;

	if (hp_sysctl(name, &v)) {
		snprintf(conf + n, len - n, "%sno %s", n ? ", " : "", name);
		return false;
	}
	snprintf(conf + n, len - n, "%s%s=%ld", n ? ", " : "", name, v);
	return le ? v <= want : v >= want;
}

/*
 * "# name: outcome: evidence; configured: conf" and the KTAP line; without
 * @conf (a check that is no user-space knob: user_shstk) "# name: outcome:
 * evidence"
 */
void hp_line(const char *name, const char *outcome, bool configured, const char *conf,
	     const char *fmt, ...)
{
	char ev[LINE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ev, sizeof(ev), fmt, ap);
	va_end(ap);
	if (conf)
		printf("# %s: %s: %s; configured: %s\n", name, outcome, ev, conf);
	else
		printf("# %s: %s: %s\n", name, outcome, ev);
	hp_verdict(name, configured, outcome, ev);
}

/*
 * proc_mem_force: a pwrite() through /proc/self/mem into this program's own
 * read-only text (the first byte of a function nothing calls) lands when the
 * kernel forces the access (FOLL_FORCE, as ptrace would): 6.1 always, 6.12
 * unless PROC_MEM_NO_FORCE / PROC_MEM_FORCE_PTRACE or proc_mem.force_override=
 * never|ptrace. Control: the same write into a writable data byte lands.
 */
static noinline __used int hp_pm_text(int x)
{
	return x * 7 + 3;
}

static unsigned char hp_pm_data[64];

/* one byte as memory holds it now (written behind the compiler's back) */
static unsigned char hp_peek(const void *p)
{
	unsigned char c;

	asm volatile("" : : "r"(p) : "memory");
	memcpy(&c, p, 1);
	return c;
}

static void hp_pm_try(struct hp_try *t, void *arg)
{
	unsigned char *text = (unsigned char *)(uintptr_t)&hp_pm_text;
	unsigned char old = hp_peek(text), nb = old ^ 0xff, c = 0xa5;
	int fd = open("/proc/self/mem", O_RDWR);

	if (fd < 0) {
		snprintf(t->note, sizeof(t->note), "open /proc/self/mem: %s", strerror(errno));
		return;
	}
	hp_pm_data[0] = 0x5a;
	t->v[0] = pwrite(fd, &c, 1, (off_t)(uintptr_t)&hp_pm_data[0]) == 1 &&
		  hp_peek(hp_pm_data) == 0xa5;
	t->ret = pwrite(fd, &nb, 1, (off_t)(uintptr_t)text);
	t->err = errno;
	t->v[1] = old;
	t->v[2] = hp_peek(text);
	if (t->ret == 1)
		t->v[3] = pwrite(fd, &old, 1, (off_t)(uintptr_t)text) == 1 &&
			  hp_peek(text) == old;
	close(fd);
}

void hp_proc_mem_force(const char *name)
{
	char cmdline[LINE] = "", conf[96], *p;
	bool configured = false;
	struct hp_try t;

	read_text("/proc/cmdline", cmdline, sizeof(cmdline));
	p = strstr(cmdline, "proc_mem.force_override=");
	if (p) {
		p += strlen("proc_mem.force_override=");
		snprintf(conf, sizeof(conf), "proc_mem.force_override=%.*s",
			 (int)strcspn(p, " "), p);
		configured = !strncmp(p, "never", 5) || !strncmp(p, "ptrace", 6);
	} else {
		snprintf(conf, sizeof(conf), "%s",
			 "no proc_mem.force_override= (the build's PROC_MEM_* choice holds; 6.1 always forces)");
	}
	if (hp_try_as(false, hp_pm_try, NULL, &t) < 0 || t.ret == -1000) {
		hp_line(name, "error", configured, conf, "%s", t.note);
		return;
	}
	if (!t.v[0]) {
		hp_line(name, "inconclusive", configured, conf,
			"control: a pwrite() into a writable data byte through /proc/self/mem did not land");
		return;
	}
	if (t.ret == 1 && t.v[2] != t.v[1])
		hp_line(name, "vulnerable", configured, conf,
			"pwrite() into a read-only text byte through /proc/self/mem landed (%#lx became %#lx; %s); control: the data write landed",
			t.v[1], t.v[2], t.v[3] ? "restored" : "not restored");
	else if (t.ret < 0 && t.v[2] == t.v[1])
		hp_line(name, "protected", configured, conf,
			"pwrite() into a read-only text byte through /proc/self/mem refused (%s), byte unchanged; control: the data write landed",
			strerror(t.err));
	else
		hp_line(name, "error", configured, conf,
			"pwrite() into text returned %ld (%s), byte %#lx then %#lx",
			t.ret, strerror(t.err), t.v[1], t.v[2]);
}

/*
 * umip (x86_64): with UMIP the CPU faults SGDT/SIDT/SMSW/STR/SLDT in user
 * mode and the kernel emulates them (arch/x86/kernel/umip.c): SGDT and SIDT
 * return the dummy bases below, never the real table addresses. Without it
 * they return the kernel's own GDT/IDT addresses. Tried as nobody.
 */
#if defined(__x86_64__)
#include <cpuid.h>

#define HP_UMIP_GDT	0xfffffffffffe0000UL
#define HP_UMIP_IDT	0xffffffffffff0000UL

struct hp_dt {
	unsigned short limit;
	unsigned long base;
} __packed;

static void hp_umip_try(struct hp_try *t, void *arg)
{
	struct hp_dt gdt = { 0 }, idt = { 0 };
	unsigned short tr = 0xffff, ldt = 0xffff;
	unsigned long msw = 0;

	asm volatile("sgdt %0" : "=m"(gdt));
	t->v[0] = gdt.base;
	asm volatile("sidt %0" : "=m"(idt));
	t->v[1] = idt.base;
	asm volatile("smsw %0" : "=r"(msw));
	t->v[2] = msw;
	asm volatile("str %0" : "=m"(tr));
	asm volatile("sldt %0" : "=m"(ldt));
	t->v[3] = (unsigned long)tr << 16 | ldt;
	t->ret = 0;
}

void hp_umip(const char *name)
{
	unsigned int a, b, c = 0, d;
	bool hw, configured;
	char line[LINE];
	struct hp_try t;
	int st;
	FILE *f;

	hw = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 2));
	configured = false;
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			configured = strstr(line, " umip ") || strstr(line, " umip\n");
			break;
		}
	}
	if (f)
		fclose(f);
	if (!hw) {
		hp_line(name, "unsupported", configured,
			configured ? "umip in /proc/cpuinfo" : "no umip in /proc/cpuinfo",
			"the CPU has no UMIP (CPUID.(EAX=7,ECX=0):ECX[2] clear)");
		return;
	}
	st = hp_try_as(true, hp_umip_try, NULL, &t);
	if (st < 0) {
		hp_line(name, "error", configured, "-", "%s", t.note);
		return;
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) {
		hp_line(name, "protected", configured,
			configured ? "umip in /proc/cpuinfo" : "no umip in /proc/cpuinfo",
			"SGDT/SIDT/SMSW/STR/SLDT from user space raised SIGSEGV (CPU has UMIP)");
		return;
	}
	if (!WIFEXITED(st) || t.ret) {
		hp_line(name, "error", configured, "-",
			"the instructions' child ended with status %#x", st);
		return;
	}
	snprintf(line, sizeof(line),
		 "SGDT base %#lx, SIDT base %#lx, SMSW %#lx, STR %#lx, SLDT %#lx as uid %d (CPU has UMIP)",
		 t.v[0], t.v[1], t.v[2], (unsigned long)t.v[3] >> 16,
		 (unsigned long)t.v[3] & 0xffff, HP_NOBODY);
	if ((unsigned long)t.v[0] == HP_UMIP_GDT && (unsigned long)t.v[1] == HP_UMIP_IDT)
		hp_line(name, "protected", configured,
			configured ? "umip in /proc/cpuinfo" : "no umip in /proc/cpuinfo",
			"%s: the kernel's dummy bases (emulated, arch/x86/kernel/umip.c)", line);
	else
		hp_line(name, "vulnerable", configured,
			configured ? "umip in /proc/cpuinfo" : "no umip in /proc/cpuinfo",
			"%s: real descriptor-table addresses, not the UMIP dummies", line);
}
#else
void hp_umip(const char *name)
{
	hp_line(name, "unsupported", false, "-",
		"x86_64 only (UMIP guards SGDT/SIDT/SMSW/STR/SLDT; arm64 has no such instructions)");
}
#endif

/*
 * null_page: as nobody, a fixed mapping of page 0 must fail (vm.mmap_min_addr,
 * LSM_MMAP_MIN_ADDR); control: the same mapping at a high address succeeds.
 */
#define HP_HIGH_MAP	((void *)0x30000000UL)

static void hp_null_try(struct hp_try *t, void *arg)
{
	void *p = mmap(HP_HIGH_MAP, 4096, PROT_READ | PROT_WRITE,
		       MAP_FIXED_NOREPLACE | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	t->v[0] = p == HP_HIGH_MAP;
	if (p != MAP_FAILED)
		munmap(p, 4096);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	t->err = errno;
	t->ret = p == MAP_FAILED ? -1 : (long)(uintptr_t)p;
	if (p != MAP_FAILED)
		munmap(p, 4096);
}

void hp_null_page(const char *name)
{
	char conf[96] = "";
	bool configured = hp_knob("vm.mmap_min_addr", 1, false, conf, sizeof(conf));
	struct hp_try t;

	if (hp_try_as(true, hp_null_try, NULL, &t) < 0) {
		hp_line(name, "error", configured, conf, "%s", t.note);
		return;
	}
	if (!t.v[0])
		hp_line(name, "inconclusive", configured, conf,
			"control: a fixed mapping at %p failed as uid %d", HP_HIGH_MAP, HP_NOBODY);
	else if (t.ret == 0)
		hp_line(name, "vulnerable", configured, conf,
			"uid %d mapped page 0 (mmap MAP_FIXED at 0 returned 0); control: %p mapped",
			HP_NOBODY, HP_HIGH_MAP);
	else if (t.ret < 0 && (t.err == EPERM || t.err == EACCES))
		hp_line(name, "protected", configured, conf,
			"uid %d mapping page 0 refused (%s); control: %p mapped", HP_NOBODY,
			strerror(t.err), HP_HIGH_MAP);
	else
		hp_line(name, "error", configured, conf, "mmap at 0 returned %#lx (%s)", t.ret,
			strerror(t.err));
}

/*
 * bpf_jit_harden: at net.core.bpf_jit_harden=2 the BPF JIT blinds the
 * constants of every program (bpf_jit_blind_constants(), kernel/bpf/core.c),
 * so an immediate the loader chose is not in executable memory verbatim (JIT
 * spraying); at 1 only those of programs loaded without CAP_BPF. Root loads
 * "r0 = HP_JIT_IMM; exit" with bpf(2), reads its image back
 * (BPF_OBJ_GET_INFO_BY_FD: root gets it while kallsyms_show_value() shows it
 * addresses; kptr_restrict=2 hides them from root too, so there the image is
 * read at 1 and 2 written back) and looks for the immediate: its
 * little-endian bytes on x86_64 (mov $imm32), its halves in a MOVZ/MOVK pair
 * on arm64 (emit_a64_mov_i()). Control: the same program loaded at
 * bpf_jit_harden=0 (written for that load, then the old value restored)
 * shows the immediate. Every sysctl written is read back after its restore;
 * one not restored is an error.
 */
#define HP_JIT_IMM	0x4a5b6c7dU
#define HP_JIT_MAX	4096
#define HP_JIT_SYSCTL	"net.core.bpf_jit_harden"
#if defined(__aarch64__)
#define HP_JIT_FORM	"its MOVZ/MOVK halves"
#else
#define HP_JIT_FORM	"its bytes"
#endif

/* the immediate's offset in the image @img of @len bytes, -1 if absent */
static long hp_jit_find(const unsigned char *img, size_t len, __u32 imm)
{
#if defined(__x86_64__)
	const unsigned char le[4] = { imm, imm >> 8, imm >> 16, imm >> 24 };
	size_t i;

	for (i = 0; i + 4 <= len; i++)
		if (!memcmp(img + i, le, 4))
			return i;
#elif defined(__aarch64__)
	__u32 lo, hi;
	size_t i;

	/* MOVZ Rd, #lo (hw 0) then MOVK Rd, #hi, lsl #16 (hw 1), W or X form */
	for (i = 0; i + 8 <= len; i += 4) {
		memcpy(&lo, img + i, 4);
		memcpy(&hi, img + i + 4, 4);
		if ((lo & 0x7fe00000) == 0x52800000 && (hi & 0x7fe00000) == 0x72a00000 &&
		    ((lo >> 5) & 0xffff) == (imm & 0xffff) && ((hi >> 5) & 0xffff) == imm >> 16 &&
		    (lo & 0x1f) == (hi & 0x1f))
			return i;
	}
#endif
	return -1;
}

/*
 * Load the program and read its image back: t->ret < 0 with t->note naming
 * the call that failed, or v[0] the image's length, v[1] the immediate's
 * offset (-1: absent), v[2] whether the kernel gave the image out.
 */
static void hp_jit_try(struct hp_try *t, void *arg)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = HP_JIT_IMM },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static unsigned char img[HP_JIT_MAX];
	struct bpf_prog_info info;
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insn_cnt = 2;
	attr.insns = (uintptr_t)insns;
	attr.license = (uintptr_t)"GPL";
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0) {
		t->ret = -1;
		t->err = errno;
		snprintf(t->note, sizeof(t->note), "bpf(BPF_PROG_LOAD)");
		return;
	}
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = sizeof(img);
	info.jited_prog_insns = (uintptr_t)img;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	t->ret = syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr));
	t->err = errno;
	close(fd);
	if (t->ret < 0) {
		snprintf(t->note, sizeof(t->note), "bpf(BPF_OBJ_GET_INFO_BY_FD)");
		return;
	}
	t->v[0] = info.jited_prog_len;
	t->v[2] = info.jited_prog_insns != 0;
	t->v[1] = t->v[2] ? hp_jit_find(img, info.jited_prog_len < sizeof(img) ?
					info.jited_prog_len : sizeof(img), HP_JIT_IMM) : -1;
}

/* write a sysctl by its dotted name and read it back: 0, or -errno (-EIO: not taken) */
static int hp_sysctl_set(const char *name, long v)
{
	char path[128], buf[24];
	long now = -1;
	int err;

	hp_sysctl_path(name, path, sizeof(path));
	snprintf(buf, sizeof(buf), "%ld", v);
	err = write_file(path, buf, strlen(buf));
	if (!err)
		err = hp_sysctl(name, &now);
	return err ? err : now == v ? 0 : -EIO;
}

/*
 * The verdict of an image @t loaded at bpf_jit_harden=@harden, with the
 * control (load at 0, @harden restored) where it is absent: the outcome,
 * evidence in @ev; NULL when the old value could not be restored.
 */
static const char *hp_jit_verdict(long harden, struct hp_try *t, char *ev, size_t len)
{
	long now = -1;
	struct hp_try c;
	int st, err;

	if (!t->v[2]) {
		hp_sysctl("kernel.kptr_restrict", &now);
		snprintf(ev, len,
			 "root was refused the %ld-byte JIT image (bpf_dump_raw_ok(): kallsyms_show_value() at kptr_restrict=%ld)",
			 t->v[0], now);
		return "inconclusive";
	}
	if (t->v[1] >= 0) {
		snprintf(ev, len,
			 "root's r0 = %#x JIT-compiled at bpf_jit_harden=%ld: the immediate verbatim (%s) at byte %ld of the %ld-byte image (%s)",
			 HP_JIT_IMM, harden, HP_JIT_FORM, t->v[1], t->v[0],
			 harden == 1 ? "1 blinds only programs loaded without CAP_BPF" :
			 harden ? "blinding did not hide it" : "0: no constant blinding");
		return "vulnerable";
	}
	if (!harden) {
		snprintf(ev, len,
			 "r0 = %#x JIT-compiled at bpf_jit_harden=0 and not found in the %ld-byte image: the search does not work here",
			 HP_JIT_IMM, t->v[0]);
		return "inconclusive";
	}
	/* control: the same load at 0, then the old value back */
	err = hp_sysctl_set(HP_JIT_SYSCTL, 0);
	if (err) {
		if ((hp_sysctl(HP_JIT_SYSCTL, &now) || now != harden) &&
		    hp_sysctl_set(HP_JIT_SYSCTL, harden)) {
			snprintf(ev, len, "could not restore net.core.bpf_jit_harden=%ld (now %ld)",
				 harden, now);
			return NULL;
		}
		snprintf(ev, len,
			 "r0 = %#x not in the %ld-byte image at bpf_jit_harden=%ld; control: writing 0 failed (%s)",
			 HP_JIT_IMM, t->v[0], harden, strerror(-err));
		return "inconclusive";
	}
	st = hp_try_as(false, hp_jit_try, NULL, &c);
	err = hp_sysctl_set(HP_JIT_SYSCTL, harden);
	if (err) {
		snprintf(ev, len, "could not restore net.core.bpf_jit_harden=%ld (%s)", harden,
			 strerror(-err));
		return NULL;
	}
	if (st < 0 || c.ret < 0 || !c.v[0] || !c.v[2] || c.v[1] < 0) {
		snprintf(ev, len,
			 "r0 = %#x not in the %ld-byte image at bpf_jit_harden=%ld; control at 0: %s%s%s",
			 HP_JIT_IMM, t->v[0], harden, st < 0 || c.ret < 0 ? c.note : "",
			 st < 0 || c.ret < 0 ? ": " : "",
			 st < 0 || c.ret < 0 ? hp_said(&c) :
			 c.v[0] && c.v[2] ? "not found either" : "no image");
		return "inconclusive";
	}
	snprintf(ev, len,
		 "root's r0 = %#x JIT-compiled at bpf_jit_harden=%ld: not in the %ld-byte image (constants blinded); control at 0 (restored after): verbatim (%s) at byte %ld of %ld",
		 HP_JIT_IMM, harden, t->v[0], HP_JIT_FORM, c.v[1], c.v[0]);
	return "protected";
}

void hp_bpf_jit_harden(const char *name)
{
	const char *outcome;
	char conf[160] = "", ev[LINE], tail[128] = "";
	bool configured = hp_knob(HP_JIT_SYSCTL, 2, false, conf, sizeof(conf));
	long harden = 0, kptr = 0, v = -1;
	bool lowered = false;
	struct hp_try t;
	int st, err;

	hp_knob("net.core.bpf_jit_enable", 1, false, conf, sizeof(conf));
	if (geteuid()) {
		hp_line(name, "error", configured, conf,
			"needs root (euid %d): root's image is read back and the control writes the sysctl",
			(int)geteuid());
		return;
	}
	st = hp_try_as(false, hp_jit_try, NULL, &t);
	if (st < 0 || t.ret == -1000) {
		hp_line(name, "error", configured, conf, "%s", *t.note ? t.note : "child died");
		return;
	}
	if (t.ret < 0 && t.err == ENOSYS) {
		hp_line(name, "unsupported", configured, conf,
			"%s: %s: no bpf() (BPF_SYSCALL=n): no BPF JIT to spray", t.note,
			strerror(t.err));
		return;
	}
	if (hp_sysctl(HP_JIT_SYSCTL, &harden)) {
		hp_line(name, "unsupported", configured, conf,
			"no net.core.bpf_jit_harden (NET=n or BPF_JIT=n): no BPF JIT to harden");
		return;
	}
	if (t.ret < 0) {
		hp_line(name, "error", configured, conf, "%s as root: %s", t.note, hp_said(&t));
		return;
	}
	if (!t.v[0]) {
		hp_sysctl("net.core.bpf_jit_enable", &v);
		hp_line(name, "unsupported", configured, conf,
			"r0 = %#x was not JIT-compiled (jited_prog_len 0, bpf_jit_enable=%ld): the interpreter runs it, no JIT image to spray",
			HP_JIT_IMM, v);
		return;
	}
	/*
	 * kptr_restrict=2 hides the image from root too: read it at 1 (root has
	 * CAP_SYSLOG), then 2 again. Blinding happens at load, by
	 * bpf_jit_harden alone.
	 */
	if (!t.v[2] && !hp_sysctl("kernel.kptr_restrict", &kptr) && kptr >= 2 &&
	    !hp_sysctl_set("kernel.kptr_restrict", 1)) {
		lowered = true;
		st = hp_try_as(false, hp_jit_try, NULL, &t);
	}
	if (lowered && (st < 0 || t.ret < 0 || !t.v[0])) {
		outcome = "error";
		snprintf(ev, sizeof(ev), "the load at kptr_restrict=1: %s: %s", t.note,
			 hp_said(&t));
	} else {
		outcome = hp_jit_verdict(harden, &t, ev, sizeof(ev));
	}
	err = lowered ? hp_sysctl_set("kernel.kptr_restrict", kptr) : 0;
	if (err)
		snprintf(tail, sizeof(tail), "could not restore kernel.kptr_restrict=%ld (%s)",
			 kptr, strerror(-err));
	if (!outcome || err) {
		hp_line(name, "error", configured, conf, "%s%s%s", outcome ? "" : ev,
			!outcome && err ? "; " : "", tail);
		return;
	}
	hp_line(name, outcome, configured, conf, "%s%s", ev, lowered ?
		"; image read at kptr_restrict=1 (2 hides it from root), restored after" : "");
}

/*
 * A knob tried as nobody with a control as root: @fn's return value decides
 * (>= 0 allowed: vulnerable; a refusal in @refused: protected; ENOSYS or one
 * in @absent: unsupported, @why says which mechanism is missing).
 */
struct hp_knob_check {
	const char *name;	/* line name, policy.<knob> */
	const char *sysctl;	/* the knob, for the configured layer */
	long want;		/* value that asks for the protection */
	bool le;		/* asks at <= want (else >= want) */
	const char *sysctl2;	/* another knob that asks for it at <= 0, or NULL */
	hp_try_fn fn;
	const char *what;	/* what @fn tries */
	int absent;		/* errno (besides ENOSYS) meaning: no such mechanism */
	const char *why;	/* the missing mechanism */
	bool all;		/* at @all_at the knob refuses root too (no control) */
	long all_at;
};

static bool hp_refusal(int err)
{
	return err == EPERM || err == EACCES || err == EIO || err == ENOSPC;
}

static void hp_knob_run(const struct hp_knob_check *k)
{
	struct hp_try t, root;
	char conf[160] = "";
	bool configured = hp_knob(k->sysctl, k->want, k->le, conf, sizeof(conf));
	long v = 0;
	int st;

	if (k->sysctl2)
		configured |= hp_knob(k->sysctl2, 0, true, conf, sizeof(conf));
	st = hp_try_as(true, k->fn, NULL, &t);

	if (st < 0 || t.ret == -1000) {
		hp_line(k->name, "error", configured, conf, "%s: %s", k->what,
			*t.note ? t.note : "child died");
		return;
	}
	if (t.ret < 0 && (t.err == ENOSYS || (k->absent && t.err == k->absent))) {
		hp_line(k->name, "unsupported", configured, conf, "%s: %s: %s", k->what,
			strerror(t.err), k->why);
		return;
	}
	if (t.ret >= 0) {
		hp_line(k->name, "vulnerable", configured, conf, "%s as uid %d: %s%s%s", k->what,
			HP_NOBODY, hp_said(&t), *t.note ? "; " : "", t.note);
		return;
	}
	if (!hp_refusal(t.err)) {
		hp_line(k->name, "error", configured, conf, "%s as uid %d: %s", k->what, HP_NOBODY,
			hp_said(&t));
		return;
	}
	/* control: root (capabilities) gets through, so the call itself works */
	st = hp_try_as(false, k->fn, NULL, &root);
	if (st >= 0 && root.ret < 0 && hp_refusal(root.err) && k->all &&
	    !hp_sysctl(k->sysctl, &v) && v == k->all_at)
		hp_line(k->name, "protected", configured, conf,
			"%s as uid %d: %s; as root too: %s (%s=%ld refuses everyone)", k->what,
			HP_NOBODY, hp_said(&t), hp_said(&root), k->sysctl, v);
	else if (st >= 0 && root.ret < 0 && root.err == k->absent)
		hp_line(k->name, "unsupported", configured, conf,
			"%s as uid %d: %s; as root: %s: %s", k->what, HP_NOBODY, hp_said(&t),
			hp_said(&root), k->why);
	else if (st < 0 || root.ret < 0)
		hp_line(k->name, "inconclusive", configured, conf,
			"%s as uid %d: %s; control as root: %s too", k->what, HP_NOBODY,
			hp_said(&t), st < 0 ? root.note : hp_said(&root));
	else
		hp_line(k->name, "protected", configured, conf,
			"%s as uid %d: %s; control as root: %s", k->what, HP_NOBODY, hp_said(&t),
			hp_said(&root));
}

static void hp_syslog_try(struct hp_try *t, void *arg)
{
	static char buf[4096];

	t->ret = klogctl(3, buf, sizeof(buf));	/* SYSLOG_ACTION_READ_ALL */
	t->err = errno;
}

static void hp_perf_try(struct hp_try *t, void *arg)
{
	struct perf_event_attr pe = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(pe),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.disabled = 1,
	};
	long fd;

	/* kernel profiling allowed? (paranoid >= 2 refuses it; Debian's 3 refuses all) */
	t->ret = syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
	t->err = errno;
	if (t->ret >= 0)
		close(t->ret);
	pe.exclude_kernel = 1;
	pe.exclude_hv = 1;
	fd = syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
	snprintf(t->note, sizeof(t->note), "user-only event: %s",
		 fd >= 0 ? "allowed" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void hp_bpf_try(struct hp_try *t, void *arg)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insn_cnt = 2;
	attr.insns = (uintptr_t)insns;
	attr.license = (uintptr_t)"GPL";
	t->ret = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	t->err = errno;
	if (t->ret >= 0)
		close(t->ret);
}

static void hp_uffd_try(struct hp_try *t, void *arg)
{
	/* without UFFD_USER_MODE_ONLY: may handle kernel-mode faults */
	t->ret = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	t->err = errno;
	if (t->ret >= 0)
		close(t->ret);
}

static void hp_userns_try(struct hp_try *t, void *arg)
{
	t->ret = unshare(CLONE_NEWUSER);
	t->err = errno;
}

static void hp_uring_try(struct hp_try *t, void *arg)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	t->ret = syscall(__NR_io_uring_setup, 1, &p);
	t->err = errno;
	if (t->ret >= 0)
		close(t->ret);
}

static const struct hp_knob_check hp_knob_checks[] = {
	{ "policy.dmesg_restrict", "kernel.dmesg_restrict", 1, false, NULL, hp_syslog_try,
	  "syslog(SYSLOG_ACTION_READ_ALL)", 0, "no syslog() (PRINTK=n)", false, 0 },
	{ "policy.perf_event_paranoid", "kernel.perf_event_paranoid", 2, false, NULL, hp_perf_try,
	  "perf_event_open() of a software event counting kernel mode", ENOENT,
	  "no perf events (PERF_EVENTS=n)", false, 0 },
	{ "policy.unprivileged_bpf_disabled", "kernel.unprivileged_bpf_disabled", 1, false, NULL,
	  hp_bpf_try, "bpf(BPF_PROG_LOAD) of a socket filter", 0, "no bpf() (BPF_SYSCALL=n)",
	  false, 0 },
	{ "policy.unprivileged_userfaultfd", "vm.unprivileged_userfaultfd", 0, true, NULL,
	  hp_uffd_try, "userfaultfd() without UFFD_USER_MODE_ONLY", 0,
	  "no userfaultfd() (USERFAULTFD=n)", false, 0 },
	{ "policy.unprivileged_userns", "user.max_user_namespaces", 0, true,
	  "kernel.unprivileged_userns_clone", hp_userns_try, "unshare(CLONE_NEWUSER)", EINVAL,
	  "no user namespaces (USER_NS=n)", true, 0 },
	{ "policy.io_uring_disabled", "kernel.io_uring_disabled", 1, false, NULL, hp_uring_try,
	  "io_uring_setup()", 0, "no io_uring (IO_URING=n)", true, 2 },
};

/* The policy.<knob> check of that @name: its record in hp_knob_checks[]. */
void hp_knob_check(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hp_knob_checks); i++) {
		if (!strcmp(hp_knob_checks[i].name, name)) {
			hp_knob_run(&hp_knob_checks[i]);
			return;
		}
	}
	hp_line(name, "error", false, "-", "no record of this name in hp_knob_checks[]");
}

/*
 * policy.kptr_restrict: the addresses /proc/kallsyms shows uid 65534. At 0
 * kallsyms_show_value() still hides them unless perf_event_paranoid <= 1:
 * zeros there are that rule's work, not the knob's (inconclusive).
 * Control: root (CAP_SYSLOG) sees real ones unless kptr_restrict=2.
 */
static void hp_kallsyms_try(struct hp_try *t, void *arg)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];

	if (!f) {
		t->err = errno;
		return;
	}
	t->ret = 0;
	while (t->ret < 2000 && fgets(line, sizeof(line), f)) {
		t->ret++;
		t->v[0] += strtoul(line, NULL, 16) != 0;
	}
	fclose(f);
}

void hp_kptr(const char *name)
{
	char conf[160] = "";
	bool configured = hp_knob("kernel.kptr_restrict", 1, false, conf, sizeof(conf));
	struct hp_try t, root;

	hp_knob("kernel.perf_event_paranoid", 2, false, conf, sizeof(conf));
	if (hp_try_as(false, hp_kallsyms_try, NULL, &root) < 0 ||
	    hp_try_as(true, hp_kallsyms_try, NULL, &t) < 0) {
		hp_line(name, "error", configured, conf, "%s%s", root.note, t.note);
		return;
	}
	if (root.ret < 0 && root.err == ENOENT) {
		hp_line(name, "unsupported", configured, conf,
			"no /proc/kallsyms (KALLSYMS=n): nothing to restrict");
		return;
	}
	if (t.ret <= 0 || root.ret <= 0) {
		hp_line(name, "error", configured, conf,
			"/proc/kallsyms: %ld lines as uid %d (%s), %ld as root (%s)", t.ret,
			HP_NOBODY, strerror(t.err), root.ret, strerror(root.err));
		return;
	}
	if (t.v[0])
		hp_line(name, "vulnerable", configured, conf,
			"uid %d read %ld non-zero addresses in %ld lines of /proc/kallsyms",
			HP_NOBODY, t.v[0], t.ret);
	else if (configured)
		hp_line(name, "protected", configured, conf,
			"uid %d read only zero addresses in %ld lines of /proc/kallsyms; control: root read %ld non-zero%s",
			HP_NOBODY, t.ret, root.v[0],
			root.v[0] ? "" : " (kptr_restrict=2 hides them from root too)");
	else
		hp_line(name, "inconclusive", configured, conf,
			"uid %d read only zero addresses in %ld lines of /proc/kallsyms, hidden by kallsyms_show_value()'s own rule (CAP_SYSLOG, or perf_event_paranoid <= 1), not by kptr_restrict=0",
			HP_NOBODY, t.ret);
}

/*
 * policy.legacy_tiocsti: uid 65534 pushes bytes into the input of its own
 * controlling terminal (a new pty) with TIOCSTI and reads them back; the
 * control is the same as root (CAP_SYS_ADMIN passes either way).
 */
static void hp_tiocsti_try(struct hp_try *t, void *arg)
{
	int m, s = -1, unlock = 0, i;
	const char *push = "hp\n";
	char back[8] = "";

	setsid();
	m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	if (m >= 0 && !ioctl(m, TIOCSPTLCK, &unlock))
		s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NONBLOCK);
	if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0) {
		snprintf(t->note, sizeof(t->note), "no controlling pty: %s", strerror(errno));
		t->v[0] = 1;
		t->err = errno;
		goto out;
	}
	for (i = 0; push[i]; i++) {
		t->ret = ioctl(s, TIOCSTI, &push[i]);
		t->err = errno;
		if (t->ret < 0)
			goto out;
	}
	usleep(10000);
	if (read(s, back, sizeof(back) - 1) < 0)
		back[0] = '\0';
	t->v[1] = !strcmp(back, push);
	snprintf(t->note, sizeof(t->note), "read back %s", t->v[1] ? "\"hp\"" : "nothing");
out:
	if (s >= 0)
		close(s);
	if (m >= 0)
		close(m);
}

void hp_tiocsti(const char *name)
{
	char conf[160] = "";
	bool configured = hp_knob("dev.tty.legacy_tiocsti", 0, true, conf, sizeof(conf));
	struct hp_try t, root;
	int st = hp_try_as(true, hp_tiocsti_try, NULL, &t);

	if (st < 0) {
		hp_line(name, "error", configured, conf, "%s", t.note);
		return;
	}
	if (t.v[0]) {
		hp_line(name, "unsupported", configured, conf,
			"%s (no UNIX98 ptys, or no devpts on /dev/pts)", t.note);
		return;
	}
	if (!t.ret && t.v[1]) {
		hp_line(name, "vulnerable", configured, conf,
			"ioctl(TIOCSTI) on its controlling pty as uid %d: allowed, %s", HP_NOBODY,
			t.note);
		return;
	}
	st = hp_try_as(false, hp_tiocsti_try, NULL, &root);
	if (t.ret < 0 && t.err == EIO && st >= 0 && !root.ret && root.v[1])
		hp_line(name, "protected", configured, conf,
			"ioctl(TIOCSTI) on its controlling pty as uid %d: %s; control as root: allowed, %s",
			HP_NOBODY, hp_said(&t), root.note);
	else
		hp_line(name, "inconclusive", configured, conf,
			"ioctl(TIOCSTI) as uid %d: %s (%s); control as root: %s (%s)", HP_NOBODY,
			hp_said(&t), t.note, hp_said(&root), root.note);
}

/*
 * policy.strict_devmem: what STRICT_DEVMEM refuses is root reading RAM
 * through /dev/mem (uid 65534 cannot open it anyway: mode and CAP_SYS_RAWIO),
 * so root reads one byte of System RAM above 1 MiB. The option is Kconfig
 * only, which user space cannot read: configured is "unknown" (a skip).
 */
#if defined(__x86_64__)
#define HP_DEVMEM_CONTROL	"; control: a read at 0xf0000 (first MiB) went through"
#else
#define HP_DEVMEM_CONTROL	"; no control on arm64 (no range STRICT_DEVMEM always lets through)"
#endif

void hp_devmem(const char *name)
{
	const char *conf = "STRICT_DEVMEM is a Kconfig option (not readable here)";
	unsigned long start, end, addr = 0;
	char line[256], lock[128] = "none";
	unsigned char b;
	ssize_t n;
	int fd;
	FILE *f;

	fd = open("/dev/mem", O_RDONLY);
	if (fd < 0 && errno == ENOENT) {
		hp_line(name, "unsupported", false, conf,
			"no /dev/mem (DEVMEM=n): nothing to restrict");
		return;
	}
	if (fd < 0) {
		read_text("/sys/kernel/security/lockdown", lock, sizeof(lock));
		hp_line(name, "inconclusive", false, conf,
			"root cannot open /dev/mem (%s; lockdown: %s): not STRICT_DEVMEM's refusal",
			strerror(errno), lock);
		return;
	}
	f = fopen("/proc/iomem", "r");
	while (f && !addr && fgets(line, sizeof(line), f)) {
		if (line[0] == ' ' || !strstr(line, ": System RAM") ||
		    sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		start = start < 0x100000 ? 0x100000 : (start + 4095) & ~4095UL;
		if (start + 4096 <= end)
			addr = start;
	}
	if (f)
		fclose(f);
	if (!addr) {
		close(fd);
		hp_line(name, "error", false, conf, "no System RAM above 1 MiB in /proc/iomem");
		return;
	}
#if defined(__x86_64__)
	/* control: the first MiB is readable even under STRICT_DEVMEM (RAM there reads 0) */
	if (pread(fd, &b, 1, 0xf0000) != 1) {
		hp_line(name, "inconclusive", false, conf,
			"control: root's read at 0xf0000 (first MiB) through /dev/mem failed (%s)",
			strerror(errno));
		close(fd);
		return;
	}
#endif
	n = pread(fd, &b, 1, addr);
	if (n == 1)
		hp_line(name, "vulnerable", false, conf,
			"root read a byte of System RAM at %#lx through /dev/mem", addr);
	else if (n < 0 && errno == EPERM)
		hp_line(name, "protected", false, conf,
			"root reading System RAM at %#lx through /dev/mem refused (%s)%s", addr,
			strerror(errno), HP_DEVMEM_CONTROL);
	else
		hp_line(name, "error", false, conf, "pread of /dev/mem at %#lx: %zd (%s)", addr, n,
			strerror(errno));
	close(fd);
}

/*
 * policy.protected_{symlinks,hardlinks,fifos,regular}: a sticky world-writable
 * directory owned by root (as /tmp), uid 65534 the attacker, root the victim.
 * symlinks: root follows a link uid 65534 planted there (control: uid 65534
 * follows it); hardlinks: uid 65534 links a root file it cannot write into it
 * (control: it links its own file); fifos/regular: root opens with O_CREAT a
 * fifo/file uid 65534 created there (control: the same open without O_CREAT).
 */
struct hp_sticky {
	char dir[64];	/* sticky, 01777 */
	char own[64];	/* root's directory, 0755, with "secret" 0644 */
	int step;
};

static void hp_sticky_try(struct hp_try *t, void *arg)
{
	struct hp_sticky *s = arg;
	char a[160], b[160];

	snprintf(a, sizeof(a), "%s/secret", s->own);
	errno = 0;
	switch (s->step) {
	case 0:	/* plant a link to root's file; control: follow it */
		snprintf(b, sizeof(b), "%s/link", s->dir);
		t->ret = symlink(a, b);
		t->v[0] = open(b, O_RDONLY);
		break;
	case 1:	/* control: link its own file, then root's */
		snprintf(a, sizeof(a), "%s/mine", s->dir);
		snprintf(b, sizeof(b), "%s/mine2", s->dir);
		t->v[0] = close(open(a, O_CREAT | O_WRONLY, 0600)) || link(a, b) ? -1 : 0;
		snprintf(a, sizeof(a), "%s/secret", s->own);
		snprintf(b, sizeof(b), "%s/hard", s->dir);
		t->ret = link(a, b);
		break;
	case 2:
		snprintf(b, sizeof(b), "%s/fifo", s->dir);
		t->ret = mkfifo(b, 0666);
		break;
	default:
		snprintf(b, sizeof(b), "%s/regular", s->dir);
		t->ret = open(b, O_CREAT | O_WRONLY, 0666);
		t->err = errno;
		if (t->ret >= 0)
			t->ret = close(t->ret);
		return;
	}
	t->err = errno;
}

static const char *const hp_sticky_word[] = { "symlinks", "hardlinks", "fifos", "regular" };

static void hp_sticky_one(const char *name, struct hp_sticky *s)
{
	static const char *const file[] = { "link", "hard", "fifo", "regular" };
	char sysctl[64], path[160], conf[160] = "";
	bool configured;
	struct hp_try t;
	int fd, ctl, err;

	snprintf(sysctl, sizeof(sysctl), "fs.protected_%s", hp_sticky_word[s->step]);
	configured = hp_knob(sysctl, 1, false, conf, sizeof(conf));
	snprintf(path, sizeof(path), "%s/%s", s->dir, file[s->step]);
	if (hp_try_as(true, hp_sticky_try, s, &t) < 0 || (s->step != 1 && t.ret)) {
		hp_line(name, "error", configured, conf, "uid %d could not create %s: %s",
			HP_NOBODY, path, *t.note ? t.note : strerror(t.err));
		return;
	}
	if (s->step == 1) {
		if (t.v[0])
			hp_line(name, "inconclusive", configured, conf,
				"control: uid %d could not hard-link its own file in %s", HP_NOBODY,
				s->dir);
		else if (!t.ret)
			hp_line(name, "vulnerable", configured, conf,
				"uid %d hard-linked root's 0644 %s/secret into sticky %s",
				HP_NOBODY, s->own, s->dir);
		else
			hp_line(name, t.err == EPERM ? "protected" : "error", configured, conf,
				"uid %d hard-linking root's 0644 %s/secret into sticky %s: %s; control: its own file linked",
				HP_NOBODY, s->own, s->dir, strerror(t.err));
		return;
	}
	if (s->step == 0) {
		ctl = t.v[0] >= 0;
	} else {
		fd = open(path, O_RDONLY | O_NONBLOCK);
		ctl = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	fd = open(path, s->step ? O_RDONLY | O_CREAT | O_NONBLOCK : O_RDONLY, 0600);
	err = errno;
	if (fd >= 0)
		close(fd);
	if (!ctl)
		hp_line(name, "inconclusive", configured, conf, "control: %s could not be opened",
			path);
	else if (fd >= 0)
		hp_line(name, "vulnerable", configured, conf, "root %s uid %d's %s in sticky %s",
			s->step ? "opened with O_CREAT" : "followed", HP_NOBODY,
			s->step == 2 ? "fifo" : s->step ? "file" : "symlink", s->dir);
	else
		hp_line(name, err == EACCES ? "protected" : "error", configured, conf,
			"root %s uid %d's %s in sticky %s: %s; control: %s",
			s->step ? "opening with O_CREAT" : "following", HP_NOBODY,
			s->step == 2 ? "fifo" : s->step ? "file" : "symlink", s->dir, strerror(err),
			s->step ? "opened without O_CREAT" : "uid 65534 followed it");
}

/*
 * The policy.protected_<word> check of that @name, in sticky and root
 * directories of its own, removed after.
 */
void hp_sticky_check(const char *name)
{
	static const char *const file[] = { "link", "hard", "mine", "mine2", "fifo", "regular" };
	struct hp_sticky s = { .dir = "/tmp/hp-sticky-XXXXXX", .own = "/tmp/hp-root-XXXXXX" };
	bool dir, own;
	char path[160];
	int i, fd;

	for (s.step = 0; s.step < ARRAY_SIZE(hp_sticky_word); s.step++) {
		snprintf(path, sizeof(path), "policy.protected_%s", hp_sticky_word[s.step]);
		if (!strcmp(path, name))
			break;
	}
	if (s.step == ARRAY_SIZE(hp_sticky_word)) {
		hp_line(name, "error", false, "-", "not a policy.protected_<%s> name",
			"symlinks|hardlinks|fifos|regular");
		return;
	}
	dir = mkdtemp(s.dir);
	own = dir && mkdtemp(s.own);
	if (!own || chmod(s.dir, 01777) || chmod(s.own, 0755)) {
		hp_line(name, "error", false, "-", "cannot set up %s: %s", s.dir, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/secret", s.own);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	fchmodat(AT_FDCWD, path, 0644, 0);
	hp_sticky_one(name, &s);
out:
	for (i = 0; dir && i < ARRAY_SIZE(file); i++) {
		snprintf(path, sizeof(path), "%s/%s", s.dir, file[i]);
		unlink(path);
	}
	if (own) {
		snprintf(path, sizeof(path), "%s/secret", s.own);
		unlink(path);
		rmdir(s.own);
	}
	if (dir)
		rmdir(s.dir);
}

/*
 * policy.ptrace_scope (Yama): uid 65534 attaches to a sibling of the same uid
 * that is not its descendant (dumpable, so only Yama can refuse); control:
 * it attaches to its own child.
 */
static pid_t hp_ptrace_sibling;

static void hp_ptrace_try(struct hp_try *t, void *arg)
{
	pid_t c;

	prctl(PR_SET_DUMPABLE, 1);
	c = fork();
	if (!c) {
		pause();
		_exit(0);
	}
	t->v[0] = c > 0 && ptrace(PTRACE_ATTACH, c, NULL, NULL) == 0;
	if (c > 0)
		kill(c, SIGKILL);
	t->ret = ptrace(PTRACE_ATTACH, hp_ptrace_sibling, NULL, NULL);
	t->err = errno;
}

void hp_ptrace_scope(const char *name)
{
	char conf[160] = "", c;
	bool configured = hp_knob("kernel.yama.ptrace_scope", 1, false, conf, sizeof(conf));
	long scope = 0;
	struct hp_try t;
	int p[2];

	if (hp_sysctl("kernel.yama.ptrace_scope", &scope)) {
		hp_line(name, "unsupported", false, conf,
			"no Yama (SECURITY_YAMA=n, or not in lsm=): no ptrace scope to set");
		return;
	}
	if (pipe(p)) {
		hp_line(name, "error", configured, conf, "pipe: %s", strerror(errno));
		return;
	}
	hp_ptrace_sibling = fork();
	if (!hp_ptrace_sibling) {
		alarm(10);
		if (setgroups(0, NULL) || setgid(HP_NOBODY) || setuid(HP_NOBODY))
			_exit(1);
		prctl(PR_SET_DUMPABLE, 1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (hp_ptrace_sibling < 0 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		hp_line(name, "error", configured, conf, "the sibling did not become uid %d",
			HP_NOBODY);
		if (hp_ptrace_sibling > 0)
			waitpid(hp_ptrace_sibling, NULL, 0);
		return;
	}
	close(p[0]);
	if (hp_try_as(true, hp_ptrace_try, NULL, &t) < 0)
		snprintf(t.note, sizeof(t.note), "the attacher could not run");
	kill(hp_ptrace_sibling, SIGKILL);
	waitpid(hp_ptrace_sibling, NULL, 0);
	if (*t.note)
		hp_line(name, "error", configured, conf, "%s", t.note);
	else if (!t.ret)
		hp_line(name, "vulnerable", configured, conf,
			"uid %d attached (PTRACE_ATTACH) to a sibling, not its descendant",
			HP_NOBODY);
	else if (t.err == EPERM && (t.v[0] || scope >= 2))
		hp_line(name, "protected", configured, conf,
			"uid %d attaching to a sibling, not its descendant: %s; control: attach to its own child %s",
			HP_NOBODY, strerror(t.err),
			t.v[0] ? "allowed" : "refused too (scope >= 2)");
	else
		hp_line(name, "inconclusive", configured, conf,
			"uid %d attaching to a sibling: %s; control: attach to its own child refused",
			HP_NOBODY, strerror(t.err));
}

/*
 * policy.kexec_load_disabled: the knob stops root (uid 65534 never has
 * CAP_SYS_BOOT), so root calls kexec_load() with one segment too many: past
 * the permission checks it fails EINVAL and loads nothing; refused, EPERM.
 */
static void hp_kexec_try(struct hp_try *t, void *arg)
{
	t->ret = syscall(__NR_kexec_load, 0UL, 17UL, NULL, 0UL);	/* KEXEC_SEGMENT_MAX + 1 */
	t->err = errno;
}

void hp_kexec(const char *name)
{
	char conf[160] = "";
	bool configured = hp_knob("kernel.kexec_load_disabled", 1, false, conf, sizeof(conf));
	struct hp_try t;

	if (hp_try_as(false, hp_kexec_try, NULL, &t) < 0) {
		hp_line(name, "error", configured, conf, "%s", t.note);
		return;
	}
	if (t.ret < 0 && t.err == ENOSYS)
		hp_line(name, "unsupported", configured, conf,
			"kexec_load(): %s: no kexec (KEXEC=n)", strerror(t.err));
	else if (t.ret < 0 && t.err == EINVAL)
		hp_line(name, "vulnerable", configured, conf,
			"root's kexec_load() passed the permission checks (EINVAL only for 17 segments)");
	else if (t.ret < 0 && t.err == EPERM && configured)
		hp_line(name, "protected", configured, conf, "root's kexec_load() refused (%s)",
			strerror(t.err));
	else if (t.ret < 0 && t.err == EPERM)
		hp_line(name, "inconclusive", configured, conf,
			"root's kexec_load() refused (%s), not by kexec_load_disabled=0 (lockdown, an LSM, kexec_load_limit_*)",
			strerror(t.err));
	else
		hp_line(name, "error", configured, conf, "root's kexec_load(): %s", hp_said(&t));
}
