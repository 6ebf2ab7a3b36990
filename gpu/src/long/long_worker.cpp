// gpualign — a long-engine worker's RegionBackend half (long_worker.hpp):
// its setup, the region launches and a pair's alignment.
#include "long_worker.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>

#include "../common/cuda_check.hpp"
#include "pair_plan.hpp"

namespace gpualign::gpu::long_detail {

using detail::alloc_mapped;
using detail::free_pinned;
using detail::ms_since;

Worker::Worker(const Context& c) : cx(c) {
    GPUALIGN_CUDA(cudaSetDevice(cx.device), "long engine, device " + std::to_string(cx.device));
    GPUALIGN_CUDA(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, cx.least_priority),
                  "long engine stream");
    priority_ = cx.least_priority;
    mem_.pool = cx.pool;
    mem_.stream = stream;
    GPUALIGN_CUDA(cudaEventCreate(&ev_start), "long engine event");
    GPUALIGN_CUDA(cudaEventCreate(&ev_stop), "long engine event");
    waiter.attach(stream);
}

Worker::~Worker() {
    batches.wait_walk_alloc();  // it writes the walk's buffers
    release_buffers();
    free_pinned(cells_host, mem_);
    free_pinned(leaf_host, mem_);
    done.release(mem_);
    batches.release_host(mem_);
    small.release(mem_);
    descs_host.release(mem_);
    if (ev_start) cudaEventDestroy(ev_start);
    if (ev_stop) cudaEventDestroy(ev_stop);
    if (stream) cudaStreamDestroy(stream);
}

void Worker::set_priority(int priority) {
    if (priority == priority_) return;
    settle_pass();
    // This worker's device: the calling thread may have another current.
    GPUALIGN_CUDA(cudaSetDevice(cx.device), "long engine, device " + std::to_string(cx.device));
    GPUALIGN_CUDA(cudaStreamSynchronize(stream), "long engine stream");
    cudaStream_t s = nullptr;
    GPUALIGN_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority), "long engine stream");
    (void)cudaStreamDestroy(stream);
    stream = s;
    mem_.stream = s;
    waiter.rebind(s);
    priority_ = priority;
}

void Worker::release_buffers() {
    seqs.release(mem_);
    arena.release_buffers();
    for (detail::DeviceBuffer* b : {&ring, &progress, &best, &dirs, &corner, &descs_dev}) b->release(mem_);
    batches.release_buffers(mem_);
}

void Worker::configure(bool is_solo, std::size_t share, int parts) {
    if (share != limit_ || is_solo != solo) release_buffers();
    solo = is_solo;
    parts_ = is_solo ? std::max(1, parts) : 1;
    if (parts_ == 1) set_priority(cx.least_priority);
    waiter.set_alone(is_solo);
    limit_ = share;
    const long_plan::WorkerSetup setup = long_plan::worker_setup(cx.options, is_solo, share);
    ring_budget_ = setup.ring_budget;
    plan = setup.plan;
    leaf_batch_ = setup.leaf_batch;
    tile_batch_ = setup.tile_batch;
}

bool Worker::host_ready(std::size_t steps) const {
    return done.host && small.host && descs_host.count >= max_descs() &&
           (!batches.walks_leaves() || batches.walk_ready(steps));
}

std::size_t Worker::lay_out(std::size_t steps, std::uint8_t* h, std::uint8_t* d) {
    std::size_t off = 0;
    auto place = [&](auto& buffer, std::size_t count) {
        using T = std::remove_reference_t<decltype(*buffer.host)>;
        if (h) buffer.adopt(reinterpret_cast<T*>(h + off), reinterpret_cast<T*>(d + off), count, mem_);
        off += (count * sizeof(T) + 255) / 256 * 256;
    };
    place(done, 1);
    place(small, long_tuning::small_copy_bytes);
    place(descs_host, max_descs());
    if (batches.walks_leaves()) batches.lay_out_walk(place, steps);
    return off;
}

std::size_t Worker::others(std::size_t bases) const {
    return long_plan::others_bytes(bases, ring_budget_, leaf_batch_, plan.leaf_cells);
}

void Worker::upload(BoundaryCell* dst, std::span<const BoundaryCell> src) {
    settle_pass();
    copies.upload(dst, src.data(), src.size_bytes(), "border upload");
}

void Worker::fill_border(BoundaryCell* dst, std::int64_t len, bool free, std::int32_t gap_open,
                         std::int32_t gap_extend) {
    settle_pass();
    detail::launch_border(reinterpret_cast<int2*>(dst), len + 1, free, gap_open, gap_extend, stream);
}

