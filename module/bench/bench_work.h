/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe bench: the workload whose cost each code-changing feature is
 * measured on. Every module/bench/<variant>.c includes this file after
 * defining HP_BENCH_FN; Kbuild compiles each variant with one feature's
 * flags removed (or added), so the difference between two variants is that
 * feature's code, nothing else.
 *
 * The workload exercises what the features instrument: a local array
 * (stack protector, auto-init), a fixed-size table indexed at run time
 * (array bounds), a memcpy of a runtime length (FORTIFY), an indirect call
 * (kCFI), calls and returns (zero-call-used-regs, SLS, pac-ret, shadow call
 * stack), a bounds-checked load (SLH) and signed arithmetic (the overflow
 * sanitizer).
 */
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "bench.h"

static const int hp_bench_table[16] = {
	3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3,
};

int HP_BENCH_FN(const int *in, int n, int idx, hp_bench_leaf_t leaf)
{
	int buf[16];
	int acc = 0, i;

	memcpy(buf, in, min_t(int, n, 16) * sizeof(int));
	for (i = 0; i < 4; i++)
		acc += leaf(buf[(idx + i) & 15]);
	if (idx < n)
		acc += hp_bench_table[idx];
	return acc * n + idx;
}
