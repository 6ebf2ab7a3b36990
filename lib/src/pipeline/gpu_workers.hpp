// gpualign — the GPU engines of the pairs pipeline's GPU backends, one
// worker per device: the batch engine (gpu::BatchEngine, a warp per pair) and the
// long-pair engine (gpu::LongEngine), and what each did. The one-GPU
// backend (gpu_backend.cpp) and the several-GPUs backend
// (multi_gpu_backend.cpp) route and share the pairs over them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "batch.hpp"
#include "gpualign/gpu/batch_engine.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/gpu/long_engine.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/config.hpp"
#include "long_pairs.hpp"
#include "pair_backend.hpp"

namespace gpualign::detail {

/// One GPU worker: the engines of one device (ordinal) and what it did, for
/// the -v log. A device listed twice in --devices has two.
struct GpuWorker {
    int device = 0;
    std::unique_ptr<gpu::BatchEngine> engine;
    std::unique_ptr<gpu::LongEngine> long_engine;  // created at its first long pair
    /// Measured speed of its batch engine (DP cells per kernel millisecond,
    /// smoothed); 0 until its first share is collected.
    double cells_per_ms = 0;
    std::uint64_t batch_pairs = 0, batch_cells = 0, long_pairs = 0, long_cells = 0;
    double batch_kernel_ms = 0, long_kernel_ms = 0;
};

/// One GPU's part of a batch: the pairs it aligns on its batch engine.
struct GpuShare {
    std::size_t worker = 0;
    std::vector<std::size_t> pairs;    // indices within the batch
    std::vector<gpu::PairView> views;  // read by the engine in align_async (and after a shrink, in collect)
    std::uint64_t cells = 0;
    gpu::Ticket ticket = 0;
};

/// The pairs of a batch as the GPUs take them.
struct GpuRoute {
    std::vector<std::size_t> on_gpu;   ///< for the batch engines, in batch order
    std::vector<std::uint64_t> cells;  ///< their cells (at least 1 each)
    std::vector<std::size_t> on_long;  ///< for the long-pair engines, in batch order
};

/// The GPU workers of a backend and what they share.
///
/// Routing of each pair (query_len * ref_len = its cells): the batch engines
/// take the pairs every one accepts below Defaults::long_pair_cells; the
/// others go to the long-pair engines, created at a GPU's first such pair:
/// one alone across a whole GPU, several together (align_many). A pair the
/// long engine refuses for a --gpu-memory cap too small for it is aligned on
/// the CPU's long-pair path instead (counted in cpu_fallback).
class GpuWorkers {
public:
    /// Readies a worker per entry of `devices`. The batch engines start at
    /// the first batch with pairs for them (start_batch_engines), the
    /// long-pair engines at their first long pair: a run of long pairs only
    /// never allocates the batch engines' buffers (13.6 GB of device memory
    /// and pinned host buffers on an H100, about 40 ms of start-up and more
    /// at exit).
    /// @param engine_threads  host threads of each batch engine (packing, results).
    GpuWorkers(const AlignConfig& c, const ScoringScheme& s, const std::vector<int>& devices, int engine_threads);

    std::size_t size() const noexcept { return workers_.size(); }
    const GpuWorker& operator[](std::size_t w) const noexcept { return *workers_[w]; }

    /// Sorts the pairs of b into those for the batch engines and the long
    /// ones, starting the batch engines at the first pair below
    /// Defaults::long_pair_cells. @throws what start_batch_engines throws.
    GpuRoute route(const Batch& b);

    /// Starts worker w's batch engine on the pairs route.on_gpu[i0, i1) of b
    /// (gpu::BatchEngine::align_async); different workers' shares may be
    /// submitted at the same time, on threads of their own. The views point into b, which must
    /// outlive the share; moving the share keeps their storage where the
    /// engine saw it.
    GpuShare submit_share(std::size_t w, const Batch& b, const GpuRoute& route, std::size_t i0, std::size_t i1);
    /// Collects `s` into out (indices within the batch), updating the
    /// worker's counters and measured speed. Shares of different workers
    /// may be collected at the same time (on threads of their own): each
    /// touches only its worker and its pairs of `out`. @throws the engine's errors.
    void collect_share(GpuShare& s, std::vector<AlignmentResult>& out);

    /// Creates worker w's long-pair engine (at its first long pair) and
    /// readies it when given several pairs `ks` of b (LongEngine::prepare).
    /// Called before the batch engines' kernels of the same batch start: the
    /// engine's first kernel loads and its workers' pinned buffers wait for
    /// the whole device, so done while those kernels run they waited for
    /// them (about 60 ms on the bulk 5-50 kb pairs). An error here is left to
    /// the alignment, which repeats the same steps and reports it with its
    /// pair. Never throws.
    void prepare_long_engine(std::size_t w, const Batch& b, const std::vector<std::size_t>& ks) noexcept;
    /// Aligns the long pairs `ks` of b (batch order) on worker w's long-pair
    /// engine: one alone across the whole GPU, several together
    /// (LongEngine::align_many). `failed` is set to the pair whose error is
    /// thrown, when known. @throws std::runtime_error naming a pair.
    void align_long(std::size_t w, const Batch& b, const std::vector<std::size_t>& ks,
                    std::vector<AlignmentResult>& out, std::size_t& failed);

    /// Starts the progress line of the long pairs `ks` of b (all workers').
    void begin_long_progress(const Batch& b, const std::vector<std::size_t>& ks);
    void end_long_progress(bool succeeded) { progress_.end(succeeded); }

    BackendTotals totals() const noexcept;
    /// Logs (debug, -v) the work each GPU did.
    void log_devices() const;

private:
    /// Starts the batch engine of every GPU worker at once (each on its own
    /// thread), once (again after a failed start).
    /// @throws what gpu::BatchEngine's constructor throws (the first error).
    void start_batch_engines();
    /// Creates GPU worker w's long-pair engine at its first long pair.
    gpu::LongEngine& long_engine(std::size_t w);
    /// Pair k of b alone on worker w's long-pair engine.
    /// @throws std::runtime_error naming the pair.
    AlignmentResult align_one_on_long_engine(std::size_t w, const Batch& b, std::size_t k);
    /// The pairs `ks` of b together on worker w's long-pair engine
    /// (LongEngine::align_many). `failed` is set to the pair whose error is
    /// thrown. @throws std::runtime_error naming that pair.
    void align_many_on_long_engine(std::size_t w, const Batch& b, const std::vector<std::size_t>& ks,
                                   std::vector<AlignmentResult>& out, std::size_t& failed);
    /// What a pair the long engine failed gets: a pair too large for the long
    /// engine's share of a --gpu-memory cap goes to the CPU (as pairs too
    /// large for the batch engine under a cap always have); every other
    /// error, the 32-bit score bound included, is the run's error.
    /// @throws `error` itself, or what the CPU path throws (callers name the pair).
    AlignmentResult long_engine_failed(std::size_t w, const Batch& b, std::size_t k, const std::exception_ptr& error);

    PairJob job_;
    std::size_t long_engine_memory_ = 0;
    bool capped_ = false;
    std::vector<std::unique_ptr<GpuWorker>> workers_;
    gpu::BatchEngineOptions engine_options_;  // of the batch engines (device set per worker)
    bool batch_engines_started_ = false;
    LongPairProgress progress_;
    std::atomic<std::uint64_t> cpu_fallback_{0};
};

}  // namespace gpualign::detail
