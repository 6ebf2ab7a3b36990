// `gpualign search`: every query against every DB record (search.hpp).
//
// The scan scores all pairs (score-only), the canonical top hits of each
// query are selected (select_hits), and only the hits are aligned with a
// CIGAR. Every path computes exactly what align_pair computes, so the output
// is the same on every backend.
#include "gpualign/search/search.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "device_shares.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/formats/search_writer.hpp"
#include "gpualign/gpu/engine.hpp"
#include "gpualign/gpu/scan_engine.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/model/strand.hpp"

namespace gpualign {

using detail::even_cuts;
using detail::run_on_devices;

namespace {

/// Whether a hit of score `s` passes the filters: local scores above 0,
/// --min-score, --evalue (each keeps the scores from a threshold up).
bool passes_filters(std::int32_t s, AlignMode mode, const SearchOptions& options,
                    const std::optional<KarlinAltschul>& ka, std::uint64_t query_len, std::uint64_t db_letters) {
    if (mode == AlignMode::local && s <= 0) return false;
    if (options.min_score && s < *options.min_score) return false;
    if (options.max_evalue && evalue(*ka, s, query_len, db_letters) > *options.max_evalue) return false;
    return true;
}

}  // namespace

std::vector<std::uint32_t> select_hits(std::span<const std::int32_t> scores, AlignMode mode,
                                       const SearchOptions& options, const std::optional<KarlinAltschul>& ka,
                                       std::uint64_t query_len, std::uint64_t db_letters) {
    if (options.max_evalue && !ka)
        throw std::invalid_argument("--evalue needs Karlin-Altschul parameters, which this scoring scheme has none of");
    std::vector<std::uint32_t> hits;
    for (std::size_t t = 0; t < scores.size(); ++t)
        if (passes_filters(scores[t], mode, options, ka, query_len, db_letters)) hits.push_back(static_cast<std::uint32_t>(t));
    auto better = [&](std::uint32_t a, std::uint32_t b) { return scores[a] != scores[b] ? scores[a] > scores[b] : a < b; };
    const std::size_t k = std::min(options.max_hits, hits.size());
    std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(), better);
    hits.resize(k);
    return hits;
}

namespace {

/// DB letters resident on the GPU at once without --gpu-memory (a larger DB
/// is scanned in chunks of this size, with the same results).
constexpr std::uint64_t search_chunk_letters = std::uint64_t{4} << 30;

std::uint64_t letters_of(std::span<const RecordView> db) {
    std::uint64_t n = 0;
    for (const RecordView& r : db) n += r.sequence.size();
    return n;
}

/// Fills the statistics of `hit` (local mode with published λ/K only).
void add_statistics(SearchHit& hit, AlignMode mode, const std::optional<KarlinAltschul>& ka, std::uint64_t m,
                    std::uint64_t n) {
    if (mode != AlignMode::local || !ka) return;
    hit.evalue = evalue(*ka, hit.result.score, m, n);
    hit.bits = bit_score(*ka, hit.result.score);
}

/// With both strands: keeps in `scores` (the plus strand's, one per DB
/// record) the better of each record's two scores (better_strand, ties to
/// plus), and returns the strand of each.
std::vector<Strand> keep_better_strand_scores(std::span<std::int32_t> scores, std::span<const std::int32_t> minus) {
    std::vector<Strand> strands(scores.size(), Strand::plus);
    for (std::size_t t = 0; t < scores.size(); ++t)
        if (better_strand(scores[t], minus[t]) == Strand::minus) {
            scores[t] = minus[t];
            strands[t] = Strand::minus;
        }
    return strands;
}

/// Every record of one file, in file order, parsed on `threads` threads.
struct AllRecords {
    std::vector<std::shared_ptr<const RecordBlock>> blocks;
    std::vector<RecordView> views;
};

AllRecords read_all(ParallelSequenceReader& reader) {
    AllRecords all;
    while (!reader.exhausted()) {
        reader.fill(std::size_t{1} << 20, std::size_t{256} << 20);
        reader.take_blocks(all.blocks);
    }
    for (const auto& b : all.blocks)
        for (std::size_t k = 0; k < b->size(); ++k) all.views.push_back((*b)[k]);
    return all;
}

}  // namespace

