// gpualign — host side of the search scan's hit selection on the GPU
// (select_kernel.cuh), between ScanEngine (scan_engine.cpp, g++) and the
// kernels and CUB's radix sort.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpualign::gpu::detail {

/// Launches count_wrapped_kernel: counts[y] (device) = the scores < 0 of
/// row y of `scores` (device, rows x records), on `stream` (asynchronous).
/// @throws std::runtime_error naming the CUDA error.
void count_wrapped(const int* scores, std::size_t rows, std::size_t records, int* counts, cudaStream_t stream);

/// Device bytes select_best needs for `queries` x `records` items
/// (keys and values, double-buffered, and CUB's temporary storage).
/// @throws std::runtime_error naming the CUDA error.
std::size_t select_best_bytes(std::size_t queries, std::size_t records);

/// The best k records of each query, in the canonical hit order (score
/// descending, then record ascending). `scores` (device) holds rows of
/// `records` scores; query y's are row plus_rows[y] and, with both strands
/// (minus_rows not null), its minus strand's row minus_rows[y]: each record
/// keeps its better strand, ties to plus (plus_rows, minus_rows: device
/// arrays of `queries` entries). Writes, for query y and rank t < k, the
/// host arrays score_out[y * k + t] and value_out[y * k + t] (= record << 1 |
/// minus). `work` is device memory of select_best_bytes(queries, records).
/// Synchronous on `stream`.
/// @throws std::invalid_argument for k > records, or more than 2^31 items;
///         std::runtime_error naming the CUDA error.
void select_best(const int* scores, const int* plus_rows, const int* minus_rows, std::size_t queries,
                 std::size_t records, std::size_t k, void* work, std::int32_t* score_out, std::uint32_t* value_out,
                 cudaStream_t stream);

}  // namespace gpualign::gpu::detail
