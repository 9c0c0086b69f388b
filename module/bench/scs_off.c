// SPDX-License-Identifier: GPL-2.0
/* hardprobe bench variant scs_off: flags in Kbuild */
#define HP_BENCH_FN hp_bench_scs_off
#include "bench_work.h"
