// gpualign — gpualign::gpu::LongEngine: the owning host object of the
// long-pair engine. Its workers are RegionBackends (each with a device arena,
// rings, a stream): a worker computes each region of the checkpoint traceback
// (checkpoint_traceback.hpp) with one launch of the region kernel. align()
// runs one worker over the whole GPU; align_many() runs several pairs at once,
// one worker per host thread. Host code (g++).
#include "gpualign/gpu/long_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <future>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <numeric>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../common/cuda_check.hpp"
#include "../common/device_memory.hpp"
#include "../common/staging_pool.hpp"
#include "long_dispatch.hpp"
#include "long_tuning.hpp"

namespace gpualign::gpu {
namespace {

using detail::alloc_granule;
using detail::alloc_mapped;
using detail::alloc_pinned;
using detail::DeviceBuffer;
using detail::DeviceMemory;
using detail::free_pinned;
using detail::ms_since;
using detail::PinnedBuffer;
using detail::rounded;
using detail::StagingPool;

static_assert(sizeof(BoundaryCell) == 8, "BoundaryCell is the device's int2");

/// DP cells of a pair: query_len * ref_len.
std::uint64_t pair_cells(const LongPair& p) {
    return static_cast<std::uint64_t>(p.query.size()) * static_cast<std::uint64_t>(p.ref.size());
}

std::size_t next_pow2(std::size_t v) {
    std::size_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/// Columns of a ring that holds a whole row of `cols` columns (a power of two
/// with the 64 columns of slack the kernel's chunk loads need).
std::size_t whole_row_ring_cols(std::size_t cols) { return next_pow2(cols + 64); }

/// Bytes of one ring slot of `ring_cols` 16-byte entries {H, Fcell, stripe, column}.
constexpr std::size_t ring_slot_bytes(std::size_t ring_cols) { return ring_cols * 16; }

/// The region kernel's rows per lane (long_tuning::rows_per_lane), in the
/// order of Context::max_blocks' first index; 32 has no direction-byte variant.
constexpr int lane_rows[] = {4, 16, 32};
constexpr int lane_rows_index(int R) { return R == 32 ? 2 : R == 16 ? 1 : 0; }

/// What every worker of one engine shares (read-only while workers run).
struct Context {
    ScoringScheme scheme;
    AlignMode mode;
    bool score_only;
    LongEngineOptions options;
    int device = 0;
    std::size_t limit = 0;          // the engine's memory cap (bytes)
    void* matrix = nullptr;         // device: the substitution matrix
    cudaMemPool_t pool = nullptr;   // the workers' device buffers (DeviceMemory)
    StagingPool* staging = nullptr; // the workers' shared staging buffers (owned by the engine)
    std::size_t matrix_bytes = 0;
    int max_blocks[std::size(lane_rows)][detail::region_modes][2] = {};  // [lane_rows_index(R)][mode][dirs], of the variants with this engine's `packed`
    int max_warps = 0;              // warps of the largest grid of any variant
    int sms = 0;                    // the device's SMs (long_tuning::rows_per_lane)
    bool packed = false;            // scores as a packed int8 profile (DNA; detail::region_uses_packed_scores)
};

/// One pair at a time: a RegionBackend with its own stream, arena and rings.
/// `solo`: the only worker running (align()), so launches may be cooperative
/// and use flow-controlled rings narrower than a region; otherwise rings hold
/// whole rows and every launch is an ordinary one beside other workers'.
struct Worker final : RegionBackend {
    const Context& cx;
    bool solo = true;
    std::size_t limit = 0;        // this worker's share of the cap
    std::size_t ring_budget = long_tuning::ring_budget;
    CheckpointPlan plan;          // the options' plan, with smaller leaves beside other pairs (configure)
    std::size_t leaf_batch_ = 1;
    std::size_t tile_batch_ = 1;
    std::size_t tile_ring_budget = 0;  // ring bytes of a tile-batch launch (>= ring_budget), set per pair
    cudaStream_t stream = nullptr;
    cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
    cudaEvent_t ev_wait = nullptr;  // blocking-sync: a waiting worker thread sleeps instead of spinning
    DeviceBuffer seqs, arena, ring, progress, best, dirs, corner, descs_dev;
    DeviceBuffer peaks_dev;  // row_peaks: the rows' offsets, their peaks, CUB's storage
    std::vector<std::pair<std::size_t, std::size_t>> leaf_offsets;  // the leaf batch: (offset, bytes) in dirs
    std::vector<std::size_t> leaf_pitch;                              // the leaf batch: device row pitch of each leaf (dirs_pitch)
    std::vector<std::size_t> leaf_width;                              // the leaf batch: columns of each leaf
    unsigned long long* cells_host = nullptr;  // mapped pinned, one counter per warp (solo progress)
    unsigned long long* cells_dev = nullptr;
    std::uint8_t* leaf_host = nullptr;         // pinned: a leaf's direction bytes
    std::size_t leaf_host_bytes = 0;
    int leaf_count = 0;                        // leaves of the last compute_leaves batch (descriptors in descs_dev)
    // Pinned host buffers, own or in the engine's slab (Impl::ready):
    PinnedBuffer<unsigned int> done;                 // mapped: RegionParams::launch_done of the last launch
    PinnedBuffer<long_kernels::WalkState> walk_out;  // mapped: where the last leaf walk stopped
    PinnedBuffer<std::uint8_t> walk_steps;           // mapped: the last leaf walk's step codes
    PinnedBuffer<std::uint8_t> small;                // copies of at most long_tuning::small_copy_bytes
    PinnedBuffer<long_kernels::RegionDesc> descs_host;  // a launch's descriptors, copied in-stream before it
    std::future<DeviceMemory> walk_alloc;  // walk_out and walk_steps being allocated (reserve_walk_async)
    // The arena's allocations, stack-ordered: offsets into [0, arena.bytes +
    // arena_rest.bytes), the first part in `arena`, the rest in `arena_rest`.
    struct ArenaEntry {
        std::size_t below;  // arena_top before the allocation
        std::size_t start;  // its offset
    };
    std::vector<ArenaEntry> stack;
    std::size_t arena_top = 0;
    // A pair alone on the GPU whose level-1 tiles are batched: the arena's
    // part beyond what the forward pass needs (the borders and the top-level
    // grid), allocated while the forward pass runs (run_launch), not before
    // it: the 1 Mbp pair's arena took 14.8 ms before its forward pass on an
    // H100, its first part 10.1 ms (docs/benchmarks.md, session 24).
    DeviceBuffer arena_rest;
    std::size_t arena_rest_want = 0;
    DeviceMemory mem;
    const std::uint8_t* dq = nullptr;
    const std::uint8_t* dr = nullptr;
    LongEngineStats stats;
    bool first_pass = true;

    explicit Worker(const Context& c) : cx(c) {
        GPUALIGN_CUDA(cudaSetDevice(cx.device), "long engine, device " + std::to_string(cx.device));
        GPUALIGN_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "long engine stream");
        mem.pool = cx.pool;
        mem.stream = stream;
        GPUALIGN_CUDA(cudaEventCreate(&ev_start), "long engine event");
        GPUALIGN_CUDA(cudaEventCreate(&ev_stop), "long engine event");
        GPUALIGN_CUDA(cudaEventCreateWithFlags(&ev_wait, cudaEventBlockingSync | cudaEventDisableTiming),
                      "long engine event");
    }

    ~Worker() override {
        if (walk_alloc.valid()) walk_alloc.wait();  // it writes walk_steps and walk_out
        release_buffers();
        free_pinned(cells_host, mem);
        free_pinned(leaf_host, mem);
        done.release(mem);
        walk_out.release(mem);
        walk_steps.release(mem);
        small.release(mem);
        descs_host.release(mem);
        if (ev_start) cudaEventDestroy(ev_start);
        if (ev_stop) cudaEventDestroy(ev_stop);
        if (ev_wait) cudaEventDestroy(ev_wait);
        if (stream) cudaStreamDestroy(stream);
    }

    /// Waits for this worker's stream: polling it when it is the only worker
    /// (lowest latency: a traceback waits for hundreds of short launches, and
    /// cudaStreamSynchronize sleeps on an OS event under the blocking-sync
    /// flag that the batch engine gives the context), every 50 us after the
    /// first millisecond; sleeping when many share the host's cores.
    void wait(const std::string& what) {
        if (solo) {
            const auto t0 = std::chrono::steady_clock::now();
            cudaError_t q = cudaSuccess;
            while ((q = cudaStreamQuery(stream)) == cudaErrorNotReady)
                if (std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(1))
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
            GPUALIGN_CUDA(q, what);
            return;
        }
        GPUALIGN_CUDA(cudaEventRecord(ev_wait, stream), what);
        GPUALIGN_CUDA(cudaEventSynchronize(ev_wait), what);
    }

    /// Waits until a kernel of this worker's stream sets `*flag` (non-zero)
    /// in mapped pinned memory (RegionParams::launch_done,
    /// WalkState::finished), sleeping 20 us between reads and asking the
    /// stream for errors every millisecond. align_many's workers wait so, not
    /// on an event recorded after the kernel: with more workers than CUDA's
    /// hardware work queues, two streams share a queue, and a command that
    /// waits for a kernel holds back the other stream's commands queued
    /// behind it. Throws CudaError with the stream's error, std::logic_error
    /// when the stream ends without the flag.
    void poll(const unsigned int* flag, const std::string& what) {
        auto next_check = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
            std::this_thread::sleep_for(std::chrono::microseconds(20));
            if (std::chrono::steady_clock::now() < next_check) continue;
            next_check += std::chrono::milliseconds(1);
            const cudaError_t q = cudaStreamQuery(stream);
            if (q == cudaErrorNotReady) continue;
            GPUALIGN_CUDA(q, what);
            if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0)
                throw std::logic_error(what + ": the stream ended before the kernel signalled its end");
        }
    }

