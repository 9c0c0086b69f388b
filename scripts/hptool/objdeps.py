# SPDX-License-Identifier: GPL-2.0
"""The link-time dependencies between the objects of hardprobe.ko (python3 -m hptool
objdeps MODULE_SRC_DIR): an object depends on another when it uses (nm: U) a symbol the
other defines. Prints the graph, one "a.o -> b.o c.o" line per object, and every cycle;
exit 1 if there is a cycle."""
import os
import subprocess


def objects(top):
    """The objects linked into hardprobe.ko, from kbuild's hardprobe.mod."""
    with open(os.path.join(top, "hardprobe.mod")) as f:
        return [o for o in f.read().split() if o.endswith(".o")]


def symbols(nm, path):
    defined, undefined = set(), set()
    out = subprocess.run([nm, path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            undefined.add(p[1])
        elif len(p) == 3 and p[1] in "TDBRVW":
            defined.add(p[2])
    return defined, undefined


def graph(top, nm="nm"):
    objs = objects(top)
    syms = {o: symbols(nm, os.path.join(top, o)) for o in objs}
    owner = {}
    for o, (d, _) in syms.items():
        for s in d:
            owner.setdefault(s, o)
    return {o: sorted({owner[s] for s in u if s in owner and owner[s] != o})
            for o, (_, u) in syms.items()}


def cycles(g):
    """Strongly connected components with more than one object (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def main(top):
    top = os.path.abspath(top)
    g = graph(top, os.environ.get("NM", "nm"))
    rel = {o: os.path.relpath(o, top) for o in g}
    for o in sorted(g):
        print(f"{rel[o]} -> {' '.join(rel[d] for d in g[o])}")
    cyc = cycles(g)
    for c in cyc:
        print("cycle: " + " <-> ".join(rel[o] for o in c))
    print(f"{len(g)} objects, {len(cyc)} cycles")
    return 1 if cyc else 0
