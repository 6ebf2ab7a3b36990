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
    /// (largest first), the pairs run alone afterwards `solo_workers` at a
    /// time (`together`, largest first), and those run alone last, one after
    /// another over the whole GPU (`solo`).
    struct ManyPlan {
        int workers = 1;
        int solo_workers = 1;
        std::vector<std::size_t> shared, together, solo;  // indices into pairs
    };

    /// Workers: as many as asked (default max_workers), as the cap holds for
    /// the largest shared pair, and as there are shared pairs. A pair of at
    /// least solo_min_cells cells, or whose rows do not fit a worker's rings
    /// with min_worker_slots slots, runs alone afterwards. Configures the
    /// workers (use_workers).
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
        for (; k > 1; --k) {
            use_workers(k);
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
        plan_together(pairs, plan);
        return plan;
    }

    /// Moves the solo pairs that may run beside each other from plan.solo
    /// to plan.together and sets plan.solo_workers: as many as the options
    /// ask (default long_tuning::solo_workers), as there are such pairs, and
    /// as the cap holds with each pair's full checkpoint plan in its share.
    /// Such pairs take 16 rows a lane in their forward pass, so that every
    /// flow-controlled launch among them is of one kernel variant
    /// (FlowBudget); larger ones (32 rows a lane) fill the GPU alone.
    void plan_together(std::span<const LongPair> pairs, ManyPlan& plan) const {
        std::vector<std::size_t> together, alone;
        for (const std::size_t p : plan.solo) {
            const auto rows = static_cast<std::int64_t>(pairs[p].query.size());
            const int R = cx.options.rows_per_lane ? cx.options.rows_per_lane : long_tuning::rows_per_lane(rows, cx.sms);
            (R == 16 || cx.options.rows_per_lane ? together : alone).push_back(p);
        }
        int k = cx.options.solo_workers > 0 ? cx.options.solo_workers : long_tuning::solo_workers;
        k = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(k), together.size()));
        auto fits = [&](int parts) {
            return std::all_of(together.begin(), together.end(), [&](std::size_t p) {
                return long_plan::solo_pair_fits(cx.options, pairs[p].query.size(), pairs[p].ref.size(),
                                                 share_of(parts));
            });
        };
        while (k > 1 && !fits(k)) --k;
        if (k <= 1) return;  // every solo pair one after another
        plan.solo_workers = k;
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
            // jthreads join on destruction, also when a later one fails to start.
            std::vector<std::jthread> threads;
            threads.reserve(static_cast<std::size_t>(plan.workers));
            for (int wi = 0; wi < plan.workers; ++wi) {
                ++running;
                try {
                    threads.emplace_back(work, wi);
                } catch (...) {
                    --running;
                    if (threads.empty()) throw;
                    break;  // the started workers take every pair
                }
            }
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

    /// align_many's solo pairs that run beside each other (plan.together,
    /// largest first) on plan.solo_workers solo workers, each with its own
    /// thread and an equal share of the cap, taking the next pair when done
    /// with one; their flow-controlled launches share the GPU's co-resident
    /// blocks (FlowBudget). Reports progress every 100 ms while they run;
    /// run.sum's peak_device_bytes becomes at least the workers' summed peaks.
    void run_together(ManyRun& run, const ManyPlan& plan) {
        const int k = plan.solo_workers;
        while (static_cast<int>(workers.size()) < k) workers.push_back(std::make_unique<Worker>(cx));
        for (int w = 0; w < static_cast<int>(workers.size()); ++w) {
            if (w < k)
                workers[w]->configure(true, share_of(k), k);
            else
                workers[w]->release_buffers();
        }
        std::atomic<std::size_t> next{0};
        std::atomic<int> running{0};
        std::vector<std::size_t> peaks(static_cast<std::size_t>(k), 0);
        auto work = [&](int wi) {
            Worker& w = *workers[static_cast<std::size_t>(wi)];
            for (std::size_t t; (t = next.fetch_add(1)) < plan.together.size();) {
                const std::size_t p = plan.together[t];
                run.align(w, p, {}, peaks[static_cast<std::size_t>(wi)]);
                run.cells_done += pair_cells(run.pairs[p]);
            }
            --running;
        };
        {
            std::vector<std::jthread> threads;  // join on destruction, also when a later one fails to start
            threads.reserve(static_cast<std::size_t>(k));
            for (int wi = 0; wi < k; ++wi) {
                ++running;
                try {
                    threads.emplace_back(work, wi);
                } catch (...) {
                    --running;
                    if (threads.empty()) throw;
                    break;  // the started workers take every pair
                }
            }
            while (run.progress && running.load() > 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                run.progress(run.cells_done.load(), run.all_cells);
            }
        }
        std::size_t peak = 0;
        for (const std::size_t p : peaks) peak += p;
        run.sum.peak_device_bytes = std::max(run.sum.peak_device_bytes, peak);
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
    if (options.solo_workers < 0) throw std::invalid_argument("LongEngineOptions::solo_workers must be >= 0");
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
    if (!plan.shared.empty()) im.run_shared(run, plan, t0);
    if (!plan.together.empty()) im.run_together(run, plan);
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
