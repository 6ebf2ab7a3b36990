// gpualign — large pinned host buffers from fresh huge pages (host code
// only): mapped anonymously with transparent huge pages, first touched on
// several threads, then page-locked for the device with cudaHostRegister.
// cudaHostAlloc zeroes and locks 4 KiB pages on the calling thread;
// touching 2 MiB pages on several threads and registering them is several
// times faster, to allocate and to free (docs/gpu.md, "Device memory").
// PinnedAllocation (device_allocation.hpp) takes this path from
// registered_pinned_min bytes.
#pragma once

#include <cstddef>
#include <string>

namespace gpualign::gpu::detail {

/// Smallest PinnedAllocation that comes from pin_fresh_pages; smaller ones
/// come from cudaHostAlloc, where a huge page and threads would not pay.
inline constexpr std::size_t registered_pinned_min = std::size_t{4} << 20;

/// `bytes` (> 0) bytes of zeroed, page-locked host memory, aligned to 2 MiB,
/// registered with CUDA (cudaHostRegister, with cudaHostRegisterMapped when
/// `mapped`, so that cudaHostGetDevicePointer gives its device address).
/// Free it with release_fresh_pages(p, bytes).
/// @throws CudaError naming `what`: cudaErrorMemoryAllocation when the host
///         has no room for the mapping, else cudaHostRegister's error;
///         nothing stays allocated then.
void* pin_fresh_pages(std::size_t bytes, bool mapped, const std::string& what);

/// Unregisters and unmaps memory from pin_fresh_pages(bytes, ...) (errors
/// ignored).
void release_fresh_pages(void* p, std::size_t bytes) noexcept;

}  // namespace gpualign::gpu::detail
