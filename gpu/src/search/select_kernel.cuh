// gpualign — the search scan's hit-selection kernels (device code only;
// host side: scan_select.cu). After a scan the device holds one score per
// (query, DB record); the best hits of each query are chosen on the GPU:
//
//   1. count_wrapped_kernel: per query row, how many 16-bit results wrapped
//      (reported as -1 by the 16-bit scan kernel), so that only those rows
//      come back to the host to be re-scored in 32 bits;
//   2. hit_keys_kernel: one 64-bit sort key and one value per (query, record):
//        key   = query << 32 | ~(score ^ 0x80000000)   (query ascending, then
//                score descending: the sign flip makes signed order unsigned)
//        value = record << 1 | minus
//      With both strands each record keeps the better of its two scores (minus only when
//      strictly greater: ties go to plus, docs/scoring.md "Strands").
//   3. a stable radix sort of the keys (CUB, host side) then leaves each
//      query's records in the canonical hit order, score descending and DB
//      order within a score (the values enter in record order), and the
//      first k of each query's run are its best k.
#pragma once

#include <cstdint>

namespace gpualign::gpu::kernels {

/// Grid: one block per query row (blockIdx.x); any block size (a multiple of 32).
/// counts[y] = number of r < records with scores[y * records + r] < 0.
__global__ void count_wrapped_kernel(const int* __restrict__ scores, long long records, int* __restrict__ counts) {
    int n = 0;
    const int* row = scores + static_cast<long long>(blockIdx.x) * records;
    for (long long r = threadIdx.x; r < records; r += blockDim.x) n += row[r] < 0;
    for (int o = 16; o > 0; o >>= 1) n += __shfl_down_sync(0xffffffffu, n, o);
    __shared__ int warp_sums[32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = n;
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) total += warp_sums[w];
        counts[blockIdx.x] = total;
    }
}

/// Grid-stride over queries * records items (item = y * records + r): query
/// y's scores are row plus_rows[y] of `scores` (`records` a row), and, when
/// minus_rows is not null, its minus strand's are row minus_rows[y].
__global__ void hit_keys_kernel(const int* __restrict__ scores, const int* __restrict__ plus_rows,
                                const int* __restrict__ minus_rows, long long queries, long long records,
                                unsigned long long* __restrict__ keys, unsigned* __restrict__ values) {
    const long long items = queries * records;
    for (long long item = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; item < items;
         item += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long y = item / records, r = item - y * records;
        int score = scores[plus_rows[y] * records + r];
        unsigned minus = 0;
        if (minus_rows) {
            const int m = scores[minus_rows[y] * records + r];
            if (m > score) {
                score = m;
                minus = 1;
            }
        }
        keys[item] = static_cast<unsigned long long>(y) << 32 | (~(static_cast<unsigned>(score) ^ 0x80000000u));
        values[item] = static_cast<unsigned>(r) << 1 | minus;
    }
}

}  // namespace gpualign::gpu::kernels
