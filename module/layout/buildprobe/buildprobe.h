/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe build-time probes: the functions of the C files next to this
 * header, which checks.sh compiles during the module build (never linked)
 * and, for scripts/hptool/ccprobe.py, with the host compilers.
 */
#ifndef _HARDPROBE_BUILDPROBE_H
#define _HARDPROBE_BUILDPROBE_H

/* the kernel's spelling (compiler_attributes.h): a host compile has no kernel headers */
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

int hp_ft_switch(int c, int x);

void hp_sc_use(char *buf);
void hp_sc_small(void);
void hp_sc_large(void);

#endif /* _HARDPROBE_BUILDPROBE_H */
