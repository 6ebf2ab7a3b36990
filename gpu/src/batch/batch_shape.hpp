// gpualign — the capacity of the batch engine's slots: how many bases,
// pairs and direction-bit bytes one stream's buffers hold, and how many
// device bytes that takes (host code, batch_engine.cpp). Plain C++: no CUDA
// types, no SeqAn3.
#pragma once

#include <cstddef>
#include <cstdint>

#include "batch_layout.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::detail {

/// Smallest per-stream budget the engine sizes buffers for (a few hundred
/// short pairs per batch); a gpu_memory_limit below streams x this is refused.
constexpr std::size_t min_slot_budget = std::size_t{64} << 10;
/// Device bytes per pair of batch capacity: task, SoA results, one boundary-row entry.
constexpr std::size_t bytes_per_pair = sizeof(PairTask) + detail::out_fields * sizeof(std::int32_t) + 16;

/// The capacity of one slot's buffers.
struct Shape {
    std::size_t bases = 0;    // query+ref bases per batch
    std::size_t pairs = 0;    // pairs per batch
    std::uint64_t dirs = 0;   // direction-bit bytes per batch (traceback only)
};

/// Bytes of the inter-pair kernel's strip boundaries per query+ref base of
/// batch capacity (both variants): a thread's entry is 8 bytes per query row
/// of the batch's longest query, for two pairs.
constexpr std::size_t pair_boundary_per_base = 8;

/// What a slot holds beyond the sequences, tasks, results and boundary rows
/// that every slot has: CIGAR runs and direction bits (traceback), the
/// inter-pair kernel's pair status and strip boundaries (score-only with the
/// inter-pair kernel), both CIGAR buffers and strip boundaries (traceback
/// with the inter-pair kernel's traceback variant), or nothing (score-only
/// on the warp kernel alone).
enum class SlotKind { score, inter_pair, traceback, pair_traceback };

/// Device bytes of one slot of shape `s`, as the engine allocates them (each
/// allocation rounded up to alloc_granule, device_memory.hpp).
std::size_t slot_device_bytes(const Shape& s, SlotKind kind);

/// Whether the inter-pair kernel can take pairs of `s` (pair_kernel.cuh):
/// at most pair_max_letters - 1 = 15 codes (the per-thread profile in
/// shared memory) and -gap_extend <= s + gap_open + gap_extend <= 127 for
/// every code pair (a signed profile byte, added per 16-bit half to T >=
/// gap_extend without going below 0).
bool pair_kernel_scheme(const ScoringScheme& s);

/// The largest shape whose slot_device_bytes fit `budget`: a quarter of the
/// budget at most for per-pair buffers, and with traceback an eighth of the
/// rest for per-base buffers (sequences, boundary rows, CIGAR runs: 21 bytes
/// per base, 29 with the inter-pair kernel's strip boundaries) and the
/// remainder for direction bits; score-only, the rest for
/// per-base buffers (17 bytes a base, 29 with the inter-pair kernel's strip
/// boundaries and status). All zero when the budget is under min_slot_budget.
Shape shape_for_budget(std::size_t budget, std::size_t max_bases, SlotKind kind);

}  // namespace gpualign::gpu::detail
