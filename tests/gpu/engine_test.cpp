// gpualign::gpu::BatchEngine against the CPU reference (gpualign::align_pair):
// every result must be byte-identical (operator==), and every CIGAR must
// rescore to the reported score. All tests skip without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_util.hpp"
#include "test_matrices.hpp"

namespace gpualign::test {
namespace {

#define SKIP_WITHOUT_GPU() \
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

ScoringScheme dna_scheme(bool affine) { return make_dna_scheme(2, 3, affine ? 5 : 0, 2, -3); }
ScoringScheme protein_scheme(bool affine) { return blosum62_scheme(affine ? 11 : 0, affine ? 1 : 2); }

// Lengths at lane (R = 8, 16), warp (32 lanes / 32-column chunks) and stripe
// (256, 512 rows) boundaries, +-1.
const std::vector<std::size_t> edge_lengths = {1,   2,   3,   7,   8,   9,   15,  16,   17,   31,   32,   33,   63,
                                               64,  65,  127, 128, 129, 255, 256, 257,  511,  512,  513,  767,  768,
                                               769, 1023, 1024, 1025, 1535, 1536, 1537, 1999, 2000};

std::size_t random_length(Generator& g) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double x = u(g.rng());
    if (x < 0.25) return edge_lengths[g.rng()() % edge_lengths.size()];
    if (x < 0.85) return 1 + g.rng()() % 300;
    return 1 + g.rng()() % 2000;
}

// Mixed random workload: related pairs (5-30% divergence), unrelated pairs,
// all-N sequences (DNA) and lengths at the kernel's boundaries.
void make_pairs(Alphabet a, std::uint64_t seed, std::size_t count, std::vector<Seq>& q, std::vector<Seq>& r) {
    Generator g(a, seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t m = random_length(g);
        Seq qs = g.random(m);
        Seq rs;
        const double kind = u(g.rng());
        if (kind < 0.55) {
            rs = g.mutate(qs, 0.05 + 0.25 * u(g.rng()), 2000);
            if (rs.empty()) rs = g.random(1);
        } else if (kind < 0.75) {
            rs = g.mutate(qs, 0.1, 2000);
            const std::size_t n = random_length(g);  // force an edge length on the ref side too
            rs.resize(n, 0);
            for (std::size_t j = m; j < n; ++j) rs[j] = g.residue();
        } else if (kind < 0.97) {
            rs = g.random(random_length(g));
        } else {  // all-N (DNA) / all-X (protein) on one or both sides
            const std::uint8_t unknown = a == Alphabet::dna ? 3 : 23;
            rs = Seq(random_length(g), unknown);
            if (kind < 0.985) qs.assign(qs.size(), unknown);
        }
        q.push_back(std::move(qs));
        r.push_back(std::move(rs));
    }
}

struct Config {
    Alphabet alphabet;
    AlignMode mode;
    bool affine;
    bool score_only;
};

std::string config_name(const testing::TestParamInfo<Config>& info) {
    const Config& c = info.param;
    std::string mode = to_string(c.mode);
    std::replace(mode.begin(), mode.end(), '-', '_');  // gtest names: letters, digits and '_'
    return std::string(to_string(c.alphabet)) + "_" + mode + "_" + (c.affine ? "affine" : "linear") + "_" +
           (c.score_only ? "scoreonly" : "traceback");
}

class RandomPairs : public testing::TestWithParam<Config> {};

TEST_P(RandomPairs, IdenticalToCpuReference) {
    SKIP_WITHOUT_GPU();
    const Config c = GetParam();
    std::vector<Seq> q, r;
    const std::uint64_t seed = 1000 + static_cast<std::uint64_t>(c.alphabet) * 8 + static_cast<std::uint64_t>(c.mode) * 4 +
                               (c.affine ? 2 : 0) + (c.score_only ? 1 : 0);
    make_pairs(c.alphabet, seed, 20000, q, r);
    const ScoringScheme s = c.alphabet == Alphabet::dna ? dna_scheme(c.affine) : protein_scheme(c.affine);
    expect_identical(q, r, s, c.mode, c.score_only);
    if (c.score_only)  // the inter-pair kernel on every batch, where the scheme allows it
        expect_identical(q, r, s, c.mode, c.score_only, inter_pair_options());
}

std::vector<Config> all_configs() {
    std::vector<Config> out;
    for (Alphabet a : {Alphabet::dna, Alphabet::protein})
        for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool affine : {true, false})
                for (bool so : {false, true}) out.push_back({a, m, affine, so});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Engine, RandomPairs, testing::ValuesIn(all_configs()), config_name);

