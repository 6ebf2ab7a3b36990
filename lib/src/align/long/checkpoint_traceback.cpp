// Exact traceback by recursive checkpoint grids (checkpoint_traceback.hpp).
// The walk inside a leaf tile is the state machine of docs/scoring.md, the
// same as the full-matrix reference in reference_aligner.cpp. Which leaves and
// tiles a RegionSpeculation computes ahead of the walk is PathGuess's choice
// (checkpoint_guess.hpp); this file holds the exact recursion.
#include "gpualign/align/checkpoint_traceback.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>

#include "align/traceback_walk.hpp"
#include "checkpoint_guess.hpp"
#include "gpualign/align/reference_aligner.hpp"

namespace gpualign {
namespace {

// Direction byte layout (docs/scoring.md), defined once in traceback_walk.hpp.
using detail::e_extended;
using detail::f_extended;
using detail::from_diag;
using detail::from_e;
using detail::from_zero;

using detail::Ahead;
using detail::ceil_div;
using detail::Cursor;
using detail::find_ahead;
using detail::Grid;
using detail::PathGuess;
using detail::State;
using detail::TileIndex;
using detail::TilesAhead;
using detail::tile_of;

class Tracer {
public:
    Tracer(RegionBackend& backend, std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
           const ScoringScheme& s, AlignMode mode, const CheckpointPlan& plan, const ProgressCallback& progress,
           bool record)
        : backend_(backend), spec_(backend.speculation()), q_(q), r_(r), s_(s), mode_(mode), plan_(plan),
          progress_(progress), record_(record), total_(static_cast<std::uint64_t>(q.size()) * r.size()),
          guess_(mode, plan, spec_) {}

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
        guess_.add_peaks(reg, g);
        walk_grid(reg, g, cur);
        backend_.release(g.first);
    }

