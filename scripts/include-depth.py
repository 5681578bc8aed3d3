#!/usr/bin/env python3
"""The include tower: how high rigtune's own #include "..." lines stack; and
the circles of calls between files.

Usage: scripts/include-depth.py [--max-files N] [--max-modules N] [--objects BUILD]
       [FILE ...]   (from the top of the tree)

Reads every quoted include of the sources in common/ search/ workloads/
tuner/ (system <...> includes are not rigtune's), resolved from the including
file's directory, and prints two figures:

- files: the longest chain of includes from one file (a .c or a .h) down,
  the file itself counted: a change to the bottom header reaches the top one
  through every floor;
- modules: the same with a module's .c and .h taken as one (tuner/journal.c
  and tuner/journal.h are "tuner/journal"): module A is above module B when A's
  .c or .h includes B's header. Modules that include each other's headers (a
  circle) are one floor, and are listed.

For each FILE given, its own longest file chain. Exit 1 when
- there is a circle of files (a header that includes itself through others)
  or of modules (a module's .c includes a header that includes the module's
  own header: split the type or the table that both need into a header of
  its own);
- a chain is longer than its limit: MAX_FILES and MAX_MODULES below, the
  figures the tower was brought down to, or --max-files / --max-modules, so
  that the tower does not creep back up;
- the layering is broken: search/ or workloads/ including a tuner/ header,
  a file outside the GPU plugins (GPU_PLUGIN_DIRS) including a header of
  workloads/gpu/ (what the CPU backend, Metal and the device monitor share
  with them is in workloads/: host_abi.h, devmon.h), or a file outside a tuner/ family folder including one of the family's
  headers other than its doors (DOORS; tests, benchmarks and fuzz harnesses
  are not read, they may include internals), or a file other than those that
  count a budget (BUDGET_CLOCK) including common/clock.h, the clock tests
  fake: what measures keeps rt_now(), which nothing fakes;
- with --objects BUILD: files call each other in a circle. BUILD's object
  files of the same folders (BUILD/tuner/tune.o for tuner/tune.c) say, by
  their symbols (nm), which file uses a function or an object another file
  defines; a circle of such uses (tune.c calls tune_workload.c, which calls
  tune.c) is listed with what each file uses of the others. Includes cannot
  show it: the two may share a header that has no .c. (A call through a
  function pointer is not seen; the file that takes the function's address
  is.)
"""
import os
import re
import subprocess
import sys

DIRS = ("common", "search", "workloads", "tuner")
# The longest chains allowed (docs/internals.md, "Layering"): what issue 21
# brought the tower down to. Raise one only with the reason in the commit.
MAX_FILES = 9
MAX_MODULES = 16
# The tuner/ family folders and the headers each is entered through: its door,
# and for check the reader of its result document too, so that a reader of
# results (the report page, the store) does not include the run.
DOORS = {
    "tuner/cmd": ("tuner/cmd/commands.h",),
    "tuner/sweep": ("tuner/sweep/sweep.h",),
    "tuner/page": ("tuner/page/page.h",),
    "tuner/fleet": ("tuner/fleet/fleet.h",),
    "tuner/check": ("tuner/check/check.h", "tuner/check/check_result.h"),
}
# The files that read the budget clock (common/clock.h), which a test may
# fake: budgets, deadlines, progress, a command's cost to the budget. A file
# that measures (a rate, a timeout, the canary, the watchdogs) is not here.
BUDGET_CLOCK = (
    "common/clock.c",
    "search/strategy_impl.c",
    "tuner/check/check_run.c",
    "tuner/crossover.c",
    "tuner/progress.c",
    "tuner/tune.c",
    "tuner/tune_baseline.c",
    "tuner/tune_crossover.c",
    "tuner/tune_trial.c",
    "tuner/tune_usercmd.c",
    "tuner/tune_workload.c",
    "tuner/usercmd.c",
)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


# The GPU plugins' folders, the only ones that include workloads/gpu/'s headers.
GPU_PLUGIN_DIRS = ("workloads/gpu/", "workloads/cuda/", "workloads/hip/")


def sources():
    for top in DIRS:
        for root, _, files in os.walk(top):
            for f in files:
                if f.endswith((".c", ".h", ".cu", ".hip")):
                    yield os.path.normpath(os.path.join(root, f))


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    out = []
    for inc in INCLUDE.findall(text):
        target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
        if os.path.exists(target):
            out.append(target)
    return out


