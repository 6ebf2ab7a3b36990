"""Bad input and bad options raise the right exception with a message naming what is wrong."""

import pytest

import gpualign


def test_invalid_letter_in_a_list_names_index_and_position():
    with pytest.raises(ValueError, match=r"queries\[1\] 'q1': character '\.' at position 4 is not in the dna alphabet"):
        gpualign.align(["ACGT", "ACG.T"], ["ACGT", "ACGT"])
    with pytest.raises(ValueError, match=r"refs\[0\] 'chr1': character '1' at position 3"):
        gpualign.align([("a", "ACGT")], [("chr1", "AC1GT")], alphabet="dna")


def test_invalid_letter_in_a_file_names_file_record_and_position(tmp_path):
    (tmp_path / "q.fa").write_text(">a\nACGT\n>b\nACG-T\n")
    (tmp_path / "r.fa").write_text(">x\nACGT\n>y\nACGT\n")
    with pytest.raises(ValueError, match=r"q\.fa: record 2 'b': character '-' at position 4"):
        gpualign.align(str(tmp_path / "q.fa"), str(tmp_path / "r.fa"))


def test_bad_items():
    with pytest.raises(ValueError, match=r"queries\[0\] 'a b': the name must be one word"):
        gpualign.align([("a b", "ACGT")], [("r", "ACGT")])
    with pytest.raises(TypeError, match=r"queries\[0\]: a sequence must be str or bytes, not int"):
        gpualign.align([5], ["ACGT"])


def test_mismatched_list_lengths():
    with pytest.raises(ValueError, match="queries has 2 sequences but refs has 1 "):
        gpualign.align(["ACGT", "ACGT"], ["ACGT"])
    with pytest.raises(ValueError, match="queries has 1 sequence but refs has 2 "):
        gpualign.align(["ACGT"], ["ACGT", "ACGT"])


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        gpualign.align(str(tmp_path / "nope.fa"), str(tmp_path / "nope.fa"))
    assert e.value.filename == str(tmp_path / "nope.fa")
    with pytest.raises(FileNotFoundError):
        gpualign.search(["ACGT"], str(tmp_path / "db.fa"))


def test_unknown_matrix():
    with pytest.raises(ValueError, match="PAM250"):
        gpualign.align(["MKVLAT"], ["MKVLST"], matrix="PAM250")


@pytest.mark.parametrize("kwargs, message", [
    ({"gap_open": -1}, "gap_open"),
    ({"gap_extend": -3}, "gap_extend"),
    ({"mismatch": -2}, "mismatch"),
    ({"threads": -1}, "threads"),
    ({"mode": "fast"}, "mode must be one of local|global|semi-global"),
    ({"strand": "minus"}, "strand must be one of plus|both"),
    ({"backend": "tpu"}, "backend must be one of auto|cpu|gpu"),
    ({"alphabet": "rna"}, "alphabet must be one of auto|dna|protein"),
    ({"match": 2.5}, "match must be an integer"),
    ({"cigar": "yes"}, "cigar must be True or False"),
])
def test_bad_option_values(kwargs, message):
    with pytest.raises(ValueError, match=message) as e:
        gpualign.align(["ACGT"], ["ACGT"], **kwargs)
    assert "--" not in str(e.value)  # named as the Python arguments, not the CLI's flags


def test_protein_options_that_the_cli_refuses():
    with pytest.raises(ValueError, match="strand both applies to DNA only"):
        gpualign.align(["MKVLATWW"], ["MKVLSTWW"], strand="both")
    with pytest.raises(ValueError, match="match, mismatch and n_score apply to DNA only"):
        gpualign.align(["MKVLATWW"], ["MKVLSTWW"], match=2)


def test_score_only_results_cannot_go_to_sam(tmp_path):
    res = gpualign.align(["ACGT"], ["ACGT"], cigar=False)
    with pytest.raises(ValueError, match="cigar=False"):
        res.to_sam(tmp_path / "x.sam")
    assert not (tmp_path / "x.sam").exists()


def test_unwritable_output(tmp_path):
    res = gpualign.align(["ACGT"], ["ACGT"])
    with pytest.raises(OSError):
        res.to_tsv(tmp_path / "no" / "such" / "dir.tsv")


def test_gpu_backend_without_a_device_is_a_runtime_error():
    if gpualign.devices():
        pytest.skip("a CUDA device is visible")
    with pytest.raises(RuntimeError, match="backend gpu: no CUDA device is visible") as e:
        gpualign.align(["ACGT"], ["ACGT"], backend="gpu")
    assert "--" not in str(e.value)
