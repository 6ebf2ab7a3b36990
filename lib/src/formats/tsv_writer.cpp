// gpualign — the TSV writer: tsv_header, then one line a pair (writers.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gpualign/formats/writers.hpp"
#include "gpualign/model/strand.hpp"
#include "writer_detail.hpp"

namespace gpualign {
namespace format_detail {
namespace {

/// Appends the columns query .. cigar of one pair's TSV line (no strand,
/// no '\n') to `line_`: the part the pairs and search TSV share. The query
/// coordinates are on the forward strand of the query; with `cigar_m` the
/// CIGAR has M for = and X runs (--cigar m).
void append_tsv_columns(const RecordView& q, const RecordView& r, const AlignmentResult& res, bool cigar_m,
                        fmt::memory_buffer& line_) {
    check_coordinates(q, r, res);
    fmt::appender it(line_);
    const Interval qi = forward_query(q, res);
    fmt::format_to(it, "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t", q.name, q.sequence.size(), qi.begin, qi.end, r.name,
                   r.sequence.size(), res.ref_begin, res.ref_end, res.score);
    if (res.has_cigar) {
        const CigarStats st = cigar_stats(res.cigar);
        const std::uint64_t len = st.alignment_len();
        const double identity = len == 0 ? 0.0 : static_cast<double>(st.matches) / static_cast<double>(len);
        fmt::format_to(it, "{}\t{}\t{}\t{}\t{:.4f}\t", st.matches, st.mismatches, st.gap_opens, len, identity);
        if (res.cigar.empty())
            line_.push_back('*');  // unaligned: '*', as SAM writes an absent CIGAR, never an empty field
        else if (cigar_m)
            append_cigar_m(res.cigar, line_);
        else
            append_cigar(res.cigar, line_);
    } else {
        fmt::format_to(it, "*\t*\t*\t*\t*\t*");
    }
}

/// Appends the TSV line of one pair (with the strand column and its '\n') to `line_`.
void format_tsv_line(const RecordView& q, const RecordView& r, const AlignmentResult& res, const WriterOptions& o,
                     fmt::memory_buffer& line_) {
    append_tsv_columns(q, r, res, o.sam_cigar_m, line_);
    line_.push_back('\t');
    line_.push_back(strand_char(res.strand));
    line_.push_back('\n');
}

}  // namespace

std::unique_ptr<AlignmentWriter::Impl> make_tsv_writer(const std::string& path, const WriterOptions& options) {
    return make_line_writer(path, tsv_header, &format_tsv_line, options);
}

}  // namespace format_detail

std::string tsv_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result, bool cigar_m) {
    fmt::memory_buffer b;
    format_detail::append_tsv_columns(query, ref, result, cigar_m, b);
    return fmt::to_string(b);
}

}  // namespace gpualign
