// gpualign — the canonical begin cell of a local alignment from H alone
// (issue 13: score-only local output without direction bits). The 8-bit
// score pass (striped_score8_kernel.hpp) keeps H of every cell; this walk
// goes back from the end cell with the tie rule of docs/scoring.md,
// recomputing Ecell and Fcell from H where it needs them. Scalar twin: the
// reference's traceback (traceback_walk over align_pair_full_matrix's
// direction bytes, lib/src/align/reference/reference_aligner.cpp), whose begin it returns
// exactly; the argument is in begin_walk.cpp's header comment. Host side:
// simd_aligner.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "gpualign/model/scoring.hpp"

namespace gpualign::cpu {

/// H of every cell of a pair in the 8-bit striped layout of
/// striped_score8_kernel.hpp: H(i, j), 1 <= i <= query_len, 1 <= j <=
/// ref_len, at h[(j-1) * seg_len * lanes + ((i-1) % seg_len) * lanes +
/// (i-1) / seg_len]; borrowed.
struct StripedH8 {
    const std::uint8_t* h = nullptr;
    std::size_t lanes = 0;
    std::size_t seg_len = 0;
};

/// The begin cell (0-based half-open, AlignmentResult's query_begin,
/// ref_begin) of the local alignment ending at cell (query_end, ref_end).
struct LocalBegin {
    std::int32_t query_begin = 0;
    std::int32_t ref_begin = 0;
};

/// The begin cell that the canonical traceback of docs/scoring.md reports
/// for the local alignment of `query` x `ref` ending at cell (query_end,
/// ref_end), from the pair's exact local H matrix `h`.
///
/// Preconditions (the caller's): `h` holds the exact local H of every cell
/// (an 8-bit pass that did not overflow); `score` = H(query_end, ref_end)
/// >= 1 is the best local score (it bounds the gap scans), 1 <= query_end
/// <= query.size(), 1 <= ref_end <= ref.size(). `s` is the scheme of the
/// pass (substitution scores, go, ge).
/// Cost: one step per alignment column, and in state H off the diagonal a
/// scan back along the row (and column) of at most (score - go - ge - v) /
/// ge + 1 cells for a cell of value v; no allocation.
/// @throws std::logic_error where H contradicts the recurrence (violated
///         preconditions), rather than return a wrong begin.
LocalBegin local_begin_from_h(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                              const ScoringScheme& s, const StripedH8& h, std::int32_t score,
                              std::int32_t query_end, std::int32_t ref_end);

}  // namespace gpualign::cpu
