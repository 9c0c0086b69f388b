/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe registry: every feature, once, in report and matrix order, one
 * HP_REGISTRY() line each:
 *
 *	HP_REGISTRY(id, family, group, title, symbol)
 *
 * id:     the feature id (JSON, KTAP, the KUnit suite hardprobe_<id>)
 * family: the folder module/<family>/ that holds its probes and controls
 * group:  the protection class it belongs to (matrix sections)
 * title:  what it is called in reports and the matrix
 * symbol: the Kconfig option (or other switch) whose absence makes
 *         "vulnerable" expected
 *
 * The family file defines, for each of its features, the probe table
 * hp_probes_<id>[] (HP_PROBE() lines) and HP_FEATURE(<id>, ...). The core's
 * feature table, the KUnit suites and the JSON's titles and order are all
 * expanded from this list; nothing else lists the features.
 *
 * Like <linux/cgroup_subsys.h>, this file has no include guard: a user
 * defines HP_REGISTRY(), includes it, and undefines HP_REGISTRY() again.
 */
#ifndef HP_REGISTRY
#error "define HP_REGISTRY() before including registry.h"
#endif

/* symbols spelled per kernel version (renamed after 6.12): HP_SYM_CFI, ... */
#include "lib/compat.h"

/* symbols spelled per architecture */
#ifndef HP_SYM_USER_EXEC
#if defined(CONFIG_X86_64)
#define HP_SYM_USER_EXEC	"SMEP (a CPU feature, no Kconfig option)"
#define HP_SYM_USER_ACCESS	"SMAP (a CPU feature, no Kconfig option)"
#define HP_SYM_SPECTRE_V1	"CONFIG_MITIGATION_SPECTRE_V1"
#elif defined(CONFIG_ARM64)
#define HP_SYM_USER_EXEC	"PXN (set on every user mapping, no Kconfig option)"
#define HP_SYM_USER_ACCESS	HP_PAN_SYM
#define HP_SYM_SPECTRE_V1	"none (arm64 always builds array_index_nospec() with csdb)"
#else
#define HP_SYM_USER_EXEC	"none on this architecture"
#define HP_SYM_USER_ACCESS	"none on this architecture"
#define HP_SYM_SPECTRE_V1	"none on this architecture"
#endif
#endif

HP_REGISTRY(stack_init, stack_init, "memory initialisation",
	    "Stack auto-initialisation",
	    "CONFIG_INIT_STACK_ALL_ZERO")
HP_REGISTRY(heap_init_alloc, heap_init, "memory initialisation",
	    "Heap init on alloc",
	    "CONFIG_INIT_ON_ALLOC_DEFAULT_ON")
HP_REGISTRY(heap_init_free, heap_init, "memory initialisation",
	    "Heap init on free",
	    "CONFIG_INIT_ON_FREE_DEFAULT_ON")
HP_REGISTRY(zero_call_regs, zero_call_regs, "memory initialisation",
	    "Zero call-used registers",
	    "CONFIG_ZERO_CALL_USED_REGS")
HP_REGISTRY(stack_canary, stack_canary, "stack",
	    "Stack protector (canary)",
	    "CONFIG_STACKPROTECTOR_STRONG")
HP_REGISTRY(rodata, rodata, "memory permissions",
	    "Read-only kernel data",
	    "CONFIG_STRICT_KERNEL_RWX")
HP_REGISTRY(ro_after_init, rodata, "memory permissions",
	    "Read-only after init",
	    "CONFIG_STRICT_MODULE_RWX")
HP_REGISTRY(nx, memexec, "memory permissions",
	    "Non-executable data",
	    "CONFIG_STRICT_KERNEL_RWX")
HP_REGISTRY(stack_guard, memexec, "stack",
	    "Stack guard page",
	    "CONFIG_VMAP_STACK")
HP_REGISTRY(vmalloc_guard, memexec, "memory permissions",
	    "vmalloc guard page",
	    "none (vmalloc() always adds a guard page)")
HP_REGISTRY(user_exec, memexec, "memory permissions",
	    "No kernel exec of user memory (SMEP/PXN)",
	    HP_SYM_USER_EXEC)
HP_REGISTRY(user_access, memexec, "memory permissions",
	    "No kernel access to user memory (SMAP/PAN)",
	    HP_SYM_USER_ACCESS)
HP_REGISTRY(cr4_pinning, memexec, "memory permissions",
	    "Pinned CR4/CR0 bits",
	    "CR4 pinning (always built on x86_64)")