// Issue 14: a DnaCodes::iupac scheme (EDNAFULL, 15 codes: the kernel's
// shared-matrix path, not the DNA profile) on the same workload with about
// one letter in five an IUPAC ambiguity code or N.
TEST(Engine, EdnafullIupacCodesIdenticalToCpuReference) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    make_pairs(Alphabet::dna, 1400, 5000, q, r);
    Generator g(Alphabet::dna, 1401);
    for (auto* side : {&q, &r})
        for (Seq& s : *side)
            for (auto& c : s)
                if (g.rng()() % 5 == 0) c = static_cast<std::uint8_t>(g.rng()() % dna_code_letters.size());
    for (const auto& [go, ge] : {std::pair{10, 1}, std::pair{0, 2}}) {
        const ScoringScheme s = ednafull_scheme(go, ge);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool score_only : {false, true}) expect_identical(q, r, s, mode, score_only);
    }
}

TEST(Engine, DeviceCountAndDescription) {
    const int n = gpu::device_count();  // never throws
    if (n == 0) GTEST_SKIP() << "no CUDA device visible";
    const std::string d = gpu::device_description(0);
    std::printf("  device 0: %s\n", d.c_str());
    EXPECT_FALSE(d.empty());
}

// start_devices (CUDA started ahead of the engines): ordinals that are not
// visible are skipped without an error, and an engine started afterwards on a
// started device, on another thread, aligns as one started alone.
TEST(Engine, StartDevicesSkipsBadOrdinalsAndEnginesStartAfterIt) {
    const int n = gpu::device_count();
    const std::vector<int> bad{-1, n, n + 7};
    gpu::start_devices(bad);  // never throws
    EXPECT_EQ(gpu::device_count(), n);
    if (n == 0) GTEST_SKIP() << "no CUDA device visible";
    std::thread([] { gpu::start_devices(std::vector<int>{0}); }).join();
    gpu::BatchEngine e(dna_scheme(true), AlignMode::global, false, {});
    const std::vector<Seq> q{{0, 1, 2, 3, 0, 1, 2, 2, 1}}, r{{0, 1, 3, 3, 0, 2, 1}};
    const std::vector<AlignmentResult> got = e.align(views(q, r));
    const std::vector<AlignmentResult> want = cpu_align_all(q, r, dna_scheme(true), AlignMode::global, false);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], want[0]);
}

TEST(Engine, AcceptsTenThousandSquared) {
    SKIP_WITHOUT_GPU();
    for (bool so : {false, true}) {
        gpu::BatchEngine e(dna_scheme(true), AlignMode::local, so, {});
        EXPECT_TRUE(e.accepts(10000, 10000));
        EXPECT_TRUE(e.accepts(0, 5));
        EXPECT_FALSE(e.accepts(100000, 100));
    }
}

TEST(Engine, EmptySequences) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q = {{}, {0, 1, 2}, {}, {4}}, r = {{}, {}, {1, 2}, {4}};
    for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool so : {false, true}) expect_identical(q, r, dna_scheme(true), m, so);
}

// Pairs longer than one stripe (several boundary rows through device memory),
// up to 10,000 x 10,000.
TEST(Engine, LongPairs) {
    SKIP_WITHOUT_GPU();
    Generator g(Alphabet::dna, 77);
    std::vector<Seq> q, r;
    for (std::size_t len : {4095, 4096, 4097, 6000, 10000}) {
        Seq a = g.random(len);
        q.push_back(a);
        r.push_back(g.mutate(a, 0.12));
    }
    q.push_back(g.random(10000));
    r.push_back(g.random(3000));
    q.push_back(g.random(700));
    r.push_back(g.random(9000));
    for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool so : {false, true}) expect_identical(q, r, dna_scheme(true), m, so);
}

