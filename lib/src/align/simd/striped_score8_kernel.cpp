// gpualign — the 8-bit striped score-only local kernel (Farrar 2007,
// "Striped Smith-Waterman speeds database searches six times over other
// SIMD implementations", Bioinformatics 23(2):156-161; biased unsigned
// 8-bit lanes as in Farrar's code and SSW, Zhao et al. 2013, PLoS ONE
// 8(12):e82138), with Google Highway: compiled for every x86/ARM target and
// dispatched at run time exactly as striped_kernel.cpp (HWY_DYNAMIC_DISPATCH;
// force_target() restricts both). Interface: striped_score8_kernel.hpp.
// Scalar twin: the local score-only pass of align_pair_full_matrix
// (lib/src/align/reference/reference_aligner.cpp); every cell gets its exact H while no
// value saturates, and a possible saturation is reported (overflow), never
// hidden.
//
// Recurrence (docs/scoring.md, local mode), O = go + ge, E = ge, values
// clamped at 0 (exact for H: H = max(..., 0), and max(x, 0) commutes with
// the subtractions and maxima below, so the clamped Ecell and Fcell give
// the same H):
//   Ecell(i,j) = max(Ecell(i,j-1) - E, H(i,j-1) - O)
//   Fcell(i,j) = max(Fcell(i-1,j) - E, H(i-1,j) - O)
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell, 0)
// In unsigned 8-bit lanes: H(i-1,j-1) + (s + bias) with a saturating add,
// then - bias with a saturating subtraction (the 0 floor), bias =
// max(1, -min s). A sum past 255 saturates and makes that H >= 255 - bias,
// so the best score reaching 255 - bias flags the pair (overflow) and
// below it every value is exact.
//
// Layout (as striped_kernel.cpp, with 8-bit lanes): L lanes, seg_len S =
// ceil(m / L); query row i (1-based) in segment (i-1) % S, lane (i-1) / S.
// Padding rows m+1 .. L*S score -bias (profile byte 0): they follow every
// real row, never feed one, and stay below the best so far (a padding H
// comes from a real H of an earlier column minus bias >= 1, or minus a
// gap), so they never win the end cell. One query profile per pair, built
// with byte table lookups (the matrix column of each ref letter, <= 32
// codes).
//
// Per column j: the main pass over the segments (Ecell from the previous
// column's final H; H; Fcell down the segments within each lane), then
// Farrar's lazy-F loop: the F leaving each lane's last segment shifted up
// one lane (lane 0 takes 0) is carried down the segments, raising H, losing
// E per segment and shifting again at the end of a column, until every lane
// is settled: a carry x <= max(H - max(go, 1), 0) changes no H and is
// covered by the first-pass Fcell of the next segments (x - ge <= H - O);
// striped_kernel.cpp's header comment has the argument. Ecell of the next
// column reads the final H, so it is exact.
// End cell, per column, from a running vector maximum of the column's H:
// when some lane reaches the best so far, the column maximum and its
// smallest real row (lowest lane holding it, then its smallest segment)
// replace the best cell when higher or, at equal score, when the row is
// smaller (the first maximum in row-major order).
// With h_out, every column's final H is written there instead of to a
// two-column ring (the begin walk, begin_walk.cpp, reads it back).
//
// Vectors of at most 32 lanes (256 bits), even on AVX-512: measured faster
// on protein512_sw (an AVX-512 Zen 4 machine: 0.136 s against 0.156 s for
// this pass): 512-bit operations give no more bytes per cycle there, and
// the shorter segments of 64 lanes send F across lanes more often, so the
// lazy-F loop runs longer.
//
// Cost per column: the main pass (4 loads, 2 stores, ~11 operations per
// segment), one shift and test for the lazy-F loop (it runs on where F
// crosses a lane boundary above the settle test), one compare for the end
// cell.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "align/simd/striped_score8_kernel.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/aligned_allocator.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "align/simd/striped_score8_kernel.hpp"
#include "align/simd/striped_end_cell.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpualign::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
std::size_t Score8Lanes() { return 0; }
Score8Result AlignScore8(const StripedPair&, const Score8Scheme&, std::uint8_t*) {
    throw std::logic_error("8-bit striped kernel called on the scalar target");
}
#else

using D8 = hn::CappedTag<std::uint8_t, 32>;
using V8 = hn::Vec<D8>;

std::size_t Score8Lanes() { return hn::Lanes(D8()); }

