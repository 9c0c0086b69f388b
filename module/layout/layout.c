// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe layout: struct layout randomization (randstruct), per-function
 * sections (function_sections), LTO (lto), and the build-time compiler
 * probes (the unannotated switch case warning, stack_clash).
 *
 * randstruct: a struct of ours marked __randomize_layout, its members'
 * order by offset against the declaration (control: the same members
 * unmarked); and the module's view of task_struct (randomized under
 * RANDSTRUCT) against vmlinux's, read through exported functions: a
 * disagreement means this module was built with another seed.
 *
 * function_sections: eight functions built one per section (function_sections_split.c);
 * a function-granular KASLR (FG-KASLR, not upstream) would shuffle those
 * sections at load; the probe compares their load order with their order in
 * the object and counts them in /sys/module/<mod>/sections.
 *
 * lto and the two build-time features: judged from what the compiler did during
 * the module build (module/layout/layout_build.sh, results in layout_build.h).
 *
 * randstruct.struct_order: twelve unsigned long members; the evidence lists
 * them in offset order (declaration indexes) and how many left their
 * declared rank. Shuffled is protected, declaration order vulnerable (a KTAP
 * skip when neither CONFIG_RANDSTRUCT_FULL nor _PERFORMANCE is set); an
 * unmarked struct out of order is inconclusive (the measure is wrong). GCC
 * randomizes only with the randstruct plugin (GCC_PLUGINS), Clang 16+ with
 * -frandomize-layout-seed-file. randstruct.seed_match compares pid, tgid and
 * comm read directly with __task_pid_nr_ns(current, ..., &init_pid_ns) and
 * __get_task_comm() (where exported), which use vmlinux's layout. A module
 * built with a seed other than the kernel build's
 * scripts/basic/randstruct.seed (a make clean'd tree, another build
 * directory) disagrees: error, a pr_err line "randstruct: this module's
 * task_struct layout is not vmlinux's ...", and a failed KUnit case.
 * Agreement on a randomizing kernel is protected; on a kernel that does not
 * randomize there is no seed to agree on: unsupported. The 6.12 loader
 * already refuses most mismatched modules (".gnu.linkonce.this_module section
 * size must match the kernel's built struct module size": struct module is
 * randomized too); the probe covers the seeds for which that size happens to
 * match, and kernels that do not check it.
 *
 * function_sections: -ffunction-sections protects only as the prerequisite
 * of FG-KASLR, which is not upstream (KSPP #132); in 6.12 the flag is in
 * KBUILD_CFLAGS_KERNEL (built-in code only) under
 * CONFIG_LD_DEAD_CODE_DATA_ELIMINATION. The build records the sections'
 * order in the object (objdump). Loaded in object order is vulnerable (never
 * configured: a KTAP skip naming FG-KASLR), shuffled protected. Control: all
 * eight sections must be listed in /sys/module/hardprobe/sections (needs
 * CONFIG_KALLSYMS; where it is not readable the evidence says so), else
 * inconclusive.
 *
 * lto.bitcode: the first bytes of module/core/run.o (BC C0 DE: LLVM bitcode,
 * 7F 45 4C 46: ELF). Bitcode with CONFIG_LTO_CLANG is protected, ELF
 * vulnerable (a skip when not configured), bitcode without CONFIG_LTO_CLANG
 * an error. Control (Clang): a file compiled with the kernel's flags plus
 * -flto must be bitcode, else inconclusive; GCC has no kernel LTO and no
 * control.
 *
 * The unannotated switch case warning: its verdicts are described in the
 * head comment of that build-time probe's source in buildprobe/.
 *
 * stack_clash.probes: the kernel forces -fno-stack-clash-protection (the
 * top-level Makefile) and relies on VMAP_STACK guard pages and on having no
 * VLAs (-Wvla). buildprobe/stack_clash.c (a 12 KiB and a 96 KiB frame) is
 * compiled to assembly with the kernel's flags and with
 * -fstack-clash-protection added, and the page probes of each function are
 * counted (buildprobe/checks.sh). No probes with the kernel's flags is
 * vulnerable (never configured: a skip), probes there protected; no probes
 * even with the flag is an error (the detection is broken), a compiler that
 * rejects the flag inconclusive.
 *
 * The build-time rule (module/layout/Makefile) gives layout_build.sh $(CC)
 * and the $(c_flags) kbuild gives a C file of this directory (without the
 * dependency-file option; for assembly also without $(CC_FLAGS_LTO), as
 * kbuild's own %.s rule does; plus -Wframe-larger-than=1048576 for the
 * large frames). Those are the flags of a built-in object (KBUILD_CFLAGS +
 * KBUILD_CFLAGS_KERNEL, no sanitizers), since the header is not a module
 * object; the two flags that matter here come from KBUILD_CFLAGS for both.
 * Diagnostics and assembly stay in module/layout/layout_build/, never in the
 * build output (W=1 stays clean); the evidence names the compiler and says
 * "build time". The same rule works out of tree, in a kernel tree (make
 * intree) and against Debian's headers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "../hardprobe.h"
#include "layout.h"
#include "layout_build.h"

#ifndef HP_FS_KERNEL
#define HP_FS_KERNEL ""
#endif
#ifndef HP_FS_MODULE
#define HP_FS_MODULE ""
#endif

#define HP_RS_N	12

/* twelve members, randomized under RANDSTRUCT (GCC plugin or Clang) */
struct hp_rs_rand {
	unsigned long m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11;
} __randomize_layout;

/* the control: the same members, not marked (not randomized either way) */
struct hp_rs_plain {
	unsigned long m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11;
};

#define HP_RS_OFFSETS(type) {						\
	offsetof(type, m0), offsetof(type, m1), offsetof(type, m2),	\
	offsetof(type, m3), offsetof(type, m4), offsetof(type, m5),	\
	offsetof(type, m6), offsetof(type, m7), offsetof(type, m8),	\
	offsetof(type, m9), offsetof(type, m10), offsetof(type, m11) }

