/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe: the kernel's own report line of each page-fault catch the
 * probes provoke (memexec's signatures) or that a bug meets past another
 * feature (debug_checks' escapes). HP_ARCH_OK: defined where they are known.
 */
#ifndef _HP_LIB_OOPS_H
#define _HP_LIB_OOPS_H

/*
 * The kernel's own report of each catch. x86: arch/x86/mm/fault.c
 * show_fault_oops(), arch/x86/kernel/traps.c handle_stack_overflow();
 * a supervisor read of a present page is refused only by SMAP (protection
 * keys print another reason), so its error code names it. arm64:
 * arch/arm64/mm/fault.c; a read of the stack guard page is an ordinary
 * translation fault there, so only the generic line and the address that
 * the probe prints just before can tell it.
 */
#if defined(CONFIG_X86_64)
#define HP_NX_SIG	"kernel tried to execute NX-protected page"
#define HP_GUARD_SIG	"stack guard page was hit at"
#define HP_VGUARD_SIG	"#PF: error_code(0x0002) - not-present page"
#define HP_UEXEC_SIG	"unable to execute userspace code (SMEP?)"
#define HP_UACCESS_SIG	"#PF: error_code(0x0001) - permissions violation"
#define HP_NULL_SIG	"BUG: kernel NULL pointer dereference"
#define HP_ARCH_OK
#elif defined(CONFIG_ARM64)
#define HP_NX_SIG	"Unable to handle kernel execute from non-executable memory"
#define HP_GUARD_SIG	"Unable to handle kernel paging request at virtual address"
#define HP_VGUARD_SIG	"Unable to handle kernel paging request at virtual address"
#define HP_UEXEC_SIG	"Unable to handle kernel execution of user memory"
#define HP_UACCESS_SIG	"Unable to handle kernel access to user memory outside uaccess routines"
#define HP_NULL_SIG	"Unable to handle kernel NULL pointer dereference"
#define HP_ARCH_OK
#else
#define HP_NX_SIG	"-"
#define HP_GUARD_SIG	"-"
#define HP_VGUARD_SIG	"-"
#define HP_UEXEC_SIG	"-"
#define HP_UACCESS_SIG	"-"
#define HP_NULL_SIG	"-"
#endif

#endif /* _HP_LIB_OOPS_H */