    /// Follows the path through the tiles of a computed grid (`reg`'s tile
    /// among `ahead`'s, when given).
    void walk_grid(const Region& reg, const Grid& g, Cursor& cur, const TilesAhead* ahead = nullptr) {
        const bool leaves = static_cast<std::uint64_t>(g.stride_r) * static_cast<std::uint64_t>(g.stride_c) <= plan_.leaf_cells;
        if (leaves && leaf_batch() > 1) {
            walk_leaves_ahead(reg, g, cur, ahead);
            return;
        }
        if (!leaves && tile_batch() > 1) {
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
    /// the tiles the path most likely crosses next (PathGuess::leaf_batch: those within
    /// CheckpointPlan::leaf_band leaf sides of the line from the cursor
    /// towards the matrix origin, global, or along the main diagonal, nearest
    /// first), then walk. A path that strays leaves the batch and starts a
    /// new one there; which tiles are computed never changes the result, only
    /// the work. When `reg` is a tile of `ahead`'s grid and the backend walks
    /// its batches, a batch with room goes on along the line into the next
    /// computed tiles (PathGuess::leaves_along_line), so that one launch and one walk
    /// serve the corner a diagonal path clips and the tile after it.
    void walk_leaves_ahead(const Region& reg, const Grid& g, Cursor& cur, const TilesAhead* ahead) {
        std::vector<TileIndex> ready;  // tile (a, b) of each leaf in the batch
        std::vector<Region> batch;
        const std::size_t cap = spec_->leaf_batch();
        while (!cur.done && cur.i > reg.i0 && cur.j > reg.j0) {
            const std::int64_t a = (cur.i - reg.i0 - 1) / g.stride_r, b = (cur.j - reg.j0 - 1) / g.stride_c;
            auto it = std::find(ready.begin(), ready.end(), std::make_pair(a, b));
            if (it == ready.end()) {
                ready = guess_.leaf_batch(reg, g, a, b, cur, cap);
                batch.clear();
                for (const auto& [ta, tb] : ready) batch.push_back(tile_of(reg, g, ta, tb));
                if (ahead && spec_->walks_leaves()) guess_.leaves_along_line(reg, cur, *ahead, cap, batch);
                spec_->compute_leaves(batch);
                replay_walk();  // while the batch computes (a GPU's launch returns at once)
                for (const Region& t : batch)
                    done_ += static_cast<std::uint64_t>(t.rows) * static_cast<std::uint64_t>(t.cols);
                if (progress_) progress_(done_, total_);
                it = ready.begin();  // tile (a, b) is first
            }
            if (spec_->walks_leaves()) {
                walk_on_backend(cur);
            } else {
                const std::size_t k = static_cast<std::size_t>(it - ready.begin());
                const Region leaf = tile_of(reg, g, a, b);
                walk_dirs(leaf, spec_->leaf_dirs(k, cur.i - leaf.i0, cur.j - leaf.j0), cur);
            }
            guess_.note_trail(cur);
        }
        replay_walk();
    }

    /// Has the backend walk the leaf batch from `cur` and moves the cursor to
    /// where the walk stopped. The steps are replayed into the CIGAR later
    /// (replay_walk), once the next leaf batch is launched: a GPU computes it
    /// meanwhile. The steps stay valid until the next walk_leaves call.
    void walk_on_backend(Cursor& cur) {
        replay_walk();  // the backend's steps buffer is about to be reused
        WalkCursor w{cur.i, cur.j, static_cast<std::uint8_t>(cur.state), cur.done};
        const std::span<const std::uint8_t> steps = spec_->walk_leaves(w);
        const bool moved = !steps.empty() || w.done || w.state != static_cast<std::uint8_t>(cur.state);
        if (w.state > 2 || !moved)
            throw std::logic_error("leaf walk: the backend's walk from (" + std::to_string(cur.i) + ", " +
                                   std::to_string(cur.j) + ") did not move or left state " + std::to_string(w.state));
        guess_.note_steps(steps);
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
    /// crosses next (PathGuess::tile_batch), as many as the backend takes and as the
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
    /// PathGuess::tile_batch gives (up to RegionSpeculation::tile_batch(), until an allocation
    /// fails), except those `ready` holds already, computes them in one
    /// backend call and appends them to `ready`, (a, b) first. Returns how
    /// many it appended: 0 when not even (a, b)'s grid fits.
    std::size_t compute_tiles_ahead(const Region& reg, const Grid& g, std::int64_t a, std::int64_t b,
                                    const Cursor& cur, std::vector<Ahead>& ready, BoundaryCell*& batch_first) {
        const std::size_t old = ready.size();
        std::vector<Region> tiles;
        std::vector<RegionOutputs> outs;
        const int fan = std::max(2, plan_.fan_out);
        for (const auto& [ta, tb] : guess_.tile_batch(reg, g, a, b, cur, spec_->tile_batch())) {
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
        spec_->compute_tiles(tiles, outs);
        for (const Region& t : tiles) done_ += static_cast<std::uint64_t>(t.rows) * static_cast<std::uint64_t>(t.cols);
        if (progress_) progress_(done_, total_);
        std::vector<std::pair<Region, Grid>> grids;
        grids.reserve(tiles.size());
        for (std::size_t k = 0; k < tiles.size(); ++k) grids.push_back({tiles[k], ready[old + k].grid});
        guess_.add_peaks(grids);
        return tiles.size();
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
                    guess_.note_step(WalkStep::diag);
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
                guess_.note_step(WalkStep::del);
                if (!(bits & e_extended)) cur.state = State::h;
                --cur.j;
            } else {
                append(CigarOp::ins);
                guess_.note_step(WalkStep::ins);
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

    /// add_peaks of the top-level grid (checkpoint_align).
    void add_peaks(const Region& reg, const Grid& g) { guess_.add_peaks(reg, g); }

private:
    static constexpr std::uint32_t max_run = (1u << 28) - 1;

    /// The backend's batch sizes, 1 (one region at a time) without a RegionSpeculation.
    std::size_t leaf_batch() const { return spec_ ? spec_->leaf_batch() : 1; }
    std::size_t tile_batch() const { return spec_ ? spec_->tile_batch() : 1; }

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
    RegionSpeculation* spec_;  // the backend's, or nullptr
    std::span<const std::uint8_t> q_, r_;
    const ScoringScheme& s_;
    AlignMode mode_;
    CheckpointPlan plan_;
    const ProgressCallback& progress_;
    bool record_;
    std::uint64_t total_;
    std::uint64_t done_ = 0;
    std::vector<std::uint32_t> rev_;
    /// A backend walk's steps not yet replayed (walk_on_backend): from (i, j)
    /// to (end_i, end_j).
    struct Pending {
        std::span<const std::uint8_t> steps;
        std::int64_t i = 0, j = 0, end_i = 0, end_j = 0;
    };
    Pending pending_;
    PathGuess guess_;
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
