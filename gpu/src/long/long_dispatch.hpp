// gpualign — host-side launch wrapper of the long-pair region kernel, between
// LongEngine (long_engine.cpp, g++) and the kernel (region_kernel.cuh).
// Declared with CUDA runtime types only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpualign::gpu::detail {

/// One region launch (all pointers device memory unless said otherwise; see
/// long/region_params.cuh for each field).
struct RegionLaunch {
    const std::uint8_t* query;
    const std::uint8_t* ref;
    const std::int32_t* matrix;
    std::int32_t size, gap_open, gap_extend;
    long long i0, j0;
    int rows, cols;
    const void* top;     ///< int2[cols+1]
    const void* left;    ///< int2[rows+1]
    int row_stride;
    void* row_out;
    int col_stride;
    void* col_out;
    std::uint8_t* dirs;  ///< device, rows*cols bytes, or null
    void* stripe_best;   ///< int4[stripes] (local)
    int* corner;
    void* ring;          ///< int4[warps * 2 * ring_cols], tags reset to -1 by launch_region
    int ring_cols;       ///< a power of two
    bool flow_control;
    int* progress;       ///< int[stripes], zeroed by the launch
    unsigned long long* cells_done;  ///< mapped pinned host memory, warps entries, or null
    bool local;
    int rows_per_lane;   ///< R: 4 or 16 (region_rows_per_lane)
    int blocks;          ///< grid size (co-resident: see region_max_blocks)
};

/// Threads per block of the region kernel.
int region_block_threads();

/// Most blocks of the region kernel (R rows per lane, local, dirs) that can
/// be co-resident on `device`: occupancy x SMs.
/// @throws std::runtime_error naming the CUDA error.
int region_max_blocks(int device, int rows_per_lane, bool local, bool dirs);

/// Zeroes `progress`, resets the rings' tags and launches the region kernel
/// cooperatively on `stream` (asynchronous).
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
void launch_region(const RegionLaunch& a, int stripes, cudaStream_t stream);

}  // namespace gpualign::gpu::detail
