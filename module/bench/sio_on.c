// SPDX-License-Identifier: GPL-2.0
/* hardprobe bench variant sio_on: flags in Kbuild */
#define HP_BENCH_FN hp_bench_sio_on
#include "bench_work.h"
