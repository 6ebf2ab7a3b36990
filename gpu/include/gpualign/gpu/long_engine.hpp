// gpualign — the CUDA long-pair engine: one pair spread over every SM, exact
// traceback in device memory linear in the lengths. Plain C++20: no SeqAn3,
// no CUDA types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <vector>

#include "gpualign/align/checkpoint_traceback.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu {

/// LongEngine settings. Sizes in bytes as named.
struct LongEngineOptions {
    int device = 0;  ///< CUDA device ordinal
    /// Cap on the engine's device memory in bytes, 0 = 90% of the free memory
    /// at construction. The sequences (query_len + ref_len bytes), the stripe
    /// hand-off rings and the checkpoints of every level count; when a level's
    /// checkpoints do not fit, that level uses fewer, coarser ones.
    std::size_t gpu_memory_limit = 0;
    /// Checkpoint plan; the defaults suit the GPU (leaf tiles of 2^20 cells).
    /// align_many's workers beside other pairs use leaves of at most 2^18
    /// cells in batch bands of at most 0.5 leaves (long_tuning::
    /// leaf_cells_shared, leaf_band_shared); a pair alone whose top level is
    /// cut into tiles above the leaves, at most 2^18 cells in bands of at
    /// most 0.75 (leaf_cells_tiled, leaf_band_tiled). For a pair alone on
    /// the GPU fan_out is a minimum: its top level fans out at least
    /// ceil(longer side / 16,384) ways, up to 64 (level-1 tiles of at most
    /// 16,384 a side: long_tuning::solo_fan_out; with the default 16, pairs
    /// of more than 262,144 letters). See long_tuning.hpp.
    CheckpointPlan plan{16, std::uint64_t{1} << 20, 256};
    /// Called on the calling thread while a pass runs (may be empty).
    ProgressCallback progress;
    /// Cap on the region kernel's thread blocks (4 warps each), 0 = as many as
    /// are co-resident. Tests set a few, so that warps take several stripes.
    int max_blocks = 0;
    /// Cap on one launch's stripe hand-off rings in bytes, 0 = the tuning
    /// table's 128 MiB. Tests set less, so that rings are narrower than a
    /// region (flow control) or reused within a launch.
    std::size_t ring_bytes = 0;
    /// Pairs align_many runs at once (>= 0), 0 = the tuning table's default
    /// (40), fewer when the memory cap cannot hold that many.
    int workers = 0;
    /// align_many: pairs of at least this many cells (query_len * ref_len)
    /// run on solo workers as align() runs them (the solo plan: larger
    /// leaves, tile batches, flow-controlled rings), largest first, several
    /// at once beside the pairs that the shared workers take (solo_workers);
    /// 0 = the tuning table's long_tuning::solo_min_cells. Such a pair keeps
    /// hundreds of warps busy, while on a shared worker its passes run at a
    /// share's pace with a share's leaves and memory. For benchmarks and
    /// tests (UINT64_MAX: every pair that fits a worker's rings is shared).
    std::uint64_t solo_min_cells = 0;
    /// align_many: how many of the pairs it runs alone (solo_min_cells) run
    /// at once (>= 0), each with an equal share of the memory cap, 0 = the
    /// tuning table's long_tuning::solo_workers, fewer when a share cannot
    /// hold a pair's full checkpoint plan; 1 = one after another. Pairs of
    /// more than 6,144 rows per SM (long_tuning::rows_per_lane) always run
    /// one after another, last. Results are the same bytes either way. For
    /// benchmarks and tests.
    int solo_workers = 0;
    /// align_many: the part of the GPU's co-resident thread blocks (0, 1])
    /// that the flow-controlled launches of the solo pairs run together may
    /// hold at once; 0 = the tuning table's long_tuning::solo_flow_share.
    /// For benchmarks.
    double solo_flow_share = 0;
    /// align_many: the solo pairs run together take streams of CUDA's
    /// greater priorities, the largest pair the greatest, so that their
    /// launches' blocks are placed before the shared pairs' where SMs free
    /// up. For benchmarks (false: every stream at the least priority).
    bool solo_priorities = true;
    /// Rows per lane of the region launches without direction bytes (the
    /// forward pass and the tiles above the leaves): 0 = the tuning table's
    /// choice by region size (long_tuning::rows_per_lane), 4, 16 or 32 =
    /// always that (32: launches with direction bytes, and local ones over
    /// an alphabet without a spare letter code, take 16). Tests force 16 or
    /// 32 so that small pairs take those kernels (two columns a step; 32
    /// rows a lane). Other values throw std::invalid_argument.
    int rows_per_lane = 0;
    /// Most leaves a speculative leaf batch computes at once (>= 0), 0 = the
    /// tuning table's (long_tuning::leaf_batch alone on the GPU,
    /// leaf_batch_shared beside other pairs in align_many: 128 each), fewer
    /// when a sixteenth of the memory share cannot hold their direction
    /// bytes. For benchmarks and tests.
    int leaf_batch = 0;
    /// Most tiles above the leaves a speculative tile batch of a pair alone
    /// on the GPU computes at once (>= 0), 0 = the tuning table's (3 per row
    /// of the top-level grid: long_tuning::tile_batch_per_fan_out). For
    /// benchmarks and tests.
    int tile_batch = 0;
    /// Walk the traceback path through leaf batches on the host, downloading
    /// the direction bytes of each leaf it enters, instead of on the device
    /// (one warp walks the batch where it lies and hands back its steps:
    /// leaf_walk_kernel.cuh). Results are the same bytes either way. For
    /// benchmarks and tests.
    bool walk_on_host = false;
    /// Guess where the path crosses each checkpoint row from the row's
    /// largest H (RegionSpeculation::row_peaks: one CUB arg-max over the rows of
    /// each grid computed) when choosing the leaves and tiles computed ahead
    /// of the walk; false: straight lines towards the origin or along the
    /// diagonal. Results are the same bytes either way. For benchmarks and
    /// tests.
    bool row_peaks = true;
};

