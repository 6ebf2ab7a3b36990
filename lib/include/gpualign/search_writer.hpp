// gpualign — the output of `gpualign search`: BLAST tabular, TSV with
// statistics, or SAM, one line or record per hit.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gpualign/record_block.hpp"
#include "gpualign/search.hpp"
#include "gpualign/writers.hpp"

namespace gpualign {

/// The TSV header of search output: tsv_header plus "evalue" and "bitscore".
inline constexpr std::string_view search_tsv_header =
    "query\tquery_len\tquery_begin\tquery_end\tref\tref_len\tref_begin\tref_end\tscore\tmatches\tmismatches\t"
    "gap_opens\talignment_len\tidentity\tcigar\tevalue\tbitscore";

/// Writes the hits of a search, one per call, in call order; the output
/// appears only on commit() (OutputFile). Not thread-safe.
///
///  - blast6 (BLAST+ -outfmt 6): qseqid sseqid pident length mismatch
///    gapopen qstart qend sstart send evalue bitscore, tab-separated, no
///    header. pident = 100 * matches / alignment columns (gaps included)
///    with 3 decimals; length = alignment columns; gapopen = gap runs;
///    coordinates 1-based inclusive; evalue and bitscore formatted as BLAST+
///    does (format_evalue, format_bit_score), "NA" when the hit has none.
///  - tsv: search_tsv_header, then the pairs TSV line (tsv_line) plus the
///    E-value and bit score (same formatting, "NA" when absent).
///  - sam: as AlignmentWriter writes pairs, with an @SQ line for every DB
///    record in DB order.
class SearchWriter {
public:
    /// @param db  the DB records (borrowed for the call; SAM @SQ lines).
    /// @throws OutputError when the output cannot be created.
    SearchWriter(const std::string& path, const WriterOptions& options, std::span<const RecordView> db);
    ~SearchWriter();
    SearchWriter(const SearchWriter&) = delete;
    SearchWriter& operator=(const SearchWriter&) = delete;

    /// Writes one hit of `query` on DB record `target`.
    /// @throws OutputError on a write error; std::logic_error when the
    ///         coordinates lie outside the sequences.
    void write(const RecordView& query, const RecordView& target, const SearchHit& hit);
    /// Completes the output. @throws OutputError naming the path.
    void commit();

private:
    OutputFormat format_;
    std::unique_ptr<OutputFile> text_;         // blast6, tsv
    std::unique_ptr<AlignmentWriter> sam_;     // sam
};

}  // namespace gpualign
