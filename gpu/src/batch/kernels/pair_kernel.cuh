// gpualign — the inter-pair kernel of the batch engine (score-only): one
// thread aligns two pairs at once, pair 2t in the low 16-bit half of each
// register and pair 2t+1 in the high half, with the u16x2 DPX instructions
// (inter-sequence parallelism as in SWIPE (Rognes 2011) and the search
// engine's scan_kernel_s16x2, here with a query and a ref of its own in each
// half). Device code only (included by batch_dispatch.cu).
//
// The forward passes sweep rows two a step (GPUALIGN_TUNE_PAIR_ROWS): the
// second row's cells issue while the first row's Ecell chain, the serial
// part of a row, runs. The reverse pass sweeps one a step
// (GPUALIGN_TUNE_PAIR_REVERSE_ROWS), where the bound's state leaves no
// registers for a second row (docs/gpu.md, "Tuning").
//
// Layout (transposed against dp_kernel): a thread holds pair_cols = 32 ref
// columns of both pairs in registers (a column strip) and sweeps the query
// rows i = 1..m top to bottom, each row left to right across its columns;
// the strip's last column (T and Ecell of each row) goes to the next strip
// through a per-thread boundary buffer in device memory, entry (row i,
// thread t) at pair_boundary[(i-1) * threads + t], so a warp's stores
// coalesce. Sweeping rows of a column strip visits the strip's cells in
// row-major order, which is the order of the canonical tie rule
// (docs/scoring.md): the first row that raises a strip's best holds the
// strip's canonical best cell.
//
// Recurrence (Gotoh 1982; docs/scoring.md), O = go + ge, T = H - O per cell:
//   Ecell(i,j) = max(Ecell(i,j-1) - ge, T(i,j-1) [, 0])   one __viaddmax_u16x2
//                (the forward local pass: a subtraction and __vimax3_u16x2)
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, T(i-1,j))          one __viaddmax_u16x2
//   H(i,j)     = max(T(i-1,j-1) + (s + O), Ecell, Fcell)    an add and one __vimax3_u16x2
//                (SignedProfile: __viaddmax_u16x2, then __vmaxu2)
//   T(i,j)     = H(i,j) - O
// Values are stored biased, H + B in [0, 65535] per half with
// B = O + ge + L (L = 0 for the forward local pass, where the zero enters
// through Ecell floored at B as in the search kernel; otherwise
// L = 2go + (m+n)ge + 2O, below the all-gap path's -(2go + (m+n)ge)).
// Every stored H is then at least O + ge and every T, Ecell and Fcell at
// least ge: real cells by the bias; the borders are clamped there
// (border_t); and pad letters (rows past a query's end, columns past a
// ref's end) score s = 0, so that a pad cell's H is at least its diagonal
// neighbour's. So the plain 32-bit subtractions (Ecell - ge, Fcell - ge,
// H - O) never borrow between the halves and no Ecell needs a floor of its
// own: the pad cells of the shorter pair of a thread (below its last row
// or right of its last column) would otherwise lose O a step and wrap.
// No real cell depends on a pad cell, the pad cells' values never exceed
// the real ones', and the scans below read real cells only. T + (s + O)
// is a plain 32-bit addition where s + O >= 0 for every code pair; a
// scheme with s + O down to -ge (linear gaps with a mismatch larger than
// the gap cost; template SignedProfile) adds it per half
// (__viaddmax_u16x2, s + O sign-extended from its profile byte), and the
// sum stays >= 0. Each pass takes a pair only when
// B + max(s, 0) * min(m, n) + max(s + O) fits 16 bits (pair_fits_16bit,
// from its lengths and the scheme), so nothing saturates; other pairs get
// status pair_fallback and are aligned by dp_kernel in 32 bits.
//
// Passes (template Reverse):
//  - forward: the score and the canonical end cell. Local: per row the
//    running maximum of the row's H (one __vimax3 per two cells); a row that
//    raises the strip's best is scanned for its first real cell of that
//    value (a branch taken by few rows: each strip's best starts just below
//    the best of the strips before, which a strip must reach to win), and
//    strips are merged on (H desc, i asc, j asc). Global: H(m, n).
//    Semi-global: row m scanned in each strip for its best cell (smallest
//    j), from H(m, 0) = -(go + m ge).
//  - reverse: the begin cell, for local and semi-global pairs. The DP of
//    the reversed prefixes q[0..ie) and r[0..je), anchored at the end cell
//    with global borders (H_rev(k,l) = the best score of a path from cell
//    (ie-k, je-l) to (ie, je)). Every path from a cell X to the end scores
//    at most H(end) - H(X) <= S (H >= 0 in local mode; H(0,j) = 0 in
//    semi-global mode), and the canonical traceback's path from its begin
//    B scores exactly S, so B is among the cells with H_rev = S (local: any
//    cell; semi-global: the query's first row, reversed row ie). The pass
//    counts them; when exactly one exists it is B (docs/scoring.md,
//    "Begin cells of the inter-pair kernel"). Two or more: status
//    pair_fallback.
//    Bounded (BatchParams::reverse_bound): no path from a cell of value V at
//    reversed (k, l) gains more than Mx * min(ie - k, je - l) (Mx = the
//    largest substitution score, or 0; every gap step costs), so a cell with
//    V + Mx * min(ie - k, je - l) < S is dead: no cell with H_rev = S lies on
//    a path through it. A strip's row is live when one of its cells may be
//    (the row's largest H, tested at the strip's first column). Each strip
//    computes rows from its first possibly live row (1 when its top border
//    is live, else the previous strip's first live row) to the first dead
//    row past the previous strip's last live row (a row whose inputs are all
//    dead is dead); the left column of rows outside the previous strip's
//    live rows is read as the floor, and a strip after one without live
//    rows (with a dead top border) ends the pass. Cells on a path of value S
//    are live and computed exactly, the others only lose value, so the
//    candidates counted are the same (docs/scoring.md, "The reverse pass's
//    bound").
//    Forward bound (BatchParams::row_bound): the forward local and
//    semi-global passes keep a bound of H per strip and block of
//    pair_bound_rows rows, and a reversed row also needs its largest value +
//    the bound of the forward cells it pairs with + go >= S: a cell of a path
//    of value S from a candidate to the end has Hrev + Hf + go >= S
//    (docs/scoring.md, "The reverse pass's forward bound").
//  - traceback variant (template Dirs, forward only): the forward pass of
//    every mode, which also stores 4 direction bits per cell for
//    pair_traceback_kernel (layout: pair_dir_region_bytes, batch_layout.hpp).
//    With D = T(i-1,j-1) + s + O the diagonal term, all values biased:
//      bit 0: H != D          bit 1: H != Ecell
//      bit 2: Ecell != T(i,j-1) (the gap was extended: opening wins ties)
//      bit 3: Fcell != T(i-1,j) (likewise)
//    so that the source of H under the preference diagonal > E > F is
//    diagonal when bit 0 is clear, else E when bit 1 is clear, else F. Each
//    difference is >= 0 in each half (every max above includes the
//    subtracted term), so one 32-bit subtraction computes both halves and
//    min(difference, 1) per half (__vminu2) is the bit. A local path's zero
//    (H = 0) is not stored: the traceback carries the value of H along the
//    path. The host sends only pairs that fit 16 bits (no pair_fallback).
#pragma once

