// gpualign::gpu::LongEngine against the full-matrix CPU reference
// (align_pair_full_matrix) and the CPU long path (align_pair_long): every
// result must be byte-identical (operator==) and every CIGAR must rescore to
// the reported score. All tests skip without a CUDA device.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "gpu_test_util.hpp"
#include "gpualign/gpu/long_engine.hpp"
#include "gpualign/long_aligner.hpp"

namespace gpualign::test {
namespace {

#define SKIP_WITHOUT_GPU() \
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

ScoringScheme scheme_for(Alphabet a, int variant) {
    if (a == Alphabet::dna) return make_dna_scheme(2, 3, variant == 0 ? 5 : (variant == 1 ? 0 : 3), variant == 2 ? 1 : 2, -3);
    return blosum62_scheme(variant == 0 ? 11 : (variant == 1 ? 0 : 10), variant == 2 ? 2 : 1);
}

/// The reference results on all cores (full matrix; pairs here are small).
std::vector<AlignmentResult> reference(const std::vector<Seq>& q, const std::vector<Seq>& r, const ScoringScheme& s,
                                       AlignMode mode, bool score_only) {
    std::vector<AlignmentResult> out(q.size());
    const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nt; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t i = t; i < q.size(); i += nt)
                out[i] = align_pair_full_matrix(q[i], r[i], s, mode, score_only);
        });
    for (auto& th : pool) th.join();
    return out;
}

void expect_same(const AlignmentResult& got, const AlignmentResult& want, const Seq& q, const Seq& r,
                 const ScoringScheme& s, const std::string& what) {
    EXPECT_TRUE(got == want) << what << " (" << q.size() << " x " << r.size() << "): gpu score " << got.score << " q["
                             << got.query_begin << "," << got.query_end << ") r[" << got.ref_begin << ","
                             << got.ref_end << ") " << cigar_string(got.cigar).substr(0, 80) << " | cpu score "
                             << want.score << " q[" << want.query_begin << "," << want.query_end << ") r["
                             << want.ref_begin << "," << want.ref_end << ") "
                             << cigar_string(want.cigar).substr(0, 80);
    if (got.has_cigar && got.score > 0) EXPECT_EQ(rescore_cigar(got, q, r, s), got.score) << what;
}

// Random and related pairs of 1..5000 residues over every mode x gap model x
// alphabet x output, with small leaves and fan-outs so that checkpoint rows
// and columns, stripe hand-offs and ring flow control are crossed everywhere.
TEST(LongEngine, ByteIdenticalToReferenceOverModesGapsAlphabets) {
    SKIP_WITHOUT_GPU();
    for (Alphabet a : {Alphabet::dna, Alphabet::protein}) {
        Generator gen(a, a == Alphabet::dna ? 11 : 12);
        std::vector<Seq> q, r;
        const std::size_t lens[] = {1, 2, 31, 32, 33, 127, 128, 129, 511, 512, 513, 1023, 1024, 1025, 2047, 4100};
        for (std::size_t lq : lens) {
            const std::size_t lr = 1 + gen.rng()() % 3000;
            q.push_back(gen.random(lq));
            r.push_back(gen.rng()() % 2 ? gen.mutate(q.back(), 0.1) : gen.random(lr));
            if (r.back().empty()) r.back() = gen.random(1);
        }
        for (int k = 0; k < 6; ++k) {  // long gaps, divergent, all-N
            Seq base = gen.random(1500 + gen.rng()() % 2000);
            Seq other = base;
            other.erase(other.begin() + 600, other.begin() + 600 + 100 + k * 60);
            q.push_back(base);
            r.push_back(k % 2 ? other : gen.mutate(other, 0.3));
        }
        if (a == Alphabet::dna) {
            q.push_back(Seq(700, 3));
            r.push_back(Seq(900, 3));
        }
        for (int variant = 0; variant < 3; ++variant) {
            const ScoringScheme s = scheme_for(a, variant);
            for (AlignMode mode : {AlignMode::local, AlignMode::global}) {
                for (bool score_only : {false, true}) {
                    const auto want = reference(q, r, s, mode, score_only);
                    gpu::LongEngineOptions opt;
                    opt.plan.fan_out = 3 + variant;
                    opt.plan.leaf_cells = variant == 0 ? 4096 : (variant == 1 ? 70000 : 1u << 20);
                    opt.plan.min_tile = variant == 2 ? 256 : 16;
                    opt.plan.direct_leaf_bytes = variant == 0 ? 0 : opt.plan.direct_leaf_bytes;  // fan-out levels too
                    opt.max_blocks = variant == 1 ? 1 : (variant == 2 ? 2 : 0);  // warps take several stripes
                    gpu::LongEngine engine(s, mode, score_only, opt);
                    for (std::size_t i = 0; i < q.size(); ++i)
                        expect_same(engine.align(q[i], r[i]), want[i], q[i], r[i], s,
                                    std::string(to_string(a)) + " variant " + std::to_string(variant) + " " +
                                        to_string(mode) + (score_only ? " score-only" : " cigar") + " pair " +
                                        std::to_string(i));
                }
            }
        }
    }
}

