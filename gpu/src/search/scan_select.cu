// gpualign — the search scan's hit selection on the GPU (scan_select.hpp):
// the kernels of select_kernel.cuh around CUB's stable radix sort.
#include "scan_select.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/cuda_check.hpp"
#include "select_kernel.cuh"

namespace gpualign::gpu::detail {
namespace {

constexpr std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

/// Bits of the key to sort: the 32 score bits and enough for the query index.
int end_bit(std::size_t queries) {
    int bits = 1;
    while (bits < 31 && (std::size_t{1} << bits) < queries) ++bits;
    return 32 + bits;
}

/// CUB's temporary bytes for a sort of `items` keys.
std::size_t cub_bytes(std::size_t items, std::size_t queries) {
    std::size_t bytes = 0;
    cub::DoubleBuffer<unsigned long long> keys(nullptr, nullptr);
    cub::DoubleBuffer<unsigned> values(nullptr, nullptr);
    GPUALIGN_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, static_cast<int>(items), 0,
                                                  end_bit(queries)),
                  "hit selection: sort size");
    return bytes;
}

void check_sizes(std::size_t queries, std::size_t records) {
    if (records > static_cast<std::size_t>(INT32_MAX) || queries > static_cast<std::size_t>(INT32_MAX) ||
        queries * records > static_cast<std::size_t>(INT32_MAX))
        throw std::invalid_argument("hit selection: " + std::to_string(queries) + " queries x " +
                                    std::to_string(records) + " records exceed 2^31 items");
}

}  // namespace

void count_wrapped(const int* scores, std::size_t rows, std::size_t records, int* counts, cudaStream_t stream) {
    if (rows == 0) return;
    kernels::count_wrapped_kernel<<<static_cast<unsigned>(rows), 256, 0, stream>>>(scores, static_cast<long long>(records),
                                                                                    counts);
    GPUALIGN_CUDA(cudaGetLastError(), "count_wrapped_kernel launch");
}

std::size_t select_best_bytes(std::size_t queries, std::size_t records) {
    check_sizes(queries, records);
    const std::size_t n = queries * records;
    return 2 * align256(n * sizeof(unsigned long long)) + 2 * align256(n * sizeof(unsigned)) +
           align256(cub_bytes(n, queries));
}

void select_best(const int* scores, const int* plus_rows, const int* minus_rows, std::size_t queries,
                 std::size_t records, std::size_t k, void* work, std::int32_t* score_out, std::uint32_t* value_out,
                 cudaStream_t stream) {
    check_sizes(queries, records);
    if (k > records) throw std::invalid_argument("hit selection: k above the record count");
    const std::size_t n = queries * records;
    if (n == 0 || k == 0) return;
    auto* base = static_cast<unsigned char*>(work);
    auto* keys0 = reinterpret_cast<unsigned long long*>(base);
    base += align256(n * sizeof(unsigned long long));
    auto* keys1 = reinterpret_cast<unsigned long long*>(base);
    base += align256(n * sizeof(unsigned long long));
    auto* values0 = reinterpret_cast<unsigned*>(base);
    base += align256(n * sizeof(unsigned));
    auto* values1 = reinterpret_cast<unsigned*>(base);
    base += align256(n * sizeof(unsigned));
    std::size_t temp_bytes = cub_bytes(n, queries);
    const int blocks = static_cast<int>(std::min<std::size_t>((n + 255) / 256, 65536));
    kernels::hit_keys_kernel<<<blocks, 256, 0, stream>>>(scores, plus_rows, minus_rows, static_cast<long long>(queries),
                                                         static_cast<long long>(records), keys0, values0);
    GPUALIGN_CUDA(cudaGetLastError(), "hit_keys_kernel launch");
    cub::DoubleBuffer<unsigned long long> keys(keys0, keys1);
    cub::DoubleBuffer<unsigned> values(values0, values1);
    GPUALIGN_CUDA(cub::DeviceRadixSort::SortPairs(base, temp_bytes, keys, values, static_cast<int>(n), 0,
                                                  end_bit(queries), stream),
                  "hit selection: radix sort");
    // The first k of each query's run of `records` items.
    std::vector<unsigned long long> best(queries * k);
    GPUALIGN_CUDA(cudaMemcpy2DAsync(best.data(), k * sizeof(unsigned long long), keys.Current(),
                                    records * sizeof(unsigned long long), k * sizeof(unsigned long long), queries,
                                    cudaMemcpyDeviceToHost, stream),
                  "hit selection: keys download");
    GPUALIGN_CUDA(cudaMemcpy2DAsync(value_out, k * sizeof(unsigned), values.Current(), records * sizeof(unsigned),
                                    k * sizeof(unsigned), queries, cudaMemcpyDeviceToHost, stream),
                  "hit selection: values download");
    GPUALIGN_CUDA(cudaStreamSynchronize(stream), "hit selection");
    for (std::size_t t = 0; t < best.size(); ++t)
        score_out[t] = static_cast<std::int32_t>(~static_cast<unsigned>(best[t] & 0xffffffffull) ^ 0x80000000u);
}

}  // namespace gpualign::gpu::detail
