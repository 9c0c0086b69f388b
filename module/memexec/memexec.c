// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe nx, stack_guard, vmalloc_guard, user_exec, user_access,
 * null_deref: what the kernel's page tables refuse to the kernel itself.
 *
 * nx: a small function is copied into kmalloc'd, vmalloc'd, stack and
 * module data memory (and a pre-assembled copy sits in module .rodata) and
 * called there; NX/PXN must fault on the first instruction fetch. The
 * positive control calls the same function at its text address through the
 * same caller and checks that the copy is byte-identical.
 * hp_exec_fn returns 0x5a5a; it is copied from its real start (endbr64 or
 * "bti c") into kmalloc (nx.kmalloc), one vmalloc page (nx.vmalloc), a buffer
 * on the task stack (nx.stack) and the module's .data (nx.data), the I-cache
 * is synchronised (flush_icache_range()) and the copy is called; nx.rodata
 * calls the pre-assembled copy, whose control checks that the compiler
 * emitted exactly those bytes, else inconclusive. A call that returns 0x5a5a
 * is vulnerable. configured: CONFIG_STRICT_KERNEL_RWX and
 * CONFIG_STRICT_MODULE_RWX (module data is NX only with the latter); active:
 * the CPU's NX (x86) or PXN (arm64, architectural).
 *
 * stack_guard: the bytes just below and just above the task stack are read
 * with copy_from_kernel_nofault(), which returns -EFAULT from an unmapped
 * guard page instead of oopsing (the fault paths of x86 and arm64 run the
 * exception fixup before any guard-page report); a plain read of the byte
 * below is the fatal version.
 * -EFAULT from both is protected, a mapped neighbour that reads is
 * vulnerable (no guard); the control is the stack's own first and last
 * byte, which must read fine, else inconclusive. stack_guard.leading's catch
 * is x86's "stack guard page was hit at" (handle_stack_overflow()'s report on
 * the #DF stack); arm64 has no guard-page report for it, only the generic
 * paging-request line after the address the probe prints (lib/oops.h).
 * configured: CONFIG_VMAP_STACK; active: whether this task's stack is in
 * vmalloc space.
 *
 * vmalloc_guard: the same for the byte just past a one-page vmalloc() area
 * (its guard page); the fatal version writes that byte, as LKDTM's
 * VMALLOC_LINEAR_OVERFLOW.
 * No Kconfig option or boot parameter turns the guard page off: configured
 * is always on, and what counts is what the probe observes. -EFAULT with no
 * page mapped there (vmalloc_to_page()) is protected, a readable byte
 * vulnerable; the control is the area's last byte, which must read back
 * its fill. vmalloc_guard.overflow writes only after that control and only
 * when a nofault read finds the byte unmapped (a mapped byte past the area
 * is someone else's: vulnerable, unwritten); its catch is x86's "#PF:
 * error_code(0x0002) - not-present page", arm64's paging-request line. A
 * catch leaves the area behind.
 *
 * user_exec, user_access: a page of the calling task is mapped with
 * vm_mmap(), filled from the kernel through the uaccess helpers, then
 * executed (SMEP/PXN) or read without those helpers (SMAP/PAN).
 * user_exec.mmap writes a copy of hp_exec_fn there with access_process_vm()
 * (which keeps the I-cache coherent) and calls it: x86 "unable to execute
 * userspace code (SMEP?)", arm64 "Unable to handle kernel execution of user
 * memory" (user mappings always carry PXN). user_access.read writes a word
 * with copy_to_user() and loads it with a plain dereference: x86 "#PF:
 * error_code(0x0001) - permissions violation" (only SMAP refuses a
 * supervisor read of a present page; the line before it names the user
 * address the probe printed), arm64 "Unable to handle kernel access to user
 * memory outside uaccess routines" (PAN). Controls: copy_from_user() reads
 * the page back byte-identical, and for user_exec the function runs at its
 * text address. A CPU without SMEP or SMAP (or an arm64 kernel built with
 * PAN on a CPU without it and no software PAN) is unsupported, not
 * vulnerable. configured: x86's SMEP and SMAP and arm64's PXN have no
 * Kconfig option (used whenever the CPU has them), PAN is CONFIG_ARM64_PAN
 * (7.1: always built, no option) or CONFIG_ARM64_SW_TTBR0_PAN; active: the
 * CPU feature and the CR4 bit (x86), hardware PAN with PSTATE.PAN read in
 * the probe's context, EPAN and TTBR0 PAN (arm64).
 *
 * null_deref: a NULL dereference is harmless only while no user can put
 * memory at address 0. The protection is that an unprivileged task cannot
 * map page 0: vm.mmap_min_addr (mm/mmap.c's security_mmap_addr(): below it a
 * mapping needs CAP_SYS_RAWIO) and the LSMs' checks (SELinux's mmap_zero).
 * mmap_zero asks exactly that: it maps page 0 (MAP_FIXED_NOREPLACE) in the
 * calling task's address space under a copy of its credentials without
 * capabilities, and unmaps it again if that worked. Page 0 itself is empty
 * in every task that never mapped it, whatever the setting: a fault on it
 * says nothing of the protection. The fatal read and exec (LKDTM's
 * ACCESS_NULL, EXEC_NULL) ask the same question first and fire only when
 * page 0 is refused: the catch is then the page fault on the unmapped page,
 * reported as a NULL pointer dereference. A task that has page 0 mapped is
 * not asked.
 * mmap_zero: refused with -EPERM or -EACCES is protected; mapped is
 * vulnerable; another error, or page 0 already mapped in the task, is
 * inconclusive. Control: the same credentials map a page where the kernel
 * chooses. The evidence gives vm.mmap_min_addr (or why it could not be
 * read); a task without a user address space (a KUnit thread) is
 * unsupported. The catch of read and exec: x86 "BUG: kernel NULL pointer
 * dereference", arm64 "Unable to handle kernel NULL pointer dereference".
 *
 * The calls into copied code go through hp_exec_call(), an object built
 * without kCFI (a kCFI check would read the type hash in front of the
 * target and trap, or fault on that read, before NX/SMEP were asked).
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>
#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/processor.h>
#include <asm/special_insns.h>
#endif

