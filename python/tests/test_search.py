"""gpualign.search gives the CLI's hits and bytes."""

import numpy as np
import pytest

import gpualign
from conftest import read_fasta


def test_protein_search_equals_cli(cli, data, tmp_path):
    q, db = data / "orthologs_cow.fa", data / "orthologs_pig.fa"
    hits = gpualign.search(str(q), str(db), k=3)
    hits.to_tsv(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == cli("search", q, db, "-k", 3).stdout
    sam = cli("search", q, db, "-k", 3, "-o", tmp_path / "cli.sam")
    hits.to_sam(tmp_path / "py.sam")
    py_sam = (tmp_path / "py.sam").read_bytes().splitlines()
    cli_sam = (tmp_path / "cli.sam").read_bytes().splitlines()
    # @PG CL is the command line each was run with; every other line is the same.
    assert [l for l in py_sam if not l.startswith(b"@PG")] == [l for l in cli_sam if not l.startswith(b"@PG")]
    assert sam.returncode == 0
    hits.to_blast6(tmp_path / "py.m8")
    assert (tmp_path / "py.m8").read_bytes() == cli("search", q, db, "-k", 3, "--format", "blast6").stdout
    assert tuple(hits.columns) == gpualign.HIT_COLUMNS
    assert len(hits) == 37 * 3
    # Each cow protein's best hit is its pig ortholog (record i pairs with record i).
    best = [hits.ref[k] for k in range(0, len(hits), 3)]
    assert best == [name for name, _ in read_fasta(db)]
    assert hits.evalue.dtype == np.float64 and (hits.evalue[::3] < 1e-10).all()
    assert (np.diff(hits.score.reshape(37, 3), axis=1) <= 0).all()  # by score, descending


def test_search_lists_and_filters(cli, data, tmp_path):
    queries = read_fasta(data / "orthologs_cow.fa")[:4]
    db = [s for _, s in read_fasta(data / "orthologs_pig.fa")]
    hits = gpualign.search(queries, db, k=2, evalue=1e-20)
    assert set(hits.ref) <= {f"d{k}" for k in range(len(db))}
    assert (hits.evalue <= 1e-20).all()
    assert hits.query[0] == queries[0][0] and hits.ref[0] == "d0"
    strict = gpualign.search(queries, db, k=5, min_score=10**6)
    assert len(strict) == 0 and strict.score.shape == (0,)


def test_dna_search_both_strands_equals_cli(cli, data, tmp_path):
    q, db = data / "reads.fa", data / "ref_windows.fa"
    qs = read_fasta(q)[:20]
    (tmp_path / "q.fa").write_text("".join(f">{n}\n{s}\n" for n, s in qs))
    hits = gpualign.search(str(tmp_path / "q.fa"), str(db), k=2, strand="both", backend="cpu")
    hits.to_tsv(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == cli("search", tmp_path / "q.fa", db, "-k", 2, "--strand", "both",
                                                    "--backend", "cpu").stdout


def test_search_bad_input():
    with pytest.raises(ValueError, match=r"queries\[0\] 'q0': character '-' at position 3"):
        gpualign.search(["AC-GT"], ["ACGT"])
    with pytest.raises(ValueError, match="k"):
        gpualign.search(["ACGT"], ["ACGT"], k=0)
    with pytest.raises(ValueError, match="evalue"):
        gpualign.search(["ACGT"], ["ACGT"], evalue=-1.0)


def test_search_a_prebuilt_db(cli, data, tmp_path):
    q, db = data / "orthologs_cow.fa", data / "orthologs_pig.fa"
    cli("makedb", db, tmp_path / "pig.gadb")
    from_db = gpualign.search(str(q), str(tmp_path / "pig.gadb"), k=2)
    from_fasta = gpualign.search(str(q), str(db), k=2)
    from_db.to_tsv(tmp_path / "db.tsv")
    from_fasta.to_tsv(tmp_path / "fa.tsv")
    assert (tmp_path / "db.tsv").read_bytes() == (tmp_path / "fa.tsv").read_bytes()
    assert len(from_db) == 74
