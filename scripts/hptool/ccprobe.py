# SPDX-License-Identifier: GPL-2.0
"""hardprobe compiler layer: what each compiler can do, whatever the kernel does.

For every compiler found among gcc-12 (x86_64), aarch64-linux-gnu-gcc-12 (arm64), clang-19
and clang-22 (each for x86_64 and arm64), compile tiny freestanding C snippets with and
without each feature's flag (the kernel's own spelling) and record

  accepted  the flag compiles with -Werror and no unknown/unsupported/ignored diagnostic
  emits     the flag changes the generated code the expected way, counted from the assembly
            (or the object, for LTO; the diagnostics, for fall-through); null when the flag
            is rejected or the feature does not exist on the architecture

Writes results/compiler.json (schema 1) and prints a compact table.

usage: hptool ccprobe [-o FILE] [-j N] [-v] [--compilers ID,...] [--features ID,...]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading

from . import TOP

# (name, arch, command, Debian package)
COMPILERS = [
    ("gcc-12", "x86_64", ["gcc-12"], "gcc-12"),
    ("gcc-12", "arm64", ["aarch64-linux-gnu-gcc-12"], "gcc-12-aarch64-linux-gnu"),
    ("clang-19", "x86_64", ["clang-19", "--target=x86_64-linux-gnu"], "clang-19"),
    ("clang-19", "arm64", ["clang-19", "--target=aarch64-linux-gnu"], "clang-19"),
    ("clang-22", "x86_64", ["clang-22", "--target=x86_64-linux-gnu"], "clang-22"),
    ("clang-22", "arm64", ["clang-22", "--target=aarch64-linux-gnu"], "clang-22"),
]

# kernel-like base flags: freestanding, no FPU/SIMD, and every feature under test off the way
# the kernel turns it off when it is not configured
COMMON = ["-O2", "-ffreestanding", "-nostdinc", "-fno-asynchronous-unwind-tables", "-fno-PIE",
          "-fno-strict-overflow", "-fno-stack-protector", "-fno-stack-clash-protection",
          "-Werror"]
ARCH_BASE = {
    "x86_64": ["-mno-red-zone", "-mno-sse", "-mno-mmx", "-mno-sse2", "-mno-avx",
               "-mcmodel=kernel", "-fcf-protection=none"],
    "arm64": ["-mgeneral-regs-only", "-mbranch-protection=none"],
}
REJECT_RE = re.compile(r"unknown|unsupported|not supported|unrecognized|ignored|unused|"
                       r"invalid|not allowed", re.I)


class Compiler:
    def __init__(self, name, arch, cmd, pkg):
        self.name, self.arch, self.cmd, self.pkg = name, arch, cmd, pkg
        self.id = f"{name}/{arch}"
        self.family = "clang" if name.startswith("clang") else "gcc"
        self.present = shutil.which(cmd[0]) is not None
        self.version = None
        self.memo, self.lock = {}, threading.Lock()
        if self.present:
            p = subprocess.run(cmd[:1] + ["--version"], capture_output=True, text=True)
            self.version = (p.stdout.splitlines() or ["?"])[0].strip()

    def compile(self, tmp, src, flags, mode="S", drop=()):
        """Compile src with the base flags (minus drop) plus flags.
        Returns (ok, output text or bytes, stderr); the same compile is done only once."""
        key = (src, tuple(flags), mode, tuple(drop))
        with self.lock:
            fut = self.memo.get(key)
            mine = fut is None
            if mine:
                fut = self.memo[key] = concurrent.futures.Future()
        if mine:
            try:
                fut.set_result(self._compile(tmp, src, flags, mode, drop))
            except Exception as e:
                fut.set_exception(e)
        return fut.result()

    def _compile(self, tmp, src, flags, mode, drop):
        fd, cfile = tempfile.mkstemp(suffix=".c", dir=tmp)
        with os.fdopen(fd, "w") as f:
            f.write(src)
        out = cfile[:-2] + (".s" if mode == "S" else ".o")
        base = [f for f in COMMON + ARCH_BASE[self.arch] if f not in drop]
        p = subprocess.run(self.cmd + base + flags + ["-" + mode, cfile, "-o", out],
                           capture_output=True, text=True)
        data = None
        if p.returncode == 0 and os.path.exists(out):
            with open(out, "rb") as f:
                data = f.read()
            if mode == "S":
                data = data.decode(errors="replace")
        return p.returncode == 0, data, p.stderr


def first_diag(err):
    for line in err.splitlines():
        if "error" in line or "warning" in line:
            return re.sub(r"^.*?(error|warning): ", r"\1: ", line).strip()[:120]
    return (err.strip().splitlines() or ["failed"])[0][:120]


def asm_lines(asm, arch):
    """Instruction and directive lines, comments stripped."""
    out = []
    for line in asm.splitlines():
        line = re.sub(r"\s*//.*$", "", line) if arch == "arm64" else re.sub(r"\s*#.*$", "", line)
        if line.strip():
            out.append(line.rstrip())
    return out


def function(asm, arch, name):
    """The body of one function, from its label to its end."""
    body, inside = [], False
    for line in asm_lines(asm, arch):
        if line.startswith(name + ":"):
            inside = True
            continue
        if inside:
            if (line.startswith(".Lfunc_end") or re.match(r"\s*\.size\s+" + name + r",", line)
                    or (re.match(r"^[A-Za-z_]\w*:", line) and not line.startswith(".L"))):
                break
            body.append(line)
    return body


def count(lines, regex):
    r = re.compile(regex)
    return sum(1 for line in lines if r.search(line))


# the module build's own fallthrough and stack_clash checks (what layout_build.sh runs with
# kbuild's compiler and flags), run here with each host compiler and the base flags
BUILD_CHECKS = os.path.join(TOP, "module", "layout", "buildprobe", "checks.sh")


def build_check(cc, tmp, what, flags, drop=()):
    """module/layout/buildprobe/checks.sh WHAT with this compiler, the base flags (minus drop) and
    flags. Returns ({variable: value}, {log name: text})."""
    d = tempfile.mkdtemp(prefix=what + "-", dir=tmp)
    base = [f for f in COMMON + ARCH_BASE[cc.arch] if f not in drop]
    p = subprocess.run(["bash", BUILD_CHECKS, what, d, " ".join(cc.cmd)] + base + flags,
                       capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{BUILD_CHECKS} {what}: {p.stderr.strip()[-200:]}")
    vals = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
    logs = {}
    for name in os.listdir(d):
        if name.endswith(".log"):
            with open(os.path.join(d, name), errors="replace") as f:
                logs[name[:-4]] = f.read()
    return vals, logs


# ---------------------------------------------------------------------------------------------
# the features: each probe(cc, tmp) returns a cell {accepted, emits, flag, evidence}

def cell(accepted, emits, flag, evidence):
    return {"accepted": accepted, "emits": emits, "flag": flag, "evidence": evidence}


def counted_probe(src, fn, regex, what, off=()):
    """Generic: count regex in function fn with and without the flag."""
    def probe(cc, tmp, flag):
        fl = flag.split()
        ok, asm, err = cc.compile(tmp, src, fl)
        if not ok or REJECT_RE.search(err):
            return cell(False, None, flag, "rejected: " + first_diag(err))
        ok0, asm0, err0 = cc.compile(tmp, src, list(off))
        if not ok0:
            return cell(True, None, flag, "baseline failed: " + first_diag(err0))
        names = fn if isinstance(fn, (list, tuple)) else [fn]
        rx = regex(cc) if callable(regex) else regex
        n = sum(count(function(asm, cc.arch, f), rx) for f in names) if names[0] else \
            count(asm_lines(asm, cc.arch), rx)
        n0 = sum(count(function(asm0, cc.arch, f), rx) for f in names) if names[0] else \
            count(asm_lines(asm0, cc.arch), rx)
        w = what(cc) if callable(what) else what
        return cell(True, n > n0, flag, f"{n} {w} with the flag vs {n0} without")
    return probe


# one source for the code-generation probes: one baseline compile per compiler serves them all
SRC_CODE = """
extern void use(char *);
extern int (*fp)(int);
int leaf(int a, int b, int c, int d) { return a * b + c * d; }
long mix(long a, long b, long c, long d, long e) { return (a ^ b) * (c + d) - e * a; }
void small(void) { char buf[64]; use(buf); }
struct pad { char c; long l; };
extern void usep(struct pad *);
void padded(void) { struct pad p; usep(&p); }
static int cb(int x) { return x + 1; }
int (*const tab[])(int) = { cb };
static __attribute__((noinline)) int helper(int x) { return x * 3 + 1; }
int icall(int x) { return fp(x) + helper(x); }
void tail(void (*g)(void)) { g(); }
int bound(int *a, unsigned long n, unsigned long i) { if (i < n) return a[i]; return 0; }
int add(int a, int b) { return a + b; }
unsigned int uadd(unsigned int a, unsigned int b) { return a + b; }
unsigned char trunc(int x) { return x; }
signed char strunc(unsigned int x) { return x; }
int arr[8];
int get(int i) { return arr[i]; }
int hp_one(int x) { return x + 1; }
int hp_two(int x) { return x * 2; }
int hp_data = 1;
"""


def xor_zero(cc):
    return (r"\bxor[lq]\s+%(\w+), %\1$" if cc.arch == "x86_64"
            else r"\bmov\s+[xw]\d+, #?0$|\bmov\s+[xw]\d+, [xw]zr$")


def stack_zero(cc):
    return (r"\bmov[qlbw]\s+\$0, .*\(%rsp\)|\brep stos|\bcall\s+memset"
            if cc.arch == "x86_64" else r"\bst[rp]\s+(xzr|wzr)|\bbl\s+memset")


def slh_mask(cc):
    return (r"\bcmov\w+|\blfence\b|\b(sar|shl|or)q\s+.*%rsp|\bsarq\s+\$63|\bor[lq]\s+%r?[cd]x"
            if cc.arch == "x86_64" else r"\bcsdb\b|\bcsetm\b|\bcsel\s+x16|\band\s+\w+, \w+, x16")


def kcfi_check(cc):
    return (r"\bud2\b" if cc.arch == "x86_64"
            else r"\bbrk\s+#0x8[0-9a-f]{3}\b")


def flag_for(feature, cc):
    """The kernel's spelling of a feature's flag for this compiler and architecture."""
    f = FEATURES[feature]["flag"]
    if isinstance(f, dict):
        return f.get((cc.family, cc.arch), f.get(cc.family, f.get(cc.arch, f.get("*"))))
    return f


def probe_canary(cc, tmp, flag):
    fl = flag.split()
    ok, asm, err = cc.compile(tmp, SRC_CODE, fl)
    if not ok or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    _, asm0, _ = cc.compile(tmp, SRC_CODE, [])
    if cc.arch == "x86_64":
        guard = r"%gs:40|__stack_chk_guard"
        gname = "%gs:40 guard reads"
    else:
        guard = r"(?i)\bmrs\s+x\d+, sp_el0"
        gname = "sp_el0 (per-task sysreg guard) reads"
    fail = r"\b(callq?|bl|jmpq?|b)\s+__stack_chk_fail"
    body, body0 = function(asm, cc.arch, "small"), function(asm0, cc.arch, "small")
    n, n0 = count(body, fail), count(body0, fail)
    g, g0 = count(body, guard), count(body0, guard)
    note = ("" if cc.arch == "x86_64" else
            " (the kernel's offset is TSK_STACK_CANARY from asm-offsets; 1024 here)")
    return cell(True, n > n0 and g > g0, flag,
                f"{n} __stack_chk_fail calls and {g} {gname} with the flag vs {n0}/{g0} without"
                + note)


def probe_randstruct(cc, tmp, flag):
    members = "abcde"
    src = ("struct hp_rs { int a; long b; char *c; short d; void *e; } "
           "__attribute__((randomize_layout));\n" +
           "".join(f"unsigned long off_{m} = __builtin_offsetof(struct hp_rs, {m});\n"
                   for m in members))
    offs = []
    for i, seed in enumerate(("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                              "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210")):
        fl = []
        if cc.family == "clang":
            # one file per compiler: another compiler's run must not rewrite it under us
            path = os.path.join(tmp, f"seed-{cc.name}-{cc.arch}-{i + 1}")
            with open(path, "w") as f:
                f.write(seed + "\n")
            fl = [f"-frandomize-layout-seed-file={path}"]
        ok, asm, err = cc.compile(tmp, src, fl)
        if not ok or REJECT_RE.search(err):
            return cell(False, None, flag, "rejected: " + first_diag(err))
        vals = {}
        for m in members:
            body = function(asm, cc.arch, f"off_{m}")
            nums = [int(x) for line in body
                    for x in re.findall(r"\.(?:quad|xword|8byte|long|word)\s+(\d+)", line)]
            zero = any(re.search(r"\.zero\s+8", line) for line in body)
            vals[m] = nums[0] if nums else (0 if zero else None)
        offs.append(vals)
    declared = [0, 8, 16, 24, 32]
    a, b = [[o[m] for m in members] for o in offs]
    emits = a != b and a != declared
    fmt = lambda v: ",".join("?" if x is None else str(x) for x in v)  # noqa: E731
    return cell(True, emits, flag,
                f"offsets of a,b,c,d,e: seed 1 {fmt(a)}, seed 2 {fmt(b)} "
                f"(declared {fmt(declared)})")


def probe_lto(cc, tmp, flag):
    ok, obj, err = cc.compile(tmp, SRC_CODE, flag.split(), mode="c")
    if not ok or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    _, obj0, _ = cc.compile(tmp, SRC_CODE, [], mode="c")
    if cc.family == "clang":
        bc, bc0 = obj[:4] == b"BC\xc0\xde", obj0[:4] == b"BC\xc0\xde"
        return cell(True, bc and not bc0, flag,
                    f".o is {'LLVM bitcode (BC magic)' if bc else 'not bitcode'} with the flag, "
                    f"{'bitcode' if bc0 else 'ELF'} without")
    g, g0 = obj.count(b".gnu.lto_"), obj0.count(b".gnu.lto_")
    return cell(True, g > 0 and g0 == 0, flag,
                f"{g} .gnu.lto_ (GIMPLE) section names in the .o with the flag vs {g0} without; "
                f"the kernel has no GCC LTO")


def probe_fallthrough(cc, tmp, flag):
    # without -Werror: the unannotated case is a warning, as in a kernel without CONFIG_WERROR
    v, logs = build_check(cc, tmp, "fallthrough", flag.split(), drop=("-Werror",))
    err = logs.get("fallthrough-annotated", "")
    if (v["rc_annotated"] != "0" and v["n_annotated"] == "0") or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    warns = int(v["n_plain"]) > 0
    silenced = v["rc_annotated"] == "0" and v["n_annotated"] == "0"
    control = v["rc_control"] == "0" and v["n_control"] == "0"
    cond = ""
    if cc.family == "clang":
        # init/Kconfig: Clang gets the warning only if it has -Wunreachable-code-fallthrough
        oku, _, erru = cc.compile(tmp, SRC_CODE, ["-Wunreachable-code-fallthrough"])
        has = oku and not REJECT_RE.search(erru)
        cond = ("; -Wunreachable-code-fallthrough exists, so the kernel enables it" if has else
                "; no -Wunreachable-code-fallthrough, so the kernel leaves it off")
    return cell(True, warns and silenced and control, flag,
                (f"unannotated fall-through warns ({v['msg_plain']})" if warns
                 else "no warning on an unannotated fall-through") +
                "; the kernel's fallthrough; " +
                ("silences it" if silenced else f"does NOT silence it ({v['msg_annotated']})") +
                ("" if control else f"; warns even with -Wno-implicit-fallthrough "
                 f"({v['msg_control']})") + cond)


def probe_signed(cc, tmp, flag):
    rx = r"__ubsan_handle_add_overflow"
    ok, asm, err = cc.compile(tmp, SRC_CODE, flag.split())
    if not ok or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    _, asm0, _ = cc.compile(tmp, SRC_CODE, [])
    _, asm_s, _ = cc.compile(tmp, SRC_CODE, flag.split(), drop=("-fno-strict-overflow",))
    n, n0 = count(function(asm, cc.arch, "add"), rx), count(function(asm0, cc.arch, "add"), rx)
    ns = count(function(asm_s or "", cc.arch, "add"), rx)
    return cell(True, n > n0, flag,
                f"{n} __ubsan_handle_add_overflow calls under the kernel's -fno-strict-overflow "
                f"vs {n0} without the flag ({ns} without -fno-strict-overflow)")


def probe_array_bounds(cc, tmp, flag):
    rx = r"__ubsan_handle_out_of_bounds"
    ok, asm, err = cc.compile(tmp, SRC_CODE, flag.split())
    if not ok or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    _, asm0, _ = cc.compile(tmp, SRC_CODE, [])
    n, n0 = count(function(asm, cc.arch, "get"), rx), count(function(asm0, cc.arch, "get"), rx)
    ev = [f"{n} __ubsan_handle_out_of_bounds calls with the flag vs {n0} without"]
    okf, _, errf = cc.compile(tmp, SRC_CODE, ["-fstrict-flex-arrays=3"])
    ev.append("-fstrict-flex-arrays=3 " + ("accepted" if okf and not REJECT_RE.search(errf)
                                           else "rejected"))
    cb = """
