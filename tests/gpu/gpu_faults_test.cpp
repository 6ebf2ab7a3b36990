// GPU faults (issue 4): the device-memory cap (--gpu-memory,
// BatchEngineOptions::gpu_memory_limit), the split-and-retry after a real
// cudaErrorMemoryAllocation, the asynchronous BatchEngine API, and a real CUDA
// error mid-run through the CLI (test hook GPUALIGN_INJECT_CUDA_FAULT, see
// docs/gpu.md). Every test skips without a CUDA device.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(GPUALIGN_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#include "gpu_test_util.hpp"

namespace gpualign::test {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT_GPU() \
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

/// Exit status of a shell command (-1 if it did not exit normally).
int run_status(const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

ScoringScheme dna() { return make_dna_scheme(2, 3, 5, 2, -3); }

/// Mixed DNA pairs: lengths 1-2,000 (some long), related and unrelated.
void mixed_pairs(std::uint64_t seed, std::size_t count, std::vector<Seq>& q, std::vector<Seq>& r) {
    Generator g(Alphabet::dna, seed);
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t m = k % 50 == 0 ? 1500 + g.rng()() % 1500 : 1 + g.rng()() % 700;
        Seq a = g.random(m);
        Seq b = k % 3 == 0 ? g.random(1 + g.rng()() % 700) : g.mutate(a, 0.1, 4000);
        if (b.empty()) b = g.random(1);
        q.push_back(std::move(a));
        r.push_back(std::move(b));
    }
}

/// Aligns the pairs the engine accepts with the engine and compares every
/// result with align_pair; returns how many pairs the engine took.
std::size_t expect_engine_matches_cpu(gpu::BatchEngine& e, const std::vector<Seq>& q, const std::vector<Seq>& r,
                                      const ScoringScheme& s, AlignMode mode, bool score_only) {
    std::vector<Seq> gq, gr;
    for (std::size_t i = 0; i < q.size(); ++i)
        if (e.accepts(q[i].size(), r[i].size())) {
            gq.push_back(q[i]);
            gr.push_back(r[i]);
        }
    const std::vector<AlignmentResult> got = e.align(views(gq, gr));
    const std::vector<AlignmentResult> want = cpu_align_all(gq, gr, s, mode, score_only);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!(got[i] == want[i]) && ++bad <= 3) ADD_FAILURE() << "pair " << i << " differs from align_pair";
    EXPECT_EQ(bad, 0u);
    return gq.size();
}

// (b) A tiny cap: every device allocation stays within it, batches are
// small, and a mixed batch still aligns identically to align_pair.
TEST(GpuMemoryLimit, TinyCapAlignsMixedBatchIdentically) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    mixed_pairs(31, 1500, q, r);
    for (std::size_t cap : {std::size_t{1} << 20, std::size_t{4} << 20})
        for (AlignMode mode : {AlignMode::local, AlignMode::global})
            for (bool so : {false, true}) {
                gpu::BatchEngineOptions opt;
                opt.gpu_memory_limit = cap;
                opt.streams = 2;  // the cap is split between the streams: 2 keep most pairs on the GPU
                gpu::BatchEngine e(dna(), mode, so, opt);
                const gpu::BatchEngineMemory mem = e.memory();
                EXPECT_LE(mem.device_bytes, cap);
                EXPECT_GT(mem.device_bytes, 0u);
                const std::size_t taken = expect_engine_matches_cpu(e, q, r, dna(), mode, so);
                EXPECT_GT(taken, q.size() / 2);
                std::printf("  cap %zu: %s %s: %zu of %zu pairs on the GPU, batches of %zu bases / %zu pairs / %llu "
                            "traceback bytes, %zu device bytes\n",
                            cap, to_string(mode), so ? "score-only" : "traceback", taken, q.size(), mem.batch_bases,
                            mem.batch_pairs, static_cast<unsigned long long>(mem.traceback_bytes), mem.device_bytes);
            }
}

