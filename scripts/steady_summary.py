#!/usr/bin/env python3
"""Summarises the output of bench/device_steady.sh (saved to a file): per binary
and output mode, the median process wall of (a), (a)x2 and (a)x6, the GCUPS of
(a) by process wall, and the steady-state GCUPS 4 x 2.62e10 cells /
(wall (a)x6 - wall (a)x2), by process wall and by the in-process total.
Usage: scripts/steady_summary.py STEADY_OUTPUT.txt"""
import re,sys,statistics,collections
rows=collections.defaultdict(list)
for line in open(sys.argv[1]):
    m=re.match(r"(\w+) (\w+) (a\d?) wall_ms=(\d+) total_s=([0-9.]+) init_s=([0-9.]+) cpu_user_sys_s=([0-9.]+) ([0-9.]+)",line)
    if m: rows[(m[1],m[2],m[3])].append((int(m[4])/1000,float(m[5]),float(m[6]),float(m[7])+float(m[8])))
cells=2.62144e10
for (label,tag) in sorted({(k[0],k[1]) for k in rows}):
    med=lambda inp,i: statistics.median(r[i] for r in rows[(label,tag,inp)])
    if not rows[(label,tag,'a6')]: continue
    w=[med(x,0) for x in ('a','a2','a6')]; t=[med(x,1) for x in ('a','a2','a6')]; c=[med(x,3) for x in ('a','a2','a6')]
    print(f"{label} {tag}: wall a/a2/a6 {w[0]:.3f}/{w[1]:.3f}/{w[2]:.3f} s; (a) by wall {cells/w[0]/1e9:.1f} GCUPS; steady (a6-a2) by wall {4*cells/(w[2]-w[1])/1e9:.0f}, by in-process total {4*cells/(t[2]-t[1])/1e9:.0f} GCUPS; cpu a6-a2 {c[2]-c[1]:.2f} s")