// v shifted up one lane (lane l takes lane l-1), lane 0 takes 0.
HWY_INLINE V8 ShiftUp1(D8 d, V8 v, std::uint8_t* HWY_RESTRICT tmp) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
    if constexpr (hn::MaxLanes(D8()) == 32) {
        (void)d;
        (void)tmp;
        const __m256i lower = _mm256_permute2x128_si256(v.raw, v.raw, 0x08);  // [0, low half]
        return V8{_mm256_alignr_epi8(v.raw, lower, 15)};
    }
#endif
    if constexpr (hn::MaxLanes(D8()) == 16) {
        if (hn::Lanes(d) == 16) return hn::ShiftLeftBytes<1>(d, v);
    }
    hn::StoreU(v, d, tmp + 1);
    tmp[0] = 0;
    return hn::LoadU(d, tmp);
}

/// One function body on purpose: the pass's vectors (H, E, F, the bests and
/// their cells) stay in registers across the whole loop nest, which helper
/// calls would have to pass through memory; the recurrence is in the file's
/// header.
template <bool kStore>
HWY_NOINLINE Score8Result Run(const StripedPair& p, const Score8Scheme& ks, std::uint8_t* h_out) {
    const D8 d;
    const std::size_t L = hn::Lanes(d);
    const std::size_t m = p.query_len, n = p.ref_len;
    const std::size_t S = (m + L - 1) / L;  // seg_len
    const std::size_t size = static_cast<std::size_t>(ks.alphabet_size);

    // Buffers: the profile, H columns (two; one, the zero column H(i, 0),
    // when every column goes to h_out), Ecell, the striped query codes, a
    // shift scratch.
    auto prof = hwy::AllocateAligned<std::uint8_t>(size * S * L);
    auto h_buf = hwy::AllocateAligned<std::uint8_t>((kStore ? 1 : 2) * S * L);
    auto e_buf = hwy::AllocateAligned<std::uint8_t>(S * L);
    auto codes = hwy::AllocateAligned<std::uint8_t>(S * L);
    auto tmp = hwy::AllocateAligned<std::uint8_t>(2 * L + 2);
    if (!prof || !h_buf || !e_buf || !codes || !tmp) throw std::bad_alloc();

    // Profile: profile[a][k] = column[a][code of (k, lane)], padding code
    // `size` (byte 0), by two 16-entry byte lookups.
    for (std::size_t k = 0; k < S; ++k)
        for (std::size_t l = 0; l < L; ++l) {
            const std::size_t i = l * S + k;  // 0-based row
            codes[k * L + l] = static_cast<std::uint8_t>(i < m ? p.query[i] : size);
        }
    const V8 v16 = hn::Set(d, 16);
    for (std::size_t a = 0; a < size; ++a) {
        const V8 lo = hn::LoadDup128(d, ks.column[a]);
        const V8 hi = hn::LoadDup128(d, ks.column[a] + 16);
        std::uint8_t* out = prof.get() + a * S * L;
        for (std::size_t k = 0; k < S; ++k) {
            const V8 c = hn::Load(d, codes.get() + k * L);
            const auto is_lo = hn::Lt(c, v16);
            const V8 idx = hn::IfThenElse(is_lo, c, hn::Sub(c, v16));
            hn::Store(hn::IfThenElse(is_lo, hn::TableLookupBytes(lo, idx), hn::TableLookupBytes(hi, idx)), d,
                      out + k * L);
        }
    }

    const V8 v_bias = hn::Set(d, ks.bias), v_open = hn::Set(d, ks.open), v_ext = hn::Set(d, ks.extend);
    const V8 v_settle = hn::Set(d, ks.settle);
    const V8 v_zero = hn::Zero(d);
    std::uint8_t* hp = h_buf.get();                            // H of column j-1
    std::uint8_t* hc = kStore ? h_out : h_buf.get() + S * L;  // H of column j
    std::uint8_t* ecol = e_buf.get();
    std::fill(hp, hp + S * L, std::uint8_t{0});      // H(i, 0) = 0
    std::fill(ecol, ecol + S * L, std::uint8_t{0});  // Ecell(i, 0) = -inf, clamped

    const std::int32_t limit = 255 - ks.bias;  // a best reaching it may have saturated
    std::int32_t best = 0, best_i = 0, best_j = 0;
    HWY_ALIGN std::uint8_t lane_max[hn::MaxLanes(d)];

    for (std::size_t j = 1; j <= n; ++j) {
        const std::uint8_t* pr = prof.get() + static_cast<std::size_t>(p.ref[j - 1]) * S * L;
        // Main pass.
        V8 diag = ShiftUp1(d, hn::Load(d, hp + (S - 1) * L), tmp.get());  // lane 0: H(0, j-1) = 0
        V8 f = v_zero;  // F into row 1: H(0, j) - O, clamped
        V8 vmax = v_zero;
        for (std::size_t k = 0; k < S; ++k) {
            const V8 h_left = hn::Load(d, hp + k * L);
            const V8 e = hn::Max(hn::SaturatedSub(hn::Load(d, ecol + k * L), v_ext), hn::SaturatedSub(h_left, v_open));
            hn::Store(e, d, ecol + k * L);
            V8 h = hn::SaturatedSub(hn::SaturatedAdd(diag, hn::Load(d, pr + k * L)), v_bias);
            h = hn::Max(h, hn::Max(e, f));
            hn::Store(h, d, hc + k * L);
            vmax = hn::Max(vmax, h);
            f = hn::Max(hn::SaturatedSub(f, v_ext), hn::SaturatedSub(h, v_open));
            diag = h_left;
        }
        // Lazy-F loop.
        V8 x = ShiftUp1(d, f, tmp.get());
        for (std::size_t k = 0;;) {
            const V8 h_old = hn::Load(d, hc + k * L);
            if (hn::AllFalse(d, hn::Gt(x, hn::SaturatedSub(h_old, v_settle)))) break;  // every lane settled
            const V8 h = hn::Max(h_old, x);
            hn::Store(h, d, hc + k * L);
            vmax = hn::Max(vmax, h);
            x = hn::SaturatedSub(x, v_ext);
            if (++k == S) {
                k = 0;
                x = ShiftUp1(d, x, tmp.get());
            }
        }
        // End cell.
        const std::uint8_t at_least = static_cast<std::uint8_t>(std::max<std::int32_t>(best, 1));
        if (!hn::AllFalse(d, hn::Gt(vmax, hn::Set(d, static_cast<std::uint8_t>(at_least - 1))))) {
            hn::Store(vmax, d, lane_max);
            std::uint8_t cb = 0;
            for (std::size_t l = 0; l < L; ++l) cb = std::max(cb, lane_max[l]);
            std::size_t lane = 0;
            while (lane_max[lane] != cb) ++lane;  // lowest lane with the maximum: smallest rows
            offer_column_max(hc, S, L, lane, m, cb, j, best, best_i, best_j);
        }
        if constexpr (kStore) {
            hp = hc;
            hc += S * L;
        } else {
            std::swap(hp, hc);
        }
    }

    Score8Result r;
    r.overflow = best >= limit;
    if (best > 0) {
        r.score = best;
        r.query_end = best_i;
        r.ref_end = best_j;
    }
    return r;
}