std::uint8_t* Worker::dirs_buffer(std::size_t bytes) {
    if (bytes > leaf_host_bytes) {
        free_pinned(leaf_host, mem_);
        leaf_host_bytes = 0;
        detail::alloc_pinned(leaf_host, bytes, "pinned buffer for a leaf's direction bytes", mem_);
        leaf_host_bytes = bytes;
    }
    return leaf_host;
}

int Worker::max_blocks_for(int R, bool want_dirs) const {
    return cx.max_blocks[long_geometry::lane_rows_index(R)][static_cast<int>(cx.mode)][want_dirs];
}

int Worker::rows_per_lane(std::int64_t rows, bool want_dirs) const {
    const bool local_without_spare =
        cx.mode == AlignMode::local && !detail::region_has_spare_code(cx.scheme.size, cx.packed);
    return long_geometry::rows_per_lane(rows, want_dirs, cx.options.rows_per_lane, cx.sms, local_without_spare);
}

detail::RegionLaunch Worker::base_launch(bool want_dirs, int R) const {
    detail::RegionLaunch a{};
    a.params.query = dq;
    a.params.ref = dr;
    a.params.matrix = static_cast<const std::int32_t*>(cx.matrix);
    a.params.size = cx.scheme.size;
    a.params.gap_open = cx.scheme.gap_open;
    a.params.gap_extend = cx.scheme.gap_extend;
    a.mode = cx.mode;
    a.dirs = want_dirs;
    a.packed = cx.packed;
    a.rows_per_lane = R;
    return a;
}

unsigned int* Worker::done_word() {
    done.ensure(1, true, "pinned launch-end flag", mem_);
    return done.host;
}

/// Waits for the launch run_launch left pending, if any (a deferred one,
/// or its own just before it returns), and adds its device time (its
/// events) to the statistics. Every method that launches or reads what
/// a launch wrote calls it first (the pinned descriptors are reused).
void Worker::settle_pass() {
    if (!pending_pass.active) return;
    pending_pass.active = false;
    waiter.wait(pending_pass.what);
    GPUALIGN_CUDA(cudaEventSynchronize(ev_stop), pending_pass.what);
    float event_ms = 0;
    GPUALIGN_CUDA(cudaEventElapsedTime(&event_ms, ev_start, ev_stop), "region timing");
    count_pass(event_ms, pending_pass.cells, pending_pass.t0);
}

/// Adds a launch of `cells` cells and `ms` of device time, run_launch'ed
/// at t0, to the statistics.
void Worker::count_pass(double ms, std::uint64_t cells, std::chrono::steady_clock::time_point t0) {
    stats_.total_ms += ms;
    stats_.total_cells += cells;
    ++stats_.passes;
    if (first_pass) stats_.forward_ms = ms;
    first_pass = false;
    stats_.launches_ms += ms_since(t0);
}

/// Launches `a` over descs (stripe_begin set), waits (reporting progress
/// for large launches), and adds the device time to the statistics.
/// With `defer` (a solo worker's leaf batch, no progress) it returns once
/// the kernel is queued, and settle_pass waits: the driver replays the
/// last walk meanwhile, and the walk's kernel queues behind it.
void Worker::run_launch(detail::RegionLaunch& a, std::vector<long_kernels::RegionDesc>& descs, std::uint64_t cells,
                        const std::function<void(std::uint64_t)>& on_cells, std::size_t warps, bool defer) {
    settle_pass();
    const auto t0 = std::chrono::steady_clock::now();
    descs_dev.ensure(sizeof(long_kernels::RegionDesc) * descs.size(), "region descriptors", mem_);
    // The descriptors go through pinned memory of the worker's (copied
    // in-stream before the kernel; nothing else uses it until the wait below).
    descs_host.ensure(descs.size(), false, "pinned region descriptors", mem_);
    std::memcpy(descs_host.host, descs.data(), sizeof(long_kernels::RegionDesc) * descs.size());
    a.regions_host = descs_host.host;
    a.params.regions = static_cast<long_kernels::RegionDesc*>(descs_dev.ptr);
    a.params.count = static_cast<int>(descs.size());
    ring.ensure(detail::region_ring_bytes(a), "long engine rings", mem_);
    a.params.ring = static_cast<int4*>(ring.ptr);
    progress.ensure(sizeof(int) * (static_cast<std::size_t>(a.params.stripes) + 2), "long engine progress flags", mem_);
    a.params.progress = static_cast<int*>(progress.ptr);
    const bool report = solo && on_cells && cells >= long_tuning::progress_min_cells;
    if (report) {
        if (!cells_host) {  // one counter per warp of the largest grid (a later launch may have more warps)
            alloc_mapped(cells_host, cells_dev, static_cast<std::size_t>(cx.max_warps),
                         "long engine progress counters", mem_);
        }
        std::fill(cells_host, cells_host + warps, 0ull);
    }
    a.params.cells_done = report ? cells_dev : nullptr;
    note_peak();

    // align_many's workers: the kernel signals its end in mapped memory
    // (StreamWaiter::poll), with no event recorded after it; their device
    // time is the host's, launch to end.
    const bool polled = !solo;
    a.params.launch_done = nullptr;
    if (polled) {
        __atomic_store_n(done_word(), 0u, __ATOMIC_RELEASE);
        a.params.launch_done = done.dev;
    }
    const auto t_launch = std::chrono::steady_clock::now();
    if (!polled) GPUALIGN_CUDA(cudaEventRecord(ev_start, stream), "region start event");
    detail::launch_region(a, stream);
    if (!polled) GPUALIGN_CUDA(cudaEventRecord(ev_stop, stream), "region stop event");
    arena.grow();  // (the forward pass's launch: the arena's rest while it runs)
    if (report) report_progress(warps, on_cells);
    const std::string what =
        "region kernel (" + std::to_string(descs.size()) + " region(s), " + std::to_string(cells) + " cells)";
    if (polled) {
        waiter.poll(done.host, what);
        count_pass(ms_since(t_launch), cells, t0);
        return;
    }
    pending_pass = {true, what, cells, t0};
    if (!defer || report) settle_pass();  // else the next call that needs it waits
}

