// cpu_bench: the CPU backend's kernels against parasail 2.6 on the same
// pairs, the same machine and the same run (issue 13). Not a test.
//
// For each workload it times, with every thread (OpenMP, one pair or lane
// group per task), alignment only (no I/O):
//  - gpualign align_pairs_cpu, SIMD kernel (dispatched target) and scalar;
//  - parasail sw|nw_trace_scan_16 + parasail_result_get_cigar (with CIGAR)
//    and sw|nw_striped_16 (score-only), pair by pair in parallel.
// and prints GCUPS and the ratios SIMD/parasail. Gap costs are converted:
// our go + L*ge equals parasail's open = go + ge, extend = ge.
//
// usage: cpu_bench [--threads N] [--repeat R] [--workload NAME] [--target T] [--no-scalar]
// Workloads: pacbio_sw, pacbio_nw, protein512_sw, protein512_nw, miseq_sw, miseq_nw.
#include <omp.h>
#include <parasail.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/model/config.hpp"
#include "test_util.hpp"

namespace {
using namespace gpualign;
using test::Codes;
using test::Pair;

const std::string dna_letters = "ACGNT";  // dna5 ranks

std::string decode(const Codes& c, Alphabet a) {
    std::string s;
    for (auto x : c)
        s.push_back(a == Alphabet::dna ? dna_letters[x] : seqan3::to_char(seqan3::assign_rank_to(x, seqan3::aa27{})));
    return s;
}

struct Workload {
    std::string name;
    std::vector<Pair> pairs;
    ScoringScheme scheme;
    AlignMode mode;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// parasail's matrix for our scheme (same letters, same scores).
parasail_matrix_t* parasail_matrix_for(const ScoringScheme& s) {
    std::string letters;
    for (int c = 0; c < s.size; ++c)
        letters.push_back(s.alphabet == Alphabet::dna ? dna_letters[c]
                                                     : seqan3::to_char(seqan3::assign_rank_to(c, seqan3::aa27{})));
    parasail_matrix_t* m = parasail_matrix_create(letters.c_str(), 1, -1);
    for (int q = 0; q < s.size; ++q)
        for (int r = 0; r < s.size; ++r) parasail_matrix_set_value(m, q, r, s.score(q, r));
    return m;
}

struct Timing {
    double best = 1e30;
    std::uint64_t checksum = 0;
};

template <class F>
Timing time_it(int repeat, F&& run) {
    Timing t;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        t.checksum = run();
        t.best = std::min(t.best, seconds_since(t0));
    }
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    int threads = omp_get_num_procs(), repeat = 3;
    std::string only, target;
    bool with_scalar = true;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--threads" && a + 1 < argc) threads = std::stoi(argv[++a]);
        else if (arg == "--repeat" && a + 1 < argc) repeat = std::stoi(argv[++a]);
        else if (arg == "--workload" && a + 1 < argc) only = argv[++a];
        else if (arg == "--target" && a + 1 < argc) target = argv[++a];
        else if (arg == "--no-scalar") with_scalar = false;
        else { std::fprintf(stderr, "usage: cpu_bench [--threads N] [--repeat R] [--workload NAME] [--target T] [--no-scalar]\n"); return 2; }
    }
    if (!target.empty()) force_simd_target(target);
    // The shared data: $GPUALIGN_SHARED_DATA at run time, else the directory compiled in.
    const char* data_env = std::getenv("GPUALIGN_SHARED_DATA");
    const std::filesystem::path data = data_env && *data_env ? std::filesystem::path(data_env) : test::shared_data();
    std::vector<Workload> loads;
    const ScoringScheme dna = make_dna_scheme(Defaults::dna_match, Defaults::dna_mismatch, Defaults::dna_gap_open,
                                              Defaults::dna_gap_extend, -Defaults::dna_mismatch);
    const ScoringScheme prot = make_protein_scheme("BLOSUM62", Defaults::protein_gap_open, Defaults::protein_gap_extend);
    const auto want = [&](const std::string& n) { return only.empty() || only == n; };
    if (want("pacbio_sw") || want("pacbio_nw")) {
        const auto p = test::read_pairs<Alphabet::dna>(data / "dna/pacbio_ecoli/reads.fa", data / "dna/pacbio_ecoli/ref_windows.fa", SIZE_MAX);
        if (want("pacbio_sw")) loads.push_back({"pacbio_sw", p, dna, AlignMode::local});
        if (want("pacbio_nw")) loads.push_back({"pacbio_nw", p, dna, AlignMode::global});
    }
    if (want("protein512_sw") || want("protein512_nw")) {
        // 10,000 pairs of UniProt records of 384-640 residues (mean ~500).
        std::vector<Codes> recs;
        for (auto& c : test::read_fasta_codes<Alphabet::protein>(data / "protein/mmseqs2_example_db.fa"))
            if (c.size() >= 384 && c.size() <= 640) recs.push_back(std::move(c));
        std::vector<Pair> p;
        for (std::size_t k = 0; k < 10000 && recs.size() > 4; ++k)
            p.push_back({recs[k % recs.size()], recs[(k + 1 + k / recs.size()) % recs.size()]});
        if (want("protein512_sw")) loads.push_back({"protein512_sw", p, prot, AlignMode::local});
        if (want("protein512_nw")) loads.push_back({"protein512_nw", p, prot, AlignMode::global});
    }
    if (want("miseq_sw") || want("miseq_nw")) {
        const auto p = test::read_pairs<Alphabet::dna>(data / "dna/miseq_16S/reads.fa", data / "dna/miseq_16S/ref_windows.fa", SIZE_MAX);
        if (want("miseq_sw")) loads.push_back({"miseq_sw", p, dna, AlignMode::local});
        if (want("miseq_nw")) loads.push_back({"miseq_nw", p, dna, AlignMode::global});
    }

