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

}  // namespace
}  // namespace gpualign
