// gpualign — launch parameters of the long-pair region kernel, one layout
// for the host and the kernel: the host fills RegionParams
// (long_dispatch.hpp, RegionLaunch::params) and the kernel takes it as it
// is. Plain structs, no device code; the only CUDA names are the vector
// types int2 and int4 (vector_types.h), the device's layout of
// gpualign::BoundaryCell and of a ring entry.
#pragma once

#include <cstdint>

#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::long_kernels {

/// "Minus infinity" for Ecell and Fcell on the borders; survives subtracting
/// any penalty (<= 10^6) without wrapping, as in the CPU reference.
constexpr std::int32_t neg_inf = INT32_MIN / 2;

/// Bytes a row of a region's direction bytes takes in device memory: cols
/// rounded up to a multiple of 16 (the region kernel stores four columns at
/// once; the leaf walk loads 16 bytes at once).
constexpr int dirs_pitch(int cols) { return (cols + 15) & ~15; }

/// One region of the DP matrix: rows (i0, i0+rows], columns (j0, j0+cols].
/// Every pointer is device memory. int2 boundary cells are
/// gpualign::BoundaryCell {h, g}. Host and device share this layout (an array
/// of them is copied to the device for each launch).
struct RegionDesc {
    long long i0, j0;               ///< region origin in DP coordinates
    const int2* top;                ///< cols+1: H(i0, j0+t), Fcell(i0, j0+t)
    const int2* left;               ///< rows+1: H(i0+t, j0), Ecell(i0+t, j0)
    int2* row_out;                  ///< checkpoint row k at row_out + k*(cols+1)
    int2* col_out;                  ///< checkpoint column k at col_out + k*(rows+1)
    std::uint8_t* dirs;             ///< rows * dirs_pitch(cols) direction bytes, row-major (cols used a row), or null
    /// {H, region row, region column, w} (H the full matrix's value), or null:
    /// local: entry s = stripe s's canonical best cell (max H, then smallest
    /// row, then smallest column; {0, 0, 0, 0} when no H > 0), where w = 0
    /// means the column is exact and w > 0 (the windowed local forward,
    /// region_kernel.cuh) that it lies in [w, column]; semi-global: only
    /// entry stripes-1, the best cell of the region's last row (row = rows,
    /// the smallest column on ties); global: unused.
    int4* stripe_best;
    int* corner;                    ///< H(i0+rows, j0+cols)
    int rows, cols;                 ///< region size (>= 1 each)
    int row_stride;                 ///< checkpoint rows every row_stride rows (a multiple of the stripe), 0 = none
    int col_stride;                 ///< checkpoint columns every col_stride columns, 0 = none
    int stripe_begin;               ///< index of the region's first stripe among the launch's stripes
    int stripes;                    ///< ceil(rows / stripe height)
};

/// One launch: one or more regions of one pair, computed at once.
struct RegionParams {
    const std::uint8_t* query;      ///< the whole query's codes (row i reads query[i-1])
    const std::uint8_t* ref;        ///< the whole ref's codes
    const std::int32_t* matrix;     ///< size x size substitution scores, row = query code
    std::int32_t size;              ///< alphabet size (<= 32)
    std::int32_t gap_open;          ///< go >= 0
    std::int32_t gap_extend;        ///< ge >= 0
    const RegionDesc* regions;      ///< `count` regions, stripes numbered region after region
    int count;
    int stripes;                    ///< all regions' stripes
    /// Hand-off rings: ring_slots rings of ring_mask+1 entries {H, Fcell,
    /// stripe, column}; stripe g writes ring g mod ring_slots, which stripe
    /// g + 1 reads. Stripe g waits, before its first write, until stripe
    /// g - ring_slots + 1 (the reader of the slot's previous writer) is done.
    int4* ring;
    int ring_mask;                  ///< ring columns - 1 (a power of two minus one)
    int ring_slots;                 ///< >= 1; >= stripes means no slot is reused
    bool flow_control;              ///< a ring is narrower than the region: producers wait for consumers (cooperative launch only)
    /// stripes + 2 ints, zeroed before launch: progress[g] = input columns
    /// stripe g has consumed (flow control), INT_MAX once it is done;
    /// progress[stripes] = the next stripe to take (warps take stripes in
    /// increasing order, so the lowest unfinished stripe never waits on a
    /// later one and every launch without flow control finishes whatever
    /// blocks are resident); progress[stripes + 1] = warps done (launch_done).
    int* progress;
    unsigned long long* cells_done; ///< per warp: cells computed (pinned host memory, mapped), may be null
    /// Mapped pinned host memory, zeroed before launch, or null: the last
    /// warp to finish sets it to 1 once every warp's writes are visible, so
    /// the host sees the launch end without a command in the stream after the
    /// kernel (align_many's workers: StreamWaiter::poll). The warps count
    /// themselves in progress[stripes + 1].
    unsigned int* launch_done;
};

}  // namespace gpualign::gpu::long_kernels
