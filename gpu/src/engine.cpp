// gpualign — gpualign::gpu::Engine: the owning host object of the CUDA
// backend (buffers allocated once, streams in rotation), the batching and the
// conversion of structure-of-arrays device results to AlignmentResult.
// Host code (g++); kernels are launched through dispatch.hpp.
#include "gpualign/gpu/engine.hpp"

#include <cuda_runtime_api.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cstring>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch_layout.hpp"
#include "cuda_check.hpp"
#include "dispatch.hpp"
#include "tuning.hpp"

namespace gpualign::gpu {

int device_count() noexcept {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();  // clear the sticky "no driver/device" state
        return 0;
    }
    return n;
}

std::string device_description(int device) {
    cudaDeviceProp prop{};
    GPUALIGN_CUDA(cudaGetDeviceProperties(&prop, device), "device " + std::to_string(device));
    return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
           std::to_string(prop.multiProcessorCount) + " SMs, " +
           std::to_string(prop.totalGlobalMem >> 20) + " MiB)";
}

namespace {

using detail::PairTask;

template <typename T>
void device_alloc(T*& ptr, std::size_t count, const char* what) {
    void* p = nullptr;
    GPUALIGN_CUDA(cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T)), what);
    ptr = static_cast<T*>(p);
}

template <typename T>
void host_alloc(T*& ptr, std::size_t count, const char* what) {
    void* p = nullptr;
    GPUALIGN_CUDA(cudaMallocHost(&p, std::max<std::size_t>(count, 1) * sizeof(T)), what);
    ptr = static_cast<T*>(p);
}

// Result of a pair with an empty side, computed as the CPU reference does.
AlignmentResult trivial_result(std::size_t m, std::size_t n, const ScoringScheme& s, AlignMode mode, bool score_only) {
    AlignmentResult r;
    r.has_cigar = !score_only;
    if (mode == AlignMode::local) return r;
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

}  // namespace

/// One stream with its own pinned host and device buffers.
struct Slot {
    cudaStream_t stream = nullptr;
    cudaEvent_t kernel_start = nullptr, kernel_stop = nullptr;
    // pinned host memory
    std::uint8_t* h_seqs = nullptr;
    PairTask* h_tasks = nullptr;
    std::int32_t* h_out = nullptr;
    std::uint32_t* h_cigar = nullptr;
    // device memory
    std::uint8_t* d_seqs = nullptr;
    PairTask* d_tasks = nullptr;
    std::int32_t* d_out = nullptr;
    std::uint32_t* d_cigar = nullptr;
    std::uint8_t* d_dirs = nullptr;
    std::uint8_t* d_scratch = nullptr;  // int4 boundary rows
    // the batch in flight
    std::vector<std::size_t> members;  // input index of batch slot b
    std::size_t cigar_slots = 0;
    bool busy = false;
};

struct Engine::Impl {
    ScoringScheme scheme;
    AlignMode mode;
    bool score_only;
    EngineOptions options;
    int rows = 16;                       // tuning: rows per lane of the DP kernel in use
    std::size_t cap_bases = 0;           // query+ref bases per batch
    std::size_t cap_pairs = 0;           // pairs per batch
    std::uint64_t cap_dirs = 0;          // direction-bit bytes per batch (0 in score-only mode)
    std::int32_t* d_matrix = nullptr;
    std::vector<Slot> slots;
    double kernel_ms = 0.0;
    int host_threads = 1;                // OpenMP threads for packing and result building

    void release() noexcept;
    void submit(Slot& slot, std::span<const PairView> pairs, const std::vector<std::size_t>& order,
                std::size_t first, std::size_t last);
    void finish(Slot& slot, std::vector<AlignmentResult>& results);
};

void Engine::Impl::release() noexcept {
    for (Slot& s : slots) {
        if (s.stream) cudaStreamSynchronize(s.stream);
        cudaFreeHost(s.h_seqs);
        cudaFreeHost(s.h_tasks);
        cudaFreeHost(s.h_out);
        cudaFreeHost(s.h_cigar);
        cudaFree(s.d_seqs);
        cudaFree(s.d_tasks);
        cudaFree(s.d_out);
        cudaFree(s.d_cigar);
        cudaFree(s.d_dirs);
        cudaFree(s.d_scratch);
        if (s.kernel_start) cudaEventDestroy(s.kernel_start);
        if (s.kernel_stop) cudaEventDestroy(s.kernel_stop);
        if (s.stream) cudaStreamDestroy(s.stream);
    }
    slots.clear();
    cudaFree(d_matrix);
    d_matrix = nullptr;
}

