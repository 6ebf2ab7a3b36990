// gpualign — the tuning table of the long-pair engine (the last layer of
// API -> dispatch -> kernel -> tuning). Nothing here limits sequence lengths.
// Each value says what it is and why; the measurements behind them are in
// docs/long.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gpualign::gpu::long_tuning {

/// Checkpoint rows fall on multiples of this many rows: a lane of the region
/// kernel writes a checkpoint row when its last row is one, so a stride must
/// be a multiple of R (4, 16 or 32); 512 is a stripe of R = 16 (and half a
/// stripe of R = 32, whose lane 15 then writes it).
constexpr std::int64_t row_alignment = 512;

/// Rows per lane of the region kernel for a region of `rows` rows on a GPU
/// of `sms` SMs. A stripe waits for the one above it, so a wavefront runs at
/// the pace of its most loaded SM: 32 (two columns a step, half the lanes'
/// skew of 16; launches with direction bytes keep 16) once R = 16 would put
/// more than 3 blocks of 4 stripes on an SM (rows > sms * 6144: 811,008 on
/// an H100); else 16 (fewer, longer stripes: less hand-off lag and traffic)
/// from 8 stripes of 512 rows on; else 4 (four times the stripes for small
/// regions). docs/long.md has the forward passes behind each threshold.
constexpr int rows_per_lane(std::int64_t rows, int sms) noexcept {
    return rows > std::int64_t{6144} * sms ? 32 : rows >= 4096 ? 16 : 4;
}

/// Columns each lane computes per wavefront step in the launches with
/// `rows` rows per lane and no direction bytes (region_kernel.cuh): two at R
/// = 16 and 32 (one step's frame - the column feed, shuffles, tests, ring
/// store - serves twice the cells), else one (two at R = 4 measured mixed).
constexpr int columns_per_step(int rows, bool dirs) noexcept { return rows >= 16 && !dirs ? 2 : 1; }

/// Blocks per SM the region kernel with `rows` rows per lane is compiled for
/// (__launch_bounds__, so a register cap of 65536 / (128 * blocks)): 4 at R =
/// 16 (128 registers), 1 at R = 4 (no cap needed), 3 at R = 32 (168
/// registers, a few bytes spilled, faster than 2 blocks without spills).
constexpr int region_min_blocks(int rows) noexcept { return rows == 16 ? 4 : rows == 32 ? 3 : 1; }

/// Leaves per speculative batch of a worker of align_many: its pair shares
/// the GPU, so leaves off the path cost other pairs' time; 48 computes
/// fewer spare cells than 128 for the same latency on bulk 5-50 kb pairs.
constexpr std::size_t leaf_batch_shared = 48;

/// Largest leaf (cells) of a worker of align_many: the leaves a speculative
/// batch computes off the path cost other pairs' time, while the leaves'
/// latency is hidden by the other pairs. 2^18 against 2^20 computes fewer
/// spare cells; 2^16 makes the path cross four times as many leaves. A pair
/// alone keeps the plan's 2^20.
constexpr std::uint64_t leaf_cells_shared = std::uint64_t{1} << 18;

/// Widest band (in leaf sides either side of the guessed line,
/// CheckpointPlan::leaf_band) of a speculative leaf batch of a worker of
/// align_many: with the band drawn about the line through the walk's cell,
/// 0.5 computes fewer spare leaves than wider bands and misses the path no
/// more often than narrower ones.
constexpr double leaf_band_shared = 0.5;

/// Largest leaf (cells), and widest leaf band, of a pair alone on the GPU
/// whose top level is cut into tiles above the leaves (a pair of more than
/// about 130 kb a side): each level-1 tile's leaves then follow the path
/// through that tile alone, so smaller leaves make a batch's launch shorter
/// (half a side, half the time) and the band about the line through the
/// walk's cell can be narrow. Pairs cut straight into leaves keep the
/// plan's (larger leaves are faster there).
constexpr std::uint64_t leaf_cells_tiled = std::uint64_t{1} << 18;
constexpr double leaf_band_tiled = 0.75;

/// Smallest ring (columns) per warp; rings are powers of two.
constexpr std::size_t min_ring_cols = 1024;

/// Device bytes for all rings of one launch (warps * ring columns * 8).
constexpr std::size_t ring_budget = std::size_t{128} << 20;

/// Leaves the traceback computes ahead of its walk in one launch (the tiles
/// up-left of the current one, nearest first). One leaf alone keeps a few
/// warps busy for its whole latency; a batch costs about the same time.
constexpr std::size_t leaf_batch = 128;

/// Longest side of a level-1 tile of a pair alone on the GPU: a larger pair
/// gets a finer checkpoint grid than the plan's fan-out (up to
/// solo_max_fan_out), and tile batches of tile_batch_per_fan_out tiles per
/// grid row. Smaller tiles shrink the work of the speculative tile batches
/// and the window search of the local forward pass (long_worker.cpp,
/// locate_best), and the peak device memory.
constexpr std::int64_t solo_tile_side = 16384;
constexpr int solo_max_fan_out = 64;
/// Tiles above the leaves (each with its checkpoint grid) that the traceback
/// of a pair alone on the GPU computes ahead of its walk in one launch, per
/// row of its top-level grid. The band of tiles along the path
/// (RegionSpeculation::tile_batch) is about 1.5 tiles per grid step, so 3
/// per grid row cover it in one launch.
constexpr std::size_t tile_batch_per_fan_out = 3;

