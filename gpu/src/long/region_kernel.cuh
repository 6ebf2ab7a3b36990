// gpualign — the long-pair region kernel: every warp of the grid works on one
// region of one pair at once, in a pipelined anti-diagonal wavefront.
//
// Recurrence (Gotoh 1982; local = Smith-Waterman 1981, global =
// Needleman-Wunsch 1970, semi-global = global's recurrence with a free
// leading and trailing ref gap), docs/scoring.md, with O = go + ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - ge, H(i,j-1) - O)       opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, H(i-1,j) - O)       opening wins ties
//   H(i,j)     = max(H(i-1,j-1) + s(q_i, r_j), Ecell, Fcell [, 0 if local])
//                preference zero (local) > diagonal > E > F
// computed with the DPX instructions (__viaddmax_s32, __vimax3_s32). The
// modes' borders (row 0, column 0) come with each region (RegionDesc::top,
// left); the kernel's `Mode` only sets the zero floor (local) and which best
// cell it reports: local, each stripe's best cell; semi-global, the best of
// the region's last row, max over j of H(i0+rows, j), first j on ties (the
// end-cell candidate; the host compares it with column 0).
// Registers hold T = H - O (the gap-opening term of both Ecell one column on
// and Fcell one row down), and the row-to-row chain of a step stays in that
// space: with d_t = T(i-1,j-1) + s and e_t = Ecell - O (both off the chain),
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, T(i-1,j))
//   T(i,j)     = max(Fcell(i,j) - O, d_t, e_t [, -O if local])
// two dependent operations per row. Without direction bytes a cell is six
// operations (eight with the local best): Ecell, the score, d_t, max(d_t,
// e_t) folded into one __viaddmax_s32 (e_t is never formed), Fcell and T.
// (Shortening the row chain to one operation, Fcell(i+1,j) = max(Fcell(i,j)
// - ge, max(d_t, e_t)) as O >= ge, measured no faster on an H100 and spilled
// more registers in the local variant.)
// Local forward (no direction bytes): Ecell is floored at 0, Ecell =
// __vimax3_s32(Ecell - ge, T(i,j-1), 0). H = max(d, Ecell, Fcell, 0) is
// unchanged by the floor, and by induction the floored chain is max(Ecell, 0)
// at every cell; so e_t >= -O already holds the zero floor and d_t is a plain
// add (a faster local forward, docs/long.md).
// The floored Ecell also reaches the checkpoint columns: the traceback's
// regions start from it, and only ever visit state E where Ecell > 0, where
// it is exact (a cell's E-state is entered when H == Ecell > 0 and extends
// to Ecell + ge), and an H source of E needs Ecell == H > 0, where the floor
// changed nothing. (A lane-wide best, a column's max over the lane's rows
// and a rare search for its first row, instead of the per-row best below,
// measured 6% slower: it lengthens each step's dependent chain.)
//
// Local best without direction bytes, two columns a step (`Windowed`): each
// row keeps only its best value, bh = max(bh, T(i, j-1), T(i, j)), one
// __vimax3_s32 per two cells (against two operations a cell for a per-row
// best value and column). After every chunk of 16 steps the lane forms its
// canonical key over its rows, (max bh, smallest row), and notes the chunk
// in which the key last grew: bh only grows, so that is the chunk in which
// the key's row first reached the key's value, and the best cell's column
// lies in the lane's 32 columns of that chunk. The stripe's entry gives the
// best H and row exactly and the column as that window; the host finds the
// column by recomputing the window's rows and columns from the checkpoints
// around it (long_worker.cpp, locate_best; docs/long.md).
//
// 32 rows a lane (R = 32, launches without direction bytes, two columns a
// step): 64 cells for one step's frame and half the lanes (the skew of the
// stripes' wavefront, rows / R steps, is half R = 16's), at 168 registers;
// two rows' query codes share a register (16 bits each). Stripes are 1024
// rows, so a checkpoint row of a 512-row stride falls in the middle of a
// stripe: every lane whose last row is a checkpoint row writes it. The local
// best (`LaneKey`) keeps no per-row values (32 more registers would spill):
// each lane keeps its best value over the current chunk of 32 columns (16
// steps), two rows per __vimax3_s32, and after each chunk the key (the lane's best so
// far) and the chunk in which it was first reached; a later chunk that
// equals the key marks it tied. The stripe's entry gives the best H
// exactly, the lane (its rows) and the chunk's 32 columns as the window, or,
// when tied, the window from that chunk on to the region's last column
// (a smaller row may reach the same H further right); the host finds the
// canonical cell in the sub-region as for `Windowed` (locate_best). Rows past
// the region's last (in its last lane) take a spare query code scored below
// zero against every letter (-128 packed, -2^20 in the table): each of their
// cells is the zero floor or a valid cell of the lane, at its column or
// left of it, less a gap or that score, so it never exceeds the lane's best
// valid cell and never reaches it first; where it equals it in a later chunk
// (zero gap costs), the key is marked tied and the host's search, exact
// either way, only runs further.
//
// Scores. With `Packed` (an alphabet of at most 8 letters whose scores fit
// in int8: DNA) the block keeps, per ref code c, the eight scores s(0..7, c)
// as bytes of two registers, loads that pair once per step, and each row
// picks its score with one PRMT whose selector (built once per stripe from
// the row's query code) sign-extends the chosen byte. Otherwise each cell
// reads s(q, c) from the transposed matrix in shared memory.
//
// Schedule. A launch computes one region, or several regions (the
// traceback's speculative leaves). Each region's rows are cut into stripes of
// 32*R rows, numbered region after region; a free warp takes the next stripe
// (an atomic ticket, so stripes start in increasing order). Inside a stripe,
// lane t owns R consecutive rows in registers and at step k computes columns
// j = C*(k - t) + 1 .. C*(k - t) + C of them (C columns a step:
// long_tuning::columns_per_step, two in the R = 16 launches without direction
// bytes), handing its last row's H and Fcell (and the ref code) of each
// column to lane t+1 by shuffle; this is the warp wavefront of the batch
// kernel (dp_kernel.cuh). Two columns share one step's frame (the feed, the
// shuffles' issue, the tests, the loop), and the second column's row chain
// runs one row behind the first's. Across stripes, the last lane writes the stripe's bottom row
// into ring slot g mod ring_slots in device memory, one 16-byte entry
// {H, Fcell, stripe, column} per column; lane 0 of stripe g + 1 loads 32
// columns at a time (one per lane, L2 loads issued 16 columns before use) and
// loads again until every entry names its predecessor and its column (value and
// tag of one aligned 16-byte store become visible together, the property CUB's
// tile status words rely on), so no fence or flag sits on the hand-off path.
// Before its first write, stripe g waits until stripe g - ring_slots + 1 (the
// reader of the slot's previous contents) is done.
//
// Progress without co-residency: the lowest unfinished stripe has a finished
// producer and a finished slot reader, so it never waits; a launch whose rings
// hold whole rows therefore finishes with any number of resident blocks, and
// runs beside other launches (LongEngine::align_many). When a ring is narrower
// than the region (one huge region), each stripe also publishes the columns it
// has consumed in progress[stripe], and a producer waits before overwriting
// slots its consumer has not read; such launches are cooperative (all warps
// co-resident) and the host sizes rings so that these waits cannot close a
// cycle (launch_geometry.cpp, region_geometry). Any wait of 20 s traps (a CUDA error for the host,
// never a hang).
//
// Outputs: checkpoint rows (stripe bottoms), checkpoint columns (each lane
// writes its rows' H and Ecell at every col_stride-th column), direction
// bytes (leaf tiles, rows padded to dirs_pitch(cols) bytes; with R = 4 each
// lane keeps a row's last four bytes in a register and stores them as one
// 32-bit word: a byte store a cell costs an L2 sector write a cell), the canonical best cell of each stripe (local: max H,
// then smallest row, then smallest column), the best cell of the region's
// last row (semi-global: in the last stripe, the lane that holds that row
// tracks it in shared memory) and H at the region's bottom-right.
#pragma once

