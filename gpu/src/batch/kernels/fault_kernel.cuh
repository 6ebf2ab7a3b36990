// gpualign — test hook only: a kernel that stops with a real device fault.
// Launched by batch_dispatch.cu before a batch's kernels when the test hook
// GPUALIGN_INJECT_CUDA_FAULT selects that batch (docs/gpu.md, "Test hooks"),
// so that tests can check how a sticky CUDA error mid-run propagates.
#pragma once

namespace gpualign::gpu::kernels {

/// Executes __trap(): the launch succeeds, the kernel aborts on the device
/// and the context reports a sticky error (cudaErrorLaunchFailure or
/// cudaErrorIllegalInstruction, depending on the driver) at the next
/// synchronisation.
__global__ void fault_kernel() { __trap(); }

}  // namespace gpualign::gpu::kernels
