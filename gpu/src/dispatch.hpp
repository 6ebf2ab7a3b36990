// gpualign — host-side launch wrappers between the Engine (engine.cpp) and
// the kernels (kernels/*.cuh). Declared with CUDA runtime types only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "batch_layout.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::detail {

/// Device pointers and scalars of one batch launch (all device memory; see
/// kernels/params.cuh for the meaning of each field).
struct LaunchArgs {
    const std::uint8_t* seqs;
    const PairTask* tasks;
    const std::int32_t* matrix;
    std::int32_t* out;
    std::uint32_t* cigar;
    std::uint32_t* host_cigar;            ///< device-mapped pinned host memory (compact CIGAR runs)
    std::uint64_t host_cigar_capacity;    ///< runs it holds
    std::uint8_t* dirs;
    void* scratch;  ///< int4 boundary rows
    std::uint32_t count;
    std::int32_t size, gap_open, gap_extend;
    std::uint32_t identical_codes;  ///< gpualign::identical_codes(alphabet): bit c set when c-c writes '='
    AlignMode mode;
    bool traceback;
    bool inject_fault = false;  ///< test hook: launch kernels::fault_kernel first (docs/gpu.md)
};

/// Enqueues the DP kernel (grid = count blocks of 32 threads) and, when
/// `traceback`, the traceback, CIGAR scan and CIGAR gather kernels on
/// `stream`. Asynchronous. With
/// `inject_fault` (test hook) a kernel that executes __trap() runs first, so
/// the stream fails with a real, sticky CUDA error.
/// @throws std::runtime_error naming the CUDA error if a launch fails.
void launch_alignment(const LaunchArgs& args, cudaStream_t stream);

}  // namespace gpualign::gpu::detail
