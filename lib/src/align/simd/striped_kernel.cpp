// gpualign — the intra-pair striped SIMD kernel (Farrar 2007, "Striped
// Smith-Waterman speeds database searches six times over other SIMD
// implementations", Bioinformatics 23(2):156-161), with Google Highway:
// compiled for every x86/ARM target and dispatched at run time exactly as
// inter_pair_kernel.cpp (HWY_DYNAMIC_DISPATCH; force_target() restricts
// both). Interface and ownership: striped_kernel.hpp. Scalar twin:
// align_pair_full_matrix (lib/src/align/reference/reference_aligner.cpp); every cell gets
// exactly its values and direction bits.
//
// Recurrence (Gotoh 1982; docs/scoring.md), O = go + ge, E = ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - E, H(i,j-1) - O)      opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - E, H(i-1,j) - O)      opening wins ties
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell [, 0 if local])
//                preference diagonal > E > F, zero first in local mode
//   borders: H(0,j) = 0 (local, semi-global) or -(go + j ge) (global);
//            H(i,0) = 0 (local) or -(go + i ge) (global, semi-global);
//            Ecell(i,0) = Fcell(0,j) = -inf.
//
// Striped layout. With L 16-bit lanes and seg_len = ceil(m / L), query row
// i (1-based) sits in segment k = (i-1) % seg_len, lane l = (i-1) / seg_len:
// vector k of a column holds rows k+1, seg_len+k+1, 2 seg_len+k+1, ...
// Rows m+1 .. L*seg_len are padding: they follow every real row, so they
// never feed one, and are kept out of the end cell. One query profile per
// pair: profile[a][k] = s(row of (k, l), a) for every ref code a, so a
// column reads its scores as seg_len aligned vectors (no gathers).
//
// Columns j = 1..n (ref) outer, segments inner. Per column:
//   1. main pass over k = 0..seg_len-1: Ecell from the previous column's H
//      and Ecell (final: they never change within a column), the diagonal
//      H(i-1,j-1) (segment k-1 of the previous column; for k = 0 the last
//      segment shifted up one lane, H(0,j-1) entering lane 0), and Fcell
//      from the segment above within the same lane only;
//   2. cross-lane F carry: the F leaving each lane's last segment, out(l),
//      enters lane l+1's first; an entering carry loses seg_len * ge over a
//      lane, so the exact carry into lane l is
//        cin(l) = max(out(l-1), cin(l-1) - seg_len * ge),  cin(0) = -inf
//      (lane 0's row 1 took Fcell(1,j) = H(0,j) - O in the main pass): a
//      prefix scan over lanes in log2(L) shift-and-max steps (one permute
//      per shift on AVX-512, through memory elsewhere). Farrar's lazy-F
//      loop instead re-runs the segments once per lane the carry crosses,
//      ~5 sweeps per column in global mode on protein.
//   3. one lazy-F sweep from cin: down the segments, raising Fcell and H,
//      while some lane is unsettled. Fcell(i) = max(Fcell(i-1) - ge,
//      Hd(i-1) - O) with Hd = max(diagonal, Ecell [, 0]) (F - O <= F - ge),
//      a max-plus linear recurrence in the Hd, so the final Fcell of
//      segment k is max(first-pass Fcell, x) with x = cin - k ge, and the
//      final H max(first-pass H, x): the carry x decays by ge per segment,
//      with no loop-carried chain through F and H. A lane is settled where
//      x does not exceed its Fcell (nothing changes), or x <= H - g with
//      g = max(go, 1), or (local) x <= 0. Once settled it stays settled
//      (x only decays, and the next first-pass Fcell >= H - O). In the
//      last two cases Fcell may stay below its final value, harmlessly: a
//      final Fcell <= H - g < H neither wins
//      H, nor makes the next row's Fcell an extension (F - ge <= H - O, and
//      F < H for go = 0), nor changes it (= H - O either way); a local
//      Fcell <= 0 never raises H above the zero floor, and every cell of a
//      traceback's F run has Fcell > 0 (the run is entered where F wins a
//      positive H and extends upwards by + ge), so the bits it leaves on
//      cells with Fcell <= 0 are never read. (Farrar's test, c <= H - go,
//      is the go >= 1 half of the second case.) The score kernel keeps no
//      Fcell and settles on the last two tests only.
//      Direction bits (traceback kernel): the main pass stores each cell's
//      bits from its first-pass values; every segment the sweep visits (the
//      one where it stops included) gets its F-dependent bits (F wins,
//      positive, F extended) rewritten from the final values; segment 0's
//      "F extended" is rewritten after the sweep from the final last
//      segment shifted up one lane. So each bit that a traceback can read
//      compares exactly the values the scalar reference compares, and ties
//      resolve as there.
//   4. end cell: local: the column's maximum; when it reaches the best so
//      far, the smallest real row holding it (the lowest lane with a match,
//      then its smallest segment) replaces the best cell when better or, on
//      a tie, when its row is smaller (rows first, then columns: the first
//      maximum in row-major order). Semi-global: H(m, j) against the best of
//      the last row (strictly better wins: smallest j, j = 0 included).
//      Global: H(m, n).
// Arithmetic saturates: a local best reaching 32767 reports overflow (the
// host re-scores the pair in 32 bits); global and semi-global pairs are
// admitted only under the host's static bound (simd_eligible), so their
// real cells never saturate; -32768 is minus infinity (it survives
// saturating subtraction, and every real value opens a gap above it, as
// the scalar neg_inf does).
//
// Direction bits: the five bit planes of LaneResults::dir (E wins, F wins,
// positive, E extended, F extended), one bit per lane, interleaved: the
// five plane_bytes() groups of one (column, segment) are adjacent, so a
// traceback step reads one cache line (striped_dir_byte() reads them).
//
// Cost per column: the main pass (3 loads, 2-3 stores, ~12 operations and,
// for traceback, 5 mask stores per segment), the lane scan, the sweep (a
// few segments in local mode; more in global mode, where F runs are long),
// and for local mode a column-maximum test (ColumnReaches; the full search
// for the first maximal row only when the column reaches the best so far).
//
// Benchmark method (the numbers go to docs/benchmarks.md):
// build/bench/cpu_bench --repeat 3 --workload protein512_sw|protein512_nw
// (10,000 UniProt pairs of 384-640 residues, BLOSUM62 11/1, all threads,
// best of 3, alignment only) times align_pairs_cpu (this kernel: protein
// takes it) and parasail 2.6's sw|nw_striped_16 (score-only) and
// sw|nw_trace_scan_16 + parasail_result_get_cigar (CIGAR) on the same
// pairs in the same run; on a shared machine compare only ratios taken
// within one run, over several runs. pacbio_* / miseq_* (DNA) check that
// the inter-pair kernel's DNA path is unchanged.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "align/simd/striped_kernel.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/aligned_allocator.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "align/simd/striped_kernel.hpp"
#include "align/simd/striped_end_cell.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpualign::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
StripedResult AlignStriped(const StripedPair&, const KernelScheme&, KernelKind, std::uint8_t*) {
    throw std::logic_error("striped kernel called on the scalar target");
}
#else

