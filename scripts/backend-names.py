#!/usr/bin/env python3
"""No backend is known by its name outside workloads/ (issue 34).

Usage: scripts/backend-names.py   (from the top of the tree)

A backend describes itself in its table (workloads/backend.h): host or
device, its visible-devices variable, the frameworks' name for its devices.
Code in common/ search/ tuner/ asks the table (rt_backend_on_host,
rt_backend_framework_device) and never names a backend, so that a new plugin
touches nothing outside its folder. The names are the host backend's
(RT_HOST_BACKEND) and each plugin folder's (workloads/NAME/ with a
plugin.mk, the fragment the Makefile builds it by). Outside workloads/, with
comments left out, this fails (exit 1, FILE:LINE and the text) on
- a comparison with a name: strcmp(x, "cuda"), strncmp("cpu", ...);
- a name quoted inside a string, as a framework is told a device:
  "torch.autocast('cuda'", "device='cuda'";
- a device spelt with its index: "cuda:0".
A YAML key that happens to be spelt like a backend ("cpu:" of the machine
section) is neither, and passes; a line that means another program's word
(PyTorch's build flavour 'cuda') says so with the comment "not a backend".
"""
import os
import re
import sys

SOURCES = ("common", "search", "tuner")


def backend_names():
    with open("workloads/backend.h", encoding="utf-8") as f:
        host = re.search(r'#define RT_HOST_BACKEND "([a-z0-9_]+)"', f.read())
    names = [host.group(1)] if host else []
    for d in sorted(os.listdir("workloads")):
        if os.path.exists(os.path.join("workloads", d, "plugin.mk")):
            names.append(d)
    return names


def without_comments(text):
    """text with its comments blanked, line numbers kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"',
                  lambda m: m.group(0) if m.group(0).startswith('"') else blank(m),
                  text, flags=re.S)


def offences(path, names):
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    text = without_comments(raw)
    waived = [i for i, line in enumerate(raw.split("\n"), 1) if "/* not a backend" in line]
    alt = "|".join(map(re.escape, names))
    rules = (
        re.compile(r'\bstrn?cmp\s*\([^;]*"(%s)"' % alt),
        re.compile(r'"[^"\n]*\'(%s)\'[^"\n]*"' % alt),
        re.compile(r'"(%s):[0-9]' % alt),
    )
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        if n not in waived and any(r.search(line) for r in rules):
            out.append(f"{path}:{n}: {line.strip()}")
    return out


def main():
    names = backend_names()
    if not names:
        print("backend-names.py: no backend found in workloads/", file=sys.stderr)
        return 2
    bad = []
    for top in SOURCES:
        for root, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    bad += offences(os.path.join(root, f), names)
    for b in bad:
        print("backend named outside workloads/: " + b)
    print(f"backends: {', '.join(names)}; {len(bad)} named outside workloads/")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
