// gpualign — run-length CIGAR emission shared by the traceback kernels
// (traceback_kernel.cuh, pair_traceback_kernel.cuh). A walk finds the runs
// from the end of the path to its begin; they are stored backwards from one
// past the pair's last CIGAR slot (BAM packing, len << 4 | op), so that they
// lie in forward order in the last `runs` slots, where cigar_scan_kernel and
// cigar_gather_kernel take them. Device code only.
#pragma once

#include <cstdint>

#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::kernels {

/// The current run and the runs stored so far of one pair's walk; `end` is
/// one past the pair's last CIGAR slot (device memory).
struct CigarRuns {
    static constexpr std::uint32_t ins = 1, del = 2, eq = 7, diff = 8;  ///< gpualign::CigarOp codes
    std::uint32_t* end;
    std::uint32_t runs = 0, op = 0, len = 0;

    /// Adds `l` operations `o` in front of what the walk has emitted.
    __device__ __forceinline__ void emit(std::uint32_t o, std::uint32_t l) {
        if (o == op) {
            len += l;
        } else {
            flush();
            op = o;
            len = l;
        }
    }
    /// Stores the current run, if any; call once at the end of the walk.
    __device__ __forceinline__ void flush() {
        if (len > 0) end[-static_cast<int>(++runs)] = (len << 4) | op;
        len = 0;
    }
    /// The border rule of a walk at cell (i, j) (docs/scoring.md): a
    /// semi-global walk stops on row 0 (the ref's leading gap is free); a
    /// global or semi-global one on row or column 0 emits the rest as 'D'
    /// (j of them) and 'I' (i) and stops at (0, 0). Returns whether it stopped.
    template <AlignMode Mode>
    __device__ __forceinline__ bool stops_at_border(int& i, int& j) {
        if (Mode == AlignMode::semi_global && i == 0) return true;
        if (Mode == AlignMode::local || (i > 0 && j > 0)) return false;
        if (j > 0) emit(del, static_cast<std::uint32_t>(j));
        if (i > 0) emit(ins, static_cast<std::uint32_t>(i));
        i = 0;
        j = 0;
        return true;
    }
};

}  // namespace gpualign::gpu::kernels
