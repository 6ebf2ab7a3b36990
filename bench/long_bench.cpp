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
//   sa_set    the 10 S. aureus window pairs of dna/long (10-200 kb) in one set
//   hp_set    the 7 H. pylori window pairs (10-100 kb) in one set
//   mixed_set 23 pairs of 10-500 kb in one set: sa_set, hp_set, the
//             mitochondria, the first 8 S. aureus and all 7 H. pylori windows
//             joined (361 and 262 kb), phage lambda (genomes/) against 1% and
//             two 15% mutants, and the first 500 kb of the joined S. aureus
//             windows against a 2% mutant (seeds --seed + 3 .. + 6)
// A set (and bulk2000) runs as one align_many() call; a set is also run pair
// by pair with align() ("solo sum": the sum of the pairs' walls and kernel
// times), the bound a set's run must not exceed.
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
// scripts/gen_long_pairs.py (splitmix64; generate_pairs in long_bench_workloads.cpp).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <omp.h>

#include "gpualign/align/long_aligner.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/gpu/long_engine.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"
#include "long_bench.hpp"

#ifdef GPUALIGN_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifndef GPUALIGN_SHARED_DATA
#define GPUALIGN_SHARED_DATA ""
#endif

namespace {

using namespace gpualign;
using namespace gpualign::long_bench;

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
                 "  --workloads LIST     comma list of mito,hp50,hp100,sa200,syn1m5,syn1m20,real1m,bulk2000,\n"
                 "                       sa_set,hp_set,mixed_set (default all)\n"
                 "  --modes LIST         global,local (default both)\n"
                 "  --runs N             repetitions of the workloads of <= 1.1e12 cells, median reported (3)\n"
                 "  --csv FILE           one row per workload x mode x output\n"
                 "  --data DIR           shared data directory (default $GPUALIGN_SHARED_DATA or %s)\n"
                 "  --workers N          pairs align_many runs at once (LongEngineOptions::workers; 0 = default)\n"
                 "  --solo-min-cells X   LongEngineOptions::solo_min_cells (0 = tuning table; inf = none alone)\n"
                 "  --solo-workers N     LongEngineOptions::solo_workers (0 = tuning table; 1 = one after another)\n"
                 "  --solo-flow-share X  LongEngineOptions::solo_flow_share (0 = tuning table)\n"
                 "  --no-solo-priorities LongEngineOptions::solo_priorities = false\n"
                 "  --no-solo-sum        do not also run a set's pairs one by one\n"
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
                 "  --dump-fasta DIR     write the selected synthetic workloads, sets and real1m as FASTA (NAME_q.fa,\n"
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
            else if (a == "--solo-min-cells") {
                const std::string v = need(i);
                o.solo_min_cells = v == "inf" ? UINT64_MAX : static_cast<std::uint64_t>(std::stod(v));
            } else if (a == "--solo-workers") o.solo_workers = std::max(0, std::stoi(need(i)));
            else if (a == "--solo-flow-share") o.solo_flow_share = std::stod(need(i));
            else if (a == "--no-solo-priorities") o.solo_priorities = false;
            else if (a == "--no-solo-sum") o.solo_sum = false;
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
    static const std::vector<std::string> known{"mito",    "hp50",     "hp100",  "sa200",  "syn1m5",   "syn1m20",
                                                "real1m",  "bulk2000", "sa_set", "hp_set", "mixed_set"};
    for (const auto& w : o.workloads)
        if (std::find(known.begin(), known.end(), w) == known.end()) {
            std::fprintf(stderr, "gpualign_long_bench: unknown workload %s\n", w.c_str());
            usage(2);
        }
    if (o.modes.empty()) usage(2);
    return o;
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

/// Runs each pair of set `w` alone (align()) and prints the sums of their
/// walls and kernel times against the set's run `r`, and whether every
/// result equals the set's (`set_results`); a difference or an error
/// becomes r.check's (the run then ends with status 1).
void print_solo_sum(gpu::LongEngine& e, const Workload& w, const std::vector<AlignmentResult>& set_results, Row& r) {
    double wall = 0, kernels = 0;
    std::size_t differ = 0;
    try {
        for (std::size_t i = 0; i < w.q.size(); ++i) {
            const AlignmentResult a = e.align(w.q[i], w.r[i]);
            wall += e.last_stats().wall_s;
            kernels += e.last_stats().total_ms;
            differ += i < set_results.size() && !(a == set_results[i]);
        }
    } catch (const std::exception& ex) {
        std::printf("  GPU solo sum: ERROR %s\n", ex.what());
        r.check = "solo sum: " + std::string(ex.what());
        return;
    }
    if (differ) r.check = "solo results differ on " + std::to_string(differ) + " pairs";
    std::printf("  GPU %-6s %-10s solo sum: %zu pairs one by one: wall %.3f s (%.1f GCUPS), kernels %.3f s; "
                "the set's wall %.3f s = %.2fx the solo sum; results %s\n",
                r.mode.c_str(), r.output.c_str(), w.q.size(), wall, gcups(w.cells, wall), kernels * 1e-3, r.wall_s,
                r.wall_s / wall, differ ? ("DIFFER on " + std::to_string(differ) + " pairs").c_str() : "equal");
}
#endif

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const ScoringScheme scheme = make_dna_scheme(o.match, o.mismatch, o.gap_open, o.gap_extend, -o.mismatch);

    if (!o.dump_fasta.empty()) try {
        for (const auto& name : o.workloads) {
            if (!is_synthetic(name) && name != "real1m" && !is_set(name)) continue;
            const Workload w = load(name, o);
            write_fasta(o.dump_fasta + "/" + name + "_q.fa", w.q, 'q');
            write_fasta(o.dump_fasta + "/" + name + "_r.fa", w.r, 'r');
            std::printf("%s -> %s/%s_{q,r}.fa\n", w.description.c_str(), o.dump_fasta.c_str(), name.c_str());
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpualign_long_bench: %s\n", e.what());
        return 1;
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
            opt.solo_min_cells = o.solo_min_cells;
            opt.solo_workers = o.solo_workers;
            opt.solo_flow_share = o.solo_flow_share;
            opt.solo_priorities = o.solo_priorities;
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
                        if (is_set(w.name) && o.solo_sum) print_solo_sum(engine_for(mode, score_only), w, ours, r);
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
