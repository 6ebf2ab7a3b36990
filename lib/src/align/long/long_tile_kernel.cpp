// gpualign — the long-pair SIMD tile kernel (Google Highway, compiled for every
// x86/ARM target and dispatched at run time, as inter_pair_kernel.cpp; the
// same force_target hook restricts it). Interface and contract:
// long_tile_kernel.hpp. Scalar twin: CpuBackend::tile_rows
// (lib/src/align/long/long_aligner.cpp), which computes the same tile row by row.
//
// Recurrence (Gotoh 1982; docs/scoring.md), O = go + ge, E = ge, tile-local
// cells (r, c) with row 0 and column 0 the tile's boundaries:
//   Ecell(r,c) = max(Ecell(r,c-1) - E, H(r,c-1) - O)      opening wins ties
//   Fcell(r,c) = max(Fcell(r-1,c) - E, H(r-1,c) - O)      opening wins ties
//   H(r,c)     = max(H(r-1,c-1) + s(q_r, r_c), Ecell, Fcell, floor)
//                floor 0 (local) or neg_inf; preference zero > diagonal > E > F
// in 32-bit lanes (long pairs exceed 16 bits; the arithmetic wraps exactly as
// the scalar int32 code, and fits_int32 keeps it from wrapping at all).
//
// Layout: the tile is swept by anti-diagonals d = r + c = 2 .. rows + cols;
// the cells of one diagonal are independent, one per lane, indexed by their
// column c (row r = d - c). Each diagonal reads two earlier ones, held in
// arrays indexed by column:
//   H(r, c-1), Ecell(r, c-1)  diagonal d-1, column c-1
//   H(r-1, c), Fcell(r-1, c)  diagonal d-1, column c
//   H(r-1, c-1)               diagonal d-2, column c-1
// so three H arrays and two E and F arrays rotate. Before diagonal d, the
// boundary cells of diagonal d-1 are put in its arrays: (d-1, 0) from `left`
// at column 0, (0, d-1) from `top` at column d-1. The query is stored
// reversed (qrev[k] = q(rows - k) * size), so the letters of one diagonal
// are contiguous in c too. A diagonal's last vector runs past its cells;
// those lanes compute garbage into columns that are re-filled before anyone
// reads them, and are masked out of the best cell.
// Outputs per diagonal: its cell on row `rows` (top[c]) and on column `cols`
// (left[r]), written after `top`/`left` at that index was last read; the
// direction bytes, scattered to their row-major places; local: per column
// the first (smallest r) maximum, reduced at the end of the tile to the
// canonical best cell (max H, then smallest r, then smallest c).
// Score lookup: dna5 (25 scores in [-128, 127]) with two in-register byte
// shuffles; any other alphabet (IUPAC, protein) with 32-bit gathers.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "align/long/long_tile_kernel.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "align/traceback_walk.hpp"
#include "align/long/long_tile_kernel.hpp"

#ifndef GPUALIGN_LONG_TILE_KERNEL_ONCE
#define GPUALIGN_LONG_TILE_KERNEL_ONCE
namespace gpualign::cpu::detail {
/// Padding of every scratch array past its last column: the widest vector
/// (2048-bit SVE: 64 lanes of 32 bits) may run that far past a diagonal.
inline constexpr std::size_t kLongTilePad = 64;
}  // namespace gpualign::cpu::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace gpualign::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
// The one-lane fallback target: no SIMD tile kernel; the caller runs tile_rows.
bool Available() { return false; }
void ComputeTile(const LongTile&, const LongTileScheme&, std::int32_t*, LongTileBest*) {
    throw std::logic_error("long-pair tile kernel called on the scalar target");
}
#else
bool Available() { return true; }

