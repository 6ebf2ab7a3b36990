// gpualign — a long-engine worker's staged copies (staged_copy.hpp).
#include "staged_copy.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "../common/cuda_check.hpp"
#include "long_tuning.hpp"

namespace gpualign::gpu::long_detail {

using detail::ms_since;

Staging::Staging(detail::PinnedBuffer<std::uint8_t>& small, detail::StagingPool* staging, detail::DeviceMemory& mem,
                 std::size_t bytes) {
    if (bytes <= long_tuning::small_copy_bytes) {
        small.ensure(long_tuning::small_copy_bytes, false, "pinned buffer for small copies", mem);
        p = small.host;
        size = long_tuning::small_copy_bytes;
    } else {
        pool = staging;
        p = pool->take(mem);
        size = long_tuning::staging_bytes;
    }
}

void StagedCopies::upload(void* dst, const void* src, std::size_t bytes, const char* what) {
    const auto t0 = std::chrono::steady_clock::now();
    const Staging staged = stage(bytes);
    std::uint8_t* st = staged.p;
    for (std::size_t off = 0; off < bytes; off += staged.size) {
        const std::size_t b = std::min(bytes - off, staged.size);
        std::memcpy(st, static_cast<const char*>(src) + off, b);
        GPUALIGN_CUDA(cudaMemcpyAsync(static_cast<char*>(dst) + off, st, b, cudaMemcpyHostToDevice, mem_.stream), what);
        waiter_.wait(what);
    }
    copies_ms_ += ms_since(t0);
}

void StagedCopies::download(void* dst, const void* src, std::size_t bytes, const char* what, bool dst_pinned) {
    if (bytes == 0) return;
    const auto t0 = std::chrono::steady_clock::now();
    if (dst_pinned) {
        GPUALIGN_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, mem_.stream), what);
        waiter_.wait(what);
        copies_ms_ += ms_since(t0);
        return;
    }
    const Staging staged = stage(bytes);
    std::uint8_t* st = staged.p;
    for (std::size_t off = 0; off < bytes; off += staged.size) {
        const std::size_t b = std::min(bytes - off, staged.size);
        GPUALIGN_CUDA(cudaMemcpyAsync(st, static_cast<const char*>(src) + off, b, cudaMemcpyDeviceToHost, mem_.stream),
                      what);
        waiter_.wait(what);
        std::memcpy(static_cast<char*>(dst) + off, st, b);
    }
    copies_ms_ += ms_since(t0);
}

void StagedCopies::download_dirs(std::uint8_t* dst, const void* src, std::size_t pitch, std::size_t rows,
                                 std::size_t cols, bool dst_pinned) {
    if (rows == 0 || cols == 0) return;
    const char* what = "direction bytes download";
    const auto t0 = std::chrono::steady_clock::now();
    if (dst_pinned) {
        GPUALIGN_CUDA(cudaMemcpy2DAsync(dst, cols, src, pitch, cols, rows, cudaMemcpyDeviceToHost, mem_.stream), what);
        waiter_.wait(what);
        copies_ms_ += ms_since(t0);
        return;
    }
    // Through staging memory, as many whole rows at a time as it holds
    // (a row wider than a staging buffer goes through the device's
    // pitched copy straight into `dst`'s pageable memory).
    const Staging staged = stage(std::min(rows * cols, long_tuning::staging_bytes));
    if (cols > staged.size) {
        GPUALIGN_CUDA(cudaMemcpy2DAsync(dst, cols, src, pitch, cols, rows, cudaMemcpyDeviceToHost, mem_.stream), what);
        waiter_.wait(what);
        copies_ms_ += ms_since(t0);
        return;
    }
    const std::size_t chunk_rows = staged.size / cols;
    std::uint8_t* st = staged.p;
    for (std::size_t r = 0; r < rows; r += chunk_rows) {
        const std::size_t n = std::min(rows - r, chunk_rows);
        GPUALIGN_CUDA(cudaMemcpy2DAsync(st, cols, static_cast<const char*>(src) + r * pitch, pitch, cols, n,
                                        cudaMemcpyDeviceToHost, mem_.stream),
                      what);
        waiter_.wait(what);
        std::memcpy(dst + r * cols, st, n * cols);
    }
    copies_ms_ += ms_since(t0);
}

}  // namespace gpualign::gpu::long_detail
