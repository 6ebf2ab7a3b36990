// Exact traceback by recursive checkpoint grids (checkpoint_traceback.hpp).
// The walk inside a leaf tile is the state machine of docs/scoring.md, the
// same as the full-matrix reference in reference_aligner.cpp.
#include "gpualign/align/checkpoint_traceback.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <new>
#include <stdexcept>
#include <string>

#include "align/traceback_walk.hpp"
#include "gpualign/align/reference_aligner.hpp"

namespace gpualign {
namespace {

// Direction byte layout (docs/scoring.md), defined once in traceback_walk.hpp.
using detail::e_extended;
using detail::f_extended;
using detail::from_diag;
using detail::from_e;
using detail::from_zero;

enum class State : std::uint8_t { h, e, f };

/// The traceback position: the cell (i, j) whose direction byte is read next,
/// in `state`; `done` once a local path has ended.
struct Cursor {
    std::int64_t i = 0, j = 0;
    State state = State::h;
    bool done = false;
};

/// A level's checkpoint grid over a region: tile (a, b) covers region rows
/// (a*stride_r, min((a+1)*stride_r, rows)] and columns likewise.
struct Grid {
    std::int64_t stride_r = 0, stride_c = 0;
    BoundaryCell* rows_ckpt = nullptr;  // (ceil(rows/stride_r) - 1) rows of cols+1 cells
    BoundaryCell* cols_ckpt = nullptr;  // (ceil(cols/stride_c) - 1) columns of rows+1 cells
    BoundaryCell* first = nullptr;      // first allocation, for release()
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

class Tracer {
public:
    Tracer(RegionBackend& backend, std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
           const ScoringScheme& s, AlignMode mode, const CheckpointPlan& plan, const ProgressCallback& progress,
           bool record)
        : backend_(backend), q_(q), r_(r), s_(s), mode_(mode), plan_(plan),
          progress_(progress), record_(record), total_(static_cast<std::uint64_t>(q.size()) * r.size()) {}

    /// Computes `reg` once, saving a checkpoint grid (when `with_grid`), and
    /// returns the grid and the region's result.
    Grid compute_grid(const Region& reg, bool with_grid, bool want_best, RegionResult& result) {
        Grid g;
        RegionOutputs out;
        out.want_best = want_best;
        if (with_grid) {
            int fan = std::max(2, plan_.fan_out);
            while (true) {
                g = plan_grid(reg, fan);
                const std::int64_t kr = ceil_div(reg.rows, g.stride_r), kc = ceil_div(reg.cols, g.stride_c);
                const std::size_t row_cells = static_cast<std::size_t>(kr - 1) * static_cast<std::size_t>(reg.cols + 1);
                const std::size_t col_cells = static_cast<std::size_t>(kc - 1) * static_cast<std::size_t>(reg.rows + 1);
                try {
                    g.first = backend_.allocate(row_cells + col_cells + 1);
                } catch (const std::bad_alloc&) {
                    if (fan <= 2) throw;
                    fan /= 2;  // coarser checkpoints: fewer of them, larger tiles
                    continue;
                }
                g.rows_ckpt = g.first;
                g.cols_ckpt = g.first + row_cells;
                break;
            }
            out.row_stride = g.stride_r;
            out.row_out = g.rows_ckpt;
            out.col_stride = g.stride_c;
            out.col_out = g.cols_ckpt;
        }
        result = run(reg, out);
        return g;
    }

    /// Follows the path from `cur` (inside `reg`) until it leaves `reg`
    /// through its top row or left column, or ends.
    void trace(const Region& whole, Cursor& cur) {
        Region reg = whole;  // only rows <= cur.i and columns <= cur.j matter
        reg.rows = cur.i - whole.i0;
        reg.cols = cur.j - whole.j0;
        if (is_leaf(reg)) {
            walk_leaf(reg, cur);
            return;
        }
        RegionResult unused;
        const Grid g = compute_grid(reg, true, false, unused);
        add_peaks(reg, g);
        walk_grid(reg, g, cur);
        backend_.release(g.first);
    }

