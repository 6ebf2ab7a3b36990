// gpualign — the memory layout of one device batch, shared by the host
// dispatch (batch_engine.cpp, g++) and the kernels (kernels/*.cuh, nvcc).
// Plain C++ with fixed-width types only: no CUDA types, no SeqAn3.
#pragma once

#include <cstddef>
#include <cstdint>

#include "batch_tuning.hpp"

namespace gpualign::gpu::detail {

/// One pair of a batch, in device memory (the host fills a pinned copy).
/// Offsets are relative to the batch's buffers; lengths in residues.
/// Pairs are stored in batch order (sorted by length on the host); the
/// kernels write output slot `b` for task `b`.
struct PairTask {
    std::uint32_t query_offset;    ///< first query code in the batch's sequence buffer (bytes)
    std::uint32_t ref_offset;      ///< first ref code in the sequence buffer (bytes)
    std::uint32_t query_len;       ///< m >= 1
    std::uint32_t ref_len;         ///< n >= 1
    /// First byte of this pair's direction bits (8-byte aligned). In a
    /// batch of the inter-pair kernel's traceback variant
    /// (BatchParams::pair_dirs): the first byte of the direction region of
    /// the pair's warp (pairs 64w .. 64w+63 share it, pair_dir_region_bytes).
    std::uint64_t dir_offset;
    union {
        /// First boundary-row entry (16-byte units) for pairs of > 1 stripe (dp_kernel).
        std::uint32_t scratch_offset;
        /// BatchParams::pair_dirs batches: the row stride of the warp's
        /// direction region, the longest query among its 64 pairs.
        std::uint32_t dir_rows;
    };
    std::uint32_t cigar_offset;    ///< first CIGAR run slot (uint32 units); capacity query_len + ref_len
};
static_assert(sizeof(PairTask) == 32, "PairTask is copied as a flat array");

/// One entry of a stripe's boundary row (the batch's scratch buffer, one
/// entry per column of each pair longer than one stripe): H, Fcell and their
/// begin cells on the stripe's last row, which lane 0 of the next stripe
/// reads (kernels/dp_kernel.cuh). The kernels access it as an int4.
struct alignas(16) BoundaryCell {
    std::int32_t h, f;
    std::uint32_t h_begin, f_begin;
};
static_assert(sizeof(BoundaryCell) == 16, "read and written as one int4");

/// Structure-of-arrays results of one batch, `count` entries each, laid out
/// back to back in one int32 device buffer (and its pinned host mirror):
/// score, query_begin, query_end, ref_begin, ref_end, cigar_runs (runs of
/// the pair's CIGAR), cigar_start (first run of the pair in the batch's
/// compact CIGAR buffer: the exclusive prefix sum of cigar_runs).
/// Coordinates are 0-based half-open as in gpualign::AlignmentResult.
enum OutField : int {
    out_score = 0,
    out_query_begin,
    out_query_end,
    out_ref_begin,
    out_ref_end,
    out_cigar_runs,
    out_cigar_start,
    out_fields
};

/// Rows of the DP matrix covered by one warp-wide stripe: 32 lanes x R rows.
constexpr std::uint32_t stripe_rows(int rows_per_thread) noexcept { return 32u * static_cast<std::uint32_t>(rows_per_thread); }

/// Bytes of direction bits for an m x n pair (m, n >= 1) swept with R rows per
/// lane: every full stripe stores (n + 31) wavefront steps x 32 lanes words of
/// R/2 bytes (4 bits per cell), the last stripe (tc lanes in use)
/// (n + tc - 1) x tc words. See kernels/dp_kernel.cuh for the addressing.
/// R is a template argument so that the divisions compile to shifts: the host
/// calls this several times per pair.
template <int R>
constexpr std::uint64_t direction_bytes(std::uint64_t m, std::uint64_t n) noexcept {
    constexpr std::uint64_t sr = stripe_rows(R);
    const std::uint64_t stripes = (m + sr - 1) / sr;
    const std::uint64_t last_rows = m - (stripes - 1) * sr;
    const std::uint64_t tc = (last_rows + R - 1) / R;
    const std::uint64_t words = (stripes - 1) * (n + 31) * 32 + (n + tc - 1) * tc;
    return words * static_cast<std::uint64_t>(R / 2);
}

/// Pairs of one warp of the inter-pair kernel (32 threads, two pairs a
/// thread): the traceback variant's direction regions are laid out per such
/// group of consecutive batch slots.
constexpr std::uint32_t pair_warp_pairs = 64;

/// Bytes of the direction region of one warp of the inter-pair kernel's
/// traceback variant (kernels/pair_kernel.cuh, Dirs): 32 threads x 2 pairs
/// x 4 bits for each of `rows` query rows (the warp's longest query) and
/// each of the pair_cols columns of ceil(cols / pair_cols) strips (cols: the
/// warp's longest ref). The entry of thread lane L for strip s, row i
/// (1-based) and column group v (16 columns) is the uint4 at
/// ((s * rows + i - 1) * (pair_cols / 16) + v) * 32 + L; its word k holds
/// columns 16v + 4k .. 16v + 4k + 3 as nibbles, the even pair's in bits
/// 0-15 and the odd pair's in bits 16-31.
constexpr std::uint64_t pair_dir_region_bytes(std::uint64_t rows, std::uint64_t cols) noexcept {
    const std::uint64_t strips = (cols + pair_cols - 1) / pair_cols;
    return strips * rows * static_cast<std::uint64_t>(pair_cols) * 32u;
}

}  // namespace gpualign::gpu::detail
