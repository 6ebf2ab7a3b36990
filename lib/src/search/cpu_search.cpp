// The CPU search (search.hpp, search_query_cpu): one query against every DB
// record on the CPU. The scan scores all pairs (score-only; the SIMD lanes
// share the query), the canonical top hits are selected (select_hits), and
// only the hits are aligned, computing exactly what align_pair computes.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

#include "gpualign/model/strand.hpp"
#include "gpualign/search/search.hpp"
#include "search/hits.hpp"

namespace gpualign {

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
        strands = detail::keep_better_strand_scores(scores, score_all(minus_query));
    }
    const DbSize dbs = detail::db_size_of(db, options);  // the DB of the E-values
    std::vector<std::uint64_t> ref_lens;
    if (options.max_evalue) {
        ref_lens.resize(db.size());
        for (std::size_t t = 0; t < db.size(); ++t) ref_lens[t] = db[t].codes.size();
    }
    const std::vector<std::uint32_t> picked = select_hits(scores, mode, options, ka, query.size(), ref_lens, dbs);
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
        detail::add_statistics(hits[h], mode, ka, query.size(), db[picked[h]].codes.size(), dbs);
    }
    return hits;
}

}  // namespace gpualign
