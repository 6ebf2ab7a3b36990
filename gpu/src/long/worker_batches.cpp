// gpualign — a long-engine worker's RegionSpeculation (worker_batches.hpp):
// leaf batches and the walk through them on the device, tile batches above
// the leaves, the checkpoint rows' peaks, and the pinned buffers they use.
#include "worker_batches.hpp"

#include <algorithm>
#include <cstring>

#include "../common/cuda_check.hpp"
#include "long_worker.hpp"

namespace gpualign::gpu::long_detail {

using detail::ms_since;
using detail::rounded;

std::size_t WorkerBatches::leaf_batch() const { return w_.leaf_batch_; }
std::size_t WorkerBatches::tile_batch() const { return w_.tile_batch_; }
bool WorkerBatches::walks_leaves() const { return !w_.cx.options.walk_on_host; }

void WorkerBatches::compute_leaves(std::span<const Region> leaves) {
    std::vector<long_kernels::RegionDesc> descs;
    descs.reserve(leaves.size());
    leaf_offsets.clear();
    leaf_pitch.clear();
    leaf_width.clear();
    std::size_t dir_bytes = 0;
    int stripes = 0, max_cols = 0;
    std::uint64_t cells = 0;
    // Rows per lane: 4 (a 1024-row leaf is 8 stripes; 16 rows per lane was
    // slower on bulk pairs too; docs/long.md).
    constexpr int R = 4;
    for (const Region& reg : leaves) {
        w_.check_size(reg);
        long_kernels::RegionDesc d = w_.desc_of(reg);
        d.stripe_begin = stripes;
        d.stripes = long_geometry::stripes_of(d.rows, R);
        stripes += d.stripes;
        max_cols = std::max(max_cols, d.cols);
        const std::size_t pitch = static_cast<std::size_t>(long_kernels::dirs_pitch(d.cols));
        leaf_offsets.push_back({dir_bytes, static_cast<std::size_t>(d.rows) * pitch});
        leaf_pitch.push_back(pitch);
        leaf_width.push_back(static_cast<std::size_t>(d.cols));
        dir_bytes += (leaf_offsets.back().second + 255) / 256 * 256;
        cells += static_cast<std::uint64_t>(d.rows) * static_cast<std::uint64_t>(d.cols);
        descs.push_back(d);
    }
    w_.dirs.ensure(dir_bytes, "long engine direction bytes (leaf batch)", w_.mem_);
    w_.corner.ensure(sizeof(int), "long engine corner", w_.mem_);
    for (std::size_t k = 0; k < descs.size(); ++k) {
        descs[k].dirs = static_cast<std::uint8_t*>(w_.dirs.ptr) + leaf_offsets[k].first;
        descs[k].corner = static_cast<int*>(w_.corner.ptr);
    }
    const int warps_per_block = detail::region_block_threads() / 32;
    const int blocks =
        long_geometry::launch_blocks(w_.max_blocks_for(R, true), stripes, warps_per_block, w_.cx.options.max_blocks);
    detail::RegionLaunch a = w_.base_launch(true, R);
    const int ring_cols = static_cast<int>(long_geometry::whole_row_ring_cols(static_cast<std::size_t>(max_cols)));
    a.params.stripes = stripes;
    a.params.ring_mask = ring_cols - 1;
    a.params.ring_slots = long_geometry::whole_row_slots(w_.ring_budget_, ring_cols, stripes);  // whole rows: no flow control
    a.params.flow_control = false;
    a.blocks = blocks;
    w_.run_launch(a, descs, cells, {}, static_cast<std::size_t>(blocks) * warps_per_block, walks_leaves());
    leaf_count = static_cast<int>(descs.size());
}

/// Bytes for the walk's steps when `steps` steps are left (long_geometry::walk_bytes).
std::size_t WorkerBatches::walk_bytes(std::size_t steps) const {
    return long_geometry::walk_bytes(steps, w_.solo, static_cast<std::size_t>(long_kernels::walk_window_steps));
}

/// The walk's mapped pinned buffers: its cursor and its steps
/// (walk_bytes), their allocations counted in `m`.
void WorkerBatches::ensure_walk_buffers(std::size_t steps, detail::DeviceMemory& m) {
    walk_steps.ensure(walk_bytes(steps), true, "pinned buffer for the leaf walk's steps", m);
    walk_out.ensure(1, true, "pinned leaf walk cursor", m);
}

/// Waits for reserve_walk_async's allocation, if one was started, and
/// counts its time (rethrows its error).
void WorkerBatches::take_walk_alloc() {
    if (!walk_alloc.valid()) return;
    const detail::DeviceMemory side = walk_alloc.get();
    w_.mem_.pinned_ms += side.pinned_ms;
    w_.mem_.pinned += side.pinned;
}

/// The walk's buffers for `steps` steps left, allocated here unless
/// reserve_walk_async did while the forward pass ran.
void WorkerBatches::reserve_walk(std::size_t steps) {
    take_walk_alloc();
    ensure_walk_buffers(steps, w_.mem_);
}

/// Starts allocating the walk's buffers for a pair of `steps` = m + n
/// bases on a thread of its own (a 1 Mbp pair's take about 10 ms of
/// cudaHostAlloc), to be taken by reserve_walk: align() calls it before
/// the forward pass of a pair whose traceback walks leaves.
void WorkerBatches::reserve_walk_async(std::size_t steps) {
    if (walk_alloc.valid() || (walk_out.host && walk_steps.count >= walk_bytes(steps))) return;
    walk_alloc = std::async(std::launch::async, [this, steps] {
        detail::DeviceMemory side;
        GPUALIGN_CUDA(cudaSetDevice(w_.cx.device), "long engine, device " + std::to_string(w_.cx.device));
        ensure_walk_buffers(steps, side);
        return side;
    });
}

/// One warp walks the batch in device memory (leaf_walk_kernel.cuh) and
/// writes its steps and cursor into mapped pinned host memory: no
/// direction byte crosses the bus, and one wait serves the whole batch.
std::span<const std::uint8_t> WorkerBatches::walk_leaves(WalkCursor& cur) {
    reserve_walk(static_cast<std::size_t>(cur.i + cur.j));  // every step left
    long_kernels::WalkParams p{};
    p.leaves = static_cast<const long_kernels::RegionDesc*>(w_.descs_dev.ptr);
    p.count = leaf_count;
    p.i = cur.i;
    p.j = cur.j;
    p.state = cur.state;
    p.local = w_.cx.mode == AlignMode::local;
    p.capacity = static_cast<int>(walk_steps.count);
    p.steps = walk_steps.dev;
    p.out = walk_out.dev;
    const char* what = "leaf walk kernel";
    const auto t0 = std::chrono::steady_clock::now();
    walk_out.host->finished = 0;
    detail::launch_leaf_walk(p, w_.stream);  // behind the leaf batch, if compute_leaves deferred its wait
    if (w_.solo)
        w_.waiter.wait(what);
    else
        w_.waiter.poll(&walk_out.host->finished, what);  // no command after the kernel (StreamWaiter::poll)
    w_.settle_pass();  // done by now: counts the leaf batch
    w_.stats_.walks_ms += ms_since(t0);
    const long_kernels::WalkState out = *walk_out.host;  // written by the kernel, complete after the wait
    cur.i = out.i;
    cur.j = out.j;
    cur.state = static_cast<std::uint8_t>(out.state);
    cur.done = out.done != 0;
    return {walk_steps.host, static_cast<std::size_t>(out.steps)};
}

/// The rows' peaks on the device (detail::launch_row_peaks: one arg-max
/// of CUB over the rows, each a segment of the arena), in chunks of as
/// many rows as a staging buffer holds: the offsets go up and the peaks
/// come down through pinned staging memory (Staging: the worker's small
/// buffer for the few rows of a pair cut straight into leaves, so that
/// align_many's workers pin nothing after prepare()). False, with no
/// peaks, when LongEngineOptions::row_peaks is off, for a row outside the
/// arena, or when the device has no room for the offsets and CUB's
/// storage (the guess is then a straight line).
bool WorkerBatches::row_peaks(std::span<const CellRow> rows, std::span<RowPeak> peaks) {
    if (!w_.cx.options.row_peaks) return false;
    w_.settle_pass();
    const std::size_t n = rows.size();
    if (n == 0) return true;
    const auto t0 = std::chrono::steady_clock::now();
    // Each row lies in one part of the arena; one pass of CUB a part.
    const detail::DeviceBuffer* parts[2] = {&w_.arena.part(0), &w_.arena.part(1)};
    std::vector<std::size_t> in_part[2];
    for (std::size_t k = 0; k < n; ++k) {
        bool found = false;
        for (int q = 0; q < 2 && !found; ++q) {
            const auto lo = reinterpret_cast<std::uintptr_t>(parts[q]->ptr);
            const auto at = reinterpret_cast<std::uintptr_t>(rows[k].cells);
            const auto bytes = static_cast<std::uintptr_t>(rows[k].count) * sizeof(BoundaryCell);
            if (lo != 0 && rows[k].count > 0 && at >= lo && at - lo + bytes <= parts[q]->bytes) {
                in_part[q].push_back(k);
                found = true;
            }
        }
        if (!found) return false;
    }
    for (int q = 0; q < 2; ++q)
        if (!in_part[q].empty() &&
            !row_peaks_in(static_cast<const BoundaryCell*>(parts[q]->ptr), rows, in_part[q], peaks))
            return false;
    w_.stats_.walks_ms += ms_since(t0);
    return true;
}

/// row_peaks of rows[k] for k in `which`, all in the arena part at `base`.
bool WorkerBatches::row_peaks_in(const BoundaryCell* base, std::span<const CellRow> rows,
                          const std::vector<std::size_t>& which, std::span<RowPeak> peaks) {
    const std::size_t n = which.size();
    constexpr std::size_t per_row = 3 * sizeof(std::int64_t);  // begin and end up, {index, H} down
    const std::size_t most = std::min(n, long_tuning::staging_bytes / per_row);
    const std::size_t offsets = rounded(2 * most * sizeof(std::int64_t)), found = rounded(most * sizeof(int2));
    const std::size_t temp = std::max(detail::row_peaks_temp_bytes(static_cast<std::int64_t>(most)),
                                      detail::row_peaks_temp_bytes(static_cast<std::int64_t>(n % most)));
    try {
        peaks_dev.ensure(offsets + found + temp, "long engine row peaks", w_.mem_);
    } catch (const std::bad_alloc&) {
        return false;
    }
    w_.note_peak();
    auto* dev = static_cast<std::uint8_t*>(peaks_dev.ptr);
    auto* begin_dev = reinterpret_cast<std::int64_t*>(dev);
    auto* out_dev = reinterpret_cast<int2*>(dev + offsets);
    const Staging staged = w_.copies.stage(most * per_row);
    auto* up = reinterpret_cast<std::int64_t*>(staged.p);
    const char* what = "row peaks";
    for (std::size_t first = 0; first < n; first += most) {
        const std::size_t c = std::min(most, n - first);
        for (std::size_t k = 0; k < c; ++k) {
            const CellRow& row = rows[which[first + k]];
            up[k] = row.cells - base;
            up[c + k] = up[k] + row.count;
        }
        GPUALIGN_CUDA(cudaMemcpyAsync(begin_dev, up, 2 * c * sizeof(std::int64_t), cudaMemcpyHostToDevice, w_.stream),
                      what);
        detail::launch_row_peaks(reinterpret_cast<const int2*>(base), begin_dev, begin_dev + c,
                                 static_cast<std::int64_t>(c), out_dev, dev + offsets + found, temp, w_.stream);
        auto* down = reinterpret_cast<int2*>(up + 2 * c);
        GPUALIGN_CUDA(cudaMemcpyAsync(down, out_dev, c * sizeof(int2), cudaMemcpyDeviceToHost, w_.stream), what);
        w_.waiter.wait(what);
        for (std::size_t k = 0; k < c; ++k) peaks[which[first + k]] = {down[k].x, down[k].y};
    }
    return true;
}

/// Every tile of the batch in one ordinary launch (whole-row rings, no
/// flow control), each writing its own checkpoint grid.
void WorkerBatches::compute_tiles(std::span<const Region> tiles, std::span<const RegionOutputs> outs) {
    // Rows per lane for the batch's rows in all, as for one region of
    // that many (long_tuning::rows_per_lane): a batch of tiles keeps every
    // SM busy as a tall region does, and a short edge tile (the bottom row
    // of a grid) must not hold the others to 4 rows a lane (docs/long.md).
    std::int64_t all_rows = 0;
    for (const Region& reg : tiles) all_rows += reg.rows;
    const int R = w_.rows_per_lane(all_rows);
    std::vector<long_kernels::RegionDesc> descs;
    descs.reserve(tiles.size());
    int stripes = 0, max_cols = 0;
    std::uint64_t cells = 0;
    w_.corner.ensure(sizeof(int), "long engine corner", w_.mem_);
    for (std::size_t k = 0; k < tiles.size(); ++k) {
        const Region& reg = tiles[k];
        w_.check_size(reg);
        long_kernels::RegionDesc d = w_.desc_of(reg);
        d.row_stride = static_cast<int>(outs[k].row_stride);
        d.row_out = reinterpret_cast<int2*>(outs[k].row_out);
        d.col_stride = static_cast<int>(outs[k].col_stride);
        d.col_out = reinterpret_cast<int2*>(outs[k].col_out);
        d.corner = static_cast<int*>(w_.corner.ptr);
        d.stripe_begin = stripes;
        d.stripes = long_geometry::stripes_of(d.rows, R);
        stripes += d.stripes;
        max_cols = std::max(max_cols, d.cols);
        cells += static_cast<std::uint64_t>(d.rows) * static_cast<std::uint64_t>(d.cols);
        descs.push_back(d);
    }
    const int warps_per_block = detail::region_block_threads() / 32;
    const int blocks =
        long_geometry::launch_blocks(w_.max_blocks_for(R, false), stripes, warps_per_block, w_.cx.options.max_blocks);
    const std::size_t warps = static_cast<std::size_t>(blocks) * warps_per_block;
    detail::RegionLaunch a = w_.base_launch(false, R);
    const int ring_cols = static_cast<int>(long_geometry::whole_row_ring_cols(static_cast<std::size_t>(max_cols)));
    a.params.stripes = stripes;
    a.params.ring_mask = ring_cols - 1;
    // A slot per resident warp where the tile ring budget allows (a stripe
    // whose slot is still being read waits).
    a.params.ring_slots =
        long_geometry::tile_batch_slots(std::max(w_.tile_ring_budget, w_.ring_budget_), ring_cols, warps, stripes);
    a.params.flow_control = false;
    a.blocks = blocks;
    w_.run_launch(a, descs, cells, {}, warps);
}

/// Downloads only the part of leaf k up-left of the walk's entry (rows x
/// cols of its row-major bytes), into the pinned leaf buffer at the
/// leaf's own width as the row pitch (the device rows are padded to
/// long_kernels::dirs_pitch).
const std::uint8_t* WorkerBatches::leaf_dirs(std::size_t k, std::int64_t rows, std::int64_t cols) {
    w_.settle_pass();
    const auto [offset, bytes] = leaf_offsets.at(k);
    const std::size_t pitch = leaf_pitch.at(k), width = leaf_width.at(k);
    std::uint8_t* host = w_.dirs_buffer(bytes);
    if (rows <= 0 || cols <= 0) return host;
    const char* what = "leaf direction bytes download";
    const auto t0 = std::chrono::steady_clock::now();
    GPUALIGN_CUDA(cudaMemcpy2DAsync(host, width, static_cast<std::uint8_t*>(w_.dirs.ptr) + offset, pitch,
                                    static_cast<std::size_t>(cols), static_cast<std::size_t>(rows),
                                    cudaMemcpyDeviceToHost, w_.stream),
                  what);
    w_.waiter.wait(what);
    w_.stats_.walks_ms += ms_since(t0);
    return host;
}

}  // namespace gpualign::gpu::long_detail
