// gpualign — the CUDA backend's public interface. Plain C++20: no SeqAn3 and
// no CUDA types, so lib/ and app/ include it without nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpualign/alignment.hpp"
#include "gpualign/scoring.hpp"

namespace gpualign::gpu {

/// Number of visible CUDA devices. 0 when built without CUDA, when no driver
/// is loaded, or when no device is visible. Never throws.
int device_count() noexcept;

/// One line describing device `device` (name, compute capability, SMs,
/// memory). Throws std::runtime_error (with cudaGetErrorName) on failure.
std::string device_description(int device);

/// One pair to align: borrowed spans of sequence codes in host memory
/// (see gpualign::Alphabet). They must stay valid during Engine::align.
struct PairView {
    std::span<const std::uint8_t> query;
    std::span<const std::uint8_t> ref;
};

/// Engine settings. Sizes in bytes or bases as named.
struct EngineOptions {
    int device = 0;                              ///< CUDA device ordinal
    int streams = 2;                             ///< CUDA streams in rotation (>= 1)
    std::size_t max_batch_bases = 8u << 20;      ///< query+ref bases per device batch
    std::size_t gpu_memory_limit = 0;            ///< cap on device memory, 0 = no cap
    int host_threads = 0;                        ///< host threads packing batches and building results (OpenMP), 0 = all cores
};

/// The batch aligner on one GPU: an owning host object holding device
/// buffers, pinned host buffers and streams, allocated once and reused.
///
/// Results are byte-identical to gpualign::align_pair (the CPU reference) for
/// every pair it accepts: same score, coordinates (0-based half-open) and
/// CIGAR under the canonical rule of docs/scoring.md.
class Engine {
public:
    /// @throws std::invalid_argument for an invalid scheme,
    ///         std::runtime_error naming the CUDA error (cudaGetErrorName)
    ///         when the device cannot be initialised or memory allocated.
    Engine(const ScoringScheme& scheme, AlignMode mode, bool score_only, const EngineOptions& options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    /// True when the batch kernels take a pair of these lengths; longer pairs
    /// must go to the CPU path (the caller logs how many). Accepted: both
    /// lengths <= 65,535, fits_int32, query_len + ref_len <= max_batch_bases,
    /// and with traceback the pair's direction bits (about query_len *
    /// ref_len / 2 bytes) fit the per-stream traceback buffer. Empty sides are
    /// accepted (answered on the host). See docs/gpu.md.
    bool accepts(std::size_t query_len, std::size_t ref_len) const noexcept;

    /// Aligns `pairs` (all accepted) and returns one result per pair, in input
    /// order. Blocks until done. Internally splits into device batches and
    /// overlaps copies and kernels across streams.
    /// @throws std::runtime_error naming the CUDA error and the batch;
    ///         std::invalid_argument if a pair is not accepted (accepts()).
    std::vector<AlignmentResult> align(std::span<const PairView> pairs);

    /// Kernel-only time of the last align() call in milliseconds: the sum of
    /// CUDA-event times around each batch's kernels. Exact with streams = 1;
    /// with several streams concurrent batches overlap and the sum overcounts.
    double last_kernel_ms() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpualign::gpu