Engine::Engine(const ScoringScheme& scheme, AlignMode mode, bool score_only, const EngineOptions& options)
    : impl_(std::make_unique<Impl>()) {
    scheme.validate();
    if (options.streams < 1) throw std::invalid_argument("EngineOptions::streams must be >= 1");
    if (options.max_batch_bases < 2) throw std::invalid_argument("EngineOptions::max_batch_bases must be >= 2");
    Impl& im = *impl_;
    im.scheme = scheme;
    im.mode = mode;
    im.score_only = score_only;
    im.options = options;
#ifdef _OPENMP
    im.host_threads = options.host_threads > 0 ? options.host_threads : omp_get_num_procs();
#endif
    im.rows = detail::rows_per_thread(mode == AlignMode::local, !score_only);
    im.cap_bases = options.max_batch_bases;
    im.cap_pairs = std::min(detail::max_batch_pairs, options.max_batch_bases);
    try {
        GPUALIGN_CUDA(cudaSetDevice(options.device), "selecting device " + std::to_string(options.device));
        const std::size_t nstreams = static_cast<std::size_t>(options.streams);
        // Fixed device bytes per slot: sequences, tasks, outputs, CIGAR runs, boundary rows.
        const std::size_t fixed = im.cap_bases + im.cap_pairs * sizeof(PairTask) +
                                  im.cap_pairs * detail::out_fields * sizeof(std::int32_t) +
                                  (score_only ? 0 : im.cap_bases * sizeof(std::uint32_t)) +
                                  (im.cap_bases + im.cap_pairs) * 16;
        if (!score_only) {
            std::size_t free_b = 0, total_b = 0;
            GPUALIGN_CUDA(cudaMemGetInfo(&free_b, &total_b), "querying free device memory");
            std::uint64_t budget = options.gpu_memory_limit ? std::min<std::uint64_t>(options.gpu_memory_limit, free_b)
                                                            : free_b / 10 * 8;
            const std::uint64_t fixed_all = static_cast<std::uint64_t>(fixed) * nstreams + (64u << 20);
            if (budget <= fixed_all + nstreams * (16u << 20))
                throw std::runtime_error("gpualign: device memory budget of " + std::to_string(budget >> 20) +
                                         " MiB is too small for " + std::to_string(nstreams) + " streams");
            im.cap_dirs = std::min<std::uint64_t>(detail::default_traceback_bytes, (budget - fixed_all) / nstreams);
            im.cap_dirs &= ~std::uint64_t{7};
        }
        device_alloc(im.d_matrix, scheme.matrix.size(), "substitution matrix");
        GPUALIGN_CUDA(cudaMemcpy(im.d_matrix, scheme.matrix.data(), scheme.matrix.size() * sizeof(std::int32_t),
                                 cudaMemcpyHostToDevice),
                      "uploading the substitution matrix");
        im.slots.resize(nstreams);
        for (Slot& s : im.slots) {
            GPUALIGN_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "creating a stream");
            GPUALIGN_CUDA(cudaEventCreate(&s.kernel_start), "creating an event");
            GPUALIGN_CUDA(cudaEventCreate(&s.kernel_stop), "creating an event");
            host_alloc(s.h_seqs, im.cap_bases, "pinned sequence buffer");
            host_alloc(s.h_tasks, im.cap_pairs, "pinned task buffer");
            host_alloc(s.h_out, im.cap_pairs * detail::out_fields, "pinned result buffer");
            device_alloc(s.d_seqs, im.cap_bases, "device sequence buffer");
            device_alloc(s.d_tasks, im.cap_pairs, "device task buffer");
            device_alloc(s.d_out, im.cap_pairs * detail::out_fields, "device result buffer");
            device_alloc(s.d_scratch, (im.cap_bases + im.cap_pairs) * 16, "device boundary rows");
            if (!score_only) {
                host_alloc(s.h_cigar, im.cap_bases, "pinned CIGAR buffer");
                device_alloc(s.d_cigar, im.cap_bases, "device CIGAR buffer");
                device_alloc(s.d_dirs, im.cap_dirs, "device direction bits");
            }
        }
    } catch (...) {
        im.release();
        throw;
    }
}

