// gpualign — RAII owners of one device allocation (cudaMalloc) and of one
// pinned host allocation (cudaHostAlloc), for the engines that allocate
// their buffers once and keep them (batch, search). Host code only. The
// long engine's growing, pool-backed buffers are device_memory.hpp's.
//
// As in cuCollections: one move-only owner per allocation, and raw pointers
// (data<T>(), device_view<T>()) as the views that kernel parameters carry.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.hpp"

namespace gpualign::gpu::detail {

/// Owns `bytes()` bytes of device memory from cudaMalloc, freed (cudaFree) by
/// reset() or the destructor on the device current at that time; the caller
/// selects the allocation's device first. Move-only; empty when
/// default-constructed or moved from.
class DeviceAllocation {
public:
    DeviceAllocation() noexcept = default;
    /// cudaMalloc of `bytes` bytes (device memory, uninitialised).
    /// @throws CudaError naming `what`; cudaErrorMemoryAllocation when the
    ///         device has no room (the caller may retry smaller).
    DeviceAllocation(std::size_t bytes, const std::string& what) {
        void* p = nullptr;
        GPUALIGN_CUDA(cudaMalloc(&p, bytes), what);
        ptr_ = p;
        bytes_ = bytes;
    }
    DeviceAllocation(DeviceAllocation&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceAllocation& operator=(DeviceAllocation&& o) noexcept {
        if (this != &o) {
            reset();
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    DeviceAllocation(const DeviceAllocation&) = delete;
    DeviceAllocation& operator=(const DeviceAllocation&) = delete;
    ~DeviceAllocation() { reset(); }

    /// Frees the allocation first, then allocates `bytes` bytes, so the old
    /// and the new one never hold device memory together.
    /// @throws CudaError naming `what` (the owner is empty then).
    void assign(std::size_t bytes, const std::string& what) {
        reset();
        *this = DeviceAllocation(bytes, what);
    }
    /// Frees the allocation (cudaFree, errors ignored); the owner is empty after.
    void reset() noexcept {
        if (ptr_) (void)cudaFree(ptr_);
        ptr_ = nullptr;
        bytes_ = 0;
    }

    /// The device address as T* (nullptr when empty); device memory, not
    /// dereferenceable on the host.
    template <typename T = void>
    T* data() const noexcept {
        return static_cast<T*>(ptr_);
    }
    /// Bytes allocated (as asked of cudaMalloc; 0 when empty).
    std::size_t bytes() const noexcept { return bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t bytes_ = 0;
};

/// Owns `bytes()` bytes of page-locked host memory from cudaHostAlloc, freed
/// (cudaFreeHost) by reset() or the destructor. With cudaHostAllocMapped the
/// device reaches it through device_view(). Move-only; empty when
/// default-constructed or moved from.
class PinnedAllocation {
public:
    PinnedAllocation() noexcept = default;
    /// cudaHostAlloc of `bytes` bytes with `flags` (uninitialised host memory);
    /// with cudaHostAllocMapped also its device address
    /// (cudaHostGetDevicePointer).
    /// @throws CudaError naming `what` (the allocation) or `map_what` (the
    ///         device address); nothing stays allocated then.
    PinnedAllocation(std::size_t bytes, const std::string& what, unsigned int flags = cudaHostAllocDefault,
                     const std::string& map_what = {}) {
        void* h = nullptr;
        GPUALIGN_CUDA(cudaHostAlloc(&h, bytes, flags), what);
        host_ = h;
        bytes_ = bytes;
        if (flags & cudaHostAllocMapped) {
            void* d = nullptr;
            try {
                GPUALIGN_CUDA(cudaHostGetDevicePointer(&d, h, 0), map_what);
            } catch (...) {
                reset();
                throw;
            }
            dev_ = d;
        }
    }
    PinnedAllocation(PinnedAllocation&& o) noexcept
        : host_(std::exchange(o.host_, nullptr)), dev_(std::exchange(o.dev_, nullptr)),
          bytes_(std::exchange(o.bytes_, 0)) {}
    PinnedAllocation& operator=(PinnedAllocation&& o) noexcept {
        if (this != &o) {
            reset();
            host_ = std::exchange(o.host_, nullptr);
            dev_ = std::exchange(o.dev_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    PinnedAllocation(const PinnedAllocation&) = delete;
    PinnedAllocation& operator=(const PinnedAllocation&) = delete;
    ~PinnedAllocation() { reset(); }

    /// Frees the allocation (cudaFreeHost, errors ignored); the owner is empty after.
    void reset() noexcept {
        if (host_) (void)cudaFreeHost(host_);
        host_ = nullptr;
        dev_ = nullptr;
        bytes_ = 0;
    }

    /// The host address as T* (nullptr when empty).
    template <typename T = void>
    T* data() const noexcept {
        return static_cast<T*>(host_);
    }
    /// The device address of mapped memory as T* (nullptr when empty or not
    /// mapped).
    template <typename T = void>
    T* device_view() const noexcept {
        return static_cast<T*>(dev_);
    }
    /// Bytes allocated (0 when empty).
    std::size_t bytes() const noexcept { return bytes_; }

private:
    void* host_ = nullptr;
    void* dev_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace gpualign::gpu::detail
