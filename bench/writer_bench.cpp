// writer_bench — output formatting throughput on the host (no GPU needed).
//
//   writer_bench QUERIES REFS [PAIRS] [THREADS...]
//
// Aligns the first 20,000 pairs of QUERIES x REFS (local, DNA 2/3/5+2, the
// CPU reference with CIGAR), then writes PAIRS results (the aligned ones
// repeated in order; default 200,000) through AlignmentWriter::write_batch
// in batches of 32,768 to /dev/null as TSV, PAF and SAM (SAM both with the
// header declared first, read_sam_references, and with the spooled body),
// for each thread count (default 1 and all cores). Reports the output bytes
// and the wall time of write_batch plus commit, median of 3 runs: the
// formatting cost per pair that the pipeline's writer thread pays.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/formats/sam_references.hpp"
#include "gpualign/formats/writers.hpp"
#include "gpualign/io/sequence_io.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace gpualign;

std::vector<SequenceRecord> read_some(const std::string& path, std::size_t n) {
    SequenceReader reader(path, AlphabetChoice::dna);
    std::vector<SequenceRecord> out;
    for (SequenceRecord r; out.size() < n && reader.next(r);) out.push_back(r);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: writer_bench QUERIES REFS [PAIRS] [THREADS...]\n");
        return 2;
    }
    const std::string qpath = argv[1], rpath = argv[2];
    const std::size_t pairs = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 200000;
    std::vector<int> threads;
    for (int i = 4; i < argc; ++i) threads.push_back(std::atoi(argv[i]));
    if (threads.empty()) threads = {1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};

    const std::vector<SequenceRecord> q = read_some(qpath, 20000), r = read_some(rpath, 20000);
    const std::size_t distinct = std::min(q.size(), r.size());
    if (distinct == 0) {
        std::fprintf(stderr, "writer_bench: no pairs\n");
        return 1;
    }
    const ScoringScheme scheme = make_dna_scheme(2, 3, 5, 2, -3);
    std::vector<AlignmentResult> aligned(distinct);
#pragma omp parallel for schedule(dynamic, 64)
    for (std::size_t k = 0; k < distinct; ++k) aligned[k] = align_pair(q[k].codes, r[k].codes, scheme, AlignMode::local, false);
    std::vector<RecordView> qv(pairs), rv(pairs);
    std::vector<AlignmentResult> res(pairs);
    for (std::size_t k = 0; k < pairs; ++k) {
        qv[k] = view_of(q[k % distinct]);
        rv[k] = view_of(r[k % distinct]);
        res[k] = aligned[k % distinct];
    }
    // The refs of the pairs as a FASTA file, for read_sam_references.
    const std::string refs_fa = (std::filesystem::temp_directory_path() / "writer_bench_refs.fa").string();
    {
        std::ofstream f(refs_fa);
        for (std::size_t k = 0; k < distinct; ++k) f << '>' << r[k].name << '\n' << r[k].sequence << '\n';
    }
    std::printf("format\tthreads\tpairs\tMB\tseconds\tMB/s\tns/pair\n");
    for (const int t : threads) {
        for (const std::string fmt : {"tsv", "paf", "sam", "sam-spooled"}) {
            std::vector<double> secs;
            std::uint64_t bytes = 0;
            for (int run = 0; run < 4; ++run) {  // a warm-up, then 3
                WriterOptions o;
                o.format = fmt == "tsv" ? OutputFormat::tsv : fmt == "paf" ? OutputFormat::paf : OutputFormat::sam;
                std::optional<SamReferences> refs;
                if (fmt == "sam") {
                    std::atomic<bool> cancel{false};
                    const auto r0 = Clock::now();
                    refs = read_sam_references(refs_fa, AlphabetChoice::dna, t, cancel);
                    if (run == 3)
                        std::printf("read_sam_references\t%d\t%zu refs\t%.3f s\n", t, refs ? refs->size() : 0,
                                    std::chrono::duration<double>(Clock::now() - r0).count());
                }
                const std::string out = (std::filesystem::temp_directory_path() / "writer_bench.out").string();
                const auto t0 = Clock::now();
                {
                    AlignmentWriter w(out, o);
                    if (refs) w.set_references(std::move(*refs));
                    for (std::size_t b = 0; b < pairs; b += 32768) {
                        const std::size_t n = std::min<std::size_t>(32768, pairs - b);
                        w.write_batch(std::span(qv).subspan(b, n), std::span(rv).subspan(b, n),
                                      std::span(res).subspan(b, n), t);
                    }
                    w.commit();
                }
                const double s = std::chrono::duration<double>(Clock::now() - t0).count();
                bytes = std::filesystem::file_size(out);
                std::filesystem::remove(out);
                if (run > 0) secs.push_back(s);
            }
            std::sort(secs.begin(), secs.end());
            const double s = secs[1];
            std::printf("%s\t%d\t%zu\t%.1f\t%.3f\t%.0f\t%.0f\n", fmt.c_str(), t, pairs, bytes / 1e6, s, bytes / 1e6 / s,
                        s * 1e9 / static_cast<double>(pairs));
        }
    }
    std::filesystem::remove(refs_fa);
    return 0;
}
