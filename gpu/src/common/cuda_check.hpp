// gpualign — checking every CUDA runtime call (host code only).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpualign::gpu::detail {

/// A failed CUDA runtime call. Public callers see a std::runtime_error whose
/// what() is "CUDA error in <context>: <cudaGetErrorName> (<cudaGetErrorString>)";
/// the engine inspects code() to retry cudaErrorMemoryAllocation with smaller
/// buffers.
class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& context)
        : std::runtime_error("CUDA error in " + context + ": " + cudaGetErrorName(code) + " (" +
                             cudaGetErrorString(code) + ")"),
          code_(code) {}
    cudaError_t code() const noexcept { return code_; }

private:
    cudaError_t code_;
};

/// Throws CudaError when `e` is not cudaSuccess. `context` names the call and
/// what it served. A failed allocation (cudaErrorMemoryAllocation, not a
/// sticky error) is also cleared from the runtime's last-error state, so that
/// a later cudaGetLastError() after a kernel launch does not report it again.
inline void cuda_check(cudaError_t e, const std::string& context) {
    if (e != cudaSuccess) {
        if (e == cudaErrorMemoryAllocation) (void)cudaGetLastError();
        throw CudaError(e, context);
    }
}

}  // namespace gpualign::gpu::detail

/// Checks one CUDA call; the context is the call's text plus `what`.
#define GPUALIGN_CUDA(call, what) ::gpualign::gpu::detail::cuda_check((call), std::string(#call) + " [" + (what) + "]")
