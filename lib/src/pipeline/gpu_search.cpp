// The GPU backend of the search (gpu_search.hpp).
#include "gpu_search.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "device_shares.hpp"
#include "run_setup.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/gpu/batch_engine.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/gpu/scan_engine.hpp"
#include "gpualign/model/strand.hpp"
#include "search/hits.hpp"

namespace gpualign::detail {
namespace {

/// DB letters resident on the GPU at once without --gpu-memory (a larger DB
/// is scanned in chunks of this size, with the same results).
constexpr std::uint64_t search_chunk_letters = std::uint64_t{4} << 30;

/// The GPU path: the DB resident in a gpu::ScanEngine scores every pair
/// (one thread per DB sequence; schemes it does not hold go through the
/// batch engine, gpu::BatchEngine, in score-only mode), then gpu::BatchEngine aligns
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
        if (!batch_scan_) batch_scan_ = std::make_unique<gpu::BatchEngine>(s_, c_.mode, true, options_);
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
            for (const std::uint32_t t : select_hits(scores, c_.mode, best_k, std::nullopt, 0, {}, DbSize{}))
                hits[y].push_back({t, scores[t], strands[t] == Strand::minus});
        }
        return hits;
    }

    /// The alignments of `pairs` (with CIGAR unless `score_only`).
    std::vector<AlignmentResult> align(std::span<const gpu::PairView> pairs, bool score_only) {
        scan_.reset();  // the scan is over: its device memory goes to the batch engine
        batch_scan_.reset();
        // A search's hits are far fewer than a batch of the inter-pair
        // kernel's traceback variant (SMs x 256 pairs); its larger default
        // buffers would only add to the start-up.
        gpu::BatchEngineOptions o = options_;
        if (!score_only) o.pair_kernels = false;
        gpu::BatchEngine e(s_, c_.mode, score_only, o);
        return run(e, pairs, score_only);
    }

    double scan_kernel_ms() const noexcept { return kernel_ms_; }
    bool dedicated_scan() const noexcept { return dedicated_; }

private:
    std::vector<AlignmentResult> run(gpu::BatchEngine& e, std::span<const gpu::PairView> pairs, bool score_only) {
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
    gpu::BatchEngineOptions options_;
    std::unique_ptr<gpu::ScanEngine> scan_;
    std::unique_ptr<gpu::BatchEngine> batch_scan_;
    double kernel_ms_ = 0;
    bool dedicated_ = false;
};

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
    double load_s = 0;  ///< packing and copying the DB chunks to the device (ScanEngine's constructor)
    double scan_s = 0;  ///< the scans and the selection of each chunk's best hits
    std::vector<std::vector<SearchHit>> hits;  // per query: the part's best max_hits, scores only
};

/// What every GPU of a search reads: the inputs, the statistics and the
/// split of the work.
struct GpuSearchInputs {
    const AlignConfig& c;
    const ScoringScheme& scheme;
    const std::vector<int>& devices;
    int part_threads;                         ///< host threads of each GPU
    std::span<const RecordView> queries, db;
    std::span<const RecordView> minus_views;  ///< with both strands: minus_views[qi] is query qi's minus strand
    const std::optional<KarlinAltschul>& ka;
    DbSize db_size;                           ///< the DB of the E-values
    std::uint64_t chunk_letters;              ///< DB letters resident on a GPU at once
};

/// Adds to part.hits the hits of queries [q0, q1) among `top` (each query's
/// best max_hits of the chunk that begins at DB record `chunk_begin`, in the
/// canonical order; the filters keep a prefix of them).
void keep_chunk_hits(const GpuSearchInputs& in, std::size_t q0, std::size_t q1, std::size_t chunk_begin,
                     const std::vector<std::vector<gpu::ScanHit>>& top, ScanPart& part) {
    const SearchOptions& o = *in.c.search;
    for (std::size_t qi = q0; qi < q1; ++qi) {
        const RecordView& q = in.queries[qi];
        std::vector<SearchHit>& kept = part.hits[qi];
        for (const gpu::ScanHit& t : top[qi - q0]) {
            if (!passes_score_filters(t.score, in.c.mode, o)) continue;
            SearchHit h;
            h.target = static_cast<std::uint32_t>(chunk_begin + t.record);
            h.result.score = t.score;  // the alignment (align_hits) has this score and the coordinates
            h.result.strand = t.minus ? Strand::minus : Strand::plus;
            add_statistics(h, in.c.mode, in.ka, q.codes.size(), in.db[h.target].codes.size(), in.db_size);
            kept.push_back(std::move(h));
        }
        keep_best(kept, o.max_hits);
    }
}

