// gpualign — the checkpoint traceback's guesses of where the path goes
// (internal header of checkpoint_traceback.cpp and checkpoint_guess.cpp).
//
// The exact recursion (checkpoint_traceback.cpp) needs none of this: it
// computes the tile the path is in, one at a time. A backend with a
// RegionSpeculation computes batches of leaves and tiles ahead of the walk,
// and PathGuess chooses them: from the checkpoint rows' peaks (the best
// prefix score of a row lies near the path), from the path's own recent
// direction (the trail), and along a gap the walk is in. Every choice only
// decides which tiles are computed and when; each starts from exact
// boundaries, so the result never depends on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "gpualign/align/checkpoint_traceback.hpp"

namespace gpualign::detail {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The walk's state (docs/scoring.md): in H, or in a run of D steps (E, going
/// left) or of I steps (F, going up). Same values as WalkCursor::state.
enum class State : std::uint8_t { h, e, f };

/// The traceback position: the cell (i, j) (DP coordinates, as Region) whose
/// direction byte is read next, in `state`; `done` once a local path has ended.
struct Cursor {
    std::int64_t i = 0, j = 0;
    State state = State::h;
    bool done = false;
};

/// A level's checkpoint grid over a region: tile (a, b) covers region rows
/// (a*stride_r, min((a+1)*stride_r, rows)] and columns likewise. Pointers
/// are backend memory, owned by the driver's allocation `first`.
struct Grid {
    std::int64_t stride_r = 0, stride_c = 0;
    BoundaryCell* rows_ckpt = nullptr;  // (ceil(rows/stride_r) - 1) rows of cols+1 cells
    BoundaryCell* cols_ckpt = nullptr;  // (ceil(cols/stride_c) - 1) columns of rows+1 cells
    BoundaryCell* first = nullptr;      // first allocation, for release()
};

/// A tile of a grid by its (row, column) index in the grid.
using TileIndex = std::pair<std::int64_t, std::int64_t>;

/// Tile (a, b) of a grid `g` over `reg`, whole (not cut at the cursor), with
/// its boundaries in `reg`'s borders or `g`'s checkpoints.
inline Region tile_of(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b) {
    Region t;
    t.i0 = reg.i0 + a * g.stride_r;
    t.j0 = reg.j0 + b * g.stride_c;
    t.rows = std::min(g.stride_r, reg.rows - a * g.stride_r);
    t.cols = std::min(g.stride_c, reg.cols - b * g.stride_c);
    t.top = a == 0 ? reg.top + b * g.stride_c : g.rows_ckpt + (a - 1) * (reg.cols + 1) + b * g.stride_c;
    t.left = b == 0 ? reg.left + a * g.stride_r : g.cols_ckpt + (b - 1) * (reg.rows + 1) + a * g.stride_r;
    return t;
}

/// A tile of a grid computed ahead of the walk, with its own checkpoint grid.
struct Ahead {
    std::int64_t a, b;
    Grid grid;
};

/// Tile (a, b) among the tiles computed ahead, or ready.end().
inline std::vector<Ahead>::const_iterator find_ahead(const std::vector<Ahead>& ready, std::int64_t a,
                                                      std::int64_t b) {
    return std::find_if(ready.begin(), ready.end(), [&](const Ahead& t) { return t.a == a && t.b == b; });
}

/// The tiles of a grid computed ahead of the walk: the region `reg` its grid
/// `g` covers, and those tiles. A leaf batch in one of them may take leaves
/// of the next ones along the guessed line (PathGuess::leaves_along_line).
struct TilesAhead {
    const Region& reg;
    const Grid& g;
    const std::vector<Ahead>& ready;
};

/// What the driver knows of where the path goes, and its choice of the
/// leaves and tiles to compute ahead of the walk. One per checkpoint_align
/// call; `spec` (nullable, borrowed) answers row_peaks.
class PathGuess {
public:
    PathGuess(AlignMode mode, const CheckpointPlan& plan, RegionSpeculation* spec)
        : mode_(mode), plan_(plan), spec_(spec) {}

