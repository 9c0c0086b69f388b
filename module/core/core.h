/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe core: what debugfs.c (the module's face) uses of run.c */
#ifndef _HARDPROBE_CORE_H
#define _HARDPROBE_CORE_H

#include <linux/types.h>

#include "../hardprobe.h"

#define HP_NAME_MAX	64
#define HP_LAST_LEN	(HP_NAME_MAX + HP_EVIDENCE_LEN + 32)

int hp_run_init(void);
void hp_run_exit(void);
struct hp_run *hp_run_all(const char *target);
void hp_run_free(struct hp_run *run);
bool hp_valid_name(const char *s);
int hp_run_name(const char *name, bool init, int allow);
int hp_run_last(char *buf, size_t len);
void __noreturn hp_inject_oops(const char *name);

#endif /* _HARDPROBE_CORE_H */
