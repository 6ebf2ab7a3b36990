// ParallelSequenceReader must hand out exactly what SequenceReader hands out
// (names, letters, codes, record numbers) and fail with exactly the same
// message, whatever the block boundaries.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gpualign/parallel_reader.hpp"
#include "gpualign/sequence_io.hpp"

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
        ASSERT_EQ(a.sequence, b.sequence) << "record " << k;
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
    fs::path make_fasta(std::uint32_t seed, std::size_t records, const std::string& bad_at = "") {
        std::mt19937 rng(seed);
        const fs::path p = dir_ / ("f" + std::to_string(seed) + ".fa");
        std::ofstream out(p);
        for (std::size_t k = 0; k < records; ++k) {
            out << ">r" << k << (k % 3 == 0 ? " some description" : "") << '\n';
            const std::size_t len = 1 + rng() % 5000;
            const std::size_t width = 60 + rng() % 2;
            std::string seq;
            for (std::size_t i = 0; i < len; ++i) seq += "ACGT"[rng() % 4];
            if (std::to_string(k) == bad_at) seq[len / 2] = '!';
            for (std::size_t i = 0; i < len; i += width) out << seq.substr(i, width) << '\n';
        }
        return p;
    }

    fs::path dir_;
};

TEST_F(ParallelReader, SameRecordsAsSerialAcrossManyBlocks) {
    const fs::path p = make_fasta(1, 3000);
    ASSERT_GT(fs::file_size(p), 4 * ParallelSequenceReader::block_bytes);
    ParallelSequenceReader probe(p.string(), AlphabetChoice::dna, 4);
    EXPECT_TRUE(probe.parallel());
    expect_same(serial(p, AlphabetChoice::dna), parallel(p, AlphabetChoice::dna, 4));
    expect_same(serial(p, AlphabetChoice::automatic), parallel(p, AlphabetChoice::automatic, 3));
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

// The bulk interface used by the pipeline: fill() ahead, take_parsed() in
// chunks, and recycle() each chunk so that later blocks are parsed into
// reused records (stale names, descriptions or letters would show here).
TEST_F(ParallelReader, FillTakeAndRecycleGiveTheSameRecordsAsSerial) {
    const fs::path p = make_fasta(3, 4000);
    const Outcome want = serial(p, AlphabetChoice::dna);
    ASSERT_TRUE(want.error.empty());
    ParallelSequenceReader r(p.string(), AlphabetChoice::dna, 4);
    ASSERT_TRUE(r.parallel());
    Outcome got;
    std::vector<SequenceRecord> chunk;
    std::size_t recycled = 0;
    while (!r.exhausted()) {
        r.fill(700, std::size_t{1} << 40);
        chunk.clear();
        const std::size_t n = r.take_parsed(chunk);
        ASSERT_EQ(n, chunk.size());
        got.records.insert(got.records.end(), chunk.begin(), chunk.end());
        recycled += chunk.size();
        r.recycle(std::move(chunk));
        chunk = {};
    }
    EXPECT_GT(recycled, 700u);
    EXPECT_EQ(r.records_read(), want.records.size());
    expect_same(want, got);
    for (std::size_t k = 0; k < want.records.size(); ++k)
        ASSERT_EQ(want.records[k].description, got.records[k].description) << "record " << k;
}

// An error in a later block is raised by take_parsed() only after the
// records before it were handed over.
TEST_F(ParallelReader, TakeParsedRaisesTheErrorAfterTheRecordsBeforeIt) {
    const fs::path p = make_fasta(4, 3000, "2500");
    const Outcome want = serial(p, AlphabetChoice::dna);
    ParallelSequenceReader r(p.string(), AlphabetChoice::dna, 4);
    std::vector<SequenceRecord> all;
    std::string error;
    try {
        while (!r.exhausted()) {
            r.fill(1000, std::size_t{1} << 40);
            r.take_parsed(all);
        }
    } catch (const InputError& e) {
        error = e.what();
    }
    EXPECT_EQ(want.error, error);
    ASSERT_EQ(all.size(), want.records.size());
    EXPECT_EQ(all.back().name, want.records.back().name);
}

TEST_F(ParallelReader, FastqFallsBackToOneThreadWithSameRecords) {
    const fs::path p = fs::path(GPUALIGN_TEST_DATA) / "io" / "reads.fq";
    ParallelSequenceReader probe(p.string(), AlphabetChoice::dna, 4);
    EXPECT_FALSE(probe.parallel());
    expect_same(serial(p, AlphabetChoice::dna), parallel(p, AlphabetChoice::dna, 4));
}

}  // namespace
}  // namespace gpualign
