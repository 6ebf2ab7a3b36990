// The GPU backend through the CLI: byte-identical TSV and SAM against the CPU
// backend on real data. Skips where no CUDA device is visible.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu/gpu_test_util.hpp"
#include "gpualign/gpu/engine.hpp"

namespace {

namespace fs = std::filesystem;

std::string shared_data() {
    const char* env = std::getenv("GPUALIGN_SHARED_DATA");
    return env ? env : GPUALIGN_SHARED_DATA;
}

using gpualign::test::binary;
using gpualign::test::slurp;

struct Workload {
    const char* name;
    const char* queries;  // relative to the shared data folder
    const char* refs;
    const char* options;
};

class CliBackends : public ::testing::TestWithParam<Workload> {};

TEST_P(CliBackends, GpuOutputIsByteIdenticalToCpu) {
    if (gpualign::gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    const Workload& w = GetParam();
    const std::string q = shared_data() + "/" + w.queries, t = shared_data() + "/" + w.refs;
    if (!fs::exists(q) || !fs::exists(t)) GTEST_SKIP() << "data not found: " << q;
    const fs::path dir = fs::temp_directory_path() / (std::string("gpualign_backends_") + w.name);
    fs::create_directories(dir);
    for (const char* mode : {"sw", "nw"}) {
        for (const char* ext : {"tsv", "sam"}) {
            for (const char* extra : {"", "--score-only"}) {
                if (std::string(ext) == "sam" && std::string(extra) == "--score-only") continue;  // refused: SAM needs a CIGAR
                const fs::path cpu = dir / (std::string("cpu.") + ext), gpu = dir / (std::string("gpu.") + ext);
                const std::string common = binary() + " " + mode + " " + q + " " + t + " -q " +
                                           w.options + " " + extra + " -o ";
                ASSERT_EQ(std::system((common + cpu.string() + " --backend cpu").c_str()), 0);
                ASSERT_EQ(std::system((common + gpu.string() + " --backend gpu").c_str()), 0);
                // The SAM @PG line holds the command line, which differs in the backend option.
                auto body = [](std::string s) {
                    const auto pg = s.find("@PG");
                    if (pg != std::string::npos) s.erase(pg, s.find('\n', pg) - pg + 1);
                    return s;
                };
                const std::string a = body(slurp(cpu)), b = body(slurp(gpu));
                EXPECT_FALSE(a.empty());
                EXPECT_TRUE(a == b) << w.name << " " << mode << " " << ext << " " << extra << ": outputs differ";
            }
        }
    }
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    RealData, CliBackends,
    ::testing::Values(Workload{"pacbio_ecoli", "dna/pacbio_ecoli/reads.fa", "dna/pacbio_ecoli/ref_windows.fa", ""},
                      Workload{"miseq_16S", "dna/miseq_16S/reads.fa", "dna/miseq_16S/ref_windows.fa", ""},
                      Workload{"orthologs", "protein/orthologs_cow.fa", "protein/orthologs_pig.fa", ""},
                      Workload{"pacbio_linear", "dna/pacbio_ecoli/reads.fa", "dna/pacbio_ecoli/ref_windows.fa",
                               "--gap-open 0 --gap-extend 3"}),
    [](const ::testing::TestParamInfo<Workload>& info) { return std::string(info.param.name); });

}  // namespace
