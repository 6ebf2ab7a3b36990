// gpualign — the launch parameters of the batch kernels: filled by the host
// (batch_engine.cpp, g++) and passed to every kernel of a batch as they are
// (batch_dispatch.cu, nvcc). Plain C++ with fixed-width types only: no CUDA
// types, no SeqAn3.
#pragma once

#include <cstdint>

#include "batch_layout.hpp"

namespace gpualign::gpu::detail {

/// Everything one batch launch reads and writes. Every pointer is device
/// memory except host_cigar (pinned host memory, device-mapped).
struct BatchParams {
    const std::uint8_t* seqs;            ///< concatenated sequence codes (PairTask offsets)
    const PairTask* tasks;               ///< `count` tasks
    const std::int32_t* matrix;          ///< size x size substitution scores, row = query code
    std::int32_t* out;                   ///< out_fields x count int32 (SoA, see OutField)
    std::uint32_t* cigar;                ///< CIGAR run slots, task.cigar_offset.. (traceback only)
    std::uint32_t* host_cigar;           ///< compact CIGAR runs: pinned host memory mapped for the device (traceback only)
    std::uint64_t host_cigar_capacity;   ///< runs host_cigar holds
    std::uint8_t* dirs;                  ///< direction bits, task.dir_offset.. (traceback only)
    BoundaryCell* scratch;               ///< stripe boundary rows, task.scratch_offset.. (pairs longer than one stripe)
    std::uint32_t count;                 ///< pairs in the batch
    std::int32_t size;                   ///< alphabet size (5 or 15 for DNA, 27 for protein)
    std::int32_t gap_open;               ///< go >= 0
    std::int32_t gap_extend;             ///< ge >= 0
    std::uint32_t identical_codes;       ///< bit c set: equal codes c are written '=' (gpualign::identical_codes)
};

}  // namespace gpualign::gpu::detail
