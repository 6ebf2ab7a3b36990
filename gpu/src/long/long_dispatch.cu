// gpualign — launch wrappers of the long-pair kernels. The region kernel:
// picks the variant (rows per lane, mode, direction bytes, packed scores) and
// launches it cooperatively when its rings need flow control (every warp
// co-resident), else as an ordinary launch that may share the GPU with other
// streams. The leaf walk: one warp.
#include "long_dispatch.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "../common/cuda_check.hpp"
#include "border_kernel.cuh"
#include "leaf_walk_kernel.cuh"
#include "long_tuning.hpp"
#include "region_kernel.cuh"

namespace gpualign::gpu::detail {
namespace {

using long_kernels::RegionParams;

/// A boundary cell's H, for the row peaks' arg-max.
struct CellH {
    __host__ __device__ int operator()(const int2& c) const { return c.x; }
};

/// The arg-max of launch_row_peaks (temp == nullptr: the size query).
cudaError_t row_peaks(void* temp, std::size_t& temp_bytes, const int2* cells, const std::int64_t* begin,
                      const std::int64_t* end, std::int64_t rows, int2* out, cudaStream_t stream) {
    static_assert(sizeof(cub::KeyValuePair<int, int>) == sizeof(int2), "{index, H} as int2");
    return cub::DeviceSegmentedReduce::ArgMax(temp, temp_bytes, thrust::make_transform_iterator(cells, CellH{}),
                                              reinterpret_cast<cub::KeyValuePair<int, int>*>(out), rows, begin, end,
                                              stream);
}

/// The variant of R rows per lane, mode, direction bytes and packed scores,
/// with the tuning table's columns per step.
template <int R, AlignMode Mode, bool Dirs, bool Packed>
const void* variant() {
    constexpr int C = long_tuning::columns_per_step(R, Dirs);
    return reinterpret_cast<const void*>(&long_kernels::region_kernel<R, Mode, Dirs, Packed, C>);
}

/// The variants of one R and mode, indexed [dirs][packed].
using ModeVariants = std::array<std::array<const void*, 2>, 2>;

template <int R, AlignMode Mode>
ModeVariants mode_variants() {
    if constexpr (R == 32) {  // 32 rows a lane only without direction bytes (long_geometry::rows_per_lane)
        return {{{variant<R, Mode, false, false>(), variant<R, Mode, false, true>()}, {nullptr, nullptr}}};
    } else {
        return {{{variant<R, Mode, false, false>(), variant<R, Mode, false, true>()},
                 {variant<R, Mode, true, false>(), variant<R, Mode, true, true>()}}};
    }
}

/// The variants of one R, indexed [mode][dirs][packed] (AlignMode values, long_dispatch.hpp).
template <int R>
struct VariantsOfR {
    const std::array<ModeVariants, region_modes> k = {mode_variants<R, AlignMode::local>(),
                                                      mode_variants<R, AlignMode::global>(),
                                                      mode_variants<R, AlignMode::semi_global>()};
};

const void* kernel_for(int rows_per_lane, AlignMode mode, bool dirs, bool packed) {
    static const VariantsOfR<4> r4;
    static const VariantsOfR<16> r16;
    static const VariantsOfR<32> r32;
    const auto& k = rows_per_lane == 32 ? r32.k : rows_per_lane == 16 ? r16.k : r4.k;
    const void* kernel = k[static_cast<std::size_t>(mode)][dirs][packed];
    if (!kernel)
        throw std::logic_error("region kernel: no variant of " + std::to_string(rows_per_lane) +
                               " rows a lane with direction bytes");
    return kernel;
}

}  // namespace

int region_block_threads() { return long_kernels::region_block; }

bool region_uses_packed_scores(const std::int32_t* matrix_host, int size) {
    if (size > long_kernels::packed_letters) return false;
    for (int x = 0; x < size * size; ++x)
        if (matrix_host[x] < -128 || matrix_host[x] > 127) return false;
    return true;
}

int region_max_blocks(int device, int rows_per_lane, AlignMode mode, bool dirs, bool packed) {
    int per_sm = 0, sms = 0;
    GPUALIGN_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for(rows_per_lane, mode, dirs, packed),
                                                                long_kernels::region_block, 0),
                  "region kernel occupancy");
    GPUALIGN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    return per_sm * sms;
}

