// gpualign — gpualign::gpu::ScanEngine (scan_engine.hpp): the host side of
// the search scan. The DB is sorted by length and uploaded once; each query
// uploads its strip profile and runs the scan kernel over launches of
// sequences of similar length (their boundary buffers within
// ScanOptions::boundary_bytes). Host code (g++).
#include "gpualign/gpu/scan_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "../cuda_check.hpp"
#include "scan_dispatch.hpp"

namespace gpualign::gpu {
namespace {

/// A device allocation freed on destruction.
struct DeviceMemory {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    void allocate(std::size_t b, const char* what) {
        release();
        GPUALIGN_CUDA(cudaMalloc(&ptr, std::max<std::size_t>(b, 16)), what);
        bytes = b;
    }
    void release() {
        if (ptr) cudaFree(ptr);
        ptr = nullptr;
        bytes = 0;
    }
    ~DeviceMemory() { release(); }
};

/// One launch: sequences [begin, end) of the length-sorted order.
struct Launch {
    int begin, end, max_len;
};

}  // namespace

struct ScanEngine::Impl {
    ScoringScheme scheme;
    AlignMode mode;
    ScanOptions options;
    cudaStream_t stream = nullptr;
    cudaEvent_t ev0 = nullptr, ev1 = nullptr;
    DeviceMemory db, offsets, lengths, slots, boundary, profile, scores;
    std::vector<int> sorted_lengths;  // by launch order
    std::vector<Launch> launches;
    std::size_t records = 0;
    std::uint64_t letters = 0;
    int max_len = 0;
    double kernel_ms = 0;
    std::uint64_t cells = 0;

    ~Impl() {
        if (ev0) cudaEventDestroy(ev0);
        if (ev1) cudaEventDestroy(ev1);
        if (stream) cudaStreamDestroy(stream);
    }
};

bool ScanEngine::supports(const ScoringScheme& s) noexcept {
    if (s.size > detail::scan_max_letters()) return false;
    const std::int64_t open = static_cast<std::int64_t>(s.gap_open) + s.gap_extend;
    for (const std::int32_t v : s.matrix)
        if (v + open > 32767 || v + open < -32768 + 1000) return false;
    return true;
}

ScanEngine::ScanEngine(const ScoringScheme& s, AlignMode mode, std::span<const std::span<const std::uint8_t>> db,
                       const ScanOptions& options)
    : impl_(std::make_unique<Impl>()) {
    s.validate();
    if (!supports(s))
        throw std::invalid_argument("the scan kernel holds at most " + std::to_string(detail::scan_max_letters()) +
                                    " letters and scores within int16");
    Impl& im = *impl_;
    im.scheme = s;
    im.mode = mode;
    im.options = options;
    im.records = db.size();
    GPUALIGN_CUDA(cudaSetDevice(options.device), "scan engine, device " + std::to_string(options.device));
    GPUALIGN_CUDA(cudaStreamCreateWithFlags(&im.stream, cudaStreamNonBlocking), "scan engine stream");
    GPUALIGN_CUDA(cudaEventCreate(&im.ev0), "scan engine event");
    GPUALIGN_CUDA(cudaEventCreate(&im.ev1), "scan engine event");

    // Length order (ties by DB order): a warp's threads run similar lengths.
    std::vector<int> order(db.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return db[a].size() < db[b].size(); });
    std::vector<long long> offs(db.size());
    std::vector<int> lens(db.size());
    std::size_t total = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& rec = db[static_cast<std::size_t>(order[k])];
        if (rec.empty()) throw std::invalid_argument("ScanEngine: DB record " + std::to_string(order[k]) + " is empty");
        if (rec.size() > static_cast<std::size_t>(INT32_MAX / 2))
            throw std::length_error("ScanEngine: DB record " + std::to_string(order[k]) + " is too long for the scan");
        offs[k] = static_cast<long long>(total);
        lens[k] = static_cast<int>(rec.size());
        total += (rec.size() + 15) / 16 * 16;
        im.letters += rec.size();
        im.max_len = std::max(im.max_len, lens[k]);
    }
    std::vector<std::uint8_t> packed(total, 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& rec = db[static_cast<std::size_t>(order[k])];
        std::copy(rec.begin(), rec.end(), packed.begin() + offs[k]);
    }
    im.db.allocate(total, "scan engine DB");
    im.offsets.allocate(offs.size() * sizeof(long long), "scan engine offsets");
    im.lengths.allocate(lens.size() * sizeof(int), "scan engine lengths");
    im.slots.allocate(order.size() * sizeof(int), "scan engine slots");
    im.scores.allocate(db.size() * sizeof(int), "scan engine scores");
    GPUALIGN_CUDA(cudaMemcpy(im.db.ptr, packed.data(), total, cudaMemcpyHostToDevice), "DB upload");
    GPUALIGN_CUDA(cudaMemcpy(im.offsets.ptr, offs.data(), offs.size() * sizeof(long long), cudaMemcpyHostToDevice),
                  "DB offsets upload");
    GPUALIGN_CUDA(cudaMemcpy(im.lengths.ptr, lens.data(), lens.size() * sizeof(int), cudaMemcpyHostToDevice),
                  "DB lengths upload");
    GPUALIGN_CUDA(cudaMemcpy(im.slots.ptr, order.data(), order.size() * sizeof(int), cudaMemcpyHostToDevice),
                  "DB slots upload");

    // Launches: consecutive sequences whose boundary buffer (8 bytes x the
    // longest length x count) fits the budget, at most 2^20 threads each.
    const std::size_t budget = std::max<std::size_t>(options.boundary_bytes, std::size_t{16} << 20);
    std::size_t need = 0;
    for (int b = 0; b < static_cast<int>(lens.size());) {
        int e = b;
        // lengths ascend: the launch's longest is its last
        while (e < static_cast<int>(lens.size()) && e - b < (1 << 20) &&
               static_cast<std::size_t>(lens[e]) * static_cast<std::size_t>(e - b + 1) * 8 <= budget)
            ++e;
        if (e == b) ++e;  // one sequence alone always fits (its boundary is 8 x its length)
        im.launches.push_back({b, e, lens[e - 1]});
        need = std::max(need, static_cast<std::size_t>(lens[e - 1]) * static_cast<std::size_t>(e - b) * 8);
        b = e;
    }
    im.boundary.allocate(need, "scan engine strip boundaries");
}

