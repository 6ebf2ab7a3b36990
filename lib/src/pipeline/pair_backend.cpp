// The choice of the pairs pipeline's backend (pair_backend.hpp).
#include "pair_backend.hpp"

#include "run_setup.hpp"

namespace gpualign::detail {

std::unique_ptr<PairBackend> make_pair_backend(const AlignConfig& c, const ScoringScheme& s, int engine_threads) {
    const std::vector<int> devices = run_devices(c);
    if (devices.empty()) return make_cpu_backend(c, s);
    if (devices.size() == 1) return make_gpu_backend(c, s, devices[0], engine_threads);
    return make_multi_gpu_backend(c, s, devices, engine_threads);
}

}  // namespace gpualign::detail
