// gpualign — the long-pair region kernel: every warp of the grid works on one
// region of one pair at once, in a pipelined anti-diagonal wavefront.
//
// Recurrence (Gotoh 1982; local = Smith-Waterman 1981, global =
// Needleman-Wunsch 1970), docs/scoring.md, with O = go + ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - ge, H(i,j-1) - O)       opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, H(i-1,j) - O)       opening wins ties
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell [, 0 if local])
//                preference zero (local) > diagonal > E > F
// computed with the DPX instructions (__viaddmax_s32, __vimax3_s32[_relu]).
// Registers hold T = H - O (the gap-opening term of both Ecell one column on
// and Fcell one row down); the shared matrix holds s + O, so that
// T(i-1,j-1) + s + O is the diagonal term H(i-1,j-1) + s exactly.
//
// Schedule. The region's rows are cut into stripes of 32*R rows; warp w of
// W takes stripes w, w+W, ... Inside a stripe, lane t owns R consecutive rows
// in registers and at step k computes column j = k - t + 1 of them, handing
// its last row's H and Fcell (and the ref code) to lane t+1 by shuffle; this
// is the warp wavefront of the batch kernel (dp_kernel.cuh). Across stripes,
// the last lane writes the stripe's bottom row into its warp's ring in device
// memory, and publishes how many columns are there in progress[stripe] every
// 32 steps (after a __threadfence). Lane 0 of the next stripe waits for the
// columns it needs 64 columns ahead (polling progress), then loads them with
// L2 loads. When the ring is narrower than the region, a producer also waits
// until its consumer has taken the slots it is about to overwrite; the host
// sizes rings so that this cannot close a cycle of waits (long_engine.cpp).
// All warps are co-resident (cooperative launch), so polling cannot starve.
//
// Outputs: checkpoint rows (stripe bottoms), checkpoint columns (each lane
// writes its rows' H and Ecell at every col_stride-th column), direction
// bytes (leaf tiles), the canonical best cell of each stripe (max H, then
// smallest row, then smallest column) and H at the region's bottom-right.
#pragma once

#include <cstdint>

#include "region_params.cuh"

