// gpualign — a long-engine worker's copies between host and device through
// pinned staging memory (host code only).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../common/device_memory.hpp"
#include "../common/staging_pool.hpp"
#include "stream_wait.hpp"

namespace gpualign::gpu::long_detail {

/// Pinned host memory for one copy of `bytes` (so that it is a true DMA
/// transfer, not the driver's staged pageable path): the worker's small
/// buffer (long_tuning::small_copy_bytes, pinned on first use), or a buffer
/// of the engine's staging pool held until this object ends. `size`: the
/// bytes a chunk of the copy may take.
struct Staging {
    detail::StagingPool* pool = nullptr;
    std::uint8_t* p = nullptr;
    std::size_t size = 0;
    /// @throws CudaError when pinning fails.
    Staging(detail::PinnedBuffer<std::uint8_t>& small, detail::StagingPool* staging, detail::DeviceMemory& mem,
            std::size_t bytes);
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
    ~Staging() {
        if (pool) pool->give(p);
    }
};

/// A worker's copies on its stream (mem.stream), each waited for with
/// `waiter`; their host time is added to `copies_ms`
/// (LongEngineStats::copies_ms). Borrows everything. Every method throws
/// CudaError naming what it copies.
class StagedCopies {
public:
    StagedCopies(detail::DeviceMemory& mem, StreamWaiter& waiter, detail::PinnedBuffer<std::uint8_t>& small,
                 detail::StagingPool* staging, double& copies_ms)
        : mem_(mem), waiter_(waiter), small_(small), staging_(staging), copies_ms_(copies_ms) {}

    /// Pinned staging memory for a copy of `bytes` (Staging).
    Staging stage(std::size_t bytes) { return Staging(small_, staging_, mem_, bytes); }

    /// Copies `bytes` host bytes at `src` to device `dst`, in chunks, and waits.
    void upload(void* dst, const void* src, std::size_t bytes, const char* what);
    /// Copies `bytes` device bytes at `src` to host `dst` and waits (through
    /// the staging buffer unless `dst` is pinned already).
    void download(void* dst, const void* src, std::size_t bytes, const char* what, bool dst_pinned = false);
    /// Copies `rows` rows of `cols` direction bytes from the device (row
    /// pitch `pitch`, long_kernels::dirs_pitch) to host `dst` (row pitch
    /// `cols`) and waits (through the staging buffer unless `dst` is pinned).
    void download_dirs(std::uint8_t* dst, const void* src, std::size_t pitch, std::size_t rows, std::size_t cols,
                       bool dst_pinned);

private:
    detail::DeviceMemory& mem_;
    StreamWaiter& waiter_;
    detail::PinnedBuffer<std::uint8_t>& small_;
    detail::StagingPool* staging_;
    double& copies_ms_;
};

}  // namespace gpualign::gpu::long_detail