/// One pair for LongEngine::align_many: host codes, borrowed for the call.
struct LongPair {
    std::span<const std::uint8_t> query;
    std::span<const std::uint8_t> ref;
};

/// What the last LongEngine::align or align_many did, for logs and the
/// benchmark. For align_many the counts, device times and peaks are sums over
/// its concurrent workers (device times overlap, so use wall_s for a rate).
struct LongEngineStats {
    std::uint64_t forward_cells = 0;     ///< query_len * ref_len
    std::uint64_t total_cells = 0;       ///< cells of every pass (forward + recomputation)
    /// Device time of the forward pass: CUDA events for align(); for
    /// align_many's workers, which record no event after a kernel, the host's
    /// time from launch to the kernel's signalled end.
    double forward_ms = 0;
    double total_ms = 0;                 ///< device time of every pass (as forward_ms)
    /// Local mode: the part of forward_ms spent finding the best cell's
    /// column in its window (the windowed local forward pass recomputes a
    /// sub-region from the checkpoints around it: region_kernel.cuh).
    double locate_ms = 0;
    double wall_s = 0;                   ///< host wall time of align()
    std::size_t peak_device_bytes = 0;   ///< most device memory held at once by the engine
    std::uint64_t passes = 0;            ///< kernel launches (regions computed)
    /// Host wall time of the pairs' align() calls, and the parts of it spent
    /// in region launches (launch to wait's end) and in the walks through
    /// leaf batches (the walk kernel and its wait, or the downloads), in ms;
    /// for align_many summed over its workers (their sum over wall_s is the
    /// mean number of workers busy). A pair alone queues its walk behind its
    /// leaf batch without waiting for the batch first, so there the two
    /// parts overlap: the walk's time includes the rest of the batch, and
    /// the batch's launch time runs to the walk's end. `allocs_ms`: the part spent allocating
    /// and freeing device buffers (cudaMallocFromPoolAsync, cudaFreeAsync),
    /// `allocs` their count.
    double pairs_ms = 0, launches_ms = 0, walks_ms = 0, allocs_ms = 0;
    std::uint64_t allocs = 0;
    /// Host time in pinned host allocations and frees (cudaHostAlloc,
    /// cudaFreeHost), summed as allocs_ms, and their count.
    double pinned_ms = 0;
    std::uint64_t pinned = 0;
    /// align_many only, host wall ms: from the call to the start of its
    /// workers (configuring them, their threads), and from the moment the
    /// last pair was taken to the return of the last worker (the time the
    /// GPU runs with fewer pairs than workers).
    double setup_ms = 0, tail_ms = 0;
    /// Host ms in the copies between host and device and their waits
    /// (sequences, borders, corner and best values, direction bytes that a
    /// host walk reads), summed as pairs_ms.
    double copies_ms = 0;
    /// align_many only: the wall and the device time (as total_ms) of each
    /// worker's first pair, summed over the workers (what starting costs
    /// shows as their excess over the other pairs' mean).
    double first_pairs_ms = 0, first_kernels_ms = 0;
    int workers = 1;                     ///< pairs aligned at once (align_many)
    /// align_many only: the pairs it ran alone over the whole GPU
    /// (LongEngineOptions::solo_min_cells, or too wide for a worker's rings).
    std::size_t solo_pairs = 0;
    /// align_many only: how many of its solo pairs ran at once (1: one
    /// after another; LongEngineOptions::solo_workers).
    int solo_workers = 1;