    /// The leaves of a leaf batch when the path enters tile (a, b) of `g`
    /// (leaves) over `reg` at `cur`, at most `cap`, (a, b) first: the tiles
    /// ahead_of the guessed path within CheckpointPlan::leaf_band, then half
    /// the batch along the trail (add_trail_leaves), then the leaves along
    /// the gap the walk is in (add_gap_leaves).
    std::vector<TileIndex> leaf_batch(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b,
                                      const Cursor& cur, std::size_t cap) const;

    /// The tiles of a tile batch when the path enters tile (a, b) of `g` over
    /// `reg` at `cur`: ahead_of within CheckpointPlan::tile_band, at most
    /// `cap`, (a, b) first.
    std::vector<TileIndex> tile_batch(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b,
                                      const Cursor& cur, std::size_t cap) const {
        return ahead_of(reg, g, a, b, cur, cap, plan_.tile_band);
    }

    /// Adds to `batch` (up to `cap` leaves) the leaves of the tiles of
    /// `ahead` that the guessed path from `cur` (guess_col, ahead_of's)
    /// enters after leaving `tile`, tile after tile: in each, those ahead_of
    /// takes from the point where the guess enters it. Stops at a tile not
    /// computed, one not cut into leaves, or the edge of `ahead`'s region.
    void leaves_along_line(const Region& tile, const Cursor& cur, const TilesAhead& ahead, std::size_t cap,
                           std::vector<Region>& batch) const;

    /// add_peaks of one grid over `reg`.
    void add_peaks(const Region& reg, const Grid& g) {
        const std::pair<Region, Grid> one[] = {{reg, g}};
        add_peaks(one);
    }
    /// Asks the backend for the peaks of the checkpoint rows of `grids`
    /// (each a region and its grid) and keeps them: a row that several
    /// grids' regions cross keeps the highest H (all are exact values of the
    /// one matrix). Only when the backend computes ahead of the walk.
    void add_peaks(std::span<const std::pair<Region, Grid>> grids);

    /// Notes one step of the walk in the gap run (note_steps).
    void note_step(WalkStep step) {
        const std::uint8_t one = static_cast<std::uint8_t>(step);
        note_steps({&one, 1});
    }
    /// Notes the steps of a walk (walk order, WalkStep values): the steps of
    /// the gap run the path is in after them (0 when it is in none).
    void note_steps(std::span<const std::uint8_t> steps);
    /// Notes where a walk through a leaf batch stopped (trail_slope).
    void note_trail(const Cursor& cur) {
        trail_.push_back({cur.i, cur.j});
        if (trail_.size() > trail_points) trail_.pop_front();
    }

private:
    /// What the guess knows of a checkpoint row: the column of its highest
    /// H among the grids computed so far (RegionSpeculation::row_peaks), and that H.
    struct Peak {
        std::int64_t j = 0;
        std::int32_t h = 0;
    };

    std::vector<TileIndex> ahead_of(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b,
                                    const Cursor& cur, std::size_t cap, double band, double slope = -1) const;
    double guess_col(std::int64_t i, const Cursor& cur) const;
    double trail_slope(const Cursor& cur) const;
    void add_trail_leaves(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b, const Cursor& cur,
                          std::size_t cap, std::vector<TileIndex>& ready) const;
    void add_gap_leaves(const Grid& g, std::int64_t a, std::int64_t b, const Cursor& cur, std::size_t cap,
                        std::vector<TileIndex>& ready) const;
    static void put_first(std::vector<TileIndex> first, std::size_t cap, std::vector<TileIndex>& ready);

    static constexpr std::int64_t trail_steps = 2048;  // (i + j) behind the cursor that trail_slope looks
    static constexpr std::size_t trail_points = 64;    // walk ends note_trail keeps

    AlignMode mode_;
    CheckpointPlan plan_;
    RegionSpeculation* spec_;
    std::map<std::int64_t, Peak> peaks_;  // checkpoint row i -> its peak (add_peaks)
    std::deque<std::pair<std::int64_t, std::int64_t>> trail_;  // (i, j) where recent walks stopped
    std::int64_t gap_run_ = 0;   // steps of the gap run the walk is in (note_steps)
    std::uint8_t gap_step_ = 0;  // the WalkStep of the walk's last step
};

}  // namespace gpualign::detail
