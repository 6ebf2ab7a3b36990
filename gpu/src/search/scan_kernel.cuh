// gpualign — the search scan kernel: score-only local or global DP of one
// query against many DB sequences, one thread per DB sequence
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
// Local: the score is the largest H (the canonical best cell's H, whatever
// cell holds it); global: H(m, n). Only the score leaves the kernel: a hit's
// coordinates and CIGAR come from aligning it again (search_pipeline.cpp).
// Scores are 32-bit: a pair within fits_int32 cannot overflow.
//
// scan_kernel_s16x2 (local only) is the same recurrence on two DB sequences
// per thread, packed as the two 16-bit halves of each register and updated
// by the s16x2 DPX forms (__viaddmax_s16x2, __vimax3_s16x2, __vmaxs2): half
// the instructions per cell. Every value stays in int16: Ecell, Fcell and T
// are at least -O after their first update, and H can only wrap after some
// H reached 32767 - max s, since a diagonal step adds at most max s. So a
// best score of at least `overflow_at` (= 32767 - max s) may be wrong, and
// is reported as -1: the host scores that pair again in 32 bits. Past its
// sequence's end a lane reads the pad letter (the profile's last, -1000),
// which adds no cell above the lane's best.
#pragma once

#include <cstdint>

namespace gpualign::gpu::scan_kernels {

constexpr int strip_rows = 32;     ///< query rows per strip (registers per thread: 2 per row)
constexpr int block_threads = 128;
constexpr int max_letters = 32;    ///< alphabet size bound of the shared profile
constexpr std::int32_t neg_inf = INT32_MIN / 2;

/// One launch: `count` DB sequences (sorted by length), one per thread, times
/// `queries` queries (blockIdx.y).
struct ScanParams {
    const std::uint8_t* db;          ///< device: every DB sequence's codes, each starting 16-byte aligned
    const long long* offsets;        ///< device, count: byte offset of thread t's sequence in db
    const int* lengths;              ///< device, count: its length (>= 1)
    const int* slots;                ///< device, count: where its score goes in `scores`
    int count;
    int queries;                     ///< queries of the launch (gridDim.y)
    int2* boundary;                  ///< device, max_len * count * queries: (T, Fcell) of a strip's bottom row
    const short* profile;            ///< device: query y's strips * size * strip_rows at profile_offset[y]: s(q_i, c) + O
    const long long* profile_offset; ///< device, queries
    const int* query_len;            ///< device, queries
    int size;                        ///< profile letters: the alphabet plus the pad letter (code size - 1, -1000)
    int gap_open, gap_extend;
    int* scores;                     ///< device: query y's score of DB record r at scores[y * records + r]
    int records;
};

template <bool Local>
__global__ void __launch_bounds__(block_threads) scan_kernel(ScanParams p) {
    __shared__ __align__(16) short prof[(max_letters + 1) * strip_rows];
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
    int result = 0;    // global: H(m, n)
    for (int k = 0; k < strips; ++k) {
        __syncthreads();
        for (int x = threadIdx.x; x < p.size * strip_rows; x += block_threads)
            prof[x] = profile[static_cast<std::size_t>(k) * p.size * strip_rows + x];
        __syncthreads();
        if (!active) continue;
        const int row0 = k * strip_rows;
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
                t_top = Local ? -open : -(p.gap_open + (j + 1) * ge) - open;
                f = neg_inf;
            } else {
                const int2 b = p.boundary[static_cast<std::size_t>(j) * pitch + lane];
                t_top = b.x;
                f = b.y;
            }
            int t_diag = t_left_top, t_up = t_top;
            const uint4* pr = reinterpret_cast<const uint4*>(prof + c * strip_rows);
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
            if (k + 1 < strips) p.boundary[static_cast<std::size_t>(j) * pitch + lane] = make_int2(T[strip_rows - 1], f);
        }
        if (!Local && k + 1 == strips) {
            const int last = query_len - 1 - row0;
#pragma unroll
            for (int r = 0; r < strip_rows; ++r)
                if (r == last) result = T[r] + open;
        }
    }
    if (active) p.scores[static_cast<std::size_t>(y) * p.records + p.slots[t]] = Local ? best : result;
}

