// SPDX-License-Identifier: GPL-2.0
/* hardprobe bench variant fortify_off: flags in Kbuild */
#define HP_BENCH_FN hp_bench_fortify_off
#include "bench_work.h"
