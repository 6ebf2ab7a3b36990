// gpualign — gpualign::gpu::LongEngine: the owning host object of the
// long-pair engine (device arena, rings, stream) and its RegionBackend, which
// computes each region of the checkpoint traceback (checkpoint_traceback.hpp)
// with one cooperative launch of the region kernel. Host code (g++).
#include "gpualign/gpu/long_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../cuda_check.hpp"
#include "long_dispatch.hpp"
#include "long_tuning.hpp"

namespace gpualign::gpu {
namespace {

static_assert(sizeof(BoundaryCell) == 8, "BoundaryCell is the device's int2");

constexpr std::size_t granule = 256;
std::size_t rounded(std::size_t b) { return (std::max<std::size_t>(b, 1) + granule - 1) / granule * granule; }

std::size_t next_pow2(std::size_t v) {
    std::size_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/// A device allocation that grows (never shrinks) and reports its size.
struct DeviceBuffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    void ensure(std::size_t need, const char* what, std::size_t& held) {
        if (need <= bytes) return;
        release(held);
        const std::size_t b = rounded(need);
        void* p = nullptr;
        const cudaError_t e = cudaMalloc(&p, b);
        if (e == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            throw std::bad_alloc();
        }
        GPUALIGN_CUDA(e, what);
        ptr = p;
        bytes = b;
        held += b;
    }
    void release(std::size_t& held) {
        if (ptr) {
            cudaFree(ptr);
            held -= bytes;
        }
        ptr = nullptr;
        bytes = 0;
    }
};

}  // namespace

struct LongEngine::Impl final : RegionBackend {
    ScoringScheme scheme;
    AlignMode mode;
    bool score_only;
    LongEngineOptions options;
    int device = 0;
    int sms = 0;
    std::size_t limit = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t ev_start = nullptr, ev_stop = nullptr;
    DeviceBuffer matrix, seqs, arena, ring, progress, best, dirs, corner, descs_dev;
    std::vector<std::pair<std::size_t, std::size_t>> leaf_offsets;  // the leaf batch: (offset, bytes) in dirs
    std::size_t leaf_batch_ = 1;
    unsigned long long* cells_host = nullptr;  // mapped pinned, one counter per warp
    std::uint8_t* leaf_host = nullptr;         // pinned: a leaf's direction bytes
    std::size_t leaf_host_bytes = 0;
    unsigned long long* cells_dev = nullptr;
    int cells_slots = 0;
    std::vector<std::size_t> stack;  // arena offsets in allocation order
    std::size_t arena_top = 0;
    std::size_t held = 0;
    const std::uint8_t* dq = nullptr;
    const std::uint8_t* dr = nullptr;
    int max_blocks[2][2][2] = {};  // [R == 16][local][dirs]
    LongEngineStats stats;
    bool first_pass = true;

    Impl(const ScoringScheme& s, AlignMode m, bool so, const LongEngineOptions& o)
        : scheme(s), mode(m), score_only(so), options(o), device(o.device) {}

    ~Impl() override {
        std::size_t h = held;
        for (DeviceBuffer* b : {&matrix, &seqs, &arena, &ring, &progress, &best, &dirs, &corner, &descs_dev}) b->release(h);
        if (cells_host) cudaFreeHost(cells_host);
        if (leaf_host) cudaFreeHost(leaf_host);
        if (ev_start) cudaEventDestroy(ev_start);
        if (ev_stop) cudaEventDestroy(ev_stop);
        if (stream) cudaStreamDestroy(stream);
    }

