"""Two Python threads aligning at once get the results each would get alone (the GIL is released)."""

import threading

import numpy as np

import gpualign


def test_two_threads_at_once(data):
    q, r = str(data / "reads.fa"), str(data / "ref_windows.fa")
    cow, pig = str(data / "orthologs_cow.fa"), str(data / "orthologs_pig.fa")
    expected = {
        "dna": gpualign.align(q, r, "local", threads=1),
        "protein": gpualign.align(cow, pig, "global", threads=1),
    }
    got, errors = {}, []

    def run(key, *args):
        try:
            for _ in range(3):
                got.setdefault(key, []).append(gpualign.align(*args, threads=1))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=("dna", q, r, "local")),
               threading.Thread(target=run, args=("protein", cow, pig, "global"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for key, runs in got.items():
        assert len(runs) == 3
        for res in runs:
            assert np.array_equal(res.score, expected[key].score)
            assert res.cigar == expected[key].cigar


def test_the_gil_is_released_while_aligning(data):
    # Python code keeps running in another thread while align() works; with
    # the GIL held by the call, the loop below would stall until it returned.
    q, r = str(data / "reads.fa"), str(data / "ref_windows.fa")
    started = threading.Event()

    def work():
        started.set()
        for _ in range(3):
            gpualign.align(q, r, "global", threads=1)

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    spins = 0
    while worker.is_alive():
        spins += 1
    worker.join()
    assert spins > 10_000