std::vector<SearchHit> search_query_cpu(std::span<const std::uint8_t> query, std::span<const RecordView> db,
                                        const ScoringScheme& s, AlignMode mode, bool score_only,
                                        const SearchOptions& options, const std::optional<KarlinAltschul>& ka,
                                        int threads, CpuKernel kernel, StrandChoice strand) {
    // Scores of every record (the SIMD lanes share the query), on each
    // strand asked for, then the hits aligned together on their strand:
    // with a CIGAR, or score-only with the begin.
    const auto score_all = [&](std::span<const std::uint8_t> q) {
        std::vector<PairView> pairs(db.size());
        for (std::size_t t = 0; t < db.size(); ++t) pairs[t] = {q, db[t].codes};
        try {
            return score_pairs_cpu(pairs, s, mode, kernel, threads);
        } catch (const PairFailure& f) {
            std::rethrow_exception(f.cause);
        }
    };
    std::vector<std::int32_t> scores = score_all(query);
    std::vector<std::uint8_t> minus_query;
    std::vector<Strand> strands(db.size(), Strand::plus);
    if (strand == StrandChoice::both) {
        minus_query = reverse_complement(query);
        strands = keep_better_strand_scores(scores, score_all(minus_query));
    }
    const std::uint64_t n = options.db_size.value_or(letters_of(db));  // N of the E-values
    const std::vector<std::uint32_t> picked = select_hits(scores, mode, options, ka, query.size(), n);
    std::vector<PairView> hit_pairs(picked.size());
    for (std::size_t h = 0; h < picked.size(); ++h)
        hit_pairs[h] = {strands[picked[h]] == Strand::minus ? std::span<const std::uint8_t>(minus_query) : query,
                        db[picked[h]].codes};
    std::vector<AlignmentResult> aligned(picked.size());
    try {
        align_pairs_cpu(hit_pairs, s, mode, score_only, kernel, threads, aligned);
    } catch (const PairFailure& f) {
        std::rethrow_exception(f.cause);
    }
    std::vector<SearchHit> hits(picked.size());
    for (std::size_t h = 0; h < picked.size(); ++h) {
        hits[h].target = picked[h];
        hits[h].result = std::move(aligned[h]);
        hits[h].result.strand = strands[picked[h]];
        add_statistics(hits[h], mode, ka, query.size(), n);
    }
    return hits;
}

namespace {

/// The GPU path: the DB resident in a gpu::ScanEngine scores every pair
/// (one thread per DB sequence; schemes it does not hold go through the
/// batch engine, gpu::Engine, in score-only mode), then gpu::Engine aligns
/// every query's hits in one call; align_pair takes the pairs the batch
/// engine does not accept.
class GpuSearch {
public:
    GpuSearch(const AlignConfig& c, const ScoringScheme& s, int device, int threads)
        : c_(c), s_(s), device_(device), threads_(threads) {
        options_.device = device;
        options_.host_threads = threads;
        options_.gpu_memory_limit = c.gpu_memory;
        options_.streams = c.engine_streams();
        dedicated_ = gpu::ScanEngine::supports(s);
    }

    /// Makes `chunk` (consecutive DB records) the resident DB of the next
    /// scans, freeing the previous one.
    void load_chunk(std::span<const RecordView> chunk) {
        scan_.reset();
        if (!dedicated_) return;
        std::vector<std::span<const std::uint8_t>> seqs(chunk.size());
        for (std::size_t t = 0; t < chunk.size(); ++t) seqs[t] = chunk[t].codes;
        gpu::ScanOptions so;
        so.device = device_;
        if (c_.gpu_memory) so.boundary_bytes = c_.gpu_memory / 4;
        // Tuning override for benchmarks (docs/search.md): the DB length
        // from which sequences go to the warp kernel.
        if (const char* w = std::getenv("GPUALIGN_SCAN_WARP_MIN")) so.warp_min_length = std::max(1, std::atoi(w));
        scan_ = std::make_unique<gpu::ScanEngine>(s_, c_.mode, seqs, so);
        spdlog::debug("search: {} of {} DB records scanned by the warp kernel (at least {} letters)", scan_->warp_records(),
                      chunk.size(), so.warp_min_length);
    }