    void init() {
        GPUALIGN_CUDA(cudaSetDevice(device), "long engine, device " + std::to_string(device));
        GPUALIGN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
        std::size_t free_b = 0, total_b = 0;
        GPUALIGN_CUDA(cudaMemGetInfo(&free_b, &total_b), "long engine memory query");
        limit = options.gpu_memory_limit ? options.gpu_memory_limit : free_b / 10 * 9;
        // Leaves per speculative batch: up to long_tuning::leaf_batch, their
        // direction bytes within a sixteenth of the memory cap.
        leaf_batch_ = std::clamp<std::size_t>(limit / 16 / std::max<std::uint64_t>(1, options.plan.leaf_cells), 1,
                                              long_tuning::leaf_batch);
        GPUALIGN_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "long engine stream");
        GPUALIGN_CUDA(cudaEventCreate(&ev_start), "long engine event");
        GPUALIGN_CUDA(cudaEventCreate(&ev_stop), "long engine event");
        for (int r = 0; r < 2; ++r)
            for (int l = 0; l < 2; ++l)
                for (int d = 0; d < 2; ++d) max_blocks[r][l][d] = detail::region_max_blocks(device, r ? 16 : 4, l, d);
        int most = 0;
        for (auto& a : max_blocks)
            for (auto& b : a)
                for (int v : b) most = std::max(most, v);
        cells_slots = most * detail::region_block_threads() / 32;
        GPUALIGN_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&cells_host), sizeof(unsigned long long) * cells_slots,
                                    cudaHostAllocMapped),
                      "long engine progress counters");
        GPUALIGN_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&cells_dev), cells_host, 0),
                      "long engine progress counters (device view)");
        const std::size_t mbytes = scheme.matrix.size() * sizeof(std::int32_t);
        matrix.ensure(mbytes, "substitution matrix", held);
        GPUALIGN_CUDA(cudaMemcpy(matrix.ptr, scheme.matrix.data(), mbytes, cudaMemcpyHostToDevice), "matrix upload");
    }

    void note_peak() { stats.peak_device_bytes = std::max(stats.peak_device_bytes, held_total()); }
    std::size_t held_total() const { return held; }

    // ---- RegionBackend -------------------------------------------------------
    BoundaryCell* allocate(std::size_t count) override {
        const std::size_t b = rounded(count * sizeof(BoundaryCell));
        if (arena_top + b > arena.bytes) throw std::bad_alloc();
        stack.push_back(arena_top);
        BoundaryCell* p = reinterpret_cast<BoundaryCell*>(static_cast<char*>(arena.ptr) + arena_top);
        arena_top += b;
        note_peak();
        return p;
    }
    void release(BoundaryCell* p) override {
        const std::size_t off = static_cast<std::size_t>(reinterpret_cast<char*>(p) - static_cast<char*>(arena.ptr));
        while (!stack.empty()) {
            const std::size_t top = stack.back();
            stack.pop_back();
            arena_top = top;
            if (top == off) return;
        }
    }
    void upload(BoundaryCell* dst, std::span<const BoundaryCell> src) override {
        GPUALIGN_CUDA(cudaMemcpy(dst, src.data(), src.size_bytes(), cudaMemcpyHostToDevice), "border upload");
    }
    std::int64_t row_alignment() const override { return long_tuning::row_alignment; }
    std::uint8_t* dirs_buffer(std::size_t bytes) override {
        if (bytes > leaf_host_bytes) {
            if (leaf_host) cudaFreeHost(leaf_host);
            leaf_host = nullptr;
            leaf_host_bytes = 0;
            GPUALIGN_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&leaf_host), bytes, cudaHostAllocDefault),
                          "pinned buffer for a leaf's direction bytes");
            leaf_host_bytes = bytes;
        }
        return leaf_host;
    }

    /// The launch fields every region launch shares.
    detail::RegionLaunch base_launch(bool local, bool want_dirs, int R) {
        detail::RegionLaunch a{};
        a.query = dq;
        a.ref = dr;
        a.matrix = static_cast<const std::int32_t*>(matrix.ptr);
        a.size = scheme.size;
        a.gap_open = scheme.gap_open;
        a.gap_extend = scheme.gap_extend;
        a.local = local;
        a.dirs = want_dirs;
        a.rows_per_lane = R;
        return a;
    }

    /// Launches `a` over descs (stripe_begin set), waits (reporting progress
    /// for large launches), and adds the device time to the statistics.
    void run_launch(detail::RegionLaunch& a, std::vector<long_kernels::RegionDesc>& descs, std::uint64_t cells,
                    const std::function<void(std::uint64_t)>& on_cells, std::size_t warps) {
        descs_dev.ensure(sizeof(long_kernels::RegionDesc) * descs.size(), "region descriptors", held);
        a.regions_host = descs.data();
        a.regions_dev = static_cast<long_kernels::RegionDesc*>(descs_dev.ptr);
        a.count = static_cast<int>(descs.size());
        ring.ensure(detail::region_ring_bytes(a), "long engine rings", held);
        a.ring = ring.ptr;
        progress.ensure(sizeof(int) * static_cast<std::size_t>(a.stripes), "long engine progress flags", held);
        a.progress = static_cast<int*>(progress.ptr);
        const bool report = on_cells && cells >= long_tuning::progress_min_cells;
        if (report) std::fill(cells_host, cells_host + warps, 0ull);
        a.cells_done = report ? cells_dev : nullptr;
        note_peak();

        GPUALIGN_CUDA(cudaEventRecord(ev_start, stream), "region start event");
        detail::launch_region(a, stream);
        GPUALIGN_CUDA(cudaEventRecord(ev_stop, stream), "region stop event");
        if (report) {
            while (true) {
                const cudaError_t q = cudaEventQuery(ev_stop);
                if (q != cudaErrorNotReady) {
                    GPUALIGN_CUDA(q, "region kernel");
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                std::uint64_t sum = 0;
                for (std::size_t w = 0; w < warps; ++w) sum += reinterpret_cast<volatile unsigned long long*>(cells_host)[w];
                on_cells(sum);
            }
        }
        GPUALIGN_CUDA(cudaEventSynchronize(ev_stop), "region kernel (" + std::to_string(descs.size()) + " region(s), " +
                                                         std::to_string(cells) + " cells)");
        float ms = 0;
        GPUALIGN_CUDA(cudaEventElapsedTime(&ms, ev_start, ev_stop), "region timing");
        stats.total_ms += ms;
        stats.total_cells += cells;
        ++stats.passes;
        if (first_pass) stats.forward_ms = ms;
        first_pass = false;
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
        check_size(reg);
        const bool local = mode == AlignMode::local;
        const bool want_dirs = out.dirs != nullptr;
        const int rows = static_cast<int>(reg.rows), cols = static_cast<int>(reg.cols);
        const int R = long_tuning::rows_per_lane(rows);
        const int stripes = (rows + 32 * R - 1) / (32 * R);
        const int warps_per_block = detail::region_block_threads() / 32;
        int blocks = std::min(max_blocks[R == 16][local][want_dirs], (stripes + warps_per_block - 1) / warps_per_block);
        if (options.max_blocks > 0) blocks = std::min(blocks, options.max_blocks);
        // Rings: wide enough that producers cannot close a cycle of waits
        // (cols < warps * (ring_cols - 64)), within the ring budget.
        std::size_t ring_cols = 0;
        while (true) {
            const std::size_t warps = static_cast<std::size_t>(blocks) * warps_per_block;
            ring_cols = std::min(next_pow2(static_cast<std::size_t>(cols) + 64),
                                 next_pow2(std::max<std::size_t>(long_tuning::min_ring_cols, cols / warps + 128)));
            if (warps * 2 * ring_cols * 16 <= long_tuning::ring_budget || blocks == 1) break;
            blocks = std::max(1, blocks / 2);
        }
        const std::size_t warps = static_cast<std::size_t>(blocks) * warps_per_block;
        if (local) best.ensure(16 * static_cast<std::size_t>(stripes), "long engine stripe bests", held);
        corner.ensure(sizeof(int), "long engine corner", held);
        if (want_dirs) dirs.ensure(static_cast<std::size_t>(rows) * cols, "long engine direction bytes", held);

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
        detail::RegionLaunch a = base_launch(local, want_dirs, R);
        a.stripes = stripes;
        a.ring_cols = static_cast<int>(ring_cols);
        a.per_stripe_rings = false;
        a.flow_control = ring_cols < static_cast<std::size_t>(cols) + 64;
        a.blocks = blocks;
        run_launch(a, descs, static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols), on_cells, warps);

        RegionResult res;
        if (want_dirs)
            GPUALIGN_CUDA(cudaMemcpy(out.dirs, dirs.ptr, static_cast<std::size_t>(rows) * cols, cudaMemcpyDeviceToHost),
                          "direction bytes download");
        GPUALIGN_CUDA(cudaMemcpy(&res.corner_h, corner.ptr, sizeof(int), cudaMemcpyDeviceToHost), "corner download");
        if (local && out.want_best) {
            std::vector<int> sb(4 * static_cast<std::size_t>(stripes));
            GPUALIGN_CUDA(cudaMemcpy(sb.data(), best.ptr, sb.size() * sizeof(int), cudaMemcpyDeviceToHost),
                          "stripe bests download");
            for (int s = 0; s < stripes; ++s) {  // stripes in row order: a strictly better one wins
                const int h = sb[4 * s], i = sb[4 * s + 1], j = sb[4 * s + 2];
                if (h > res.best || (h == res.best && h > 0 && (reg.i0 + i < res.best_i ||
                                                               (reg.i0 + i == res.best_i && reg.j0 + j < res.best_j)))) {
                    res.best = h;
                    res.best_i = reg.i0 + i;
                    res.best_j = reg.j0 + j;
                }
            }
        }
        return res;
    }

    // ---- speculative leaves: one launch computes a batch ----------------------
    std::size_t leaf_batch() const override { return leaf_batch_; }

    void compute_leaves(std::span<const Region> leaves) override {
        const bool local = mode == AlignMode::local;
        std::vector<long_kernels::RegionDesc> descs;
        descs.reserve(leaves.size());
        leaf_offsets.clear();
        std::size_t dir_bytes = 0;
        int stripes = 0, max_cols = 0;
        std::uint64_t cells = 0;
        constexpr int R = 4;
        for (const Region& reg : leaves) {
            check_size(reg);
            long_kernels::RegionDesc d = desc_of(reg);
            d.stripe_begin = stripes;
            d.stripes = (d.rows + 32 * R - 1) / (32 * R);
            stripes += d.stripes;
            max_cols = std::max(max_cols, d.cols);
            leaf_offsets.push_back({dir_bytes, static_cast<std::size_t>(d.rows) * static_cast<std::size_t>(d.cols)});
            dir_bytes += (leaf_offsets.back().second + 255) / 256 * 256;
            cells += static_cast<std::uint64_t>(d.rows) * static_cast<std::uint64_t>(d.cols);
            descs.push_back(d);
        }
        dirs.ensure(dir_bytes, "long engine direction bytes (leaf batch)", held);
        corner.ensure(sizeof(int), "long engine corner", held);
        for (std::size_t k = 0; k < descs.size(); ++k) {
            descs[k].dirs = static_cast<std::uint8_t*>(dirs.ptr) + leaf_offsets[k].first;
            descs[k].corner = static_cast<int*>(corner.ptr);
        }
        const int warps_per_block = detail::region_block_threads() / 32;
        const int blocks = std::min(max_blocks[0][local][1], (stripes + warps_per_block - 1) / warps_per_block);
        detail::RegionLaunch a = base_launch(local, true, R);
        a.stripes = stripes;
        a.ring_cols = static_cast<int>(next_pow2(static_cast<std::size_t>(max_cols) + 64));
        a.per_stripe_rings = true;  // no flow control, no ring reuse across regions
        a.flow_control = false;
        a.blocks = blocks;
        run_launch(a, descs, cells, {}, static_cast<std::size_t>(blocks) * warps_per_block);
    }

    const std::uint8_t* leaf_dirs(std::size_t k) override {
        const auto [offset, bytes] = leaf_offsets.at(k);
        std::uint8_t* host = dirs_buffer(bytes);
        GPUALIGN_CUDA(cudaMemcpy(host, static_cast<std::uint8_t*>(dirs.ptr) + offset, bytes, cudaMemcpyDeviceToHost),
                      "leaf direction bytes download");
        return host;
    }
};

