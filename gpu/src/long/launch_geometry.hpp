// gpualign — the launch geometry of the long engine's region kernel: ring
// widths and slots, rows per lane, stripes and grid sizes. Pure functions of
// the shapes and the device's numbers (no CUDA types), so the CPU tests
// check them (tests/gpu/host/long_launch_geometry_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace gpualign::gpu::long_geometry {

/// The smallest power of two >= v (1 for v = 0).
std::size_t next_pow2(std::size_t v);

/// Columns of a ring that holds a whole row of `cols` columns (a power of two
/// with the 64 columns of slack the kernel's chunk loads need).
std::size_t whole_row_ring_cols(std::size_t cols);

/// Bytes of one ring slot of `ring_cols` 16-byte entries {H, Fcell, stripe, column}.
constexpr std::size_t ring_slot_bytes(std::size_t ring_cols) { return ring_cols * 16; }

/// The region kernel's rows per lane (long_tuning::rows_per_lane), in the
/// order of the engine's max_blocks table's first index; 32 has no
/// direction-byte variant.
inline constexpr int lane_rows[] = {4, 16, 32};
constexpr int lane_rows_index(int R) { return R == 32 ? 2 : R == 16 ? 1 : 0; }
static_assert(std::size(lane_rows) == 3 && lane_rows_index(lane_rows[2]) == 2);

/// Stripes of a region of `rows` rows at R rows a lane (32 lanes a stripe).
constexpr int stripes_of(std::int64_t rows, int R) {
    return static_cast<int>((rows + 32 * R - 1) / (32 * R));
}

/// Rows per lane of a launch over regions of `rows` rows on `sms` SMs:
/// `forced` (LongEngineOptions::rows_per_lane) when non-zero, else the
/// tuning table's; 32 becomes 16 with direction bytes (no such variant) and
/// for a local launch whose alphabet has no spare code (`local_without_spare`:
/// the rows past a region's last need one, region_kernel.cuh, LaneKey).
int rows_per_lane(std::int64_t rows, bool want_dirs, int forced, int sms, bool local_without_spare);

/// Blocks of a launch over `stripes` stripes: as many as hold them
/// (`warps_per_block` warps a block), at most `resident` (the variant's
/// co-resident blocks) and, when `cap` > 0, at most `cap`
/// (LongEngineOptions::max_blocks).
int launch_blocks(int resident, int stripes, int warps_per_block, int cap);

/// Ring slots of whole rows of `ring_cols` columns within `ring_budget`
/// bytes: at most `stripes`, at least 2 (1 when there is one stripe).
int whole_row_slots(std::size_t ring_budget, int ring_cols, int stripes);

/// Ring slots of a tile-batch launch: a slot per resident warp (`warps`)
/// where `ring_budget` bytes allow, at most `stripes`, at least 2 (1 when
/// there is one stripe).
int tile_batch_slots(std::size_t ring_budget, int ring_cols, std::size_t warps, int stripes);

/// The geometry of a launch over one region.
struct RegionGeometry {
    int stripes = 0;
    int blocks = 0;
    std::size_t ring_cols = 0;
    int slots = 0;
    bool flow = false;      ///< flow-controlled rings narrower than a row (cooperative launch)
    std::size_t warps = 0;  ///< blocks * warps_per_block
};

/// The launch over one region of `rows` x `cols` at R rows a lane.
/// `resident`, `warps_per_block`, `cap`: as launch_blocks. Rings hold whole
/// rows within `ring_budget` bytes; a worker alone on the GPU (`solo`) whose
/// whole rows leave fewer slots than stripes in flight gets two rings per
/// warp instead, flow-controlled, wide enough that producers cannot close a
/// cycle of waits (cols < warps * (ring_cols - 64)), halving the blocks
/// until they fit the budget (long_tuning::min_ring_cols the narrowest).
/// The caller checks that a worker beside others has slots >= min(2, stripes).
RegionGeometry region_geometry(int rows, int cols, int R, int resident, int warps_per_block, int cap,
                               std::size_t ring_budget, bool solo);

/// Bytes for the leaf walk's steps when `steps` steps are left (each moves i
/// or j down): room for them and one window of `window_steps`
/// (long_kernels::walk_window_steps), within 64 MiB and at least 64 KiB; a
/// worker beside others (not `solo`), whose walk covers one leaf batch,
/// long_tuning::walk_steps_shared. A longer path takes several calls.
std::size_t walk_bytes(std::size_t steps, bool solo, std::size_t window_steps);

}  // namespace gpualign::gpu::long_geometry