def components(graph):
    """Tarjan's strongly connected components, each a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def tower(graph):
    """The longest chain of each node over the graph of its components, and the circles."""
    comps = components(graph)
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    longest = {}  # component -> its longest chain of nodes (a circle is its first member)

    def chain(i):
        if i not in longest:
            best = []
            for v in comps[i]:
                for w in graph[v]:
                    j = comp_of[w]
                    if j != i and len(chain(j)) > len(best):
                        best = chain(j)
            longest[i] = [comps[i][0] if len(comps[i]) == 1 else "{" + " <-> ".join(comps[i]) + "}"] + best
        return longest[i]

    for i in range(len(comps)):
        chain(i)
    circles = [c for c in comps if len(c) > 1]
    return {v: longest[comp_of[v]] for v in graph}, circles


def layering(graph):
    """Includes that cross a wall: into tuner/ from below, or past a family's door."""
    bad = []
    for p, incs in sorted(graph.items()):
        for q in incs:
            if p.startswith(("search/", "workloads/", "common/")) and q.startswith("tuner/"):
                bad.append(f"{p} includes {q}: search/, workloads/ and common/ know no tuner")
            for family, doors in DOORS.items():
                if q.startswith(family + "/") and not p.startswith(family + "/") and q not in doors:
                    bad.append(f"{p} includes {q}: enter {family}/ through {' or '.join(doors)}")
            if q.startswith("workloads/gpu/") and not p.startswith(GPU_PLUGIN_DIRS):
                bad.append(f"{p} includes {q}: workloads/gpu/ is the GPU plugins' own; "
                           "what others share with them is in workloads/")
            if q == "common/clock.h" and p not in BUDGET_CLOCK + ("common/clock.h",):
                bad.append(f"{p} includes {q}: the budget clock, which tests fake; "
                           "a measurement keeps rt_now() (or add it to BUDGET_CLOCK)")
    return bad


def call_graph(build):
    """File -> {file whose symbols it uses: those symbols}, from the objects under build."""
    objects = {}
    for top in DIRS:
        for root, _, files in os.walk(os.path.join(build, top)):
            for f in files:
                if f.endswith(".o"):
                    o = os.path.join(root, f)
                    objects[o] = os.path.relpath(o, build)[:-2] + ".c"
    if not objects:
        print(f"include-depth.py: --objects {build}: no object files under it", file=sys.stderr)
        sys.exit(2)
    out = subprocess.run(["nm", "-A"] + sorted(objects), capture_output=True, text=True)
    if out.returncode:
        print(f"include-depth.py: nm: {out.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    defined, used = {}, {}
    for line in out.stdout.splitlines():
        obj, _, rest = line.partition(":")
        fields = rest.split()
        if len(fields) == 2 and fields[0] == "U":
            used.setdefault(objects[obj], set()).add(fields[1])
        elif len(fields) == 3 and fields[1] in "BDGRTVW":  # defined, global
            defined[fields[2]] = objects[obj]
    graph = {f: {} for f in objects.values()}
    for f, syms in used.items():
        for sym in syms:
            g = defined.get(sym)
            if g and g != f:
                graph[f].setdefault(g, set()).add(sym)
    return graph


def call_circles(build):
    """Each circle of calls between files, as lines naming what each file uses of another."""
    graph = call_graph(build)
    out = []
    for comp in components({f: sorted(uses) for f, uses in graph.items()}):
        if len(comp) < 2:
            continue
        why = [f"{f} uses {', '.join(sorted(graph[f][g])[:3])} of {g}"
               for f in comp for g in sorted(graph[f]) if g in comp]
        out.append(" <-> ".join(comp) + " (" + "; ".join(why) + ")")
    return out


def options(argv):
    """The limits (--max-files N, --max-modules N), the objects' folder and the FILEs of argv."""
    limits = {"files": MAX_FILES, "modules": MAX_MODULES, "objects": None}
    files = []
    args = iter(argv)
    for a in args:
        what = {"--max-files": "files", "--max-modules": "modules"}.get(a)
        if what:
            n = next(args, "")
            if not n.isdigit():
                print(f"include-depth.py: {a} needs a number, not '{n}'", file=sys.stderr)
                sys.exit(2)
            limits[what] = int(n)
        elif a == "--objects":
            limits["objects"] = next(args, "")
            if not os.path.isdir(limits["objects"]):
                print(f"include-depth.py: --objects needs a build folder, not "
                      f"'{limits['objects']}'", file=sys.stderr)
                sys.exit(2)
        else:
            files.append(a)
    return limits, files


def main(argv):
    limits, argv = options(argv)
    graph = {}
    todo = list(sources()) + argv
    while todo:
        p = os.path.normpath(todo.pop())
        if p not in graph:
            graph[p] = includes(p)
            todo.extend(graph[p])
    sys.setrecursionlimit(10000)
    files, file_circles = tower(graph)
    modules = {}
    for p, incs in graph.items():
        m = os.path.splitext(p)[0]
        modules.setdefault(m, set()).update(os.path.splitext(q)[0] for q in incs)
    for m in modules:
        modules[m].discard(m)
    mods, mod_circles = tower({m: sorted(s) for m, s in modules.items()})

    too_tall = []
    for what, chains in (("files", files), ("modules", mods)):
        top = max(sorted(chains), key=lambda v: len(chains[v]))
        print(f"longest include chain ({what}): {len(chains[top])}")
        print("  " + " -> ".join(chains[top]))
        if len(chains[top]) > limits[what]:
            too_tall.append(f"tower: the longest include chain ({what}) is {len(chains[top])}, "
                            f"above its limit {limits[what]}")
    for f in argv:
        chain = files[os.path.normpath(f)]
        print(f"{f}: {len(chain)} files")
        print("  " + " -> ".join(chain))
    for what, circles in (("files", file_circles), ("modules", mod_circles)):
        for c in circles:
            print(f"include circle ({what}): " + " <-> ".join(c))
    for t in too_tall:
        print(t)
    walls = layering(graph)
    for w in walls:
        print("layering: " + w)
    calls = call_circles(limits["objects"]) if limits["objects"] else []
    for c in calls:
        print("call circle: " + c)
    return 1 if file_circles or mod_circles or too_tall or walls or calls else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