    /// Scores of each query of `qs` against every DB record, query after
    /// query (qs.size() x db.size() values).
    std::vector<std::int32_t> scan(std::span<const RecordView> qs, std::span<const RecordView> db) {
        std::vector<std::int32_t> out;
        out.reserve(qs.size() * db.size());
        if (scan_) {
            std::vector<std::span<const std::uint8_t>> q(qs.size());
            for (std::size_t k = 0; k < qs.size(); ++k) q[k] = qs[k].codes;
            out = scan_->scores(q);
            kernel_ms_ += scan_->last_kernel_ms();
            return out;
        }
        std::vector<gpu::PairView> pairs;
        pairs.reserve(qs.size() * db.size());
        for (const RecordView& q : qs)
            for (const RecordView& r : db) pairs.push_back({q.codes, r.codes});
        if (!batch_scan_) batch_scan_ = std::make_unique<gpu::Engine>(s_, c_.mode, true, options_);
        for (const AlignmentResult& r : run(*batch_scan_, pairs, true)) out.push_back(r.score);
        return out;
    }

    /// Each query's best k records of `db` (indices into db, scores and
    /// strands) in the canonical order, before the caller's filters (the
    /// host's choice, select_hits, already drops local scores of 0). `qs`
    /// holds the queries and, with `both`, then their minus strands. The
    /// ScanEngine chooses them on the GPU; the batch-engine scan returns
    /// every score and the host chooses.
    std::vector<std::vector<gpu::ScanHit>> top(std::span<const RecordView> qs, std::span<const RecordView> db,
                                               std::size_t k, bool both) {
        if (scan_) {
            std::vector<std::span<const std::uint8_t>> q(qs.size());
            for (std::size_t i = 0; i < qs.size(); ++i) q[i] = qs[i].codes;
            std::vector<std::vector<gpu::ScanHit>> hits = scan_->top_hits(q, k, both);
            kernel_ms_ += scan_->last_kernel_ms();
            return hits;
        }
        std::vector<std::int32_t> all = scan(qs, db);
        const std::size_t n = both ? qs.size() / 2 : qs.size();
        std::vector<std::vector<gpu::ScanHit>> hits(n);
        for (std::size_t y = 0; y < n; ++y) {
            const std::span<std::int32_t> scores(all.data() + y * db.size(), db.size());
            std::vector<Strand> strands(db.size(), Strand::plus);
            if (both)
                strands = keep_better_strand_scores(scores, std::span(all.data() + (n + y) * db.size(), db.size()));
            SearchOptions best_k;
            best_k.max_hits = k;
            for (const std::uint32_t t : select_hits(scores, c_.mode, best_k, std::nullopt, 0, 0))
                hits[y].push_back({t, scores[t], strands[t] == Strand::minus});
        }
        return hits;
    }

    /// The alignments of `pairs` (with CIGAR unless `score_only`).
    std::vector<AlignmentResult> align(std::span<const gpu::PairView> pairs, bool score_only) {
        scan_.reset();  // the scan is over: its device memory goes to the batch engine
        batch_scan_.reset();
        gpu::Engine e(s_, c_.mode, score_only, options_);
        return run(e, pairs, score_only);
    }

    double scan_kernel_ms() const noexcept { return kernel_ms_; }
    bool dedicated_scan() const noexcept { return dedicated_; }

private:
    std::vector<AlignmentResult> run(gpu::Engine& e, std::span<const gpu::PairView> pairs, bool score_only) {
        std::vector<gpu::PairView> on_gpu;
        std::vector<std::size_t> gpu_index, cpu_index;
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            if (e.accepts(pairs[k].query.size(), pairs[k].ref.size())) {
                on_gpu.push_back(pairs[k]);
                gpu_index.push_back(k);
            } else {
                cpu_index.push_back(k);
            }
        }
        std::vector<AlignmentResult> out(pairs.size());
        std::vector<AlignmentResult> got = e.align(on_gpu);
        for (std::size_t i = 0; i < gpu_index.size(); ++i) out[gpu_index[i]] = std::move(got[i]);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
        for (std::size_t i = 0; i < cpu_index.size(); ++i) {
            const gpu::PairView& p = pairs[cpu_index[i]];
            out[cpu_index[i]] = align_pair(p.query, p.ref, s_, c_.mode, score_only);
        }
        return out;
    }

    const AlignConfig& c_;
    const ScoringScheme& s_;
    int device_;
    int threads_;
    gpu::EngineOptions options_;
    std::unique_ptr<gpu::ScanEngine> scan_;
    std::unique_ptr<gpu::Engine> batch_scan_;
    double kernel_ms_ = 0;
    bool dedicated_ = false;
};

