// gpualign — launch parameters of the long-pair leaf walk
// (leaf_walk_kernel.cuh), and the layout the host reads back. Plain structs:
// included by the kernel and by the host code.
#pragma once

#include <cstdint>

#include "region_params.cuh"

namespace gpualign::gpu::long_kernels {

/// Rows and columns of a walk window.
constexpr int walk_window = 64;
/// 16-byte chunks a window row holds: its 64 columns may start mid-chunk.
constexpr int walk_window_chunks = walk_window / 16 + 1;
/// Most steps the walk takes inside one window (each step leaves a row or a
/// column of it behind, or both).
constexpr int walk_window_steps = 2 * walk_window - 1;

/// The walk's cursor (gpualign::WalkCursor) plus the steps written: host and
/// device share the layout (mapped pinned host memory).
struct WalkState {
    long long i, j;  ///< the cell whose byte is read next (DP coordinates)
    int state;       ///< 0 = H, 1 = E, 2 = F
    int done;        ///< 1 once the path has ended
    int steps;       ///< step codes written (gpualign::WalkStep)
    unsigned int finished;  ///< set to 1 last, once every field and step is visible (the host may poll it)
};

/// One walk launch.
struct WalkParams {
    const RegionDesc* leaves;  ///< the batch's descriptors (device memory), each with `dirs`
    int count;                 ///< leaves in the batch
    long long i, j;            ///< start cell, inside a leaf of the batch
    int state, local;          ///< start state; 1 in local mode (the path ends on row/column 0)
    int capacity;              ///< room for step codes at `steps`; the walk stops before a window that might overflow it
    std::uint8_t* steps;       ///< step codes in walk order (mapped pinned host memory)
    WalkState* out;            ///< the cursor where the walk stopped (mapped pinned host memory)
};

}  // namespace gpualign::gpu::long_kernels