#include "../arch/x86.h"
#include "../hardprobe.h"
#include "../lib/oops.h"
#include "memexec.h"

#define HP_EXEC_MAGIC	0x5a5a
/* bytes copied: more than hp_exec_fn's body on every target */
#define HP_EXEC_SIZE	32
#define HP_USER_MAGIC	0x5a5aa5a5UL

/*
 * The function every nx/user_exec probe copies and calls (notrace: no
 * ftrace call site at its entry, as on a kernel with FUNCTION_TRACER).
 */
static noinline notrace int hp_exec_fn(void)
{
	return HP_EXEC_MAGIC;
}

/*
 * hp_exec_fn as the compilers of the reference targets emit it (after the
 * module loader patched the return thunk): pre-assembled into .rodata,
 * since nothing can copy into read-only data at run time. The nx.rodata
 * control checks that the text really holds these bytes.
 */
#if defined(CONFIG_X86_64)
#define HP_EXEC_RODATA_LEN (IS_ENABLED(CONFIG_X86_KERNEL_IBT) ? 10 : 6)
static const u8 hp_exec_rodata[HP_EXEC_SIZE] __aligned(16) = {
#ifdef CONFIG_X86_KERNEL_IBT
	0xf3, 0x0f, 0x1e, 0xfa,		/* endbr64 */
#endif
	0xb8, 0x5a, 0x5a, 0x00, 0x00,	/* mov $0x5a5a, %eax */
	0xc3,				/* ret */
};
#elif defined(CONFIG_ARM64)
#define HP_EXEC_RODATA_LEN (IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) ? 12 : 8)
static const u8 hp_exec_rodata[HP_EXEC_SIZE] __aligned(16) = {
#ifdef CONFIG_ARM64_BTI_KERNEL
	0x5f, 0x24, 0x03, 0xd5,		/* bti c */
#endif
	0x40, 0x4b, 0x8b, 0x52,		/* mov w0, #0x5a5a */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
};

/*
 * a kernel built with -mbranch-protection=pac-ret+leaf (6.1) signs this leaf
 * too: GCC 12 puts the mov first, Clang the paciasp (a landing pad itself)
 */
#define HP_EXEC_RODATA_LEAF_LEN 16
static const u8 hp_exec_rodata_leaf[2][HP_EXEC_SIZE] __aligned(16) = { {
	0x40, 0x4b, 0x8b, 0x52,		/* mov w0, #0x5a5a */
	0x3f, 0x23, 0x03, 0xd5,		/* paciasp */
	0xbf, 0x23, 0x03, 0xd5,		/* autiasp */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
}, {
	0x3f, 0x23, 0x03, 0xd5,		/* paciasp */
	0x40, 0x4b, 0x8b, 0x52,		/* mov w0, #0x5a5a */
	0xbf, 0x23, 0x03, 0xd5,		/* autiasp */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
} };
#else
#define HP_EXEC_RODATA_LEN 0
static const u8 hp_exec_rodata[HP_EXEC_SIZE];
#endif

/* module .data (initialised, so not .bss) */
static u8 hp_exec_data[HP_EXEC_SIZE] __aligned(16) = { 0xa5 };

/* The text address, hidden so that no copy is made at an offset into it. */
static const u8 *hp_exec_text(void)
{
	const void *p = hp_exec_fn;

	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static bool hp_arch_unsupported(struct hp_result *r)
{
#ifndef HP_ARCH_OK
	hp_set(r, HP_UNSUPPORTED, "no probe for this architecture (x86_64 and arm64 only)");
	return true;
#else
	return false;
#endif
}

#ifdef CONFIG_X86_64
static void hp_x86_layers(struct hp_layers *l, const char *name, unsigned int bit,
			  bool used, unsigned long cr4_bit)
{
	bool cpu = hp_x86_cpuid7_has(bit);

	l->configured = used || !cpu;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "%s: no Kconfig option, %s", name, used || !cpu ?
		 "used whenever the CPU has it" :
		 "the CPU has it but the kernel does not use it (clearcpuid=?)");
	hp_layer(l->active, sizeof(l->active), "CPUID %s: %s; kernel uses it: %s; CR4.%s=%d",
		 name, cpu ? "yes" : "no", used ? "yes" : "no", name,
		 !!(hp_x86_cr4() & cr4_bit));
}
#endif

/* A CPU without NX/PXN cannot be tested; a kernel not using it runs the probe. */
static bool hp_nx_unsupported(struct hp_result *r)
{
#ifdef CONFIG_X86_64
	if (!hp_x86_cpu_nx()) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no NX (CPUID.80000001:EDX[20]=0)");
		return true;
	}