// Small batches and one stream: many batches, the rotation and buffer reuse.
TEST(Engine, ManySmallBatches) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    make_pairs(Alphabet::dna, 4242, 3000, q, r);
    for (int streams : {1, 3}) {
        gpu::BatchEngineOptions opt;
        opt.streams = streams;
        opt.max_batch_bases = 20000;
        expect_identical(q, r, dna_scheme(true), AlignMode::local, false, opt);
        expect_identical(q, r, dna_scheme(true), AlignMode::global, true, opt);
    }
}

// CIGAR runs that do not fit the compact buffer: every batch (a buffer of a
// few runs), or the batches with more than 1 run per 100 bases, take the full
// copy of the traceback buffer, with the same results; the default buffer
// takes (a)-like pairs without one.
TEST(Engine, CigarBufferOverflowFallsBackToFullCopy) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    make_pairs(Alphabet::dna, 777, 2000, q, r);
    for (double per_base : {1e-4, 0.01}) {
        gpu::BatchEngineOptions opt;
        opt.max_batch_bases = 30000;
        opt.cigar_runs_per_base = per_base;
        for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            const gpu::BatchEngineProfile p = expect_identical(q, r, dna_scheme(true), m, false, opt);
            EXPECT_GT(p.cigar_overflows, 0u) << per_base;
            if (per_base < 0.001) EXPECT_EQ(p.cigar_overflows, p.batches);
        }
    }
    Generator g(Alphabet::dna, 11);
    std::vector<Seq> related_q, related_r;
    for (int k = 0; k < 3000; ++k) {
        related_q.push_back(g.random(512));
        related_r.push_back(g.mutate(related_q.back(), 0.1));
    }
    const gpu::BatchEngineProfile p = expect_identical(related_q, related_r, dna_scheme(true), AlignMode::local, false);
    EXPECT_EQ(p.cigar_overflows, 0u);
    EXPECT_GT(p.batches, 0u);
    gpu::BatchEngineOptions bad;
    bad.cigar_runs_per_base = 0;
    EXPECT_THROW(gpu::BatchEngine(dna_scheme(true), AlignMode::local, false, bad), std::invalid_argument);
}

// A few hundred mixed pairs (some longer than one stripe) in every mode:
// the batch run under compute-sanitizer (docs/gpu.md).
TEST(Engine, SmallMixedBatch) {
    SKIP_WITHOUT_GPU();
    for (Alphabet a : {Alphabet::dna, Alphabet::protein}) {
        std::vector<Seq> q, r;
        make_pairs(a, 99, 200, q, r);
        Generator g(a, 5);
        q.push_back(g.random(1100));
        r.push_back(g.mutate(q.back(), 0.1));
        const ScoringScheme s = a == Alphabet::dna ? dna_scheme(true) : protein_scheme(true);
        for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool so : {false, true}) expect_identical(q, r, s, m, so);
    }
}

// ---- real data ---------------------------------------------------------

TEST(RealData, PacbioEcoli) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    if (!load_pairs("dna/pacbio_ecoli/reads.fa", "dna/pacbio_ecoli/ref_windows.fa", Alphabet::dna, q, r))
        GTEST_SKIP() << "pacbio_ecoli not found under " << shared_data_dir();
    ASSERT_EQ(q.size(), 10000u);
    ASSERT_EQ(r.size(), 10000u);
    for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool so : {false, true}) expect_identical(q, r, dna_scheme(true), m, so);
}

TEST(RealData, Miseq16S) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    if (!load_pairs("dna/miseq_16S/reads.fa", "dna/miseq_16S/ref_windows.fa", Alphabet::dna, q, r))
        GTEST_SKIP() << "miseq_16S not found under " << shared_data_dir();
    ASSERT_EQ(q.size(), 5958u);
    ASSERT_EQ(r.size(), 5958u);
    for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool so : {false, true}) expect_identical(q, r, dna_scheme(true), m, so);
}

TEST(RealData, CowPigOrthologs) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    if (!load_pairs("protein/orthologs_cow.fa", "protein/orthologs_pig.fa", Alphabet::protein, q, r))
        GTEST_SKIP() << "orthologs not found under " << shared_data_dir();
    ASSERT_EQ(q.size(), 37u);
    ASSERT_EQ(r.size(), 37u);
    for (AlignMode m : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool so : {false, true}) expect_identical(q, r, blosum62_scheme(11, 1), m, so);
}

}  // namespace
}  // namespace gpualign::test
