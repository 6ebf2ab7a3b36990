// gpualign — how a long-engine worker waits for its stream (host code only).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace gpualign::gpu::long_detail {

/// Waits for one worker's stream: by polling it when the worker is alone on
/// the GPU (lowest latency), by sleeping on an event when many workers share
/// the host's cores (set_alone), or by reading a flag a kernel sets (poll).
/// Borrows the stream; owns its event. Not thread-safe (one worker's).
class StreamWaiter {
public:
    StreamWaiter() = default;
    StreamWaiter(const StreamWaiter&) = delete;
    StreamWaiter& operator=(const StreamWaiter&) = delete;
    ~StreamWaiter();

    /// Waits on `stream` from now on; creates the blocking-sync event.
    /// @throws CudaError.
    void attach(cudaStream_t stream);
    /// Waits on `stream` from now on, keeping the event (a worker's stream
    /// replaced by one of another priority).
    void rebind(cudaStream_t stream) { stream_ = stream; }
    /// Whether the worker is the only one running (LongEngine::align).
    void set_alone(bool alone) { alone_ = alone; }

    /// Waits for everything queued on the stream. Alone: polls the stream (a
    /// traceback waits for hundreds of short launches, and
    /// cudaStreamSynchronize sleeps on an OS event under the blocking-sync
    /// flag that the batch engine gives the context), every 50 us after the
    /// first millisecond; else sleeps on a blocking-sync event.
    /// @throws CudaError with the stream's error, naming `what`.
    void wait(const std::string& what);

    /// Waits until a kernel of the stream sets `*flag` (non-zero) in mapped
    /// pinned memory (RegionParams::launch_done, WalkState::finished),
    /// sleeping 20 us between reads and asking the stream for errors every
    /// millisecond. align_many's workers wait so, not on an event recorded
    /// after the kernel: with more workers than CUDA's hardware work queues,
    /// two streams share a queue, and a command that waits for a kernel
    /// holds back the other stream's commands queued behind it.
    /// @throws CudaError with the stream's error; std::logic_error when the
    ///         stream ends without the flag.
    void poll(const unsigned int* flag, const std::string& what);

private:
    cudaStream_t stream_ = nullptr;
    cudaEvent_t event_ = nullptr;  // blocking-sync: a waiting worker thread sleeps instead of spinning
    bool alone_ = true;
};

}  // namespace gpualign::gpu::long_detail
