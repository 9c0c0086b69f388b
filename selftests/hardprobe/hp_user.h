/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe kselftest: what hardprobe_test and its user-space checks
 * (hp_user.c, a translation unit of its own) call of each other.
 */
#ifndef HP_USER_H
#define HP_USER_H

#include <stdbool.h>

/*
 * hardprobe_test.c: the one verdict line of an observed outcome, looked up in
 * the module's rules (and counted by hardprobe_test's kselftest.h)
 */
void hp_verdict(const char *name, bool configured, const char *outcome, const char *evidence);

/* hp_user.c: "# name: outcome: evidence[; configured: conf]" and its verdict line */
__printf(5, 6)
void hp_line(const char *name, const char *outcome, bool configured, const char *conf,
	     const char *fmt, ...);

/*
 * hp_user.c: the user-space checks, each registered in hp_checks.def
 * (HP_USER_CHECK) and printing one result line, of the @name it is given
 */
void hp_proc_mem_force(const char *name);
void hp_umip(const char *name);
void hp_null_page(const char *name);
void hp_bpf_jit_harden(const char *name);
void hp_knob_check(const char *name);
void hp_kptr(const char *name);
void hp_tiocsti(const char *name);
void hp_devmem(const char *name);
void hp_sticky_check(const char *name);
void hp_ptrace_scope(const char *name);
void hp_kexec(const char *name);

#endif /* HP_USER_H */
