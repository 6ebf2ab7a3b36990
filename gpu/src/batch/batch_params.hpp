// gpualign — the launch parameters of the batch kernels: filled by the host
// (batch_engine.cpp, g++) and passed to every kernel of a batch as they are
// (batch_dispatch.cu, nvcc). Plain C++ with fixed-width types only: no CUDA
// types, no SeqAn3.
#pragma once

#include <cstdint>

#include "batch_layout.hpp"

namespace gpualign::gpu::detail {

/// Everything one batch launch reads and writes. Every pointer is device
/// memory except host_cigar (pinned host memory, device-mapped).
struct BatchParams {
    const std::uint8_t* seqs;            ///< concatenated sequence codes (PairTask offsets)
    const PairTask* tasks;               ///< `count` tasks
    const std::int32_t* matrix;          ///< size x size substitution scores, row = query code
    std::int32_t* out;                   ///< out_fields x count int32 (SoA, see OutField)
    std::uint32_t* cigar;                ///< CIGAR run slots, task.cigar_offset.. (traceback only)
    std::uint32_t* host_cigar;           ///< compact CIGAR runs: pinned host memory mapped for the device (traceback only)
    std::uint64_t host_cigar_capacity;   ///< runs host_cigar holds
    std::uint8_t* dirs;                  ///< direction bits, task.dir_offset.. (traceback only)
    BoundaryCell* scratch;               ///< stripe boundary rows, task.scratch_offset.. (pairs longer than one stripe)
    std::uint32_t count;                 ///< pairs in the batch
    std::int32_t size;                   ///< alphabet size (5 or 15 for DNA, 27 for protein)
    std::int32_t gap_open;               ///< go >= 0
    std::int32_t gap_extend;             ///< ge >= 0
    std::uint32_t identical_codes;       ///< bit c set: equal codes c are written '=' (gpualign::identical_codes)
    // The inter-pair kernel (kernels/pair_kernel.cuh; score-only batches)
    std::uint32_t* status;               ///< count PairStatus values (null: every pair goes to dp_kernel)
    std::uint64_t* pair_boundary;        ///< (T, Ecell) of a strip's last column: max query length x ceil(count/2) entries
    std::int32_t max_score;              ///< the largest substitution score of the scheme
    /// Some s + gap_open + gap_extend < 0 (linear gaps with a mismatch above
    /// the gap cost): pair_kernel adds the profile per 16-bit half.
    std::int32_t negative_profile;
    /// pair_kernel's reverse pass computes only the cells that may lead to
    /// a begin candidate (the bound in kernels/pair_kernel.cuh); 0: every
    /// cell (BatchEngineOptions::pair_reverse_bound = false).
    std::int32_t reverse_bound;
    /// The forward pass's row bound for the reverse pass (kernels/
    /// pair_kernel.cuh; docs/scoring.md, "The reverse pass's forward bound"):
    /// word (strip x bound_blocks + block) x ceil(count/2) + thread holds, in
    /// each 16-bit half, the largest stored T of the strip's pair_cols
    /// columns in its pair_bound_rows rows (local: in the block's second
    /// row; the reverse pass adds O for the first). It lies in `scratch`,
    /// which dp_kernel uses only after the inter-pair passes. null: off.
    std::uint32_t* row_bound;
    std::int32_t bound_blocks;  ///< row blocks of row_bound: ceil(longest query / pair_bound_rows)
    /// With traceback: the batch runs the inter-pair kernel's traceback
    /// variant (pair_kernel<Mode, false, SignedProfile, true>, then
    /// pair_traceback_kernel) instead of dp_kernel. The host guarantees that
    /// every pair of such a batch fits 16 bits (pair_fits_16bit with the
    /// forward pass's bias) and lays out the direction regions per warp
    /// (PairTask::dir_offset, dir_rows).
    std::int32_t pair_dirs;
};

/// Where a pair of a score-only batch stands between the kernels of
/// launch_alignment: pair_kernel's forward pass takes pair_forward pairs,
/// its reverse pass pair_reverse pairs, and dp_kernel every pair not
/// pair_done.
enum PairStatus : std::uint32_t { pair_forward = 0, pair_reverse = 1, pair_done = 2, pair_fallback = 3 };

/// The stored value of H = 0 in pair_kernel's 16-bit halves for an m x n
/// DP (kernels/pair_kernel.cuh): O + ge (O = go + ge), the floor of every
/// Ecell, plus room below zero for what H can reach: nothing in the forward
/// local pass (`zero_floor`, H >= 0), otherwise 2go + (m+n)ge + 2O, more
/// than the all-gap path's -(2go + (m+n)ge) and the gap states below it.
constexpr std::int64_t pair_bias(bool zero_floor, std::int64_t go, std::int64_t ge, std::int64_t m,
                                 std::int64_t n) noexcept {
    const std::int64_t open = go + ge;
    return open + ge + (zero_floor ? 0 : 2 * go + (m + n) * ge + 2 * open);
}

/// Whether an m x n DP with bias `bias` (the stored value of H = 0) stays
/// within the 16-bit halves of pair_kernel: the largest H is at most
/// max(max_score, 0) * min(m, n), and a diagonal term adds at most
/// max_score + open to a stored T. Host and device use the same test.
constexpr bool pair_fits_16bit(std::int64_t bias, std::int64_t max_score, std::int64_t open, std::int64_t m,
                               std::int64_t n) noexcept {
    const std::int64_t top = (max_score > 0 ? max_score : 0) * (m < n ? m : n);
    return bias + top + (max_score > 0 ? max_score : 0) + open + 1 <= 65535;
}

}  // namespace gpualign::gpu::detail
