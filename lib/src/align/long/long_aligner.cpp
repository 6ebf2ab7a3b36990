// The CPU long-pair aligner: a RegionBackend that computes regions as an
// OpenMP wavefront of tiles, driven by checkpoint_align.
//
// Recurrence (Gotoh 1982; docs/scoring.md), O = go + ge, E = ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - E, H(i,j-1) - O)      opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - E, H(i-1,j) - O)      opening wins ties
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell [, 0 if local])
//                preference zero (local) > diagonal > E > F
// exactly as align_pair_full_matrix computes it, so every value a tile
// produces is the full matrix's value. Global and semi-global share the
// recurrence (no zero floor); they differ in the borders, which each Region
// brings, and in the end cell: a semi-global pass reports the best of the
// region's last row (RegionResult), read off the row buffer at its end.
//
// Tiles: the region is cut at every checkpoint row and column and then into
// pieces of at most `tile` cells a side. Tile (a, b) reads the bottom row of
// tile (a-1, b) from a shared row buffer and the right column of tile
// (a, b-1) from a shared column buffer, and overwrites both in place; tiles
// on one anti-diagonal touch disjoint parts of them, so a diagonal runs in
// parallel.
//
// Tile kernels: tile_rows below (scalar, row by row: the readable reference)
// or its SIMD twin cpu::compute_long_tile (lib/src/align/long/long_tile_kernel.cpp,
// anti-diagonals in 32-bit lanes), chosen by LongAlignOptions::kernel; both
// read and write the same buffers with the same values.
#include "gpualign/align/long_aligner.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "align/long/long_tile_kernel.hpp"
#include "align/traceback_walk.hpp"
#include "gpualign/align/reference_aligner.hpp"

namespace gpualign {
namespace {

// Direction byte layout and minus infinity, defined once in traceback_walk.hpp.
using detail::e_extended;
using detail::f_extended;
using detail::from_diag;
using detail::from_e;
using detail::from_f;
using detail::from_zero;
using detail::neg_inf;

/// Cuts [0, len) at every multiple of `stride` (when > 0) and then into
/// near-equal pieces of at most `tile`: returns the edges 0 = e_0 < ... = len.
std::vector<std::int64_t> tile_edges(std::int64_t len, std::int64_t stride, std::int64_t tile) {
    std::vector<std::int64_t> edges{0};
    const std::int64_t seg = stride > 0 ? stride : len;
    for (std::int64_t s0 = 0; s0 < len; s0 += seg) {
        const std::int64_t s1 = std::min(len, s0 + seg), l = s1 - s0;
        const std::int64_t k = (l + tile - 1) / tile;
        for (std::int64_t p = 1; p <= k; ++p) edges.push_back(s0 + l * p / k);
    }
    return edges;
}

/// The canonical best cell (max H, then smallest i, then smallest j) of a
/// local pass, or the best cell of a semi-global pass's last row.
struct Best {
    std::int32_t h = 0;
    std::int64_t i = 0, j = 0;
    void merge(const Best& o) {
        if (o.h > h || (o.h == h && o.h > 0 && (o.i < i || (o.i == i && o.j < j)))) *this = o;
    }
};

/// The CPU's RegionSpeculation, for LongAlignOptions::leaf_batch or
/// tile_batch > 1 (the driver's speculative paths, tested on the CPU): a
/// batch is computed one region after another through `backend`; the walk
/// stays on the host (leaf_dirs).
class CpuSpeculation final : public RegionSpeculation {
public:
    CpuSpeculation(RegionBackend& backend, std::size_t leaf_batch, std::size_t tile_batch)
        : backend_(backend), leaf_batch_(leaf_batch), tile_batch_(tile_batch) {}

