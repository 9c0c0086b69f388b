# SPDX-License-Identifier: GPL-2.0
"""hptool deps (make deps; every make target that needs them): install the Debian packages
the bench needs (Debian 12). As root it runs apt-get; otherwise it prints the exact command
and fails. No other downloads. (chromium: make check looks at the matrix HTML in headless
Chromium.)

usage: hptool deps [--arm64] [--debian[=TARGET]]... [--kver=V] [--lava] [--lava-server]
  --arm64   also enables the arm64 package architecture, for the guest's busybox-static:arm64,
            fetched later into the cache
  --debian=TARGET  also the stock Debian amd64 kernel of that target with its headers
            (debian: Debian 12's default 6.1; debian-6.12: the 6.12 series), unless one of
            that series is installed already; --debian alone means --debian=debian
  --kver=V  also linux-source-V, the reference kernels' source of that version (KVER=6.1)
  --lava    also LAVA's dispatcher (lava-run, lava-schema.py) and lavacli, without their
            recommends, and lava-server's device-type templates alone: Debian's package
            unpacked into the cache (installing it would pull Django and PostgreSQL)
  --lava-server  also lava-server itself and PostgreSQL, without recommends (make
            lava-lab); its postinst creates no database while no PostgreSQL answers on the
            default port, and starts nothing without systemd
  env EXTRA_PKGS: more Debian packages (make matrix COMPILERS=clang-22: clang-22 lld-22 llvm-22)
The user is root as `id -u` answers, and what is installed is what dpkg-query says (the
tests put stand-ins for both, apt-get and dpkg on PATH).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from . import CACHE, debian

PKGS = ("make gcc-12 libc6-dev perl python3 rsync bc flex bison cpio gzip xz-utils kmod libelf-dev libssl-dev "
        "ccache linux-source-6.12 busybox-static qemu-system-x86 qemu-system-arm gcc-12-aarch64-linux-gnu "
        "gcc-aarch64-linux-gnu libc6-dev-arm64-cross clang-19 lld-19 llvm-19 chromium openssl "
        "python3-jsonschema").split()
LAVA = ("lava-dispatcher", "lava-common", "lavacli", "python3-jinja2", "python3-yaml")
LAVA_SERVER = ("lava-server", "postgresql")
USAGE = "usage: hptool deps [--arm64] [--debian[=TARGET]]... [--kver=V] [--lava] [--lava-server]"


def err(msg):
    print(f"hardprobe: {msg}", file=sys.stderr)


def installed(pkg):
    return "install ok installed" in debian.output(["dpkg-query", "-W", "-f", "${Status}\n", pkg])


def is_root():
    return debian.output(["id", "-u"]).strip() == "0"


def lava_templates(cache=CACHE):
    """lava-server's device-type templates (qemu.jinja2), for make lava's device dictionary,
    unpacked into the cache once"""
    lt = os.path.join(cache, "lava", "server")
    if os.path.isfile(os.path.join(lt, "usr", "share", "lava-server", "device-types", "qemu.jinja2")):
        return True
    if not is_root():
        err("lava-server's device-type templates are missing; run as root: make deps (or hptool deps --lava)")
        return False
    err(f"unpacking lava-server's device-type templates into {lt}")
    os.makedirs(os.path.dirname(lt), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(lt)) as tmp:
        ok = subprocess.run(["apt-get", "download", "-qq", "lava-server"], cwd=tmp,
                            stderr=subprocess.DEVNULL).returncode == 0
        debs = glob.glob(os.path.join(tmp, "lava-server_*.deb"))
        ok = ok and debs and subprocess.run(["dpkg-deb", "-x", debs[0], os.path.join(tmp, "x")]).returncode == 0
        if not ok:
            err("could not fetch lava-server (apt-get download lava-server; apt-get update?)")
            return False
        shutil.rmtree(lt, ignore_errors=True)
        os.rename(os.path.join(tmp, "x"), lt)
    return True


def main(argv, env=os.environ):
    pkgs = list(PKGS) + env.get("EXTRA_PKGS", "").split()
    arm64, series, lava, server = False, [], [], []
    for a in argv:
        if a == "--arm64":
            arm64 = True
        elif a == "--lava":
            lava = list(LAVA)
        elif a == "--lava-server":
            server = list(LAVA_SERVER)
        elif a == "--debian":
            series.append("6.1")
        elif a.startswith("--kver="):
            v = a[len("--kver="):]
            if v in ("6.1", "6.12"):
                pkgs.append(f"linux-source-{v}")
            elif v != "7.1":        # Debian 12 packages no 7.1: its tree comes from KSRC=
                err(f"KVER={v}: no such reference kernel version (known: 6.12, 6.1, 7.1)")
                return 2
        elif a.startswith("--debian="):
            t = a[len("--debian="):]
            s = debian.series(t)
            if not s:
                err(f"no Debian kernel target '{t}' (known: {', '.join(debian.SERIES)})")
                return 2
            series.append(s if debian.arch(t) == "amd64" else f"arm64:{s}")
        else:
            print(USAGE, file=sys.stderr)
            return 2
    for s in series:
        # Debian's arm64 kernels are unpacked into the cache at run time (hptool/debian.py),
        # from the arm64 architecture and linux-source-<series>
        if s.startswith("arm64:"):
            arm64 = True
            pkgs.append(f"linux-source-{s[len('arm64:'):]}")
            continue
        if debian.installed_kernel(s):
            continue
        dp = debian.pkgs(s)
        if not dp:
            err(f"no Debian {s} amd64 kernel (linux-image-<version>-amd64-unsigned with matching linux-headers) "
                "in the package lists (apt-get update?)")
            return 1
        pkgs += dp
    pkgs = list(dict.fromkeys(pkgs))
    missing = [p for p in pkgs if not installed(p)]
    lmissing = [p for p in lava + server if not installed(p)]
    need_arm64 = arm64 and "arm64" not in debian.output(["dpkg", "--print-foreign-architectures"]).split()
    if not missing and not lmissing and not need_arm64:
        return 0 if not lava or lava_templates() else 1

    cmd = f"apt-get update && apt-get install -y {' '.join(missing)}"
    if lmissing:
        cmd += f" && apt-get install -y --no-install-recommends {' '.join(lmissing)}"
    if need_arm64:
        cmd = f"dpkg --add-architecture arm64 && {cmd}"
    if not is_root():
        err(f"missing Debian packages: {' '.join(missing + lmissing)}"
            + (" (and the arm64 package architecture)" if need_arm64 else ""))
        err(f"run as root:  {cmd}")
        return 1
    err(f"installing: {' '.join(missing + lmissing)}" + (" (and the arm64 package architecture)" if need_arm64 else ""))
    if need_arm64:
        subprocess.run(["dpkg", "--add-architecture", "arm64"])
    apt_env = dict(env, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL, env=apt_env).returncode:
        err("apt-get update failed; trying the install anyway")
    for extra, group in (([], missing), (["--no-install-recommends"], lmissing)):
        if group and subprocess.run(["apt-get", "install", "-y", "-qq", *extra, *group], stdout=subprocess.DEVNULL,
                                    env=apt_env).returncode:
            err(f"apt-get install failed; the command was: {cmd}")
            return 1
    return 0 if not lava or lava_templates() else 1


def cli(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__, file=sys.stderr)
        return 0
    return main(argv)
