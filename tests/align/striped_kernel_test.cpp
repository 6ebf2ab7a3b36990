// The intra-pair striped kernel (lib/src/align/simd/striped_kernel.cpp, Farrar
// 2007) against its scalar twin align_pair: byte-identical results for
// every mode x output (CIGAR, score-only with begin cell, score_pairs_cpu)
// x gap model (affine, linear go = 0) x protein matrix, random and real
// protein pairs, lengths 1..2,000 around the segment boundaries (query
// length k * lanes +- 1), all-X and empty sides, forced 16-bit overflow,
// on every SIMD target this CPU supports (forced in turn). Protein batches
// that do not share one query take the striped kernel
// (simd_aligner.cpp's routing rule); the kernel is also called
// directly, so a routing change cannot hide it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "align/simd/striped_kernel.hpp"
#include "align/traceback_walk.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/io/matrix.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

const AlignMode kModes[] = {AlignMode::local, AlignMode::global, AlignMode::semi_global};

std::string describe(const AlignmentResult& r) {
    return std::to_string(r.score) + " [" + std::to_string(r.query_begin) + "," + std::to_string(r.query_end) +
           ") x [" + std::to_string(r.ref_begin) + "," + std::to_string(r.ref_end) + ") " + cigar_string(r.cigar);
}

/// Every output of the batch (CIGAR, score-only, score_pairs_cpu) on the
/// SIMD path against align_pair; CIGARs re-score to their score. Returns
/// the failure count (the first few are reported).
int expect_same_as_scalar(const std::vector<Pair>& pairs, const ScoringScheme& s, AlignMode mode,
                          const std::string& what) {
    std::vector<PairView> v;
    for (const auto& p : pairs) v.push_back({p.query, p.ref});
    int failures = 0;
    for (const bool score_only : {false, true}) {
        std::vector<AlignmentResult> got(v.size());
        align_pairs_cpu(v, s, mode, score_only, CpuKernel::simd, 2, got);
        for (std::size_t k = 0; k < v.size(); ++k) {
            const AlignmentResult want = align_pair(pairs[k].query, pairs[k].ref, s, mode, score_only);
            if (got[k] != want && ++failures <= 3)
                ADD_FAILURE() << what << " " << to_string(mode) << (score_only ? " score-only" : " cigar") << " pair "
                              << k << " (" << pairs[k].query.size() << " x " << pairs[k].ref.size()
                              << "): simd " << describe(got[k]) << ", scalar " << describe(want);
            if (got[k].has_cigar && !got[k].cigar.empty() &&
                rescore_cigar(got[k], pairs[k].query, pairs[k].ref, s) != got[k].score && ++failures <= 3)
                ADD_FAILURE() << what << " pair " << k << ": CIGAR does not re-score to " << got[k].score;
        }
    }
    const std::vector<std::int32_t> scores = score_pairs_cpu(v, s, mode, CpuKernel::simd, 2);
    for (std::size_t k = 0; k < v.size(); ++k) {
        const std::int32_t want = align_pair(pairs[k].query, pairs[k].ref, s, mode, true).score;
        if (scores[k] != want && ++failures <= 3)
            ADD_FAILURE() << what << " " << to_string(mode) << " score_pairs_cpu pair " << k << ": " << scores[k]
                          << " != " << want;
    }
    return failures;
}

int expect_same_as_scalar_all_modes(const std::vector<Pair>& pairs, const ScoringScheme& s, const std::string& what) {
    int failures = 0;
    for (const AlignMode mode : kModes) failures += expect_same_as_scalar(pairs, s, mode, what);
    return failures;
}

/// Each SIMD target of this CPU in turn (restored afterwards).
class StripedEveryTarget : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override { force_simd_target(GetParam()); }
    void TearDown() override { force_simd_target(""); }
};

std::vector<std::string> targets() { return simd_targets(); }