HP_REGISTRY(null_deref, memexec, "memory permissions",
	    "NULL dereference on the unmapped page 0",
	    "CONFIG_DEFAULT_MMAP_MIN_ADDR")
HP_REGISTRY(debug_notifiers, debug_checks, "kernel self-checks",
	    "Notifier callback check",
	    "CONFIG_DEBUG_NOTIFIERS")
HP_REGISTRY(debug_sg, debug_checks, "kernel self-checks",
	    "Scatterlist address check",
	    "CONFIG_DEBUG_SG")
HP_REGISTRY(debug_virtual, debug_checks, "kernel self-checks",
	    "Virtual-to-physical address check",
	    "CONFIG_DEBUG_VIRTUAL")
HP_REGISTRY(debug_wx, debug_checks, "kernel self-checks",
	    "Boot check for W+X mappings",
	    "CONFIG_DEBUG_WX")
HP_REGISTRY(kcfi, cfi, "forward-edge CFI",
	    "kCFI (indirect-call type check)",
	    HP_SYM_CFI)
HP_REGISTRY(ibt, cfi, "forward-edge CFI",
	    "Indirect branch tracking (IBT)",
	    "CONFIG_X86_KERNEL_IBT")
HP_REGISTRY(fortify, fortify, "bounds",
	    "FORTIFY_SOURCE",
	    "CONFIG_FORTIFY_SOURCE")
HP_REGISTRY(array_bounds, array_bounds, "bounds",
	    "Array bounds (UBSAN)",
	    "CONFIG_UBSAN_BOUNDS")
HP_REGISTRY(usercopy, usercopy, "bounds",
	    "Hardened usercopy",
	    "CONFIG_HARDENED_USERCOPY")
HP_REGISTRY(refcount, refcount, "heap and object integrity",
	    "Refcount saturation",
	    "refcount_t saturation (always built in)")
HP_REGISTRY(list_hardening, list_hardening, "heap and object integrity",
	    "List hardening",
	    "CONFIG_LIST_HARDENED")
HP_REGISTRY(slab_free, slab_free, "heap and object integrity",
	    "Slab free checks",
	    "CONFIG_SLAB_FREELIST_HARDENED")
HP_REGISTRY(kmalloc_random, heap_layout, "heap and object integrity",
	    "Randomized kmalloc caches",
	    "CONFIG_RANDOM_KMALLOC_CACHES")
HP_REGISTRY(slab_buckets, heap_layout, "heap and object integrity",
	    "Separate caches for user-sized allocations",
	    "CONFIG_SLAB_BUCKETS")
HP_REGISTRY(slab_nomerge, heap_layout, "heap and object integrity",
	    "Slab caches not merged",
	    "slab_nomerge (or CONFIG_SLAB_MERGE_DEFAULT=n)")
HP_REGISTRY(freelist_random, heap_layout, "heap and object integrity",
	    "Slab freelist randomization",
	    "CONFIG_SLAB_FREELIST_RANDOM")
HP_REGISTRY(freelist_hardened, heap_layout, "heap and object integrity",
	    "Slab freelist pointer hardening",
	    "CONFIG_SLAB_FREELIST_HARDENED")
HP_REGISTRY(kfence, kfence, "heap and object integrity",
	    "KFENCE (sampled heap error detection)",
	    "CONFIG_KFENCE")
HP_REGISTRY(slab_debug, slab_debug, "heap and object integrity",
	    "SLUB red zones and poisoning",
	    "slub_debug (CONFIG_SLUB_DEBUG=y, slub_debug= or CONFIG_SLUB_DEBUG_ON)")
HP_REGISTRY(spectre_v1, speculation, "speculation",
	    "Spectre v1 (bounds-check bypass)",
	    HP_SYM_SPECTRE_V1)
HP_REGISTRY(slh, speculation, "speculation",
	    "Speculative load hardening",
	    "none (no Kconfig option builds with -mspeculative-load-hardening)")
HP_REGISTRY(sls, speculation, "speculation",
	    "Straight-line speculation",
	    HP_SYM_SLS)
HP_REGISTRY(retpoline, speculation, "speculation",
	    "Retpolines",
	    HP_SYM_RETPOLINE)
HP_REGISTRY(pti, speculation, "speculation",
	    "Kernel page-table isolation (Meltdown)",
	    HP_SYM_PTI)
HP_REGISTRY(retbleed, speculation, "speculation",
	    "Retbleed return thunk (untrained or depth-stuffing)",
	    HP_SYM_RETBLEED)
