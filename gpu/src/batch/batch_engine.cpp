// gpualign — gpualign::gpu::BatchEngine: the owning host object of the
// batch engine (buffers allocated once, streams in rotation), the batching
// and the conversion of structure-of-arrays device results to
// AlignmentResult. Host code (g++); kernels are launched through
// batch_dispatch.hpp.
#include "gpualign/gpu/batch_engine.hpp"

#include <cuda_runtime_api.h>
#ifdef _OPENMP
#include <omp.h>
#include <parallel/algorithm>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpualign/align/reference_aligner.hpp"

#include "../common/cuda_check.hpp"
#include "../common/device_allocation.hpp"
#include "../common/device_flags.hpp"
#include "../common/device_memory.hpp"
#include "batch_dispatch.hpp"
#include "batch_layout.hpp"
#include "batch_shape.hpp"
#include "batch_tuning.hpp"

namespace gpualign::gpu {

namespace {

using detail::CudaError;
using detail::DeviceAllocation;
using detail::PairTask;
using detail::PinnedAllocation;
using detail::rounded;
using detail::Shape;
using detail::SlotKind;
using detail::bytes_per_pair;
using detail::min_slot_budget;
using detail::pair_boundary_per_base;
using detail::pair_kernel_scheme;
using detail::shape_for_budget;
using detail::slot_device_bytes;

/// Writes a zero byte into every 4 KiB page of [bytes, bytes + size) on
/// `threads` threads: the pages of fresh storage fault in parallel. The
/// storage is raw (allocated, no objects yet).
void touch_pages(unsigned char* bytes, std::size_t size, int threads) {
    constexpr std::size_t page = 4096;
    const std::size_t pages = (size + page - 1) / page;
    if (pages < 64) return;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::size_t k = 0; k < pages; ++k) bytes[k * page] = 0;
    (void)threads;
}

/// Device memory for `count` (at least one) objects of T; its rounded size
/// is added to `total`. Throws CudaError naming `what` and the bytes.
template <typename T>
DeviceAllocation device_alloc(std::size_t count, const char* what, std::size_t& total) {
    const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(T);
    DeviceAllocation a(bytes, std::string(what) + ", " + std::to_string(bytes) + " bytes");
    total += rounded(bytes);
    return a;
}

/// Pinned host memory for `count` (at least one) objects of T. Throws
/// CudaError naming `what` and the bytes.
template <typename T>
PinnedAllocation host_alloc(std::size_t count, const char* what) {
    const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(T);
    return PinnedAllocation(bytes, std::string(what) + ", " + std::to_string(bytes) + " bytes");
}

// Result of a pair with an empty side, computed as the CPU reference does.
AlignmentResult trivial_result(std::size_t m, std::size_t n, const ScoringScheme& s, AlignMode mode, bool score_only) {
    AlignmentResult r;
    r.has_cigar = !score_only;
    // Local: unaligned. Semi-global with an empty query: the empty
    // alignment at (0,0) (the ref's gaps are free).
    if (mode == AlignMode::local || (mode == AlignMode::semi_global && m == 0)) return r;
    const std::int64_t len = static_cast<std::int64_t>(m + n);
    r.score = len == 0 ? 0 : static_cast<std::int32_t>(-(s.gap_open + len * s.gap_extend));
    r.query_end = static_cast<std::int32_t>(m);
    r.ref_end = static_cast<std::int32_t>(n);
    if (!score_only) {
        if (m > 0) r.cigar.push_back(cigar_pack(CigarOp::ins, static_cast<std::uint32_t>(m)));
        if (n > 0) r.cigar.push_back(cigar_pack(CigarOp::del, static_cast<std::uint32_t>(n)));
    }
    return r;
}

/// The test hook GPUALIGN_INJECT_CUDA_FAULT=N (docs/gpu.md): the N-th batch
/// (1-based, over the engine's lifetime) launches a kernel that traps. 0 = off.
std::uint64_t injected_fault_batch() {
    const char* e = std::getenv("GPUALIGN_INJECT_CUDA_FAULT");
    if (!e || !*e) return 0;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(e, &end, 10);
    return end && *end == '\0' ? n : 0;
}

}  // namespace

/// One submission of align_async, until collect.
struct Request {
    Ticket id = 0;
    std::span<const PairView> pairs;
    std::vector<AlignmentResult> results;
    std::size_t in_flight = 0;  // batches enqueued and not yet finished
    double kernel_ms = 0.0;
};

/// The buffers of one slot, sized by the engine's Shape; each member frees
/// itself, so a default-constructed SlotBuffers assigned over the old ones
/// frees them all.
struct SlotBuffers {
    // pinned host memory
    PinnedAllocation h_seqs;            // uint8_t codes
    PinnedAllocation h_tasks;           // PairTask
    PinnedAllocation h_out;             // int32_t SoA results
    PinnedAllocation h_status;          // uint32_t PairStatus per pair (score-only)
    PinnedAllocation h_cigar;           // uint32_t compact CIGAR runs (mapped: the gather kernel writes them)
    std::size_t h_cigar_capacity = 0;   // runs
    std::vector<std::uint32_t> overflow;  // pageable copy of d_cigar for a batch whose runs do not fit h_cigar
    // device memory
    DeviceAllocation d_seqs;     // uint8_t codes
    DeviceAllocation d_tasks;    // PairTask
    DeviceAllocation d_out;      // int32_t SoA results
    DeviceAllocation d_cigar;    // uint32_t CIGAR run slots
    DeviceAllocation d_dirs;     // direction bits
    DeviceAllocation d_scratch;  // int4 boundary rows
    DeviceAllocation d_status;   // uint32_t PairStatus per pair (score-only)
    DeviceAllocation d_pair_boundary;  // uint2 strip boundaries of the inter-pair kernel (score-only)
};