ScanEngine::~ScanEngine() = default;

std::vector<std::int32_t> ScanEngine::scores(std::span<const std::uint8_t> query) {
    Impl& im = *impl_;
    const ScoringScheme& s = im.scheme;
    if (query.empty()) throw std::invalid_argument("ScanEngine::scores: empty query");
    if (!fits_int32(s, query.size(), static_cast<std::size_t>(im.max_len)))
        throw std::length_error("pair of lengths " + std::to_string(query.size()) + " x " + std::to_string(im.max_len) +
                                " could overflow 32-bit scores");
    GPUALIGN_CUDA(cudaSetDevice(im.options.device), "scan engine, device " + std::to_string(im.options.device));
    const int rows = detail::scan_strip_rows();
    const int strips = static_cast<int>((query.size() + rows - 1) / rows);
    const int open = s.gap_open + s.gap_extend;
    // Profile: strip k, letter c, row r -> s(q[k*rows + r], c) + O; -1000 past the query.
    std::vector<short> prof(static_cast<std::size_t>(strips) * s.size * rows);
    for (int k = 0; k < strips; ++k)
        for (int c = 0; c < s.size; ++c)
            for (int r = 0; r < rows; ++r) {
                const std::size_t i = static_cast<std::size_t>(k) * rows + r;
                prof[(static_cast<std::size_t>(k) * s.size + c) * rows + r] = static_cast<short>(
                    i < query.size() ? s.score(query[i], static_cast<std::uint8_t>(c)) + open : -1000);
            }
    if (im.profile.bytes < prof.size() * sizeof(short))
        im.profile.allocate(prof.size() * sizeof(short), "scan engine query profile");
    GPUALIGN_CUDA(cudaMemcpyAsync(im.profile.ptr, prof.data(), prof.size() * sizeof(short), cudaMemcpyHostToDevice,
                                  im.stream),
                  "query profile upload");
    GPUALIGN_CUDA(cudaEventRecord(im.ev0, im.stream), "scan start event");
    for (const Launch& l : im.launches) {
        detail::ScanLaunch a{};
        a.db = static_cast<const std::uint8_t*>(im.db.ptr);
        a.offsets = static_cast<const long long*>(im.offsets.ptr) + l.begin;
        a.lengths = static_cast<const int*>(im.lengths.ptr) + l.begin;
        a.slots = static_cast<const int*>(im.slots.ptr) + l.begin;
        a.count = l.end - l.begin;
        a.boundary = im.boundary.ptr;
        a.profile = static_cast<const short*>(im.profile.ptr);
        a.query_len = static_cast<int>(query.size());
        a.strips = strips;
        a.size = s.size;
        a.gap_open = s.gap_open;
        a.gap_extend = s.gap_extend;
        a.scores = static_cast<int*>(im.scores.ptr);
        detail::launch_scan(a, im.mode == AlignMode::local, im.stream);
    }
    GPUALIGN_CUDA(cudaEventRecord(im.ev1, im.stream), "scan stop event");
    // (prof is read by the copy above before the stream reaches the download)
    std::vector<std::int32_t> out(im.records);
    GPUALIGN_CUDA(cudaMemcpyAsync(out.data(), im.scores.ptr, out.size() * sizeof(int), cudaMemcpyDeviceToHost, im.stream),
                  "scores download");
    GPUALIGN_CUDA(cudaStreamSynchronize(im.stream), "scan kernel");
    float ms = 0;
    GPUALIGN_CUDA(cudaEventElapsedTime(&ms, im.ev0, im.ev1), "scan timing");
    im.kernel_ms = ms;
    im.cells = static_cast<std::uint64_t>(query.size()) * im.letters;
    return out;
}

double ScanEngine::last_kernel_ms() const noexcept { return impl_->kernel_ms; }
std::uint64_t ScanEngine::last_cells() const noexcept { return impl_->cells; }

}  // namespace gpualign::gpu