    std::size_t leaf_batch() const override { return leaf_batch_; }
    std::size_t tile_batch() const override { return tile_batch_; }
    void compute_leaves(std::span<const Region> leaves) override {
        batch_.resize(leaves.size());
        for (std::size_t k = 0; k < leaves.size(); ++k) {
            batch_[k].resize(static_cast<std::size_t>(leaves[k].rows) * static_cast<std::size_t>(leaves[k].cols));
            RegionOutputs out;
            out.dirs = batch_[k].data();
            backend_.compute(leaves[k], out, {});
        }
    }
    const std::uint8_t* leaf_dirs(std::size_t k, std::int64_t, std::int64_t) override { return batch_.at(k).data(); }
    void compute_tiles(std::span<const Region> tiles, std::span<const RegionOutputs> outs) override {
        for (std::size_t k = 0; k < tiles.size(); ++k) backend_.compute(tiles[k], outs[k], {});
    }
    /// Host memory: a scan of each row, the first largest H.
    bool row_peaks(std::span<const CellRow> rows, std::span<RowPeak> peaks) override {
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const BoundaryCell* c = rows[k].cells;
            RowPeak p{0, c[0].h};
            for (std::int64_t t = 1; t < rows[k].count; ++t)
                if (c[t].h > p.h) p = {t, c[t].h};
            peaks[k] = p;
        }
        return true;
    }

private:
    RegionBackend& backend_;
    std::size_t leaf_batch_;
    std::size_t tile_batch_;
    std::vector<std::vector<std::uint8_t>> batch_;  // the last compute_leaves batch's direction bytes
};

class CpuBackend final : public RegionBackend {
public:
    CpuBackend(std::span<const std::uint8_t> q, std::span<const std::uint8_t> r, const ScoringScheme& s,
               AlignMode mode, const LongAlignOptions& o)
        : q_(q), r_(r), s_(s), mode_(mode), tile_(o.tile),
          threads_(o.threads > 0 ? o.threads : omp_get_num_procs()), budget_(o.memory_limit),
          spec_(*this, std::max<std::size_t>(1, o.leaf_batch), std::max<std::size_t>(1, o.tile_batch)),
          simd_(o.kernel == CpuKernel::simd && cpu::long_tile_simd_available()),
          tile_scheme_(cpu::make_long_tile_scheme(s, mode)) {
        if (o.tile < 1) throw std::invalid_argument("LongAlignOptions::tile must be >= 1");
    }

    BoundaryCell* allocate(std::size_t count) override {
        const std::size_t bytes = count * sizeof(BoundaryCell);
        if (used_ + bytes > budget_) throw std::bad_alloc();
        stack_.push_back({std::make_unique<BoundaryCell[]>(count), bytes});
        used_ += bytes;
        return stack_.back().data.get();
    }
    void release(BoundaryCell* p) override {
        while (!stack_.empty()) {
            const bool last = stack_.back().data.get() == p;
            used_ -= stack_.back().bytes;
            stack_.pop_back();
            if (last) return;
        }
    }
    void upload(BoundaryCell* dst, std::span<const BoundaryCell> src) override {
        std::copy(src.begin(), src.end(), dst);
    }
    std::int64_t row_alignment() const override { return 1; }
    std::uint8_t* dirs_buffer(std::size_t bytes) override {
        if (dirs_.size() < bytes) dirs_.resize(bytes);
        return dirs_.data();
    }
    /// Batches only when the options ask for them (else one region at a time).
    RegionSpeculation* speculation() override {
        return spec_.leaf_batch() > 1 || spec_.tile_batch() > 1 ? &spec_ : nullptr;
    }

    RegionResult compute(const Region& reg, const RegionOutputs& out,
                         const std::function<void(std::uint64_t)>& on_cells) override {
        const std::int64_t rows = reg.rows, cols = reg.cols;
        std::vector<BoundaryCell> rowbuf(reg.top, reg.top + cols + 1);
        std::vector<BoundaryCell> colbuf(reg.left, reg.left + rows + 1);
        const std::vector<std::int64_t> re = tile_edges(rows, out.row_stride, tile_);
        const std::vector<std::int64_t> ce = tile_edges(cols, out.col_stride, tile_);
        const std::int64_t A = static_cast<std::int64_t>(re.size()) - 1, B = static_cast<std::int64_t>(ce.size()) - 1;
        std::vector<std::int32_t> corner(static_cast<std::size_t>(A));
        for (std::int64_t a = 0; a < A; ++a) corner[a] = reg.left[re[a]].h;

        Ctx ctx{reg, out, rowbuf.data(), colbuf.data()};
        const int threads = A * B >= 4 ? threads_ : 1;
        std::vector<Best> best(static_cast<std::size_t>(threads));
        std::atomic<std::uint64_t> cells{0};
        auto tile = [&](std::int64_t a, std::int64_t b, Best& bst) {
            run_tile(ctx, re[a], re[a + 1], ce[b], ce[b + 1], corner[static_cast<std::size_t>(a)], a == 0, b == 0, bst);
            cells.fetch_add(static_cast<std::uint64_t>(re[a + 1] - re[a]) * static_cast<std::uint64_t>(ce[b + 1] - ce[b]),
                            std::memory_order_relaxed);
        };
        if (threads == 1) {
            for (std::int64_t a = 0; a < A; ++a) {
                for (std::int64_t b = 0; b < B; ++b) tile(a, b, best[0]);
                if (on_cells) on_cells(cells.load(std::memory_order_relaxed));
            }
        } else {
#pragma omp parallel num_threads(threads)
            {
                Best& mine = best[static_cast<std::size_t>(omp_get_thread_num())];
                for (std::int64_t d = 0; d < A + B - 1; ++d) {
                    const std::int64_t a_lo = std::max<std::int64_t>(0, d - (B - 1)), a_hi = std::min(d, A - 1);
#pragma omp for schedule(dynamic, 1)
                    for (std::int64_t a = a_lo; a <= a_hi; ++a) tile(a, d - a, mine);
#pragma omp master
                    if (on_cells && (d & 15) == 15) on_cells(cells.load(std::memory_order_relaxed));
                }
            }
        }
        RegionResult res;
        Best all;
        for (const Best& b : best) all.merge(b);
        if (mode_ == AlignMode::semi_global && out.want_best) all = last_row_best(reg, rowbuf);
        res.best = all.h;
        res.best_i = all.i;
        res.best_j = all.j;
        res.corner_h = rowbuf[static_cast<std::size_t>(cols)].h;
        return res;
    }

private:
    struct Allocation {
        std::unique_ptr<BoundaryCell[]> data;
        std::size_t bytes;
    };
    struct Ctx {
        const Region& reg;
        const RegionOutputs& out;
        BoundaryCell* rowbuf;
        BoundaryCell* colbuf;
    };

