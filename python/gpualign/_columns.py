"""The columnar results of gpualign.align and gpualign.search."""

from __future__ import annotations

import collections
import os
import shutil
from typing import Any, Sequence

import numpy as np

#: The columns of gpualign.align's results, in the CLI's TSV order
#: (docs/python.md).
PAIR_COLUMNS = (
    "query", "query_len", "query_begin", "query_end", "ref", "ref_len", "ref_begin", "ref_end", "score",
    "matches", "mismatches", "gap_opens", "alignment_len", "identity", "cigar", "strand",
)
#: The columns of gpualign.search's hits, in the CLI's search TSV order.
HIT_COLUMNS = PAIR_COLUMNS[:-1] + ("evalue", "bitscore", "strand")

_INT_COLUMNS = {"query_len", "query_begin", "query_end", "ref_len", "ref_begin", "ref_end", "score", "matches",
                "mismatches", "gap_opens", "alignment_len"}

#: One pair (or hit) as indexing returns it: the columns' values as Python
#: scalars.
Alignment = collections.namedtuple("Alignment", PAIR_COLUMNS)
Hit = collections.namedtuple("Hit", HIT_COLUMNS)


class _Columnar:
    """Columns of equal length, read by attribute (``r.score``), a row by index (``r[0]``)."""

    _names: tuple = ()
    _row: Any = None

    def _column(self, name: str):
        raise NotImplementedError

    @property
    def columns(self) -> tuple:
        """The column names, in the CLI's TSV order."""
        return self._names

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in type(self)._names:
            raise AttributeError(f"{type(self).__name__} has no attribute or column {name!r}")
        return self._column(name)

    def __getitem__(self, index: int):
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
            raise TypeError(f"{type(self).__name__} indices must be integers, not {type(index).__name__}")
        n = len(self)
        k = int(index) + n if index < 0 else int(index)
        if not 0 <= k < n:
            raise IndexError(f"index {int(index)} is out of range for {n} rows")
        values = []
        for name in self._names:
            v = self._column(name)[k]
            values.append(v.item() if isinstance(v, np.generic) else v)
        return self._row(*values)

    def __iter__(self):
        for k in range(len(self)):
            yield self[k]

    def to_dict(self) -> dict:
        """The columns as a dict of name -> NumPy array or list, in TSV order."""
        return {name: self._column(name) for name in self._names}

    def to_pandas(self):
        """A pandas DataFrame with one column per TSV column (needs pandas: apt install python3-pandas).

        Raises ImportError when pandas is not installed.
        """
        import pandas as pd  # optional dependency

        return pd.DataFrame(self.to_dict(), columns=list(self._names))

    def __repr__(self) -> str:
        return f"<gpualign.{type(self).__name__}: {len(self)} rows; columns {', '.join(self._names)}>"


class Alignments(_Columnar):
    """The alignments of one gpualign.align call: row k is queries[k] against refs[k].

    Columns (attributes; the CLI's TSV columns, docs/python.md), each of length len(self):
      query, ref             list of str: the names (list input: q0, q1, ... and r0, r1, ...
                             unless (name, sequence) tuples were given)
      query_len, ref_len     int64 array: sequence lengths in letters
      query_begin, query_end int64 array: 0-based half-open, on the query's forward strand
      ref_begin, ref_end     int64 array: 0-based half-open
      score                  int64 array: the alignment score
      matches, mismatches, gap_opens, alignment_len
                             int64 array: '=' and 'X' columns, gap runs, alignment columns;
                             -1 with cigar=False
      identity               float64 array: matches / alignment_len (0.0 for an unaligned pair;
                             NaN with cigar=False)
      cigar                  list of str: = X I D operations ('*' unaligned or with cigar=False)
      strand                 str array of '+' / '-': the query strand aligned
    A local pair that does not align (best score 0) has query_begin == query_end.

    Also: len(), r[k] (an Alignment named tuple), iteration, to_dict(), to_pandas(),
    to_tsv/to_sam/to_paf/to_blast6 (the CLI's bytes), and `info` (alphabet, scheme, backend).
    """

    _names = PAIR_COLUMNS
    _row = Alignment

    def __init__(self, core, argv: list, renamer):
        self._core = core
        self._argv = list(argv)
        self._cache: dict = {}
        self._renamer = renamer

    def __len__(self) -> int:
        return len(self._core)

    def _column(self, name: str):
        col = self._cache.get(name)
        if col is None:
            col = self._core.column(name)
            if isinstance(col, np.ndarray):
                col.flags.writeable = False
            self._cache[name] = col
        return col

    @property
    def info(self) -> dict:
        """How the pairs were aligned: alphabet ('dna'/'protein'), matrix (name, or match/mismatch for DNA),
        gap_open, gap_extend (penalties), backend (as the CLI's closing log line names it), seconds
        (wall time of aligning), cells (DP cells, both strands counted)."""
        c = self._core
        return {"alphabet": c.alphabet, "matrix": c.matrix, "gap_open": c.gap_open, "gap_extend": c.gap_extend,
                "backend": c.backend, "seconds": c.seconds, "cells": c.cells}

    def _write(self, path, fmt: str, command_line=None) -> None:
        argv = self._argv + ["-o", os.fspath(path), "--format", fmt]
        try:
            self._core.write(argv, command_line)
        except ValueError as e:
            raise ValueError(self._renamer(str(e))) from None

    def to_tsv(self, path) -> None:
        """Writes the CLI's TSV (header row, then one line per pair) to `path` ('-' = stdout).

        The same bytes as `gpualign sw|nw|sg` with the same inputs and options. Raises OSError
        when the file cannot be written (nothing is left behind)."""
        self._write(path, "tsv")

    def to_sam(self, path, command_line: str | None = None) -> None:
        """Writes the CLI's SAM to `path`; @PG CL is `command_line`, by default the equivalent
        gpualign command line. Raises ValueError with cigar=False (as the CLI refuses
        --score-only SAM), OSError when the file cannot be written."""
        self._write(path, "sam", command_line)

    def to_paf(self, path) -> None:
        """Writes the CLI's PAF (aligned pairs only) to `path`. Raises ValueError with cigar=False."""
        self._write(path, "paf")

    def to_blast6(self, path) -> None:
        """Writes BLAST tabular (-outfmt 6) lines of the aligned pairs, E-values as the CLI gives them."""
        self._write(path, "blast6")