/*
 * Write the members' declaration indexes in offset order into @buf;
 * return the number of members not at their declared rank.
 */
static unsigned int hp_rs_order(const size_t *off, char *buf, size_t len)
{
	unsigned int i, j, moved = 0;
	size_t n = 0;

	buf[0] = '\0';
	for (i = 0; i < HP_RS_N; i++) {
		unsigned int rank = 0;

		for (j = 0; j < HP_RS_N; j++)
			rank += off[j] < off[i];
		moved += rank != i;
	}
	/* members by offset: for each slot, the member in it */
	for (i = 0; i < HP_RS_N; i++) {
		for (j = 0; j < HP_RS_N; j++) {
			unsigned int rank = 0, k;

			for (k = 0; k < HP_RS_N; k++)
				rank += off[k] < off[j];
			if (rank == i && n < len)
				n += scnprintf(buf + n, len - n, "%s%u", i ? "," : "", j);
		}
	}
	return moved;
}

static bool hp_rs_configured(void)
{
	return IS_ENABLED(CONFIG_RANDSTRUCT_FULL) ||
	       IS_ENABLED(CONFIG_RANDSTRUCT_PERFORMANCE);
}

static void hp_randstruct_struct_order(struct hp_result *r)
{
	static const size_t roff[] = HP_RS_OFFSETS(struct hp_rs_rand);
	static const size_t poff[] = HP_RS_OFFSETS(struct hp_rs_plain);
	char rord[48], pord[48];
	unsigned int rmoved, pmoved;

	rmoved = hp_rs_order(roff, rord, sizeof(rord));
	pmoved = hp_rs_order(poff, pord, sizeof(pord));
	if (pmoved) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: the unmarked struct is out of declaration order too (%s): the measure is wrong",
		       pord);
		return;
	}
	if (rmoved) {
		hp_set(r, HP_PROTECTED,
		       "__randomize_layout struct: members by offset %s, %u of %d moved from declaration order (size %zu); control (unmarked): declaration order",
		       rord, rmoved, HP_RS_N, sizeof(struct hp_rs_rand));
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "__randomize_layout struct: members by offset %s: declaration order, not randomized; control (unmarked): the same",
	       rord);
}

/*
 * The module reads task_struct fields with its own layout; the exported
 * functions read them with vmlinux's. Under RANDSTRUCT both come from one
 * seed (scripts/basic/randstruct.seed of the kernel build): a module built
 * with another seed reads other fields and corrupts what it writes.
 */