Engine::~Engine() {
    if (impl_) impl_->release();
}

bool Engine::accepts(std::size_t query_len, std::size_t ref_len) const noexcept {
    const Impl& im = *impl_;
    if (query_len > detail::max_sequence_length || ref_len > detail::max_sequence_length) return false;
    if (!fits_int32(im.scheme, query_len, ref_len)) return false;
    if (query_len + ref_len > im.cap_bases) return false;
    if (!im.score_only && query_len > 0 && ref_len > 0 &&
        detail::direction_bytes(query_len, ref_len, im.rows) + 8 > im.cap_dirs)
        return false;
    return true;
}

double Engine::last_kernel_ms() const noexcept { return impl_->kernel_ms; }

void Engine::Impl::submit(Slot& slot, std::span<const PairView> pairs, const std::vector<std::size_t>& order,
                          std::size_t first, std::size_t last) {
    const std::uint32_t count = static_cast<std::uint32_t>(last - first);
    const std::uint32_t srows = detail::stripe_rows(rows);
    std::uint64_t seq_off = 0, dir_off = 0;
    std::uint32_t scratch_off = 0, cigar_off = 0;
    slot.members.assign(order.begin() + static_cast<std::ptrdiff_t>(first), order.begin() + static_cast<std::ptrdiff_t>(last));
    for (std::uint32_t b = 0; b < count; ++b) {
        const PairView& pv = pairs[slot.members[b]];
        const std::uint32_t m = static_cast<std::uint32_t>(pv.query.size()), n = static_cast<std::uint32_t>(pv.ref.size());
        PairTask& t = slot.h_tasks[b];
        t.query_offset = static_cast<std::uint32_t>(seq_off);
        seq_off += m;
        t.ref_offset = static_cast<std::uint32_t>(seq_off);
        seq_off += n;
        t.query_len = m;
        t.ref_len = n;
        t.dir_offset = dir_off;
        if (!score_only) dir_off += (detail::direction_bytes(m, n, rows) + 7) & ~std::uint64_t{7};
        t.scratch_offset = scratch_off;
        if (m > srows) scratch_off += n + 1;
        t.cigar_offset = cigar_off;
        cigar_off += m + n;
    }
    slot.cigar_slots = score_only ? 0 : cigar_off;
    // The sequences into pinned memory, on several threads (the offsets above are a prefix sum).
#pragma omp parallel for schedule(static, 256) num_threads(host_threads)
    for (std::uint32_t b = 0; b < count; ++b) {
        const PairView& pv = pairs[slot.members[b]];
        const PairTask& t = slot.h_tasks[b];
        std::memcpy(slot.h_seqs + t.query_offset, pv.query.data(), pv.query.size());
        std::memcpy(slot.h_seqs + t.ref_offset, pv.ref.data(), pv.ref.size());
    }

    const std::string what = "batch of " + std::to_string(count) + " pairs";
    GPUALIGN_CUDA(cudaMemcpyAsync(slot.d_seqs, slot.h_seqs, seq_off, cudaMemcpyHostToDevice, slot.stream), what);
    GPUALIGN_CUDA(cudaMemcpyAsync(slot.d_tasks, slot.h_tasks, count * sizeof(PairTask), cudaMemcpyHostToDevice, slot.stream), what);
    detail::LaunchArgs a{};
    a.seqs = slot.d_seqs;
    a.tasks = slot.d_tasks;
    a.matrix = d_matrix;
    a.out = slot.d_out;
    a.cigar = slot.d_cigar;
    a.dirs = slot.d_dirs;
    a.scratch = slot.d_scratch;
    a.count = count;
    a.size = scheme.size;
    a.gap_open = scheme.gap_open;
    a.gap_extend = scheme.gap_extend;
    a.dna = scheme.alphabet == Alphabet::dna;
    a.local = mode == AlignMode::local;
    a.traceback = !score_only;
    GPUALIGN_CUDA(cudaEventRecord(slot.kernel_start, slot.stream), what);
    detail::launch_alignment(a, slot.stream);
    GPUALIGN_CUDA(cudaEventRecord(slot.kernel_stop, slot.stream), what);
    GPUALIGN_CUDA(cudaMemcpyAsync(slot.h_out, slot.d_out, std::size_t{count} * detail::out_fields * sizeof(std::int32_t),
                                  cudaMemcpyDeviceToHost, slot.stream),
                  what);
    if (!score_only)
        GPUALIGN_CUDA(cudaMemcpyAsync(slot.h_cigar, slot.d_cigar, slot.cigar_slots * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToHost, slot.stream),
                      what);
    slot.busy = true;
}