// -(go + k*ge) clamped to the 16-bit range.
inline std::int16_t striped_border(const KernelScheme& s, std::size_t k) {
    if (k == 0) return 0;
    const std::int64_t v = -(static_cast<std::int64_t>(s.gap_open) + static_cast<std::int64_t>(k) * s.gap_extend);
    return static_cast<std::int16_t>(std::max<std::int64_t>(v, -32768));
}

// Whether any of the S vectors at h (S >= 1) holds a value >= at_least.
HWY_NOINLINE bool ColumnReaches(const std::int16_t* HWY_RESTRICT h, std::size_t S, std::int16_t at_least) {
    const hn::ScalableTag<std::int16_t> d;
    const std::size_t L = hn::Lanes(d);
    auto m = hn::Load(d, h);
    for (std::size_t k = 1; k < S; ++k) m = hn::Max(m, hn::Load(d, h + k * L));
    return !hn::AllFalse(d, hn::Gt(m, hn::Set(d, static_cast<std::int16_t>(at_least - 1))));
}

// The largest of the S vectors at h (S >= 1).
HWY_NOINLINE std::int16_t ColumnMax(const std::int16_t* HWY_RESTRICT h, std::size_t S) {
    const hn::ScalableTag<std::int16_t> d;
    const std::size_t L = hn::Lanes(d);
    auto m = hn::Load(d, h);
    for (std::size_t k = 1; k < S; ++k) m = hn::Max(m, hn::Load(d, h + k * L));
    HWY_ALIGN std::int16_t lanes_out[hn::MaxLanes(d)];
    hn::Store(m, d, lanes_out);
    std::int16_t best = lanes_out[0];
    for (std::size_t l = 1; l < L; ++l) best = std::max(best, lanes_out[l]);
    return best;
}

