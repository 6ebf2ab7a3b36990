// gpualign — gpualign::gpu::LongEngine: the owning host object of the
// long-pair engine. Its workers are RegionBackends (long_worker.hpp, each
// with a device arena, rings, a stream): a worker computes each region of
// the checkpoint traceback (checkpoint_traceback.hpp) with one launch of the
// region kernel. align() runs one worker over the whole GPU; align_many()
// runs several pairs at once, one worker per host thread. Host code (g++).
#include "gpualign/gpu/long_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../common/cuda_check.hpp"
#include "../common/device_memory.hpp"
#include "../common/staging_pool.hpp"
#include "launch_geometry.hpp"
#include "long_dispatch.hpp"
#include "long_tuning.hpp"
#include "long_worker.hpp"
#include "pair_plan.hpp"

namespace gpualign::gpu {
namespace {

using detail::alloc_mapped;
using detail::ms_since;
using detail::rounded;
using detail::StagingPool;
using long_detail::Context;
using long_detail::Worker;
using long_geometry::lane_rows;
using long_geometry::lane_rows_index;

static_assert(sizeof(BoundaryCell) == 8, "BoundaryCell is the device's int2");

/// DP cells of a pair: query_len * ref_len.
std::uint64_t pair_cells(const LongPair& p) {
    return static_cast<std::uint64_t>(p.query.size()) * static_cast<std::uint64_t>(p.ref.size());
}

/// One align_many call: its pairs (borrowed), results and errors by pair
/// index, the statistics summed over its pairs and the progress it reports
/// (cells of the pairs done, of all_cells). Its workers' threads share it.
struct ManyRun {
    std::span<const LongPair> pairs;
    const ProgressCallback& progress;
    std::vector<AlignmentResult> results;
    std::vector<std::exception_ptr> failed;
    std::uint64_t all_cells = 0;
    std::atomic<std::uint64_t> cells_done{0};
    std::mutex mu;  // guards sum
    LongEngineStats sum;

    ManyRun(std::span<const LongPair> p, const ProgressCallback& prog)
        : pairs(p), progress(prog), results(p.size()), failed(p.size()) {
        for (const LongPair& q : pairs) all_cells += pair_cells(q);
    }

    /// Aligns pair k on `w`, keeping its result or its exception, and adds
    /// its statistics (`peak`: the worker's largest peak_device_bytes so far).
    void align(Worker& w, std::size_t k, const ProgressCallback& each, std::size_t& peak) {
        try {
            results[k] = w.align(pairs[k].query, pairs[k].ref, each);
        } catch (...) {
            failed[k] = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mu);
        sum += w.stats();  // the sums; peaks are each worker's largest, summed over workers
        peak = std::max(peak, w.stats().peak_device_bytes);
    }
};

/// Starts work(0) .. work(count - 1) on threads of their own, each counted
/// in `running` (the work decrements it when done). When a thread after the
/// first fails to start, the started ones take every pair; when the first
/// fails, its exception is rethrown. The threads join on destruction.
template <typename Work>
std::vector<std::jthread> start_threads(int count, const Work& work, std::atomic<int>& running) {
    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(std::max(0, count)));
    for (int wi = 0; wi < count; ++wi) {
        ++running;
        try {
            threads.emplace_back(work, wi);
        } catch (...) {
            --running;
            if (threads.empty()) throw;
            break;
        }
    }
    return threads;
}

}  // namespace

struct LongEngine::Impl {
    Context cx;
    StagingPool staging{long_tuning::staging_bytes, long_tuning::staging_buffers};  // before the workers: they give buffers back to it
    long_detail::FlowBudget flow;                  // before the workers: their claims give blocks back to it
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
        cx.flow = &flow;
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
        GPUALIGN_CUDA(cudaDeviceGetStreamPriorityRange(&cx.least_priority, &cx.greatest_priority),
                      "stream priorities");
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

    /// The cap less the substitution matrix: what the workers share.
    std::size_t usable() const { return cx.limit > cx.matrix_bytes ? cx.limit - cx.matrix_bytes : 0; }

