// gpualign — the long engine's launch geometry (launch_geometry.hpp).
#include "launch_geometry.hpp"

#include <algorithm>

#include "long_tuning.hpp"

namespace gpualign::gpu::long_geometry {

std::size_t next_pow2(std::size_t v) {
    std::size_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

std::size_t whole_row_ring_cols(std::size_t cols) { return next_pow2(cols + 64); }

int rows_per_lane(std::int64_t rows, bool want_dirs, int forced, int sms, bool local_without_spare) {
    const int R = forced ? forced : long_tuning::rows_per_lane(rows, sms);
    return R == 32 && (want_dirs || local_without_spare) ? 16 : R;
}

int launch_blocks(int resident, int stripes, int warps_per_block, int cap) {
    int blocks = std::min(resident, (stripes + warps_per_block - 1) / warps_per_block);
    if (cap > 0) blocks = std::min(blocks, cap);
    return blocks;
}

int whole_row_slots(std::size_t ring_budget, int ring_cols, int stripes) {
    const std::size_t fit = ring_budget / ring_slot_bytes(static_cast<std::size_t>(ring_cols));
    return static_cast<int>(std::clamp<std::size_t>(fit, std::min(2, stripes), static_cast<std::size_t>(stripes)));
}

int tile_batch_slots(std::size_t ring_budget, int ring_cols, std::size_t warps, int stripes) {
    const std::size_t fit = ring_budget / ring_slot_bytes(static_cast<std::size_t>(ring_cols));
    return static_cast<int>(
        std::clamp<std::size_t>(std::min(fit, warps), std::min(2, stripes), static_cast<std::size_t>(stripes)));
}

RegionGeometry region_geometry(int rows, int cols, int R, int resident, int warps_per_block, int cap,
                               std::size_t ring_budget, bool solo) {
    RegionGeometry g;
    g.stripes = (rows + 32 * R - 1) / (32 * R);
    g.blocks = launch_blocks(resident, g.stripes, warps_per_block, cap);
    g.ring_cols = whole_row_ring_cols(static_cast<std::size_t>(cols));
    g.slots = whole_row_slots(ring_budget, static_cast<int>(g.ring_cols), g.stripes);
    if (solo && (g.stripes > 1 && static_cast<std::size_t>(g.slots) <
                                      std::min<std::size_t>(static_cast<std::size_t>(g.stripes),
                                                            2u * g.blocks * warps_per_block))) {
        while (true) {
            const std::size_t warps = static_cast<std::size_t>(g.blocks) * warps_per_block;
            g.ring_cols = std::min(whole_row_ring_cols(static_cast<std::size_t>(cols)),
                                   next_pow2(std::max<std::size_t>(long_tuning::min_ring_cols, cols / warps + 128)));
            if (warps * 2 * ring_slot_bytes(g.ring_cols) <= ring_budget || g.blocks == 1) break;
            g.blocks = std::max(1, g.blocks / 2);
        }
        g.slots = 2 * g.blocks * warps_per_block;
        g.flow = g.ring_cols < static_cast<std::size_t>(cols) + 64;
    }
    g.warps = static_cast<std::size_t>(g.blocks) * warps_per_block;
    return g;
}

std::size_t walk_bytes(std::size_t steps, bool solo, std::size_t window_steps) {
    if (!solo) return long_tuning::walk_steps_shared;
    return std::max(std::min<std::size_t>(steps + window_steps + 1, std::size_t{64} << 20), std::size_t{1} << 16);
}

}  // namespace gpualign::gpu::long_geometry