/// The GPUs of the run (c.gpu_devices()), or none for the CPU backend.
/// @throws std::runtime_error for --backend gpu without a device, or an
///         ordinal that is not visible.
std::vector<int> search_devices(const AlignConfig& c) {
    const int visible = c.backend == BackendChoice::cpu ? 0 : gpu::device_count();
    if (c.backend == BackendChoice::gpu) {
        if (visible == 0) throw std::runtime_error("--backend gpu: no CUDA device is visible");
    } else if (c.backend == BackendChoice::automatic && visible == 0) {
        spdlog::warn("no CUDA device is visible; using the CPU backend");
        return {};
    }
    if (visible == 0) return {};
    return c.gpu_devices(visible);
}

/// Orders hits canonically (score descending, then DB index) and keeps the
/// best max_hits.
void keep_best(std::vector<SearchHit>& kept, std::size_t max_hits) {
    std::stable_sort(kept.begin(), kept.end(), [](const SearchHit& x, const SearchHit& y) {
        return x.result.score != y.result.score ? x.result.score > y.result.score : x.target < y.target;
    });
    if (kept.size() > max_hits) kept.resize(max_hits);
}

/// What one GPU scans: DB records [begin, end) against every query.
struct ScanPart {
    std::size_t begin = 0, end = 0;
    std::uint64_t letters = 0;
    std::size_t chunks = 0;
    double kernel_ms = 0;
    std::vector<std::vector<SearchHit>> hits;  // per query: the part's best max_hits, scores only
};

}  // namespace

