// gpualign — slot shapes of the batch engine (batch_shape.hpp).
#include "batch_shape.hpp"

#include <algorithm>

#include "../common/device_memory.hpp"
#include "batch_tuning.hpp"

namespace gpualign::gpu::detail {

/// Device bytes of one slot of shape `s`, as allocated by alloc_buffers.
std::size_t slot_device_bytes(const Shape& s, SlotKind kind) {
    std::size_t b = rounded(s.bases) + rounded(s.pairs * sizeof(PairTask)) +
                    rounded(s.pairs * detail::out_fields * sizeof(std::int32_t)) + rounded((s.bases + s.pairs) * 16);
    if (kind == SlotKind::traceback || kind == SlotKind::pair_traceback)
        b += rounded(s.bases * sizeof(std::uint32_t)) + rounded(static_cast<std::size_t>(s.dirs));
    if (kind == SlotKind::pair_traceback)
        b += rounded(s.bases * pair_boundary_per_base);
    else if (kind == SlotKind::inter_pair)
        b += rounded(s.bases * pair_boundary_per_base) + rounded(s.pairs * sizeof(std::uint32_t));
    return b;
}

/// Whether the inter-pair kernel can take pairs of `s` (pair_kernel.cuh):
/// at most pair_max_letters - 1 = 15 codes (the per-thread profile in
/// shared memory) and -gap_extend <= s + gap_open + gap_extend <= 127 for
/// every code pair (a signed profile byte, added per 16-bit half to T >=
/// gap_extend without going below 0), and gap_open + gap_extend <= 127 (the
/// pad letter's byte, s = 0).
bool pair_kernel_scheme(const ScoringScheme& s) {
    if (s.size + 1 > detail::pair_max_letters) return false;
    const std::int64_t open = static_cast<std::int64_t>(s.gap_open) + s.gap_extend;
    const std::int64_t lowest = std::max<std::int64_t>(-static_cast<std::int64_t>(s.gap_extend), -128);
    if (open > 127) return false;  // the pad letter's byte (s = 0)
    for (const std::int32_t v : s.matrix)
        if (v + open < lowest || v + open > 127) return false;
    return true;
}

/// The largest shape whose slot_device_bytes fit `budget`: a quarter of the
/// budget at most for per-pair buffers, and with traceback an eighth of the
/// rest for per-base buffers (sequences, boundary rows, CIGAR runs: 21 bytes
/// per base, 29 with the inter-pair kernel's strip boundaries) and the
/// remainder for direction bits; score-only, the rest for
/// per-base buffers (17 bytes a base, 29 with the inter-pair kernel's strip
/// boundaries and status). All zero when the budget is under min_slot_budget.
Shape shape_for_budget(std::size_t budget, std::size_t max_bases, SlotKind kind) {
    Shape s;
    if (budget < min_slot_budget) return s;
    s.pairs = std::min({detail::max_batch_pairs, max_bases, budget / 4 / bytes_per_pair});
    const std::size_t allocations = kind == SlotKind::pair_traceback ? 7 : 6;  // each rounded up to a granule
    const std::size_t rest = budget - allocations * detail::alloc_granule - s.pairs * bytes_per_pair;
    if (kind == SlotKind::traceback || kind == SlotKind::pair_traceback) {
        const std::size_t per_base = kind == SlotKind::traceback ? 21 : 21 + pair_boundary_per_base;
        s.bases = std::min(max_bases, rest / 8 / per_base);
        s.dirs = std::min<std::uint64_t>(detail::traceback_bytes_cap(max_bases), rest - s.bases * per_base) &
                 ~std::uint64_t{7};
    } else if (kind == SlotKind::inter_pair) {
        s.bases = std::min(max_bases, rest / (17 + pair_boundary_per_base + 4));
    } else {
        s.bases = std::min(max_bases, rest / 17);
    }
    return s;
}

}  // namespace gpualign::gpu::detail
