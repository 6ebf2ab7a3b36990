// gpualign_long_bench's shared parts (bench/long_bench.cpp describes the
// program): the options, a workload's pairs, a row of results, and the
// functions of its workload (long_bench_workloads.cpp), peer
// (long_bench_peer.cpp) and report (long_bench_report.cpp) parts. Host memory
// only.
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gpualign/model/alignment.hpp"

namespace gpualign::long_bench {

using Seq = std::vector<std::uint8_t>;  ///< dna5 codes (A=0 C=1 G=2 N=3 T=4)
using Clock = std::chrono::steady_clock;

/// dna5 code -> letter.
inline constexpr char dna_letters[] = "ACGNT";

struct Options {
    std::vector<std::string> workloads{"mito", "hp50", "hp100", "sa200", "syn1m5", "syn1m20", "real1m", "bulk2000"};
    std::vector<AlignMode> modes{AlignMode::global, AlignMode::local};
    int runs = 3;
    std::string csv;
    std::string data;
    std::size_t gpu_memory = 0;
    int workers = 0;
    std::uint64_t solo_min_cells = 0;
    int solo_workers = 0;              // LongEngineOptions::solo_workers (0 = the tuning table)
    double solo_flow_share = 0;        // LongEngineOptions::solo_flow_share (0 = the tuning table)
    bool solo_priorities = true;       // LongEngineOptions::solo_priorities
    bool solo_sum = true;
    double peer_timeout_s = 30;
    bool peer = true;
    int rows_per_lane = 0;
    int leaf_batch = 0;
    bool walk_on_host = false;
    bool no_peaks = false;
    std::uint64_t leaf_cells = 0;
    double leaf_band = 0;
    double tile_band = -1;
    bool cpu = false;
    int cpu_threads = 0;
    double cpu_max_cells = 5e10;
    std::uint64_t seed = 20261111;
    std::size_t bulk_pairs = 2000;
    std::size_t syn_length = 1000000;
    std::string dump_fasta;
    bool probe = false;
    int tile_batch = 0, fan_out = 0;
    std::int32_t match = 2, mismatch = 3, gap_open = 5, gap_extend = 2;
};

// Workloads at most this big (the real pairs and the 1 Mbp pairs, not bulk2000)
// are run --runs times: a single timed run of the 1 Mbp pair can include the
// GPU clock ramp after the engine's small warm-up.
constexpr double repeat_max_cells = 1.1e12;

/// Whether a workload is a set of long pairs (sa_set, hp_set, mixed_set),
/// which is also timed pair by pair.
inline bool is_set(const std::string& name) { return name.ends_with("_set"); }

/// The pairs of one workload (one pair, or many for the sets and bulk2000) and their sums.
struct Workload {
    std::string name, description;
    std::vector<Seq> q, r;
    double cells = 0;
    std::uint64_t qlen = 0, rlen = 0;
    void finish() {
        cells = 0, qlen = 0, rlen = 0;
        for (std::size_t i = 0; i < q.size(); ++i) {
            cells += static_cast<double>(q[i].size()) * static_cast<double>(r[i].size());
            qlen += q[i].size(), rlen += r[i].size();
        }
    }
};

/// One workload x mode x output: what the GPU, the WFA2 peer and the CPU
/// backend gave (NaN or "-" where not run).
struct Row {
    std::string workload, mode, output;
    std::uint64_t qlen = 0, rlen = 0, pairs = 0;
    double cells = 0;
    // GPU
    std::string gpu = "-";  // "ok", "error: ...", "-" (not run)
    int runs = 0;
    double fwd_ms = std::nan(""), total_ms = std::nan(""), wall_s = std::nan("");
    double total_cells = std::nan("");
    double peak_gpu_mib = std::nan("");
    std::string check = "-";  // CIGAR re-scoring and run-to-run equality
    std::int64_t score = 0;   // ours (sum over pairs); GPU, else CPU
    bool have_score = false;
    double rss_mib = 0;
    // WFA2 peer
    std::string peer = "-", peer_score = "-", peer_match = "-", peer_status = "-";
    double peer_time_s = std::nan("");
    // CPU backend
    double cpu_s = std::nan("");
    std::string cpu_match = "-";
};

/// The WFA2 peer's outcome on a workload.
struct PeerResult {
    std::string status = "-";          // "ok", "timeout", "error: ...", "-"
    std::vector<std::int64_t> scores;  // converted to our scoring, pairs done in order
    double time_s = 0;                 // alignment time of the pairs done (child's clock)
};

// --- workloads (long_bench_workloads.cpp) ---

/// `pairs` synthetic pairs, lengths uniform in [min_len, max_len], the ref a
/// copy of the query with `divergence` of its bases changed (splitmix64;
/// byte for byte scripts/gen_long_pairs.py).
std::vector<std::pair<Seq, Seq>> generate_pairs(std::uint64_t seed, std::size_t pairs, std::size_t min_len,
                                                std::size_t max_len, double divergence);
/// syn1m5, syn1m20 or bulk2000: generated here rather than read from o.data.
bool is_synthetic(const std::string& name);
/// The workload `name` (bench/long_bench.cpp lists them); throws std::runtime_error
/// when its data cannot be read.
Workload load(const std::string& name, const Options& o);
/// `seqs` as FASTA records named prefix0, prefix1, ... (80 letters a line).
void write_fasta(const std::string& path, const std::vector<Seq>& seqs, char prefix);

// --- peer (long_bench_peer.cpp) ---

/// WFA2-lib BiWFA on every pair of `w`, global, in a forked child killed after
/// o.peer_timeout_s; scores converted to our scheme.
PeerResult run_wfa(const Workload& w, const Options& o, bool score_only);

// --- measurements and report (long_bench_report.cpp) ---

double median(std::vector<double> v);
double peak_rss_mib();
double current_rss_mib();
std::string utc_now();  ///< YYYY-MM-DDTHH:MM:SSZ
double seconds_since(Clock::time_point t0);
std::string fmt(double v, const char* f = "%.2f");  ///< "-" for NaN
double gcups(double cells, double seconds);         ///< NaN unless seconds > 0
extern const char* csv_header;
void write_csv_row(std::ofstream& out, const std::string& date, const std::string& device, const Row& r);
void print_row(const Row& r);
void print_header();

}  // namespace gpualign::long_bench