TEST(GpuMemoryLimit, CapTooSmallIsAClearError) {
    SKIP_WITHOUT_GPU();
    gpu::BatchEngineOptions opt;
    opt.gpu_memory_limit = 1000;
    try {
        gpu::BatchEngine e(dna(), AlignMode::local, false, opt);
        ADD_FAILURE() << "a 1000-byte cap was accepted";
    } catch (const std::runtime_error& ex) {
        EXPECT_NE(std::string(ex.what()).find("1000 bytes"), std::string::npos) << ex.what();
    }
}

// A real cudaErrorMemoryAllocation: another allocation holds all but 1 GiB of
// the device, and the engine's cap is the whole device, so its first
// buffers do not fit; it halves them until they do and still aligns
// identically.
TEST(GpuMemoryLimit, RetriesWithSmallerBuffersAfterAllocationFailure) {
    SKIP_WITHOUT_GPU();
#if defined(GPUALIGN_HAVE_CUDA)
    std::size_t free_b = 0, total_b = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    const std::size_t leave = std::size_t{1} << 30;
    ASSERT_GT(free_b, 2 * leave);
    void* hog = nullptr;
    ASSERT_EQ(cudaMalloc(&hog, free_b - leave), cudaSuccess);
    std::vector<Seq> q, r;
    mixed_pairs(47, 3000, q, r);
    try {
        gpu::BatchEngineOptions opt;
        opt.gpu_memory_limit = total_b;
        gpu::BatchEngine e(dna(), AlignMode::local, false, opt);
        const gpu::BatchEngineMemory mem = e.memory();
        EXPECT_GE(mem.allocation_retries, 1);
        EXPECT_LE(mem.device_bytes, leave);
        std::printf("  %d halvings, %zu device bytes, batches of %zu bases / %llu traceback bytes\n",
                    mem.allocation_retries, mem.device_bytes, mem.batch_bases,
                    static_cast<unsigned long long>(mem.traceback_bytes));
        expect_engine_matches_cpu(e, q, r, dna(), AlignMode::local, false);
    } catch (const std::exception& ex) {
        ADD_FAILURE() << ex.what();
    }
    cudaFree(hog);
#else
    GTEST_SKIP() << "built without CUDA";
#endif
}

// Several submissions in flight at once, collected in and out of order.
TEST(EngineAsync, OverlappingSubmissionsMatchAlignPair) {
    SKIP_WITHOUT_GPU();
    for (bool so : {false, true}) {
        gpu::BatchEngineOptions opt;
        opt.max_batch_bases = 30000;  // many device batches per submission
        gpu::BatchEngine e(dna(), AlignMode::local, so, opt);
        std::vector<std::vector<Seq>> qs(4), rs(4);
        std::vector<std::vector<gpu::PairView>> vs(4);
        std::vector<gpu::Ticket> tickets;
        for (int k = 0; k < 4; ++k) {
            mixed_pairs(100 + k, 400, qs[k], rs[k]);
            for (std::size_t i = 0; i < qs[k].size(); ++i)
                if (qs[k][i].size() + rs[k][i].size() > 30000) qs[k][i].resize(10);
            vs[k] = views(qs[k], rs[k]);
            tickets.push_back(e.align_async(vs[k]));
        }
        for (int k : {1, 0, 3, 2}) {
            const std::vector<AlignmentResult> got = e.collect(tickets[k]);
            const std::vector<AlignmentResult> want = cpu_align_all(qs[k], rs[k], dna(), AlignMode::local, so);
            ASSERT_EQ(got.size(), want.size());
            std::size_t bad = 0;
            for (std::size_t i = 0; i < got.size(); ++i) bad += !(got[i] == want[i]);
            EXPECT_EQ(bad, 0u) << "submission " << k;
        }
        EXPECT_THROW(e.collect(tickets[0]), std::invalid_argument);
    }
}

