// Built when nvcc is absent: the CUDA backend reports no device, and any
// attempt to construct an engine throws.
#include <stdexcept>

#include "gpualign/gpu/batch_engine.hpp"
#include "gpualign/gpu/device.hpp"

namespace gpualign::gpu {

int device_count() noexcept { return 0; }
void start_devices(std::span<const int>) noexcept {}
std::string build_description() noexcept { return "built without CUDA (CPU backend only)"; }

std::string device_description(int) { throw std::runtime_error("gpualign was built without CUDA support"); }

struct BatchEngine::Impl {};

BatchEngine::BatchEngine(const ScoringScheme&, AlignMode, bool, const BatchEngineOptions&) {
    throw std::runtime_error("gpualign was built without CUDA support (nvcc was not found at build time)");
}
BatchEngine::~BatchEngine() = default;
bool BatchEngine::accepts(std::size_t, std::size_t) const noexcept { return false; }
std::vector<AlignmentResult> BatchEngine::align(std::span<const PairView>) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
Ticket BatchEngine::align_async(std::span<const PairView>) { throw std::runtime_error("gpualign was built without CUDA support"); }
std::vector<AlignmentResult> BatchEngine::collect(Ticket) { throw std::runtime_error("gpualign was built without CUDA support"); }
BatchEngineMemory BatchEngine::memory() const noexcept { return {}; }
double BatchEngine::last_kernel_ms() const noexcept { return 0.0; }
BatchEngineProfile BatchEngine::profile() const noexcept { return {}; }

}  // namespace gpualign::gpu

#include "gpualign/gpu/long_engine.hpp"

namespace gpualign::gpu {

struct LongEngine::Impl {};

LongEngine::LongEngine(const ScoringScheme&, AlignMode, bool, const LongEngineOptions&) {
    throw std::runtime_error("gpualign was built without CUDA support (nvcc was not found at build time)");
}
LongEngine::~LongEngine() = default;
AlignmentResult LongEngine::align(std::span<const std::uint8_t>, std::span<const std::uint8_t>) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
std::vector<AlignmentResult> LongEngine::align_many(std::span<const LongPair>, std::vector<std::exception_ptr>*) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
void LongEngine::prepare(std::span<const LongPair>) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
LongEngineStats LongEngine::last_stats() const noexcept { return {}; }

}  // namespace gpualign::gpu

#include "gpualign/gpu/scan_engine.hpp"

namespace gpualign::gpu {

struct ScanEngine::Impl {};

ScanEngine::ScanEngine(const ScoringScheme&, AlignMode, std::span<const std::span<const std::uint8_t>>,
                       const ScanOptions&) {
    throw std::runtime_error("gpualign was built without CUDA support (nvcc was not found at build time)");
}
ScanEngine::~ScanEngine() = default;
bool ScanEngine::supports(const ScoringScheme&) noexcept { return false; }
std::vector<std::int32_t> ScanEngine::scores(std::span<const std::uint8_t>) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
std::vector<std::int32_t> ScanEngine::scores(std::span<const std::span<const std::uint8_t>>) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
std::vector<std::vector<ScanHit>> ScanEngine::top_hits(std::span<const std::span<const std::uint8_t>>, std::size_t,
                                                       bool) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
std::vector<std::size_t> ScanEngine::scan(std::span<const std::span<const std::uint8_t>>) {
    throw std::runtime_error("gpualign was built without CUDA support");
}
double ScanEngine::last_kernel_ms() const noexcept { return 0.0; }
std::uint64_t ScanEngine::last_cells() const noexcept { return 0; }
std::uint64_t ScanEngine::last_rescored() const noexcept { return 0; }
bool ScanEngine::uses_16bit() const noexcept { return false; }
std::size_t ScanEngine::warp_records() const noexcept { return 0; }

}  // namespace gpualign::gpu
