// gpualign — the matrix border of a long pair, written on the device: row 0
// or column 0 (docs/scoring.md; Gotoh 1982's initial conditions) as the
// boundary cells {H, gap state} that the region kernel reads for the top or
// left edge of the whole matrix. Its scalar twin is RegionBackend::fill_border
// (checkpoint_traceback.cpp), which builds the same cells on the host:
//   H(k)   = 0                          for k = 0, or along a free border
//          = -(gap_open + k*gap_extend) otherwise
//   gap(k) = neg_inf (minus infinity: no gap runs along the border's edge)
// for k = 0 .. count - 1 (count = the sequence's length + 1).
#pragma once

#include <cstdint>

#include "region_params.cuh"

namespace gpualign::gpu::long_kernels {

/// One thread a cell, a grid-stride loop. `dst`: device memory, `count`
/// cells of {H, gap} (BoundaryCell's layout).
__global__ void border_kernel(int2* dst, std::int64_t count, bool free, std::int32_t gap_open,
                              std::int32_t gap_extend) {
    for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < count;
         k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int32_t h = free || k == 0 ? 0 : static_cast<std::int32_t>(-(gap_open + k * gap_extend));
        dst[k] = make_int2(h, neg_inf);
    }
}

}  // namespace gpualign::gpu::long_kernels
