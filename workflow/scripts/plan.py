#!/usr/bin/env python3
"""The shard plan of workflow/Snakefile (docs/workflow.md, "Sharding").

Reads the record lengths with `seqkit fx2tab -n -i -l`, cuts the records into
K runs of consecutive records holding about equal bases (pairs: query + ref
bases of each pair, QUERIES and REFS cut in step; search: the DB's records;
db-file, a search against a DB file of `gpualign makedb`: the queries, each
shard searching the whole DB), and writes

  OUTDIR/range.I   seqkit's `range -r A:B` (1-based, inclusive) of shard I,
                   empty for an empty shard (more shards than records);
  OUTDIR/extra     the options every shard's gpualign call gets: the alphabet
                   of the whole input (--detect-alphabet) and, for search, the
                   whole DB's letters (--db-size) and sequence count
                   (--db-seqs), which the E-values' length adjustment needs;
  OUTDIR/qnames    search: the query IDs in input order (the merge walks them).

Python 3 standard library only; seqkit does the reading.
"""
import argparse
import os
import subprocess
import sys


def die(msg):
    print(f"gpualign workflow (plan): {msg}", file=sys.stderr)
    sys.exit(1)


def seqkit(args, cmd):
    try:
        return subprocess.run([args.seqkit] + cmd, check=True, stdout=subprocess.PIPE).stdout
    except FileNotFoundError:
        die(f"seqkit not found ('{args.seqkit}')")
    except subprocess.CalledProcessError as e:
        die(f"`seqkit {' '.join(cmd)}` failed (exit {e.returncode})")


def lengths(args, path):
    """(IDs, lengths) of every record of path, in order."""
    ids, lens = [], []
    for line in seqkit(args, ["fx2tab", "-n", "-i", "-l", path]).splitlines():
        name, _, n = line.rpartition(b"\t")
        ids.append(name)
        lens.append(int(n))
    return ids, lens


# gpualign's guess_alphabet (lib/src/io/sequence_io.cpp), over the records its
# SequenceReader peeks: up to 16 records, stopping once 100,000 letters are in.
DETECT_MAX_RECORDS = 16
DETECT_MAX_LETTERS = 100_000
DNA_LETTERS = set(b"ACGTUNRYKMSWBDHV")
CORE = set(b"ACGTUN")


def detect_alphabet(args, path):
    seqs = seqkit(args, ["head", "-n", str(DETECT_MAX_RECORDS), path])
    seqs = subprocess.run([args.seqkit, "seq", "-s", "-w", "0"], input=seqs, check=True,
                          stdout=subprocess.PIPE).stdout.split(b"\n")
    total = core = letters = 0
    for n, s in enumerate(seqs[:DETECT_MAX_RECORDS]):
        if letters >= DETECT_MAX_LETTERS:
            break
        letters += len(s)
        for c in s.upper():
            if c == ord("*"):
                return "protein"
            if c < ord("A") or c > ord("Z"):
                continue
            if c not in DNA_LETTERS:
                return "protein"
            total += 1
            core += c in CORE
    return "dna" if core * 2 >= total else "protein"


def cut(weights, k):
    """K runs of consecutive items, run j ending where the running sum comes
    nearest to j/K of the total (no run empty while there are at least K
    items); [(first, last)] 0-based inclusive, None for an empty run."""
    n = len(weights)
    prefix = [0]
    for w in weights:
        prefix.append(prefix[-1] + w)
    total = prefix[-1]
    bounds = [0]
    i = 0
    for j in range(1, k):
        target = total * j / k
        while i < n and prefix[i + 1] <= target:
            i += 1
        best = i + 1 if i < n and prefix[i + 1] - target < target - prefix[i] else i
        lo, hi = (bounds[-1] + 1, n - (k - j)) if n >= k else (bounds[-1], n)
        bounds.append(min(max(best, lo), hi))
    bounds.append(n)
    return [(a, b - 1) if b > a else None for a, b in zip(bounds, bounds[1:])]


def db_file_alphabet(path):
    """The alphabet stored in a DB file's header (search_db.hpp: byte 12)."""
    with open(path, "rb") as f:
        head = f.read(13)
    if len(head) < 13 or head[12] not in (0, 1):
        die(f"{path}: not a DB file that this workflow reads")
    return "protein" if head[12] == 1 else "dna"


def plan_db_file(args, qlens):
    """A search against a DB file: the queries cut by their letters; the
    alphabet is the DB's (the queries must look alike); no --db-size or
    --db-seqs, as every shard searches the whole DB."""
    extra = []
    if args.detect_alphabet:
        qa, da = detect_alphabet(args, args.queries), db_file_alphabet(args.refs)
        if qa != da:
            die(f"QUERIES {args.queries} looks like {qa} but DB {args.refs} holds {da} records; "
                f"choose one with --alphabet dna|protein in args")
        extra += ["--alphabet", da]
    write_plan(args, cut(qlens, args.shards), extra, [])


def write_plan(args, runs, extra, qids):
    os.makedirs(args.outdir, exist_ok=True)
    for i, run in enumerate(runs):
        with open(os.path.join(args.outdir, f"range.{i}"), "w") as f:
            if run:
                f.write(f"{run[0] + 1}:{run[1] + 1}\n")
    with open(os.path.join(args.outdir, "extra"), "w") as f:
        f.write(" ".join(extra) + "\n")
    with open(os.path.join(args.outdir, "qnames"), "wb") as f:
        f.write(b"".join(q + b"\n" for q in qids))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["pairs", "search", "db-file"], required=True)
    p.add_argument("--queries", required=True)
    p.add_argument("--refs", required=True)
    p.add_argument("--shards", type=int, required=True)
    p.add_argument("--outdir", required=True)
    p.add_argument("--seqkit", default="seqkit")
    p.add_argument("--detect-alphabet", action="store_true")
    p.add_argument("--db-size", action="store_true")
    p.add_argument("--db-seqs", action="store_true")
    args = p.parse_args()

    qids, qlens = lengths(args, args.queries)
    if not qids:
        die(f"{args.queries}: no records")
    if args.mode == "db-file":
        plan_db_file(args, qlens)
        return
    rids, rlens = lengths(args, args.refs)
    if not rids:
        die(f"{args.refs}: no records")
    if args.mode == "pairs":
        if len(qids) != len(rids):
            die(f"QUERIES {args.queries} has {len(qids)} records but REFS {args.refs} has {len(rids)}")
        weights = [a + b for a, b in zip(qlens, rlens)]
    else:
        weights = rlens
    extra = []
    if args.detect_alphabet:
        qa, ra = detect_alphabet(args, args.queries), detect_alphabet(args, args.refs)
        if qa != ra:
            die(f"QUERIES {args.queries} looks like {qa} but {'DB' if args.mode == 'search' else 'REFS'} "
                f"{args.refs} looks like {ra}; choose one with --alphabet dna|protein in args")
        extra += ["--alphabet", qa]
    if args.db_size:
        extra += ["--db-size", str(sum(rlens))]
    if args.db_seqs:
        extra += ["--db-seqs", str(len(rlens))]

    write_plan(args, cut(weights, args.shards), extra, qids if args.mode == "search" else [])


if __name__ == "__main__":
    main()
