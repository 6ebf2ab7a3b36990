// gpualign — the canonical local end cell from one column of a striped
// kernel (Farrar 2007 layout: row i, 1-based, at segment (i-1) % seg_len,
// lane (i-1) / seg_len, element k * lanes + lane of the column). Shared by
// the 16-bit (striped_kernel.cpp) and 8-bit (striped_score8_kernel.cpp)
// kernels; the rule is docs/scoring.md's: the highest H, then the smallest
// row, then the smallest column. Header-only, host memory, no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpualign::cpu {

/// Offers column j's maximum `cb` to the best cell so far (best, best_i,
/// best_j: H, 1-based query row, 1-based ref column). `lane` is the lowest
/// lane whose segments hold `cb` (>= lanes: none); its smallest row among
/// the pair's `rows` real rows (padding rows never count) becomes the best
/// cell when cb is higher, or equal with a smaller row. Columns are offered
/// in increasing j, so an equal H later in the same row never wins.
template <typename T>
void offer_column_max(const T* column, std::size_t seg_len, std::size_t lanes, std::size_t lane, std::size_t rows,
                      T cb, std::size_t j, std::int32_t& best, std::int32_t& best_i, std::int32_t& best_j) {
    std::int32_t row = 0;  // 0: only padding rows hold cb
    for (std::size_t k = 0; lane < lanes && k < seg_len && lane * seg_len + k < rows; ++k)
        if (column[k * lanes + lane] == cb) {
            row = static_cast<std::int32_t>(lane * seg_len + k + 1);
            break;
        }
    if (row > 0 && (cb > best || row < best_i)) {
        best = cb;
        best_i = row;
        best_j = static_cast<std::int32_t>(j);
    }
}

}  // namespace gpualign::cpu
