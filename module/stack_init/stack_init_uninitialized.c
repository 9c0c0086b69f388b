// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe stack_init positive control: the same leaves as stack_init.c,
 * built with -ftrivial-auto-var-init=uninitialized (see Makefile), so that
 * their variables must show the fill when nothing initializes them.
 */
#include "stack_init_leaves.h"

HP_SI_CASES(HP_SI_DEFINE_CTL)
HP_SI_SWITCH_LEAF(hp_si_ctl)