// (a) pacbio_ecoli through the CLI under a cap: byte-identical to the CPU backend.
TEST(GpuMemoryLimit, CliPacbioUnderCapIdenticalToCpu) {
    SKIP_WITHOUT_GPU();
    const std::string dir_data = shared_data_dir();
    const std::string q = dir_data + "/dna/pacbio_ecoli/reads.fa", t = dir_data + "/dna/pacbio_ecoli/ref_windows.fa";
    if (!fs::exists(q) || !fs::exists(t)) GTEST_SKIP() << "data not found: " << q;
    const fs::path dir = fs::temp_directory_path() / "gpualign_gpu_memory";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* mode : {"sw", "nw"})
        for (const char* extra : {"", "--score-only"}) {
            const std::string common = binary() + " " + mode + " " + q + " " + t + " -q " + extra + " -o ";
            const fs::path cpu = dir / "cpu.tsv";
            ASSERT_EQ(run_status(common + cpu.string() + " --backend cpu"), 0);
            const std::string want = slurp(cpu);
            EXPECT_FALSE(want.empty());
            for (const char* cap : {"64M", "8M"}) {
                const fs::path gpu = dir / "gpu.tsv";
                ASSERT_EQ(run_status(common + gpu.string() + " --backend gpu --gpu-memory " + cap), 0) << cap;
                EXPECT_TRUE(slurp(gpu) == want) << mode << " " << extra << " --gpu-memory " << cap << ": outputs differ";
            }
        }
    // Too small for anything: a clear error naming the cap, no output.
    const fs::path out = dir / "small.tsv";
    const fs::path err = dir / "small.err";
    EXPECT_EQ(run_status(binary() + " sw " + q + " " + t + " --backend gpu --gpu-memory 100K -o " + out.string() +
                         " 2> " + err.string()),
              2);
    EXPECT_NE(slurp(err).find("--gpu-memory 102400 bytes"), std::string::npos) << slurp(err);
    EXPECT_FALSE(fs::exists(out));
    fs::remove_all(dir);
}

// (c) A real CUDA error mid-run (a kernel that traps at the 3rd device batch):
// exit status 1, the CUDA error name on stderr, no output and no temporary
// file left, and no hang.
TEST(GpuFault, InjectedKernelFaultFailsCleanly) {
    SKIP_WITHOUT_GPU();
    const std::string dir_data = shared_data_dir();
    const std::string q = dir_data + "/dna/pacbio_ecoli/reads.fa", t = dir_data + "/dna/pacbio_ecoli/ref_windows.fa";
    if (!fs::exists(q) || !fs::exists(t)) GTEST_SKIP() << "data not found: " << q;
    const fs::path dir = fs::temp_directory_path() / "gpualign_gpu_fault";
    const fs::path errdir = fs::temp_directory_path() / "gpualign_gpu_fault_err";
    for (const char* extra : {"", "--score-only"}) {
        fs::remove_all(dir);
        fs::remove_all(errdir);
        fs::create_directories(dir);
        fs::create_directories(errdir);
        const fs::path out = dir / "out.tsv", err = errdir / "stderr.txt";
        // 1,000 pairs per pipeline batch: earlier batches are already in the
        // temporary output when the fault hits.
        const int rc = run_status("GPUALIGN_INJECT_CUDA_FAULT=3 timeout 120 " + binary() + " sw " + q + " " + t +
                                  " --backend gpu --batch-pairs 1000 " + extra + " -o " + out.string() + " 2> " +
                                  err.string());
        const std::string msg = slurp(err);
        EXPECT_EQ(rc, 1) << msg;  // 124 would be a hang stopped by timeout
        EXPECT_NE(msg.find("cudaError"), std::string::npos) << msg;
        EXPECT_FALSE(fs::exists(out));
        std::size_t left = 0;
        for (const auto& entry : fs::directory_iterator(dir)) {
            ++left;
            ADD_FAILURE() << "left behind: " << entry.path();
        }
        std::printf("  %s: exit %d, %zu files left, stderr: %s", *extra ? extra : "CIGAR", rc, left, msg.c_str());
    }
    fs::remove_all(dir);
    fs::remove_all(errdir);
}

}  // namespace
}  // namespace gpualign::test
