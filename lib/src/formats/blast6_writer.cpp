// gpualign — the BLAST tabular writer (BLAST+ -outfmt 6): one line an aligned pair.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gpualign/formats/writers.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/model/strand.hpp"
#include "writer_detail.hpp"

namespace gpualign {
namespace format_detail {
namespace {

/// Appends the BLAST tabular line of one hit (blast6_line) and its '\n' to `out`.
void append_blast6_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result,
                        std::optional<double> evalue, std::optional<double> bits, fmt::memory_buffer& out) {
    check_coordinates(query, ref, result);
    const CigarStats st = cigar_stats(result.cigar);
    const std::uint64_t len = st.alignment_len();
    const double pident = len == 0 ? 0.0 : 100.0 * static_cast<double>(st.matches) / static_cast<double>(len);
    const Interval qi = forward_query(query, result);
    // blastn's minus-strand hits: the query forward (qstart < qend), the subject reversed (sstart > send).
    const bool minus = result.strand == Strand::minus;
    const std::int64_t sstart = minus ? result.ref_end : result.ref_begin + 1;
    const std::int64_t send = minus ? result.ref_begin + 1 : result.ref_end;
    fmt::format_to(fmt::appender(out), "{}\t{}\t{:.3f}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", query.name, ref.name, pident,
                   len, st.mismatches, st.gap_opens, qi.begin + 1, qi.end, sstart, send,
                   evalue ? format_evalue(*evalue) : std::string("NA"),
                   bits ? format_bit_score(*bits) : std::string("NA"));
}

/// Appends the BLAST tabular line of one pair (blast6_line) to `line_`;
/// nothing for an unaligned pair or one with a zero-length side (BLAST
/// reports no hit). E-value and bit
/// score from o.statistics, else NA; the DB of the E-value is the one ref,
/// as blastn/blastp -subject treat a subject.
void format_blast6_line(const RecordView& q, const RecordView& r, const AlignmentResult& res, const WriterOptions& o,
                        fmt::memory_buffer& line_) {
    check_coordinates(q, r, res);
    if (is_unaligned(res) || q.sequence.empty() || r.sequence.empty()) return;
    std::optional<double> e, bits;
    if (o.statistics) {
        e = evalue(*o.statistics, res.score, q.sequence.size(), r.sequence.size(), DbSize{r.sequence.size(), 1});
        bits = bit_score(*o.statistics, res.score);
    }
    append_blast6_line(q, r, res, e, bits, line_);
}

}  // namespace

std::unique_ptr<AlignmentWriter::Impl> make_blast6_writer(const std::string& path, const WriterOptions& options) {
    return make_line_writer(path, "", &format_blast6_line, options);
}

}  // namespace format_detail

std::string blast6_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result,
                        std::optional<double> evalue, std::optional<double> bits) {
    fmt::memory_buffer b;
    format_detail::append_blast6_line(query, ref, result, evalue, bits, b);
    return std::string(b.data(), b.size() - 1);  // without the '\n'
}

}  // namespace gpualign
