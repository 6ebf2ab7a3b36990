#!/usr/bin/env python3
"""The Python module's overhead against the CLI on the same 100,000 pairs (docs/benchmarks.md).

Times, with the same backend and threads, the median of --repeat runs of:
  cli          `gpualign sw Q.fa R.fa -o out.tsv` (process start, reading, aligning, writing)
  py lists     gpualign.align(queries, refs) on Python lists of str
  py lists+tsv the same, then .to_tsv(out)
  py files+tsv gpualign.align("Q.fa", "R.fa") then .to_tsv(out)
and checks that the TSV bytes are the CLI's. DNA pairs of 100-150 bp, the query a copy of its
ref with 5% of the letters redrawn (seeded, the same every run).

    PYTHONPATH=build/python python3 bench/python_overhead.py --binary build/app/gpualign \
        --backend cpu --threads 2
    # on a GPU machine: --backend gpu
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def make_pairs(n: int, seed: int):
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    queries, refs = [], []
    for _ in range(n):
        length = int(rng.integers(100, 151))
        ref = letters[rng.integers(0, 4, length)]
        query = ref.copy()
        flips = rng.integers(0, length, length // 20)
        query[flips] = letters[rng.integers(0, 4, flips.size)]
        queries.append(query.tobytes().decode())
        refs.append(ref.tobytes().decode())
    return queries, refs


def timed(fn, repeat: int):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/app/gpualign")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu", "auto"])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cigar", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args()

    import gpualign

    queries, refs = make_pairs(args.pairs, 1)
    with tempfile.TemporaryDirectory(prefix="gpualign-bench-") as tmp:
        tmp = pathlib.Path(tmp)
        q, r = tmp / "q.fa", tmp / "r.fa"
        q.write_text("".join(f">q{k}\n{s}\n" for k, s in enumerate(queries)))
        r.write_text("".join(f">r{k}\n{s}\n" for k, s in enumerate(refs)))
        opts = ["--backend", args.backend, "--threads", str(args.threads)] + ([] if args.cigar else ["--score-only"])
        cli_argv = [args.binary, "sw", str(q), str(r), "-o", str(tmp / "cli.tsv"), "-q"] + opts
        kw = dict(backend=args.backend, threads=args.threads, cigar=args.cigar)

        subprocess.run(cli_argv, check=True)  # warm-up: page cache, CUDA driver
        gpualign.align(queries[:1000], refs[:1000], **kw)
        results = {
            "cli": timed(lambda: subprocess.run(cli_argv, check=True), args.repeat),
            "py lists": timed(lambda: gpualign.align(queries, refs, **kw), args.repeat),
            "py lists+tsv": timed(lambda: gpualign.align(queries, refs, **kw).to_tsv(tmp / "py.tsv"), args.repeat),
            "py files+tsv": timed(lambda: gpualign.align(str(q), str(r), **kw).to_tsv(tmp / "pyf.tsv"),
                                  args.repeat),
        }
        same = (tmp / "py.tsv").read_bytes() == (tmp / "cli.tsv").read_bytes() == (tmp / "pyf.tsv").read_bytes()
        info = gpualign.align(queries[:10], refs[:10], **kw).info

    cli = results["cli"][0]
    print(f"{args.pairs} pairs, DNA 100-150 bp, sw, {'CIGAR' if args.cigar else 'score-only'}, backend "
          f"{info['backend']}, median of {args.repeat}; TSV bytes equal to the CLI's: {same}")
    print(f"{'run':<14} {'median s':>9} {'vs cli':>8}   all runs (s)")
    for name, (med, times) in results.items():
        print(f"{name:<14} {med:9.3f} {100 * (med - cli) / cli:+7.1f}%   {' '.join(f'{t:.3f}' for t in times)}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
