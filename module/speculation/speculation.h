/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe sls: sls_unthunked.c and sls_unhardened.c define the same functions,
 * built with different flags (Makefile) and never linked as code: their
 * machine code, one blob a function, is embedded by sls_code.S.
 */
#ifndef _HARDPROBE_SPEC_H
#define _HARDPROBE_SPEC_H

typedef int (*hp_spec_fn)(int);

int hp_sls_ret_a(int x);
int hp_sls_ret_b(int x);
int hp_sls_tail_jmp(hp_spec_fn fn, int x);
int hp_spec_icall(hp_spec_fn fn, int x);

#endif /* _HARDPROBE_SPEC_H */
