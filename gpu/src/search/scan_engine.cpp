// gpualign — gpualign::gpu::ScanEngine (scan_engine.hpp): the host side of
// the search scan. The DB is sorted by length and uploaded once; each call
// uploads its queries' profiles and runs the thread kernel over launches of
// sequences of similar length (their boundary buffers within
// ScanOptions::boundary_bytes) and, on a second stream at the same time, the
// warp kernel over the sequences of at least ScanOptions::warp_min_length
// letters. Host code (g++).
#include "gpualign/gpu/scan_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "../common/cuda_check.hpp"
#include "../common/device_allocation.hpp"
#include "scan_dispatch.hpp"
#include "scan_select.hpp"

namespace gpualign::gpu {
namespace {

using detail::DeviceAllocation;
using detail::PinnedAllocation;

/// Bytes of each pinned staging buffer of the DB upload (upload_db): large
/// enough that a copy runs at the link's rate, small enough that packing
/// the first piece is a short wait.
constexpr std::size_t upload_piece_bytes = std::size_t{64} << 20;

/// Replaces `m` with `bytes` bytes of device memory (16 at least; the
/// contents are not kept). Throws CudaError naming `what`.
void allocate(DeviceAllocation& m, std::size_t bytes, const char* what) {
    m.assign(std::max<std::size_t>(bytes, 16), what);
}

/// allocate() when `m` holds fewer than `bytes` bytes.
void ensure(DeviceAllocation& m, std::size_t bytes, const char* what) {
    if (m.bytes() < bytes) allocate(m, bytes, what);
}

/// One launch: sequences [begin, end) of the length-sorted order.
struct Launch {
    int begin, end, max_len;
};

/// The host profiles of one scan, queries in length order (ScanEngine::scan).
/// Letters: the alphabet plus the pad letter (code size); rows past a
/// query's end and the pad letter score -1000 (0 in the pair profiles).
struct Profiles {
    std::vector<short> prof;            // thread kernel: query y's strip k, letter c, row r at prof_off[y] + (k*letters + c)*rows + r: s + O
    std::vector<int> wprof;             // warp kernel: stripe k, letter c, row r = t*8 + h at [c*256 + (h/4)*128 + t*4 + h%4]
    std::vector<long long> prof_off, wprof_off;
    std::vector<int> qlen;
    std::vector<unsigned> pprof;        // 16-bit kernel: pair y (queries 2y, 2y+1) at pprof_off[y], both rows' s + O packed
    std::vector<long long> pprof_off;
    std::vector<int> plen;              // the longer query of each pair
};

/// Queries per launch of each kernel for one scan.
struct LaunchPlan {
    std::vector<int> per_launch;        // per Impl::launches entry: the thread kernel's grid y
    std::size_t grid_y = 0;             // queries, or query pairs with the 16-bit kernel
    std::size_t warp_per_launch = 0;    // the warp kernel's grid y (0 without a warp set)
};

/// The kernels' form of `mode`.
/// @throws std::invalid_argument for a value outside AlignMode.
detail::ScanMode scan_mode(AlignMode mode) {
    switch (mode) {
        case AlignMode::local: return detail::ScanMode::local;
        case AlignMode::global: return detail::ScanMode::global;
        case AlignMode::semi_global: return detail::ScanMode::semi_global;
    }
    throw std::invalid_argument("ScanEngine: unknown alignment mode " + std::to_string(static_cast<int>(mode)));
}

}  // namespace

struct ScanEngine::Impl {
    ScoringScheme scheme;
    detail::ScanMode mode;
    ScanOptions options;
    cudaStream_t stream = nullptr;
    cudaStream_t warp_stream = nullptr;     // the warp kernel's launches, beside the thread kernel's
    cudaEvent_t ev0 = nullptr, ev1 = nullptr, warp_done = nullptr;
    DeviceAllocation db, offsets, lengths, slots, boundary, profile, profile_offset, query_len, scores;
    DeviceAllocation warp_boundary, warp_profile, warp_profile_offset;
    DeviceAllocation pair_profile, pair_profile_offset, pair_len;  // the 16-bit kernel's, per query pair
    int warp_begin = 0;                     // sorted sequences [warp_begin, records) go to the warp kernel
    long long warp_span = 0;                // their letters, 16-padded (boundary entries per query)
    std::vector<long long> sorted_offsets;  // by length order (host copies, for re-scoring)
    std::vector<int> sorted_lengths;
    std::vector<int> position;              // DB record -> its place in length order
    bool s16 = false;                       // local scans in 16-bit lanes (scan_kernel_s16x2)
    int overflow_at = 0;                    // 32767 - max s
    DeviceAllocation rescore;               // offsets, lengths, slots of the pairs scored again in 32 bits
    DeviceAllocation wrapped;               // per query row: scores the 16-bit kernel reported as wrapped
    DeviceAllocation select;                // hit selection: sort keys and values, CUB's storage, query rows
    std::uint64_t rescored = 0;
    std::vector<Launch> launches;
    std::size_t records = 0;
    std::uint64_t letters = 0;
    int max_len = 0;
    double kernel_ms = 0;
    std::uint64_t cells = 0;

