// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe slh: slh_fns.h built with -mspeculative-load-hardening
 * (Kbuild, Clang only).
 */
#define HP_SLH_NAME(x)	x##_slh
#include "slh_fns.h"