/// The kernel itself (no host routing): its score and end cell, for both
/// kinds, equal align_pair's; its traceback bits, walked, give align_pair's
/// CIGAR.
TEST_P(StripedEveryTarget, KernelCalledDirectlyMatchesTheScalarReference) {
    const std::size_t lanes = cpu::lanes();
    if (lanes == 0) GTEST_SKIP() << "one-lane target: no SIMD kernel";
    PairGenerator gen(2007, Alphabet::protein);
    int failures = 0;
    for (const auto& [go, ge] : {std::pair{11, 1}, std::pair{0, 3}}) {
        const ScoringScheme s = blosum62_scheme(go, ge);
        for (int n = 0; n < (under_asan ? 30 : 100); ++n) {
            const Pair p = gen.next(n % 10 == 0 ? 1500 : 300);
            for (const AlignMode mode : kModes) {
                cpu::KernelScheme ks;
                ks.alphabet_size = s.size;
                ks.mode = mode;
                ks.matrix = s.matrix.data();
                ks.gap_open = static_cast<std::int16_t>(s.gap_open);
                ks.gap_extend = static_cast<std::int16_t>(s.gap_extend);
                const AlignmentResult want = align_pair(p.query, p.ref, s, mode, false);
                const cpu::StripedPair sp{p.query.data(), p.query.size(), p.ref.data(), p.ref.size()};
                const cpu::StripedShape shape = cpu::striped_shape(p.query.size(), p.ref.size());
                std::vector<std::uint8_t> dir(shape.dir_bytes());
                for (const cpu::KernelKind kind : {cpu::KernelKind::score, cpu::KernelKind::traceback}) {
                    const cpu::StripedResult r = cpu::align_striped(sp, ks, kind, dir.data());
                    ASSERT_FALSE(r.overflow);
                    const bool unaligned = mode == AlignMode::local && r.score == 0;
                    if ((r.score != want.score || (!unaligned && (r.query_end != want.query_end ||
                                                                  r.ref_end != want.ref_end))) &&
                        ++failures <= 3)
                        ADD_FAILURE() << to_string(mode) << " pair " << n << " (" << p.query.size() << " x "
                                      << p.ref.size() << ") kind " << static_cast<int>(kind) << ": striped "
                                      << r.score << " end (" << r.query_end << "," << r.ref_end << "), scalar "
                                      << describe(want);
                }
                if (mode == AlignMode::local && want.score == 0) continue;
                AlignmentResult got;
                got.score = want.score;
                got.query_end = want.query_end;
                got.ref_end = want.ref_end;
                detail::traceback_walk(
                    [&](std::int64_t i, std::int64_t j) {
                        return cpu::striped_dir_byte(dir.data(), shape, static_cast<std::size_t>(i),
                                                     static_cast<std::size_t>(j), mode == AlignMode::local);
                    },
                    p.query.data(), p.ref.data(), s.alphabet, mode, true, got);
                if (got != want && ++failures <= 3)
                    ADD_FAILURE() << to_string(mode) << " pair " << n << " walk: striped " << describe(got)
                                  << ", scalar " << describe(want);
            }
        }
    }
    EXPECT_EQ(failures, 0);
}

TEST_P(StripedEveryTarget, ModesGapModelsAndMatricesMatchTheScalarReference) {
    int failures = 0;
    std::uint64_t seed = 13;
    for (const char* matrix : {"BLOSUM62", "BLOSUM45", "BLOSUM80", "BLOSUM30"})
        for (const auto& [go, ge] : {std::pair{11, 1}, std::pair{0, 2}, std::pair{10, 3}}) {
            if (std::string(matrix) != "BLOSUM62" && go == 10) continue;  // the full gap grid on BLOSUM62 only
            const ScoringScheme s = make_protein_scheme(matrix, go, ge);
            PairGenerator gen(seed++, Alphabet::protein);
            std::vector<Pair> pairs;
            for (std::size_t k = 0; k < (under_asan ? 30u : 80u); ++k) pairs.push_back(gen.next(k % 20 == 0 ? 2000 : 400));
            failures += expect_same_as_scalar_all_modes(
                pairs, s, std::string(matrix) + " " + std::to_string(go) + "/" + std::to_string(ge));
        }
    EXPECT_EQ(failures, 0);
}

TEST_P(StripedEveryTarget, SegmentBoundaryLengthsMatchTheScalarReference) {
    const std::size_t lanes = std::max<std::size_t>(cpu::lanes(), 1);
    PairGenerator gen(64, Alphabet::protein);
    const std::vector<std::size_t> lengths = lane_boundary_lengths(lanes, {1, 2, 3, 16, 17});
    std::vector<Pair> pairs;
    for (const std::size_t m : lengths)
        for (const std::size_t n : {std::size_t{1}, std::size_t{5}, lanes + 1, m, 2 * m + 3}) {
            Pair p;
            p.query = gen.random_seq(m, 20);
            p.ref = gen.below(2) ? gen.mutate(p.query, 0.15, 20, 2500) : gen.random_seq(std::min<std::size_t>(n, 2500), 20);
            if (p.ref.size() > 2500) p.ref.resize(2500);
            pairs.push_back(std::move(p));
        }
    EXPECT_EQ(expect_same_as_scalar_all_modes(pairs, blosum62_scheme(11, 1), "segment boundaries"), 0);
    EXPECT_EQ(expect_same_as_scalar_all_modes(pairs, blosum62_scheme(0, 1), "segment boundaries linear"), 0);
}

