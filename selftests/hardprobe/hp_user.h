/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe kselftest: what hardprobe_test and its user-space checks
 * (hp_user.c, a translation unit of its own) call of each other.
 */
#ifndef HP_USER_H
#define HP_USER_H

#include <stdbool.h>

/* result lines printed by hp_user_tests() */
#define HP_USER_LINES	19

/*
 * hardprobe_test.c: the one verdict line of an observed outcome, looked up in
 * the module's rules (and counted by hardprobe_test's kselftest.h)
 */
void hp_verdict(const char *name, bool configured, const char *outcome, const char *evidence);

/* hp_user.c: every user-space check, HP_USER_LINES result lines */
void hp_user_tests(void);

#endif /* HP_USER_H */
