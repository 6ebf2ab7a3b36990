// gpualign — RAII owners of one device allocation (cudaMalloc) and of one
// pinned host allocation (cudaHostAlloc, or registered huge pages from
// registered_pinned_min bytes: pinned_pages.hpp), for the engines that
// allocate their buffers once and keep them (batch, search). Host code only. The
// long engine's growing, pool-backed buffers are device_memory.hpp's.
//
// As in cuCollections: one move-only owner per allocation (OwnedMemory), and
// raw pointers (data<T>(), device_view<T>()) as the views that kernel
// parameters carry.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "pinned_pages.hpp"

namespace gpualign::gpu::detail {

/// Move-only owner of `bytes()` bytes at data(), released by `Release` (a
/// CUDA free function, given the address and the bytes) in reset() and the
/// destructor, with the address the device reaches them at (device_view()).
/// Empty when default-constructed or moved from. The allocating types below
/// fill it.
template <typename Release>
class OwnedMemory {
public:
    OwnedMemory() noexcept = default;
    OwnedMemory(OwnedMemory&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), view_(std::exchange(o.view_, nullptr)),
          bytes_(std::exchange(o.bytes_, 0)) {}
    OwnedMemory& operator=(OwnedMemory&& o) noexcept {
        if (this != &o) {
            reset();
            ptr_ = std::exchange(o.ptr_, nullptr);
            view_ = std::exchange(o.view_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    OwnedMemory(const OwnedMemory&) = delete;
    OwnedMemory& operator=(const OwnedMemory&) = delete;
    ~OwnedMemory() { reset(); }

    /// Frees the memory (errors ignored); the owner is empty after.
    void reset() noexcept {
        if (ptr_) Release{}(ptr_, bytes_);
        ptr_ = nullptr;
        view_ = nullptr;
        bytes_ = 0;
    }
    /// The allocation's own address as T* (nullptr when empty).
    template <typename T = void>
    T* data() const noexcept {
        return static_cast<T*>(ptr_);
    }
    /// The address kernels use as T* (nullptr when empty, or for pinned host
    /// memory that is not mapped).
    template <typename T = void>
    T* device_view() const noexcept {
        return static_cast<T*>(view_);
    }
    /// Bytes allocated (0 when empty).
    std::size_t bytes() const noexcept { return bytes_; }

protected:
    /// Takes `ptr` (`bytes` bytes; the device reaches them at `view`); the
    /// owner is empty before (the allocating constructors).
    void adopt(void* ptr, void* view, std::size_t bytes) noexcept {
        ptr_ = ptr;
        view_ = view;
        bytes_ = bytes;
    }
    /// Sets the device's address of the memory held.
    void set_view(void* view) noexcept { view_ = view; }

private:
    void* ptr_ = nullptr;
    void* view_ = nullptr;
    std::size_t bytes_ = 0;
};

struct ReleaseDevice {
    void operator()(void* p, std::size_t) const noexcept { (void)cudaFree(p); }
};
/// Frees what PinnedAllocation allocated for `bytes`: the size decides which way.
struct ReleasePinned {
    void operator()(void* p, std::size_t bytes) const noexcept {
        if (bytes >= registered_pinned_min)
            release_fresh_pages(p, bytes);
        else
            (void)cudaFreeHost(p);
    }
};

/// Owns `bytes()` bytes of device memory from cudaMalloc, freed (cudaFree) by
/// reset() or the destructor on the device current at that time; the caller
/// selects the allocation's device first. data() and device_view() are the
/// same device address, not dereferenceable on the host.
class DeviceAllocation : public OwnedMemory<ReleaseDevice> {
public:
    DeviceAllocation() noexcept = default;
    /// cudaMalloc of `bytes` bytes (uninitialised).
    /// @throws CudaError naming `what`; cudaErrorMemoryAllocation when the
    ///         device has no room (the caller may retry smaller).
    DeviceAllocation(std::size_t bytes, const std::string& what) {
        void* p = nullptr;
        GPUALIGN_CUDA(cudaMalloc(&p, bytes), what);
        adopt(p, p, bytes);
    }
    /// Frees the allocation first, then allocates `bytes` bytes, so the old
    /// and the new one never hold device memory together.
    /// @throws CudaError naming `what` (the owner is empty then).
    void assign(std::size_t bytes, const std::string& what) {
        reset();
        *this = DeviceAllocation(bytes, what);
    }
};

/// Owns `bytes()` bytes of page-locked host memory, freed by reset() or the
/// destructor: from cudaHostAlloc (cudaFreeHost), or from
/// registered_pinned_min bytes fresh huge pages registered with
/// cudaHostRegister (pin_fresh_pages; unregistered and unmapped). data() is
/// the host address; with cudaHostAllocMapped, device_view() is the
/// device's address of it.
class PinnedAllocation : public OwnedMemory<ReleasePinned> {
public:
    PinnedAllocation() noexcept = default;
    /// `bytes` bytes of pinned host memory (uninitialised below
    /// registered_pinned_min bytes, zeroed from there), mapped for the
    /// device when `flags` has cudaHostAllocMapped (cudaHostAllocDefault or
    /// cudaHostAllocMapped; the device address from cudaHostGetDevicePointer).
    /// @throws CudaError naming `what` (the allocation; cudaErrorMemoryAllocation
    ///         when the host has no room) or `map_what` (the device address);
    ///         nothing stays allocated then.
    PinnedAllocation(std::size_t bytes, const std::string& what, unsigned int flags = cudaHostAllocDefault,
                     const std::string& map_what = {}) {
        const bool mapped = (flags & cudaHostAllocMapped) != 0;
        void* h = nullptr;
        if (bytes >= registered_pinned_min)
            h = pin_fresh_pages(bytes, mapped, what);
        else
            GPUALIGN_CUDA(cudaHostAlloc(&h, bytes, flags), what);
        adopt(h, nullptr, bytes);
        if (mapped) {
            void* d = nullptr;
            GPUALIGN_CUDA(cudaHostGetDevicePointer(&d, h, 0), map_what);  // on throw the base frees h
            set_view(d);
        }
    }
};

}  // namespace gpualign::gpu::detail
