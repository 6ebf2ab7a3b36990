// gpualign_long_bench — gpualign::gpu::LongEngine on the long-pair workloads
// of issue 11, with WFA2-lib BiWFA and the CPU align_pair_long beside it.
//
// Workloads (--workloads, comma list; default all):
//   mito      human vs orangutan mitochondrion (16,569 x 16,499), real
//   hp50      H. pylori G27 vs SJM180, the ~50,000 x 54,525 record pair, real
//   hp100     H. pylori, the ~100 kb record pair, real
//   sa200     S. aureus N315 vs RF122, the ~200,000 x 200,201 record pair, real
//   syn1m5    synthetic 1 Mbp x ~1 Mbp, 5% divergence   (seed --seed)
//   syn1m20   synthetic 1 Mbp x ~1 Mbp, 20% divergence  (seed --seed + 1)
//   real1m    real sequence, 1,020,000 x 982,724: every S. aureus window of
//             dna/long and then every H. pylori window, in file order, the
//             .A.fa records joined as the query and the .B.fa records as the
//             ref (identity 0.59-0.97 window by window, gaps of up to 38 kb)
//   bulk2000  2,000 synthetic pairs, lengths uniform in 5-50 kb, 10% divergence
//             (seed --seed + 2); times, cells and scores are summed over pairs
// Real pairs: record i of the .A.fa file (query) with record i of the .B.fa
// file (ref); the record pair whose lengths are nearest the target is chosen
// and its lengths printed. DNA, match 2 / mismatch 3 / gap 5+2, N = -3.
//
// Each workload x mode (--modes) x output (score-only, CIGAR):
//  GPU   LongEngine, one engine per (mode, score-only) for the whole run, warmed
//        up once on an 8 kb pair. One pair: align(), then last_stats():
//        forward GCUPS = query_len*ref_len / forward_ms, total (kernel) GCUPS
//        = query_len*ref_len / total_ms, wall GCUPS = query_len*ref_len /
//        wall_s. Many pairs (bulk2000): one align_many() call, whose device
//        times are summed over its concurrent streams, so only its wall GCUPS
//        is a rate of the GPU. Workloads of at most 1.1e12 cells (the real ones
//        and the 1 Mbp pairs) are run --runs times, the median of each figure
//        is reported; bulk2000 runs once. With CIGAR every result is re-scored from its
//        CIGAR (rescore_cigar) and repeated runs must give equal results.
//  peer  WFA2-lib BiWFA (WFAlignerGapAffine, MemoryUltralow, no heuristic),
//        global mode only, one CPU thread, in a forked child killed after
//        --peer-timeout-s ("timeout"). Penalties: x = 2(M+X), o = 2O,
//        e = 2E+M, match 0; our score = (M(|q|+|r|) - D)/2 with D the WFA
//        distance (Eizenga & Paten 2022). Query N is passed as 'N', ref N as
//        'n', so that N never matches (our scheme scores N vs N as a mismatch).
//        MISMATCH when a converted score differs from ours.
//  cpu   (--cpu) align_pair_long with --cpu-threads, for workloads of at most
//        --cpu-max-cells cells; results compared with the GPU's (operator==).
// Host peak RSS (getrusage ru_maxrss) is read after each workload; the data of
// a workload is loaded just before it and freed after it.
//
// CSV (--csv): one row per workload x mode x output; for bulk2000 query_len
// and ref_len are the sums over the pairs.
//
// Synthetic pairs are generated here and, byte for byte the same, by
// scripts/gen_long_pairs.py (splitmix64; see generate_pairs below).
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpualign/align/long_aligner.hpp"
#include "gpualign/gpu/engine.hpp"
#include "gpualign/gpu/long_engine.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

#ifdef GPUALIGN_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef GPUALIGN_HAVE_WFA2
#include <bindings/cpp/WFAligner.hpp>
#endif

#ifndef GPUALIGN_SHARED_DATA
#define GPUALIGN_SHARED_DATA ""
#endif

namespace {

using namespace gpualign;
using Seq = std::vector<std::uint8_t>;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------
// Options

struct Options {
    std::vector<std::string> workloads{"mito", "hp50", "hp100", "sa200", "syn1m5", "syn1m20", "real1m", "bulk2000"};
    std::vector<AlignMode> modes{AlignMode::global, AlignMode::local};
    int runs = 3;
    std::string csv;
    std::string data;
    std::size_t gpu_memory = 0;
    int workers = 0;
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

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!cur.empty()) out.push_back(cur);
    return out;
}

[[noreturn]] void usage(int rc) {
    std::fprintf(rc ? stderr : stdout,
                 "usage: gpualign_long_bench [options]\n"
                 "  --workloads LIST     comma list of mito,hp50,hp100,sa200,syn1m5,syn1m20,real1m,bulk2000 (default all)\n"
                 "  --modes LIST         global,local (default both)\n"
                 "  --runs N             repetitions of the workloads of <= 1.1e12 cells, median reported (3)\n"
                 "  --csv FILE           one row per workload x mode x output\n"
                 "  --data DIR           shared data directory (default $GPUALIGN_SHARED_DATA or %s)\n"
                 "  --workers N          pairs align_many runs at once (LongEngineOptions::workers; 0 = default)\n"
                 "  --gpu-memory BYTES   device memory cap of each LongEngine (default 90%% of the free memory\n"
                 "                       divided among the engines of the run)\n"
                 "  --peer-timeout-s S   time cap of the WFA2 peer per workload x output (30)\n"
                 "  --no-peer            do not run WFA2\n"
                 "  --rows-per-lane R    LongEngineOptions::rows_per_lane (0 = tuning table, 4, 16 or 32)\n"
                 "  --leaf-batch N       LongEngineOptions::leaf_batch (0 = tuning table)\n"
                 "  --tile-batch N       LongEngineOptions::tile_batch (0 = tuning table)\n"
                 "  --fan-out N          LongEngineOptions::plan.fan_out (0 = the engine's default, 16)\n"
                 "  --walk-on-host       LongEngineOptions::walk_on_host (download each leaf the walk enters)\n"
                 "  --no-peaks           LongEngineOptions::row_peaks = false (straight-line guesses of the path)\n"
                 "  --leaf-cells N       LongEngineOptions::plan.leaf_cells (0 = the engine's default, 2^20)\n"
                 "  --leaf-band X        LongEngineOptions::plan.leaf_band (0 = the default)\n"
                 "  --tile-band X        LongEngineOptions::plan.tile_band (the default 0.25)\n"
                 "  --cpu                also run align_pair_long (CPU backend)\n"
                 "  --cpu-threads N      its OpenMP threads (0 = all cores)\n"
                 "  --cpu-max-cells X    only for workloads of at most X cells (5e10)\n"
                 "  --seed N             base seed of the synthetic workloads (20261111)\n"
                 "  --bulk-pairs N       pairs of bulk2000 (2000)\n"
                 "  --syn-length N       query length of syn1m5/syn1m20 (1000000)\n"
                 "  --scoring M,X,O,E    match, mismatch, gap open, gap extend (2,3,5,2)\n"
                 "  --probe              time the region kernel on shapes that separate the per-step\n"
                 "                       latency (one stripe, wide) from the stripe hand-off lag\n"
                 "                       (many stripes, narrow), global score-only, and exit\n"
                 "  --dump-fasta DIR     write the selected synthetic workloads and real1m as FASTA (NAME_q.fa,\n"
                 "                       NAME_r.fa) and exit\n",
                 GPUALIGN_SHARED_DATA);
    std::exit(rc);
}

