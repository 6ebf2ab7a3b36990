// gpualign — the 8-bit striped score-only local kernel's internal interface
// (Farrar 2007, with Farrar's and SSW's biased unsigned 8-bit lanes: Zhao
// et al. 2013, "SSW library", PLoS ONE 8(12):e82138). One pair at a time,
// the query striped over the 8-bit lanes of one vector; local mode,
// score-only: the score and the canonical end cell and, on request, H of
// every cell (from which begin_walk.hpp finds the canonical begin cell).
// Its scalar twin is align_pair_full_matrix's score-only local pass
// (lib/src/align/reference/reference_aligner.cpp): every cell gets its H exactly, while no
// value saturates. The recurrence, layout and lazy-F loop are in
// striped_score8_kernel.cpp's header comment; the 16-bit kernel with
// direction bits is striped_kernel.hpp. The host side is
// simd_aligner.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "align/simd/striped_kernel.hpp"

namespace gpualign::cpu {

/// A scheme as the 8-bit kernel reads it, prepared once per scheme by
/// make_score8_scheme.
struct Score8Scheme {
    /// False when the scheme does not fit the 8-bit kernel (alphabet above
    /// 31 codes, max + bias above 200, go + ge or ge above 255): the caller
    /// takes the 16-bit kernels.
    bool usable = false;
    int alphabet_size = 0;
    /// Added to every substitution score so that it is >= 0: max(1, -the
    /// smallest score); padding rows score -bias.
    std::uint8_t bias = 0;
    std::uint8_t open = 0;    ///< go + ge
    std::uint8_t extend = 0;  ///< ge
    std::uint8_t settle = 0;  ///< max(go, 1), the lazy-F loop's test
    /// column[a][x] = s(x, a) + bias (query code x, ref code a);
    /// column[a][alphabet_size] = 0 (padding); the rest 0.
    std::uint8_t column[32][32] = {};
};

/// The 8-bit form of `s` (local mode; the mode field is not read).
Score8Scheme make_score8_scheme(const KernelScheme& s);

/// Shape of the 8-bit striped layout of a query of length m: `lanes`
/// 8-bit lanes (score8_lanes()), seg_len = ceil(m / lanes) vectors per
/// column; query row i (1-based) lives in segment (i-1) % seg_len, lane
/// (i-1) / seg_len.
struct Score8Shape {
    std::size_t lanes = 0;
    std::size_t seg_len = 0;
    /// Bytes of one column of H: seg_len * lanes.
    constexpr std::size_t column_bytes() const noexcept { return seg_len * lanes; }
};

/// 8-bit lanes of the dispatched target's kernel (at most 32; 16 on
/// SSE4/SSSE3/NEON); 0 on the one-lane fallback target.
std::size_t score8_lanes();

/// The layout of a query of length m (>= 1) on the dispatched target
/// (score8_lanes() must be > 0).
inline Score8Shape score8_shape(std::size_t m) {
    const std::size_t l = score8_lanes();
    return {l, (m + l - 1) / l};
}

/// What align_striped_score8 returns. Coordinates as docs/scoring.md:
/// the canonical local end cell (query_end, ref_end), the first maximum in
/// row-major order (rows = query); 0, 0 when the score is 0.
struct Score8Result {
    std::int32_t score = 0;
    std::int32_t query_end = 0;
    std::int32_t ref_end = 0;
    /// The best score reached 255 - bias, so that some cell may have
    /// saturated: every other field (and h_out) is then meaningless and the
    /// pair must be scored in 16 or 32 bits. Never silent.
    bool overflow = false;
};

/// Scores one pair locally with the 8-bit striped kernel of the dispatched
/// target: the best score and the canonical end cell.
/// @param p      codes in host memory (borrowed), both sides non-empty, at
///               most 32,000 long, every code < s.alphabet_size.
/// @param s      make_score8_scheme's result, `usable`.
/// @param h_out  null, or score8_shape(query_len).column_bytes() * ref_len
///               bytes (owned by the caller) that receive H of every cell:
///               H(i, j) at [(j-1) * column_bytes + ((i-1) % seg_len) *
///               lanes + (i-1) / seg_len] (padding rows hold values below
///               the best, never read); exact unless overflow.
/// @throws std::bad_alloc; std::logic_error on the one-lane target.
Score8Result align_striped_score8(const StripedPair& p, const Score8Scheme& s, std::uint8_t* h_out);

}  // namespace gpualign::cpu
