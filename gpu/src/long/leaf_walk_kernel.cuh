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
// batch's descriptors), then copies a window of up to 64 x 64 direction bytes
// whose bottom-right corner is the cell into shared memory (the leaf's rows
// are 4-byte aligned, long_kernels::dirs_pitch, so 32-bit loads, 17 words a
// row). Lane 0 walks inside the window until the path leaves it (at most 127
// steps), staging its step codes in shared memory; the warp then writes them
// out with coalesced byte stores and loads the next window. A window costs one
// round of L2 loads (the leaves were written by the previous launch on the
// stream) and its steps' shared-memory reads.
#pragma once

#include <cstdint>

#include "leaf_walk_params.cuh"
#include "region_params.cuh"

namespace gpualign::gpu::long_kernels {

__global__ void __launch_bounds__(32) leaf_walk_kernel(WalkParams p) {
    __shared__ std::uint32_t window[walk_window * walk_window_words];
    __shared__ std::uint8_t staged[walk_window_steps + 1];
    const int lane = static_cast<int>(threadIdx.x);
    long long i = p.i, j = p.j;
    int state = p.state, done = 0, n = 0;
    bool full = false;
    while (!done && !full) {
        // The leaf holding (i, j), or none: the walk stops there.
        int found = -1;
        for (int base = 0; base < p.count && found < 0; base += 32) {
            const int k = base + lane;
            bool in = false;
            if (k < p.count) {
                const RegionDesc& d = p.leaves[k];
                in = i > d.i0 && i <= d.i0 + d.rows && j > d.j0 && j <= d.j0 + d.cols;
            }
            const unsigned hit = __ballot_sync(0xffffffffu, in);
            if (hit) found = base + __ffs(static_cast<int>(hit)) - 1;
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
            // Window rows top..li, byte columns b_lo..lj-1 (0-based), as words w_lo..
            const int top = max(1, li - walk_window + 1);
            const int b_lo = max(0, lj - walk_window);
            const int w_lo = b_lo >> 2, words = ((lj - 1) >> 2) - w_lo + 1, rows = li - top + 1;
            for (int x = lane; x < rows * words; x += 32) {
                const int r = x / words, w = x - r * words;
                window[r * walk_window_words + w] = reinterpret_cast<const std::uint32_t*>(
                    dirs + static_cast<std::size_t>(top - 1 + r) * static_cast<std::size_t>(pitch))[w_lo + w];
            }
            __syncwarp();
            int m = 0;
            if (lane == 0) {
                const std::uint8_t* bytes = reinterpret_cast<const std::uint8_t*>(window);
                while (li >= top && lj > b_lo) {
                    const int bits = bytes[(li - top) * (walk_window_words * 4) + (lj - 1 - 4 * w_lo)];
                    if (state == 0) {
                        const int src = bits & 3;
                        if (src == 0) {
                            done = 1;
                            break;
                        }
                        if (src == 1) {
                            staged[m++] = 0;
                            --li;
                            --lj;
                            if (p.local && (i0 + li == 0 || j0 + lj == 0)) {
                                done = 1;
                                break;
                            }
                        } else {
                            state = src - 1;
                        }
                    } else if (state == 1) {
                        staged[m++] = 1;
                        if (!(bits & 4)) state = 0;
                        --lj;
                    } else {
                        staged[m++] = 2;
                        if (!(bits & 8)) state = 0;
                        --li;
                    }
                }
            }
            li = __shfl_sync(0xffffffffu, li, 0);
            lj = __shfl_sync(0xffffffffu, lj, 0);
            state = __shfl_sync(0xffffffffu, state, 0);
            done = __shfl_sync(0xffffffffu, done, 0);
            m = __shfl_sync(0xffffffffu, m, 0);
            __syncwarp();
            for (int x = lane; x < m; x += 32) p.steps[n + x] = staged[x];
            n += m;
            __syncwarp();  // the window and the staged steps are reused
            if (done) break;
        }
        i = i0 + li;
        j = j0 + lj;
    }
    if (lane == 0) {
        p.out->i = i;
        p.out->j = j;
        p.out->state = state;
        p.out->done = done;
        p.out->steps = n;
    }
}

}  // namespace gpualign::gpu::long_kernels
