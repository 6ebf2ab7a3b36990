// gpualign_bench — throughput of gpualign::gpu::BatchEngine (issue 3).
//
// Workloads:
//   a  100,000 synthetic DNA pairs of 512 x 512, the ref a ~10% divergent copy
//      of the query (seeded), match 2 / mismatch 3 / gap 5+2, N = -3
//   b  the 10,000 real pacbio_ecoli pairs (reads.fa vs ref_windows.fa)
//   c  100,000 synthetic protein pairs of ~512 (background amino-acid
//      composition, ~30% divergence), BLOSUM62, gap 11+1
//   r  1,000,000 synthetic 150-bp reads against 150-200-bp windows holding a
//      ~5% divergent copy (seeded), the DNA scheme of (a)
//   l  20,000 synthetic DNA pairs of 2-5 kb at ~10% divergence, scheme of (a)
//   A  1,000,000 pairs as (a), and P 1,000,000 synthetic protein pairs of 512
//      as (c): the inputs of the end-to-end CLI runs (`--dump` them; P's query
//      side is the search DB)
// --linear-gaps gives the DNA workloads gap 0+2 (linear) instead of 5+2.
// each score-only and with CIGAR, local (and global with --global,
// semi-global with --semi-global). Rows run the inter-pair kernel (its
// traceback variant with CIGAR; BatchEngineOptions::pair_kernels) and, with
// --kernels both, the warp-per-pair kernel alone beside it.
// --no-reverse-bound: the inter-pair kernel's reverse pass computes every
// cell (BatchEngineOptions::pair_reverse_bound = false; kernel "pair-nb").
// --no-row-bound: the reverse pass without the forward pass's row bound
// (BatchEngineOptions::pair_row_bound = false; kernel "pair-nr").
//
// Kernel GCUPS: a BatchEngine with one stream, so that the CUDA events around
// each batch's kernels (BatchEngine::last_kernel_ms) time the kernels alone; one
// warm-up call, then the median of --runs calls. End-to-end GCUPS: a BatchEngine
// with --streams (4) and --host-threads (all cores), host wall time of BatchEngine::align (packing, copies, kernels,
// conversion to AlignmentResult), warm-up, median of --runs. Cells =
// sum of query_len * ref_len. Prints a table and writes a CSV.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gpu/gpu_test_util.hpp"

