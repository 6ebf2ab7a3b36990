// gpualign — the long engine's checkpoint arena: the device memory a
// worker's RegionBackend::allocate hands out, stack-ordered, in two parts
// (host code only).
#pragma once

#include <algorithm>
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "../common/device_memory.hpp"
#include "gpualign/align/checkpoint_traceback.hpp"

namespace gpualign::gpu::long_detail {

/// Stack-ordered allocations of BoundaryCells over [0, first + rest bytes):
/// offsets below the first part's size lie in the first part, the others in
/// the rest; an allocation never spans the two. The rest of a pair alone
/// whose level-1 tiles are batched is allocated while its forward pass runs
/// (grow), not before it (docs/long.md): the first part holds what the
/// forward pass needs. Device buffers come from `mem`'s pool; every
/// allocation raises `peak` (LongEngineStats::peak_device_bytes) to
/// mem.bytes. Not thread-safe (one worker's).
class CheckpointArena {
public:
    CheckpointArena(detail::DeviceMemory& mem, std::size_t& peak) : mem_(mem), peak_(peak) {}

    /// Sizes the arena for an m x n pair and empties its stack: `total`
    /// bytes, of which `first` (<= total) now and the rest at grow(). The
    /// first part is kept when it holds `first` and is at most twice that;
    /// else it is allocated again, halved (with the rest folded in) while
    /// the device has no room (memory taken since the cap was set: coarser
    /// checkpoints, not a failure).
    /// @throws std::length_error when even `floor` bytes do not fit twice
    ///         over (naming m and n); CudaError on other device errors.
    void fit(std::size_t total, std::size_t first, std::size_t floor, std::size_t m, std::size_t n);

    /// Allocates the rest if it is due: a device without room leaves it
    /// empty, and the allocations that would need it fail as the arena's
    /// end (coarser checkpoints, fewer tiles).
    void grow();

    /// `count` cells (rounded up to the allocation granule), device memory.
    /// @throws std::bad_alloc at the arena's end.
    BoundaryCell* allocate(std::size_t count);
    /// Frees the allocation `p` and every later one (stack order).
    void release(BoundaryCell* p);

    /// Frees both parts (the next pair allocates again).
    void release_buffers();

    /// The first part (q = 0) or the rest (q = 1), for a lookup of which
    /// part a row lies in (row_peaks).
    const detail::DeviceBuffer& part(int q) const { return q == 0 ? first_ : rest_; }

private:
    struct Entry {
        std::size_t below;  // top_ before the allocation
        std::size_t start;  // its offset
    };
    BoundaryCell* at(std::size_t off) const;
    void note_peak() { peak_ = std::max(peak_, mem_.bytes); }

    detail::DeviceMemory& mem_;
    std::size_t& peak_;
    detail::DeviceBuffer first_, rest_;
    std::size_t rest_want_ = 0;
    std::vector<Entry> stack_;
    std::size_t top_ = 0;
};

}  // namespace gpualign::gpu::long_detail
