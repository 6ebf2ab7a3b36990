"""Fixtures of the gpualign Python tests: the CLI binary to compare with, and the data.

Run from the repository root after a build, e.g.
    PYTHONPATH=build/python GPUALIGN_BINARY=build/app/gpualign python3 -m pytest python/tests
(ctest runs them so, as the test `python_module`).
"""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
SHARED = pathlib.Path(os.environ.get("GPUALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))


def _binary() -> pathlib.Path:
    env = os.environ.get("GPUALIGN_BINARY")
    return pathlib.Path(env) if env else ROOT / "build" / "app" / "gpualign"


@pytest.fixture(scope="session")
def cli():
    """Runs the gpualign CLI: cli(args..., check=True) -> CompletedProcess; .argv is the command line."""
    binary = _binary()
    if not binary.exists():
        pytest.skip(f"no gpualign binary at {binary} (set GPUALIGN_BINARY)")

    def run(*args, check=True):
        argv = [str(binary)] + [str(a) for a in args]
        p = subprocess.run(argv, capture_output=True, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
        if check and p.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} exited {p.returncode}: {p.stderr.decode()}")
        p.argv = argv
        return p

    return run


@pytest.fixture(scope="session")
def data():
    return DATA


@pytest.fixture(scope="session")
def shared():
    if not SHARED.exists():
        pytest.skip(f"no shared data at {SHARED}")
    return SHARED


def read_fasta(path):
    """(name, sequence) tuples of a FASTA file (names: the header's first word)."""
    out, name, seq = [], None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(">"):
                if name is not None:
                    out.append((name, "".join(seq)))
                name, seq = line[1:].split()[0], []
            elif line:
                seq.append(line.strip())
    if name is not None:
        out.append((name, "".join(seq)))
    return out


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n{seq}\n")
