// RecordBlock stores records contiguously and hands out views equal to the
// records appended; clear() keeps its memory for reuse.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpualign/io/record_block.hpp"

namespace gpualign {
namespace {

SequenceRecord make(std::string name, std::string description, std::string seq, std::string qual) {
    SequenceRecord r;
    r.name = std::move(name);
    r.description = std::move(description);
    r.sequence = std::move(seq);
    r.quality = std::move(qual);
    EXPECT_EQ(encode_sequence(Alphabet::dna, r.sequence, r.codes), std::nullopt);
    return r;
}

void expect_view_equals(const RecordView& v, const SequenceRecord& r) {
    EXPECT_EQ(v.name, r.name);
    EXPECT_EQ(v.description, r.description);
    EXPECT_EQ(v.sequence, r.sequence);
    EXPECT_EQ(v.quality, r.quality);
    EXPECT_EQ(std::vector<std::uint8_t>(v.codes.begin(), v.codes.end()), r.codes);
    EXPECT_EQ(v.number, r.number);
}

TEST(RecordBlock, ViewsAndCopiesEqualTheAppendedRecords) {
    std::vector<SequenceRecord> recs = {make("r1", "", "ACGT", ""), make("read_2", "some words here", "nacgtTTU", ""),
                                        make("q", "", "G", "I"), make("long", "d", std::string(5000, 'C') + "ATG", "")};
    RecordBlock b;
    EXPECT_TRUE(b.empty());
    b.set_first_number(41);
    for (std::size_t k = 0; k < recs.size(); ++k) {
        recs[k].number = 41 + k;
        b.append(recs[k]);
    }
    ASSERT_EQ(b.size(), recs.size());
    EXPECT_EQ(b.bases(), 4u + 8u + 1u + 5003u);
    for (std::size_t k = 0; k < recs.size(); ++k) {
        expect_view_equals(b[k], recs[k]);
        SequenceRecord copy = make("stale name", "stale description", "TTTTTTTTTTTTTTTTTTTT", "stale");
        b.copy_to(k, copy);
        expect_view_equals(view_of(copy), recs[k]);
    }
}

TEST(RecordBlock, ClearKeepsCapacityAndRefillsCleanly) {
    RecordBlock b;
    for (int k = 0; k < 100; ++k) b.append(make("n" + std::to_string(k), "desc", std::string(300, 'A'), ""));
    const std::size_t cap = b.capacity_bytes();
    EXPECT_GE(cap, 100u * 300u * 2u);
    b.clear();
    EXPECT_TRUE(b.empty());
    EXPECT_EQ(b.bases(), 0u);
    EXPECT_EQ(b.capacity_bytes(), cap);
    SequenceRecord r = make("x", "", "GGC", "");
    r.number = 1;
    b.set_first_number(1);
    b.append(r);
    ASSERT_EQ(b.size(), 1u);
    expect_view_equals(b[0], r);
    EXPECT_EQ(b.capacity_bytes(), cap);
}

TEST(RecordBlock, AppendEncodedEqualsAppendOfAnEncodedRecord) {
    const std::vector<SequenceRecord> recs = {make("r1", "", "ACGT", ""), make("read_2", "two words", "nacgtTTUrykm", ""),
                                              make("long", "d", std::string(1001, 'G') + "AT", "")};
    RecordBlock direct, copied;
    for (const SequenceRecord& r : recs) {
        copied.append(r);
        EXPECT_EQ(direct.append_encoded(r.name, r.description, r.sequence, r.quality, Alphabet::dna), std::nullopt);
    }
    ASSERT_EQ(direct.size(), copied.size());
    EXPECT_EQ(direct.bases(), copied.bases());
    for (std::size_t k = 0; k < recs.size(); ++k) {
        const RecordView a = direct[k], b = copied[k];
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.description, b.description);
        EXPECT_EQ(a.sequence, b.sequence);
        EXPECT_EQ(std::vector<std::uint8_t>(a.codes.begin(), a.codes.end()),
                  std::vector<std::uint8_t>(b.codes.begin(), b.codes.end()));
    }
}

TEST(RecordBlock, AppendEncodedRejectsABadLetterAndAppendsNothing) {
    RecordBlock b;
    ASSERT_EQ(b.append_encoded("ok", "", "ACGT", "", Alphabet::dna), std::nullopt);
    const std::size_t bases = b.bases();
    // Positions on both sides of the 8-letter unrolled steps, and in the tail.
    for (std::size_t len : {1u, 7u, 8u, 9u, 16u, 23u}) {
        for (std::size_t bad = 0; bad < len; ++bad) {
            std::string seq(len, 'a');
            seq[bad] = '-';
            EXPECT_EQ(b.append_encoded("x", "", seq, "", Alphabet::dna), bad) << len << " " << bad;
            seq[bad] = 'J';  // a protein letter, not IUPAC DNA
            EXPECT_EQ(b.append_encoded("x", "", seq, "", Alphabet::dna), bad) << len << " " << bad;
            EXPECT_EQ(b.append_encoded("x", "", seq, "", Alphabet::protein), std::nullopt);
            b.clear();
            ASSERT_EQ(b.append_encoded("ok", "", "ACGT", "", Alphabet::dna), std::nullopt);
        }
    }
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b.bases(), bases);
    EXPECT_EQ(b[0].sequence, "ACGT");
}

