#!/usr/bin/env python3
"""Writes the hwloc XML topologies the probe tests read (run from tests/data).

hybrid16.xml: one package, 4 E-cores sharing an L2 and 12 P-cores in two
  L2 clusters of 6, no SMT, 128 GiB, with two cpukinds (like an Apple M4 Max).
numa2smt.xml: 2 packages x 1 NUMA node x 8 cores x 2 PUs (SMT), 64 GiB per
  node, made by hwloc's own synthetic backend:
  lstopo-no-graphics --input "pack:2 [numa(memory=68719476736)] l3:1(size=33554432)
    core:8 l2:1(size=1048576) l1d:1(size=49152) pu:2" --of xml numa2smt.xml
"""

GIB = 1 << 30
gp = [1]


def nextgp():
    gp[0] += 1
    return gp[0]


def mask(first, count):
    return "0x%08x" % (((1 << count) - 1) << first)


def cache(kind, depth, size, first, count, inner, indent):
    pad = " " * indent
    ctype = 1 if kind == "L1Cache" else 0
    return (f'{pad}<object type="{kind}" cpuset="{mask(first, count)}" complete_cpuset="{mask(first, count)}" '
            f'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="{nextgp()}" cache_size="{size}" '
            f'depth="{depth}" cache_linesize="64" cache_associativity="0" cache_type="{ctype}">\n'
            f'{inner}{pad}</object>\n')


def core(i, l1):
    pu = (f'        <object type="PU" os_index="{i}" cpuset="{mask(i, 1)}" complete_cpuset="{mask(i, 1)}" '
          f'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="{nextgp()}"/>\n')
    c = (f'        <object type="Core" os_index="{i}" cpuset="{mask(i, 1)}" complete_cpuset="{mask(i, 1)}" '
         f'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="{nextgp()}">\n{pu}        </object>\n')
    return cache("L1Cache", 1, l1, i, 1, c, 6)


def hybrid():
    clusters = [(0, 4, 4 * 1024 * 1024, 64 * 1024), (4, 6, 16 * 1024 * 1024, 128 * 1024),
                (10, 6, 16 * 1024 * 1024, 128 * 1024)]
    body = ""
    for first, count, l2, l1 in clusters:
        body += cache("L2Cache", 2, l2, first, count, "".join(core(i, l1) for i in range(first, first + count)), 4)
    numa = (f'    <object type="NUMANode" os_index="0" cpuset="{mask(0, 16)}" complete_cpuset="{mask(0, 16)}" '
            f'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="{nextgp()}" local_memory="{128 * GIB}"/>\n')
    pkg = (f'  <object type="Package" os_index="0" cpuset="{mask(0, 16)}" complete_cpuset="{mask(0, 16)}" '
           f'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="{nextgp()}">\n'
           f'    <info name="CPUModel" value="Apple M4 Max"/>\n{numa}{body}  </object>\n')
    kinds = (f'  <cpukind cpuset="{mask(0, 4)}" forced_efficiency="0">\n'
             '    <info name="FrequencyMaxMHz" value="2900"/>\n    <info name="CoreType" value="Efficiency"/>\n  </cpukind>\n'
             f'  <cpukind cpuset="{mask(4, 12)}" forced_efficiency="1">\n'
             '    <info name="FrequencyMaxMHz" value="4500"/>\n    <info name="CoreType" value="Performance"/>\n  </cpukind>\n')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
            '<topology version="2.0">\n'
            f'<object type="Machine" os_index="0" cpuset="{mask(0, 16)}" complete_cpuset="{mask(0, 16)}" '
            f'allowed_cpuset="{mask(0, 16)}" nodeset="0x00000001" complete_nodeset="0x00000001" '
            'allowed_nodeset="0x00000001" gp_index="1">\n'
            '  <info name="OSName" value="Linux"/>\n  <info name="OSRelease" value="6.8.0-asahi"/>\n'
            '  <info name="HostName" value="m4max"/>\n  <info name="Architecture" value="aarch64"/>\n'
            f'{pkg}</object>\n{kinds}</topology>\n')


if __name__ == "__main__":
    with open("hybrid16.xml", "w") as f:
        f.write(hybrid())
