// gpualign — the long engine's per-pair planning: a worker's share of the
// memory cap and its checkpoint plan, and how a pair's bytes split between
// the checkpoint arena, the rings and the rest. Pure functions of the
// options, the lengths and the cap (no CUDA types), checked by the CPU tests
// (tests/gpu/host/long_launch_geometry_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpualign/align/checkpoint_traceback.hpp"
#include "gpualign/gpu/long_engine.hpp"

namespace gpualign::gpu::long_plan {

/// A worker's setup for its share of the cap (bytes): alone on the GPU
/// (`solo`, LongEngine::align) or one of align_many's workers.
struct WorkerSetup {
    std::size_t ring_budget = 0;  ///< bytes of one launch's rings
    CheckpointPlan plan;          ///< the options' plan, with smaller leaves beside other pairs
    std::size_t leaf_batch = 1;   ///< leaves per speculative batch
    std::size_t tile_batch = 1;   ///< tiles above the leaves per speculative batch
};

/// Rings: the options' budget (else long_tuning::ring_budget), at most an
/// eighth of the share. Leaves: beside other pairs at most
/// long_tuning::leaf_cells_shared cells in a band of at most
/// leaf_band_shared; a batch's direction bytes within a sixteenth of the
/// share. Tiles above the leaves only for a pair alone (solo_tile_batch).
WorkerSetup worker_setup(const LongEngineOptions& options, bool solo, std::size_t share);

/// Tiles a tile batch of a pair alone takes with `plan`: the options' cap,
/// else long_tuning::tile_batch_per_fan_out per row of the top-level grid.
std::size_t solo_tile_batch(const LongEngineOptions& options, const CheckpointPlan& plan);

/// Bytes outside the arena that a pair of `bases` = m + n bases may need:
/// the sequences, the rings, a leaf batch's direction bytes and small buffers.
std::size_t others_bytes(std::size_t bases, std::size_t ring_budget, std::size_t leaf_batch,
                         std::uint64_t leaf_cells);

/// The smallest arena a pair of `bases` = m + n bases can use (the border
/// and one coarse level).
std::size_t floor_bytes(std::size_t bases);

/// Arena bytes for a batch of `tile_batch` level-1 tiles' checkpoint grids
/// of an m x n pair under `plan`: 0 when tile_batch <= 1 or the pair's top
/// level is cut straight into leaves. Each tile is about (m / fan_out) x
/// (n / fan_out); its grid is cut into leaves when that takes at most
/// direct_leaf_bytes, else into fan_out x fan_out tiles.
std::size_t tile_batch_bytes(std::size_t m, std::size_t n, const CheckpointPlan& plan, std::size_t tile_batch);

/// A pair alone on the GPU: `plan` gets a finer top-level grid
/// (long_tuning::solo_fan_out) and the options' leaves, `tile_batch` its
/// solo_tile_batch; with tiles above the leaves (tile_batch_bytes > 0),
/// smaller leaves in a narrower band (long_tuning::leaf_cells_tiled).
void plan_solo_pair(const LongEngineOptions& options, std::size_t m, std::size_t n, CheckpointPlan& plan,
                    std::size_t& tile_batch);

/// How a pair of m x n bases uses a worker's share `limit` (bytes).
struct PairBytes {
    std::size_t rest = 0;              ///< others_bytes
    std::size_t floor = 0;             ///< floor_bytes
    std::size_t tile_ring_budget = 0;  ///< ring bytes of a tile-batch launch (>= the ring budget)
    std::size_t arena = 0;             ///< the arena's bytes in all
    std::size_t arena_first = 0;       ///< its first part: arena, or less when the rest may come later
    bool shrunk = false;               ///< the share holds fewer checkpoints than the plan asks for
};

/// The arena holds the borders and every level's checkpoints (about
/// 2 fan_out + 4 rows and columns of m + n + 2 cells, 64 MiB, and a tile
/// batch's grids); the share's rest goes to the sequences, rings and a leaf
/// batch. A pair with tiles above the leaves gets rings of up to a slot per
/// warp for its tile batches (long_tuning::tile_ring_budget, at most an
/// eighth of the share) where the share allows, when the options leave the
/// ring bytes to the table. A pair alone (`solo`) with tiles above the
/// leaves needs only the borders and the top-level grid for its forward
/// pass: arena_first holds those, the rest of the arena comes while the
/// forward pass runs.
/// @throws std::length_error when the share cannot hold rest + floor.
PairBytes pair_bytes(const LongEngineOptions& options, const CheckpointPlan& plan, std::size_t tile_batch,
                     std::size_t leaf_batch, std::size_t ring_budget, bool solo, std::size_t limit, std::size_t m,
                     std::size_t n);

/// Whether a pair of m x n alone on the GPU (worker_setup with `solo`,
/// plan_solo_pair) keeps its full checkpoint plan within a share of `share`
/// bytes: pair_bytes neither throws nor shrinks its arena.
bool solo_pair_fits(const LongEngineOptions& options, std::size_t m, std::size_t n, std::size_t share);

}  // namespace gpualign::gpu::long_plan