#include <cstdint>

#include "../batch_params.hpp"
#include "../batch_tuning.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::kernels {

namespace pair_detail {
/// v in both 16-bit halves.
__device__ __forceinline__ unsigned twice(int v) { return (static_cast<unsigned>(v) & 0xFFFFu) * 0x10001u; }
__device__ __forceinline__ unsigned pack(int lo, int hi) {
    return (static_cast<unsigned>(lo) & 0xFFFFu) | (static_cast<unsigned>(hi) << 16);
}
__device__ __forceinline__ int half(unsigned v, int h) { return h ? static_cast<int>(v >> 16) : static_cast<int>(v & 0xFFFFu); }
/// PTX prmt in its default mode, where a selector nibble with bit 3 set
/// replicates the sign bit of the byte it selects (__byte_perm ignores that
/// bit): it sign-extends a byte into a 16-bit half.
__device__ __forceinline__ unsigned prmt(unsigned a, unsigned b, unsigned sel) {
    unsigned d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
    return d;
}
}  // namespace pair_detail

/// One function body on purpose: the registers it sweeps with (the strip's
/// columns, gap states, bests) live across the whole loop nest; the
/// recurrence and the passes are in the file's header. Dynamic shared
/// memory: detail::pair_block_smem(p.size). SignedProfile: the scheme has
/// s + O < 0 (BatchParams::negative_profile).
template <AlignMode Mode, bool Reverse, bool SignedProfile, bool Dirs = false>
__global__ void __launch_bounds__(detail::pair_block, GPUALIGN_TUNE_PAIR_MIN_BLOCKS) pair_kernel(detail::BatchParams p) {
    using namespace pair_detail;
    constexpr int R = detail::pair_cols;
    constexpr bool Local = Mode == AlignMode::local;
    constexpr bool Semi = Mode == AlignMode::semi_global;
    constexpr bool Global = Mode == AlignMode::global;
    constexpr bool ZeroFloor = Local && !Reverse;        // H >= 0 through Ecell
    constexpr bool TopFree = !Global && !Reverse;        // H(0,j) = 0
    constexpr bool LeftFree = Local && !Reverse;         // H(i,0) = 0
    // The forward local and semi-global passes of score-only batches keep the
    // row bound for the reverse pass (BatchParams::row_bound).
    constexpr bool BoundOut = !Reverse && !Dirs && !Global;
    constexpr int G = detail::pair_bound_rows;
    static_assert(!(Reverse && Global), "a global pair's begin is (0,0)");
    static_assert(!(Reverse && Dirs), "the traceback variant is a forward pass");

    extern __shared__ __align__(16) unsigned char smem[];
    const int letters = p.size + 1;  // the alphabet and the pad letter (code p.size)
    const int go = p.gap_open, ge = p.gap_extend, open = go + ge;
    // The scheme's s + O as signed bytes (-ge..127, pair_kernel_scheme), once per block.
    std::uint8_t* const matrix = smem;
    for (int k = threadIdx.x; k < p.size * p.size; k += detail::pair_block)
        matrix[k] = static_cast<std::uint8_t>(p.matrix[k] + open);
    __syncthreads();
    const std::uint32_t t = blockIdx.x * detail::pair_block + threadIdx.x;
    const std::uint32_t threads = (p.count + 1) / 2;
    if (t >= threads) return;
    std::uint8_t* const prof =
        smem + detail::pair_matrix_bytes(p.size) + threadIdx.x * detail::pair_profile_bytes(letters);
    const int half_bytes = letters * R;  // one half's profile: letters x R bytes
    const unsigned pad = static_cast<unsigned>(open);  // a pad letter's profile byte: s + O with s = 0

    const std::uint32_t wanted = Reverse ? detail::pair_reverse : detail::pair_forward;

    // Per half: the pair, its DP's extent, bias and sequences.
    bool on[2];
    int m[2], n[2], bias[2], target[2] = {0, 0};  // reverse pass: m, n = the end cell (ie, je)
    int fbias[2] = {0, 0};                         // reverse pass: the forward pass's bias (its row bound's values)
    const std::uint8_t* qs[2];
    const std::uint8_t* rs[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const std::uint32_t b = 2 * t + h;
        on[h] = b < p.count && (Dirs || p.status[b] == wanted);
        m[h] = n[h] = 0;
        qs[h] = rs[h] = p.seqs;
        if (on[h]) {
            const detail::PairTask task = p.tasks[b];
            qs[h] = p.seqs + task.query_offset;
            rs[h] = p.seqs + task.ref_offset;
            if constexpr (Reverse) {
                m[h] = p.out[detail::out_query_end * p.count + b];
                n[h] = p.out[detail::out_ref_end * p.count + b];
                target[h] = p.out[detail::out_score * p.count + b];
                fbias[h] = static_cast<int>(detail::pair_bias(Local, go, ge, task.query_len, task.ref_len));
            } else {
                m[h] = static_cast<int>(task.query_len);
                n[h] = static_cast<int>(task.ref_len);
            }
        }
        bias[h] = static_cast<int>(detail::pair_bias(ZeroFloor, go, ge, m[h], n[h]));
        if (on[h] && !detail::pair_fits_16bit(bias[h], p.max_score, open, m[h], n[h])) {
            // The traceback variant has no fallback (the host sends fitting pairs
            // only): runs = -1 marks the pair failed, which the engine reports.
            if constexpr (Dirs)
                p.out[detail::out_cigar_runs * p.count + b] = -1;
            else
                p.status[b] = detail::pair_fallback;
            on[h] = false;
            m[h] = n[h] = 0;
            bias[h] = static_cast<int>(detail::pair_bias(ZeroFloor, go, ge, 0, 0));  // an idle half
        }
    }
    const int M = max(m[0], m[1]), N = max(n[0], n[1]);
    if (M == 0 || N == 0) return;
    const int strips = (N + R - 1) / R;

    const unsigned open2 = twice(open), ge2 = twice(ge), neg_ge2 = twice(-ge);
    const unsigned floor2 = twice(open + ge);  // the least stored H (= H 0 in the forward local pass)
    const unsigned fninf2 = ge2;               // Fcell "-inf": Fcell - ge = 0, below every T
    // Biased T of a real H on the borders, floored like every value.
    auto border_t = [&](int h, int H) { return max(H + bias[h] - open, ge); };
    auto top_h = [&](int j) { return (TopFree || j == 0) ? 0 : -(go + j * ge); };
    auto left_h = [&](int i) { return (LeftFree || i == 0) ? 0 : -(go + i * ge); };
    auto code = [&](const std::uint8_t* s, int len, int k) -> int {
        if (k >= len) return p.size;  // pad letter
        return s[Reverse ? len - 1 - k : k];
    };

    uint2* const boundary = reinterpret_cast<uint2*>(p.pair_boundary);
    // Traceback variant: this thread's entries of its warp's direction region.
    uint4* dir_base = nullptr;
    std::size_t dir_rows = 0;
    if constexpr (Dirs) {
        const detail::PairTask lead = p.tasks[2 * t];
        dir_base = reinterpret_cast<uint4*>(p.dirs + lead.dir_offset) + (threadIdx.x & 31u);
        dir_rows = lead.dir_rows;
    }
    constexpr int dir_groups = R / 16;  // uint4 entries per row and strip
    const unsigned one2 = twice(1);

    // Results per half. Forward local: best H (biased) and its cell;
    // semi-global: best of row m and its column; global: H(m, n).
    // Reverse: candidates found and the first one.
    int best[2], bi[2] = {0, 0}, bj[2] = {0, 0}, found[2] = {0, 0};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        best[h] = bias[h];  // H = 0
        if constexpr (Semi && !Reverse) best[h] = bias[h] - (go + m[h] * ge);  // H(m, 0)
        if constexpr (Semi && Reverse)  // H_rev(m, 0): the whole query inserted before the end
            if (on[h] && target[h] == -(go + m[h] * ge)) {
                found[h] = 1;
                bi[h] = m[h];
                bj[h] = 0;
            }
    }

    // Reverse pass bound (header): whether a value v (H, unbiased) at
    // reversed (k, l) of half h may still lead to a cell with H_rev = S, and
    // the previous strip's first and last live rows.
    const bool bound = Reverse && p.reverse_bound;
    const bool fwd_bound = bound && p.row_bound != nullptr;  // the forward pass's row bound too
    const int mx = max(p.max_score, 0);
    auto may_reach = [&](int h, int v, int k, int l) {
        return on[h] && k <= m[h] && l <= n[h] && v + mx * min(m[h] - k, n[h] - l) >= target[h];
    };
    int prev_first = 1, prev_last = M;

    for (int s = 0; s < strips; ++s) {
        const int j0 = s * R;  // the strip holds columns j0+1 .. j0+R
        const bool last_strip = s + 1 == strips;
        // The strip's first row: rows above the previous strip's first live
        // row are dead when the strip's top border is.
        int k_start = 1;
        if constexpr (Reverse) {
            if (bound && s > 0 && !may_reach(0, top_h(j0), 0, j0) && !may_reach(1, top_h(j0), 0, j0)) {
                if (prev_first > prev_last) break;  // nothing live to the left or above: no candidate further right
                k_start = prev_first;
            }
        }
        // This thread's profile: prof[h][a][c] = s(a, r_{j0+c}) + O (a signed byte), O for pad letters and columns (s = 0),
        // written a 4-byte word at a time.
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            std::uint8_t* ph = prof + h * half_bytes;
#pragma unroll 1
            for (int w = 0; w < R / 4; ++w) {
                int rc[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) rc[k] = code(rs[h], n[h], j0 + 4 * w + k);
                for (int a = 0; a < letters; ++a) {
                    const std::uint8_t* row = matrix + a * p.size;
                    const bool real = a < p.size;
                    unsigned word = 0;
#pragma unroll
                    for (int k = 0; k < 4; ++k)
                        word |= ((real && rc[k] < p.size) ? static_cast<unsigned>(row[rc[k]]) : pad) << (8 * k);
                    reinterpret_cast<unsigned*>(ph + a * R)[w] = word;
                }
            }
        }
        // Row k_start - 1 of the strip's columns: row 0 (T = H(0, j) - O,
        // Fcell = -inf), or dead rows of the bound, read as the floor.
        unsigned T[R], F[R];