Options parse(int argc, char** argv) {
    Options o;
    if (const char* e = std::getenv("GPUALIGN_SHARED_DATA"); e && *e) o.data = e;
    else o.data = GPUALIGN_SHARED_DATA;
    auto need = [&](int& i) -> std::string {
        if (i + 1 >= argc) {
            std::fprintf(stderr, "gpualign_long_bench: %s needs a value\n", argv[i]);
            usage(2);
        }
        return argv[++i];
    };
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--workloads") o.workloads = split(need(i), ',');
            else if (a == "--modes") {
                o.modes.clear();
                for (const auto& m : split(need(i), ',')) {
                    if (m == "global") o.modes.push_back(AlignMode::global);
                    else if (m == "local") o.modes.push_back(AlignMode::local);
                    else throw std::invalid_argument("unknown mode " + m);
                }
            } else if (a == "--runs") o.runs = std::max(1, std::stoi(need(i)));
            else if (a == "--csv") o.csv = need(i);
            else if (a == "--data") o.data = need(i);
            else if (a == "--gpu-memory") o.gpu_memory = static_cast<std::size_t>(std::stod(need(i)));
            else if (a == "--workers") o.workers = std::max(0, std::stoi(need(i)));
            else if (a == "--peer-timeout-s") o.peer_timeout_s = std::stod(need(i));
            else if (a == "--no-peer") o.peer = false;
            else if (a == "--rows-per-lane") o.rows_per_lane = std::stoi(need(i));
            else if (a == "--leaf-batch") o.leaf_batch = std::max(0, std::stoi(need(i)));
            else if (a == "--tile-batch") o.tile_batch = std::max(0, std::stoi(need(i)));
            else if (a == "--fan-out") o.fan_out = std::max(0, std::stoi(need(i)));
            else if (a == "--walk-on-host") o.walk_on_host = true;
            else if (a == "--no-peaks") o.no_peaks = true;
            else if (a == "--leaf-cells") o.leaf_cells = static_cast<std::uint64_t>(std::stod(need(i)));
            else if (a == "--leaf-band") o.leaf_band = std::stod(need(i));
            else if (a == "--tile-band") o.tile_band = std::stod(need(i));
            else if (a == "--cpu") o.cpu = true;
            else if (a == "--cpu-threads") o.cpu_threads = std::max(0, std::stoi(need(i)));
            else if (a == "--cpu-max-cells") o.cpu_max_cells = std::stod(need(i));
            else if (a == "--seed") o.seed = std::stoull(need(i));
            else if (a == "--bulk-pairs") o.bulk_pairs = std::max<std::size_t>(1, std::stoull(need(i)));
            else if (a == "--syn-length") o.syn_length = std::max<std::size_t>(1, std::stoull(need(i)));
            else if (a == "--dump-fasta") o.dump_fasta = need(i);
            else if (a == "--probe") o.probe = true;
            else if (a == "--scoring") {
                const auto v = split(need(i), ',');
                if (v.size() != 4) throw std::invalid_argument("--scoring needs M,X,O,E");
                o.match = std::stoi(v[0]), o.mismatch = std::stoi(v[1]), o.gap_open = std::stoi(v[2]),
                o.gap_extend = std::stoi(v[3]);
            } else if (a == "--help" || a == "-h") usage(0);
            else {
                std::fprintf(stderr, "gpualign_long_bench: unknown option %s\n", a.c_str());
                usage(2);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpualign_long_bench: bad command line: %s\n", e.what());
        usage(2);
    }
    static const std::vector<std::string> known{"mito", "hp50", "hp100", "sa200", "syn1m5", "syn1m20", "real1m", "bulk2000"};
    for (const auto& w : o.workloads)
        if (std::find(known.begin(), known.end(), w) == known.end()) {
            std::fprintf(stderr, "gpualign_long_bench: unknown workload %s\n", w.c_str());
            usage(2);
        }
    if (o.modes.empty()) usage(2);
    return o;
}

// ---------------------------------------------------------------------------
// Sequences

/// DNA letter -> dna5 code (A=0 C=1 G=2 N=3 T=4; U as T; anything else N).
std::uint8_t dna_code(char c) {
    switch (c) {
        case 'A': case 'a': return 0;
        case 'C': case 'c': return 1;
        case 'G': case 'g': return 2;
        case 'T': case 't': case 'U': case 'u': return 4;
        default: return 3;
    }
}
constexpr char dna_letters[] = "ACGNT";

struct Record {
    std::string name;
    Seq codes;
};

/// Plain FASTA (no gzip): '>' header lines, sequence lines; whitespace skipped.
std::vector<Record> read_fasta(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<Record> out;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>') {
            Record r;
            const std::size_t end = line.find_first_of(" \t\r", 1);
            r.name = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
            out.push_back(std::move(r));
            continue;
        }
        if (out.empty()) continue;
        for (char c : line)
            if (!std::isspace(static_cast<unsigned char>(c))) out.back().codes.push_back(dna_code(c));
    }
    return out;
}