    /// Some DB sequences go to the warp kernel.
    bool warp_set() const noexcept { return warp_begin < static_cast<int>(records); }
    /// Profile letters: the alphabet plus the pad letter.
    int profile_letters() const noexcept { return scheme.size + 1; }
    Profiles build_profiles(std::span<const std::span<const std::uint8_t>> queries,
                            const std::vector<std::size_t>& qorder);
    void build_pair_profiles(Profiles& pr, std::span<const std::span<const std::uint8_t>> queries) const;
    LaunchPlan upload(const Profiles& pr, std::size_t nq);
    void fill_common(detail::ScanCommonParams& a, const long long* offs, const int* lens, const int* slot_list,
                     int count, int queries, void* boundary_cells, const long long* profile_offsets,
                     std::size_t y0) const;
    detail::ScanParams thread_params(const long long* offs, const int* lens, const int* slot_list, int count,
                                     int queries, std::size_t y0) const;
    std::size_t upload_db(std::span<const std::span<const std::uint8_t>> seqs);
    void plan_launches(std::size_t total);
    void launch_warp(const LaunchPlan& plan, std::size_t nq);
    void launch_threads(const LaunchPlan& plan, std::size_t nq);
    void rescore_wrapped(std::size_t nq);

    ~Impl() {
        if (ev0) cudaEventDestroy(ev0);
        if (ev1) cudaEventDestroy(ev1);
        if (warp_done) cudaEventDestroy(warp_done);
        if (stream) cudaStreamDestroy(stream);
        if (warp_stream) cudaStreamDestroy(warp_stream);
    }
};

bool ScanEngine::supports(const ScoringScheme& s) noexcept {
    if (s.size > detail::scan_max_letters()) return false;  // (plus the pad letter)
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
    im.mode = scan_mode(mode);
    im.options = options;
    im.records = db.size();
    const std::int32_t max_s = *std::max_element(s.matrix.begin(), s.matrix.end());
    im.overflow_at = 32767 - std::max(0, max_s);
    // The 16-bit kernel's values are biased by 16384 and must stay within
    // [0, 65535] (O <= 8000), and its packed adds need s + O >= 0. It is
    // local only (H floored at 0): global and semi-global scans, whose
    // scores go below zero, are 32-bit.
    const std::int32_t min_s = *std::min_element(s.matrix.begin(), s.matrix.end());
    const std::int64_t open_total = static_cast<std::int64_t>(s.gap_open) + s.gap_extend;
    im.s16 = options.use_s16 && mode == AlignMode::local && im.overflow_at > 1000 && open_total <= 8000 &&
             min_s + open_total >= 0;
    GPUALIGN_CUDA(cudaSetDevice(options.device), "scan engine, device " + std::to_string(options.device));
    GPUALIGN_CUDA(cudaStreamCreateWithFlags(&im.stream, cudaStreamNonBlocking), "scan engine stream");
    GPUALIGN_CUDA(cudaEventCreate(&im.ev0), "scan engine event");
    GPUALIGN_CUDA(cudaEventCreate(&im.ev1), "scan engine event");
    GPUALIGN_CUDA(cudaStreamCreateWithFlags(&im.warp_stream, cudaStreamNonBlocking), "scan engine stream");
    GPUALIGN_CUDA(cudaEventCreateWithFlags(&im.warp_done, cudaEventDisableTiming), "scan engine event");

    const std::size_t total = im.upload_db(db);
    im.plan_launches(total);
}

// Sorts the DB by length (ties by DB order: a warp's threads run similar
// lengths), uploads it packed (each sequence 16-byte aligned and padded to
// 16) with its offsets, lengths and output slots, and keeps the host copies
// for re-scoring. Returns the packed bytes. Throws std::invalid_argument for
// an empty record, std::length_error for one too long for the scan.
//
// The packed DB is built piece by piece in two pinned staging buffers of
// upload_piece_bytes: the host threads (OpenMP) pack a piece while the copy
// of the one before runs, so the upload costs about the slower of packing
// and copying instead of a pageable copy after a serial pack.
std::size_t ScanEngine::Impl::upload_db(std::span<const std::span<const std::uint8_t>> seqs) {
    std::vector<int> order(seqs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return seqs[a].size() < seqs[b].size(); });
    std::vector<long long> offs(seqs.size());
    std::vector<int> lens(seqs.size());
    std::size_t total = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& rec = seqs[static_cast<std::size_t>(order[k])];
        if (rec.empty()) throw std::invalid_argument("ScanEngine: DB record " + std::to_string(order[k]) + " is empty");
        if (rec.size() > static_cast<std::size_t>(INT32_MAX / 2))
            throw std::length_error("ScanEngine: DB record " + std::to_string(order[k]) + " is too long for the scan");
        offs[k] = static_cast<long long>(total);
        lens[k] = static_cast<int>(rec.size());
        total += (rec.size() + 15) / 16 * 16;
        letters += rec.size();
        max_len = std::max(max_len, lens[k]);
    }
    allocate(db, total, "scan engine DB");
    constexpr std::size_t piece_bytes = upload_piece_bytes;
    const std::size_t buffers = total > piece_bytes ? 2 : 1;
    PinnedAllocation stage(buffers * std::min(total, piece_bytes), "scan engine DB staging");
    auto* const stage_base = static_cast<std::uint8_t*>(stage.data());
    auto* const dev = static_cast<std::uint8_t*>(db.data());
    cudaEvent_t copied[2] = {nullptr, nullptr};
    struct Events {  // destroyed on every way out
        cudaEvent_t* e;
        ~Events() {
            for (int i = 0; i < 2; ++i)
                if (e[i]) cudaEventDestroy(e[i]);
        }
    } events{copied};
    for (int i = 0; i < 2; ++i)
        GPUALIGN_CUDA(cudaEventCreateWithFlags(&copied[i], cudaEventDisableTiming), "scan engine DB upload event");
    for (std::size_t at = 0, piece = 0; at < total; at += piece_bytes, ++piece) {
        const std::size_t end = std::min(total, at + piece_bytes);
        std::uint8_t* const buf = stage_base + (piece % buffers) * std::min(total, piece_bytes);
        if (piece >= buffers) GPUALIGN_CUDA(cudaEventSynchronize(copied[piece % buffers]), "DB upload");
        // The sorted records that overlap [at, end): each writes its letters
        // and its zero padding that fall in the piece.
        const auto first = static_cast<std::size_t>(
            std::upper_bound(offs.begin(), offs.end(), static_cast<long long>(at)) - offs.begin() - 1);
        const auto last = static_cast<std::size_t>(
            std::lower_bound(offs.begin(), offs.end(), static_cast<long long>(end)) - offs.begin());
#pragma omp parallel for schedule(dynamic, 1024)
        for (std::size_t k = first; k < last; ++k) {
            const auto& rec = seqs[static_cast<std::size_t>(order[k])];
            const auto r0 = static_cast<std::size_t>(offs[k]);
            const std::size_t r_letters = r0 + rec.size(), r_end = r0 + (rec.size() + 15) / 16 * 16;
            const std::size_t lo = std::max(r0, at), hi = std::min(r_end, end);
            const std::size_t copy_hi = std::min(hi, r_letters);
            if (lo < copy_hi) std::memcpy(buf + (lo - at), rec.data() + (lo - r0), copy_hi - lo);
            const std::size_t pad_lo = std::max(lo, r_letters);
            if (pad_lo < hi) std::memset(buf + (pad_lo - at), 0, hi - pad_lo);
        }
        GPUALIGN_CUDA(cudaMemcpyAsync(dev + at, buf, end - at, cudaMemcpyHostToDevice, stream), "DB upload");
        GPUALIGN_CUDA(cudaEventRecord(copied[piece % buffers], stream), "DB upload");
    }
    GPUALIGN_CUDA(cudaStreamSynchronize(stream), "DB upload");
    allocate(offsets, offs.size() * sizeof(long long), "scan engine offsets");
    allocate(lengths, lens.size() * sizeof(int), "scan engine lengths");
    allocate(slots, order.size() * sizeof(int), "scan engine slots");
    GPUALIGN_CUDA(cudaMemcpy(offsets.data(), offs.data(), offs.size() * sizeof(long long), cudaMemcpyHostToDevice),
                  "DB offsets upload");
    GPUALIGN_CUDA(cudaMemcpy(lengths.data(), lens.data(), lens.size() * sizeof(int), cudaMemcpyHostToDevice),
                  "DB lengths upload");
    GPUALIGN_CUDA(cudaMemcpy(slots.data(), order.data(), order.size() * sizeof(int), cudaMemcpyHostToDevice),
                  "DB slots upload");
    sorted_offsets = offs;
    sorted_lengths = lens;
    position.resize(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) position[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
    return total;
}


