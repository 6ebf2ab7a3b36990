"""backend="gpu" gives what backend="cpu" gives (skipped without a CUDA device)."""

import numpy as np
import pytest

import gpualign

pytestmark = pytest.mark.skipif(not gpualign.devices(), reason="no CUDA device is visible")


@pytest.mark.parametrize("mode", ["local", "global", "semi-global"])
@pytest.mark.parametrize("strand", ["plus", "both"])
def test_gpu_equals_cpu_dna(data, tmp_path, mode, strand):
    q, r = str(data / "reads.fa"), str(data / "ref_windows.fa")
    cpu = gpualign.align(q, r, mode, strand=strand, backend="cpu")
    gpu = gpualign.align(q, r, mode, strand=strand, backend="gpu")
    assert gpu.info["backend"].startswith("gpu")
    cpu.to_tsv(tmp_path / "cpu.tsv")
    gpu.to_tsv(tmp_path / "gpu.tsv")
    assert (tmp_path / "gpu.tsv").read_bytes() == (tmp_path / "cpu.tsv").read_bytes()


@pytest.mark.parametrize("cigar", [True, False])
def test_gpu_equals_cpu_protein_and_lists(data, cigar):
    q, r = str(data / "orthologs_cow.fa"), str(data / "orthologs_pig.fa")
    cpu = gpualign.align(q, r, "global", cigar=cigar, backend="cpu")
    gpu = gpualign.align(q, r, "global", cigar=cigar, backend="gpu")
    for name in gpualign.PAIR_COLUMNS:
        a, b = getattr(cpu, name), getattr(gpu, name)
        assert (np.array_equal(a, b, equal_nan=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a == b), name


def test_gpu_search_equals_cpu(data):
    q, db = str(data / "orthologs_cow.fa"), str(data / "orthologs_pig.fa")
    cpu = gpualign.search(q, db, k=5, backend="cpu")
    gpu = gpualign.search(q, db, k=5, backend="gpu")
    assert cpu.ref == gpu.ref and np.array_equal(cpu.score, gpu.score) and cpu.cigar == gpu.cigar


def test_gpu_100000_short_pairs_equal_cpu():
    rng = np.random.default_rng(7)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    queries = [letters[rng.integers(0, 4, 150)].tobytes() for _ in range(100_000)]
    refs = [letters[rng.integers(0, 4, 150)].tobytes() for _ in range(100_000)]
    cpu = gpualign.align(queries, refs, "local", backend="cpu")
    gpu = gpualign.align(queries, refs, "local", backend="gpu")
    assert np.array_equal(cpu.score, gpu.score) and cpu.cigar == gpu.cigar
