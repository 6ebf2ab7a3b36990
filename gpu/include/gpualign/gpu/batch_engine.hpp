// gpualign — the batch engine of the CUDA backend: many short pairs (each
// side up to 65,535 codes) aligned on one GPU, a warp per pair. Plain C++20:
// no SeqAn3 and no CUDA types, so lib/ and app/ include it without nvcc.
// The devices themselves: device.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu {

/// One pair to align: borrowed spans of sequence codes (gpualign::Alphabet
/// codes, one byte per residue) in host memory, not owned. They must stay
/// valid until BatchEngine::align returns, or until BatchEngine::collect of
/// the submission returns.
struct PairView {
    std::span<const std::uint8_t> query;  ///< query codes (rows of the DP matrix)
    std::span<const std::uint8_t> ref;    ///< ref codes (columns)
};

/// The default query+ref bases per device batch of an engine with
/// traceback (BatchEngineOptions::max_batch_bases = 0): 8 Mi.
inline constexpr std::size_t traceback_batch_bases = std::size_t{8} << 20;

/// BatchEngine settings (host values). Sizes in bytes or bases as named.
struct BatchEngineOptions {
    int device = 0;                              ///< CUDA device ordinal
    int streams = 4;                             ///< CUDA streams in rotation (>= 1)
    /// Query+ref bases per device batch (upper bound); 0 = the default of the
    /// engine's kind: 128 Mi bases for score-only engines (the inter-pair
    /// kernel fills the GPU with hundreds of thousands of pairs), 8 Mi with
    /// traceback (its direction bits bound the batch first), 96 Mi with
    /// traceback where the inter-pair kernel's traceback variant takes the
    /// scheme (pair_kernels).
    std::size_t max_batch_bases = 0;
    /// Cap on the engine's device memory in bytes, 0 = no cap. Every device
    /// allocation of the engine (sequences, tasks, results, CIGAR runs,
    /// boundary rows, direction bits, the substitution matrix) counts, each
    /// rounded up to 256 bytes; the CUDA context and the kernels' code do
    /// not. Batches are sized from it (see docs/gpu.md, "Device memory").
    std::size_t gpu_memory_limit = 0;
    int host_threads = 0;                        ///< host threads packing batches and building results (OpenMP), 0 = all cores
    /// With traceback: the compact CIGAR buffer of each stream (pinned host
    /// memory that the device writes the runs into) holds this many runs per
    /// query+ref base of batch capacity, in (0, 1]. A batch whose runs do not
    /// fit (long stretches of alternating operations) copies its whole
    /// traceback buffer instead: slower, same results. 0.25 fits DNA and
    /// protein pairs up to about 12% divergence with room to spare.
    double cigar_runs_per_base = 0.25;
    /// Batches run the inter-pair 16-bit kernel (one thread per two pairs,
    /// docs/gpu.md "Inter-pair kernel"; with traceback its variant that
    /// stores direction bits) where the scheme allows (at most 15 codes,
    /// -gap_extend <= s + gap_open + gap_extend <= 127 for every code pair)
    /// and each pair's scores fit 16 bits; the warp-per-pair kernel takes
    /// the rest. false: the warp-per-pair kernel only (comparisons). The
    /// output is the same bytes either way.
    bool pair_kernels = true;
    /// The smallest device batch (pairs) that runs the inter-pair kernel or
    /// its traceback variant; 0 = the device's SM count x 256, below which
    /// most SMs would idle and the warp-per-pair kernel is faster. Tests lower it to reach the
    /// kernel with few pairs.
    std::size_t pair_kernel_min_pairs = 0;
    /// The inter-pair kernel's reverse pass (the begin cells of local and
    /// semi-global pairs, score-only batches) skips the cells that cannot
    /// lead to a begin: those whose value plus the largest substitution
    /// score times the rows or columns left is below the score (docs/
    /// scoring.md, "The reverse pass's bound"). false: every cell of the
    /// pass (comparisons; the output is the same bytes either way).
    bool pair_reverse_bound = true;
    /// With pair_reverse_bound: the forward pass also keeps, for each strip of
    /// 32 ref columns and each block of 2 query rows, a bound of the H there, and
    /// the reverse pass also skips the cells whose value plus that of the
    /// forward cells they pair with, plus gap_open, is below the score (docs/
    /// scoring.md, "The reverse pass's forward bound"). Batches of short
    /// queries (under 256 letters), and those whose bound would not fit the
    /// engine's boundary-row buffer (queries and refs of more than about a
    /// thousand letters), run without it. false: the first bound only
    /// (comparisons; the output is the same bytes either way).
    bool pair_row_bound = true;
};