    /// Each of `k` workers' share of `pool` bytes (default the usable cap).
    std::size_t share_of(int k) const { return share_of(k, usable()); }
    static std::size_t share_of(int k, std::size_t pool) { return pool / static_cast<std::size_t>(std::max(1, k)); }

    /// How align_many runs `pairs`: the pairs that `workers` workers share
    /// (largest first), the pairs run alone `solo_workers` at a time beside
    /// them (`together`, largest first, in `together_pool` bytes of the cap),
    /// and those run alone last, one after another over the whole GPU (`solo`).
    struct ManyPlan {
        int workers = 1;
        int solo_workers = 1;
        std::size_t together_pool = 0;
        std::vector<std::size_t> shared, together, solo;  // indices into pairs
    };

    /// Workers: as many as asked (default max_workers), as their part of the
    /// cap holds for the largest shared pair, and as there are shared pairs.
    /// A pair of at least solo_min_cells cells, or whose rows do not fit a
    /// worker's rings with min_worker_slots slots, runs alone. When several
    /// of those may run together (plan_together), they take half the cap and
    /// the shared pairs the other half. Configures the workers (use_workers).
    ManyPlan plan_many(std::span<const LongPair> pairs) {
        auto cells_of = [&](std::size_t k) { return pair_cells(pairs[k]); };
        const std::uint64_t solo_min =
            cx.options.solo_min_cells ? cx.options.solo_min_cells : long_tuning::solo_min_cells;
        // Largest first (longest-processing-time order keeps the workers even).
        std::vector<std::size_t> order(pairs.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return cells_of(a) > cells_of(b); });
        ManyPlan plan;
        int k = cx.options.workers > 0 ? cx.options.workers : long_tuning::max_workers;
        const auto below_solo = static_cast<std::size_t>(
            std::count_if(order.begin(), order.end(), [&](std::size_t p) { return cells_of(p) < solo_min; }));
        k = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(k), below_solo));
        std::vector<std::size_t> big;
        for (const std::size_t p : order)
            if (cells_of(p) >= solo_min) big.push_back(p);
        const bool halves = below_solo > 1 && together_count(pairs, big) > 1;
        const std::size_t shared_pool = halves ? usable() / 2 : usable();
        for (; k > 1; --k) {
            use_workers(k, shared_pool);
            const Worker& w = *workers[0];
            plan.shared.clear();
            plan.solo.clear();
            std::size_t need = 0;
            for (const std::size_t p : order) {
                const std::size_t ring_bytes =
                    long_geometry::ring_slot_bytes(long_geometry::whole_row_ring_cols(pairs[p].ref.size()));
                if (cells_of(p) < solo_min && ring_bytes * long_tuning::min_worker_slots <= w.ring_budget()) {
                    plan.shared.push_back(p);
                    const std::size_t bases = pairs[p].query.size() + pairs[p].ref.size();
                    need = std::max(need, w.others(bases) + long_plan::floor_bytes(bases));
                } else {
                    plan.solo.push_back(p);
                }
            }
            if (need <= w.share()) break;
        }
        if (k <= 1 || plan.shared.size() <= 1) {
            plan.shared.clear();
            plan.solo = order;
            k = 1;
        }
        plan.workers = k;  // the loop left the workers configured for k (k > 1)
        plan_together(pairs, plan, plan.shared.empty() ? usable() : usable() - shared_pool);
        return plan;
    }

    /// Of the pairs `ps`, how many may run beside each other: those whose
    /// forward pass takes 16 rows a lane, so that every flow-controlled
    /// launch among them is of one kernel variant (FlowBudget); larger ones
    /// (32 rows a lane) fill the GPU alone. All of them when the options
    /// force the rows a lane. 0 when the options ask for one at a time.
    std::size_t together_count(std::span<const LongPair> pairs, const std::vector<std::size_t>& ps) const {
        if (cx.options.solo_workers == 1) return 0;
        return static_cast<std::size_t>(std::count_if(ps.begin(), ps.end(), [&](std::size_t p) {
            return together_kind(pairs[p]);
        }));
    }
    bool together_kind(const LongPair& p) const {
        const auto rows = static_cast<std::int64_t>(p.query.size());
        return cx.options.rows_per_lane != 0 || long_tuning::rows_per_lane(rows, cx.sms) == 16;
    }

    /// Moves the solo pairs that may run beside each other (together_kind)
    /// from plan.solo to plan.together and sets plan.solo_workers: as many
    /// as the options ask (default long_tuning::solo_workers), as there are
    /// such pairs, and as `pool` bytes hold with each pair's full checkpoint
    /// plan in its share. Fewer than two: every solo pair one after another.
    void plan_together(std::span<const LongPair> pairs, ManyPlan& plan, std::size_t pool) const {
        if (cx.options.solo_workers == 1) return;
        std::vector<std::size_t> together, alone;
        for (const std::size_t p : plan.solo) (together_kind(pairs[p]) ? together : alone).push_back(p);
        int k = cx.options.solo_workers > 0 ? cx.options.solo_workers : long_tuning::solo_workers;
        k = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(k), together.size()));
        auto fits = [&](int parts) {
            return std::all_of(together.begin(), together.end(), [&](std::size_t p) {
                return long_plan::solo_pair_fits(cx.options, pairs[p].query.size(), pairs[p].ref.size(),
                                                 share_of(parts, pool));
            });
        };
        while (k > 1 && !fits(k)) --k;
        if (k <= 1) return;
        plan.solo_workers = k;
        plan.together_pool = pool;
        plan.together = std::move(together);
        plan.solo = std::move(alone);
    }

    /// Readies the workers of `plan` before their first pair, while no kernel
    /// of theirs runs: the staging pool holds a buffer for each worker (up
    /// to its cap), and the workers whose pinned host buffers do not serve
    /// the largest shared pair get them laid out in one new slab
    /// (Worker::lay_out). Allocated in the run, each would take milliseconds
    /// (cudaHostAlloc and cudaFreeHost wait for the device; docs/long.md);
    /// one allocation for all the workers pins less and calls the driver once.
    void ready(std::span<const LongPair> pairs, const ManyPlan& plan) {
        if (plan.workers <= 1 || plan.shared.empty()) return;
        std::size_t steps = 0;
        for (const std::size_t p : plan.shared) steps = std::max(steps, pairs[p].query.size() + pairs[p].ref.size());
        Worker& first = *workers[0];
        staging.reserve(static_cast<std::size_t>(plan.workers), first.memory());
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
        alloc_mapped(h, d, part * lacking.size(), "pinned buffers of the long engine's workers", first.memory());
        slabs.push_back(h);
        for (std::size_t k = 0; k < lacking.size(); ++k) (void)lacking[k]->lay_out(steps, h + k * part, d + k * part);
    }

    /// align_many's shared pairs (plan.shared, largest first) on
    /// plan.workers worker threads, each taking the next pair when done
    /// with one; reports progress every 100 ms while they run. Sets
    /// run.sum's setup_ms, tail_ms, first_pairs_ms and first_kernels_ms,
    /// and adds the workers' peaks to its peak_device_bytes. `t0`: the call's start.
    void run_shared(ManyRun& run, const ManyPlan& plan, std::chrono::steady_clock::time_point t0) {
        const std::vector<std::size_t>& order = plan.shared;
        std::atomic<std::size_t> next{0};
        std::atomic<std::int64_t> last_taken_ns{0};  // when the last pair was taken (steady clock)
        std::atomic<int> running{0};
        std::vector<std::size_t> peaks(static_cast<std::size_t>(plan.workers), 0);
        auto work = [&](int wi) {
            Worker& w = *workers[static_cast<std::size_t>(wi)];
            bool first = true;
            while (true) {
                const std::size_t t = next.fetch_add(1);
                if (t >= order.size()) break;
                if (t + 1 == order.size())
                    last_taken_ns = std::chrono::steady_clock::now().time_since_epoch().count();
                const std::size_t k = order[t];
                run.align(w, k, {}, peaks[static_cast<std::size_t>(wi)]);
                if (first) {
                    std::lock_guard<std::mutex> lock(run.mu);
                    run.sum.first_pairs_ms += w.stats().pairs_ms;
                    run.sum.first_kernels_ms += w.stats().total_ms;
                    first = false;
                }
                run.cells_done += pair_cells(run.pairs[k]);
            }
            --running;
        };
        {
            const std::vector<std::jthread> threads = start_threads(plan.workers, work, running);
            run.sum.setup_ms = ms_since(t0);
            while (run.progress && running.load() > 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                run.progress(run.cells_done.load(), run.all_cells);
            }
        }
        if (last_taken_ns.load() != 0)
            run.sum.tail_ms = ms_since(std::chrono::steady_clock::time_point(
                std::chrono::steady_clock::duration(last_taken_ns.load())));
        for (const std::size_t p : peaks) run.sum.peak_device_bytes += p;
    }

    /// align_many's solo pairs that run beside the shared ones
    /// (plan.together, largest first): workers plan.workers .. plan.workers +
    /// plan.solo_workers - 1, configured alone with `parts` =
    /// plan.solo_workers and equal shares of plan.together_pool, each on a
    /// thread of its own taking the next pair when done with one. Their
    /// flow-controlled launches share the GPU's co-resident blocks
    /// (FlowBudget). Returns the threads (they join on destruction); each
    /// decrements `running` when done and keeps its worker's largest
    /// peak_device_bytes in `peaks`.
    std::vector<std::jthread> start_together(ManyRun& run, const ManyPlan& plan, std::atomic<std::size_t>& next,
                                             std::atomic<int>& running, std::vector<std::size_t>& peaks) {
        const int k = plan.solo_workers, first = plan.shared.empty() ? 0 : plan.workers;
        while (static_cast<int>(workers.size()) < first + k) workers.push_back(std::make_unique<Worker>(cx));
        for (int w = first; w < first + k; ++w) workers[w]->configure(true, share_of(k, plan.together_pool), k);
        flow.reset(cx.options.solo_flow_share > 0 ? cx.options.solo_flow_share : long_tuning::solo_flow_share);
        peaks.assign(static_cast<std::size_t>(k), 0);
        auto work = [&run, &plan, &next, &running, &peaks, this, first](int wi) {
            Worker& w = *workers[static_cast<std::size_t>(first + wi)];
            for (std::size_t t; (t = next.fetch_add(1)) < plan.together.size();) {
                const std::size_t p = plan.together[t];
                // Largest first, at the greatest priority; every solo pair
                // above the shared pairs (the least).
                if (cx.options.solo_priorities) {
                    const int steps = std::max(1, std::abs(cx.least_priority - cx.greatest_priority));
                    const int rank = static_cast<int>(std::min<std::size_t>(t, static_cast<std::size_t>(steps - 1)));
                    try {
                        w.set_priority(cx.greatest_priority +
                                       (cx.least_priority > cx.greatest_priority ? rank : -rank));
                    } catch (...) {  // the pair's error (a CUDA error of the worker's stream)
                        run.failed[p] = std::current_exception();
                        flow.pass(static_cast<int>(t));
                        run.cells_done += pair_cells(run.pairs[p]);
                        continue;
                    }
                }
                w.set_rank(static_cast<int>(t));
                run.align(w, p, {}, peaks[static_cast<std::size_t>(wi)]);
                flow.pass(static_cast<int>(t));  // also when it failed before its forward pass
                w.set_rank(-1);
                run.cells_done += pair_cells(run.pairs[p]);
            }
            --running;
        };
        return start_threads(k, work, running);
    }

    /// align_many's pairs too wide for the workers' rings (plan.solo), one
    /// at a time over the whole GPU as align() runs them; run.sum's
    /// peak_device_bytes becomes at least their largest.
    void run_solo(ManyRun& run, const ManyPlan& plan) {
        use_workers(1);
        Worker& w = *workers[0];
        std::size_t peak = 0;
        for (const std::size_t k : plan.solo) {
            const std::uint64_t base = run.cells_done.load();
            ProgressCallback each;
            if (run.progress)
                each = [&](std::uint64_t done, std::uint64_t) { run.progress(base + done, run.all_cells); };
            run.align(w, k, each, peak);
            run.cells_done += pair_cells(run.pairs[k]);
        }
        run.sum.peak_device_bytes = std::max(run.sum.peak_device_bytes, peak);
    }

    /// Workers 1..k-1 exist and every worker is configured for k at once,
    /// with an equal share of `pool` bytes (default the usable cap; k = 1:
    /// workers[0] alone, solo); the others' buffers are freed.
    void use_workers(int k) { use_workers(k, usable()); }
    void use_workers(int k, std::size_t pool) {
        while (static_cast<int>(workers.size()) < k) workers.push_back(std::make_unique<Worker>(cx));
        for (int w = 0; w < static_cast<int>(workers.size()); ++w) {
            if (w < k)
                workers[w]->configure(k == 1, share_of(k, pool));
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
    if (options.solo_workers < 0) throw std::invalid_argument("LongEngineOptions::solo_workers must be >= 0");
    if (!(options.solo_flow_share >= 0 && options.solo_flow_share <= 1))
        throw std::invalid_argument("LongEngineOptions::solo_flow_share must be in [0, 1]");
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
        im.stats = w.stats();
        return r;
    } catch (...) {
        im.stats = w.stats();
        throw;
    }
}

