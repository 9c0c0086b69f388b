/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe bench: the variants of the workload (see bench_work.h). */
#ifndef _HARDPROBE_BENCH_H
#define _HARDPROBE_BENCH_H

typedef int (*hp_bench_leaf_t)(int x);

int hp_bench_base(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_zcr_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_autovar_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_ssp_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_cfi_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_slh_on(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_slh_base(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_fortify_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_bounds_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_sls_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_pac_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_scs_off(const int *in, int n, int idx, hp_bench_leaf_t leaf);
int hp_bench_sio_on(const int *in, int n, int idx, hp_bench_leaf_t leaf);

extern const struct file_operations hp_bench_fops;

#endif /* _HARDPROBE_BENCH_H */
