// gpualign — the pieces of hit selection that the CPU search (cpu_search.cpp)
// and the GPU search (pipeline/gpu_search.cpp) share with select_hits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gpualign/search/search.hpp"

namespace gpualign::detail {

/// Whether a hit of score `s` passes the filters: local scores above 0,
/// --min-score, --evalue (each keeps the scores from a threshold up).
/// `ka` must be set when options.max_evalue is.
bool passes_filters(std::int32_t s, AlignMode mode, const SearchOptions& options,
                    const std::optional<KarlinAltschul>& ka, std::uint64_t query_len, std::uint64_t db_letters);

/// Letters of the DB records (their sequences' lengths summed).
std::uint64_t letters_of(std::span<const RecordView> db);

/// Fills the statistics of `hit` (local mode with published λ/K only) for a
/// query of m letters and a DB of n.
void add_statistics(SearchHit& hit, AlignMode mode, const std::optional<KarlinAltschul>& ka, std::uint64_t m,
                    std::uint64_t n);

/// With both strands: keeps in `scores` (the plus strand's, one per DB
/// record) the better of each record's two scores (better_strand, ties to
/// plus; `minus` the minus strand's, as many), and returns the strand of each.
std::vector<Strand> keep_better_strand_scores(std::span<std::int32_t> scores, std::span<const std::int32_t> minus);

}  // namespace gpualign::detail
