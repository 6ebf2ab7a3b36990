// gpualign — the launch parameters of the search scan kernel, shared by the
// host (scan_engine.cpp) and the launch wrapper (scan_dispatch.cu). Every
// pointer is device memory.
#pragma once

#include <cstdint>

namespace gpualign::gpu::detail {

/// What the thread kernel and the warp kernel both take. Every pointer is
/// device memory.
struct ScanLaunchCommon {
    const std::uint8_t* db;           ///< the DB's codes, each sequence 16-byte aligned and padded to 16
    const long long* offsets;         ///< count: byte offset of each launched sequence
    const int* lengths;               ///< count: its length
    const int* slots;                 ///< count: its output slot (DB record index)
    int count;                        ///< sequences (threads or warps) in the launch
    int queries;                      ///< queries in the launch (grid y)
    void* boundary;                   ///< int2 boundary cells (sizes: the kernels' structs)
    const long long* profile_offset;  ///< queries: where each query's profile starts (elements)
    const int* query_len;             ///< queries
    int size;
    int gap_open, gap_extend;
    int* scores;                      ///< queries x records
    int records;
};

/// The thread kernels' launch (scan_kernel.cuh): a thread per DB sequence;
/// boundary int2[max_len * count * queries].
struct ScanLaunch : ScanLaunchCommon {
    const short* profile;  ///< every query's strips * size * strip rows
    // 16-bit kernel only: grid y runs over query pairs (query_len: the pair's longer)
    const unsigned* pair_profile;         ///< every pair's packed profile (low half: query 2y, high: 2y+1)
    const long long* pair_profile_offset; ///< pairs: where each pair's profile starts (words)
    int query_count;                      ///< queries in the launch (2 x pairs, or one fewer)
};

/// The launch parameters of the warp kernel (scan_warp_kernel.cuh): a warp
/// per long DB sequence (offsets ascending); boundary
/// int2[boundary_span * queries].
struct ScanWarpLaunch : ScanLaunchCommon {
    long long boundary_span;  ///< offsets[count-1] + its padded length - offsets[0]
    const int* profile;       ///< every query's stripes * size * 256 rows, int32
};

}  // namespace gpualign::gpu::detail
