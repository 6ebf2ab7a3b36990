// The long pairs' progress line and CPU path, shared by the backends (long_pairs.hpp).
#include "long_pairs.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "gpualign/align/long_aligner.hpp"
#include "run_setup.hpp"

namespace gpualign::detail {

LongPairProgress::LongPairProgress(const AlignConfig& c, std::size_t workers)
    : line_(stderr, progress_settings(c).enabled, progress_settings(c).delay_s, Defaults::progress_period_s),
      done_(std::max<std::size_t>(1, workers), 0) {}

void LongPairProgress::begin(std::string label, std::uint64_t cells) {
    std::lock_guard lock(mutex_);
    std::fill(done_.begin(), done_.end(), 0);
    total_ = cells;
    line_.begin(std::move(label), cells);
}

void LongPairProgress::report(std::size_t w, std::uint64_t done) {
    std::lock_guard lock(mutex_);
    done_[w] = done;
    std::uint64_t sum = 0;
    for (const std::uint64_t d : done_) sum += d;
    line_.update(sum, total_);
}

void LongPairProgress::end(bool succeeded) {
    std::lock_guard lock(mutex_);
    line_.end(succeeded);
}

AlignmentResult align_long_pair_on_cpu(std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
                                       const PairJob& job, LongPairProgress& progress, std::size_t w) {
    LongAlignOptions options;
    options.threads = job.threads;
    options.kernel = job.cpu_kernel;
    const std::size_t bases = q.size() + r.size();
    if (bases < (SIZE_MAX - (std::size_t{64} << 20)) / 32)
        options.memory_limit = std::max(options.memory_limit, 32 * bases + (std::size_t{64} << 20));
    if (progress.enabled())
        options.progress = [&progress, w](std::uint64_t done, std::uint64_t) { progress.report(w, done); };
    return align_pair_long(q, r, job.scheme, job.mode, job.score_only, options);
}

}  // namespace gpualign::detail
