/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe: one pass over the kernel log (log.c), for the fatal-probe judge */
#ifndef _HARDPROBE_LOG_H
#define _HARDPROBE_LOG_H

#include <linux/types.h>

/* a catch's task: within this many lines of its signature, "PID: <pid> " */
#define HP_TIE_LINES	16

/* What one pass over the log looks for. */
struct hp_scan {
	const char *marker;		/* start after the last line holding it, or NULL */
	const char *const *needles;	/* NULL entries are skipped */
	unsigned int n;
	bool *found;
	char *line;			/* gets the first line holding needles[0] */
	size_t len;
	/*
	 * needles[0] counts only within HP_TIE_LINES lines of a line holding
	 * @tie: the same report as the task's "PID: <pid> " line
	 */
	const char *tie;
	bool marked;			/* out: the marker was found */
};

unsigned int hp_log_scan(struct hp_scan *sc);

#endif /* _HARDPROBE_LOG_H */
