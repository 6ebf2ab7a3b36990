// The FASTA hot-path block parser (lib/src/io/fasta_block.hpp) against SeqAn3
// on the same text: it accepts well-formed FASTA and then gives SeqAn3's
// records exactly; it declines every text SeqAn3 reads differently or
// rejects. And the SIMD letter encoder against its scalar twin.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "io/encode_letters.hpp"
#include "io/fasta_block.hpp"

namespace gpualign {
namespace {

/// SeqAn3's reading of `text` (SequenceReader::from_text): its records and
/// the error that ended it ("" if none).
struct Reference {
    RecordBlock records;
    std::string error;
};

Reference seqan3_parse(const std::string& text, Alphabet alphabet, DnaCodes codes = DnaCodes::dna5) {
    Reference out;
    try {
        SequenceReader r = SequenceReader::from_text(text, "block.fa", SequenceFormat::fasta, alphabet, 1);
        r.set_dna_codes(codes);
        while (r.next_into(out.records)) {}
    } catch (const InputError& e) {
        out.error = e.what();
    }
    return out;
}

void expect_same(const RecordBlock& got, const RecordBlock& want, const std::string& text) {
    ASSERT_EQ(got.size(), want.size()) << text;
    for (std::size_t k = 0; k < got.size(); ++k) {
        const RecordView a = got[k], b = want[k];
        EXPECT_EQ(a.name, b.name) << text;
        EXPECT_EQ(a.description, b.description) << text;
        EXPECT_EQ(a.sequence, b.sequence) << text;
        EXPECT_TRUE(a.quality.empty());
        EXPECT_EQ(std::vector<std::uint8_t>(a.codes.begin(), a.codes.end()),
                  std::vector<std::uint8_t>(b.codes.begin(), b.codes.end()))
            << text;
    }
}

/// Parses `text` both ways; when the block parser accepts, the outcomes
/// must agree. Returns whether it accepted.
bool check(const std::string& text, Alphabet alphabet, DnaCodes codes = DnaCodes::dna5) {
    RecordBlock fast;
    const bool accepted = detail::parse_fasta_block(text, alphabet, codes, fast);
    const Reference ref = seqan3_parse(text, alphabet, codes);
    if (accepted) {
        EXPECT_EQ(ref.error, "") << text;
        expect_same(fast, ref.records, text);
    }
    return accepted;
}

std::string random_letters(std::mt19937& rng, std::string_view alphabet, std::size_t n) {
    std::string s(n, 'A');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    return s;
}

TEST(FastaBlock, AcceptsWellFormedFastaAndMatchesSeqAn3) {
    std::mt19937 rng(7);
    const std::string_view dna = "ACGTNacgtnRYKMSWBDHVUryu", protein = "ACDEFGHIKLMNPQRSTVWYBJOUXZ*acdxz";
    for (int round = 0; round < 200; ++round) {
        const bool is_protein = round % 3 == 2;
        std::string text;
        const int records = 1 + static_cast<int>(rng() % 12);
        for (int r = 0; r < records; ++r) {
            text += (round % 5 == 4 && r % 2) ? ';' : '>';
            text += std::string(rng() % 3, rng() % 2 ? ' ' : '\t');  // blanks SeqAn3 drops before the name
            text += "read_" + std::to_string(round) + "." + std::to_string(r);
            if (rng() % 2) text += std::string(1 + rng() % 2, rng() % 2 ? ' ' : '\t') + "len=" + std::to_string(r) + "  ";
            text += '\n';
            const std::size_t n = 1 + rng() % 700;
            const std::string s = random_letters(rng, is_protein ? protein : dna, n);
            const std::size_t width = rng() % 2 ? n : 1 + rng() % 80;  // one line, or wrapped
            for (std::size_t k = 0; k < n; k += width) {
                text += s.substr(k, width) + '\n';
                if (rng() % 16 == 0) text += '\n';  // an empty line inside the sequence
            }
        }
        if (rng() % 4 == 0) text.pop_back();  // no LF after the last sequence line
        const Alphabet alphabet = is_protein ? Alphabet::protein : Alphabet::dna;
        EXPECT_TRUE(check(text, alphabet)) << text;
        if (!is_protein) EXPECT_TRUE(check(text, alphabet, DnaCodes::iupac)) << text;
    }
}

// A line is first taken to be as wide as the one before it (fasta_block.cpp).
// A guess that swallows a shorter line's newline, or the next record's
// header, fails the encoding and the record's lines are found again: the
// block is still accepted and read as SeqAn3 reads it.
TEST(FastaBlock, LineWidthGuessesThatSwallowANewlineAreFoundAgain) {
    for (const std::string text : {
             std::string(">r1\nACGT\nAC\nA\n>r2\nACGTACGT\nACG\nA\n"),  // 4 then 2: "AC\nA" ends in a newline
             std::string(">r1\nACGT\nA\n>r\nG\n"),                       // "A\n>r" swallows the next header
             std::string(">r1\nACGT\nA\n;c\nGG\n>r3\nAAAA\nAA\n\nA\n"),  // a ';' header, an empty line
             std::string(">r1\nAC\nA\n\nTT\nG"),                            // no LF at the end
         }) {
        EXPECT_TRUE(check(text, Alphabet::dna)) << text;
        EXPECT_TRUE(check(text, Alphabet::protein)) << text;
    }
}

// Every case outside well-formed FASTA is declined (SeqAn3 reads it, with its
// own rules or its error); none is read differently.
TEST(FastaBlock, DeclinesWhatSeqAn3ReadsDifferentlyOrRejects) {
    const std::vector<std::string> declined = {
        ">r1\nAC GT\n",          // a blank inside a line: SeqAn3 drops it
        ">r1\nACGT 10\n",        // digits: SeqAn3 drops them
        ">r1\nAC\tGT\n",         // a tab
        ">r1\n  \nACGT\n",       // a line of blanks
        ">r1\nAC>GT\n",          // '>' inside a line starts a record for SeqAn3
        ">r1\nAC;GT\n",          // ';' too
        ">r1\n>r2\nACGT\n",      // an empty sequence
        ">r1\nACGT\n>r2",        // a header with no line end
        ">r1\nACGT\n>r2\n",      // a header at the end
        ">\nACGT\n",             // no name
        "> \t \nACGT\n",         // only blanks
        ">r1\nACGTE\n",          // E is not DNA
        ">r1\nACG\xc3\xa9\n",    // bytes above 127
        ">r1\nAC\vGT\n",         // VT and FF are blanks to SeqAn3
        ">r1\nAC\x01GT\n",       // a control character
        ">r1\nACGT-\n",          // a gap character
        ">r1\r\nACGT\r\n",       // CR line ends: the block reader makes them LF first
        ">r1\nACGT\r\n",         // a CR at a sequence line's end
        ">r1 d\rACGT\n",         // a lone CR inside a header (an old Mac line end)
        ">r1\nAC\rGT\n",         // a CR inside a sequence line
    };
    for (const std::string& text : declined) EXPECT_FALSE(check(text, Alphabet::dna)) << text;
    EXPECT_FALSE(check(">r1\nMKV.L\n", Alphabet::protein));
    EXPECT_FALSE(check(">r1\nMKV1L\n", Alphabet::protein));
}

// Random texts built from the characters that matter to either parser: the
// block parser may decline any of them, but what it accepts SeqAn3 reads the
// same; and it does accept a share of them (so the comparison runs).
TEST(FastaBlock, RandomTextsAcceptedOnlyWhenSeqAn3Agrees) {
    std::mt19937 rng(11);
    // Pieces of well-formed FASTA, and the odd ones, taken one time in eight.
    const std::vector<std::string> good = {"ACGT", "acgtn", "N", "\n", "\n>r1 d\n", "RYK", "U", "\n;r2\n", "MKV"};
    const std::vector<std::string> odd = {">", ";", " ", "\t", "7", "E", "*", "x y", ">r", "\v", "-", "\n\n", "\xc3"};
    int accepted = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text = ">r0\n";
        const int n = 1 + static_cast<int>(rng() % 24);
        for (int k = 0; k < n; ++k) {
            const auto& from = rng() % 8 == 0 ? odd : good;
            text += from[rng() % from.size()];
        }
        const Alphabet alphabet = round % 2 ? Alphabet::protein : Alphabet::dna;
        accepted += check(text, alphabet) ? 1 : 0;
    }
    EXPECT_GT(accepted, 300);
}

// The SIMD encoder gives its scalar twin's codes and verdict for every byte
// value, at every length and alignment around the vector width.
TEST(EncodeLetters, SimdMatchesScalarTwin) {
    std::mt19937 rng(3);
    for (const Alphabet alphabet : {Alphabet::dna, Alphabet::protein}) {
        for (const DnaCodes codes : {DnaCodes::dna5, DnaCodes::iupac}) {
            detail::LetterTable table;
            for (int c = 0; c < 128; ++c) {
                const int code = encode_char(alphabet, static_cast<char>(c), codes);
                table.code[static_cast<std::size_t>(c)] = code < 0 || c < 0x20 ? 0xFF : static_cast<std::uint8_t>(code);
            }
            const std::string_view good = alphabet == Alphabet::dna ? "ACGTNacgtnRYKMSWBDHVU" : "ACDEFGHIKLMNPQRSTVWYZ*";
            for (std::size_t n = 0; n < 300; n += 1 + n / 16) {
                for (int offset = 0; offset < 3; ++offset) {
                    std::string in(n + offset, 'A');
                    for (char& c : in) c = good[rng() % good.size()];
                    if (n > 0 && rng() % 2) in[offset + rng() % n] = static_cast<char>(rng() % 256);
                    std::vector<std::uint8_t> simd(n + 1, 0x55), scalar(n + 1, 0x55);
                    const auto* p = reinterpret_cast<const unsigned char*>(in.data()) + offset;
                    EXPECT_EQ(detail::encode_letters(table, p, n, simd.data()),
                              detail::encode_letters_scalar(table, p, n, scalar.data()));
                    EXPECT_EQ(simd, scalar);  // the byte after the run is untouched too
                }
            }
            // Every byte value on its own.
            for (int c = 0; c < 256; ++c) {
                std::string in(64, good[0]);
                in[37] = static_cast<char>(c);
                std::vector<std::uint8_t> out(64);
                const bool ok = detail::encode_letters(table, reinterpret_cast<const unsigned char*>(in.data()), 64,
                                                       out.data());
                EXPECT_EQ(ok, encode_char(alphabet, static_cast<char>(c), codes) >= 0) << c;
                if (ok) {
                    EXPECT_EQ(out[37], encode_char(alphabet, static_cast<char>(c), codes));
                    EXPECT_EQ(encode_sequence(alphabet, in, out.data(), codes), std::nullopt);
                } else {
                    EXPECT_EQ(encode_sequence(alphabet, in, out.data(), codes), std::optional<std::size_t>(37));
                }
            }
        }
    }
}

}  // namespace
}  // namespace gpualign
