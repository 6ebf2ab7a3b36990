// The checkpoint traceback's guesses of where the path goes
// (checkpoint_guess.hpp): which leaves and tiles a backend with a
// RegionSpeculation computes ahead of the walk. Nothing here changes a
// result, only the work.
#include "checkpoint_guess.hpp"

#include <cmath>
#include <iterator>
#include <limits>

namespace gpualign::detail {

std::vector<TileIndex> PathGuess::leaf_batch(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b,
                                             const Cursor& cur, std::size_t cap) const {
    std::vector<TileIndex> ready = ahead_of(reg, g, a, b, cur, cap, plan_.leaf_band);
    add_trail_leaves(reg, g, a, b, cur, cap, ready);
    add_gap_leaves(g, a, b, cur, cap, ready);
    return ready;
}

/// The path's own direction lately: columns per row from the cursor back
/// to the nearest noted point (note_trail) at least trail_steps (i + j)
/// behind it, or to the oldest if that is at least trail_steps / 8;
/// -1 without such a point.
double PathGuess::trail_slope(const Cursor& cur) const {
    for (auto p = trail_.rbegin(); p != trail_.rend(); ++p) {
        const std::int64_t behind = (p->first - cur.i) + (p->second - cur.j);
        const bool last = std::next(p) == trail_.rend();
        if (behind >= trail_steps || (last && behind >= trail_steps / 8))
            return static_cast<double>(p->second - cur.j) / static_cast<double>(std::max<std::int64_t>(1, p->first - cur.i));
    }
    return -1;
}

/// Where the guess from the rows' peaks strays from the path (a
/// divergent window, where the best prefix score of a row lies off the
/// path), a batch along it serves a leaf or two. So half of each batch
/// follows the path's own recent direction (trail_slope) from the
/// cursor, nearest first, and the guess's leaves fill the rest of
/// `ready` (at most `cap`; tile (a, b) stays first). Where the two agree
/// the batch is the guess's.
void PathGuess::add_trail_leaves(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b, const Cursor& cur,
                                 std::size_t cap, std::vector<TileIndex>& ready) const {
    const double slope = trail_slope(cur);
    if (slope < 0 || cap < 4) return;
    put_first(ahead_of(reg, g, a, b, cur, cap / 2, plan_.leaf_band, slope), cap, ready);
}

/// `ready` becomes `first` followed by the tiles of `ready` not in it, in
/// their order, at most `cap` in all.
void PathGuess::put_first(std::vector<TileIndex> first, std::size_t cap, std::vector<TileIndex>& ready) {
    for (std::size_t k = 0; k < ready.size() && first.size() < cap; ++k)
        if (std::find(first.begin(), first.end(), ready[k]) == first.end()) first.push_back(ready[k]);
    ready = std::move(first);
}

/// A walk that left its batch inside a gap (state E: a run of D steps
/// going left; F: I steps going up) is likely to stay in it: the line
/// the batch follows does not, and a long gap then costs a batch a leaf.
/// So the leaves along the gap, on from tile (a, b) (the cursor's), come
/// right after it in `ready`: 1 + 2 x (the gap's steps so far / the
/// leaves' side), at most cap / 4, so that a gap that goes on gets
/// three times as many leaves batch after batch. The line's last leaves
/// make room (`ready` keeps at most `cap`).
void PathGuess::add_gap_leaves(const Grid& g, std::int64_t a, std::int64_t b, const Cursor& cur, std::size_t cap,
                               std::vector<TileIndex>& ready) const {
    if (cur.state == State::h || ready.empty() || cap < 2) return;
    const bool left = cur.state == State::e;
    const std::int64_t side = left ? g.stride_c : g.stride_r;
    const std::int64_t want = std::min<std::int64_t>(static_cast<std::int64_t>(std::max<std::size_t>(1, cap / 4)),
                                                     1 + 2 * gap_run_ / side);
    std::vector<TileIndex> out{ready.front()};
    for (std::int64_t k = 1; k <= want; ++k) {
        const std::int64_t ta = left ? a : a - k, tb = left ? b - k : b;
        if (ta < 0 || tb < 0) break;
        out.push_back({ta, tb});
    }
    put_first(std::move(out), cap, ready);
}

/// Notes the steps of a walk (walk order) in gap_run_: the steps of the
/// gap run the path is in after them (0 when it is in none).
void PathGuess::note_steps(std::span<const std::uint8_t> steps) {
    if (steps.empty()) return;
    const std::uint8_t last = steps.back();
    if (last == static_cast<std::uint8_t>(WalkStep::diag)) {
        gap_run_ = 0;
        gap_step_ = last;
        return;
    }
    std::size_t run = 0;
    while (run < steps.size() && steps[steps.size() - 1 - run] == last) ++run;
    gap_run_ = (run == steps.size() && gap_step_ == last ? gap_run_ : 0) + static_cast<std::int64_t>(run);
    gap_step_ = last;
}

/// Adds to `batch` (up to `cap` leaves) the leaves of the tiles of
/// `ahead` that the guessed path from `cur` (guess_col, ahead_of's)
/// enters after leaving `tile`, tile after tile: in each, those ahead_of
/// takes from the point where the guess enters it. Stops at a tile not
/// computed, one not cut into leaves, or the edge of `ahead`'s region.
void PathGuess::leaves_along_line(const Region& tile, const Cursor& cur, const TilesAhead& ahead, std::size_t cap,
                                  std::vector<Region>& batch) const {
    Region t = tile;
    Cursor p = cur;
    while (batch.size() < cap && p.i > 0 && p.j > 0) {
        // Where the guessed path (guess_col) leaves t: through its top
        // row, or else through its left column, at the first row from
        // the top where the guess reaches the column.
        Cursor e = p;
        const double top = guess_col(t.i0, cur);
        if (top >= static_cast<double>(t.j0)) {
            e.i = t.i0;
            e.j = std::min<std::int64_t>(p.j, std::llround(top));
        } else {
            std::int64_t above = t.i0, at = p.i;  // guess_col(above) < t.j0; at: the answer's bound
            while (at - above > 1) {
                const std::int64_t mid = above + (at - above) / 2;
                (guess_col(mid, cur) >= static_cast<double>(t.j0) ? at : above) = mid;
            }
            e.i = at;
            e.j = t.j0;
        }
        if (e.i <= ahead.reg.i0 || e.j <= ahead.reg.j0) return;
        const std::int64_t a = (e.i - ahead.reg.i0 - 1) / ahead.g.stride_r, b = (e.j - ahead.reg.j0 - 1) / ahead.g.stride_c;
        const auto it = find_ahead(ahead.ready, a, b);
        if (it == ahead.ready.end()) return;
        const Grid& g = it->grid;
        if (static_cast<std::uint64_t>(g.stride_r) * static_cast<std::uint64_t>(g.stride_c) > plan_.leaf_cells) return;
        const Region next = tile_of(ahead.reg, ahead.g, a, b);
        const std::int64_t la = (e.i - next.i0 - 1) / g.stride_r, lb = (e.j - next.j0 - 1) / g.stride_c;
        for (const auto& [ta, tb] : ahead_of(next, g, la, lb, e, cap - batch.size(), plan_.leaf_band))
            batch.push_back(tile_of(next, g, ta, tb));
        t = next;
        p = e;
    }
}

/// The tiles of `g` the path from `cur` (in tile (a, b)) most likely
/// crosses, nearest first (by a + b distance, then by distance from the
/// guessed path), (a, b) first, at most `cap`. The guess (guess_col): in
/// each row of tiles, the line from where the path is guessed to enter
/// the row (its bottom, or the cursor) to where it is guessed to leave it
/// (its top). A tile is taken when it comes within `band` tiles of its
/// row's line (in tile units, perpendicular to the line; 0: the tiles
/// the line crosses). With `slope` >= 0 the guess is instead the line
/// from the cursor at that slope (trail_slope: columns per row).
std::vector<TileIndex> PathGuess::ahead_of(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b,
                                           const Cursor& cur, std::size_t cap, double band, double slope) const {
    auto guess = [&](std::int64_t i) {
        if (slope < 0) return guess_col(i, cur);
        const double cj = static_cast<double>(cur.j);
        return i >= cur.i ? cj : std::clamp(cj - slope * static_cast<double>(cur.i - i), 0.0, cj);
    };
    const double sr = static_cast<double>(g.stride_r), sc = static_cast<double>(g.stride_c);
    // Row ta's line: a point (u, v) on it in tile units and its unit direction.
    struct Line {
        double u = 0, v = 0, du = 0, dv = 0;
        bool known = false;
    };
    std::vector<Line> lines(static_cast<std::size_t>(a + 1));
    auto line_of = [&](std::int64_t ta) -> const Line& {
        Line& l = lines[static_cast<std::size_t>(ta)];
        if (!l.known) {
            const std::int64_t top = reg.i0 + ta * g.stride_r, bottom = std::min(top + g.stride_r, cur.i);
            const double vt = (guess(top) - static_cast<double>(reg.j0)) / sc;
            l.u = static_cast<double>(bottom - reg.i0) / sr;
            l.v = (guess(bottom) - static_cast<double>(reg.j0)) / sc;
            l.du = l.u - static_cast<double>(ta);  // > 0: the row's bottom (or the cursor) lies below its top
            l.dv = l.v - vt;
            const double norm = std::hypot(l.du, l.dv);
            l.du /= norm;
            l.dv /= norm;
            l.known = true;
        }
        return l;
    };
    auto line_distance = [&](std::int64_t ta, std::int64_t tb) {
        const Line& l = line_of(ta);
        double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
        for (int cu = 0; cu < 2; ++cu)
            for (int cv = 0; cv < 2; ++cv) {
                const double d = l.du * (static_cast<double>(tb + cv) - l.v) - l.dv * (static_cast<double>(ta + cu) - l.u);
                lo = std::min(lo, d);
                hi = std::max(hi, d);
            }
        return lo <= 0 && hi >= 0 ? 0.0 : std::min(std::abs(lo), std::abs(hi));
    };
    std::vector<TileIndex> out;
    std::vector<std::pair<double, TileIndex>> step;
    for (std::int64_t dist = 0; out.size() < cap && dist <= a + b; ++dist) {
        step.clear();
        for (std::int64_t x = 0; x <= dist; ++x) {
            const std::int64_t ta = a - x, tb = b - (dist - x);
            if (ta < 0 || tb < 0) continue;
            const double d = dist == 0 ? 0.0 : line_distance(ta, tb);
            if (dist == 0 || d <= band) step.push_back({d, {ta, tb}});
        }
        std::sort(step.begin(), step.end());
        for (const auto& s : step) {
            if (out.size() >= cap) break;
            out.push_back(s.second);
        }
    }
    return out;
}

/// Asks the backend for the peaks of the checkpoint rows of `grids`
/// (each a region and its grid) and keeps them: a row that several
/// grids' regions cross keeps the highest H (all are exact values of the
/// one matrix). Only when the backend computes ahead of the walk.
void PathGuess::add_peaks(std::span<const std::pair<Region, Grid>> grids) {
    if (!spec_ || (spec_->leaf_batch() <= 1 && spec_->tile_batch() <= 1)) return;
    std::vector<CellRow> rows;
    std::vector<std::pair<std::int64_t, std::int64_t>> where;  // each row's i and the column of its cell 0
    for (const auto& [reg, g] : grids) {
        if (!g.rows_ckpt) continue;
        const std::int64_t kr = ceil_div(reg.rows, g.stride_r);
        for (std::int64_t a = 1; a < kr; ++a) {
            rows.push_back({g.rows_ckpt + (a - 1) * (reg.cols + 1), reg.cols + 1});
            where.push_back({reg.i0 + a * g.stride_r, reg.j0});
        }
    }
    if (rows.empty()) return;
    std::vector<RowPeak> found(rows.size());
    if (!spec_->row_peaks(rows, found)) return;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const Peak p{where[k].second + found[k].index, found[k].h};
        const auto [it, fresh] = peaks_.try_emplace(where[k].first, p);
        if (!fresh && p.h > it->second.h) it->second = p;
    }
}

