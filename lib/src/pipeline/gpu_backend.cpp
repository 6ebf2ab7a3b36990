// The one-GPU backend of the pairs pipeline (pair_backend.hpp): the batch
// engine (gpu::BatchEngine, a warp per pair) takes the pairs it accepts below
// Defaults::long_pair_cells, the long-pair engine (gpu::LongEngine) the
// others (GpuWorkers routes them), with the CPU for pairs a --gpu-memory cap
// keeps off the GPU.
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "gpu_workers.hpp"
#include "pair_backend.hpp"
#include "run_setup.hpp"

namespace gpualign::detail {
namespace {

class GpuBackend final : public PairBackend {
public:
    GpuBackend(const AlignConfig& c, const ScoringScheme& s, int device, int engine_threads)
        : gpus_(c, s, {device}, engine_threads) {
        description_ = gpus_description({device}, [](int, const std::string& about) {
            spdlog::info("using GPU {}", about);
        });
    }

    /// Readies the long-pair engine for the batch's long pairs and starts the
    /// batch engine on the others; the long pairs are aligned in collect().
    void submit(std::shared_ptr<const Batch> b) override {
        Pending p;
        p.batch = std::move(b);
        const Batch& batch = *p.batch;
        const GpuRoute route = gpus_.route(batch);
        p.on_long = route.on_long;
        if (!p.on_long.empty()) gpus_.prepare_long_engine(0, batch, p.on_long);
        if (!route.on_gpu.empty()) p.share = gpus_.submit_share(0, batch, route, 0, route.on_gpu.size());
        pending_.push_back(std::move(p));
    }

    /// The long pairs first, one progress line for them all: the batch
    /// engine keeps working meanwhile.
    Collected collect() override {
        Pending p = std::move(pending_.front());
        pending_.pop_front();
        const Batch& b = *p.batch;
        std::vector<AlignmentResult> out(b.size());
        if (!p.on_long.empty()) {
            gpus_.begin_long_progress(b, p.on_long);
            std::size_t failed = b.size();
            try {
                gpus_.align_long(0, b, p.on_long, out, failed);
            } catch (...) {
                gpus_.end_long_progress(false);
                throw;
            }
            gpus_.end_long_progress(true);
        }
        if (p.share) gpus_.collect_share(*p.share, out);
        return {std::move(p.batch), std::move(out)};
    }

    BackendTotals totals() const override { return gpus_.totals(); }
    void log_devices() const override { gpus_.log_devices(); }

private:
    /// A submitted batch: its device batches in flight (the share), its long
    /// pairs waiting for collect().
    struct Pending {
        std::shared_ptr<const Batch> batch;
        std::vector<std::size_t> on_long;  // pair indices within the batch
        std::optional<GpuShare> share;
    };

    GpuWorkers gpus_;
    std::deque<Pending> pending_;  // destroyed before the engines
};

}  // namespace

std::unique_ptr<PairBackend> make_gpu_backend(const AlignConfig& c, const ScoringScheme& s, int device,
                                              int engine_threads) {
    return std::make_unique<GpuBackend>(c, s, device, engine_threads);
}

}  // namespace gpualign::detail
