// gpualign — the inter-pair SIMD kernel (Google Highway, compiled for every
// x86/ARM target and dispatched at run time). Interface and contract:
// inter_pair_kernel.hpp. Scalar twin: align_pair_full_matrix
// (lib/src/core/cpu_aligner.cpp): each 16-bit lane runs exactly its loop.
//
// Recurrence per lane (Gotoh 1982; docs/scoring.md), O = go + ge, E = ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - E, H(i,j-1) - O)      opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - E, H(i-1,j) - O)      opening wins ties
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell [, 0 if local])
//                preference diagonal > E > F, zero first in local mode
// Rows i (query) outer, columns j (ref) inner, as the scalar loop; the local
// end cell is the first row-major maximum (a strictly better row maximum of
// a later row wins). Padding cells (i > query_len or j > ref_len of a lane)
// never feed a real cell and are masked out of the maxima.
// Arithmetic saturates: a local lane whose best reaches 32767 reports
// overflow; global lanes are admitted only under a static bound
// (inter_pair_aligner.cpp), so their real cells never saturate.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/inter_pair_kernel.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/aligned_allocator.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/inter_pair_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpualign::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

#if HWY_TARGET == HWY_SCALAR
// The one-lane fallback target (a CPU without SSSE3): no SIMD kernel; the
// host sends every pair to the scalar reference.
std::size_t LaneCount() { return 0; }
void AlignGroup(const LaneGroup&, const KernelScheme&, KernelKind, const LaneResults&) {
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

template <bool kLocal, KernelKind kKind, bool kByteTable>
HWY_NOINLINE void Run(const LaneGroup& g, const KernelScheme& ks, const LaneResults& out) {
    const hn::ScalableTag<std::int16_t> d;
    const hn::RebindToUnsigned<decltype(d)> du;
    const hn::Repartition<std::uint8_t, decltype(d)> d8;
    const hn::Rebind<std::uint8_t, decltype(d)> d8h;  // one byte per 16-bit lane
    const hn::Half<decltype(d)> dh;
    const hn::Rebind<std::int32_t, decltype(dh)> d32;
    using V = hn::Vec<decltype(d)>;
    constexpr bool kBegin = kKind == KernelKind::score_begin;
    constexpr bool kDir = kKind == KernelKind::traceback;

    const std::size_t L = hn::Lanes(d);
    const std::size_t M = g.rows, N = g.cols;
    const std::size_t W = (N + 1) * L;
    auto hprev = hwy::AllocateAligned<std::int16_t>(W);
    auto hcur = hwy::AllocateAligned<std::int16_t>(W);
    auto fcol = hwy::AllocateAligned<std::int16_t>(W);
    // Begin cells (score_begin): row i and column j of each H and F.
    auto bi_prev = hwy::AllocateAligned<std::int16_t>(kBegin ? W : 1);
    auto bj_prev = hwy::AllocateAligned<std::int16_t>(kBegin ? W : 1);
    auto bi_cur = hwy::AllocateAligned<std::int16_t>(kBegin ? W : 1);
    auto bj_cur = hwy::AllocateAligned<std::int16_t>(kBegin ? W : 1);
    auto fbi = hwy::AllocateAligned<std::int16_t>(kBegin ? W : 1);
    auto fbj = hwy::AllocateAligned<std::int16_t>(kBegin ? W : 1);
    auto lens = hwy::AllocateAligned<std::int16_t>(2 * L);
    if (!hprev || !hcur || !fcol || !lens || (kBegin && (!bi_prev || !bj_prev || !bi_cur || !bj_cur || !fbi || !fbj)))
        throw std::bad_alloc();

    const V v_open = hn::Set(d, static_cast<std::int16_t>(ks.gap_open + ks.gap_extend));
    const V v_ext = hn::Set(d, ks.gap_extend);
    const V v_zero = hn::Zero(d);
    const V v_neg = hn::Set(d, static_cast<std::int16_t>(-32768));
    const V k1 = hn::Set(d, 1), k2 = hn::Set(d, 2), k3 = hn::Set(d, 3), k4 = hn::Set(d, 4), k8 = hn::Set(d, 8);
    const V v_bias = hn::Set(d, 128);
    const auto t_lo = hn::LoadDup128(d8, ks.lo);
    const auto t_hi = hn::LoadDup128(d8, ks.hi);

    // Lane lengths; n_full = the columns where every used lane is real.
    std::size_t n_full = N;
    for (std::size_t l = 0; l < L; ++l) {
        lens[l] = static_cast<std::int16_t>(g.query_len[l]);
        lens[L + l] = static_cast<std::int16_t>(g.ref_len[l]);
        if (g.query_len[l] > 0 && g.ref_len[l] > 0) n_full = std::min<std::size_t>(n_full, g.ref_len[l]);
    }
    const V m_plus1 = hn::Add(hn::Load(d, lens.get()), k1);
    const V n_plus1 = hn::Add(hn::Load(d, lens.get() + L), k1);

    for (std::size_t j = 0; j <= N; ++j) {
        hn::Store(hn::Set(d, kLocal ? std::int16_t{0} : border(ks, j)), d, hprev.get() + j * L);
        hn::Store(v_neg, d, fcol.get() + j * L);
        if constexpr (kBegin) {
            hn::Store(v_zero, d, bi_prev.get() + j * L);
            hn::Store(hn::Set(d, static_cast<std::int16_t>(j)), d, bj_prev.get() + j * L);
        }
    }

    V best = v_zero, best_i = v_zero, best_j = v_zero, best_bi = v_zero, best_bj = v_zero;
    for (std::size_t i = 1; i <= M; ++i) {
        const V v_i = hn::Set(d, static_cast<std::int16_t>(i));
        const V q = hn::LoadU(d, g.query_idx + (i - 1) * L);
        // Byte-shuffle indices: low byte idx+0x70 / idx+0xF0 (bit 7 set where
        // the other table holds the entry), high byte 0x80 (looks up 0).
        const V q_lo = hn::BitCast(d, hn::Add(hn::BitCast(du, q), hn::Set(du, std::uint16_t{0x8070})));
        const V q_hi = hn::BitCast(d, hn::Add(hn::BitCast(du, q), hn::Set(du, std::uint16_t{0x80F0})));
        const std::int16_t h0 = kLocal ? std::int16_t{0} : border(ks, i);
        V h_left = hn::Set(d, h0);
        V e = v_neg;
        V diag = hn::Load(d, hprev.get());
        hn::Store(h_left, d, hcur.get());
        V bl_i = v_i, bl_j = v_zero, eb_i = v_zero, eb_j = v_zero, db_i = v_zero, db_j = v_zero;
        if constexpr (kBegin) {
            hn::Store(v_i, d, bi_cur.get());
            hn::Store(v_zero, d, bj_cur.get());
            db_i = hn::Load(d, bi_prev.get());
            db_j = hn::Load(d, bj_prev.get());
        }
        V row_best = v_zero, row_j = v_zero, row_bi = v_zero, row_bj = v_zero;
        V v_j = k1;
        std::uint8_t* dir_row = kDir ? out.dir + (i - 1) * N * L : nullptr;

        auto cell = [&](std::size_t j, auto masked) HWY_ATTR {
            const V up = hn::Load(d, hprev.get() + j * L);
            V f = hn::Load(d, fcol.get() + j * L);
            const V r = hn::LoadU(d, g.ref_codes + (j - 1) * L);
            V s;
            if constexpr (kByteTable) {
                const auto lo = hn::TableLookupBytesOr0(t_lo, hn::BitCast(d8, hn::Add(q_lo, r)));
                const auto hi = hn::TableLookupBytesOr0(t_hi, hn::BitCast(d8, hn::Add(q_hi, r)));
                s = hn::Sub(hn::BitCast(d, hn::Or(lo, hi)), v_bias);
            } else {
                const V idx = hn::Add(q, r);
                const auto g_lo = hn::GatherIndex(d32, ks.matrix, hn::PromoteTo(d32, hn::LowerHalf(dh, idx)));
                const auto g_hi = hn::GatherIndex(d32, ks.matrix, hn::PromoteTo(d32, hn::UpperHalf(dh, idx)));
                s = hn::Combine(d, hn::DemoteTo(dh, g_hi), hn::DemoteTo(dh, g_lo));
            }
            // E and F: opening wins ties (extension only when strictly better).
            const V e_open = hn::SaturatedSub(h_left, v_open), e_ext = hn::SaturatedSub(e, v_ext);
            const auto e_is_ext = hn::Gt(e_ext, e_open);
            e = hn::Max(e_ext, e_open);
            const V f_open = hn::SaturatedSub(up, v_open), f_ext = hn::SaturatedSub(f, v_ext);
            const auto f_is_ext = hn::Gt(f_ext, f_open);
            f = hn::Max(f_ext, f_open);
            hn::Store(f, d, fcol.get() + j * L);
            // H: diagonal, then E if strictly better, then F, then the local zero.
            V h = hn::SaturatedAdd(diag, s);
            const auto e_wins = hn::Gt(e, h);
            h = hn::Max(h, e);
            const auto f_wins = hn::Gt(f, h);
            h = hn::Max(h, f);
            [[maybe_unused]] const auto positive = hn::Gt(h, v_zero);
            if constexpr (kLocal) h = hn::Max(h, v_zero);
            if constexpr (kDir) {
                V src = hn::IfThenElse(f_wins, k3, hn::IfThenElse(e_wins, k2, k1));
                if constexpr (kLocal) src = hn::IfThenElseZero(positive, src);
                const V bits = hn::Or(src, hn::Or(hn::IfThenElseZero(e_is_ext, k4), hn::IfThenElseZero(f_is_ext, k8)));
                hn::StoreU(hn::DemoteTo(d8h, bits), d8h, dir_row + (j - 1) * L);
            }
            if constexpr (kBegin) {
                eb_i = hn::IfThenElse(e_is_ext, eb_i, bl_i);
                eb_j = hn::IfThenElse(e_is_ext, eb_j, bl_j);
                const V up_i = hn::Load(d, bi_prev.get() + j * L), up_j = hn::Load(d, bj_prev.get() + j * L);
                const V f_i = hn::IfThenElse(f_is_ext, hn::Load(d, fbi.get() + j * L), up_i);
                const V f_j = hn::IfThenElse(f_is_ext, hn::Load(d, fbj.get() + j * L), up_j);
                hn::Store(f_i, d, fbi.get() + j * L);
                hn::Store(f_j, d, fbj.get() + j * L);
                V h_i = hn::IfThenElse(f_wins, f_i, hn::IfThenElse(e_wins, eb_i, db_i));
                V h_j = hn::IfThenElse(f_wins, f_j, hn::IfThenElse(e_wins, eb_j, db_j));
                h_i = hn::IfThenElse(positive, h_i, v_i);
                h_j = hn::IfThenElse(positive, h_j, v_j);
                hn::Store(h_i, d, bi_cur.get() + j * L);
                hn::Store(h_j, d, bj_cur.get() + j * L);
                bl_i = h_i;
                bl_j = h_j;
                db_i = up_i;
                db_j = up_j;
            }
            hn::Store(h, d, hcur.get() + j * L);
            h_left = h;
            diag = up;
            if constexpr (kLocal) {
                auto better = hn::Gt(h, row_best);
                if constexpr (decltype(masked)::value) better = hn::And(better, hn::Lt(v_j, n_plus1));
                row_best = hn::IfThenElse(better, h, row_best);
                row_j = hn::IfThenElse(better, v_j, row_j);
                if constexpr (kBegin) {
                    row_bi = hn::IfThenElse(better, bl_i, row_bi);
                    row_bj = hn::IfThenElse(better, bl_j, row_bj);
                }
            }
            v_j = hn::Add(v_j, k1);
        };
        for (std::size_t j = 1; j <= n_full; ++j) cell(j, std::false_type{});
        for (std::size_t j = n_full + 1; j <= N; ++j) cell(j, std::true_type{});

        if constexpr (kLocal) {
            const auto better = hn::And(hn::Gt(row_best, best), hn::Lt(v_i, m_plus1));
            best = hn::IfThenElse(better, row_best, best);
            best_i = hn::IfThenElse(better, v_i, best_i);
            best_j = hn::IfThenElse(better, row_j, best_j);
            if constexpr (kBegin) {
                best_bi = hn::IfThenElse(better, row_bi, best_bi);
                best_bj = hn::IfThenElse(better, row_bj, best_bj);
            }
        } else {
            for (std::size_t l = 0; l < L; ++l)
                if (static_cast<std::size_t>(g.query_len[l]) == i && g.ref_len[l] > 0) {
                    out.score[l] = hcur[static_cast<std::size_t>(g.ref_len[l]) * L + l];
                    out.query_end[l] = g.query_len[l];
                    out.ref_end[l] = g.ref_len[l];
                    out.overflow[l] = 0;
                }
        }
        std::swap(hprev, hcur);
        if constexpr (kBegin) {
            std::swap(bi_prev, bi_cur);
            std::swap(bj_prev, bj_cur);
        }
    }
    if constexpr (kLocal) {
        auto lanes_out = hwy::AllocateAligned<std::int16_t>(5 * L);
        if (!lanes_out) throw std::bad_alloc();
        std::int16_t* b = lanes_out.get();
        std::int16_t *bi = b + L, *bj = b + 2 * L, *gi = b + 3 * L, *gj = b + 4 * L;
        hn::Store(best, d, b);
        hn::Store(best_i, d, bi);
        hn::Store(best_j, d, bj);
        hn::Store(best_bi, d, gi);
        hn::Store(best_bj, d, gj);
        for (std::size_t l = 0; l < L; ++l) {
            out.score[l] = b[l];
            out.query_end[l] = bi[l];
            out.ref_end[l] = bj[l];
            out.overflow[l] = b[l] == 32767 ? 1 : 0;
            if constexpr (kBegin) {
                out.query_begin[l] = gi[l];
                out.ref_begin[l] = gj[l];
            }
        }
    }
}

void AlignGroup(const LaneGroup& g, const KernelScheme& s, KernelKind kind, const LaneResults& out) {
    // One instantiation per (mode, kind, score lookup): a table, not a ladder.
    using Fn = void (*)(const LaneGroup&, const KernelScheme&, const LaneResults&);
    static constexpr Fn table[2][3][2] = {
        {{&Run<false, KernelKind::traceback, false>, &Run<false, KernelKind::traceback, true>},
         {&Run<false, KernelKind::score, false>, &Run<false, KernelKind::score, true>},
         {&Run<false, KernelKind::score, false>, &Run<false, KernelKind::score, true>}},
        {{&Run<true, KernelKind::traceback, false>, &Run<true, KernelKind::traceback, true>},
         {&Run<true, KernelKind::score_begin, false>, &Run<true, KernelKind::score_begin, true>},
         {&Run<true, KernelKind::score_begin, false>, &Run<true, KernelKind::score_begin, true>}},
    };
    table[s.local ? 1 : 0][static_cast<int>(kind)][s.byte_table ? 1 : 0](g, s, out);
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

void align_lane_group(const LaneGroup& g, const KernelScheme& s, KernelKind kind, const LaneResults& out) {
    HWY_DYNAMIC_DISPATCH(AlignGroup)(g, s, kind, out);
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
