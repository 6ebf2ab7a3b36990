// gpualign — the search scan's warp kernel: score-only local, global or
// semi-global DP of one query against one long DB sequence per warp (intra-sequence
// parallelism, as CUDASW++ 4.0 does for its long DB sequences). Device code
// only (included by scan_dispatch.cu).
//
// Why: the thread kernel (scan_kernel.cuh) gives one DB sequence to one
// thread, so a launch lasts as long as its longest sequence times its
// longest query on one thread. On a DB whose lengths spread to thousands of
// letters (the MMseqs2 example DB: 9 to 8,081) those few threads set the
// pace of the whole scan. Here the 32 lanes of a warp share one pair.
//
// Layout: the query runs down the rows (i), the DB sequence along the
// columns (j). A warp sweeps stripes of stripe_rows = 32 x lane_rows query
// rows; lane t owns rows t*lane_rows+1 .. (t+1)*lane_rows of the stripe in
// registers and, at step k, computes column j = k - t (the anti-diagonal
// lane wavefront of the batch and long-pair kernels). T (= H - O) and
// Fcell of a lane's bottom row, and the column's DB letter, pass to the
// next lane by shuffle. Lane 0 takes the stripe's top row (T, Fcell, the
// letter) from a per-warp feed in shared memory, refilled 32 columns at a
// time from the previous stripe's bottom row (boundary memory, written by
// lane 31) one chunk ahead of use. blockIdx.y picks the query; the warps of
// a block take consecutive DB sequences (length order, so similar lengths)
// and share the stripe's query profile in shared memory: for letter c and
// stripe row r = t*lane_rows + h, s(q_i, c) + O as int32 at
// prof[c*stripe_rows + (h/4)*128 + t*4 + h%4] (a lane's two 16-byte loads
// per column, conflict-free across the warp whatever each lane's letter).
//
// Recurrence (Gotoh 1982; docs/scoring.md), O = gap_open + gap_extend,
// T = H - O:
//   Ecell(i,j) = max(Ecell(i,j-1) - ge, T(i,j-1))    one __viaddmax_s32
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, T(i-1,j))    one __viaddmax_s32
//   H(i,j)     = max(T(i-1,j-1) + (s + O) [, 0 local], Ecell, Fcell)
//                __viaddmax_s32 (local) or an add, then __vimax3_s32
// Boundaries (ScanMode, scan_params.hpp): H(0,0) = 0; H(0,j) = 0 (local,
// semi-global) or -(go + j*ge) (global); H(i,0) = 0 (local) or
// -(go + i*ge) (global, semi-global); Ecell(i,0) = Fcell(0,j) = -inf.
// Local: the score is the largest H of the pair (rows past the query score
// -1000 and never exceed a real cell); global: H(m, n); semi-global: the
// largest H(m, j), 0 <= j <= n (j = 0: -(go + m*ge)), which the lane owning
// row m (end_lane, register row end_row, last stripe) takes at each of its
// columns. 32-bit throughout: a pair within fits_int32 cannot overflow.
#pragma once

#include <cstdint>

#include "scan_params.hpp"

