// Strands (issue 14, --strand plus|both): the reverse complement of dna5
// codes and of letters, the tie rule, the forward-strand coordinates, and
// the reverse-strand views of records.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/scoring.hpp"
#include "gpualign/model/strand.hpp"

namespace gpualign {
namespace {

std::vector<std::uint8_t> codes_of(const std::string& letters) {
    std::vector<std::uint8_t> out;
    EXPECT_EQ(encode_sequence(Alphabet::dna, letters, out), std::nullopt) << letters;
    return out;
}

TEST(Strand, ReverseComplementOfCodes) {
    // dna5 ranks A0 C1 G2 N3 T4; rc(AACGTN) = NACGTT.
    EXPECT_EQ(reverse_complement(codes_of("AACGTN")), codes_of("NACGTT"));
    EXPECT_EQ(reverse_complement(codes_of("GATTACA")), codes_of("TGTAATC"));
    // IUPAC codes read as N and stay N; U reads as T and complements to A.
    EXPECT_EQ(reverse_complement(codes_of("RYU")), codes_of("ANN"));
    EXPECT_TRUE(reverse_complement(std::vector<std::uint8_t>{}).empty());
    for (std::uint8_t c = 0; c < 5; ++c) EXPECT_EQ(complement_code(complement_code(c)), c);
    EXPECT_EQ(complement_code(0), 4);  // A -> T
    EXPECT_EQ(complement_code(1), 2);  // C -> G
    EXPECT_EQ(complement_code(3), 3);  // N -> N
}

TEST(Strand, ReverseComplementIsAnInvolutionOnRandomSequences) {
    std::mt19937 rng(14);
    for (int k = 0; k < 200; ++k) {
        std::vector<std::uint8_t> q(1 + rng() % 300);
        for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 5);
        const auto rc = reverse_complement(q);
        ASSERT_EQ(rc.size(), q.size());
        for (std::size_t i = 0; i < q.size(); ++i) EXPECT_EQ(rc[i], complement_code(q[q.size() - 1 - i]));
        EXPECT_EQ(reverse_complement(rc), q);
    }
}

TEST(Strand, BadCodesAndSizesAreErrors) {
    const std::vector<std::uint8_t> protein{0, 1, 20};  // 20 is no DNA code (0-14)
    try {
        reverse_complement(protein);
        ADD_FAILURE() << "no std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("position 2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(complement_code(15), std::invalid_argument);
    // Every code, IUPAC ones included (DnaCodes::iupac), complements as its letter does.
    for (std::uint8_t c = 0; c < dna_code_letters.size(); ++c)
        EXPECT_EQ(dna_code_letters[complement_code(c)], complement_letter(dna_code_letters[c])) << int(c);
    std::vector<std::uint8_t> small(2);
    EXPECT_THROW(reverse_complement(codes_of("ACG"), small), std::invalid_argument);
}

TEST(Strand, ComplementLetterKeepsCaseAndIupac) {
    const std::string from = "ACGTUNRYKMSWBDHVacgtunrykmswbdhv";
    const std::string to = "TGCAANYRMKSWVHDBtgcaanyrmkswvhdb";
    for (std::size_t k = 0; k < from.size(); ++k) EXPECT_EQ(complement_letter(from[k]), to[k]) << from[k];
    for (const char c : std::string("ACGTNRYKMSWBDHVacgtn")) EXPECT_EQ(complement_letter(complement_letter(c)), c);
}

TEST(Strand, TiesGoToPlus) {
    EXPECT_EQ(better_strand(10, 10), Strand::plus);
    EXPECT_EQ(better_strand(10, 11), Strand::minus);
    EXPECT_EQ(better_strand(11, 10), Strand::plus);
    EXPECT_EQ(better_strand(-5, -5), Strand::plus);  // global scores may be negative
    EXPECT_EQ(better_strand(-6, -5), Strand::minus);
    EXPECT_EQ(strand_char(Strand::plus), '+');
    EXPECT_EQ(strand_char(Strand::minus), '-');
}

TEST(Strand, ForwardIntervalMirrorsTheMinusStrand) {
    EXPECT_EQ(forward_interval(Strand::plus, 2, 7, 10), (Interval{2, 7}));
    EXPECT_EQ(forward_interval(Strand::minus, 2, 7, 10), (Interval{3, 8}));
    EXPECT_EQ(forward_interval(Strand::minus, 0, 10, 10), (Interval{0, 10}));
    EXPECT_EQ(forward_interval(Strand::minus, 0, 0, 10), (Interval{0, 0}));  // unaligned stays at 0
}

TEST(Strand, ReverseStrandViewsKeepTheRecordAndReverseTheCodes) {
    RecordBlock block;
    SequenceRecord a, b;
    a.name = "a";
    a.sequence = "ACGGT";
    a.quality = "ABCDE";
    b.name = "b";
    b.sequence = "nnAC";
    ASSERT_EQ(encode_sequence(Alphabet::dna, a.sequence, a.codes), std::nullopt);
    ASSERT_EQ(encode_sequence(Alphabet::dna, b.sequence, b.codes), std::nullopt);
    block.append(a);
    block.append(b);
    const std::vector<RecordView> views{block[0], block[1]};
    std::vector<std::uint8_t> storage;
    const std::vector<RecordView> minus = reverse_strand_views(views, storage);
    ASSERT_EQ(minus.size(), 2u);
    EXPECT_EQ(storage.size(), 9u);
    for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(minus[k].name, views[k].name);
        EXPECT_EQ(minus[k].sequence, views[k].sequence);  // letters as read: writers complement them
        EXPECT_EQ(minus[k].quality, views[k].quality);
        EXPECT_EQ(minus[k].number, views[k].number);
        const std::vector<std::uint8_t> got(minus[k].codes.begin(), minus[k].codes.end());
        EXPECT_EQ(got, reverse_complement(views[k].codes));
    }
    EXPECT_EQ(std::vector<std::uint8_t>(minus[0].codes.begin(), minus[0].codes.end()), codes_of("ACCGT"));
    // Moving the storage keeps the views valid.
    const std::vector<std::uint8_t> moved = std::move(storage);
    EXPECT_EQ(minus[1].codes.data(), moved.data() + 5);
}

}  // namespace
}  // namespace gpualign