    std::printf("# cpu_bench: %d threads, best of %d, SIMD target %s (compiled and supported:", threads, repeat,
                simd_target().c_str());
    for (const auto& t : simd_targets()) std::printf(" %s", t.c_str());
    std::printf(")\n");
    std::printf("%-14s %-10s %7s %12s %10s %10s %10s %10s %9s %9s\n", "workload", "output", "pairs", "cells",
                "simd_s", "scalar_s", "parasail_s", "simd_GCUPS", "vs_scalar", "vs_parasail");
    for (const Workload& w : loads) {
        std::vector<PairView> views;
        std::vector<std::string> qs, rs;
        std::uint64_t cells = 0;
        for (const auto& p : w.pairs) {
            views.push_back({p.query, p.ref});
            qs.push_back(decode(p.query, w.scheme.alphabet));
            rs.push_back(decode(p.ref, w.scheme.alphabet));
            cells += static_cast<std::uint64_t>(p.query.size()) * p.ref.size();
        }
        parasail_matrix_t* pm = parasail_matrix_for(w.scheme);
        const int open = w.scheme.gap_open + w.scheme.gap_extend, ext = w.scheme.gap_extend;
        const bool local = w.mode == AlignMode::local;
        for (const bool score_only : {false, true}) {
            std::vector<AlignmentResult> out(views.size());
            const auto ours = [&](CpuKernel k) {
                return time_it(repeat, [&] {
                    align_pairs_cpu(views, w.scheme, w.mode, score_only, k, threads, out);
                    std::uint64_t sum = 0;
                    for (const auto& r : out) sum += static_cast<std::uint64_t>(r.score);
                    return sum;
                });
            };
            const Timing simd = ours(CpuKernel::simd);
            const Timing scalar = with_scalar ? ours(CpuKernel::scalar) : simd;
            std::vector<int> pscore(views.size());
            const Timing para = time_it(repeat, [&] {
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
                for (std::size_t k = 0; k < views.size(); ++k) {
                    const char* q = qs[k].c_str();
                    const char* r = rs[k].c_str();
                    const int m = static_cast<int>(qs[k].size()), n = static_cast<int>(rs[k].size());
                    parasail_result_t* res;
                    if (score_only) {
                        res = local ? parasail_sw_striped_16(q, m, r, n, open, ext, pm)
                                    : parasail_nw_striped_16(q, m, r, n, open, ext, pm);
                    } else {
                        res = local ? parasail_sw_trace_scan_16(q, m, r, n, open, ext, pm)
                                    : parasail_nw_trace_scan_16(q, m, r, n, open, ext, pm);
                        parasail_cigar_t* c = parasail_result_get_cigar(res, q, m, r, n, pm);
                        parasail_cigar_free(c);
                    }
                    pscore[k] = res->score;
                    parasail_result_free(res);
                }
                std::uint64_t sum = 0;
                for (int s : pscore) sum += static_cast<std::uint64_t>(s);
                return sum;
            });
            // Same scores (parasail's 16-bit versions saturate only past 32,767).
            const char* agree = simd.checksum == para.checksum && simd.checksum == scalar.checksum ? "" : "  SCORES DIFFER";
            std::printf("%-14s %-10s %7zu %12llu %10.3f %10.3f %10.3f %10.2f %8.1fx %8.2fx%s\n", w.name.c_str(),
                        score_only ? "score" : "cigar", views.size(), static_cast<unsigned long long>(cells), simd.best,
                        scalar.best, para.best, static_cast<double>(cells) / simd.best / 1e9, scalar.best / simd.best,
                        para.best / simd.best, agree);
            std::fflush(stdout);
        }
        parasail_matrix_free(pm);
    }
    return 0;
}
