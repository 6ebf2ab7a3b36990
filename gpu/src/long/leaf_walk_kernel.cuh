// gpualign — the long-pair traceback walk on the device: one warp follows the
// path through a batch of leaves whose direction bytes the region kernel has
// just written, so that no direction byte crosses the bus (the host walk,
// checkpoint_traceback.cpp walk_dirs, is its scalar twin).
//
// Walk (docs/scoring.md; direction byte: bits 0-1 H source, 0 zero, 1 diag,
// 2 E, 3 F; bit 2 E extended; bit 3 F extended), from cell (i, j) in state S:
//   S = H: source zero   -> the path ends (local only)
//          source diag   -> step diag to (i-1, j-1); local: ends on row/column 0
//          source E / F  -> S = E / F (no step)
//   S = E: step del to (i, j-1); S = H unless the byte's E-extended bit is set
//   S = F: step ins to (i-1, j); S = H unless the byte's F-extended bit is set
// until the cell lies in no leaf of the batch (the driver takes over there).
//
// Schedule. The warp finds the leaf holding the cell (a ballot over the
// batch's leaf boxes, kept in shared memory, from the last leaf found on),
// then copies a window of up to 64 x 64 direction bytes
// whose bottom-right corner is the cell into shared memory (the leaf's rows
// are 16-byte aligned, long_kernels::dirs_pitch: five 16-byte loads a row,
// ten a lane; the walk warp shares its SM's issue slots with other pairs'
// region kernels, and 32-bit loads, 34 a lane, were slower; the loads are
// all issued before the first store to shared memory, which shortens a long
// path's walk by about a quarter; docs/long.md).
// The warp walks inside the window by runs: lane t reads the cell t steps
// ahead on the current run (the diagonal in state H, the row in E, the
// column in F), and a ballot finds where the run stops (the first cell whose
// H source is not the diagonal, or whose extension bit is clear; a gap's
// closing cell is its last step), so up to 32 steps cost one shared-memory
// read a lane. Steps are staged in shared memory until the path leaves the
// window (at most 127 steps), written out with coalesced byte stores, and the
// next window is loaded at the new cell. A window costs one round of L2 loads
// (the leaves were written by the previous launch on the stream). (One lane
// taking one step at a time, about 70 cycles a step, was slower than the host
// walk over downloaded leaves on bulk 5-50 kb pairs with CIGAR; docs/long.md.)
#pragma once

#include <cstdint>

#include "leaf_walk_params.cuh"
#include "region_params.cuh"

