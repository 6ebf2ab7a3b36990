// gpualign — the GPU backend of `gpualign search` (run_search): the DB
// scanned on one GPU or shared between several (--devices), then the hits
// aligned on the GPUs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/search/search.hpp"

namespace gpualign::detail {

/// The hits of every query (hits[qi] for queries[qi], in the canonical order,
/// as search_query_cpu finds them: the same bytes on every backend).
///
/// Each GPU of `devices` scans a part of `db`: consecutive records of about
/// equal letters. Within its part the DB goes to the GPU in chunks of at
/// most 4 Gi letters (a quarter of --gpu-memory when set); each query keeps
/// the canonical best hits of all chunks so far. The best max_hits of a
/// union are the best max_hits of the parts' best max_hits (the order,
/// score then DB index, is total), the E-values use `db_size` (the whole
/// DB's, or --db-size and --db-seqs) and the --evalue filter applies to the
/// merged top max_hits (as select_hits), so neither chunks nor GPUs ever
/// change the output. The hits are then aligned in consecutive runs of about equal
/// cells, one per GPU. With c.strand both, every query is searched on both
/// strands.
/// @param queries, db  host records, borrowed for the call.
/// @param threads  host threads of the run, shared between the GPUs.
/// @throws std::runtime_error for device errors; what gpu::ScanEngine,
///         gpu::BatchEngine and align_pair throw for a pair they cannot align.
std::vector<std::vector<SearchHit>> search_on_gpus(const AlignConfig& c, const ScoringScheme& scheme,
                                                   const std::vector<int>& devices, int threads,
                                                   std::span<const RecordView> queries, std::span<const RecordView> db,
                                                   const std::optional<KarlinAltschul>& ka, DbSize db_size);

}  // namespace gpualign::detail
