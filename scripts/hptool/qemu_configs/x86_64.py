# SPDX-License-Identifier: GPL-2.0
from . import QemuArch

QEMU_ARCH = QemuArch(linux_arch="x86_64",
                     binary="qemu-system-x86_64",
                     machine=[],
                     cpu="max",
                     console="ttyS0",
                     image="arch/x86/boot/bzImage",
                     kvm=True)