TEST_P(StripedEveryTarget, AllXEmptySidesAndSingleLettersMatchTheScalarReference) {
    PairGenerator gen(88, Alphabet::protein);
    const std::string xs(100, 'X');
    std::vector<Pair> odd = {{protein(""), protein("MKV")},      {protein("MKV"), protein("")},
                             {protein(""), protein("")},         {protein(xs), protein(xs)},
                             {protein("X"), protein("X")},       {protein("W"), protein("W")},
                             {protein("W"), protein("C")},       {protein("XXXXMKVLXX"), protein("MKVL")},
                             {protein("MKVL"), protein(xs)},     {protein(xs.substr(0, 33)), protein("W")},
                             {protein("BZX*"), protein("*XZB")}, {protein("A"), gen.random_seq(900, 20)},
                             {gen.random_seq(900, 20), protein("A")}};
    for (int k = 0; k < 30; ++k) odd.push_back(gen.next(60));
    for (const auto& [go, ge] : {std::pair{11, 1}, std::pair{0, 1}, std::pair{0, 0}})
        EXPECT_EQ(expect_same_as_scalar_all_modes(odd, blosum62_scheme(go, ge),
                                                  "degenerate " + std::to_string(go) + "/" + std::to_string(ge)),
                  0);
}

TEST_P(StripedEveryTarget, SixteenBitOverflowIsDetectedAndRescoredIn32Bits) {
    PairGenerator gen(16, Alphabet::protein);
    // BLOSUM62 x 40: a 100-residue identity scores ~ 20,000-44,000.
    ScoringScheme big = blosum62_scheme(11 * 40, 1 * 40);
    for (auto& v : big.matrix) v *= 40;
    std::vector<Pair> pairs;
    for (int k = 0; k < 24; ++k) {
        Pair p;
        p.query = gen.random_seq(40 + 10 * k, 20);
        p.ref = gen.mutate(p.query, 0.03, 20, 1000);
        pairs.push_back(std::move(p));
    }
    EXPECT_EQ(expect_same_as_scalar_all_modes(pairs, big, "BLOSUM62 x 40"), 0);
    std::vector<PairView> v;
    for (const auto& p : pairs) v.push_back({p.query, p.ref});
    const auto scores = score_pairs_cpu(v, big, AlignMode::local, CpuKernel::simd, 2);
    EXPECT_GT(*std::max_element(scores.begin(), scores.end()), 32767)
        << "no pair passed the 16-bit range: the test does not reach the overflow path";
    // Long near-identical pairs at plain BLOSUM62: 2,000 residues score past
    // 32,767 locally only when scaled; x 4 keeps global under the static bound
    // for 600 residues and overflows local at 2,000.
    ScoringScheme x4 = blosum62_scheme(11, 1);
    for (auto& s : x4.matrix) s *= 4;
    std::vector<Pair> long_pairs;
    for (const std::size_t len : {600u, 2000u}) {
        Pair p;
        p.query = gen.random_seq(len, 20);
        p.ref = gen.mutate(p.query, 0.01, 20, len + 50);
        long_pairs.push_back(p);
        long_pairs.push_back({p.query, p.query});
    }
    EXPECT_EQ(expect_same_as_scalar_all_modes(long_pairs, x4, "long near-identical x 4"), 0);
}

TEST_P(StripedEveryTarget, RealProteinPairsMatchTheScalarReference) {
    std::vector<Pair> pairs;
    const auto small = read_fasta_codes<Alphabet::protein>(std::string(GPUALIGN_TEST_DATA) + "/io/protein_small.fa");
    ASSERT_EQ(small.size(), 2u);
    pairs.push_back({small[0], small[1]});
    pairs.push_back({small[1], small[0]});
    if (std::filesystem::is_directory(shared_data())) {
        const auto prot = shared_data() / "protein";
        for (auto& p : read_pairs<Alphabet::protein>(prot / "orthologs_cow.fa", prot / "orthologs_pig.fa", 200))
            pairs.push_back(std::move(p));
        const auto db = read_fasta_codes<Alphabet::protein>(prot / "mmseqs2_example_db.fa", under_asan ? 40 : 120);
        for (std::size_t k = 0; k + 1 < db.size(); k += 2) pairs.push_back({db[k], db[k + 1]});
    }
    EXPECT_EQ(expect_same_as_scalar_all_modes(pairs, blosum62_scheme(11, 1), "real BLOSUM62 11/1"), 0);
    EXPECT_EQ(expect_same_as_scalar_all_modes(pairs, make_protein_scheme("BLOSUM45", 0, 2), "real BLOSUM45 0/2"), 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, StripedEveryTarget, testing::ValuesIn(targets()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace gpualign::test
