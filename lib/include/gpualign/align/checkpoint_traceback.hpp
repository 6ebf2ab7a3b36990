// gpualign — exact linear-memory traceback by checkpoint grids, shared by the
// CPU and GPU long-pair engines. Plain C++20 (no SeqAn3, no CUDA types), so
// gpu/ includes it too.
//
// Method (the "special rows" idea of CUDAlign, Sandes & de Melo 2010-2016,
// applied recursively in two dimensions; forward passes only):
//  1. A forward pass over the whole matrix (Gotoh 1982) finds the end cell
//     (global: (m, n); local: the canonical best cell; semi-global: the best
//     cell of the last row, docs/scoring.md) and saves the exact boundary
//     values of a grid of checkpoint rows (H and Fcell of every column) and
//     checkpoint columns (H and Ecell of every row).
//  2. Each grid tile then has exact boundaries: its top checkpoint row, its
//     left checkpoint column and their corner. The traceback starts in the
//     tile holding the end cell, recomputes that tile alone (with a finer
//     grid of its own), and follows the path tile by tile towards row 0 or
//     column 0 (or, local, to where it ends).
//  3. A tile of at most `leaf_cells` cells is recomputed with one direction
//     byte per cell (docs/scoring.md) and walked with the canonical rule.
// Every value a tile starts from is the exact value of the full matrix, so
// the path, CIGAR and coordinates are those of the full-matrix reference
// `align_pair_full_matrix`, byte for byte, by construction.
//
// Memory: the checkpoints of one level take about 8 bytes x (fan-out x
// (width + height)); a level's tiles are fan-out times smaller in each
// dimension, so the whole stack is linear in query_len + ref_len, never
// their product. Work: the forward pass plus about 2/fan-out of it per level.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// One boundary value: `h` = H, `g` = the gap state that crosses the boundary
/// (Fcell on a checkpoint row, Ecell on a checkpoint column). 8 bytes.
struct BoundaryCell {
    std::int32_t h;
    std::int32_t g;
};

/// A rectangle of the DP matrix with exact boundaries, as a backend computes it.
///
/// Cells: rows i in (i0, i0 + rows], columns j in (j0, j0 + cols]; 1-based DP
/// coordinates (row i = query position i-1). Boundaries (backend memory, host
/// or device, borrowed):
///  - top[t], t = 0..cols:  H(i0, j0+t) and Fcell(i0, j0+t) (top[0].g unused);
///  - left[t], t = 0..rows: H(i0+t, j0) and Ecell(i0+t, j0) (left[0] is the
///    corner, equal to top[0]; left[0].g unused).
struct Region {
    std::int64_t i0 = 0, j0 = 0, rows = 0, cols = 0;
    const BoundaryCell* top = nullptr;
    const BoundaryCell* left = nullptr;
};

/// What one pass over a Region writes (all buffers backend memory, owned by
/// the caller; nullptr / 0 when not wanted).
///  - checkpoint rows at region rows r = row_stride, 2*row_stride, ... < rows:
///    row k (k = 0, 1, ...) is written to row_out + k * (cols + 1), laid out
///    as Region::top (entry 0 = H(i0+r, j0)).
///  - checkpoint columns at region columns c = col_stride, 2*col_stride, ...
///    < cols: column k goes to col_out + k * (rows + 1), laid out as
///    Region::left (entry 0 = H(i0, j0+c)).
///  - dirs: one direction byte per cell (docs/scoring.md), row-major,
///    dirs[(i-i0-1) * cols + (j-j0-1)], in HOST memory.
///  - want_best: the region's candidate for the end cell of the backend's
///    AlignMode, in RegionResult::best (ignored in global mode).
struct RegionOutputs {
    std::int64_t row_stride = 0;
    BoundaryCell* row_out = nullptr;
    std::int64_t col_stride = 0;
    BoundaryCell* col_out = nullptr;
    std::uint8_t* dirs = nullptr;
    bool want_best = false;
};