/// One stream with its own pinned host and device buffers.
struct Slot {
    cudaStream_t stream = nullptr;
    // events: before the host-to-device copies, around the kernels, after the device-to-host copies
    cudaEvent_t copy_start = nullptr, kernel_start = nullptr, kernel_stop = nullptr, copy_stop = nullptr;
    SlotBuffers buf;
    // the batch in flight
    Request* owner = nullptr;
    std::vector<std::size_t> members;  // input index (in owner->pairs) of batch slot b
    std::size_t cigar_slots = 0;
    std::uint64_t h2d_bytes = 0, d2h_bytes = 0;
    bool inter_pair = false;  // the batch ran the inter-pair kernel (its status array comes back)
    bool pair_dirs = false;   // the batch ran the inter-pair kernel's traceback variant
    bool busy = false;
};

struct BatchEngine::Impl {
    ScoringScheme scheme;
    AlignMode mode;
    bool score_only;
    bool pair_kernels = false;           // batches of enough pairs run the inter-pair kernel (score-only) or its traceback variant
    std::int32_t max_score = 0;          // the scheme's largest substitution score
    bool negative_profile = false;       // some s + gap_open + gap_extend < 0 (BatchParams::negative_profile)
    std::size_t pair_kernel_min_pairs = 0;  // smallest batch the inter-pair kernel takes (SMs x tuning)
    BatchEngineOptions options;
    int rows = 16;                       // tuning: rows per lane of the DP kernel in use
    Shape shape;                         // capacity of every slot
    std::size_t device_bytes = 0;        // device memory held (rounded allocation sizes)
    std::size_t matrix_bytes = 0;
    int retries = 0;                     // halvings after cudaErrorMemoryAllocation
    std::uint64_t host_pairs = 0;        // pairs aligned on the host after a halving
    DeviceAllocation d_matrix;           // int32_t size x size substitution scores
    std::vector<Slot> slots;
    std::size_t next_slot = 0;           // round robin: the oldest batch in flight is the first busy slot from here
    std::map<Ticket, std::unique_ptr<Request>> requests;
    Ticket last_ticket = 0;
    double kernel_ms = 0.0;
    BatchEngineProfile profile;
    int host_threads = 1;                // OpenMP threads for packing and result building
    std::uint64_t batches_launched = 0;
    std::uint64_t fault_batch = 0;       // test hook GPUALIGN_INJECT_CUDA_FAULT
    std::string broken;                  // non-empty after a CUDA error other than an allocation failure
    /// enqueue's working arrays for one window of pairs, reused by every submission.
    struct Scratch {
        std::vector<std::size_t> order, sorted;             // input indices, by size
        std::vector<std::uint64_t> keys;                    // sort keys
        std::vector<std::pair<std::uint32_t, std::uint32_t>> lengths;  // (query, ref) lengths in order
    } scratch;

    void release() noexcept;
    void alloc_buffers(Slot& s);
    SlotKind slot_kind() const noexcept {
        if (!score_only) return pair_kernels ? SlotKind::pair_traceback : SlotKind::traceback;
        return pair_kernels ? SlotKind::inter_pair : SlotKind::score;
    }
    /// Whether the traceback variant of the inter-pair kernel takes an m x n
    /// pair: its forward pass's values fit 16 bits (pair_fits_16bit).
    bool pair_fits(std::size_t m, std::size_t n) const noexcept {
        return detail::pair_fits_16bit(detail::pair_bias(mode == AlignMode::local, scheme.gap_open, scheme.gap_extend,
                                                         static_cast<std::int64_t>(m), static_cast<std::int64_t>(n)),
                                       max_score, static_cast<std::int64_t>(scheme.gap_open) + scheme.gap_extend,
                                       static_cast<std::int64_t>(m), static_cast<std::int64_t>(n));
    }
    std::size_t cut_pair_batch(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& lengths, std::size_t first,
                               std::size_t end) const;
    void allocate(std::size_t budget);
    void shrink();
    void check_usable() const;
    Slot& acquire();
    void drain();
    void enqueue(Request& r);
    void submit(Slot& slot, Request& r, const std::vector<std::size_t>& order,
                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& lengths, std::size_t first, std::size_t last,
                bool pair_dirs);
    void finish(Slot& slot);
    void align_on_host(Request& r, const std::vector<std::size_t>& indices);
};

void BatchEngine::Impl::release() noexcept {
    // This engine's device, whichever the calling thread has current (the
    // pipeline destroys the engines of several GPUs from one thread).
    if (!slots.empty()) (void)cudaSetDevice(options.device);
    for (Slot& s : slots) {
        if (s.stream) cudaStreamSynchronize(s.stream);
        s.buf = {};
        for (cudaEvent_t e : {s.copy_start, s.kernel_start, s.kernel_stop, s.copy_stop})
            if (e) cudaEventDestroy(e);
        if (s.stream) cudaStreamDestroy(s.stream);
    }
    slots.clear();
    d_matrix.reset();
    device_bytes = 0;
}