namespace {

using namespace gpualign;
using test::Seq;

struct Workload {
    std::string name, description;
    ScoringScheme scheme;
    std::vector<Seq> q, r;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

Workload synthetic(const std::string& name, Alphabet a, std::size_t pairs, std::size_t len, double divergence,
                   std::uint64_t seed) {
    Workload w;
    w.name = name;
    w.scheme = a == Alphabet::dna ? make_dna_scheme(2, 3, 5, 2, -3) : test::blosum62_scheme(11, 1);
    w.description = std::to_string(pairs) + " synthetic " + to_string(a) + " pairs of " + std::to_string(len) + ", " +
                    std::to_string(static_cast<int>(divergence * 100)) + "% divergence, seed " + std::to_string(seed);
    test::Generator g(a, seed);
    w.q.reserve(pairs);
    w.r.reserve(pairs);
    for (std::size_t k = 0; k < pairs; ++k) {
        Seq q = g.random(len);
        Seq r = g.mutate(q, divergence, len);
        while (r.size() < len) r.push_back(g.residue());
        w.q.push_back(std::move(q));
        w.r.push_back(std::move(r));
    }
    return w;
}

// Reads of `len` against windows of len..len+extra holding a copy at
// `divergence`, flanked by random letters.
Workload reads(const std::string& name, std::size_t pairs, std::size_t len, std::size_t extra, double divergence,
               std::uint64_t seed) {
    Workload w;
    w.name = name;
    w.scheme = make_dna_scheme(2, 3, 5, 2, -3);
    w.description = std::to_string(pairs) + " synthetic " + std::to_string(len) + "-bp reads vs " +
                    std::to_string(len) + "-" + std::to_string(len + extra) + "-bp windows, " +
                    std::to_string(static_cast<int>(divergence * 100)) + "% divergence, seed " + std::to_string(seed);
    test::Generator g(Alphabet::dna, seed);
    for (std::size_t k = 0; k < pairs; ++k) {
        Seq q = g.random(len);
        const Seq copy = g.mutate(q, divergence, len + extra);
        const std::size_t flank = extra ? g.rng()() % (extra + 1) : 0;
        const std::size_t left = flank ? g.rng()() % (flank + 1) : 0;
        Seq r = g.random(left);
        r.insert(r.end(), copy.begin(), copy.end());
        while (r.size() < copy.size() + flank) r.push_back(g.residue());
        w.q.push_back(std::move(q));
        w.r.push_back(std::move(r));
    }
    return w;
}

// DNA pairs of min_len..max_len at `divergence`.
Workload long_dna(const std::string& name, std::size_t pairs, std::size_t min_len, std::size_t max_len,
                  double divergence, std::uint64_t seed) {
    Workload w;
    w.name = name;
    w.scheme = make_dna_scheme(2, 3, 5, 2, -3);
    w.description = std::to_string(pairs) + " synthetic DNA pairs of " + std::to_string(min_len) + "-" +
                    std::to_string(max_len) + ", " + std::to_string(static_cast<int>(divergence * 100)) +
                    "% divergence, seed " + std::to_string(seed);
    test::Generator g(Alphabet::dna, seed);
    for (std::size_t k = 0; k < pairs; ++k) {
        Seq q = g.random(min_len + g.rng()() % (max_len - min_len + 1));
        Seq r = g.mutate(q, divergence, 2 * max_len);
        w.q.push_back(std::move(q));
        w.r.push_back(std::move(r));
    }
    return w;
}

}  // namespace

int main(int argc, char** argv) {
    std::string csv = "gpualign_bench.csv", which = "abc";
    int runs = 5, streams = 4, host_threads = 0;
    bool with_global = false, with_semi_global = false;
    std::string kernels = "pair", dump;
    bool with_cigar = true, linear_gaps = false, reverse_bound = true, row_bound = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--csv" && i + 1 < argc) csv = argv[++i];
        else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--workloads" && i + 1 < argc) which = argv[++i];
        else if (a == "--global") with_global = true;
        else if (a == "--semi-global") with_semi_global = true;
        else if (a == "--kernels" && i + 1 < argc) kernels = argv[++i];
        else if (a == "--dump" && i + 1 < argc) dump = argv[++i];
        else if (a == "--no-cigar") with_cigar = false;
        else if (a == "--linear-gaps") linear_gaps = true;
        else if (a == "--no-reverse-bound") reverse_bound = false;
        else if (a == "--no-row-bound") row_bound = false;
        else if (a == "--streams" && i + 1 < argc) streams = std::max(1, std::atoi(argv[++i]));
        else if (a == "--host-threads" && i + 1 < argc) host_threads = std::max(0, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: gpualign_bench [--workloads abcrlAP] [--runs 5] [--global] [--semi-global] [--streams 4] [--host-threads 0=all]\n"
                                 "                      [--kernels pair|warp|both] [--no-cigar] [--linear-gaps] [--no-reverse-bound] [--no-row-bound] [--csv FILE] [--dump DIR]\n"
                                 "  --linear-gaps: the DNA workloads with gap 0+2 instead of 5+2 (match 2, mismatch 3)\n"
                                 "  --dump DIR: write each workload as DIR/<name>_q.fa and _r.fa (for peers and the CLI) and exit\n"
                                 "  A, P (with --dump): 1,000,000 DNA pairs of 512; 1,000,000 protein pairs of 512\n"
                                 "  real data from $GPUALIGN_SHARED_DATA (default %s)\n", test::shared_data_dir().c_str());
            return 2;
        }
    }
    if (gpu::device_count() == 0) {
        std::fprintf(stderr, "gpualign_bench: no CUDA device visible\n");
        return 1;
    }
    std::printf("device: %s\n", gpu::device_description(0).c_str());

    std::vector<Workload> loads;
    if (which.find('a') != std::string::npos) loads.push_back(synthetic("a_dna512", Alphabet::dna, 100000, 512, 0.10, 20261122));
    // A and P are the inputs of the end-to-end runs (docs/benchmarks.md), written with --dump:
    // 1,000,000 DNA pairs of 512, and 1,000,000 proteins of 512 (P's query side is the search DB).
    if (which.find('A') != std::string::npos)
        loads.push_back(synthetic("A_dna512x1M", Alphabet::dna, 1000000, 512, 0.10, 20261124));
    if (which.find('P') != std::string::npos)
        loads.push_back(synthetic("P_protein512x1M", Alphabet::protein, 1000000, 512, 0.30, 20261125));
    if (which.find('b') != std::string::npos) {
        Workload w;
        w.name = "b_pacbio_ecoli";
        w.description = "10,000 real PacBio E. coli read/reference-window pairs";
        w.scheme = make_dna_scheme(2, 3, 5, 2, -3);
        const std::string dir = test::shared_data_dir() + "/dna/pacbio_ecoli/";
        try {
            w.q = test::read_fasta(dir + "reads.fa", Alphabet::dna);
            w.r = test::read_fasta(dir + "ref_windows.fa", Alphabet::dna);
            loads.push_back(std::move(w));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "skipping workload b: %s\n", e.what());
        }
    }
    if (which.find('c') != std::string::npos)
        loads.push_back(synthetic("c_protein512", Alphabet::protein, 100000, 512, 0.30, 20261123));
    if (which.find('r') != std::string::npos) loads.push_back(reads("r_reads150", 1000000, 150, 50, 0.05, 20261127));
    if (which.find('l') != std::string::npos) loads.push_back(long_dna("l_dna2k5k", 20000, 2000, 5000, 0.10, 20261128));
    if (linear_gaps)
        for (Workload& w : loads)
            if (w.scheme.alphabet == Alphabet::dna) w.scheme = make_dna_scheme(2, 3, 0, 2, -3);

    if (!dump.empty()) {  // the same pairs as FASTA, for a peer aligner or the CLI run beside the bench
        for (const Workload& w : loads) {
            const bool dna = w.scheme.alphabet == Alphabet::dna;
            for (const auto& [side, seqs] : {std::pair{"_q.fa", &w.q}, std::pair{"_r.fa", &w.r}}) {
                std::ofstream f(dump + "/" + w.name + side);
                std::string line;
                for (std::size_t i = 0; i < seqs->size(); ++i) {
                    line.clear();
                    // aa27 ranks: A..Z are 0..25, '*' is 26
                    for (std::uint8_t c : (*seqs)[i])
                        line += dna ? dna_code_letters[c] : c < 26 ? static_cast<char>('A' + c) : '*';
                    f << '>' << i << '\n' << line << '\n';
                }
            }
        }
        return 0;
    }
    std::ofstream out(csv);
    out << "workload,pairs,cells,mode,output,kernel,kernel_ms_median,kernel_gcups,e2e_ms_median,e2e_gcups,checked_pairs,"
           "inter_pair_pairs,inter_pair_fallbacks\n";
    std::printf("\n%-16s %-7s %-10s %-5s %12s %12s %12s %12s\n", "workload", "mode", "output", "kern", "kernel ms",
                "kernel GCUPS", "e2e ms", "e2e GCUPS");
    for (const Workload& w : loads) {
        const auto views = test::views(w.q, w.r);
        double cells = 0;
        for (std::size_t i = 0; i < w.q.size(); ++i) cells += static_cast<double>(w.q[i].size()) * w.r[i].size();
        std::fprintf(stderr, "%s: %s, %.3g cells\n", w.name.c_str(), w.description.c_str(), cells);
        std::vector<AlignMode> modes = {AlignMode::local};
        if (with_global) modes.push_back(AlignMode::global);
        if (with_semi_global) modes.push_back(AlignMode::semi_global);
        for (AlignMode mode : modes) {
            std::vector<std::pair<bool, bool>> runs_of;  // (score_only, pair_kernels)
            if (kernels != "warp") runs_of.push_back({true, true});
            if (kernels != "pair") runs_of.push_back({true, false});
            if (with_cigar && kernels != "warp") runs_of.push_back({false, true});
            if (with_cigar && kernels != "pair") runs_of.push_back({false, false});
            for (const auto& [score_only, pair_kernels] : runs_of) {
                std::vector<double> kms, wall;
                std::size_t checked = 0;
                std::uint64_t inter_pair = 0, fallbacks = 0;
                {
                    gpu::BatchEngineOptions opt;
                    opt.streams = 1;
                    opt.pair_kernels = pair_kernels;
                    opt.pair_reverse_bound = reverse_bound;
                    opt.pair_row_bound = row_bound;
                    gpu::BatchEngine e(w.scheme, mode, score_only, opt);
                    auto res = e.align(views);  // warm-up
                    // Spot check against the CPU reference (every 500th pair).
                    std::vector<Seq> sq, sr;
                    std::vector<std::size_t> idx;
                    for (std::size_t i = 0; i < w.q.size(); i += 500) { sq.push_back(w.q[i]); sr.push_back(w.r[i]); idx.push_back(i); }
                    const auto want = test::cpu_align_all(sq, sr, w.scheme, mode, score_only);
                    for (std::size_t k = 0; k < idx.size(); ++k) {
                        if (!(res[idx[k]] == want[k])) {
                            std::fprintf(stderr, "MISMATCH %s pair %zu\n", w.name.c_str(), idx[k]);
                            return 1;
                        }
                    }
                    checked = idx.size();
                    const gpu::BatchEngineProfile p0 = e.profile();
                    for (int k = 0; k < runs; ++k) {
                        e.align(views);
                        kms.push_back(e.last_kernel_ms());
                    }
                    inter_pair = (e.profile().inter_pair_pairs - p0.inter_pair_pairs) / runs;
                    fallbacks = (e.profile().inter_pair_fallbacks - p0.inter_pair_fallbacks) / runs;
                }
                {
                    gpu::BatchEngineOptions opt;
                    opt.streams = streams;
                    opt.host_threads = host_threads;
                    opt.pair_kernels = pair_kernels;
                    opt.pair_reverse_bound = reverse_bound;
                    opt.pair_row_bound = row_bound;
                    gpu::BatchEngine e(w.scheme, mode, score_only, opt);
                    e.align(views);  // warm-up
                    const gpu::BatchEngineProfile p0 = e.profile();
                    for (int k = 0; k < runs; ++k) {
                        const auto t0 = std::chrono::steady_clock::now();
                        auto res = e.align(views);
                        const auto t1 = std::chrono::steady_clock::now();
                        wall.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                    }
                    // Where the end-to-end time went, per run (means over the timed runs).
                    const gpu::BatchEngineProfile p = e.profile();
                    const double n = runs;
                    std::fprintf(stderr,
                                 "  %s %s %s engine per run (ms): host request %.2f order %.2f pack %.2f wait %.2f results %.2f; "
                                 "device copies in %.2f, kernels %.2f, copies out %.2f (%.1f MB); %.1f batches\n",
                                 w.name.c_str(), to_string(mode), score_only ? "score-only" : "cigar",
                                 (p.request_s - p0.request_s) * 1e3 / n, (p.order_s - p0.order_s) * 1e3 / n,
                                 (p.pack_s - p0.pack_s) * 1e3 / n,
                                 (p.wait_s - p0.wait_s) * 1e3 / n, (p.results_s - p0.results_s) * 1e3 / n,
                                 (p.h2d_ms - p0.h2d_ms) / n, (p.kernel_ms - p0.kernel_ms) / n, (p.d2h_ms - p0.d2h_ms) / n,
                                 (p.d2h_bytes - p0.d2h_bytes) / 1e6 / n, (p.batches - p0.batches) / n);
                }
                const double km = median(kms), wm = median(wall);
                const double kg = cells / (km * 1e-3) / 1e9, wg = cells / (wm * 1e-3) / 1e9;
                const char* o = score_only ? "score-only" : "cigar";
                const char* kn = !pair_kernels ? "warp" : !reverse_bound ? "pair-nb" : row_bound ? "pair" : "pair-nr";
                std::printf("%-16s %-7s %-10s %-5s %12.2f %12.1f %12.2f %12.1f", w.name.c_str(), to_string(mode), o, kn,
                            km, kg, wm, wg);
                if (pair_kernels)
                    std::printf("  (inter-pair %llu, to warp kernel %llu)", static_cast<unsigned long long>(inter_pair),
                                static_cast<unsigned long long>(fallbacks));
                std::printf("\n");
                std::fflush(stdout);
                out << w.name << ',' << w.q.size() << ',' << cells << ',' << to_string(mode) << ',' << o << ',' << kn << ','
                    << km << ',' << kg << ',' << wm << ',' << wg << ',' << checked << ',' << inter_pair << ',' << fallbacks
                    << '\n';
            }
        }
    }
    std::printf("\nCSV: %s\n", csv.c_str());
    return 0;
}
