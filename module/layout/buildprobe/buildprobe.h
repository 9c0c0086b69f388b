/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe build-time probes: the functions of module/buildprobe/*.c, which
 * module/layout_build.sh compiles during the module build (never linked).
 */
#ifndef _HARDPROBE_BUILDPROBE_H
#define _HARDPROBE_BUILDPROBE_H

int hp_ft_switch(int c, int x);

void hp_sc_use(char *buf);
void hp_sc_small(void);
void hp_sc_large(void);

#endif /* _HARDPROBE_BUILDPROBE_H */
