// gpualign — the launch parameters of the search scan kernels: filled by the
// host (scan_engine.cpp, g++) and passed to the kernels as they are
// (scan_dispatch.cu, nvcc). Plain C++: no CUDA types. Every pointer is
// device memory.
#pragma once

#include <cstdint>

namespace gpualign::gpu::detail {

/// The alignment mode of a scan, as the kernels take it (a template
/// argument; AlignMode itself lives in a C++20 header the CUDA sources do
/// not include). Values are the kernels' table indices (scan_dispatch.cu).
/// The rules of each (docs/scoring.md):
///  - local:       H(0,j) = H(i,0) = 0, H floored at 0, score = the largest H;
///  - global:      H(0,j) = -(go + j*ge), H(i,0) = -(go + i*ge), score = H(m,n);
///  - semi_global: H(0,j) = 0, H(i,0) = -(go + i*ge), no floor,
///                 score = max over 0 <= j <= n of H(m,j).
enum class ScanMode : int { local = 0, global = 1, semi_global = 2 };
constexpr int scan_mode_count = 3;

/// H(0,j) is 0: the DB record's leading letters are free (local, semi-global).
constexpr bool free_top_row(ScanMode m) { return m != ScanMode::global; }

/// What the thread kernels and the warp kernel both take: `count` DB
/// sequences (sorted by length) times `queries` queries (blockIdx.y). Every
/// pointer is device memory.
struct ScanCommonParams {
    const std::uint8_t* db;           ///< every DB sequence's codes, each starting 16-byte aligned, padded to 16
    const long long* offsets;         ///< count: byte offset of each launched sequence in db
    const int* lengths;               ///< count: its length (>= 1)
    const int* slots;                 ///< count: its output slot (DB record index) in `scores`
    int count;                        ///< sequences (threads or warps) in the launch
    int queries;                      ///< queries in the launch (grid y)
    void* boundary;                   ///< int2 (T, Fcell) boundary cells; sizes: ScanParams, ScanWarpParams
    const long long* profile_offset;  ///< queries: where each query's profile starts (elements)
    const int* query_len;             ///< queries
    int size;                         ///< profile letters: the alphabet plus the pad letter (code size - 1, -1000)
    int gap_open, gap_extend;
    int* scores;                      ///< query y's score of DB record r at scores[y * records + r]
    int records;
};

/// The thread kernels' launch (scan_kernel.cuh): a thread per DB sequence;
/// boundary int2[max_len * count * queries].
struct ScanParams : ScanCommonParams {
    const short* profile;  ///< query y's strips * size * strip rows at profile_offset[y]: s(q_i, c) + O
    // 16-bit kernel only: grid y runs over query pairs (query_len: the pair's longer)
    const unsigned* pair_profile;         ///< pair y's packed profile at pair_profile_offset[y] (low half: query 2y, high: 2y+1)
    const long long* pair_profile_offset; ///< pairs: where each pair's profile starts (words)
    int query_count;                      ///< queries in the launch (2 x pairs, or one fewer)
};

/// The warp kernel's launch (scan_warp_kernel.cuh): a warp per long DB
/// sequence (offsets ascending); boundary int2[boundary_span * queries].
struct ScanWarpParams : ScanCommonParams {
    long long boundary_span;  ///< offsets[count-1] + its padded length - offsets[0]
    const int* profile;       ///< every query's stripes * size * 256 rows, int32
};

}  // namespace gpualign::gpu::detail
