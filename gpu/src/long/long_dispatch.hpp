// gpualign — host-side launch wrapper of the long-pair region kernel, between
// LongEngine's workers (long_worker.cpp, g++) and the kernel (region_kernel.cuh).
// Declared with CUDA runtime types only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "leaf_walk_params.cuh"
#include "region_params.cuh"

namespace gpualign::gpu::detail {

/// One launch over `count` regions of one pair: the kernel's parameters as
/// the kernel takes them (`params`, long/region_params.cuh; device memory
/// unless said there) and the host's choices of kernel variant and grid.
///
/// Rings: `params.ring_slots` rings of `params.ring_mask + 1` entries.
/// Without flow control (every ring holds a region's whole row: ring
/// columns >= cols + 64) any ring_slots >= 1 is correct and the launch is an
/// ordinary one, safe beside other launches; ring_slots below the stripes in
/// flight only makes stripes wait. With flow control the launch is
/// cooperative, and the caller keeps cols < (warps) * (ring columns - 64)
/// with ring_slots = 2 * warps. launch_region resets the rings' tags to -1
/// and zeroes `params.progress`.
struct RegionLaunch {
    long_kernels::RegionParams params;             ///< passed to the kernel as it is
    const long_kernels::RegionDesc* regions_host;  ///< host memory: `params.count` descriptors, copied to params.regions
    AlignMode mode;              ///< the recurrence (zero floor: local) and best-cell output (RegionDesc::stripe_best)
    bool dirs;                   ///< the regions have direction-byte outputs
    bool packed;                 ///< scores as a packed int8 profile (region_uses_packed_scores)
    int rows_per_lane;           ///< R: 4, 16 or 32 (long_tuning::rows_per_lane)
    int blocks;                  ///< grid size (co-resident: see region_max_blocks)
};

/// Threads per block of the region kernel.
int region_block_threads();

/// True when the region kernel can hold `matrix` (size x size, row = query
/// code) as a packed profile: at most 8 letters, every score in [-128, 127]
/// (DNA schemes). Such launches pick each score with one PRMT instead of a
/// shared-memory load per cell (region_kernel.cuh).
bool region_uses_packed_scores(const std::int32_t* matrix_host, int size);

/// The AlignModes the region kernel has variants of, indexed by their value.
constexpr int region_modes = 3;
static_assert(static_cast<int>(AlignMode::local) == 0 && static_cast<int>(AlignMode::global) == 1 &&
                  static_cast<int>(AlignMode::semi_global) == 2,
              "the region kernel's variant tables are indexed by AlignMode");

/// Most blocks of the region kernel (R rows per lane, mode, dirs, packed
/// scores) that can be co-resident on `device`: occupancy x SMs.
/// @throws std::runtime_error naming the CUDA error.
int region_max_blocks(int device, int rows_per_lane, AlignMode mode, bool dirs, bool packed);

/// Whether an alphabet of `size` letters leaves the region kernel a spare
/// query code (below 8 letters with packed scores, else below 32), which
/// the local variant of 32 rows a lane gives the rows past a region's last.
bool region_has_spare_code(int size, bool packed);

/// Ring bytes that launch `a` uses.
std::size_t region_ring_bytes(const RegionLaunch& a);

/// Loads the leaf walk kernel into the current device's context now
/// (cudaFuncGetAttributes). Under CUDA's lazy loading (the default) a kernel
/// is loaded at its first launch, and loading may synchronize the context:
/// loaded in the middle of align_many, the first walk would wait for every
/// worker's running kernels. The region kernels are loaded by their
/// occupancy queries (region_max_blocks).
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
void load_leaf_walk();

/// Launches the leaf walk (leaf_walk_kernel.cuh: one warp walks the path
/// through a leaf batch) on `stream`, after the batch's region launch there
/// (asynchronous). `p.leaves` is device memory; `p.steps` and `p.out` are
/// device views of mapped pinned host memory.
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
void launch_leaf_walk(const long_kernels::WalkParams& p, cudaStream_t stream);

/// Writes a matrix border of `count` boundary cells ({H, gap state}, int2)
/// at device `dst` on `stream` (asynchronous; border_kernel.cuh): H(k) = 0
/// for k = 0 or a `free` border, else -(gap_open + k * gap_extend); the gap
/// state minus infinity. The caller keeps k * gap_extend within 32 bits.
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
void launch_border(int2* dst, std::int64_t count, bool free, std::int32_t gap_open, std::int32_t gap_extend,
                   cudaStream_t stream);

/// CUB's temporary storage (bytes) for launch_row_peaks over `rows` rows.
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
std::size_t row_peaks_temp_bytes(std::int64_t rows);

/// The peak of each of `rows` rows of boundary cells ({H, gap state}, int2):
/// row k is cells[begin[k] .. end[k]) (begin < end), and out[k] gets the
/// index in the row of its first largest H (x) and that H (y). One
/// segmented arg-max of CUB (cub::DeviceSegmentedReduce::ArgMax) on
/// `stream`, asynchronous; `temp` holds row_peaks_temp_bytes(rows) bytes.
/// Device memory throughout.
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
void launch_row_peaks(const int2* cells, const std::int64_t* begin, const std::int64_t* end, std::int64_t rows,
                      int2* out, void* temp, std::size_t temp_bytes, cudaStream_t stream);

/// Uploads the descriptors, zeroes `progress`, resets the rings' tags and
/// launches the region kernel on `stream` (asynchronous; cooperatively when
/// `a.params.flow_control`).
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
void launch_region(const RegionLaunch& a, cudaStream_t stream);

}  // namespace gpualign::gpu::detail
