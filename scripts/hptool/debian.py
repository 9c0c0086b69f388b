# SPDX-License-Identifier: GPL-2.0
"""Debian's own kernels, by target name: "debian" is Debian 12's default kernel (the 6.1
series of linux-image-amd64), "debian-6.12" the 6.12 series of bookworm, "debian-6.1" the
default again; "debian-arm64" and "debian-arm64-6.12" the same for arm64 (booted from the
package unpacked into the cache, not installed).

usage: hptool debian series NAME      the series of a Debian kernel target ("6.1", "6.12");
                                      exit 1 for another name
       hptool debian arch NAME        its Debian architecture (amd64, arm64)
       hptool debian kernel SERIES    the newest installed amd64 kernel of that series with
                                      its headers ("<version>", or nothing)
       hptool debian pkgs SERIES [ARCH]   the newest kernel of that series the archive
                                      offers both the unsigned image and the headers for:
                                      "linux-image-<v>-unsigned linux-headers-<v>" or nothing
"""
import argparse
import glob
import os
import re
import shutil
import subprocess

from . import CACHE, Error, kconfig, say

SERIES = {"debian": "6.1", "debian-6.1": "6.1", "debian-arm64": "6.1", "debian-arm64-6.1": "6.1",
          "debian-6.12": "6.12", "debian-arm64-6.12": "6.12"}


def series(name):
    """the kernel series of a Debian kernel target, or None for another name"""
    return SERIES.get(name)


def arch(name):
    """the Debian architecture of a Debian kernel target"""
    return "arm64" if name.startswith("debian-arm64") else "amd64"


def version_re(ser, a="amd64"):
    """the package version of that series' kernels ("6.1.0-57-amd64",
    "6.12.118+deb12-arm64"), as a regular expression"""
    if ser == "6.1":
        return rf"6\.1\.0-[0-9]+-{a}"
    if ser == "6.12":
        return rf"6\.12\.[0-9]+\+deb12-{a}"
    raise Error(f"no Debian {a} kernel series '{ser}' (known: 6.1, 6.12)")


def _version_key(v):
    """sort -V's order of two kernel versions, enough for these names"""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", v)]


def installed_kernel(ser):
    """the newest installed Debian amd64 kernel of that series whose headers are installed
    too, or None"""
    rx = re.compile(version_re(ser) + "$")
    vers = [p[len("/boot/vmlinuz-"):] for p in glob.glob("/boot/vmlinuz-*-amd64")]
    for v in sorted(vers, key=_version_key, reverse=True):
        if rx.match(v) and os.path.isfile(f"/usr/src/linux-headers-{v}/.config"):
            return v
    return None


def output(argv):
    """a command's output whatever its status (as $(cmd 2>/dev/null)), captured whole before
    anything matches it; "" when it cannot run"""
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout
    except OSError:
        return ""


def pkgs(ser, a="amd64"):
    """[image, headers] of the newest kernel of that series the archive offers both for,
    or []"""
    rx = version_re(ser, a)
    names = output(["apt-cache", "search", "--names-only", f"^linux-headers-{rx}$"])
    vers = [w[len("linux-headers-"):] for w in (ln.split()[0] for ln in names.splitlines() if ln.split())
            if w.startswith("linux-headers-") and re.fullmatch(rx, w[len("linux-headers-"):])]
    for v in sorted(set(vers), key=_version_key, reverse=True):
        policy = output(["apt-cache", "policy", f"linux-image-{v}-unsigned" + ("" if a == "amd64" else f":{a}")])
        if re.search(r"^ *Candidate: [0-9]", policy, re.M):
            return [f"linux-image-{v}-unsigned", f"linux-headers-{v}"]
    return []


def arm64(ser):
    """(kdir, image) of Debian's arm64 kernel of that series, unpacked into the cache
    (apt-get download, dpkg-deb -x: not installed), and the same version's source
    (linux-source-SERIES) configured with Debian's .config, prepared for modules with
    Debian's Module.symvers and kernel release. The arm64 headers package cannot serve:
    its scripts are arm64 programs."""
    p = pkgs(ser, "arm64")
    if not p:
        raise Error(f"no Debian {ser} arm64 kernel in the package lists (run hptool deps --arm64, "
                    "as root: it enables the arm64 architecture)")
    v = p[1][len("linux-headers-"):]
    d = os.path.join(CACHE, "debian", v)
    deb, root = os.path.join(d, "deb"), os.path.join(d, "root")
    if not os.path.isfile(os.path.join(d, ".unpacked")):
        say("fetch", "debian-arm64", f"linux-image-{v}-unsigned, linux-headers-{v} (arm64, unpacked into {d})")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(deb)
        if subprocess.run(["apt-get", "download", f"linux-image-{v}-unsigned:arm64", f"linux-headers-{v}:arm64"],
                          cwd=deb, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            raise Error(f"cannot download Debian's arm64 kernel {v} (apt-get download)")
        for f in sorted(glob.glob(os.path.join(deb, "*.deb"))):
            if subprocess.run(["dpkg-deb", "-x", f, root]).returncode:
                raise Error(f"cannot unpack {f}")
        open(os.path.join(d, ".unpacked"), "w").close()
    image = os.path.join(root, "boot", f"vmlinuz-{v}")
    b = os.path.join(d, "build")
    if not os.path.isfile(os.path.join(b, ".hardprobe-prepared")):
        src, srcid = kconfig.ksrc(say=say, version=ser)
        # the source must be the kernel's own version, or Module.symvers' CRCs will not match
        want = output(["dpkg-deb", "-f", glob.glob(os.path.join(deb, "linux-image-*.deb"))[0], "Version"]).strip()
        have = srcid.rsplit(":", 1)[-1]
        if want != have:
            raise Error(f"Debian's arm64 kernel {v} is {want}, linux-source-{ser} is {have}: install the "
                        f"matching linux-source-{ser}")
        say("prepare", "debian-arm64", f"linux-source-{ser} with Debian's config and Module.symvers in {b}")
        shutil.rmtree(b, ignore_errors=True)
        os.makedirs(b)
        shutil.copy(os.path.join(root, "boot", f"config-{v}"), os.path.join(b, ".config"))
        mk = ["make", "-C", src, f"O={b}", "ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-",
              "CC=aarch64-linux-gnu-gcc-12", f"KERNELRELEASE={v}"]
        log = os.path.join(b, "hardprobe-build.log")
        with open(log, "wb") as f:
            for argv in (mk + ["olddefconfig"], mk + [f"-j{len(os.sched_getaffinity(0))}", "modules_prepare"]):
                if subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode:
                    raise Error(f"preparing linux-source-{ser} for Debian's arm64 kernel failed; log: {log}")
        shutil.copy(os.path.join(root, "usr", "src", f"linux-headers-{v}", "Module.symvers"), b)
        open(os.path.join(b, ".hardprobe-prepared"), "w").close()
    return b, image


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool debian", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("what", choices=("series", "arch", "kernel", "pkgs"))
    ap.add_argument("name", help="a target name (series, arch) or a series (kernel, pkgs)")
    ap.add_argument("arch", nargs="?", default="amd64", help="pkgs: the Debian architecture")
    a = ap.parse_args(argv)
    if a.what == "series":
        s = series(a.name)
        if s:
            print(s)
        return 0 if s else 1
    if a.what == "arch":
        print(arch(a.name))
    elif a.what == "kernel":
        v = installed_kernel(a.name)
        if v:
            print(v)
    else:
        p = pkgs(a.name, a.arch)
        if p:
            print(" ".join(p))
    return 0