void Engine::Impl::finish(Slot& slot, std::vector<AlignmentResult>& results) {
    const std::size_t count = slot.members.size();
    const std::string what = "batch of " + std::to_string(count) + " pairs";
    GPUALIGN_CUDA(cudaStreamSynchronize(slot.stream), what);
    float ms = 0.0f;
    GPUALIGN_CUDA(cudaEventElapsedTime(&ms, slot.kernel_start, slot.kernel_stop), what);
    kernel_ms += ms;
    const std::int32_t* out = slot.h_out;
#pragma omp parallel for schedule(static, 256) num_threads(host_threads)
    for (std::size_t b = 0; b < count; ++b) {
        AlignmentResult& r = results[slot.members[b]];
        r.score = out[detail::out_score * count + b];
        r.query_begin = out[detail::out_query_begin * count + b];
        r.query_end = out[detail::out_query_end * count + b];
        r.ref_begin = out[detail::out_ref_begin * count + b];
        r.ref_end = out[detail::out_ref_end * count + b];
        r.has_cigar = !score_only;
        r.cigar.clear();
        if (!score_only) {
            const std::size_t runs = static_cast<std::size_t>(out[detail::out_cigar_runs * count + b]);
            const std::uint32_t* rev = slot.h_cigar + slot.h_tasks[b].cigar_offset;
            r.cigar.assign(std::make_reverse_iterator(rev + runs), std::make_reverse_iterator(rev));
        }
    }
    slot.busy = false;
}

std::vector<AlignmentResult> Engine::align(std::span<const PairView> pairs) {
    Impl& im = *impl_;
    GPUALIGN_CUDA(cudaSetDevice(im.options.device), "selecting device " + std::to_string(im.options.device));
    im.kernel_ms = 0.0;
    std::vector<AlignmentResult> results(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (!accepts(pairs[i].query.size(), pairs[i].ref.size()))
            throw std::invalid_argument("gpualign::gpu::Engine: pair " + std::to_string(i) + " of lengths " +
                                        std::to_string(pairs[i].query.size()) + " x " +
                                        std::to_string(pairs[i].ref.size()) + " is not accepted (see accepts())");

    std::size_t next_slot = 0;
    std::vector<std::size_t> order;
    for (std::size_t w0 = 0; w0 < pairs.size(); w0 += detail::window_pairs) {
        const std::size_t w1 = std::min(pairs.size(), w0 + detail::window_pairs);
        order.clear();
        for (std::size_t i = w0; i < w1; ++i) {
            const std::size_t m = pairs[i].query.size(), n = pairs[i].ref.size();
            if (m == 0 || n == 0)
                results[i] = trivial_result(m, n, im.scheme, im.mode, im.score_only);
            else
                order.push_back(i);
        }
        // Longest first: similar lengths share a batch and the long ones start early.
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return pairs[a].query.size() * pairs[a].ref.size() > pairs[b].query.size() * pairs[b].ref.size();
        });
        std::size_t first = 0;
        while (first < order.size()) {
            std::size_t last = first, bases = 0;
            std::uint64_t dirs = 0;
            while (last < order.size() && last - first < im.cap_pairs) {
                const std::size_t m = pairs[order[last]].query.size(), n = pairs[order[last]].ref.size();
                const std::uint64_t d = im.score_only ? 0 : (detail::direction_bytes(m, n, im.rows) + 7) & ~std::uint64_t{7};
                if (bases + m + n > im.cap_bases || dirs + d > im.cap_dirs) break;
                bases += m + n;
                dirs += d;
                ++last;
            }
            Slot& slot = im.slots[next_slot];
            next_slot = (next_slot + 1) % im.slots.size();
            if (slot.busy) im.finish(slot, results);
            im.submit(slot, pairs, order, first, last);
            first = last;
        }
    }
    for (std::size_t k = 0; k < im.slots.size(); ++k) {
        Slot& slot = im.slots[(next_slot + k) % im.slots.size()];
        if (slot.busy) im.finish(slot, results);
    }
    return results;
}

}  // namespace gpualign::gpu
