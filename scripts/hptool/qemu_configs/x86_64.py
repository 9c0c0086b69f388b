# SPDX-License-Identifier: GPL-2.0
from . import QemuArch

QEMU_ARCH = QemuArch(linux_arch="x86_64",
                     binary="qemu-system-x86_64",
                     machine=[],
                     cpu="max",
                     console="ttyS0",
                     image="arch/x86/boot/bzImage",
                     kvm=True,
                     # One TCG thread for all vCPUs: under QEMU 7.2's multi-threaded TCG a
                     # vCPU can still run the int3 that text_poke_bp() put on a kernel site
                     # after the patch is done, and an int3 no handler claims panics the
                     # kernel ("Oops: int3", "Fatal exception in interrupt", __schedule+0x407).
                     # Debian's 6.12.118 with no module loaded, perf_event_open() toggling the
                     # perf_sched_events jump label every 1.1 s on 2 vCPUs: 3 boots of 3
                     # panicked within 70 s; with thread=single, 300 toggles and no panic.
                     tcg=",thread=single")
