// SPDX-License-Identifier: GPL-2.0
/* hardprobe bench variant base: flags in Kbuild */
#define HP_BENCH_FN hp_bench_base
#include "bench_work.h"