// A record given as lines (append_encoded_pieces) equals the record of its
// joined letters (append_encoded); a bad letter in any line gives its
// position in the joined letters and appends nothing.
TEST(RecordBlock, AppendEncodedPiecesEqualsAppendEncodedOfTheJoinedLetters) {
    const std::vector<std::string_view> lines = {"ACGTN", "acg", "", "RYK", std::string_view("T")};
    RecordBlock pieces, joined;
    ASSERT_EQ(pieces.append_encoded("r1", "desc", "ACGT", "", Alphabet::dna), std::nullopt);
    ASSERT_EQ(joined.append_encoded("r1", "desc", "ACGT", "", Alphabet::dna), std::nullopt);
    EXPECT_EQ(pieces.append_encoded_pieces("r2", "two words", lines, Alphabet::dna), std::nullopt);
    EXPECT_EQ(joined.append_encoded("r2", "two words", "ACGTNacgRYKT", "", Alphabet::dna), std::nullopt);
    ASSERT_EQ(pieces.size(), 2u);
    EXPECT_EQ(pieces.bases(), joined.bases());
    for (std::size_t k = 0; k < 2; ++k) {
        const RecordView a = pieces[k], b = joined[k];
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.description, b.description);
        EXPECT_EQ(a.sequence, b.sequence);
        EXPECT_EQ(std::vector<std::uint8_t>(a.codes.begin(), a.codes.end()),
                  std::vector<std::uint8_t>(b.codes.begin(), b.codes.end()));
    }
    const std::vector<std::string_view> bad = {"ACGT", "AC-G", "TT"};
    EXPECT_EQ(pieces.append_encoded_pieces("r3", "", bad, Alphabet::dna), 6u);
    const std::vector<std::string_view> swallowed = {"ACGT", "AC\nA"};  // a line end inside a line
    EXPECT_EQ(pieces.append_encoded_pieces("r3", "", swallowed, Alphabet::dna), 6u);
    ASSERT_EQ(pieces.size(), 2u);
    EXPECT_EQ(pieces.bases(), joined.bases());
    EXPECT_EQ(pieces[1].sequence, "ACGTNacgRYKT");
    ASSERT_EQ(pieces.append_encoded_pieces("r4", "", lines, Alphabet::protein), std::nullopt);
    EXPECT_EQ(pieces[2].sequence, "ACGTNacgRYKT");
    EXPECT_EQ(pieces[2].name, "r4");
}

// Freed huge regions are handed out again for a request of the same
// rounded size (allocate_huge's cache).
TEST(RecordBlock, FreedHugeRegionsAreReused) {
    (void)detail::release_huge_cache();  // room for one, whatever the tests before it left
    const std::size_t bytes = 3 * detail::huge_page_bytes + 12345;
    void* p = detail::allocate_huge(bytes);
    static_cast<char*>(p)[bytes - 1] = 1;
    detail::free_huge(p, bytes);
    void* q = detail::allocate_huge(4 * detail::huge_page_bytes);  // the same 4 huge pages
    EXPECT_EQ(q, p);
    detail::free_huge(q, 4 * detail::huge_page_bytes);
    EXPECT_EQ(detail::release_huge_cache(), 4 * detail::huge_page_bytes);
    EXPECT_EQ(detail::release_huge_cache(), 0u);
}

}  // namespace
}  // namespace gpualign
