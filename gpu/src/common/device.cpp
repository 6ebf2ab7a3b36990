// gpualign — the device-level functions of the CUDA backend (device.hpp):
// counting, starting and describing the devices, and describing the build.
// Host code (g++).
#include "gpualign/gpu/device.hpp"

#include <cuda_runtime_api.h>

#include <sstream>
#include <string>

#include "cuda_check.hpp"
#include "device_flags.hpp"

namespace gpualign::gpu {

int device_count() noexcept {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();  // clear the sticky "no driver/device" state
        return 0;
    }
    return n;
}

void start_devices(std::span<const int> devices) noexcept {
    const int visible = device_count();
    for (const int d : devices) {
        if (d < 0 || d >= visible || cudaSetDevice(d) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        (void)cudaSetDeviceFlags(detail::engine_device_flags);
        (void)cudaFree(nullptr);  // creates the primary context
        (void)cudaGetLastError();
    }
}

std::string build_description() noexcept {
    try {
        const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
        int driver = 0;
        if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
        (void)cudaGetLastError();
        std::string archs;  // "80;90" -> "sm_80 sm_90"
        std::istringstream list(GPUALIGN_CUDA_ARCHS);
        for (std::string a; std::getline(list, a, ';');) archs += (archs.empty() ? "sm_" : " sm_") + a;
        return "CUDA runtime " + version(CUDART_VERSION) + " (linked statically), built for " + archs +
               "; driver: " + (driver > 0 ? "CUDA " + version(driver) : std::string("no driver"));
    } catch (...) {
        return "CUDA";
    }
}

std::string device_description(int device) {
    cudaDeviceProp prop{};
    GPUALIGN_CUDA(cudaGetDeviceProperties(&prop, device), "device " + std::to_string(device));
    return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
           std::to_string(prop.multiProcessorCount) + " SMs, " +
           std::to_string(prop.totalGlobalMem >> 20) + " MiB)";
}

}  // namespace gpualign::gpu