#pragma unroll
        for (int c = 0; c < R; ++c) {
            T[c] = k_start == 1 ? pack(border_t(0, top_h(j0 + c + 1)), border_t(1, top_h(j0 + c + 1))) : ge2;
            F[c] = fninf2;
        }
        unsigned up_left = k_start == 1 ? pack(border_t(0, top_h(j0)), border_t(1, top_h(j0))) : ge2;  // T(i-1, j0)
        // Strip-local best (forward local): strictly raised only, so the first
        // row holding it wins. It starts just below the best of the strips
        // before (a strip that cannot reach it cannot win, and one that ties
        // it may, with a smaller row), so rows below it are never scanned.
        unsigned sbest = pack(bias[0], bias[1]);
        if (GPUALIGN_TUNE_PAIR_CARRY_BEST)
            sbest = pack(best[0] > bias[0] ? best[0] - 1 : bias[0], best[1] > bias[1] ? best[1] - 1 : bias[1]);
        unsigned sbij[2] = {0u, 0u};  // the strip best's cell, (i << 16) | j (lengths < 2^16)
        // Real columns of this strip per half.
        const int lim0 = min(R, max(n[0] - j0, 0)), lim1 = min(R, max(n[1] - j0, 0));
        const unsigned tgt2 = pack(target[0] + bias[0], target[1] + bias[1]);
        int fb_rb[2] = {-1, -1};            // reverse pass: the forward row block whose words fb_w hold
        unsigned fb_w[2][2] = {{0, 0}, {0, 0}};
        // Forward semi-global pass: the largest T of the current block of G rows
        // (BatchParams::row_bound; the local pass stores its blocks at once).
        unsigned bmax = 0;
        // The row bound's word of row i's block in this strip (forward passes).
        auto bound_word = [&](int i) -> unsigned& {
            return p.row_bound[(static_cast<std::size_t>(s) * p.bound_blocks + (i - 1) / G) * threads + t];
        };
        auto note_bound = [&](int i, unsigned rowmax) {
            if constexpr (BoundOut) {
                if constexpr (Local) {  // a lone last row (odd M): the others come by two, below
                    if (p.row_bound) bound_word(i) = rowmax;
                } else {
                    bmax = __vmaxu2(bmax, rowmax);
                    if (i % G == 0 && p.row_bound) {
                        bound_word(i) = bmax;
                        bmax = 0;
                    }
                }
            }
        };

        // The previous strip's (T, Ecell) of its last column in row `row`
        // (s > 0); the floor for rows it left dead (the bound).
        auto left_of = [&](int row) -> uint2 {
            if constexpr (Reverse)
                if (bound && (row < prev_first || row > prev_last)) return make_uint2(ge2, floor2);
            return boundary[static_cast<std::size_t>(row - 1) * threads + t];
        };
        // Loads two rows ahead of use (the boundary entries come from device
        // memory): the left column's (T, Ecell) and the two query letters.
        uint2 b_next[2] = {make_uint2(0, 0), make_uint2(0, 0)};
        int qa_next[2], qb_next[2];
