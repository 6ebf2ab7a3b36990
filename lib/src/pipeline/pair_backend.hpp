// gpualign — the backends of the pairs pipeline behind one interface: the
// CPU (cpu_backend.cpp), one GPU (gpu_backend.cpp) and several GPUs
// (multi_gpu_backend.cpp). The pipeline picks one from the configuration
// once (make_pair_backend) and only submits and collects batches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "batch.hpp"
#include "gpualign/gpu/batch_engine.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::detail {

/// How every pair of the run is aligned, as the backends share it.
struct PairJob {
    const ScoringScheme& scheme;  ///< borrowed; outlives the backend
    AlignMode mode;
    bool score_only;
    CpuKernel cpu_kernel;
    int threads;  ///< the run's threads (run_threads): the CPU's aligning team
};

/// A collected batch: its results, one per pair of the batch (both strands'
/// when the batch holds both), in the batch's order.
struct Collected {
    std::shared_ptr<const Batch> batch;
    std::vector<AlignmentResult> results;
};

/// What a backend did over the run, for RunStats and the -v log.
struct BackendTotals {
    /// Pairs aligned on the CPU by a GPU backend: those the long-pair engines
    /// refused under a --gpu-memory cap, plus those the batch engines aligned
    /// on the host after shrinking their buffers (0 on the CPU backend).
    std::uint64_t cpu_fallback = 0;
    /// Pairs aligned one at a time by a long-pair path (GPU: the long-pair
    /// engines; CPU: align_pair_long on every thread).
    std::uint64_t long_pairs = 0;
    double kernel_ms = 0;          ///< sum of BatchEngine::last_kernel_ms over the batches and GPUs (0 on the CPU)
    double long_engine_ms = 0;     ///< device milliseconds of the long-pair engines' passes (0 on the CPU)
    gpu::BatchEngineProfile engine_profile;  ///< the GPU engines' profile, summed over the GPUs (all zero on the CPU)
};

/// A backend: aligns batches, at most a few submitted at a time, with every
/// pair's result exactly align_pair's (so the backend never changes the
/// output). Long pairs show a progress line on stderr (ProgressLine) when
/// asked.
class PairBackend {
public:
    virtual ~PairBackend() = default;

    /// Starts aligning `batch` and returns without waiting for a GPU (work
    /// on the host is done in collect()).
    /// @throws errors of the GPU engines as they come.
    virtual void submit(std::shared_ptr<const Batch> batch) = 0;
    /// The results of the oldest submitted batch not yet collected.
    /// @throws std::runtime_error "pair N (query X, ref Y): message" when a
    ///         pair cannot be aligned; errors of the GPU engines as they come.
    virtual Collected collect() = 0;

    virtual BackendTotals totals() const = 0;
    /// Logs (debug, -v) the work each GPU did; nothing on the CPU.
    virtual void log_devices() const {}
    /// RunStats::backend: "cpu (N threads, ...)" or the GPUs' description.
    const std::string& description() const noexcept { return description_; }

protected:
    std::string description_;
};

/// The backend of `c` (run_devices): the CPU without GPUs, else one GPU or
/// several, logging the GPUs it uses.
/// @param engine_threads  host threads of each GPU batch engine (packing, results).
/// @throws std::runtime_error for --backend gpu without a device, an
///         ordinal that is not visible, or a device whose properties cannot
///         be read.
std::unique_ptr<PairBackend> make_pair_backend(const AlignConfig& c, const ScoringScheme& s, int engine_threads);

/// The CPU backend (cpu_backend.cpp).
std::unique_ptr<PairBackend> make_cpu_backend(const AlignConfig& c, const ScoringScheme& s);
/// The backend of GPU `device` (gpu_backend.cpp).
std::unique_ptr<PairBackend> make_gpu_backend(const AlignConfig& c, const ScoringScheme& s, int device,
                                              int engine_threads);
/// The backend of several GPUs, `devices` (multi_gpu_backend.cpp).
std::unique_ptr<PairBackend> make_multi_gpu_backend(const AlignConfig& c, const ScoringScheme& s,
                                                    const std::vector<int>& devices, int engine_threads);

}  // namespace gpualign::detail