/// What a pass over a Region reports (host values; DP coordinates as Region).
///  - best, best_i, best_j: only when RegionOutputs::want_best, by the
///    backend's AlignMode (its construction parameter):
///      local:       the canonical best cell of the region: max H, then
///                   smallest i, then smallest j; best = 0 and best_i =
///                   best_j = 0 when no cell is above 0;
///      semi_global: the best cell of the region's last row: best =
///                   max H(i0+rows, j) over j in (j0, j0+cols] (may be
///                   negative), best_i = i0+rows, best_j the smallest such j
///                   (the driver compares it with column 0, H(m, 0));
///      global:      unused (0).
///  - corner_h: H at the region's bottom-right cell H(i0+rows, j0+cols)
///    (global mode's score when the region is the whole matrix).
struct RegionResult {
    std::int32_t best = 0;
    std::int64_t best_i = 0, best_j = 0;
    std::int32_t corner_h = 0;
};

/// A checkpoint row in backend memory: `count` cells from `cells` (one row
/// of a level's checkpoint grid over a region: H(i, j0 + t) and Fcell for
/// t = 0 .. count - 1). Borrowed.
struct CellRow {
    const BoundaryCell* cells = nullptr;
    std::int64_t count = 0;
};

/// The largest H of a CellRow and the index of its first cell with it.
struct RowPeak {
    std::int64_t index = 0;
    std::int32_t h = 0;
};

/// Where the traceback walk stands, in DP coordinates as Region: the cell
/// (i, j) whose direction byte is read next, the walk's state (docs/scoring.md:
/// 0 = H, 1 = E, 2 = F) and whether the path has ended (local only: H came
/// from zero, or a diagonal step reached row or column 0).
struct WalkCursor {
    std::int64_t i = 0, j = 0;
    std::uint8_t state = 0;
    bool done = false;
};

/// One step of a walk, in walk order (from the end cell towards the start):
/// `diag` leaves (i, j) for (i-1, j-1) (one '=' or 'X'), `del` leaves it for
/// (i, j-1) in state E (one D), `ins` for (i-1, j) in state F (one I).
/// Changes of state without a move (H to E or F) are not steps.
enum class WalkStep : std::uint8_t { diag = 0, del = 1, ins = 2 };

class RegionSpeculation;

/// A backend that computes Regions: the CPU (OpenMP tile wavefront) or a GPU.
/// A backend serves one AlignMode, given at its construction, and computes
/// the recurrences of that mode (the zero floor in local mode only; the
/// borders come with each Region). Buffers it hands out are stack-ordered:
/// release() frees the most recent allocations first. This is all the exact
/// recursion needs; a backend that also computes ahead of the walk (a GPU)
/// returns its RegionSpeculation from speculation().
class RegionBackend {
public:
    virtual ~RegionBackend() = default;
    /// Storage for `count` boundary cells in backend memory.
    /// @throws std::bad_alloc / std::runtime_error when out of memory.
    virtual BoundaryCell* allocate(std::size_t count) = 0;
    /// Frees the allocation `p` and every later one (stack order).
    virtual void release(BoundaryCell* p) = 0;
    /// Copies host cells `src` into backend memory at `dst`.
    virtual void upload(BoundaryCell* dst, std::span<const BoundaryCell> src) = 0;
    /// Writes a matrix border (row 0 or column 0, docs/scoring.md) of
    /// `len` + 1 cells at `dst` (backend memory): H(k) = 0 for k = 0 or a
    /// `free` border, else -(gap_open + k * gap_extend); the gap state minus
    /// infinity. The default builds the cells on the host and uploads them;
    /// a GPU backend writes them on the device (a 1 Mbp pair's borders are
    /// 16 MB). The caller keeps len * gap_extend within 32 bits.
    virtual void fill_border(BoundaryCell* dst, std::int64_t len, bool free, std::int32_t gap_open,
                             std::int32_t gap_extend);
    /// Computes the Region with the recurrences of docs/scoring.md and writes
    /// `out`. `on_cells` (called on the calling thread, may be called never)
    /// reports the cells of this region computed so far, for progress.
    virtual RegionResult compute(const Region& region, const RegionOutputs& out,
                                 const std::function<void(std::uint64_t)>& on_cells) = 0;
    /// Row checkpoints are rounded to multiples of this many rows (a GPU stripe).
    virtual std::int64_t row_alignment() const = 0;
    /// Host memory of at least `bytes` bytes for a leaf's direction bytes
    /// (RegionOutputs::dirs), owned by the backend and valid until the next
    /// call (a GPU backend hands out pinned memory, so the copy is direct).
    virtual std::uint8_t* dirs_buffer(std::size_t bytes) = 0;
    /// The backend's hooks for computing ahead of the walk, owned by the
    /// backend and valid while it lives; nullptr (the default): one region at
    /// a time, exactly as a RegionSpeculation whose batches are both 1.
    /// checkpoint_align asks once per call.
    virtual RegionSpeculation* speculation() { return nullptr; }
};

