// gpualign — the output of `gpualign search`: BLAST tabular, TSV with
// statistics, or SAM, one line or record per hit.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "gpualign/formats/writers.hpp"
#include "gpualign/io/record_block.hpp"
#include "gpualign/search/search.hpp"

namespace gpualign {

/// The TSV header of search output: the pairs columns up to cigar, then
/// "evalue", "bitscore" and "strand" (last, as in tsv_header).
inline constexpr std::string_view search_tsv_header =
    "query\tquery_len\tquery_begin\tquery_end\tref\tref_len\tref_begin\tref_end\tscore\tmatches\tmismatches\t"
    "gap_opens\talignment_len\tidentity\tcigar\tevalue\tbitscore\tstrand";

/// Writes the hits of a search, one per call, in call order; the output
/// appears only on commit() (OutputFile). Not thread-safe.
///
///  - blast6 (BLAST+ -outfmt 6): blast6_line, no header (a minus-strand
///    hit has sstart > send, as blastn writes it).
///  - tsv: search_tsv_header, then the pairs TSV columns up to cigar
///    (tsv_line) plus the E-value and bit score (formatted as BLAST+ does,
///    "NA" when absent) and the strand ('+' or '-').
///  - sam: as AlignmentWriter writes pairs (FLAG 16 and the
///    reverse-complemented read for a minus-strand hit), with an @SQ line
///    for every DB record in DB order. The first hit written for a query
///    (its best) is the primary record; the query's further hits are
///    secondary (AlignmentWriter::write_hit: FLAG 256, MAPQ 0, SEQ '*'), so
///    that `samtools flagstat` counts each query once.
class SearchWriter {
public:
    /// @param db  the DB records (borrowed for the call; SAM @SQ lines).
    /// @throws OutputError when the output cannot be created.
    SearchWriter(const std::string& path, const WriterOptions& options, std::span<const RecordView> db);
    ~SearchWriter();
    SearchWriter(const SearchWriter&) = delete;
    SearchWriter& operator=(const SearchWriter&) = delete;

    /// Writes one hit of `query` on DB record `target`. A query's hits come
    /// in consecutive calls, best first (query.number tells queries apart).
    /// @throws OutputError on a write error; std::logic_error when the
    ///         coordinates lie outside the sequences.
    void write(const RecordView& query, const RecordView& target, const SearchHit& hit);
    /// Completes the output. @throws OutputError naming the path.
    void commit();

private:
    OutputFormat format_;
    bool cigar_m_ = false;                     // --cigar m: the TSV cigar column with M
    bool any_written_ = false;
    std::uint64_t last_query_ = 0;             // RecordView::number of the last hit's query
    std::unique_ptr<OutputFile> text_;         // blast6, tsv
    std::unique_ptr<AlignmentWriter> sam_;     // sam
};

}  // namespace gpualign
