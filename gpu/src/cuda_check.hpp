// gpualign — checking every CUDA runtime call (host code only).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace gpualign::gpu::detail {

/// Hardware work queues the CUDA context gets (CUDA_DEVICE_MAX_CONNECTIONS;
/// CUDA's default is 8, its maximum 32): one per LongEngine::align_many
/// worker's stream (long_tuning::max_workers). With 8 queues, 16 workers'
/// streams share queues, and a copy waiting for its stream's kernel holds back
/// the other stream's launches queued behind it. Measured (docs/benchmarks.md,
/// session 15), bulk 5-50 kb pairs, 16 workers, H100: global score-only 765 ->
/// 1,150 GCUPS, with CIGAR 396 -> 507, local 320 -> 409 (32 queues and 32
/// workers: 1,384 / 449 / 357). The cost is at process start and exit: the
/// mito pair through the CLI 0.60-0.68 s -> 0.75-0.82 s (32 queues:
/// 1.24-1.26 s), peak RSS 220 -> 302 MB.
constexpr const char* work_queues = "16";

/// Sets CUDA_DEVICE_MAX_CONNECTIONS to work_queues unless the user set it. The
/// driver reads it when it creates the context, so this runs at program start
/// (the inline variable below: initialised once, before main, in every
/// program that links any file of the GPU library).
inline bool set_work_queues() noexcept { return setenv("CUDA_DEVICE_MAX_CONNECTIONS", work_queues, 0) == 0; }
inline const bool work_queues_set = set_work_queues();

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