Score8Result AlignScore8(const StripedPair& p, const Score8Scheme& s, std::uint8_t* h_out) {
    return h_out ? Run<true>(p, s, h_out) : Run<false>(p, s, nullptr);
}

#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace gpualign::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpualign::cpu {

HWY_EXPORT(AlignScore8);
HWY_EXPORT(Score8Lanes);

std::size_t score8_lanes() { return HWY_DYNAMIC_DISPATCH(Score8Lanes)(); }

Score8Scheme make_score8_scheme(const KernelScheme& s) {
    Score8Scheme r;
    const int size = s.alphabet_size;
    if (size < 1 || size > 31 || s.matrix == nullptr) return r;
    std::int32_t lo = s.matrix[0], hi = s.matrix[0];
    for (int e = 0; e < size * size; ++e) {
        lo = std::min(lo, s.matrix[e]);
        hi = std::max(hi, s.matrix[e]);
    }
    const std::int32_t bias = std::max<std::int32_t>(1, -lo);
    const std::int32_t open = static_cast<std::int32_t>(s.gap_open) + s.gap_extend;
    // A usable scheme leaves room for scores: hi + bias well below 255.
    if (hi + bias > 200 || open > 255 || s.gap_extend > 255) return r;
    r.usable = true;
    r.alphabet_size = size;
    r.bias = static_cast<std::uint8_t>(bias);
    r.open = static_cast<std::uint8_t>(open);
    r.extend = static_cast<std::uint8_t>(s.gap_extend);
    r.settle = static_cast<std::uint8_t>(std::min<std::int32_t>(std::max<std::int32_t>(s.gap_open, 1), 255));
    for (int a = 0; a < size; ++a)
        for (int x = 0; x < size; ++x)
            r.column[a][x] = static_cast<std::uint8_t>(s.matrix[static_cast<std::size_t>(x) * size + a] + bias);
    return r;
}

Score8Result align_striped_score8(const StripedPair& p, const Score8Scheme& s, std::uint8_t* h_out) {
    return HWY_DYNAMIC_DISPATCH(AlignScore8)(p, s, h_out);
}

}  // namespace gpualign::cpu
#endif  // HWY_ONCE