static void hp_randstruct_seed_match(struct hp_result *r)
{
	char comm[TASK_COMM_LEN], kcomm[TASK_COMM_LEN];
	pid_t pid, kpid, tgid, ktgid;
	bool same;

	pid = READ_ONCE(current->pid);
	tgid = READ_ONCE(current->tgid);
	/* no task_lock(): its lock is a randomized field too */
	memcpy(comm, current->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	kpid = __task_pid_nr_ns(current, PIDTYPE_PID, &init_pid_ns);
	ktgid = __task_pid_nr_ns(current, PIDTYPE_TGID, &init_pid_ns);
#if HP_HAVE_GET_TASK_COMM_FN
	__get_task_comm(kcomm, sizeof(kcomm), current);
#else
	/* no exported reader of comm with vmlinux's layout: pid and tgid decide */
	strscpy(kcomm, comm, sizeof(kcomm));
#endif
	same = pid == kpid && tgid == ktgid && !strcmp(comm, kcomm);

	if (!same) {
		pr_err("randstruct: this module's task_struct layout is not vmlinux's: pid %d/%d, tgid %d/%d, comm '%.16s'/'%.16s' (module/vmlinux): built with another randstruct seed? it reads and writes the wrong fields of kernel structs\n",
		       pid, kpid, tgid, ktgid, comm, kcomm);
		hp_set(r, HP_ERROR,
		       "MODULE AND VMLINUX DISAGREE on task_struct: pid %d/%d, tgid %d/%d, comm '%.16s'/'%.16s' (module/vmlinux): another randstruct seed?",
		       pid, kpid, tgid, ktgid, comm, kcomm);
		return;
	}
	if (!hp_rs_configured()) {
		hp_set(r, HP_UNSUPPORTED,
		       "no seed to agree on (task_struct not randomized); module and vmlinux agree: pid %d, tgid %d, comm '%s'",
		       pid, tgid, comm);
		return;
	}
	hp_set(r, HP_PROTECTED,
	       "module and vmlinux agree on the randomized task_struct (same seed): pid %d, tgid %d, comm '%s' read directly and through %s",
	       pid, tgid, comm, HP_VMLINUX_READERS);
}

static void hp_rs_layers(struct hp_layers *l)
{
	l->configured = hp_rs_configured();
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_RANDSTRUCT_FULL=%s, CONFIG_RANDSTRUCT_PERFORMANCE=%s",
		 IS_ENABLED(CONFIG_RANDSTRUCT_FULL) ? "y" : "n",
		 IS_ENABLED(CONFIG_RANDSTRUCT_PERFORMANCE) ? "y" : "n");
#ifdef RANDSTRUCT
	hp_layer(l->built, sizeof(l->built),
		 "module built with -DRANDSTRUCT (%s): the kernel build's seed",
		 IS_ENABLED(CONFIG_CC_IS_CLANG) ? "-frandomize-layout-seed-file" :
		 "randomize_layout_plugin");
#else
	hp_layer(l->built, sizeof(l->built),
		 "module built without RANDSTRUCT: __randomize_layout is an empty marker");
#endif
	hp_layer(l->active, sizeof(l->active), "compile time only; %s",
		 IS_ENABLED(CONFIG_MODVERSIONS) ? "MODVERSIONS=y" : "MODVERSIONS=n");
}

static const char *hp_rs_unavailable(void)
{
	if (!IS_ENABLED(CONFIG_CC_IS_CLANG) && !IS_ENABLED(CONFIG_GCC_PLUGINS))
		return "GCC randomizes only with the randstruct plugin (GCC_PLUGINS=n)";
	return NULL;
}

/* function_sections */

struct hp_fs_dir {
	struct dir_context ctx;
	unsigned int total, ours;
};

static bool hp_fs_actor(struct dir_context *ctx, const char *name, int len,
			loff_t off, u64 ino, unsigned int type)
{
	struct hp_fs_dir *d = container_of(ctx, struct hp_fs_dir, ctx);
	static const char ours[] = ".text.hp_fs_f";

	if (name[0] != '.')
		return true;
	d->total++;
	if (len == sizeof(ours) && !memcmp(name, ours, sizeof(ours) - 1))
		d->ours++;
	return true;
}