/// The optional half of a backend (RegionBackend::speculation): computing
/// the leaves and tiles the path most likely crosses before the walk gets
/// there, and walking leaf batches where they lie. checkpoint_align chooses
/// which (its guesses of the path: lib/src/align/long/checkpoint_guess.hpp); which
/// leaves and tiles are computed never changes a result, only the work.
/// Every region it is handed has exact boundaries in the memory of the
/// RegionBackend that returned it; buffers are the RegionBackend's (its
/// allocate()), and every hook runs on the thread that called
/// checkpoint_align.
class RegionSpeculation {
public:
    virtual ~RegionSpeculation() = default;
    /// Leaves the backend can compute at once ahead of the walk (speculation:
    /// the tiles up-left of the current one), 1 = one at a time. A GPU keeps
    /// a few warps busy per leaf, so a batch costs about one leaf's latency.
    virtual std::size_t leaf_batch() const { return 1; }
    /// Computes the direction bytes of whole `leaves` (each at most
    /// CheckpointPlan::leaf_cells cells), replacing the previous batch. Only
    /// called when leaf_batch() > 1. It may return before the batch is done
    /// (a GPU queues the kernel); leaf_dirs() and walk_leaves() then wait for
    /// it. It must leave the last walk_leaves() steps alone: the driver
    /// replays them into the CIGAR while the batch computes.
    virtual void compute_leaves(std::span<const Region> leaves) { (void)leaves; }
    /// Leaf k of the last compute_leaves batch: its direction bytes in host
    /// memory, row-major (the leaf's full width as the row pitch), valid until
    /// the next call of any of these. Only the first `rows` rows and `cols`
    /// columns need be valid: the walk enters there and moves up and left only.
    virtual const std::uint8_t* leaf_dirs(std::size_t k, std::int64_t rows, std::int64_t cols) {
        (void)k, (void)rows, (void)cols;
        return nullptr;
    }
    /// True when walk_leaves() walks the path where the leaves are (a GPU:
    /// no direction bytes cross the bus); the driver then calls it instead of
    /// leaf_dirs().
    virtual bool walks_leaves() const { return false; }
    /// Walks the path from `cur` through the leaves of the last compute_leaves
    /// batch with the rule of docs/scoring.md (exactly as the driver walks
    /// leaf_dirs()), and stops at the first cell outside every leaf of the
    /// batch or where the path ends; it may stop sooner inside a leaf (the
    /// driver then calls again). Moves `cur` and returns the steps (WalkStep
    /// values, at most cur.i + cur.j) in walk order, in backend-owned host
    /// memory valid until the next walk_leaves() call. Only called when
    /// walks_leaves().
    /// @throws what the backend throws (device errors).
    virtual std::span<const std::uint8_t> walk_leaves(WalkCursor& cur) {
        (void)cur;
        return {};
    }
    /// Tiles above the leaves (each recomputed with a checkpoint grid of its
    /// own) the backend can compute at once ahead of the walk, 1 = one at a
    /// time. A GPU runs one large tile at the latency of its stripe chain
    /// (a 63 k x 63 k tile of a 1 Mbp pair: ~26 ms on an H100, a few percent
    /// of the GPU), so the tiles along the path are best computed together.
    virtual std::size_t tile_batch() const { return 1; }
    /// Computes `tiles[k]` writing the checkpoint rows and columns of
    /// `outs[k]` (no direction bytes, no best cell) for every k, as one pass
    /// where the backend can (a backend without such a pass computes them one
    /// at a time with RegionBackend::compute). Only called when tile_batch() > 1.
    virtual void compute_tiles(std::span<const Region> tiles, std::span<const RegionOutputs> outs) = 0;
    /// Writes the peak of each of `rows` (checkpoint rows in this backend's
    /// memory) to `peaks` (host memory, rows.size() entries): the largest H
    /// and the index of its first cell. The driver guesses from them where
    /// the path crosses each checkpoint row, to choose the leaves and tiles
    /// it computes ahead of the walk: a path crosses a row near where the
    /// best score of the query's prefix up to that row is. Only called when
    /// leaf_batch() or tile_batch() > 1; returns false when the backend does
    /// not find peaks (the default), and the guess is then a straight line.
    /// Which rows have peaks never changes a result, only the work.
    /// @throws what the backend throws (device errors).
    virtual bool row_peaks(std::span<const CellRow> rows, std::span<RowPeak> peaks) {
        (void)rows, (void)peaks;
        return false;
    }
};

