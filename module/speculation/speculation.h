/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe sls: sls_unthunked.c and sls_unhardened.c define the same functions,
 * built with different flags (Makefile) and never linked as code: their
 * machine code, one blob a function, is embedded by sls_code.S.
 */
#ifndef _HARDPROBE_SPEC_H
#define _HARDPROBE_SPEC_H

#include <linux/types.h>

#define HP_VULN_DIR "/sys/devices/system/cpu/vulnerabilities/"

typedef int (*hp_spec_fn)(int);

struct hp_result;
struct hp_layers;

/* vulnerabilities/<entry>: its line, a result without it, the active layer (speculation.c) */
ssize_t hp_vuln_read(const char *entry, char *line, size_t len);
void hp_vuln_absent(struct hp_result *r, const char *entry, ssize_t n, const char *label,
		    const char *words);
void hp_vuln_layer(struct hp_layers *l, const char *entry);

#ifdef CONFIG_X86_64
/* the length of the nop at @p (the encodings assemblers pad code with), or 0 */
unsigned int hp_nop_len(const u8 *p, const u8 *end);
#endif

int hp_sls_ret_a(int x);
int hp_sls_ret_b(int x);
int hp_sls_tail_jmp(hp_spec_fn fn, int x);
int hp_spec_icall(hp_spec_fn fn, int x);

#endif /* _HARDPROBE_SPEC_H */
