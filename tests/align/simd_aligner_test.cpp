// The inter-pair SIMD kernel (lib/src/align/simd/) against its scalar twin
// align_pair: byte-identical results over modes x gap models x alphabets,
// random and real pairs, lane-count boundaries, forced 16-bit overflow,
// all-N and empty sides, on every SIMD target this CPU supports (forced in
// turn through Highway's target mask).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/align/simd_aligner.hpp"
#include "test_matrices.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

std::vector<PairView> views(const std::vector<Pair>& pairs) {
    std::vector<PairView> v;
    for (const auto& p : pairs) v.push_back({p.query, p.ref});
    return v;
}

/// Runs the batch on the SIMD kernel and checks each result equals
/// align_pair's and that its CIGAR re-scores to its score. Returns the
/// failure count.
int expect_same_as_scalar(const std::vector<PairView>& pairs, const ScoringScheme& s, AlignMode mode,
                          bool score_only, const std::string& what) {
    std::vector<AlignmentResult> got(pairs.size());
    align_pairs_cpu(pairs, s, mode, score_only, CpuKernel::simd, 2, got);
    int failures = 0;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const AlignmentResult want = align_pair(pairs[k].query, pairs[k].ref, s, mode, score_only);
        if (got[k] != want && ++failures <= 3)
            ADD_FAILURE() << what << " pair " << k << " (" << pairs[k].query.size() << " x " << pairs[k].ref.size()
                          << "): simd score " << got[k].score << " [" << got[k].query_begin << "," << got[k].query_end
                          << ") x [" << got[k].ref_begin << "," << got[k].ref_end << ") " << cigar_string(got[k].cigar)
                          << ", scalar " << want.score << " [" << want.query_begin << "," << want.query_end << ") x ["
                          << want.ref_begin << "," << want.ref_end << ") " << cigar_string(want.cigar);
        if (got[k].has_cigar && !got[k].cigar.empty())
            EXPECT_EQ(rescore_cigar(got[k], pairs[k].query, pairs[k].ref, s), got[k].score) << what << " pair " << k;
    }
    return failures;
}

int expect_same_as_scalar(const std::vector<Pair>& pairs, const ScoringScheme& s, AlignMode mode, bool score_only,
                          const std::string& what) {
    return expect_same_as_scalar(views(pairs), s, mode, score_only, what);
}

/// Each SIMD target of this CPU in turn (restored afterwards).
class EveryTarget : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override { force_simd_target(GetParam()); }
    void TearDown() override { force_simd_target(""); }
};

std::vector<std::string> targets() { return simd_targets(); }

struct Grid {
    Alphabet alphabet;
    int go, ge;
};

TEST_P(EveryTarget, RandomPairsOverTheGridMatchTheScalarReference) {
    const Grid grid[] = {{Alphabet::dna, 5, 2}, {Alphabet::dna, 0, 1}, {Alphabet::dna, 3, 0}, {Alphabet::dna, 12, 1},
                         {Alphabet::protein, 11, 1}, {Alphabet::protein, 0, 4}, {Alphabet::protein, 10, 2}};
    int failures = 0;
    std::uint64_t seed = 7;
    for (const Grid& g : grid) {
        const ScoringScheme s = g.alphabet == Alphabet::dna ? dna_scheme(g.go, g.ge) : blosum62_scheme(g.go, g.ge);
        PairGenerator gen(seed++, g.alphabet);
        std::vector<Pair> pairs;
        // Mixed lengths within each lane group, a few up to 2,000.
        const std::size_t count = under_asan ? 60 : 150;
        for (std::size_t k = 0; k < count; ++k) pairs.push_back(gen.next(k % 25 == 0 ? 2000 : 300));
        for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (const bool score_only : {false, true})
                failures += expect_same_as_scalar(pairs, s, mode, score_only,
                                                  std::string(to_string(g.alphabet)) + " " + to_string(mode) + " " +
                                                      std::to_string(g.go) + "/" + std::to_string(g.ge) +
                                                      (score_only ? " score-only" : " traceback"));
    }
    EXPECT_EQ(failures, 0);
}

