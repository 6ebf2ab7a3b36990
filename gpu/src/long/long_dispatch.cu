// gpualign — launch wrapper of the long-pair region kernel: picks the
// variant (rows per lane, mode, direction bytes, packed scores) and launches it:
// cooperatively when its rings need flow control (every warp co-resident),
// else as an ordinary launch that may share the GPU with other streams.
#include "long_dispatch.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "../cuda_check.hpp"
#include "long_tuning.hpp"
#include "region_kernel.cuh"

namespace gpualign::gpu::detail {
namespace {

using long_kernels::RegionParams;

RegionParams to_params(const RegionLaunch& a) {
    RegionParams p{};
    p.query = a.query;
    p.ref = a.ref;
    p.matrix = a.matrix;
    p.size = a.size;
    p.gap_open = a.gap_open;
    p.gap_extend = a.gap_extend;
    p.regions = a.regions_dev;
    p.count = a.count;
    p.stripes = a.stripes;
    p.ring = static_cast<int4*>(a.ring);
    p.ring_mask = a.ring_cols - 1;
    p.ring_slots = a.ring_slots;
    p.flow_control = a.flow_control;
    p.progress = a.progress;
    p.cells_done = a.cells_done;
    p.prune = a.prune;
    p.lb = a.lb;
    p.end_i = a.end_i;
    p.end_j = a.end_j;
    p.smax = a.smax;
    p.band = a.band;
    p.span = a.progress + a.stripes + 1;
    p.computed = a.computed;
    return p;
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
    return {{{variant<R, Mode, false, false>(), variant<R, Mode, false, true>()},
             {variant<R, Mode, true, false>(), variant<R, Mode, true, true>()}}};
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
    return (rows_per_lane == 16 ? r16.k : r4.k)[static_cast<std::size_t>(mode)][dirs][packed];
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

namespace {
/// Pruning's top-row pass: raises regions[r].top_live_end to the last column
/// j of region r's top boundary with H(i0, j0 + j) + bound >= LB
/// (region_kernel.cuh, "Pruning"). Grid: x strides the columns, y = region.
__global__ void top_live_kernel(long_kernels::RegionDesc* regions, const int* lb, long long end_i, long long end_j,
                                int smax, int ge, bool local) {
    long_kernels::RegionDesc& d = regions[blockIdx.y];
    const long long to_m = end_i - d.i0, to_n = end_j - d.j0;
    const int lbv = *lb;
    int last = 0;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x + 1; j <= d.cols; j += gridDim.x * blockDim.x)
        if (d.top[j].x + long_kernels::suffix_bound(local, smax, ge, to_m, to_m, to_n - j, to_n - j) >= lbv) last = j;
    last = __reduce_max_sync(0xFFFFFFFFu, last);
    if ((threadIdx.x & 31) == 0 && last > 0) atomicMax(&d.top_live_end, last);
}

__global__ void fill_kernel(int* p, std::size_t n, int v) {
    for (std::size_t x = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; x < n;
         x += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        p[x] = v;
}
}  // namespace

void fill_neg_inf(void* p, std::size_t ints, cudaStream_t stream) {
    if (ints == 0) return;
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((ints + 255) / 256, 4096));
    fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<int*>(p), ints, long_kernels::neg_inf);
    GPUALIGN_CUDA(cudaGetLastError(), "checkpoint fill launch");
}

std::size_t region_ring_bytes(const RegionLaunch& a) {
    return static_cast<std::size_t>(a.ring_slots) * static_cast<std::size_t>(a.ring_cols) * sizeof(int4);
}

void launch_region(const RegionLaunch& a, cudaStream_t stream) {
    GPUALIGN_CUDA(cudaMemcpyAsync(a.regions_dev, a.regions_host, sizeof(long_kernels::RegionDesc) * a.count,
                                  cudaMemcpyHostToDevice, stream),
                  "region descriptors upload");
    GPUALIGN_CUDA(cudaMemsetAsync(a.progress, 0, sizeof(int) * (3 * static_cast<std::size_t>(a.stripes) + 1), stream),
                  "region progress reset");
    // Tags of -1 (all bytes 0xFF) match no stripe: no entry of an earlier launch is taken for new.
    GPUALIGN_CUDA(cudaMemsetAsync(a.ring, 0xFF, region_ring_bytes(a), stream), "region ring reset");
    if (a.prune == long_kernels::prune_bound) {
        int max_cols = 1;
        for (int r = 0; r < a.count; ++r) max_cols = std::max(max_cols, a.regions_host[r].cols);
        const dim3 grid(static_cast<unsigned>(std::min(64, (max_cols + 255) / 256)), static_cast<unsigned>(a.count));
        top_live_kernel<<<grid, 256, 0, stream>>>(a.regions_dev, a.lb, a.end_i, a.end_j, a.smax, a.gap_extend,
                                                   a.mode == AlignMode::local);
        GPUALIGN_CUDA(cudaGetLastError(), "pruning top-row pass launch");
    }
    RegionParams p = to_params(a);
    void* args[] = {&p};
    // Flow control needs every warp co-resident (cooperative launch); without
    // it the kernel finishes with any resident subset (region_kernel.cuh), so
    // an ordinary launch may share the GPU with other streams' launches.
    const void* kernel = kernel_for(a.rows_per_lane, a.mode, a.dirs, a.packed);
    const dim3 grid(static_cast<unsigned>(a.blocks)), block(static_cast<unsigned>(long_kernels::region_block));
    const cudaError_t e = a.flow_control ? cudaLaunchCooperativeKernel(kernel, grid, block, args, 0, stream)
                                         : cudaLaunchKernel(kernel, grid, block, args, 0, stream);
    GPUALIGN_CUDA(e, "region kernel launch (" + std::to_string(a.count) + " region(s), " + std::to_string(a.stripes) +
                         " stripes, " + std::to_string(a.blocks) + " blocks)");
}

}  // namespace gpualign::gpu::detail
