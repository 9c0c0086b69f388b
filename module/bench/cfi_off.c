// SPDX-License-Identifier: GPL-2.0
/* hardprobe bench variant cfi_off: flags in Kbuild */
#define HP_BENCH_FN hp_bench_cfi_off
#include "bench_work.h"
#include "../lib/compat.h"

/* the variant without kCFI: its indirect call is unchecked on purpose */
HP_ANNOTATE_NOCFI_SYM(hp_bench_cfi_off);