#endif
	return hp_arch_unsupported(r);
}

/* Positive control: the function works at its text address, same caller. */
static bool hp_exec_control(struct hp_result *r)
{
	int ret = hp_exec_call(hp_exec_fn);

	if (ret != HP_EXEC_MAGIC) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: hp_exec_fn at its text address returned %#x, not %#x",
		       ret, HP_EXEC_MAGIC);
		return false;
	}
	return true;
}

/*
 * A copy of hp_exec_fn that runs anywhere. Under a return-thunk mitigation
 * (retbleed, SRSO, ITS) the loader patched its return into "jmp <thunk>", a
 * rel32 that would land elsewhere from a copy: the copy gets back the "ret"
 * the compiler meant (the rest of the function is the .rodata copy's).
 */
static void hp_exec_copy(u8 *dst)
{
	const u8 *text = hp_exec_text();
	int n = HP_EXEC_RODATA_LEN;

	memcpy(dst, text, HP_EXEC_SIZE);
	if (IS_ENABLED(CONFIG_X86_64) && n > 1 && n + 4 <= HP_EXEC_SIZE &&
	    !memcmp(hp_exec_rodata, text, n - 1) && hp_exec_rodata[n - 1] == 0xc3 &&
	    text[n - 1] == 0xe9) {
		dst[n - 1] = 0xc3;
		memset(dst + n, 0xcc, 4);
	}
}

/* Call the code at @dst, a copy of hp_exec_fn in @where; a catch oopses. */
static void hp_nx_fire(struct hp_result *r, const char *where, void *dst,
		       int len)
{
	int ret;

	pr_info("hardprobe: nx: calling a copy of hp_exec_fn (text %p) in %s at %p\n",
		hp_exec_text(), where, dst);
	ret = hp_exec_call((hp_exec_fn_t)dst);
	hp_set(r, ret == HP_EXEC_MAGIC ? HP_VULNERABLE : HP_ERROR,
	       "code in %s at %p ran and returned %#x; control: the same %d bytes ran at their text address",
	       where, dst, ret, len);
}

/* Copy hp_exec_fn to @dst, check the copy, make it fetchable, call it. */
static void hp_nx_copy_run(struct hp_result *r, const char *where, u8 *dst)
{
	u8 want[HP_EXEC_SIZE];

	if (hp_nx_unsupported(r) || !hp_exec_control(r))
		return;
	hp_exec_copy(dst);
	hp_exec_copy(want);
	flush_icache_range((unsigned long)dst, (unsigned long)dst + HP_EXEC_SIZE);
	if (memcmp(dst, want, HP_EXEC_SIZE)) {
		hp_set(r, HP_ERROR, "the copy in %s differs from the text", where);
		return;
	}
	hp_nx_fire(r, where, dst, HP_EXEC_SIZE);
}

static void hp_nx_kmalloc(struct hp_result *r)
{
	u8 *p = kmalloc(HP_EXEC_SIZE, GFP_KERNEL);

	if (!p) {
		hp_set(r, HP_ERROR, "kmalloc failed");
		return;
	}
	/* a catch kills this task here and leaks the 32 bytes, as LKDTM does */
	hp_nx_copy_run(r, "kmalloc memory", p);
	kfree(p);
}

static void hp_nx_vmalloc(struct hp_result *r)
{
	u8 *p = vmalloc(PAGE_SIZE);

	if (!p) {
		hp_set(r, HP_ERROR, "vmalloc failed");
		return;
	}
	hp_nx_copy_run(r, "vmalloc memory", p);
	vfree(p);
}

static void hp_nx_stack(struct hp_result *r)
{
	u8 buf[HP_EXEC_SIZE] __aligned(16);

	hp_nx_copy_run(r, "the task stack", buf);
}

static void hp_nx_data(struct hp_result *r)
{
	hp_nx_copy_run(r, "module .data", hp_exec_data);
}

static void hp_nx_rodata(struct hp_result *r)
{
	const u8 *copy = hp_exec_rodata;
	int len = HP_EXEC_RODATA_LEN;
	unsigned int __maybe_unused i;
	u8 text[HP_EXEC_SIZE];

	if (hp_nx_unsupported(r) || !hp_exec_control(r))
		return;
	/* the text as the compiler emitted it (a return-thunk jmp taken back to ret) */
	hp_exec_copy(text);
#ifdef HP_EXEC_RODATA_LEAF_LEN
	for (i = 0; i < ARRAY_SIZE(hp_exec_rodata_leaf) && memcmp(copy, text, len); i++) {
		if (!memcmp(hp_exec_rodata_leaf[i], text, HP_EXEC_RODATA_LEAF_LEN)) {
			copy = hp_exec_rodata_leaf[i];
			len = HP_EXEC_RODATA_LEAF_LEN;
		}
	}
#endif
	if (memcmp(copy, text, len)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the compiler emitted other bytes than the .rodata copy (text starts %*ph)",
		       len, text);
		return;
	}
	hp_nx_fire(r, "module .rodata", (void *)copy, len);
}

/*
 * stack_guard: the pages around a vmalloc'd task stack are unmapped. A
 * nofault read answers -EFAULT there and the stack's own bytes read fine.
 */