RunStats run_search(const AlignConfig& c) {
    if (!c.search) throw std::invalid_argument("run_search needs AlignConfig::search");
    const auto start = std::chrono::steady_clock::now();
    const SearchOptions& o = *c.search;
    const int threads = c.threads > 0 ? c.threads : omp_get_num_procs();

    ParallelSequenceReader qreader(c.query_path, c.alphabet, threads);
    ParallelSequenceReader dbreader(c.ref_path, c.alphabet, threads);
    const Alphabet qa = qreader.alphabet(), da = dbreader.alphabet();
    if (qa != da)
        throw InputError("QUERIES " + display_path(c.query_path) + " looks like " + to_string(qa) + " but DB " +
                         display_path(c.ref_path) + " looks like " + to_string(da) +
                         "; choose one with --alphabet dna|protein");
    const ScoringScheme scheme = resolve_scoring(c, da);
    qreader.set_dna_codes(scheme.dna_codes);
    dbreader.set_dna_codes(scheme.dna_codes);
    check_strand_choice(c.strand, scheme);
    const bool both = c.strand == StrandChoice::both;
    const AllRecords db = read_all(dbreader);
    const AllRecords queries = read_all(qreader);
    if (scheme.undefined_codes) {  // a matrix file without some letters: only their use is an error
        for (const RecordView& r : queries.views) check_letters(scheme, r, c.query_path);
        for (const RecordView& r : db.views) check_letters(scheme, r, c.ref_path);
    }
    const std::uint64_t letters = letters_of(db.views);
    const std::uint64_t n = o.db_size.value_or(letters);  // N of the E-values (--db-size)
    spdlog::debug("search: {} queries against {} DB records ({} letters), {} alphabet, matrix {}, gap_open {}, "
                  "gap_extend {}, {} mode",
                  queries.views.size(), db.views.size(), letters, to_string(da), scheme.matrix_name, scheme.gap_open,
                  scheme.gap_extend, to_string(c.mode));

    const std::optional<KarlinAltschul> ka = alignment_statistics(scheme, c.mode);
    if (o.max_evalue && !ka)
        throw std::invalid_argument(
            c.mode == AlignMode::local
                ? "--evalue: no published Karlin-Altschul parameters for matrix " + scheme.matrix_name +
                      " with gap_open " + std::to_string(scheme.gap_open) + ", gap_extend " +
                      std::to_string(scheme.gap_extend) + " (docs/search.md lists the schemes that have them)"
                : std::string("--evalue applies to local search only (E-values of ") + to_string(c.mode) +
                      " scores are not defined)");
    if (!ka && c.output_format() != OutputFormat::sam) spdlog::warn("{}", missing_statistics_warning(scheme, c.mode));

    RunStats stats;
    const std::vector<int> devices = search_devices(c);
    const bool gpu = !devices.empty();
    if (gpu) {
        stats.backend = devices.size() == 1 ? "gpu " + gpu::device_description(devices[0])
                                            : std::to_string(devices.size()) + " gpus";
        for (std::size_t d = 0; d < devices.size(); ++d) {
            const std::string about = gpu::device_description(devices[d]);
            if (devices.size() > 1) stats.backend += (d == 0 ? ": " : "; ") + std::to_string(devices[d]) + " " + about;
            spdlog::info("using GPU {} {}", devices[d], about);
        }
    } else {
        stats.backend = "cpu (" + std::to_string(threads) + " threads)";
    }

    if (da == Alphabet::protein && c.output_format() == OutputFormat::sam) spdlog::warn("{}", protein_sam_warning);
    WriterOptions wo;
    wo.format = c.output_format();
    wo.score_only = c.score_only;
    wo.sam_cigar_m = c.sam_cigar_m;
    wo.command_line = c.command_line;
    SearchWriter writer(c.out_path, wo, db.views);
    std::vector<std::vector<SearchHit>> hits(queries.views.size());
    for (const RecordView& q : queries.views) {
        stats.pairs += db.views.size();
        stats.cells += static_cast<std::uint64_t>(q.codes.size()) * letters * (both ? 2 : 1);  // DP cells of both strands
    }
    // GPU with both strands: the queries reverse-complemented (minus_views[qi]
    // is query qi's minus strand); search_query_cpu makes its own, one query
    // at a time.
    std::vector<std::uint8_t> minus_codes;
    const std::vector<RecordView> minus_views =
        gpu && both ? reverse_strand_views(queries.views, minus_codes) : std::vector<RecordView>{};
    if (!gpu) {
        for (std::size_t qi = 0; qi < queries.views.size(); ++qi)
            hits[qi] = search_query_cpu(queries.views[qi].codes, db.views, scheme, c.mode, c.score_only, o, ka, threads,
                                        c.cpu_kernel, c.strand);
    } else {
        // Each GPU scans a part of the DB: consecutive records of about equal
        // letters. Within its part the DB goes to the GPU in chunks of at
        // most search_chunk_letters letters (a quarter of --gpu-memory when
        // set); each query keeps the canonical best hits of all chunks so
        // far. The best max_hits of a union are the best max_hits of the
        // parts' best max_hits (the order, score then DB index, is total),
        // and the E-values use the whole DB's letters, so neither chunks nor
        // GPUs ever change the output.
        const std::uint64_t chunk_letters = c.gpu_memory ? std::max<std::uint64_t>(c.gpu_memory / 4, 1) : search_chunk_letters;
        const int part_threads = std::max(1, threads / static_cast<int>(devices.size()));
        std::vector<std::uint64_t> record_letters(db.views.size());
        for (std::size_t t = 0; t < db.views.size(); ++t) record_letters[t] = std::max<std::size_t>(1, db.views[t].codes.size());
        const std::vector<std::size_t> cuts = even_cuts(record_letters, devices.size());
        std::vector<ScanPart> parts(devices.size());
        const auto scan_part = [&](std::size_t d) {
            ScanPart& part = parts[d];
            part.begin = cuts[d];
            part.end = cuts[d + 1];
            part.hits.resize(queries.views.size());
            if (part.begin == part.end) return;
            GpuSearch g(c, scheme, devices[d], part_threads);
            for (std::size_t b = part.begin; b < part.end; ++part.chunks) {
                std::size_t e = b;
                std::uint64_t chunk_size = 0;
                while (e < part.end && (e == b || chunk_size + db.views[e].codes.size() <= chunk_letters))
                    chunk_size += db.views[e++].codes.size();
                part.letters += chunk_size;
                const std::span<const RecordView> chunk = std::span(db.views).subspan(b, e - b);
                g.load_chunk(chunk);
                // Queries go in groups of about scan_pairs pairs per call
                // (each pair takes 4 bytes of scores and, for the hit
                // selection on the GPU, 24 more of device memory: 28 MiB a
                // million; with --gpu-memory, at most a sixth of it): the
                // more queries a call has, the better the scan kernels fill
                // the GPU.
                const std::size_t scan_pairs =
                    c.gpu_memory ? std::max<std::size_t>(1, c.gpu_memory / 168) : std::size_t{1} << 25;
                // With both strands a call scans the group's queries and then
                // their reverse complements, so a group has half the queries.
                const std::size_t group = std::max<std::size_t>(1, scan_pairs / chunk.size() / (both ? 2 : 1));
                for (std::size_t q0 = 0; q0 < queries.views.size(); q0 += group) {
                    const std::size_t q1 = std::min(queries.views.size(), q0 + group);
                    std::vector<RecordView> scanned(queries.views.begin() + q0, queries.views.begin() + q1);
                    if (both) scanned.insert(scanned.end(), minus_views.begin() + q0, minus_views.begin() + q1);
                    // Each query's best max_hits of the chunk (on the GPU), in
                    // the canonical order; the filters keep a prefix of them.
                    const std::vector<std::vector<gpu::ScanHit>> top = g.top(scanned, chunk, o.max_hits, both);
                    for (std::size_t qi = q0; qi < q1; ++qi) {
                        const RecordView& q = queries.views[qi];
                        std::vector<SearchHit>& kept = part.hits[qi];
                        for (const gpu::ScanHit& t : top[qi - q0]) {
                            if (!passes_filters(t.score, c.mode, o, ka, q.codes.size(), n)) continue;
                            SearchHit h;
                            h.target = static_cast<std::uint32_t>(b + t.record);
                            h.result.score = t.score;  // the alignment (below) has this score and the coordinates
                            h.result.strand = t.minus ? Strand::minus : Strand::plus;
                            add_statistics(h, c.mode, ka, q.codes.size(), n);
                            kept.push_back(std::move(h));
                        }
                        keep_best(kept, o.max_hits);
                    }
                }
                b = e;
            }
            part.kernel_ms = g.scan_kernel_ms();
            spdlog::debug("search: device {} scanned DB records {} to {} ({} letters) in {} chunk(s) of at most {} "
                          "letters, {:.3f} s of scan kernels ({})",
                          devices[d], part.begin, part.end, part.letters, part.chunks, chunk_letters,
                          part.kernel_ms / 1e3, g.dedicated_scan() ? "ScanEngine" : "batch engine");
        };
        run_on_devices(devices.size(), scan_part);
        for (std::size_t qi = 0; qi < hits.size(); ++qi) {
            for (ScanPart& part : parts)
                hits[qi].insert(hits[qi].end(), std::make_move_iterator(part.hits[qi].begin()),
                                std::make_move_iterator(part.hits[qi].end()));
            keep_best(hits[qi], o.max_hits);
        }

        // The hits' alignments: consecutive runs of about equal cells, one per GPU.
        std::vector<gpu::PairView> pairs;
        std::vector<std::uint64_t> pair_cells;
        for (std::size_t qi = 0; qi < hits.size(); ++qi)
            for (const SearchHit& h : hits[qi]) {
                pairs.push_back({(h.result.strand == Strand::minus ? minus_views : queries.views)[qi].codes,
                                 db.views[h.target].codes});
                pair_cells.push_back(std::max<std::uint64_t>(1, pairs.back().query.size() * pairs.back().ref.size()));
            }
        const std::vector<std::size_t> pair_cuts = even_cuts(pair_cells, devices.size());
        std::vector<std::vector<AlignmentResult>> aligned(devices.size());
        run_on_devices(devices.size(), [&](std::size_t d) {
            if (pair_cuts[d] == pair_cuts[d + 1]) return;
            GpuSearch g(c, scheme, devices[d], part_threads);
            aligned[d] = g.align(std::span(pairs).subspan(pair_cuts[d], pair_cuts[d + 1] - pair_cuts[d]), c.score_only);
            spdlog::debug("search: device {} aligned hits {} to {}", devices[d], pair_cuts[d], pair_cuts[d + 1]);
        });
        std::size_t d = 0, k = 0;
        for (auto& per_query : hits)
            for (SearchHit& h : per_query) {
                while (k == aligned[d].size()) {
                    ++d;
                    k = 0;
                }
                const Strand strand = h.result.strand;
                h.result = std::move(aligned[d][k++]);
                h.result.strand = strand;
            }
    }
    std::uint64_t hits_written = 0;
    for (std::size_t qi = 0; qi < hits.size(); ++qi)
        for (const SearchHit& h : hits[qi]) {
            writer.write(queries.views[qi], db.views[h.target], h);
            ++hits_written;
        }
    writer.commit();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::debug("search: {} hits written", hits_written);
    return stats;
}

}  // namespace gpualign