// The warp set and the thread kernel's launches over the length-sorted DB of
// `total` packed bytes.
void ScanEngine::Impl::plan_launches(std::size_t total) {
    const std::vector<int>& lens = sorted_lengths;
    const std::vector<long long>& offs = sorted_offsets;
    // Sequences of at least warp_min_length letters (the last of the length
    // order) go to the warp kernel.
    warp_begin = static_cast<int>(lens.size());
    while (warp_begin > 0 && lens[static_cast<std::size_t>(warp_begin) - 1] >= options.warp_min_length) --warp_begin;
    if (warp_begin < static_cast<int>(lens.size()))
        warp_span = static_cast<long long>(total) - offs[static_cast<std::size_t>(warp_begin)];

    // Launches: consecutive sequences of one length class (lengths up to
    // 64, 128, 256, ... : a launch's boundary buffer is 8 bytes x its longest
    // length x its count, per query), within the budget for one query and at
    // most 2^20 threads each.
    if (options.boundary_bytes == 0) {
        std::size_t free_bytes = 0, total_bytes = 0;
        GPUALIGN_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes), "scan engine, device memory");
        options.boundary_bytes = std::max(std::size_t{2} << 30, free_bytes / 4);
    }
    const std::size_t budget = std::max<std::size_t>(options.boundary_bytes, std::size_t{1} << 20);
    auto length_class = [](int len) {
        int c = 64;
        while (c < len) c *= 2;
        return c;
    };
    for (int b = 0; b < warp_begin;) {
        int e = b;
        // lengths ascend: the launch's longest is its last
        while (e < warp_begin && e - b < (1 << 20) && length_class(lens[e]) == length_class(lens[b]) &&
               static_cast<std::size_t>(lens[e]) * static_cast<std::size_t>(e - b + 1) * 8 <= budget)
            ++e;
        if (e == b) ++e;  // one sequence alone always fits (its boundary is 8 x its length)
        launches.push_back({b, e, lens[e - 1]});
        b = e;
    }
}