/// splitmix64 (Steele, Lea & Flood 2014). below(n) = floor(next() * n / 2^64).
struct SplitMix64 {
    std::uint64_t s;
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) {
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
    }
};

constexpr std::uint8_t acgt_code[4] = {0, 1, 2, 4};  // ACGT index -> dna5 code

/// Seeded synthetic pairs; scripts/gen_long_pairs.py writes the same bytes.
/// One splitmix64 stream for the whole set. Per pair:
///  1. L = min_len + below(max_len - min_len + 1)
///  2. query: L uniform bases (ACGT), 2 bits each from one next() per 32 bases
///     (lowest bits first)
///  3. ref: the query mutated. Per query position a 16-bit value (four per
///     next(), lowest first, the buffer emptied at the start of each pair) is
///     compared with t = floor(65536 * divergence / 1.9 + 0.5); below t an
///     event: k = below(10): k < 8 substitution by (base + 1 + below(3)) mod 4;
///     k = 8 insertion of 1 + below(10) bases (below(4) each) before the
///     position; k = 9 deletion of 1 + below(10) positions. 1.9 = the mean
///     number of positions an event mutates (0.8 * 1 + 0.2 * 5.5), so that the
///     expected mutated fraction is `divergence`.
///  4. ref empty: one base below(4); ref == query: its middle base + 1 mod 4.
/// Indices are ACGT (0..3), stored as dna5 codes.
std::vector<std::pair<Seq, Seq>> generate_pairs(std::uint64_t seed, std::size_t pairs, std::size_t min_len,
                                                std::size_t max_len, double divergence) {
    SplitMix64 g{seed};
    const double t = 65536.0 * (divergence / 1.9) + 0.5;
    const std::uint32_t thr = t >= 65536.0 ? 65536u : static_cast<std::uint32_t>(t);
    std::vector<std::pair<Seq, Seq>> out;
    out.reserve(pairs);
    for (std::size_t p = 0; p < pairs; ++p) {
        const std::size_t len = min_len + g.below(max_len - min_len + 1);
        std::vector<std::uint8_t> q(len);  // ACGT indices
        std::uint64_t w = 0;
        for (std::size_t i = 0; i < len; ++i) {
            if (i % 32 == 0) w = g.next();
            q[i] = static_cast<std::uint8_t>(w & 3);
            w >>= 2;
        }
        std::vector<std::uint8_t> r;
        r.reserve(len + len / 8 + 16);
        std::uint64_t buf = 0;
        int left = 0;
        for (std::size_t i = 0; i < len;) {
            if (left == 0) buf = g.next(), left = 4;
            const std::uint32_t c = static_cast<std::uint32_t>(buf & 0xFFFF);
            buf >>= 16, --left;
            if (c >= thr) {
                r.push_back(q[i++]);
                continue;
            }
            const std::uint64_t kind = g.below(10);
            if (kind < 8) {
                r.push_back(static_cast<std::uint8_t>((q[i++] + 1 + g.below(3)) & 3));
            } else if (kind == 8) {
                const std::uint64_t k = 1 + g.below(10);
                for (std::uint64_t x = 0; x < k; ++x) r.push_back(static_cast<std::uint8_t>(g.below(4)));
                r.push_back(q[i++]);
            } else {
                i += 1 + g.below(10);
            }
        }
        if (r.empty()) r.push_back(static_cast<std::uint8_t>(g.below(4)));
        if (r == q) r[len / 2] = static_cast<std::uint8_t>((r[len / 2] + 1) & 3);
        Seq qc(q.size()), rc(r.size());
        for (std::size_t i = 0; i < q.size(); ++i) qc[i] = acgt_code[q[i]];
        for (std::size_t i = 0; i < r.size(); ++i) rc[i] = acgt_code[r[i]];
        out.emplace_back(std::move(qc), std::move(rc));
    }
    return out;
}

// ---------------------------------------------------------------------------
// Workloads

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

struct SynthSpec {
    std::uint64_t seed;
    std::size_t pairs, min_len, max_len;
    double divergence;
};

SynthSpec synth_spec(const std::string& name, const Options& o) {
    if (name == "syn1m5") return {o.seed, 1, o.syn_length, o.syn_length, 0.05};
    if (name == "syn1m20") return {o.seed + 1, 1, o.syn_length, o.syn_length, 0.20};
    return {o.seed + 2, o.bulk_pairs, 5000, 50000, 0.10};  // bulk2000
}

bool is_synthetic(const std::string& name) { return name == "syn1m5" || name == "syn1m20" || name == "bulk2000"; }

/// The record pair (A[i], B[i]) of two FASTA files whose lengths are nearest (ta, tb).
void pick_record_pair(Workload& w, const std::string& a_path, const std::string& b_path, std::size_t ta,
                      std::size_t tb) {
    auto a = read_fasta(a_path);
    auto b = read_fasta(b_path);
    const std::size_t n = std::min(a.size(), b.size());
    if (n == 0) throw std::runtime_error("no records in " + a_path + " / " + b_path);
    std::size_t best = 0;
    auto dist = [&](std::size_t i) {
        const auto d = [](std::size_t x, std::size_t y) { return x > y ? x - y : y - x; };
        return d(a[i].codes.size(), ta) + d(b[i].codes.size(), tb);
    };
    for (std::size_t i = 1; i < n; ++i)
        if (dist(i) < dist(best)) best = i;
    w.description += ": record " + std::to_string(best + 1) + " (" + a[best].name + " " +
                     std::to_string(a[best].codes.size()) + " x " + b[best].name + " " +
                     std::to_string(b[best].codes.size()) + ")";
    w.q.push_back(std::move(a[best].codes));
    w.r.push_back(std::move(b[best].codes));
}

