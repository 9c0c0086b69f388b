# SPDX-License-Identifier: GPL-2.0
from . import QemuArch

# pauth-impdef=on: QEMU's own PAuth algorithm, much faster under TCG than QARMA;
# HP_MTE=yes (a KASAN_HW_TAGS kernel) adds ,mte=on to the machine
QEMU_ARCH = QemuArch(linux_arch="arm64",
                     binary="qemu-system-aarch64",
                     machine=["-M", "virt"],
                     cpu="max,pauth-impdef=on",
                     console="ttyAMA0",
                     image="arch/arm64/boot/Image",
                     mte_machine="mte=on",
                     cross_compile="aarch64-linux-gnu-")
