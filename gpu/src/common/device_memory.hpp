// gpualign — device and pinned host memory shared by every GPU engine (host
// code only): the 256-byte allocation granule, stream-ordered pool buffers
// (DeviceMemory, DeviceBuffer) and pinned host buffers (PinnedBuffer).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "cuda_check.hpp"

namespace gpualign::gpu::detail {

/// cudaMalloc and the memory pools hand out 256-byte aligned blocks; every
/// engine counts an allocation of `b` bytes as `rounded(b)` (at least one
/// granule).
constexpr std::size_t alloc_granule = 256;
constexpr std::size_t rounded(std::size_t b) {
    return (std::max<std::size_t>(b, 1) + alloc_granule - 1) / alloc_granule * alloc_granule;
}

/// Milliseconds of host wall time since `t0`.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Where a worker's device buffers come from: the engine's memory pool,
/// stream-ordered on the worker's stream (cudaMallocFromPoolAsync,
/// cudaFreeAsync), so that a buffer that grows waits for nothing but its own
/// stream (cudaFree waits for the whole device, every other worker's kernels
/// included); and the bytes held, with the host time and count of the
/// allocations and frees.
struct DeviceMemory {
    cudaMemPool_t pool = nullptr;
    cudaStream_t stream = nullptr;
    std::size_t bytes = 0;
    double ms = 0;
    std::uint64_t count = 0;
    double pinned_ms = 0;          // host time in cudaHostAlloc / cudaFreeHost
    std::uint64_t pinned = 0;      // their count
};

/// Allocates `count` objects of T in pinned host memory (cudaHostAlloc with
/// `flags`) and sets `host` to it; the caller frees it (free_pinned). The
/// time and count go to `mem`. Throws CudaError naming `what`.
template <typename T>
inline void alloc_pinned(T*& host, std::size_t count, const std::string& what, DeviceMemory& mem,
                  unsigned int flags = cudaHostAllocDefault) {
    const auto t0 = std::chrono::steady_clock::now();
    GPUALIGN_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&host), sizeof(T) * count, flags), what);
    mem.pinned_ms += ms_since(t0);
    ++mem.pinned;
}

/// Allocates `count` objects of T in mapped pinned host memory
/// (cudaHostAllocMapped) and sets `host` and `dev` to its host and device
/// views; the caller frees `host` (free_pinned). Throws CudaError
/// naming `what`.
template <typename T>
inline void alloc_mapped(T*& host, T*& dev, std::size_t count, const std::string& what, DeviceMemory& mem) {
    alloc_pinned(host, count, what, mem, cudaHostAllocMapped);
    GPUALIGN_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0), what + " (device view)");
}

/// Frees pinned host memory (cudaFreeHost) if `p` is set, and sets it to
/// nullptr; the time goes to `mem`.
template <typename T>
inline void free_pinned(T*& p, DeviceMemory& mem) {
    if (!p) return;
    const auto t0 = std::chrono::steady_clock::now();
    (void)cudaFreeHost(p);
    p = nullptr;
    mem.pinned_ms += ms_since(t0);
    ++mem.pinned;
}

/// A worker's pinned host buffer of `count` objects of T, with its device
/// view when mapped: either its own allocation (`own`, freed here) or a
/// part of its engine's pinned slab (LongEngine::Impl::ready), which the
/// engine frees after its workers.
template <typename T>
struct PinnedBuffer {
    T* host = nullptr;
    T* dev = nullptr;  // device view (mapped), else nullptr
    std::size_t count = 0;
    bool own = false;

    void release(DeviceMemory& mem) {
        if (own) free_pinned(host, mem);
        host = nullptr;
        dev = nullptr;
        count = 0;
        own = false;
    }
    /// At least `n` objects (the contents are not kept), mapped when
    /// `mapped`. Throws CudaError naming `what`.
    void ensure(std::size_t n, bool mapped, const std::string& what, DeviceMemory& mem) {
        if (host && n <= count) return;
        release(mem);
        if (mapped)
            alloc_mapped(host, dev, n, what, mem);
        else
            alloc_pinned(host, n, what, mem);
        count = n;
        own = true;
    }
    /// Points at `n` objects of a slab (host `h`, device view `d`).
    void adopt(T* h, T* d, std::size_t n, DeviceMemory& mem) {
        release(mem);
        host = h;
        dev = d;
        count = n;
    }
};

/// A device allocation that grows (never shrinks) and reports its size.
struct DeviceBuffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    /// At least `need` bytes (the contents are not kept); throws
    /// std::bad_alloc when the device has no room, CudaError otherwise.
    void ensure(std::size_t need, const char* what, DeviceMemory& mem) {
        if (need <= bytes) return;
        release(mem);
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t b = rounded(need);
        void* p = nullptr;
        const cudaError_t e = cudaMallocFromPoolAsync(&p, b, mem.pool, mem.stream);
        mem.ms += ms_since(t0);
        ++mem.count;
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            throw std::bad_alloc();
        }
        GPUALIGN_CUDA(e, what);
        ptr = p;
        bytes = b;
        mem.bytes += b;
    }
    void release(DeviceMemory& mem) {
        if (ptr) {
            const auto t0 = std::chrono::steady_clock::now();
            (void)cudaFreeAsync(ptr, mem.stream);
            mem.ms += ms_since(t0);
            ++mem.count;
            mem.bytes -= bytes;
        }
        ptr = nullptr;
        bytes = 0;
    }
};

}  // namespace gpualign::gpu::detail
