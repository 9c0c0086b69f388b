// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe slh control: spec_slh_fns.h with spec_slh.c's flags minus
 * -mspeculative-load-hardening (Kbuild).
 */
#define HP_SLH_NAME(x)	x##_twin
#include "spec_slh_fns.h"
