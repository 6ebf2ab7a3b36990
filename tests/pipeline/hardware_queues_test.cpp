// The CLI's CUDA hardware queues (cuda_hardware_queues) and the look at the
// inputs it rests on (holds_one_fasta_record): one queue for a run that
// aligns a single pair, the batch engine's streams (at least 4) otherwise;
// and the one small pair that --backend auto aligns on the CPU
// (runs_small_pair_on_cpu).
// Host code only: what the queues cost is measured on a device
// (docs/benchmarks.md).
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/pipeline/pipeline.hpp"

namespace gpualign {
namespace {

/// A scratch directory removed at the end of each test.
class HardwareQueues : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("gpualign_queues_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string write(const std::string& name, const std::string& text) const {
        const std::string path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    std::string write_gz(const std::string& name, const std::string& text) const {
        const std::string path = (dir_ / name).string();
        gzFile f = gzopen(path.c_str(), "wb");
        EXPECT_NE(f, nullptr);
        EXPECT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
        EXPECT_EQ(gzclose(f), Z_OK);
        return path;
    }

    std::filesystem::path dir_;
};

constexpr std::size_t cap = 1 << 20;

TEST_F(HardwareQueues, OneRecordIsFoundInPlainAndGzipFiles) {
    const std::string one = ">chr1 a genome window\nACGTTGCA\nGGCATTAC\nNNACGT\n";
    EXPECT_TRUE(holds_one_fasta_record(write("one.fa", one), cap));
    EXPECT_TRUE(holds_one_fasta_record(write_gz("one.fa.gz", one), cap));
    EXPECT_TRUE(holds_one_fasta_record(write("bom.fa", "\xEF\xBB\xBF\n  \r\n" + one), cap));
    EXPECT_TRUE(holds_one_fasta_record(write("crlf.fa", ">q\r\nACGT\r\nACGT\r\n"), cap));
    // '>' inside a header line does not start a record
    EXPECT_TRUE(holds_one_fasta_record(write("gt.fa", ">q x>y\nACGT\n"), cap));
}

TEST_F(HardwareQueues, SecondRecordIsSeenAfterEveryLineEnd) {
    EXPECT_FALSE(holds_one_fasta_record(write("lf.fa", ">a\nACGT\n>b\nACGT\n"), cap));
    EXPECT_FALSE(holds_one_fasta_record(write("crlf.fa", ">a\r\nACGT\r\n>b\r\nACGT\r\n"), cap));
    EXPECT_FALSE(holds_one_fasta_record(write("cr.fa", ">a\rACGT\r>b\rACGT\r"), cap));
    EXPECT_FALSE(holds_one_fasta_record(write_gz("two.fa.gz", ">a\nACGT\n>b\nACGT\n"), cap));
    // a second record far into the file: past the first 64 KiB piece
    const std::string long_record = ">a\n" + std::string(200'000, 'A') + "\n";
    EXPECT_TRUE(holds_one_fasta_record(write("long.fa", long_record), cap));
    EXPECT_FALSE(holds_one_fasta_record(write("long2.fa", long_record + ">b\nC\n"), cap));
    // the '\n' before the second '>' is the last byte of a 64 KiB piece
    const std::string edge = ">a\n" + std::string(64 * 1024 - 4, 'C') + "\n>b\nG\n";
    EXPECT_FALSE(holds_one_fasta_record(write("edge.fa", edge), cap));
}

TEST_F(HardwareQueues, AnythingElseIsNotOneRecord) {
    EXPECT_FALSE(holds_one_fasta_record(write("q.fq", "@r\nACGT\n+\nIIII\n"), cap));
    EXPECT_FALSE(holds_one_fasta_record(write("empty.fa", ""), cap));
    EXPECT_FALSE(holds_one_fasta_record(write("blank.fa", " \n\n"), cap));
    EXPECT_FALSE(holds_one_fasta_record(write("text.fa", "ACGT\n>a\nACGT\n"), cap));
    EXPECT_FALSE(holds_one_fasta_record((dir_ / "missing.fa").string(), cap));
    EXPECT_FALSE(holds_one_fasta_record(dir_.string(), cap));
    EXPECT_FALSE(holds_one_fasta_record("-", cap));
    // a gzip stream cut short
    const std::string gz = write_gz("cut.fa.gz", ">a\n" + std::string(100'000, 'T') + "\n");
    std::filesystem::resize_file(gz, std::filesystem::file_size(gz) / 2);
    EXPECT_FALSE(holds_one_fasta_record(gz, cap));
}

TEST_F(HardwareQueues, LongerThanTheCapIsNotLooked) {
    const std::string text = ">a\n" + std::string(10'000, 'G') + "\n";
    const std::string path = write("a.fa", text);
    EXPECT_TRUE(holds_one_fasta_record(path, text.size()));
    EXPECT_FALSE(holds_one_fasta_record(path, text.size() - 1));
    EXPECT_FALSE(holds_one_fasta_record(write_gz("a.fa.gz", text), text.size() - 1));  // uncompressed bytes count
}

TEST_F(HardwareQueues, PipeIsNeverOpened) {
    // Opening a FIFO for reading would block until a writer comes, and would
    // take bytes the reader needs; the look must not touch it.
    const std::string fifo = (dir_ / "in.fa").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_FALSE(holds_one_fasta_record(fifo, cap));
}

TEST_F(HardwareQueues, OneQueueOnlyForASinglePair) {
    AlignConfig c;
    c.query_path = write("q.fa", ">q\nACGTACGT\n");
    c.ref_path = write("r.fa", ">r\nACGTTCGT\n");
    EXPECT_EQ(cuda_hardware_queues(c), 1);

    const int many = std::max(4, c.engine_streams());
    EXPECT_GE(many, 4);
    AlignConfig two = c;
    two.ref_path = write("r2.fa", ">r\nACGT\n>s\nACGT\n");
    EXPECT_EQ(cuda_hardware_queues(two), many);  // record counts differ: the reader reports it

    AlignConfig both = c;
    both.strand = StrandChoice::both;  // two alignments of the pair
    EXPECT_EQ(cuda_hardware_queues(both), many);

    AlignConfig search = c;
    search.search = SearchOptions{};
    EXPECT_EQ(cuda_hardware_queues(search), many);

    AlignConfig from_stdin = c;
    from_stdin.query_path = "-";
    EXPECT_EQ(cuda_hardware_queues(from_stdin), many);

    AlignConfig streams = two;
    streams.gpu_streams = 12;
    EXPECT_EQ(cuda_hardware_queues(streams), 12);
}

TEST_F(HardwareQueues, OneRecordBytesAreTheUncompressedSize) {
    const std::string one = ">q\nACGTACGT\nACGT\n";
    EXPECT_EQ(one_fasta_record_bytes(write("one.fa", one), cap), std::optional<std::size_t>(one.size()));
    EXPECT_EQ(one_fasta_record_bytes(write_gz("one.fa.gz", one), cap), std::optional<std::size_t>(one.size()));
    EXPECT_EQ(one_fasta_record_bytes(write("two.fa", one + ">r\nA\n"), cap), std::nullopt);
}

// --backend auto aligns one small pair on the CPU, and nothing else.
TEST_F(HardwareQueues, OnlyOneSmallPairUnderBackendAutoRunsOnTheCpu) {
    AlignConfig c;
    c.query_path = write("q.fa", ">q\nACGTACGT\n");
    c.ref_path = write("r.fa", ">r\nACGTTCGT\n");
    EXPECT_TRUE(runs_small_pair_on_cpu(c));
    AlignConfig gz = c;
    gz.ref_path = write_gz("r.fa.gz", ">r\nACGTTCGT\n");
    EXPECT_TRUE(runs_small_pair_on_cpu(gz));
    AlignConfig both = c;
    both.strand = StrandChoice::both;
    EXPECT_TRUE(runs_small_pair_on_cpu(both));

    AlignConfig gpu = c;
    gpu.backend = BackendChoice::gpu;
    EXPECT_FALSE(runs_small_pair_on_cpu(gpu));
    AlignConfig search = c;
    search.search = SearchOptions{};
    EXPECT_FALSE(runs_small_pair_on_cpu(search));
    AlignConfig two = c;
    two.query_path = write("q2.fa", ">q\nACGT\n>s\nACGT\n");
    EXPECT_FALSE(runs_small_pair_on_cpu(two));
    // The bound is on the product of the file sizes: 8,192 x 8,192 bytes.
    const std::string side = ">a\n" + std::string(8192 - 4, 'A') + "\n";
    ASSERT_EQ(side.size(), 8192u);
    AlignConfig edge = c;
    edge.query_path = write("eq.fa", side);
    edge.ref_path = write("er.fa", side);
    EXPECT_TRUE(runs_small_pair_on_cpu(edge));
    edge.ref_path = write("er2.fa", side + "A\n");
    EXPECT_FALSE(runs_small_pair_on_cpu(edge));
}

}  // namespace
}  // namespace gpualign