static void hp_stack_guard_nofault(struct hp_result *r)
{
	u8 *stack = task_stack_page(current);
	long lo, hi, below, above;
	u8 b;

	lo = copy_from_kernel_nofault(&b, stack, 1);
	hi = copy_from_kernel_nofault(&b, stack + THREAD_SIZE - 1, 1);
	if (lo || hi) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: nofault reads of the stack's own first/last byte gave %ld/%ld",
		       lo, hi);
		return;
	}
	below = copy_from_kernel_nofault(&b, stack - 1, 1);
	above = copy_from_kernel_nofault(&b, stack + THREAD_SIZE, 1);
	if (below && above && !is_vmalloc_addr(stack)) {
		/* no vmalloc'd stack, no guard pages: an unmapped neighbour is someone else's */
		hp_set(r, HP_INCONCLUSIVE,
		       "bytes around the task stack at %p unmapped (%ld/%ld), but the stack is not in vmalloc space, so no guard page did it (DEBUG_PAGEALLOC unmaps free pages)",
		       stack, below, above);
		return;
	}
	if (below && above) {
		hp_set(r, HP_PROTECTED,
		       "bytes below and above the %lu KiB task stack at %p: %ld/%ld (unmapped); its own first/last byte read fine",
		       THREAD_SIZE / 1024, stack, below, above);
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "the byte %s the %lu KiB task stack at %p is mapped (nofault read: below %ld, above %ld): no guard page",
	       below ? "above" : "below", THREAD_SIZE / 1024, stack, below, above);
}

static void hp_stack_guard_leading(struct hp_result *r)
{
	const u8 *stack = task_stack_page(current);
	u8 b;

	if (hp_arch_unsupported(r))
		return;
	/* control: the stack's own lowest byte; then the bug, a plain read below it */
	b = READ_ONCE(stack[0]);
	/*
	 * Without a vmalloc'd stack there is no guard page: an oops on the
	 * page below would be another mechanism's (DEBUG_PAGEALLOC's), and
	 * the log signature alone (arm64's is a generic paging request line)
	 * could not tell.
	 */
	if (!is_vmalloc_addr(stack) &&
	    copy_from_kernel_nofault(&b, stack - 1, 1)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "the byte below the task stack at %p is unmapped, but the stack is not in vmalloc space: no guard page did it (DEBUG_PAGEALLOC?); not read",
		       stack - 1);
		return;
	}
	pr_info("hardprobe: stack_guard: reading the byte below the task stack at %p\n",
		stack - 1);
	b = READ_ONCE(stack[-1]);
	hp_set(r, HP_VULNERABLE,
	       "read the byte below the task stack at %p (%#x): mapped, no guard page",
	       stack - 1, b);
}

/*
 * vmalloc_guard: mm/vmalloc.c gives every vmalloc() area one more page than
 * asked, left unmapped (only VM_NO_GUARD areas lack it, and vmalloc()
 * refuses that flag). A nofault read of the byte just past a one-page area
 * must fail, and no page may be mapped there; the last byte inside reads
 * fine. The second area's distance is shown, not judged: it need not be
 * the next one in address order.
 */
static void hp_vmalloc_guard_nofault(struct hp_result *r)
{
	u8 *v = vmalloc(PAGE_SIZE), *w = vmalloc(PAGE_SIZE);
	long in, past = 0;
	struct page *pg = NULL;
	u8 b = 0;

	if (!v || !w) {
		hp_set(r, HP_ERROR, "vmalloc(%lu) failed", PAGE_SIZE);
		goto out;
	}
	memset(v, 0x5a, PAGE_SIZE);
	in = copy_from_kernel_nofault(&b, v + PAGE_SIZE - 1, 1);
	if (in || b != 0x5a) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: a nofault read of the last byte of the vmalloc() area gave %ld (%#x)",
		       in, b);
		goto out;
	}
	past = copy_from_kernel_nofault(&b, v + PAGE_SIZE, 1);
	pg = vmalloc_to_page(v + PAGE_SIZE);
	if (past && !pg) {
		hp_set(r, HP_PROTECTED,
		       "the byte just past a one-page vmalloc() area at %p: %ld, no page mapped (guard page); its last byte read fine; next area at %+ld KiB",
		       v, past, ((long)w - (long)v) / 1024);
		goto out;
	}
	hp_set(r, past ? HP_ERROR : HP_VULNERABLE,
	       "the byte just past a one-page vmalloc() area at %p: nofault read %ld, page %s: no guard page",
	       v, past, pg ? "mapped" : "not mapped");
out:
	vfree(w);
	vfree(v);
}

static void hp_vmalloc_guard_overflow(struct hp_result *r)
{
	u8 *v, b;

	if (hp_arch_unsupported(r))
		return;
	v = vmalloc(PAGE_SIZE);
	if (!v) {
		hp_set(r, HP_ERROR, "vmalloc(%lu) failed", PAGE_SIZE);
		return;
	}
	/* control: the last byte inside, written plainly */
	WRITE_ONCE(v[PAGE_SIZE - 1], 0x5a);
	/* a mapped page past the area is someone else's: never write it */
	if (!copy_from_kernel_nofault(&b, v + PAGE_SIZE, 1)) {
		hp_set(r, HP_VULNERABLE,
		       "the byte just past a one-page vmalloc() area at %p is mapped (read %#x), no guard page; not written",
		       v, b);
		vfree(v);
		return;
	}
	pr_info("hardprobe: vmalloc_guard: writing the byte just past a one-page vmalloc() area at %p\n",
		v + PAGE_SIZE);
	/* a catch kills this task here: the area is left behind */
	WRITE_ONCE(v[PAGE_SIZE], 0x5a);
	hp_set(r, HP_VULNERABLE,
	       "wrote the byte just past a one-page vmalloc() area at %p: no fault",
	       v + PAGE_SIZE);
	vfree(v);
}