// Pairs of 20-60 kb (well beyond one stripe and one ring), default plan and
// then 3 blocks (12 warps for ~300 stripes: warps reused, rings reused across
// rounds, flow control on): GPU equals the CPU long path, with CIGAR.
TEST(LongEngine, MatchesCpuLongPathOnLargeRandomPairs) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 7);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    for (AlignMode mode : {AlignMode::global, AlignMode::local})
      for (int max_blocks : {0, 3}) {
        gpu::LongEngineOptions opt;
        opt.max_blocks = max_blocks;
        gpu::LongEngine engine(s, mode, false, opt);
        for (int k = 0; k < 2; ++k) {
            const Seq q = gen.random(20000 + 20000 * k);
            const Seq r = gen.mutate(q, 0.15);
            const AlignmentResult got = engine.align(q, r);
            const AlignmentResult want = align_pair_long(q, r, s, mode, false);
            expect_same(got, want, q, r, s,
                        std::string(to_string(mode)) + " large " + std::to_string(k) + " blocks " + std::to_string(max_blocks));
        }
      }
}

// The mitochondrial pair (16,569 x 16,499): GPU equals the full-matrix
// reference with CIGAR; the global score is WFA2's 18184 (issue #11).
TEST(LongEngine, MitoPairMatchesReference) {
    SKIP_WITHOUT_GPU();
    const std::string path = shared_data_dir() + "/dna/long/mito_human_vs_orangutan.fa";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
    const auto seqs = read_fasta(path, Alphabet::dna);
    ASSERT_EQ(seqs.size(), 2u);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        gpu::LongEngine engine(s, mode, false, {});
        const AlignmentResult got = engine.align(seqs[0], seqs[1]);
        const AlignmentResult want = align_pair_full_matrix(seqs[0], seqs[1], s, mode, false);
        expect_same(got, want, seqs[0], seqs[1], s, std::string("mito ") + to_string(mode));
        if (mode == AlignMode::global) EXPECT_EQ(got.score, 18184);
    }
}

// A memory cap that cannot hold the smallest checkpoints is a clear
// std::length_error, not a crash; a tight one still gives the exact result.
TEST(LongEngine, MemoryCapGivesCoarserCheckpointsOrAClearError) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 9);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    const Seq q = gen.random(30000), r = gen.mutate(q, 0.1);
    gpu::LongEngineOptions tiny;
    tiny.gpu_memory_limit = 1u << 20;
    gpu::LongEngine small(s, AlignMode::global, false, tiny);
    EXPECT_THROW(small.align(q, r), std::length_error);
    gpu::LongEngineOptions tight;
    tight.gpu_memory_limit = std::size_t{320} << 20;  // the rings' and a leaf batch's reserve, plus a small arena
    gpu::LongEngine engine(s, AlignMode::global, false, tight);
    const AlignmentResult got = engine.align(q, r);
    EXPECT_LE(engine.last_stats().peak_device_bytes, tight.gpu_memory_limit);
    expect_same(got, align_pair_long(q, r, s, AlignMode::global, false), q, r, s, "capped");
}

}  // namespace
}  // namespace gpualign::test

namespace gpualign::test {
namespace {

// Small enough for compute-sanitizer (memcheck, racecheck): every kernel path
// of the long engine (fan-out and direct-leaf levels, speculative leaf
// batches, warps reused across stripes with ring flow control, local and
// global, CIGAR and score-only) on 3,000 x 2,800 pairs, against the reference.
TEST(LongEngineSanitizer, SmallPairsAllPaths) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 21);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    const Seq q = gen.random(3000), r = gen.mutate(q, 0.12, 2800);
    for (AlignMode mode : {AlignMode::local, AlignMode::global})
        for (bool score_only : {false, true}) {
            const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, score_only);
            for (int variant = 0; variant < 2; ++variant) {
                gpu::LongEngineOptions opt;
                opt.plan.leaf_cells = 1u << 16;
                opt.plan.fan_out = 3;
                opt.plan.direct_leaf_bytes = variant == 0 ? 0 : opt.plan.direct_leaf_bytes;
                opt.max_blocks = variant == 0 ? 1 : 0;
                gpu::LongEngine engine(s, mode, score_only, opt);
                expect_same(engine.align(q, r), want, q, r, s,
                            std::string(to_string(mode)) + (score_only ? " score-only" : " cigar") + " variant " +
                                std::to_string(variant));
            }
        }
}

}  // namespace
}  // namespace gpualign::test
