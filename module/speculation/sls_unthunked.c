// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe sls: two returns and an indirect tail jump, built with the
 * kernel's -mharden-sls but without its retpoline and return-thunk flags
 * (Makefile), so the compiler's own "ret" and "jmp *%reg" stay in the code.
 * Not linked: sls_code.S embeds the code of each function as bytes.
 */
#include "sls_fns.h"