static unsigned long hp_user_map(struct hp_result *r, unsigned long prot)
{
	unsigned long uaddr;

	if (!current->mm) {
		hp_set(r, HP_UNSUPPORTED, "no user address space in this task");
		return 0;
	}
	uaddr = vm_mmap(NULL, 0, PAGE_SIZE, prot, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(uaddr) || uaddr >= TASK_SIZE) {
		hp_set(r, HP_ERROR, "vm_mmap of a user page failed (%ld)", (long)uaddr);
		return 0;
	}
	return uaddr;
}

static bool hp_user_exec_unsupported(struct hp_result *r)
{
#if defined(CONFIG_X86_64)
	if (!hp_x86_cpuid7_has(HP_CPUID_SMEP)) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no SMEP (CPUID.7.0:EBX[7]=0)");
		return true;
	}
#endif
	return hp_arch_unsupported(r);
}

static void hp_user_exec_mmap(struct hp_result *r)
{
	u8 code[HP_EXEC_SIZE], back[HP_EXEC_SIZE];
	unsigned long uaddr;
	int ret;

	if (hp_user_exec_unsupported(r) || !hp_exec_control(r))
		return;
	uaddr = hp_user_map(r, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (!uaddr)
		return;
	hp_exec_copy(code);
	/* through the kernel's mapping of the page, with the I-cache kept coherent */
	if (access_process_vm(current, uaddr, code, HP_EXEC_SIZE, FOLL_WRITE) != HP_EXEC_SIZE) {
		hp_set(r, HP_ERROR, "cannot write the code into the user page");
		goto out;
	}
	if (copy_from_user(back, (const void __user *)uaddr, HP_EXEC_SIZE) ||
	    memcmp(back, code, HP_EXEC_SIZE)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: copy_from_user of the user page failed or differs");
		goto out;
	}
	pr_info("hardprobe: user_exec: calling a copy of hp_exec_fn in a user page at %#lx\n",
		uaddr);
	ret = hp_exec_call((hp_exec_fn_t)uaddr);
	hp_set(r, ret == HP_EXEC_MAGIC ? HP_VULNERABLE : HP_ERROR,
	       "the kernel ran code in a user page at %#lx (returned %#x); control: copy_from_user read the %d bytes back",
	       uaddr, ret, HP_EXEC_SIZE);
out:
	vm_munmap(uaddr, PAGE_SIZE);
}

static bool hp_user_access_unsupported(struct hp_result *r)
{
#if defined(CONFIG_X86_64)
	if (!hp_x86_cpuid7_has(HP_CPUID_SMAP)) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no SMAP (CPUID.7.0:EBX[20]=0)");
		return true;
	}
#elif defined(CONFIG_ARM64)
	if (HP_PAN_BUILT && !system_uses_hw_pan() &&
	    !system_uses_ttbr0_pan()) {
		hp_set(r, HP_UNSUPPORTED, "the CPU has no PAN (ARMv8.1), no software PAN built");
		return true;
	}
#endif
	return hp_arch_unsupported(r);
}

static void hp_user_access_read(struct hp_result *r)
{
	unsigned long uaddr, val = HP_USER_MAGIC, back = 0, got;

	if (hp_user_access_unsupported(r))
		return;
	uaddr = hp_user_map(r, PROT_READ | PROT_WRITE);
	if (!uaddr)
		return;
	if (copy_to_user((void __user *)uaddr, &val, sizeof(val)) ||
	    copy_from_user(&back, (const void __user *)uaddr, sizeof(back)) ||
	    back != val) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: copy_to_user/copy_from_user of the user page failed or differ");
		goto out;
	}
	pr_info("hardprobe: user_access: reading a user page at %#lx without uaccess helpers\n",
		uaddr);
	/* the bug: a plain load through a user address */
	got = READ_ONCE(*(unsigned long *)uaddr);
	hp_set(r, got == val ? HP_VULNERABLE : HP_ERROR,
	       "the kernel read %#lx from a user page at %#lx outside uaccess helpers; control: copy_from_user read it too",
	       got, uaddr);
out:
	vm_munmap(uaddr, PAGE_SIZE);
}

/* Page 0 mapped in this task would answer the access: never probe then. */
static bool hp_null_deref_mapped(struct hp_result *r)
{
	struct vm_area_struct *vma;
	bool mapped = false;

	if (hp_arch_unsupported(r))
		return true;
	if (current->mm) {
		mmap_read_lock(current->mm);
		vma = find_vma(current->mm, 0);
		mapped = vma && vma->vm_start < PAGE_SIZE;
		mmap_read_unlock(current->mm);
	}
	if (mapped)
		hp_set(r, HP_INCONCLUSIVE,
		       "page 0 is mapped in this task: the access would not meet the unmapped page; not run");
	return mapped;
}

/*
 * vm_mmap() of one anonymous page at @addr (MAP_FIXED_NOREPLACE: never over
 * a mapping) under a copy of the caller's credentials with no capabilities:
 * what an unprivileged user's mmap() gets (its LSM label stays the caller's).
 */
