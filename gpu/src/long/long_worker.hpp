// gpualign — a worker of the long engine: one pair at a time on its own
// stream, a RegionBackend of the checkpoint traceback whose regions are
// launches of the region kernel (host code only). Its pieces: the launch
// geometry (launch_geometry.hpp), the per-pair plan (pair_plan.hpp), the
// checkpoint arena (checkpoint_arena.hpp), the stream waits
// (stream_wait.hpp) and the staged copies (staged_copy.hpp).
//
// long_worker.cpp holds the RegionBackend (regions, the forward pass, the
// launches, a pair's setup); its RegionSpeculation is a WorkerBatches
// (worker_batches.hpp: leaf and tile batches, the walk on the device, the
// rows' peaks).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../common/device_memory.hpp"
#include "../common/staging_pool.hpp"
#include "checkpoint_arena.hpp"
#include "flow_budget.hpp"
#include "gpualign/align/checkpoint_traceback.hpp"
#include "gpualign/gpu/long_engine.hpp"
#include "launch_geometry.hpp"
#include "long_dispatch.hpp"
#include "long_tuning.hpp"
#include "staged_copy.hpp"
#include "stream_wait.hpp"
#include "worker_batches.hpp"

namespace gpualign::gpu::long_detail {

/// What every worker of one engine shares (read-only while workers run).
struct Context {
    ScoringScheme scheme;
    AlignMode mode;
    bool score_only;
    LongEngineOptions options;
    int device = 0;
    std::size_t limit = 0;                  // the engine's memory cap (bytes)
    void* matrix = nullptr;                 // device: the substitution matrix
    cudaMemPool_t pool = nullptr;           // the workers' device buffers (DeviceMemory)
    detail::StagingPool* staging = nullptr; // the workers' shared staging buffers (owned by the engine)
    FlowBudget* flow = nullptr;             // the solo workers' co-resident blocks (owned by the engine)
    std::size_t matrix_bytes = 0;
    // [lane_rows_index(R)][mode][dirs], of the variants with this engine's `packed`
    int max_blocks[std::size(long_geometry::lane_rows)][detail::region_modes][2] = {};
    int max_warps = 0;              // warps of the largest grid of any variant
    int least_priority = 0;         // the device's stream priorities (cudaDeviceGetStreamPriorityRange)
    int greatest_priority = 0;
    int sms = 0;                    // the device's SMs (long_tuning::rows_per_lane)
    bool packed = false;            // scores as a packed int8 profile (DNA; detail::region_uses_packed_scores)
};

/// One pair at a time: a RegionBackend with its own stream, arena and rings,
/// and its RegionSpeculation (a WorkerBatches, which shares its state).
/// `solo`: a pair alone on the GPU (align()), or one of `parts` such pairs
/// that align_many runs at once: launches may be cooperative and use
/// flow-controlled rings narrower than a region (with `parts` > 1, their
/// blocks claimed from the engine's FlowBudget); otherwise rings hold whole
/// rows and every launch is an ordinary one beside other workers'. Every method that touches the device throws CudaError naming
/// the CUDA error.
class Worker final : public RegionBackend {
public:
    /// A worker on cx.device with a stream of its own. `c` outlives it.
    explicit Worker(const Context& c);
    ~Worker() override;
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // ---- setup (long_worker.cpp) ---------------------------------------------
    /// Sets this worker's share of the cap (bytes), whether it runs alone
    /// (long_plan::worker_setup) and, alone, how many solo workers run at
    /// once (`parts` >= 1); frees buffers sized for another share.
    void configure(bool is_solo, std::size_t share, int parts = 1);
    /// Gives this worker a stream of `priority` (between cx.least_priority
    /// and cx.greatest_priority) once its stream's work is done: CUDA's
    /// block scheduler places the pending blocks of higher-priority streams
    /// first, so the largest pairs' launches (the set's critical path) start
    /// first where SMs free up. No-op when it has that priority.
    void set_priority(int priority);
    /// The rank (largest first) of the next pair among the solo pairs run
    /// together: its forward pass claims in rank order (FlowBudget::claim);
    /// -1: none.
    void set_rank(int rank) { rank_ = rank; }
    /// Frees every device buffer (the next pair allocates again).
    void release_buffers();
    /// Bytes outside the arena that a pair of m + n bases may need
    /// (long_plan::others_bytes with this worker's setup).
    std::size_t others(std::size_t bases) const;
    /// Aligns one pair within this worker's share (LongEngine::align); the
    /// statistics of the pair in stats().
    /// @throws what LongEngine::align throws.
    AlignmentResult align(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                          const ProgressCallback& progress_cb);
    /// What the last align() did.
    const LongEngineStats& stats() const { return stats_; }
    /// This worker's share of the cap (bytes) and one launch's ring bytes (configure).
    std::size_t share() const { return limit_; }
    std::size_t ring_budget() const { return ring_budget_; }
    /// Where this worker's device and pinned buffers come from, and their counters.
    detail::DeviceMemory& memory() { return mem_; }

