// cuda_copy_probe — host/device transfer rates on this machine (`bench/run.sh copy`; docs/benchmarks.md):
// pinned host-to-device and device-to-host cudaMemcpyAsync, and a kernel
// writing to mapped pinned host memory (how the CIGAR gather kernel returns
// runs). 64 MiB each, CUDA events, one warm-up, median of 5.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "cuda_copy_probe: %s: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    std::exit(1);
}

__global__ void write_mapped(unsigned* dst, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        dst[i] = static_cast<unsigned>(i) * 2654435761u;  // not zeros
}

}  // namespace

int main() {
    constexpr std::size_t bytes = std::size_t{64} << 20;
    void *pinned = nullptr, *mapped = nullptr, *dev = nullptr, *mapped_dev = nullptr;
    check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    check(cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped), "cudaHostAlloc(mapped)");
    check(cudaHostGetDevicePointer(&mapped_dev, mapped, 0), "cudaHostGetDevicePointer");
    check(cudaMalloc(&dev, bytes), "cudaMalloc");
    for (std::size_t i = 0; i < bytes; ++i) static_cast<unsigned char*>(pinned)[i] = static_cast<unsigned char>(i * 7 + 1);
    check(cudaMemset(dev, 0x5a, bytes), "cudaMemset");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    const char* names[] = {"H2D pinned", "D2H pinned", "kernel writes to mapped pinned"};
    for (int what = 0; what < 3; ++what) {
        std::vector<float> ms;
        for (int run = 0; run < 6; ++run) {
            check(cudaEventRecord(start), "cudaEventRecord");
            if (what == 0) check(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice), "H2D");
            if (what == 1) check(cudaMemcpyAsync(pinned, dev, bytes, cudaMemcpyDeviceToHost), "D2H");
            if (what == 2) {
                write_mapped<<<528, 256>>>(static_cast<unsigned*>(mapped_dev), bytes / sizeof(unsigned));
                check(cudaGetLastError(), "write_mapped launch");
            }
            check(cudaEventRecord(stop), "cudaEventRecord");
            check(cudaEventSynchronize(stop), "cudaEventSynchronize");
            float t = 0;
            check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
            if (run > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("%-32s %6.2f GB/s (64 MiB, median of 5)\n", names[what], bytes / (ms[2] * 1e-3) / 1e9);
    }
    cudaFreeHost(pinned);
    cudaFreeHost(mapped);
    cudaFree(dev);
    return 0;
}