/// One function body on purpose: the pass's vectors (H, E, F, the bests and
/// their cells) stay in registers across the whole loop nest, which helper
/// calls would have to pass through memory; the recurrence is in the file's
/// header.
template <bool kLocal, bool kDirs, bool kByteTable>
HWY_NOINLINE void Tile(const LongTile& t, const LongTileScheme& s, std::int32_t* scratch, LongTileBest& best) {
    const hn::ScalableTag<std::int32_t> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const hn::Repartition<std::uint8_t, decltype(d)> d8;
    using V = hn::Vec<decltype(d)>;
    constexpr std::size_t kPad = detail::kLongTilePad;
    const std::int64_t L = static_cast<std::int64_t>(hn::Lanes(d));
    const std::int64_t R = t.rows, C = t.cols;
    const std::size_t W = static_cast<std::size_t>(C) + 1 + kPad;

    std::int32_t* H[3] = {scratch, scratch + W, scratch + 2 * W};
    std::int32_t* E[2] = {scratch + 3 * W, scratch + 4 * W};
    std::int32_t* F[2] = {scratch + 5 * W, scratch + 6 * W};
    std::int32_t* rc = scratch + 7 * W;    // rc[c]: ref code of column c
    std::int32_t* bh = scratch + 8 * W;    // local: best H of column c so far
    std::int32_t* bd = scratch + 9 * W;    // local: its diagonal (r = bd - c)
    std::int32_t* dt = scratch + 10 * W;   // direction values of one diagonal
    std::int32_t* qrev = scratch + 11 * W; // qrev[k] = query code of row R - k, times size
    // Plain loops, not std::fill: no std template instantiated per target.
    for (std::size_t k = 0; k < 7 * W; ++k) scratch[k] = 0;
    for (std::size_t c = 0; c < W; ++c)
        rc[c] = c >= 1 && c <= static_cast<std::size_t>(C) ? t.ref[c - 1] : 0;
    for (std::int64_t k = 0; k < R + static_cast<std::int64_t>(kPad); ++k)
        qrev[k] = k < R ? static_cast<std::int32_t>(t.query[R - 1 - k]) * s.size : 0;
    if constexpr (kLocal) {
        for (std::size_t k = 0; k < W; ++k) bh[k] = bd[k] = 0;
    }
    H[0][0] = t.corner;  // diagonal 0: the corner H(0, 0)

    const V v_open = hn::Set(d, s.open);
    const V v_ext = hn::Set(d, s.extend);
    const V v_floor = hn::Set(d, s.floor);
    // Direction byte (docs/scoring.md, traceback_walk.hpp): H source in bits
    // 0-1 (from_zero is 0), E extended, F extended.
    const V k_diag = hn::Set(d, gpualign::detail::from_diag), k_e = hn::Set(d, gpualign::detail::from_e);
    const V k_f = hn::Set(d, gpualign::detail::from_f), k_e_ext = hn::Set(d, gpualign::detail::e_extended);
    const V k_f_ext = hn::Set(d, gpualign::detail::f_extended);
    const V v15 = hn::Set(d, 15), v16 = hn::Set(d, 16), v_bias = hn::Set(d, 128);
    // Byte-shuffle index: the low 4 bits of the table index in byte 0, bit 7
    // set in bytes 1-3 (they read 0), so each 32-bit lane gets its table byte.
    const V v_hibits = hn::BitCast(d, hn::Set(du, 0x80808000u));
    const auto t_lo = hn::LoadDup128(d8, s.lo);
    const auto t_hi = hn::LoadDup128(d8, s.hi);

    for (std::int64_t dg = 2; dg <= R + C; ++dg) {
        std::int32_t* hm1 = H[(dg - 1) % 3];
        const std::int32_t* hm2 = H[(dg - 2) % 3];
        std::int32_t* hn_ = H[dg % 3];
        std::int32_t* em1 = E[(dg - 1) & 1];
        std::int32_t* en = E[dg & 1];
        std::int32_t* fm1 = F[(dg - 1) & 1];
        std::int32_t* fn = F[dg & 1];
        // The boundary cells of diagonal d-1.
        if (dg - 1 <= R) {
            hm1[0] = t.left[dg - 1].h;
            em1[0] = t.left[dg - 1].g;
        }
        if (dg - 1 <= C) {
            hm1[dg - 1] = t.top[dg - 1].h;
            fm1[dg - 1] = t.top[dg - 1].g;
        }
        const std::int64_t c_lo = std::max<std::int64_t>(1, dg - R), c_hi = std::min<std::int64_t>(C, dg - 1);
        const std::int32_t* qd = qrev + (R - dg + c_lo);  // qd[c - c_lo]: row dg - c
        const V v_dg = hn::Set(d, static_cast<std::int32_t>(dg));

        auto cells = [&](std::int64_t c, auto masked) HWY_ATTR {
            constexpr bool kMasked = decltype(masked)::value;
            const V e_open = hn::Sub(hn::LoadU(d, hm1 + c - 1), v_open);
            const V e_ext = hn::Sub(hn::LoadU(d, em1 + c - 1), v_ext);
            const auto e_is_ext = hn::Gt(e_ext, e_open);
            const V e = hn::Max(e_ext, e_open);
            const V f_open = hn::Sub(hn::LoadU(d, hm1 + c), v_open);
            const V f_ext = hn::Sub(hn::LoadU(d, fm1 + c), v_ext);
            const auto f_is_ext = hn::Gt(f_ext, f_open);
            const V f = hn::Max(f_ext, f_open);
            const V idx = hn::Add(hn::LoadU(d, qd + (c - c_lo)), hn::LoadU(d, rc + c));
            V sc;
            if constexpr (kByteTable) {
                const auto ix = hn::BitCast(d8, hn::Or(hn::And(idx, v15), v_hibits));
                const V lo = hn::BitCast(d, hn::TableLookupBytesOr0(t_lo, ix));
                const V hi = hn::BitCast(d, hn::TableLookupBytesOr0(t_hi, ix));
                sc = hn::Sub(hn::IfThenElse(hn::Lt(idx, v16), lo, hi), v_bias);
            } else {
                sc = hn::GatherIndex(d, s.matrix, idx);
            }
            V h = hn::Add(hn::LoadU(d, hm2 + c - 1), sc);
            const auto e_wins = hn::Gt(e, h);
            h = hn::Max(h, e);
            const auto f_wins = hn::Gt(f, h);
            h = hn::Max(h, f);
            [[maybe_unused]] const auto floored = hn::Not(hn::Gt(h, v_floor));  // h <= floor
            h = hn::Max(h, v_floor);
            hn::StoreU(h, d, hn_ + c);
            hn::StoreU(e, d, en + c);
            hn::StoreU(f, d, fn + c);
            if constexpr (kDirs) {
                V src = hn::IfThenElse(e_wins, k_e, k_diag);
                src = hn::IfThenElse(f_wins, k_f, src);
                src = hn::IfThenZeroElse(floored, src);  // from_zero
                src = hn::Or(src, hn::Or(hn::IfThenElseZero(e_is_ext, k_e_ext), hn::IfThenElseZero(f_is_ext, k_f_ext)));
                hn::StoreU(src, d, dt + c);
            }
            if constexpr (kLocal) {
                const V old_h = hn::LoadU(d, bh + c);
                auto better = hn::Gt(h, old_h);
                if constexpr (kMasked) better = hn::And(better, hn::FirstN(d, static_cast<std::size_t>(c_hi - c + 1)));
                hn::StoreU(hn::IfThenElse(better, h, old_h), d, bh + c);
                hn::StoreU(hn::IfThenElse(better, v_dg, hn::LoadU(d, bd + c)), d, bd + c);
            }
        };
        std::int64_t c = c_lo;
        for (; c + L - 1 <= c_hi; c += L) cells(c, std::false_type{});
        if (c <= c_hi) cells(c, std::true_type{});

        if constexpr (kDirs)
            for (std::int64_t cc = c_lo; cc <= c_hi; ++cc)
                t.dirs[(dg - cc - 1) * t.dirs_pitch + (cc - 1)] = static_cast<std::uint8_t>(dt[cc]);
        // This diagonal's cell on the last row and on the last column.
        if (dg - R >= 1 && dg - R <= C) t.top[dg - R] = {hn_[dg - R], fn[dg - R]};
        if (dg - C >= 1 && dg - C <= R) t.left[dg - C] = {hn_[C], en[C]};
    }

    if constexpr (kLocal) {
        LongTileBest b;
        for (std::int64_t c = 1; c <= C; ++c) {
            const std::int64_t r = bd[c] - c;
            if (bh[c] > b.h || (bh[c] == b.h && bh[c] > 0 && r < b.r)) b = {bh[c], r, c};
        }
        best = b;
    }
}

