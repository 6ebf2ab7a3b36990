#!/usr/bin/env python3
"""The merge of workflow/Snakefile (docs/workflow.md, "Merging").

Writes the per-shard outputs PART... (in shard order = input order; an empty
file is an empty shard) into OUT as a single gpualign run over the whole
input writes it, byte for byte:

pairs (sw/nw/sg; shards are runs of consecutive pairs):
  tsv     the header line once, then every shard's rows
  paf     concatenation (PAF has no header)
  blast6  concatenation (no header)
  sam     @HD; the @SQ lines of all shards in first-seen order, a name seen
          twice kept once (two lengths: the error a single run gives); one
          @PG, the shards' with CL: set to the single run's command line
          (--command-line); the @CO lines; then every shard's records

search (shards are runs of consecutive DB records; every shard holds every
query, its hits ordered by score, ties in DB order):
  for each query (--qnames, input order) the hits of all shards, stably
  sorted by score descending (ties keep shard order, i.e. DB order), the
  best --max-hits; tsv as written, blast6 formatted from the TSV columns
  (blast6 has no raw score to order by), sam records (score AS:i) under the
  header merged as above (@SQ: every DB record in DB order), the first of a
  query primary and the others secondary, as one run writes them (another
  shard's primary record becomes FLAG +256, MAPQ 0, SEQ and QUAL '*').

The output is written to OUT.tmp and renamed into place, so a failed merge
leaves no OUT. Python 3 standard library only.
"""
import argparse
import os
import sys

TSV_SEARCH_COLS = 18  # query .. cigar, evalue, bitscore, strand


def die(msg):
    print(f"gpualign workflow (merge): {msg}", file=sys.stderr)
    sys.exit(1)


def header_value(s):
    """gpualign's SAM header_value: tabs and line ends become spaces."""
    return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")


class Part:
    """One shard's output, read line by line (bytes, line ends kept)."""

    def __init__(self, path):
        self.path = path
        self.f = open(path, "rb")
        self.head = []      # SAM header lines or the TSV header line
        self.pending = None  # the first body line, read while looking for the header's end

    def read_sam_header(self):
        for line in self.f:
            if line.startswith(b"@"):
                self.head.append(line)
            else:
                self.pending = line
                break

    def read_tsv_header(self):
        line = self.f.readline()
        if line:
            self.head.append(line)

    def body(self):
        if self.pending is not None:
            yield self.pending
            self.pending = None
        yield from self.f


def merge_sam_headers(parts, command_line):
    hd, pg, co, sq, seen = None, None, [], [], {}
    for p in parts:
        for line in p.head:
            if line.startswith(b"@HD\t"):
                hd = hd or line
            elif line.startswith(b"@SQ\t"):
                fields = dict(f.split(b":", 1) for f in line.rstrip(b"\n").split(b"\t")[1:] if b":" in f)
                name, length = fields.get(b"SN"), fields.get(b"LN")
                if name in seen:
                    if seen[name] != length:
                        die(f"reference name '{name.decode(errors='replace')}' occurs with two lengths "
                            f"({seen[name].decode()} and {length.decode()}); SAM @SQ names must be unique")
                    continue
                seen[name] = length
                sq.append(line)
            elif line.startswith(b"@PG\t"):
                pg = pg or line
            elif line.startswith(b"@CO\t"):
                if p is parts[0]:
                    co.append(line)
            else:
                die(f"{p.path}: unexpected SAM header line {line[:40]!r}")
    if hd is None or pg is None:
        die("a shard's SAM has no @HD or @PG line")
    # gpualign writes CL: as the @PG line's last field.
    fields = pg.rstrip(b"\n").split(b"\t")
    fields = [f for f in fields if not f.startswith(b"CL:")]
    fields.append(b"CL:" + header_value(command_line).encode())
    pg = b"\t".join(fields) + b"\n"
    return [hd] + sq + [pg] + co


def pairs(args, parts, out):
    if args.format == "sam":
        for p in parts:
            p.read_sam_header()
        out.writelines(merge_sam_headers(parts, args.command_line))
    elif args.format == "tsv":
        for p in parts:
            p.read_tsv_header()
        heads = {tuple(p.head) for p in parts}
        if len(heads) != 1:
            die("the shards' TSV headers differ")
        out.writelines(parts[0].head)
    for p in parts:
        for line in p.body():
            out.write(line)