/// How a BatchEngine sized its buffers (BatchEngineOptions and the
/// device's memory), for logs and tests. Host values; sizes in bytes unless named otherwise.
struct BatchEngineMemory {
    std::size_t limit = 0;              ///< BatchEngineOptions::gpu_memory_limit (0 = no cap)
    std::size_t device_bytes = 0;       ///< device memory held now: sum of the allocation sizes, each rounded up to 256
    int streams = 0;                    ///< streams (slots), each with its own buffers
    std::size_t batch_bases = 0;        ///< query+ref bases per device batch
    std::size_t batch_pairs = 0;        ///< pairs per device batch
    std::uint64_t traceback_bytes = 0;  ///< direction-bit bytes per batch (0 in score-only mode)
    int allocation_retries = 0;         ///< times cudaErrorMemoryAllocation made the engine halve its buffers
    std::uint64_t host_pairs = 0;       ///< pairs that no longer fitted after such a halving, aligned on the host with align_pair
};

/// Where a BatchEngine's time went since it was constructed (cumulative
/// sums), for `-v` logs and the benchmark. Host seconds are steady-clock time on the
/// thread calling align_async/collect (the OpenMP teams they open included);
/// device milliseconds come from CUDA events around each phase of each
/// batch. Batches on different streams overlap, so the device sums can
/// exceed the wall time.
struct BatchEngineProfile {
    std::uint64_t batches = 0;     ///< device batches launched
    double setup_s = 0;            ///< host: the constructor (streams, events, pinned and device buffers)
    double request_s = 0;          ///< host: align_async checking the pairs and creating their results
    double order_s = 0;            ///< host: sorting pairs by size and cutting them into batches
    double pack_s = 0;             ///< host: filling the pinned task and sequence buffers, enqueueing
    double wait_s = 0;             ///< host: blocked waiting for a batch (cudaStreamSynchronize)
    double results_s = 0;          ///< host: converting device results into AlignmentResult
    double h2d_ms = 0;             ///< device: host-to-device copies
    double kernel_ms = 0;          ///< device: DP, traceback and CIGAR kernels (the gather kernel writes the runs to host memory)
    double d2h_ms = 0;             ///< device: device-to-host copies of the structure-of-arrays results
    std::uint64_t h2d_bytes = 0;   ///< bytes copied host to device
    std::uint64_t d2h_bytes = 0;   ///< bytes copied device to host (compact CIGAR runs included)
    std::uint64_t cigar_overflows = 0;  ///< batches whose runs overflowed the compact CIGAR buffer
    /// Pairs finished by the inter-pair 16-bit kernel or its traceback
    /// variant (BatchEngineOptions::pair_kernels); the rest of the pairs ran
    /// on the warp-per-pair kernel.
    std::uint64_t inter_pair_pairs = 0;
    /// Of the pairs the inter-pair kernel started, those it handed to the
    /// warp-per-pair kernel: scores beyond 16 bits, or a begin cell that its
    /// reverse pass found more than one candidate for.
    std::uint64_t inter_pair_fallbacks = 0;
};

/// Identifies one BatchEngine::align_async submission until BatchEngine::collect.
using Ticket = std::uint64_t;