    /// Adds the fields of `o` that are sums over pairs: forward_cells,
    /// total_cells, passes, allocs, pinned and the times forward_ms,
    /// total_ms, locate_ms, pairs_ms, launches_ms, walks_ms, allocs_ms,
    /// pinned_ms and copies_ms. Leaves the others alone, as they are no such
    /// sum: wall_s (one call's wall time), peak_device_bytes (a maximum:
    /// align_many sums each worker's largest), setup_ms and tail_ms (one
    /// call's), first_pairs_ms and first_kernels_ms (one pair per worker),
    /// workers, solo_pairs and solo_workers.
    LongEngineStats& operator+=(const LongEngineStats& o) noexcept {
        forward_cells += o.forward_cells;
        total_cells += o.total_cells;
        forward_ms += o.forward_ms;
        total_ms += o.total_ms;
        locate_ms += o.locate_ms;
        passes += o.passes;
        pairs_ms += o.pairs_ms;
        launches_ms += o.launches_ms;
        walks_ms += o.walks_ms;
        allocs_ms += o.allocs_ms;
        allocs += o.allocs;
        pinned_ms += o.pinned_ms;
        pinned += o.pinned;
        copies_ms += o.copies_ms;
        return *this;
    }
};

/// The long-pair aligner on one GPU: an owning host object holding a device
/// memory arena, pinned host buffers and a stream.
///
/// Results are byte-identical to gpualign::align_pair_full_matrix (the CPU
/// reference): same score, coordinates (0-based half-open) and CIGAR under
/// the canonical rule of docs/scoring.md, in each AlignMode: local, global and
/// semi-global (end cell the best of the last query row, ties to the smallest
/// ref column, column 0 included; the walk stops on row 0). Algorithm: the
/// forward pass is a pipelined anti-diagonal wavefront of warps (each owns a
/// stripe of query rows; stripe boundaries pass through device memory, Gotoh
/// 1982 with the DPX instructions), and the traceback recomputes tiles from exact
/// checkpoint rows and columns (checkpoint_traceback.hpp; CUDAlign's
/// special rows, Sandes & de Melo 2010-2016).
class LongEngine {
public:
    /// @param scheme      a scheme of at most 32 codes (copied to the device).
    /// @param mode        local, global or semi_global: fixed for the engine.
    /// @param score_only  no CIGAR; local and semi-global still report the
    ///                    begin cell (the traceback runs without recording).
    /// @param options     see LongEngineOptions.
    /// @throws std::invalid_argument for an invalid scheme or options;
    ///         std::runtime_error when the device cannot be initialised
    ///         (naming the CUDA error, cudaGetErrorName).
    LongEngine(const ScoringScheme& scheme, AlignMode mode, bool score_only, const LongEngineOptions& options);
    ~LongEngine();
    LongEngine(const LongEngine&) = delete;
    LongEngine& operator=(const LongEngine&) = delete;

    /// Aligns one pair (host codes, borrowed for the call). No length cap
    /// beyond fits_int32 and the memory for the sequences and the smallest
    /// checkpoints.
    /// @throws std::length_error if the pair fails fits_int32 or its
    ///         sequences and smallest checkpoints do not fit the memory cap;
    ///         std::runtime_error naming the CUDA error (cudaGetErrorName).
    AlignmentResult align(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref);

    /// Aligns many pairs at once: up to long_tuning::max_workers pairs run
    /// concurrently, each on its own host thread, CUDA stream and share of
    /// the memory cap, largest pairs first, so that the GPU stays full while
    /// each pair's passes are latency-bound (thousands of 5-50 kb pairs).
    /// Pairs whose rows do not fit a worker's rings run afterwards one at a
    /// time over the whole GPU, as align() does. Results are those of align()
    /// on each pair, byte for byte, in the order of `pairs`.
    /// @param errors  if not null, resized to pairs.size(): the exception of
    ///                each pair that failed (nullptr for the others), and the
    ///                call does not throw for a pair; if null, the first
    ///                failure (in pair order) is rethrown after all pairs ran.
    /// @throws what align() throws (see `errors`).
    std::vector<AlignmentResult> align_many(std::span<const LongPair> pairs,
                                            std::vector<std::exception_ptr>* errors = nullptr);

    /// Readies the workers that align_many(pairs) would use, so that the
    /// call finds them ready: created, configured, and their pinned host
    /// buffers sized for the largest pair. align_many does this itself when
    /// not done; a caller calls prepare first when it is about to start
    /// other work on the GPU (the batch engine's kernels), since pinned
    /// allocations and the first load of the engine's kernels wait for the
    /// whole device. The results of align_many do not depend on it. `pairs`
    /// (host codes) is read during the call only; fewer than two pairs:
    /// nothing to do. Host memory: each worker's pinned buffers (a 256 KiB
    /// staging buffer, the walk's steps: about the largest pair's query +
    /// ref bytes), kept by the engine.
    /// @throws std::runtime_error naming the CUDA error (cudaGetErrorName).
    void prepare(std::span<const LongPair> pairs);

    /// Statistics of the last align() or align_many().
    LongEngineStats last_stats() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpualign::gpu
