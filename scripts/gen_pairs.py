#!/usr/bin/env python3
"""Seeded synthetic pair generator for benchmarks (never all-identical input).

Writes QUERIES and REFS FASTA: each query is uniform random DNA (or protein
with background amino-acid frequencies); its ref is a copy mutated at the
given divergence (substitutions 80%, 1-3 base indels 20%), trimmed or padded
with random residues to the target length.

usage: gen_pairs.py N LEN DIVERGENCE SEED QUERIES REFS [--protein]
"""
import random
import sys

AA = "ARNDCQEGHILKMFPSTWYV"
AA_FREQ = [8.25, 5.53, 4.06, 5.45, 1.37, 3.93, 6.75, 7.07, 2.27, 5.96, 9.66, 5.84, 2.42, 3.86, 4.70, 6.56, 5.34, 1.08, 2.92, 6.87]


def main():
    n, length, div, seed = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    protein = "--protein" in sys.argv
    rng = random.Random(seed)
    letters, weights = (AA, AA_FREQ) if protein else ("ACGT", [1, 1, 1, 1])

    def residues(k):
        return rng.choices(letters, weights, k=k)

    with open(sys.argv[5], "w") as fq, open(sys.argv[6], "w") as fr:
        for i in range(n):
            q = residues(length)
            r = []
            for c in q:
                x = rng.random()
                if x >= div:
                    r.append(c)
                elif x < div * 0.8:
                    r.append(rng.choice([l for l in letters if l != c]))
                elif rng.random() < 0.5:
                    r.append(c)
                    r.extend(residues(rng.randint(1, 3)))
            r = (r + residues(max(0, length - len(r))))[:length]
            fq.write(f">q{i}\n{''.join(q)}\n")
            fr.write(f">r{i}\n{''.join(r)}\n")


if __name__ == "__main__":
    main()