Workload load(const std::string& name, const Options& o) {
    Workload w;
    w.name = name;
    const std::string dir = o.data + "/dna/long/";
    if (name == "mito") {
        auto recs = read_fasta(dir + "mito_human_vs_orangutan.fa");
        if (recs.size() < 2) throw std::runtime_error("mito_human_vs_orangutan.fa: fewer than 2 records");
        w.description = "mito: " + recs[0].name + " " + std::to_string(recs[0].codes.size()) + " x " + recs[1].name +
                        " " + std::to_string(recs[1].codes.size());
        w.q.push_back(std::move(recs[0].codes));
        w.r.push_back(std::move(recs[1].codes));
    } else if (name == "hp50") {
        w.description = "hp50 H. pylori G27 vs SJM180";
        pick_record_pair(w, dir + "hpyloriG27_vs_SJM180.A.fa", dir + "hpyloriG27_vs_SJM180.B.fa", 50000, 54525);
    } else if (name == "hp100") {
        w.description = "hp100 H. pylori G27 vs SJM180";
        pick_record_pair(w, dir + "hpyloriG27_vs_SJM180.A.fa", dir + "hpyloriG27_vs_SJM180.B.fa", 100000, 100000);
    } else if (name == "sa200") {
        w.description = "sa200 S. aureus N315 vs RF122";
        pick_record_pair(w, dir + "saureusN315_vs_RF122.A.fa", dir + "saureusN315_vs_RF122.B.fa", 200000, 200000);
    } else if (name == "real1m") {
        Seq q, r;
        for (const char* set : {"saureusN315_vs_RF122", "hpyloriG27_vs_SJM180"}) {
            for (const auto& rec : read_fasta(dir + set + ".A.fa")) q.insert(q.end(), rec.codes.begin(), rec.codes.end());
            for (const auto& rec : read_fasta(dir + set + ".B.fa")) r.insert(r.end(), rec.codes.begin(), rec.codes.end());
        }
        w.description = "real1m: the S. aureus then H. pylori windows joined, " + std::to_string(q.size()) + " x " +
                        std::to_string(r.size());
        w.q.push_back(std::move(q));
        w.r.push_back(std::move(r));
    } else {
        const SynthSpec s = synth_spec(name, o);
        for (auto& [q, r] : generate_pairs(s.seed, s.pairs, s.min_len, s.max_len, s.divergence)) {
            w.q.push_back(std::move(q));
            w.r.push_back(std::move(r));
        }
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s synthetic: %zu pair(s) of %zu-%zu, %.0f%% divergence, seed %llu",
                      name.c_str(), s.pairs, s.min_len, s.max_len, s.divergence * 100,
                      static_cast<unsigned long long>(s.seed));
        w.description = buf;
        std::snprintf(buf, sizeof buf,
                      " (= scripts/gen_long_pairs.py --pairs %zu --min-length %zu --max-length %zu --divergence %g "
                      "--seed %llu)",
                      s.pairs, s.min_len, s.max_len, s.divergence, static_cast<unsigned long long>(s.seed));
        w.description += buf;
    }
    w.finish();
    return w;
}

void write_fasta(const std::string& path, const std::vector<Seq>& seqs, char prefix) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write " + path);
    std::string line;
    for (std::size_t i = 0; i < seqs.size(); ++i) {
        out << '>' << prefix << i << '\n';
        for (std::size_t k = 0; k < seqs[i].size(); k += 80) {
            line.clear();
            for (std::size_t j = k; j < std::min(seqs[i].size(), k + 80); ++j) line.push_back(dna_letters[seqs[i][j]]);
            out << line << '\n';
        }
    }
}

// ---------------------------------------------------------------------------
// Measurements

