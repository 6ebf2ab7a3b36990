// Tests: what SequenceReader and ParallelSequenceReader read from the text
// of an input: digits (an error at the position as written), blanks inside
// sequences, FASTQ records cut short or mismatched ('+' line, qualities),
// empty inputs and zero-length records, and bzip2, xz and zstd compression.
#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "io/expect_input_error.hpp"
#include "io/fasta_block.hpp"
#include "io/fastq_block.hpp"

namespace {

using namespace gpualign;
using test::expect_input_error;

/// Every record of `text` through from_text (the reader of a declined block).
std::vector<SequenceRecord> from_text(const std::string& text, SequenceFormat format,
                                      Alphabet alphabet = Alphabet::dna) {
    SequenceReader r = SequenceReader::from_text(text, "in.txt", format, alphabet, 1);
    std::vector<SequenceRecord> out;
    SequenceRecord rec;
    while (r.next(rec)) out.push_back(rec);
    return out;
}

/// The InputError message of reading `text` whole (empty when none).
std::string error_of(const std::string& text, SequenceFormat format, Alphabet alphabet = Alphabet::dna) {
    try {
        from_text(text, format, alphabet);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

class InputFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("gpualign_input_text_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                "_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string write(const std::string& name, const std::string& bytes) {
        const std::string p = (dir_ / name).string();
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }
    std::filesystem::path dir_;
};

std::vector<SequenceRecord> read_file(const std::string& path) {
    SequenceReader r(path);
    std::vector<SequenceRecord> out;
    SequenceRecord rec;
    while (r.next(rec)) out.push_back(rec);
    return out;
}

std::vector<SequenceRecord> read_parallel(const std::string& path) {
    ParallelSequenceReader r(path, AlphabetChoice::automatic, 2);
    std::vector<SequenceRecord> out;
    SequenceRecord rec;
    while (r.next(rec)) out.push_back(rec);
    return out;
}

// ---- digits and blanks -------------------------------------------------------

TEST(InputText, DigitInFastaSequenceIsAnErrorAtItsPositionAsWritten) {
    const std::string msg = error_of(">q1\nACGT1234ACGT\n", SequenceFormat::fasta);
    EXPECT_NE(msg.find("record 1 'q1'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'1' at position 5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("digit"), std::string::npos) << msg;
    // On a later line: positions go on across lines (line ends not counted).
    const std::string later = error_of(">q1\nACGT\nAC 7T\n", SequenceFormat::fasta);
    EXPECT_NE(later.find("'7' at position 8"), std::string::npos) << later;
}

TEST(InputText, DigitInFastqSequenceIsAnError) {
    const std::string msg = error_of("@r1\nAC9T\n+\nIIII\n", SequenceFormat::fastq);
    EXPECT_NE(msg.find("record 1 'r1'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'9' at position 3"), std::string::npos) << msg;
}

TEST(InputText, BadLetterPositionCountsBlanksAndDigitsAsWritten) {
    // Issue 41 item 5: '.' is character 11 of "ACGT1234AC." (the digit is met first now);
    // with blanks in the line the position counts them.
    const std::string msg = error_of(">q1\nAC GT\tAC.T\n", SequenceFormat::fasta);
    EXPECT_NE(msg.find("'.' at position 9"), std::string::npos) << msg;
    const std::string multi = error_of(">q1\nAC GT\nAC.T\n", SequenceFormat::fasta);
    EXPECT_NE(multi.find("'.' at position 8"), std::string::npos) << multi;
}

TEST(InputText, BlanksInsideSequenceLinesAreDroppedAsBefore) {
    const auto recs = from_text(">q1 desc\nAC GT\t\nA C\n>q2\n ACGT \n", SequenceFormat::fasta);
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].sequence, "ACGTAC");
    EXPECT_EQ(recs[0].description, "desc");
    EXPECT_EQ(recs[1].sequence, "ACGT");
    const auto fq = from_text("@r1\nAC GT\n+\nII II\n", SequenceFormat::fastq);
    ASSERT_EQ(fq.size(), 1u);
    EXPECT_EQ(fq[0].sequence, "ACGT");
    EXPECT_EQ(fq[0].quality, "IIII");
}

TEST(InputText, BlockParsersDeclineDigitsAndMismatchedPlusLines) {
    RecordBlock b;
    EXPECT_FALSE(detail::parse_fasta_block(">q1\nACGT1ACGT\n", Alphabet::dna, DnaCodes::dna5, b));
    b.clear();
    EXPECT_FALSE(detail::parse_fastq_block("@r1\nACGT\n+r2\nIIII\n", Alphabet::dna, DnaCodes::dna5, b));
    b.clear();
    EXPECT_TRUE(detail::parse_fastq_block("@r1 x\nACGT\n+r1\nIIII\n@r2\nACGT\n+r2\nIIII\n", Alphabet::dna,
                                          DnaCodes::dna5, b));
    EXPECT_EQ(b.size(), 2u);
    b.clear();
    EXPECT_TRUE(detail::parse_fastq_block("@r1 x\nACGT\n+r1 x\nIIII\n", Alphabet::dna, DnaCodes::dna5, b));
}

TEST_F(InputFile, DigitErrorIsTheSameOnTheBlockPath) {
    std::string text;
    for (int k = 0; k < 2000; ++k) text += ">r" + std::to_string(k) + "\nACGTACGTACGTACGT\n";
    text += ">bad\nACGTA5GT\n";
    const std::string path = write("d.fa", text);
    std::string serial, blocks;
    try {
        read_file(path);
    } catch (const InputError& e) {
        serial = e.what();
    }
    try {
        read_parallel(path);
    } catch (const InputError& e) {
        blocks = e.what();
    }
    EXPECT_NE(serial.find("record 2001 'bad'"), std::string::npos) << serial;
    EXPECT_NE(serial.find("'5' at position 6"), std::string::npos) << serial;
    EXPECT_EQ(serial, blocks);
}

// ---- FASTQ errors in plain words -----------------------------------------------

struct FastqCase {
    const char* text;
    std::vector<std::string> words;
};

TEST(InputText, FastqErrorsArePlainWords) {
    const std::vector<FastqCase> cases = {
        {"@r1\nACGT\n+\nIIII\n@r2\nACGT\n", {"record 2 'r2'", "missing '+' line"}},
        {"@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIII\n", {"record 2 'r2'", "qualities shorter than the sequence",
                                                       "3 quality characters for 4 letters", "end of file"}},
        {"@r1\nACGTAC\n+\nIII\n@r2\nACGT\n+\nIIII\n", {"record 1 'r1'", "qualities shorter than the sequence"}},
        {"@r1\nACGT\n+\nIIIIII\n", {"record 1 'r1'", "qualities longer than the sequence"}},
        {"@r1\nACGT\n+\nIIII\n@r2\n", {"record 2 'r2'", "missing '+' line"}},
        {"@r1\nACGT\n+\nIIII\n@r2", {"record 2", "end of file"}},
        {"@r1\nACGT\n+r7\nIIII\n", {"record 1 'r1'", "'+' line names 'r7'"}},
        {"@r1\nACGT\n+\nII\x01I\n", {"record 1 'r1'", "quality character byte 0x01"}},
        {"@r1\nACGT\n+\nIIII\nXr2\nACGT\n+\nIIII\n", {"record 2", "expected '@'", "'X'"}},
    };
    for (const FastqCase& c : cases) {
        const std::string msg = error_of(c.text, SequenceFormat::fastq);
        ASSERT_FALSE(msg.empty()) << c.text;
        for (const std::string& w : c.words) EXPECT_NE(msg.find(w), std::string::npos) << w << " not in: " << msg;
        EXPECT_EQ(msg.find("functor"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("Reached end of input"), std::string::npos) << msg;
    }
}

TEST(InputText, FastqPlusLineRepeatingTheNameOrHeaderIsAccepted) {
    const auto recs = from_text("@r1 d\nACGT\n+r1\nIIII\n@r2 d\nACGT\n+r2 d\nIIII\n@r3\nAC\nGT\n+\nII\nII\n",
                                SequenceFormat::fastq);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[2].sequence, "ACGT");
    EXPECT_EQ(recs[2].quality, "IIII");
}

// ---- empty inputs, zero-length records -------------------------------------------

TEST_F(InputFile, EmptyInputsHaveNoRecords) {
    for (const std::string& text : {std::string(), std::string("\n \n"), std::string("\xEF\xBB\xBF")}) {
        const std::string path = write("e.fa", text);
        SequenceReader r(path);
        EXPECT_TRUE(r.empty());
        SequenceRecord rec;
        EXPECT_FALSE(r.next(rec));
        ParallelSequenceReader p(path, AlphabetChoice::automatic, 2);
        EXPECT_TRUE(p.empty());
        EXPECT_FALSE(p.next(rec));
    }
}

TEST(InputText, ZeroLengthRecordsInFastaAndFastq) {
    const auto fa = from_text(">a\n>b\nACGT\n>c\n", SequenceFormat::fasta);
    ASSERT_EQ(fa.size(), 3u);
    EXPECT_EQ(fa[0].sequence, "");
    EXPECT_TRUE(fa[0].codes.empty());
    EXPECT_EQ(fa[1].sequence, "ACGT");
    EXPECT_EQ(fa[2].sequence, "");
    const auto fq = from_text("@a\n\n+\n\n@b\nACGT\n+\nIIII\n", SequenceFormat::fastq);
    ASSERT_EQ(fq.size(), 2u);
    EXPECT_EQ(fq[0].sequence, "");
    EXPECT_EQ(fq[1].sequence, "ACGT");
    // A header with no line end at the end of the input is still cut short.
    EXPECT_NE(error_of(">a\nACGT\n>b", SequenceFormat::fasta).find("record 2"), std::string::npos);
}

// ---- compression ------------------------------------------------------------------

std::string bzip2(const std::string& in) {
    std::string out(in.size() + in.size() / 50 + 700, '\0');
    auto n = static_cast<unsigned>(out.size());
    EXPECT_EQ(BZ2_bzBuffToBuffCompress(out.data(), &n, const_cast<char*>(in.data()), static_cast<unsigned>(in.size()),
                                       9, 0, 0),
              BZ_OK);
    out.resize(n);
    return out;
}

std::string xz(const std::string& in) {
    std::string out(lzma_stream_buffer_bound(in.size()), '\0');
    std::size_t pos = 0;
    EXPECT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const std::uint8_t*>(in.data()),
                                      in.size(), reinterpret_cast<std::uint8_t*>(out.data()), &pos, out.size()),
              LZMA_OK);
    out.resize(pos);
    return out;
}

std::string zstd(const std::string& in) {
    std::string out(ZSTD_compressBound(in.size()), '\0');
    const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
    EXPECT_FALSE(ZSTD_isError(n));
    out.resize(n);
    return out;
}

std::string gzip(const std::string& in) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&z, in.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

std::string some_fasta() {
    std::string text;
    for (int k = 0; k < 3000; ++k) text += ">r" + std::to_string(k) + " d\nACGTTGCA\nGGCCAATT\n";
    return text;
}

bool same(const std::vector<SequenceRecord>& a, const std::vector<SequenceRecord>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (a[k].name != b[k].name || a[k].sequence != b[k].sequence || a[k].codes != b[k].codes) return false;
    return true;
}

TEST_F(InputFile, Bzip2XzZstdReadAsPlain) {
    const std::string text = some_fasta();
    const auto want = read_file(write("plain.fa", text));
    ASSERT_EQ(want.size(), 3000u);
    struct Packed {
        const char* name;
        std::string bytes;
    };
    const std::string half1 = text.substr(0, text.size() / 2), half2 = text.substr(text.size() / 2);
    for (const Packed& p : {Packed{"a.bz2", bzip2(text)}, Packed{"a.xz", xz(text)}, Packed{"a.zst", zstd(text)},
                            Packed{"a.gz", gzip(text)},
                            // concatenated streams, as `cat a.bz2 b.bz2` writes them
                            Packed{"two.bz2", bzip2(half1) + bzip2(half2)}, Packed{"two.xz", xz(half1) + xz(half2)},
                            Packed{"two.zst", zstd(half1) + zstd(half2)}, Packed{"two.gz", gzip(half1) + gzip(half2)}}) {
        const std::string path = write(p.name, p.bytes);
        EXPECT_TRUE(same(read_file(path), want)) << p.name;
        EXPECT_TRUE(same(read_parallel(path), want)) << p.name;
        SequenceReader r(path);
        EXPECT_TRUE(r.compressed()) << p.name;
    }
}

TEST_F(InputFile, TruncatedAndCorruptCompressedInputsAreNamed) {
    const std::string text = some_fasta();
    for (const auto& [name, bytes, format] :
         {std::tuple{"t.bz2", bzip2(text), "bzip2"}, std::tuple{"t.xz", xz(text), "xz"},
          std::tuple{"t.zst", zstd(text), "zstd"}}) {
        const std::string path = write(name, bytes.substr(0, bytes.size() / 2));
        expect_input_error([&] { read_file(path); }, {name, std::string("truncated ") + format + " stream"});
        expect_input_error([&] { read_parallel(path); }, {name, std::string("truncated ") + format + " stream"});
        if (std::string(format) == "zstd") continue;  // no checksum by default: a flipped byte may decode
        std::string corrupt = bytes;
        for (std::size_t k = 20; k < corrupt.size() && k < 200; ++k) corrupt[k] = static_cast<char>(corrupt[k] ^ 0x5a);
        const std::string cpath = write(std::string("c") + name, corrupt);
        expect_input_error([&] { read_file(cpath); }, {std::string(format)});
    }
}

TEST_F(InputFile, UnsupportedCompressionNamesTheCommandToPipeThrough) {
    const std::string lz4 = write("a.fa.lz4", std::string("\x04\x22\x4d\x18\x64\x40\xa7", 7) + "junk");
    expect_input_error([&] { SequenceReader r(lz4); }, {"a.fa.lz4", "lz4", "lz4 -dc", "| gpualign"});
    const std::string zip = write("a.zip", std::string("PK\x03\x04", 4) + "junk");
    expect_input_error([&] { SequenceReader r(zip); }, {"a.zip", "zip", "unzip -p"});
}

}  // namespace