static unsigned long hp_null_map_unpriv(unsigned long addr, unsigned long flags)
{
	const struct cred *old;
	struct cred *cred;
	unsigned long got;

	cred = prepare_creds();
	if (!cred)
		return -ENOMEM;
	cred->cap_effective = CAP_EMPTY_SET;
	cred->cap_permitted = CAP_EMPTY_SET;
	cred->cap_inheritable = CAP_EMPTY_SET;
	cred->cap_ambient = CAP_EMPTY_SET;
	old = override_creds(cred);
	got = vm_mmap(NULL, addr, PAGE_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | flags, 0);
	revert_creds(old);
	put_cred(cred);
	return got;
}

/*
 * The protection itself: may a task without privileges map page 0? Tried
 * in this task's address space, the page unmapped again at once. True when
 * refused by the check (-EPERM: mmap_min_addr and CAP_SYS_RAWIO; -EACCES:
 * an LSM), with @why saying so; otherwise @r holds the verdict.
 */
static bool hp_null_page0_refused(struct hp_result *r, char *why, size_t len)
{
	unsigned long min = 0, got, ctl;
	char setting[48];
	int err;

	if (hp_null_deref_mapped(r))
		return false;
	if (!current->mm) {
		hp_set(r, HP_UNSUPPORTED,
		       "no user address space in this task: cannot ask whether page 0 can be mapped");
		return false;
	}
	err = hp_setting("/proc/sys/vm/mmap_min_addr", &min);
	if (err)
		snprintf(setting, sizeof(setting), "vm.mmap_min_addr unreadable (%d)", err);
	else
		snprintf(setting, sizeof(setting), "vm.mmap_min_addr=%lu", min);
	/* control: the same credentials map a page where the kernel chooses */
	ctl = hp_null_map_unpriv(0, 0);
	if (IS_ERR_VALUE(ctl)) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: a task without capabilities could not map any page (%ld): page 0 not asked; %s",
		       (long)ctl, setting);
		return false;
	}
	vm_munmap(ctl, PAGE_SIZE);
	got = hp_null_map_unpriv(0, MAP_FIXED_NOREPLACE);
	if (!got) {
		vm_munmap(0, PAGE_SIZE);
		hp_set(r, HP_VULNERABLE,
		       "a task without capabilities mapped page 0 (mmap at 0, MAP_FIXED_NOREPLACE: 0), unmapped again: a NULL dereference reads user memory; %s",
		       setting);
		return false;
	}
	if (!IS_ERR_VALUE(got)) {
		vm_munmap(got, PAGE_SIZE);
		hp_set(r, HP_ERROR, "mmap at 0 with MAP_FIXED_NOREPLACE returned %#lx, not 0",
		       got);
		return false;
	}
	if ((long)got != -EPERM && (long)got != -EACCES) {
		hp_set(r, HP_INCONCLUSIVE,
		       "mmap of page 0 without capabilities failed with %ld, not the check's -EPERM/-EACCES; %s",
		       (long)got, setting);
		return false;
	}
	snprintf(why, len,
		 "a task without capabilities may not map page 0 (%ld, %s); control: it mapped a page at %#lx",
		 (long)got, setting, ctl);
	return true;
}

static void hp_null_deref_mmap_zero(struct hp_result *r)
{
	char why[160];

	if (hp_null_page0_refused(r, why, sizeof(why)))
		hp_set(r, HP_PROTECTED, "%s", why);
}

/* The fatal probes fire only when page 0 is refused: only then is the fault the protection's. */
static bool hp_null_deref_ready(struct hp_result *r)
{
	char why[160];

	if (!hp_null_page0_refused(r, why, sizeof(why)))
		return false;
	pr_info("hardprobe: null_deref: %s\n", why);
	return true;
}

static void hp_null_deref_read(struct hp_result *r)
{
	unsigned long *p = NULL, got;

	if (!hp_null_deref_ready(r))
		return;
	OPTIMIZER_HIDE_VAR(p);
	pr_info("hardprobe: null_deref: reading a word at address 0\n");
	got = READ_ONCE(*p);
	hp_set(r, HP_VULNERABLE, "the kernel read %#lx at address 0: page 0 is mapped", got);
}

static void hp_null_deref_exec(struct hp_result *r)
{
	hp_exec_fn_t fn = NULL;
	int ret;

	if (!hp_null_deref_ready(r) || !hp_exec_control(r))
		return;
	OPTIMIZER_HIDE_VAR(fn);
	pr_info("hardprobe: null_deref: calling address 0\n");
	ret = hp_exec_call(fn);
	hp_set(r, HP_VULNERABLE, "the kernel called address 0 and it returned %#x", ret);
}

static void hp_null_layers(struct hp_layers *l)
{
	unsigned long min = 0;
	int err = hp_setting("/proc/sys/vm/mmap_min_addr", &min);

	l->configured = !err && min;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_DEFAULT_MMAP_MIN_ADDR=%d; vm.mmap_min_addr=%lu%s",
		 CONFIG_DEFAULT_MMAP_MIN_ADDR, min, err ? " (unreadable)" : "");
	hp_layer(l->built, sizeof(l->built), "page tables: nothing to build");
	hp_layer(l->active, sizeof(l->active),
		 "page 0 never mapped for the kernel; users below %lu need CAP_SYS_RAWIO", min);
}