    /// Tile (a, b) of a grid over `reg`, whole (not cut at the cursor).
    static Region tile_of(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b) {
        Region t;
        t.i0 = reg.i0 + a * g.stride_r;
        t.j0 = reg.j0 + b * g.stride_c;
        t.rows = std::min(g.stride_r, reg.rows - a * g.stride_r);
        t.cols = std::min(g.stride_c, reg.cols - b * g.stride_c);
        t.top = a == 0 ? reg.top + b * g.stride_c : g.rows_ckpt + (a - 1) * (reg.cols + 1) + b * g.stride_c;
        t.left = b == 0 ? reg.left + a * g.stride_r : g.cols_ckpt + (b - 1) * (reg.rows + 1) + a * g.stride_r;
        return t;
    }

    /// A tile of `g` computed ahead of the walk, with its own checkpoint grid.
    struct Ahead {
        std::int64_t a, b;
        Grid grid;
    };

    /// Tile (a, b) among the tiles computed ahead, or ready.end().
    static std::vector<Ahead>::const_iterator find_ahead(const std::vector<Ahead>& ready, std::int64_t a, std::int64_t b) {
        return std::find_if(ready.begin(), ready.end(), [&](const Ahead& t) { return t.a == a && t.b == b; });
    }

    /// The tiles of a grid computed ahead of the walk (walk_tiles_ahead):
    /// the region `reg` its grid `g` covers, and those tiles. A leaf batch in
    /// one of them may take leaves of the next ones along the guessed line.
    struct TilesAhead {
        const Region& reg;
        const Grid& g;
        const std::vector<Ahead>& ready;
    };

    /// Follows the path through the tiles of a computed grid (`reg`'s tile
    /// among `ahead`'s, when given).
    void walk_grid(const Region& reg, const Grid& g, Cursor& cur, const TilesAhead* ahead = nullptr) {
        const bool leaves = static_cast<std::uint64_t>(g.stride_r) * static_cast<std::uint64_t>(g.stride_c) <= plan_.leaf_cells;
        if (leaves && backend_.leaf_batch() > 1) {
            walk_leaves_ahead(reg, g, cur, ahead);
            return;
        }
        if (!leaves && backend_.tile_batch() > 1) {
            walk_tiles_ahead(reg, g, cur);
            return;
        }
        while (!cur.done && cur.i > reg.i0 && cur.j > reg.j0) {
            const std::int64_t a = (cur.i - reg.i0 - 1) / g.stride_r, b = (cur.j - reg.j0 - 1) / g.stride_c;
            trace(tile_of(reg, g, a, b), cur);
        }
    }

    /// The tiles of `g` are leaves and the backend computes many at once:
    /// when the path enters a tile not yet computed, compute it together with
    /// the tiles the path most likely crosses next (ahead_of: those within
    /// CheckpointPlan::leaf_band leaf sides of the line from the cursor
    /// towards the matrix origin, global, or along the main diagonal, nearest
    /// first), then walk. A path that strays leaves the batch and starts a
    /// new one there; which tiles are computed never changes the result, only
    /// the work. When `reg` is a tile of `ahead`'s grid and the backend walks
    /// its batches, a batch with room goes on along the line into the next
    /// computed tiles (leaves_along_line), so that one launch and one walk
    /// serve the corner a diagonal path clips and the tile after it.
    void walk_leaves_ahead(const Region& reg, const Grid& g, Cursor& cur, const TilesAhead* ahead) {
        std::vector<std::pair<std::int64_t, std::int64_t>> ready;  // tile (a, b) of each leaf in the batch
        std::vector<Region> batch;
        const std::size_t cap = backend_.leaf_batch();
        while (!cur.done && cur.i > reg.i0 && cur.j > reg.j0) {
            const std::int64_t a = (cur.i - reg.i0 - 1) / g.stride_r, b = (cur.j - reg.j0 - 1) / g.stride_c;
            auto it = std::find(ready.begin(), ready.end(), std::make_pair(a, b));
            if (it == ready.end()) {
                ready = ahead_of(reg, g, a, b, cur, cap, plan_.leaf_band);
                add_trail_leaves(reg, g, a, b, cur, cap, ready);
                add_gap_leaves(g, a, b, cur, cap, ready);
                batch.clear();
                for (const auto& [ta, tb] : ready) batch.push_back(tile_of(reg, g, ta, tb));
                if (ahead && backend_.walks_leaves()) leaves_along_line(reg, cur, *ahead, cap, batch);
                backend_.compute_leaves(batch);
                replay_walk();  // while the batch computes (a GPU's launch returns at once)
                for (const Region& t : batch)
                    done_ += static_cast<std::uint64_t>(t.rows) * static_cast<std::uint64_t>(t.cols);
                if (progress_) progress_(done_, total_);
                it = ready.begin();  // tile (a, b) is first
            }
            if (backend_.walks_leaves()) {
                walk_on_backend(cur);
            } else {
                const std::size_t k = static_cast<std::size_t>(it - ready.begin());
                const Region leaf = tile_of(reg, g, a, b);
                walk_dirs(leaf, backend_.leaf_dirs(k, cur.i - leaf.i0, cur.j - leaf.j0), cur);
            }
            note_trail(cur);
        }
        replay_walk();
    }

