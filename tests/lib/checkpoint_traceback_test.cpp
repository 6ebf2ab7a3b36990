// The checkpoint traceback's speculative leaf batches (the GPU's path),
// run through the CPU backend: byte-identical to the full-matrix reference.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpualign/cpu_aligner.hpp"
#include "gpualign/long_aligner.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

// Batches of 2..64 leaves computed ahead of the walk, over direct-leaf and
// fan-out levels, every mode x output x gap model: each result equals
// align_pair_full_matrix, so leaves computed out of the path's order and
// reused from a batch give the reference's CIGAR.
TEST(CheckpointTraceback, SpeculativeLeafBatchesMatchTheReference) {
    std::mt19937_64 rng(20261123);
    int compared = 0;
    for (int it = 0; it < 400; ++it) {
        const std::size_t m = 1 + rng() % 400, n = 1 + rng() % 400;
        const ScoringScheme s = make_dna_scheme(2, 3, rng() % 2 ? 5 : 0, 2, -3);
        Codes q(m), r(n);
        for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 5);
        for (std::size_t j = 0; j < n; ++j) r[j] = (j < m && rng() % 5) ? q[j] : static_cast<std::uint8_t>(rng() % 5);
        LongAlignOptions o;
        o.threads = 1;
        o.tile = 1 + static_cast<std::int64_t>(rng() % 32);
        o.plan.fan_out = 2 + static_cast<int>(rng() % 4);
        o.plan.leaf_cells = 16 + rng() % 600;
        o.plan.min_tile = 1;
        o.plan.direct_leaf_bytes = rng() % 2 ? 0 : (std::uint64_t{1} << 20);
        o.leaf_batch = std::vector<std::size_t>{2, 3, 7, 64}[rng() % 4];
        for (AlignMode mode : {AlignMode::local, AlignMode::global})
            for (bool score_only : {false, true}) {
                const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, score_only);
                const AlignmentResult got = align_pair_long(q, r, s, mode, score_only, o);
                ASSERT_EQ(got, want) << "pair " << it << " (" << m << " x " << n << "), leaf_batch " << o.leaf_batch
                                     << ", leaf_cells " << o.plan.leaf_cells << ", mode " << to_string(mode);
                ++compared;
            }
    }
    EXPECT_EQ(compared, 1600);
}

}  // namespace
}  // namespace gpualign::test
