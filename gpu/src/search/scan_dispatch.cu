// gpualign — launch wrapper of the search scan kernel (scan_dispatch.hpp).
#include "scan_dispatch.hpp"

#include <iterator>
#include <stdexcept>
#include <string>

#include "../common/cuda_check.hpp"
#include "scan_kernel.cuh"
#include "scan_warp_kernel.cuh"

namespace gpualign::gpu::detail {

int scan_block_threads() { return scan_kernels::block_threads; }
int scan_strip_rows() { return scan_kernels::strip_rows; }
int scan_max_letters() { return scan_kernels::max_letters; }

namespace {

// The kernels of each ScanMode, at index static_cast<int>(mode).
using ThreadKernel = void (*)(ScanParams);
constexpr ThreadKernel thread_kernels[] = {scan_kernels::scan_kernel<ScanMode::local>,
                                           scan_kernels::scan_kernel<ScanMode::global>,
                                           scan_kernels::scan_kernel<ScanMode::semi_global>};
using WarpKernel = void (*)(ScanWarpParams);
constexpr WarpKernel warp_kernels[] = {scan_warp_kernels::scan_warp_kernel<ScanMode::local>,
                                       scan_warp_kernels::scan_warp_kernel<ScanMode::global>,
                                       scan_warp_kernels::scan_warp_kernel<ScanMode::semi_global>};
static_assert(std::size(thread_kernels) == scan_mode_count && std::size(warp_kernels) == scan_mode_count);

/// The table index of `mode`.
/// @throws std::invalid_argument for a value outside ScanMode.
std::size_t mode_index(ScanMode mode) {
    const int k = static_cast<int>(mode);
    if (k < 0 || k >= scan_mode_count) throw std::invalid_argument("scan kernel: unknown mode " + std::to_string(k));
    return static_cast<std::size_t>(k);
}

}  // namespace

void launch_scan(const ScanParams& p, ScanMode mode, bool s16, int overflow_at, cudaStream_t stream) {
    const std::size_t kernel = mode_index(mode);
    if (s16 && mode != ScanMode::local)
        throw std::invalid_argument("scan kernel: the 16-bit kernel scores local alignments only");
    const int threads = p.count;
    const int block = s16 ? scan_kernels::s16_block_threads : scan_kernels::block_threads;
    const dim3 grid(static_cast<unsigned>((threads + block - 1) / block), static_cast<unsigned>(p.queries));
    if (s16)
        scan_kernels::scan_kernel_s16x2<<<grid, block, 0, stream>>>(p, overflow_at);
    else
        thread_kernels[kernel]<<<grid, block, 0, stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "scan kernel launch (" + std::to_string(p.count) + " DB sequences x " + std::to_string(p.queries) + " queries)");
}

int scan_warp_stripe_rows() { return scan_warp_kernels::stripe_rows; }

void launch_scan_warp(const ScanWarpParams& p, ScanMode mode, cudaStream_t stream) {
    const std::size_t kernel = mode_index(mode);
    const dim3 grid(static_cast<unsigned>((p.count + scan_warp_kernels::warps_per_block - 1) /
                                          scan_warp_kernels::warps_per_block),
                    static_cast<unsigned>(p.queries));
    const std::size_t smem = scan_warp_kernels::warp_kernel_smem(p.size);
    warp_kernels[kernel]<<<grid, scan_warp_kernels::block_threads, smem, stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "scan warp kernel launch (" + std::to_string(p.count) + " DB sequences x " +
                                          std::to_string(p.queries) + " queries)");
}

}  // namespace gpualign::gpu::detail
