#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the install step (hptool deps, hptool/debian.py) with stand-in tools on PATH.

The package selection runs against a stand-in apt-cache that prints a long answer, the
way the real one does, so that a pipeline that fails on SIGPIPE under pipefail (grep -q
matching before the writer is done) rejects every candidate and the test sees it. The
audit then checks that no script running under pipefail matches or cuts a pipeline's
output early. Prints one "check host <name>: ok|FAIL" line per test; exit 1 on any FAIL.
"""
import os
import re
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"check host {name}: {'ok' if ok else 'FAIL'}{' ' + detail if detail else ''}")


# a stand-in apt-cache: "search" lists the header packages of two series that match the
# pattern (as the real one, an extended regular expression), "policy" answers with the
# Candidate line first and then thousands of lines (the version table of a busy archive)
APT_CACHE = r"""#!/bin/bash
case "$1" in
search)
	for v in 6.12.38+deb12 6.12.43+deb12 6.12.41+deb12 6.1.0-9 6.1.0-57 6.1.0-56 6.1.0-10; do
		echo "linux-headers-$v-amd64"
	done | grep -E "$3" | sed 's/$/ - Header files for Linux/' ;;
policy)
	echo "$2:"
	echo "  Installed: (none)"
	case "$2" in
	*6.12.43* | *6.1.0-57-*) echo "  Candidate: (none)" ;;
	*) echo "  Candidate: ${2#linux-image-}" ;;
	esac
	echo "  Version table:"
	for i in $(seq 1 20000); do echo "     6.12.$i 500 http://deb.debian.org/debian bookworm/main amd64 Packages"; done ;;
