/* SPDX-License-Identifier: GPL-2.0 */
/* hardprobe kselftests: the kernel's attribute spellings, for user space. */
#ifndef HP_COMPILER_H
#define HP_COMPILER_H

#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#ifndef __packed
#define __packed	__attribute__((__packed__))
#endif
#ifndef __used
#define __used		__attribute__((__used__))
#endif

#endif /* HP_COMPILER_H */
