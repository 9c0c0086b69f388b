# SPDX-License-Identifier: GPL-2.0
"""Targets: scripts/targets, <arch>-clang-<N>, and kernels the bench did not configure.

scripts/targets has one line per target: name, arch, compiler, fragments. A name
<arch>-clang-<N> that is not a line of its own is the <arch>-clang line built with
clang-<N> (Debian packages clang-N lld-N llvm-N). A kernel the bench did not configure
(TARGET=debian, KDIR=/KIMAGE=) takes its arch and compiler from KDIR/.config.
"""
import dataclasses
import os
import re
import shutil

from . import TOP, Error
from . import kconfig, qemu_configs

CLANG_N = re.compile(r"^((x86_64|arm64)-clang)-([0-9]+)$")
# make matrix's columns when TARGETS is not given
MATRIX_DEFAULT = ["x86_64-gcc", "x86_64-clang", "arm64-gcc", "arm64-clang"]


@dataclasses.dataclass
class Target:
    name: str
    arch: str
    compiler: str
    frags: list

    def cross(self):
        """the arch's GNU cross prefix (hptool/qemu_configs/<arch>.py; "" for x86_64)."""
        try:
            return qemu_configs.get(self.arch).cross_compile
        except KeyError:
            raise Error(f"no record for arch '{self.arch}' (scripts/hptool/qemu_configs/)") from None

    def cc(self):
        """the compiler's command name (GCC: with the cross prefix)."""
        if self.compiler.startswith("gcc-"):
            return self.cross() + self.compiler
        return self.compiler

    def user_cc(self):
        """the compiler of the static selftest programs (the distribution's gcc)."""
        return self.cross() + "gcc"

    def make_args(self, ccache=None):
        """the kbuild variables that select arch and compiler."""
        if ccache is None:
            ccache = shutil.which("ccache") is not None
        pre = "ccache " if ccache else ""
        args = [f"ARCH={self.arch}"]
        if self.compiler.startswith("clang-"):
            args += [f"LLVM=-{self.compiler[len('clang-'):]}", f"CC={pre}{self.compiler}"]
        elif self.compiler.startswith("gcc-"):
            if self.cross():
                args.append(f"CROSS_COMPILE={self.cross()}")
            args.append(f"CC={pre}{self.cc()}")
        else:
            raise Error(f"unknown compiler '{self.compiler}'")
        return args


def table(top=TOP):
    """{name: (arch, compiler, [fragments])} of scripts/targets, in file order."""
    out = {}
    with open(os.path.join(top, "scripts", "targets")) as f:
        for line in f:
            p = line.split()
            if not p or p[0].startswith("#"):
                continue
            if len(p) < 3:
                raise Error(f"scripts/targets: short line: {line.strip()}")
            out[p[0]] = (p[1], p[2], p[3:])
    return out


def is_configured(name, top=TOP):
    """a target the bench configures itself (a line of scripts/targets or <arch>-clang-<N>)."""
    return name in table(top) or bool(CLANG_N.match(name))


def result_name(name, top=TOP, version=None):
    """the results directory's name of a target: the name, or <name>-<KVER> for a
    reference kernel of another version than the default (@version, else env KVER; not
    with KDIR, a kernel of the user's own)."""
    v = kconfig.kver(version)
    configured = is_configured(name, top) and not os.environ.get("KDIR")
    return name if v == kconfig.KVER_DEFAULT or not configured else f"{name}-{v}"


# a reference kernel of another version than the default (KVER=6.1): its results are
# <target>-6.1 (result_name)
KVER_SUFFIX = re.compile(r"^(.+)-(%s)$" % "|".join(
    re.escape(v) for v in kconfig.KVERS if v != kconfig.KVER_DEFAULT))


def base_name(name):
    """(target, kver or None) of a results name: x86_64-gcc-6.1 -> (x86_64-gcc, 6.1)."""
    m = KVER_SUFFIX.match(name)
    return (m.group(1), m.group(2)) if m else (name, None)


def arch_compiler(name, top=TOP):
    """(arch, compiler) of a target name (or results name, <target>-<kver>) without
    checking installed tools, or (None, None)."""
    name = base_name(name)[0]
    t = table(top)
    if name in t:
        return t[name][:2]
    m = CLANG_N.match(name)
    if m and m.group(1) in t:
        return t[m.group(1)][0], f"clang-{m.group(3)}"
    return None, None


def resolve(name, top=TOP, check_tools=True):
    """the Target of a name of scripts/targets or <arch>-clang-<N>."""
    t = table(top)
    if name in t:
        arch, comp, frags = t[name]
    else:
        m = CLANG_N.match(name)
        if not m or m.group(1) not in t:
            raise Error(f"unknown target '{name}' (known: {' '.join(t)} and <arch>-clang-<N>)")
        arch, _, frags = t[m.group(1)]
        comp = f"clang-{m.group(3)}"
    # every Clang target, a line of its own or derived, needs its clang-N lld-N llvm-N
    ver = comp[len("clang-"):] if comp.startswith("clang-") else None
    if ver and check_tools:
        for tool in (f"clang-{ver}", f"ld.lld-{ver}", f"llvm-ar-{ver}"):
            if shutil.which(tool) is None:
                raise Error(f"target '{name}' needs {tool}: install the Debian packages clang-{ver} "
                            f"lld-{ver} llvm-{ver} (apt-get install clang-{ver} lld-{ver} llvm-{ver})")
    return Target(name, arch, comp, list(frags))


def from_config(name, kdir, top=TOP, default_arch=None):
    """the Target of a kernel the bench did not configure: arch and compiler from KDIR/.config."""
    if is_configured(name, top):
        return resolve(name, top)
    cfg = os.path.join(kdir, ".config")
    if not os.path.isfile(cfg):
        raise Error(f"{kdir} is not a prepared kernel build directory (no .config)")
    text = open(cfg, errors="replace").read()

    def has(sym):
        return re.search(rf"^{sym}=y$", text, re.M) is not None

    arch = default_arch or os.environ.get("ARCH") or "x86_64"
    if has("CONFIG_ARM64"):
        arch = "arm64"
    if has("CONFIG_X86_64"):
        arch = "x86_64"
    if has("CONFIG_CC_IS_CLANG"):
        m = re.search(r"^CONFIG_CLANG_VERSION=(\d*)\d{4}$", text, re.M)
        comp = f"clang-{m.group(1) if m else ''}"
    else:
        m = re.search(r"^CONFIG_GCC_VERSION=(\d*)\d{4}$", text, re.M)
        comp = f"gcc-{m.group(1) if m else ''}"
    return Target(name, arch, comp, [])


def matrix_targets(names, compilers, top=TOP):
    """make matrix's targets: the names given (default MATRIX_DEFAULT), then for each
    clang-<N> of COMPILERS the <arch>-clang-<N> of every <arch>-clang line; repeats dropped."""
    out = list(names) or list(MATRIX_DEFAULT)
    for c in compilers.replace(",", " ").split():
        if not re.match(r"^clang-[0-9]+$", c):
            raise Error(f"COMPILERS={compilers}: '{c}' is not clang-<N> (e.g. COMPILERS=clang-22; "
                        "GCC targets are in scripts/targets)")
        out += [f"{base}-{c[len('clang-'):]}" for base in table(top) if CLANG_N.match(f"{base}-0")]
    return list(dict.fromkeys(out))
