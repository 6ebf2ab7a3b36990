// gpualign — checking every CUDA runtime call (host code only).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpualign::gpu::detail {

/// Throws std::runtime_error "<context>: <cudaGetErrorName> (<cudaGetErrorString>)"
/// when `e` is not cudaSuccess. `context` names the call and what it served.
inline void cuda_check(cudaError_t e, const std::string& context) {
    if (e != cudaSuccess)
        throw std::runtime_error("CUDA error in " + context + ": " + cudaGetErrorName(e) + " (" +
                                 cudaGetErrorString(e) + ")");
}

}  // namespace gpualign::gpu::detail

/// Checks one CUDA call; the context is the call's text plus `what`.
#define GPUALIGN_CUDA(call, what) ::gpualign::gpu::detail::cuda_check((call), std::string(#call) + " [" + (what) + "]")
