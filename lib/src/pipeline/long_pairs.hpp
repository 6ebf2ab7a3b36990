// gpualign — what the backends of the pairs pipeline share for long pairs:
// the progress line and the CPU's long-pair path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/pipeline/progress.hpp"
#include "pair_backend.hpp"

namespace gpualign::detail {

/// The progress line of the long pairs (ProgressLine on stderr, per
/// --progress), fed by `workers` reporters at once (the GPUs' long-pair
/// threads, or the CPU's long path as worker 0): the line shows the sum.
class LongPairProgress {
public:
    LongPairProgress(const AlignConfig& c, std::size_t workers);

    bool enabled() const noexcept { return line_.enabled(); }
    /// A new line for `label`, of `cells` DP cells; every worker at 0.
    void begin(std::string label, std::uint64_t cells);
    /// Worker `w` has done `done` cells of the current line.
    void report(std::size_t w, std::uint64_t done);
    void end(bool succeeded);

private:
    ProgressLine line_;
    std::mutex mutex_;                   // the GPUs' long-pair threads report at once
    std::vector<std::uint64_t> done_;    // per worker, of the current line
    std::uint64_t total_ = 0;
};

/// align_pair_long of q x r on all job.threads, reporting to `progress` as
/// worker `w`. Memory: the default bound (512 MiB) for checkpoints and
/// tiles, raised for very long pairs to the floor documented in
/// long_aligner.hpp (about 32 bytes per base of query + ref) plus 64 MiB,
/// so that length alone never makes a pair fail.
/// @throws what align_pair_long throws (callers name the pair).
AlignmentResult align_long_pair_on_cpu(std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
                                       const PairJob& job, LongPairProgress& progress, std::size_t w);

}  // namespace gpualign::detail