    /// The mapped pinned word that align_many's launches signal their end in.
    unsigned int* done_word() {
        done.ensure(1, true, "pinned launch-end flag", mem);
        return done.host;
    }

    /// Frees every device buffer (the next pair allocates again).
    void release_buffers() {
        for (DeviceBuffer* b : {&seqs, &arena, &arena_rest, &ring, &progress, &best, &dirs, &corner, &descs_dev, &peaks_dev})
            b->release(mem);
    }

    /// Sets this worker's share of the cap and its mode; frees buffers sized
    /// for another share.
    void configure(bool is_solo, std::size_t share) {
        if (share != limit || is_solo != solo) release_buffers();
        solo = is_solo;
        limit = share;
        const std::size_t budget = cx.options.ring_bytes ? cx.options.ring_bytes : long_tuning::ring_budget;
        ring_budget = std::min(budget, std::max<std::size_t>(share / 8, 1));
        // Leaves per speculative batch: up to LongEngineOptions::leaf_batch (or
        // the tuning table's), their direction bytes within a sixteenth of the share.
        const std::size_t most = cx.options.leaf_batch > 0 ? static_cast<std::size_t>(cx.options.leaf_batch)
                                 : (is_solo ? long_tuning::leaf_batch : long_tuning::leaf_batch_shared);
        // Leaves: beside other pairs, at most long_tuning::leaf_cells_shared
        // cells, batched in a band of at most leaf_band_shared.
        plan = cx.options.plan;
        if (!is_solo) {
            plan.leaf_cells = std::min<std::uint64_t>(plan.leaf_cells, long_tuning::leaf_cells_shared);
            plan.leaf_band = std::min(plan.leaf_band, long_tuning::leaf_band_shared);
        }
        leaf_batch_ = std::clamp<std::size_t>(share / 16 / std::max<std::uint64_t>(1, plan.leaf_cells), 1, most);
        // Tiles above the leaves: only a pair alone on the GPU has them
        // (align_many's pairs are cut straight into leaves).
        tile_batch_ = is_solo ? solo_tile_batch() : 1;
    }

    /// Tiles a tile batch of a pair alone takes with the current plan: the
    /// options' cap, else tile_batch_per_fan_out per row of the top-level grid.
    std::size_t solo_tile_batch() const {
        return cx.options.tile_batch > 0 ? static_cast<std::size_t>(cx.options.tile_batch)
                                         : long_tuning::tile_batch_per_fan_out * static_cast<std::size_t>(plan.fan_out);
    }

    /// Bytes outside the arena that a pair of m + n bases may need: the
    /// sequences, the rings, a leaf batch's direction bytes and small buffers.
    std::size_t others(std::size_t bases) const {
        return rounded(bases) + ring_budget + leaf_batch_ * plan.leaf_cells + (8u << 20);
    }
    /// The smallest arena a pair can use (the border and one coarse level).
    static std::size_t floor_bytes(std::size_t bases) { return rounded((bases + 2) * sizeof(BoundaryCell)) * 2; }

    void note_peak() { stats.peak_device_bytes = std::max(stats.peak_device_bytes, mem.bytes); }

    // ---- RegionBackend -------------------------------------------------------
    /// Device address of arena offset `off` (either part).
    BoundaryCell* arena_at(std::size_t off) const {
        return reinterpret_cast<BoundaryCell*>(off < arena.bytes ? static_cast<char*>(arena.ptr) + off
                                                                 : static_cast<char*>(arena_rest.ptr) + (off - arena.bytes));
    }
    /// Allocates the arena's rest (arena_rest_want bytes) if it is due: a
    /// device without room leaves it empty, and the allocations that would
    /// need it fail as the arena's end (coarser checkpoints, fewer tiles).
    void grow_arena() {
        if (arena_rest_want == 0) return;
        const std::size_t want = arena_rest_want;
        arena_rest_want = 0;
        try {
            arena_rest.ensure(want, "long engine checkpoint arena (rest)", mem);
        } catch (const std::bad_alloc&) {
        }
        note_peak();
    }
    BoundaryCell* allocate(std::size_t count) override {
        const std::size_t b = rounded(count * sizeof(BoundaryCell));
        std::size_t start = arena_top;
        if (start < arena.bytes && start + b > arena.bytes) {  // on into the rest (never across the parts)
            grow_arena();
            start = arena.bytes;
        }
        if (start + b > arena.bytes + arena_rest.bytes) throw std::bad_alloc();
        stack.push_back({arena_top, start});
        arena_top = start + b;
        note_peak();
        return arena_at(start);
    }
    void release(BoundaryCell* p) override {
        while (!stack.empty()) {
            const ArenaEntry e = stack.back();
            stack.pop_back();
            arena_top = e.below;
            if (arena_at(e.start) == p) return;
        }
    }
    /// Pinned host memory for one copy of `bytes` (so that it is a true DMA
    /// transfer, not the driver's staged pageable path): the worker's small
    /// buffer, or a buffer of the engine's staging pool held until this
    /// object ends. `size`: the bytes a chunk of the copy may take.
    struct Staging {
        StagingPool* pool = nullptr;
        std::uint8_t* p = nullptr;
        std::size_t size = 0;
        Staging(Worker& w, std::size_t bytes) {
            if (bytes <= long_tuning::small_copy_bytes) {
                w.small.ensure(long_tuning::small_copy_bytes, false, "pinned buffer for small copies", w.mem);
                p = w.small.host;
                size = long_tuning::small_copy_bytes;
            } else {
                pool = w.cx.staging;
                p = pool->take(w.mem);
                size = long_tuning::staging_bytes;
            }
        }
        Staging(const Staging&) = delete;
        Staging& operator=(const Staging&) = delete;
        ~Staging() {
            if (pool) pool->give(p);
        }
    };
    /// Copies host bytes to the device through pinned staging memory, in
    /// chunks, and waits.
    void upload_bytes(void* dst, const void* src, std::size_t bytes, const char* what) {
        const auto t0 = std::chrono::steady_clock::now();
        const Staging staged(*this, bytes);
        std::uint8_t* st = staged.p;
        for (std::size_t off = 0; off < bytes; off += staged.size) {
            const std::size_t b = std::min(bytes - off, staged.size);
            std::memcpy(st, static_cast<const char*>(src) + off, b);
            GPUALIGN_CUDA(cudaMemcpyAsync(static_cast<char*>(dst) + off, st, b, cudaMemcpyHostToDevice, stream), what);
            wait(what);
        }
        stats.copies_ms += ms_since(t0);
    }
    void upload(BoundaryCell* dst, std::span<const BoundaryCell> src) override {
        settle_pass();
        upload_bytes(dst, src.data(), src.size_bytes(), "border upload");
    }
    void fill_border(BoundaryCell* dst, std::int64_t len, bool free, std::int32_t gap_open,
                     std::int32_t gap_extend) override {
        settle_pass();
        detail::launch_border(reinterpret_cast<int2*>(dst), len + 1, free, gap_open, gap_extend, stream);
    }
    std::int64_t row_alignment() const override { return long_tuning::row_alignment; }
    std::uint8_t* dirs_buffer(std::size_t bytes) override {
        if (bytes > leaf_host_bytes) {
            free_pinned(leaf_host, mem);
            leaf_host_bytes = 0;
            alloc_pinned(leaf_host, bytes, "pinned buffer for a leaf's direction bytes", mem);
            leaf_host_bytes = bytes;
        }
        return leaf_host;
    }

