// SPDX-License-Identifier: GPL-2.0
/*
 * hardprobe backward edge, positive control: the victim of backward.c built
 * without the shadow call stack (Kbuild removes $(CC_FLAGS_SCS)). It keeps
 * every other flag, pac-ret included, so a correctly signed overwrite of its
 * return address must take it to the caller's label: the overwrite works.
 */
#include "backward.h"

noinline void hp_bwd_victim_control(struct hp_bwd_req *rq)
{
	hp_bwd_victim_body(rq);
}
