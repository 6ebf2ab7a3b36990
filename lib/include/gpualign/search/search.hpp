// gpualign — query-vs-database search: every query against every DB record,
// the best hits per query, their alignments, bit scores and E-values.
//
// The method is exhaustive dynamic programming (Smith-Waterman-Gotoh,
// Needleman-Wunsch-Gotoh or semi-global: the query end to end, the DB
// record's end gaps free; docs/scoring.md) over every (query, DB record)
// pair, as in SWIPE (Rognes 2011) and CUDASW++ 4.0 (Schmidt et al. 2024):
// a score-only scan, then full alignments of the reported hits only.
// Statistics: Karlin & Altschul (1990), statistics.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/io/record_block.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/pipeline/pipeline.hpp"

namespace gpualign {

/// One reported hit of a query.
struct SearchHit {
    std::uint32_t target = 0;       ///< DB record index, 0-based in DB file order
    AlignmentResult result;         ///< as align_pair(query, DB record) gives it (0-based half-open)
    std::optional<double> evalue;   ///< E-value (statistics.hpp); empty without published λ/K or outside local mode
    std::optional<double> bits;     ///< bit score; empty likewise
};

/// The hits among `scores` (one per DB record, index = DB order) in
/// canonical order: score descending, then DB index ascending. A record is a
/// hit when its score is > 0 (local; 0 means unaligned) or any score
/// (global, semi-global: every pair has an alignment, possibly of negative
/// score), at least options.min_score, and it is among the first
/// options.max_hits of those; then, with options.max_evalue, those whose
/// E-value (statistics.hpp evalue with `ka`) is above it are dropped. The
/// E-value filter comes after the top max_hits because Spouge's E-value
/// depends on the record's length, so it is not monotone in the score.
/// @param query_len  the query's letters (m of the E-value).
/// @param ref_lens   the letters of each DB record (as many as `scores`);
///                   read only with options.max_evalue.
/// @param db         the DB of the E-values (DbSize).
/// @return DB indices, at most options.max_hits.
/// @throws std::invalid_argument when options.max_evalue is set without `ka`
///         or with `ref_lens` of another size than `scores`.
std::vector<std::uint32_t> select_hits(std::span<const std::int32_t> scores, AlignMode mode,
                                       const SearchOptions& options, const std::optional<KarlinAltschul>& ka,
                                       std::uint64_t query_len, std::span<const std::uint64_t> ref_lens, DbSize db);

/// Searches one query against `db` on the CPU with the `kernel` (inter-pair
/// SIMD, whose lanes share the query, or the scalar reference align_pair,
/// which every backend reproduces byte for byte): scores every record
/// (score_pairs_cpu, `threads` OpenMP threads), selects the hits
/// (select_hits), aligns the hits (align_pairs_cpu) with a CIGAR (unless `score_only`) and
/// fills its statistics (local mode with `ka` only).
/// With `strand` both (DNA codes only), every record is also scored against
/// the reverse complement of the query and keeps the better of its two
/// scores (better_strand: ties to plus); the hits are selected on those
/// scores and each is aligned on its strand (SearchHit::result.strand; a
/// minus hit's query coordinates and CIGAR are the reverse complement's).
/// @param query, db  codes, host memory, borrowed for the call.
/// @throws std::length_error for a pair beyond the 32-bit score bound;
///         std::invalid_argument as select_hits, or for a query code that
///         is not DNA with `strand` both.
std::vector<SearchHit> search_query_cpu(std::span<const std::uint8_t> query, std::span<const RecordView> db,
                                        const ScoringScheme& s, AlignMode mode, bool score_only,
                                        const SearchOptions& options, const std::optional<KarlinAltschul>& ka,
                                        int threads, CpuKernel kernel = CpuKernel::simd,
                                        StrandChoice strand = StrandChoice::plus);

/// Runs `gpualign search QUERIES DB` as described by a validated `config`
/// (config.search set; config.ref_path is the DB).
///
/// Reads the whole DB and all queries (FASTA/FASTQ, plain or gzip) into
/// host memory, on config.threads parser threads. Backends: the CPU
/// (search_query_cpu's path), or a GPU, where the batch engine (gpu::BatchEngine)
/// scores every pair it accepts in score-only mode and then aligns the hits
/// with CIGAR; pairs it does not accept go through align_pair on the CPU.
/// With config.strand both (DNA only), each query is searched on both
/// strands: every (query, DB record) keeps its better strand (ties to plus)
/// before the hits are selected, on every backend (search_query_cpu).
/// Output (docs/search.md), queries in input order, hits in canonical order:
///  - blast6: qseqid sseqid pident length mismatch gapopen qstart qend
///    sstart send evalue bitscore (1-based inclusive; "NA" statistics
///    without published λ/K; sstart > send for a minus-strand hit);
///  - tsv: the pairs TSV columns up to cigar (writers.hpp) plus evalue,
///    bitscore and strand;
///  - sam: one record per hit (FLAG 16 on the minus strand), an @SQ line per
///    DB record.
/// Written to a temporary file renamed on success: a failed run leaves no
/// partial output.
/// @return pairs = queries x DB records, cells = sum of their products.
/// @throws InputError (file, record, position named) for bad input, e.g. a
///         record with a letter outside the alphabet or an empty sequence;
///         std::invalid_argument for --evalue with a scheme without λ/K;
///         OptionError for --strand both on protein (check_strand_choice);
///         OutputError; std::runtime_error for device errors.
RunStats run_search(const AlignConfig& config);

}  // namespace gpualign