    /// Copies device -> host on this worker's stream and waits (through the
    /// staging buffer unless `dst` is pinned already).
    void download(void* dst, const void* src, std::size_t bytes, const char* what, bool dst_pinned = false) {
        if (bytes == 0) return;
        const auto t0 = std::chrono::steady_clock::now();
        if (dst_pinned) {
            GPUALIGN_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream), what);
            wait(what);
            stats.copies_ms += ms_since(t0);
            return;
        }
        const Staging staged(*this, bytes);
        std::uint8_t* st = staged.p;
        for (std::size_t off = 0; off < bytes; off += staged.size) {
            const std::size_t b = std::min(bytes - off, staged.size);
            GPUALIGN_CUDA(cudaMemcpyAsync(st, static_cast<const char*>(src) + off, b, cudaMemcpyDeviceToHost, stream),
                          what);
            wait(what);
            std::memcpy(static_cast<char*>(dst) + off, st, b);
        }
        stats.copies_ms += ms_since(t0);
    }

    /// Copies `rows` rows of `cols` direction bytes from the device (row pitch
    /// `pitch`, long_kernels::dirs_pitch) to `dst` (row pitch `cols`) on this
    /// worker's stream and waits (through the staging buffer unless `dst` is pinned).
    void download_dirs(std::uint8_t* dst, const void* src, std::size_t pitch, std::size_t rows, std::size_t cols,
                       bool dst_pinned) {
        if (rows == 0 || cols == 0) return;
        const char* what = "direction bytes download";
        const auto t0 = std::chrono::steady_clock::now();
        if (dst_pinned) {
            GPUALIGN_CUDA(cudaMemcpy2DAsync(dst, cols, src, pitch, cols, rows, cudaMemcpyDeviceToHost, stream), what);
            wait(what);
            stats.copies_ms += ms_since(t0);
            return;
        }
        // Through staging memory, as many whole rows at a time as it holds
        // (a row wider than a staging buffer goes through the device's
        // pitched copy straight into `dst`'s pageable memory).
        const Staging staged(*this, std::min(rows * cols, long_tuning::staging_bytes));
        if (cols > staged.size) {
            GPUALIGN_CUDA(cudaMemcpy2DAsync(dst, cols, src, pitch, cols, rows, cudaMemcpyDeviceToHost, stream), what);
            wait(what);
            stats.copies_ms += ms_since(t0);
            return;
        }
        const std::size_t chunk_rows = staged.size / cols;
        std::uint8_t* st = staged.p;
        for (std::size_t r = 0; r < rows; r += chunk_rows) {
            const std::size_t n = std::min(rows - r, chunk_rows);
            GPUALIGN_CUDA(cudaMemcpy2DAsync(st, cols, static_cast<const char*>(src) + r * pitch, pitch, cols, n,
                                            cudaMemcpyDeviceToHost, stream),
                          what);
            wait(what);
            std::memcpy(dst + r * cols, st, n * cols);
        }
        stats.copies_ms += ms_since(t0);
    }

    /// Most co-resident blocks of this engine's kernel variant (mode, packed)
    /// with R rows per lane, with or without direction bytes.
    int max_blocks_for(int R, bool want_dirs) const {
        return cx.max_blocks[lane_rows_index(R)][static_cast<int>(cx.mode)][want_dirs];
    }

    /// Rows per lane of a launch over regions of `rows` rows, with or
    /// without direction bytes (32 rows a lane has no variant with them).
    int rows_per_lane(std::int64_t rows, bool want_dirs = false) const {
        const int R = cx.options.rows_per_lane ? cx.options.rows_per_lane : long_tuning::rows_per_lane(rows, cx.sms);
        // 32 rows a lane: no variant with direction bytes; local needs a spare
        // query code for the rows past a region's last (region_kernel.cuh, LaneKey).
        return R == 32 && (want_dirs || (cx.mode == AlignMode::local && !detail::region_has_spare_code(cx.scheme.size, cx.packed)))
                   ? 16
                   : R;
    }

    /// The launch fields every region launch shares.
    detail::RegionLaunch base_launch(bool want_dirs, int R) const {
        detail::RegionLaunch a{};
        a.query = dq;
        a.ref = dr;
        a.matrix = static_cast<const std::int32_t*>(cx.matrix);
        a.size = cx.scheme.size;
        a.gap_open = cx.scheme.gap_open;
        a.gap_extend = cx.scheme.gap_extend;
        a.mode = cx.mode;
        a.dirs = want_dirs;
        a.packed = cx.packed;
        a.rows_per_lane = R;
        return a;
    }

    /// Ring slots of whole rows of `cols` columns (ring_cols set) within the
    /// ring budget: at most `stripes`, at least 2 (1 when there is one stripe).
    int whole_row_slots(int ring_cols, int stripes) const {
        const std::size_t fit = ring_budget / ring_slot_bytes(static_cast<std::size_t>(ring_cols));
        return static_cast<int>(std::clamp<std::size_t>(fit, std::min(2, stripes), static_cast<std::size_t>(stripes)));
    }

    /// A launch of this worker's stream not yet waited for (run_launch with
    /// `defer`): settle_pass waits for it and counts it.
    struct PendingPass {
        bool active = false;
        std::string what;
        std::uint64_t cells = 0;
        std::chrono::steady_clock::time_point t0;
    };
    PendingPass pending_pass;

    /// Waits for the launch run_launch left pending, if any (a deferred one,
    /// or its own just before it returns), and adds its device time (its
    /// events) to the statistics. Every method that launches or reads what
    /// a launch wrote calls it first (the pinned descriptors are reused).
    void settle_pass() {
        if (!pending_pass.active) return;
        pending_pass.active = false;
        wait(pending_pass.what);
        GPUALIGN_CUDA(cudaEventSynchronize(ev_stop), pending_pass.what);
        float event_ms = 0;
        GPUALIGN_CUDA(cudaEventElapsedTime(&event_ms, ev_start, ev_stop), "region timing");
        count_pass(event_ms, pending_pass.cells, pending_pass.t0);
    }

    /// Adds a launch of `cells` cells and `ms` of device time, run_launch'ed
    /// at t0, to the statistics.
    void count_pass(double ms, std::uint64_t cells, std::chrono::steady_clock::time_point t0) {
        stats.total_ms += ms;
        stats.total_cells += cells;
        ++stats.passes;
        if (first_pass) stats.forward_ms = ms;
        first_pass = false;
        stats.launches_ms += ms_since(t0);
    }

    /// Launches `a` over descs (stripe_begin set), waits (reporting progress
    /// for large launches), and adds the device time to the statistics.
    /// With `defer` (a solo worker's leaf batch, no progress) it returns once
    /// the kernel is queued, and settle_pass waits: the driver replays the
    /// last walk meanwhile, and the walk's kernel queues behind it.
    void run_launch(detail::RegionLaunch& a, std::vector<long_kernels::RegionDesc>& descs, std::uint64_t cells,
                    const std::function<void(std::uint64_t)>& on_cells, std::size_t warps, bool defer = false) {
        settle_pass();
        const auto t0 = std::chrono::steady_clock::now();
        descs_dev.ensure(sizeof(long_kernels::RegionDesc) * descs.size(), "region descriptors", mem);
        // The descriptors go through pinned memory of the worker's (copied
        // in-stream before the kernel; nothing else uses it until the wait below).
        descs_host.ensure(descs.size(), false, "pinned region descriptors", mem);
        std::memcpy(descs_host.host, descs.data(), sizeof(long_kernels::RegionDesc) * descs.size());
        a.regions_host = descs_host.host;
        a.regions_dev = static_cast<long_kernels::RegionDesc*>(descs_dev.ptr);
        a.count = static_cast<int>(descs.size());
        ring.ensure(detail::region_ring_bytes(a), "long engine rings", mem);
        a.ring = ring.ptr;
        progress.ensure(sizeof(int) * (static_cast<std::size_t>(a.stripes) + 2), "long engine progress flags", mem);
        a.progress = static_cast<int*>(progress.ptr);
        const bool report = solo && on_cells && cells >= long_tuning::progress_min_cells;
        if (report) {
            if (!cells_host) {  // one counter per warp of the largest grid (a later launch may have more warps)
                alloc_mapped(cells_host, cells_dev, static_cast<std::size_t>(cx.max_warps),
                             "long engine progress counters", mem);
            }
            std::fill(cells_host, cells_host + warps, 0ull);
        }
        a.cells_done = report ? cells_dev : nullptr;
        note_peak();

        // align_many's workers: the kernel signals its end in mapped memory
        // (poll), with no event recorded after it; their device time is the
        // host's, launch to end.
        const bool polled = !solo;
        a.launch_done = nullptr;
        if (polled) {
            __atomic_store_n(done_word(), 0u, __ATOMIC_RELEASE);
            a.launch_done = done.dev;
        }
        const auto t_launch = std::chrono::steady_clock::now();
        if (!polled) GPUALIGN_CUDA(cudaEventRecord(ev_start, stream), "region start event");
        detail::launch_region(a, stream);
        if (!polled) GPUALIGN_CUDA(cudaEventRecord(ev_stop, stream), "region stop event");
        grow_arena();  // (the forward pass's launch: the arena's rest while it runs)
        if (report) {
            // Poll every millisecond (a region ends within a millisecond of
            // its kernel, not at the next report) and report every 100 ms.
            auto next_report = std::chrono::steady_clock::now();
            while (true) {
                const cudaError_t q = cudaEventQuery(ev_stop);
                if (q != cudaErrorNotReady) {
                    GPUALIGN_CUDA(q, "region kernel");
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                if (std::chrono::steady_clock::now() < next_report) continue;
                next_report += std::chrono::milliseconds(100);
                std::uint64_t sum = 0;
                for (std::size_t w = 0; w < warps; ++w) sum += reinterpret_cast<volatile unsigned long long*>(cells_host)[w];
                on_cells(sum);
            }
        }
        const std::string what =
            "region kernel (" + std::to_string(descs.size()) + " region(s), " + std::to_string(cells) + " cells)";
        if (polled) {
            poll(done.host, what);
            count_pass(ms_since(t_launch), cells, t0);
            return;
        }
        pending_pass = {true, what, cells, t0};
        if (!defer || report) settle_pass();  // else the next call that needs it waits
    }

    static long_kernels::RegionDesc desc_of(const Region& reg) {
        long_kernels::RegionDesc d{};
        d.i0 = reg.i0;
        d.j0 = reg.j0;
        d.rows = static_cast<int>(reg.rows);
        d.cols = static_cast<int>(reg.cols);
        d.top = reinterpret_cast<const int2*>(reg.top);
        d.left = reinterpret_cast<const int2*>(reg.left);
        return d;
    }

    static void check_size(const Region& reg) {
        if (reg.rows > std::numeric_limits<int>::max() / 2 || reg.cols > std::numeric_limits<int>::max() / 2)
            throw std::length_error("region of " + std::to_string(reg.rows) + " x " + std::to_string(reg.cols) +
                                    " cells exceeds the kernel's 32-bit indices");
    }

    RegionResult compute(const Region& reg, const RegionOutputs& out,
                         const std::function<void(std::uint64_t)>& on_cells) override {
        const bool forward = first_pass;
        WindowedResult res = compute_region(reg, out, on_cells, rows_per_lane(reg.rows, out.dirs != nullptr));
        if (res.best_w > 0) {
            const double ms_before = stats.total_ms;
            locate_best(reg, out, res);
            stats.locate_ms += stats.total_ms - ms_before;
            if (forward) stats.forward_ms += stats.total_ms - ms_before;
        }
        return res;
    }

    /// What compute_region reports: RegionResult, and for the windowed local
    /// forward (region_kernel.cuh) the first column the best cell may be in
    /// (best_j is then the last; 0 = best_j is exact) and, at 32 rows a lane
    /// (the lane key), the last row it may be in (best_i is then the first;
    /// 0 = best_i is exact).
    struct WindowedResult : RegionResult {
        std::int64_t best_w = 0;
        std::int64_t best_i_last = 0;
    };

    /// The windowed local forward gives the best cell's H exactly, its row
    /// exactly (R = 16) or as the rows [best_i, best_i_last] of one lane (R =
    /// 32), and its column as a window [best_w, best_j] of at most 32 columns
    /// (R = 32, when a later chunk of the lane tied the key: on to the
    /// region's last column). No cell above those rows reaches that H, nor
    /// any left of the window in them, nor (R = 32, untied) any right of the
    /// window in them, so the cell is the canonical best (max H, smallest
    /// row, smallest column) of the sub-region from the checkpoint row above
    /// it and the checkpoint column left of the window (or the region's
    /// borders) to (the last row, best_j): one exact launch (4 rows a lane, a
    /// column per cell) over at most row_stride x (col_stride + 32) cells
    /// (untied), whose borders are the exact values the forward pass saved.
    /// @throws std::logic_error when the sub-region disagrees (a kernel bug).
    void locate_best(const Region& reg, const RegionOutputs& out, WindowedResult& res) {
        const std::int64_t i_last = res.best_i_last > 0 ? res.best_i_last : res.best_i;
        const std::int64_t ir = i_last - reg.i0, ja = res.best_w - reg.j0, jb = res.best_j - reg.j0;
        const std::int64_t r0 = out.row_stride > 0 && out.row_out ? (ir - 1) / out.row_stride * out.row_stride : 0;
        const std::int64_t c0 = out.col_stride > 0 && out.col_out ? (ja - 1) / out.col_stride * out.col_stride : 0;
        const BoundaryCell* top = r0 == 0 ? reg.top : out.row_out + (r0 / out.row_stride - 1) * (reg.cols + 1);
        const BoundaryCell* left = c0 == 0 ? reg.left : out.col_out + (c0 / out.col_stride - 1) * (reg.rows + 1);
        Region sub;
        sub.i0 = reg.i0 + r0;
        sub.j0 = reg.j0 + c0;
        sub.rows = ir - r0;
        sub.cols = jb - c0;
        sub.top = top + c0;
        sub.left = left + r0;
        RegionOutputs want;
        want.want_best = true;
        const WindowedResult found = compute_region(sub, want, {}, 4);
        if (found.best != res.best || found.best_i < res.best_i || found.best_i > i_last || found.best_j < res.best_w ||
            found.best_j > res.best_j)
            throw std::logic_error("long engine: the local best cell (H " + std::to_string(res.best) + ", row " +
                                   std::to_string(res.best_i) + ".." + std::to_string(i_last) + ", columns " +
                                   std::to_string(res.best_w) + ".." +
                                   std::to_string(res.best_j) + ") is not where its window says (found H " +
                                   std::to_string(found.best) + " at " + std::to_string(found.best_i) + ", " +
                                   std::to_string(found.best_j) + ")");
        res.best_i = found.best_i;
        res.best_j = found.best_j;
        res.best_w = 0;
        res.best_i_last = 0;
    }

    /// One launch over `reg` with R rows per lane.
    WindowedResult compute_region(const Region& reg, const RegionOutputs& out,
                                  const std::function<void(std::uint64_t)>& on_cells, int R) {
        check_size(reg);
        const bool want_dirs = out.dirs != nullptr;
        const int rows = static_cast<int>(reg.rows), cols = static_cast<int>(reg.cols);
        const int stripes = (rows + 32 * R - 1) / (32 * R);
        const int warps_per_block = detail::region_block_threads() / 32;
        int blocks = std::min(max_blocks_for(R, want_dirs), (stripes + warps_per_block - 1) / warps_per_block);
        if (cx.options.max_blocks > 0) blocks = std::min(blocks, cx.options.max_blocks);
        std::size_t ring_cols = whole_row_ring_cols(static_cast<std::size_t>(cols));
        int slots = whole_row_slots(static_cast<int>(ring_cols), stripes);
        bool flow = false;
        if (solo && (stripes > 1 && static_cast<std::size_t>(slots) < std::min<std::size_t>(
                                                                           static_cast<std::size_t>(stripes), 2u * blocks * warps_per_block))) {
            // Rings narrower than the region, two per warp, flow-controlled:
            // wide enough that producers cannot close a cycle of waits
            // (cols < warps * (ring_cols - 64)), within the ring budget.
            while (true) {
                const std::size_t warps = static_cast<std::size_t>(blocks) * warps_per_block;
                ring_cols = std::min(whole_row_ring_cols(static_cast<std::size_t>(cols)),
                                     next_pow2(std::max<std::size_t>(long_tuning::min_ring_cols, cols / warps + 128)));
                if (warps * 2 * ring_slot_bytes(ring_cols) <= ring_budget || blocks == 1) break;
                blocks = std::max(1, blocks / 2);
            }
            slots = 2 * blocks * warps_per_block;
            flow = ring_cols < static_cast<std::size_t>(cols) + 64;
        }
        if (!solo && slots < std::min(2, stripes))
            throw std::logic_error("long engine worker: rows of " + std::to_string(cols) + " columns do not fit its rings");
        const std::size_t warps = static_cast<std::size_t>(blocks) * warps_per_block;
        if (cx.mode != AlignMode::global) best.ensure(16 * static_cast<std::size_t>(stripes), "long engine stripe bests", mem);
        corner.ensure(sizeof(int), "long engine corner", mem);
        const std::size_t pitch = static_cast<std::size_t>(long_kernels::dirs_pitch(cols));
        if (want_dirs) dirs.ensure(static_cast<std::size_t>(rows) * pitch, "long engine direction bytes", mem);

        std::vector<long_kernels::RegionDesc> descs{desc_of(reg)};
        long_kernels::RegionDesc& d = descs[0];
        d.row_stride = static_cast<int>(out.row_stride);
        d.row_out = reinterpret_cast<int2*>(out.row_out);
        d.col_stride = static_cast<int>(out.col_stride);
        d.col_out = reinterpret_cast<int2*>(out.col_out);
        d.dirs = want_dirs ? static_cast<std::uint8_t*>(dirs.ptr) : nullptr;
        d.stripe_best = static_cast<int4*>(best.ptr);
        d.corner = static_cast<int*>(corner.ptr);
        d.stripe_begin = 0;
        d.stripes = stripes;
        detail::RegionLaunch a = base_launch(want_dirs, R);
        a.stripes = stripes;
        a.ring_cols = static_cast<int>(ring_cols);
        a.ring_slots = slots;
        a.flow_control = flow;
        a.blocks = blocks;
        run_launch(a, descs, static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols), on_cells, warps);

        WindowedResult res;
        if (want_dirs) download_dirs(out.dirs, dirs.ptr, pitch, rows, cols, out.dirs == leaf_host);
        download(&res.corner_h, corner.ptr, sizeof(int), "corner download");
        if (out.want_best) read_best(reg, stripes, R, res);
        return res;
    }

    /// RegionResult::best of the region just computed (checkpoint_traceback.hpp),
    /// from its stripe bests (RegionDesc::stripe_best): local, the canonical
    /// best over the stripes; semi-global, the last stripe's entry (the best
    /// of the region's last row); global, none. A windowed local entry
    /// (w > 0) leaves its column's window in res.best_w..best_j, and at R =
    /// 32 rows a lane its rows' in res.best_i..best_i_last (rows are disjoint
    /// across stripes and lanes, so H and first row alone pick the stripe).
    void read_best(const Region& reg, int stripes, int R, WindowedResult& res) {
        if (cx.mode == AlignMode::semi_global) {
            int sb[4] = {};
            download(sb, static_cast<const int*>(best.ptr) + 4 * static_cast<std::size_t>(stripes - 1), sizeof sb,
                     "last-row best download");
            res.best = sb[0];
            res.best_i = reg.i0 + sb[1];
            res.best_j = reg.j0 + sb[2];
        } else if (cx.mode == AlignMode::local) {
            std::vector<int> sb(4 * static_cast<std::size_t>(stripes));
            download(sb.data(), best.ptr, sb.size() * sizeof(int), "stripe bests download");
            for (int s = 0; s < stripes; ++s) {  // stripes in row order: a strictly better one wins
                const int h = sb[4 * s], i = sb[4 * s + 1], j = sb[4 * s + 2], w = sb[4 * s + 3];
                if (h > res.best || (h == res.best && h > 0 && (reg.i0 + i < res.best_i ||
                                                               (reg.i0 + i == res.best_i && reg.j0 + j < res.best_j)))) {
                    res.best = h;
                    res.best_i = reg.i0 + i;
                    res.best_j = reg.j0 + j;
                    res.best_w = w > 0 ? reg.j0 + w : 0;
                    res.best_i_last = w > 0 && R == 32 ? reg.i0 + std::min<std::int64_t>(i + R - 1, reg.rows) : 0;
                }
            }
        }
    }

    // ---- speculative leaves: one launch computes a batch ----------------------
    std::size_t leaf_batch() const override { return leaf_batch_; }

    void compute_leaves(std::span<const Region> leaves) override {
        std::vector<long_kernels::RegionDesc> descs;
        descs.reserve(leaves.size());
        leaf_offsets.clear();
        leaf_pitch.clear();
        leaf_width.clear();
        std::size_t dir_bytes = 0;
        int stripes = 0, max_cols = 0;
        std::uint64_t cells = 0;
        // Rows per lane: 4 (a 1024-row leaf is 8 stripes; 16 rows per lane was
        // slower on bulk pairs too: 164 against 192 GCUPS with CIGAR, H100).
        constexpr int R = 4;
        for (const Region& reg : leaves) {
            check_size(reg);
            long_kernels::RegionDesc d = desc_of(reg);
            d.stripe_begin = stripes;
            d.stripes = (d.rows + 32 * R - 1) / (32 * R);
            stripes += d.stripes;
            max_cols = std::max(max_cols, d.cols);
            const std::size_t pitch = static_cast<std::size_t>(long_kernels::dirs_pitch(d.cols));
            leaf_offsets.push_back({dir_bytes, static_cast<std::size_t>(d.rows) * pitch});
            leaf_pitch.push_back(pitch);
            leaf_width.push_back(static_cast<std::size_t>(d.cols));
            dir_bytes += (leaf_offsets.back().second + 255) / 256 * 256;
            cells += static_cast<std::uint64_t>(d.rows) * static_cast<std::uint64_t>(d.cols);
            descs.push_back(d);
        }
        dirs.ensure(dir_bytes, "long engine direction bytes (leaf batch)", mem);
        corner.ensure(sizeof(int), "long engine corner", mem);
        for (std::size_t k = 0; k < descs.size(); ++k) {
            descs[k].dirs = static_cast<std::uint8_t*>(dirs.ptr) + leaf_offsets[k].first;
            descs[k].corner = static_cast<int*>(corner.ptr);
        }
        const int warps_per_block = detail::region_block_threads() / 32;
        int blocks = std::min(max_blocks_for(R, true), (stripes + warps_per_block - 1) / warps_per_block);
        if (cx.options.max_blocks > 0) blocks = std::min(blocks, cx.options.max_blocks);
        detail::RegionLaunch a = base_launch(true, R);
        a.stripes = stripes;
        a.ring_cols = static_cast<int>(whole_row_ring_cols(static_cast<std::size_t>(max_cols)));
        a.ring_slots = whole_row_slots(a.ring_cols, stripes);  // whole rows: no flow control
        a.flow_control = false;
        a.blocks = blocks;
        run_launch(a, descs, cells, {}, static_cast<std::size_t>(blocks) * warps_per_block, walks_leaves());
        leaf_count = static_cast<int>(descs.size());
    }

    // ---- the walk through a leaf batch, on the device ------------------------
    bool walks_leaves() const override { return !cx.options.walk_on_host; }

    /// Bytes for the walk's steps when `steps` steps are left (each moves i
    /// or j down): room for them and one window, within 64 MiB and at least
    /// 64 KiB; an align_many worker's walk, which covers one leaf batch,
    /// long_tuning::walk_steps_shared. A longer path takes several calls.
    std::size_t walk_bytes(std::size_t steps) const {
        if (!solo) return long_tuning::walk_steps_shared;
        const std::size_t window = static_cast<std::size_t>(long_kernels::walk_window_steps);
        return std::max(std::min<std::size_t>(steps + window + 1, std::size_t{64} << 20), std::size_t{1} << 16);
    }

    /// The walk's mapped pinned buffers: its cursor and its steps
    /// (walk_bytes), their allocations counted in `m`.
    void ensure_walk_buffers(std::size_t steps, DeviceMemory& m) {
        walk_steps.ensure(walk_bytes(steps), true, "pinned buffer for the leaf walk's steps", m);
        walk_out.ensure(1, true, "pinned leaf walk cursor", m);
    }

    /// Waits for reserve_walk_async's allocation, if one was started, and
    /// counts its time (rethrows its error).
    void take_walk_alloc() {
        if (!walk_alloc.valid()) return;
        const DeviceMemory side = walk_alloc.get();
        mem.pinned_ms += side.pinned_ms;
        mem.pinned += side.pinned;
    }

    /// The walk's buffers for `steps` steps left, allocated here unless
    /// reserve_walk_async did while the forward pass ran.
    void reserve_walk(std::size_t steps) {
        take_walk_alloc();
        ensure_walk_buffers(steps, mem);
    }

    /// Starts allocating the walk's buffers for a pair of `steps` = m + n
    /// bases on a thread of its own (a 1 Mbp pair's take about 10 ms of
    /// cudaHostAlloc), to be taken by reserve_walk: align() calls it before
    /// the forward pass of a pair whose traceback walks leaves.
    void reserve_walk_async(std::size_t steps) {
        if (walk_alloc.valid() || (walk_out.host && walk_steps.count >= walk_bytes(steps))) return;
        walk_alloc = std::async(std::launch::async, [this, steps] {
            DeviceMemory side;
            GPUALIGN_CUDA(cudaSetDevice(cx.device), "long engine, device " + std::to_string(cx.device));
            ensure_walk_buffers(steps, side);
            return side;
        });
    }

    /// Descriptors of this worker's largest launch (a leaf or tile batch).
    std::size_t max_descs() const { return std::max<std::size_t>({leaf_batch_, tile_batch_, 1}); }

    /// Whether this worker's pinned host buffers serve pairs of up to
    /// `steps` = m + n bases without growing.
    bool host_ready(std::size_t steps) const {
        return done.host && small.host && descs_host.count >= max_descs() &&
               (!walks_leaves() || (walk_out.host && walk_steps.count >= walk_bytes(steps)));
    }

    /// Lays this worker's pinned host buffers (launch-end flag, walk cursor
    /// and steps, small copies, descriptors; sized for pairs of up to
    /// `steps` = m + n bases) out in a slab part at host `h`, device view
    /// `d`, and returns the part's bytes; with `h` null only the bytes.
    std::size_t lay_out(std::size_t steps, std::uint8_t* h, std::uint8_t* d) {
        std::size_t off = 0;
        auto place = [&](auto& buffer, std::size_t count) {
            using T = std::remove_reference_t<decltype(*buffer.host)>;
            if (h) buffer.adopt(reinterpret_cast<T*>(h + off), reinterpret_cast<T*>(d + off), count, mem);
            off += (count * sizeof(T) + 255) / 256 * 256;
        };
        place(done, 1);
        place(small, long_tuning::small_copy_bytes);
        place(descs_host, max_descs());
        if (walks_leaves()) {
            place(walk_out, 1);
            place(walk_steps, walk_bytes(steps));
        }
        return off;
    }

    /// One warp walks the batch in device memory (leaf_walk_kernel.cuh) and
    /// writes its steps and cursor into mapped pinned host memory: no
    /// direction byte crosses the bus, and one wait serves the whole batch.
    std::span<const std::uint8_t> walk_leaves(WalkCursor& cur) override {
        reserve_walk(static_cast<std::size_t>(cur.i + cur.j));  // every step left
        long_kernels::WalkParams p{};
        p.leaves = static_cast<const long_kernels::RegionDesc*>(descs_dev.ptr);
        p.count = leaf_count;
        p.i = cur.i;
        p.j = cur.j;
        p.state = cur.state;
        p.local = cx.mode == AlignMode::local;
        p.capacity = static_cast<int>(walk_steps.count);
        p.steps = walk_steps.dev;
        p.out = walk_out.dev;
        const char* what = "leaf walk kernel";
        const auto t0 = std::chrono::steady_clock::now();
        walk_out.host->finished = 0;
        detail::launch_leaf_walk(p, stream);  // behind the leaf batch, if compute_leaves deferred its wait
        if (solo)
            wait(what);
        else
            poll(&walk_out.host->finished, what);  // no command after the kernel (see poll)
        settle_pass();  // done by now: counts the leaf batch
        stats.walks_ms += ms_since(t0);
        const long_kernels::WalkState out = *walk_out.host;  // written by the kernel, complete after the wait
        cur.i = out.i;
        cur.j = out.j;
        cur.state = static_cast<std::uint8_t>(out.state);
        cur.done = out.done != 0;
        return {walk_steps.host, static_cast<std::size_t>(out.steps)};
    }

    /// The rows' peaks on the device (detail::launch_row_peaks: one arg-max
    /// of CUB over the rows, each a segment of the arena), in chunks of as
    /// many rows as a staging buffer holds: the offsets go up and the peaks
    /// come down through pinned staging memory (Staging: the worker's small
    /// buffer for the few rows of a pair cut straight into leaves, so that
    /// align_many's workers pin nothing after prepare()). False, with no
    /// peaks, when LongEngineOptions::row_peaks is off, for a row outside the
    /// arena, or when the device has no room for the offsets and CUB's
    /// storage (the guess is then a straight line).
    bool row_peaks(std::span<const CellRow> rows, std::span<RowPeak> peaks) override {
        if (!cx.options.row_peaks) return false;
        settle_pass();
        const std::size_t n = rows.size();
        if (n == 0) return true;
        const auto t0 = std::chrono::steady_clock::now();
        // Each row lies in one part of the arena; one pass of CUB a part.
        const DeviceBuffer* parts[2] = {&arena, &arena_rest};
        std::vector<std::size_t> in_part[2];
        for (std::size_t k = 0; k < n; ++k) {
            bool found = false;
            for (int q = 0; q < 2 && !found; ++q) {
                const auto lo = reinterpret_cast<std::uintptr_t>(parts[q]->ptr);
                const auto at = reinterpret_cast<std::uintptr_t>(rows[k].cells);
                const auto bytes = static_cast<std::uintptr_t>(rows[k].count) * sizeof(BoundaryCell);
                if (lo != 0 && rows[k].count > 0 && at >= lo && at - lo + bytes <= parts[q]->bytes) {
                    in_part[q].push_back(k);
                    found = true;
                }
            }
            if (!found) return false;
        }
        for (int q = 0; q < 2; ++q)
            if (!in_part[q].empty() &&
                !row_peaks_in(static_cast<const BoundaryCell*>(parts[q]->ptr), rows, in_part[q], peaks))
                return false;
        stats.walks_ms += ms_since(t0);
        return true;
    }

    /// row_peaks of rows[k] for k in `which`, all in the arena part at `base`.
    bool row_peaks_in(const BoundaryCell* base, std::span<const CellRow> rows, const std::vector<std::size_t>& which,
                      std::span<RowPeak> peaks) {
        const std::size_t n = which.size();
        constexpr std::size_t per_row = 3 * sizeof(std::int64_t);  // begin and end up, {index, H} down
        const std::size_t most = std::min(n, long_tuning::staging_bytes / per_row);
        const std::size_t offsets = rounded(2 * most * sizeof(std::int64_t)), found = rounded(most * sizeof(int2));
        const std::size_t temp = std::max(detail::row_peaks_temp_bytes(static_cast<std::int64_t>(most)),
                                          detail::row_peaks_temp_bytes(static_cast<std::int64_t>(n % most)));
        try {
            peaks_dev.ensure(offsets + found + temp, "long engine row peaks", mem);
        } catch (const std::bad_alloc&) {
            return false;
        }
        note_peak();
        auto* dev = static_cast<std::uint8_t*>(peaks_dev.ptr);
        auto* begin_dev = reinterpret_cast<std::int64_t*>(dev);
        auto* out_dev = reinterpret_cast<int2*>(dev + offsets);
        const Staging staged(*this, most * per_row);
        auto* up = reinterpret_cast<std::int64_t*>(staged.p);
        const char* what = "row peaks";
        for (std::size_t first = 0; first < n; first += most) {
            const std::size_t c = std::min(most, n - first);
            for (std::size_t k = 0; k < c; ++k) {
                const CellRow& row = rows[which[first + k]];
                up[k] = row.cells - base;
                up[c + k] = up[k] + row.count;
            }
            GPUALIGN_CUDA(cudaMemcpyAsync(begin_dev, up, 2 * c * sizeof(std::int64_t), cudaMemcpyHostToDevice, stream),
                          what);
            detail::launch_row_peaks(reinterpret_cast<const int2*>(base), begin_dev, begin_dev + c,
                                     static_cast<std::int64_t>(c), out_dev, dev + offsets + found, temp, stream);
            auto* down = reinterpret_cast<int2*>(up + 2 * c);
            GPUALIGN_CUDA(cudaMemcpyAsync(down, out_dev, c * sizeof(int2), cudaMemcpyDeviceToHost, stream), what);
            wait(what);
            for (std::size_t k = 0; k < c; ++k) peaks[which[first + k]] = {down[k].x, down[k].y};
        }
        return true;
    }

    // ---- speculative tiles above the leaves: one launch computes a batch -----
    std::size_t tile_batch() const override { return tile_batch_; }

    /// Every tile of the batch in one ordinary launch (whole-row rings, no
    /// flow control), each writing its own checkpoint grid.
    void compute_tiles(std::span<const Region> tiles, std::span<const RegionOutputs> outs) override {
        // Rows per lane for the batch's rows in all, as for one region of
        // that many (long_tuning::rows_per_lane): a batch of tiles keeps every
        // SM busy as a tall region does, and a short edge tile (the bottom row
        // of a grid) must not hold the others to 4 rows a lane. The 1 Mbp
        // pair's batch of 165 tiles of 16 K rows (H100, session 22): R = 4
        // 59 ms, R = 16 31.6 ms, R = 32 27.4 ms.
        std::int64_t all_rows = 0;
        for (const Region& reg : tiles) all_rows += reg.rows;
        const int R = rows_per_lane(all_rows);
        std::vector<long_kernels::RegionDesc> descs;
        descs.reserve(tiles.size());
        int stripes = 0, max_cols = 0;
        std::uint64_t cells = 0;
        corner.ensure(sizeof(int), "long engine corner", mem);
        for (std::size_t k = 0; k < tiles.size(); ++k) {
            const Region& reg = tiles[k];
            check_size(reg);
            long_kernels::RegionDesc d = desc_of(reg);
            d.row_stride = static_cast<int>(outs[k].row_stride);
            d.row_out = reinterpret_cast<int2*>(outs[k].row_out);
            d.col_stride = static_cast<int>(outs[k].col_stride);
            d.col_out = reinterpret_cast<int2*>(outs[k].col_out);
            d.corner = static_cast<int*>(corner.ptr);
            d.stripe_begin = stripes;
            d.stripes = (d.rows + 32 * R - 1) / (32 * R);
            stripes += d.stripes;
            max_cols = std::max(max_cols, d.cols);
            cells += static_cast<std::uint64_t>(d.rows) * static_cast<std::uint64_t>(d.cols);
            descs.push_back(d);
        }
        const int warps_per_block = detail::region_block_threads() / 32;
        int blocks = std::min(max_blocks_for(R, false), (stripes + warps_per_block - 1) / warps_per_block);
        if (cx.options.max_blocks > 0) blocks = std::min(blocks, cx.options.max_blocks);
        const std::size_t warps = static_cast<std::size_t>(blocks) * warps_per_block;
        detail::RegionLaunch a = base_launch(false, R);
        a.stripes = stripes;
        a.ring_cols = static_cast<int>(whole_row_ring_cols(static_cast<std::size_t>(max_cols)));
        // A slot per resident warp where the tile ring budget allows (a stripe
        // whose slot is still being read waits).
        const std::size_t fit = std::max(tile_ring_budget, ring_budget) / ring_slot_bytes(static_cast<std::size_t>(a.ring_cols));
        a.ring_slots = static_cast<int>(
            std::clamp<std::size_t>(std::min(fit, warps), std::min(2, stripes), static_cast<std::size_t>(stripes)));
        a.flow_control = false;
        a.blocks = blocks;
        run_launch(a, descs, cells, {}, warps);
    }

    /// Arena bytes for a batch of level-1 tiles' checkpoint grids (see
    /// compute_tiles): 0 when the pair's top level is cut straight into
    /// leaves. Each tile is about (m / fan_out) x (n / fan_out); its grid is
    /// cut into leaves when that takes at most direct_leaf_bytes, else into
    /// fan_out x fan_out tiles.
    std::size_t tile_batch_bytes(std::size_t m, std::size_t n) const {
        const double side = std::sqrt(static_cast<double>(plan.leaf_cells));
        auto direct = [&](double r, double c) { return 8.0 * (r / side * c + c / side * r); };
        if (tile_batch_ <= 1 || direct(static_cast<double>(m), static_cast<double>(n)) <= static_cast<double>(plan.direct_leaf_bytes))
            return 0;
        const double tr = static_cast<double>(m) / plan.fan_out, tc = static_cast<double>(n) / plan.fan_out;
        const double d = direct(tr, tc);
        const double per = d <= static_cast<double>(plan.direct_leaf_bytes) ? d : 8.0 * plan.fan_out * (tr + tc);
        return static_cast<std::size_t>(per * 1.05 + alloc_granule) * tile_batch_;
    }

    /// Downloads only the part of leaf k up-left of the walk's entry (rows x
    /// cols of its row-major bytes), into the pinned leaf buffer at the
    /// leaf's own width as the row pitch (the device rows are padded to
    /// long_kernels::dirs_pitch).
    const std::uint8_t* leaf_dirs(std::size_t k, std::int64_t rows, std::int64_t cols) override {
        settle_pass();
        const auto [offset, bytes] = leaf_offsets.at(k);
        const std::size_t pitch = leaf_pitch.at(k), width = leaf_width.at(k);
        std::uint8_t* host = dirs_buffer(bytes);
        if (rows <= 0 || cols <= 0) return host;
        const char* what = "leaf direction bytes download";
        const auto t0 = std::chrono::steady_clock::now();
        GPUALIGN_CUDA(cudaMemcpy2DAsync(host, width, static_cast<std::uint8_t*>(dirs.ptr) + offset, pitch,
                                        static_cast<std::size_t>(cols), static_cast<std::size_t>(rows),
                                        cudaMemcpyDeviceToHost, stream),
                      what);
        wait(what);
        stats.walks_ms += ms_since(t0);
        return host;
    }

    /// Aligns one pair within this worker's share (LongEngine::align).
    AlignmentResult align(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                          const ProgressCallback& progress_cb) {
        const auto t0 = std::chrono::steady_clock::now();
        stats = {};
        const DeviceMemory mem0 = mem;
        first_pass = true;
        stats.forward_cells = static_cast<std::uint64_t>(query.size()) * ref.size();
        if (!fits_int32(cx.scheme, query.size(), ref.size()))
            throw std::length_error("pair of lengths " + std::to_string(query.size()) + " x " +
                                    std::to_string(ref.size()) + " could overflow 32-bit scores");
        GPUALIGN_CUDA(cudaSetDevice(cx.device), "long engine, device " + std::to_string(cx.device));
        const std::size_t m = query.size(), n = ref.size();
        if (solo) {  // a large pair alone: a finer top-level grid (long_tuning::solo_fan_out)
            plan.fan_out = long_tuning::solo_fan_out(static_cast<std::int64_t>(m), static_cast<std::int64_t>(n),
                                                     cx.options.plan.fan_out);
            plan.leaf_cells = cx.options.plan.leaf_cells;
            plan.leaf_band = cx.options.plan.leaf_band;
            tile_batch_ = solo_tile_batch();
            // Tiles above the leaves: smaller leaves in a narrower band
            // (long_tuning::leaf_cells_tiled).
            if (tile_batch_bytes(m, n) > 0) {
                plan.leaf_cells = std::min(plan.leaf_cells, long_tuning::leaf_cells_tiled);
                plan.leaf_band = std::min(plan.leaf_band, long_tuning::leaf_band_tiled);
            }
        }
        // The arena holds the borders and every level's checkpoints; the rest
        // of the share goes to the sequences, rings and a leaf batch.
        const std::size_t rest = others(m + n), floor_b = floor_bytes(m + n);
        const std::size_t want =
            (m + n + 2) * sizeof(BoundaryCell) * (2 * static_cast<std::size_t>(plan.fan_out) + 4) +
            (64u << 20) + tile_batch_bytes(m, n);
        if (limit < rest + floor_b)
            throw std::length_error("pair of lengths " + std::to_string(m) + " x " + std::to_string(n) +
                                    " needs at least " + std::to_string((rest + floor_b) >> 20) +
                                    " MiB of GPU memory for the long engine; the cap is " +
                                    std::to_string(limit >> 20) + " MiB");
        // A pair with tiles above the leaves gets rings of up to a slot per
        // warp for its tile batches (compute_tiles), where the cap allows.
        tile_ring_budget = ring_budget;
        std::size_t extra_ring = 0;
        if (tile_batch_bytes(m, n) > 0 && cx.options.ring_bytes == 0) {
            const std::size_t r = std::min(long_tuning::tile_ring_budget, limit / 8);
            if (r > ring_budget && limit >= rest + floor_b + (r - ring_budget)) {
                tile_ring_budget = r;
                extra_ring = r - ring_budget;
            }
        }
        if (ring.bytes > tile_ring_budget) ring.release(mem);  // sized for an earlier pair
        std::size_t arena_bytes = std::min(want, limit - rest - extra_ring);
        // A pair alone whose level-1 tiles are batched: the arena's first part
        // holds what the forward pass needs (the borders and the top-level
        // grid, at most fan_out - 1 checkpoint rows and columns), the rest
        // comes while the forward pass runs (grow_arena).
        arena_rest.release(mem);
        arena_rest_want = 0;
        const std::size_t arena_total = arena_bytes;
        if (solo && tile_batch_bytes(m, n) > 0) {
            const std::size_t first = rounded((m + n + 2) * sizeof(BoundaryCell)) +
                                      rounded(((static_cast<std::size_t>(plan.fan_out) - 1) * (m + n + 2) + 1) *
                                              sizeof(BoundaryCell)) +
                                      alloc_granule;
            if (first < arena_bytes) {
                arena_rest_want = arena_bytes - first;
                arena_bytes = first;
            }
        }
        if (arena.bytes < arena_bytes || arena.bytes > 2 * arena_bytes) {
            arena.release(mem);
            // Memory taken since the cap was set (another process, the batch
            // engine): a smaller arena, hence coarser checkpoints, not a failure.
            while (true) {
                try {
                    arena.ensure(arena_bytes, "long engine checkpoint arena", mem);
                    break;
                } catch (const std::bad_alloc&) {
                    arena_bytes += arena_rest_want;  // no room for the first part: no split
                    arena_rest_want = 0;
                    if (arena_bytes / 2 < floor_b)
                        throw std::length_error("pair of lengths " + std::to_string(m) + " x " + std::to_string(n) +
                                                ": the GPU has no " + std::to_string((floor_b >> 20) + 1) +
                                                " MiB free for the long engine's smallest checkpoints");
                    arena_bytes /= 2;
                }
            }
        }
        if (arena_rest_want > 0)  // (an earlier pair's first part, reused, may be larger)
            arena_rest_want = arena_total > arena.bytes ? arena_total - arena.bytes : 0;
        stack.clear();
        arena_top = 0;
        seqs.ensure(m + n + 2, "long engine sequences", mem);
        auto* base = static_cast<std::uint8_t*>(seqs.ptr);
        upload_bytes(base, query.data(), m, "query upload");
        upload_bytes(base + m, ref.data(), n, "ref upload");
        dq = base;
        dr = base + m;
        note_peak();
        if (solo && walks_leaves() && !(cx.score_only && cx.mode == AlignMode::global)) reserve_walk_async(m + n);
        AlignmentResult r;
        try {
            r = checkpoint_align(*this, query, ref, cx.scheme, cx.mode, cx.score_only, plan, progress_cb);
            settle_pass();
        } catch (...) {
            pending_pass.active = false;  // the stream's error, if any, comes with the next wait
            throw;
        }
        take_walk_alloc();  // a pair whose path needed no walk
        stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        stats.pairs_ms = stats.wall_s * 1e3;
        stats.allocs_ms = mem.ms - mem0.ms;
        stats.allocs = mem.count - mem0.count;
        stats.pinned_ms = mem.pinned_ms - mem0.pinned_ms;
        stats.pinned = mem.pinned - mem0.pinned;
        return r;
    }
};

}  // namespace

