# SPDX-License-Identifier: GPL-2.0
"""Per-arch records, one small file per architecture (as kunit.py's qemu_configs/): how
QEMU boots a guest of that arch, and the GNU cross prefix its user programs and GCC
kernels are built with on an x86_64 host."""
import dataclasses
import importlib


@dataclasses.dataclass(frozen=True)
class QemuArch:
    linux_arch: str         # the kernel's ARCH=
    binary: str             # qemu-system-*
    machine: list           # the -M/-accel part, before -cpu
    cpu: str                # -cpu
    console: str            # the kernel's console= device
    image: str              # the boot image, relative to the build directory
    kvm: bool = False       # the guest may run under KVM on a host of the same arch
    mte_machine: str = ""   # machine option for a guest CPU with MTE (KASAN_HW_TAGS)
    cross_compile: str = "" # GNU toolchain prefix (CROSS_COMPILE=, <prefix>gcc for the selftests)
    extra: list = dataclasses.field(default_factory=list)
    tcg: str = ""           # options of -accel tcg (",thread=single"), where QEMU's defaults fail


def get(arch):
    """the QemuArch record of an architecture (x86_64, arm64)."""
    if not arch.replace("_", "").isalnum():
        raise KeyError(arch)
    try:
        return importlib.import_module(f"{__name__}.{arch}").QEMU_ARCH
    except ModuleNotFoundError:
        raise KeyError(arch) from None