HP_REGISTRY(srso, speculation, "speculation",
	    "SRSO safe return thunk (spec_rstack_overflow)",
	    HP_SYM_SRSO_ARCH)
HP_REGISTRY(its, speculation, "speculation",
	    "ITS aligned return thunks (indirect_target_selection)",
	    HP_SYM_ITS)
HP_REGISTRY(mds, speculation, "speculation",
	    "MDS buffer clearing on return to user (verw)",
	    HP_SYM_MDS)
HP_REGISTRY(taa, speculation, "speculation",
	    "TAA buffer clearing on return to user (tsx_async_abort)",
	    HP_SYM_TAA)
HP_REGISTRY(mmio_stale_data, speculation, "speculation",
	    "MMIO stale data buffer clearing on return to user",
	    HP_SYM_MMIO)
HP_REGISTRY(rfds, speculation, "speculation",
	    "Register file clearing on return to user (reg_file_data_sampling)",
	    HP_SYM_RFDS)
HP_REGISTRY(tsa, speculation, "speculation",
	    "TSA buffer clearing on return to user (transient scheduler attacks)",
	    HP_SYM_TSA)
HP_REGISTRY(bhi, speculation, "speculation",
	    "Branch history clearing on syscall entry (Spectre-BHI)",
	    HP_SYM_BHI)
HP_REGISTRY(kstack_offset, kstack, "stack",
	    "Kernel stack offset randomisation",
	    "CONFIG_RANDOMIZE_KSTACK_OFFSET")
HP_REGISTRY(stack_erase, kstack, "stack",
	    "Stack erase on return to user",
	    HP_SYM_KSTACK_ERASE)
HP_REGISTRY(stack_end_check, stack_end, "stack",
	    "Stack end check in the scheduler",
	    "CONFIG_SCHED_STACK_END_CHECK")
HP_REGISTRY(signed_overflow, overflow, "integer overflow",
	    "Signed overflow detection",
	    HP_SYM_INTEGER_WRAP)
HP_REGISTRY(unsigned_overflow, overflow, "integer overflow",
	    "Unsigned overflow detection",
	    HP_SYM_UNSIGNED_WRAP)
HP_REGISTRY(truncation, overflow, "integer overflow",
	    "Truncation detection",
	    HP_SYM_TRUNCATION)
HP_REGISTRY(overflow_helpers, overflow, "integer overflow",
	    "Overflow helpers",
	    "overflow.h helpers (always built in)")
HP_REGISTRY(shadow_call_stack, backward, "backward-edge CFI",
	    "Shadow call stack",
	    "CONFIG_SHADOW_CALL_STACK")
HP_REGISTRY(pac_ret, backward, "backward-edge CFI",
	    "Return-address signing (PAC)",
	    "CONFIG_ARM64_PTR_AUTH_KERNEL")
HP_REGISTRY(bti, cfi, "forward-edge CFI",
	    "Branch target identification (BTI)",
	    "CONFIG_ARM64_BTI_KERNEL")
HP_REGISTRY(ret_overwrite, backward, "backward-edge CFI",
	    "Return-address overwrite",
	    "none (no kernel-mode shadow stack: KSPP #142, #178)")
HP_REGISTRY(mte, mte, "heap and object integrity",
	    "Memory tagging (MTE)",
	    "CONFIG_KASAN_HW_TAGS")
HP_REGISTRY(pointer_hashing, infoleak, "information exposure",
	    "Hashed pointers in printk",
	    "no_hash_pointers absent (always built)")
HP_REGISTRY(kaslr, infoleak, "information exposure",
	    "Kernel address space layout randomization",
	    "CONFIG_RANDOMIZE_BASE")
HP_REGISTRY(randstruct, layout, "build and layout",
	    "Struct layout randomisation",
	    "CONFIG_RANDSTRUCT_FULL")
HP_REGISTRY(function_sections, layout, "build and layout",
	    "Function sections",
	    "FG-KASLR (not upstream)")
HP_REGISTRY(lto, layout, "build and layout",
	    "Link-time optimisation (LTO)",
	    "CONFIG_LTO_CLANG")
HP_REGISTRY(fallthrough, layout, "build and layout",
	    "Implicit fall-through warning",
	    "CONFIG_CC_IMPLICIT_FALLTHROUGH")
HP_REGISTRY(stack_clash, layout, "stack",
	    "Stack clash protection",
	    "-fstack-clash-protection")
HP_REGISTRY(static_usermodehelper, umh, "attack surface",
	    "Static usermode helper",
	    "CONFIG_STATIC_USERMODEHELPER")
