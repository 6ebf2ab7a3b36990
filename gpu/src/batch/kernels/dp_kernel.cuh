// gpualign — the DP kernel: one warp-sized thread block aligns one pair.
//
// Recurrence (Gotoh 1982; local = Smith-Waterman 1981, global =
// Needleman-Wunsch 1970, semi-global = the query end to end with free ref
// end gaps), docs/scoring.md, with O = go + ge, E = ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - ge, H(i,j-1) - O)       opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, H(i-1,j) - O)       opening wins ties
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell [, 0 if local])
//                preference zero (local) > diagonal > E > F
//   borders: H(0,j) = 0 (local, semi-global) or -(go + j ge) (global);
//            H(i,0) = 0 (local) or -(go + i ge) (global, semi-global)
//
// Registers hold T = H - O rather than H: T is both the gap-opening term of
// Ecell one column on and of Fcell one row down, so it is computed once per
// cell; the shared matrix holds s + O so that T(i-1,j-1) + s + O = the
// diagonal term H(i-1,j-1) + s exactly.
//
// Substitution scores: with a small alphabet (Profile, DNA) each lane keeps a
// query profile of its R rows in shared memory, prof[c][g][lane] = int4 of
// s(q_i, c) + O for rows 4g..4g+3, read with one 16-byte load per 4 rows at
// fixed offsets (no per-cell address arithmetic, no bank conflicts); with a
// large alphabet (protein) each cell reads mat[c * 32 + q_i].
//
// Parallel schedule (a thread-level wavefront): the query is cut into
// stripes of 32*R rows. In a stripe, lane t owns rows i0 = 32R*s + tR + 1 ..
// i0 + R - 1 in registers (H, E and, for local and semi-global score-only,
// their begin cells)
// and at wavefront step k computes column j = k - t + 1 of its rows, top to
// bottom. The H and F of its last row (and the ref code of column j) go to
// lane t+1 through __shfl_up_sync, which uses them at step k+1 for the same
// column; the previous diagonal stays in a register. Lane 0 takes row i0-1
// from the border (stripe 0) or from the boundary row the last lane of the
// previous stripe wrote to `scratch` (device memory, one int4 per column),
// prefetched 32 columns ahead with coalesced loads. No DP diagonal lives in
// device memory.
//
// Outputs per pair (slot blockIdx.x of BatchParams::out):
//  - local: the best cell under the canonical tie (max H, then smallest i,
//    then smallest j): per-row best (first j wins), folded over rows in
//    increasing i, then a warp butterfly reduction on (H desc, i asc, j asc).
//    Best 0 = unaligned (all zeros).
//  - global: H(m, n), end (m, n).
//  - semi-global: the best cell of row m (first j wins, j = 0 included), from
//    the per-row best of the lane that owns row m.
//  - local and semi-global score-only: the begin cell carried with H, E and F
//    exactly as the CPU reference does (a cell whose local H is 0 starts at
//    itself; row 0 begins at itself, column 0 at (0,0) in semi-global mode).
//  - traceback variants: 4 direction bits per cell (bits 0-1 H source 0 zero
//    / 1 diag / 2 E / 3 F, bit 2 E extended, bit 3 F extended) packed R per
//    word, word (stripe s, step k, lane t) at
//    dirs + s*(n+31)*32 + k*tc + t (tc = lanes in use in the stripe), so a
//    warp writes 32 consecutive words per step.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../batch_params.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::kernels {

/// "Minus infinity" for E and F on the borders; survives subtracting any
/// penalty (<= 10^6) without wrapping, as in the CPU reference.
constexpr std::int32_t neg_inf = INT32_MIN / 2;

/// H on the global border: H(0,k) = H(k,0) = -(go + k*ge) for k > 0, 0 at k = 0.
__device__ __forceinline__ std::int32_t global_border(std::int32_t k, std::int32_t go, std::int32_t ge) {
    return k == 0 ? 0 : -(go + k * ge);
}

/// Begin cell packed as (i << 16) | j, i, j <= 65535 (detail::max_sequence_length).
__device__ __forceinline__ std::uint32_t pack_cell(std::uint32_t i, std::uint32_t j) { return (i << 16) | j; }