    // ---- the pinned host buffers (long_worker.cpp) ---------------------------
    /// Whether this worker's pinned host buffers serve pairs of up to
    /// `steps` = m + n bases without growing.
    bool host_ready(std::size_t steps) const;
    /// Lays this worker's pinned host buffers (launch-end flag, small
    /// copies, descriptors, the walk's cursor and steps; sized for pairs of
    /// up to `steps` = m + n bases) out in a slab part at host `h`, device
    /// view `d`, and returns the part's bytes; with `h` null only the bytes.
    std::size_t lay_out(std::size_t steps, std::uint8_t* h, std::uint8_t* d);

    // ---- RegionBackend (long_worker.cpp) -------------------------------------
    BoundaryCell* allocate(std::size_t count) override { return arena.allocate(count); }
    void release(BoundaryCell* p) override { arena.release(p); }
    void upload(BoundaryCell* dst, std::span<const BoundaryCell> src) override;
    void fill_border(BoundaryCell* dst, std::int64_t len, bool free, std::int32_t gap_open,
                     std::int32_t gap_extend) override;
    std::int64_t row_alignment() const override { return long_tuning::row_alignment; }
    RegionSpeculation* speculation() override { return &batches; }
    std::uint8_t* dirs_buffer(std::size_t bytes) override;
    RegionResult compute(const Region& reg, const RegionOutputs& out,
                         const std::function<void(std::uint64_t)>& on_cells) override;

private:
    friend class WorkerBatches;  // the speculative half: the same launches and buffers

    /// A launch of this worker's stream not yet waited for (run_launch with
    /// `defer`): settle_pass waits for it and counts it.
    struct PendingPass {
        bool active = false;
        std::string what;
        std::uint64_t cells = 0;
        std::chrono::steady_clock::time_point t0;
    };

    /// What compute_region reports: RegionResult, and for the windowed local
    /// forward (region_kernel.cuh) the first column the best cell may be in
    /// (best_j is then the last; 0 = best_j is exact) and, at 32 rows a lane
    /// (the lane key), the last row it may be in (best_i is then the first;
    /// 0 = best_i is exact).
    struct WindowedResult : RegionResult {
        std::int64_t best_w = 0;
        std::int64_t best_i_last = 0;
    };

