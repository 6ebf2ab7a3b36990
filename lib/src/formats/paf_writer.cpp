// gpualign — the PAF writer (minimap2's PAF): one line an aligned pair.
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

/// Appends the PAF line of one pair (minimap2's PAF: 12 columns, 0-based
/// half-open coordinates, the query's on its forward strand, strand '+' or
/// '-', MAPQ 255 = not available, then NM:i, AS:i and cg:Z, the CIGAR along
/// the forward reference as minimap2 writes it) to `line_`; nothing for an
/// unaligned pair or one with a zero-length side, whose global alignment is
/// a gap alone (as minimap2 leaves out unmapped queries by default).
void format_paf_line(const RecordView& q, const RecordView& r, const AlignmentResult& res, const WriterOptions& o,
                     fmt::memory_buffer& line_) {
    check_coordinates(q, r, res);
    if (is_unaligned(res) || q.sequence.empty() || r.sequence.empty()) return;
    const CigarStats st = cigar_stats(res.cigar);
    const Interval qi = forward_query(q, res);
    fmt::format_to(fmt::appender(line_), "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t255\tNM:i:{}\tAS:i:{}\tcg:Z:", q.name,
                   q.sequence.size(), qi.begin, qi.end, strand_char(res.strand), r.name, r.sequence.size(),
                   res.ref_begin, res.ref_end, st.matches, st.alignment_len(), st.edit_distance(), res.score);
    if (o.sam_cigar_m)
        append_cigar_m(res.cigar, line_);
    else
        append_cigar(res.cigar, line_);
    line_.push_back('\n');
}

}  // namespace

std::unique_ptr<AlignmentWriter::Impl> make_paf_writer(const std::string& path, const WriterOptions& options) {
    return make_line_writer(path, "", &format_paf_line, options);
}

}  // namespace format_detail
}  // namespace gpualign