ScanEngine::~ScanEngine() {
    // The members free on this engine's device, whichever the calling thread has current.
    if (impl_) (void)cudaSetDevice(impl_->options.device);
}

std::vector<std::int32_t> ScanEngine::scores(std::span<const std::uint8_t> query) {
    const std::span<const std::uint8_t> one[] = {query};
    return scores(std::span<const std::span<const std::uint8_t>>(one));
}

std::vector<std::int32_t> ScanEngine::scores(std::span<const std::span<const std::uint8_t>> queries) {
    Impl& im = *impl_;
    const std::vector<std::size_t> qorder = scan(queries);
    std::vector<std::int32_t> in_order(queries.size() * im.records);
    if (in_order.empty()) return in_order;
    std::vector<std::int32_t> result(in_order.size());
    GPUALIGN_CUDA(cudaMemcpyAsync(result.data(), im.scores.data(), result.size() * sizeof(int), cudaMemcpyDeviceToHost,
                                  im.stream),
                  "scores download");
    GPUALIGN_CUDA(cudaStreamSynchronize(im.stream), "scores download");
    for (std::size_t y = 0; y < qorder.size(); ++y)
        std::copy_n(result.begin() + static_cast<std::ptrdiff_t>(y * im.records), im.records,
                    in_order.begin() + static_cast<std::ptrdiff_t>(qorder[y] * im.records));
    return in_order;
}

std::vector<std::vector<ScanHit>> ScanEngine::top_hits(std::span<const std::span<const std::uint8_t>> queries,
                                                       std::size_t k, bool both_strands) {
    Impl& im = *impl_;
    if (both_strands && queries.size() % 2 != 0)
        throw std::invalid_argument("ScanEngine::top_hits: both strands need an even number of queries");
    const std::size_t n = both_strands ? queries.size() / 2 : queries.size();
    k = std::min(k, im.records);
    std::vector<std::vector<ScanHit>> hits(n);
    if (n == 0 || k == 0) {
        if (!queries.empty()) scan(queries);  // the same errors for the same queries
        return hits;
    }
    const std::size_t work = detail::select_best_bytes(n, im.records);
    const std::vector<std::size_t> qorder = scan(queries);
    // Query q's scores are in row rows[q] (scan() runs them longest first).
    std::vector<int> rows(queries.size());
    for (std::size_t y = 0; y < qorder.size(); ++y) rows[qorder[y]] = static_cast<int>(y);
    ensure(im.select, work + rows.size() * sizeof(int), "scan engine hit selection");
    int* d_rows = reinterpret_cast<int*>(im.select.data<unsigned char>() + work);
    GPUALIGN_CUDA(cudaMemcpyAsync(d_rows, rows.data(), rows.size() * sizeof(int), cudaMemcpyHostToDevice, im.stream),
                  "hit selection rows upload");
    std::vector<std::int32_t> best_scores(n * k);
    std::vector<std::uint32_t> best_values(n * k);
    detail::select_best(im.scores.data<const int>(), d_rows, both_strands ? d_rows + n : nullptr, n,
                        im.records, k, im.select.data(), best_scores.data(), best_values.data(), im.stream);
    for (std::size_t q = 0; q < n; ++q) {
        hits[q].resize(k);
        for (std::size_t t = 0; t < k; ++t)
            hits[q][t] = {best_values[q * k + t] >> 1, best_scores[q * k + t], (best_values[q * k + t] & 1) != 0};
    }
    return hits;
}

