# SPDX-License-Identifier: GPL-2.0
"""hptool lint (make lint): checkpatch --strict on every C file and the selftests' X-macro
table (hp_checks.def). Plumbing must be clean; the deliberately buggy trigger code gets a
short, reviewed ignore list (IGNORES below, each with its reason).

usage: hptool lint
Prints one "lint <file>: ok|FAIL" line per file (a FAIL with checkpatch's lines); exit 1
if any failed.
"""
import argparse
import glob
import os
import subprocess
import sys

from . import TOP, Error, kconfig, say

# (checkpatch types ignored, the files they are ignored in)
IGNORES = (
    # Trigger code: leaves and register samplers are macros that expand to whole functions
    # and reuse their arguments (MACRO_ARG_REUSE, COMPLEX_MACRO); the register sampler's
    # asm operand lists confuse the cast-spacing check (SPACING); the stack_init leaves
    # need an array typedef to declare "type var;" generically (NEW_TYPEDEFS); the
    # stack_init matrix is one X-macro list whose expansions each use only some columns
    # (MACRO_ARG_UNUSED) and one of which declares prototypes (TRAILING_SEMICOLON). The
    # fortify probes call strcpy() on purpose (STRCPY), and fortify_counting_hook.c
    # redefines the fortify failure hook as lib/fortify_kunit.c does: a macro that returns
    # from the fortified function (MACRO_WITH_FLOW_CONTROL) and calls a counter declared
    # before any header (AVOID_EXTERNS). The build-time probe of the unannotated switch
    # case warning talks about the very thing checkpatch looks for in comments
    # (PREFER_FALLTHROUGH). The test hook that makes a safe probe oops for hardprobe_trust
    # (AVOID_BUG).
    ("MACRO_ARG_REUSE,COMPLEX_MACRO,SPACING,NEW_TYPEDEFS,MACRO_ARG_UNUSED,TRAILING_SEMICOLON,STRCPY,"
     "MACRO_WITH_FLOW_CONTROL,AVOID_EXTERNS,PREFER_FALLTHROUGH,AVOID_BUG",
     ("module/stack_init/stack_init_leaves.h", "module/stack_init/stack_init.c",
      "module/stack_init/stack_init_uninitialized.c", "module/zero_call_regs/zero_call_regs.c",
      "module/cfi/cfi.c", "module/cfi/kcfi_unchecked_call.c", "module/fortify/fortify.h",
      "module/fortify/fortify_counting_hook.c", "module/layout/buildprobe/fallthrough.c",
      "module/core/inject.c")),
    # the header that defines the kernel's attribute macros for user space can only spell
    # them with __attribute__
    ("PREFER_DEFINED_ATTRIBUTE_MACRO,COMPLEX_MACRO", ("selftests/hardprobe/hp_compiler.h",)),
    # the compat header (and renames.h, which it includes) is the one place that compares
    # kernel versions (LINUX_VERSION_CODE, CONSTANT_COMPARISON in "LINUX_VERSION_CODE >=
    # KERNEL_VERSION()"), names headers in __has_include(<...>) (SPACING), and spells one
    # report per version, the older of which names fewer sizes (MACRO_ARG_UNUSED)
    ("LINUX_VERSION_CODE,CONSTANT_COMPARISON,SPACING,MACRO_ARG_UNUSED",
     ("module/lib/compat.h", "module/lib/renames.h")),
    # pointer_hashing's positive control formats addresses with %px into a local buffer,
    # never into the log, to compare them with what %p prints
    ("VSPRINTF_SPECIFIER_PX", ("module/infoleak/pointer_hashing.c",)),
    # the user-space checks read ENOSYS as the kernel's answer for a system call it was
    # built without (their "unsupported")
    ("ENOSYS", ("selftests/hardprobe/hp_user.c",)),
)
PATTERNS = ("module/*.[ch]", "module/*/*.[ch]", "module/*/*/*.[ch]", "kunit/*.c", "selftests/hardprobe/*.[ch]",
            "selftests/hardprobe/*.def")


def files(top=TOP):
    """the files checked, in the shell's glob order (each pattern sorted on its own)"""
    out = []
    for pat in PATTERNS:
        out += sorted(os.path.relpath(p, top) for p in glob.glob(os.path.join(top, pat)))
    return out


def args_for(path):
    args = ["--strict", "--no-tree", "--terse", "--show-types", "--quiet", "-f"]
    for types, where in IGNORES:
        if path in where:
            args = ["--ignore", types] + args
    return args


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool lint", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.parse_args(argv)
    ksrc = kconfig.ksrc(say=say)[0]
    cp = os.path.join(ksrc, "scripts", "checkpatch.pl")
    if not os.access(cp, os.X_OK):
        raise Error(f"no checkpatch.pl in {ksrc}")
    fail = 0
    for f in files():
        p = subprocess.run([cp, *args_for(f), f], cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        if p.returncode:
            print(f"lint {f}: FAIL")
            print("\n".join("    " + ln for ln in p.stdout.rstrip("\n").split("\n")))
            fail = 1
        else:
            print(f"lint {f}: ok")
        sys.stdout.flush()
    return fail