/* Count the module's sections in sysfs; -errno if it cannot be read. */
static int hp_fs_sysfs(struct hp_fs_dir *d)
{
#if defined(MODULE) && IS_ENABLED(CONFIG_KALLSYMS) && IS_ENABLED(CONFIG_SYSFS)
	struct file *f;
	int err;

	f = filp_open("/sys/module/" KBUILD_MODNAME "/sections", O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	d->ctx.actor = hp_fs_actor;
	err = iterate_dir(f, &d->ctx);
	filp_close(f, NULL);
	return err;
#else
	return -EOPNOTSUPP;
#endif
}

static void hp_function_sections_load_order(struct hp_result *r)
{
	struct hp_fs_dir d = { .total = 0 };
	char got[HP_FS_N + 1], want[HP_FS_N + 1];
	unsigned long addr[HP_FS_N];
	unsigned int i, j;
	int err;

	for (i = 0; i < HP_FS_N; i++)
		addr[i] = (unsigned long)hp_fs_fns[i];
	/* the functions in load-address order */
	for (i = 0; i < HP_FS_N; i++) {
		unsigned int rank = 0;

		for (j = 0; j < HP_FS_N; j++)
			rank += addr[j] < addr[i];
		got[rank] = '0' + i;
	}
	got[HP_FS_N] = '\0';
	/* their order in function_sections_split.o (else declaration order) */
	if (strlen(HP_LB_FS_ORDER) == HP_FS_N)
		strscpy(want, HP_LB_FS_ORDER, sizeof(want));
	else
		strscpy(want, "01234567", sizeof(want));

	err = hp_fs_sysfs(&d);
	if (!err && d.ours != HP_FS_N) {
		hp_set(r, HP_INCONCLUSIVE,
		       "control: %u of %d .text.hp_fs_f* sections in sysfs (%u sections of %s): the functions did not keep their own sections",
		       d.ours, HP_FS_N, d.total, KBUILD_MODNAME);
		return;
	}
	if (strcmp(got, want)) {
		hp_set(r, HP_PROTECTED,
		       "per-function sections loaded in order %s, object order %s: shuffled at load",
		       got, want);
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "%d per-function sections (%s) loaded in object order %s: not shuffled (FG-KASLR not upstream); built-in: %s",
	       HP_FS_N, err ? "sysfs sections not readable" : "all in sysfs", got,
	       HP_FS_KERNEL[0] ? HP_FS_KERNEL : "no -ffunction-sections");
}

static void hp_fs_layers(struct hp_layers *l)
{
	l->configured = false;
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_LD_DEAD_CODE_DATA_ELIMINATION=%s, CONFIG_LTO_CLANG=%s; no FG-KASLR option upstream",
		 IS_ENABLED(CONFIG_LD_DEAD_CODE_DATA_ELIMINATION) ? "y" : "n",
		 IS_ENABLED(CONFIG_LTO_CLANG) ? "y (LLD splits functions itself)" : "n");
	hp_layer(l->built, sizeof(l->built),
		 "built-in objects: %s; module objects: %s (function_sections_split.o: -ffunction-sections by hardprobe)",
		 HP_FS_KERNEL[0] ? HP_FS_KERNEL : "no -ffunction-sections",
		 HP_FS_MODULE[0] ? HP_FS_MODULE : "no -ffunction-sections");
	hp_layer(l->active, sizeof(l->active),
		 "module sections laid out in object order by the loader");
}

static const char *hp_fs_unavailable(void)
{
	return "FG-KASLR is not upstream (KSPP #132)";
}

/* lto */