    /// The best cell of the region's last row (semi-global): `row` holds
    /// H(i0+rows, j0+t), t = 0..cols, once the region is computed; the first
    /// maximum over t >= 1 (the smallest column on ties).
    static Best last_row_best(const Region& reg, const std::vector<BoundaryCell>& row) {
        const auto it = std::max_element(row.begin() + 1, row.end(),
                                         [](const BoundaryCell& a, const BoundaryCell& b) { return a.h < b.h; });
        return {it->h, reg.i0 + reg.rows, reg.j0 + (it - row.begin())};
    }

    /// Computes tile rows (r0, r1] x columns (c0, c1]; `corner` holds H(r0, c0)
    /// on entry and H(r0, c1) (the next tile's corner) on return.
    void run_tile(const Ctx& c, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1,
                  std::int32_t& corner, bool first_row, bool first_col, Best& best) const {
        const bool dirs = c.out.dirs != nullptr;
        if (simd_)
            simd_tile(c, r0, r1, c0, c1, corner, best);
        else if (mode_ == AlignMode::local)
            dirs ? tile_rows<true, true>(c, r0, r1, c0, c1, corner, best)
                 : tile_rows<true, false>(c, r0, r1, c0, c1, corner, best);
        else
            dirs ? tile_rows<false, true>(c, r0, r1, c0, c1, corner, best)
                 : tile_rows<false, false>(c, r0, r1, c0, c1, corner, best);
        const Region& reg = c.reg;
        const RegionOutputs& out = c.out;
        // Checkpoints are tile edges: copy this tile's share of them.
        if (out.row_stride > 0 && r1 < reg.rows && r1 % out.row_stride == 0) {
            BoundaryCell* dst = out.row_out + (r1 / out.row_stride - 1) * (reg.cols + 1);
            std::copy(c.rowbuf + c0 + 1, c.rowbuf + c1 + 1, dst + c0 + 1);
            if (first_col) dst[0] = {reg.left[r1].h, 0};
        }
        if (out.col_stride > 0 && c1 < reg.cols && c1 % out.col_stride == 0) {
            BoundaryCell* dst = out.col_out + (c1 / out.col_stride - 1) * (reg.rows + 1);
            std::copy(c.colbuf + r0 + 1, c.colbuf + r1 + 1, dst + r0 + 1);
            if (first_row) dst[0] = {reg.top[c1].h, 0};
        }
    }

    /// tile_rows' SIMD twin: the same tile through cpu::compute_long_tile.
    void simd_tile(const Ctx& c, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1,
                   std::int32_t& corner, Best& best) const {
        const Region& reg = c.reg;
        cpu::LongTile t;
        t.rows = r1 - r0;
        t.cols = c1 - c0;
        t.query = q_.data() + reg.i0 + r0;
        t.ref = r_.data() + reg.j0 + c0;
        t.corner = corner;                 // H(r0, c0)
        corner = c.rowbuf[c1].h;           // H(r0, c1), before the tile overwrites it
        t.top = c.rowbuf + c0;
        t.left = c.colbuf + r0;
        if (c.out.dirs) {
            t.dirs = c.out.dirs + r0 * reg.cols + c0;
            t.dirs_pitch = reg.cols;
        }
        const cpu::LongTileBest b = cpu::compute_long_tile(t, tile_scheme_);
        if (mode_ == AlignMode::local && b.h > 0) best.merge({b.h, reg.i0 + r0 + b.r, reg.j0 + c0 + b.c});
    }