namespace gpualign::gpu::long_kernels {

/// Threads per block of the region kernel (independent warps).
constexpr int region_block = 128;

__device__ __forceinline__ int load_volatile(const int* p) { return *reinterpret_cast<const volatile int*>(p); }
__device__ __forceinline__ void store_volatile(int* p, int v) { *reinterpret_cast<volatile int*>(p) = v; }

/// A wait this long (nanoseconds) means the waits closed a cycle: a bug, not
/// a slow GPU. The kernel traps, so the host gets a CUDA error, not a hang.
constexpr unsigned long long wait_watchdog_ns = 20ull * 1000 * 1000 * 1000;

__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/// Spins (one lane) until *flag >= target.
__device__ __forceinline__ void wait_at_least(const int* flag, int target) {
    if (load_volatile(flag) >= target) return;
    const unsigned long long start = global_ns();
    for (unsigned spins = 1; load_volatile(flag) < target; ++spins) {
        __nanosleep(100);
        if ((spins & 1023) == 0 && global_ns() - start > wait_watchdog_ns) __trap();
    }
}

template <int R, bool Local, bool Dirs>
__global__ void __launch_bounds__(region_block) region_kernel(const RegionParams p) {
    constexpr unsigned full = 0xFFFFFFFFu;
    constexpr int stripe_rows = 32 * R;

    // Substitution matrix plus O, transposed and padded: mat[c * 32 + q] = s(q, c) + O.
    __shared__ std::int32_t mat[32 * 32];
    const std::int32_t ge = p.gap_extend, open = p.gap_open + p.gap_extend;
    for (int x = threadIdx.x; x < 32 * 32; x += blockDim.x) {
        const int c = x >> 5, q = x & 31;
        mat[x] = (c < p.size && q < p.size) ? p.matrix[q * p.size + c] + open : 0;
    }
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int warps = static_cast<int>((gridDim.x * blockDim.x) >> 5);
    const int rows = p.rows, cols = p.cols;
    const int ring_cols = p.ring_mask + 1;
    unsigned long long cells = 0;

    for (int s = warp; s < p.stripes; s += warps) {
        const int row0 = s * stripe_rows;
        const int tc = (min(stripe_rows, rows - row0) + R - 1) / R;  // lanes in use
        const int ir0 = row0 + lane * R + 1;                          // region row of this lane's first row
        const bool has_next = s + 1 < p.stripes;
        const bool last_stripe = !has_next;
        const int2* ring_in = p.ring + static_cast<std::size_t>((s + warps - 1) % warps) * ring_cols;
        int2* ring_out = p.ring + static_cast<std::size_t>(s % warps) * ring_cols;
        // The stripe's bottom row is a checkpoint row when it is a multiple of row_stride (and not the last row).
        const bool ckpt_row = has_next && p.row_stride > 0 && (row0 + stripe_rows) % p.row_stride == 0;
        int2* row_ck = ckpt_row ? p.row_out + static_cast<std::size_t>((row0 + stripe_rows) / p.row_stride - 1) *
                                                  static_cast<std::size_t>(cols + 1)
                                : nullptr;
        if (ckpt_row && lane == 0) row_ck[0] = make_int2(p.left[row0 + stripe_rows].x, 0);

        int qo[R];
        std::int32_t T[R], E[R];
        std::int32_t bh[R];
        int bj[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int i = ir0 + r;
            const bool valid = i <= rows;
            qo[r] = valid ? p.query[p.i0 + i - 1] : 0;
            const int2 lb = valid ? p.left[i] : make_int2(0, neg_inf);
            T[r] = lb.x - open;
            E[r] = lb.y;
            bh[r] = 0;
            bj[r] = 0;
        }
        std::int32_t diag = (lane < tc ? p.left[ir0 - 1].x : 0) - open;  // H(ir0-1, j0) - O
        std::int32_t out_h = 0, out_f = neg_inf;
        int out_c = 0;

        // Column feed for lane 0: 32 columns per chunk, one chunk ahead.
        int cur_c = 0, nxt_c = 0;
        int2 cur_b = make_int2(0, neg_inf), nxt_b = cur_b;
        auto load_chunk = [&](int k0, int& c, int2& b) {
            const int col = k0 + lane + 1;
            if (col <= cols) {
                c = p.ref[p.j0 + col - 1];
                b = s == 0 ? p.top[col] : __ldcg(ring_in + (col & p.ring_mask));
            }
        };

        const int steps = cols + tc - 1;
        for (int k = 0; k < steps; ++k) {
            if ((k & 31) == 0) {
                // Publish the columns done so far: the next stripe reads the ring up to
                // there, and the previous one (flow control) may overwrite its ring below
                // there. Every stripe publishes, the last one too.
                if (lane == tc - 1 && k > 0) {
                    const int done = min(cols, k - tc + 1);
                    if (done > 0) {
                        __threadfence();
                        store_volatile(p.progress + s, done);
                    }
                }
                if (lane == 0) {
                    if (s > 0) wait_at_least(p.progress + s - 1, min(cols, k + 64));
                    if (p.flow_control && has_next) {
                        const int target = min(cols, k + 33 - tc) - ring_cols + 32;
                        if (target > 0) wait_at_least(p.progress + s + 1, target);
                    }
                    __threadfence();  // acquire: the ring loads below follow the progress read
                }
                __syncwarp();
                if (k == 0) {
                    load_chunk(0, cur_c, cur_b);
                } else {
                    cur_c = nxt_c;
                    cur_b = nxt_b;
                }
                load_chunk(k + 32, nxt_c, nxt_b);
            }
            const int src = k & 31;
            const int feed_c = __shfl_sync(full, cur_c, src);
            const std::int32_t feed_h = __shfl_sync(full, cur_b.x, src) - open;
            const std::int32_t feed_f = __shfl_sync(full, cur_b.y, src);
            int in_c = __shfl_up_sync(full, out_c, 1);
            std::int32_t in_h = __shfl_up_sync(full, out_h, 1);
            std::int32_t in_f = __shfl_up_sync(full, out_f, 1);
            if (lane == 0) {
                in_c = feed_c;
                in_h = feed_h;
                in_f = feed_f;
            }
            const int j = k - lane + 1;
            if (lane < tc && j >= 1 && j <= cols) {
                const std::int32_t* col = mat + in_c * 32;
                const bool ckpt_col = p.col_stride > 0 && j < cols && j % p.col_stride == 0;
                int2* col_ck = ckpt_col ? p.col_out + static_cast<std::size_t>(j / p.col_stride - 1) *
                                                          static_cast<std::size_t>(rows + 1)
                                        : nullptr;
                std::int32_t tu = in_h, fu = in_f;  // H(i-1, j) - O, Fcell(i-1, j)
                std::int32_t dg = diag;             // H(i-1, j-1) - O
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const std::int32_t sc = col[qo[r]];  // s(q_i, r_j) + O
                    const std::int32_t e = __viaddmax_s32(E[r], -ge, T[r]);
                    const std::int32_t f = __viaddmax_s32(fu, -ge, tu);
                    const std::int32_t d = dg + sc;
                    const std::int32_t h = Local ? __vimax3_s32_relu(d, e, f) : __vimax3_s32(d, e, f);
                    const int i = ir0 + r;
                    if constexpr (Dirs) {
                        std::uint32_t nib = h == d ? 1u : (h == e ? 2u : 3u);
                        if (Local && h == 0) nib = 0u;
                        nib |= (e != T[r] ? 4u : 0u) | (f != tu ? 8u : 0u);
                        if (i <= rows)
                            p.dirs[static_cast<std::size_t>(i - 1) * static_cast<std::size_t>(cols) + (j - 1)] =
                                static_cast<std::uint8_t>(nib);
                    }
                    if constexpr (Local) {  // per-row best, first j wins: keep the old one on ties
                        bool keep;
                        bh[r] = __vibmax_s32(bh[r], h, &keep);
                        bj[r] = keep ? bj[r] : j;
                    }
                    if (ckpt_col && i <= rows) col_ck[i] = make_int2(h, e);
                    const std::int32_t t = h - open;
                    dg = T[r];
                    T[r] = t;
                    E[r] = e;
                    tu = t;
                    fu = f;
                }
                diag = in_h;
                out_c = in_c;
                out_h = tu;
                out_f = fu;
                if (lane == tc - 1) {
                    if (has_next) __stcg(ring_out + (j & p.ring_mask), make_int2(tu + open, fu));
                    if (ckpt_row) row_ck[j] = make_int2(tu + open, fu);
                }
                if (s == 0 && lane == 0 && ckpt_col) col_ck[0] = make_int2(in_h + open, 0);
            }
        }
        if (lane == tc - 1) {
            __threadfence();
            store_volatile(p.progress + s, cols);
        }

        if constexpr (Local) {
            // This lane's best over its valid rows (rows in increasing order), then the
            // warp's canonical best: H desc, row asc, column asc.
            std::int32_t best_h = 0;
            int best_i = 0, best_j = 0;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if (lane < tc && ir0 + r <= rows && bh[r] > best_h) {
                    best_h = bh[r];
                    best_i = ir0 + r;
                    best_j = bj[r];
                }
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                const std::int32_t oh = __shfl_xor_sync(full, best_h, off);
                const int oi = __shfl_xor_sync(full, best_i, off);
                const int oj = __shfl_xor_sync(full, best_j, off);
                if (oh > best_h || (oh == best_h && (oi < best_i || (oi == best_i && oj < best_j)))) {
                    best_h = oh;
                    best_i = oi;
                    best_j = oj;
                }
            }
            if (lane == 0) p.stripe_best[s] = make_int4(best_h, best_i, best_j, 0);
        }
        if (last_stripe && lane < tc) {
#pragma unroll
            for (int r = 0; r < R; ++r)
                if (ir0 + r == rows) *p.corner = T[r] + open;
        }
        cells += static_cast<unsigned long long>(min(stripe_rows, rows - row0)) * static_cast<unsigned long long>(cols);
        if (p.cells_done && lane == 0)
            *reinterpret_cast<volatile unsigned long long*>(p.cells_done + warp) = cells;
    }
}

}  // namespace gpualign::gpu::long_kernels
