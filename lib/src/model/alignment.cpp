#include "gpualign/model/alignment.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace gpualign {

CigarStats cigar_stats(std::span<const std::uint32_t> cigar) noexcept {
    // Columns and runs counted by op code (the low 4 bits), without a branch
    // per run: the ops of a CIGAR alternate unpredictably.
    std::array<std::uint64_t, 16> columns{}, runs{};
    for (const std::uint32_t c : cigar) {
        columns[c & 0xF] += cigar_len(c);
        ++runs[c & 0xF];
    }
    const auto at = [](const std::array<std::uint64_t, 16>& a, CigarOp op) { return a[static_cast<std::size_t>(op)]; };
    CigarStats st;
    st.matches = at(columns, CigarOp::eq);
    st.mismatches = at(columns, CigarOp::diff);
    st.inserted = at(columns, CigarOp::ins);
    st.deleted = at(columns, CigarOp::del);
    st.gap_opens = at(runs, CigarOp::ins) + at(runs, CigarOp::del);
    return st;
}

std::string cigar_string(std::span<const std::uint32_t> cigar) {
    std::string out;
    for (std::uint32_t c : cigar) {
        out += std::to_string(cigar_len(c));
        out += cigar_char(cigar_op(c));
    }
    return out;
}

std::int32_t rescore_cigar(const AlignmentResult& r, std::span<const std::uint8_t> query,
                           std::span<const std::uint8_t> ref, const ScoringScheme& s) {
    auto fail = [](const std::string& why) { throw std::logic_error("CIGAR check failed: " + why); };
    if (r.query_begin < 0 || r.ref_begin < 0 || r.query_begin > r.query_end || r.ref_begin > r.ref_end ||
        static_cast<std::size_t>(r.query_end) > query.size() || static_cast<std::size_t>(r.ref_end) > ref.size())
        fail("coordinates outside the sequences");
    std::int64_t qi = r.query_begin, rj = r.ref_begin, score = 0;
    int last_op = -1;
    for (std::uint32_t c : r.cigar) {
        const CigarOp op = cigar_op(c);
        const std::int64_t len = cigar_len(c);
        if (len == 0) fail("zero-length run");
        if (static_cast<int>(op) == last_op) fail("two adjacent runs of the same op");
        last_op = static_cast<int>(op);
        switch (op) {
            case CigarOp::eq:
            case CigarOp::diff:
                if (qi + len > r.query_end || rj + len > r.ref_end) fail("diagonal run past the end");
                for (std::int64_t k = 0; k < len; ++k, ++qi, ++rj) {
                    const bool same = residues_identical(s.alphabet, query[qi], ref[rj]);
                    if (same != (op == CigarOp::eq)) fail("'=' / 'X' disagrees with the sequences at query " + std::to_string(qi));
                    score += s.score(query[qi], ref[rj]);
                }
                break;
            case CigarOp::ins:
                if (qi + len > r.query_end) fail("insertion past the query end");
                qi += len;
                score -= s.gap_open + len * s.gap_extend;
                break;
            case CigarOp::del:
                if (rj + len > r.ref_end) fail("deletion past the ref end");
                rj += len;
                score -= s.gap_open + len * s.gap_extend;
                break;
            default: fail("unknown op");
        }
    }
    if (qi != r.query_end || rj != r.ref_end) fail("CIGAR does not reach the end coordinates");
    return static_cast<std::int32_t>(score);
}

}  // namespace gpualign
