// gpualign — a pool of pinned host staging buffers that an engine's host
// threads share for host <-> device copies (host code only).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "device_memory.hpp"

namespace gpualign::gpu::detail {

/// The staging buffers an engine's workers share (`buffer_bytes`
/// each, pinned, at most `max_buffers`): a worker takes one
/// for a copy larger than its small buffer and gives it back after the
/// copy's wait. Thread-safe.
class StagingPool {
public:
    /// A pool of at most `max_buffers` buffers of `buffer_bytes` each; none
    /// is allocated until reserve() or take() needs it.
    StagingPool(std::size_t buffer_bytes, std::size_t max_buffers)
        : buffer_bytes_(buffer_bytes), max_buffers_(max_buffers) {}
    StagingPool(const StagingPool&) = delete;
    StagingPool& operator=(const StagingPool&) = delete;
    ~StagingPool() {
        for (std::uint8_t* b : blocks_) (void)cudaFreeHost(b);
    }

    /// Allocates buffers, in one pinned block, until `n` (at most the pool's
    /// cap) exist. Time and count go to `mem`. Throws CudaError.
    void reserve(std::size_t n, DeviceMemory& mem) {
        std::lock_guard lock(mu_);
        n = std::min(n, max_buffers_);
        if (made_ >= n) return;
        add_block(n - made_, mem);
    }
    /// A free buffer: allocated when none is free and fewer than the cap
    /// exist, else the first one given back. Throws CudaError.
    std::uint8_t* take(DeviceMemory& mem) {
        std::unique_lock lock(mu_);
        if (free_.empty() && made_ < max_buffers_) add_block(1, mem);
        cv_.wait(lock, [&] { return !free_.empty(); });
        std::uint8_t* b = free_.back();
        free_.pop_back();
        return b;
    }
    /// Bytes of each buffer.
    std::size_t buffer_bytes() const noexcept { return buffer_bytes_; }
    /// Gives back a buffer that take() returned.
    void give(std::uint8_t* b) {
        {
            std::lock_guard lock(mu_);
            free_.push_back(b);
        }
        cv_.notify_one();
    }

private:
    void add_block(std::size_t k, DeviceMemory& mem) {  // mu_ held
        std::uint8_t* b = nullptr;
        alloc_pinned(b, k * buffer_bytes_, "pinned staging buffers", mem);
        blocks_.push_back(b);
        for (std::size_t i = 0; i < k; ++i) free_.push_back(b + i * buffer_bytes_);
        made_ += k;
    }
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<std::uint8_t*> blocks_, free_;
    std::size_t made_ = 0;
    std::size_t buffer_bytes_, max_buffers_;
};

}  // namespace gpualign::gpu::detail