bool region_has_spare_code(int size, bool packed) { return size < (packed ? long_kernels::packed_letters : 32); }

std::size_t region_ring_bytes(const RegionLaunch& a) {
    return static_cast<std::size_t>(a.params.ring_slots) * (static_cast<std::size_t>(a.params.ring_mask) + 1) *
           sizeof(int4);
}

void launch_region(const RegionLaunch& a, cudaStream_t stream) {
    const RegionParams& p = a.params;
    GPUALIGN_CUDA(cudaMemcpyAsync(const_cast<long_kernels::RegionDesc*>(p.regions), a.regions_host,
                                  sizeof(long_kernels::RegionDesc) * p.count,
                                  cudaMemcpyHostToDevice, stream),
                  "region descriptors upload");
    GPUALIGN_CUDA(cudaMemsetAsync(p.progress, 0, sizeof(int) * (static_cast<std::size_t>(p.stripes) + 2), stream),
                  "region progress reset");
    // Tags of -1 (all bytes 0xFF) match no stripe: no entry of an earlier launch is taken for new.
    GPUALIGN_CUDA(cudaMemsetAsync(p.ring, 0xFF, region_ring_bytes(a), stream), "region ring reset");
    RegionParams params = p;
    void* args[] = {&params};
    // Flow control needs every warp co-resident (cooperative launch); without
    // it the kernel finishes with any resident subset (region_kernel.cuh), so
    // an ordinary launch may share the GPU with other streams' launches.
    const void* kernel = kernel_for(a.rows_per_lane, a.mode, a.dirs, a.packed);
    const dim3 grid(static_cast<unsigned>(a.blocks)), block(static_cast<unsigned>(long_kernels::region_block));
    const cudaError_t e = p.flow_control ? cudaLaunchCooperativeKernel(kernel, grid, block, args, 0, stream)
                                         : cudaLaunchKernel(kernel, grid, block, args, 0, stream);
    GPUALIGN_CUDA(e, "region kernel launch (" + std::to_string(p.count) + " region(s), " + std::to_string(p.stripes) +
                         " stripes, " + std::to_string(a.blocks) + " blocks)");
}

void load_leaf_walk() {
    cudaFuncAttributes attributes{};
    GPUALIGN_CUDA(cudaFuncGetAttributes(&attributes, long_kernels::leaf_walk_kernel), "leaf walk kernel load");
}

void launch_border(int2* dst, std::int64_t count, bool free, std::int32_t gap_open, std::int32_t gap_extend,
                   cudaStream_t stream) {
    constexpr int threads = 256;
    const std::int64_t blocks = std::min<std::int64_t>((count + threads - 1) / threads, 4096);
    if (blocks <= 0) return;
    long_kernels::border_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(dst, count, free, gap_open,
                                                                                       gap_extend);
    GPUALIGN_CUDA(cudaGetLastError(), "border kernel launch (" + std::to_string(count) + " cells)");
}

std::size_t row_peaks_temp_bytes(std::int64_t rows) {
    std::size_t bytes = 0;
    GPUALIGN_CUDA(row_peaks(nullptr, bytes, nullptr, nullptr, nullptr, rows, nullptr, nullptr),
                  "row peaks storage query (" + std::to_string(rows) + " rows)");
    return bytes;
}

void launch_row_peaks(const int2* cells, const std::int64_t* begin, const std::int64_t* end, std::int64_t rows,
                      int2* out, void* temp, std::size_t temp_bytes, cudaStream_t stream) {
    GPUALIGN_CUDA(row_peaks(temp, temp_bytes, cells, begin, end, rows, out, stream),
                  "row peaks launch (" + std::to_string(rows) + " rows)");
}

void launch_leaf_walk(const long_kernels::WalkParams& p, cudaStream_t stream) {
    long_kernels::leaf_walk_kernel<<<1, 32, 0, stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "leaf walk kernel launch (" + std::to_string(p.count) + " leaves)");
}

}  // namespace gpualign::gpu::detail
