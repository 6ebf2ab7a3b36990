// cuda_startup_probe: host wall time of each CUDA start-up step (driver
// initialisation, context creation, device and pinned allocations) on one
// device, to show what a one-shot CLI run pays before any alignment.
// Method: std::chrono::steady_clock around each runtime call; run it several
// times (the first run after boot is slower). Run by `bench/run.sh startup`.
// PROBE_LATE_CONNS=N sets CUDA_DEVICE_MAX_CONNECTIONS=N after the driver has
// started and before the context: whether the driver reads it at the
// context (the queues' cost then follows N). PROBE_EXIT=underscore ends with
// _exit(0) instead of returning (CUDA's atexit teardown skipped), reset with
// cudaDeviceReset first.
#include <cuda_runtime_api.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
using C = std::chrono::steady_clock;
static C::time_point t0;
static double ms() { return std::chrono::duration<double, std::milli>(C::now() - t0).count(); }
#define STEP(label, call) do { double a = ms(); cudaError_t e = call; std::printf("%-36s %8.2f ms (%s)\n", label, ms() - a, cudaGetErrorName(e)); } while (0)
int main() {
    t0 = C::now();
    int n = 0;
    STEP("cudaGetDeviceCount", cudaGetDeviceCount(&n));
    if (const char* late = std::getenv("PROBE_LATE_CONNS")) setenv("CUDA_DEVICE_MAX_CONNECTIONS", late, 1);
    STEP("cudaSetDevice(0)", cudaSetDevice(0));
    STEP("cudaFree(0) (context)", cudaFree(0));
    void* p = nullptr;
    STEP("cudaMalloc 3 GiB", cudaMalloc(&p, 3ull << 30));
    void* q = nullptr;
    STEP("cudaMalloc 64 MiB", cudaMalloc(&q, 64ull << 20));
    void* h = nullptr;
    STEP("cudaMallocHost 8 MiB", cudaMallocHost(&h, 8ull << 20));
    void* h2 = nullptr;
    STEP("cudaMallocHost 32 MiB", cudaMallocHost(&h2, 32ull << 20));
    void* h3 = nullptr;
    STEP("cudaMallocHost 256 MiB", cudaMallocHost(&h3, 256ull << 20));
    cudaStream_t s;
    STEP("cudaStreamCreate", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    STEP("cudaFreeHost 256 MiB", cudaFreeHost(h3));
    STEP("cudaFree 3 GiB", cudaFree(p));
    std::printf("total before exit %.2f ms\n", ms());
    const char* how = std::getenv("PROBE_EXIT");
    if (std::getenv("PROBE_RESET") || (how && std::strcmp(how, "reset") == 0)) STEP("cudaDeviceReset", cudaDeviceReset());
    std::printf("total %.2f ms\n", ms());
    if (how && std::strcmp(how, "underscore") == 0) {
        std::fflush(stdout);
        _exit(0);
    }
}
