// gpualign command-line interface: `gpualign sw|nw|sg QUERIES REFS [options]`,
// `gpualign search QUERIES DB [options]` and `gpualign makedb DB.fa DB.gadb`.
// The command line is parsed in cli.cpp; this file logs and runs.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <thread>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli.hpp"
#include "gpualign/io/cleanup.hpp"
#include "gpualign/pipeline/pipeline.hpp"
#include "gpualign/search/search.hpp"
#include "gpualign/search/search_db.hpp"

namespace {

/// Makes idle OpenMP threads sleep instead of spinning, unless the user chose
/// a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT).
///
/// An alignment run keeps three OpenMP teams busy at once on the same cores
/// (parsing both inputs, the GPU engine's packing, formatting the output);
/// libgomp's default lets a team's threads spin after each parallel region,
/// taking CPU time from the other teams. libgomp reads the policy from the
/// environment when it is loaded, before main, so the process executes
/// itself again once with OMP_WAIT_POLICY=passive (measured on an H100 host,
/// workload (a) x 3 with CIGAR: reading busy 0.32 -> 0.22 s, steady-state
/// throughput about 230 -> 310 GCUPS; docs/benchmarks.md). If that exec
/// fails, the run goes on with the default policy.
void prefer_passive_openmp_waits(char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
    if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    ::execv("/proc/self/exe", argv);
}

/// Asks CUDA to load every kernel when it creates a device's context
/// (CUDA_MODULE_LOADING=EAGER), unless the user's environment says
/// otherwise. CUDA's default, lazy loading, loads a kernel at its first
/// launch, and loading may synchronize the context: a kernel first launched
/// while the long-pair engine's 40 workers run waits for all of their
/// kernels, and they for it. The driver reads the variable when CUDA is
/// initialised, after this (measured on 2 x H200, 2,000 pairs of 5-50 kb,
/// nw with CIGAR: the first batch's long pairs 0.994 -> 0.949 s on one GPU,
/// 0.527 -> 0.497 s on each of two, backend start unchanged; docs/benchmarks.md).
void prefer_eager_cuda_module_loading() { (void)::setenv("CUDA_MODULE_LOADING", "EAGER", 0); }

/// Asks CUDA for the hardware work queues per device that the run wants
/// (CUDA_DEVICE_MAX_CONNECTIONS = cuda_hardware_queues: 1 for a single
/// pair, else the batch engine's streams, at least 4), unless the user's
/// environment says otherwise. CUDA's default, 8, costs about 12 ms a queue
/// when a context starts and more when it ends, and the engines gain nothing
/// from more queues than streams: the long-pair engine's workers wait on
/// flags in mapped memory, not on commands in their streams (docs/long.md).
/// Measured on an H100 (docs/benchmarks.md): the 1 Mbp pair
/// through the CLI 1,093-1,103 ms with 8 queues, 980-994 with 4, 898-941
/// with 1; pacbio_ecoli sw 468-512 against 361-467 ms at 4; the batch engine
/// on 100,000 pairs of 512 and the long engine on 2,000 pairs of 5-50 kb as
/// fast at 4 as at 8.
void prefer_cuda_hardware_queues(const gpualign::AlignConfig& c) {
    const std::string queues = std::to_string(gpualign::cuda_hardware_queues(c));
    (void)::setenv("CUDA_DEVICE_MAX_CONNECTIONS", queues.c_str(), 0);
}

/// "1 pair", "2 pairs": a count with its noun in the right number.
std::string counted_noun(std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// The log level that -v / -q ask for.
spdlog::level::level_enum log_level(gpualign::cli::Verbosity v) {
    using gpualign::cli::Verbosity;
    return v == Verbosity::quiet ? spdlog::level::err : v == Verbosity::verbose ? spdlog::level::debug : spdlog::level::info;
}

/// `gpualign makedb DB.fa DB.gadb`: builds the DB file and logs what it holds.
int run_makedb(const gpualign::cli::Command& cmd) {
    const gpualign::AlignConfig& c = cmd.config;
    spdlog::set_level(log_level(cmd.verbosity));
    try {
        const auto start = std::chrono::steady_clock::now();
        const int threads = c.threads > 0 ? c.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        const gpualign::SearchDbSummary s = gpualign::make_search_db(c.ref_path, c.out_path, c.alphabet, threads);
        spdlog::info("makedb: {} {} records, {} letters, {} bytes in {}, {:.3f} s", s.records,
                     gpualign::to_string(s.alphabet), s.letters, s.file_bytes, c.out_path,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return gpualign::cli::exit_error;
    }
    return gpualign::cli::exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
    namespace cli = gpualign::cli;
    gpualign::install_cleanup_signal_handlers();
    auto logger = spdlog::stderr_color_st("gpualign");
    logger->set_pattern("[gpualign] %^%l%$: %v");
    spdlog::set_default_logger(logger);

    cli::Command cmd;
    try {
        cmd = cli::parse_command_line(argc, argv);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        std::cerr << "Try 'gpualign --help'.\n";
        return cli::exit_usage;
    }
    if (cmd.action == cli::Command::Action::help || cmd.action == cli::Command::Action::version) {
        std::cout << cmd.text << std::flush;
        return std::cout ? cli::exit_ok : cli::exit_error;
    }
    if (cmd.action == cli::Command::Action::makedb) return run_makedb(cmd);
    // One small pair is done on the CPU before CUDA could have started.
    const bool small_pair = gpualign::runs_small_pair_on_cpu(cmd.config);
    if (small_pair) cmd.config.backend = gpualign::BackendChoice::cpu;
    if (!small_pair) prefer_passive_openmp_waits(argv);
    prefer_eager_cuda_module_loading();
    if (cmd.config.backend != gpualign::BackendChoice::cpu) prefer_cuda_hardware_queues(cmd.config);
    spdlog::set_level(log_level(cmd.verbosity));
    if (small_pair)
        spdlog::debug("one pair of at most {} DP cells: the CPU backend (--backend gpu keeps it on the GPU)",
                      gpualign::cpu_single_pair_cells);
    if (cmd.config.backend != gpualign::BackendChoice::cpu)
        if (const char* queues = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"))
            spdlog::debug("CUDA hardware queues per device: {} (CUDA_DEVICE_MAX_CONNECTIONS)", queues);
    try {
        const gpualign::RunStats stats =
            cmd.config.search ? gpualign::run_search(cmd.config) : gpualign::run_alignment(cmd.config);
        const std::string counted = cmd.config.search
                                        ? counted_noun(stats.queries, "query", "queries") + ", " +
                                              counted_noun(stats.hits, "hit", "hits")
                                        : counted_noun(stats.pairs, "pair", "pairs");
        spdlog::info("{}, {} cells, {:.3f} s, {:.3f} GCUPS, backend {}{}", counted, stats.cells, stats.seconds,
                     stats.gcups(), stats.backend,
                     stats.long_pairs ? "; " + counted_noun(stats.long_pairs, "long pair", "long pairs") +
                                            " on the long-pair path"
                                      : std::string());
    } catch (const gpualign::OptionError& e) {  // an option the input does not allow: a command-line error
        spdlog::error("{}", e.what());
        std::cerr << "Try 'gpualign --help'.\n";
        return cli::exit_usage;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return cli::exit_error;
    }
    return cli::exit_ok;
}
