// SPDX-License-Identifier: GPL-2.0
/* hardprobe bench variant ssp_off: flags in Kbuild */
#define HP_BENCH_FN hp_bench_ssp_off
#include "bench_work.h"
