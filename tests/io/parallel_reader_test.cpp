// ParallelSequenceReader must hand out exactly what SequenceReader hands out
// (names, letters, codes, record numbers) and fail with exactly the same
// message, whatever the block boundaries.
#include <gtest/gtest.h>
#include <cstdint>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/io/sequence_io.hpp"

namespace gpualign {
namespace {

namespace fs = std::filesystem;

struct Outcome {
    std::vector<SequenceRecord> records;
    std::string error;  // empty when the whole file was read
};

template <typename Reader>
Outcome read_all(Reader& reader) {
    Outcome o;
    try {
        SequenceRecord r;
        while (reader.next(r)) o.records.push_back(r);
    } catch (const InputError& e) {
        o.error = e.what();
    }
    return o;
}

Outcome serial(const fs::path& p, AlphabetChoice a) {
    SequenceReader r(p.string(), a);
    return read_all(r);
}

Outcome parallel(const fs::path& p, AlphabetChoice a, int threads) {
    ParallelSequenceReader r(p.string(), a, threads);
    return read_all(r);
}

void expect_same(const Outcome& want, const Outcome& got) {
    ASSERT_EQ(want.records.size(), got.records.size());
    for (std::size_t k = 0; k < want.records.size(); ++k) {
        const auto& a = want.records[k];
        const auto& b = got.records[k];
        ASSERT_EQ(a.name, b.name) << "record " << k;
        ASSERT_EQ(a.description, b.description) << "record " << k;
        ASSERT_EQ(a.sequence, b.sequence) << "record " << k;
        ASSERT_EQ(a.quality, b.quality) << "record " << k;
        ASSERT_EQ(a.codes, b.codes) << "record " << k;
        ASSERT_EQ(a.number, b.number) << "record " << k;
    }
    EXPECT_EQ(want.error, got.error);
}

class ParallelReader : public testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("gpualign_preader_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    /// Several MiB of multi-line FASTA (many blocks), records of 1..5000
    /// letters, lines of 60 or 61 letters, some headers with descriptions.
    fs::path make_fasta(std::uint32_t seed, std::size_t records, const std::string& bad_at = "",
                        const std::string& letters = "ACGT") {
        std::mt19937 rng(seed);
        const fs::path p = dir_ / ("f" + std::to_string(seed) + ".fa");
        std::ofstream out(p);
        for (std::size_t k = 0; k < records; ++k) {
            out << ">r" << k << (k % 3 == 0 ? " some description" : "") << '\n';
            const std::size_t len = 1 + rng() % 5000;
            const std::size_t width = 60 + rng() % 2;
            std::string seq;
            for (std::size_t i = 0; i < len; ++i) seq += letters[rng() % letters.size()];
            if (std::to_string(k) == bad_at) seq[len / 2] = '!';
            for (std::size_t i = 0; i < len; i += width) out << seq.substr(i, width) << '\n';
        }
        return p;
    }

    fs::path dir_;
};

TEST_F(ParallelReader, SameRecordsAsSerialAcrossManyBlocks) {
    const fs::path p = make_fasta(1, 5000);
    ASSERT_GT(fs::file_size(p), 4 * ParallelSequenceReader::block_bytes);
    ParallelSequenceReader probe(p.string(), AlphabetChoice::dna, 4);
    EXPECT_TRUE(probe.in_blocks());
    expect_same(serial(p, AlphabetChoice::dna), parallel(p, AlphabetChoice::dna, 4));
    expect_same(serial(p, AlphabetChoice::automatic), parallel(p, AlphabetChoice::automatic, 3));
}

// CR line ends in some blocks only (the block parser declines a block with a
// CR, which then gets LF line ends on its parser thread): a file whose second
// half has CRLF line ends, and one with a lone CR (old Mac line end) inside a
// header of a later block, read as SequenceReader reads them.
TEST_F(ParallelReader, CarriageReturnsInLaterBlocksReadAsSerial) {
    const fs::path lf = make_fasta(6, 5000);
    std::string text;
    {
        std::ifstream in(lf, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::string mixed = text.substr(0, text.size() / 2);
    for (std::size_t k = text.size() / 2; k < text.size(); ++k) {
        if (text[k] == '\n') mixed += '\r';
        mixed += text[k];
    }
    const fs::path crlf = dir_ / "half_crlf.fa";
    std::ofstream(crlf, std::ios::binary) << mixed;
    const Outcome want = serial(lf, AlphabetChoice::dna);
    ASSERT_TRUE(want.error.empty()) << want.error;
    expect_same(want, parallel(crlf, AlphabetChoice::dna, 3));
    expect_same(serial(crlf, AlphabetChoice::dna), parallel(crlf, AlphabetChoice::dna, 1));

    std::string lone = text;
    const std::size_t header = lone.find(">r4000");
    ASSERT_NE(header, std::string::npos);
    lone.insert(header + 6, "\rACGT");  // ">r4000\rACGT": the CR ends the header line
    const fs::path old_mac = dir_ / "lone_cr.fa";
    std::ofstream(old_mac, std::ios::binary) << lone;
    const Outcome with_cr = serial(old_mac, AlphabetChoice::dna);
    ASSERT_TRUE(with_cr.error.empty()) << with_cr.error;
    ASSERT_EQ(with_cr.records.size(), want.records.size());
    EXPECT_EQ(with_cr.records[4000].sequence, "ACGT" + want.records[4000].sequence);
    expect_same(with_cr, parallel(old_mac, AlphabetChoice::dna, 3));
}

TEST_F(ParallelReader, SameErrorAsSerialForABadCharacterInALaterBlock) {
    const fs::path p = make_fasta(2, 3000, "2500");
    const Outcome want = serial(p, AlphabetChoice::dna);
    ASSERT_NE(want.error.find("record 2501"), std::string::npos) << want.error;
    expect_same(want, parallel(p, AlphabetChoice::dna, 4));
}

TEST_F(ParallelReader, RealPacbioReadsMatchSerial) {
    const fs::path p = fs::path(GPUALIGN_SHARED_DATA) / "dna" / "pacbio_ecoli" / "reads.fa";
    if (!fs::exists(p)) GTEST_SKIP() << "no " << p;
    expect_same(serial(p, AlphabetChoice::automatic), parallel(p, AlphabetChoice::automatic, 2));
}

// A matrix file with IUPAC rows (DnaCodes::iupac): set_dna_codes after the
// alphabet is detected gives every record, parsed in parallel blocks or on
// the serial fallback (peeked records included), the 15-code coding.
TEST_F(ParallelReader, SetDnaCodesEncodesEveryRecordWithIupacCodes) {
    const fs::path p = make_fasta(4, 1500, "", "ACGTACGTACGTNRYKMSWBDHVUacgtry");
    for (const int threads : {1, 4}) {
        ParallelSequenceReader r(p.string(), AlphabetChoice::automatic, threads);
        ASSERT_EQ(r.alphabet(), Alphabet::dna);
        EXPECT_TRUE(r.in_blocks());
        r.set_dna_codes(DnaCodes::iupac);
        const Outcome got = read_all(r);
        ASSERT_TRUE(got.error.empty()) << got.error;
        ASSERT_EQ(got.records.size(), 1500u);
        std::size_t wide = 0;
        for (const SequenceRecord& rec : got.records) {
            std::vector<std::uint8_t> want;
            ASSERT_EQ(encode_sequence(Alphabet::dna, rec.sequence, want, DnaCodes::iupac), std::nullopt);
            ASSERT_EQ(rec.codes, want) << rec.name;
            wide += static_cast<std::size_t>(std::count_if(want.begin(), want.end(), [](std::uint8_t c) { return c >= 5; }));
        }
        EXPECT_GT(wide, 0u);
        EXPECT_THROW(r.set_dna_codes(DnaCodes::dna5), std::logic_error);
    }
    SequenceReader serial_reader(p.string(), AlphabetChoice::automatic);
    ASSERT_EQ(serial_reader.alphabet(), Alphabet::dna);  // peeks records, not yet encoded
    serial_reader.set_dna_codes(DnaCodes::iupac);
    SequenceRecord rec;
    ASSERT_TRUE(serial_reader.next(rec));
    std::vector<std::uint8_t> want;
    ASSERT_EQ(encode_sequence(Alphabet::dna, rec.sequence, want, DnaCodes::iupac), std::nullopt);
    EXPECT_EQ(rec.codes, want);
    EXPECT_THROW(serial_reader.set_dna_codes(DnaCodes::dna5), std::logic_error);
}

/// Appends the records of `blocks` to `o` (copies, with their numbers).
void append_records(const std::vector<std::shared_ptr<const RecordBlock>>& blocks, Outcome& o) {
    for (const auto& blk : blocks)
        for (std::size_t k = 0; k < blk->size(); ++k) blk->copy_to(k, o.records.emplace_back());
}

// The bulk interface used by the pipeline: fill() ahead and take_blocks() in
// chunks, letting go of each chunk before the next fill, so that later
// blocks are parsed into reused memory (stale names, descriptions or letters
// would show here).
TEST_F(ParallelReader, FillAndTakeBlocksGiveTheSameRecordsAsSerial) {
    const fs::path p = make_fasta(3, 12000);
    const Outcome want = serial(p, AlphabetChoice::dna);
    ASSERT_TRUE(want.error.empty());
    for (const bool with_next : {false, true}) {
        ParallelSequenceReader r(p.string(), AlphabetChoice::dna, 3);
        ASSERT_TRUE(r.in_blocks());
        Outcome got;
        if (with_next) {  // a block partly handed out by next() first
            for (int k = 0; k < 5; ++k) ASSERT_TRUE(r.next(got.records.emplace_back()));
        }
        std::size_t chunks = 0;
        while (!r.exhausted()) {
            r.fill(700, std::size_t{1} << 40);
            std::vector<std::shared_ptr<const RecordBlock>> chunk;
            const std::size_t n = r.take_blocks(chunk);
            std::size_t in_blocks = 0;
            for (const auto& blk : chunk) {
                EXPECT_FALSE(blk->empty());
                in_blocks += blk->size();
            }
            ASSERT_EQ(n, in_blocks);
            append_records(chunk, got);
            ++chunks;
        }
        EXPECT_GE(chunks, 3u);  // rounds of 6 blocks of about 2 MiB, about 30 MiB in all: later rounds reuse blocks
        EXPECT_EQ(r.records_read(), want.records.size());
        expect_same(want, got);
        for (std::size_t k = 0; k < want.records.size(); ++k) {
            ASSERT_EQ(want.records[k].description, got.records[k].description) << "record " << k;
            ASSERT_EQ(want.records[k].quality, got.records[k].quality) << "record " << k;
        }
    }
}

// The same through the serial fallback (gzip FASTQ is read by one
// SequenceReader), which packs records into blocks one by one.
TEST_F(ParallelReader, TakeBlocksOnTheSerialFallbackGivesTheSameRecords) {
    const Outcome fasta = serial(make_fasta(5, 1500), AlphabetChoice::dna);
    std::string text;
    for (const SequenceRecord& r : fasta.records)
        text += '@' + r.name + (r.description.empty() ? "" : " ") + r.description + '\n' + r.sequence + "\n+\n" +
                std::string(r.sequence.size(), 'I') + '\n';
    const fs::path p = dir_ / "f5.fq.gz";
    gzFile gz = gzopen(p.c_str(), "wb");
    ASSERT_NE(gz, nullptr);
    ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    ASSERT_EQ(gzclose(gz), Z_OK);
    const Outcome want = serial(p, AlphabetChoice::dna);
    ASSERT_EQ(want.records.size(), 1500u);
    ParallelSequenceReader r(p.string(), AlphabetChoice::dna, 2);
    ASSERT_FALSE(r.in_blocks());
    Outcome got;
    while (!r.exhausted()) {
        r.fill(400, std::size_t{1} << 40);
        std::vector<std::shared_ptr<const RecordBlock>> chunk;
        r.take_blocks(chunk);
        append_records(chunk, got);
    }
    expect_same(want, got);
}

/// Several MiB of 4-line FASTQ: `records` records of 1..600 letters, random
/// qualities over the whole '!'..'~' range (so quality lines begin with '@'
/// and '+' too), some headers with descriptions; `odd` replaces record
/// number `odd_at` (0-based) by text of the caller's.
fs::path write_fastq(const fs::path& p, std::uint32_t seed, std::size_t records, std::size_t odd_at = SIZE_MAX,
                     const std::string& odd = "", const std::string& eol = "\n") {
    std::mt19937 rng(seed);
    std::ofstream out(p, std::ios::binary);
    for (std::size_t k = 0; k < records; ++k) {
        const std::size_t len = 1 + rng() % 600;
        std::string seq(len, 'A'), qual(len, 'I');
        for (char& c : seq) c = "ACGTN"[rng() % 5];
        for (char& c : qual) c = static_cast<char>('!' + rng() % 94);
        if (k % 7 == 0) qual[0] = '@';
        if (k % 11 == 0) qual[0] = '+';
        if (k == odd_at) {
            out << odd;
            continue;
        }
        out << "@q" << k << (k % 3 == 0 ? " desc " + std::to_string(k) : "") << eol << seq << eol << "+" << eol << qual
            << eol;
    }
    return p;
}

// Plain FASTQ is read in blocks (cut where a line begins with '@' and the
// line after next with '+'), and gives SequenceReader's records.
TEST_F(ParallelReader, FastqInBlocksGivesTheSerialRecords) {
    const fs::path p = write_fastq(dir_ / "a.fq", 21, 16000);
    ASSERT_GT(fs::file_size(p), 4 * ParallelSequenceReader::block_bytes);
    const Outcome want = serial(p, AlphabetChoice::dna);
    ASSERT_EQ(want.records.size(), 16000u);
    ASSERT_TRUE(want.error.empty()) << want.error;
    for (const int threads : {1, 3}) {
        ParallelSequenceReader r(p.string(), AlphabetChoice::dna, threads);
        const Outcome got = read_all(r);
        expect_same(want, got);
        EXPECT_TRUE(r.in_blocks()) << "every block was plain 4-line FASTQ";
    }
    const fs::path crlf = write_fastq(dir_ / "crlf.fq", 21, 16000, SIZE_MAX, "", "\r\n");
    expect_same(want, parallel(crlf, AlphabetChoice::dna, 2));
}

// A record of another shape (a sequence and qualities over two lines each)
// hands the rest of the file to SeqAn3 from the block it lies in: the same
// records; and an error in a later block is SequenceReader's, after every
// record before it.
TEST_F(ParallelReader, FastqOddRecordOrErrorHandsTheRestToSeqAn3) {
    const std::string two_lines = "@multi line\nACGT\nACGT\n+\nIIII\nIIII\n";
    const fs::path p = write_fastq(dir_ / "odd.fq", 22, 12000, 7000, two_lines);
    const Outcome want = serial(p, AlphabetChoice::dna);
    ASSERT_EQ(want.records.size(), 12000u);
    ParallelSequenceReader r(p.string(), AlphabetChoice::dna, 3);
    expect_same(want, read_all(r));
    EXPECT_FALSE(r.in_blocks());

    const std::string bad = "@bad\nACGTXACGT\n+\nIIIIIIIII\n";
    const fs::path q = write_fastq(dir_ / "bad.fq", 23, 12000, 9000, bad);
    const Outcome want_bad = serial(q, AlphabetChoice::dna);
    ASSERT_EQ(want_bad.records.size(), 9000u);
    ASSERT_NE(want_bad.error.find("record 9001 'bad'"), std::string::npos) << want_bad.error;
    expect_same(want_bad, parallel(q, AlphabetChoice::dna, 3));

    const std::string short_qual = "@short\nACGTACGT\n+\nIIII\n";
    const fs::path s = write_fastq(dir_ / "short.fq", 24, 12000, 11000, short_qual);
    const Outcome want_short = serial(s, AlphabetChoice::dna);
    EXPECT_FALSE(want_short.error.empty());
    expect_same(want_short, parallel(s, AlphabetChoice::dna, 2));
}

// An error in a later block is raised by take_blocks() only after the
// records before it were handed over.
TEST_F(ParallelReader, TakeBlocksRaisesTheErrorAfterTheRecordsBeforeIt) {
    const fs::path p = make_fasta(4, 3000, "2500");
    const Outcome want = serial(p, AlphabetChoice::dna);
    ASSERT_FALSE(want.error.empty());
    ParallelSequenceReader r(p.string(), AlphabetChoice::dna, 4);
    std::vector<std::shared_ptr<const RecordBlock>> all;
    std::string error;
    try {
        while (!r.exhausted()) {
            r.fill(1000, std::size_t{1} << 40);
            r.take_blocks(all);
        }
    } catch (const InputError& e) {
        error = e.what();
    }
    EXPECT_EQ(want.error, error);
    Outcome got;
    append_records(all, got);
    got.error = error;
    expect_same(want, got);
}

}  // namespace
}  // namespace gpualign