void BatchEngine::Impl::alloc_buffers(Slot& s) {
    SlotBuffers& b = s.buf;
    b.h_seqs = host_alloc<std::uint8_t>(shape.bases, "pinned sequence buffer");
    b.h_tasks = host_alloc<PairTask>(shape.pairs, "pinned task buffer");
    b.h_out = host_alloc<std::int32_t>(shape.pairs * detail::out_fields, "pinned result buffer");
    b.d_seqs = device_alloc<std::uint8_t>(shape.bases, "device sequence buffer", device_bytes);
    b.d_tasks = device_alloc<PairTask>(shape.pairs, "device task buffer", device_bytes);
    b.d_out = device_alloc<std::int32_t>(shape.pairs * detail::out_fields, "device result buffer", device_bytes);
    b.d_scratch = device_alloc<std::uint8_t>((shape.bases + shape.pairs) * 16, "device boundary rows", device_bytes);
    if (pair_kernels) {  // the traceback variant uses the strip boundaries only
        if (score_only) {
            b.h_status = host_alloc<std::uint32_t>(shape.pairs, "pinned pair status");
            b.d_status = device_alloc<std::uint32_t>(shape.pairs, "device pair status", device_bytes);
        }
        b.d_pair_boundary = device_alloc<std::uint8_t>(shape.bases * pair_boundary_per_base,
                                                       "device inter-pair strip boundaries", device_bytes);
    }
    if (!score_only) {
        b.h_cigar_capacity = std::max<std::size_t>(
            1, static_cast<std::size_t>(static_cast<double>(shape.bases) * options.cigar_runs_per_base));
        const std::size_t bytes = b.h_cigar_capacity * sizeof(std::uint32_t);
        b.h_cigar = PinnedAllocation(bytes, "mapped pinned CIGAR buffer, " + std::to_string(bytes) + " bytes",
                                     cudaHostAllocMapped, "mapping the pinned CIGAR buffer");
        b.d_cigar = device_alloc<std::uint32_t>(shape.bases, "device CIGAR buffer", device_bytes);
        b.d_dirs = device_alloc<std::uint8_t>(shape.dirs, "device direction bits", device_bytes);
    }
}

// Sizes every slot for `budget` device bytes (0: the default shape from
// max_batch_bases and the free memory) and allocates; on
// cudaErrorMemoryAllocation frees them, halves the budget and tries again.
void BatchEngine::Impl::allocate(std::size_t budget) {
    const bool tb = !score_only;
    const SlotKind kind = slot_kind();
    const std::size_t nstreams = slots.size();
    if (budget == 0) {
        shape.bases = options.max_batch_bases;
        shape.pairs = std::min(detail::max_batch_pairs, options.max_batch_bases);
        shape.dirs = 0;
        if (tb) {
            std::size_t free_b = 0, total_b = 0;
            GPUALIGN_CUDA(cudaMemGetInfo(&free_b, &total_b), "querying free device memory");
            const std::uint64_t fixed_all = static_cast<std::uint64_t>(slot_device_bytes(shape, kind)) * nstreams + (64u << 20);
            const std::uint64_t avail = free_b / 10 * 8;
            if (avail > fixed_all + nstreams * (16u << 20))
                shape.dirs = std::min<std::uint64_t>(detail::traceback_bytes_cap(options.max_batch_bases),
                                                     (avail - fixed_all) / nstreams) &
                             ~std::uint64_t{7};
            else  // little free memory: size from it as if it were a limit
                shape = shape_for_budget(static_cast<std::size_t>(avail / nstreams), options.max_batch_bases, kind);
        }
    } else {
        shape = shape_for_budget(budget, options.max_batch_bases, kind);
    }
    while (true) {
        const bool valid = shape.bases >= 2 && shape.pairs >= 1 && (!tb || shape.dirs >= 16);
        if (!valid) {
            std::size_t free_b = 0, total_b = 0;
            (void)cudaMemGetInfo(&free_b, &total_b);
            throw std::runtime_error(
                "gpualign: could not allocate the GPU engine's buffers (cudaErrorMemoryAllocation) even at " +
                std::to_string(min_slot_budget) + " bytes per stream (" + std::to_string(nstreams) + " streams, " +
                std::to_string(retries) + " halvings; device memory free " + std::to_string(free_b >> 20) + " of " +
                std::to_string(total_b >> 20) + " MiB; gpu memory limit " +
                (options.gpu_memory_limit ? std::to_string(options.gpu_memory_limit) + " bytes" : std::string("none")) +
                ")");
        }
        try {
            for (Slot& s : slots) alloc_buffers(s);
            return;
        } catch (const CudaError& e) {
            if (e.code() != cudaErrorMemoryAllocation) throw;
            for (Slot& s : slots) s.buf = {};
            device_bytes = matrix_bytes;
            ++retries;
            shape = shape_for_budget(slot_device_bytes(shape, kind) / 2, options.max_batch_bases, kind);
        }
    }
}

// After cudaErrorMemoryAllocation in a batch: wait for the batches in flight,
// then reallocate every slot at half its size.
void BatchEngine::Impl::shrink() {
    drain();
    for (Slot& s : slots) s.buf = {};
    device_bytes = matrix_bytes;
    ++retries;
    allocate(slot_device_bytes(shape, slot_kind()) / 2);
}