esac
"""


def stand_in(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR)


def hptool_call(d, call):
    """an hptool command with the stand-ins of @d first on PATH"""
    env = dict(os.environ, PATH=d + ":" + os.environ["PATH"], PYTHONPATH=SCRIPTS)
    return subprocess.run([sys.executable, "-m", "hptool", *call.split()], capture_output=True, text=True,
                          env=env, timeout=120)


def test_debian_pkgs():
    with tempfile.TemporaryDirectory(prefix="hp-deps-") as d:
        stand_in(d, "apt-cache", APT_CACHE)
        p = hptool_call(d, "debian pkgs 6.12")
        # 6.12.43 has headers but no image candidate: the newest with both is 6.12.41
        want = "linux-image-6.12.41+deb12-amd64-unsigned linux-headers-6.12.41+deb12-amd64"
        check("deps-debian-kernel-long-apt-answer", p.stdout.strip() == want and p.returncode == 0,
              f"(got {p.stdout.strip()!r}, exit {p.returncode})")
        # Debian 12's default series: 6.1.0-N, newest N by number (56 over 10 and 9; 57
        # has no image), never a 6.12
        p = hptool_call(d, "debian pkgs 6.1")
        want = "linux-image-6.1.0-56-amd64-unsigned linux-headers-6.1.0-56-amd64"
        check("deps-debian-kernel-6.1-series", p.stdout.strip() == want and p.returncode == 0,
              f"(got {p.stdout.strip()!r}, exit {p.returncode})")
        p = hptool_call(d, "debian pkgs 5.10")
        check("deps-debian-kernel-unknown-series", p.returncode != 0 and "known: 6.1, 6.12" in p.stderr,
              p.stderr.strip())
        # nothing on offer: an empty answer, not an error of the script
        stand_in(d, "apt-cache", "#!/bin/sh\nexit 0\n")
        p = hptool_call(d, "debian pkgs 6.1")
        check("deps-debian-kernel-none-offered", p.stdout.strip() == "" and p.returncode == 0,
              f"(got {p.stdout.strip()!r}, exit {p.returncode})")


def test_file_is_static():
    # a stand-in readelf whose long answer names an interpreter early: dynamic; one that
    # names none: static (hptool initramfs' busybox check)
    with tempfile.TemporaryDirectory(prefix="hp-deps-") as d:
        stand_in(d, "readelf", "#!/bin/bash\necho '      [Requesting program interpreter: /lib64/ld-linux-x86-64.so.2]'\n"
                 "for i in $(seq 1 20000); do echo '  LOAD 0x0 0x0 0x0 R E 0x1000'; done\n")
        code = "import sys; from hptool import initramfs; print('static' if initramfs.is_static('/bin/sh') else 'dynamic')"
        env = dict(os.environ, PATH=d + os.pathsep + os.environ["PATH"], PYTHONPATH=SCRIPTS)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
        stand_in(d, "readelf", "#!/bin/sh\necho '  LOAD 0x0 0x0 0x0 R E 0x1000'\n")
        q = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
        check("deps-dynamic-busybox-not-static", p.stdout.strip() == "dynamic" and q.stdout.strip() == "static",
              f"(got {p.stdout.strip()!r}, {q.stdout.strip()!r}{p.stderr.strip()[-200:]})")


def test_lava_install():
    """hptool deps --lava on a machine with everything but LAVA (stand-in dpkg-query, id,
    apt-get, dpkg-deb, dpkg): as a user, the exact command, LAVA's packages without their
    recommends; as root, that install, and lava-server's templates unpacked into the
    cache, not installed; a second run finds them and installs nothing."""
    with tempfile.TemporaryDirectory(prefix="hp-deps-") as d:
        log = os.path.join(d, "log")
        stand_in(d, "dpkg-query", "#!/bin/sh\ncase \"$4\" in lava*|python3-jinja2|python3-yaml) "
                 "[ -f %s/lava-installed ] || exit 1 ;; esac\necho 'install ok installed'\n" % d)
        stand_in(d, "dpkg", "#!/bin/sh\necho arm64\n")
        stand_in(d, "id", "#!/bin/sh\necho ${HP_UID:-1000}\n")
        stand_in(d, "apt-get", "#!/bin/sh\necho \"apt-get $*\" >>%s\n"
                 "case \"$*\" in *install*lava-dispatcher*) touch %s/lava-installed ;; "
                 "*download*lava-server*) touch lava-server_2023.01-2_all.deb ;; esac\n" % (log, d))
        stand_in(d, "dpkg-deb", "#!/bin/sh\necho \"dpkg-deb $*\" >>%s\n"
                 "mkdir -p \"$3/usr/share/lava-server/device-types\" && "
                 "touch \"$3/usr/share/lava-server/device-types/qemu.jinja2\"\n" % log)
        cache = os.path.join(d, "cache")
        env = dict(os.environ, PATH=d + ":" + os.environ["PATH"], HARDPROBE_CACHE=cache)
        deps = [sys.executable, "-m", "hptool", "deps"]
        env["PYTHONPATH"] = SCRIPTS
        p = subprocess.run([*deps, "--lava"], capture_output=True, text=True, env=env, timeout=120)
        user_ok = p.returncode != 0 and "--no-install-recommends lava-dispatcher" in p.stderr and \
            not os.path.exists(log)
        env["HP_UID"] = "0"
        p = subprocess.run([*deps, "--lava"], capture_output=True, text=True, env=env, timeout=120)
        calls = open(log).read() if os.path.exists(log) else ""
        tpl = os.path.join(cache, "lava/server/usr/share/lava-server/device-types/qemu.jinja2")
        root_ok = p.returncode == 0 and "install -y -qq --no-install-recommends lava-dispatcher" in calls \
            and "download -qq lava-server" in calls and os.path.isfile(tpl) and \
            not re.search(r"install\b.*\blava-server", calls)
        os.remove(log)
        p = subprocess.run([*deps, "--lava"], capture_output=True, text=True, env=env, timeout=120)
        again_ok = p.returncode == 0 and not os.path.exists(log)
        check("deps-lava-install", user_ok and root_ok and again_ok,
              f"(user {user_ok}, root {root_ok}, second run {again_ok}: {calls.strip()[:200]!r})")


def main():
    test_debian_pkgs()
    test_file_is_static()
    test_lava_install()
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
