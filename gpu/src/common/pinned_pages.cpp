// gpualign — large pinned host buffers from fresh huge pages (pinned_pages.hpp).
#include "pinned_pages.hpp"

#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "cuda_check.hpp"

namespace gpualign::gpu::detail {
namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;

/// Bytes mapped for a buffer of `bytes`: whole huge pages.
std::size_t mapped_bytes(std::size_t bytes) { return (bytes + huge_page - 1) / huge_page * huge_page; }

/// Writes one byte of every 4 KiB page of [p, p + bytes) on several threads,
/// so that the kernel allocates and zeroes the pages in parallel.
void touch_in_parallel(unsigned char* p, std::size_t bytes) {
    constexpr std::size_t per_thread_min = std::size_t{8} << 20;
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads = std::clamp<std::size_t>(bytes / per_thread_min, 1, std::min<std::size_t>(cores, 16));
    const std::size_t pages = bytes / 4096;
    auto touch = [p, pages, threads](std::size_t t) {
        for (std::size_t k = pages * t / threads; k < pages * (t + 1) / threads; ++k) p[k * 4096] = 0;
    };
    std::vector<std::thread> team;
    for (std::size_t t = 1; t < threads; ++t) team.emplace_back(touch, t);
    touch(0);
    for (std::thread& th : team) th.join();
}

}  // namespace

void* pin_fresh_pages(std::size_t bytes, bool mapped, const std::string& what) {
    const std::size_t len = mapped_bytes(bytes);
    // One huge page more than needed, so that the buffer can start on a huge-page boundary.
    void* raw = mmap(nullptr, len + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw CudaError(cudaErrorMemoryAllocation, what + " (mmap of " + std::to_string(len) + " bytes)");
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t start = (at + huge_page - 1) / huge_page * huge_page;
    if (start > at) munmap(raw, start - at);
    if (const std::size_t tail = at + len + huge_page - (start + len); tail > 0)
        munmap(reinterpret_cast<void*>(start + len), tail);
    auto* p = reinterpret_cast<unsigned char*>(start);
    (void)madvise(p, len, MADV_HUGEPAGE);  // advice only: 4 KiB pages where huge ones are off
    touch_in_parallel(p, len);
    if (const cudaError_t e = cudaHostRegister(p, len, mapped ? cudaHostRegisterMapped : cudaHostRegisterDefault);
        e != cudaSuccess) {
        munmap(p, len);
        (void)cudaGetLastError();
        throw CudaError(e, "cudaHostRegister [" + what + "]");
    }
    return p;
}

void release_fresh_pages(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    (void)cudaHostUnregister(p);
    munmap(p, mapped_bytes(bytes));
}

}  // namespace gpualign::gpu::detail
