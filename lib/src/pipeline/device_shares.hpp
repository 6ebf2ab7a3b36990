// gpualign — how the pipelines share work between GPUs (--devices): cutting
// an ordered list into runs in proportion to weights, and running one job
// per GPU on threads of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <thread>
#include <vector>

namespace gpualign::detail {

/// Cuts `items` (sizes in any unit, in order; e.g. DP cells or letters)
/// into weights.size() consecutive runs whose sizes are in proportion to
/// the weights (each > 0): an item goes to the run in which its middle
/// falls. Returns the weights.size() + 1 run boundaries, 0 first and
/// items.size() last; a run may be empty.
inline std::vector<std::size_t> proportional_cuts(std::span<const std::uint64_t> items,
                                                  std::span<const double> weights) {
    std::uint64_t total = 0;
    for (const std::uint64_t c : items) total += c;
    double sum = 0;
    for (const double w : weights) sum += w;
    std::vector<std::size_t> cuts{0};
    std::size_t k = 0;
    std::uint64_t done = 0;
    double share = 0;
    for (std::size_t w = 0; w + 1 < weights.size(); ++w) {
        share += weights[w] / sum;
        const double bound = share * static_cast<double>(total);
        while (k < items.size() && static_cast<double>(done) + static_cast<double>(items[k]) / 2 < bound)
            done += items[k++];
        cuts.push_back(k);
    }
    cuts.push_back(items.size());
    return cuts;
}

/// proportional_cuts with `parts` equal weights.
inline std::vector<std::size_t> even_cuts(std::span<const std::uint64_t> items, std::size_t parts) {
    const std::vector<double> equal(parts, 1.0);
    return proportional_cuts(items, equal);
}

/// Runs job(d) for d = 0 .. count-1, each on a thread of its own when
/// count > 1 (on the caller's thread when 1), waits for all, then rethrows
/// the exception of the lowest d that failed.
template <typename Job>
void run_on_devices(std::size_t count, const Job& job) {
    if (count == 1) {
        job(std::size_t{0});
        return;
    }
    std::vector<std::exception_ptr> errors(count);
    {
        std::vector<std::jthread> threads;
        for (std::size_t d = 0; d < count; ++d)
            threads.emplace_back([&job, &errors, d] {
                try {
                    job(d);
                } catch (...) {
                    errors[d] = std::current_exception();
                }
            });
    }
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace gpualign::detail
