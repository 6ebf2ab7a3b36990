// gpualign — the inter-pair SIMD kernel (Google Highway, compiled for every
// x86/ARM target and dispatched at run time). Interface and contract:
// inter_pair_kernel.hpp. Scalar twin: align_pair_full_matrix
// (lib/src/align/reference/reference_aligner.cpp): each 16-bit lane runs exactly its loop.
//
// Recurrence per lane (Gotoh 1982; docs/scoring.md), O = go + ge, E = ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - E, H(i,j-1) - O)      opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - E, H(i-1,j) - O)      opening wins ties
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell [, 0 if local])
//                preference diagonal > E > F, zero first in local mode
//   borders: H(0,j) = 0 (local, semi-global) or -(go + j ge) (global);
//            H(i,0) = 0 (local) or -(go + i ge) (global, semi-global)
// Rows i (query) outer, columns j (ref) inner, as the scalar loop; the local
// end cell is the first row-major maximum (a strictly better row maximum of
// a later row wins); the semi-global one the first maximum of the lane's
// last row, j = 0 included; the global one (query_len, ref_len). Padding
// cells (i > query_len or j > ref_len of a lane) never feed a real cell and
// are masked out of the maxima.
// Arithmetic saturates: a local lane whose best reaches 32767 reports
// overflow; global and semi-global lanes are admitted only under a static bound
// (simd_aligner.cpp), so their real cells never saturate.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "align/simd/inter_pair_kernel.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/aligned_allocator.h>
#include <hwy/cache_control.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "align/simd/inter_pair_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpualign::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

#if HWY_TARGET == HWY_SCALAR
// The one-lane fallback target (a CPU without SSSE3): no SIMD kernel; the
// host sends every pair to the scalar reference.
std::size_t LaneCount() { return 0; }
void AlignGroup(const LaneGroup&, const KernelScheme&, KernelKind, ScoreLookup, const LaneResults&) {
    throw std::logic_error("inter-pair kernel called on the scalar target");
}
#else
std::size_t LaneCount() { return hn::Lanes(hn::ScalableTag<std::int16_t>()); }

// -(go + k*ge) clamped to the 16-bit range (padding columns may pass it).
inline std::int16_t border(const KernelScheme& s, std::size_t k) {
    if (k == 0) return 0;
    const std::int64_t v = -(static_cast<std::int64_t>(s.gap_open) + static_cast<std::int64_t>(k) * s.gap_extend);
    return static_cast<std::int16_t>(std::max<std::int64_t>(v, -32768));
}