static void hp_nx_layers(struct hp_layers *l)
{
	bool rodata = true;

	hp_cmdline_rodata(&rodata);
	l->configured = IS_ENABLED(CONFIG_STRICT_KERNEL_RWX) &&
			IS_ENABLED(CONFIG_STRICT_MODULE_RWX);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_STRICT_KERNEL_RWX=%s, CONFIG_STRICT_MODULE_RWX=%s%s",
		 IS_ENABLED(CONFIG_STRICT_KERNEL_RWX) ? "y" : "n",
		 IS_ENABLED(CONFIG_STRICT_MODULE_RWX) ? "y" : "n",
		 rodata ? "" : ", rodata=off");
	hp_layer(l->built, sizeof(l->built), "page permissions: nothing to build");
#if defined(CONFIG_X86_64)
	hp_layer(l->active, sizeof(l->active), "CPUID NX: %s; kernel uses it: %s",
		 hp_x86_cpu_nx() ? "yes" : "no",
		 boot_cpu_has(X86_FEATURE_NX) ? "yes" : "no");
#elif defined(CONFIG_ARM64)
	hp_layer(l->active, sizeof(l->active), "PXN: architectural (ARMv8)");
#else
	hp_layer(l->active, sizeof(l->active), "unknown on this architecture");
#endif
}

static void hp_guard_layers(struct hp_layers *l)
{
	void *stack = task_stack_page(current);

	l->configured = IS_ENABLED(CONFIG_VMAP_STACK);
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "CONFIG_VMAP_STACK=%s",
		 l->configured ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "stack allocation: nothing to build");
	hp_layer(l->active, sizeof(l->active), "this task's %lu KiB stack is %s",
		 THREAD_SIZE / 1024, is_vmalloc_addr(stack) ?
		 "in vmalloc space" : "not in vmalloc space (no guard pages)");
}

static void hp_vguard_layers(struct hp_layers *l)
{
	l->configured = true;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "no switch: vmalloc() always adds a guard page (VM_NO_GUARD is refused)");
	hp_layer(l->built, sizeof(l->built), "page tables: nothing to build");
	hp_layer(l->active, sizeof(l->active),
		 "on by construction (mm/vmalloc.c __get_vm_area_node()); no boot parameter");
}

static void hp_uexec_layers(struct hp_layers *l)
{
#if defined(CONFIG_X86_64)
	hp_x86_layers(l, "SMEP", HP_CPUID_SMEP, boot_cpu_has(X86_FEATURE_SMEP),
		      X86_CR4_SMEP);
#elif defined(CONFIG_ARM64)
	l->configured = true;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "PXN: no Kconfig option, set on every user mapping");
	hp_layer(l->active, sizeof(l->active), "PXN: architectural (ARMv8)");
#else
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "no such mechanism here");
	hp_layer(l->active, sizeof(l->active), "unknown on this architecture");
#endif
	hp_layer(l->built, sizeof(l->built), "CPU state: nothing to build");
}

static void hp_uaccess_layers(struct hp_layers *l)
{
#if defined(CONFIG_X86_64)
	hp_x86_layers(l, "SMAP", HP_CPUID_SMAP, boot_cpu_has(X86_FEATURE_SMAP),
		      X86_CR4_SMAP);
#elif defined(CONFIG_ARM64)
	bool hw = system_uses_hw_pan();

	l->configured = HP_PAN_BUILT || IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "%s, CONFIG_ARM64_EPAN=%s, CONFIG_ARM64_SW_TTBR0_PAN=%s", HP_PAN_TXT,
		 IS_ENABLED(CONFIG_ARM64_EPAN) ? "y" : "n",
		 IS_ENABLED(CONFIG_ARM64_SW_TTBR0_PAN) ? "y" : "n");
	hp_layer(l->active, sizeof(l->active),
		 "hardware PAN: %s%s; EPAN: %s; TTBR0 PAN: %s",
		 hw ? "yes, PSTATE.PAN=" : "no", hw ?
		 (read_sysreg_s(SYS_PSTATE_PAN) ? "1" : "0") : "",
		 cpus_have_final_cap(ARM64_HAS_EPAN) ? "yes" : "no",
		 system_uses_ttbr0_pan() ? "yes" : "no");
#else
	hp_layer(l->configured_txt, sizeof(l->configured_txt), "no such mechanism here");
	hp_layer(l->active, sizeof(l->active), "unknown on this architecture");
#endif
	hp_layer(l->built, sizeof(l->built), "CPU state: nothing to build");
}

static const char *hp_user_unavailable(void)
{
#ifdef HP_ARCH_OK
	return NULL;
#else
	return "no probe for this architecture";
#endif
}

static const struct hp_probe hp_probes_nx[] = {
	HP_PROBE(nx, kmalloc, HP_FATAL, .signature = HP_NX_SIG,
		 .lkdtm = HP_LIST("EXEC_KMALLOC")),
	HP_PROBE(nx, vmalloc, HP_FATAL, .signature = HP_NX_SIG,
		 .lkdtm = HP_LIST("EXEC_VMALLOC")),
	HP_PROBE(nx, stack, HP_FATAL, .signature = HP_NX_SIG,
		 .lkdtm = HP_LIST("EXEC_STACK")),
	HP_PROBE(nx, data, HP_FATAL, .signature = HP_NX_SIG,
		 .lkdtm = HP_LIST("EXEC_DATA")),
	HP_PROBE(nx, rodata, HP_FATAL, .signature = HP_NX_SIG,
		 .lkdtm = HP_LIST("EXEC_RODATA")),
};