static void hp_lto_bitcode(struct hp_result *r)
{
	bool bc = !strcmp(HP_LB_LTO_CORE, "bitcode");
	bool elf = !strcmp(HP_LB_LTO_CORE, "ELF");
	bool configured = IS_ENABLED(CONFIG_LTO_CLANG);

	if (!bc && !elf) {
		hp_set(r, HP_ERROR, "build time: module/core/run.o is %s, neither ELF nor bitcode",
		       HP_LB_LTO_CORE);
		return;
	}
	if (HP_LB_LTO_CONTROL == 0) {
		hp_set(r, HP_INCONCLUSIVE,
		       "build time: control (kernel flags + -flto) did not give LLVM bitcode: the check cannot see LTO (%s)",
		       HP_LB_CC);
		return;
	}
	if (bc && !configured) {
		hp_set(r, HP_ERROR,
		       "build time: module/core/run.o is LLVM bitcode, yet CONFIG_LTO_CLANG=n");
		return;
	}
	if (bc) {
		hp_set(r, HP_PROTECTED,
		       "build time: module/core/run.o is LLVM bitcode (BC C0 DE) before the final link, flags '%s'; control (-flto): bitcode (%s)",
		       HP_LB_LTO_FLAGS, HP_LB_CC);
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "build time: module/core/run.o is ELF machine code, no LTO; control: %s (%s)",
	       HP_LB_LTO_CONTROL > 0 ? "-flto gives bitcode" :
	       "none (GCC: the kernel has no GCC LTO)", HP_LB_CC);
}

static void hp_lto_layers(struct hp_layers *l)
{
	l->configured = IS_ENABLED(CONFIG_LTO_CLANG);
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_LTO_CLANG_FULL=%s, CONFIG_LTO_CLANG_THIN=%s",
		 IS_ENABLED(CONFIG_LTO_CLANG_FULL) ? "y" : "n",
		 IS_ENABLED(CONFIG_LTO_CLANG_THIN) ? "y" : "n");
	hp_layer(l->built, sizeof(l->built), "module flags: %s",
		 HP_LB_LTO_FLAGS[0] ? HP_LB_LTO_FLAGS : "no -flto");
	hp_layer(l->active, sizeof(l->active), "link time only");
}

static const char *hp_lto_unavailable(void)
{
	if (!IS_ENABLED(CONFIG_CC_IS_CLANG))
		return "the kernel supports LTO with Clang only (HAS_LTO_CLANG)";
	return NULL;
}

/* the unannotated switch case warning (build time) */

static void hp_fallthrough_warning(struct hp_result *r)
{
	if (HP_LB_FT_CONTROL_N) {
		hp_set(r, HP_INCONCLUSIVE,
		       "build time: the control (-Wno-implicit-fallthrough) warned too: %s",
		       HP_LB_FT_CONTROL_MSG);
		return;
	}
	if (HP_LB_FT_CONTROL_RC) {
		hp_set(r, HP_ERROR, "build time: the control compile failed: %s",
		       HP_LB_FT_CONTROL_MSG);
		return;
	}
	if (!HP_LB_FT_PLAIN_N) {
		hp_set(r, HP_VULNERABLE,
		       "build time: an unannotated fall-through compiled without a warning (%s%s; %s)",
		       HP_LB_FT_FLAG[0] ? "flags " : "no -Wimplicit-fallthrough",
		       HP_LB_FT_FLAG, HP_LB_CC);
		return;
	}
	if (HP_LB_FT_ANNOTATED_N || HP_LB_FT_ANNOTATED_RC) {
		hp_set(r, HP_ERROR,
		       "build time: the annotated fall-through (fallthrough;) %s: %s",
		       HP_LB_FT_ANNOTATED_N ? "still warned" : "failed to compile",
		       HP_LB_FT_ANNOTATED_MSG);
		return;
	}
	hp_set(r, HP_PROTECTED,
	       "build time (%s, %s): unannotated: \"%s\"; annotated: silent; control (-Wno-implicit-fallthrough): silent",
	       HP_LB_CC, HP_LB_FT_FLAG, HP_LB_FT_PLAIN_MSG);
}

static void hp_ft_layers(struct hp_layers *l)
{
	l->configured = CONFIG_CC_IMPLICIT_FALLTHROUGH[0];
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "CONFIG_CC_IMPLICIT_FALLTHROUGH=\"%s\"", CONFIG_CC_IMPLICIT_FALLTHROUGH);
	hp_built_flags(l, HP_LB_FT_FLAG, "no -Wimplicit-fallthrough");
	hp_layer(l->active, sizeof(l->active), "compile time only (%s)", HP_LB_CC);
}

/* stack_clash (build time) */