/// The batch aligner on one GPU: an owning host object holding device
/// buffers, pinned host buffers and streams, allocated once and reused,
/// freed by the destructor (on the engine's device, whichever device the
/// destroying thread has current). Not thread-safe: one thread at a time
/// calls it. Built without CUDA, the constructor throws std::runtime_error.
///
/// Results are byte-identical to gpualign::align_pair (the CPU reference) for
/// every pair it accepts: same score, coordinates (0-based half-open) and
/// CIGAR under the canonical rule of docs/scoring.md.
class BatchEngine {
public:
    /// Allocates the buffers of every stream, sized from
    /// options.gpu_memory_limit when set (else from the free device memory);
    /// when an allocation fails with cudaErrorMemoryAllocation it halves them
    /// and tries again.
    /// @throws std::invalid_argument for an invalid scheme or options;
    ///         std::runtime_error when the device cannot be initialised
    ///         (naming the CUDA error, cudaGetErrorName), when
    ///         gpu_memory_limit is too small for the engine's smallest buffers
    ///         (naming the limit and the minimum), or when even the smallest
    ///         buffers cannot be allocated.
    BatchEngine(const ScoringScheme& scheme, AlignMode mode, bool score_only, const BatchEngineOptions& options);
    ~BatchEngine();
    BatchEngine(const BatchEngine&) = delete;
    BatchEngine& operator=(const BatchEngine&) = delete;

    /// True when the batch kernels take a pair of these lengths; longer pairs
    /// must go to the CPU path (the caller logs how many). Accepted: both
    /// lengths <= 65,535, fits_int32, query_len + ref_len <= max_batch_bases,
    /// and with traceback the pair's direction bits (about query_len *
    /// ref_len / 2 bytes) fit the per-stream traceback buffer. Empty sides are
    /// accepted (answered on the host). See docs/gpu.md.
    bool accepts(std::size_t query_len, std::size_t ref_len) const noexcept;

    /// Aligns `pairs` (all accepted) and returns one result per pair, in input
    /// order. Blocks until done: collect(align_async(pairs)).
    /// @throws as align_async and collect.
    std::vector<AlignmentResult> align(std::span<const PairView> pairs);

    /// Starts aligning `pairs` (all accepted) and returns without waiting for
    /// the GPU: the pairs are sorted, cut into device batches, packed into
    /// pinned memory and enqueued (copies and kernels) on the streams in
    /// rotation. When every stream is busy, the oldest batch in flight (of
    /// this or an earlier submission) is waited for and its results are stored
    /// with its submission. So consecutive submissions keep the GPU busy while
    /// the host packs the next one. The spans in `pairs` must stay valid until
    /// collect() of the returned ticket returns.
    ///
    /// If a CUDA call returns cudaErrorMemoryAllocation, the engine waits for
    /// the batches in flight, halves its buffers and cuts the remaining pairs
    /// again; pairs that no longer fit are aligned on the host (align_pair,
    /// counted in memory().host_pairs). Any other CUDA error leaves the engine
    /// unusable: this and every later call throw.
    /// @throws std::invalid_argument if a pair is not accepted (accepts());
    ///         nothing is enqueued then.
    /// @throws std::runtime_error naming the CUDA error (cudaGetErrorName)
    ///         and the batch.
    Ticket align_async(std::span<const PairView> pairs);

    /// Waits for every batch of submission `ticket` and returns its results,
    /// one per pair, in the input order of that submission. Each ticket is
    /// collected once; tickets may be collected in any order (batches finish
    /// in submission order).
    /// @throws std::invalid_argument for an unknown or already collected ticket;
    ///         std::runtime_error naming the CUDA error (cudaGetErrorName) of
    ///         a failed batch (for example a kernel fault).
    std::vector<AlignmentResult> collect(Ticket ticket);

    /// The engine's buffer sizes and device memory (see BatchEngineMemory).
    BatchEngineMemory memory() const noexcept;

    /// Kernel-only time of the submission returned by the last align() or
    /// collect() call in milliseconds: the sum of CUDA-event times around each
    /// of its batches' kernels. Exact with streams = 1;
    /// with several streams concurrent batches overlap and the sum overcounts.
    double last_kernel_ms() const noexcept;

    /// Cumulative time and traffic of this engine (see BatchEngineProfile).
    BatchEngineProfile profile() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpualign::gpu