struct LongEngine::Impl {
    Context cx;
    StagingPool staging{long_tuning::staging_bytes, long_tuning::staging_buffers};  // before the workers: they give buffers back to it
    std::vector<std::uint8_t*> slabs;              // pinned: the workers' buffers laid out by ready()
    std::vector<std::unique_ptr<Worker>> workers;  // workers[0] also serves align()
    LongEngineStats stats;

    Impl(const ScoringScheme& s, AlignMode m, bool so, const LongEngineOptions& o) {
        cx.scheme = s;
        cx.mode = m;
        cx.score_only = so;
        cx.options = o;
        cx.device = o.device;
        cx.staging = &staging;
    }

    ~Impl() {
        (void)cudaSetDevice(cx.device);  // this engine's device, whichever the calling thread has current
        workers.clear();
        for (std::uint8_t* s : slabs) (void)cudaFreeHost(s);
        if (cx.matrix) cudaFree(cx.matrix);
        if (cx.pool) cudaMemPoolDestroy(cx.pool);  // released once the workers' frees have run
    }

    void init() {
        GPUALIGN_CUDA(cudaSetDevice(cx.device), "long engine, device " + std::to_string(cx.device));
        std::size_t free_b = 0, total_b = 0;
        GPUALIGN_CUDA(cudaMemGetInfo(&free_b, &total_b), "long engine memory query");
        cx.limit = cx.options.gpu_memory_limit ? cx.options.gpu_memory_limit : free_b / 10 * 9;
        cx.packed = detail::region_uses_packed_scores(cx.scheme.matrix.data(), cx.scheme.size);
        GPUALIGN_CUDA(cudaDeviceGetAttribute(&cx.sms, cudaDevAttrMultiProcessorCount, cx.device), "SM count");
        // The workers' buffers: a pool of this engine's own that keeps what
        // they free (up to the cap) for their next allocations.
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = cx.device;
        GPUALIGN_CUDA(cudaMemPoolCreate(&cx.pool, &props), "long engine memory pool");
        std::uint64_t keep = cx.limit;
        GPUALIGN_CUDA(cudaMemPoolSetAttribute(cx.pool, cudaMemPoolAttrReleaseThreshold, &keep),
                      "long engine memory pool threshold");
        for (const int R : lane_rows)
            for (int l = 0; l < detail::region_modes; ++l)
                for (int d = 0; d < (R == 32 ? 1 : 2); ++d) {
                    const int r = lane_rows_index(R);
                    cx.max_blocks[r][l][d] =
                        detail::region_max_blocks(cx.device, R, static_cast<AlignMode>(l), d, cx.packed);
                    cx.max_warps = std::max(cx.max_warps, cx.max_blocks[r][l][d] * detail::region_block_threads() / 32);
                }
        detail::load_leaf_walk();
        cx.matrix_bytes = rounded(cx.scheme.matrix.size() * sizeof(std::int32_t));
        GPUALIGN_CUDA(cudaMalloc(&cx.matrix, cx.matrix_bytes), "substitution matrix");
        GPUALIGN_CUDA(cudaMemcpy(cx.matrix, cx.scheme.matrix.data(), cx.scheme.matrix.size() * sizeof(std::int32_t),
                                 cudaMemcpyHostToDevice),
                      "matrix upload");
        workers.push_back(std::make_unique<Worker>(cx));
        workers[0]->configure(true, share_of(1));
    }