TEST_P(EveryTarget, LaneCountBoundariesAndDegenerateSides) {
    const ScoringScheme s = dna_scheme(5, 2);
    PairGenerator gen(99, Alphabet::dna);
    // Batches of 1 .. 2 * 32 + 1 pairs cover every lane count's boundaries.
    for (std::size_t count : {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 65}) {
        std::vector<Pair> pairs;
        for (std::size_t k = 0; k < count; ++k) pairs.push_back(gen.next(120));
        for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (const bool score_only : {false, true})
                EXPECT_EQ(expect_same_as_scalar(pairs, s, mode, score_only, "count " + std::to_string(count)), 0);
    }
    // Empty sides, all-N, single letters, mixed into one batch.
    std::vector<Pair> odd = {{dna(""), dna("ACGT")},   {dna("ACGT"), dna("")},       {dna(""), dna("")},
                             {dna("NNNNNNNN"), dna("NNNNNNNN")}, {dna("A"), dna("A")},       {dna("A"), dna("C")},
                             {dna("NNNNACGT"), dna("ACGTNNNN")}, {dna("ACGTACGTAC"), dna("N")}};
    for (int k = 0; k < 30; ++k) odd.push_back(gen.next(40));
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (const bool score_only : {false, true})
            EXPECT_EQ(expect_same_as_scalar(odd, s, mode, score_only, "degenerate"), 0);
}

TEST_P(EveryTarget, SixteenBitOverflowIsDetectedAndRescoredIn32Bits) {
    PairGenerator gen(5, Alphabet::dna);
    // Large match scores: 40 identical bases at +1,000 score 40,000.
    ScoringScheme big = make_dna_scheme(1000, 900, 50, 20, -900);
    std::vector<Pair> pairs;
    for (int k = 0; k < 20; ++k) {
        Pair p;
        p.query = gen.random_seq(30 + 3 * k, 4);
        p.ref = gen.mutate(p.query, 0.05, 4, 400);
        pairs.push_back(p);
    }
    for (const bool score_only : {false, true}) EXPECT_EQ(expect_same_as_scalar(pairs, big, AlignMode::local, score_only, "big"), 0);
    std::vector<AlignmentResult> got(pairs.size());
    align_pairs_cpu(views(pairs), big, AlignMode::local, false, CpuKernel::simd, 2, got);
    int over = 0;
    for (const auto& r : got) over += r.score > 32767;
    EXPECT_GT(over, 0) << "no pair passed the 16-bit range: the test does not reach the overflow path";
    // Long near-identical pairs: 1,700 bases at +25 score ~42,000, small
    // enough for the SIMD path (its direction bits stay under the group
    // cap, 64 MiB); a 4,000-base pair passes the cap and takes the scalar path.
    const ScoringScheme s = make_dna_scheme(25, 24, 20, 5, -24);
    std::vector<Pair> long_pairs(4);
    for (auto& p : long_pairs) {
        p.query = gen.random_seq(1700, 4);
        p.ref = gen.mutate(p.query, 0.002, 4, 1700);
    }
    long_pairs[2].ref = long_pairs[2].query;  // identical (N never matches)
    long_pairs[3].query = gen.random_seq(4000, 4);
    long_pairs[3].ref = gen.mutate(long_pairs[3].query, 0.002, 4, 4000);
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (const bool score_only : {false, true})
            EXPECT_EQ(expect_same_as_scalar(long_pairs, s, mode, score_only, "long near-identical"), 0);
    got.assign(long_pairs.size(), {});
    align_pairs_cpu(views(long_pairs), s, AlignMode::local, true, CpuKernel::simd, 2, got);
    EXPECT_GT(got[2].score, 32767);
}

TEST_P(EveryTarget, OneQueryAgainstManyRefsMatchesTheScalarReference) {
    // A search's lanes share one query (the same memory): each row then looks
    // up its letter's matrix row (ScoreLookup::row_table), protein included.
    int failures = 0;
    for (const Alphabet a : {Alphabet::dna, Alphabet::protein}) {
        const ScoringScheme s = a == Alphabet::dna ? dna_scheme(5, 2) : blosum62_scheme(11, 1);
        PairGenerator gen(a == Alphabet::dna ? 31 : 32, a);
        const Codes query = gen.random_seq(under_asan ? 120 : 300, 20);
        std::vector<Codes> refs;
        for (int k = 0; k < (under_asan ? 40 : 100); ++k)
            refs.push_back(k % 2 ? gen.mutate(query, 0.2, 20, 600) : gen.random_seq(1 + gen.below(600), 20));
        std::vector<PairView> v;
        for (const auto& r : refs) v.push_back({query, r});
        for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (const bool score_only : {false, true}) {
                std::vector<AlignmentResult> got(v.size());
                align_pairs_cpu(v, s, mode, score_only, CpuKernel::simd, 2, got);
                const std::vector<std::int32_t> scores = score_pairs_cpu(v, s, mode, CpuKernel::simd, 2);
                for (std::size_t k = 0; k < v.size(); ++k) {
                    const AlignmentResult want = align_pair(query, refs[k], s, mode, score_only);
                    if (got[k] != want && ++failures <= 3)
                        ADD_FAILURE() << to_string(a) << " " << to_string(mode) << (score_only ? " score-only" : "")
                                      << " ref " << k << ": simd score " << got[k].score;
                    if (scores[k] != want.score && ++failures <= 3)
                        ADD_FAILURE() << "score_pairs_cpu " << to_string(a) << " " << to_string(mode) << " ref " << k
                                      << ": " << scores[k] << " != " << want.score;
                }
            }
    }
    EXPECT_EQ(failures, 0);
}

