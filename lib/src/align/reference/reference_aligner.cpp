// CPU reference aligner. Recurrences and tie rule: docs/scoring.md.
#include "gpualign/align/reference_aligner.hpp"

#include "align/traceback_walk.hpp"
#include "gpualign/align/long_aligner.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpualign {
namespace {

using detail::e_extended;
using detail::f_extended;
using detail::from_diag;
using detail::from_e;
using detail::from_f;
using detail::from_zero;
using detail::neg_inf;

// Boundary value of H on row 0 / column 0 for global mode: -(go + k*ge), k > 0.
std::int32_t global_border(const ScoringScheme& s, std::int64_t k) {
    return k == 0 ? 0 : static_cast<std::int32_t>(-(s.gap_open + k * s.gap_extend));
}
// H(0,j): 0 in local and semi-global mode (a free leading ref gap), the
// global border otherwise.
std::int32_t top_border(const ScoringScheme& s, AlignMode mode, std::int64_t j) {
    return mode == AlignMode::global ? global_border(s, j) : 0;
}
// H(i,0): 0 in local mode, the global border otherwise (semi-global charges
// the query's leading gap).
std::int32_t left_border(const ScoringScheme& s, AlignMode mode, std::int64_t i) {
    return mode == AlignMode::local ? 0 : global_border(s, i);
}

struct Cell { std::int32_t i, j; };

AlignmentResult align_with_traceback(std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
                                     const ScoringScheme& s, AlignMode mode) {
    const std::int64_t m = static_cast<std::int64_t>(q.size());
    const std::int64_t n = static_cast<std::int64_t>(r.size());
    const bool local = mode == AlignMode::local;
    const std::int32_t open = s.gap_open + s.gap_extend, ext = s.gap_extend;

    std::vector<std::uint8_t> dir(static_cast<std::size_t>(m * n));
    std::vector<std::int32_t> h_prev(n + 1), h_cur(n + 1), f(n + 1, neg_inf);
    for (std::int64_t j = 0; j <= n; ++j) h_prev[j] = top_border(s, mode, j);

    std::int32_t best = 0;
    Cell best_cell{0, 0};
    const std::int32_t h_floor = local ? 0 : neg_inf;
    for (std::int64_t i = 1; i <= m; ++i) {
        h_cur[0] = left_border(s, mode, i);
        std::int32_t e = neg_inf;
        std::int32_t h_left = h_cur[0];
        std::int32_t row_best = 0, row_best_j = 0;
        const std::int32_t* row_scores = &s.matrix[static_cast<std::size_t>(q[i - 1]) * s.size];
        std::uint8_t* d = dir.data() + static_cast<std::size_t>((i - 1) * n);  // not &dir[..]: dir is empty when n == 0
        // Branch-free form of the recurrences (conditional moves): the
        // choices are data-dependent and mispredict as branches.
        for (std::int64_t j = 1; j <= n; ++j) {
            // E(i,j) = max(E(i,j-1) - ge, H(i,j-1) - (go+ge)); opening wins ties.
            const std::int32_t e_open = h_left - open, e_ext = e - ext;
            const bool e_is_ext = e_ext > e_open;
            e = e_is_ext ? e_ext : e_open;
            // F(i,j) = max(F(i-1,j) - ge, H(i-1,j) - (go+ge)); opening wins ties.
            const std::int32_t f_open = h_prev[j] - open, f_ext = f[j] - ext;
            const bool f_is_ext = f_ext > f_open;
            const std::int32_t fj = f_is_ext ? f_ext : f_open;
            f[j] = fj;
            // H(i,j) = max(diag, E, F [, 0]); preference diag > E > F, zero first in local.
            std::int32_t h = h_prev[j - 1] + row_scores[r[j - 1]];
            std::uint8_t src = from_diag;
            src = e > h ? from_e : src;
            h = e > h ? e : h;
            src = fj > h ? from_f : src;
            h = fj > h ? fj : h;
            src = h <= h_floor ? from_zero : src;
            h = h <= h_floor ? h_floor : h;
            h_cur[j] = h;
            h_left = h;
            d[j - 1] = static_cast<std::uint8_t>(src | (e_is_ext ? e_extended : 0) | (f_is_ext ? f_extended : 0));
            const bool better = h > row_best;
            row_best_j = better ? static_cast<std::int32_t>(j) : row_best_j;
            row_best = better ? h : row_best;
        }
        // First maximum of the row; rows are visited in order, so a strictly
        // better row maximum is the first maximal cell in row-major order.
        if (local && row_best > best) { best = row_best; best_cell = {static_cast<std::int32_t>(i), row_best_j}; }
        std::swap(h_prev, h_cur);
    }

    AlignmentResult res;
    res.has_cigar = true;
    if (local) {
        if (best == 0) return res;  // unaligned
        res.score = best;
    } else if (mode == AlignMode::semi_global) {
        // Best cell of the last row, ties to the smallest j (h_prev is row m).
        const auto it = std::max_element(h_prev.begin(), h_prev.end());
        res.score = *it;
        best_cell = {static_cast<std::int32_t>(m), static_cast<std::int32_t>(it - h_prev.begin())};
    } else {
        res.score = h_prev[n];
        best_cell = {static_cast<std::int32_t>(m), static_cast<std::int32_t>(n)};
    }
    res.query_end = best_cell.i;
    res.ref_end = best_cell.j;

    // Traceback, state machine of docs/scoring.md.
    detail::traceback_walk([&](std::int64_t i, std::int64_t j) { return dir[static_cast<std::size_t>((i - 1) * n + (j - 1))]; },
                           q.data(), r.data(), s.alphabet, mode, true, res);
    return res;
}

// Global score-only: H(m,n) in linear memory; no begin cell to carry (a
// global alignment always begins at (0,0)).
AlignmentResult align_global_score_only(std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
                                        const ScoringScheme& s) {
    const std::int64_t m = static_cast<std::int64_t>(q.size());
    const std::int64_t n = static_cast<std::int64_t>(r.size());
    const std::int32_t open = s.gap_open + s.gap_extend, ext = s.gap_extend;
    std::vector<std::int32_t> h_prev(n + 1), h_cur(n + 1), f(n + 1, neg_inf);
    for (std::int64_t j = 0; j <= n; ++j) h_prev[j] = global_border(s, j);
    for (std::int64_t i = 1; i <= m; ++i) {
        h_cur[0] = global_border(s, i);
        std::int32_t e = neg_inf, h_left = h_cur[0];
        const std::int32_t* row_scores = &s.matrix[static_cast<std::size_t>(q[i - 1]) * s.size];
        for (std::int64_t j = 1; j <= n; ++j) {
            e = std::max(e - ext, h_left - open);             // E(i,j)
            f[j] = std::max(f[j] - ext, h_prev[j] - open);    // F(i,j)
            const std::int32_t h = std::max({h_prev[j - 1] + row_scores[r[j - 1]], e, f[j]});  // H(i,j)
            h_cur[j] = h;
            h_left = h;
        }
        std::swap(h_prev, h_cur);
    }
    AlignmentResult res;
    res.score = h_prev[n];
    res.query_end = static_cast<std::int32_t>(m);
    res.ref_end = static_cast<std::int32_t>(n);
    return res;
}

// Local and semi-global score-only: linear memory; the begin cell is carried
// with each state.
AlignmentResult align_score_only(std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
                                 const ScoringScheme& s, AlignMode mode) {
    const std::int64_t m = static_cast<std::int64_t>(q.size());
    const std::int64_t n = static_cast<std::int64_t>(r.size());
    const bool local = mode == AlignMode::local;
    const std::int32_t open = s.gap_open + s.gap_extend, ext = s.gap_extend;

    std::vector<std::int32_t> h_prev(n + 1), h_cur(n + 1), f(n + 1, neg_inf);
    // Begin cells (local only), packed as i << 32 | j.
    std::vector<std::uint64_t> hb_prev(n + 1), hb_cur(n + 1), fb(n + 1);
    auto pack = [](std::int64_t i, std::int64_t j) { return static_cast<std::uint64_t>(i) << 32 | static_cast<std::uint64_t>(j); };
    for (std::int64_t j = 0; j <= n; ++j) {
        h_prev[j] = top_border(s, mode, j);
        hb_prev[j] = pack(0, j);
    }
    std::int32_t best = 0;
    Cell best_cell{0, 0};
    std::uint64_t best_begin = 0;
    const std::int32_t h_floor = local ? 0 : neg_inf;
    for (std::int64_t i = 1; i <= m; ++i) {
        h_cur[0] = left_border(s, mode, i);
        hb_cur[0] = pack(local ? i : 0, 0);  // the query's leading gap begins at (0,0)
        std::int32_t e = neg_inf;
        std::uint64_t eb = 0;
        const std::int32_t* row_scores = &s.matrix[static_cast<std::size_t>(q[i - 1]) * s.size];
        std::int32_t h_left = h_cur[0];
        std::uint64_t hb_left = hb_cur[0];
        std::int32_t row_best = 0, row_best_j = 0;
        std::uint64_t row_best_begin = 0;
        // Branch-free (conditional moves), as in align_with_traceback.
        for (std::int64_t j = 1; j <= n; ++j) {
            const std::int32_t e_open = h_left - open, e_ext = e - ext;
            const bool e_is_ext = e_ext > e_open;
            e = e_is_ext ? e_ext : e_open;
            eb = e_is_ext ? eb : hb_left;
            const std::int32_t f_open = h_prev[j] - open, f_ext = f[j] - ext;
            const bool f_is_ext = f_ext > f_open;
            const std::int32_t fj = f_is_ext ? f_ext : f_open;
            const std::uint64_t fbj = f_is_ext ? fb[j] : hb_prev[j];
            f[j] = fj;
            fb[j] = fbj;
            std::int32_t h = h_prev[j - 1] + row_scores[r[j - 1]];
            std::uint64_t hb = hb_prev[j - 1];
            hb = e > h ? eb : hb;
            h = e > h ? e : h;
            hb = fj > h ? fbj : hb;
            h = fj > h ? fj : h;
            hb = h <= h_floor ? pack(i, j) : hb;
            h = h <= h_floor ? h_floor : h;
            h_cur[j] = h;
            hb_cur[j] = hb;
            h_left = h;
            hb_left = hb;
            const bool better = h > row_best;
            row_best_j = better ? static_cast<std::int32_t>(j) : row_best_j;
            row_best_begin = better ? hb : row_best_begin;
            row_best = better ? h : row_best;
        }
        if (local && row_best > best) {
            best = row_best;
            best_cell = {static_cast<std::int32_t>(i), row_best_j};
            best_begin = row_best_begin;
        }
        std::swap(h_prev, h_cur);
        std::swap(hb_prev, hb_cur);
    }
    AlignmentResult res;
    if (local) {
        if (best == 0) return res;
        res.score = best;
        res.query_begin = static_cast<std::int32_t>(best_begin >> 32);
        res.ref_begin = static_cast<std::int32_t>(best_begin & 0xFFFFFFFFu);
        res.query_end = best_cell.i;
        res.ref_end = best_cell.j;
    } else {  // semi-global: the best cell of the last row, ties to the smallest j
        const auto it = std::max_element(h_prev.begin(), h_prev.end());
        const std::size_t j = static_cast<std::size_t>(it - h_prev.begin());
        res.score = *it;
        res.ref_begin = static_cast<std::int32_t>(hb_prev[j] & 0xFFFFFFFFu);
        res.query_end = static_cast<std::int32_t>(m);
        res.ref_end = static_cast<std::int32_t>(j);
    }
    return res;
}

}  // namespace

AlignmentResult align_pair_full_matrix(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                                       const ScoringScheme& s, AlignMode mode, bool score_only) {
    if (!fits_int32(s, query.size(), ref.size()))
        throw std::length_error("pair of lengths " + std::to_string(query.size()) + " x " +
                                std::to_string(ref.size()) + " could overflow 32-bit scores");
    if (score_only)
        return mode == AlignMode::global ? align_global_score_only(query, ref, s) : align_score_only(query, ref, s, mode);
    if (static_cast<std::uint64_t>(query.size()) * ref.size() > full_matrix_max_cells)
        throw std::length_error("pair of lengths " + std::to_string(query.size()) + " x " +
                                std::to_string(ref.size()) + " exceeds the full-matrix reference's " +
                                std::to_string(full_matrix_max_cells) + " cells");
    return align_with_traceback(query, ref, s, mode);
}

AlignmentResult align_pair(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                           const ScoringScheme& s, AlignMode mode, bool score_only) {
    if (static_cast<std::uint64_t>(query.size()) * ref.size() <= full_matrix_cells)
        return align_pair_full_matrix(query, ref, s, mode, score_only);
    return align_pair_long(query, ref, s, mode, score_only);
}

}  // namespace gpualign