std::vector<AlignmentResult> LongEngine::align_many(std::span<const LongPair> pairs,
                                                    std::vector<std::exception_ptr>* errors) {
    Impl& im = *impl_;
    const auto t0 = std::chrono::steady_clock::now();
    ManyRun run(pairs, im.cx.options.progress);
    GPUALIGN_CUDA(cudaSetDevice(im.cx.device), "long engine, device " + std::to_string(im.cx.device));
    const Impl::ManyPlan plan = im.plan_many(pairs);
    im.ready(pairs, plan);
    {
        // The solo pairs that run together start first and beside the
        // shared ones: they are the set's longest chains.
        std::atomic<std::size_t> next{0};
        std::atomic<int> running{0};
        std::vector<std::size_t> peaks;
        std::vector<std::jthread> together;
        if (!plan.together.empty()) together = im.start_together(run, plan, next, running, peaks);
        if (!plan.shared.empty()) im.run_shared(run, plan, t0);
        while (run.progress && running.load() > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            run.progress(run.cells_done.load(), run.all_cells);
        }
        together.clear();  // joins
        run.sum.peak_device_bytes += std::accumulate(peaks.begin(), peaks.end(), std::size_t{0});
    }
    if (!plan.solo.empty()) im.run_solo(run, plan);
    if (run.progress) run.progress(run.cells_done.load(), run.all_cells);
    run.sum.workers = plan.workers;
    run.sum.solo_pairs = plan.together.size() + plan.solo.size();
    run.sum.solo_workers = plan.solo_workers;
    run.sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    im.stats = run.sum;
    if (errors) {
        *errors = std::move(run.failed);
    } else {
        for (const std::exception_ptr& e : run.failed)
            if (e) std::rethrow_exception(e);
    }
    return std::move(run.results);
}

void LongEngine::prepare(std::span<const LongPair> pairs) {
    if (pairs.size() < 2) return;
    Impl& im = *impl_;
    GPUALIGN_CUDA(cudaSetDevice(im.cx.device), "long engine, device " + std::to_string(im.cx.device));
    im.ready(pairs, im.plan_many(pairs));
}

LongEngineStats LongEngine::last_stats() const noexcept { return impl_->stats; }

}  // namespace gpualign::gpu