namespace gpualign::gpu::scan_warp_kernels {

constexpr int lane_rows = 8;                     ///< query rows per lane
constexpr int stripe_rows = 32 * lane_rows;      ///< query rows per stripe (256)
constexpr int warps_per_block = 4;
constexpr int block_threads = 32 * warps_per_block;
constexpr int feed_entries = 64;                 ///< per warp: two chunks of 32 columns
constexpr std::int32_t neg_inf = INT32_MIN / 2;

/// Dynamic shared memory of one block: the stripe profile and the warps' feeds.
inline std::size_t warp_kernel_smem(int size) {
    return static_cast<std::size_t>(size) * stripe_rows * sizeof(int) +
           static_cast<std::size_t>(warps_per_block) * feed_entries * sizeof(int4);
}

/// One launch: p.count long DB sequences (a warp each) times p.queries
/// queries (blockIdx.y); the fields are documented in scan_params.hpp. The
/// boundary of query y's sequence s starts at entry y * boundary_span +
/// offsets[s] - offsets[0]. One function body on purpose: the registers it
/// sweeps with (rows, gap states, bests) live across the whole loop nest,
/// which helper calls would have to pass by reference.
template <gpualign::gpu::detail::ScanMode Mode>
__global__ void __launch_bounds__(block_threads) scan_warp_kernel(const gpualign::gpu::detail::ScanWarpParams p) {
    using gpualign::gpu::detail::ScanMode;
    constexpr bool Local = Mode == ScanMode::local;
    constexpr bool FreeTop = gpualign::gpu::detail::free_top_row(Mode);
    extern __shared__ int4 smem4[];
    int4* feed = smem4 + (threadIdx.x >> 5) * feed_entries;
    int* prof = reinterpret_cast<int*>(smem4 + warps_per_block * feed_entries);
    constexpr unsigned full = 0xFFFFFFFFu;
    const int lane = threadIdx.x & 31;
    const int s = blockIdx.x * warps_per_block + (threadIdx.x >> 5);
    const int y = blockIdx.y;
    const bool active = s < p.count;
    const int m = p.query_len[y];
    const int stripes = (m + stripe_rows - 1) / stripe_rows;
    const int* profile = p.profile + p.profile_offset[y];
    const int n = active ? p.lengths[s] : 0;
    const std::uint8_t* seq = active ? p.db + p.offsets[s] : nullptr;
    int2* bnd = active ? static_cast<int2*>(p.boundary) + static_cast<long long>(y) * p.boundary_span +
                             (p.offsets[s] - p.offsets[0])
                       : nullptr;
    const int go = p.gap_open, ge = p.gap_extend, open = go + ge;
    // Row m lives in stripe stripes-1, lane (m-1)%256/8, row (m-1)%8.
    const int end_lane = ((m - 1) % stripe_rows) / lane_rows, end_row = (m - 1) % lane_rows;
    int best = 0;  // local: the largest H
    // global: H(m, n); semi-global: the largest H(m, j), from H(m, 0) = -(go + m*ge)
    int result = -(go + m * ge);
    for (int k = 0; k < stripes; ++k) {
        __syncthreads();
        const int* src = profile + static_cast<std::size_t>(k) * p.size * stripe_rows;
        for (int x = threadIdx.x; x < p.size * stripe_rows; x += block_threads) prof[x] = src[x];
        __syncthreads();
        if (!active) continue;
        const int r0 = k * stripe_rows + lane * lane_rows;  // the lane's rows are r0+1 .. r0+lane_rows
        int T[lane_rows], E[lane_rows];
#pragma unroll
        for (int h = 0; h < lane_rows; ++h) {
            T[h] = Local ? -open : -(go + (r0 + h + 1) * ge) - open;
            E[h] = neg_inf;
        }
        int t_diag = Local || r0 == 0 ? -open : -(go + r0 * ge) - open;  // T(r0, 0)
        // The feed entry of column j: {T(row0, j+1), Fcell(row0, j+1), letter j} with row0 = k * stripe_rows.
        auto fetch = [&](int j) {
            int4 e = make_int4(0, neg_inf, 0, 0);
            if (j < n) {
                e.z = seq[j];
                if (k == 0) {
                    e.x = FreeTop ? -open : -(go + (j + 1) * ge) - open;
                } else {
                    const int2 b = bnd[j];
                    e.x = b.x;
                    e.y = b.y;
                }
            }
            return e;
        };
        feed[lane] = fetch(lane);
        int4 ahead = fetch(32 + lane);
        __syncwarp();
        int bot_t = 0, bot_f = neg_inf, bot_c = 0;  // this lane's bottom row after its last column
        const bool writes = lane == 31 && k + 1 < stripes;
        const bool ends = k + 1 == stripes && lane == end_lane;  // this lane holds row m
        for (int step = 0; step < n + 31; ++step) {
            if ((step & 31) == 0 && step > 0) {
                feed[(step & 63) + lane] = ahead;
                __syncwarp();
                ahead = fetch(step + 32 + lane);
            }
            int t_up = __shfl_up_sync(full, bot_t, 1);
            int f = __shfl_up_sync(full, bot_f, 1);
            int c = __shfl_up_sync(full, bot_c, 1);
            if (lane == 0) {
                const int4 e = feed[step & 63];
                t_up = e.x;
                f = e.y;
                c = e.z;
            }
            const int j = step - lane;
            if (j < 0 || j >= n) continue;
            const int4 p0 = *reinterpret_cast<const int4*>(prof + c * stripe_rows + lane * 4);
            const int4 p1 = *reinterpret_cast<const int4*>(prof + c * stripe_rows + 128 + lane * 4);
            const int so[lane_rows] = {p0.x, p0.y, p0.z, p0.w, p1.x, p1.y, p1.z, p1.w};
            const int up = t_up;
            int d_t = t_diag;
#pragma unroll
            for (int h = 0; h < lane_rows; ++h) {
                E[h] = __viaddmax_s32(E[h], -ge, T[h]);
                f = __viaddmax_s32(f, -ge, t_up);
                const int d = Local ? __viaddmax_s32(d_t, so[h], 0) : d_t + so[h];
                const int hv = __vimax3_s32(d, E[h], f);
                d_t = T[h];
                T[h] = hv - open;
                t_up = T[h];
                if (Local) best = max(best, hv);
            }
            t_diag = up;
            bot_t = t_up;
            bot_f = f;
            bot_c = c;
            if (writes) bnd[j] = make_int2(t_up, f);
            if (Mode == ScanMode::global && ends && j == n - 1) {
#pragma unroll
                for (int h = 0; h < lane_rows; ++h)
                    if (h == end_row) result = T[h] + open;
            }
            if (Mode == ScanMode::semi_global && ends) {
#pragma unroll
                for (int h = 0; h < lane_rows; ++h)
                    if (h == end_row) result = max(result, T[h] + open);
            }
        }
    }
    if (!active) return;
    int v = Local ? best : result;
    if (Local) {
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(full, v, o));
    } else {
        v = __shfl_sync(full, v, end_lane);
    }
    if (lane == 0) p.scores[static_cast<std::size_t>(y) * p.records + p.slots[s]] = v;
}

}  // namespace gpualign::gpu::scan_warp_kernels
