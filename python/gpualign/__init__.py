"""gpualign: GPU/CPU pairwise sequence alignment and database search from Python.

    import gpualign
    r = gpualign.align(["ACGTACGT", "GGGTTT"], ["ACGTTACGT", "GGTTT"], "global")
    r.score, r.cigar, r.to_tsv("pairs.tsv")

The module runs the library code of the `gpualign` command line: the same
options (parsed and validated by the CLI's own parser), the same backends
(CPU SIMD, one or more GPUs) and the same writers, so to_tsv / to_sam /
to_paf write exactly the CLI's bytes. The GIL is released while aligning.
Coordinates are 0-based half-open. docs/python.md has examples.

Errors: ValueError (bad sequences, naming the list, index and 1-based
position, or the file, record and position; bad option values, naming the
argument), FileNotFoundError (a path that does not exist), TypeError (an item
that is not str/bytes), OSError (an output that cannot be written),
RuntimeError (device failures, naming the CUDA error).
"""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import tempfile
from typing import Any, Optional

# The CUDA settings the CLI chooses before CUDA starts (app/main.cpp): every
# kernel loaded with the context, 4 hardware queues per device. A value the
# user set is kept.
os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")
os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "4")

from . import _core  # noqa: E402
from ._columns import HIT_COLUMNS, PAIR_COLUMNS, Alignment, Alignments, Hit, Hits, _as_sequence  # noqa: E402

__version__ = _core.version
__all__ = ["align", "search", "devices", "ScoringScheme", "Alignments", "Hits", "Alignment", "Hit",
           "PAIR_COLUMNS", "HIT_COLUMNS", "__version__"]

_MODES = {"local": "sw", "global": "nw", "semi-global": "sg"}

# CLI flags as the Python API names them, for the CLI parser's messages.
_PY_NAMES = {
    "--match": "match", "--mismatch": "mismatch", "--gap-open": "gap_open", "--gap-extend": "gap_extend",
    "--matrix": "matrix", "--n-score": "n_score", "--alphabet": "alphabet", "--strand": "strand",
    "--backend": "backend", "--device": "device", "--devices": "device", "--threads": "threads",
    "--score-only": "cigar=False", "--max-hits": "k", "--min-score": "min_score", "--evalue": "evalue",
    "--db-size": "db_size", "--mode": "mode", "--cigar": "sam_cigar", "--batch-pairs": "batch_pairs",
}
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def _python_names(message: str) -> str:
    """A CLI message with its flags named as this module's arguments."""
    return _FLAG.sub(lambda m: _PY_NAMES.get(m.group(0), m.group(0)), message)


@dataclasses.dataclass(frozen=True)
class ScoringScheme:
    """A scoring scheme for align() and search() (scheme=...); None takes the CLI's default.

    match, mismatch   DNA match score and mismatch penalty (>= 0; defaults 2 and 3)
    gap_open          penalty to open a gap (>= 0; a gap of length L costs gap_open + L*gap_extend;
                      0 = linear gaps; default DNA 5, protein 11)
    gap_extend        penalty per gap position (default DNA 2, protein 1)
    matrix            BLOSUM30|45|62|80 or an NCBI-format matrix file (default protein BLOSUM62)
    n_score           DNA: score of N against any base (default -mismatch)
    docs/scoring.md defines the scores. Invalid values raise ValueError when used.
    """

    match: Optional[int] = None
    mismatch: Optional[int] = None
    gap_open: Optional[int] = None
    gap_extend: Optional[int] = None
    matrix: Optional[str] = None
    n_score: Optional[int] = None


def _int_arg(name: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return str(value)


def _choice(name: str, value: Any, choices: tuple) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {'|'.join(choices)}, got {value!r}")
    return value


def _common_args(scheme, match, mismatch, gap_open, gap_extend, matrix, n_score, alphabet, strand, backend,
                 device, threads) -> list:
    """The CLI options of the scoring and execution arguments."""
    given = {"match": match, "mismatch": mismatch, "gap_open": gap_open, "gap_extend": gap_extend,
             "matrix": matrix, "n_score": n_score}
    if scheme is not None:
        if not isinstance(scheme, ScoringScheme):
            raise ValueError(f"scheme must be a gpualign.ScoringScheme, got {type(scheme).__name__}")
        for name, value in dataclasses.asdict(scheme).items():
            if value is not None:
                if given[name] is not None:
                    raise ValueError(f"{name} is given both as an argument and in scheme")
                given[name] = value
    args = []
    for name, value in given.items():
        if value is None:
            continue
        flag = "--" + name.replace("_", "-")
        if name == "matrix":
            if not isinstance(value, (str, os.PathLike)):
                raise ValueError(f"matrix must be a name or a path, got {value!r}")
            args += [flag, os.fspath(value)]
        else:
            args += [flag, _int_arg(name, value)]
    args += ["--alphabet", _choice("alphabet", alphabet, ("auto", "dna", "protein"))]
    args += ["--strand", _choice("strand", strand, ("plus", "both"))]
    args += ["--backend", _choice("backend", backend, ("auto", "cpu", "gpu"))]
    if device is not None:
        args += ["--device", _int_arg("device", device)]
    args += ["--threads", _int_arg("threads", threads), "--progress", "never"]
    return args


def _path_or_none(x: Any, role: str) -> Optional[str]:
    """The path when `x` names a file (str or os.PathLike), else None (a list of sequences).
    Raises FileNotFoundError for a path that does not exist."""
    if isinstance(x, (str, os.PathLike)):
        path = os.fspath(x)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, f"{role}: {os.strerror(errno.ENOENT)}", path)
        return path
    if isinstance(x, bytes):
        raise TypeError(f"{role} must be a list of sequences or a path (str), not bytes")
    return None