/*
 * kernel-hardening-checker checks (.khc), verified by: execution of kmalloc,
 * vmalloc, stack, data and rodata.
 */
HP_FEATURE(nx, .layers = hp_nx_layers, .khc = "CONFIG_STRICT_KERNEL_RWX CONFIG_STRICT_MODULE_RWX");

static const struct hp_probe hp_probes_stack_guard[] = {
	/*
	 * LKDTM: nofault reads the bytes below and above the task stack.
	 * EXHAUST_STACK (a recursion into the guard page below) is not paired:
	 * tests.txt marks it "Corrupts memory on failure".
	 */
	HP_PROBE(stack_guard, nofault, HP_SAFE,
		 .lkdtm = HP_LIST("STACK_GUARD_PAGE_TRAILING")),
	HP_PROBE(stack_guard, leading, HP_FATAL, .signature = HP_GUARD_SIG,
		 .lkdtm = HP_LIST("STACK_GUARD_PAGE_LEADING")),
};

HP_FEATURE(stack_guard, .layers = hp_guard_layers, .khc = "CONFIG_VMAP_STACK");

static const struct hp_probe hp_probes_vmalloc_guard[] = {
	HP_PROBE(vmalloc_guard, nofault, HP_SAFE),
	/*
	 * LKDTM writes PAGE_SIZE + 1 bytes into a one-page vzalloc() area: the
	 * last one lands on its guard page, as overflow's plain write of the
	 * byte just past the area.
	 */
	HP_PROBE(vmalloc_guard, overflow, HP_FATAL, .signature = HP_VGUARD_SIG,
		 .lkdtm = HP_LIST("VMALLOC_LINEAR_OVERFLOW")),
};

/*
 * no kernel-hardening-checker check (.khc): vmalloc()'s guard page has no
 * switch k-h-c checks
 */
HP_FEATURE(vmalloc_guard, .layers = hp_vguard_layers);

/*
 * x86 with page-table isolation on (pti=on, or a CPU affected by Meltdown):
 * the kernel's page tables map user memory NX, so the jump dies of NX before
 * SMEP is ever asked: not SMEP's catch, and no test of it.
 */
static const struct hp_escape hp_uexec_escape[] = {
#if defined(CONFIG_X86_64)
	{ .text = HP_NX_SIG, .first = true,
	  .by = "PTI's NX on the kernel's mapping of user memory" },
#endif
	{ }
};

static const struct hp_probe hp_probes_user_exec[] = {
	/*
	 * LKDTM: EXEC_NULL and ACCESS_NULL are null_deref's, not paired with
	 * user_exec or user_access: page 0 is never mapped, so they fault with
	 * or without SMEP/SMAP (PXN/PAN); these probes use a mapped user page.
	 * UNSET_SMEP (cr4_pinning.smep) is not paired: native_write_cr4() is
	 * exported only to an in-tree LKDTM, so out of tree neither LKDTM's
	 * test nor the probe runs.
	 */
	HP_PROBE(user_exec, mmap, HP_FATAL, .signature = HP_UEXEC_SIG,
		 .escape = hp_uexec_escape,
		 .lkdtm = HP_LIST("EXEC_USERSPACE")),
};

HP_FEATURE(user_exec, .layers = hp_uexec_layers, .unavailable = hp_user_unavailable,
	   .khc = "nosmep@x86_64",
	   .off = HP_X86_64(HP_LIST("clearcpuid=smep")));

static const struct hp_probe hp_probes_user_access[] = {
	HP_PROBE(user_access, read, HP_FATAL, .signature = HP_UACCESS_SIG,
		 .lkdtm = HP_LIST("ACCESS_USERSPACE")),
};

/*
 * kernel-hardening-checker: CONFIG_ARM64_EPAN is not listed: no probe touches
 * exec-only mappings.
 */
HP_FEATURE(user_access, .layers = hp_uaccess_layers, .unavailable = hp_user_unavailable,
	   .khc = "CONFIG_X86_SMAP nosmap@x86_64 CONFIG_ARM64_PAN CONFIG_ARM64_SW_TTBR0_PAN",
	   .off = HP_X86_64(HP_LIST("clearcpuid=smap")));

static const struct hp_probe hp_probes_null_deref[] = {
	HP_PROBE(null_deref, mmap_zero, HP_SAFE),
	HP_PROBE(null_deref, read, HP_FATAL, .signature = HP_NULL_SIG,
		 .lkdtm = HP_LIST("ACCESS_NULL")),
	HP_PROBE(null_deref, exec, HP_FATAL, .signature = HP_NULL_SIG,
		 .lkdtm = HP_LIST("EXEC_NULL")),
};

/*
 * no kernel-hardening-checker check (.khc): the oops of a NULL read and call
 * on the unmapped page 0; it maps nothing at page 0 from an unprivileged task,
 * so vm.mmap_min_addr and CONFIG_DEFAULT_MMAP_MIN_ADDR are not verified here
 * (the kselftest line null_page does that)
 */
HP_FEATURE(null_deref, .layers = hp_null_layers, .unavailable = hp_user_unavailable);
