/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe kcfi: what cfi.c and its uninstrumented control share */
#ifndef _HARDPROBE_CFI_H
#define _HARDPROBE_CFI_H

typedef int (*hp_cfi_int_fn)(int);

int hp_cfi_call_unchecked(hp_cfi_int_fn fn, int arg);

#endif /* _HARDPROBE_CFI_H */
