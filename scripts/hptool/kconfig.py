# SPDX-License-Identifier: GPL-2.0
"""Config fragments, the kernel source, and the kernel cache key.

The cache key of a reference kernel is sha256 over these bytes, cut to 16 hex digits:
the source id, the arch, the compiler's first --version line (each with a newline),
then the raw text of the merged fragments (comments included). Any change to those
bytes rebuilds every cached kernel: keep them exactly.
"""
import hashlib
import os
import re
import shutil
import subprocess
from . import CACHE, TOP, Error, renames

# the kernel version of the reference kernels (KVER=): 6.12 and 6.1 are the Debian
# packages linux-source-<KVER>; 7.1 is a tree or tarball the user names (KSRC=), which
# Debian 12 does not package, kept in the cache (src/linux-<version>) once given
KVERS = ("6.12", "6.1", "7.1")
KVER_DEFAULT = "6.12"
DEBIAN_KVERS = ("6.12", "6.1")


def kver(v=None):
    """the reference kernels' version: @v, else KVER from the environment; default 6.12."""
    v = (os.environ.get("KVER") if v is None else v) or KVER_DEFAULT
    if v not in KVERS:
        raise Error(f"KVER={v}: no such reference kernel version (known: {', '.join(KVERS)}; "
                    "6.12 and 6.1 are Debian's linux-source-<KVER>, 7.1 a tree given as KSRC=)")
    return v