class Hits(_Columnar):
    """The hits of one gpualign.search call, queries in input order, each query's hits by score
    (descending), ties in DB order.

    Columns: those of Alignments (query, ref = the DB record's name, ...) plus
      evalue, bitscore   float64 array: BLAST-style statistics (NaN where the scheme has no
                         published Karlin-Altschul parameters, or outside local mode)
    in the CLI's search TSV order. to_tsv/to_sam/to_blast6 write the CLI's bytes.
    """

    _names = HIT_COLUMNS
    _row = Hit

    def __init__(self, tsv_path: str, argv: list, workdir, renamer):
        self._argv = list(argv)
        self._workdir = workdir  # keeps the temporary inputs and the TSV for later writes
        self._tsv = tsv_path
        self._renamer = renamer
        self._cols = _read_hits_tsv(tsv_path)

    def __len__(self) -> int:
        return len(self._cols["score"])

    def _column(self, name: str):
        return self._cols[name]

    def to_tsv(self, path) -> None:
        """Writes the CLI's search TSV to `path` (the bytes of `gpualign search ... --format tsv`)."""
        shutil.copyfile(self._tsv, os.fspath(path))

    def _rerun(self, path, fmt: str) -> None:
        from . import _core

        try:
            _core.search(self._argv + ["-o", os.fspath(path), "--format", fmt])
        except ValueError as e:
            raise ValueError(self._renamer(str(e))) from None

    def to_sam(self, path) -> None:
        """Writes the CLI's search SAM to `path` (runs the search again with SAM output)."""
        self._rerun(path, "sam")

    def to_blast6(self, path) -> None:
        """Writes BLAST tabular (-outfmt 6) to `path` (runs the search again)."""
        self._rerun(path, "blast6")


def _read_hits_tsv(path: str) -> dict:
    """The columns of a search TSV file as Hits holds them."""
    with open(path, encoding="utf-8", errors="replace") as f:
        header = f.readline().rstrip("\n").split("\t")
        if tuple(header) != HIT_COLUMNS:
            raise RuntimeError(f"unexpected search TSV header: {header}")
        rows = [line.rstrip("\n").split("\t") for line in f]
    cols = list(zip(*rows)) if rows else [()] * len(HIT_COLUMNS)
    out: dict = {}
    for name, values in zip(HIT_COLUMNS, cols):
        if name in _INT_COLUMNS:
            out[name] = np.array([-1 if v == "*" else int(v) for v in values], dtype=np.int64)
        elif name in ("identity", "evalue", "bitscore"):
            out[name] = np.array([np.nan if v in ("*", "NA") else float(v) for v in values], dtype=np.float64)
        elif name == "strand":
            out[name] = np.array(values, dtype="U1")
        else:
            out[name] = list(values)
    for v in out.values():
        if isinstance(v, np.ndarray):
            v.flags.writeable = False
    return out


def _as_sequence(x: Any) -> Sequence:
    return x if isinstance(x, (list, tuple)) else list(x)
