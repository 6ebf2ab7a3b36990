// Several GPUs in one process (--devices, issue 15): the output of pairs,
// long pairs and search is byte-identical to one GPU's, each GPU logs its
// work under -v, and a GPU that fails mid-run fails the run cleanly.
//
// Device sets: "two" (0,1) and "all" need two visible devices and skip
// with fewer; "shared" (0,0: two workers on one GPU) runs the same split,
// deal and merge code on a single GPU.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/gpu_test_util.hpp"
#include "gpualign/gpu/device.hpp"

namespace gpualign::test {
namespace {

namespace fs = std::filesystem;

struct DeviceSet {
    const char* name;
    const char* devices;  // the --devices value
    int needed;           // visible devices it needs
    int workers;          // GPU workers it makes (on two devices)
};

int run_status(const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// The first `n` records of a FASTA file, written to `dst`.
void head_records(const fs::path& src, std::size_t n, const fs::path& dst) {
    std::ifstream in(src);
    std::ofstream out(dst);
    std::string line;
    std::size_t records = 0;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>' && ++records > n) break;
        out << line << '\n';
    }
}

/// The text without its SAM @PG line (it holds the command line).
std::string without_pg(std::string s) {
    const auto pg = s.find("@PG");
    if (pg != std::string::npos) s.erase(pg, s.find('\n', pg) - pg + 1);
    return s;
}

class MultiGpu : public ::testing::TestWithParam<DeviceSet> {
protected:
    void SetUp() override {
        if (gpu::device_count() < GetParam().needed)
            GTEST_SKIP() << GetParam().needed << " CUDA device(s) needed, " << gpu::device_count() << " visible";
        std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        for (char& c : name) c = c == '/' ? '_' : c;
        dir_ = fs::temp_directory_path() / ("gpualign_multi_gpu_" + name);
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        if (!dir_.empty()) fs::remove_all(dir_);
    }

    /// Runs `gpualign ARGS` once on device 0 alone and once on the set's
    /// devices (with -v), and expects the same output bytes. Returns the
    /// multi-GPU run's stderr.
    std::string expect_same_as_one_gpu(const std::string& args, const std::string& ext) {
        const fs::path one = dir_ / ("one." + ext), many = dir_ / ("many." + ext), err = dir_ / "err.txt";
        const std::string common = binary() + " " + args + " --backend gpu --progress never";
        EXPECT_EQ(run_status(common + " -q --device 0 -o " + one.string()), 0) << args;
        EXPECT_EQ(run_status(common + " -v --devices " + GetParam().devices + " -o " + many.string() + " 2> " +
                             err.string()),
                  0)
            << args << ": " << slurp(err);
        const std::string a = without_pg(slurp(one)), b = without_pg(slurp(many));
        EXPECT_FALSE(a.empty()) << args;
        EXPECT_TRUE(a == b) << args << " --devices " << GetParam().devices << ": outputs differ";
        return slurp(err);
    }

    /// Lines of `log` with `what`, from the -v per-device summary ("device N: ...").
    static std::size_t device_lines(const std::string& log, const std::string& what) {
        std::istringstream in(log);
        std::size_t n = 0;
        for (std::string line; std::getline(in, line);)
            if (line.find("device ") != std::string::npos && line.find(what) != std::string::npos) ++n;
        return n;
    }

