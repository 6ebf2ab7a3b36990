// gpualign — the tuning table of the long-pair engine (the last layer of
// API -> dispatch -> kernel -> tuning). Nothing here limits sequence lengths.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpualign::gpu::long_tuning {

/// Checkpoint rows fall on multiples of this many rows: a stripe of the
/// region kernel is 32 * R rows (R = 4 or 16), and 512 is a multiple of both.
constexpr std::int64_t row_alignment = 512;

/// Rows per lane of the region kernel for a region of `rows` rows: 16
/// (fewer, longer stripes, less hand-off traffic) when the region has enough
/// stripes of 512 rows to keep the GPU's warps busy, else 4 (four times the
/// parallelism for small regions).
constexpr int rows_per_lane(std::int64_t rows) noexcept { return rows >= 512 * 1024 ? 16 : 4; }

/// Smallest ring (columns) per warp; rings are powers of two.
constexpr std::size_t min_ring_cols = 1024;

/// Device bytes for all rings of one launch (warps * ring columns * 8).
constexpr std::size_t ring_budget = std::size_t{128} << 20;

/// Leaves the traceback computes ahead of its walk in one launch (the tiles
/// up-left of the current one, nearest first). One leaf alone keeps a few
/// warps busy for its whole latency; a batch costs about the same time.
constexpr std::size_t leaf_batch = 128;

/// Regions of at least this many cells report progress while they run.
constexpr std::uint64_t progress_min_cells = std::uint64_t{1} << 30;

}  // namespace gpualign::gpu::long_tuning
