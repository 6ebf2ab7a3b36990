// gpualign — launch wrapper of the long-pair region kernel: picks the
// variant (rows per lane, local/global, direction bytes) and launches it
// cooperatively, so that every warp of the grid is co-resident (the kernel's
// warps wait on each other through device memory).
#include "long_dispatch.hpp"

#include <string>

#include "../cuda_check.hpp"
#include "region_kernel.cuh"

namespace gpualign::gpu::detail {
namespace {

using long_kernels::RegionParams;

RegionParams to_params(const RegionLaunch& a, int stripes) {
    RegionParams p{};
    p.query = a.query;
    p.ref = a.ref;
    p.matrix = a.matrix;
    p.size = a.size;
    p.gap_open = a.gap_open;
    p.gap_extend = a.gap_extend;
    p.i0 = a.i0;
    p.j0 = a.j0;
    p.rows = a.rows;
    p.cols = a.cols;
    p.top = static_cast<const int2*>(a.top);
    p.left = static_cast<const int2*>(a.left);
    p.row_stride = a.row_stride;
    p.row_out = static_cast<int2*>(a.row_out);
    p.col_stride = a.col_stride;
    p.col_out = static_cast<int2*>(a.col_out);
    p.dirs = a.dirs;
    p.stripe_best = static_cast<int4*>(a.stripe_best);
    p.corner = a.corner;
    p.ring = static_cast<int4*>(a.ring);
    p.ring_mask = a.ring_cols - 1;
    p.flow_control = a.flow_control;
    p.progress = a.progress;
    p.stripes = stripes;
    p.cells_done = a.cells_done;
    return p;
}

/// The kernel variant for (R, local, dirs).
template <int R>
const void* variant(bool local, bool dirs) {
    using long_kernels::region_kernel;
    if (local) return dirs ? reinterpret_cast<const void*>(&region_kernel<R, true, true>)
                           : reinterpret_cast<const void*>(&region_kernel<R, true, false>);
    return dirs ? reinterpret_cast<const void*>(&region_kernel<R, false, true>)
                : reinterpret_cast<const void*>(&region_kernel<R, false, false>);
}

const void* kernel_for(int rows_per_lane, bool local, bool dirs) {
    return rows_per_lane == 16 ? variant<16>(local, dirs) : variant<4>(local, dirs);
}

}  // namespace

int region_block_threads() { return long_kernels::region_block; }

int region_max_blocks(int device, int rows_per_lane, bool local, bool dirs) {
    int per_sm = 0, sms = 0;
    GPUALIGN_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for(rows_per_lane, local, dirs),
                                                                long_kernels::region_block, 0),
                  "region kernel occupancy");
    GPUALIGN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    return per_sm * sms;
}

void launch_region(const RegionLaunch& a, int stripes, cudaStream_t stream) {
    GPUALIGN_CUDA(cudaMemsetAsync(a.progress, 0, sizeof(int) * static_cast<std::size_t>(stripes), stream),
                  "region progress reset");
    // Tags of -1 (all bytes 0xFF) match no stripe: no entry of an earlier launch is taken for new.
    const std::size_t ring_bytes = static_cast<std::size_t>(a.blocks) * (long_kernels::region_block / 32) * 2 *
                                   static_cast<std::size_t>(a.ring_cols) * sizeof(int4);
    GPUALIGN_CUDA(cudaMemsetAsync(a.ring, 0xFF, ring_bytes, stream), "region ring reset");
    RegionParams p = to_params(a, stripes);
    void* args[] = {&p};
    GPUALIGN_CUDA(cudaLaunchCooperativeKernel(kernel_for(a.rows_per_lane, a.local, a.dirs != nullptr),
                                              dim3(static_cast<unsigned>(a.blocks)),
                                              dim3(static_cast<unsigned>(long_kernels::region_block)), args, 0, stream),
                  "region kernel launch (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", " +
                      std::to_string(a.blocks) + " blocks)");
}

}  // namespace gpualign::gpu::detail