/// Until the launch just queued ends: polls its stop event every
/// millisecond (a region ends within a millisecond of its kernel, not at
/// the next report) and reports the cells of its `warps` warps' counters
/// every 100 ms.
void Worker::report_progress(std::size_t warps, const std::function<void(std::uint64_t)>& on_cells) {
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

long_kernels::RegionDesc Worker::desc_of(const Region& reg) {
    long_kernels::RegionDesc d{};
    d.i0 = reg.i0;
    d.j0 = reg.j0;
    d.rows = static_cast<int>(reg.rows);
    d.cols = static_cast<int>(reg.cols);
    d.top = reinterpret_cast<const int2*>(reg.top);
    d.left = reinterpret_cast<const int2*>(reg.left);
    return d;
}

void Worker::check_size(const Region& reg) {
    if (reg.rows > std::numeric_limits<int>::max() / 2 || reg.cols > std::numeric_limits<int>::max() / 2)
        throw std::length_error("region of " + std::to_string(reg.rows) + " x " + std::to_string(reg.cols) +
                                " cells exceeds the kernel's 32-bit indices");
}

RegionResult Worker::compute(const Region& reg, const RegionOutputs& out,
                             const std::function<void(std::uint64_t)>& on_cells) {
    const bool forward = first_pass;
    WindowedResult res = compute_region(reg, out, on_cells, rows_per_lane(reg.rows, out.dirs != nullptr));
    if (res.best_w > 0) {
        const double ms_before = stats_.total_ms;
        locate_best(reg, out, res);
        stats_.locate_ms += stats_.total_ms - ms_before;
        if (forward) stats_.forward_ms += stats_.total_ms - ms_before;
    }
    return res;
}

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
void Worker::locate_best(const Region& reg, const RegionOutputs& out, WindowedResult& res) {
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
Worker::WindowedResult Worker::compute_region(const Region& reg, const RegionOutputs& out,
                                              const std::function<void(std::uint64_t)>& on_cells, int R) {
    check_size(reg);
    const bool want_dirs = out.dirs != nullptr;
    const int rows = static_cast<int>(reg.rows), cols = static_cast<int>(reg.cols);
    const int warps_per_block = detail::region_block_threads() / 32;
    const int resident = max_blocks_for(R, want_dirs);
    long_geometry::RegionGeometry geo = long_geometry::region_geometry(
        rows, cols, R, resident, warps_per_block, cx.options.max_blocks, ring_budget_, solo);
    // Beside other solo pairs a flow-controlled launch claims its blocks
    // (FlowBudget); with fewer than it wanted, its geometry is drawn again
    // for those (it may then need no flow control, and no claim).
    FlowClaim claim;
    const int rank = first_pass ? std::exchange(rank_, -1) : -1;  // the forward pass claims in rank order
    if (geo.flow && parts_ > 1) {
        claim = FlowClaim(cx.flow, cx.flow->claim(geo.blocks, resident, parts_, rank), resident);
        if (claim.blocks < geo.blocks) {
            const int cap = cx.options.max_blocks > 0 ? std::min(cx.options.max_blocks, claim.blocks) : claim.blocks;
            geo = long_geometry::region_geometry(rows, cols, R, resident, warps_per_block, cap, ring_budget_, solo);
        }
        claim.keep(geo.flow ? geo.blocks : 0);
    } else if (parts_ > 1) {
        cx.flow->pass(rank);
    }
    const int stripes = geo.stripes;
    if (!solo && geo.slots < std::min(2, stripes))
        throw std::logic_error("long engine worker: rows of " + std::to_string(cols) + " columns do not fit its rings");
    if (cx.mode != AlignMode::global) best.ensure(16 * static_cast<std::size_t>(stripes), "long engine stripe bests", mem_);
    corner.ensure(sizeof(int), "long engine corner", mem_);
    const std::size_t pitch = static_cast<std::size_t>(long_kernels::dirs_pitch(cols));
    if (want_dirs) dirs.ensure(static_cast<std::size_t>(rows) * pitch, "long engine direction bytes", mem_);

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
    a.params.stripes = stripes;
    a.params.ring_mask = static_cast<int>(geo.ring_cols) - 1;
    a.params.ring_slots = geo.slots;
    a.params.flow_control = geo.flow;
    a.blocks = geo.blocks;
    run_launch(a, descs, static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols), on_cells, geo.warps);

    WindowedResult res;
    if (want_dirs) copies.download_dirs(out.dirs, dirs.ptr, pitch, rows, cols, out.dirs == leaf_host);
    copies.download(&res.corner_h, corner.ptr, sizeof(int), "corner download");
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
void Worker::read_best(const Region& reg, int stripes, int R, WindowedResult& res) {
    if (cx.mode == AlignMode::semi_global) {
        int sb[4] = {};
        copies.download(sb, static_cast<const int*>(best.ptr) + 4 * static_cast<std::size_t>(stripes - 1), sizeof sb,
                 "last-row best download");
        res.best = sb[0];
        res.best_i = reg.i0 + sb[1];
        res.best_j = reg.j0 + sb[2];
    } else if (cx.mode == AlignMode::local) {
        std::vector<int> sb(4 * static_cast<std::size_t>(stripes));
        copies.download(sb.data(), best.ptr, sb.size() * sizeof(int), "stripe bests download");
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


AlignmentResult Worker::align(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                              const ProgressCallback& progress_cb) {
    const auto t0 = std::chrono::steady_clock::now();
    stats_ = {};
    const detail::DeviceMemory mem0 = mem_;
    first_pass = true;
    stats_.forward_cells = static_cast<std::uint64_t>(query.size()) * ref.size();
    if (!fits_int32(cx.scheme, query.size(), ref.size()))
        throw std::length_error("pair of lengths " + std::to_string(query.size()) + " x " +
                                std::to_string(ref.size()) + " could overflow 32-bit scores");
    GPUALIGN_CUDA(cudaSetDevice(cx.device), "long engine, device " + std::to_string(cx.device));
    const std::size_t m = query.size(), n = ref.size();
    if (solo) long_plan::plan_solo_pair(cx.options, m, n, plan, tile_batch_);
    const long_plan::PairBytes bytes =
        long_plan::pair_bytes(cx.options, plan, tile_batch_, leaf_batch_, ring_budget_, solo, limit_, m, n);
    tile_ring_budget = bytes.tile_ring_budget;
    if (ring.bytes > tile_ring_budget) ring.release(mem_);  // sized for an earlier pair
    arena.fit(bytes.arena, bytes.arena_first, bytes.floor, m, n);
    seqs.ensure(m + n + 2, "long engine sequences", mem_);
    auto* base = static_cast<std::uint8_t*>(seqs.ptr);
    copies.upload(base, query.data(), m, "query upload");
    copies.upload(base + m, ref.data(), n, "ref upload");
    dq = base;
    dr = base + m;
    note_peak();
    if (solo && batches.walks_leaves() && !(cx.score_only && cx.mode == AlignMode::global))
        batches.reserve_walk_async(m + n);
    AlignmentResult r;
    try {
        r = checkpoint_align(*this, query, ref, cx.scheme, cx.mode, cx.score_only, plan, progress_cb);
        settle_pass();
    } catch (...) {
        pending_pass.active = false;  // the stream's error, if any, comes with the next wait
        throw;
    }
    batches.take_walk_alloc();  // a pair whose path needed no walk
    stats_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats_.pairs_ms = stats_.wall_s * 1e3;
    stats_.allocs_ms = mem_.ms - mem0.ms;
    stats_.allocs = mem_.count - mem0.count;
    stats_.pinned_ms = mem_.pinned_ms - mem0.pinned_ms;
    stats_.pinned = mem_.pinned - mem0.pinned;
    return r;
}

}  // namespace gpualign::gpu::long_detail
