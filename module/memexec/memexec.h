/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe nx/user_exec: what memexec.c and its uninstrumented caller share */
#ifndef _HARDPROBE_MEMEXEC_H
#define _HARDPROBE_MEMEXEC_H

typedef int (*hp_exec_fn_t)(void);

int hp_exec_call(hp_exec_fn_t fn);

#endif /* _HARDPROBE_MEMEXEC_H */
