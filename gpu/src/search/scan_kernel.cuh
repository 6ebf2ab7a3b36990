// gpualign — the search scan kernel: score-only local, global or
// semi-global DP of one query against many DB sequences, one thread per DB sequence
// (inter-sequence parallelism, as in SWIPE (Rognes 2011) and CUDASW++'s
// inter-task kernels). Device code only (included by scan_dispatch.cu).
//
// Layout: the query runs down the rows (i), the DB sequence along the
// columns (j). blockIdx.y picks the query (a launch runs several queries
// against the same DB sequences, so that a small DB still fills the GPU).
// A thread sweeps its sequence column by column, strip_rows
// query rows at a time, keeping the strip's rows in registers; the bottom
// row of a strip (H and Fcell of each column) goes to a per-thread boundary
// buffer in device memory, interleaved across threads (entry j of thread t
// of query y at boundary[j * count * queries + y * count + t], so a warp's
// stores coalesce), which the next
// strip reads back. The block shares the strip's query profile in shared
// memory: for each DB letter c, the scores s(q_i, c) + O of the strip's rows
// as int16 (rows past the query score -1000, which no real row reads), and a
// pad letter scoring -1000 everywhere.
//
// Recurrence (Gotoh 1982; docs/scoring.md), O = gap_open + gap_extend,
// T = H - O kept per row:
//   Ecell(i,j) = max(Ecell(i,j-1) - ge, T(i,j-1))    one __viaddmax_s32
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, T(i-1,j))    one __viaddmax_s32
//   H(i,j)     = max(T(i-1,j-1) + (s + O) [, 0 local], Ecell, Fcell)
//                __viaddmax_s32 (local) or an add, then __vimax3_s32
// Boundaries (ScanMode, scan_params.hpp): H(0,0) = 0; H(0,j) = 0 (local,
// semi-global) or -(go + j*ge) (global); H(i,0) = 0 (local) or
// -(go + i*ge) (global, semi-global); Ecell(i,0) = Fcell(0,j) = -inf.
// Local: the score is the largest H (the canonical best cell's H, whatever
// cell holds it); global: H(m, n); semi-global: the largest H(m, j) of the
// query's last row, 0 <= j <= n (j = 0: -(go + m*ge)), taken column by
// column in the last strip, where row m is register row (m-1) % strip_rows.
// Only the score leaves the kernel: a hit's coordinates and CIGAR come from
// aligning it again (search_pipeline.cpp). Scores are 32-bit: a pair within
// fits_int32 cannot overflow.
//
// scan_kernel_s16x2 (local only) is the same recurrence for two queries
// per thread against the thread's DB sequence, packed as the two 16-bit
// halves of each register (query 2y low, 2y+1 high: the two share the
// column's DB letter, so one 32-bit profile word holds both rows' scores)
// and updated by the u16x2 DPX forms: half the instructions per cell, and
// no per-cell repacking of the scores. Values are stored biased by
// s16_bias = 16384 (H = 0 is 16384), so they stay within [0, 65535] and a
// plain 32-bit add or subtract (T_diag + (s + O), with s + O >= 0 required
// of the scheme; Ecell - ge and hv - O, whose halves are at least 16384 >=
// O) never carries or borrows between the halves: ptxas issues those on
// the FMA pipe (IMAD), beside the ALU pipe where every DPX operation runs.
// The local zero enters through Ecell, floored at 0 (H = max(d, Ecell, Fcell,
// 0) is unchanged by replacing Ecell with max(Ecell, 0), and by induction
// the floored chain equals max(Ecell, 0) at every cell), so hv >= 0 is H
// itself and T = H - O needs no max. Per row and column:
//   Ecell = __vimax3_u16x2(Ecell - ge, T_left, bias)   = max(Ecell - ge, T, 0)
//   Fcell = __viaddmax_u16x2(Fcell, -ge, T_up)
//   hv    = __vimax3_u16x2(T_diag + (s + O), Ecell, Fcell)   (= H)
//   T     = hv - O
//   best  = __vimax3_u16x2(best, hv_a, hv_b)        (every second cell)
// 3.5 ALU operations per two cells, and 3 on the FMA pipe (flooring T
// instead, T = __viaddmax(hv, -O, bias - O) with an unfloored Ecell, takes
// 4.5 and 1, and is slower: docs/search.md). A step
// computes step_cols columns row by row, so
// that T passes down the rows once per step_cols columns (each row's T
// changes register once a step: fewer moves at the loop's back edge).
// H can only pass 32767 after some H reached 32767 - max s, since a
// diagonal step adds at most max s; so a best score of at least
// `overflow_at` (= 32767 - max s) in either half may be wrong (a carry may
// even reach the other half), and both are reported as -1: the host scores
// those pairs again in 32 bits. Rows past a query's end, and columns past a
// sequence's end, score 0 (s = -O) and add no cell above a real one.
// The ALU operations per cell matter because the 16-bit kernel is bound by
// the ALU pipe, where every DPX operation runs (docs/search.md).
#pragma once