// Rows are processed in strips of kRows: for each column the strip's rows run
// one after another, passing H(i-1,j) and F(i-1,j) down in registers, so only
// the strip's last row goes to memory (one load and one store of H and F per
// strip and column instead of per cell).
/// One function body on purpose: the pass's vectors (H, E, F, the bests and
/// their cells) stay in registers across the whole loop nest, which helper
/// calls would have to pass through memory; the recurrence is in the file's
/// header.
template <AlignMode kMode, KernelKind kKind, ScoreLookup kLookup, std::size_t kRows>
HWY_NOINLINE void Run(const LaneGroup& g, const KernelScheme& ks, const LaneResults& out) {
    constexpr bool kLocal = kMode == AlignMode::local;
    constexpr bool kRowEnd = kMode == AlignMode::semi_global;  // end cell: the best of the last row
    const hn::ScalableTag<std::int16_t> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const hn::Repartition<std::uint8_t, decltype(d)> d8;
    const hn::Half<decltype(d)> dh;
    const hn::Rebind<std::int32_t, decltype(dh)> d32;
    using V = hn::Vec<decltype(d)>;
    constexpr bool kDir = kKind == KernelKind::traceback;

    const std::size_t L = hn::Lanes(d);
    const std::size_t M = g.rows, N = g.cols;
    const std::size_t W = (N + 1) * L;
    const std::size_t plane_bytes = dir_plane_bytes(L);
    const std::size_t row_cells = dir_row_cells(N);                 // a plane row's columns (padded)
    const std::size_t plane_stride = dir_plane_stride(M, N, L);     // bytes between two planes of one cell
    // H and F of the row above the strip, updated in place.
    auto hrow = hwy::AllocateAligned<std::int16_t>(W);
    auto frow = hwy::AllocateAligned<std::int16_t>(W);
    auto lane_buf = hwy::AllocateAligned<std::int16_t>(7 * L);
    // Direction bits are staged per strip row and plane for 16 columns (one
    // vector, in L1) and then streamed to `dir` a whole vector at a time:
    // byte-sized stores into a group's multi-megabyte planes would each pull
    // their cache line from memory first (measured: ~20% of the local pass).
    constexpr std::size_t kMaxRows = 4;
    auto stage = hwy::AllocateAligned<std::int16_t>(kDir ? kMaxRows * kDirPlanes * L : 1);
    if (!hrow || !frow || !lane_buf || !stage) throw std::bad_alloc();
    std::uint8_t* const stage_bytes = reinterpret_cast<std::uint8_t*>(stage.get());

    const V v_open = hn::Set(d, static_cast<std::int16_t>(ks.gap_open + ks.gap_extend));
    const V v_ext = hn::Set(d, ks.gap_extend);
    const V v_zero = hn::Zero(d);
    const V v_neg = hn::Set(d, static_cast<std::int16_t>(-32768));
    const V k1 = hn::Set(d, 1);
    const V v_bias = hn::Set(d, 128);
    constexpr bool kByteTable = kLookup != ScoreLookup::gather;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // AVX-512: a pair_table score is one 16-bit permute of the 32-word table
    // (index q * size + r < 32 = the lane count), not two byte shuffles.
    constexpr bool kPermute = kLookup == ScoreLookup::pair_table;
    const V t16 = hn::LoadU(d, ks.table16);
#else
    constexpr bool kPermute = false;
#endif
    using VT = decltype(hn::LoadDup128(d8, ks.lo));

    // Lane lengths; n_full = the columns where every used lane is real.
    std::size_t n_full = N;
    std::int16_t* lens = lane_buf.get();
    for (std::size_t l = 0; l < L; ++l) {
        lens[l] = static_cast<std::int16_t>(g.query_len[l]);
        lens[L + l] = static_cast<std::int16_t>(g.ref_len[l]);
        if (g.query_len[l] > 0 && g.ref_len[l] > 0) n_full = std::min<std::size_t>(n_full, g.ref_len[l]);
    }
    const V m_plus1 = hn::Add(hn::Load(d, lens), k1);
    const V v_n = hn::Load(d, lens + L);
    const V n_plus1 = hn::Add(v_n, k1);

    for (std::size_t j = 0; j <= N; ++j) {
        hn::Store(hn::Set(d, kMode == AlignMode::global ? border(ks, j) : std::int16_t{0}), d, hrow.get() + j * L);
        hn::Store(v_neg, d, frow.get() + j * L);
    }

    V best = v_zero, best_i = v_zero, best_j = v_zero;

    // One strip of R rows starting at row i0 (1-based).
    auto strip = [&](std::size_t i0, auto rows_c) HWY_ATTR {
        constexpr std::size_t R = decltype(rows_c)::value;
        V v_i[R], q[R], q_lo[R], q_hi[R], h_left[R], e[R], diag[R], row_best[R], row_j[R], cap[R];
        VT t_lo[R], t_hi[R];
        for (std::size_t r = 0; r < R; ++r) {
            const std::size_t i = i0 + r;
            v_i[r] = hn::Set(d, static_cast<std::int16_t>(i));
            q[r] = hn::LoadU(d, g.query_idx + (i - 1) * L);
            // Byte-shuffle indices: low byte idx+0x70 / idx+0xF0 (bit 7 set
            // where the other table holds the entry), high byte 0x80 (0).
            q_lo[r] = hn::BitCast(d, hn::Add(hn::BitCast(du, q[r]), hn::Set(du, std::uint16_t{0x8070})));
            q_hi[r] = hn::BitCast(d, hn::Add(hn::BitCast(du, q[r]), hn::Set(du, std::uint16_t{0x80F0})));
            // pair_table: one table of the scheme (index q*size + r);
            // row_table: the row of this row's query letter, shared by
            // every lane (index r; the host passes query_idx 0).
            const std::uint8_t* lo = ks.lo;
            const std::uint8_t* hi = ks.hi;
            if constexpr (kLookup == ScoreLookup::row_table) {
                lo = ks.row_lo[g.shared_query[i - 1]];
                hi = ks.row_hi[g.shared_query[i - 1]];
            }
            t_lo[r] = hn::LoadDup128(d8, lo);
            t_hi[r] = hn::LoadDup128(d8, hi);
            h_left[r] = hn::Set(d, kLocal ? std::int16_t{0} : border(ks, i));
            e[r] = v_neg;
            diag[r] = r == 0 ? hn::Load(d, hrow.get()) : h_left[r - 1];
            row_best[r] = kRowEnd ? h_left[r] : v_zero;  // semi-global: H(i,0) competes too
            row_j[r] = v_zero;
            cap[r] = v_zero;
        }
        hn::Store(h_left[R - 1], d, hrow.get());
        V v_j = k1;

        auto column = [&](std::size_t j, auto masked) HWY_ATTR {
            constexpr bool kMasked = decltype(masked)::value;
            V up = hn::Load(d, hrow.get() + j * L);
            V f = hn::Load(d, frow.get() + j * L);
            const V rc = hn::LoadU(d, g.ref_codes + (j - 1) * L);
            [[maybe_unused]] const auto in_row = hn::Lt(v_j, n_plus1);  // masked columns: j <= ref_len
            [[maybe_unused]] const auto at_end = hn::Eq(v_j, v_n);      // global: j == ref_len
            for (std::size_t r = 0; r < R; ++r) {
                V s;
                if constexpr (kPermute) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
                    s = V{_mm512_permutexvar_epi16(hn::Add(q[r], rc).raw, t16.raw)};
#endif
                } else if constexpr (kByteTable) {
                    const auto lo = hn::TableLookupBytesOr0(t_lo[r], hn::BitCast(d8, hn::Add(q_lo[r], rc)));
                    const auto hi = hn::TableLookupBytesOr0(t_hi[r], hn::BitCast(d8, hn::Add(q_hi[r], rc)));
                    s = hn::Sub(hn::BitCast(d, hn::Or(lo, hi)), v_bias);
                } else {
                    const V idx = hn::Add(q[r], rc);
                    const auto g_lo = hn::GatherIndex(d32, ks.matrix, hn::PromoteTo(d32, hn::LowerHalf(dh, idx)));
                    const auto g_hi = hn::GatherIndex(d32, ks.matrix, hn::PromoteTo(d32, hn::UpperHalf(dh, idx)));
                    s = hn::Combine(d, hn::DemoteTo(dh, g_hi), hn::DemoteTo(dh, g_lo));
                }
                // E and F: opening wins ties (extension only when strictly better).
                const V e_open = hn::SaturatedSub(h_left[r], v_open), e_ext = hn::SaturatedSub(e[r], v_ext);
                const auto e_is_ext = hn::Gt(e_ext, e_open);
                e[r] = hn::Max(e_ext, e_open);
                const V f_open = hn::SaturatedSub(up, v_open), f_ext = hn::SaturatedSub(f, v_ext);
                const auto f_is_ext = hn::Gt(f_ext, f_open);
                f = hn::Max(f_ext, f_open);
                // H: diagonal, then E if strictly better, then F, then the local zero.
                V h = hn::SaturatedAdd(diag[r], s);
                const auto e_wins = hn::Gt(e[r], h);
                h = hn::Max(h, e[r]);
                const auto f_wins = hn::Gt(f, h);
                h = hn::Max(h, f);
                [[maybe_unused]] const auto positive = hn::Gt(h, v_zero);
                if constexpr (kLocal) h = hn::Max(h, v_zero);
                if constexpr (kDir) {
                    // Five bit planes (LaneResults::dir; four outside local
                    // mode), stored straight from the comparison masks into the
                    // stage (plane p of strip row r: vector r * kDirPlanes + p,
                    // column (j-1) % 16). (Folding "positive" into the E and F
                    // planes, four planes in local mode too, measured 13%
                    // slower on pacbio_ecoli, AVX-512: the mask logic costs
                    // more than the traffic it saves.)
                    std::uint8_t* cell_dir = stage_bytes + (r * kDirPlanes * 16 + ((j - 1) & 15)) * plane_bytes;
                    const std::size_t sp = 16 * plane_bytes;  // one staged vector
                    hn::StoreMaskBits(d, e_wins, cell_dir);
                    hn::StoreMaskBits(d, f_wins, cell_dir + sp);
                    if constexpr (kLocal) hn::StoreMaskBits(d, positive, cell_dir + 2 * sp);
                    hn::StoreMaskBits(d, e_is_ext, cell_dir + 3 * sp);
                    hn::StoreMaskBits(d, f_is_ext, cell_dir + 4 * sp);
                }
                if constexpr (kLocal || kRowEnd) {
                    auto better = hn::Gt(h, row_best[r]);
                    if constexpr (kMasked) better = hn::And(better, in_row);
                    row_best[r] = hn::IfThenElse(better, h, row_best[r]);
                    row_j[r] = hn::IfThenElse(better, v_j, row_j[r]);
                } else if constexpr (kMasked) {
                    cap[r] = hn::IfThenElse(at_end, h, cap[r]);
                }
                diag[r] = up;
                h_left[r] = h;
                up = h;
            }
            hn::Store(up, d, hrow.get() + j * L);
            hn::Store(f, d, frow.get() + j * L);
            v_j = hn::Add(v_j, k1);
        };
        // Global lanes capture H(i, ref_len) in the masked part, which holds
        // every ref_len (>= n_full); start it one column early for j == n_full.
        const std::size_t split = kMode == AlignMode::global ? n_full - 1 : n_full;
        // After column j ends a block of 16 (or the row): the staged vectors to their place.
        auto flush = [&](std::size_t j) HWY_ATTR {
            if constexpr (kDir) {
                if ((j & 15) != 0 && j != N) return;
                const std::size_t col0 = (j - 1) & ~std::size_t{15};
                for (std::size_t r = 0; r < R; ++r)
                    for (std::size_t p = 0; p < kDirPlanes; ++p) {
                        if (!kLocal && p == 2) continue;
                        std::uint8_t* dst = out.dir + p * plane_stride + ((i0 + r - 1) * row_cells + col0) * plane_bytes;
                        const V v = hn::Load(d, stage.get() + (r * kDirPlanes + p) * L);
                        hn::Stream(v, d, reinterpret_cast<std::int16_t*>(dst));
                    }
            }
        };
        for (std::size_t j = 1; j <= split; ++j) {
            column(j, std::false_type{});
            flush(j);
        }
        for (std::size_t j = split + 1; j <= N; ++j) {
            column(j, std::true_type{});
            flush(j);
        }

        for (std::size_t r = 0; r < R; ++r) {
            if constexpr (kLocal) {
                const auto better = hn::And(hn::Gt(row_best[r], best), hn::Lt(v_i[r], m_plus1));
                best = hn::IfThenElse(better, row_best[r], best);
                best_i = hn::IfThenElse(better, v_i[r], best_i);
                best_j = hn::IfThenElse(better, row_j[r], best_j);
            } else {
                // The lanes whose last row this is: H(m, n) (global) or the
                // last row's first maximum (semi-global).
                std::int16_t* c = lane_buf.get() + 2 * L;
                std::int16_t* cj = c + L;
                hn::Store(kRowEnd ? row_best[r] : cap[r], d, c);
                if constexpr (kRowEnd) hn::Store(row_j[r], d, cj);
                for (std::size_t l = 0; l < L; ++l)
                    if (static_cast<std::size_t>(g.query_len[l]) == i0 + r && g.ref_len[l] > 0) {
                        out.score[l] = c[l];
                        out.query_end[l] = g.query_len[l];
                        out.ref_end[l] = kRowEnd ? cj[l] : g.ref_len[l];
                        out.overflow[l] = 0;
                    }
            }
        }
    };
    static_assert(kRows <= kMaxRows);
    std::size_t i0 = 1;
    for (; i0 + kRows - 1 <= M; i0 += kRows) strip(i0, std::integral_constant<std::size_t, kRows>{});
    for (; i0 <= M; ++i0) strip(i0, std::integral_constant<std::size_t, 1>{});
    if constexpr (kDir) hwy::FlushStream();  // the streamed planes before the host's walk

    if constexpr (kLocal) {
        std::int16_t* b = lane_buf.get() + 2 * L;
        std::int16_t *bi = b + L, *bj = b + 2 * L;
        hn::Store(best, d, b);
        hn::Store(best_i, d, bi);
        hn::Store(best_j, d, bj);
        for (std::size_t l = 0; l < L; ++l) {
            out.score[l] = b[l];
            out.query_end[l] = bi[l];
            out.ref_end[l] = bj[l];
            out.overflow[l] = b[l] == 32767 ? 1 : 0;
        }
    }
}