    fs::path dir_;
};

TEST_P(MultiGpu, PairsAreByteIdenticalToOneGpu) {
    const std::string data = std::string(GPUALIGN_TEST_DATA) + "/../../data/";
    const std::string pairs = data + "reads.fa " + data + "ref_windows.fa --batch-pairs 40";
    for (const char* mode : {"sw", "nw", "sg"}) {
        expect_same_as_one_gpu(std::string(mode) + " " + pairs, "tsv");
        expect_same_as_one_gpu(std::string(mode) + " " + pairs + " --score-only", "tsv");
    }
    expect_same_as_one_gpu("sw " + pairs + " --strand both", "sam");
    const std::string log = expect_same_as_one_gpu("sw " + pairs + " --strand both", "paf");
    // Every worker took a share of the batches, and said so.
    EXPECT_EQ(device_lines(log, "pairs ("), static_cast<std::size_t>(GetParam().workers)) << log;
    EXPECT_EQ(log.find("device 0: 0 pairs"), std::string::npos) << log;
    EXPECT_EQ(log.find("device 1: 0 pairs"), std::string::npos) << log;
}

TEST_P(MultiGpu, LongPairsAreByteIdenticalToOneGpu) {
    const fs::path src = fs::path(shared_data_dir()) / "dna/long";
    if (!fs::exists(src / "hpyloriG27_vs_SJM180.A.fa")) GTEST_SKIP() << "data not found: " << src;
    // Six pairs of 10-50 kb (1e8 to 2.7e9 cells, all above long_pair_cells):
    // dealt to the GPUs, several on each (align_many).
    head_records(src / "hpyloriG27_vs_SJM180.A.fa", 6, dir_ / "a6.fa");
    head_records(src / "hpyloriG27_vs_SJM180.B.fa", 6, dir_ / "b6.fa");
    const std::string six = (dir_ / "a6.fa").string() + " " + (dir_ / "b6.fa").string();
    std::string log = expect_same_as_one_gpu("nw " + six, "tsv");
    EXPECT_EQ(device_lines(log, "on the long-pair engine of device"), static_cast<std::size_t>(GetParam().workers))
        << log;
    expect_same_as_one_gpu("sw " + six + " --score-only", "tsv");
    // Two pairs: one alone on each GPU (the whole GPU each).
    head_records(src / "hpyloriG27_vs_SJM180.A.fa", 2, dir_ / "a2.fa");
    head_records(src / "hpyloriG27_vs_SJM180.B.fa", 2, dir_ / "b2.fa");
    log = expect_same_as_one_gpu("sg " + (dir_ / "a2.fa").string() + " " + (dir_ / "b2.fa").string(), "sam");
    EXPECT_EQ(device_lines(log, "on the long-pair engine of device"), 2u) << log;
}

TEST_P(MultiGpu, SearchIsByteIdenticalToOneGpu) {
    const std::string shared = shared_data_dir();
    const std::string fam = shared + "/protein/families/";
    if (!fs::exists(fam + "globins45.fa")) GTEST_SKIP() << "data not found: " << fam;
    const std::string globins = "search " + fam + "globins4.fa " + fam + "globins45.fa -k 5";
    std::string log = expect_same_as_one_gpu(globins, "m8");
    EXPECT_EQ(device_lines(log, "scanned DB records"), static_cast<std::size_t>(GetParam().workers)) << log;
    expect_same_as_one_gpu(globins + " --mode global", "tsv");
    expect_same_as_one_gpu("search " + fam + "pfam_fn3_seed.fa " + fam + "pfam_Pkinase_seed.fa -k 3", "sam");
    // DNA, both strands: the bundled reads against the windows as a DB.
    const std::string data = std::string(GPUALIGN_TEST_DATA) + "/../../data/";
    head_records(data + "reads.fa", 20, dir_ / "q20.fa");
    expect_same_as_one_gpu("search " + (dir_ / "q20.fa").string() + " " + data + "ref_windows.fa -k 3 --strand both",
                           "m8");
}

// A GPU that fails mid-run (a kernel that traps at each engine's 3rd device
// batch): exit 1, the CUDA error name on stderr, no output, no temporary file.
TEST_P(MultiGpu, AFailingGpuFailsTheRunCleanly) {
    const std::string data = shared_data_dir() + "/dna/pacbio_ecoli/";
    if (!fs::exists(data + "reads.fa")) GTEST_SKIP() << "data not found: " << data;
    const fs::path out = dir_ / "out" / "out.tsv", err = dir_ / "stderr.txt";
    fs::create_directories(out.parent_path());
    const int rc = run_status("GPUALIGN_INJECT_CUDA_FAULT=3 timeout 120 " + binary() + " sw " + data + "reads.fa " +
                              data + "ref_windows.fa --backend gpu --batch-pairs 1000 --devices " +
                              GetParam().devices + " -o " + out.string() + " 2> " + err.string());
    const std::string msg = slurp(err);
    EXPECT_EQ(rc, 1) << msg;  // 124 would be a hang stopped by timeout
    EXPECT_NE(msg.find("cudaError"), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_TRUE(fs::is_empty(out.parent_path())) << "a temporary file was left";
}

INSTANTIATE_TEST_SUITE_P(Devices, MultiGpu,
                         ::testing::Values(DeviceSet{"two", "0,1", 2, 2}, DeviceSet{"all", "all", 2, 2},
                                           DeviceSet{"shared", "0,0", 1, 2}),
                         [](const ::testing::TestParamInfo<DeviceSet>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace gpualign::test
