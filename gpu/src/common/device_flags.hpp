// gpualign — the scheduling flag of every engine's CUDA context (host code
// only).
#pragma once

#include <cuda_runtime_api.h>

namespace gpualign::gpu::detail {

/// The engines' contexts: a host thread that waits for a batch sleeps
/// instead of spinning on a core that the pipeline's reader and writer
/// threads need. Set before a context is active (start_devices, and the
/// BatchEngine constructor on a device whose context is not yet active).
constexpr unsigned int engine_device_flags = cudaDeviceScheduleBlockingSync;

}  // namespace gpualign::gpu::detail