BatchEngine::BatchEngine(const ScoringScheme& scheme, AlignMode mode, bool score_only, const BatchEngineOptions& options)
    : impl_(std::make_unique<Impl>()) {
    const auto setup_start = std::chrono::steady_clock::now();
    scheme.validate();
    if (options.streams < 1) throw std::invalid_argument("BatchEngineOptions::streams must be >= 1");
    if (options.max_batch_bases == 1) throw std::invalid_argument("BatchEngineOptions::max_batch_bases must be 0 or >= 2");
    if (!(options.cigar_runs_per_base > 0.0 && options.cigar_runs_per_base <= 1.0))
        throw std::invalid_argument("BatchEngineOptions::cigar_runs_per_base must be in (0, 1]");
    Impl& im = *impl_;
    im.scheme = scheme;
    im.mode = mode;
    im.score_only = score_only;
    im.options = options;
    im.pair_kernels = options.pair_kernels && pair_kernel_scheme(scheme);
    if (im.options.max_batch_bases == 0)
        im.options.max_batch_bases = score_only         ? detail::score_only_batch_bases
                                     : im.pair_kernels ? detail::pair_traceback_batch_bases
                                                       : traceback_batch_bases;
#ifdef _OPENMP
    im.host_threads = options.host_threads > 0 ? options.host_threads : omp_get_num_procs();
#endif
    im.rows = detail::rows_per_thread(mode != AlignMode::global, !score_only);
    im.max_score = *std::max_element(scheme.matrix.begin(), scheme.matrix.end());
    im.negative_profile = static_cast<std::int64_t>(*std::min_element(scheme.matrix.begin(), scheme.matrix.end())) +
                              scheme.gap_open + scheme.gap_extend <
                          0;
    im.fault_batch = injected_fault_batch();
    const std::size_t nstreams = static_cast<std::size_t>(options.streams);
    im.matrix_bytes = rounded(scheme.matrix.size() * sizeof(std::int32_t));
    std::size_t budget = 0;
    if (options.gpu_memory_limit) {
        const std::size_t minimum = nstreams * min_slot_budget + im.matrix_bytes;
        if (options.gpu_memory_limit < minimum)
            throw std::runtime_error("gpualign: GPU memory limit (--gpu-memory) of " +
                                     std::to_string(options.gpu_memory_limit) +
                                     " bytes is too small for the GPU engine: with " + std::to_string(nstreams) +
                                     " streams it needs at least " + std::to_string(minimum) + " bytes");
        budget = (options.gpu_memory_limit - im.matrix_bytes) / nstreams;
    }
    try {
        GPUALIGN_CUDA(cudaSetDevice(options.device), "selecting device " + std::to_string(options.device));
        // The engines' scheduling flag (detail::engine_device_flags). The device's
        // existing flags stay when its context is already active with other
        // flags (another BatchEngine in this process).
        if (const cudaError_t e = cudaSetDeviceFlags(detail::engine_device_flags); e != cudaSuccess) {
            if (e != cudaErrorSetOnActiveProcess) GPUALIGN_CUDA(e, "setting the device's scheduling flags");
            (void)cudaGetLastError();
        }
        int sms = 0;
        GPUALIGN_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, options.device), "querying the SM count");
        im.pair_kernel_min_pairs = options.pair_kernel_min_pairs
                                       ? options.pair_kernel_min_pairs
                                       : static_cast<std::size_t>(sms) * detail::pair_kernel_min_pairs_per_sm;
        if (im.pair_kernels) detail::prepare_pair_kernels(mode, im.negative_profile);
        im.d_matrix = device_alloc<std::int32_t>(scheme.matrix.size(), "substitution matrix", im.device_bytes);
        GPUALIGN_CUDA(cudaMemcpy(im.d_matrix.data(), scheme.matrix.data(), scheme.matrix.size() * sizeof(std::int32_t),
                                 cudaMemcpyHostToDevice),
                      "uploading the substitution matrix");
        im.slots.resize(nstreams);
        for (Slot& s : im.slots) {
            GPUALIGN_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "creating a stream");
            for (cudaEvent_t* e : {&s.copy_start, &s.kernel_start, &s.kernel_stop, &s.copy_stop})
                GPUALIGN_CUDA(cudaEventCreate(e), "creating an event");
        }
        im.allocate(budget);
    } catch (...) {
        im.release();
        throw;
    }
    im.profile.setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
}

BatchEngine::~BatchEngine() {
    if (impl_) impl_->release();
}

bool BatchEngine::accepts(std::size_t query_len, std::size_t ref_len) const noexcept {
    const Impl& im = *impl_;
    if (query_len > detail::max_sequence_length || ref_len > detail::max_sequence_length) return false;
    if (!fits_int32(im.scheme, query_len, ref_len)) return false;
    if (query_len + ref_len > im.shape.bases) return false;
    if (!im.score_only && query_len > 0 && ref_len > 0 &&
        detail::direction_bytes<detail::traceback_rows>(query_len, ref_len) + 8 > im.shape.dirs)
        return false;
    return true;
}

double BatchEngine::last_kernel_ms() const noexcept { return impl_->kernel_ms; }

BatchEngineProfile BatchEngine::profile() const noexcept { return impl_->profile; }

BatchEngineMemory BatchEngine::memory() const noexcept {
    const Impl& im = *impl_;
    BatchEngineMemory m;
    m.limit = im.options.gpu_memory_limit;
    m.device_bytes = im.device_bytes;
    m.streams = static_cast<int>(im.slots.size());
    m.batch_bases = im.shape.bases;
    m.batch_pairs = im.shape.pairs;
    m.traceback_bytes = im.score_only ? 0 : im.shape.dirs;
    m.allocation_retries = im.retries;
    m.host_pairs = im.host_pairs;
    return m;
}

void BatchEngine::Impl::check_usable() const {
    if (!broken.empty())
        throw std::runtime_error("gpualign::gpu::BatchEngine is unusable after an earlier CUDA error: " + broken);
}

// The next slot in rotation; if it holds a batch (the oldest in flight), that
// batch is finished first.
Slot& BatchEngine::Impl::acquire() {
    Slot& s = slots[next_slot];
    next_slot = (next_slot + 1) % slots.size();
    if (s.busy) finish(s);
    return s;
}

void BatchEngine::Impl::drain() {
    for (std::size_t k = 0; k < slots.size(); ++k) {
        Slot& s = slots[(next_slot + k) % slots.size()];
        if (s.busy) finish(s);
    }
}

