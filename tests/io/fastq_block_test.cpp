// The FASTQ hot-path block parser (lib/src/io/fastq_block.hpp) against SeqAn3
// on the same text: it accepts plain 4-line records and then gives SeqAn3's
// records exactly; it declines every text SeqAn3 reads otherwise or
// rejects. And the speculative cut it is given.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "io/fastq_block.hpp"

namespace gpualign {
namespace {

struct Reference {
    RecordBlock records;
    std::string error;
};

Reference seqan3_parse(const std::string& text, Alphabet alphabet) {
    Reference out;
    try {
        SequenceReader r = SequenceReader::from_text(text, "block.fq", SequenceFormat::fastq, alphabet, 1);
        while (r.next_into(out.records)) {}
    } catch (const InputError& e) {
        out.error = e.what();
    }
    return out;
}

/// Parses `text` both ways; when the block parser accepts, the outcomes must
/// agree (qualities included). Returns whether it accepted.
bool check(const std::string& text, Alphabet alphabet = Alphabet::dna) {
    RecordBlock fast;
    const bool accepted = detail::parse_fastq_block(text, alphabet, DnaCodes::dna5, fast);
    const Reference ref = seqan3_parse(text, alphabet);
    if (accepted) {
        EXPECT_EQ(ref.error, "") << text;
        EXPECT_EQ(fast.size(), ref.records.size()) << text;
        for (std::size_t k = 0; k < std::min(fast.size(), ref.records.size()); ++k) {
            const RecordView a = fast[k], b = ref.records[k];
            EXPECT_EQ(a.name, b.name) << text;
            EXPECT_EQ(a.description, b.description) << text;
            EXPECT_EQ(a.sequence, b.sequence) << text;
            EXPECT_EQ(a.quality, b.quality) << text;
            EXPECT_TRUE(std::equal(a.codes.begin(), a.codes.end(), b.codes.begin(), b.codes.end())) << text;
        }
    }
    return accepted;
}

std::string record(std::mt19937& rng, int k, std::size_t len) {
    std::string seq(len, 'A'), qual(len, 'I');
    for (char& c : seq) c = "ACGTNacgtn"[rng() % 10];
    for (char& c : qual) c = static_cast<char>('!' + rng() % 94);
    return "@r" + std::to_string(k) + (k % 2 ? " d" + std::to_string(k) : "") + "\n" + seq + "\n+" +
           (k % 3 ? "" : "r" + std::to_string(k)) + "\n" + qual + "\n";
}

TEST(FastqBlock, AcceptsPlainRecordsAndMatchesSeqAn3) {
    std::mt19937 rng(5);
    for (int round = 0; round < 200; ++round) {
        std::string text;
        const int n = 1 + static_cast<int>(rng() % 10);
        for (int k = 0; k < n; ++k) text += record(rng, k, 1 + rng() % 300);
        if (round % 4 == 0) text.pop_back();  // no LF after the last qualities
        EXPECT_TRUE(check(text)) << text;
    }
}

TEST(FastqBlock, DeclinesEveryOtherShape) {
    const std::vector<std::string> declined = {
        "@r\nACGT\nACGT\n+\nIIII\nIIII\n",  // letters over two lines
        "@r\nACGT\n+\nII\nII\n",            // qualities over two lines
        "@r\nAC GT\n+\nIIIII\n",             // a blank among the letters
        "@r\nAC+GT\n+\nIIIII\n",             // '+' among the letters ends them for SeqAn3
        "@r\nACGT\n+\nIII\n",                // too few qualities
        "@r\nACGT\n+\nIIIII\n",              // too many
        "@r\nACGT\n+\nII I\n",               // a blank among the qualities
        "@r\nACGT\n+\nII\x7fI\n",            // a quality SeqAn3 clamps
        "@r\nACGT\n+\nIIII\n\n@s\nA\n+\nI\n",  // a blank line between records
        "@r\nACGT\n+\nIIII\nX\n",            // not '@' after a record
        "@r\n\n+\n\n",                       // an empty sequence
        "@ r\nACGT\n+\nIIII\n",              // no name (FASTQ keeps the blank)
        "@r\nACGT\n+",                       // cut short
        "@r\nACGT",                          // cut short
        "@r\nACGE\n+\nIIII\n",               // E is not DNA
        ">r\nACGT\n",                        // FASTA
        "@r\r\nACGT\r\n+\r\nIIII\r\n",          // CR line ends: the block reader makes them LF first
        "@r d\rx\nACGT\n+\nIIII\n",            // a lone CR inside a header
        "@r\nACGT\n+\r\nIIII\n",              // a CR on the '+' line
        "@r\nACGT\n+\nII\rI\n",               // a CR among the qualities
    };
    for (const std::string& text : declined) EXPECT_FALSE(check(text)) << text;
}

TEST(FastqBlock, RandomTextsAcceptedOnlyWhenSeqAn3Agrees) {
    std::mt19937 rng(9);
    const std::vector<std::string> odd = {"\n", " ", "+", "@", "ACGT", "I", "\n+\n", "X", "\t", "\n\n"};
    int accepted = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text;
        const int n = 1 + static_cast<int>(rng() % 4);
        for (int k = 0; k < n; ++k) text += record(rng, k, 1 + rng() % 20);
        const int edits = static_cast<int>(rng() % 3);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = rng() % text.size();
            if (rng() % 2) text.insert(at, odd[rng() % odd.size()]);
            else text.erase(at, 1 + rng() % 3);
        }
        accepted += check(text) ? 1 : 0;
    }
    EXPECT_GT(accepted, 300);
}

TEST(FastqBlock, CutIsTheNextHeaderWhoseLineAfterNextIsPlus) {
    const std::string text = "@a\nAC\n+\n@I\n@b\nGG\n+\nII\n";
    // From inside record a: the quality line "@I" is skipped (its line after
    // next is "GG"), the header "@b" is taken.
    EXPECT_EQ(detail::fastq_cut(text, 1), text.find("@b"));
    EXPECT_EQ(detail::fastq_cut(text, text.find("@I")), text.find("@b"));
    EXPECT_EQ(detail::fastq_cut(text, text.find("@b") + 1), text.size());
    EXPECT_EQ(detail::fastq_cut(text, 0), 0u);
}

}  // namespace
}  // namespace gpualign