struct hp_fam { int n; int a[] %s; };
unsigned long sz(struct hp_fam *p) { return __builtin_dynamic_object_size(p->a, 1); }
"""
    okc, asmc, errc = cc.compile(tmp, cb % "__attribute__((__counted_by__(n)))", [])
    if not okc or REJECT_RE.search(errc):
        ev.append("__counted_by rejected")
    else:
        _, asmu, _ = cc.compile(tmp, cb % "", [])
        honoured = function(asmc, cc.arch, "sz") != function(asmu, cc.arch, "sz")
        ev.append("__counted_by " + ("honoured by __builtin_dynamic_object_size" if honoured
                                     else "accepted but ignored by __builtin_dynamic_object_size"))
    return cell(True, n > n0, flag, "; ".join(ev))


def probe_fortify(cc, tmp, flag):
    src = """
extern void *hp_alloc(unsigned long n) __attribute__((alloc_size(1)));
unsigned long dyn(unsigned long n)
{ char *p = hp_alloc(n); return __builtin_dynamic_object_size(p, 0); }
unsigned long sta(unsigned long n) { char *p = hp_alloc(n); return __builtin_object_size(p, 0); }
"""
    ok, asm, err = cc.compile(tmp, src, [])
    if not ok or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    dyn, sta = function(asm, cc.arch, "dyn"), function(asm, cc.arch, "sta")
    mone = r"\$-1|#-1|, -1$|#0xffffffffffffffff"
    dyn_const, sta_const = count(dyn, mone) > 0, count(sta, mone) > 0
    emits = not dyn_const and dyn != sta
    return cell(True, emits, flag,
                "__builtin_dynamic_object_size of an alloc_size(n) allocation " +
                ("is computed at run time" if emits else "folds to a constant") +
                f" (__builtin_object_size: {'-1' if sta_const else 'not constant -1'})")


def probe_bti(cc, tmp, flag):
    fl = flag.split()
    ok, asm, err = cc.compile(tmp, SRC_CODE, fl)
    if not ok or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    _, asm0, _ = cc.compile(tmp, SRC_CODE, [])
    rx = r"\bbti\s+c\b|\bhint\s+#?34\b"
    pad = r"\bbti\s+c\b|\bhint\s+#?34\b|\bpaciasp\b|\bhint\s+#?25\b"
    fns = ("leaf", "icall", "helper")
    n = sum(count(function(asm, cc.arch, f), rx) for f in fns)
    n0 = sum(count(function(asm0, cc.arch, f), rx) for f in fns)
    helper = count(function(asm, cc.arch, "helper"), pad) > 0
    return cell(True, n > n0, flag,
                f"{n} `bti c` landing pads with the flag vs {n0} without; the static "
                f"direct-called helper {'has' if helper else 'has NO'} landing pad")


FEATURES = {
    "stack_init": {
        "flag": "-ftrivial-auto-var-init=zero",
        "probe": counted_probe(SRC_CODE, ("small", "padded"), stack_zero,
                               "zeroing stores/memset calls"),
    },
    "zero_call_regs": {
        "flag": "-fzero-call-used-regs=used-gpr",
        "probe": counted_probe(SRC_CODE, ("leaf", "mix"), xor_zero,
                               lambda cc: "xor self-zeroing" if cc.arch == "x86_64"
                               else "mov-zero"),
    },
    "stack_canary": {
        "flag": {"x86_64": "-fstack-protector-strong",
                 "arm64": "-fstack-protector-strong -mstack-protector-guard=sysreg "
                          "-mstack-protector-guard-reg=sp_el0 "
                          "-mstack-protector-guard-offset=1024"},
        "probe": probe_canary,
    },
    "kcfi": {
        "flag": "-fsanitize=kcfi",
        "probe": counted_probe(SRC_CODE, ("icall", "tail"), kcfi_check,
                               lambda cc: "kCFI call-site checks (hash compare, ud2 trap)"
                               if cc.arch == "x86_64" else
                               "kCFI call-site checks (hash compare, brk #0x8xxx trap)"),
    },
    "ibt": {
        "flag": "-fcf-protection=branch -fno-jump-tables",
        "arch": "x86_64",
        "probe": counted_probe(SRC_CODE, None, r"\bendbr64\b", "endbr64"),
    },
    "bti": {
        "flag": "-mbranch-protection=pac-ret+bti",
        "arch": "arm64",
        "probe": probe_bti,
    },
    "pac_ret": {
        "flag": "-mbranch-protection=pac-ret",
        "arch": "arm64",
        "probe": counted_probe(SRC_CODE, ("icall",),
                               r"\bpaci[ab]sp\b|\bhint\s+#?25\b|\bhint\s+#?27\b",
                               "paciasp (hint #25)"),
    },
    "shadow_call_stack": {
        "flag": "-fsanitize=shadow-call-stack -ffixed-x18",
        "arch": "arm64",
        "probe": counted_probe(SRC_CODE, ("icall",), r"\bx18\b", "x18 (shadow stack) uses"),
    },
    "sls": {
        "flag": "-mharden-sls=all",
        "arch": "x86_64",
        "probe": None,  # set below: needs the ret/int3 pairs
    },
    "retpoline": {
        "flag": {"gcc": "-mindirect-branch=thunk-extern -mindirect-branch-register",
                 "clang": "-mretpoline-external-thunk"},
        "arch": "x86_64",
        "probe": counted_probe(SRC_CODE, ("icall",), r"__x86_indirect_thunk",
                               "__x86_indirect_thunk calls"),
    },
    "slh": {
        "flag": "-mspeculative-load-hardening",
        "probe": counted_probe(SRC_CODE, ("bound",), slh_mask,
                               lambda cc: "mask instructions (cmov/sar/or of the predicate)"
                               if cc.arch == "x86_64" else
                               "mask instructions (csetm/csel/and/csdb)"),
    },
    "stack_clash": {
        "flag": "-fstack-clash-protection",
        "probe": None,  # set below: an 8 KiB and a 128 KiB frame
    },
    "signed_overflow": {
        "flag": "-fsanitize=signed-integer-overflow",
        "probe": probe_signed,
    },
    "unsigned_overflow": {
        "flag": "-fsanitize=unsigned-integer-overflow",
        "probe": counted_probe(SRC_CODE, ("uadd",), r"__ubsan_handle_add_overflow",
                               "__ubsan_handle_add_overflow calls"),
    },
    "truncation": {
        "flag": "-fsanitize=implicit-signed-integer-truncation "
                "-fsanitize=implicit-unsigned-integer-truncation",
        "probe": counted_probe(SRC_CODE, ("trunc", "strunc"), r"__ubsan_handle_implicit_conversion",
                               "__ubsan_handle_implicit_conversion calls"),
    },
    "array_bounds": {
        "flag": {"gcc": "-fsanitize=bounds-strict", "clang": "-fsanitize=array-bounds"},
        "probe": probe_array_bounds,
    },
    "fortify": {
        "flag": "(none: __builtin_dynamic_object_size)",
        "probe": probe_fortify,
    },
    "randstruct": {
        "flag": {"clang": "-frandomize-layout-seed-file=<seed>",
                 "gcc": "-fplugin=scripts/gcc-plugins/randomize_layout_plugin.so"},
        "probe": probe_randstruct,
    },
    "function_sections": {
        "flag": "-ffunction-sections -fdata-sections",
        "probe": counted_probe(SRC_CODE, None,
                               r"\.section\s+\.(text\.hp_one|text\.hp_two|data\.hp_data)\b",
                               ".text.<fn>/.data.<var> sections"),
    },
    "lto": {
        "flag": {"gcc": "-flto", "clang": "-flto=thin -fsplit-lto-unit"},
        "probe": probe_lto,
    },
    "fallthrough": {
        "flag": {"gcc": "-Wimplicit-fallthrough=5", "clang": "-Wimplicit-fallthrough"},
        "probe": probe_fallthrough,
    },
}


def probe_sls(cc, tmp, flag):
    fl = flag.split()
    src = SRC_CODE
    ok, asm, err = cc.compile(tmp, src, fl)
    if not ok or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    _, asm0, _ = cc.compile(tmp, src, [])

    def pairs(a):
        lines = [ln.strip() for ln in asm_lines(a, cc.arch)]
        return sum(1 for x, y in zip(lines, lines[1:])
                   if re.match(r"^(retq?|jmpq?\s+\*)", x) and y == "int3")
    n, n0 = pairs(asm), pairs(asm0)
    return cell(True, n > n0, flag,
                f"{n} int3 after ret/indirect jmp with the flag vs {n0} without")


FEATURES["sls"]["probe"] = probe_sls


def probe_stack_clash(cc, tmp, flag):
    v, logs = build_check(cc, tmp, "stack_clash", [])
    err = logs.get("stack_clash-on", "")
    if v["rc_on"] != "0" or REJECT_RE.search(err):
        return cell(False, None, flag, "rejected: " + first_diag(err))
    if v["rc_kernel"] != "0":
        return cell(True, None, flag, "baseline failed: " + v["scerr"])
    n = {f: int(v[f"sc_on_{f}"]) for f in ("small", "large")}
    n0 = {f: int(v[f"sc_kernel_{f}"]) for f in ("small", "large")}
    loop = {f: " (loop)" if v[f"sc_on_{f}_loop"] == "1" else "" for f in ("small", "large")}
    sample = v["sc_on_sample"].strip("'")
    # the frames of module/layout/buildprobe/stack_clash.c: 3 and 24 pages
    ev = (f"page probes ({sample or 'none'}): 12 KiB frame {n['small']}{loop['small']} with the "
          f"flag vs {n0['small']} with the kernel's -fno-stack-clash-protection, 96 KiB frame "
          f"{n['large']}{loop['large']} vs {n0['large']}")
    if n["small"] == 0 and n["large"] > 0:
        ev += " (no probe needed below the assumed guard size: GCC arm64 assumes 64 KiB)" \
            if cc.family == "gcc" and cc.arch == "arm64" else " (none for 12 KiB)"
    return cell(True, n["small"] + n["large"] > n0["small"] + n0["large"], flag, ev)


FEATURES["stack_clash"]["probe"] = probe_stack_clash

ARCH_NOTE = {
    "sls": "x86_64 only (the kernel uses -mharden-sls=all on x86 only)",
    "ibt": "x86_64 only", "retpoline": "x86_64 only",
    "bti": "arm64 only", "pac_ret": "arm64 only", "shadow_call_stack": "arm64 only",
}


def run_one(cc, feature, tmp):
    spec = FEATURES[feature]
    flag = flag_for(feature, cc)
    if not cc.present:
        return cell(None, None, flag, f"compiler absent (apt-get install {cc.pkg})")
    if cc.family == "gcc" and feature == "randstruct":
        # GCC only has the kernel's plugin; without it the attribute is ignored: show that
        c = probe_randstruct(cc, tmp, flag)
        if c["accepted"] is False:
            c["evidence"] = ("GCC has randstruct only through the kernel's plugin (not built "
                             "here); without it: " + c["evidence"])
        return c
    try:
        c = spec["probe"](cc, tmp, flag)
    except Exception as e:  # a probe must not take the run down
        return cell(None, None, flag, f"probe error: {type(e).__name__}: {e}")
    arch = spec.get("arch")
    if arch and arch != cc.arch:
        c["emits"] = None
        c["evidence"] = ARCH_NOTE.get(feature, f"{arch} only") + \
            ("" if c["accepted"] else "; " + c["evidence"])
    elif c["accepted"] is False:
        c["emits"] = None
    if spec.get("note") and c["accepted"]:
        c["evidence"] += "; " + spec["note"]
    return c


def symbol(c):
    """One short table cell: E emits, A0 accepted without effect, R rejected, n/a, ?, err."""
    if c["accepted"] is None:
        return "?" if "absent" in c["evidence"] else "err"
    if c["emits"] is None:
        if re.match(r"(x86_64|arm64) only", c["evidence"]):
            return "n/a"
        return "A" if c["accepted"] else "R"
    return "E" if c["emits"] else "A0"


def table(result):
    ids = [c["id"] for c in result["compilers"]]
    short = [i.replace("/x86_64", "/x86").replace("/arm64", "/a64") for i in ids]
    w = max(len(f) for f in result["features"]) + 1
    cw = max(len(s) for s in short) + 1
    lines = ["feature".ljust(w) + "".join(s.rjust(cw) for s in short)]
    for feat, cells in result["features"].items():
        lines.append(feat.ljust(w) + "".join(symbol(cells[i]).rjust(cw) for i in ids))
    lines.append("E = accepted and emits, A0 = accepted but emits nothing, R = rejected, "
                 "n/a = not on this arch, ? = compiler absent")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="hptool ccprobe", description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=os.path.join(TOP, "results", "compiler.json"))
    ap.add_argument("-j", "--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("-v", "--verbose", action="store_true", help="print the evidence too")
    ap.add_argument("--compilers", help="comma-separated compiler ids (default: all)")
    ap.add_argument("--features", help="comma-separated feature ids (default: all)")
    args = ap.parse_args(argv)

    ccs = [Compiler(*c) for c in COMPILERS]
    if args.compilers:
        want = args.compilers.split(",")
        ccs = [c for c in ccs if c.id in want or c.name in want]
    feats = list(FEATURES)
    if args.features:
        feats = [f for f in feats if f in args.features.split(",")]
    tmp = tempfile.mkdtemp(prefix="hp-ccprobe-")
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            futs = {(f, c.id): ex.submit(run_one, c, f, tmp) for f in feats for c in ccs}
            cells = {k: v.result() for k, v in futs.items()}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    compilers = []
    for c in ccs:
        d = {"id": c.id, "name": c.name, "arch": c.arch, "version": c.version}
        if not c.present:
            d["absent"] = True
            d["package"] = c.pkg
        compilers.append(d)
    result = {"schema": 1, "compilers": compilers,
              "features": {f: {c.id: cells[(f, c.id)] for c in ccs} for f in feats}}
    if args.output != "-":
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    print(table(result))
    for c in ccs:
        print(f"  {c.id}: " + (c.version if c.present else f"absent (apt-get install {c.pkg})"))
    if args.verbose:
        for f in feats:
            for c in ccs:
                x = cells[(f, c.id)]
                print(f"{f:18} {c.id:16} {x['flag']}: {x['evidence']}")
    if args.output != "-":
        print(f"wrote {os.path.relpath(args.output)}")
    return 0
