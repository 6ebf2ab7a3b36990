// Hit selection of the search (search.hpp, hits.hpp).
#include "search/hits.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "gpualign/model/strand.hpp"

namespace gpualign {
namespace detail {

bool passes_score_filters(std::int32_t s, AlignMode mode, const SearchOptions& options) {
    if (mode == AlignMode::local && s <= 0) return false;
    if (options.min_score && s < *options.min_score) return false;
    return true;
}

void drop_above_evalue(std::vector<SearchHit>& hits, const SearchOptions& options) {
    if (!options.max_evalue) return;
    std::erase_if(hits, [&](const SearchHit& h) { return !h.evalue || *h.evalue > *options.max_evalue; });
}

std::uint64_t letters_of(std::span<const RecordView> db) {
    std::uint64_t n = 0;
    for (const RecordView& r : db) n += r.sequence.size();
    return n;
}

DbSize db_size_of(std::span<const RecordView> db, const SearchOptions& options) {
    return DbSize{options.db_size.value_or(letters_of(db)), options.db_sequences.value_or(db.size())};
}

void add_statistics(SearchHit& hit, AlignMode mode, const std::optional<KarlinAltschul>& ka, std::uint64_t query_len,
                    std::uint64_t ref_len, DbSize db) {
    if (mode != AlignMode::local || !ka) return;
    hit.evalue = evalue(*ka, hit.result.score, query_len, ref_len, db);
    hit.bits = bit_score(*ka, hit.result.score);
}

std::vector<Strand> keep_better_strand_scores(std::span<std::int32_t> scores, std::span<const std::int32_t> minus) {
    std::vector<Strand> strands(scores.size(), Strand::plus);
    for (std::size_t t = 0; t < scores.size(); ++t)
        if (better_strand(scores[t], minus[t]) == Strand::minus) {
            scores[t] = minus[t];
            strands[t] = Strand::minus;
        }
    return strands;
}

}  // namespace detail

std::vector<std::uint32_t> select_hits(std::span<const std::int32_t> scores, AlignMode mode,
                                       const SearchOptions& options, const std::optional<KarlinAltschul>& ka,
                                       std::uint64_t query_len, std::span<const std::uint64_t> ref_lens, DbSize db) {
    if (options.max_evalue && !ka)
        throw std::invalid_argument("--evalue needs Karlin-Altschul parameters, which this scoring scheme has none of");
    if (options.max_evalue && ref_lens.size() != scores.size())
        throw std::invalid_argument("select_hits: --evalue needs the length of every DB record");
    std::vector<std::uint32_t> hits;
    for (std::size_t t = 0; t < scores.size(); ++t)
        if (detail::passes_score_filters(scores[t], mode, options)) hits.push_back(static_cast<std::uint32_t>(t));
    auto better = [&](std::uint32_t a, std::uint32_t b) { return scores[a] != scores[b] ? scores[a] > scores[b] : a < b; };
    const std::size_t k = std::min(options.max_hits, hits.size());
    std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(), better);
    hits.resize(k);
    if (options.max_evalue)
        std::erase_if(hits, [&](std::uint32_t t) {
            return evalue(*ka, scores[t], query_len, ref_lens[t], db) > *options.max_evalue;
        });
    return hits;
}

}  // namespace gpualign