/// One function body on purpose: the pass's vectors (H, E, F, the bests and
/// their cells) stay in registers across the whole loop nest, which helper
/// calls would have to pass through memory; the recurrence is in the file's
/// header.
template <AlignMode kMode, KernelKind kKind>
HWY_NOINLINE StripedResult Run(const StripedPair& p, const KernelScheme& ks, std::uint8_t* dir) {
    constexpr bool kLocal = kMode == AlignMode::local;
    constexpr bool kGlobal = kMode == AlignMode::global;
    constexpr bool kBits = kKind == KernelKind::traceback;
    const hn::ScalableTag<std::int16_t> d;
    using V = hn::Vec<decltype(d)>;
    const std::size_t L = hn::Lanes(d);
    const std::size_t m = p.query_len, n = p.ref_len;
    const std::size_t S = (m + L - 1) / L;  // seg_len
    const std::size_t size = static_cast<std::size_t>(ks.alphabet_size);
    const std::size_t pb = dir_plane_bytes(L);
    const std::size_t stride = pb;              // bytes between planes (interleaved)
    const std::size_t cell_bytes = kDirPlanes * pb;  // one (column, segment)

    // Buffers: the profile, two H columns (one guard vector in front, for
    // the shifted load of the last segment), Ecell, Fcell, a scratch vector.
    auto prof = hwy::AllocateAligned<std::int16_t>(size * S * L);
    auto h_buf = hwy::AllocateAligned<std::int16_t>(2 * (S + 1) * L);
    auto e_buf = hwy::AllocateAligned<std::int16_t>(S * L);
    auto f_buf = hwy::AllocateAligned<std::int16_t>(S * L);
    auto hde_buf = hwy::AllocateAligned<std::int16_t>(kBits ? S * L : L);
    auto tmp = hwy::AllocateAligned<std::int16_t>(2 * L + 2);
    if (!prof || !h_buf || !e_buf || !f_buf || !hde_buf || !tmp) throw std::bad_alloc();

    // Profile: padding rows score -16384 (they never feed a real cell).
    // From the striped query codes (padding: code `size`), one letter's
    // matrix column at a time: profile[a][k] = column_a[codes[k]].
    constexpr std::int16_t kPad = -16384;
    auto codes = hwy::AllocateAligned<std::int16_t>(S * L);
    auto column = hwy::AllocateAligned<std::int16_t>(std::max<std::size_t>(size + 1, 32));
    if (!codes || !column) throw std::bad_alloc();
    for (std::size_t k = 0; k < S; ++k)
        for (std::size_t l = 0; l < L; ++l) {
            const std::size_t i = l * S + k;  // 0-based row
            codes[k * L + l] = static_cast<std::int16_t>(i < m ? p.query[i] : size);
        }
    for (std::size_t a = 0; a < size; ++a) {
        std::int16_t* col = column.get();
        for (std::size_t x = 0; x < size; ++x) col[x] = static_cast<std::int16_t>(ks.matrix[x * size + a]);
        col[size] = kPad;
        std::int16_t* out = prof.get() + a * S * L;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
        if (size < 32) {  // one permute per vector: the column fits one register
            for (std::size_t x = size + 1; x < 32; ++x) col[x] = kPad;
            const __m512i table = _mm512_loadu_si512(col);
            for (std::size_t k = 0; k < S; ++k)
                _mm512_store_si512(out + k * L, _mm512_permutexvar_epi16(_mm512_load_si512(codes.get() + k * L), table));
            continue;
        }
#endif
        for (std::size_t e = 0; e < S * L; ++e) out[e] = col[codes[e]];
    }

    const std::int16_t go = ks.gap_open, ge = ks.gap_extend;
    const std::int16_t open = static_cast<std::int16_t>(go + ge);
    const V v_open = hn::Set(d, open), v_ext = hn::Set(d, ge);
    // Lazy-F sweep: a carry x <= H - max(go, 1) changes no H and no bit.
    const V v_settle = hn::Set(d, static_cast<std::int16_t>(std::max<std::int16_t>(go, 1)));
    // Local: a carry <= 0 is settled too (below).
    const V v_floor = kLocal ? hn::Zero(d) : hn::Set(d, static_cast<std::int16_t>(-32768));
    const V v_zero = hn::Zero(d);
    const V v_neg = hn::Set(d, static_cast<std::int16_t>(-32768));
    const auto first_lane = hn::FirstN(d, 1);

    std::int16_t* hp = h_buf.get() + L;          // H of column j-1
    std::int16_t* hc = h_buf.get() + (S + 2) * L;  // H of column j
    std::int16_t* ecol = e_buf.get();
    std::int16_t* fcol = f_buf.get();
    std::int16_t* hde_col = hde_buf.get();
    // Column 0: H(i,0), Ecell(i,0) = -inf.
    for (std::size_t k = 0; k < S; ++k)
        for (std::size_t l = 0; l < L; ++l) {
            const std::size_t i = l * S + k + 1;
            hp[k * L + l] = kLocal ? std::int16_t{0} : striped_border(ks, i);
            ecol[k * L + l] = -32768;
        }
    hp[-1] = hc[-1] = 0;  // guards (lane 0 of the shifted load is replaced)

    std::int16_t* t = tmp.get();
    // Up-shift by s lanes (lane l takes lane l - s; lanes below s take
    // `fill`): one permute on AVX-512, through memory elsewhere.
    auto shift_up_n = [&](V v, std::size_t s, std::int16_t fill) HWY_ATTR {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
        const V idx = hn::Iota(d, static_cast<std::int16_t>(-static_cast<int>(s)));
        return V{_mm512_mask_permutexvar_epi16(hn::Set(d, fill).raw, static_cast<__mmask32>(~0u << s), idx.raw, v.raw)};
#else
        hn::StoreU(v, d, t + s);
        for (std::size_t i = 0; i < s; ++i) t[i] = fill;
        return hn::LoadU(d, t);
#endif
    };
    // The carry into lane l is max(out(l-1), carry(l-1) - seg_len * ge): a
    // prefix scan over lanes in log2(L) steps; step s (shift 2^s lanes)
    // subtracts 2^s * seg_len * ge, as two saturating parts.
    std::int16_t decay_a[16], decay_b[16];
    for (std::size_t s = 1, step = 0; s < L; s *= 2, ++step) {
        const std::int64_t dec = static_cast<std::int64_t>(s) * static_cast<std::int64_t>(S) * ge;
        decay_a[step] = static_cast<std::int16_t>(std::min<std::int64_t>(dec, 32767));
        decay_b[step] = static_cast<std::int16_t>(std::min<std::int64_t>(std::max<std::int64_t>(dec - 32767, 0), 32767));
    }
    auto top = [&](std::size_t j) { return kGlobal ? striped_border(ks, j) : std::int16_t{0}; };

    // Where row m lives (global, semi-global end cells).
    const std::size_t m_at = ((m - 1) % S) * L + (m - 1) / S;
    std::int32_t best = kLocal ? 0 : kGlobal ? 0 : striped_border(ks, m);
    std::int32_t best_i = kLocal ? 0 : static_cast<std::int32_t>(m), best_j = 0;

    for (std::size_t j = 1; j <= n; ++j) {
        const std::int16_t* pr = prof.get() + static_cast<std::size_t>(p.ref[j - 1]) * S * L;
        const std::int16_t top_prev = top(j - 1), top_cur = top(j);
        const std::int16_t f_row1 = static_cast<std::int16_t>(std::max<std::int32_t>(top_cur - open, -32768));
        std::uint8_t* cdir = kBits ? dir + (j - 1) * S * cell_bytes : nullptr;  // this column's bits
        // 1. Main pass.
        V diag = hn::IfThenElse(first_lane, hn::Set(d, top_prev), hn::LoadU(d, hp + (S - 1) * L - 1));
        V c_ext = v_neg;  // F carried down: its extension and opening parts
        V c_open = hn::IfThenElse(first_lane, hn::Set(d, f_row1), v_neg);
        for (std::size_t k = 0; k < S; ++k) {
            const V h_left = hn::Load(d, hp + k * L);
            const V e_ext = hn::SaturatedSub(hn::Load(d, ecol + k * L), v_ext);
            const V e_open = hn::SaturatedSub(h_left, v_open);
            const V e = hn::Max(e_ext, e_open);
            hn::Store(e, d, ecol + k * L);
            V h = hn::SaturatedAdd(diag, hn::Load(d, pr + k * L));
            const V f = hn::Max(c_ext, c_open);
            if constexpr (kBits) {
                const auto e_wins = hn::Gt(e, h);
                h = hn::Max(h, e);
                hn::Store(h, d, hde_col + k * L);  // max(diagonal, E): the sweep's "F wins" test
                const auto f_wins = hn::Gt(f, h);
                h = hn::Max(h, f);
                std::uint8_t* b = cdir + k * cell_bytes;
                hn::StoreMaskBits(d, e_wins, b);
                hn::StoreMaskBits(d, f_wins, b + stride);
                hn::StoreMaskBits(d, hn::Gt(e_ext, e_open), b + 3 * stride);
                hn::StoreMaskBits(d, hn::Gt(c_ext, c_open), b + 4 * stride);
                if constexpr (kLocal) hn::StoreMaskBits(d, hn::Gt(h, v_zero), b + 2 * stride);
                hn::Store(f, d, fcol + k * L);
            } else {
                h = hn::Max(h, hn::Max(e, f));
            }
            if constexpr (kLocal) {
                h = hn::Max(h, v_zero);
            }
            hn::Store(h, d, hc + k * L);
            c_ext = hn::SaturatedSub(f, v_ext);
            c_open = hn::SaturatedSub(h, v_open);
            diag = h_left;
        }
        // 2. Cross-lane F: the exact carry into segment 0 of every lane.
        V cin = shift_up_n(hn::Max(c_ext, c_open), 1, -32768);
        for (std::size_t s = 1, step = 0; s < L; s *= 2, ++step)
            cin = hn::Max(cin, hn::SaturatedSub(hn::SaturatedSub(shift_up_n(cin, s, -32768), hn::Set(d, decay_a[step])),
                                                hn::Set(d, decay_b[step])));
        // 3. One sweep of the lazy-F loop from that carry.
        // The final Fcell of segment k is max(first-pass Fcell, cin - k ge):
        // the carry x decays by ge per segment, independent of the segment's
        // values (no loop-carried chain through F and H).
        V x = cin;
        if constexpr (kBits) {
            for (std::size_t k = 0; k < S; ++k, x = hn::SaturatedSub(x, v_ext)) {
                const V f_old = hn::Load(d, fcol + k * L);
                const V h_old = hn::Load(d, hc + k * L);
                std::uint8_t* b = cdir + k * cell_bytes;
                // "F extended" from segment k-1's final values (k = 0: below).
                if (k > 0) hn::StoreMaskBits(d, hn::Gt(c_ext, c_open), b + 4 * stride);
                if (hn::AllFalse(d, hn::And(hn::And(hn::Gt(x, f_old), hn::Gt(x, v_floor)),
                                            hn::Gt(x, hn::SaturatedSub(h_old, v_settle)))))
                    break;  // every lane settled: nothing that matters changes from here on
                const V f = hn::Max(f_old, x);
                hn::Store(f, d, fcol + k * L);
                const V h = hn::Max(h_old, f);
                hn::Store(h, d, hc + k * L);
                // F wins against max(diagonal, E) of this cell.
                hn::StoreMaskBits(d, hn::Gt(f, hn::Load(d, hde_col + k * L)), b + stride);
                if constexpr (kLocal) hn::StoreMaskBits(d, hn::Gt(h, v_zero), b + 2 * stride);
                c_ext = hn::SaturatedSub(f, v_ext);
                c_open = hn::SaturatedSub(h, v_open);
            }
            // Segment 0's "F extended" from the row above: the previous
            // lane's last segment (lane 0: F(0,j) = -inf, H(0,j)).
            const V f_up = shift_up_n(hn::Load(d, fcol + (S - 1) * L), 1, -32768);
            const V h_up = shift_up_n(hn::Load(d, hc + (S - 1) * L), 1, top_cur);
            hn::StoreMaskBits(d, hn::Gt(hn::SaturatedSub(f_up, v_ext), hn::SaturatedSub(h_up, v_open)), cdir + 4 * stride);
        } else {
            // No Fcell kept: a lane is settled where x <= H - g (H keeps
            // its value, the next Fcell its first-pass value) or, in local
            // mode, x <= 0.
            // (H = max(first-pass H, x): the first-pass H covers the
            // first-pass Fcell.)
            for (std::size_t k = 0; k < S; ++k, x = hn::SaturatedSub(x, v_ext)) {
                const V h_old = hn::Load(d, hc + k * L);
                if (hn::AllFalse(d, hn::And(hn::Gt(x, v_floor), hn::Gt(x, hn::SaturatedSub(h_old, v_settle)))))
                    break;  // every lane settled
                hn::Store(hn::Max(h_old, x), d, hc + k * L);
            }
        }
        // 4. End cell.
        if constexpr (kLocal) {
            // The column's maximum, from the final H (a function of its own:
            // accumulated in this loop nest, GCC kept it on the stack).
            if (ColumnReaches(hc, S, static_cast<std::int16_t>(std::max<std::int32_t>(best, 1)))) {
                // It reaches the best so far (while unaligned: any positive).
                const std::int16_t cb = ColumnMax(hc, S);
                const V v_cb = hn::Set(d, cb);
                auto any = hn::Eq(hn::Load(d, hc), v_cb);
                for (std::size_t k = 1; k < S; ++k) any = hn::Or(any, hn::Eq(hn::Load(d, hc + k * L), v_cb));
                const intptr_t first = hn::FindFirstTrue(d, any);  // lowest lane with a match: smallest rows
                const std::size_t lane = first < 0 ? L : static_cast<std::size_t>(first);
                offer_column_max(hc, S, L, lane, m, cb, j, best, best_i, best_j);
            }
        } else if constexpr (!kGlobal) {
            if (hc[m_at] > best) {
                best = hc[m_at];
                best_j = static_cast<std::int32_t>(j);
            }
        }
        std::swap(hp, hc);
    }

    StripedResult r;
    if constexpr (kGlobal) {
        r.score = hp[m_at];
        r.query_end = static_cast<std::int32_t>(m);
        r.ref_end = static_cast<std::int32_t>(n);
    } else {
        r.score = best;
        r.query_end = best_i;
        r.ref_end = best_j;
        r.overflow = kLocal && best >= 32767;
    }
    return r;
}

StripedResult AlignStriped(const StripedPair& p, const KernelScheme& s, KernelKind kind, std::uint8_t* dir) {
    using Fn = StripedResult (*)(const StripedPair&, const KernelScheme&, std::uint8_t*);
    using M = AlignMode;
    using K = KernelKind;
    static constexpr Fn table[3][2] = {
        {&Run<M::local, K::traceback>, &Run<M::local, K::score>},
        {&Run<M::global, K::traceback>, &Run<M::global, K::score>},
        {&Run<M::semi_global, K::traceback>, &Run<M::semi_global, K::score>},
    };
    return table[static_cast<int>(s.mode)][static_cast<int>(kind)](p, s, dir);
}

#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace gpualign::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpualign::cpu {

HWY_EXPORT(AlignStriped);

StripedResult align_striped(const StripedPair& p, const KernelScheme& s, KernelKind kind, std::uint8_t* dir) {
    return HWY_DYNAMIC_DISPATCH(AlignStriped)(p, s, kind, dir);
}

}  // namespace gpualign::cpu
#endif  // HWY_ONCE