LongEngine::LongEngine(const ScoringScheme& scheme, AlignMode mode, bool score_only, const LongEngineOptions& options)
    : impl_(std::make_unique<Impl>(scheme, mode, score_only, options)) {
    scheme.validate();
    if (scheme.size > 32) throw std::invalid_argument("the long engine takes alphabets of at most 32 letters");
    if (options.plan.fan_out < 2) throw std::invalid_argument("CheckpointPlan::fan_out must be >= 2");
    if (options.max_blocks < 0) throw std::invalid_argument("LongEngineOptions::max_blocks must be >= 0");
    impl_->init();
}

LongEngine::~LongEngine() = default;

AlignmentResult LongEngine::align(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref) {
    Impl& im = *impl_;
    const auto t0 = std::chrono::steady_clock::now();
    im.stats = {};
    im.first_pass = true;
    im.stats.forward_cells = static_cast<std::uint64_t>(query.size()) * ref.size();
    if (!fits_int32(im.scheme, query.size(), ref.size()))
        throw std::length_error("pair of lengths " + std::to_string(query.size()) + " x " +
                                std::to_string(ref.size()) + " could overflow 32-bit scores");
    GPUALIGN_CUDA(cudaSetDevice(im.device), "long engine, device " + std::to_string(im.device));
    const std::size_t m = query.size(), n = ref.size();
    // The arena holds the borders and every level's checkpoints; the rest
    // of the cap goes to the sequences, rings and a leaf's direction bytes.
    // (a leaf batch: its direction bytes, and up to 64 MiB of per-stripe rings)
    const std::size_t others = rounded(m + n) + long_tuning::ring_budget +
                               im.leaf_batch_ * im.options.plan.leaf_cells + (72u << 20);
    const std::size_t floor_bytes = rounded((m + n + 2) * sizeof(BoundaryCell)) * 2;
    const std::size_t want = (m + n + 2) * sizeof(BoundaryCell) * (2 * static_cast<std::size_t>(im.options.plan.fan_out) + 4) +
                             (64u << 20);
    if (im.limit < others + floor_bytes)
        throw std::length_error("pair of lengths " + std::to_string(m) + " x " + std::to_string(n) +
                                " needs at least " + std::to_string((others + floor_bytes) >> 20) +
                                " MiB of GPU memory for the long engine; the cap is " + std::to_string(im.limit >> 20) +
                                " MiB");
    std::size_t arena_bytes = std::min(want, im.limit - others);
    if (im.arena.bytes < arena_bytes || im.arena.bytes > 2 * arena_bytes) {
        im.arena.release(im.held);
        // Memory taken since the cap was set (another process, the batch
        // engine): a smaller arena, hence coarser checkpoints, not a failure.
        while (true) {
            try {
                im.arena.ensure(arena_bytes, "long engine checkpoint arena", im.held);
                break;
            } catch (const std::bad_alloc&) {
                if (arena_bytes / 2 < floor_bytes)
                    throw std::length_error("pair of lengths " + std::to_string(m) + " x " + std::to_string(n) +
                                            ": the GPU has no " + std::to_string((floor_bytes >> 20) + 1) +
                                            " MiB free for the long engine's smallest checkpoints");
                arena_bytes /= 2;
            }
        }
    }
    im.stack.clear();
    im.arena_top = 0;
    im.seqs.ensure(m + n + 2, "long engine sequences", im.held);
    auto* base = static_cast<std::uint8_t*>(im.seqs.ptr);
    if (m) GPUALIGN_CUDA(cudaMemcpy(base, query.data(), m, cudaMemcpyHostToDevice), "query upload");
    if (n) GPUALIGN_CUDA(cudaMemcpy(base + m, ref.data(), n, cudaMemcpyHostToDevice), "ref upload");
    im.dq = base;
    im.dr = base + m;
    im.note_peak();
    AlignmentResult r = checkpoint_align(im, query, ref, im.scheme, im.mode, im.score_only, im.options.plan,
                                         im.options.progress);
    im.stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

LongEngineStats LongEngine::last_stats() const noexcept { return impl_->stats; }

}  // namespace gpualign::gpu
