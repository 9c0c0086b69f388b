# SPDX-License-Identifier: GPL-2.0
"""The QEMU command line of a guest, built from the per-arch records in qemu_configs/."""
import os
import platform
import subprocess

from . import CACHE, Error
from . import qemu_configs

# every guest: 512 MiB, the console on stdio, no devices but the serial port; two vCPUs
# (races, per-CPU state and IPIs are exercised; the stress run of make check-debug boots 4)
MEMORY = ["-m", "512"]
SMP_DEFAULT = 2
TAIL = ["-nographic", "-no-reboot", "-monitor", "none", "-serial", "stdio", "-nodefaults"]


def record(arch):
    try:
        return qemu_configs.get(arch)
    except KeyError:
        raise Error(f"no QEMU record for arch '{arch}' (scripts/hptool/qemu_configs/)") from None


def image(arch):
    """the boot image of a kernel build directory, relative to it."""
    return record(arch).image


def command(arch, kernel, initrd, cmdline, kvm=False, mte=False, smp=SMP_DEFAULT):
    """the QEMU argv; kvm only where the record allows it, mte only where it has MTE."""
    if not str(smp).isdigit() or not 1 <= int(smp) <= 8:
        raise Error(f"vCPUs: {smp}: a number between 1 and 8 (the kernels' CONFIG_NR_CPUS)")
    r = record(arch)
    argv = [r.binary]
    machine = list(r.machine)
    if mte and r.mte_machine:
        machine[-1] += "," + r.mte_machine
    argv += machine
    if kvm and r.kvm:
        argv += ["-accel", "kvm"]
    elif r.kvm or r.tcg:
        argv += ["-accel", "tcg" + r.tcg]
    argv += ["-cpu", r.cpu] + MEMORY + ["-smp", str(int(smp))] + r.extra
    argv += ["-kernel", kernel, "-initrd", initrd, "-append", f"console={r.console} {cmdline}"]
    return argv + TAIL


def kvm_usable(arch):
    """KVM can be tried: the record allows it, the host is that arch, /dev/kvm is writable."""
    return record(arch).kvm and platform.machine() == arch and os.access("/dev/kvm", os.W_OK)


def kvm_probe(arch, kernel, initrd, cache=CACHE):
    """"yes" or "no" once per machine (cached in $HARDPROBE_CACHE/kvm-probe), "n/a" where
    KVM cannot be tried: a quick noop boot under KVM must reach the guest's end marker."""
    if not kvm_usable(arch):
        return "n/a"
    path = os.path.join(cache, "kvm-probe")
    if not os.path.exists(path):
        argv = command(arch, kernel, initrd, "panic=-1 hardprobe.mode=noop", kvm=True)
        try:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=30)
            out = p.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace")
        except OSError:
            out = ""
        os.makedirs(cache, exist_ok=True)
        # whole or not at all: runs side by side may probe at once
        with open(f"{path}.{os.getpid()}", "w") as f:
            f.write("yes\n" if "hardprobe:end" in out else "no\n")
        os.replace(f"{path}.{os.getpid()}", path)
    return open(path).read().strip()


def boot(argv, log, timeout):
    """run a guest: QEMU's console (stdout and stderr) into @log, no stdin; killed after
    @timeout seconds, when "TIMEOUT after <s> s" ends the log and the answer is 124 (as
    timeout(1) answers). Otherwise QEMU's exit status; 127 with the reason in the log when
    QEMU cannot be started."""
    with open(log, "wb") as out:
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        except OSError as e:
            out.write(f"hardprobe: cannot start {argv[0]}: {e.strerror} (hptool deps installs "
                      "qemu-system-x86 and qemu-system-arm)\n".encode())
            return 127
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            out.write(f"TIMEOUT after {timeout} s\n".encode())
            return 124
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()


def cli_boot(args):
    """hptool boot: one guest, its console into a log file (exit status: QEMU's, 124 on a
    timeout)."""
    import argparse
    ap = argparse.ArgumentParser(prog="hptool boot", description=cli_boot.__doc__)
    ap.add_argument("arch")
    ap.add_argument("kernel")
    ap.add_argument("initrd")
    ap.add_argument("cmdline")
    ap.add_argument("--log", help="the console log (required unless --print)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds (default 600)")
    ap.add_argument("--kvm", choices=("yes", "no"), default="no", help="under KVM where the record allows")
    ap.add_argument("--mte", choices=("yes", "no", ""), default="", help="a guest CPU with MTE")
    ap.add_argument("--smp", default="", help=f"vCPUs, 1..8 (default {SMP_DEFAULT})")
    ap.add_argument("--print", action="store_true", help="print the QEMU argv, one word a line; no boot")
    a = ap.parse_args(args)
    argv = command(a.arch, a.kernel, a.initrd, a.cmdline, kvm=a.kvm == "yes", mte=a.mte == "yes",
                   smp=a.smp or SMP_DEFAULT)
    if a.print:
        print("\n".join(argv))
        return 0
    if not a.log:
        ap.error("--log is required")
    if a.timeout < 1:
        ap.error("--timeout: at least 1 second")
    return boot(argv, a.log, a.timeout)
