// `gpualign search` on the GPU backend (issue 12): byte-identical output to
// the CPU backend (blast6, TSV with and without --score-only, SAM), local,
// global and semi-global, on protein families. Skips where no
// CUDA device is visible.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu/gpu_test_util.hpp"
#include "gpualign/gpu/device.hpp"

namespace {

namespace fs = std::filesystem;
using gpualign::test::binary;
using gpualign::test::slurp;

std::string shared_data() {
    const char* env = std::getenv("GPUALIGN_SHARED_DATA");
    return env ? env : GPUALIGN_SHARED_DATA;
}

struct Workload {
    const char* name;
    const char* queries;  // relative to the shared data folder
    const char* db;
    const char* options;
};

class SearchGpu : public ::testing::TestWithParam<Workload> {};

TEST_P(SearchGpu, OutputIsByteIdenticalToCpu) {
    if (gpualign::gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    const Workload& w = GetParam();
    const std::string q = shared_data() + "/" + w.queries, db = shared_data() + "/" + w.db;
    if (!fs::exists(q) || !fs::exists(db)) GTEST_SKIP() << "data not found: " << q;
    const fs::path dir = fs::temp_directory_path() / (std::string("gpualign_search_gpu_") + w.name);
    fs::create_directories(dir);
    int compared = 0;
    for (const char* mode : {"local", "global", "semi-global"})
        for (const char* fmt : {"m8", "tsv", "sam", "so.tsv"}) {
            const std::string f(fmt);
            if (f == "m8" && std::string(mode) == "global") continue;  // NA statistics; covered by tsv and semi-global
            const std::string extra = f == "so.tsv" ? " --score-only" : "";
            const fs::path cpu = dir / ("cpu." + f), gpu = dir / ("gpu." + f);
            const std::string common = binary() + " search " + q + " " + db + " -q --mode " + mode + " " + w.options +
                                       extra + " -o ";
            ASSERT_EQ(std::system((common + cpu.string() + " --backend cpu").c_str()), 0) << common;
            ASSERT_EQ(std::system((common + gpu.string() + " --backend gpu").c_str()), 0) << common;
            auto body = [](std::string s) {  // @PG holds the command line, which differs in --backend
                const auto pg = s.find("@PG");
                if (pg != std::string::npos) s.erase(pg, s.find('\n', pg) - pg + 1);
                return s;
            };
            const std::string a = body(slurp(cpu)), b = body(slurp(gpu));
            EXPECT_GT(a.size(), 100u) << w.name << " " << mode << " " << f;
            EXPECT_TRUE(a == b) << w.name << " " << mode << " " << f << ": outputs differ";
            ++compared;
        }
    EXPECT_EQ(compared, 11);
    fs::remove_all(dir);
}

// A DB larger than the GPU share (--gpu-memory 8M: chunks of 2 MB of
// letters) is scanned in chunks: the output equals the one-chunk run's byte
// for byte.
TEST(SearchGpuChunks, ChunkedDbGivesTheSameOutput) {
    if (gpualign::gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    const std::string qall = shared_data() + "/protein/mmseqs2_example_query.fa",
                      db = shared_data() + "/protein/mmseqs2_example_db.fa";
    if (!fs::exists(qall) || !fs::exists(db)) GTEST_SKIP() << "data not found: " << db;
    const fs::path dir = fs::temp_directory_path() / "gpualign_search_chunks";
    fs::create_directories(dir);
    const fs::path q = dir / "q.fa";
    {
        std::istringstream in(slurp(qall));
        std::ofstream out(q);
        int records = 0;
        for (std::string line; std::getline(in, line);) {
            if (!line.empty() && line[0] == '>' && ++records > 40) break;
            out << line << '\n';
        }
    }
    const std::string common = binary() + " search " + q.string() + " " + db + " --backend gpu -k 7 -v";
    ASSERT_EQ(std::system((common + " -o " + (dir / "one.m8").string() + " 2> " + (dir / "one.err").string()).c_str()), 0);
    ASSERT_EQ(std::system((common + " --gpu-memory 8M -o " + (dir / "chunked.m8").string() + " 2> " +
                           (dir / "chunked.err").string()).c_str()),
              0)
        << slurp(dir / "chunked.err");
    const std::string one = slurp(dir / "one.m8"), chunked = slurp(dir / "chunked.m8");
    EXPECT_GT(one.size(), 1000u);
    EXPECT_TRUE(one == chunked) << "chunked output differs";
    EXPECT_NE(slurp(dir / "one.err").find("in 1 chunk(s)"), std::string::npos) << slurp(dir / "one.err");
    const std::string err = slurp(dir / "chunked.err");
    EXPECT_EQ(err.find("in 1 chunk(s)"), std::string::npos) << err;
    EXPECT_NE(err.find("chunk(s) of at most 2097152 letters"), std::string::npos) << err;
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Data, SearchGpu,
    ::testing::Values(Workload{"globins", "protein/families/globins4.fa", "protein/families/globins45.fa", "-k 5"},
                      Workload{"fn3", "protein/families/pfam_fn3_seed.fa", "protein/families/pfam_Pkinase_seed.fa",
                               "-k 3 --gap-open 10 --gap-extend 2"},
                      Workload{"kringle", "protein/families/kringle_ref6.fa", "protein/families/kringle_ref6.fa", "-k 2"},
                      // s + gap_open + gap_extend beyond int16: the ScanEngine does not hold
                      // the scheme, so the batch engine scans and the host picks the hits.
                      Workload{"globins_batch_scan", "protein/families/globins4.fa", "protein/families/globins45.fa",
                               "-k 5 --gap-open 40000"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
