// gpualign — host-side launch wrapper between the BatchEngine
// (batch_engine.cpp) and the kernels (kernels/*.cuh). Declared with CUDA
// runtime types only.
#pragma once

#include <cuda_runtime_api.h>

#include "batch_params.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::detail {

/// Enqueues, for the `p.count` pairs of `p` (nothing when 0): in score-only
/// batches with `p.status` set (all pair_forward), the inter-pair kernel's
/// passes (grid = ceil(count/2) threads), then the DP kernel
/// of `mode` (grid = count blocks of 32 threads; pairs already pair_done
/// return at once) and, when `traceback`, the
/// traceback, CIGAR scan and CIGAR gather kernels on `stream`. With
/// `traceback` and `p.pair_dirs`: the inter-pair kernel's traceback variant
/// and pair_traceback_kernel in place of the DP and traceback kernels. Each
/// kernel takes `p` as it is. Asynchronous. With `inject_fault` (test hook
/// GPUALIGN_INJECT_CUDA_FAULT, docs/gpu.md) a kernel that executes __trap()
/// runs first, so the stream fails with a real, sticky CUDA error.
/// @throws std::runtime_error naming the CUDA error if a launch fails.
void launch_alignment(const BatchParams& p, AlignMode mode, bool traceback, bool inject_fault, cudaStream_t stream);

/// Lets the inter-pair kernel's passes of `mode` on the current device take
/// the dynamic shared memory of the largest alphabet they run
/// (pair_max_letters): call once per engine, after cudaSetDevice, before
/// launch_alignment runs the inter-pair kernel (the attribute belongs to
/// the device's context). `negative_profile`: the variant for schemes with
/// s + O < 0 (BatchParams::negative_profile).
/// @throws std::runtime_error naming the CUDA error.
void prepare_pair_kernels(AlignMode mode, bool negative_profile);

}  // namespace gpualign::gpu::detail