    // ---- launches (long_worker.cpp) ------------------------------------------
    /// Most co-resident blocks of this engine's kernel variant (mode, packed)
    /// with R rows per lane, with or without direction bytes.
    int max_blocks_for(int R, bool want_dirs) const;
    /// Rows per lane of a launch over regions of `rows` rows (long_geometry::rows_per_lane).
    int rows_per_lane(std::int64_t rows, bool want_dirs = false) const;
    /// The launch fields every region launch shares.
    detail::RegionLaunch base_launch(bool want_dirs, int R) const;
    /// The mapped pinned word that align_many's launches signal their end in.
    unsigned int* done_word();
    void settle_pass();
    void count_pass(double ms, std::uint64_t cells, std::chrono::steady_clock::time_point t0);
    void run_launch(detail::RegionLaunch& a, std::vector<long_kernels::RegionDesc>& descs, std::uint64_t cells,
                    const std::function<void(std::uint64_t)>& on_cells, std::size_t warps, bool defer = false);
    void report_progress(std::size_t warps, const std::function<void(std::uint64_t)>& on_cells);
    static long_kernels::RegionDesc desc_of(const Region& reg);
    /// @throws std::length_error for a region beyond the kernel's 32-bit indices.
    static void check_size(const Region& reg);
    void locate_best(const Region& reg, const RegionOutputs& out, WindowedResult& res);
    WindowedResult compute_region(const Region& reg, const RegionOutputs& out,
                                  const std::function<void(std::uint64_t)>& on_cells, int R);
    void read_best(const Region& reg, int stripes, int R, WindowedResult& res);
    /// Descriptors of this worker's largest launch (a leaf or tile batch).
    std::size_t max_descs() const { return std::max<std::size_t>({leaf_batch_, tile_batch_, 1}); }
    void note_peak() { stats_.peak_device_bytes = std::max(stats_.peak_device_bytes, mem_.bytes); }

    // ---- setup: the share, the plan, the batches ------------------------------
    const Context& cx;
    bool solo = true;
    int parts_ = 1;          // solo workers running at once (claims from cx.flow when > 1)
    int rank_ = -1;          // of the pair among them (set_rank)
    std::size_t limit_ = 0;  // this worker's share of the cap
    std::size_t ring_budget_ = long_tuning::ring_budget;
    CheckpointPlan plan;     // the options' plan, with smaller leaves beside other pairs (configure)
    std::size_t leaf_batch_ = 1;
    std::size_t tile_batch_ = 1;
    std::size_t tile_ring_budget = 0;  // ring bytes of a tile-batch launch (>= ring_budget_), set per pair
    // ---- the stream and its pieces ---------------------------------------------
    cudaStream_t stream = nullptr;
    int priority_ = 0;  // the stream's
    cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
    StreamWaiter waiter;
    detail::DeviceMemory mem_;
    LongEngineStats stats_;
    CheckpointArena arena{mem_, stats_.peak_device_bytes};
    // ---- device buffers of the launches ---------------------------------------
    detail::DeviceBuffer seqs, ring, progress, best, dirs, corner, descs_dev;
    unsigned long long* cells_host = nullptr;  // mapped pinned, one counter per warp (solo progress)
    unsigned long long* cells_dev = nullptr;
    std::uint8_t* leaf_host = nullptr;         // pinned: a leaf's direction bytes
    std::size_t leaf_host_bytes = 0;
    // Pinned host buffers, own or in the engine's slab (LongEngine::Impl::ready):
    detail::PinnedBuffer<unsigned int> done;                 // mapped: RegionParams::launch_done of the last launch
    detail::PinnedBuffer<std::uint8_t> small;                // copies of at most long_tuning::small_copy_bytes
    detail::PinnedBuffer<long_kernels::RegionDesc> descs_host;  // a launch's descriptors, copied in-stream before it
    StagedCopies copies{mem_, waiter, small, cx.staging, stats_.copies_ms};
    WorkerBatches batches{*this};
    // ---- the pair in flight ------------------------------------------------------
    const std::uint8_t* dq = nullptr;  // device: the query's codes (in seqs)
    const std::uint8_t* dr = nullptr;  // device: the ref's codes (in seqs)
    bool first_pass = true;            // the next launch is the pair's forward pass
    PendingPass pending_pass;
};

}  // namespace gpualign::gpu::long_detail