// The thread and warp kernels' profiles of `queries` (length order; qorder
// maps them to the caller's order, for the errors), and the cells of the
// scan. Throws std::invalid_argument for an empty query, std::length_error
// for one that could overflow 32-bit scores.
Profiles ScanEngine::Impl::build_profiles(std::span<const std::span<const std::uint8_t>> queries,
                                          const std::vector<std::size_t>& qorder) {
    const ScoringScheme& s = scheme;
    const int rows = detail::scan_strip_rows();
    const int open = s.gap_open + s.gap_extend;
    const int nl = profile_letters();  // profile letters
    const int wrows = detail::scan_warp_stripe_rows();
    Profiles pr;
    pr.prof_off.resize(queries.size());
    pr.wprof_off.resize(queries.size());
    pr.qlen.resize(queries.size());
    cells = 0;
    for (std::size_t y = 0; y < queries.size(); ++y) {
        const auto q = queries[y];
        if (q.empty())
            throw std::invalid_argument("ScanEngine::scores: query " + std::to_string(qorder[y]) + " is empty");
        if (q.size() > static_cast<std::size_t>(INT32_MAX / 2) || !fits_int32(s, q.size(), static_cast<std::size_t>(max_len)))
            throw std::length_error("pair of lengths " + std::to_string(q.size()) + " x " + std::to_string(max_len) +
                                    " could overflow 32-bit scores");
        auto score_o = [&](std::size_t i, int c) {
            return i < q.size() && c < s.size ? s.score(q[i], static_cast<std::uint8_t>(c)) + open : -1000;
        };
        const int strips = static_cast<int>((q.size() + rows - 1) / rows);
        pr.prof_off[y] = static_cast<long long>(pr.prof.size());
        pr.qlen[y] = static_cast<int>(q.size());
        pr.prof.resize(pr.prof.size() + static_cast<std::size_t>(strips) * nl * rows);
        short* out = pr.prof.data() + pr.prof_off[y];
        for (int k = 0; k < strips; ++k)
            for (int c = 0; c < nl; ++c)
                for (int r = 0; r < rows; ++r)
                    out[(static_cast<std::size_t>(k) * nl + c) * rows + r] =
                        static_cast<short>(score_o(static_cast<std::size_t>(k) * rows + r, c));
        if (warp_set()) {
            const int stripes = static_cast<int>((q.size() + wrows - 1) / wrows);
            pr.wprof_off[y] = static_cast<long long>(pr.wprof.size());
            pr.wprof.resize(pr.wprof.size() + static_cast<std::size_t>(stripes) * nl * wrows);
            int* w = pr.wprof.data() + pr.wprof_off[y];
            for (int k = 0; k < stripes; ++k)
                for (int c = 0; c < nl; ++c)
                    for (int r = 0; r < wrows; ++r)
                        w[(static_cast<std::size_t>(k) * nl + c) * wrows + (r % 8 / 4) * 128 + (r / 8) * 4 + r % 4] =
                            score_o(static_cast<std::size_t>(k) * wrows + r, c);
        }
        cells += static_cast<std::uint64_t>(q.size()) * letters;
    }
    return pr;
}

// The 16-bit kernel's pair profiles: queries 2y and 2y+1 (consecutive in
// length order, so of similar lengths) share a thread; word (k, c, r)
// holds both rows' s + O, 0 past a query's end (and in the high half of
// an odd last pair).
void ScanEngine::Impl::build_pair_profiles(Profiles& pr, std::span<const std::span<const std::uint8_t>> queries) const {
    const ScoringScheme& s = scheme;
    const int rows = detail::scan_strip_rows();
    const int open = s.gap_open + s.gap_extend;
    const int nl = profile_letters();  // profile letters
    const std::size_t nq = queries.size();
    const std::size_t pairs = (nq + 1) / 2;
    pr.pprof_off.resize(pairs);
    pr.plen.resize(pairs);
    for (std::size_t y = 0; y < pairs; ++y) {
        const std::size_t a = 2 * y, b = 2 * y + 1;
        pr.plen[y] = std::max(pr.qlen[a], b < nq ? pr.qlen[b] : 0);
        const int strips = (pr.plen[y] + rows - 1) / rows;
        pr.pprof_off[y] = static_cast<long long>(pr.pprof.size());
        pr.pprof.resize(pr.pprof.size() + static_cast<std::size_t>(strips) * nl * rows);
        unsigned* out = pr.pprof.data() + pr.pprof_off[y];
        // (s + O >= 0 for every letter pair: a plain add of two packed
        // words cannot carry between the halves; rows past a query's end
        // hold 0, so s = -O there and no cell of them exceeds a real one.)
        auto half = [&](std::size_t query, int k, int c, int r) -> unsigned {
            const std::size_t i = static_cast<std::size_t>(k) * rows + r;
            if (query >= nq || i >= queries[query].size() || c >= s.size) return 0;
            return static_cast<unsigned>(s.score(queries[query][i], static_cast<std::uint8_t>(c)) + open);
        };
        for (int k = 0; k < strips; ++k)
            for (int c = 0; c < nl; ++c)
                for (int r = 0; r < rows; ++r)
                    out[(static_cast<std::size_t>(k) * nl + c) * rows + r] = half(a, k, c, r) | half(b, k, c, r) << 16;
    }
}