/// The column where the path from `cur` is guessed to cross row i
/// (i <= cur.i; the path is at cur.j on row cur.i): on the straight line
/// between the peaks (add_peaks) of the nearest rows with one above and
/// below i (the cursor standing for the row below when none lies between
/// i and it); above the highest such row, on the line from there towards
/// the matrix origin (global, where the path must end) or along the main
/// diagonal (local, semi-global). With no peaks this is the straight line
/// through the cursor. A peak right of the guess below it counts as the
/// guess below (a path never moves right); the result lies in [0, cur.j].
double PathGuess::guess_col(std::int64_t i, const Cursor& cur) const {
    const double cj = static_cast<double>(cur.j);
    if (i >= cur.i) return cj;
    double below_i = static_cast<double>(cur.i), below_j = cj;
    const auto next = peaks_.upper_bound(i);  // the first row with a peak below i
    if (next != peaks_.end() && next->first < cur.i) {
        below_i = static_cast<double>(next->first);
        below_j = std::min(static_cast<double>(next->second.j), cj);
    }
    const double di = static_cast<double>(i);
    double j = 0;
    if (next == peaks_.begin()) {  // no peak on or above row i
        j = mode_ == AlignMode::global ? below_j * di / below_i : below_j - (below_i - di);
    } else {
        const auto above = std::prev(next);
        const double above_i = static_cast<double>(above->first);
        const double above_j = std::min(static_cast<double>(above->second.j), below_j);
        j = above_j + (below_j - above_j) * (di - above_i) / (below_i - above_i);
    }
    return std::clamp(j, 0.0, cj);
}

}  // namespace gpualign::detail