void BatchEngine::Impl::submit(Slot& slot, Request& r, const std::vector<std::size_t>& order,
                               const std::vector<std::pair<std::uint32_t, std::uint32_t>>& lengths, std::size_t first,
                               std::size_t last, bool pair_dirs) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::span<const PairView> pairs = r.pairs;
    const std::uint32_t count = static_cast<std::uint32_t>(last - first);
    const std::uint32_t srows = detail::stripe_rows(rows);
    std::uint64_t seq_off = 0, dir_off = 0;
    std::uint32_t scratch_off = 0, cigar_off = 0, longest_m = 0, longest_n = 0;
    SlotBuffers& buf = slot.buf;
    PairTask* const h_tasks = buf.h_tasks.data<PairTask>();
    std::uint8_t* const h_seqs = buf.h_seqs.data<std::uint8_t>();
    slot.members.assign(order.begin() + static_cast<std::ptrdiff_t>(first), order.begin() + static_cast<std::ptrdiff_t>(last));
    // The tasks' offsets are prefix sums over the batch's lengths, which
    // enqueue gathered in batch order (lengths[first..last)).
    for (std::uint32_t b = 0; b < count; ++b) {
        const std::uint32_t m = lengths[first + b].first, n = lengths[first + b].second;
        PairTask& t = h_tasks[b];
        t.query_offset = static_cast<std::uint32_t>(seq_off);
        seq_off += m;
        t.ref_offset = static_cast<std::uint32_t>(seq_off);
        seq_off += n;
        t.query_len = m;
        t.ref_len = n;
        longest_m = std::max(longest_m, m);
        longest_n = std::max(longest_n, n);
        t.dir_offset = dir_off;
        if (!score_only && !pair_dirs)
            dir_off += (detail::direction_bytes<detail::traceback_rows>(m, n) + 7) & ~std::uint64_t{7};
        t.scratch_offset = scratch_off;
        if (m > srows) scratch_off += n + 1;
        t.cigar_offset = cigar_off;
        cigar_off += m + n;
    }
    if (pair_dirs) {
        // One direction region per warp of the inter-pair kernel (pair_warp_pairs),
        // sized by its longest query and ref (pair_dir_region_bytes).
        for (std::uint32_t w0 = 0; w0 < count; w0 += detail::pair_warp_pairs) {
            const std::uint32_t w1 = std::min(count, w0 + detail::pair_warp_pairs);
            std::uint32_t rows = 0, cols = 0;
            for (std::uint32_t b = w0; b < w1; ++b) {
                rows = std::max(rows, h_tasks[b].query_len);
                cols = std::max(cols, h_tasks[b].ref_len);
            }
            for (std::uint32_t b = w0; b < w1; ++b) {
                h_tasks[b].dir_offset = dir_off;
                h_tasks[b].dir_rows = rows;
            }
            dir_off += detail::pair_dir_region_bytes(rows, cols);
        }
    }
    slot.cigar_slots = score_only ? 0 : cigar_off;
    // The sequences into pinned memory, on several threads (the offsets above are a prefix sum).
#pragma omp parallel for schedule(static, 256) num_threads(host_threads)
    for (std::uint32_t b = 0; b < count; ++b) {
        const PairView& pv = pairs[slot.members[b]];
        const PairTask& t = h_tasks[b];
        std::memcpy(h_seqs + t.query_offset, pv.query.data(), pv.query.size());
        std::memcpy(h_seqs + t.ref_offset, pv.ref.data(), pv.ref.size());
    }

    const std::string what = "batch " + std::to_string(batches_launched + 1) + " of " + std::to_string(count) + " pairs";
    GPUALIGN_CUDA(cudaEventRecord(slot.copy_start, slot.stream), what);
    GPUALIGN_CUDA(cudaMemcpyAsync(buf.d_seqs.data(), h_seqs, seq_off, cudaMemcpyHostToDevice, slot.stream), what);
    GPUALIGN_CUDA(cudaMemcpyAsync(buf.d_tasks.data(), h_tasks, count * sizeof(PairTask), cudaMemcpyHostToDevice, slot.stream), what);
    detail::BatchParams a{};
    a.seqs = buf.d_seqs.data<std::uint8_t>();
    a.tasks = buf.d_tasks.data<PairTask>();
    a.matrix = d_matrix.data<std::int32_t>();
    a.out = buf.d_out.data<std::int32_t>();
    a.cigar = buf.d_cigar.data<std::uint32_t>();
    a.host_cigar = buf.h_cigar.device_view<std::uint32_t>();
    a.host_cigar_capacity = buf.h_cigar_capacity;
    a.dirs = buf.d_dirs.data<std::uint8_t>();
    a.scratch = buf.d_scratch.data<detail::BoundaryCell>();
    a.count = count;
    a.size = scheme.size;
    a.gap_open = scheme.gap_open;
    a.gap_extend = scheme.gap_extend;
    a.identical_codes = identical_codes(scheme.alphabet);
    a.max_score = max_score;
    a.negative_profile = negative_profile ? 1 : 0;
    a.reverse_bound = options.pair_reverse_bound ? 1 : 0;
    a.pair_dirs = pair_dirs ? 1 : 0;
    if (pair_dirs) a.pair_boundary = buf.d_pair_boundary.data<std::uint64_t>();
    const bool inter_pair = score_only && pair_kernels && count >= pair_kernel_min_pairs;
    if (inter_pair) {
        a.status = buf.d_status.data<std::uint32_t>();
        a.pair_boundary = buf.d_pair_boundary.data<std::uint64_t>();
        GPUALIGN_CUDA(cudaMemsetAsync(a.status, 0, std::size_t{count} * sizeof(std::uint32_t), slot.stream), what);
        // The forward pass's row bound for the reverse pass, in the boundary-row
        // buffer when it fits there (BatchParams::row_bound).
        const std::uint64_t blocks = (longest_m + detail::pair_bound_rows - 1) / detail::pair_bound_rows;
        const std::uint64_t strips = (longest_n + detail::pair_cols - 1) / detail::pair_cols;
        const std::uint64_t bound_bytes = blocks * strips * ((count + 1) / 2) * sizeof(std::uint32_t);
        if (mode != AlignMode::global && options.pair_reverse_bound && options.pair_row_bound &&
            longest_m >= detail::pair_row_bound_min_rows && bound_bytes <= buf.d_scratch.bytes()) {
            a.row_bound = buf.d_scratch.data<std::uint32_t>();
            a.bound_blocks = static_cast<std::int32_t>(blocks);
        }
    }
    const bool inject_fault = fault_batch != 0 && batches_launched + 1 == fault_batch;
    GPUALIGN_CUDA(cudaEventRecord(slot.kernel_start, slot.stream), what);
    detail::launch_alignment(a, mode, !score_only, inject_fault, slot.stream);
    GPUALIGN_CUDA(cudaEventRecord(slot.kernel_stop, slot.stream), what);
    GPUALIGN_CUDA(cudaMemcpyAsync(buf.h_out.data(), buf.d_out.data(), std::size_t{count} * detail::out_fields * sizeof(std::int32_t),
                                  cudaMemcpyDeviceToHost, slot.stream),
                  what);
    slot.inter_pair = inter_pair;
    slot.pair_dirs = pair_dirs;
    if (inter_pair)
        GPUALIGN_CUDA(cudaMemcpyAsync(buf.h_status.data(), a.status, std::size_t{count} * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToHost, slot.stream),
                      what);
    GPUALIGN_CUDA(cudaEventRecord(slot.copy_stop, slot.stream), what);
    slot.h2d_bytes = seq_off + count * sizeof(PairTask);
    slot.d2h_bytes = std::size_t{count} * (detail::out_fields + (inter_pair ? 1 : 0)) * sizeof(std::int32_t);
    ++batches_launched;
    ++profile.batches;
    profile.pack_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    slot.owner = &r;
    ++r.in_flight;
    slot.busy = true;
}