// A DnaCodes::iupac scheme (EDNAFULL, 15 codes: too many for the pair_table
// byte shuffles, so gather, and row_table for a shared query) on random DNA
// where about one letter in five is an IUPAC ambiguity code or N.
TEST_P(EveryTarget, IupacCodesWithEdnafullMatchTheScalarReference) {
    PairGenerator gen(41, Alphabet::dna);
    const auto sprinkle = [&](Codes& codes) {
        for (auto& c : codes)
            if (gen.below(5) == 0) c = static_cast<std::uint8_t>(gen.below(dna_code_letters.size()));
    };
    std::vector<Pair> pairs;
    for (std::size_t k = 0; k < (under_asan ? 60u : 150u); ++k) {
        pairs.push_back(gen.next(k % 25 == 0 ? 2000 : 300));
        sprinkle(pairs.back().query);
        sprinkle(pairs.back().ref);
    }
    Codes query = gen.random_seq(under_asan ? 120 : 300, 20);
    sprinkle(query);
    std::vector<Codes> refs(under_asan ? 40 : 100);
    std::vector<PairView> shared;  // one query (the same memory) against many refs: row_table
    for (Codes& r : refs) {
        r = gen.mutate(query, 0.2, 20, 600);
        sprinkle(r);
        shared.push_back({query, r});
    }
    int failures = 0;
    for (const auto& [go, ge] : {std::pair{10, 1}, std::pair{0, 2}, std::pair{16, 4}}) {
        const ScoringScheme s = ednafull_scheme(go, ge);
        ASSERT_EQ(s.size, 15);
        for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (const bool score_only : {false, true}) {
                const std::string what = std::string("EDNAFULL ") + to_string(mode) + " " + std::to_string(go) + "/" +
                                         std::to_string(ge) + (score_only ? " score-only" : " traceback");
                failures += expect_same_as_scalar(pairs, s, mode, score_only, what);
                failures += expect_same_as_scalar(shared, s, mode, score_only, what + " shared query");
            }
    }
    EXPECT_EQ(failures, 0);
}

TEST_P(EveryTarget, RealPairsMatchTheScalarReference) {
    if (!std::filesystem::is_directory(shared_data())) GTEST_SKIP() << "no data folder " << shared_data();
    const auto dir = shared_data() / "dna" / "pacbio_ecoli";
    const auto dna_pairs = read_pairs<Alphabet::dna>(dir / "reads.fa", dir / "ref_windows.fa", under_asan ? 60 : 300);
    const auto prot = shared_data() / "protein";
    const auto prot_pairs =
        read_pairs<Alphabet::protein>(prot / "orthologs_cow.fa", prot / "orthologs_pig.fa", under_asan ? 40 : 200);
    ASSERT_FALSE(dna_pairs.empty());
    ASSERT_FALSE(prot_pairs.empty());
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (const bool score_only : {false, true}) {
            EXPECT_EQ(expect_same_as_scalar(dna_pairs, dna_scheme(5, 2), mode, score_only, "pacbio_ecoli"), 0);
            EXPECT_EQ(expect_same_as_scalar(prot_pairs, blosum62_scheme(11, 1), mode, score_only, "orthologs"), 0);
        }
}

INSTANTIATE_TEST_SUITE_P(Targets, EveryTarget, testing::ValuesIn(targets()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(SimdAligner, DispatchesToATargetThisCpuSupports) {
    const auto all = simd_targets();
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(simd_target(), all.front());
    EXPECT_THROW(force_simd_target("NO_SUCH_TARGET"), std::invalid_argument);
    EXPECT_EQ(simd_target(), all.front());
}

TEST(SimdAligner, AFailingPairIsNamed) {
    // A pair past the 32-bit bound fails in the scalar path; its index is reported.
    ScoringScheme s = make_dna_scheme(1000000, 1000000, 1000000, 1000000, -1000000);
    std::vector<Pair> pairs(3);
    for (auto& p : pairs) p = {dna("ACGT"), dna("ACGT")};
    pairs[2].query.assign(600, 0);
    pairs[2].ref.assign(600, 0);
    std::vector<AlignmentResult> got(pairs.size());
    try {
        align_pairs_cpu(views(pairs), s, AlignMode::local, false, CpuKernel::simd, 2, got);
        FAIL() << "expected PairFailure";
    } catch (const PairFailure& f) {
        EXPECT_EQ(f.index, 2u);
        EXPECT_NE(std::string(f.what()).find("pair 2"), std::string::npos) << f.what();
    }
}

}  // namespace
}  // namespace gpualign::test
