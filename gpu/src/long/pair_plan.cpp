// gpualign — the long engine's per-pair planning (pair_plan.hpp).
#include "pair_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "../common/device_memory.hpp"
#include "long_tuning.hpp"

namespace gpualign::gpu::long_plan {

using detail::alloc_granule;
using detail::rounded;

WorkerSetup worker_setup(const LongEngineOptions& options, bool solo, std::size_t share) {
    WorkerSetup w;
    const std::size_t budget = options.ring_bytes ? options.ring_bytes : long_tuning::ring_budget;
    w.ring_budget = std::min(budget, std::max<std::size_t>(share / 8, 1));
    // Leaves per speculative batch: up to LongEngineOptions::leaf_batch (or
    // the tuning table's), their direction bytes within a sixteenth of the share.
    const std::size_t most = options.leaf_batch > 0 ? static_cast<std::size_t>(options.leaf_batch)
                             : (solo ? long_tuning::leaf_batch : long_tuning::leaf_batch_shared);
    // Leaves: beside other pairs, at most long_tuning::leaf_cells_shared
    // cells, batched in a band of at most leaf_band_shared.
    w.plan = options.plan;
    if (!solo) {
        w.plan.leaf_cells = std::min<std::uint64_t>(w.plan.leaf_cells, long_tuning::leaf_cells_shared);
        w.plan.leaf_band = std::min(w.plan.leaf_band, long_tuning::leaf_band_shared);
    }
    w.leaf_batch = std::clamp<std::size_t>(share / 16 / std::max<std::uint64_t>(1, w.plan.leaf_cells), 1, most);
    // Tiles above the leaves: only a pair alone on the GPU has them
    // (align_many's pairs are cut straight into leaves).
    w.tile_batch = solo ? solo_tile_batch(options, w.plan) : 1;
    return w;
}

std::size_t solo_tile_batch(const LongEngineOptions& options, const CheckpointPlan& plan) {
    return options.tile_batch > 0 ? static_cast<std::size_t>(options.tile_batch)
                                  : long_tuning::tile_batch_per_fan_out * static_cast<std::size_t>(plan.fan_out);
}

std::size_t others_bytes(std::size_t bases, std::size_t ring_budget, std::size_t leaf_batch,
                         std::uint64_t leaf_cells) {
    return rounded(bases) + ring_budget + leaf_batch * leaf_cells + (8u << 20);
}

std::size_t floor_bytes(std::size_t bases) { return rounded((bases + 2) * sizeof(BoundaryCell)) * 2; }

std::size_t tile_batch_bytes(std::size_t m, std::size_t n, const CheckpointPlan& plan, std::size_t tile_batch) {
    const double side = std::sqrt(static_cast<double>(plan.leaf_cells));
    auto direct = [&](double r, double c) { return 8.0 * (r / side * c + c / side * r); };
    if (tile_batch <= 1 || direct(static_cast<double>(m), static_cast<double>(n)) <= static_cast<double>(plan.direct_leaf_bytes))
        return 0;
    const double tr = static_cast<double>(m) / plan.fan_out, tc = static_cast<double>(n) / plan.fan_out;
    const double d = direct(tr, tc);
    const double per = d <= static_cast<double>(plan.direct_leaf_bytes) ? d : 8.0 * plan.fan_out * (tr + tc);
    return static_cast<std::size_t>(per * 1.05 + alloc_granule) * tile_batch;
}

void plan_solo_pair(const LongEngineOptions& options, std::size_t m, std::size_t n, CheckpointPlan& plan,
                    std::size_t& tile_batch) {
    plan.fan_out = long_tuning::solo_fan_out(static_cast<std::int64_t>(m), static_cast<std::int64_t>(n),
                                             options.plan.fan_out);
    plan.leaf_cells = options.plan.leaf_cells;
    plan.leaf_band = options.plan.leaf_band;
    tile_batch = solo_tile_batch(options, plan);
    if (tile_batch_bytes(m, n, plan, tile_batch) > 0) {
        plan.leaf_cells = std::min(plan.leaf_cells, long_tuning::leaf_cells_tiled);
        plan.leaf_band = std::min(plan.leaf_band, long_tuning::leaf_band_tiled);
    }
}

PairBytes pair_bytes(const LongEngineOptions& options, const CheckpointPlan& plan, std::size_t tile_batch,
                     std::size_t leaf_batch, std::size_t ring_budget, bool solo, std::size_t limit, std::size_t m,
                     std::size_t n) {
    PairBytes b;
    b.rest = others_bytes(m + n, ring_budget, leaf_batch, plan.leaf_cells);
    b.floor = floor_bytes(m + n);
    const std::size_t tiles = tile_batch_bytes(m, n, plan, tile_batch);
    const std::size_t want =
        (m + n + 2) * sizeof(BoundaryCell) * (2 * static_cast<std::size_t>(plan.fan_out) + 4) + (64u << 20) + tiles;
    if (limit < b.rest + b.floor)
        throw std::length_error("pair of lengths " + std::to_string(m) + " x " + std::to_string(n) +
                                " needs at least " + std::to_string((b.rest + b.floor) >> 20) +
                                " MiB of GPU memory for the long engine; the cap is " +
                                std::to_string(limit >> 20) + " MiB");
    b.tile_ring_budget = ring_budget;
    std::size_t extra_ring = 0;
    if (tiles > 0 && options.ring_bytes == 0) {
        const std::size_t r = std::min(long_tuning::tile_ring_budget, limit / 8);
        if (r > ring_budget && limit >= b.rest + b.floor + (r - ring_budget)) {
            b.tile_ring_budget = r;
            extra_ring = r - ring_budget;
        }
    }
    b.arena = std::min(want, limit - b.rest - extra_ring);
    b.shrunk = b.arena < want;
    b.arena_first = b.arena;
    if (solo && tiles > 0) {
        const std::size_t first = rounded((m + n + 2) * sizeof(BoundaryCell)) +
                                  rounded(((static_cast<std::size_t>(plan.fan_out) - 1) * (m + n + 2) + 1) *
                                          sizeof(BoundaryCell)) +
                                  alloc_granule;
        if (first < b.arena) b.arena_first = first;
    }
    return b;
}

bool solo_pair_fits(const LongEngineOptions& options, std::size_t m, std::size_t n, std::size_t share) {
    WorkerSetup w = worker_setup(options, true, share);
    plan_solo_pair(options, m, n, w.plan, w.tile_batch);
    if (share < others_bytes(m + n, w.ring_budget, w.leaf_batch, w.plan.leaf_cells) + floor_bytes(m + n)) return false;
    return !pair_bytes(options, w.plan, w.tile_batch, w.leaf_batch, w.ring_budget, true, share, m, n).shrunk;
}

}  // namespace gpualign::gpu::long_plan