void BatchEngine::Impl::finish(Slot& slot) {
    const std::size_t count = slot.members.size();
    const std::string what = "waiting for a batch of " + std::to_string(count) + " pairs";
    const auto t0 = std::chrono::steady_clock::now();
    GPUALIGN_CUDA(cudaStreamSynchronize(slot.stream), what);
    const auto t1 = std::chrono::steady_clock::now();
    float ms = 0.0f, h2d = 0.0f, d2h = 0.0f;
    GPUALIGN_CUDA(cudaEventElapsedTime(&ms, slot.kernel_start, slot.kernel_stop), what);
    GPUALIGN_CUDA(cudaEventElapsedTime(&h2d, slot.copy_start, slot.kernel_start), what);
    GPUALIGN_CUDA(cudaEventElapsedTime(&d2h, slot.kernel_stop, slot.copy_stop), what);
    profile.kernel_ms += ms;
    profile.h2d_ms += h2d;
    profile.d2h_ms += d2h;
    profile.h2d_bytes += slot.h2d_bytes;
    profile.d2h_bytes += slot.d2h_bytes;
    Request& r = *slot.owner;
    r.kernel_ms += ms;
    SlotBuffers& buf = slot.buf;
    const std::int32_t* out = buf.h_out.data<std::int32_t>();
    const PairTask* const h_tasks = buf.h_tasks.data<PairTask>();
    const std::uint32_t* const h_cigar = buf.h_cigar.data<std::uint32_t>();
    // The compact runs (cigar_gather_kernel) when the batch's runs fitted the
    // mapped buffer; otherwise the whole traceback buffer, copied now, where
    // each pair's runs end at its last slot (traceback_kernel).
    bool compact = true;
    if (!score_only && count > 0) {
        const std::uint64_t total = static_cast<std::uint32_t>(out[detail::out_cigar_start * count + count - 1]) +
                                    static_cast<std::uint64_t>(out[detail::out_cigar_runs * count + count - 1]);
        compact = total <= buf.h_cigar_capacity;
        if (compact) {
            profile.d2h_bytes += total * sizeof(std::uint32_t);
        } else {
            buf.overflow.resize(slot.cigar_slots);
            GPUALIGN_CUDA(cudaMemcpy(buf.overflow.data(), buf.d_cigar.data(), slot.cigar_slots * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost),
                          what + " (CIGAR runs beyond the compact buffer)");
            profile.d2h_bytes += slot.cigar_slots * sizeof(std::uint32_t);
            ++profile.cigar_overflows;
        }
    }
    if (slot.pair_dirs) {
        profile.inter_pair_pairs += count;
        for (std::size_t b = 0; b < count; ++b)
            if (out[detail::out_cigar_runs * count + b] < 0)  // pair_fits disagreed with the kernel: a defect
                throw std::logic_error("gpualign: the inter-pair traceback kernel refused a pair of " +
                                       std::to_string(h_tasks[b].query_len) + " x " + std::to_string(h_tasks[b].ref_len) +
                                       " that the engine sent it");
    }
    if (slot.inter_pair) {
        const std::uint32_t* st = buf.h_status.data<std::uint32_t>();
        for (std::size_t b = 0; b < count; ++b) {
            profile.inter_pair_pairs += st[b] == detail::pair_done;
            profile.inter_pair_fallbacks += st[b] == detail::pair_fallback;
        }
    }
#pragma omp parallel for schedule(static, 256) num_threads(host_threads)
    for (std::size_t b = 0; b < count; ++b) {
        AlignmentResult& res = r.results[slot.members[b]];
        res.score = out[detail::out_score * count + b];
        res.query_begin = out[detail::out_query_begin * count + b];
        res.query_end = out[detail::out_query_end * count + b];
        res.ref_begin = out[detail::out_ref_begin * count + b];
        res.ref_end = out[detail::out_ref_end * count + b];
        res.has_cigar = !score_only;
        res.cigar.clear();
        if (!score_only) {
            const std::size_t runs = static_cast<std::size_t>(out[detail::out_cigar_runs * count + b]);
            const PairTask& t = h_tasks[b];
            const std::uint32_t* first =
                compact ? h_cigar + static_cast<std::uint32_t>(out[detail::out_cigar_start * count + b])
                        : buf.overflow.data() + t.cigar_offset + t.query_len + t.ref_len - runs;
            res.cigar.assign(first, first + runs);
        }
    }
    --r.in_flight;
    slot.owner = nullptr;
    slot.busy = false;
    const auto t2 = std::chrono::steady_clock::now();
    profile.wait_s += std::chrono::duration<double>(t1 - t0).count();
    profile.results_s += std::chrono::duration<double>(t2 - t1).count();
}