namespace gpualign::gpu::long_kernels {

/// Leaves whose boxes the walk keeps in shared memory (a batch's first
/// walk_cached_leaves; any further ones are read from their descriptors).
constexpr int walk_cached_leaves = 512;

// One function, as the walk is one loop of the schedule above: the cursor,
// the window and the staged steps stay in the warp's registers and shared
// memory from the first step to the last.
__global__ void __launch_bounds__(32) leaf_walk_kernel(WalkParams p) {
    __shared__ uint4 window[walk_window * walk_window_chunks];
    __shared__ std::uint8_t staged[walk_window_steps + 1];  // a window's steps (each leaves a row or column behind)
    __shared__ longlong2 box_origin[walk_cached_leaves];     // {i0, j0} of each leaf
    __shared__ int2 box_size[walk_cached_leaves];            // {rows, cols}
    const int lane = static_cast<int>(threadIdx.x);
    const int cached = min(p.count, walk_cached_leaves);
    for (int k = lane; k < cached; k += 32) {
        const RegionDesc& d = p.leaves[k];
        box_origin[k] = make_longlong2(d.i0, d.j0);
        box_size[k] = make_int2(d.rows, d.cols);
    }
    __syncwarp();
    long long i = p.i, j = p.j;
    int state = p.state, done = 0, n = 0, found = 0;
    bool full = false;
    while (!done && !full) {
        // The leaf holding (i, j), or none: the walk stops there. The search
        // starts at the last leaf found (the batch lists its leaves nearest
        // first, so the path's next leaf tends to follow its last), 32 boxes
        // an iteration, all of them before giving up.
        const int from = found;
        found = -1;
        for (int base = 0; base < p.count && found < 0; base += 32) {
            int k = from + base + lane;
            if (k >= p.count) k -= p.count;
            bool in = false;
            if (base + lane < p.count) {
                long long bi, bj;
                int rows, cols;
                if (k < cached) {
                    bi = box_origin[k].x, bj = box_origin[k].y, rows = box_size[k].x, cols = box_size[k].y;
                } else {
                    const RegionDesc& d = p.leaves[k];
                    bi = d.i0, bj = d.j0, rows = d.rows, cols = d.cols;
                }
                in = i > bi && i <= bi + rows && j > bj && j <= bj + cols;
            }
            const unsigned hit = __ballot_sync(0xffffffffu, in);
            if (hit) found = __shfl_sync(0xffffffffu, k, __ffs(static_cast<int>(hit)) - 1);
        }
        if (found < 0) break;
        const RegionDesc& d = p.leaves[found];
        const long long i0 = d.i0, j0 = d.j0;
        const int pitch = dirs_pitch(d.cols);
        const std::uint8_t* dirs = d.dirs;
        int li = static_cast<int>(i - i0), lj = static_cast<int>(j - j0);  // leaf-local, 1-based
        while (li > 0 && lj > 0) {
            if (n + walk_window_steps > p.capacity) {
                full = true;
                break;
            }
            // Window rows top..li, byte columns b_lo..lj-1 (0-based), as
            // 16-byte chunks c_lo.. of each row (rows are 16-byte aligned).
            const int top = max(1, li - walk_window + 1);
            const int b_lo = max(0, lj - walk_window);
            const int c_lo = b_lo >> 4, chunks = ((lj - 1) >> 4) - c_lo + 1, rows = li - top + 1;
            // Every load of the window is issued before the first store to
            // shared memory, so their L2 latencies overlap (a loop that stored
            // each chunk as it came waited one latency a chunk).
            constexpr int loads = (walk_window * walk_window_chunks + 31) / 32;
            uint4 chunk[loads];
#pragma unroll
            for (int u = 0; u < loads; ++u) {
                const int x = lane + 32 * u;
                const int r = x / walk_window_chunks, c = x - r * walk_window_chunks;  // a constant divisor
                if (x < rows * walk_window_chunks && c < chunks)
                    chunk[u] = reinterpret_cast<const uint4*>(
                        dirs + static_cast<std::size_t>(top - 1 + r) * static_cast<std::size_t>(pitch))[c_lo + c];
            }
#pragma unroll
            for (int u = 0; u < loads; ++u) {
                const int x = lane + 32 * u;
                const int r = x / walk_window_chunks, c = x - r * walk_window_chunks;
                if (x < rows * walk_window_chunks && c < chunks) window[x] = chunk[u];
            }
            __syncwarp();
            // The whole warp walks: lane t reads the cell t steps ahead on the
            // current run (the diagonal in H, the row in E, the column in F), a
            // ballot finds where the run stops, and the run's steps are taken
            // at once (up to 32 an iteration, one shared-memory read a lane).
            const std::uint8_t* bytes = reinterpret_cast<const std::uint8_t*>(window);
            int m = 0;
            while (li >= top && lj > b_lo) {
                const int ci = state == 1 ? li : li - lane;
                const int cj = state == 2 ? lj : lj - lane;
                const bool inside = ci >= top && cj > b_lo;
                const int bits = inside ? bytes[(ci - top) * (walk_window_chunks * 16) + (cj - 1 - 16 * c_lo)] : 0;
                if (state == 0) {
                    // Diagonal steps while the H source is the diagonal.
                    const unsigned stop = __ballot_sync(0xffffffffu, !(inside && (bits & 3) == 1));
                    const int f = stop ? __ffs(static_cast<int>(stop)) - 1 : 32;
                    if (lane < f) staged[m + lane] = 0;
                    m += f;
                    li -= f;
                    lj -= f;
                    if (p.local && f > 0 && (i0 + li == 0 || j0 + lj == 0)) {
                        done = 1;  // a local path ends on row or column 0
                        break;
                    }
                    if (f == 32) continue;
                    const int at = __shfl_sync(0xffffffffu, bits | (inside ? 16 : 0), f);
                    if (!(at & 16)) break;  // the run left the window
                    if ((at & 3) == 0) {
                        done = 1;  // H from zero: a local path ends
                        break;
                    }
                    state = (at & 3) - 1;  // E (1) or F (2), no step
                } else {
                    // Gap steps: each cell of the run is one step; the run stays
                    // in its state while the cell's extension bit is set.
                    const int ext = state == 1 ? 4 : 8;
                    const unsigned stop = __ballot_sync(0xffffffffu, !(inside && (bits & ext)));
                    const int f = stop ? __ffs(static_cast<int>(stop)) - 1 : 32;
                    const bool closes = f < 32 && __shfl_sync(0xffffffffu, inside ? 1 : 0, f);
                    const int k = closes ? f + 1 : f;  // the closing cell is a step too
                    if (lane < k) staged[m + lane] = static_cast<std::uint8_t>(state);
                    m += k;
                    if (state == 1)
                        lj -= k;
                    else
                        li -= k;
                    if (closes) state = 0;
                }
            }
            __syncwarp();
            for (int x = lane; x < m; x += 32) p.steps[n + x] = staged[x];
            n += m;
            __syncwarp();  // the window and the staged steps are reused
            if (done) break;
        }
        i = i0 + li;
        j = j0 + lj;
    }
    __threadfence_system();  // every lane's steps before the cursor
    __syncwarp();
    if (lane == 0) {
        p.out->i = i;
        p.out->j = j;
        p.out->state = state;
        p.out->done = done;
        p.out->steps = n;
        __threadfence_system();
        *reinterpret_cast<volatile unsigned int*>(&p.out->finished) = 1u;
    }
}

}  // namespace gpualign::gpu::long_kernels
