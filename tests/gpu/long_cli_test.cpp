// Long pairs through the CLI on the GPU backend (issue 11): the long-pair
// engine (pairs at or above Defaults::long_pair_cells, and pairs the batch
// engine does not accept) gives output byte-identical to --backend cpu; a
// --gpu-memory cap too small for it sends the pair to the CPU; the 32-bit
// score bound is an error naming the pair. Skips where no CUDA device is
// visible.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fasta_text.hpp"
#include "gpu/gpu_test_util.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/model/config.hpp"

namespace {

namespace fs = std::filesystem;
using gpualign::test::binary;
using gpualign::test::shared_data_dir;
using gpualign::test::slurp;
using gpualign::test::mutate;
using gpualign::test::random_dna;

#define SKIP_WITHOUT_GPU() \
    if (gpualign::gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

int run_status(const std::string& cmd) {
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


void write_fasta(const fs::path& p, const std::string& prefix, const std::vector<std::string>& seqs) {
    std::ofstream f(p, std::ios::binary);
    for (std::size_t k = 0; k < seqs.size(); ++k) {
        f << '>' << prefix << k << '\n';
        for (std::size_t at = 0; at < seqs[k].size(); at += 80) f << seqs[k].substr(at, 80) << '\n';
    }
}

/// The SAM @PG line holds the command line, which differs in the backend option.
std::string without_pg(std::string s) {
    const auto pg = s.find("@PG");
    if (pg != std::string::npos) s.erase(pg, s.find('\n', pg) - pg + 1);
    return s;
}

class LongCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               (std::string("gpualign_long_gpu_cli_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    /// The mito pair (human, orangutan) split into two single-record files.
    bool mito(fs::path& q, fs::path& r) {
        const fs::path src = fs::path(shared_data_dir()) / "dna/long/mito_human_vs_orangutan.fa";
        if (!fs::exists(src)) return false;
        const std::vector<std::string> records = gpualign::test::fasta_records(src);
        if (records.size() != 2) return false;
        q = dir_ / "human.fa";
        r = dir_ / "orangutan.fa";
        std::ofstream(q, std::ios::binary) << records[0];
        std::ofstream(r, std::ios::binary) << records[1];
        return true;
    }

    /// Runs `args` on both backends; expects exit 0 and the same output bytes
    /// (SAM @PG dropped). Returns the GPU run's stderr.
    std::string expect_backends_agree(const std::string& args, const std::string& ext, const std::string& what) {
        const fs::path cpu = dir_ / ("cpu." + ext), gpu = dir_ / ("gpu." + ext), err = dir_ / "gpu.err";
        const std::string common = binary() + " " + args + " -o ";
        EXPECT_EQ(run_status(common + cpu.string() + " --backend cpu -q"), 0) << what;
        EXPECT_EQ(run_status(common + gpu.string() + " --backend gpu -v 2>" + err.string()), 0)
            << what << ": " << slurp(err);
        const std::string a = without_pg(slurp(cpu)), b = without_pg(slurp(gpu));
        EXPECT_FALSE(a.empty()) << what;
        EXPECT_TRUE(a == b) << what << ": outputs differ\ncpu:\n" << a.substr(0, 2000) << "\ngpu:\n" << b.substr(0, 2000);
        return slurp(err);
    }

    fs::path dir_;
};

TEST_F(LongCli, MitoPairGpuIsByteIdenticalToCpu) {
    SKIP_WITHOUT_GPU();
    fs::path q, r;
    if (!mito(q, r)) GTEST_SKIP() << "mito data not found under " << shared_data_dir();
    for (const char* mode : {"nw", "sw", "sg"})
        for (const char* extra : {"", " --score-only"}) {
            const std::string err = expect_backends_agree(std::string(mode) + " " + q.string() + " " + r.string() + extra,
                                                          "tsv", std::string(mode) + extra);
            // 16,569 x 16,499 = 273 M cells, above long_pair_cells: the long-pair engine.
            EXPECT_NE(err.find("1 long pair on the long-pair path"), std::string::npos) << err;
            EXPECT_NE(err.find("on the long-pair engine"), std::string::npos) << err;
        }
    const fs::path gpu = dir_ / "gpu.tsv";
    ASSERT_EQ(run_status(binary() + " nw " + q.string() + " " + r.string() + " -q --backend gpu -o " + gpu.string()), 0);
    EXPECT_NE(slurp(gpu).find("\t18184\t"), std::string::npos) << slurp(gpu);
    // SAM too.
    expect_backends_agree("nw " + q.string() + " " + r.string(), "sam", "nw sam");
    expect_backends_agree("sg " + q.string() + " " + r.string(), "sam", "sg sam");
}

TEST_F(LongCli, MixedFileGpuIsByteIdenticalToCpu) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(2024);
    std::vector<std::string> qs, rs;
    for (int k = 0; k < 40; ++k) {
        qs.push_back(random_dna(rng, 100 + rng() % 2000));
        rs.push_back(mutate(rng, qs.back(), 0.1));
    }
    // At or above long_pair_cells (the batch engine accepts it; the threshold sends it to the long engine).
    const std::string big = random_dna(rng, 8500);
    std::string big_ref = mutate(rng, big, 0.08);
    big_ref.resize(std::min<std::size_t>(big_ref.size(), 8300));
    ASSERT_GE(static_cast<std::uint64_t>(big.size()) * big_ref.size(), gpualign::Defaults::long_pair_cells);
    qs.insert(qs.begin() + 17, big);
    rs.insert(rs.begin() + 17, big_ref);
    // A side longer than the batch kernels take (65,535), few cells.
    const std::string wide_ref = random_dna(rng, 70'000);
    qs.insert(qs.begin() + 30, wide_ref.substr(31'000, 300));
    rs.insert(rs.begin() + 30, wide_ref);
    write_fasta(dir_ / "q.fa", "q", qs);
    write_fasta(dir_ / "r.fa", "r", rs);
    const std::string files = (dir_ / "q.fa").string() + " " + (dir_ / "r.fa").string();
    for (const char* mode : {"sw", "nw"}) {
        const std::string err = expect_backends_agree(std::string(mode) + " " + files, "tsv", mode);
        EXPECT_NE(err.find("2 long pairs on the long-pair path"), std::string::npos) << err;
        expect_backends_agree(std::string(mode) + " " + files + " --score-only --batch-pairs 7", "tsv",
                              std::string(mode) + " score-only");
    }
    expect_backends_agree("sw " + files, "sam", "sw sam");
}

TEST_F(LongCli, CapTooSmallForTheLongEngineFallsBackToTheCpu) {
    SKIP_WITHOUT_GPU();
    fs::path q, r;
    if (!mito(q, r)) GTEST_SKIP() << "mito data not found under " << shared_data_dir();
    const fs::path cpu = dir_ / "cpu.tsv", gpu = dir_ / "gpu.tsv", err = dir_ / "gpu.err";
    const std::string common = binary() + " sw " + q.string() + " " + r.string() + " -o ";
    ASSERT_EQ(run_status(common + cpu.string() + " --backend cpu -q"), 0);
    // 16M: 8M for the long engine, below what it needs (about 10M for this
    // pair: rings, a leaf, 8M of small buffers); the pair goes to the CPU.
    ASSERT_EQ(run_status(common + gpu.string() + " --backend gpu --gpu-memory 16M 2>" + err.string()), 0) << slurp(err);
    EXPECT_TRUE(slurp(cpu) == slurp(gpu));
    EXPECT_NE(slurp(err).find("pair 1 (query MT_human, ref MT_orangutan)"), std::string::npos) << slurp(err);
    EXPECT_NE(slurp(err).find("aligning it on the CPU"), std::string::npos) << slurp(err);
    EXPECT_NE(slurp(err).find("1 pair did not fit"), std::string::npos) << slurp(err);
}

TEST_F(LongCli, ScoreBoundIsAPairErrorWithNoOutput) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 rng(3);
    const std::string s = random_dna(rng, 200);
    write_fasta(dir_ / "q.fa", "q", {s});
    write_fasta(dir_ / "r.fa", "r", {s});
    const fs::path out = dir_ / "out.tsv", err = dir_ / "err.txt";
    // (200 + 200) * 3,000,000 reaches 2^30: refused on every path.
    EXPECT_EQ(run_status(binary() + " nw " + (dir_ / "q.fa").string() + " " + (dir_ / "r.fa").string() +
                         " --match 1000000 --mismatch 1000000 --gap-open 1000000 --gap-extend 1000000 --backend gpu -o " +
                         out.string() + " 2>" + err.string()),
              1);
    EXPECT_NE(slurp(err).find("pair 1 (query q0, ref r0): pair of lengths 200 x 200 could overflow 32-bit scores"),
              std::string::npos)
        << slurp(err);
    EXPECT_FALSE(fs::exists(out));
}

TEST_F(LongCli, ProgressAlwaysOnTheLongEngine) {
    SKIP_WITHOUT_GPU();
    fs::path q, r;
    if (!mito(q, r)) GTEST_SKIP() << "mito data not found under " << shared_data_dir();
    const fs::path out = dir_ / "out.tsv", err = dir_ / "err.txt";
    ASSERT_EQ(run_status(binary() + " nw " + q.string() + " " + r.string() + " --backend gpu -q --progress always -o " +
                         out.string() + " 2>" + err.string()),
              0);
    EXPECT_NE(slurp(err).find("aligning pair 1 (MT_human x MT_orangutan): "), std::string::npos) << slurp(err);
    EXPECT_NE(slurp(err).find("GCUPS"), std::string::npos) << slurp(err);
}

}  // namespace