def tree_version(path):
    """"<VERSION>.<PATCHLEVEL>.<SUBLEVEL>" of a kernel tree's Makefile, or None."""
    try:
        head = open(os.path.join(path, "Makefile"), errors="replace").read(4096)
    except OSError:
        return None
    v = {k: re.search(rf"^{k} = (\d+)", head, re.M) for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL")}
    if not v["VERSION"] or not v["PATCHLEVEL"]:
        return None
    return ".".join(m.group(1) for m in v.values() if m)


def cached_trees(version, cache=CACHE):
    """the trees of kernel @version ("7.1") in the cache, newest sublevel first."""
    d = os.path.join(cache, "src")
    out = []
    for name in os.listdir(d) if os.path.isdir(d) else ():
        path = os.path.join(d, name)
        v = tree_version(path)
        if (name.startswith("linux-") and not name.startswith("linux-source-") and v and
                (v + ".").startswith(version + ".") and
                os.path.isfile(os.path.join(path, ".hardprobe-extracted"))):
            out.append((tuple(int(x) for x in v.split(".")), path))
    return [p for _, p in sorted(out, reverse=True)]


def _into_cache(path, what, fill, say=None, verb="extract"):
    """@path in the cache, filled once: unless a finished one is there, @fill(tmp) fills a
    .tmp directory beside it (raising Error when it cannot), which is then renamed and
    marked finished. "@verb @what into @path" is said first."""
    if os.path.isfile(os.path.join(path, ".hardprobe-extracted")):
        return path
    if say:
        say(verb, "-", f"{what} into {path}")
    tmp = path + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        fill(tmp)
    except Error:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(path, ignore_errors=True)
    os.rename(tmp, path)
    open(os.path.join(path, ".hardprobe-extracted"), "w").close()
    return path


def _untar(tarball, check=None):
    """a @fill for _into_cache(): @tarball extracted one level stripped, then @check(tmp)."""
    def fill(tmp):
        os.makedirs(tmp)
        if subprocess.run(["tar", "-xf", tarball, "-C", tmp, "--strip-components=1"]).returncode:
            raise Error(f"cannot extract {tarball}")
        if check and not check(tmp):
            raise Error(f"{tarball} holds no kernel tree (no Makefile with VERSION)")
    return fill


def extract_tarball(tarball, say=None, cache=CACHE):
    """a kernel.org tarball (linux-X.Y.Z.tar.xz) extracted once into the cache: its path."""
    base = os.path.basename(tarball)
    m = re.match(r"^(linux-[0-9][0-9.]*[0-9])\.tar(\.(xz|gz|bz2))?$", base)
    if not m:
        raise Error(f"KSRC={tarball}: not a kernel tarball (linux-<version>.tar.xz)")
    return _into_cache(os.path.join(cache, "src", m.group(1)), base,
                       _untar(tarball, check=tree_version), say)


def adopt_tree(tree, say=None, cache=CACHE):
    """a kernel tree the user names, copied once into the cache (src/linux-<version>), so
    that later runs (make check) find it without KSRC=: its cached path."""
    v = tree_version(tree)
    path = os.path.join(cache, "src", f"linux-{v}")
    if os.path.realpath(tree) == os.path.realpath(path):
        open(os.path.join(path, ".hardprobe-extracted"), "a").close()
        return path

    def fill(tmp):
        if subprocess.run(["cp", "-a", tree, tmp]).returncode:
            raise Error(f"cannot copy {tree} into {path}")
    return _into_cache(path, f"{tree} ({v})", fill, say, verb="copy")


def merged_fragment(frags, top=TOP, extra=None, version=None):
    """the target's fragments plus EXTRA_CONFIG, concatenated (the raw bytes), with the
    renamed Kconfig symbols spelled as kernel @version (default: KVER) names them
    (scripts/kconfig-renames; the fragments use 6.12's names)."""
    out = b""
    for f in frags:
        path = os.path.join(top, "configs", f + ".config")
        if not os.path.isfile(path):
            raise Error(f"missing fragment configs/{f}.config")
        out += open(path, "rb").read()
    extra = os.environ.get("EXTRA_CONFIG", "") if extra is None else extra
    if extra:
        if not os.path.isfile(extra):
            raise Error(f"EXTRA_CONFIG={extra}: no such file")
        out += open(extra, "rb").read()
    # what a reference kernel of another version needs beyond (configs/kver-<V>.config)
    version = version or kver()
    per = os.path.join(top, "configs", f"kver-{version}.config")
    if os.path.isfile(per):
        out += open(per, "rb").read()
    return renames.spell(out.decode(errors="surrogateescape"), version).encode(
        errors="surrogateescape")


def stripped(text):
    """the fragment without comments and blank lines: what merge_config.sh merges."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"\s*#.*$", "", line)
        if line.strip():
            out.append(line)
    return "\n".join(out) + "\n" if out else ""


def wanted(text):
    """[(symbol, value, required)] of a fragment's CONFIG_ lines; for a symbol set twice
    (as a variant does) the last line counts, in the order of those last lines."""
    last = {}
    for line in text.splitlines():
        if not line.startswith("CONFIG_") or "=" not in line:
            continue
        want = re.sub(r"\s", "", line.split("#", 1)[0])
        sym, val = want.split("=", 1)
        last.pop(sym, None)
        last[sym] = (val, "# required" in line)
    return [(s, v, r) for s, (v, r) in last.items()]


def check_config(text, dotconfig, target):
    """(messages, lost, fatal): the fragment lines that did not stick after olddefconfig."""
    lines = open(dotconfig, errors="replace").read().splitlines()
    msgs, lost, fatal = [], 0, 0
    for sym, val, required in wanted(text):
        got = ""
        for line in lines:
            if line.startswith(sym + "=") or line == f"# {sym} is not set":
                got = line
        if val == "n":
            if got in ("", f"# {sym} is not set"):
                continue
        elif got == f"{sym}={val}":
            continue
        lost += 1
        fatal += required
        msgs.append(f"hardprobe: {target}: {'required ' if required else ''}option {sym}={val} "
                    f"did not stick (got: {got or 'unset'})")
    return msgs, lost, fatal


def ksrc(say=None, version=None):
    """(path, srcid) of the kernel source: KSRC, or the Debian package
    linux-source-<version> (default 6.12) extracted once into the cache (extracted here
    when it is not)."""
    env = os.environ.get("KSRC")
    kv = version or KVER_DEFAULT
    if kv not in DEBIAN_KVERS:
        # no Debian package: the tree the user named (KSRC=, kept in the cache), or the
        # cache's own copy from an earlier run
        if env and os.path.isfile(env):
            env = extract_tarball(env, say)
        elif env and os.path.isfile(os.path.join(env, "Makefile")):
            env = adopt_tree(env, say)
        elif env:
            raise Error(f"KSRC={env} is neither a kernel tree nor a kernel tarball")
        else:
            trees = cached_trees(kv)
            if not trees:
                raise Error(f"KVER={kv}: no Linux {kv} tree: pass KSRC=<directory or "
                            f"linux-{kv}.<n>.tar.xz> once (kept in {os.path.join(CACHE, 'src')})")
            env = trees[0]
        tv = tree_version(env) or "?"
        if not (tv + ".").startswith(kv + "."):
            raise Error(f"KSRC={env} is Linux {tv}, not {kv}")
        return os.path.abspath(env), f"tree:linux-{tv}:{tv}"
    if env:
        if not os.path.isfile(os.path.join(env, "Makefile")):
            raise Error(f"KSRC={env} is not a kernel source tree")
        path = os.path.abspath(env)     # as "cd KSRC && pwd": the cache key holds it

        def out(cmd):       # as $(cmd 2>/dev/null): its output, whatever its status
            p = subprocess.run(cmd, capture_output=True, text=True)
            return p.stdout.rstrip("\n")
        kv = out(["make", "-s", "-C", path, "kernelversion"])
        head = out(["git", "-C", path, "rev-parse", "HEAD"])
        return path, f"tree:{path}:{kv}:{head}"
    pkg = f"linux-source-{kv}"
    tarball = f"/usr/src/{pkg}.tar.xz"
    if not os.path.isfile(tarball):
        raise Error(f"no kernel source: install the Debian package {pkg} "
                    "(hptool deps) or pass KSRC=<tree>")
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                       capture_output=True, text=True)
    ver = p.stdout if p.returncode == 0 and p.stdout else "unknown"
    path = _into_cache(os.path.join(CACHE, "src", f"{pkg}-{ver}"), f"{pkg} {ver}",
                       _untar(tarball), say)
    return path, f"debian:{pkg}:{ver}"


def ksrc_path():
    """the kernel source tree if it is there (KSRC, or the extracted Debian package),
    without extracting anything; None otherwise."""
    env = os.environ.get("KSRC")
    if env:
        return os.path.realpath(env) if os.path.isfile(os.path.join(env, "Makefile")) else None
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "linux-source-6.12"],
                       capture_output=True, text=True)
    ver = p.stdout if p.returncode == 0 and p.stdout else "unknown"
    path = os.path.join(CACHE, "src", f"linux-source-6.12-{ver}")
    return path if os.path.isfile(os.path.join(path, ".hardprobe-extracted")) else None


def compiler_version(cc):
    """the compiler's first --version line."""
    if shutil.which(cc) is None:
        raise Error(f"compiler {cc} not found: run hptool deps")
    p = subprocess.run([cc, "--version"], capture_output=True)
    return p.stdout.decode(errors="replace").split("\n", 1)[0]


def cache_key(srcid, arch, ccver, fragment):
    """the 16 hex digits of a reference kernel's cache directory name."""
    data = f"{srcid}\n{arch}\n{ccver}\n".encode() + fragment
    return hashlib.sha256(data).hexdigest()[:16]