def align(queries, refs, mode: str = "local", *, match: Optional[int] = None, mismatch: Optional[int] = None,
          gap_open: Optional[int] = None, gap_extend: Optional[int] = None, matrix: Optional[str] = None,
          n_score: Optional[int] = None, scheme: Optional[ScoringScheme] = None, alphabet: str = "auto",
          strand: str = "plus", cigar: bool = True, sam_cigar: str = "eqx", backend: str = "auto",
          device: Optional[int] = None, threads: int = 0) -> Alignments:
    """Aligns queries[k] with refs[k] for every k; returns an Alignments (one row per pair, input order).

    queries, refs  both lists (or other sequences) of str/bytes, or of (name, sequence) tuples;
                   or both paths of FASTA/FASTQ files (plain, gzip, bzip2, xz or zstd), record k with record k.
    mode           "local" (Smith-Waterman-Gotoh, `gpualign sw`), "global" (Needleman-Wunsch-Gotoh,
                   `nw`) or "semi-global" (the query end to end, the ref's end gaps free, `sg`).
    match, mismatch, gap_open, gap_extend, matrix, n_score, scheme
                   the scoring scheme (ScoringScheme; docs/scoring.md); None: the CLI's defaults.
    alphabet       "auto" (decided from the first 16 sequences of each side), "dna" or "protein".
    strand         "plus", or "both" (DNA: also the query's reverse complement, keeping the better).
    cigar          False: score and coordinates only (faster; the CIGAR columns are -1 / '*').
    sam_cigar      to_sam/to_paf CIGARs: "eqx" (= and X) or "m" (M, as BWA and minimap2 write).
    backend        "auto" (a GPU when one is visible), "cpu" or "gpu"; device: the CUDA ordinal.
    threads        CPU threads, 0 = all cores.

    A zero-length sequence is aligned as the CLI aligns one (docs/scoring.md).
    Raises ValueError (a bad option value; lists of different lengths; a letter
    outside the alphabet, naming list, index and 1-based position; in files: file, record and
    position), FileNotFoundError, TypeError (an item that is not str/bytes), RuntimeError (device
    errors, with the CUDA error's name, e.g. backend="gpu" without a device).
    """
    cmd = _MODES.get(mode) if isinstance(mode, str) else None
    if cmd is None:
        raise ValueError(f"mode must be one of local|global|semi-global, got {mode!r}")
    qpath, rpath = _path_or_none(queries, "queries"), _path_or_none(refs, "refs")
    if (qpath is None) != (rpath is None):
        raise ValueError("queries and refs must both be lists of sequences or both be paths")
    if not isinstance(cigar, bool):
        raise ValueError(f"cigar must be True or False, got {cigar!r}")
    args = _common_args(scheme, match, mismatch, gap_open, gap_extend, matrix, n_score, alphabet, strand,
                        backend, device, threads)
    if _choice("sam_cigar", sam_cigar, ("eqx", "m")) != "eqx":
        args += ["--cigar", sam_cigar]
    if not cigar:
        args.append("--score-only")
    argv = ["gpualign", cmd, qpath or "QUERIES", rpath or "REFS"] + args
    try:
        if qpath is not None:
            core = _core.align_paths(argv)
        else:
            core = _core.align_lists(argv, _as_sequence(queries), _as_sequence(refs))
    except ValueError as e:
        raise ValueError(_python_names(str(e))) from None
    except RuntimeError as e:
        raise RuntimeError(_python_names(str(e))) from None
    return Alignments(core, argv, _python_names)


