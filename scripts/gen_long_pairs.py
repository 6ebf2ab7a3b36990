#!/usr/bin/env python3
"""Seeded synthetic long DNA pairs (issue 11), as gpualign_long_bench makes them.

Writes QUERIES and REFS FASTA (80 columns; record i of one pairs with record i
of the other): each query is uniform random DNA (A, C, G, T); its ref is a
copy mutated at the given divergence (substitutions 80%, insertions 10% and
deletions 10% of 1-10 bases; divergence = expected fraction of query
positions mutated). Never all-identical input. Python 3 standard library only.

The bytes equal those of bench/long_bench.cpp (generate_pairs; its
`--dump-fasta DIR`) for the same parameters: one splitmix64 stream for the
whole set; per pair
  1. L = min_length + below(max_length - min_length + 1)
  2. the query: L bases, 2 bits each from one 64-bit draw per 32 bases
     (lowest bits first), 0..3 = A C G T
  3. the ref: per query position a 16-bit value (four per draw, lowest
     first; emptied at the start of each pair) below
     t = floor(65536 * divergence / 1.9 + 0.5) makes an event:
     k = below(10): k < 8 substitution (base + 1 + below(3)) mod 4; k = 8
     insertion of 1 + below(10) bases (below(4) each) before the position;
     k = 9 deletion of 1 + below(10) positions. (1.9 = mean positions per event.)
  4. ref empty: one base below(4); ref == query: its middle base + 1 mod 4.
below(n) = floor(draw * n / 2^64).

The bench's synthetic workloads (base seed S = 20261111, its --seed):
  syn1m5    --length 1000000 --divergence 0.05 --seed S
  syn1m20   --length 1000000 --divergence 0.2  --seed S+1
  bulk2000  --pairs 2000 --min-length 5000 --max-length 50000 --divergence 0.1 --seed S+2
(--preset NAME sets these.)

usage: gen_long_pairs.py (--length N | --min-length A --max-length B) [--pairs N]
                         [--divergence D] [--seed S] QUERIES REFS
       gen_long_pairs.py --preset syn1m5|syn1m20|bulk2000 [--seed S] QUERIES REFS
"""
import argparse
import sys

MASK = (1 << 64) - 1
LETTERS = "ACGT"
BASE_SEED = 20261111
PRESETS = {
    # name: (pairs, min_length, max_length, divergence, seed offset)
    "syn1m5": (1, 1000000, 1000000, 0.05, 0),
    "syn1m20": (1, 1000000, 1000000, 0.20, 1),
    "bulk2000": (2000, 5000, 50000, 0.10, 2),
}


class SplitMix64:
    __slots__ = ("s",)

    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return (self.next() * n) >> 64


# 16 bits -> the 8 bases they encode (lowest 2 bits first), as ACGT indices.
_QUAD = [bytes((x >> (2 * k)) & 3 for k in range(8)) for x in range(1 << 16)]


def random_bases(g, length):
    out = bytearray()
    for _ in range((length + 31) // 32):
        w = g.next()
        out += _QUAD[w & 0xFFFF] + _QUAD[(w >> 16) & 0xFFFF] + _QUAD[(w >> 32) & 0xFFFF] + _QUAD[w >> 48]
    del out[length:]
    return out


def mutate(g, q, divergence):
    t = 65536.0 * (divergence / 1.9) + 0.5
    thr = 65536 if t >= 65536.0 else int(t)
    n = len(q)
    r = bytearray()
    i = 0
    buf = 0
    left = 0
    while i < n:
        if left == 0:
            buf = g.next()
            # Fast path: no event among the next four positions.
            if (buf & 0xFFFF) >= thr and ((buf >> 16) & 0xFFFF) >= thr and \
                    ((buf >> 32) & 0xFFFF) >= thr and (buf >> 48) >= thr:
                r += q[i:i + 4]
                i += 4
                continue
            left = 4
        c = buf & 0xFFFF
        buf >>= 16
        left -= 1
        if c >= thr:
            r.append(q[i])
            i += 1
            continue
        kind = g.below(10)
        if kind < 8:
            r.append((q[i] + 1 + g.below(3)) & 3)
            i += 1
        elif kind == 8:
            k = 1 + g.below(10)
            for _ in range(k):
                r.append(g.below(4))
            r.append(q[i])
            i += 1
        else:
            i += 1 + g.below(10)
    if not r:
        r.append(g.below(4))
    if r == q:
        r[n // 2] = (r[n // 2] + 1) & 3
    return r


def generate(seed, pairs, min_length, max_length, divergence):
    g = SplitMix64(seed)
    for _ in range(pairs):
        length = min_length + g.below(max_length - min_length + 1)
        q = random_bases(g, length)
        yield q, mutate(g, q, divergence)


_TO_LETTERS = bytes.maketrans(bytes(range(4)), LETTERS.encode())


def write_record(f, name, seq):
    f.write(b">" + name.encode() + b"\n")
    s = bytes(seq).translate(_TO_LETTERS)
    for k in range(0, len(s), 80):
        f.write(s[k:k + 80] + b"\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("queries", help="output FASTA of the queries")
    ap.add_argument("refs", help="output FASTA of the refs")
    ap.add_argument("--preset", choices=sorted(PRESETS), help="a workload of gpualign_long_bench")
    ap.add_argument("--length", type=int, help="query length (sets --min-length and --max-length)")
    ap.add_argument("--min-length", type=int)
    ap.add_argument("--max-length", type=int)
    ap.add_argument("--pairs", type=int, default=1)
    ap.add_argument("--divergence", type=float, default=0.05)
    ap.add_argument("--seed", type=int, help="seed (default %d; with --preset the bench's base seed)" % BASE_SEED)
    a = ap.parse_args()
    if a.preset:
        pairs, lo, hi, div, off = PRESETS[a.preset]
        seed = (a.seed if a.seed is not None else BASE_SEED) + off
    else:
        lo = a.min_length if a.min_length is not None else a.length
        hi = a.max_length if a.max_length is not None else a.length
        if lo is None or hi is None:
            ap.error("give --length, or --min-length and --max-length, or --preset")
        pairs, div = a.pairs, a.divergence
        seed = a.seed if a.seed is not None else BASE_SEED
    if lo < 1 or hi < lo or pairs < 1 or not 0.0 <= div <= 1.9:
        ap.error("need 1 <= min-length <= max-length, pairs >= 1, 0 <= divergence <= 1.9")
    with open(a.queries, "wb") as fq, open(a.refs, "wb") as fr:
        for i, (q, r) in enumerate(generate(seed, pairs, lo, hi, div)):
            write_record(fq, "q%d" % i, q)
            write_record(fr, "r%d" % i, r)
    print("%s, %s: %d pair(s) of %d-%d, divergence %g, seed %d" % (a.queries, a.refs, pairs, lo, hi, div, seed),
          file=sys.stderr)


if __name__ == "__main__":
    main()