/// Knobs of the checkpoint traceback (0 = backend default).
///
/// A level cuts its region straight into leaves of about sqrt(leaf_cells) a
/// side when the checkpoints of that cut take at most `direct_leaf_bytes`;
/// otherwise it cuts it into fan_out x fan_out tiles (fewer when memory is
/// short) and recurses. Square leaves are the fewest that a path crosses.
struct CheckpointPlan {
    int fan_out = 16;                      ///< tiles per dimension of a fan-out level (>= 2)
    std::uint64_t leaf_cells = 1u << 20;   ///< largest tile recomputed with direction bytes
    std::int64_t min_tile = 64;            ///< smallest tile side a fan-out level cuts
    std::uint64_t direct_leaf_bytes = std::uint64_t{256} << 20;  ///< checkpoint bytes a direct cut into leaves may take
    /// A speculative leaf batch takes the leaves within this many leaf sides
    /// of the line the path is guessed to follow (RegionSpeculation::leaf_batch);
    /// >= 0 (the engines throw std::invalid_argument otherwise). Only the
    /// work changes with it, never the result.
    double leaf_band = 1.5;
    /// A speculative tile batch (RegionSpeculation::tile_batch) takes the tiles
    /// within this many tile sides of the guessed path; >= 0 (the engines
    /// throw std::invalid_argument otherwise). A path along a tile diagonal
    /// crosses the tiles on it and, at each corner, one of the two beside
    /// it. Only the work changes with it, never the result.
    double tile_band = 0.25;
};

/// Progress reporting: called with the cells computed so far (all passes)
/// and the forward pass's total (query_len * ref_len).
using ProgressCallback = std::function<void(std::uint64_t cells_done, std::uint64_t cells_forward)>;

/// Aligns one pair through `backend` with the checkpoint method above.
///
/// The driver owns what depends on the mode beyond the recurrence: the matrix
/// border (row 0: 0 in local and semi-global mode, -(go + j*ge) in global;
/// column 0: 0 in local mode, -(go + i*ge) otherwise), the end cell (global:
/// (m, n); local: RegionResult's best; semi-global: the best of the last
/// row, H(m, 0) included, ties to the smallest column) and the end of the
/// walk (local: where H came from zero or the path reaches row/column 0;
/// global: the border gaps to (0, 0); semi-global: stop on row 0 with no D,
/// or finish column 0 with its I's), as docs/scoring.md states them.
///
/// @param backend             computes the regions; constructed for `mode`.
/// @param query, ref          the codes in host memory (for '='/'X' in the
///                            CIGAR), borrowed; the backend holds its own copy.
/// @param mode                local, global or semi_global (the backend's).
/// @param score_only          global: the forward pass alone; local and
///                            semi-global: the traceback still runs (it gives
///                            the begin cell) but no CIGAR is returned.
/// @return coordinates 0-based half-open, as align_pair_full_matrix.
/// @throws what the backend throws (out of memory, device errors);
///         std::logic_error if a backend's RegionSpeculation::walk_leaves()
///         contradicts itself
///         (its cursor disagrees with its steps, or it did not move).
AlignmentResult checkpoint_align(RegionBackend& backend, std::span<const std::uint8_t> query,
                                 std::span<const std::uint8_t> ref, const ScoringScheme& s, AlignMode mode,
                                 bool score_only, const CheckpointPlan& plan, const ProgressCallback& progress);

}  // namespace gpualign