/// The 16-bit local kernel: thread t aligns the launch's sequences 2t (low
/// halves) and 2t+1 (high halves; absent when 2t+1 == count). The profile's
/// last letter (code size - 1) is the pad letter; `overflow_at` is
/// 32767 - max s. Boundary entries: (T, Fcell) packed, at [j * pitch + lane]
/// as in scan_kernel with ceil(count / 2) threads.
__global__ void __launch_bounds__(block_threads) scan_kernel_s16x2(ScanParams p, int overflow_at) {
    __shared__ __align__(16) short prof[(max_letters + 1) * strip_rows];
    const int threads = (p.count + 1) / 2;
    const int t = blockIdx.x * block_threads + threadIdx.x;
    const int y = blockIdx.y;
    const bool active = t < threads;
    const int s0 = 2 * t, s1 = 2 * t + 1;
    const int n0 = active ? p.lengths[s0] : 0;
    const int n1 = active && s1 < p.count ? p.lengths[s1] : 0;
    const int n = max(n0, n1);
    const uint4* seq0 = active ? reinterpret_cast<const uint4*>(p.db + p.offsets[s0]) : nullptr;
    const uint4* seq1 = n1 > 0 ? reinterpret_cast<const uint4*>(p.db + p.offsets[s1]) : nullptr;
    const int query_len = p.query_len[y];
    const int strips = (query_len + strip_rows - 1) / strip_rows;
    const short* profile = p.profile + p.profile_offset[y];
    const int letters = p.size;
    const std::size_t lane = static_cast<std::size_t>(y) * threads + t;
    const std::size_t pitch = static_cast<std::size_t>(threads) * p.queries;
    const int open = p.gap_open + p.gap_extend;
    const unsigned open2 = (static_cast<unsigned>(open) & 0xFFFFu) * 0x10001u;
    const unsigned neg_open2 = (static_cast<unsigned>(-open) & 0xFFFFu) * 0x10001u;
    const unsigned neg_ge2 = (static_cast<unsigned>(-p.gap_extend) & 0xFFFFu) * 0x10001u;
    const unsigned ninf2 = 0xC000C000u;  // -16384 in both halves
    unsigned best = 0;
    for (int k = 0; k < strips; ++k) {
        __syncthreads();
        for (int x = threadIdx.x; x < letters * strip_rows; x += block_threads)
            prof[x] = profile[static_cast<std::size_t>(k) * letters * strip_rows + x];
        __syncthreads();
        if (!active) continue;
        unsigned T[strip_rows], E[strip_rows];
#pragma unroll
        for (int r = 0; r < strip_rows; ++r) {
            T[r] = neg_open2;  // H(i, 0) = 0
            E[r] = ninf2;
        }
        unsigned t_left_top = neg_open2;
        uint4 codes0 = make_uint4(0, 0, 0, 0), codes1 = make_uint4(0, 0, 0, 0);
        for (int j = 0; j < n; ++j) {
            if ((j & 15) == 0) {
                if (j < n0) codes0 = seq0[j >> 4];
                if (j < n1) codes1 = seq1[j >> 4];
            }
            const int sh = (j & 3) * 8;
            const unsigned w0 = (j & 8) ? ((j & 4) ? codes0.w : codes0.z) : ((j & 4) ? codes0.y : codes0.x);
            const unsigned w1 = (j & 8) ? ((j & 4) ? codes1.w : codes1.z) : ((j & 4) ? codes1.y : codes1.x);
            const int c0 = j < n0 ? static_cast<int>((w0 >> sh) & 0xFF) : letters - 1;
            const int c1 = j < n1 ? static_cast<int>((w1 >> sh) & 0xFF) : letters - 1;
            unsigned t_top, f;
            if (k == 0) {
                t_top = neg_open2;
                f = ninf2;
            } else {
                const int2 b = p.boundary[static_cast<std::size_t>(j) * pitch + lane];
                t_top = static_cast<unsigned>(b.x);
                f = static_cast<unsigned>(b.y);
            }
            unsigned t_diag = t_left_top, t_up = t_top;
            const uint4* pa = reinterpret_cast<const uint4*>(prof + c0 * strip_rows);
            const uint4* pb = reinterpret_cast<const uint4*>(prof + c1 * strip_rows);
#pragma unroll
            for (int q = 0; q < strip_rows / 8; ++q) {
                const uint4 a4 = pa[q], b4 = pb[q];
                const unsigned wa[4] = {a4.x, a4.y, a4.z, a4.w}, wb[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
                for (int h = 0; h < 8; ++h) {
                    const int r = q * 8 + h;
                    // rows 2m, 2m+1 of the strip are the halves of word m: low halves for even rows
                    const unsigned so = __byte_perm(wa[h >> 1], wb[h >> 1], (h & 1) ? 0x7632 : 0x5410);
                    E[r] = __viaddmax_s16x2(E[r], neg_ge2, T[r]);
                    f = __viaddmax_s16x2(f, neg_ge2, t_up);
                    const unsigned d = __viaddmax_s16x2(t_diag, so, 0u);
                    const unsigned hv = __vimax3_s16x2(d, E[r], f);
                    t_diag = T[r];
                    T[r] = __vsub2(hv, open2);
                    t_up = T[r];
                    best = __vmaxs2(best, hv);
                }
            }
            t_left_top = t_top;
            if (k + 1 < strips)
                p.boundary[static_cast<std::size_t>(j) * pitch + lane] =
                    make_int2(static_cast<int>(T[strip_rows - 1]), static_cast<int>(f));
        }
    }
    if (!active) return;
    const int b0 = static_cast<int>(best & 0xFFFFu), b1 = static_cast<int>(best >> 16);
    int* out = p.scores + static_cast<std::size_t>(y) * p.records;
    out[p.slots[s0]] = b0 >= overflow_at ? -1 : b0;
    if (s1 < p.count) out[p.slots[s1]] = b1 >= overflow_at ? -1 : b1;
}

}  // namespace gpualign::gpu::scan_kernels
