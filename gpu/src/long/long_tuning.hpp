// gpualign — the tuning table of the long-pair engine (the last layer of
// API -> dispatch -> kernel -> tuning). Nothing here limits sequence lengths.
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
/// of `sms` SMs: 32 (two columns a step, 64 cells for one step's frame, and
/// half the lanes' skew of R = 16; launches with direction bytes keep 16)
/// when R = 16 would put more than 3 blocks of 4 stripes on an SM (rows >
/// sms * 6144: 811,008 on an H100). A stripe waits for the one above it,
/// so a wavefront runs at the pace of its most loaded SM: up to there R = 16
/// has at most 12 warps an SM, and R = 32 at most 8 (3 blocks of 168
/// registers an SM), and R = 16 is faster; beyond, R = 16 has 16 warps on
/// most SMs. Forward passes on an H100 (docs/benchmarks.md, session 21,
/// same calls, GCUPS global / local): 1 Mbp R = 16 1,462 / 1,371, R = 32
/// 1,841 / 1,608; 750 K 1,506 / 1,331 against 1,379 / 1,166; 500 K 1,327 /
/// 1,134 against 1,251 / 1,162. Otherwise 16 (fewer, longer stripes:
/// less hand-off lag and traffic, and the launches without direction bytes
/// take two columns a step) from 8 stripes of 512 rows on, else 4 (four
/// times the stripes for small regions). Beside other
/// pairs (align_many) since session 5 (bulk 5-50 kb pairs: 357 against 261
/// GCUPS score-only, H100); for a pair alone since session 20, which had
/// kept 4 below 512 K rows: forward passes on an H100 (same call, R = 4 ->
/// 16; docs/benchmarks.md, session 20) mito 6.07 -> 5.09 ms global, 7.11 ->
/// 6.12 local; H. pylori 50 kb 19.5 -> 16.5 / 22.4 -> 19.4 ms; 100 kb 29.1
/// -> 21.5 / 35.7 -> 25.6 ms; S. aureus 200 kb 86.4 -> 62.7 / 104.6 -> 75.5
/// ms (CIGAR wall 0.149 -> 0.122 s global); a threshold of 16,384 rows
/// measured the same.
constexpr int rows_per_lane(std::int64_t rows, int sms) noexcept {
    return rows > std::int64_t{6144} * sms ? 32 : rows >= 4096 ? 16 : 4;
}

/// Columns each lane computes per wavefront step in the launches with
/// `rows` rows per lane and no direction bytes (region_kernel.cuh): two at R =
/// 16 and 32 (one step's frame - the column feed, shuffles, tests, ring store - for
/// twice the cells; bulk 5-50 kb pairs on an H100: global score-only 657-660
/// -> 762-768 GCUPS, with CIGAR 366-368 -> 391-401, local 290-293 -> 315-319;
/// the 1 Mbp forward unchanged, docs/benchmarks.md session 14), else one
/// (two at R = 4 too, leaves included, measured mixed: -7% to +7% across the
/// long workloads). At R = 32 two against one column a step, 1 Mbp forward,
/// same call: global 1,790 -> 1,841 GCUPS, local 1,538 -> 1,608 (session 21).
constexpr int columns_per_step(int rows, bool dirs) noexcept { return rows >= 16 && !dirs ? 2 : 1; }

/// Blocks per SM the region kernel with `rows` rows per lane is compiled for
/// (__launch_bounds__, so a register cap of 65536 / (128 * blocks)): 4 at R =
/// 16 (128 registers), 1 at R = 4 (no cap needed), 3 at R = 32 (168
/// registers, 8-112 bytes spilled; the 1 Mbp forward on an H100 at one
/// column a step, same call, 3 against 2 blocks (no spills, 180-208
/// registers): global 1,792 against 1,753 GCUPS, local 1,542 against 1,470;
/// docs/benchmarks.md, session 21).
constexpr int region_min_blocks(int rows) noexcept { return rows == 16 ? 4 : rows == 32 ? 3 : 1; }

/// Leaves per speculative batch of a worker of align_many (its pair shares
/// the GPU, so tiles the path may not cross cost other pairs' time). Bulk
/// 5-50 kb pairs with CIGAR on an H100, 16 workers on 16 work queues: with
/// leaves of 2^20 cells and the walk on the host (docs/benchmarks.md, session
/// 15) 32 leaves 526 / 406 GCUPS (global / local), 64 537 / 423, 128 544 /
/// 462; with leaves of 2^18 (leaf_cells_shared) and the walk on the device
/// (session 16) 128 leaves 645-652 / 508-524 over five runs, 48 leaves
/// 669-687 / 520-543 over three (1.096x -> 1.088x the forward's cells).
constexpr std::size_t leaf_batch_shared = 48;

