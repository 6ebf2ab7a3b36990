// gpualign — the pieces of hit selection that the CPU search (cpu_search.cpp)
// and the GPU search (pipeline/gpu_search.cpp) share with select_hits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gpualign/search/search.hpp"

namespace gpualign::detail {

/// Whether a hit of score `s` passes the score filters: local scores above
/// 0 and --min-score (each keeps the scores from a threshold up, so a top-k
/// by score taken before or after them is the same).
bool passes_score_filters(std::int32_t s, AlignMode mode, const SearchOptions& options);

/// Drops from `hits` those whose E-value exceeds options.max_evalue (none
/// when it is unset); keeps the order. The E-value filter comes after the
/// top max_hits by score: Spouge's E-value depends on the DB record's
/// length, so it is not monotone in the score, and every backend applies
/// it to the same top list.
void drop_above_evalue(std::vector<SearchHit>& hits, const SearchOptions& options);

/// Letters of the DB records (their sequences' lengths summed).
std::uint64_t letters_of(std::span<const RecordView> db);

/// The DB of the E-values: --db-size and --db-seqs, else the letters and
/// records of `db`.
DbSize db_size_of(std::span<const RecordView> db, const SearchOptions& options);

/// Fills the statistics of `hit` (local mode with published λ/K only) for a
/// query of `query_len` letters and a DB record of `ref_len` in the DB `db`.
void add_statistics(SearchHit& hit, AlignMode mode, const std::optional<KarlinAltschul>& ka, std::uint64_t query_len,
                    std::uint64_t ref_len, DbSize db);

/// With both strands: keeps in `scores` (the plus strand's, one per DB
/// record) the better of each record's two scores (better_strand, ties to
/// plus; `minus` the minus strand's, as many), and returns the strand of each.
std::vector<Strand> keep_better_strand_scores(std::span<std::int32_t> scores, std::span<const std::int32_t> minus);

}  // namespace gpualign::detail