[[maybe_unused]] double median(std::vector<double> v) {
    if (v.empty()) return std::nan("");
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double peak_rss_mib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

double current_rss_mib() {
    std::ifstream in("/proc/self/statm");
    std::size_t size = 0, resident = 0;
    in >> size >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

std::string fmt(double v, const char* f = "%.2f") {
    if (std::isnan(v)) return "-";
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

double gcups(double cells, double seconds) { return seconds > 0 ? cells / seconds / 1e9 : std::nan(""); }

// ---------------------------------------------------------------------------
// WFA2 peer, in a forked child under a time cap

struct PeerResult {
    std::string status = "-";          // "ok", "timeout", "error: ...", "-"
    std::vector<std::int64_t> scores;  // converted to our scoring, pairs done in order
    double time_s = 0;                 // alignment time of the pairs done (child's clock)
};

struct PeerRecord {
    std::int64_t score;  // our score, or INT64_MIN on a WFA failure
    double seconds;
    std::int32_t status;
    std::int32_t pad;
};

#ifdef GPUALIGN_HAVE_WFA2
/// Runs in the child: BiWFA per pair, one record per pair down `fd`.
[[noreturn]] void wfa_child(int fd, const Workload& w, const Options& o, bool score_only) {
    const int M = o.match, X = o.mismatch, O = o.gap_open, E = o.gap_extend;
    wfa::WFAlignerGapAffine aligner(2 * (M + X), 2 * O, 2 * E + M,
                                    score_only ? wfa::WFAligner::Score : wfa::WFAligner::Alignment,
                                    wfa::WFAligner::MemoryUltralow);
    aligner.setHeuristicNone();
    std::string q, r;
    for (std::size_t i = 0; i < w.q.size(); ++i) {
        q.resize(w.q[i].size());
        r.resize(w.r[i].size());
        for (std::size_t k = 0; k < q.size(); ++k) q[k] = dna_letters[w.q[i][k]];
        for (std::size_t k = 0; k < r.size(); ++k) r[k] = w.r[i][k] == 3 ? 'n' : dna_letters[w.r[i][k]];
        const auto t0 = Clock::now();
        const int st = aligner.alignEnd2End(q.data(), static_cast<int>(q.size()), r.data(), static_cast<int>(r.size()));
        PeerRecord rec{};
        rec.seconds = seconds_since(t0);
        rec.status = st;
        if (st == 0) {
            // WFA2 reports the score as the negated penalty (<= 0); take |D| either way.
            const std::int64_t d = std::llabs(static_cast<long long>(aligner.getAlignmentScore()));
            const std::int64_t twice = static_cast<std::int64_t>(M) * static_cast<std::int64_t>(q.size() + r.size()) - d;
            rec.score = twice % 2 ? INT64_MIN : twice / 2;  // odd: conversion broken
        } else {
            rec.score = INT64_MIN;
        }
        const char* p = reinterpret_cast<const char*>(&rec);
        std::size_t left = sizeof rec;
        while (left) {
            const ssize_t n = ::write(fd, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) _exit(3);
            p += n, left -= static_cast<std::size_t>(n);
        }
    }
    _exit(0);
}
#endif

PeerResult run_wfa(const Workload& w, const Options& o, bool score_only) {
    PeerResult res;
#ifndef GPUALIGN_HAVE_WFA2
    (void)w, (void)o, (void)score_only;
    res.status = "error: built without WFA2";
    return res;
#else
    int fds[2];
    if (pipe(fds) != 0) {
        res.status = std::string("error: pipe: ") + std::strerror(errno);
        return res;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        res.status = std::string("error: fork: ") + std::strerror(errno);
        close(fds[0]), close(fds[1]);
        return res;
    }
    if (pid == 0) {
        close(fds[0]);
        // Die with the bench (e.g. killed by timeout(1)) rather than run on.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(4);
        wfa_child(fds[1], w, o, score_only);
    }
    close(fds[1]);
    const auto t0 = Clock::now();
    std::string buf;
    bool timed_out = false;
    for (;;) {
        const double left = o.peer_timeout_s - seconds_since(t0);
        if (left <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int pr = poll(&p, 1, static_cast<int>(std::min(left * 1000 + 1, 1e9)));
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;  // re-checks the deadline
        char chunk[4096];
        const ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child is done (or died)
        buf.append(chunk, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    if (timed_out) kill(pid, SIGKILL);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    std::int32_t wfa_fail = 0;
    for (std::size_t k = 0; k + sizeof(PeerRecord) <= buf.size(); k += sizeof(PeerRecord)) {
        PeerRecord rec;
        std::memcpy(&rec, buf.data() + k, sizeof rec);
        res.scores.push_back(rec.score);
        res.time_s += rec.seconds;
        if (rec.status != 0) wfa_fail = rec.status;
    }
    if (timed_out) {
        res.status = "timeout";
    } else if (WIFSIGNALED(wstatus)) {
        res.status = "error: child killed by signal " + std::to_string(WTERMSIG(wstatus));
    } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        res.status = "error: child exit " + std::to_string(WEXITSTATUS(wstatus));
    } else if (wfa_fail != 0) {
        res.status = "error: WFA status " + std::to_string(wfa_fail);
    } else if (res.scores.size() != w.q.size()) {
        res.status = "error: " + std::to_string(res.scores.size()) + " of " + std::to_string(w.q.size()) + " results";
    } else {
        res.status = "ok";
    }
    return res;
#endif
}

// ---------------------------------------------------------------------------
// GPU

#ifdef GPUALIGN_HAVE_CUDA
struct GpuRun {
    std::vector<AlignmentResult> results;
    std::string error;
    int runs = 0;
    double fwd_ms = 0, total_ms = 0, wall_s = 0, total_cells = 0;
    double locate_ms = 0;  // the part of fwd_ms finding the local best cell's column (median)
    std::size_t peak = 0;
    int workers = 1;
    bool runs_equal = true;
    double pairs_ms = 0, launches_ms = 0, walks_ms = 0, allocs_ms = 0, allocs = 0;  // align_many: host wall summed over workers (last run)
    double pinned_ms = 0, pinned = 0, setup_ms = 0, tail_ms = 0;                     // align_many (last run)
};

GpuRun run_gpu(gpu::LongEngine& e, const Workload& w, int runs) {
    GpuRun g;
    std::vector<double> fwd, tot, wall, cells, loc;
    try {
        for (int k = 0; k < runs; ++k) {
            std::vector<AlignmentResult> res;
            res.reserve(w.q.size());
            double f = 0, t = 0, s = 0, c = 0, l = 0;
            if (w.q.size() > 1) {  // many pairs: all at once (align_many); device times are summed over streams
                std::vector<gpu::LongPair> pairs;
                for (std::size_t i = 0; i < w.q.size(); ++i) pairs.push_back({w.q[i], w.r[i]});
                res = e.align_many(pairs);
                const gpu::LongEngineStats st = e.last_stats();
                f = st.forward_ms, t = st.total_ms, s = st.wall_s, c = static_cast<double>(st.total_cells);
                l = st.locate_ms;
                g.peak = std::max(g.peak, st.peak_device_bytes);
                g.workers = st.workers;
                g.pairs_ms = st.pairs_ms, g.launches_ms = st.launches_ms, g.walks_ms = st.walks_ms, g.allocs_ms = st.allocs_ms,
                g.allocs = static_cast<double>(st.allocs);
                g.pinned_ms = st.pinned_ms, g.pinned = static_cast<double>(st.pinned), g.setup_ms = st.setup_ms,
                g.tail_ms = st.tail_ms;
            }
            for (std::size_t i = 0; w.q.size() == 1 && i < w.q.size(); ++i) {
                res.push_back(e.align(w.q[i], w.r[i]));
                const gpu::LongEngineStats st = e.last_stats();
                f += st.forward_ms, t += st.total_ms, s += st.wall_s, c += static_cast<double>(st.total_cells);
                l += st.locate_ms;
                g.peak = std::max(g.peak, st.peak_device_bytes);
            }
            fwd.push_back(f), tot.push_back(t), wall.push_back(s), cells.push_back(c), loc.push_back(l);
            if (k == 0) g.results = std::move(res);
            else if (res != g.results) g.runs_equal = false;
            ++g.runs;
        }
    } catch (const std::exception& ex) {
        g.error = ex.what();
    }
    g.fwd_ms = median(fwd), g.total_ms = median(tot), g.wall_s = median(wall), g.total_cells = median(cells);
    g.locate_ms = median(loc);
    return g;
}
#endif

// ---------------------------------------------------------------------------
// Output

const char* csv_header =
    "date,device,workload,mode,output,query_len,ref_len,pairs,forward_ms,total_ms,wall_s,forward_gcups,total_gcups,"
    "wall_gcups,peak_gpu_mib,host_rss_mib,peer,peer_time_s,peer_score,match,"
    "cells,total_cells,runs,gpu_status,check,score,peer_status,cpu_time_s,cpu_gcups,cpu_match\n";

std::string csv_quote(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += '"';
        o += c;
    }
    return o + '"';
}

void write_csv_row(std::ofstream& out, const std::string& date, const std::string& device, const Row& r) {
    auto num = [](double v, const char* f = "%.6g") { return std::isnan(v) ? std::string() : fmt(v, f); };
    const std::string match = r.peer_match != "-" ? r.peer_match : r.cpu_match;
    out << date << ',' << csv_quote(device) << ',' << r.workload << ',' << r.mode << ',' << r.output << ',' << r.qlen
        << ',' << r.rlen << ',' << r.pairs << ',' << num(r.fwd_ms, "%.3f") << ',' << num(r.total_ms, "%.3f") << ','
        << num(r.wall_s, "%.6f") << ',' << num(gcups(r.cells, r.fwd_ms * 1e-3), "%.2f") << ','
        << num(gcups(r.cells, r.total_ms * 1e-3), "%.2f") << ',' << num(gcups(r.cells, r.wall_s), "%.2f") << ','
        << num(r.peak_gpu_mib, "%.1f") << ',' << fmt(r.rss_mib, "%.1f") << ',' << r.peer << ','
        << num(r.peer_time_s, "%.3f") << ',' << r.peer_score << ',' << match << ',' << fmt(r.cells, "%.0f") << ','
        << num(r.total_cells, "%.0f") << ',' << r.runs << ',' << csv_quote(r.gpu) << ',' << csv_quote(r.check) << ','
        << (r.have_score ? std::to_string(r.score) : std::string()) << ',' << csv_quote(r.peer_status)
        << ',' << num(r.cpu_s, "%.3f") << ',' << num(gcups(r.cells, r.cpu_s), "%.2f") << ',' << r.cpu_match << '\n';
    out.flush();
}

void print_row(const Row& r) {
    std::printf("%-9s %-6s %-10s %8s %8s %8s %9s %8s %8s %6s | %-7s %8s %-9s | %8s %-8s\n", r.workload.c_str(),
                r.mode.c_str(), r.output.c_str(), fmt(gcups(r.cells, r.fwd_ms * 1e-3), "%.1f").c_str(),
                fmt(gcups(r.cells, r.total_ms * 1e-3), "%.1f").c_str(), fmt(gcups(r.cells, r.wall_s), "%.1f").c_str(),
                fmt(r.wall_s, "%.3f").c_str(), fmt(r.peak_gpu_mib, "%.0f").c_str(), fmt(r.rss_mib, "%.0f").c_str(),
                r.check == "ok" ? "ok" : r.check == "-" ? "-" : "BAD", r.peer == "-" ? "-" : "wfa2",
                fmt(r.peer_time_s, "%.2f").c_str(), r.peer_match.c_str(), fmt(r.cpu_s, "%.2f").c_str(),
                r.cpu_match.c_str());
}

void print_header() {
    std::printf("%-9s %-6s %-10s %8s %8s %8s %9s %8s %8s %6s | %-7s %8s %-9s | %8s %-8s\n", "workload", "mode", "output",
                "fwdGCUPS", "totGCUPS", "wallGCUP", "wall s", "GPU MiB", "RSS MiB", "check", "peer", "peer s",
                "peer cmp", "cpu s", "cpu cmp");
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const ScoringScheme scheme = make_dna_scheme(o.match, o.mismatch, o.gap_open, o.gap_extend, -o.mismatch);

    if (!o.dump_fasta.empty()) {
        for (const auto& name : o.workloads) {
            if (!is_synthetic(name) && name != "real1m") continue;
            const Workload w = load(name, o);
            write_fasta(o.dump_fasta + "/" + name + "_q.fa", w.q, 'q');
            write_fasta(o.dump_fasta + "/" + name + "_r.fa", w.r, 'r');
            std::printf("%s -> %s/%s_{q,r}.fa\n", w.description.c_str(), o.dump_fasta.c_str(), name.c_str());
        }
        return 0;
    }

    const int ndev = gpu::device_count();
    std::string device = "none";
    if (ndev > 0) {
        try {
            device = gpu::device_description(0);
        } catch (const std::exception& e) {
            device = std::string("unknown (") + e.what() + ")";
        }
    }
    bool use_gpu = ndev > 0;
#ifndef GPUALIGN_HAVE_CUDA
    use_gpu = false;
#endif
#ifdef GPUALIGN_HAVE_CUDA
    if (o.probe && use_gpu) {
        // One region per pair (score-only global is the forward pass alone),
        // 4 rows a lane forced: stripes of 128 rows, one column a step.
        std::printf("probe: shape, best forward ms of 3, ms / (cols + 31): the time per wavefront step if the\n"
                    "stripes added no lag (one stripe of 128 rows: exactly that); for many stripes,\n"
                    "lag = (ms / step time - cols) / (stripes - 1); 4 rows a lane\n");
        gpu::LongEngineOptions probe_options;
        probe_options.rows_per_lane = 4;
        gpu::LongEngine e(scheme, AlignMode::global, true, probe_options);
        std::uint64_t x = 88172645463325252ull;
        auto rnd = [&](std::size_t n) {
            Seq s(n);
            for (auto& c : s) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                c = static_cast<std::uint8_t>(std::array<int, 4>{0, 1, 2, 4}[x & 3]);
            }
            return s;
        };
        const std::pair<std::size_t, std::size_t> shapes[] = {{128, 200000}, {512, 200000}, {4096, 200000},
                                                              {60000, 2000}, {60000, 20000}, {50000, 54525}};
        for (auto [m, n] : shapes) {
            const Seq q = rnd(m), r = rnd(n);
            e.align(q, r);  // warm-up
            double best = 1e30;
            for (int k = 0; k < 3; ++k) {
                e.align(q, r);
                best = std::min(best, e.last_stats().forward_ms);
            }
            std::printf("probe %7zu x %7zu (%5.0f stripes): %8.3f ms, %7.1f ns per step of cols + 31\n", m, n,
                        std::ceil(m / 128.0), best, best * 1e6 / (n + 31));
        }
        return 0;
    }
#endif
    std::printf("gpualign_long_bench: device %s; scoring %d/%d/%d+%d; host %u cores; date %s\n", device.c_str(),
                o.match, o.mismatch, o.gap_open, o.gap_extend, std::thread::hardware_concurrency(), utc_now().c_str());
    if (!use_gpu) {
        std::printf("gpualign_long_bench: no CUDA device visible%s; %s\n",
#ifdef GPUALIGN_HAVE_CUDA
                    "",
#else
                    " (built without CUDA)",
#endif
                    o.cpu ? "running the CPU backend and the WFA2 peer only" : "nothing to do without --cpu");
        if (!o.cpu) return 0;
    }
    std::fflush(stdout);

    std::ofstream csv;
    if (!o.csv.empty()) {
        csv.open(o.csv);
        if (!csv) {
            std::fprintf(stderr, "gpualign_long_bench: cannot write %s\n", o.csv.c_str());
            return 1;
        }
        csv << csv_header;
    }
    const std::string date = utc_now();

#ifdef GPUALIGN_HAVE_CUDA
    // One engine per (mode, score-only), built on first use, kept for the run.
    std::map<std::pair<int, bool>, std::unique_ptr<gpu::LongEngine>> engines;
    std::size_t engine_cap = o.gpu_memory;
    if (use_gpu && engine_cap == 0) {
        std::size_t free_b = 0, total_b = 0;
        if (cudaSetDevice(0) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
            engine_cap = static_cast<std::size_t>(0.9 * static_cast<double>(free_b) / (2.0 * o.modes.size()));
            std::printf("device memory: %.0f MiB free of %.0f MiB; cap per engine %.0f MiB (%zu engines)\n",
                        free_b / 1048576.0, total_b / 1048576.0, engine_cap / 1048576.0, 2 * o.modes.size());
        } else {
            (void)cudaGetLastError();
        }
    }
    auto engine_for = [&](AlignMode mode, bool score_only) -> gpu::LongEngine& {
        auto& slot = engines[{static_cast<int>(mode), score_only}];
        if (!slot) {
            gpu::LongEngineOptions opt;
            opt.gpu_memory_limit = engine_cap;
            opt.workers = o.workers;
            opt.rows_per_lane = o.rows_per_lane;
            opt.leaf_batch = o.leaf_batch;
            opt.tile_batch = o.tile_batch;
            if (o.fan_out > 0) opt.plan.fan_out = o.fan_out;
            opt.walk_on_host = o.walk_on_host;
            opt.row_peaks = !o.no_peaks;
            if (o.leaf_cells) opt.plan.leaf_cells = o.leaf_cells;
            if (o.leaf_band > 0) opt.plan.leaf_band = o.leaf_band;
            if (o.tile_band >= 0) opt.plan.tile_band = o.tile_band;
            const auto t0 = Clock::now();
            slot = std::make_unique<gpu::LongEngine>(scheme, mode, score_only, opt);
            const double build_s = seconds_since(t0);
            auto warm = generate_pairs(o.seed + 99, 1, 8192, 8192, 0.10);
            const auto t1 = Clock::now();
            (void)slot->align(warm[0].first, warm[0].second);
            std::printf("  engine %s %s: built in %.3f s, warm-up (8192 x %zu) %.3f s\n", to_string(mode),
                        score_only ? "score-only" : "cigar", build_s, warm[0].second.size(), seconds_since(t1));
        }
        return *slot;
    };
#endif

    std::vector<Row> rows;
    for (const auto& name : o.workloads) {
        Workload w;
        try {
            const auto t0 = Clock::now();
            w = load(name, o);
            std::printf("\n%s\n  %zu pair(s), %.4g cells, loaded in %.2f s\n", w.description.c_str(), w.q.size(),
                        w.cells, seconds_since(t0));
        } catch (const std::exception& e) {
            std::printf("\nskipping workload %s: %s\n", name.c_str(), e.what());
            continue;
        }
        std::fflush(stdout);
        const bool repeat = w.cells <= repeat_max_cells;
        [[maybe_unused]] const int runs = repeat ? o.runs : 1;
        const bool cpu_here = o.cpu && w.cells <= o.cpu_max_cells;
        if (o.cpu && !cpu_here)
            std::printf("  CPU backend skipped: %.3g cells > --cpu-max-cells %.3g\n", w.cells, o.cpu_max_cells);
        for (AlignMode mode : o.modes) {
            for (bool score_only : {true, false}) {
                Row r;
                r.workload = w.name;
                r.mode = to_string(mode);
                r.output = score_only ? "score-only" : "cigar";
                r.qlen = w.qlen, r.rlen = w.rlen, r.pairs = w.q.size(), r.cells = w.cells;
                std::vector<AlignmentResult> ours;  // GPU results, else CPU results
                std::vector<std::string> problems;
#ifdef GPUALIGN_HAVE_CUDA
                if (use_gpu) {
                    GpuRun g;
                    try {
                        g = run_gpu(engine_for(mode, score_only), w, runs);
                    } catch (const std::exception& e) {
                        g.error = e.what();
                    }
                    if (!g.error.empty()) {
                        r.gpu = "error: " + g.error;
                        r.check = "gpu error";
                        std::printf("  GPU %s %s: ERROR %s\n", r.mode.c_str(), r.output.c_str(), g.error.c_str());
                    } else {
                        r.gpu = "ok";
                        r.runs = g.runs;
                        r.fwd_ms = g.fwd_ms, r.total_ms = g.total_ms, r.wall_s = g.wall_s;
                        r.total_cells = g.total_cells;
                        r.peak_gpu_mib = static_cast<double>(g.peak) / 1048576.0;
                        if (!g.runs_equal) problems.push_back("runs differ");
                        if (!score_only) {
                            std::size_t bad = 0;
                            for (std::size_t i = 0; i < w.q.size(); ++i) {
                                try {
                                    if (!g.results[i].has_cigar ||
                                        rescore_cigar(g.results[i], w.q[i], w.r[i], scheme) != g.results[i].score)
                                        ++bad;
                                } catch (const std::exception&) {
                                    ++bad;
                                }
                            }
                            if (bad) problems.push_back(std::to_string(bad) + " CIGAR(s) do not re-score");
                        }
                        r.check = problems.empty() ? "ok" : "";
                        for (const auto& p : problems) r.check += (r.check.empty() ? "" : "; ") + p;
                        ours = std::move(g.results);
                        if (g.workers > 1)
                            std::printf("  GPU align_many: %d pairs at once; forward and total ms below are summed "
                                        "over streams, wall is the rate\n",
                                        g.workers);
                        if (g.workers > 1)
                            std::printf("  GPU align_many host time per pair: %.2f ms, of which region launches %.2f ms, "
                                        "leaf walks %.2f ms, other %.2f ms (%.1f workers busy on average); "
                                        "device allocations and frees %.0f, %.2f ms per pair, pinned %.0f, %.2f ms "
                                        "per pair (in the parts above); setup %.1f ms, tail %.1f ms\n",
                                        g.pairs_ms / w.q.size(), g.launches_ms / w.q.size(), g.walks_ms / w.q.size(),
                                        (g.pairs_ms - g.launches_ms - g.walks_ms) / w.q.size(),
                                        g.pairs_ms * 1e-3 / std::max(1e-9, g.wall_s), g.allocs,
                                        g.allocs_ms / w.q.size(), g.pinned, g.pinned_ms / w.q.size(), g.setup_ms,
                                        g.tail_ms);
                        std::printf("  GPU %-6s %-10s runs %d: forward %.2f ms (%.1f GCUPS; locate %.2f ms), total %.2f ms "
                                    "(%.1f GCUPS, %.3fx cells), wall %.3f s (%.1f GCUPS), peak device %.1f MiB, check %s\n",
                                    r.mode.c_str(), r.output.c_str(), r.runs, r.fwd_ms,
                                    gcups(w.cells, r.fwd_ms * 1e-3), g.locate_ms, r.total_ms, gcups(w.cells, r.total_ms * 1e-3),
                                    r.total_cells / w.cells, r.wall_s, gcups(w.cells, r.wall_s), r.peak_gpu_mib,
                                    r.check.c_str());
                    }
                    std::fflush(stdout);
                }
#endif
                if (cpu_here) {
                    LongAlignOptions copt;
                    copt.threads = o.cpu_threads;
                    std::vector<AlignmentResult> cres;
                    cres.reserve(w.q.size());
                    double secs = 0;
                    try {
                        for (std::size_t i = 0; i < w.q.size(); ++i) {
                            const auto t0 = Clock::now();
                            cres.push_back(align_pair_long(w.q[i], w.r[i], scheme, mode, score_only, copt));
                            secs += seconds_since(t0);
                        }
                        r.cpu_s = secs;
                        if (!ours.empty()) {
                            std::size_t diff = 0;
                            for (std::size_t i = 0; i < ours.size(); ++i) diff += !(ours[i] == cres[i]);
                            r.cpu_match = diff ? "MISMATCH" : "ok";
                            if (diff)
                                std::printf("  CPU MISMATCH: %zu of %zu pairs differ from the GPU (first score GPU %d "
                                            "CPU %d)\n",
                                            diff, ours.size(), ours[0].score, cres[0].score);
                        } else {
                            ours = std::move(cres);
                        }
                        std::printf("  CPU %-6s %-10s %d threads: %.3f s (%.2f GCUPS) %s\n", r.mode.c_str(),
                                    r.output.c_str(), o.cpu_threads > 0 ? o.cpu_threads : omp_get_num_procs(), secs,
                                    gcups(w.cells, secs), r.cpu_match.c_str());
                    } catch (const std::exception& e) {
                        r.cpu_match = "error";
                        std::printf("  CPU %s %s: ERROR %s\n", r.mode.c_str(), r.output.c_str(), e.what());
                    }
                    std::fflush(stdout);
                }
                if (!ours.empty()) {
                    r.have_score = true;
                    for (const auto& a : ours) r.score += a.score;
                }
                if (o.peer && mode == AlignMode::global) {
                    const PeerResult p = run_wfa(w, o, score_only);
                    r.peer = "wfa2-biwfa";
                    r.peer_status = p.status;
                    r.peer_time_s = p.status == "timeout" ? o.peer_timeout_s : p.time_s;
                    std::int64_t sum = 0;
                    bool bad_conv = false;
                    for (auto s : p.scores) {
                        if (s == INT64_MIN) bad_conv = true;
                        else sum += s;
                    }
                    std::size_t diff = 0;
                    for (std::size_t i = 0; i < p.scores.size() && i < ours.size(); ++i)
                        diff += p.scores[i] != ours[i].score;
                    if (p.status == "ok") {
                        r.peer_score = std::to_string(sum);
                        r.peer_match = ours.empty() ? "-" : (diff || bad_conv) ? "MISMATCH" : "ok";
                    } else if (p.status == "timeout") {
                        r.peer_score = "timeout(" + std::to_string(p.scores.size()) + "/" + std::to_string(w.q.size()) + ")";
                        r.peer_match = diff ? "MISMATCH" : "timeout";
                    } else {
                        r.peer_score = "error";
                        r.peer_match = diff ? "MISMATCH" : "error";
                    }
                    std::printf("  WFA2 BiWFA %-10s: %s, %zu of %zu pair(s) in %.3f s%s, score %s (ours %s)%s%s\n",
                                r.output.c_str(), p.status.c_str(), p.scores.size(), w.q.size(), p.time_s,
                                p.status == "timeout" ? (" (cap " + fmt(o.peer_timeout_s, "%.0f") + " s)").c_str() : "",
                                r.peer_score.c_str(), r.have_score ? std::to_string(r.score).c_str() : "-",
                                diff ? (", MISMATCH on " + std::to_string(diff) + " pair(s)").c_str() : "",
                                bad_conv ? ", odd WFA distance (conversion broken)" : "");
                    std::fflush(stdout);
                }
                r.rss_mib = peak_rss_mib();
                rows.push_back(r);
                if (csv.is_open()) write_csv_row(csv, date, device, r);
            }
        }
        std::printf("  host RSS after %s: peak %.1f MiB, current %.1f MiB\n", w.name.c_str(), peak_rss_mib(),
                    current_rss_mib());
        std::fflush(stdout);
    }

    std::printf("\nSummary (device %s; GCUPS = query_len*ref_len / time, summed over pairs; peer = WFA2 BiWFA, "
                "global only, cap %.0f s)\n",
                device.c_str(), o.peer_timeout_s);
    print_header();
    bool mismatch = false;
    for (const Row& r : rows) {
        print_row(r);
        mismatch |= r.peer_match == "MISMATCH" || r.cpu_match == "MISMATCH" || (r.check != "ok" && r.check != "-");
    }
    if (!o.csv.empty()) std::printf("CSV: %s\n", o.csv.c_str());
    if (mismatch) std::printf("gpualign_long_bench: MISMATCH or failed check above\n");
    return mismatch ? 1 : 0;
}