/// Scans the DB records [part.begin, part.end) on GPU `in.devices[d]`, in
/// chunks of at most in.chunk_letters letters, keeping in part.hits each
/// query's best hits (scores only).
void scan_part(const GpuSearchInputs& in, std::size_t d, ScanPart& part) {
    const AlignConfig& c = in.c;
    const bool both = c.strand == StrandChoice::both;
    GpuSearch g(c, in.scheme, in.devices[d], in.part_threads);
    for (std::size_t b = part.begin; b < part.end; ++part.chunks) {
        std::size_t e = b;
        std::uint64_t chunk_size = 0;
        while (e < part.end && (e == b || chunk_size + in.db[e].codes.size() <= in.chunk_letters))
            chunk_size += in.db[e++].codes.size();
        part.letters += chunk_size;
        const std::span<const RecordView> chunk = in.db.subspan(b, e - b);
        const auto l0 = Clock::now();
        g.load_chunk(chunk);
        part.load_s += seconds_since(l0);
        const auto s0 = Clock::now();
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
        for (std::size_t q0 = 0; q0 < in.queries.size(); q0 += group) {
            const std::size_t q1 = std::min(in.queries.size(), q0 + group);
            std::vector<RecordView> scanned(in.queries.begin() + q0, in.queries.begin() + q1);
            if (both) scanned.insert(scanned.end(), in.minus_views.begin() + q0, in.minus_views.begin() + q1);
            // Each query's best max_hits of the chunk (on the GPU), in
            // the canonical order.
            keep_chunk_hits(in, q0, q1, b, g.top(scanned, chunk, c.search->max_hits, both), part);
        }
        part.scan_s += seconds_since(s0);
        b = e;
    }
    part.kernel_ms = g.scan_kernel_ms();
    spdlog::debug("search: device {} scanned DB records {} to {} ({} letters) in {} chunk(s) of at most {} "
                  "letters, {:.3f} s of scan kernels ({}); DB load {:.3f} s, scans {:.3f} s",
                  in.devices[d], part.begin, part.end, part.letters, part.chunks, in.chunk_letters,
                  part.kernel_ms / 1e3, g.dedicated_scan() ? "ScanEngine" : "batch engine", part.load_s, part.scan_s);
}

/// Aligns the hits (each on its strand): consecutive runs of about equal
/// cells, one per GPU; keeps each hit's strand.
void align_hits(const GpuSearchInputs& in, std::vector<std::vector<SearchHit>>& hits) {
    const std::size_t gpus = in.devices.size();
    std::vector<gpu::PairView> pairs;
    std::vector<std::uint64_t> pair_cells;
    for (std::size_t qi = 0; qi < hits.size(); ++qi)
        for (const SearchHit& h : hits[qi]) {
            pairs.push_back({(h.result.strand == Strand::minus ? in.minus_views : in.queries)[qi].codes,
                             in.db[h.target].codes});
            pair_cells.push_back(std::max<std::uint64_t>(1, pairs.back().query.size() * pairs.back().ref.size()));
        }
    const std::vector<std::size_t> pair_cuts = even_cuts(pair_cells, gpus);
    std::vector<std::vector<AlignmentResult>> aligned(gpus);
    run_on_devices(gpus, [&](std::size_t d) {
        if (pair_cuts[d] == pair_cuts[d + 1]) return;
        const auto a0 = Clock::now();
        GpuSearch g(in.c, in.scheme, in.devices[d], in.part_threads);
        aligned[d] = g.align(std::span(pairs).subspan(pair_cuts[d], pair_cuts[d + 1] - pair_cuts[d]), in.c.score_only);
        spdlog::debug("search: device {} aligned hits {} to {} in {:.3f} s", in.devices[d], pair_cuts[d],
                      pair_cuts[d + 1], seconds_since(a0));
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

}  // namespace

std::vector<std::vector<SearchHit>> search_on_gpus(const AlignConfig& c, const ScoringScheme& scheme,
                                                   const std::vector<int>& devices, int threads,
                                                   std::span<const RecordView> queries, std::span<const RecordView> db,
                                                   const std::optional<KarlinAltschul>& ka, DbSize db_size) {
    // With both strands: the queries reverse-complemented (minus_views[qi]
    // is query qi's minus strand).
    std::vector<std::uint8_t> minus_codes;
    const std::vector<RecordView> minus_views = c.strand == StrandChoice::both
                                                    ? reverse_strand_views(queries, minus_codes)
                                                    : std::vector<RecordView>{};
    const GpuSearchInputs in{c, scheme, devices, std::max(1, threads / static_cast<int>(devices.size())), queries, db,
                             minus_views, ka, db_size,
                             c.gpu_memory ? std::max<std::uint64_t>(c.gpu_memory / 4, 1) : search_chunk_letters};
    std::vector<std::uint64_t> record_letters(db.size());
    for (std::size_t t = 0; t < db.size(); ++t) record_letters[t] = std::max<std::size_t>(1, db[t].codes.size());
    const std::vector<std::size_t> cuts = even_cuts(record_letters, devices.size());
    std::vector<ScanPart> parts(devices.size());
    run_on_devices(devices.size(), [&](std::size_t d) {
        ScanPart& part = parts[d];
        part.begin = cuts[d];
        part.end = cuts[d + 1];
        part.hits.resize(queries.size());
        if (part.begin != part.end) scan_part(in, d, part);
    });
    std::vector<std::vector<SearchHit>> hits(queries.size());
    for (std::size_t qi = 0; qi < hits.size(); ++qi) {
        for (ScanPart& part : parts)
            hits[qi].insert(hits[qi].end(), std::make_move_iterator(part.hits[qi].begin()),
                            std::make_move_iterator(part.hits[qi].end()));
        keep_best(hits[qi], c.search->max_hits);
        drop_above_evalue(hits[qi], *c.search);  // after the top max_hits, as select_hits
    }
    align_hits(in, hits);
    return hits;
}

}  // namespace gpualign::detail
