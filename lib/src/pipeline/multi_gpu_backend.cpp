// The several-GPUs backend of the pairs pipeline (pair_backend.hpp,
// --devices): each GPU routes as the one-GPU backend does (GpuWorkers), and
// each batch is shared between them (device_shares.hpp).
//
// A batch's pairs for the batch engines are cut into consecutive runs, one
// per GPU, in proportion to each GPU's measured speed (DP cells per kernel
// millisecond, from the runs it finished), so a slower GPU takes fewer; a
// batch's long pairs are dealt to the GPUs, the longest first to the least
// loaded, and the GPUs align their shares at the same time. Every engine's
// results are canonical, so which GPU aligns a pair never changes its bytes.
#include <algorithm>
#include <deque>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "channel.hpp"
#include "device_shares.hpp"
#include "gpu_workers.hpp"
#include "pair_backend.hpp"
#include "run_setup.hpp"

namespace gpualign::detail {
namespace {

/// Calls fn(w) for each GPU worker w dealt at least one pair, the GPUs
/// at the same time (a thread each; on the calling thread when only one
/// is dealt any), and returns when every call has. fn must not throw.
template <typename Fn>
void on_dealt_gpus(const std::vector<std::vector<std::size_t>>& dealt, const Fn& fn) {
    std::vector<std::size_t> busy;
    for (std::size_t w = 0; w < dealt.size(); ++w)
        if (!dealt[w].empty()) busy.push_back(w);
    if (busy.size() == 1) {
        fn(busy[0]);
    } else {
        std::vector<std::jthread> threads;
        for (const std::size_t w : busy) threads.emplace_back(fn, w);
    }
}

/// One long-lived host thread per GPU worker that runs the calls handed to
/// it in order. The batch engines' host work (packing, results) runs in
/// OpenMP teams, and libgomp keeps a team's threads per calling thread: a
/// thread made for each batch would start a fresh team at every parallel
/// region, where a lasting one reuses its team.
class GpuThreads {
public:
    explicit GpuThreads(std::size_t n) : queues_(n) {
        for (std::size_t w = 0; w < n; ++w) {
            queues_[w] = std::make_unique<Channel<std::packaged_task<void()>>>(SIZE_MAX);
            threads_.emplace_back([q = queues_[w].get()] {
                while (std::optional<std::packaged_task<void()>> task = q->pop()) (*task)();
            });
        }
    }
    ~GpuThreads() {
        for (auto& q : queues_) q->finish();
    }
    GpuThreads(const GpuThreads&) = delete;
    GpuThreads& operator=(const GpuThreads&) = delete;

    /// Runs fn(w) on worker w's thread for each worker w of `busy` (on the
    /// calling thread when there is only one), and returns when every call
    /// has. fn must not throw.
    template <typename Fn>
    void run_on(const std::vector<std::size_t>& busy, const Fn& fn) {
        if (busy.size() == 1) {
            fn(busy[0]);
            return;
        }
        std::vector<std::future<void>> done;
        for (const std::size_t w : busy) {
            std::packaged_task<void()> task([&fn, w] { fn(w); });
            done.push_back(task.get_future());
            queues_[w]->push(std::move(task));
        }
        for (auto& d : done) d.get();
    }

private:
    std::vector<std::unique_ptr<Channel<std::packaged_task<void()>>>> queues_;
    std::vector<std::jthread> threads_;  // joined after the queues finish (declared after them)
};

class MultiGpuBackend final : public PairBackend {
public:
    MultiGpuBackend(const AlignConfig& c, const ScoringScheme& s, const std::vector<int>& devices, int engine_threads)
        : gpus_(c, s, devices, engine_threads), threads_(devices.size()) {
        description_ = gpus_description(devices, [](int device, const std::string& about) {
            spdlog::info("using GPU {} {}", device, about);
        });
        std::vector<int> sorted(devices);
        std::sort(sorted.begin(), sorted.end());
        if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
            spdlog::warn("--devices lists device {} more than once: its workers share that GPU", *twice);
    }

    /// Deals the batch's long pairs and readies their engines, then starts
    /// each GPU's batch engine on its share; the long pairs are aligned in
    /// collect().
    void submit(std::shared_ptr<const Batch> b) override {
        Pending p;
        p.batch = std::move(b);
        const Batch& batch = *p.batch;
        const GpuRoute route = gpus_.route(batch);
        p.on_long = route.on_long;
        if (!p.on_long.empty()) {
            p.dealt = deal_long(batch, p.on_long);
            on_dealt_gpus(p.dealt, [&](std::size_t w) { gpus_.prepare_long_engine(w, batch, p.dealt[w]); });
        }
        // Shares in proportion to the measured speeds (equal until every GPU has one).
        std::vector<double> weights(gpus_.size(), 1.0);
        bool measured = true;
        for (std::size_t w = 0; w < gpus_.size(); ++w) measured = measured && gpus_[w].cells_per_ms > 0;
        if (measured)
            for (std::size_t w = 0; w < gpus_.size(); ++w) weights[w] = gpus_[w].cells_per_ms;
        const std::vector<std::size_t> cuts = proportional_cuts(route.cells, weights);
        // Each GPU's share is packed and enqueued on its own thread
        // (GpuThreads): an engine's submit waits for one of its streams to
        // come free, and one GPU's wait must not hold back the other's work.
        std::vector<std::size_t> busy;  // the GPUs given a share
        for (std::size_t w = 0; w < gpus_.size(); ++w)
            if (cuts[w] != cuts[w + 1]) busy.push_back(w);
        std::vector<std::optional<GpuShare>> shares(gpus_.size());
        std::vector<std::exception_ptr> failure(gpus_.size());
        threads_.run_on(busy, [&](std::size_t w) {
            try {
                shares[w] = gpus_.submit_share(w, batch, route, cuts[w], cuts[w + 1]);
            } catch (...) {
                failure[w] = std::current_exception();
            }
        });
        for (std::size_t w = 0; w < gpus_.size(); ++w)
            if (shares[w]) p.shares.push_back(std::move(*shares[w]));
        pending_.push_back(std::move(p));  // the shares in flight are collected (or drained) with the batch
        for (const std::exception_ptr& e : failure)
            if (e) std::rethrow_exception(e);
    }

