// gpualign — the CUDA devices as the engines see them: how many are visible,
// starting them ahead of the engines, and describing them and the build.
// Plain C++20: no CUDA types, so lib/ and app/ include it without nvcc.
#pragma once

#include <span>
#include <string>

namespace gpualign::gpu {

/// Number of visible CUDA devices. 0 when built without CUDA, when no driver
/// is loaded, or when no device is visible. Never throws.
int device_count() noexcept;

/// Starts CUDA on each of `devices` (ordinals, 0 .. device_count() - 1): the
/// driver and the device's primary context, with the scheduling flag the
/// engines use (blocking sync). CUDA's start is the slowest step of a short
/// run (docs/gpu.md, "CUDA's start off the critical path"): a caller starts
/// it on a thread of its own while it opens its inputs, and an engine created
/// later on those devices (on any thread) finds the context ready. Changes
/// the calling thread's current device. Never throws: an ordinal that is not
/// visible, or a device that fails, is left alone, and its error shows when
/// an engine starts there. No-op without CUDA.
void start_devices(std::span<const int> devices) noexcept;

/// One line describing device `device` (an ordinal): name, compute
/// capability, SMs and memory in MiB, e.g. "NVIDIA H100 (sm_90, 132 SMs,
/// 81079 MiB)".
/// @throws std::runtime_error naming the CUDA error (cudaGetErrorName) for an
///         ordinal that is not visible or a device that fails, and always
///         when built without CUDA.
std::string device_description(int device);

/// One line describing the GPU backend as built, for --version: the CUDA
/// runtime version linked (statically), the architectures compiled for, and
/// the CUDA version the installed driver supports ("no driver" without one);
/// "built without CUDA" for the stub. Never throws.
std::string build_description() noexcept;

}  // namespace gpualign::gpu