// Pairs that no longer fit the buffers after a halving: the CPU reference,
// which gives the same bytes by definition.
void BatchEngine::Impl::align_on_host(Request& r, const std::vector<std::size_t>& indices) {
    std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1) num_threads(host_threads)
    for (std::size_t k = 0; k < indices.size(); ++k) {
        const PairView& pv = r.pairs[indices[k]];
        try {
            r.results[indices[k]] = align_pair(pv.query, pv.ref, scheme, mode, score_only);
        } catch (...) {
#pragma omp critical
            if (!error) error = std::current_exception();
        }
    }
    if (error) std::rethrow_exception(error);
    host_pairs += indices.size();
}

// The longest run of pairs from `first` (before `end`) that the inter-pair
// kernel's traceback variant takes in one batch: each fits 16 bits, and the
// batch fits the slot's bases, pairs, direction bytes (one region per
// pair_warp_pairs pairs, pair_dir_region_bytes) and strip boundaries. When
// that leaves too few pairs of the window for a batch of their own, the run
// is halved so that both batches stay on the kernel.
std::size_t BatchEngine::Impl::cut_pair_batch(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& lengths,
                                              std::size_t first, std::size_t end) const {
    const std::size_t boundary_bytes = shape.bases * pair_boundary_per_base;
    std::size_t last = first, bases = 0, max_m = 0;
    std::uint64_t dirs = 0;           // regions of the completed warps
    std::uint32_t wrows = 0, wcols = 0;  // the current warp's longest query and ref
    while (last < end && last - first < shape.pairs) {
        const std::uint32_t m = lengths[last].first, n = lengths[last].second;
        if (!pair_fits(m, n)) break;
        const std::size_t k = last - first;
        if (k % detail::pair_warp_pairs == 0) {
            dirs += detail::pair_dir_region_bytes(wrows, wcols);
            wrows = wcols = 0;
        }
        const std::uint32_t rows = std::max(wrows, m), cols = std::max(wcols, n);
        const std::size_t strip_rows = std::max<std::size_t>(max_m, m);
        if (bases + m + n > shape.bases || dirs + detail::pair_dir_region_bytes(rows, cols) > shape.dirs ||
            strip_rows * ((k + 2) / 2) * sizeof(std::uint64_t) > boundary_bytes)
            break;
        bases += m + n;
        wrows = rows;
        wcols = cols;
        max_m = strip_rows;
        ++last;
    }
    if (last < end && end - last < pair_kernel_min_pairs && last - first >= 2 * pair_kernel_min_pairs &&
        pair_fits(lengths[last].first, lengths[last].second))
        last = first + (end - first) / 2;
    return last;
}