// Sizes the device buffers of a scan of `nq` queries (queries per launch:
// as many as the boundary budget holds, grid y <= 65535; with a warp set,
// the budget is shared half and half) and enqueues the profiles' upload.
LaunchPlan ScanEngine::Impl::upload(const Profiles& pr, std::size_t nq) {
    const bool warps = warp_set();
    const std::size_t pairs = pr.plen.size();
    ensure(profile, pr.prof.size() * sizeof(short), "scan engine query profiles");
    ensure(profile_offset, nq * sizeof(long long), "scan engine profile offsets");
    ensure(query_len, nq * sizeof(int), "scan engine query lengths");
    ensure(scores, nq * records * sizeof(int), "scan engine scores");
    const std::size_t budget =
        std::max<std::size_t>(options.boundary_bytes, std::size_t{1} << 20) / (warps && !launches.empty() ? 2 : 1);
    LaunchPlan plan;
    std::size_t need = 0;
    plan.per_launch.resize(launches.size());
    // (16-bit: per_launch counts query pairs, the kernel's grid y.)
    plan.grid_y = s16 ? pairs : nq;
    for (std::size_t l = 0; l < launches.size(); ++l) {
        const Launch& la = launches[l];
        const std::size_t one = static_cast<std::size_t>(la.max_len) * static_cast<std::size_t>(la.end - la.begin) * 8;
        // As many as fit, then the same number in every launch of the class
        // (10 query pairs at most 4 a launch: 4, 3, 3, not 4, 4, 2): each
        // launch ends in a partly filled wave, the shorter the more even.
        const std::size_t fit = std::clamp<std::size_t>(budget / one, 1, std::min<std::size_t>(plan.grid_y, 65535));
        const std::size_t count = (plan.grid_y + fit - 1) / fit;
        plan.per_launch[l] = static_cast<int>((plan.grid_y + count - 1) / count);
        need = std::max(need, one * static_cast<std::size_t>(plan.per_launch[l]));
    }
    if (s16) {
        ensure(pair_profile, pr.pprof.size() * sizeof(unsigned), "scan engine pair profiles");
        ensure(pair_profile_offset, pairs * sizeof(long long), "scan engine pair profile offsets");
        ensure(pair_len, pairs * sizeof(int), "scan engine pair lengths");
        GPUALIGN_CUDA(cudaMemcpyAsync(pair_profile.data(), pr.pprof.data(), pr.pprof.size() * sizeof(unsigned),
                                      cudaMemcpyHostToDevice, stream),
                      "pair profile upload");
        GPUALIGN_CUDA(cudaMemcpyAsync(pair_profile_offset.data(), pr.pprof_off.data(), pairs * sizeof(long long),
                                      cudaMemcpyHostToDevice, stream),
                      "pair profile offsets upload");
        GPUALIGN_CUDA(cudaMemcpyAsync(pair_len.data(), pr.plen.data(), pairs * sizeof(int), cudaMemcpyHostToDevice, stream),
                      "pair lengths upload");
    }
    ensure(boundary, need, "scan engine strip boundaries");
    const std::size_t warp_one = static_cast<std::size_t>(warp_span) * 8;
    plan.warp_per_launch = warps ? std::clamp<std::size_t>(budget / warp_one, 1, std::min<std::size_t>(nq, 65535)) : 0;
    if (warps) {
        ensure(warp_boundary, warp_one * plan.warp_per_launch, "scan engine warp-kernel boundaries");
        ensure(warp_profile, pr.wprof.size() * sizeof(int), "scan engine warp-kernel query profiles");
        ensure(warp_profile_offset, nq * sizeof(long long), "scan engine warp-kernel profile offsets");
        GPUALIGN_CUDA(cudaMemcpyAsync(warp_profile.data(), pr.wprof.data(), pr.wprof.size() * sizeof(int),
                                      cudaMemcpyHostToDevice, stream),
                      "warp-kernel query profile upload");
        GPUALIGN_CUDA(cudaMemcpyAsync(warp_profile_offset.data(), pr.wprof_off.data(), nq * sizeof(long long),
                                      cudaMemcpyHostToDevice, stream),
                      "warp-kernel profile offsets upload");
    }
    GPUALIGN_CUDA(cudaMemcpyAsync(profile.data(), pr.prof.data(), pr.prof.size() * sizeof(short), cudaMemcpyHostToDevice,
                                  stream),
                  "query profile upload");
    GPUALIGN_CUDA(cudaMemcpyAsync(profile_offset.data(), pr.prof_off.data(), nq * sizeof(long long), cudaMemcpyHostToDevice,
                                  stream),
                  "profile offsets upload");
    GPUALIGN_CUDA(cudaMemcpyAsync(query_len.data(), pr.qlen.data(), nq * sizeof(int), cudaMemcpyHostToDevice, stream),
                  "query lengths upload");
    return plan;
}