    /// Each of `k` workers' share of the cap.
    std::size_t share_of(int k) const {
        const std::size_t usable = cx.limit > cx.matrix_bytes ? cx.limit - cx.matrix_bytes : 0;
        return usable / static_cast<std::size_t>(std::max(1, k));
    }

    /// How align_many runs `pairs`: how many workers, the pairs they share
    /// (largest first) and those that run alone afterwards over the whole GPU.
    struct ManyPlan {
        int workers = 1;
        std::vector<std::size_t> shared, solo;  // indices into pairs
    };

    /// Workers: as many as asked (default max_workers), as the cap holds for
    /// the largest pair, and as there are pairs; a pair whose rows do not fit
    /// a worker's rings with min_worker_slots slots runs alone afterwards.
    /// Configures the workers (use_workers).
    ManyPlan plan_many(std::span<const LongPair> pairs) {
        auto cells_of = [&](std::size_t k) { return pair_cells(pairs[k]); };
        // Largest first (longest-processing-time order keeps the workers even).
        std::vector<std::size_t> order(pairs.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return cells_of(a) > cells_of(b); });
        ManyPlan plan;
        int k = cx.options.workers > 0 ? cx.options.workers : long_tuning::max_workers;
        k = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(k), pairs.size()));
        for (; k > 1; --k) {
            use_workers(k);
            const Worker& w = *workers[0];
            plan.shared.clear();
            plan.solo.clear();
            std::size_t need = 0;
            for (const std::size_t p : order) {
                const std::size_t ring_bytes = ring_slot_bytes(whole_row_ring_cols(pairs[p].ref.size()));
                if (ring_bytes * long_tuning::min_worker_slots <= w.ring_budget) {
                    plan.shared.push_back(p);
                    const std::size_t bases = pairs[p].query.size() + pairs[p].ref.size();
                    need = std::max(need, w.others(bases) + Worker::floor_bytes(bases));
                } else {
                    plan.solo.push_back(p);
                }
            }
            if (need <= w.limit) break;
        }
        if (k <= 1 || plan.shared.size() <= 1) {
            plan.shared.clear();
            plan.solo = order;
            k = 1;
        }
        plan.workers = k;  // the loop left the workers configured for k (k > 1)
        return plan;
    }

    /// Readies the workers of `plan` before their first pair, while no kernel
    /// of theirs runs: the staging pool holds a buffer for each worker (up
    /// to its cap), and the workers whose pinned host buffers do not serve
    /// the largest shared pair get them laid out in one new slab
    /// (Worker::lay_out). Allocated in the run, each took 7-12 ms
    /// (cudaHostAlloc and cudaFreeHost wait for the device; the bulk 5-50
    /// kb pairs on an H200, session 18); one allocation for all the workers
    /// pins less and calls the driver once.
    void ready(std::span<const LongPair> pairs, const ManyPlan& plan) {
        if (plan.workers <= 1 || plan.shared.empty()) return;
        std::size_t steps = 0;
        for (const std::size_t p : plan.shared) steps = std::max(steps, pairs[p].query.size() + pairs[p].ref.size());
        Worker& first = *workers[0];
        staging.reserve(static_cast<std::size_t>(plan.workers), first.mem);
        std::vector<Worker*> lacking;
        std::size_t part = 0;
        for (int w = 0; w < plan.workers; ++w) {
            Worker& wk = *workers[static_cast<std::size_t>(w)];
            if (wk.host_ready(steps)) continue;
            lacking.push_back(&wk);
            part = std::max(part, wk.lay_out(steps, nullptr, nullptr));
        }
        if (lacking.empty()) return;
        std::uint8_t *h = nullptr, *d = nullptr;
        alloc_mapped(h, d, part * lacking.size(), "pinned buffers of the long engine's workers", first.mem);
        slabs.push_back(h);
        for (std::size_t k = 0; k < lacking.size(); ++k) (void)lacking[k]->lay_out(steps, h + k * part, d + k * part);
    }

    /// Workers 1..k-1 exist and every worker is configured for k at once
    /// (k = 1: workers[0] alone, solo); the others' buffers are freed.
    void use_workers(int k) {
        while (static_cast<int>(workers.size()) < k) workers.push_back(std::make_unique<Worker>(cx));
        for (int w = 0; w < static_cast<int>(workers.size()); ++w) {
            if (w < k)
                workers[w]->configure(k == 1, share_of(k));
            else
                workers[w]->release_buffers();
        }
    }
};