void AlignGroup(const LaneGroup& g, const KernelScheme& s, KernelKind kind, ScoreLookup lookup,
                const LaneResults& out) {
    // One instantiation per (mode, kind, score lookup): a table, not a ladder.
    using Fn = void (*)(const LaneGroup&, const KernelScheme&, const LaneResults&);
    using L = ScoreLookup;
    using K = KernelKind;
    using M = AlignMode;
    static constexpr Fn table[3][2][3] = {
        {{&Run<M::local, K::traceback, L::gather, 4>, &Run<M::local, K::traceback, L::pair_table, 4>,
          &Run<M::local, K::traceback, L::row_table, 4>},
         {&Run<M::local, K::score, L::gather, 4>, &Run<M::local, K::score, L::pair_table, 4>,
          &Run<M::local, K::score, L::row_table, 4>}},
        {{&Run<M::global, K::traceback, L::gather, 4>, &Run<M::global, K::traceback, L::pair_table, 4>,
          &Run<M::global, K::traceback, L::row_table, 4>},
         {&Run<M::global, K::score, L::gather, 4>, &Run<M::global, K::score, L::pair_table, 4>,
          &Run<M::global, K::score, L::row_table, 4>}},
        {{&Run<M::semi_global, K::traceback, L::gather, 4>, &Run<M::semi_global, K::traceback, L::pair_table, 4>,
          &Run<M::semi_global, K::traceback, L::row_table, 4>},
         {&Run<M::semi_global, K::score, L::gather, 4>, &Run<M::semi_global, K::score, L::pair_table, 4>,
          &Run<M::semi_global, K::score, L::row_table, 4>}},
    };
    table[static_cast<int>(s.mode)][static_cast<int>(kind)][static_cast<int>(lookup)](g, s, out);
}

