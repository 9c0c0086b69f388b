/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe: one pass over the kernel log (log.c), for the fatal-probe judge */
#ifndef _HARDPROBE_LOG_H
#define _HARDPROBE_LOG_H

#include <linux/types.h>

/* a catch's task: within this many lines of its signature, "PID: <pid> " */
#define HP_TIE_LINES	16
/*
 * a safe probe's report (hp_log_find()): its task's "PID: <pid> " line within
 * this many lines (KFENCE and SLUB print stack traces and object dumps
 * between the report's first line and dump_stack()'s)
 */
#define HP_TIE_REPORT_LINES	64
/* needles tied to the task, at most (the rest are not tied) */
#define HP_TIE_MAX	16

/* What one pass over the log looks for. */
struct hp_scan {
	const char *marker;		/* start after the last line beginning with it, or NULL */
	const char *const *needles;	/* NULL entries are skipped */
	unsigned int n;
	bool *found;
	char *line;			/* gets the first line holding needles[0] */
	size_t len;
	/*
	 * a needle counts only within @tie_lines (0: HP_TIE_LINES) lines of a
	 * line holding @tie: the same report as the task's "PID: <pid> " line
	 */
	const char *tie;
	unsigned int tie_lines;
	/* the needles count only at the start of a line (after its time stamp) */
	bool at_start;
	/*
	 * the lines to read instead of the kernel log: a copy taken when a
	 * catch happened (NULL: the kernel log)
	 */
	const char *text;
	/* the pass ends at the first line beginning with it (NULL: at the log's end) */
	const char *stop;
	bool marked;			/* out: the marker was found */
	/*
	 * out: one of the first HP_BOOT_LINES lines read holds "Linux version ":
	 * a pass from the log's start (no @marker) read the boot from its
	 * beginning, nothing lost to a wrap or a clear
	 */
	bool boot;
};

/* the boot's banner comes within this many lines of the log's first (arm64: the second) */
#define HP_BOOT_LINES	16

unsigned int hp_log_scan(struct hp_scan *sc);

#endif /* _HARDPROBE_LOG_H */