#include <climits>
#include <cstdint>

#include "long_tuning.hpp"
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

/// Letters of an alphabet whose scores a packed profile holds (bytes of two registers).
constexpr int packed_letters = 8;

/// The PRMT selector that picks byte q of a packed profile pair and
/// sign-extends it (PTX prmt, generic mode: a selector nibble's msb
/// replicates the sign of the chosen byte).
__device__ __forceinline__ unsigned packed_selector(int q) {
    const unsigned s = static_cast<unsigned>(q) | 8u;
    return static_cast<unsigned>(q) | (s << 4) | (s << 8) | (s << 12);
}

/// Byte `sel` of {hi, lo} as a signed score (one PRMT).
__device__ __forceinline__ std::int32_t packed_score(unsigned lo, unsigned hi, unsigned sel) {
    std::int32_t r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(sel));
    return r;
}

// One long function, as the recurrence above is one wavefront loop: a lane's
// rows, its ring cursors and its best-cell key live in registers for the
// whole loop, and the loop's parts (the column feed, the ring hand-off, the
// best-cell checks) are lambdas inside it that share them without passing
// them through memory.
template <int R, AlignMode Mode, bool Dirs, bool Packed, int C = 1>
__global__ void __launch_bounds__(region_block, long_tuning::region_min_blocks(R)) region_kernel(const RegionParams p) {
    static_assert(C == 1 || C == 2, "one or two columns a step");
    static_assert(R == 4 || R == 16 || R == 32, "4, 16 or 32 rows a lane");
    constexpr bool Local = Mode == AlignMode::local;             // zero floor, per-stripe best cells
    constexpr bool LastRowBest = Mode == AlignMode::semi_global;  // the best of the region's last row
    // Local without direction bytes at two columns a step: rows' best values
    // only, the best cell's column found to 32 columns (see the header).
    constexpr bool Windowed = Local && !Dirs && C == 2 && R <= 16;
    constexpr int KC = 16;  // steps a key chunk (R <= KC: a chunk's first step's low bits hold the key's row)
    static_assert(!Windowed || (R <= KC && KC * C == 32), "a key's window is 32 columns");
    // Local without direction bytes at 32 rows a lane: the lane's best value
    // only, its rows and a window of 32 columns found by the host (see the
    // header).
    constexpr bool LaneKey = Local && !Dirs && R == 32;
    constexpr int LKC = 32 / C;  // steps of a lane key's chunk: 32 columns
    constexpr unsigned full = 0xFFFFFFFFu;
    constexpr int stripe_rows = 32 * R;

    // Substitution matrix, transposed and padded: mat[c * 32 + q] = s(q, c);
    // or (Packed) prof[c] = the bytes s(0..7, c), byte q of {y, x}.
    __shared__ std::int32_t mat[Packed ? 1 : 32 * 32];
    __shared__ uint2 prof[Packed ? 32 : 1];
    __shared__ int4 feed_all[region_block / 32][32];  // each warp's column feed (below)
    int4* const feed = feed_all[threadIdx.x >> 5];
    // Semi-global: the best of the region's last row so far {T, column},
    // kept by the one lane that holds that row (shared memory, not
    // registers: the R = 16 variants are at the register limit).
    __shared__ int2 last_best_all[LastRowBest ? region_block / 32 : 1];
    int2& last_best = last_best_all[LastRowBest ? threadIdx.x >> 5 : 0];
    const std::int32_t ge = p.gap_extend, open = p.gap_open + p.gap_extend;
    if constexpr (Packed) {
        for (int c = threadIdx.x; c < 32; c += blockDim.x) {
            unsigned w[2] = {0u, 0u};
            for (int q = 0; q < packed_letters; ++q) {
                // (query code p.size, where it is spare: a row past the region's
                // last, -128 against every letter; LaneKey)
                const std::int32_t v = (c < p.size && q < p.size) ? p.matrix[q * p.size + c] : q == p.size ? -128 : 0;
                w[q >> 2] |= (static_cast<unsigned>(v) & 0xFFu) << (8 * (q & 3));
            }
            prof[c] = make_uint2(w[0], w[1]);
        }
    } else {
        for (int x = threadIdx.x; x < 32 * 32; x += blockDim.x) {
            const int c = x >> 5, q = x & 31;
            mat[x] = (c < p.size && q < p.size) ? p.matrix[q * p.size + c] : q == p.size ? -(1 << 20) : 0;
        }
    }
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int ring_cols = p.ring_mask + 1;
    unsigned long long cells = 0;
    int ri = 0;  // region of the current stripe (stripes are numbered region after region)

    while (true) {
        // Stripes are taken in increasing order, whichever warp is free: the
        // lowest unfinished stripe's producer is done and its ring slot's
        // last reader is done, so it never waits, and every launch without
        // flow control finishes whatever blocks are resident.
        int g = 0;
        if (lane == 0) g = atomicAdd(p.progress + p.stripes, 1);
        g = __shfl_sync(full, g, 0);
        if (g >= p.stripes) break;
        while (ri + 1 < p.count && p.regions[ri + 1].stripe_begin <= g) ++ri;
        const RegionDesc& d = p.regions[ri];
        const int rows = d.rows, cols = d.cols;
        // The one field the step loop reads per cell (Dirs), in a register; the
        // rest are read from the descriptor where used (chunk loads, checkpoints).
        std::uint8_t* const dirs = Dirs ? d.dirs : nullptr;
        const std::size_t pitch = static_cast<std::size_t>(dirs_pitch(d.cols));  // bytes a row of dirs
        const int s = g - d.stripe_begin;  // stripe within the region
        const int row0 = s * stripe_rows;
        const int tc = (min(stripe_rows, rows - row0) + R - 1) / R;  // lanes in use
        const int ir0 = row0 + lane * R + 1;                          // region row of this lane's first row
        const bool has_next = s + 1 < d.stripes;
        const bool last_stripe = !has_next;
        // Ring slot g mod ring_slots; its previous writer's reader (stripe
        // g - ring_slots + 1, lower than g) must be done before this stripe
        // overwrites it.
        auto ring_of = [&](int stripe) {
            return p.ring + static_cast<std::size_t>(stripe % p.ring_slots) * static_cast<std::size_t>(ring_cols);
        };
        const int4* ring_in = s > 0 ? ring_of(g - 1) : nullptr;
        int4* ring_out = ring_of(g);
        if (has_next && g >= p.ring_slots && lane == 0) wait_at_least(p.progress + g - p.ring_slots + 1, INT_MAX);
        __syncwarp();
        // This lane's last row is a checkpoint row when it is a multiple of
        // row_stride (and not the region's last row): the stripe's bottom row,
        // or (R = 32, stripes of 1024 rows, strides multiples of 512) lane 15's.
        const int lane_last = row0 + (lane + 1) * R;
        const bool ckpt_row = d.row_stride > 0 && lane_last < rows && lane_last % d.row_stride == 0;
        int2* row_ck = ckpt_row ? d.row_out + static_cast<std::size_t>(lane_last / d.row_stride - 1) *
                                                  static_cast<std::size_t>(cols + 1)
                                : nullptr;
        if (ckpt_row) row_ck[0] = make_int2(d.left[lane_last].x, 0);

        // qo: the row's query code (table) or its PRMT selector (Packed).
        // R = 32: two rows' (16-bit) values a register, the odd row's in the
        // high half (PRMT reads a selector's low 16 bits; one shift a cell
        // pair), so that 32 rows' T, Ecell and codes fit the register cap.
        constexpr int QP = R == 32 ? 2 : 1;
        unsigned qo[R / QP];
        std::int32_t T[R], E[R];
        // Dirs with R = 4 (the leaves): each row's last four direction bytes, newest
        // on top, stored as one word (R = 16 keeps byte stores: the registers
        // would spill).
        constexpr bool WordDirs = Dirs && R <= 4;
        std::uint32_t dacc[WordDirs ? R : 1];
        std::int32_t bh[R];  // the row's best, T-space (-O: H = 0)
        int bj[Windowed ? 1 : R];  // its first column (not Windowed)
        // Windowed: the lane's canonical best so far, T-space, and where: the
        // first step of the chunk it was found in plus its row (chunks start
        // at multiples of KC steps, R <= KC), -1 while no cell is above 0.
        std::int32_t key_h = -open;
        int key_at = -1;
        // LaneKey: the best of the lane's cells in the current chunk of 32
        // columns (T-space), and whether a later chunk tied the key (key_h).
        std::int32_t cm = -open;
        bool key_tied = false;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int i = ir0 + r;
            const bool valid = i <= rows;
            // LaneKey: rows past the region's last take the spare code p.size,
            // scored below zero, so that their cells never pass the lane's
            // best valid cell (see the header).
            const int q = valid ? p.query[d.i0 + i - 1] : LaneKey ? p.size : 0;
            const unsigned qv = Packed ? packed_selector(q) : static_cast<unsigned>(q);
            if (QP == 1 || r % QP == 0)
                qo[r / QP] = qv;
            else
                qo[r / QP] |= qv << 16;
            const int2 lb = valid ? d.left[i] : make_int2(0, neg_inf);
            T[r] = lb.x - open;
            E[r] = lb.y;
            if constexpr (WordDirs) dacc[r] = 0;
            bh[r] = -open;
            if constexpr (!Windowed) bj[r] = 0;
        }
        // Semi-global: the lane holding the region's last row (in the last
        // stripe) tracks that row's best in last_best, T-space, first j on ties.
        const int last_r = (LastRowBest && last_stripe && lane < tc && rows - ir0 < R) ? rows - ir0 : -1;
        const bool owns_last = last_r >= 0;
        if (owns_last) last_best = make_int2(neg_inf, 0);
        std::int32_t diag = (lane < tc ? d.left[ir0 - 1].x : 0) - open;  // H(ir0-1, j0) - O
        std::int32_t out_h[C], out_f[C];  // this lane's last row at each column of the step, for lane + 1
#pragma unroll
        for (int c = 0; c < C; ++c) {
            out_h[c] = 0;
            out_f[c] = neg_inf;
        }

        // Column feed for lane 0: 32 columns per chunk, each lane loading one. The
        // next chunk is loaded half a chunk ahead and checked when it is needed
        // (a ring entry is valid when its tag is the previous stripe's index),
        // then published to the warp's feed in shared memory, {T, Fcell, ref
        // code} per column, which lane 0 reads at step k (entry k mod 32, one
        // broadcast load). The other lanes take their column's ref code from
        // lane - 1 with H and Fcell: lane t at step k has lane t-1's column of
        // step k-1.
        int nxt_c = 0;
        int4 nxt_b = make_int4(0, neg_inf, 0, 0);
        int my_c[C];  // the ref codes of this lane's columns at the last step
#pragma unroll
        for (int c = 0; c < C; ++c) my_c[c] = 0;
        int seen_out = 0;
        auto publish_chunk = [&](int c, const int4& b) {
            __syncwarp();  // every lane has read the previous chunk's entries
            feed[lane] = make_int4(b.x - open, b.y, c, 0);
            __syncwarp();
        };
        auto load_chunk = [&](int k0, int& c, int4& b) {
            const int col = k0 + lane + 1;
            if (col <= cols) {
                c = p.ref[d.j0 + col - 1];
                if (s == 0) {
                    const int2 t = d.top[col];
                    b = make_int4(t.x, t.y, -1, 0);
                } else {
                    b = __ldcg(ring_in + (col & p.ring_mask));
                }
            }
        };
        // Until every lane's entry carries the previous stripe's tag and its own
        // column (a ring slot holds columns j, j + ring_cols, ...), load it again.
        auto settle_chunk = [&](int k0, int4& b) {
            if (s == 0) return;
            const int col = k0 + lane + 1;
            const unsigned long long start = global_ns();
            for (unsigned spins = 1; !__all_sync(full, col > cols || (b.z == g - 1 && b.w == col)); ++spins) {
                __nanosleep(64);
                if (col <= cols && (b.z != g - 1 || b.w != col)) b = __ldcg(ring_in + (col & p.ring_mask));
                if ((spins & 1023) == 0 && global_ns() - start > wait_watchdog_ns) __trap();
            }
        };
        int ck_next = d.col_stride > 0 ? d.col_stride : INT_MAX;  // next checkpoint column of this lane

        // LaneKey: after each chunk of LKC steps (and after the last step), a
        // chunk best above the key makes it the key, found in this chunk; a
        // chunk best equal to it marks the key tied (a later column, maybe a
        // smaller row, has the same value).
        auto lane_key = [&](int kstart) {
            if (cm > key_h) {
                key_h = cm;
                key_at = kstart;
                key_tied = false;
            } else if (cm == key_h && key_at >= 0) {
                key_tied = true;
            }
            cm = -open;
        };

        // Windowed: after each chunk of KC steps (and after the last step), the
        // lane's canonical key over its rows, (max bh, smallest row), and the
        // chunk in which it last improved: the chunk where its final row first
        // reached its final value (bh only grows, so the key never passes it).
        auto check_key = [&](int kstart) {
            const int nvalid = lane < tc ? max(0, min(R, rows - ir0 + 1)) : 0;  // the lane's rows inside the region
            std::int32_t kh = nvalid > 0 ? bh[0] : INT_MIN;
            int kr = 0;
#pragma unroll
            for (int r = 1; r < R; ++r)
                if (r < nvalid && bh[r] > kh) {
                    kh = bh[r];
                    kr = r;
                }
            if (nvalid > 0 && (kh > key_h || (kh == key_h && key_at >= 0 && kr < (key_at & (KC - 1))))) {
                key_h = kh;
                key_at = kstart + kr;
            }
        };

        // C columns a step: lane t at step k computes columns C*(k - t) + 1 .. + C
        // (C = 2 in the forward and tile launches, which have no direction
        // bytes: one step frame, the feed, the tests and the ring store, for
        // twice the cells, and the second column's row chain runs one row
        // behind the first's). The feed holds 32 columns, 32 / C steps.
        constexpr int chunk_steps = 32 / C, half_chunk = 16 / C;
        const int steps = (cols + C - 1) / C + tc - 1;
        // Two steps an iteration: the compiler then carries the rotated row
        // values from step to step with fewer moves (a faster forward pass,
        // docs/long.md). At R = 32 one: two steps' values would spill at the
        // register cap.
#pragma unroll(R == 32 ? 1 : 2)
        for (int k = 0; k < steps; ++k) {
            if constexpr (Windowed) {
                if (k % KC == 0 && k > 0) check_key(k - KC);
            }
            if constexpr (LaneKey) {
                if (k % LKC == 0 && k > 0) lane_key(k - LKC);
            }
            if (k % half_chunk == 0) {
                if (p.flow_control) {
                    // Flow control: publish the columns this stripe has consumed (its last
                    // lane has finished them), and before overwriting ring slots wait until
                    // the next stripe has consumed them.
                    if (lane == tc - 1 && k > 0) store_volatile(p.progress + g, min(cols, C * (k - tc + 1)));
                    if (has_next && lane == 0) {
                        const int target = min(cols, C * (k - tc + 1) + 16) - ring_cols + 32;
                        if (target > seen_out) {
                            wait_at_least(p.progress + g + 1, target);
                            seen_out = load_volatile(p.progress + g + 1);
                        }
                    }
                    __syncwarp();
                }
                if (k % chunk_steps == 0) {
                    if (k == 0) load_chunk(0, nxt_c, nxt_b);
                    settle_chunk(C * k, nxt_b);
                    publish_chunk(nxt_c, nxt_b);
                } else {  // mid-chunk: fetch the next chunk
                    load_chunk(C * k + 16, nxt_c, nxt_b);
                }
            }
            const int j0 = C * (k - lane) + 1;  // this lane's first column of the step
            std::int32_t in_hs[C], in_fs[C];
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const int4 fd = feed[(C * k + c) & 31];  // column C*k + c + 1: T, Fcell, ref code (lane 0's input)
                int in_c = __shfl_up_sync(full, my_c[c], 1);
                std::int32_t in_h = __shfl_up_sync(full, out_h[c], 1);
                std::int32_t in_f = __shfl_up_sync(full, out_f[c], 1);
                if (lane == 0) {
                    in_h = fd.x;
                    in_f = fd.y;
                    in_c = fd.z;
                }
                my_c[c] = in_c;
                in_hs[c] = in_h;
                in_fs[c] = in_f;
            }
            if (lane < tc && j0 >= 1 && j0 <= cols) {
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    const int j = j0 + c;
                    if (c > 0 && j > cols) break;  // (the row's odd last column)
                    const int in_c = my_c[c];
                    const std::int32_t in_h = in_hs[c];
                    const std::int32_t* col = mat + in_c * 32;
                    uint2 pr = make_uint2(0u, 0u);
                    if constexpr (Packed) pr = prof[in_c];
                    const bool ckpt_col = j == ck_next && j < cols;
                    if (j == ck_next) ck_next += d.col_stride;
                    std::int32_t tu = in_h, fu = in_fs[c];  // T(i-1, j) = H(i-1, j) - O, Fcell(i-1, j)
                    std::int32_t dg = c == 0 ? diag : in_hs[c > 0 ? c - 1 : 0];  // T(i-1, j-1)
#pragma unroll
                    for (int r = 0; r < R; ++r) {
                        const unsigned qr = QP == 1 ? qo[r] : (r % QP == 0 ? qo[r / QP] & 0xFFFFu : qo[r / QP] >> 16);
                        const std::int32_t sc = Packed ? packed_score(pr.x, pr.y, qr) : col[qr];  // s(q_i, r_j)
                        // Ecell(i,j); the local forward floors it at 0 (see the header)
                        const std::int32_t e = (Local && !Dirs) ? __vimax3_s32(E[r] - ge, T[r], 0) : __viaddmax_s32(E[r], -ge, T[r]);
                        const std::int32_t f = __viaddmax_s32(fu, -ge, tu);      // Fcell(i,j)
                        std::int32_t t;                                           // H(i,j) - O
                        if constexpr (Dirs) {
                            const std::int32_t e_t = e - open;
                            const std::int32_t d_t = dg + sc;  // H(i-1,j-1) + s - O
                            const std::int32_t de_t = Local ? __vimax3_s32(d_t, e_t, -open) : max(d_t, e_t);
                            t = __viaddmax_s32(f, -open, de_t);
                            std::uint32_t nib = t == d_t ? 1u : (t == e_t ? 2u : 3u);
                            if (Local && t == -open) nib = 0u;
                            nib |= (e != T[r] ? 4u : 0u) | (f != tu ? 8u : 0u);
                            const int i = ir0 + r;
                            if constexpr (WordDirs) {
                                dacc[r] = (dacc[r] >> 8) | (nib << 24);  // column j in the top byte
                                if (((j & 3) == 0 || j == cols) && i <= rows) {
                                    // Four columns' bytes as one 32-bit store (byte 0 = column j - 3; at
                                    // the row's end the last cols % 4, the rest into the row's padding).
                                    *reinterpret_cast<std::uint32_t*>(dirs + static_cast<std::size_t>(i - 1) * pitch + ((j - 1) & ~3)) =
                                        dacc[r] >> (8 * ((4 - (j & 3)) & 3));
                                }
                            } else if (i <= rows) {
                                dirs[static_cast<std::size_t>(i - 1) * pitch + (j - 1)] = static_cast<std::uint8_t>(nib);
                            }
                        } else {
                            // max(d_t, e_t [, -O]) without forming e_t: max(e - O, d_t).
                            const std::int32_t d_t = dg + sc;
                            t = __viaddmax_s32(f, -open, __viaddmax_s32(e, -open, d_t));
                        }
                        if constexpr (LaneKey) {  // the chunk's best of the lane, two rows at a time (tu: row r - 1's)
                            if (r % 2 == 1) cm = __vimax3_s32(cm, tu, t);
                        } else if constexpr (Windowed) {  // the row's best of both columns: T[r] is still column j - 1's
                            if (c == C - 1) bh[r] = __vimax3_s32(bh[r], T[r], t);
                        } else if constexpr (Local) {  // per-row best (T-space), first j wins: keep the old one on ties
                            bool keep;
                            bh[r] = __vibmax_s32(bh[r], t, &keep);
                            bj[r] = keep ? bj[r] : j;
                        }
                        dg = T[r];
                        T[r] = t;
                        E[r] = e;
                        tu = t;
                        fu = f;
                    }
                    if constexpr (LastRowBest) {
                        if (owns_last) {
                            std::int32_t t_last = T[0];  // T(i0+rows, j): a register, not an indexed array
#pragma unroll
                            for (int r = 1; r < R; ++r) t_last = r == last_r ? T[r] : t_last;
                            if (t_last > last_best.x) last_best = make_int2(t_last, j);  // first j on ties
                        }
                    }
                    if (ckpt_col) {
                        int2* col_ck = d.col_out + static_cast<std::size_t>(j / d.col_stride - 1) * static_cast<std::size_t>(rows + 1);
#pragma unroll
                        for (int r = 0; r < R; ++r)
                            if (ir0 + r <= rows) col_ck[ir0 + r] = make_int2(T[r] + open, E[r]);
                        if (s == 0 && lane == 0) col_ck[0] = make_int2(in_h + open, 0);
                    }
                    out_h[c] = tu;
                    out_f[c] = fu;
                    // One 16-byte store: value and tag become visible together (as CUB's tile
                    // status words), so the consumer needs no fence and no flag.
                    if (lane == tc - 1 && has_next) __stcg(ring_out + (j & p.ring_mask), make_int4(tu + open, fu, g, j));
                    if (ckpt_row) row_ck[j] = make_int2(tu + open, fu);
                }
                if constexpr (Windowed) {  // the row's odd last column had no second column to fold it
                    if (j0 + C - 1 > cols) {
#pragma unroll
                        for (int r = 0; r < R; ++r) bh[r] = max(bh[r], T[r]);
                    }
                }
                diag = in_hs[C - 1];
            }
        }
        if constexpr (Windowed) {
            if (steps > 0) check_key((steps - 1) / KC * KC);
        }
        if constexpr (LaneKey) {
            if (steps > 0) lane_key((steps - 1) / LKC * LKC);
        }
        // Done: every lane has read its input (the ring slot of stripe g - 1).
        __syncwarp();
        if (lane == 0) store_volatile(p.progress + g, INT_MAX);

        if constexpr (Local) {
            // This lane's best over its valid rows (rows in increasing order), then the
            // warp's canonical best: H desc, row asc, column asc. Windowed: the column
            // is known to lie in [best_w, best_j], the 32 columns of the key's chunk.
            std::int32_t best_h = 0;
            int best_i = 0, best_j = 0, best_w = 0;
            if constexpr (Windowed) {
                if (key_at >= 0 && key_h + open > 0) {
                    best_h = key_h + open;
                    best_i = ir0 + (key_at & (KC - 1));
                    const int first = C * ((key_at & ~(KC - 1)) - lane) + 1;  // the lane's first column at the chunk's first step
                    best_w = max(1, first);
                    best_j = min(cols, first + KC * C - 1);
                }
            } else if constexpr (LaneKey) {
                // The lane's first row (its rows follow: the host searches them),
                // and the key's chunk's 32 columns, or on to the last if tied.
                if (lane < tc && key_at >= 0 && key_h + open > 0) {
                    best_h = key_h + open;
                    best_i = ir0;
                    const int first = C * (key_at - lane) + 1;  // the lane's first column at the chunk's first step
                    best_w = max(1, first);
                    best_j = key_tied ? cols : min(cols, first + 31);
                }
            } else {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    if (lane < tc && ir0 + r <= rows && bh[r] + open > best_h) {
                        best_h = bh[r] + open;
                        best_i = ir0 + r;
                        best_j = bj[r];
                    }
                }
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                const std::int32_t oh = __shfl_xor_sync(full, best_h, off);
                const int oi = __shfl_xor_sync(full, best_i, off);
                const int oj = __shfl_xor_sync(full, best_j, off);
                const int ow = __shfl_xor_sync(full, best_w, off);
                if (oh > best_h || (oh == best_h && (oi < best_i || (oi == best_i && oj < best_j)))) {
                    best_h = oh;
                    best_i = oi;
                    best_j = oj;
                    best_w = ow;
                }
            }
            if (lane == 0 && d.stripe_best) d.stripe_best[s] = make_int4(best_h, best_i, best_j, best_w);
        }
        if constexpr (LastRowBest) {
            if (owns_last && d.stripe_best) d.stripe_best[s] = make_int4(last_best.x + open, rows, last_best.y, 0);
        }
        if (last_stripe && lane < tc) {
#pragma unroll
            for (int r = 0; r < R; ++r)
                if (ir0 + r == rows) *d.corner = T[r] + open;
        }
        cells += static_cast<unsigned long long>(min(stripe_rows, rows - row0)) * static_cast<unsigned long long>(cols);
        if (p.cells_done && lane == 0)
            *reinterpret_cast<volatile unsigned long long*>(p.cells_done + warp) = cells;
    }
    // This warp is done: every lane's writes first, then the count of warps
    // done (device memory, progress[stripes + 1]); the last warp sets the
    // flag the host polls (mapped memory, a plain store after a system fence).
    if (p.launch_done) {
        __threadfence();
        __syncwarp();
        if (lane == 0) {
            const unsigned int warps = gridDim.x * (blockDim.x / 32);
            if (atomicAdd(reinterpret_cast<unsigned int*>(p.progress + p.stripes + 1), 1u) == warps - 1) {
                __threadfence_system();
                *reinterpret_cast<volatile unsigned int*>(p.launch_done) = 1u;
            }
        }
    }
}

}  // namespace gpualign::gpu::long_kernels