#pragma unroll
        for (int x = 0; x < 2; ++x) {
            if (s > 0 && k_start - 1 + x < M) b_next[x] = left_of(k_start + x);
            qa_next[x] = code(qs[0], m[0], k_start + x - 1);
            qb_next[x] = code(qs[1], m[1], k_start + x - 1);
        }
        // Row i's inputs, from the prefetch (then row i + 2 is prefetched):
        // the strip's left column T(i, j0), Ecell(i, j0) and the query letters.
        auto next_row = [&](int i, unsigned& t_left, unsigned& e, int& qa, int& qb) {
            const uint2 b = b_next[0];
            qa = qa_next[0];
            qb = qb_next[0];
            b_next[0] = b_next[1];
            qa_next[0] = qa_next[1];
            qb_next[0] = qb_next[1];
            if (s > 0 && i + 1 < M) b_next[1] = left_of(i + 2);
            qa_next[1] = code(qs[0], m[0], i + 1);
            qb_next[1] = code(qs[1], m[1], i + 1);
            if (s == 0) {
                t_left = pack(border_t(0, left_h(i)), border_t(1, left_h(i)));
                e = floor2;
            } else {
                t_left = b.x;
                e = b.y;
            }
        };
        // Row i across the strip (T and F updated in place); returns the
        // row's largest T (local, reverse and row-bound passes) and stores
        // the strip's boundary.
        auto compute_row = [&](int i, unsigned t_left, unsigned e, int qa, int qb) -> unsigned {
            const uint4* pa = reinterpret_cast<const uint4*>(prof + qa * R);
            const uint4* pb = reinterpret_cast<const uint4*>(prof + half_bytes + qb * R);
            unsigned diag = up_left;
            up_left = t_left;
            unsigned tl = t_left;
            unsigned rowmax = 0;  // the row's largest T (local, reverse and row-bound passes)
            uint4* const drow =
                Dirs ? dir_base + ((static_cast<std::size_t>(s) * dir_rows + (i - 1)) * dir_groups) * 32u : nullptr;
#pragma unroll
            for (int g = 0; g < R / 16; ++g) {
                unsigned dw[4] = {0, 0, 0, 0};  // traceback variant: the group's direction words
                const uint4 wa = pa[g], wb = pb[g];
                const unsigned aw[4] = {wa.x, wa.y, wa.z, wa.w}, bw[4] = {wb.x, wb.y, wb.z, wb.w};
#pragma unroll
                for (int k = 0; k < 16; ++k) {
                    const int c = 16 * g + k;
                    // Byte k&3 of each half's word, sign-extended (prmt's sign mode) into the two halves.
                    constexpr unsigned widen[4] = {0xC480u, 0xD591u, 0xE6A2u, 0xF7B3u};
                    const unsigned so = prmt(aw[k >> 2], bw[k >> 2], widen[k & 3]);
                    [[maybe_unused]] const unsigned up = T[c], left = tl;  // T(i-1,j), T(i,j-1): direction bits
                    // Ecell; the forward local pass floors it at H = 0, which gives H its zero
                    // floor: the subtraction stays on the FMA pipe and the DPX operations on
                    // the ALU pipe are as many as without the floor.
                    e = ZeroFloor ? __vimax3_u16x2(e - ge2, tl, floor2) : __viaddmax_u16x2(e, neg_ge2, tl);
                    F[c] = __viaddmax_u16x2(F[c], neg_ge2, T[c]);
                    unsigned hv;
                    if constexpr (Dirs) {
                        // The diagonal term on its own (s + O < 0: a per-half add, the sum >= 0), then the bits.
                        const unsigned dg = SignedProfile ? __viaddmax_u16x2(diag, so, 0u) : diag + so;
                        hv = __vimax3_u16x2(dg, e, F[c]);
                        const unsigned bits = __vminu2(hv - dg, one2) + (__vminu2(hv - e, one2) << 1) +
                                              (__vminu2(e - left, one2) << 2) + (__vminu2(F[c] - up, one2) << 3);
                        dw[k >> 2] += bits << (4 * (k & 3));
                    } else if constexpr (SignedProfile) {  // per-half add; Ecell's chain (the row's serial part) one op
                        hv = __vmaxu2(__viaddmax_u16x2(diag, so, F[c]), e);
                    } else {  // s + O >= 0: the plain add never carries between the halves
                        hv = __vimax3_u16x2(diag + so, e, F[c]);
                    }
                    diag = T[c];
                    T[c] = hv - open2;
                    tl = T[c];
                    if constexpr (Local || Reverse || BoundOut) {
                        if (c & 1) rowmax = __vimax3_u16x2(rowmax, T[c - 1], T[c]);
                    }
                }
                if constexpr (Dirs) drow[g * 32] = make_uint4(dw[0], dw[1], dw[2], dw[3]);
            }
            if (!last_strip) boundary[static_cast<std::size_t>(i - 1) * threads + t] = make_uint2(T[R - 1], e);
            return rowmax;
        };
        // Reverse passes: counts the real cells of row i (values Tr) in half
        // h with H_rev = S, and keeps the first.
        auto count_candidates = [&](int h, int i, const unsigned* Tr, int lim) {
            const int want = target[h] + bias[h] - open;
#pragma unroll
            for (int c = 0; c < R; ++c) {
                if (c < lim && half(Tr[c], h) == want) {
                    if (found[h] == 0) {
                        bi[h] = i;
                        bj[h] = j0 + c + 1;
                    }
                    ++found[h];
                }
            }
        };
        // What the pass keeps of row i (values Tr, largest T rowmax).
        auto track_row = [&](int i, const unsigned* Tr, unsigned rowmax) {
            if constexpr (Local && !Reverse) {
                // rowmax holds max T = max H - O; a half whose row beats the strip's best is scanned.
                const unsigned rm = rowmax + open2;
                if (__vmaxu2(sbest, rm) != sbest) {
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int lim = h ? lim1 : lim0;
                        if (i > m[h] || half(rm, h) <= half(sbest, h)) continue;
                        int v = -1, at = 0;
#pragma unroll
                        for (int c = 0; c < R; ++c) {
                            const int x = half(Tr[c], h);
                            if (c < lim && x > v) {
                                v = x;
                                at = c;
                            }
                        }
                        if (v + open > half(sbest, h)) {
                            sbest = h ? ((sbest & 0xFFFFu) | (static_cast<unsigned>(v + open) << 16))
                                      : ((sbest & 0xFFFF0000u) | static_cast<unsigned>(v + open));
                            sbij[h] = (static_cast<unsigned>(i) << 16) | static_cast<unsigned>(j0 + at + 1);
                        }
                    }
                }
            } else if constexpr (Local && Reverse) {
                // Candidates: real cells with H_rev = S.
                const unsigned x = (rowmax + open2) ^ tgt2;
                if ((x & 0xFFFFu) == 0 || (x >> 16) == 0) {
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        if (on[h] && i <= m[h]) count_candidates(h, i, Tr, h ? lim1 : lim0);
                }
            } else {
                // Global and semi-global: the query's last row.
                if (i == m[0] || i == m[1]) {
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        if (i != m[h] || !on[h]) continue;
                        const int lim = h ? lim1 : lim0;
                        if constexpr (Global) {
                            const int at = n[h] - 1 - j0;
#pragma unroll
                            for (int c = 0; c < R; ++c)
                                if (c == at) best[h] = half(Tr[c], h) + open;
                        } else if constexpr (!Reverse) {
#pragma unroll
                            for (int c = 0; c < R; ++c) {
                                const int x = half(Tr[c], h) + open;
                                if (c < lim && x > best[h]) {
                                    best[h] = x;
                                    bj[h] = j0 + c + 1;
                                }
                            }
                        } else {
                            count_candidates(h, i, Tr, lim);
                        }
                    }
                }
            }
        };
        // The bound: records whether row i (largest T rowmax) may be live,
        // and whether the strip ends after it (row i dead, and so is the left
        // column from row i down).
        int cur_first = M + 1, cur_last = 0;
        // The forward bound (header): the words of the forward pass's row
        // bound for reversed row i's block, per half, loaded when the block
        // changes (before the row is computed, so the loads overlap it). The
        // strip's reversed columns j0+1 .. j0+R are the forward columns
        // je-j0-R .. je-j0-1: at most two forward strips, and column 0 (H <= 0).
        auto prefetch_bound = [&](int i) {
            if constexpr (Reverse) {
                if (!fwd_bound) return;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int ro = m[h] - i, c_hi = n[h] - j0 - 1;
                    if (ro < 1 || (ro - 1) / G == fb_rb[h]) continue;
                    fb_rb[h] = (ro - 1) / G;
                    fb_w[h][0] = fb_w[h][1] = 0;
                    if (c_hi < 1) continue;
                    const int f_lo = (max(c_hi - (R - 1), 1) - 1) / R, f_hi = (c_hi - 1) / R;
                    const std::size_t at = (static_cast<std::size_t>(f_lo) * p.bound_blocks + fb_rb[h]) * threads + t;
                    fb_w[h][0] = p.row_bound[at];
                    if (f_hi != f_lo) fb_w[h][1] = p.row_bound[at + static_cast<std::size_t>(p.bound_blocks) * threads];
                }
            }
        };
        // Whether reversed row i of half h, whose largest H_rev is v, passes
        // the forward bound: v + (largest H of the matching forward cells) +
        // go >= S. Rows of forward row 0 have no bound.
        auto fwd_reach = [&](int h, int v, int i) -> bool {
            if (!fwd_bound || m[h] - i < 1) return true;
            // (local: a block's word is its second row's largest T; the first row's
            // H is at most the second's + O, as H(i+1, j) >= Fcell(i+1, j) >= H(i, j) - O)
            int fh = max(half(fb_w[h][0], h), half(fb_w[h][1], h)) + open - fbias[h] + (Local ? open : 0);
            if (n[h] - j0 - R <= 0) fh = max(fh, 0);  // column 0
            return v + fh + go >= target[h];
        };
        auto row_ends_strip = [&](int i, unsigned rowmax) -> bool {
            if (!Reverse || !bound) return false;
            prefetch_bound(i);  // (a no-op when the row's block is loaded already)
            const int v0 = half(rowmax, 0) + open - bias[0], v1 = half(rowmax, 1) + open - bias[1];
            const bool live = (may_reach(0, v0, i, j0 + 1) && fwd_reach(0, v0, i)) ||
                              (may_reach(1, v1, i, j0 + 1) && fwd_reach(1, v1, i));
            if (live) {
                cur_first = min(cur_first, i);
                cur_last = i;
                return false;
            }
            return s == 0 ? !may_reach(0, left_h(i), i, 0) && !may_reach(1, left_h(i), i, 0) : i > prev_last;
        };
        int i = k_start;
        bool ended = false;
        if constexpr ((Reverse ? GPUALIGN_TUNE_PAIR_REVERSE_ROWS : GPUALIGN_TUNE_PAIR_ROWS) == 2) {
            // Two rows a step, in one basic block: row i+1's cells can issue
            // while row i's Ecell chain runs (row i's values stay for its tracking).
            while (i + 1 <= M) {
                unsigned tl0, e0, tl1, e1;
                int qa0, qb0, qa1, qb1;
                if constexpr (!Local) {
                    // Global and semi-global keep row m only: it takes a step
                    // of its own, so a step's first row needs no copy.
                    if (i == m[0] || i == m[1]) {
                        next_row(i, tl0, e0, qa0, qb0);
                        const unsigned rm = compute_row(i, tl0, e0, qa0, qb0);
                        track_row(i, T, rm);
                        note_bound(i, rm);
                        ended = row_ends_strip(i, rm);
                        ++i;
                        if (ended) break;
                        continue;
                    }
                }
                next_row(i, tl0, e0, qa0, qb0);
                next_row(i + 1, tl1, e1, qa1, qb1);
                prefetch_bound(i);
                const unsigned rm0 = compute_row(i, tl0, e0, qa0, qb0);
                unsigned rm1;
                if constexpr (Local) {
                    unsigned T0[R];
#pragma unroll
                    for (int c = 0; c < R; ++c) T0[c] = T[c];
                    rm1 = compute_row(i + 1, tl1, e1, qa1, qb1);
                    // Rows i (odd) and i + 1 make one block of the row bound
                    // (pair_bound_rows = 2); its word is row i + 1's largest T
                    // alone (row i's is at most that plus O, which the reverse
                    // pass adds: holding row i's value through row i + 1 spills).
                    if (BoundOut && p.row_bound) bound_word(i) = rm1;
                    track_row(i, T0, rm0);
                    track_row(i + 1, T, rm1);
                } else {
                    rm1 = compute_row(i + 1, tl1, e1, qa1, qb1);
                    track_row(i + 1, T, rm1);
                    note_bound(i, rm0);
                    note_bound(i + 1, rm1);
                }
                if constexpr (Reverse) {
                    row_ends_strip(i, rm0);
                    ended = row_ends_strip(i + 1, rm1);
                }
                i += 2;
                if (ended) break;
            }
        }
        for (; !ended && i <= M; ++i) {
            unsigned tl0, e0;
            int qa0, qb0;
            next_row(i, tl0, e0, qa0, qb0);
            prefetch_bound(i);
            const unsigned rm0 = compute_row(i, tl0, e0, qa0, qb0);
            track_row(i, T, rm0);
            note_bound(i, rm0);
            ended = row_ends_strip(i, rm0);
        }
        if constexpr (BoundOut && !Local) {  // the strip's last, partial block of rows
            if (M % G != 0 && p.row_bound) bound_word(M) = bmax;
        }
        if constexpr (Reverse) {
            prev_first = cur_first;
            prev_last = cur_last;
        }
        if constexpr (Local && !Reverse) {
            // Merge the strip on (H desc, i asc, j asc): an earlier strip has smaller columns.
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int v = half(sbest, h);
                if (v > best[h] || (v == best[h] && v > bias[h] && static_cast<int>(sbij[h] >> 16) < bi[h])) {
                    best[h] = v;
                    bi[h] = static_cast<int>(sbij[h] >> 16);
                    bj[h] = static_cast<int>(sbij[h] & 0xFFFFu);
                }
            }
        }
    }

