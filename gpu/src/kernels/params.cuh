// gpualign — launch parameters and small device helpers shared by the kernels.
// Device code only (included by dispatch.cu).
#pragma once

#include <cstdint>

#include "../batch_layout.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::kernels {

/// "Minus infinity" for E and F on the borders; survives subtracting any
/// penalty (<= 10^6) without wrapping, as in the CPU reference.
constexpr std::int32_t neg_inf = INT32_MIN / 2;

/// Everything one batch launch reads and writes; all pointers are device
/// memory except host_cigar (pinned host memory, device-mapped).
struct BatchParams {
    const std::uint8_t* seqs;            ///< concatenated sequence codes
    const detail::PairTask* tasks;       ///< `count` tasks
    const std::int32_t* matrix;          ///< size x size substitution scores, row = query code
    std::int32_t* out;                   ///< detail::out_fields x count int32 (SoA, see OutField)
    std::uint32_t* cigar;                ///< CIGAR runs, task.cigar_offset.. (traceback only)
    std::uint32_t* host_cigar;           ///< compact CIGAR runs: pinned host memory mapped for the device (traceback only)
    std::uint64_t host_cigar_capacity;   ///< runs host_cigar holds
    std::uint8_t* dirs;                  ///< direction bits (traceback only)
    int4* scratch;                       ///< stripe boundary rows (pairs longer than one stripe)
    std::uint32_t count;                 ///< pairs in the batch
    std::int32_t size;                   ///< alphabet size (5 or 15 for DNA, 27 for protein)
    std::int32_t gap_open;               ///< go >= 0
    std::int32_t gap_extend;             ///< ge >= 0
    std::uint32_t identical_codes;       ///< bit c set: equal codes c are written '=' (gpualign::identical_codes)
};

/// H on the global border: H(0,k) = H(k,0) = -(go + k*ge) for k > 0, 0 at k = 0.
__device__ __forceinline__ std::int32_t global_border(std::int32_t k, std::int32_t go, std::int32_t ge) {
    return k == 0 ? 0 : -(go + k * ge);
}

/// Begin cell packed as (i << 16) | j, i, j <= 65535 (tuning::max_sequence_length).
__device__ __forceinline__ std::uint32_t pack_cell(std::uint32_t i, std::uint32_t j) { return (i << 16) | j; }

}  // namespace gpualign::gpu::kernels