LongEngine::LongEngine(const ScoringScheme& scheme, AlignMode mode, bool score_only, const LongEngineOptions& options)
    : impl_(std::make_unique<Impl>(scheme, mode, score_only, options)) {
    scheme.validate();
    if (scheme.size > 32) throw std::invalid_argument("the long engine takes alphabets of at most 32 letters");
    if (options.plan.fan_out < 2) throw std::invalid_argument("CheckpointPlan::fan_out must be >= 2");
    if (!(options.plan.leaf_band >= 0)) throw std::invalid_argument("CheckpointPlan::leaf_band must be >= 0");
    if (!(options.plan.tile_band >= 0)) throw std::invalid_argument("CheckpointPlan::tile_band must be >= 0");
    if (options.max_blocks < 0) throw std::invalid_argument("LongEngineOptions::max_blocks must be >= 0");
    if (options.workers < 0) throw std::invalid_argument("LongEngineOptions::workers must be >= 0");
    if (options.leaf_batch < 0) throw std::invalid_argument("LongEngineOptions::leaf_batch must be >= 0");
    if (options.rows_per_lane != 0 && options.rows_per_lane != 4 && options.rows_per_lane != 16 &&
        options.rows_per_lane != 32)
        throw std::invalid_argument("LongEngineOptions::rows_per_lane must be 0, 4, 16 or 32, not " +
                                    std::to_string(options.rows_per_lane));
    impl_->init();
}

