// gpualign — the CIGAR gather kernel: copies each pair's runs from its
// traceback slots (device memory) to the compact CIGAR buffer (pinned host
// memory, mapped into the device's address space), so that only the runs
// cross PCIe.
//
//   host_cigar[cigar_start[b] + k] = cigar[task.cigar_offset + m + n - runs + k],  0 <= k < runs
//
// (the traceback kernel stores a pair's runs, in forward order, in the last
// `runs` of its m + n slots). One warp per pair; lanes copy consecutive runs,
// so each warp writes 128 contiguous bytes per step. A pair whose runs would
// end past `host_cigar_capacity` is skipped: the host sees the batch's total
// exceed the capacity and copies the whole traceback buffer instead
// (batch_engine.cpp). Host twin: the loop above.
#pragma once

#include <cstdint>

#include "../batch_params.hpp"

namespace gpualign::gpu::kernels {

constexpr int gather_block = 256;

__global__ void __launch_bounds__(gather_block) cigar_gather_kernel(detail::BatchParams p) {
    const std::uint32_t b = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const std::uint32_t lane = threadIdx.x % 32;
    const std::uint32_t cnt = p.count;
    if (b >= cnt) return;
    const std::uint32_t runs = static_cast<std::uint32_t>(p.out[detail::out_cigar_runs * cnt + b]);
    const std::uint64_t start = static_cast<std::uint32_t>(p.out[detail::out_cigar_start * cnt + b]);
    if (start + runs > p.host_cigar_capacity) return;
    const detail::PairTask task = p.tasks[b];
    const std::uint32_t* src = p.cigar + task.cigar_offset + task.query_len + task.ref_len - runs;
    std::uint32_t* dst = p.host_cigar + start;
    for (std::uint32_t k = lane; k < runs; k += 32) dst[k] = src[k];
}

}  // namespace gpualign::gpu::kernels
