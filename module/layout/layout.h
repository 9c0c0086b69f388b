/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe layout: what layout.c shares with function_sections_split.c (the functions
 * built one per section for the function_sections probe).
 */
#ifndef _HARDPROBE_LAYOUT_H
#define _HARDPROBE_LAYOUT_H

#define HP_FS_N	8

int hp_fs_f0(int x);
int hp_fs_f1(int x);
int hp_fs_f2(int x);
int hp_fs_f3(int x);
int hp_fs_f4(int x);
int hp_fs_f5(int x);
int hp_fs_f6(int x);
int hp_fs_f7(int x);

extern int (*const hp_fs_fns[HP_FS_N])(int);

#endif /* _HARDPROBE_LAYOUT_H */