def blast6_line(cols):
    """The blast6 line of a search TSV row (lib/src/formats/blast6_writer.cpp,
    append_blast6_line): the same integers, pident 100 x matches / columns
    with 3 decimals, blastn's minus-strand subject coordinates."""
    (query, _qlen, qbegin, qend, ref, _rlen, rbegin, rend, _score, matches, mismatches, gap_opens, alen,
     _identity, _cigar, evalue, bits, strand) = cols
    length = int(alen)
    pident = 0.0 if length == 0 else 100.0 * float(int(matches)) / float(length)
    if strand == b"-":
        sstart, send = int(rend), int(rbegin) + 1
    else:
        sstart, send = int(rbegin) + 1, int(rend)
    return b"\t".join([query, ref, b"%.3f" % pident, alen, mismatches, gap_opens, b"%d" % (int(qbegin) + 1),
                       qend, b"%d" % sstart, b"%d" % send, evalue, bits]) + b"\n"


def secondary_record(cols):
    """The SAM record `cols` as a secondary hit (lib/src/formats/sam_writer.cpp):
    FLAG + 256, MAPQ 0, SEQ and QUAL '*'; an unmapped or secondary record as it is."""
    flag = int(cols[1])
    if flag & (4 | 256):
        return b"\t".join(cols) + b"\n"
    cols = list(cols)
    cols[1], cols[4], cols[9], cols[10] = b"%d" % (flag | 256), b"0", b"*", b"*"
    return b"\t".join(cols) + b"\n"


def search(args, parts, out):
    k = int(args.max_hits)
    with open(args.qnames, "rb") as f:
        qnames = [line.rstrip(b"\n") for line in f]
    if len(set(qnames)) != len(qnames):
        seen = set()
        dup = next(q for q in qnames if q in seen or seen.add(q))
        die(f"query ID '{dup.decode(errors='replace')}' occurs twice: the merge tells the queries' hits apart "
            "by ID; give the queries distinct IDs or run with shards=1")
    sam = args.format == "sam"
    if sam:
        for p in parts:
            p.read_sam_header()
        out.writelines(merge_sam_headers(parts, args.command_line))
    else:
        for p in parts:
            p.read_tsv_header()
        if len({tuple(p.head) for p in parts}) != 1:
            die("the shards' TSV headers differ")
        if args.format == "tsv":
            out.writelines(parts[0].head)

    def rows(p):
        for line in p.body():
            cols = line.rstrip(b"\n").split(b"\t")
            if sam:
                score = next((int(c[5:]) for c in cols[11:] if c.startswith(b"AS:i:")), None)
                if score is None:
                    die(f"{p.path}: a SAM record without AS:i")
            else:
                if len(cols) != TSV_SEARCH_COLS:
                    die(f"{p.path}: a TSV row with {len(cols)} columns, not {TSV_SEARCH_COLS}")
                score = int(cols[8])
            yield cols[0], score, line, cols

    streams = [rows(p) for p in parts]
    heads = [next(s, None) for s in streams]
    for q in qnames:
        hits = []
        for j, s in enumerate(streams):
            while heads[j] is not None and heads[j][0] == q:
                hits.append(heads[j])
                heads[j] = next(s, None)
        hits.sort(key=lambda h: -h[1])  # stable: ties keep shard order, i.e. DB order
        for rank, (_, _, line, cols) in enumerate(hits[:k]):
            if args.format == "blast6":
                line = blast6_line(cols)
            elif sam and rank > 0:
                line = secondary_record(cols)
            out.write(line)
    for j, h in enumerate(heads):
        if h is not None:
            die(f"{parts[j].path}: hits of query '{h[0].decode(errors='replace')}' out of the queries' order")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["pairs", "search"], required=True)
    p.add_argument("--format", choices=["tsv", "sam", "paf", "blast6"], required=True)
    p.add_argument("--max-hits", default="10")
    p.add_argument("--qnames")
    p.add_argument("--command-line", required=True, help="the equivalent single run's command line (@PG CL)")
    p.add_argument("--out", required=True)
    p.add_argument("parts", nargs="+")
    args = p.parse_args()

    parts = [Part(path) for path in args.parts if os.path.getsize(path) > 0]
    if not parts and not (args.mode == "pairs" and args.format in ("paf", "blast6")):
        die("every shard is empty")  # a TSV or SAM always has its header
    tmp = args.out + ".tmp"
    try:
        with open(tmp, "wb") as out:
            (search if args.mode == "search" else pairs)(args, parts, out)
        os.replace(tmp, args.out)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


if __name__ == "__main__":
    main()
