// gpualign — host-side launch wrapper of the search scan kernel, between
// ScanEngine (scan_engine.cpp, g++) and the kernel (scan_kernel.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include "scan_params.hpp"

namespace gpualign::gpu::detail {

/// Threads per block and query rows per strip of the scan kernel.
int scan_block_threads();
int scan_strip_rows();
/// Largest alphabet the kernel's shared profile holds.
int scan_max_letters();

/// Launches the scan kernel for `mode` over p.count sequences on `stream`
/// (asynchronous): the 16-bit kernel (two queries a thread, grid y over
/// query pairs, local only, scores >= overflow_at reported as -1) when
/// `s16`, else the 32-bit one.
/// @throws std::invalid_argument for `s16` with a mode other than local;
///         std::runtime_error naming the CUDA error.
void launch_scan(const ScanParams& p, ScanMode mode, bool s16, int overflow_at, cudaStream_t stream);

/// Query rows per stripe of the warp kernel (its profile's stripe height).
int scan_warp_stripe_rows();
/// Launches the warp kernel (a warp per long DB sequence, 32-bit, exact) on
/// `stream` (asynchronous).
/// @throws std::runtime_error naming the CUDA error.
void launch_scan_warp(const ScanWarpParams& p, ScanMode mode, cudaStream_t stream);

}  // namespace gpualign::gpu::detail