    /// The scalar tile kernel, row by row: the readable twin of
    /// cpu::compute_long_tile (lib/src/align/long/long_tile_kernel.cpp), which must
    /// write exactly what this writes (tests/align/long_aligner_test.cpp).
    template <bool Local, bool Dirs>
    void tile_rows(const Ctx& c, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1,
                   std::int32_t& corner, Best& best) const {
        const Region& reg = c.reg;
        const std::int32_t open = s_.gap_open + s_.gap_extend, ext = s_.gap_extend;
        const std::int32_t h_floor = Local ? 0 : neg_inf;
        BoundaryCell* row = c.rowbuf;
        std::int32_t prev_left = corner;  // H(r0, c0): the diagonal of the first row
        corner = row[c1].h;               // H(r0, c1), before this tile overwrites it
        for (std::int64_t r = r0 + 1; r <= r1; ++r) {
            const std::int64_t i = reg.i0 + r;
            BoundaryCell& lb = c.colbuf[r];
            std::int32_t diag = prev_left;
            prev_left = lb.h;
            std::int32_t h_left = lb.h, e = lb.g;
            const std::int32_t* row_scores = &s_.matrix[static_cast<std::size_t>(q_[i - 1]) * s_.size];
            const std::uint8_t* rs = r_.data() + reg.j0 - 1;  // rs[j] = ref code of column j
            std::uint8_t* d = Dirs ? c.out.dirs + (r - 1) * reg.cols - 1 : nullptr;
            std::int32_t row_best = 0;
            std::int64_t row_best_c = 0;
            for (std::int64_t col = c0 + 1; col <= c1; ++col) {
                const std::int32_t e_open = h_left - open, e_ext = e - ext;
                const bool e_is_ext = e_ext > e_open;
                e = e_is_ext ? e_ext : e_open;
                const BoundaryCell up = row[col];
                const std::int32_t f_open = up.h - open, f_ext = up.g - ext;
                const bool f_is_ext = f_ext > f_open;
                const std::int32_t f = f_is_ext ? f_ext : f_open;
                std::int32_t h = diag + row_scores[rs[col]];
                std::uint8_t src = from_diag;
                src = e > h ? from_e : src;
                h = e > h ? e : h;
                src = f > h ? from_f : src;
                h = f > h ? f : h;
                src = h <= h_floor ? from_zero : src;
                h = h <= h_floor ? h_floor : h;
                diag = up.h;
                row[col] = {h, f};
                h_left = h;
                if constexpr (Dirs)
                    d[col] = static_cast<std::uint8_t>(src | (e_is_ext ? e_extended : 0) | (f_is_ext ? f_extended : 0));
                if constexpr (Local) {
                    const bool better = h > row_best;
                    row_best_c = better ? col : row_best_c;
                    row_best = better ? h : row_best;
                }
            }
            lb = {h_left, e};
            if constexpr (Local)
                if (row_best > 0) best.merge({row_best, i, reg.j0 + row_best_c});
        }
    }

    std::span<const std::uint8_t> q_, r_;
    const ScoringScheme& s_;
    AlignMode mode_;
    std::int64_t tile_;
    int threads_;
    std::size_t budget_;
    std::size_t used_ = 0;
    std::vector<Allocation> stack_;
    std::vector<std::uint8_t> dirs_;
    CpuSpeculation spec_;
    bool simd_;
    cpu::LongTileScheme tile_scheme_;
};

}  // namespace

AlignmentResult align_pair_long(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                                const ScoringScheme& s, AlignMode mode, bool score_only,
                                const LongAlignOptions& options) {
    CpuBackend backend(query, ref, s, mode, options);  // checks options.tile
    if (options.plan.fan_out < 2) throw std::invalid_argument("CheckpointPlan::fan_out must be >= 2");
    if (!(options.plan.leaf_band >= 0)) throw std::invalid_argument("CheckpointPlan::leaf_band must be >= 0");
    if (!(options.plan.tile_band >= 0)) throw std::invalid_argument("CheckpointPlan::tile_band must be >= 0");
    return checkpoint_align(backend, query, ref, s, mode, score_only, options.plan, options.progress);
}

std::unique_ptr<RegionBackend> make_cpu_region_backend(std::span<const std::uint8_t> query,
                                                       std::span<const std::uint8_t> ref, const ScoringScheme& s,
                                                       AlignMode mode, const LongAlignOptions& options) {
    return std::make_unique<CpuBackend>(query, ref, s, mode, options);
}

}  // namespace gpualign