def _write_fasta(items, path: str, role: str, prefix: str) -> None:
    """Writes a list of sequences (str/bytes or (name, sequence)) as FASTA for the CLI's readers.
    Raises ValueError for a character that is not a letter or '*' (FASTA readers drop digits and
    blanks, and a line break or '>' would start another record), TypeError."""
    with open(path, "w", encoding="utf-8") as f:
        for k, item in enumerate(items):
            name, seq = item if isinstance(item, tuple) and len(item) == 2 else (f"{prefix}{k}", item)
            if isinstance(seq, bytes):
                seq = seq.decode("latin-1")
            if isinstance(name, bytes):
                name = name.decode("latin-1")
            if not isinstance(seq, str) or not isinstance(name, str):
                raise TypeError(f"{role}[{k}]: a sequence must be str or bytes, not {type(seq).__name__}")
            bad = re.search(r"[^A-Za-z*]", seq)
            if bad:
                raise ValueError(f"{role}[{k}] '{name}': character {bad.group(0)!r} at position {bad.start() + 1} "
                                 "is not a letter")
            if not name or re.search(r"\s", name):
                raise ValueError(f"{role}[{k}] '{name}': the name must be one word, not empty")
            f.write(f">{name}\n{seq}\n")


def search(queries, db, k: int = 10, mode: str = "local", *, evalue: Optional[float] = None,
           min_score: Optional[int] = None, db_size: Optional[int] = None, match: Optional[int] = None,
           mismatch: Optional[int] = None, gap_open: Optional[int] = None, gap_extend: Optional[int] = None,
           matrix: Optional[str] = None, n_score: Optional[int] = None, scheme: Optional[ScoringScheme] = None,
           alphabet: str = "auto", strand: str = "plus", cigar: bool = True, backend: str = "auto",
           device: Optional[int] = None, threads: int = 0) -> Hits:
    """Searches every query against every DB record (`gpualign search`); returns the hits as Hits.

    queries   a list of str/bytes or (name, sequence) tuples (named q0, q1, ... otherwise), or a
              FASTA/FASTQ path.
    db        likewise (records named d0, d1, ...), a FASTA path, or a DB built by `gpualign makedb`.
    k         hits per query (the best by score, ties in DB order).
    mode      "local", "global" or "semi-global".
    evalue    report hits with E-value <= this only; min_score: with score >= this only;
    db_size   the DB size in letters for E-values (BLAST's -dbsize).
    Other arguments as in align(). Lists go to temporary FASTA files read by the CLI's readers
    (kept while the Hits object lives, for to_sam/to_blast6).

    Raises ValueError, FileNotFoundError, TypeError, RuntimeError as align() does.
    """
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"mode must be one of local|global|semi-global, got {mode!r}")
    qpath, dbpath = _path_or_none(queries, "queries"), _path_or_none(db, "db")
    if not isinstance(cigar, bool):
        raise ValueError(f"cigar must be True or False, got {cigar!r}")
    args = _common_args(scheme, match, mismatch, gap_open, gap_extend, matrix, n_score, alphabet, strand,
                        backend, device, threads)
    args += ["--max-hits", _int_arg("k", k), "--mode", mode]
    if min_score is not None:
        args += ["--min-score", _int_arg("min_score", min_score)]
    if evalue is not None:
        if isinstance(evalue, bool) or not isinstance(evalue, (int, float)):
            raise ValueError(f"evalue must be a number, got {evalue!r}")
        args += ["--evalue", repr(float(evalue))]
    if db_size is not None:
        args += ["--db-size", _int_arg("db_size", db_size)]
    if not cigar:
        args.append("--score-only")
    workdir = tempfile.TemporaryDirectory(prefix="gpualign-search-")
    names = {}
    if qpath is None:
        qpath = os.path.join(workdir.name, "queries.fa")
        _write_fasta(_as_sequence(queries), qpath, "queries", "q")
        names[qpath] = "queries"
    if dbpath is None:
        dbpath = os.path.join(workdir.name, "db.fa")
        _write_fasta(_as_sequence(db), dbpath, "db", "d")
        names[dbpath] = "db"

    def renamer(message: str) -> str:
        for path, role in names.items():
            message = message.replace(path, role)
        return _python_names(message)

    argv = ["gpualign", "search", qpath, dbpath] + args
    tsv = os.path.join(workdir.name, "hits.tsv")
    try:
        _core.search(argv + ["-o", tsv, "--format", "tsv"])
    except ValueError as e:
        raise ValueError(renamer(str(e))) from None
    except RuntimeError as e:
        raise RuntimeError(renamer(str(e))) from None
    return Hits(tsv, argv, workdir, renamer)


def devices() -> list:
    """The visible CUDA devices: a list of dicts with index (ordinal), name, memory_mib (total device
    memory) and description (name, compute capability, SMs, memory). Empty without a device or a
    CUDA build."""
    out = []
    for index, description in _core.devices():
        m = re.match(r"(.*?) \((.*)\)$", description)
        name = m.group(1) if m else description
        mem = re.search(r"(\d+) MiB", description)
        out.append({"index": index, "name": name, "memory_mib": int(mem.group(1)) if mem else None,
                    "description": description})
    return out
