// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe slh control: slh_fns.h with slh_hardened.c's flags minus
 * -mspeculative-load-hardening (Makefile).
 */
#define HP_SLH_NAME(x)	x##_twin
#include "slh_fns.h"
