// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe slh: spec_slh_fns.h built with -mspeculative-load-hardening
 * (Kbuild, Clang only).
 */
#define HP_SLH_NAME(x)	x##_slh
#include "spec_slh_fns.h"