#pragma unroll
    for (int h = 0; h < 2; ++h) {
        if (!on[h]) continue;
        const std::uint32_t b = 2 * t + h, cnt = p.count;
        std::int32_t* out = p.out;
        if constexpr (!Reverse) {
            const int score = best[h] - bias[h];
            out[detail::out_score * cnt + b] = score;
            out[detail::out_cigar_runs * cnt + b] = 0;
            if constexpr (Local) {
                const bool aligned = score > 0;
                out[detail::out_query_end * cnt + b] = aligned ? bi[h] : 0;
                out[detail::out_ref_end * cnt + b] = aligned ? bj[h] : 0;
                out[detail::out_query_begin * cnt + b] = 0;
                out[detail::out_ref_begin * cnt + b] = 0;
                if constexpr (!Dirs) p.status[b] = aligned ? detail::pair_reverse : detail::pair_done;
            } else {
                out[detail::out_query_begin * cnt + b] = 0;
                out[detail::out_query_end * cnt + b] = m[h];
                out[detail::out_ref_begin * cnt + b] = 0;
                out[detail::out_ref_end * cnt + b] = Global ? n[h] : bj[h];
                // Semi-global ending at column 0: the whole query inserted, begin (0,0).
                if constexpr (!Dirs) p.status[b] = (Global || bj[h] == 0) ? detail::pair_done : detail::pair_reverse;
            }
        } else {
            if (found[h] == 1) {
                out[detail::out_query_begin * cnt + b] = m[h] - bi[h];
                out[detail::out_ref_begin * cnt + b] = n[h] - bj[h];
                p.status[b] = detail::pair_done;
            } else {
                p.status[b] = detail::pair_fallback;
            }
        }
    }
}

}  // namespace gpualign::gpu::kernels
