"""gpualign.align writes the CLI's bytes, and its columns are the CLI's TSV columns."""

import numpy as np
import pytest

import gpualign
from conftest import read_fasta, write_fasta

MODES = {"sw": "local", "nw": "global", "sg": "semi-global"}


def tsv_rows(text):
    lines = text.decode().splitlines()
    header = lines[0].split("\t")
    return header, [line.split("\t") for line in lines[1:]]


@pytest.mark.parametrize("command", ["sw", "nw", "sg"])
def test_tsv_and_sam_bytes_equal_cli_dna(cli, data, tmp_path, command):
    q, r = data / "reads.fa", data / "ref_windows.fa"
    res = gpualign.align(str(q), str(r), MODES[command], backend="cpu", threads=2)
    assert len(res) == 200
    res.to_tsv(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == cli(command, q, r, "--backend", "cpu", "--threads", 2).stdout
    sam = cli(command, q, r, "--backend", "cpu", "-o", tmp_path / "cli.sam")
    res.to_sam(tmp_path / "py.sam", command_line=" ".join(sam.argv))
    assert (tmp_path / "py.sam").read_bytes() == (tmp_path / "cli.sam").read_bytes()
    res.to_paf(tmp_path / "py.paf")
    assert (tmp_path / "py.paf").read_bytes() == cli(command, q, r, "--format", "paf").stdout


def test_lists_give_the_same_bytes_as_files(cli, data, tmp_path):
    queries, refs = read_fasta(data / "reads.fa"), read_fasta(data / "ref_windows.fa")
    res = gpualign.align(queries, refs, "local")  # (name, sequence) tuples keep the names
    res.to_tsv(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == cli("sw", data / "reads.fa", data / "ref_windows.fa").stdout
    # Plain strings are named q0.. and r0..
    plain = gpualign.align([s for _, s in queries[:5]], [s for _, s in refs[:5]])
    assert plain.query == [f"q{k}" for k in range(5)] and plain.ref == [f"r{k}" for k in range(5)]
    assert np.array_equal(plain.score, res.score[:5])


def test_bytes_sequences_align_as_str():
    a = gpualign.align([b"ACGTACGTAC", "ACGTTT"], ["ACGTACGTAC", b"ACGGTT"], "global")
    b = gpualign.align(["ACGTACGTAC", "ACGTTT"], ["ACGTACGTAC", "ACGGTT"], "global")
    assert list(a.score) == list(b.score) and a.cigar == b.cigar
    assert a.score[0] == 20 and a.cigar[0] == "10="


def test_strand_both_equals_cli(cli, data, tmp_path):
    q, r = data / "reads.fa", data / "ref_windows.fa"
    res = gpualign.align(str(q), str(r), "semi-global", strand="both")
    res.to_tsv(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == cli("sg", q, r, "--strand", "both").stdout
    # A query given as its reverse complement aligns on the minus strand.
    comp = str.maketrans("ACGT", "TGCA")
    query = "ACGTTGCAAGGCTTACCGATGGCATTACG"
    rc = gpualign.align([query.translate(comp)[::-1]], [query], "global", strand="both")
    assert rc.strand[0] == "-" and rc.score[0] == 2 * len(query)
    assert (rc.query_begin[0], rc.query_end[0]) == (0, len(query))


def test_protein_equals_cli(cli, data, tmp_path):
    q, r = data / "orthologs_cow.fa", data / "orthologs_pig.fa"
    res = gpualign.align(str(q), str(r), "global", matrix="BLOSUM62", gap_open=11, gap_extend=1)
    assert res.info["alphabet"] == "protein" and res.info["matrix"] == "BLOSUM62"
    res.to_tsv(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == cli("nw", q, r, "--matrix", "BLOSUM62").stdout
    lists = gpualign.align(read_fasta(q), read_fasta(r), "global")
    lists.to_tsv(tmp_path / "lists.tsv")
    assert (tmp_path / "lists.tsv").read_bytes() == (tmp_path / "py.tsv").read_bytes()


def test_score_only_equals_cli(cli, data, tmp_path):
    q, r = data / "reads.fa", data / "ref_windows.fa"
    res = gpualign.align(str(q), str(r), cigar=False)
    res.to_tsv(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == cli("sw", q, r, "--score-only").stdout
    assert res.cigar[0] == "*" and res.matches[0] == -1 and np.isnan(res.identity[0])


def test_columns_agree_with_cli_tsv_row_by_row(cli, data):
    q, r = data / "reads.fa", data / "ref_windows.fa"
    res = gpualign.align(str(q), str(r), "local", strand="both", match=1, mismatch=4, gap_open=6, gap_extend=1)
    header, rows = tsv_rows(cli("sw", q, r, "--strand", "both", "--match", 1, "--mismatch", 4, "--gap-open", 6,
                                "--gap-extend", 1).stdout)
    assert tuple(header) == gpualign.PAIR_COLUMNS == res.columns
    assert len(rows) == len(res) == 200
    for k, row in enumerate(rows):
        rec = res[k]
        for name, text in zip(header, row):
            value = getattr(rec, name)
            if name == "identity":
                assert f"{value:.4f}" == text, (k, name)
            else:
                assert str(value) == text, (k, name)


def test_len_indexing_and_records():
    res = gpualign.align(["ACGTACGT", "TTTTGGGG", "AAAA"], ["ACGTACGT", "TTTTCGGG", "CCCC"])
    assert len(res) == 3
    assert res[-1] == res[2] and res[0].score == 16 and res[0].cigar == "8="
    assert res[2].query_begin == res[2].query_end  # local, no positive score: unaligned
    assert res[2].cigar == "*" and res[2].score == 0
    with pytest.raises(IndexError):
        res[3]
    with pytest.raises(IndexError):
        res[-4]
    with pytest.raises(TypeError):
        res["score"]
    assert [a.score for a in res] == list(res.score)
    assert res.score.dtype == np.int64 and res.identity.dtype == np.float64
    with pytest.raises(AttributeError):
        res.no_such_column


def test_empty_input_and_one_pair(tmp_path):
    empty = gpualign.align([], [])
    assert len(empty) == 0 and empty.score.shape == (0,) and empty.cigar == []
    empty.to_tsv(tmp_path / "empty.tsv")
    assert (tmp_path / "empty.tsv").read_text().count("\n") == 1  # the header alone
    one = gpualign.align(["GATTACA"], ["GATTACA"], "global")
    assert len(one) == 1 and one.score[0] == 14 and one.cigar == ["7="]


def test_zero_length_sequences_as_the_cli_aligns_them(cli, tmp_path):
    queries, refs = [("a", ""), ("b", "ACGT")], [("x", "ACG"), ("y", "")]
    write_fasta(tmp_path / "q.fa", queries)
    write_fasta(tmp_path / "r.fa", refs)
    for command, mode in MODES.items():
        res = gpualign.align(queries, refs, mode)
        res.to_tsv(tmp_path / "py.tsv")
        assert (tmp_path / "py.tsv").read_bytes() == cli(command, tmp_path / "q.fa", tmp_path / "r.fa").stdout


def test_100000_pairs(cli, tmp_path):
    rng = np.random.default_rng(42)
    alphabet = np.frombuffer(b"ACGT", dtype=np.uint8)
    queries, refs = [], []
    for k in range(100_000):
        n = int(rng.integers(100, 151))
        ref = alphabet[rng.integers(0, 4, n)]
        query = ref.copy()
        flips = rng.integers(0, n, n // 20)
        query[flips] = alphabet[rng.integers(0, 4, flips.size)]
        queries.append(query.tobytes())
        refs.append(ref.tobytes())
    res = gpualign.align(queries, refs, "local", backend="cpu")
    assert len(res) == 100_000
    assert res.query == [f"q{k}" for k in range(100_000)]
    assert (res.score > 0).all()
    write_fasta(tmp_path / "q.fa", ((f"q{k}", s.decode()) for k, s in enumerate(queries)))
    write_fasta(tmp_path / "r.fa", ((f"r{k}", s.decode()) for k, s in enumerate(refs)))
    res.to_tsv(tmp_path / "py.tsv")
    cli("sw", tmp_path / "q.fa", tmp_path / "r.fa", "--backend", "cpu", "-o", tmp_path / "cli.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == (tmp_path / "cli.tsv").read_bytes()


def test_to_pandas():
    pd = pytest.importorskip("pandas")
    res = gpualign.align(["ACGTACGT", "TTTTGGGG"], ["ACGTACGT", "TTTTCGGG"])
    df = res.to_pandas()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(gpualign.PAIR_COLUMNS)
    assert df["score"].tolist() == list(res.score) and df["query"].tolist() == ["q0", "q1"]


def test_scoring_scheme_and_info():
    s = gpualign.ScoringScheme(match=1, mismatch=1, gap_open=0, gap_extend=1)
    res = gpualign.align(["ACGTAAAA"], ["ACGAAAA"], "global", scheme=s)
    assert res.score[0] == 6  # 7 matches, one gap of 1 (linear): 7 - 1
    assert res.info["gap_open"] == 0 and res.info["gap_extend"] == 1
    with pytest.raises(ValueError, match="match is given both"):
        gpualign.align(["ACGT"], ["ACGT"], scheme=s, match=2)


def test_version_and_devices():
    assert gpualign.__version__.count(".") == 2
    devs = gpualign.devices()
    assert isinstance(devs, list)
    for d in devs:
        assert d["name"] and d["memory_mib"] > 0


def test_shared_data_equals_cli(cli, shared, tmp_path):
    # MiSeq 16S reads in their reference windows, both strands, semi-global.
    q, r = shared / "dna" / "miseq_16S" / "reads.fa", shared / "dna" / "miseq_16S" / "ref_windows.fa"
    res = gpualign.align(str(q), str(r), "semi-global", strand="both", backend="cpu")
    res.to_sam(tmp_path / "py.sam", command_line="gpualign")
    cli("sg", q, r, "--strand", "both", "--backend", "cpu", "-o", tmp_path / "cli.sam")
    py, ref = (tmp_path / "py.sam").read_bytes(), (tmp_path / "cli.sam").read_bytes()
    drop_pg = lambda b: [l for l in b.splitlines() if not l.startswith(b"@PG")]  # noqa: E731
    assert drop_pg(py) == drop_pg(ref) and len(res) > 1000
    # Two mitochondrial genomes (16.5 kb each): a long pair, on the CPU's long-pair path.
    mito = read_fasta(shared / "dna" / "long" / "mito_human_vs_orangutan.fa")
    write_fasta(tmp_path / "a.fa", mito[:1])
    write_fasta(tmp_path / "b.fa", mito[1:2])
    long_pair = gpualign.align([mito[0]], [mito[1]], "global", backend="cpu")
    long_pair.to_tsv(tmp_path / "mito.tsv")
    assert (tmp_path / "mito.tsv").read_bytes() == cli("nw", tmp_path / "a.fa", tmp_path / "b.fa",
                                                      "--backend", "cpu").stdout