void BatchEngine::Impl::enqueue(Request& r) {
    const std::span<const PairView> pairs = r.pairs;
    std::vector<std::size_t> on_host;
    // The engine's scratch (kept across submissions: fresh pages for each
    // would fault in on this thread).
    std::vector<std::size_t>& order = scratch.order;
    std::vector<std::size_t>& sorted = scratch.sorted;
    std::vector<std::uint64_t>& keys = scratch.keys;
    std::vector<std::pair<std::uint32_t, std::uint32_t>>& lengths = scratch.lengths;  // (query, ref) lengths in `order`
    for (std::size_t w0 = 0; w0 < pairs.size(); w0 += detail::window_pairs) {
        const std::size_t w1 = std::min(pairs.size(), w0 + detail::window_pairs);
        order.clear();
        for (std::size_t i = w0; i < w1; ++i) {
            const std::size_t m = pairs[i].query.size(), n = pairs[i].ref.size();
            if (m == 0 || n == 0)
                r.results[i] = trivial_result(m, n, scheme, mode, score_only);
            else
                order.push_back(i);
        }
        // Longest first: similar lengths share a batch and the long ones start
        // early. Sorted as 64-bit keys (cells descending, then input order:
        // the order a stable sort gives) on the engine's host threads.
        const auto t0 = std::chrono::steady_clock::now();
        keys.resize(order.size());
#pragma omp parallel for schedule(static) num_threads(host_threads)
        for (std::size_t k = 0; k < order.size(); ++k) {
            const std::uint64_t cells = pairs[order[k]].query.size() * pairs[order[k]].ref.size();  // < 2^32
            keys[k] = ((std::uint64_t{0xFFFFFFFFu} - cells) << 32) | k;
        }
#ifdef _OPENMP
        __gnu_parallel::sort(keys.begin(), keys.end());
#else
        std::sort(keys.begin(), keys.end());
#endif
        sorted.resize(order.size());
        lengths.resize(order.size());
#pragma omp parallel for schedule(static) num_threads(host_threads)
        for (std::size_t k = 0; k < order.size(); ++k) {
            sorted[k] = order[keys[k] & 0xFFFFFFFFu];
            lengths[k] = {static_cast<std::uint32_t>(pairs[sorted[k]].query.size()),
                          static_cast<std::uint32_t>(pairs[sorted[k]].ref.size())};
        }
        order.swap(sorted);
        profile.order_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::size_t first = 0;
        while (first < order.size()) {
            const auto cut_start = std::chrono::steady_clock::now();
            // A batch for the traceback variant when enough pairs from here fit it,
            // else one for dp_kernel.
            std::size_t last = first;
            if (!score_only && pair_kernels) last = cut_pair_batch(lengths, first, order.size());
            const bool pair_dirs = last > first && last - first >= pair_kernel_min_pairs;
            if (!pair_dirs) {
                const std::size_t m0 = lengths[first].first, n0 = lengths[first].second;
                const std::uint64_t d0 = score_only ? 0 : (detail::direction_bytes<detail::traceback_rows>(m0, n0) + 7) & ~std::uint64_t{7};
                if (m0 + n0 > shape.bases || (!score_only && d0 > shape.dirs)) {  // only after a halving
                    on_host.push_back(order[first++]);
                    profile.order_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - cut_start).count();
                    continue;
                }
                last = first;
                std::size_t bases = 0, max_m = 0;
                std::uint64_t dirs = 0;
                const std::size_t pair_boundary_bytes = shape.bases * pair_boundary_per_base;
                while (last < order.size() && last - first < shape.pairs) {
                    const std::size_t m = lengths[last].first, n = lengths[last].second;
                    const std::uint64_t d = score_only ? 0 : (detail::direction_bytes<detail::traceback_rows>(m, n) + 7) & ~std::uint64_t{7};
                    if (bases + m + n > shape.bases || dirs + d > shape.dirs) break;
                    // The inter-pair kernel's boundaries: the longest query's rows x one entry per two pairs.
                    const std::size_t rows = std::max(max_m, m);
                    if (score_only && pair_kernels && last > first &&
                        rows * ((last - first + 2) / 2) * sizeof(std::uint64_t) > pair_boundary_bytes)
                        break;
                    // With the traceback variant, dp_kernel's batch ends where
                    // enough pairs that fit 16 bits follow for a batch of their own.
                    if (!score_only && pair_kernels && last > first && order.size() - last >= pair_kernel_min_pairs &&
                        pair_fits(m, n))
                        break;
                    bases += m + n;
                    dirs += d;
                    max_m = rows;
                    ++last;
                }
            }
            profile.order_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - cut_start).count();
            Slot& slot = acquire();
            try {
                submit(slot, r, order, lengths, first, last, pair_dirs);
            } catch (const CudaError& e) {
                if (e.code() != cudaErrorMemoryAllocation) throw;
                shrink();  // then cut the same pairs again, smaller
                continue;
            }
            first = last;
        }
    }
    if (!on_host.empty()) align_on_host(r, on_host);
}

Ticket BatchEngine::align_async(std::span<const PairView> pairs) {
    const auto t0 = std::chrono::steady_clock::now();
    Impl& im = *impl_;
    im.check_usable();
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (!accepts(pairs[i].query.size(), pairs[i].ref.size()))
            throw std::invalid_argument("gpualign::gpu::BatchEngine: pair " + std::to_string(i) + " of lengths " +
                                        std::to_string(pairs[i].query.size()) + " x " +
                                        std::to_string(pairs[i].ref.size()) + " is not accepted (see accepts())");
    auto owned = std::make_unique<Request>();
    Request& r = *owned;
    r.id = ++im.last_ticket;
    r.pairs = pairs;
    // A million results are tens of MB of fresh pages: their first touch
    // (page faults) on one thread cost more than the batches' packing, so
    // the storage is touched on the engine's threads before the (serial)
    // construction.
    r.results.reserve(pairs.size());
    touch_pages(reinterpret_cast<unsigned char*>(r.results.data()), r.results.capacity() * sizeof(AlignmentResult),
                im.host_threads);
    r.results.resize(pairs.size());
    im.requests.emplace(r.id, std::move(owned));
    im.profile.request_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    try {
        GPUALIGN_CUDA(cudaSetDevice(im.options.device), "selecting device " + std::to_string(im.options.device));
        im.enqueue(r);
    } catch (const std::exception& e) {
        im.broken = e.what();
        throw;
    }
    return r.id;
}

std::vector<AlignmentResult> BatchEngine::collect(Ticket ticket) {
    Impl& im = *impl_;
    im.check_usable();
    const auto it = im.requests.find(ticket);
    if (it == im.requests.end())
        throw std::invalid_argument("gpualign::gpu::BatchEngine::collect: unknown or already collected ticket " +
                                    std::to_string(ticket));
    Request& r = *it->second;
    try {
        GPUALIGN_CUDA(cudaSetDevice(im.options.device), "selecting device " + std::to_string(im.options.device));
        // Batches finish in submission order: the oldest in flight first.
        while (r.in_flight > 0) {
            std::size_t k = 0;
            while (!im.slots[(im.next_slot + k) % im.slots.size()].busy) ++k;
            im.finish(im.slots[(im.next_slot + k) % im.slots.size()]);
        }
    } catch (const std::exception& e) {
        im.broken = e.what();
        throw;
    }
    im.kernel_ms = r.kernel_ms;
    std::vector<AlignmentResult> results = std::move(r.results);
    im.requests.erase(it);
    return results;
}

std::vector<AlignmentResult> BatchEngine::align(std::span<const PairView> pairs) { return collect(align_async(pairs)); }

}  // namespace gpualign::gpu