#include <cstdint>

#include "scan_params.hpp"

namespace gpualign::gpu::scan_kernels {

using gpualign::gpu::detail::ScanMode;
using gpualign::gpu::detail::ScanParams;

constexpr int strip_rows = 32;     ///< query rows per strip (registers per thread: 2 per row)
constexpr int block_threads = 128;
constexpr int max_letters = 32;    ///< alphabet size bound of the shared profile
/// Shorts between two letters' rows in the shared profile: 16 bytes of
/// padding put consecutive letters in different 16-byte bank groups, so
/// that the threads of a warp, each at its own DB letter, conflict less.
constexpr int prof_stride = strip_rows + 8;
constexpr std::int32_t neg_inf = INT32_MIN / 2;

/// One function body on purpose: the registers it sweeps with (rows, gap
/// states, bests) live across the whole loop nest, which helper calls would
/// have to pass by reference; the recurrence is in the file's header.
template <ScanMode Mode>
__global__ void __launch_bounds__(block_threads) scan_kernel(ScanParams p) {
    int2* const boundary = static_cast<int2*>(p.boundary);  // max_len * count * queries: (T, Fcell) of a strip's bottom row
    constexpr bool Local = Mode == ScanMode::local;
    constexpr bool FreeTop = gpualign::gpu::detail::free_top_row(Mode);
    constexpr bool LastRowMax = Mode == ScanMode::semi_global;
    __shared__ __align__(16) short prof[(max_letters + 1) * prof_stride];
    const int t = blockIdx.x * block_threads + threadIdx.x;
    const int y = blockIdx.y;
    const bool active = t < p.count;
    const int query_len = p.query_len[y];
    const int strips = (query_len + strip_rows - 1) / strip_rows;
    const short* profile = p.profile + p.profile_offset[y];
    const std::size_t lane = static_cast<std::size_t>(y) * p.count + t;           // this thread's boundary column
    const std::size_t pitch = static_cast<std::size_t>(p.count) * p.queries;      // boundary entries per DB column
    const int n = active ? p.lengths[t] : 0;
    const uint4* seq = active ? reinterpret_cast<const uint4*>(p.db + p.offsets[t]) : nullptr;
    const int ge = p.gap_extend, open = p.gap_open + p.gap_extend;
    int best = 0;      // local: the largest H
    // global: T(m, n); semi-global: the largest T(m, j), from T(m, 0) = -(go + m*ge) - O
    int result = -(p.gap_open + query_len * ge) - open;
    for (int k = 0; k < strips; ++k) {
        __syncthreads();
        for (int x = threadIdx.x; x < p.size * strip_rows; x += block_threads)
            prof[x / strip_rows * prof_stride + x % strip_rows] = profile[static_cast<std::size_t>(k) * p.size * strip_rows + x];
        __syncthreads();
        if (!active) continue;
        const int row0 = k * strip_rows;
        const bool last_strip = k + 1 == strips;
        const int last = query_len - 1 - row0;  // row m's register row (in the last strip)
        // Column 0 of the strip's rows: H(i,0) = 0 (local) or -(go + i*ge); Ecell = -inf.
        int T[strip_rows], E[strip_rows];
#pragma unroll
        for (int r = 0; r < strip_rows; ++r) {
            T[r] = Local ? -open : -(p.gap_open + (row0 + r + 1) * ge) - open;
            E[r] = neg_inf;
        }
        int t_left_top = Local ? -open : (row0 == 0 ? -open : -(p.gap_open + row0 * ge) - open);  // T(row0, 0)
        uint4 codes = make_uint4(0, 0, 0, 0);
        for (int j = 0; j < n; ++j) {
            if ((j & 15) == 0) codes = seq[j >> 4];
            const unsigned word = (j & 8) ? ((j & 4) ? codes.w : codes.z) : ((j & 4) ? codes.y : codes.x);
            const int c = (word >> ((j & 3) * 8)) & 0xFF;
            // The strip's top row at column j+1: T and Fcell.
            int t_top, f;
            if (k == 0) {
                t_top = FreeTop ? -open : -(p.gap_open + (j + 1) * ge) - open;
                f = neg_inf;
            } else {
                const int2 b = boundary[static_cast<std::size_t>(j) * pitch + lane];
                t_top = b.x;
                f = b.y;
            }
            int t_diag = t_left_top, t_up = t_top;
            const uint4* pr = reinterpret_cast<const uint4*>(prof + c * prof_stride);
#pragma unroll
            for (int q = 0; q < strip_rows / 8; ++q) {
                const uint4 w = pr[q];
                const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
                for (int h = 0; h < 8; ++h) {
                    const int r = q * 8 + h;
                    const unsigned pair = words[h >> 1];
                    const int so = (h & 1) ? static_cast<int>(pair) >> 16 : static_cast<int>(pair << 16) >> 16;
                    E[r] = __viaddmax_s32(E[r], -ge, T[r]);
                    f = __viaddmax_s32(f, -ge, t_up);
                    const int d = Local ? __viaddmax_s32(t_diag, so, 0) : t_diag + so;
                    const int hv = __vimax3_s32(d, E[r], f);
                    t_diag = T[r];
                    T[r] = hv - open;
                    t_up = T[r];
                    if (Local) best = max(best, hv);
                }
            }
            t_left_top = t_top;
            if (!last_strip) boundary[static_cast<std::size_t>(j) * pitch + lane] = make_int2(T[strip_rows - 1], f);
            if (LastRowMax && last_strip) {
#pragma unroll
                for (int r = 0; r < strip_rows; ++r)
                    if (r == last) result = max(result, T[r]);
            }
        }
        if (Mode == ScanMode::global && last_strip) {
#pragma unroll
            for (int r = 0; r < strip_rows; ++r)
                if (r == last) result = T[r];
        }
    }
    if (active) p.scores[static_cast<std::size_t>(y) * p.records + p.slots[t]] = Local ? best : result + open;
}

/// The 16-bit local kernel: thread t aligns the launch's DB sequence t
/// with two queries at once, query 2y in the low halves and 2y+1 in the
/// high halves (y = blockIdx.y, a query pair; the high half of the last pair
/// is absent when the launch has an odd number of queries). The two share
/// the DB letter of each column, so one 32-bit profile word holds both rows'
/// scores: `pair_profile` (pair y's strips * size * strip_rows words at
/// pair_profile_offset[y], s(q_i, c) + O in each half, 0 past a query's
/// end and for the pad letter) and query_len[y] the longer of the two.
/// Stride in shared memory:
/// pair_stride words a letter (4 words of padding). `overflow_at` is
/// 32767 - max s. Boundary entries: (T, Fcell) packed, at [j * pitch + lane]
/// with pitch = count * pairs.
constexpr int pair_stride = strip_rows + 4;
constexpr int s16_bias = 16384;  ///< the 16-bit kernel's bias: H = 0 is stored as 16384
/// Columns per step of the 16-bit kernel (even, at most 4: one step's
/// letters share a 32-bit word of the sequence). 4, the most, is the
/// fastest: fewer instructions a column for 145 registers a thread (the
/// sweep of 1, 2 and 4 columns: docs/benchmarks.md).
constexpr int step_cols = 4;
/// Threads per block of the 16-bit kernel: 128 (64 is as fast, 96 slower;
/// docs/benchmarks.md).
constexpr int s16_block_threads = 128;

/// One function body on purpose: the registers it sweeps with (rows, gap
/// states, bests) live across the whole loop nest, which helper calls would
/// have to pass by reference; the recurrence is in the file's header.
__global__ void __launch_bounds__(s16_block_threads) scan_kernel_s16x2(ScanParams p, int overflow_at) {
    int2* const boundary = static_cast<int2*>(p.boundary);
    __shared__ __align__(16) unsigned prof[(max_letters + 1) * pair_stride];
    const int t = blockIdx.x * s16_block_threads + threadIdx.x;
    const int y = blockIdx.y;
    const bool active = t < p.count;
    const int n = active ? p.lengths[t] : 0;
    const uint4* seq = active ? reinterpret_cast<const uint4*>(p.db + p.offsets[t]) : nullptr;
    const int query_len = p.query_len[y];
    const int strips = (query_len + strip_rows - 1) / strip_rows;
    const unsigned* profile = p.pair_profile + p.pair_profile_offset[y];
    const int letters = p.size;
    const std::size_t lane = static_cast<std::size_t>(y) * p.count + t;
    const std::size_t pitch = static_cast<std::size_t>(p.count) * p.queries;
    const int open = p.gap_open + p.gap_extend;
    // Values are biased by `bias` in each half (unsigned), so that a packed
    // add never carries from the low half into the high one (see above).
    auto twice = [](int v) { return (static_cast<unsigned>(v) & 0xFFFFu) * 0x10001u; };
    const unsigned neg_ge2 = twice(-p.gap_extend);
    const unsigned open2 = twice(open), ge2 = twice(p.gap_extend);  // O, ge in both halves (subtracted as 32-bit words)
    const unsigned zero2 = twice(s16_bias);      // H = 0
    const unsigned t0 = twice(s16_bias - open);  // T of H = 0
    const unsigned ninf2 = twice(p.gap_extend);  // -inf: Fcell - ge = 0, below every T
    unsigned best = zero2;
    for (int k = 0; k < strips; ++k) {
        __syncthreads();
        for (int x = threadIdx.x; x < letters * strip_rows; x += s16_block_threads)
            prof[x / strip_rows * pair_stride + x % strip_rows] = profile[static_cast<std::size_t>(k) * letters * strip_rows + x];
        __syncthreads();
        if (!active) continue;
        // step_cols columns per step: row r computes (r, j) .. (r, j+K-1),
        // so a row's T passes down the rows once per K columns (fewer
        // register moves at the loop's back edge). Columns past the DB
        // sequence's end take the pad letter (score 0 = s + O, i.e. s = -O:
        // no cell of them exceeds a real one); their boundary entries are
        // not stored.
        constexpr int K = step_cols;
        unsigned P[strip_rows], E[strip_rows];  // T(r, j-1) and Ecell(r, j-1) before a step
#pragma unroll
        for (int r = 0; r < strip_rows; ++r) {
            P[r] = t0;  // H(i, 0) = 0
            E[r] = zero2;  // Ecell floored at 0 (see above)
        }
        unsigned t_left_top = t0;
        // Loads one step ahead of use: the next 16 letters, the next step's boundary entries.
        uint4 codes = make_uint4(0, 0, 0, 0), codes_next = seq[0];
        int2 bn[K];
#pragma unroll
        for (int x = 0; x < K; ++x)
            bn[x] = k > 0 && x < n ? boundary[static_cast<std::size_t>(x) * pitch + lane]
                                   : make_int2(static_cast<int>(t0), static_cast<int>(ninf2));
        for (int j = 0; j < n; j += K) {
            if ((j & 15) == 0) {
                codes = codes_next;
                if (j + 16 < n) codes_next = seq[(j >> 4) + 1];
            }
            const unsigned w = (j & 8) ? ((j & 4) ? codes.w : codes.z) : ((j & 4) ? codes.y : codes.x);
            int c[K];
            unsigned tt[K], f[K];
#pragma unroll
            for (int x = 0; x < K; ++x) {
                const bool real = j + x < n;
                c[x] = real ? static_cast<int>((w >> (((j + x) & 3) * 8)) & 0xFF) : letters - 1;  // (pad letter)
                // The strip's top row at column j+x+1 (the first strip's: H = 0, Fcell = -inf).
                tt[x] = real ? static_cast<unsigned>(bn[x].x) : t0;
                f[x] = real ? static_cast<unsigned>(bn[x].y) : ninf2;
                if (k > 0 && j + K + x < n) bn[x] = boundary[static_cast<std::size_t>(j + K + x) * pitch + lane];
            }
            unsigned diag[K], up[K], t[K], hv[K];
#pragma unroll
            for (int x = 0; x < K; ++x) {
                diag[x] = x == 0 ? t_left_top : tt[x - 1];
                up[x] = tt[x];
            }
#pragma unroll
            for (int q = 0; q < strip_rows / 4; ++q) {
                uint4 so4[K];
#pragma unroll
                for (int x = 0; x < K; ++x) so4[x] = reinterpret_cast<const uint4*>(prof + c[x] * pair_stride)[q];
#pragma unroll
                for (int h = 0; h < 4; ++h) {
                    const int r = q * 4 + h;
#pragma unroll
                    for (int x = 0; x < K; ++x) {
                        const unsigned so = h == 0 ? so4[x].x : h == 1 ? so4[x].y : h == 2 ? so4[x].z : so4[x].w;
                        // Ecell' = max(Ecell - ge, T_left, 0); H = max(T_diag + (s + O), Ecell', Fcell)
                        // (>= 0 through Ecell'); T = H - O. The three adds are plain 32-bit words
                        // (no carry or borrow between the halves), issued on the FMA pipe.
                        E[r] = __vimax3_u16x2(E[r] - ge2, x == 0 ? P[r] : t[x - 1], zero2);
                        f[x] = __viaddmax_u16x2(f[x], neg_ge2, up[x]);
                        hv[x] = __vimax3_u16x2(diag[x] + so, E[r], f[x]);
                        t[x] = hv[x] - open2;
                    }
#pragma unroll
                    for (int x = 0; x < K; x += 2) best = __vimax3_u16x2(best, hv[x], hv[x + 1]);
                    diag[0] = P[r];
#pragma unroll
                    for (int x = 0; x < K; ++x) {
                        if (x > 0) diag[x] = t[x - 1];
                        up[x] = t[x];
                    }
                    P[r] = t[K - 1];
                }
            }
            t_left_top = tt[K - 1];
            if (k + 1 < strips) {
#pragma unroll
                for (int x = 0; x < K; ++x)
                    if (j + x < n)
                        boundary[static_cast<std::size_t>(j + x) * pitch + lane] =
                            make_int2(static_cast<int>(up[x]), static_cast<int>(f[x]));
            }
        }
    }
    if (!active) return;
    const int b0 = static_cast<int>(best & 0xFFFFu) - s16_bias, b1 = static_cast<int>(best >> 16) - s16_bias;
    // A half past overflow_at may have carried into the other: both are scored again.
    const bool wrapped = b0 >= overflow_at || b1 >= overflow_at;
    int* out = p.scores + static_cast<std::size_t>(2 * y) * p.records;
    out[p.slots[t]] = wrapped ? -1 : b0;
    if (2 * y + 1 < p.query_count) out[p.records + p.slots[t]] = wrapped ? -1 : b1;
}

}  // namespace gpualign::gpu::scan_kernels
