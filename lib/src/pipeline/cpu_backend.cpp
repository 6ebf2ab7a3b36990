// The CPU backend of the pairs pipeline (pair_backend.hpp): pairs up to
// full_matrix_cells run align_pair in parallel over pairs (align_pairs_cpu:
// the SIMD kernel in lane groups or the scalar reference); larger ones run
// align_pair_long one at a time on every thread, outside that loop (no
// nested parallelism).
#include <deque>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/align/simd_aligner.hpp"
#include "long_pairs.hpp"
#include "pair_backend.hpp"
#include "run_setup.hpp"

namespace gpualign::detail {
namespace {

/// Aligns the pairs `indices` of `b` on the CPU (align_pairs_cpu: the SIMD
/// kernel in lane groups or the scalar reference, on `threads` threads).
/// Callers keep pairs above full_matrix_cells out: align_pair would spread
/// those over every core inside this call.
void align_on_cpu(const Batch& b, const std::vector<std::size_t>& indices, const ScoringScheme& s, AlignMode mode,
                  bool score_only, CpuKernel kernel, int threads, std::vector<AlignmentResult>& out) {
    std::vector<PairView> pairs;
    pairs.reserve(indices.size());
    for (const std::size_t k : indices) pairs.push_back({b.queries[k].codes, b.refs[k].codes});
    std::vector<AlignmentResult> results(indices.size());
    try {
        align_pairs_cpu(pairs, s, mode, score_only, kernel, threads, results);
    } catch (const PairFailure& f) {
        try {
            std::rethrow_exception(f.cause);
        } catch (...) {
            rethrow_for_pair(b, indices[f.index]);
        }
    }
    for (std::size_t n = 0; n < indices.size(); ++n) out[indices[n]] = std::move(results[n]);
}

class CpuBackend final : public PairBackend {
public:
    CpuBackend(const AlignConfig& c, const ScoringScheme& s)
        : job_{s, c.mode, c.score_only, c.cpu_kernel, run_threads(c)}, progress_(c, 1) {
        description_ = "cpu (" + std::to_string(job_.threads) + " threads, " +
                       (job_.cpu_kernel == CpuKernel::simd ? "simd " + simd_instruction_set(simd_target()) : std::string("scalar")) + ")";
    }

    /// Sorts the pairs of `b` into those for align_pairs_cpu and the long
    /// ones; all are aligned in collect().
    void submit(std::shared_ptr<const Batch> b) override {
        Pending p;
        p.batch = std::move(b);
        const Batch& batch = *p.batch;
        for (std::size_t k = 0; k < batch.size(); ++k)
            (pair_cells(batch, k) > full_matrix_cells ? p.on_long : p.on_cpu).push_back(k);
        pending_.push_back(std::move(p));
    }

    Collected collect() override {
        Pending p = std::move(pending_.front());
        pending_.pop_front();
        const Batch& b = *p.batch;
        std::vector<AlignmentResult> out(b.size());
        if (!p.on_cpu.empty())
            align_on_cpu(b, p.on_cpu, job_.scheme, job_.mode, job_.score_only, job_.cpu_kernel, job_.threads, out);
        for (const std::size_t k : p.on_long) out[k] = align_long(b, k);
        return {std::move(p.batch), std::move(out)};
    }

    BackendTotals totals() const override {
        BackendTotals t;
        t.long_pairs = long_pairs_;
        return t;
    }

private:
    /// A submitted batch: its pairs for align_pairs_cpu and its long pairs.
    struct Pending {
        std::shared_ptr<const Batch> batch;
        std::vector<std::size_t> on_cpu, on_long;  // pair indices within the batch
    };

    /// Aligns pair k of b on the CPU's long-pair path, with the progress
    /// line. @throws std::runtime_error naming the pair.
    AlignmentResult align_long(const Batch& b, std::size_t k) {
        progress_.begin(progress_label(b, k), pair_cells(b, k));
        try {
            AlignmentResult res = align_long_pair_on_cpu(b.queries[k].codes, b.refs[k].codes, job_, progress_, 0);
            progress_.end(true);
            ++long_pairs_;
            return res;
        } catch (...) {
            progress_.end(false);
            rethrow_for_pair(b, k);
        }
    }

    PairJob job_;
    LongPairProgress progress_;
    std::uint64_t long_pairs_ = 0;
    std::deque<Pending> pending_;
};

}  // namespace

std::unique_ptr<PairBackend> make_cpu_backend(const AlignConfig& c, const ScoringScheme& s) {
    return std::make_unique<CpuBackend>(c, s);
}

}  // namespace gpualign::detail
