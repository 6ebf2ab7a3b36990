// gpualign — how a long-engine worker waits for its stream (stream_wait.hpp).
#include "stream_wait.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "../common/cuda_check.hpp"

namespace gpualign::gpu::long_detail {

StreamWaiter::~StreamWaiter() {
    if (event_) cudaEventDestroy(event_);
}

void StreamWaiter::attach(cudaStream_t stream) {
    stream_ = stream;
    GPUALIGN_CUDA(cudaEventCreateWithFlags(&event_, cudaEventBlockingSync | cudaEventDisableTiming),
                  "long engine event");
}

void StreamWaiter::wait(const std::string& what) {
    if (alone_) {
        const auto t0 = std::chrono::steady_clock::now();
        cudaError_t q = cudaSuccess;
        while ((q = cudaStreamQuery(stream_)) == cudaErrorNotReady)
            if (std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(1))
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        GPUALIGN_CUDA(q, what);
        return;
    }
    GPUALIGN_CUDA(cudaEventRecord(event_, stream_), what);
    GPUALIGN_CUDA(cudaEventSynchronize(event_), what);
}

void StreamWaiter::poll(const unsigned int* flag, const std::string& what) {
    auto next_check = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        if (std::chrono::steady_clock::now() < next_check) continue;
        next_check += std::chrono::milliseconds(1);
        const cudaError_t q = cudaStreamQuery(stream_);
        if (q == cudaErrorNotReady) continue;
        GPUALIGN_CUDA(q, what);
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
            throw std::logic_error(what + ": the stream ended before the kernel signalled its end");
    }
}

}  // namespace gpualign::gpu::long_detail
