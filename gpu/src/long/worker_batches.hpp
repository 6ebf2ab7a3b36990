// gpualign — a long-engine worker's RegionSpeculation (host code only): leaf
// batches and the walk through them on the device, tile batches above the
// leaves, and the checkpoint rows' peaks, each one launch on the worker's
// stream through the worker's launch machinery (long_worker.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <span>
#include <utility>
#include <vector>

#include "../common/device_memory.hpp"
#include "gpualign/align/checkpoint_traceback.hpp"
#include "long_dispatch.hpp"

namespace gpualign::gpu::long_detail {

class Worker;

/// The speculative half of a Worker (Worker::speculation()): it computes
/// what the driver's PathGuess chooses, with the worker's buffers, arena and
/// launches, and owns what only it uses (the leaf batch's layout, the walk's
/// pinned buffers, the peaks' device buffer). Every method that touches the
/// device throws CudaError naming the CUDA error; check_size's
/// std::length_error for a region beyond the kernel's 32-bit indices.
class WorkerBatches final : public RegionSpeculation {
public:
    explicit WorkerBatches(Worker& w) : w_(w) {}
    WorkerBatches(const WorkerBatches&) = delete;
    WorkerBatches& operator=(const WorkerBatches&) = delete;

    std::size_t leaf_batch() const override;
    /// One launch of every leaf (4 rows a lane, whole-row rings); a worker
    /// alone returns once it is queued (the walk queues behind it).
    void compute_leaves(std::span<const Region> leaves) override;
    bool walks_leaves() const override;
    /// One warp walks the batch in device memory (leaf_walk_kernel.cuh).
    std::span<const std::uint8_t> walk_leaves(WalkCursor& cur) override;
    /// The part of leaf k up-left of the walk's entry, downloaded.
    const std::uint8_t* leaf_dirs(std::size_t k, std::int64_t rows, std::int64_t cols) override;
    std::size_t tile_batch() const override;
    /// Every tile in one ordinary launch, each writing its own checkpoint grid.
    void compute_tiles(std::span<const Region> tiles, std::span<const RegionOutputs> outs) override;
    /// One CUB arg-max on the device over the rows (in the worker's arena).
    bool row_peaks(std::span<const CellRow> rows, std::span<RowPeak> peaks) override;

    /// Bytes for the walk's steps when `steps` steps are left (long_geometry::walk_bytes).
    std::size_t walk_bytes(std::size_t steps) const;
    /// Starts allocating the walk's buffers for a pair of `steps` = m + n
    /// bases on a thread of its own (a 1 Mbp pair's take about 10 ms of
    /// cudaHostAlloc), to be taken by the walk: the worker calls it before
    /// the forward pass of a pair whose traceback walks leaves.
    void reserve_walk_async(std::size_t steps);
    /// Waits for reserve_walk_async's allocation, if one was started, and
    /// counts its time in the worker's memory counters (rethrows its error).
    void take_walk_alloc();
    /// Waits for reserve_walk_async's allocation without taking it (the
    /// worker's destructor: it writes the walk's buffers).
    void wait_walk_alloc() {
        if (walk_alloc.valid()) walk_alloc.wait();
    }
    /// Whether the walk's pinned buffers serve a pair of `steps` = m + n bases.
    bool walk_ready(std::size_t steps) const { return walk_out.host && walk_steps.count >= walk_bytes(steps); }
    /// Places the walk's pinned buffers (cursor, steps for pairs of up to
    /// `steps` bases) with `place(buffer, count)` (Worker::lay_out).
    template <typename Place>
    void lay_out_walk(Place&& place, std::size_t steps) {
        place(walk_out, 1);
        place(walk_steps, walk_bytes(steps));
    }
    /// Frees the device buffer (the next pair allocates again).
    void release_buffers(detail::DeviceMemory& mem) { peaks_dev.release(mem); }
    /// Frees the walk's pinned buffers (own ones; a slab's stay the engine's).
    void release_host(detail::DeviceMemory& mem) {
        walk_out.release(mem);
        walk_steps.release(mem);
    }

private:
    void ensure_walk_buffers(std::size_t steps, detail::DeviceMemory& m);
    void reserve_walk(std::size_t steps);
    bool row_peaks_in(const BoundaryCell* base, std::span<const CellRow> rows, const std::vector<std::size_t>& which,
                      std::span<RowPeak> peaks);

    Worker& w_;
    detail::DeviceBuffer peaks_dev;  // row_peaks: the rows' offsets, their peaks, CUB's storage
    std::vector<std::pair<std::size_t, std::size_t>> leaf_offsets;  // the leaf batch: (offset, bytes) in the worker's dirs
    std::vector<std::size_t> leaf_pitch;                              // the leaf batch: device row pitch of each leaf (dirs_pitch)
    std::vector<std::size_t> leaf_width;                              // the leaf batch: columns of each leaf
    int leaf_count = 0;                        // leaves of the last compute_leaves batch (descriptors in descs_dev)
    detail::PinnedBuffer<long_kernels::WalkState> walk_out;  // mapped: where the last leaf walk stopped
    detail::PinnedBuffer<std::uint8_t> walk_steps;           // mapped: the last leaf walk's step codes
    std::future<detail::DeviceMemory> walk_alloc;  // walk_out and walk_steps being allocated (reserve_walk_async)
};

}  // namespace gpualign::gpu::long_detail