    /// The path's own direction lately: columns per row from the cursor back
    /// to the nearest noted point (note_trail) at least trail_steps (i + j)
    /// behind it, or to the oldest if that is at least trail_steps / 8;
    /// -1 without such a point.
    double trail_slope(const Cursor& cur) const {
        for (auto p = trail_.rbegin(); p != trail_.rend(); ++p) {
            const std::int64_t behind = (p->first - cur.i) + (p->second - cur.j);
            const bool last = std::next(p) == trail_.rend();
            if (behind >= trail_steps || (last && behind >= trail_steps / 8))
                return static_cast<double>(p->second - cur.j) / static_cast<double>(std::max<std::int64_t>(1, p->first - cur.i));
        }
        return -1;
    }

    /// Notes where a walk through a leaf batch stopped (trail_slope).
    void note_trail(const Cursor& cur) {
        trail_.push_back({cur.i, cur.j});
        if (trail_.size() > trail_points) trail_.pop_front();
    }

    /// Where the guess from the rows' peaks strays from the path (a
    /// divergent window, where the best prefix score of a row lies off the
    /// path), a batch along it serves a leaf or two. So half of each batch
    /// follows the path's own recent direction (trail_slope) from the
    /// cursor, nearest first, and the guess's leaves fill the rest of
    /// `ready` (at most `cap`; tile (a, b) stays first). Where the two agree
    /// the batch is the guess's.
    void add_trail_leaves(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b, const Cursor& cur,
                          std::size_t cap, std::vector<std::pair<std::int64_t, std::int64_t>>& ready) const {
        const double slope = trail_slope(cur);
        if (slope < 0 || cap < 4) return;
        put_first(ahead_of(reg, g, a, b, cur, cap / 2, plan_.leaf_band, slope), cap, ready);
    }

