// gpualign — the CIGAR scan kernel: where each pair's runs go in the
// batch's compact CIGAR buffer.
//
//   cigar_start[b] = sum of cigar_runs[0 .. b)        (exclusive prefix sum)
//
// over the `count` pairs of a batch (count <= tuning::max_batch_pairs), read
// from and written to the structure-of-arrays results (OutField
// out_cigar_runs -> out_cigar_start). One block of scan_block threads: each
// thread sums a contiguous chunk, the block scans the chunk sums (CUB
// BlockScan), then each thread writes its chunk's prefixes. Host twin:
// std::exclusive_scan (batch_engine.cpp checks the total against the buffer).
#pragma once

#include <cstdint>

#include <cub/block/block_scan.cuh>

#include "../batch_params.hpp"

namespace gpualign::gpu::kernels {

constexpr int scan_block = 1024;

__global__ void __launch_bounds__(scan_block) cigar_scan_kernel(detail::BatchParams p) {
    using Scan = cub::BlockScan<std::uint32_t, scan_block>;
    __shared__ typename Scan::TempStorage temp;
    const std::uint32_t cnt = p.count;
    const std::int32_t* runs = p.out + detail::out_cigar_runs * cnt;
    std::int32_t* start = p.out + detail::out_cigar_start * cnt;
    const std::uint32_t per = (cnt + scan_block - 1) / scan_block;
    const std::uint32_t first = threadIdx.x * per;
    const std::uint32_t last = min(cnt, first + per);
    std::uint32_t sum = 0;
    for (std::uint32_t b = first; b < last; ++b) sum += static_cast<std::uint32_t>(runs[b]);
    std::uint32_t prefix = 0;
    Scan(temp).ExclusiveSum(sum, prefix);
    for (std::uint32_t b = first; b < last; ++b) {
        start[b] = static_cast<std::int32_t>(prefix);
        prefix += static_cast<std::uint32_t>(runs[b]);
    }
}

}  // namespace gpualign::gpu::kernels