/// One function body on purpose: the registers it sweeps with (rows, gap
/// states, bests) live across the whole loop nest, which helper calls would
/// have to pass by reference; the recurrence is in the file's header.
template <int R, AlignMode Mode, bool Traceback, bool Profile>
__global__ void __launch_bounds__(32) dp_kernel(detail::BatchParams p) {
    static_assert(!Profile || R % 4 == 0, "the profile is read 4 rows at a time");
    static_assert(!Traceback || R == 8 || R == 16, "a direction word holds R nibbles of 32 or 64 bits");
    using Word = std::conditional_t<R == 16, std::uint64_t, std::uint32_t>;
    constexpr bool Local = Mode == AlignMode::local;
    constexpr bool Semi = Mode == AlignMode::semi_global;
    constexpr bool RowBest = Local || Semi;  // track each row's best cell
    constexpr bool Begin = RowBest && !Traceback;  // carry begin cells (score-only local and semi-global)
    constexpr unsigned full = 0xFFFFFFFFu;
    constexpr int stripe_rows = 32 * R;

    // A pair that pair_kernel finished (score-only batches) is not aligned again.
    if (p.status && p.status[blockIdx.x] == detail::pair_done) return;

    // Substitution matrix plus O, transposed and padded: mat[c * 32 + q] = s(q, c) + O.
    __shared__ std::int32_t mat[32 * 32];
    const int lane = threadIdx.x;
    const std::int32_t open_cost = p.gap_open + p.gap_extend;
    for (int x = lane; x < 32 * 32; x += 32) {
        const int c = x >> 5, q = x & 31;
        mat[x] = (c < p.size && q < p.size) ? p.matrix[q * p.size + c] + open_cost : 0;
    }
    __syncwarp();
    extern __shared__ int4 prof[];  // Profile: p.size * (R/4) * 32 int4, launch-time size

    const detail::PairTask task = p.tasks[blockIdx.x];
    const int m = static_cast<int>(task.query_len), n = static_cast<int>(task.ref_len);
    const std::uint8_t* qs = p.seqs + task.query_offset;
    const std::uint8_t* rs = p.seqs + task.ref_offset;
    const std::int32_t go = p.gap_open, ge = p.gap_extend, open = go + ge;
    const int stripes = (m + stripe_rows - 1) / stripe_rows;
    int4* scratch = reinterpret_cast<int4*>(p.scratch + task.scratch_offset);
    Word* dirs = reinterpret_cast<Word*>(p.dirs + task.dir_offset);

    // This lane's best cell over all stripes (local), of row m (semi-global),
    // or H(m, n) (global).
    std::int32_t best_h = 0;
    int best_i = 0, best_j = 0;
    std::uint32_t best_b = 0;
    std::int32_t h_end = 0;

    for (int s = 0; s < stripes; ++s) {
        const int row0 = s * stripe_rows;
        const int tc = (min(stripe_rows, m - row0) + R - 1) / R;  // lanes in use
        const int i0 = row0 + lane * R + 1;                        // first row of this lane
        const bool last_stripe = s == stripes - 1;

        int qo[R];                       // query code of each row
        std::int32_t T[R], E[R];         // H(i, j-1) - O, Ecell(i, j-1) before a step
        std::uint32_t HB[R], EB[R];      // their begin cells (Begin only)
        std::int32_t bh[R];              // best H of each row so far (RowBest)
        int bj[R];                       // its column
        std::uint32_t bb[R];             // its begin cell (Begin)
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int i = i0 + r;
            qo[r] = i <= m ? qs[i - 1] : 0;
            T[r] = (Local ? 0 : global_border(i, go, ge)) - open;
            E[r] = neg_inf;
            HB[r] = Semi ? 0u : pack_cell(i, 0);  // semi-global: column 0 begins at (0,0)
            EB[r] = 0;
            bh[r] = Semi ? global_border(i, go, ge) : 0;  // semi-global: H(i,0) competes too
            bj[r] = 0;
            bb[r] = 0;
        }
        if constexpr (Profile) {  // this lane's rows only: no other lane reads them
            for (int c = 0; c < p.size; ++c) {
#pragma unroll
                for (int g = 0; g < R / 4; ++g)
                    prof[(c * (R / 4) + g) * 32 + lane] =
                        make_int4(mat[c * 32 + qo[4 * g]], mat[c * 32 + qo[4 * g + 1]], mat[c * 32 + qo[4 * g + 2]],
                                  mat[c * 32 + qo[4 * g + 3]]);
            }
        }
        // H(i0-1, j-1) - O and its begin: the diagonal of the first row.
        std::int32_t diag = (Local ? 0 : global_border(i0 - 1, go, ge)) - open;
        std::uint32_t diag_b = Semi ? 0u : pack_cell(i0 - 1, 0);
        // What this lane hands to lane + 1: last row's H - O, F, begins, and the ref code.
        std::int32_t out_h = 0, out_f = neg_inf;
        std::uint32_t out_hb = 0, out_fb = 0;
        int out_c = 0;

        // Column feed for lane 0, 32 columns per chunk, one chunk ahead.
        int cur_c = 0, nxt_c = 0;
        int4 cur_b = make_int4(0, 0, 0, 0), nxt_b = cur_b;
        auto load_chunk = [&](int k0, int& c, int4& b) {
            const int col = k0 + lane + 1;
            c = col <= n ? rs[col - 1] : 0;
            if (s > 0 && col <= n) b = scratch[col];
        };
        load_chunk(0, cur_c, cur_b);
        load_chunk(32, nxt_c, nxt_b);

        Word* dirs_stripe = dirs + static_cast<std::size_t>(s) * static_cast<std::size_t>(n + 31) * 32u;
        const int steps = n + tc - 1;
        for (int k = 0; k < steps; ++k) {
            if ((k & 31) == 0 && k > 0) {
                cur_c = nxt_c;
                cur_b = nxt_b;
                load_chunk(k + 32, nxt_c, nxt_b);
            }
            const int src = k & 31;
            const int feed_c = __shfl_sync(full, cur_c, src);
            std::int32_t feed_h, feed_f;
            std::uint32_t feed_hb = 0, feed_fb = 0;
            if (s > 0) {
                feed_h = __shfl_sync(full, cur_b.x, src);
                feed_f = __shfl_sync(full, cur_b.y, src);
                if constexpr (Begin) {
                    feed_hb = __shfl_sync(full, static_cast<std::uint32_t>(cur_b.z), src);
                    feed_fb = __shfl_sync(full, static_cast<std::uint32_t>(cur_b.w), src);
                }
            } else {  // row 0: H(0,j) = 0 (local, semi-global) or -(go + j ge); Fcell(0,j) = -inf
                feed_h = (Mode == AlignMode::global ? global_border(k + 1, go, ge) : 0) - open;
                feed_f = neg_inf;
                feed_hb = pack_cell(0, k + 1);
            }
            int in_c = __shfl_up_sync(full, out_c, 1);
            std::int32_t in_h = __shfl_up_sync(full, out_h, 1);
            std::int32_t in_f = __shfl_up_sync(full, out_f, 1);
            std::uint32_t in_hb = 0, in_fb = 0;
            if constexpr (Begin) {
                in_hb = __shfl_up_sync(full, out_hb, 1);
                in_fb = __shfl_up_sync(full, out_fb, 1);
            }
            if (lane == 0) {
                in_c = feed_c;
                in_h = feed_h;
                in_f = feed_f;
                in_hb = feed_hb;
                in_fb = feed_fb;
            }
            const int j = k - lane + 1;
            if (lane < tc && j >= 1 && j <= n) {
                const std::int32_t* col = mat + in_c * 32;
                std::int32_t scv[Profile ? R : 1];
                if constexpr (Profile) {
                    const int4* pc = prof + in_c * (R / 4) * 32 + lane;
#pragma unroll
                    for (int g = 0; g < R / 4; ++g) {
                        const int4 v = pc[g * 32];
                        scv[4 * g] = v.x;
                        scv[4 * g + 1] = v.y;
                        scv[4 * g + 2] = v.z;
                        scv[4 * g + 3] = v.w;
                    }
                }
                std::int32_t tu = in_h, fu = in_f;      // H(i-1, j) - O, Fcell(i-1, j)
                std::uint32_t hbu = in_hb, fbu = in_fb;
                std::int32_t dg = diag;                 // H(i-1, j-1) - O
                std::uint32_t dgb = diag_b;
                Word word = 0;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const std::int32_t sc = Profile ? scv[Profile ? r : 0] : col[qo[r]];  // s(q_i, r_j) + O
                    // Ecell(i,j) = max(Ecell(i,j-1) - ge, H(i,j-1) - O); extended iff strictly better.
                    const std::int32_t e = __viaddmax_s32(E[r], -ge, T[r]);
                    const bool e_ext = e != T[r];
                    // Fcell(i,j) = max(Fcell(i-1,j) - ge, H(i-1,j) - O).
                    const std::int32_t f = __viaddmax_s32(fu, -ge, tu);
                    const bool f_ext = f != tu;
                    // H(i,j) = max(H(i-1,j-1) + s, Ecell, Fcell [, 0]).
                    const std::int32_t d = dg + sc;
                    const std::int32_t h = Local ? __vimax3_s32_relu(d, e, f) : __vimax3_s32(d, e, f);
                    if constexpr (Begin) {
                        const std::uint32_t eb = e_ext ? EB[r] : HB[r];
                        const std::uint32_t fb = f_ext ? fbu : hbu;
                        std::uint32_t hb = h == d ? dgb : (h == e ? eb : fb);
                        if (Local && h == 0) hb = pack_cell(i0 + r, j);
                        EB[r] = eb;
                        dgb = HB[r];
                        HB[r] = hb;
                        hbu = hb;
                        fbu = fb;
                    }
                    if constexpr (Traceback) {
                        std::uint32_t nib = h == d ? 1u : (h == e ? 2u : 3u);
                        if (Local && h == 0) nib = 0u;
                        nib |= (e_ext ? 4u : 0u) | (f_ext ? 8u : 0u);
                        word |= static_cast<Word>(nib) << (4 * r);
                    }
                    if constexpr (RowBest) {  // per-row best, first j wins: keep the old one on ties
                        bool keep;
                        bh[r] = __vibmax_s32(bh[r], h, &keep);
                        bj[r] = keep ? bj[r] : j;
                        if constexpr (Begin) bb[r] = keep ? bb[r] : HB[r];
                    }
                    const std::int32_t t = h - open;
                    dg = T[r];
                    T[r] = t;
                    E[r] = e;
                    tu = t;
                    fu = f;
                }
                diag = in_h;
                diag_b = in_hb;
                out_c = in_c;
                out_h = tu;
                out_f = fu;
                out_hb = hbu;
                out_fb = fbu;
                if constexpr (Traceback) dirs_stripe[static_cast<std::size_t>(k) * tc + lane] = word;
                if (!last_stripe && lane == tc - 1)
                    scratch[j] = make_int4(out_h, out_f, static_cast<int>(out_hb), static_cast<int>(out_fb));
            }
        }
        __syncwarp();  // the boundary row is complete before the next stripe reads it

        if constexpr (Local) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (i0 + r <= m && bh[r] > best_h) {
                    best_h = bh[r];
                    best_i = i0 + r;
                    best_j = bj[r];
                    best_b = bb[r];
                }
            }
        } else if (last_stripe) {
#pragma unroll
            for (int r = 0; r < R; ++r)
                if (i0 + r == m) {
                    h_end = T[r] + open;
                    best_h = bh[r];
                    best_j = bj[r];
                    best_b = bb[r];
                }
        }
    }

    const std::uint32_t b = blockIdx.x, cnt = p.count;
    if constexpr (Local) {
        // Butterfly reduction on (H desc, i asc, j asc): every lane ends with the canonical cell.
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const std::int32_t oh = __shfl_xor_sync(full, best_h, off);
            const int oi = __shfl_xor_sync(full, best_i, off);
            const int oj = __shfl_xor_sync(full, best_j, off);
            const std::uint32_t ob = __shfl_xor_sync(full, best_b, off);
            if (oh > best_h || (oh == best_h && (oi < best_i || (oi == best_i && oj < best_j)))) {
                best_h = oh;
                best_i = oi;
                best_j = oj;
                best_b = ob;
            }
        }
        if (lane == 0) {
            const bool aligned = best_h > 0;
            p.out[detail::out_score * cnt + b] = best_h;
            p.out[detail::out_query_end * cnt + b] = aligned ? best_i : 0;
            p.out[detail::out_ref_end * cnt + b] = aligned ? best_j : 0;
            p.out[detail::out_query_begin * cnt + b] = (Begin && aligned) ? static_cast<int>(best_b >> 16) : 0;
            p.out[detail::out_ref_begin * cnt + b] = (Begin && aligned) ? static_cast<int>(best_b & 0xFFFFu) : 0;
            p.out[detail::out_cigar_runs * cnt + b] = 0;
        }
    } else {
        const int owner = ((m - 1) % stripe_rows) / R;  // lane holding row m
        if (lane == owner) {
            p.out[detail::out_score * cnt + b] = Semi ? best_h : h_end;
            p.out[detail::out_query_begin * cnt + b] = 0;
            p.out[detail::out_query_end * cnt + b] = m;
            p.out[detail::out_ref_begin * cnt + b] = Begin ? static_cast<int>(best_b & 0xFFFFu) : 0;
            p.out[detail::out_ref_end * cnt + b] = Semi ? best_j : n;
            p.out[detail::out_cigar_runs * cnt + b] = 0;
        }
    }
}

}  // namespace gpualign::gpu::kernels