// The fields both kernels take, for `count` sequences (device lists) and
// `queries` queries from y0.
void ScanEngine::Impl::fill_common(detail::ScanCommonParams& a, const long long* offs, const int* lens,
                                   const int* slot_list, int count, int queries, void* boundary_cells,
                                   const long long* profile_offsets, std::size_t y0) const {
    a.db = db.data<const std::uint8_t>();
    a.offsets = offs;
    a.lengths = lens;
    a.slots = slot_list;
    a.count = count;
    a.queries = queries;
    a.boundary = boundary_cells;
    a.profile_offset = profile_offsets + y0;
    a.query_len = query_len.data<const int>() + y0;
    a.size = profile_letters();
    a.gap_open = scheme.gap_open;
    a.gap_extend = scheme.gap_extend;
    a.scores = scores.data<int>() + y0 * records;
    a.records = static_cast<int>(records);
}

// A thread-kernel launch over `count` sequences (device lists) and
// `queries` queries from y0 (32-bit profiles; the 16-bit kernel replaces
// the query fields with its pairs').
detail::ScanParams ScanEngine::Impl::thread_params(const long long* offs, const int* lens, const int* slot_list,
                                                   int count, int queries, std::size_t y0) const {
    detail::ScanParams a{};
    fill_common(a, offs, lens, slot_list, count, queries, boundary.data(), profile_offset.data<const long long>(), y0);
    a.profile = profile.data<const short>();
    a.query_count = queries;
    return a;
}

// The warp kernel's launches, on their own stream after ev0, so that the
// long sequences run beside the thread kernel's launches; warp_done marks
// their end.
void ScanEngine::Impl::launch_warp(const LaunchPlan& plan, std::size_t nq) {
    GPUALIGN_CUDA(cudaStreamWaitEvent(warp_stream, ev0, 0), "scan engine stream wait");
    for (std::size_t y0 = 0; y0 < nq; y0 += plan.warp_per_launch) {
        detail::ScanWarpParams a{};
        fill_common(a, offsets.data<const long long>() + warp_begin, lengths.data<const int>() + warp_begin,
                    slots.data<const int>() + warp_begin, static_cast<int>(records) - warp_begin,
                    static_cast<int>(std::min(plan.warp_per_launch, nq - y0)), warp_boundary.data(),
                    warp_profile_offset.data<const long long>(), y0);
        a.boundary_span = warp_span;
        a.profile = warp_profile.data<const int>();
        detail::launch_scan_warp(a, mode, warp_stream);
    }
    GPUALIGN_CUDA(cudaEventRecord(warp_done, warp_stream), "scan engine event");
}

// The thread kernel's launches on `stream`: each length class in turn, its
// queries (or query pairs) per_launch at a time.
void ScanEngine::Impl::launch_threads(const LaunchPlan& plan, std::size_t nq) {
    for (std::size_t l = 0; l < launches.size(); ++l) {
        const Launch& la = launches[l];
        const std::size_t step = static_cast<std::size_t>(plan.per_launch[l]);
        for (std::size_t y0 = 0; y0 < plan.grid_y; y0 += step) {
            const int queries = static_cast<int>(std::min<std::size_t>(step, plan.grid_y - y0));
            detail::ScanParams a = thread_params(offsets.data<const long long>() + la.begin,
                                                 lengths.data<const int>() + la.begin,
                                                 slots.data<const int>() + la.begin, la.end - la.begin, queries,
                                                 s16 ? 0 : y0);
            if (s16) {  // grid y over query pairs
                a.profile = nullptr;
                a.profile_offset = nullptr;
                a.pair_profile = pair_profile.data<const unsigned>();
                a.pair_profile_offset = pair_profile_offset.data<const long long>() + y0;
                a.query_len = pair_len.data<const int>() + y0;
                a.query_count = static_cast<int>(std::min<std::size_t>(2 * static_cast<std::size_t>(queries), nq - 2 * y0));
                a.scores = scores.data<int>() + 2 * y0 * records;
            }
            detail::launch_scan(a, mode, s16, overflow_at, stream);
        }
    }
}

