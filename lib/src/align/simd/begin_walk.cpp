// gpualign — the canonical local begin cell from the pair's H matrix alone.
// Interface: begin_walk.hpp. Scalar twin: traceback_walk over the
// direction bytes of align_pair_full_matrix (lib/src/align/reference/reference_aligner.cpp
// and traceback_walk.hpp), whose begin cell this walk returns.
//
// Why this is the reference's begin. The reference's direction byte of a
// cell records (docs/scoring.md): the H source, diagonal when H equals the
// diagonal term (it wins ties against E and F), else E when H equals
// Ecell, else F; zero when the local H is 0; and whether Ecell / Fcell came
// from extension (strictly: e_ext > e_open, so an opening wins a tie). Each
// of these is a comparison of values that follow from H alone:
//   diagonal term  H(i-1, j-1) + s(q_i, r_j)        (H = 0 on row/column 0)
//   Ecell(i, j)  = max over 1 <= k <= j of H(i, j-k) - O - (k-1) E
//   Fcell(i, j)  = max over 1 <= k <= i of H(i-k, j) - O - (k-1) E
// (the recurrences unrolled from Ecell(i, 0) = Fcell(0, j) = -inf; O = go
// + ge, E = ge). So the walk below makes the reference's decisions from
// the exact H:
//  - state H at (i, j), v = H(i, j): v = 0 stops (zero takes precedence);
//    v = diagonal term moves diagonally (and stops on row or column 0);
//    else v = Ecell(i, j) enters state E; else state F (checked: v =
//    Fcell(i, j)). Since Ecell <= H, "Ecell == v" holds iff some term of
//    the maximum equals v, and a term is at most score - O - (k-1) E (H
//    never exceeds the best score), so the scan stops once that bound falls
//    below v: a few cells for short gaps;
//  - state E at (i, j) with value e = Ecell(i, j): the reference's "E
//    extended" bit is clear iff e == H(i, j-1) - O (then state H at
//    (i, j-1)), else Ecell(i, j-1) = e + E and the walk stays in E at
//    (i, j-1). State F likewise, upwards.
// The exact H comes from the 8-bit pass (striped_score8_kernel.cpp) when
// it did not overflow. A value that contradicts the recurrence throws
// std::logic_error.
//
// Row access: the walk only ever moves one row up, so a row's (segment,
// lane) position steps back without divisions.
#include "align/simd/begin_walk.hpp"

#include <stdexcept>
#include <string>

namespace gpualign::cpu {
namespace {

/// Row i's place in a striped column: segment k = (i-1) % seg_len, lane
/// (i-1) / seg_len.
struct RowPos {
    std::size_t k = 0, lane = 0;
};

RowPos row_pos(std::size_t i, std::size_t seg_len) { return {(i - 1) % seg_len, (i - 1) / seg_len}; }

/// Row i-1's place from row i's (i >= 2).
RowPos row_above(RowPos p, std::size_t seg_len) {
    if (p.k > 0) return {p.k - 1, p.lane};
    return {seg_len - 1, p.lane - 1};
}

[[noreturn]] void inconsistent(std::int64_t i, std::int64_t j, const char* what) {
    throw std::logic_error("local_begin_from_h: H contradicts the recurrence at (" + std::to_string(i) + "," +
                           std::to_string(j) + "): " + what);
}

}  // namespace

LocalBegin local_begin_from_h(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                              const ScoringScheme& s, const StripedH8& hm, std::int32_t score,
                              std::int32_t query_end, std::int32_t ref_end) {
    if (score < 1 || query_end < 1 || ref_end < 1 || static_cast<std::size_t>(query_end) > query.size() ||
        static_cast<std::size_t>(ref_end) > ref.size() || hm.lanes == 0 || hm.seg_len == 0)
        throw std::logic_error("local_begin_from_h: no aligned end cell");
    const std::size_t S = hm.seg_len, L = hm.lanes, col = S * L;
    const std::int32_t open = s.gap_open + s.gap_extend, ext = s.gap_extend;
    // H(i, j) at row position p (i, j >= 1).
    const auto h_at = [&](std::int64_t j, RowPos p) -> std::int32_t {
        return hm.h[static_cast<std::size_t>(j - 1) * col + p.k * L + p.lane];
    };
    // Whether Ecell(i, j) == v (v = H(i, j) >= 1).
    const auto e_is = [&](std::int64_t j, RowPos p, std::int32_t v) {
        for (std::int64_t k = 1; j - k >= 1; ++k) {
            const std::int64_t gap = open + (k - 1) * static_cast<std::int64_t>(ext);
            if (score - gap < v) break;
            if (h_at(j - k, p) - gap == v) return true;
        }
        return false;
    };
    // Whether Fcell(i, j) == v.
    const auto f_is = [&](std::int64_t i, std::int64_t j, RowPos p, std::int32_t v) {
        for (std::int64_t k = 1; i - k >= 1; ++k) {
            p = row_above(p, S);
            const std::int64_t gap = open + (k - 1) * static_cast<std::int64_t>(ext);
            if (score - gap < v) break;
            if (h_at(j, p) - gap == v) return true;
        }
        return false;
    };

    std::int64_t i = query_end, j = ref_end;
    RowPos p = row_pos(static_cast<std::size_t>(i), S);
    if (h_at(j, p) != score) inconsistent(i, j, "the end cell does not hold the score");
    enum class State { h, e, f } state = State::h;
    std::int32_t val = 0;  // Ecell or Fcell in states E and F
    const std::size_t size = static_cast<std::size_t>(s.size);
    while (true) {
        if (state == State::h) {
            const std::int32_t v = h_at(j, p);
            if (v == 0) break;  // zero takes precedence
            const RowPos up = i > 1 ? row_above(p, S) : RowPos{};
            const std::int32_t diag = (i > 1 && j > 1 ? h_at(j - 1, up) : 0) +
                                      s.matrix[static_cast<std::size_t>(query[static_cast<std::size_t>(i - 1)]) * size +
                                               ref[static_cast<std::size_t>(j - 1)]];
            if (diag == v) {
                --i;
                --j;
                p = up;
                if (i == 0 || j == 0) break;
                continue;
            }
            val = v;
            if (e_is(j, p, v)) {
                state = State::e;
            } else {
                if (!f_is(i, j, p, v)) inconsistent(i, j, "H is neither diagonal, Ecell nor Fcell");
                state = State::f;
            }
        } else if (state == State::e) {
            if (j < 2) inconsistent(i, j, "a gap runs into column 0");
            if (val != h_at(j - 1, p) - open) val += ext;  // extended: Ecell(i, j-1) = Ecell(i, j) + E
            else state = State::h;
            --j;
        } else {
            if (i < 2) inconsistent(i, j, "a gap runs into row 0");
            const RowPos up = row_above(p, S);
            if (val != h_at(j, up) - open) val += ext;
            else state = State::h;
            --i;
            p = up;
        }
    }
    return {static_cast<std::int32_t>(i), static_cast<std::int32_t>(j)};
}

}  // namespace gpualign::cpu