/// The fan-out of the top level of a pair of m x n alone on the GPU: at
/// least the plan's, so that level-1 tiles are at most solo_tile_side a side
/// where solo_max_fan_out allows.
constexpr int solo_fan_out(std::int64_t m, std::int64_t n, int plan_fan_out) noexcept {
    const std::int64_t want = (std::max(m, n) + solo_tile_side - 1) / solo_tile_side;
    return static_cast<int>(std::max<std::int64_t>(plan_fan_out, std::min<std::int64_t>(want, solo_max_fan_out)));
}

/// Device bytes for the rings of one tile-batch launch: a slot (a whole row
/// of a tile, 1 MiB for 63 k columns) per resident warp.
constexpr std::size_t tile_ring_budget = std::size_t{2} << 30;

/// Pairs LongEngine::align_many aligns at once (host threads, streams). A
/// 5-50 kb pair keeps a few hundred warps busy in its forward pass and a few
/// dozen in its traceback, each pass latency-bound, so the GPU fills only
/// with many pairs at once. The workers share CUDA's 8 hardware work queues
/// (CUDA_DEVICE_MAX_CONNECTIONS, left to the user: more queues cost at
/// process start and exit): they allocate from a stream-ordered pool and
/// wait for their kernels by polling mapped memory (stream_wait.hpp), so no
/// command in a queue waits for a kernel and one stream's commands never
/// hold back another's. 40 is where more workers stopped paying.
constexpr int max_workers = 40;

/// align_many runs a pair of at least this many cells on a solo worker
/// (largest first; several at once beside the shared pairs: solo_workers)
/// rather than on a shared worker (LongEngineOptions::solo_min_cells): a
/// pair of 2^32 cells (about 65 kb a side) keeps hundreds of warps busy in
/// its forward pass and takes the solo traceback's larger leaves and tile
/// batches; on a shared worker beside smaller pairs it runs at a share's
/// pace with a share's memory and the set waits for it at the end.
/// docs/long.md, "Sets of pairs", has the measurements behind it.
constexpr std::uint64_t solo_min_cells = std::uint64_t{1} << 32;

/// Pairs that align_many runs alone (solo_min_cells) at once, each on a
/// solo worker with an equal share of the memory cap and its own host
/// thread and stream (LongEngineOptions::solo_workers). One such pair of
/// 65-500 kb a side keeps a few hundred warps busy, each crossing the whole
/// ref at the pace of one wavefront step, so one after another they left
/// most of the GPU idle; together, their flow-controlled forward passes
/// share the co-resident blocks (FlowBudget). Pairs of more than
/// rows_per_lane's 32-row threshold fill the GPU alone and still run one
/// after another, last. docs/long.md, "Sets of pairs", has the measurements.
constexpr int solo_workers = 8;

/// The part of the GPU's co-resident blocks that the flow-controlled
/// launches of the solo pairs run together may hold at once (FlowBudget::
/// reset, LongEngineOptions::solo_flow_share). The region kernel is bound
/// by its SMs' issue slots: more blocks on an SM make every one of its
/// wavefront steps longer, and the largest pair's chain of steps is the
/// set's critical path. Half the GPU left the shared pairs' and the
/// tracebacks' launches room but made the solo pairs wait for each other,
/// and ran slower than the whole; three quarters measured as the whole
/// within the runs' spread (docs/long.md).
constexpr double solo_flow_share = 1.0;

/// A pair goes to align_many's workers when its ref (a region's columns) fits
/// rings of whole rows with at least this many slots in a worker's ring
/// budget; wider pairs run alone over the whole GPU (flow-controlled rings).
constexpr std::size_t min_worker_slots = 8;

/// Regions of at least this many cells report progress while they run.
constexpr std::uint64_t progress_min_cells = std::uint64_t{1} << 30;

/// Bytes of a staging buffer of an engine's pool: host <-> device copies
/// larger than a worker's small buffer go through one, in chunks of this
/// size. Pinning costs about its size in time (cudaHostAlloc pins and maps
/// every page, on every GPU of the process), and align_many readies its
/// workers before their first pair, so a buffer is kept small.
constexpr std::size_t staging_bytes = std::size_t{256} << 10;

/// Staging buffers an engine's workers share (they hold one only for the
/// copy itself: a pair's sequences and top borders, a solo pair's direction
/// bytes); a worker that finds them all in use waits for one.
constexpr std::size_t staging_buffers = 8;

/// Bytes of a worker's own pinned buffer for small copies (a region's
/// corner, a few stripes' bests), so that these borrow no staging buffer.
constexpr std::size_t small_copy_bytes = std::size_t{4} << 10;

/// Bytes for the leaf walk's steps of an align_many worker: a walk through
/// one leaf batch (at most leaf_batch_shared leaves of leaf_cells_shared
/// cells, 1024 steps each) fits, and 40 workers pin 2.5 MiB for them.
constexpr std::size_t walk_steps_shared = std::size_t{64} << 10;
static_assert(walk_steps_shared >= leaf_batch_shared * 1024 + 1024,
              "a walk through a whole shared leaf batch fits one call");

}  // namespace gpualign::gpu::long_tuning