#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace gpualign::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpualign::cpu {

HWY_EXPORT(LaneCount);
HWY_EXPORT(TargetName);
HWY_EXPORT(AlignGroup);

std::size_t lanes() { return HWY_DYNAMIC_DISPATCH(LaneCount)(); }

std::string target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

void align_lane_group(const LaneGroup& g, const KernelScheme& s, KernelKind kind, ScoreLookup lookup,
                      const LaneResults& out) {
    HWY_DYNAMIC_DISPATCH(AlignGroup)(g, s, kind, lookup, out);
}

std::vector<std::string> target_names() {
    std::vector<std::string> names;
    for (const std::int64_t t : hwy::SupportedAndGeneratedTargets()) names.emplace_back(hwy::TargetName(t));
    return names;
}

void force_target(const std::string& name) {
    if (name.empty()) {
        hwy::SetSupportedTargetsForTest(0);
        return;
    }
    hwy::SetSupportedTargetsForTest(0);
    for (const std::int64_t t : hwy::SupportedAndGeneratedTargets())
        if (name == hwy::TargetName(t)) {
            hwy::SetSupportedTargetsForTest(t);
            return;
        }
    throw std::invalid_argument("SIMD target '" + name + "' is not compiled in or not supported by this CPU");
}

}  // namespace gpualign::cpu
#endif  // HWY_ONCE