static void hp_stack_clash_probes(struct hp_result *r)
{
	if (HP_LB_SC_KERNEL_RC || HP_LB_SC_ON_RC) {
		/* a compiler without the flag: no control */
		if (!HP_LB_SC_KERNEL_RC && strstr(HP_LB_SC_ERR, "stack-clash"))
			hp_set(r, HP_INCONCLUSIVE,
			       "build time: control: the compiler rejects -fstack-clash-protection: %s",
			       HP_LB_SC_ERR);
		else
			hp_set(r, HP_ERROR, "build time: compile failed: %s", HP_LB_SC_ERR);
		return;
	}
	if (HP_LB_SC_ON_SMALL <= 0 && HP_LB_SC_ON_LARGE <= 0) {
		hp_set(r, HP_ERROR,
		       "build time: no stack probes found even with -fstack-clash-protection: the detection is broken (%s)",
		       HP_LB_CC);
		return;
	}
	if (HP_LB_SC_KERNEL_SMALL > 0 || HP_LB_SC_KERNEL_LARGE > 0) {
		hp_set(r, HP_PROTECTED,
		       "build time (%s): kernel flags probe the frames: 12 KiB %d, 96 KiB %d probes (%s)",
		       HP_LB_CC, HP_LB_SC_KERNEL_SMALL, HP_LB_SC_KERNEL_LARGE,
		       HP_LB_SC_KERNEL_SAMPLE);
		return;
	}
	hp_set(r, HP_VULNERABLE,
	       "build time (%s): kernel flags (%s): no probes; +-fstack-clash-protection: 12 KiB %d%s, 96 KiB %d%s '%s'",
	       HP_LB_CC, HP_LB_SC_FLAG, HP_LB_SC_ON_SMALL,
	       HP_LB_SC_ON_SMALL_LOOP ? " (loop)" : "", HP_LB_SC_ON_LARGE,
	       HP_LB_SC_ON_LARGE_LOOP ? " (loop)" : "", HP_LB_SC_ON_SAMPLE);
}

static void hp_sc_layers(struct hp_layers *l)
{
	l->configured = strstr(HP_LB_SC_FLAG, "-fstack-clash-protection") &&
			!strstr(HP_LB_SC_FLAG, "-fno-stack-clash-protection");
	hp_layer(l->configured_txt, sizeof(l->configured_txt),
		 "no Kconfig option; kernel flags: %s",
		 HP_LB_SC_FLAG[0] ? HP_LB_SC_FLAG : "none");
	hp_built_flags(l, HP_LB_SC_FLAG, "no stack-clash flag");
	hp_layer(l->active, sizeof(l->active),
		 "CONFIG_VMAP_STACK=%s (guard pages); VLAs forbidden (-Wvla)",
		 IS_ENABLED(CONFIG_VMAP_STACK) ? "y" : "n");
}

static const char *hp_sc_unavailable(void)
{
	return "the Makefile forces -fno-stack-clash-protection: VMAP_STACK guard pages, no VLAs";
}

static const struct hp_probe hp_probes_randstruct[] = {
	HP_PROBE(randstruct, struct_order, HP_SAFE),
	HP_PROBE(randstruct, seed_match, HP_SAFE),
};

HP_FEATURE(randstruct, .layers = hp_rs_layers, .unavailable = hp_rs_unavailable,
	   .khc = "CONFIG_RANDSTRUCT_FULL");

static const struct hp_probe hp_probes_function_sections[] = {
	HP_PROBE(function_sections, load_order, HP_SAFE),
};

HP_FEATURE(function_sections, .layers = hp_fs_layers, .unavailable = hp_fs_unavailable);

static const struct hp_probe hp_probes_lto[] = {
	HP_PROBE(lto, bitcode, HP_SAFE),
};

HP_FEATURE(lto, .layers = hp_lto_layers, .unavailable = hp_lto_unavailable);

static const struct hp_probe hp_probes_fallthrough[] = {
	HP_PROBE(fallthrough, warning, HP_SAFE),
};

HP_FEATURE(fallthrough, .layers = hp_ft_layers);

static const struct hp_probe hp_probes_stack_clash[] = {
	HP_PROBE(stack_clash, probes, HP_SAFE),
};

HP_FEATURE(stack_clash, .layers = hp_sc_layers, .unavailable = hp_sc_unavailable);
