// Real data (GPUALIGN_SHARED_DATA, see its README.md): PacBio E. coli read vs
// reference-window pairs and cow/pig ortholog proteins, checked against SeqAn3
// (score, end cell) and the invariants (rescore_cigar, ranges, score-only).
#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"

namespace gpualign::test {
namespace {

void check_against_seqan3(const std::vector<Pair>& pairs, const ScoringScheme& scheme, AlignMode mode) {
    const auto theirs = oracle(pairs, scheme.alphabet, mode, scheme.gap_open, scheme.gap_extend);
    const auto ours = run_ours(pairs, scheme, mode);
    int failures = 0;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const AlignmentResult& r = ours.full[k];
        std::string what;
        if (r.score != theirs[k].score)
            what = "score " + std::to_string(r.score) + " != SeqAn3 " + std::to_string(theirs[k].score);
        else if ((mode == AlignMode::global || r.score > 0) &&
                 (r.query_end != theirs[k].query_end || r.ref_end != theirs[k].ref_end))
            what = "end cell differs from SeqAn3";
        else
            what = check_invariants(r, ours.fast[k], pairs[k].query, pairs[k].ref, scheme, mode);
        if (!what.empty() && ++failures <= 10) ADD_FAILURE() << "pair " << k << ": " << what;
    }
    EXPECT_EQ(failures, 0);
}

class RealData : public testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::is_directory(shared_data())) GTEST_SKIP() << "no data folder " << shared_data();
    }
};

std::vector<Pair> pacbio_pairs() {
    const auto dir = shared_data() / "dna" / "pacbio_ecoli";
    return read_pairs<Alphabet::dna>(dir / "reads.fa", dir / "ref_windows.fa", 1000);
}
std::vector<Pair> ortholog_pairs() {
    const auto dir = shared_data() / "protein";
    return read_pairs<Alphabet::protein>(dir / "orthologs_cow.fa", dir / "orthologs_pig.fa", SIZE_MAX);
}

TEST_F(RealData, PacbioEcoliLocal) {
    const auto pairs = pacbio_pairs();
    ASSERT_EQ(pairs.size(), 1000u);
    check_against_seqan3(pairs, dna_scheme(5, 2), AlignMode::local);
}

TEST_F(RealData, PacbioEcoliGlobal) {
    const auto pairs = pacbio_pairs();
    ASSERT_EQ(pairs.size(), 1000u);
    check_against_seqan3(pairs, dna_scheme(5, 2), AlignMode::global);
}

TEST_F(RealData, CowPigOrthologsLocal) {
    const auto pairs = ortholog_pairs();
    ASSERT_EQ(pairs.size(), 37u);
    check_against_seqan3(pairs, blosum62_scheme(11, 1), AlignMode::local);
}

TEST_F(RealData, CowPigOrthologsGlobal) {
    const auto pairs = ortholog_pairs();
    ASSERT_EQ(pairs.size(), 37u);
    check_against_seqan3(pairs, blosum62_scheme(11, 1), AlignMode::global);
}

TEST_F(RealData, FirstRecordsDecodeAsExpected) {
    // reads.fa starts "ACTAAATACC" (multi-line record); dna5 ranks A=0 C=1 G=2 T=4.
    const auto pairs = pacbio_pairs();
    ASSERT_FALSE(pairs.empty());
    ASSERT_GE(pairs[0].query.size(), 10u);
    EXPECT_EQ(Codes(pairs[0].query.begin(), pairs[0].query.begin() + 10), dna("ACTAAATACC"));
    EXPECT_EQ(pairs[0].query.size(), 711u);  // header says len=711
    for (const auto& p : ortholog_pairs()) {
        EXPECT_GE(p.query.size(), 70u);
        EXPECT_LE(p.query.size(), 1111u);
    }
}

}  // namespace
}  // namespace gpualign::test
