// SPDX-License-Identifier: GPL-2.0
/* hardprobe bench variant slh_base: flags in Kbuild */
#define HP_BENCH_FN hp_bench_slh_base
#include "bench_work.h"