    /// The long pairs first: the GPUs' batch engines keep working meanwhile.
    Collected collect() override {
        Pending p = std::move(pending_.front());
        pending_.pop_front();
        const Batch& b = *p.batch;
        std::vector<AlignmentResult> out(b.size());
        if (!p.on_long.empty()) align_long(b, p.on_long, p.dealt, out);
        // The GPUs' shares at the same time (a thread each): their results
        // go to disjoint pairs of `out`.
        std::vector<std::size_t> busy;
        std::vector<GpuShare*> share_of(gpus_.size(), nullptr);
        for (GpuShare& s : p.shares) {
            busy.push_back(s.worker);
            share_of[s.worker] = &s;
        }
        std::vector<std::exception_ptr> failure(gpus_.size());
        threads_.run_on(busy, [&](std::size_t w) {
            try {
                gpus_.collect_share(*share_of[w], out);
            } catch (...) {
                failure[w] = std::current_exception();
            }
        });
        for (const std::exception_ptr& e : failure)
            if (e) std::rethrow_exception(e);
        return {std::move(p.batch), std::move(out)};
    }

    BackendTotals totals() const override { return gpus_.totals(); }
    void log_devices() const override { gpus_.log_devices(); }

private:
    /// A submitted batch: its device batches in flight (one share per GPU
    /// given any), its long pairs and how they were dealt.
    struct Pending {
        std::shared_ptr<const Batch> batch;
        std::vector<std::size_t> on_long;             // pair indices within the batch
        std::vector<std::vector<std::size_t>> dealt;  // on_long dealt to each worker (deal_long)
        std::vector<GpuShare> shares;
    };

    /// The long pairs `ks` of b dealt to the GPU workers: longest first to
    /// the GPU with the fewest cells so far. Each worker's pairs in batch
    /// order.
    std::vector<std::vector<std::size_t>> deal_long(const Batch& b, const std::vector<std::size_t>& ks) const {
        std::vector<std::vector<std::size_t>> dealt(gpus_.size());
        std::vector<std::uint64_t> load(gpus_.size(), 0);
        std::vector<std::size_t> longest(ks);
        std::stable_sort(longest.begin(), longest.end(),
                         [&](std::size_t x, std::size_t y) { return pair_cells(b, x) > pair_cells(b, y); });
        for (const std::size_t k : longest) {
            const std::size_t w = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            dealt[w].push_back(k);
            load[w] += std::max<std::uint64_t>(1, pair_cells(b, k));
        }
        for (auto& d : dealt) std::sort(d.begin(), d.end());
        return dealt;
    }

    /// Aligns the long pairs `ks` of b on the GPUs' long-pair engines, with
    /// one progress line for them all: each GPU its pairs `dealt`
    /// (deal_long), the GPUs at the same time (a thread each).
    /// @throws std::runtime_error naming the first pair (in batch order)
    ///         whose error ended the run.
    void align_long(const Batch& b, const std::vector<std::size_t>& ks,
                    const std::vector<std::vector<std::size_t>>& dealt, std::vector<AlignmentResult>& out) {
        gpus_.begin_long_progress(b, ks);
        // Each GPU's first failing pair (in batch order) and its error.
        std::vector<std::size_t> failed_pair(gpus_.size(), b.size());
        std::vector<std::exception_ptr> failure(gpus_.size());
        const auto run = [&](std::size_t w) {
            try {
                gpus_.align_long(w, b, dealt[w], out, failed_pair[w]);
            } catch (...) {
                failure[w] = std::current_exception();
                if (failed_pair[w] == b.size()) failed_pair[w] = dealt[w].front();
            }
        };
        on_dealt_gpus(dealt, run);
        std::size_t first = gpus_.size();
        for (std::size_t w = 0; w < gpus_.size(); ++w)
            if (failure[w] && (first == gpus_.size() || failed_pair[w] < failed_pair[first])) first = w;
        gpus_.end_long_progress(first == gpus_.size());
        if (first != gpus_.size()) std::rethrow_exception(failure[first]);
    }

    GpuWorkers gpus_;
    GpuThreads threads_;           // idle between calls; stopped before the engines
    std::deque<Pending> pending_;  // destroyed before the engines
};

}  // namespace

std::unique_ptr<PairBackend> make_multi_gpu_backend(const AlignConfig& c, const ScoringScheme& s,
                                                    const std::vector<int>& devices, int engine_threads) {
    return std::make_unique<MultiGpuBackend>(c, s, devices, engine_threads);
}

}  // namespace gpualign::detail
