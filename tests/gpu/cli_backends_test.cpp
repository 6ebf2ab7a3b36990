// The GPU backend through the CLI: byte-identical TSV and SAM against the CPU
// backend on real data, and every format with --strand both. Skips where no
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
    for (const char* mode : {"sw", "nw", "sg"}) {
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

/// The bundled reads (data/reads.fa) with every other one reverse-complemented
/// (A/C/G/T letters), so that --strand both keeps both strands.
std::string mixed_strand_reads() {
    std::istringstream in(slurp(std::string(GPUALIGN_TEST_DATA) + "/../../data/reads.fa"));
    std::string out, seq;
    int record = 0;
    const auto flush = [&] {
        if (record % 2 == 0) {
            std::string rc(seq.rbegin(), seq.rend());
            for (char& c : rc) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
            seq = rc;
        }
        out += seq + '\n';
        seq.clear();
    };
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line[0] == '>') {
            if (record++ > 0) flush();
            out += line + '\n';
        } else {
            seq += line;
        }
    }
    if (record > 0) flush();
    return out;
}

// Issue 14, --strand both: the GPU backend aligns both strands of every pair
// (and search, local and semi-global, scans both strands of every query) and
// writes the CPU's bytes, in every format.
TEST(CliBackendsStrands, BothStrandsGpuOutputIsByteIdenticalToCpu) {
    if (gpualign::gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    const fs::path dir = fs::temp_directory_path() / "gpualign_backends_strands";
    fs::create_directories(dir);
    const fs::path q = dir / "reads.fa";
    std::ofstream(q) << mixed_strand_reads();
    const std::string t = std::string(GPUALIGN_TEST_DATA) + "/../../data/ref_windows.fa";
    auto body = [](std::string s) {  // @PG holds the command line, which differs in the backend option
        const auto pg = s.find("@PG");
        if (pg != std::string::npos) s.erase(pg, s.find('\n', pg) - pg + 1);
        return s;
    };
    int compared = 0;
    for (const std::string command : {"sw", "nw", "sg", "search", "search --mode semi-global"})
        for (const std::string ext : {"tsv", "sam", "paf", "m8"}) {
            const bool search = command.starts_with("search");
            if (search && ext == "paf") continue;  // PAF is written by sw/nw
            const fs::path cpu = dir / ("cpu." + ext), gpu = dir / ("gpu." + ext);
            const std::string common = binary() + " " + command + " " + q.string() + " " + t + " -q --strand both" +
                                       (search ? " -k 2" : "") + " -o ";
            ASSERT_EQ(std::system((common + cpu.string() + " --backend cpu").c_str()), 0) << common;
            ASSERT_EQ(std::system((common + gpu.string() + " --backend gpu").c_str()), 0) << common;
            const std::string a = body(slurp(cpu)), b = body(slurp(gpu));
            if (ext != "m8")  // blast6 has no strand column
                EXPECT_NE(a.find(ext == "sam" ? "\t16\t" : "\t-"), std::string::npos)
                    << command << " " << ext << ": no minus-strand line";
            EXPECT_TRUE(a == b) << command << " " << ext << ": outputs differ";
            ++compared;
        }
    EXPECT_EQ(compared, 18);  // sw, nw, sg x 4 formats; search (local, semi-global) x 3
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