/// Largest leaf (cells) of a worker of align_many: its pair shares the GPU,
/// so the leaves a speculative batch computes off the path cost other pairs'
/// time, while the leaves' latency is hidden by the other pairs. Bulk 5-50 kb
/// pairs with CIGAR on an H100, 16 workers (docs/benchmarks.md, session 16):
/// 2^20 cells 473 / 427 GCUPS (global / local), 2^18 620 / 492 (1.174x ->
/// 1.096x the forward pass's cells in all), 2^16 403 / 315 (512 x 128
/// leaves: the path crosses four times as many). A pair alone keeps 2^20
/// (the S. aureus 200 kb pair: 160 against 173 ms with CIGAR).
constexpr std::uint64_t leaf_cells_shared = std::uint64_t{1} << 18;

/// Widest band (in leaf sides either side of the guessed line,
/// CheckpointPlan::leaf_band) of a speculative leaf batch of a worker of
/// align_many. Bulk 5-50 kb pairs with CIGAR on an H100, 16 workers, leaves
/// of 2^18 cells, batches of 48 (docs/benchmarks.md, session 16), two runs
/// each: band 1.5 672-698 / 520-536 GCUPS (global / local, 1.088x the
/// forward's cells), 0.75 771-784 / 590-602 (1.047x), 0.75 with batches of
/// 32 753-766 / 589-590, 0.5 with 32 767-775 / 593-597. Session 22 drew the
/// band about the line through the walk's cell (CheckpointPlan::leaf_band,
/// perpendicular distance) instead of about the line from the leaf to the
/// region's origin: with batches of 48, one run each, band 0.75 1,111 / 1,005
/// GCUPS with CIGAR (global / local; the old line at 0.75: 1,175 / 1,060),
/// 0.5 1,180 / 1,061, 0.35 1,182 / 1,069.
constexpr double leaf_band_shared = 0.5;

/// Largest leaf (cells), and widest leaf band, of a pair alone on the GPU
/// whose top level is cut into tiles above the leaves (a pair of more than
/// about 130 kb a side): each level-1 tile's leaves then follow the path
/// through that tile alone, so a leaf batch covers a tile in one launch
/// whose latency is a leaf's (half a side, half the time), and the band
/// about the line through the walk's cell can be narrow. The traceback of
/// the 1 Mbp pair at 5% on an H100 (docs/benchmarks.md, session 22): leaves
/// of 2^20 in a band of 1.5, 123 leaf batches, 81 ms; 2^18 and 1.0, 141
/// batches, 43 ms (CIGAR wall 0.714 -> 0.681 s; 0.75: 0.670 s; S. aureus
/// 200 kb 0.097 -> 0.088 s). Pairs cut straight into leaves keep the plan's
/// (H. pylori 100 kb: 0.045 s with 2^20 leaves, 0.054 with 2^18).
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
/// and the window search of the local forward pass (long_engine.cpp,
/// locate_best). The 1 Mbp pair (syn1m5) on an H100, fan-out 16 / tile batch
/// 48 against 64 / 192 (docs/benchmarks.md, session 20): cells of every pass
/// 1.191x -> 1.053x the forward's, local forward with its window search
/// 789-798 -> 753-771 ms, CIGAR kernels global 982 -> 947 ms, local 1,036-1,049
/// -> 980-998 ms, peak device memory 5.7 -> 3.4 GB (32 / 96 was between).
constexpr std::int64_t solo_tile_side = 16384;
constexpr int solo_max_fan_out = 64;
/// Tiles above the leaves (each with its checkpoint grid) that the traceback
/// of a pair alone on the GPU computes ahead of its walk in one launch, per
/// row of its top-level grid. A 1 Mbp pair's path crosses ~31 of its 16 x 16
/// level-1 tiles (63 k a side), each ~26 ms alone on an H100 and a few
/// percent of the GPU; the band of tiles along the path
/// (RegionBackend::tile_batch) is about 1.5 tiles per grid step, so 3 per
/// grid row (48 of 16 x 16) cover it in one launch.
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
/// (CUDA_DEVICE_MAX_CONNECTIONS, left to the user): they allocate from a
/// stream-ordered pool and wait for their kernels by polling mapped memory
/// (long_engine.cpp), so no command in a queue waits for a kernel and one
/// stream's commands never hold back another's. Bulk 5-50 kb pairs on an H100
/// (docs/benchmarks.md, session 17), GCUPS score-only / with CIGAR, global:
/// 16 workers 1,201 / 808; 32 workers 1,421-1,561 / 1,050-1,117; 40 workers
/// 1,427-1,602 / 1,072-1,181; 48 workers 1,597 / 1,178 (local with CIGAR: 32
/// workers 787-788, 40 workers 790-821). Session 15 had set 16 queues for 16 workers, each waiting on
/// events, and the queues cost at process start and exit (the mito pair
/// through the CLI: 526-565 ms with 8 queues, 747-756 ms with 16).
constexpr int max_workers = 40;

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
/// workers before their first pair: a 1 MiB buffer a worker took 20-44 ms
/// for 40 workers on one H200 and 65-68 ms with two GPUs in the process,
/// 256 KiB a worker 6-12 and 24-29 ms (session 18).
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