void ComputeTile(const LongTile& t, const LongTileScheme& s, std::int32_t* scratch, LongTileBest* best) {
    using Fn = void (*)(const LongTile&, const LongTileScheme&, std::int32_t*, LongTileBest&);
    static constexpr Fn table[2][2][2] = {
        {{&Tile<false, false, false>, &Tile<false, false, true>}, {&Tile<false, true, false>, &Tile<false, true, true>}},
        {{&Tile<true, false, false>, &Tile<true, false, true>}, {&Tile<true, true, false>, &Tile<true, true, true>}},
    };
    table[s.local][t.dirs != nullptr][s.byte_table](t, s, scratch, *best);
}
#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace gpualign::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpualign::cpu {

HWY_EXPORT(Available);
HWY_EXPORT(ComputeTile);

LongTileScheme make_long_tile_scheme(const ScoringScheme& s, AlignMode mode) {
    LongTileScheme k;
    k.size = s.size;
    k.matrix = s.matrix.data();
    k.open = s.gap_open + s.gap_extend;
    k.extend = s.gap_extend;
    k.local = mode == AlignMode::local;
    k.floor = k.local ? 0 : gpualign::detail::neg_inf;
    k.byte_table = s.size * s.size <= 32 &&
                   std::all_of(s.matrix.begin(), s.matrix.end(), [](std::int32_t v) { return v >= -128 && v <= 127; });
    if (k.byte_table)
        for (int i = 0; i < s.size * s.size; ++i)
            (i < 16 ? k.lo[i] : k.hi[i - 16]) = static_cast<std::uint8_t>(s.matrix[static_cast<std::size_t>(i)] + 128);
    return k;
}

bool long_tile_simd_available() { return HWY_DYNAMIC_DISPATCH(Available)(); }

LongTileBest compute_long_tile(const LongTile& t, const LongTileScheme& s) {
    // Scratch per thread, kept between tiles (allocated outside the
    // per-target code, so no std::vector is compiled for one target only).
    thread_local std::vector<std::int32_t> scratch;
    const std::size_t w = static_cast<std::size_t>(t.cols) + 1 + detail::kLongTilePad;
    const std::size_t need = 11 * w + static_cast<std::size_t>(t.rows) + detail::kLongTilePad;
    if (scratch.size() < need) scratch.resize(need);
    LongTileBest best;
    HWY_DYNAMIC_DISPATCH(ComputeTile)(t, s, scratch.data(), &best);
    return best;
}

}  // namespace gpualign::cpu
#endif  // HWY_ONCE
