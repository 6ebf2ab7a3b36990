// Known answers for the CPU reference aligner (hand-checked).
#include <gtest/gtest.h>

#include "gpualign/align/reference_aligner.hpp"

namespace gpualign {
namespace {

std::vector<std::uint8_t> dna(std::string_view s) {
    std::vector<std::uint8_t> out;
    for (char c : s) out.push_back(c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : c == 'T' ? 4 : 3);
    return out;
}

TEST(CpuAligner, GlobalIdentical) {
    auto s = make_dna_scheme(2, 3, 5, 2, -3);
    auto q = dna("ACGT");
    auto r = align_pair(q, q, s, AlignMode::global, false);
    EXPECT_EQ(r.score, 8);
    EXPECT_EQ(cigar_string(r.cigar), "4=");
    EXPECT_EQ(rescore_cigar(r, q, q, s), r.score);
}

TEST(CpuAligner, GlobalOneGap) {
    auto s = make_dna_scheme(2, 3, 5, 2, -3);
    auto q = dna("ACGTACGT"), ref = dna("ACGACGT");
    auto r = align_pair(q, ref, s, AlignMode::global, false);
    // 7 matches (14) - one gap of length 1 (5 + 2) = 7
    EXPECT_EQ(r.score, 7);
    EXPECT_EQ(rescore_cigar(r, q, ref, s), 7);
    EXPECT_EQ(r.query_end, 8);
    EXPECT_EQ(r.ref_end, 7);
}

TEST(CpuAligner, LocalUnaligned) {
    auto s = make_dna_scheme(2, 3, 5, 2, -3);
    auto q = dna("AAAA"), ref = dna("CCCC");
    auto r = align_pair(q, ref, s, AlignMode::local, false);
    EXPECT_EQ(r.score, 0);
    EXPECT_TRUE(r.cigar.empty());
}

TEST(CpuAligner, LocalCoordinatesAndScoreOnlyAgree) {
    auto s = make_dna_scheme(2, 3, 5, 2, -3);
    auto q = dna("TTTTACGTACGTTTTT"), ref = dna("GGGACGTACGGGG");
    auto full = align_pair(q, ref, s, AlignMode::local, false);
    auto fast = align_pair(q, ref, s, AlignMode::local, true);
    EXPECT_EQ(full.score, 14);  // ACGTACG
    EXPECT_EQ(full.query_begin, 4);
    EXPECT_EQ(full.query_end, 11);
    EXPECT_EQ(full.ref_begin, 3);
    EXPECT_EQ(full.ref_end, 10);
    EXPECT_EQ(cigar_string(full.cigar), "7=");
    EXPECT_EQ(fast.score, full.score);
    EXPECT_EQ(fast.query_begin, full.query_begin);
    EXPECT_EQ(fast.ref_begin, full.ref_begin);
    EXPECT_EQ(fast.query_end, full.query_end);
    EXPECT_EQ(fast.ref_end, full.ref_end);
}

}  // namespace
}  // namespace gpualign