// 16-bit lanes: a best score that may have wrapped (reported -1) is scored
// again by the 32-bit kernel, which writes the row in place; only the rows
// with such scores come back to the host, to list them. Counts them in
// `rescored`.
void ScanEngine::Impl::rescore_wrapped(std::size_t nq) {
    ensure(wrapped, nq * sizeof(int), "scan engine wrapped counts");
    detail::count_wrapped(scores.data<const int>(), nq, records, wrapped.data<int>(), stream);
    std::vector<int> counts(nq);
    GPUALIGN_CUDA(cudaMemcpyAsync(counts.data(), wrapped.data(), nq * sizeof(int), cudaMemcpyDeviceToHost, stream),
                  "wrapped counts download");
    GPUALIGN_CUDA(cudaStreamSynchronize(stream), "scan kernel");
    std::vector<int> row(records);
    for (std::size_t y = 0; y < nq; ++y) {
        if (counts[y] == 0) continue;
        GPUALIGN_CUDA(cudaMemcpy(row.data(), scores.data<const int>() + y * records, records * sizeof(int),
                                 cudaMemcpyDeviceToHost),
                      "wrapped row download");
        std::vector<long long> offs;
        std::vector<int> lens, slot_list;
        int longest = 0;
        for (std::size_t r = 0; r < records; ++r)
            if (row[r] < 0) {
                const int k = position[r];
                offs.push_back(sorted_offsets[static_cast<std::size_t>(k)]);
                lens.push_back(sorted_lengths[static_cast<std::size_t>(k)]);
                slot_list.push_back(static_cast<int>(r));
                longest = std::max(longest, lens.back());
            }
        const std::size_t c = offs.size();
        ensure(rescore, c * (sizeof(long long) + 2 * sizeof(int)), "scan engine re-score lists");
        auto* d_offs = rescore.data<long long>();
        auto* d_lens = reinterpret_cast<int*>(d_offs + c);
        int* d_slots = d_lens + c;
        GPUALIGN_CUDA(cudaMemcpy(d_offs, offs.data(), c * sizeof(long long), cudaMemcpyHostToDevice), "re-score list upload");
        GPUALIGN_CUDA(cudaMemcpy(d_lens, lens.data(), c * sizeof(int), cudaMemcpyHostToDevice), "re-score list upload");
        GPUALIGN_CUDA(cudaMemcpy(d_slots, slot_list.data(), c * sizeof(int), cudaMemcpyHostToDevice), "re-score list upload");
        ensure(boundary, static_cast<std::size_t>(longest) * c * 8, "scan engine strip boundaries");
        const detail::ScanParams a = thread_params(d_offs, d_lens, d_slots, static_cast<int>(c), 1, y);
        detail::launch_scan(a, detail::ScanMode::local, false, 0, stream);
        rescored += c;
    }
}

std::vector<std::size_t> ScanEngine::scan(std::span<const std::span<const std::uint8_t>> queries_in) {
    Impl& im = *impl_;
    GPUALIGN_CUDA(cudaSetDevice(im.options.device), "scan engine, device " + std::to_string(im.options.device));
    // Longest queries first: blocks start in grid order (x, then y = the
    // query), so the longest blocks of a launch do not trail behind it.
    // Results come back in this order and are put back in the caller's.
    std::vector<std::size_t> qorder(queries_in.size());
    std::iota(qorder.begin(), qorder.end(), std::size_t{0});
    std::stable_sort(qorder.begin(), qorder.end(),
                     [&](std::size_t a, std::size_t b) { return queries_in[a].size() > queries_in[b].size(); });
    std::vector<std::span<const std::uint8_t>> queries(queries_in.size());
    for (std::size_t y = 0; y < queries.size(); ++y) queries[y] = queries_in[qorder[y]];
    Profiles pr = im.build_profiles(queries, qorder);
    const std::size_t nq = queries.size();
    if (nq == 0) return qorder;
    if (im.s16) im.build_pair_profiles(pr, queries);
    const LaunchPlan plan = im.upload(pr, nq);
    GPUALIGN_CUDA(cudaEventRecord(im.ev0, im.stream), "scan start event");
    if (im.warp_set()) im.launch_warp(plan, nq);
    im.launch_threads(plan, nq);
    if (im.warp_set()) GPUALIGN_CUDA(cudaStreamWaitEvent(im.stream, im.warp_done, 0), "scan engine stream wait");
    im.rescored = 0;
    if (im.s16) im.rescore_wrapped(nq);
    GPUALIGN_CUDA(cudaEventRecord(im.ev1, im.stream), "scan stop event");
    GPUALIGN_CUDA(cudaStreamSynchronize(im.stream), "scan kernel");
    float ms = 0;
    GPUALIGN_CUDA(cudaEventElapsedTime(&ms, im.ev0, im.ev1), "scan timing");
    im.kernel_ms = ms;
    return qorder;
}

double ScanEngine::last_kernel_ms() const noexcept { return impl_->kernel_ms; }
std::uint64_t ScanEngine::last_cells() const noexcept { return impl_->cells; }
std::uint64_t ScanEngine::last_rescored() const noexcept { return impl_->rescored; }
bool ScanEngine::uses_16bit() const noexcept { return impl_->s16; }
std::size_t ScanEngine::warp_records() const noexcept {
    return impl_->records - static_cast<std::size_t>(impl_->warp_begin);
}

}  // namespace gpualign::gpu