    /// `ready` becomes `first` followed by the tiles of `ready` not in it, in
    /// their order, at most `cap` in all.
    static void put_first(std::vector<std::pair<std::int64_t, std::int64_t>> first, std::size_t cap,
                          std::vector<std::pair<std::int64_t, std::int64_t>>& ready) {
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
    void add_gap_leaves(const Grid& g, std::int64_t a, std::int64_t b, const Cursor& cur, std::size_t cap,
                        std::vector<std::pair<std::int64_t, std::int64_t>>& ready) const {
        if (cur.state == State::h || ready.empty() || cap < 2) return;
        const bool left = cur.state == State::e;
        const std::int64_t side = left ? g.stride_c : g.stride_r;
        const std::int64_t want = std::min<std::int64_t>(static_cast<std::int64_t>(std::max<std::size_t>(1, cap / 4)),
                                                         1 + 2 * gap_run_ / side);
        std::vector<std::pair<std::int64_t, std::int64_t>> out{ready.front()};
        for (std::int64_t k = 1; k <= want; ++k) {
            const std::int64_t ta = left ? a : a - k, tb = left ? b - k : b;
            if (ta < 0 || tb < 0) break;
            out.push_back({ta, tb});
        }
        put_first(std::move(out), cap, ready);
    }

    /// Notes one step of the walk in gap_run_ (note_steps).
    void note_step(WalkStep step) {
        const std::uint8_t one = static_cast<std::uint8_t>(step);
        note_steps({&one, 1});
    }

    /// Notes the steps of a walk (walk order) in gap_run_: the steps of the
    /// gap run the path is in after them (0 when it is in none).
    void note_steps(std::span<const std::uint8_t> steps) {
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
    void leaves_along_line(const Region& tile, const Cursor& cur, const TilesAhead& ahead, std::size_t cap,
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

    /// Has the backend walk the leaf batch from `cur` and moves the cursor to
    /// where the walk stopped. The steps are replayed into the CIGAR later
    /// (replay_walk), once the next leaf batch is launched: a GPU computes it
    /// meanwhile. The steps stay valid until the next walk_leaves call.
    void walk_on_backend(Cursor& cur) {
        replay_walk();  // the backend's steps buffer is about to be reused
        WalkCursor w{cur.i, cur.j, static_cast<std::uint8_t>(cur.state), cur.done};
        const std::span<const std::uint8_t> steps = backend_.walk_leaves(w);
        const bool moved = !steps.empty() || w.done || w.state != static_cast<std::uint8_t>(cur.state);
        if (w.state > 2 || !moved)
            throw std::logic_error("leaf walk: the backend's walk from (" + std::to_string(cur.i) + ", " +
                                   std::to_string(cur.j) + ") did not move or left state " + std::to_string(w.state));
        note_steps(steps);
        pending_ = {steps, cur.i, cur.j, w.i, w.j};
        cur.i = w.i;
        cur.j = w.j;
        cur.state = static_cast<State>(w.state);
        cur.done = w.done;
    }

    /// Replays the steps of the last backend walk (walk_on_backend), if not
    /// yet replayed: the CIGAR (append_diag, as walk_dirs), checking that
    /// they lead from where the walk began to where the backend said it
    /// stopped.
    void replay_walk() {
        if (pending_.steps.empty()) return;
        const Pending p = pending_;
        pending_ = {};
        std::int64_t i = p.i, j = p.j;
        for (const std::uint8_t step : p.steps) {
            if (i <= 0 || j <= 0)  // every step leaves a cell of the matrix
                throw std::logic_error("leaf walk: a step from (" + std::to_string(i) + ", " + std::to_string(j) + ")");
            switch (static_cast<WalkStep>(step)) {
            case WalkStep::diag:
                append_diag(i, j);
                --i;
                --j;
                break;
            case WalkStep::del:
                append(CigarOp::del);
                --j;
                break;
            case WalkStep::ins:
                append(CigarOp::ins);
                --i;
                break;
            default:
                throw std::logic_error("leaf walk: step code " + std::to_string(step));
            }
        }
        if (i != p.end_i || j != p.end_j)
            throw std::logic_error("leaf walk: the backend's cursor (" + std::to_string(p.end_i) + ", " +
                                   std::to_string(p.end_j) + ") disagrees with its steps (" + std::to_string(i) + ", " +
                                   std::to_string(j) + ")");
    }

    /// The tiles of `g` are larger than leaves and the backend computes many
    /// at once: when the path enters a tile not yet computed, compute it (whole,
    /// with its checkpoint grid) together with the tiles the path most likely
    /// crosses next (ahead_of), as many as the backend takes and as the
    /// memory holds, then walk each tile's grid. A path that strays leaves the
    /// batch and starts a new one there. The tiles of earlier batches stay
    /// while memory holds them, and a new batch computes only the tiles of
    /// its guess not among them: a path that strays from a guess for a
    /// stretch (a long gap, a divergent window) usually rejoins it, and a
    /// batch of a few tiles ends sooner than a full one. When the new tiles
    /// do not fit beside the old, the old go and the batch starts afresh.
    /// Which tiles are computed never changes the result (every tile starts
    /// from exact boundaries), only the work. A tile small enough to be a
    /// leaf, or a batch whose first grid does not fit, goes through trace()
    /// (cut at the path, coarser grids).
    void walk_tiles_ahead(const Region& reg, const Grid& g, Cursor& cur) {
        std::vector<Ahead> ready;
        BoundaryCell* batch_first = nullptr;  // the first batch's first allocation, for release()
        while (!cur.done && cur.i > reg.i0 && cur.j > reg.j0) {
            const std::int64_t a = (cur.i - reg.i0 - 1) / g.stride_r, b = (cur.j - reg.j0 - 1) / g.stride_c;
            const Region tile = tile_of(reg, g, a, b);
            auto it = find_ahead(ready, a, b);
            if (it == ready.end()) {
                if (is_leaf(tile)) {
                    trace(tile, cur);
                    continue;
                }
                if (compute_tiles_ahead(reg, g, a, b, cur, ready, batch_first) == 0 && batch_first) {
                    backend_.release(batch_first);  // no room beside the earlier batches
                    batch_first = nullptr;
                    ready.clear();
                    compute_tiles_ahead(reg, g, a, b, cur, ready, batch_first);
                }
                it = find_ahead(ready, a, b);  // the first tile of a batch that computed any
                if (it == ready.end()) {
                    trace(tile, cur);
                    continue;
                }
            }
            const TilesAhead here{reg, g, ready};
            walk_grid(tile, it->grid, cur, &here);
        }
        if (batch_first) backend_.release(batch_first);
    }

    /// Allocates the checkpoint grids of tile (a, b) of `g` and of the tiles
    /// ahead_of it (up to RegionBackend::tile_batch(), until an allocation
    /// fails), except those `ready` holds already, computes them in one
    /// backend call and appends them to `ready`, (a, b) first. Returns how
    /// many it appended: 0 when not even (a, b)'s grid fits.
    std::size_t compute_tiles_ahead(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b,
                                    const Cursor& cur, std::vector<Ahead>& ready, BoundaryCell*& batch_first) {
        const std::size_t old = ready.size();
        std::vector<Region> tiles;
        std::vector<RegionOutputs> outs;
        const int fan = std::max(2, plan_.fan_out);
        for (const auto& [ta, tb] : ahead_of(reg, g, a, b, cur, backend_.tile_batch(), plan_.tile_band)) {
            const Region t = tile_of(reg, g, ta, tb);
            if (is_leaf(t) || find_ahead(ready, ta, tb) != ready.end()) continue;
            Grid tg = plan_grid(t, fan);
            const std::int64_t kr = ceil_div(t.rows, tg.stride_r), kc = ceil_div(t.cols, tg.stride_c);
            const std::size_t row_cells = static_cast<std::size_t>(kr - 1) * static_cast<std::size_t>(t.cols + 1);
            const std::size_t col_cells = static_cast<std::size_t>(kc - 1) * static_cast<std::size_t>(t.rows + 1);
            try {
                tg.first = backend_.allocate(row_cells + col_cells + 1);
            } catch (const std::bad_alloc&) {
                break;  // the batch ends where memory does
            }
            // Tiles after the first leave room for the levels below one tile
            // (each a fan-out or more smaller than the tile's own grid).
            if (batch_first && !(static_cast<std::uint64_t>(tg.stride_r) * static_cast<std::uint64_t>(tg.stride_c) <=
                                 plan_.leaf_cells)) {
                bool room = true;
                try {
                    backend_.release(backend_.allocate(row_cells + col_cells + 1));
                } catch (const std::bad_alloc&) {
                    room = false;
                }
                if (!room) {
                    backend_.release(tg.first);
                    break;
                }
            }
            if (!batch_first) batch_first = tg.first;
            tg.rows_ckpt = tg.first;
            tg.cols_ckpt = tg.first + row_cells;
            RegionOutputs out;
            out.row_stride = tg.stride_r;
            out.row_out = tg.rows_ckpt;
            out.col_stride = tg.stride_c;
            out.col_out = tg.cols_ckpt;
            ready.push_back({ta, tb, tg});
            tiles.push_back(t);
            outs.push_back(out);
        }
        if (tiles.empty()) return 0;
        backend_.compute_tiles(tiles, outs);
        for (const Region& t : tiles) done_ += static_cast<std::uint64_t>(t.rows) * static_cast<std::uint64_t>(t.cols);
        if (progress_) progress_(done_, total_);
        std::vector<std::pair<Region, Grid>> grids;
        grids.reserve(tiles.size());
        for (std::size_t k = 0; k < tiles.size(); ++k) grids.push_back({tiles[k], ready[old + k].grid});
        add_peaks(grids);
        return tiles.size();
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
    std::vector<std::pair<std::int64_t, std::int64_t>> ahead_of(const Region& reg, const Grid& g, std::int64_t a,
                                                               std::int64_t b, const Cursor& cur, std::size_t cap,
                                                               double band, double slope = -1) const {
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
        std::vector<std::pair<std::int64_t, std::int64_t>> out;
        std::vector<std::pair<double, std::pair<std::int64_t, std::int64_t>>> step;
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

    /// add_peaks of one grid over `reg`.
    void add_peaks(const Region& reg, const Grid& g) {
        const std::pair<Region, Grid> one[] = {{reg, g}};
        add_peaks(one);
    }

    /// What the guess knows of a checkpoint row: the column of its highest
    /// H among the grids computed so far (RegionBackend::row_peaks), and that H.
    struct Peak {
        std::int64_t j = 0;
        std::int32_t h = 0;
    };

    /// Asks the backend for the peaks of the checkpoint rows of `grids`
    /// (each a region and its grid) and keeps them: a row that several
    /// grids' regions cross keeps the highest H (all are exact values of the
    /// one matrix). Only when the backend computes ahead of the walk.
    void add_peaks(std::span<const std::pair<Region, Grid>> grids) {
        if (backend_.leaf_batch() <= 1 && backend_.tile_batch() <= 1) return;
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
        if (!backend_.row_peaks(rows, found)) return;
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
    double guess_col(std::int64_t i, const Cursor& cur) const {
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

    bool is_leaf(const Region& reg) const {
        if (static_cast<std::uint64_t>(reg.rows) * static_cast<std::uint64_t>(reg.cols) <= plan_.leaf_cells) return true;
        // A region no level can cut further is recomputed whole.
        return reg.rows <= backend_.row_alignment() && reg.cols <= 1;
    }

    /// Recomputes a leaf with direction bytes and walks it.
    void walk_leaf(const Region& reg, Cursor& cur) {
        const std::uint8_t* dirs =
            backend_.dirs_buffer(static_cast<std::size_t>(reg.rows) * static_cast<std::size_t>(reg.cols));
        RegionOutputs out;
        out.dirs = const_cast<std::uint8_t*>(dirs);
        run(reg, out);
        walk_dirs(reg, dirs, cur);
    }

    /// Walks the direction bytes of `reg` (row-major, reg.rows x reg.cols)
    /// from `cur` until the path leaves `reg` through its top row or left
    /// column, or ends.
    void walk_dirs(const Region& reg, const std::uint8_t* dirs, Cursor& cur) {
        while (true) {
            if (cur.i == reg.i0 || cur.j == reg.j0) return;  // left the tile
            const std::uint8_t bits =
                dirs[static_cast<std::size_t>(cur.i - reg.i0 - 1) * static_cast<std::size_t>(reg.cols) +
                     static_cast<std::size_t>(cur.j - reg.j0 - 1)];
            if (cur.state == State::h) {
                const std::uint8_t src = bits & 3;
                if (src == from_zero) {  // local only
                    cur.done = true;
                    return;
                }
                if (src == from_diag) {
                    append_diag(cur.i, cur.j);
                    note_step(WalkStep::diag);
                    --cur.i;
                    --cur.j;
                    if (mode_ == AlignMode::local && (cur.i == 0 || cur.j == 0)) {
                        cur.done = true;
                        return;
                    }
                } else {
                    cur.state = src == from_e ? State::e : State::f;
                }
            } else if (cur.state == State::e) {
                append(CigarOp::del);
                note_step(WalkStep::del);
                if (!(bits & e_extended)) cur.state = State::h;
                --cur.j;
            } else {
                append(CigarOp::ins);
                note_step(WalkStep::ins);
                if (!(bits & f_extended)) cur.state = State::h;
                --cur.i;
            }
        }
    }

    /// Appends the diagonal step out of cell (i, j): '=' or 'X' by its codes.
    void append_diag(std::int64_t i, std::int64_t j) {
        if (!record_) return;
        const std::uint8_t a = q_[static_cast<std::size_t>(i - 1)], b = r_[static_cast<std::size_t>(j - 1)];
        append(residues_identical(s_.alphabet, a, b) ? CigarOp::eq : CigarOp::diff);
    }

    void append(CigarOp op) {
        if (!record_) return;
        if (!rev_.empty() && cigar_op(rev_.back()) == op && cigar_len(rev_.back()) < max_run)
            rev_.back() += 1u << 4;
        else
            rev_.push_back(cigar_pack(op, 1));
    }

    std::vector<std::uint32_t>& reversed_cigar() { return rev_; }

private:
    static constexpr std::uint32_t max_run = (1u << 28) - 1;

    Grid plan_grid(const Region& reg, int fan) const {
        Grid g;
        const std::int64_t align = std::max<std::int64_t>(1, backend_.row_alignment());
        // Straight into square leaves when their checkpoints are cheap enough.
        {
            std::int64_t side = 1;
            while (static_cast<std::uint64_t>(side * 2) * static_cast<std::uint64_t>(side * 2) <= plan_.leaf_cells) side *= 2;
            const std::int64_t sr = std::min(ceil_div(std::max(side, align), align) * align, ceil_div(reg.rows, align) * align);
            const std::int64_t sc = std::max<std::int64_t>(1, static_cast<std::int64_t>(plan_.leaf_cells) / sr);
            const std::uint64_t bytes = static_cast<std::uint64_t>(ceil_div(reg.rows, sr) - 1) * static_cast<std::uint64_t>(reg.cols + 1) * 8 +
                                        static_cast<std::uint64_t>(ceil_div(reg.cols, sc) - 1) * static_cast<std::uint64_t>(reg.rows + 1) * 8;
            if (fan == std::max(2, plan_.fan_out) && bytes <= plan_.direct_leaf_bytes && (sr < reg.rows || sc < reg.cols)) {
                g.stride_r = sr;
                g.stride_c = sc;
                return g;
            }
        }
        const std::int64_t min_tile = std::max<std::int64_t>(1, plan_.min_tile);
        auto stride = [&](std::int64_t len, std::int64_t unit) {
            const std::int64_t k = std::clamp<std::int64_t>(len / std::max(min_tile, unit), 1, fan);
            return ceil_div(ceil_div(len, k), unit) * unit;
        };
        g.stride_r = stride(reg.rows, align);
        g.stride_c = stride(reg.cols, 1);
        // Every level must cut: split the dimension that can be split.
        if (g.stride_r >= reg.rows && g.stride_c >= reg.cols) {
            if (reg.cols >= 2)
                g.stride_c = ceil_div(reg.cols, 2);
            else
                g.stride_r = ceil_div(ceil_div(reg.rows, 2), align) * align;
        }
        return g;
    }

    RegionResult run(const Region& reg, const RegionOutputs& out) {
        const std::uint64_t cells = static_cast<std::uint64_t>(reg.rows) * static_cast<std::uint64_t>(reg.cols);
        const std::uint64_t base = done_;
        std::function<void(std::uint64_t)> on_cells;  // empty without a progress callback: no polling
        if (progress_) on_cells = [&](std::uint64_t c) { progress_(base + c, total_); };
        RegionResult res = backend_.compute(reg, out, on_cells);
        done_ = base + cells;
        if (progress_) progress_(done_, total_);
        return res;
    }

    RegionBackend& backend_;
    std::span<const std::uint8_t> q_, r_;
    const ScoringScheme& s_;
    AlignMode mode_;
    CheckpointPlan plan_;
    const ProgressCallback& progress_;
    bool record_;
    std::uint64_t total_;
    std::uint64_t done_ = 0;
    std::vector<std::uint32_t> rev_;
    std::map<std::int64_t, Peak> peaks_;  // checkpoint row i -> its peak (add_peaks)
    /// A backend walk's steps not yet replayed (walk_on_backend): from (i, j)
    /// to (end_i, end_j).
    struct Pending {
        std::span<const std::uint8_t> steps;
        std::int64_t i = 0, j = 0, end_i = 0, end_j = 0;
    };
    Pending pending_;
    static constexpr std::int64_t trail_steps = 2048;  // (i + j) behind the cursor that trail_slope looks
    static constexpr std::size_t trail_points = 64;    // walk ends note_trail keeps
    std::deque<std::pair<std::int64_t, std::int64_t>> trail_;  // (i, j) where recent walks stopped
    std::int64_t gap_run_ = 0;            // steps of the gap run the walk is in (note_steps)
    std::uint8_t gap_step_ = 0;           // the WalkStep of the walk's last step
};

}  // namespace

void RegionBackend::fill_border(BoundaryCell* dst, std::int64_t len, bool free, std::int32_t gap_open,
                                std::int32_t gap_extend) {
    std::vector<BoundaryCell> b(static_cast<std::size_t>(len + 1));
    for (std::int64_t k = 0; k <= len; ++k)
        b[static_cast<std::size_t>(k)] = {(free || k == 0) ? 0 : static_cast<std::int32_t>(-(gap_open + k * gap_extend)),
                                          detail::neg_inf};
    upload(dst, b);
}

AlignmentResult checkpoint_align(RegionBackend& backend, std::span<const std::uint8_t> query,
                                 std::span<const std::uint8_t> ref, const ScoringScheme& s, AlignMode mode,
                                 bool score_only, const CheckpointPlan& plan, const ProgressCallback& progress) {
    if (!fits_int32(s, query.size(), ref.size()))
        throw std::length_error("pair of lengths " + std::to_string(query.size()) + " x " +
                                std::to_string(ref.size()) + " could overflow 32-bit scores");
    const std::int64_t m = static_cast<std::int64_t>(query.size()), n = static_cast<std::int64_t>(ref.size());
    if (m == 0 || n == 0) return align_pair_full_matrix(query, ref, s, mode, score_only);  // no DP cell
    const bool local = mode == AlignMode::local;

    // Row 0 and column 0 (docs/scoring.md): H(0,j) = 0 (local, semi-global)
    // or -(go + j*ge) (global); H(i,0) = 0 (local) or -(go + i*ge) (global,
    // semi-global); 0 at the corner; Ecell and Fcell minus infinity.
    BoundaryCell* top = backend.allocate(static_cast<std::size_t>(n + 1) + static_cast<std::size_t>(m + 1));
    BoundaryCell* left = top + (n + 1);
    backend.fill_border(top, n, mode != AlignMode::global, s.gap_open, s.gap_extend);
    backend.fill_border(left, m, local, s.gap_open, s.gap_extend);
    const std::int32_t h_m0 = local ? 0 : static_cast<std::int32_t>(-(s.gap_open + m * s.gap_extend));  // H(m, 0)
    const Region whole{0, 0, m, n, top, left};

    Tracer tracer(backend, query, ref, s, mode, plan, progress, !score_only);
    // Local and semi-global begin cells need the walk, even without a CIGAR.
    const bool need_path = !(score_only && mode == AlignMode::global);
    RegionResult res;
    const bool leaf = !need_path || tracer.is_leaf(whole);
    const Grid g = tracer.compute_grid(whole, !leaf, mode != AlignMode::global, res);
    if (!leaf) tracer.add_peaks(whole, g);

    AlignmentResult out;
    out.has_cigar = !score_only;
    Cursor cur;
    if (local) {
        if (res.best <= 0) {
            backend.release(top);
            return out;  // unaligned
        }
        out.score = res.best;
        cur.i = res.best_i;
        cur.j = res.best_j;
    } else if (mode == AlignMode::semi_global) {
        // The best of the last row: the region's best over columns 1..n, or
        // column 0 (H(m, 0), the query's whole leading gap) when it is at
        // least as high (ties go to the smallest column).
        const std::int32_t h0 = h_m0;
        out.score = std::max(res.best, h0);
        cur.i = m;
        cur.j = res.best > h0 ? res.best_j : 0;
    } else {
        out.score = res.corner_h;
        cur.i = m;
        cur.j = n;
    }
    out.query_end = static_cast<std::int32_t>(cur.i);
    out.ref_end = static_cast<std::int32_t>(cur.j);
    if (!need_path) {
        backend.release(top);
        return out;
    }
    if (cur.j > 0) {  // (a semi-global end on column 0 is the query's whole gap, below)
        if (leaf)
            tracer.trace(whole, cur);  // recomputes the (small) matrix with direction bytes
        else
            tracer.walk_grid(whole, g, cur);
    }
    backend.release(top);
    // A global path that reached row 0 or column 0 ends in one gap; a
    // semi-global one stops on row 0 (the ref's leading gap is free) and
    // finishes column 0 with its I's.
    if (mode == AlignMode::global)
        for (; cur.j > 0; --cur.j) tracer.append(CigarOp::del);
    if (!local)
        for (; cur.i > 0; --cur.i) tracer.append(CigarOp::ins);
    out.query_begin = static_cast<std::int32_t>(cur.i);
    out.ref_begin = static_cast<std::int32_t>(cur.j);
    if (!score_only) {
        const auto& rev = tracer.reversed_cigar();
        out.cigar.assign(rev.rbegin(), rev.rend());
    }
    return out;
}

}  // namespace gpualign