LongEngine::~LongEngine() = default;

AlignmentResult LongEngine::align(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref) {
    Impl& im = *impl_;
    im.use_workers(1);
    Worker& w = *im.workers[0];
    try {
        AlignmentResult r = w.align(query, ref, im.cx.options.progress);
        im.stats = w.stats;
        return r;
    } catch (...) {
        im.stats = w.stats;
        throw;
    }
}

std::vector<AlignmentResult> LongEngine::align_many(std::span<const LongPair> pairs,
                                                    std::vector<std::exception_ptr>* errors) {
    Impl& im = *impl_;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<AlignmentResult> results(pairs.size());
    std::vector<std::exception_ptr> failed(pairs.size());

    std::uint64_t all_cells = 0;
    for (const LongPair& p : pairs) all_cells += pair_cells(p);
    auto cells_of = [&](std::size_t k) { return pair_cells(pairs[k]); };
    GPUALIGN_CUDA(cudaSetDevice(im.cx.device), "long engine, device " + std::to_string(im.cx.device));
    const Impl::ManyPlan plan = im.plan_many(pairs);
    im.ready(pairs, plan);
    const int k_workers = plan.workers;
    const std::vector<std::size_t>& shared_order = plan.shared;
    const std::vector<std::size_t>& solo_order = plan.solo;

    std::mutex mu;
    LongEngineStats sum;
    auto add = [&](const LongEngineStats& st, std::size_t& peak) {
        std::lock_guard<std::mutex> lock(mu);
        sum.forward_cells += st.forward_cells;
        sum.total_cells += st.total_cells;
        sum.forward_ms += st.forward_ms;
        sum.total_ms += st.total_ms;
        sum.locate_ms += st.locate_ms;
        sum.passes += st.passes;
        sum.pairs_ms += st.pairs_ms;
        sum.launches_ms += st.launches_ms;
        sum.walks_ms += st.walks_ms;
        sum.allocs_ms += st.allocs_ms;
        sum.allocs += st.allocs;
        sum.pinned_ms += st.pinned_ms;
        sum.pinned += st.pinned;
        sum.copies_ms += st.copies_ms;
        peak = std::max(peak, st.peak_device_bytes);
    };
    std::atomic<std::uint64_t> cells_done{0};
    const ProgressCallback& progress = im.cx.options.progress;

    if (!shared_order.empty()) {
        std::atomic<std::size_t> next{0};
        std::atomic<std::int64_t> last_taken_ns{0};  // when the last pair was taken (steady clock)
        std::atomic<int> running{0};
        std::vector<std::size_t> peaks(static_cast<std::size_t>(k_workers), 0);
        auto run = [&](int wi) {
            Worker& w = *im.workers[static_cast<std::size_t>(wi)];
            bool first = true;
            while (true) {
                const std::size_t t = next.fetch_add(1);
                if (t >= shared_order.size()) break;
                if (t + 1 == shared_order.size())
                    last_taken_ns = std::chrono::steady_clock::now().time_since_epoch().count();
                const std::size_t k = shared_order[t];
                try {
                    results[k] = w.align(pairs[k].query, pairs[k].ref, {});
                } catch (...) {
                    failed[k] = std::current_exception();
                }
                add(w.stats, peaks[static_cast<std::size_t>(wi)]);
                if (first) {
                    std::lock_guard<std::mutex> lock(mu);
                    sum.first_pairs_ms += w.stats.pairs_ms;
                    sum.first_kernels_ms += w.stats.total_ms;
                    first = false;
                }
                cells_done += cells_of(k);
            }
            --running;
        };
        {
            // jthreads join on destruction, also when a later one fails to start.
            std::vector<std::jthread> threads;
            threads.reserve(static_cast<std::size_t>(k_workers));
            for (int wi = 0; wi < k_workers; ++wi) {
                ++running;
                try {
                    threads.emplace_back(run, wi);
                } catch (...) {
                    --running;
                    if (threads.empty()) throw;
                    break;  // the started workers take every pair
                }
            }
            sum.setup_ms = ms_since(t0);
            while (progress && running.load() > 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                progress(cells_done.load(), all_cells);
            }
        }
        if (last_taken_ns.load() != 0)
            sum.tail_ms = ms_since(std::chrono::steady_clock::time_point(
                std::chrono::steady_clock::duration(last_taken_ns.load())));
        for (const std::size_t p : peaks) sum.peak_device_bytes += p;
    }

    if (!solo_order.empty()) {
        im.use_workers(1);
        Worker& w = *im.workers[0];
        std::size_t peak = 0;
        for (const std::size_t k : solo_order) {
            const std::uint64_t base = cells_done.load();
            ProgressCallback each;
            if (progress) each = [&](std::uint64_t done, std::uint64_t) { progress(base + done, all_cells); };
            try {
                results[k] = w.align(pairs[k].query, pairs[k].ref, each);
            } catch (...) {
                failed[k] = std::current_exception();
            }
            add(w.stats, peak);
            cells_done += cells_of(k);
        }
        sum.peak_device_bytes = std::max(sum.peak_device_bytes, peak);
    }
    if (progress) progress(cells_done.load(), all_cells);
    sum.workers = k_workers;
    sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    im.stats = sum;
    if (errors) {
        *errors = std::move(failed);
    } else {
        for (const std::exception_ptr& e : failed)
            if (e) std::rethrow_exception(e);
    }
    return results;
}

void LongEngine::prepare(std::span<const LongPair> pairs) {
    if (pairs.size() < 2) return;
    Impl& im = *impl_;
    GPUALIGN_CUDA(cudaSetDevice(im.cx.device), "long engine, device " + std::to_string(im.cx.device));
    im.ready(pairs, im.plan_many(pairs));
}

LongEngineStats LongEngine::last_stats() const noexcept { return impl_->stats; }

}  // namespace gpualign::gpu
