// gpualign — gpualign::gpu::ScanEngine: a DB resident on one GPU, scanned
// score-only by one query after another (the first stage of
// `gpualign search`; search.hpp). Plain C++ interface, no CUDA types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu {

/// Options of a ScanEngine.
struct ScanOptions {
    int device = 0;                                   ///< CUDA device ordinal
    /// Device bytes for the per-thread strip boundaries of one launch (8 bytes
    /// per DB letter of the launch's longest sequence, per sequence, per
    /// query): the DB is scanned in launches of sequences of one length class
    /// (up to 64, 128, 256, ...), with as many queries as fit, spread evenly
    /// over the launches of a class. 0 (default): a quarter of the device
    /// memory free when the engine is made, at least 2 GiB (more queries a
    /// launch fill the GPU's last wave better; docs/search.md).
    std::size_t boundary_bytes = 0;
    /// Local scans in 16-bit lanes, two queries per thread (more than twice
    /// the rate); a pair whose best score may have wrapped (at least 32767 -
    /// the largest substitution score) is scored again in 32 bits. Applies
    /// to schemes with gap_open + gap_extend <= 8000 and every score +
    /// gap_open + gap_extend >= 0 (BLOSUM62 11/1, DNA 2/-3 5/2); others, and
    /// global and semi-global scans, are 32-bit. false: 32-bit throughout.
    bool use_s16 = true;
    /// DB sequences at least this long are scanned by the warp kernel (a
    /// warp of 32 lanes per sequence and query, 32-bit), the others by the
    /// thread kernel: one thread's sequence sets the pace of its launch, so
    /// a few long sequences would otherwise leave the GPU idle (the
    /// threshold's sweep: docs/search.md). 1: every sequence on the warp kernel;
    /// INT32_MAX: none.
    int warp_min_length = 1024;
};

/// One hit of ScanEngine::top_hits.
struct ScanHit {
    std::uint32_t record = 0;  ///< the DB record (0-based, DB order)
    std::int32_t score = 0;    ///< its score, as align_pair's
    bool minus = false;        ///< the query's minus strand scored it (both strands only)
};

/// The DB, sorted by length and copied to device memory once; scores() then
/// runs one query against all of it.
///
/// Algorithm: exhaustive Smith-Waterman-Gotoh, Needleman-Wunsch-Gotoh or
/// semi-global Gotoh DP (Gotoh 1982; the query end to end, the DB record's
/// leading and trailing letters free: docs/scoring.md) with inter-sequence
/// parallelism, one thread per DB sequence
/// (SWIPE, Rognes 2011; CUDASW++, Liu et al.) or, local, two per thread in
/// 16-bit lanes with overflow re-scored in 32 bits; DB sequences of at least
/// ScanOptions::warp_min_length letters with intra-sequence parallelism, a
/// warp per sequence (as CUDASW++ 4.0 does for long ones), on a second
/// stream beside the thread kernel. Exact within fits_int32 (checked per
/// pair). Kernels: gpu/src/search/scan_kernel.cuh, scan_warp_kernel.cuh.
/// Owning; not thread-safe.
class ScanEngine {
public:
    /// @param mode  local, global or semi_global (the DB record is the ref:
    ///              its end gaps are the free ones), for every scores() call.
    /// @param db  each DB record's codes (host memory, borrowed for the call:
    ///            copied to the device). Every record must be non-empty.
    /// @throws std::invalid_argument for an empty record, a scheme that
    ///         supports() rejects or a `mode` outside AlignMode;
    ///         std::runtime_error naming the CUDA error (e.g. out of device
    ///         memory).
    ScanEngine(const ScoringScheme& s, AlignMode mode, std::span<const std::span<const std::uint8_t>> db,
               const ScanOptions& options = {});
    ~ScanEngine();
    ScanEngine(const ScanEngine&) = delete;
    ScanEngine& operator=(const ScanEngine&) = delete;

    /// True when the kernel holds `s`: at most 32 letters and every score
    /// plus gap_open + gap_extend within int16.
    static bool supports(const ScoringScheme& s) noexcept;

    /// The score of `query` (codes, host memory, non-empty) against every DB
    /// record, in DB order: exactly align_pair(query, record, s, mode).score
    /// (semi-global: the best H(m, j) of the last query row, possibly
    /// negative).
    /// @throws std::length_error when a pair could overflow 32-bit scores
    ///         (fits_int32), as align_pair would; std::runtime_error naming
    ///         the CUDA error.
    std::vector<std::int32_t> scores(std::span<const std::uint8_t> query);

    /// The same for several queries at once (one launch runs many queries
    /// against the same DB sequences, so a small DB still fills the GPU):
    /// queries.size() x records values, query after query.
    /// @throws as the one-query form (an empty query: std::invalid_argument).
    std::vector<std::int32_t> scores(std::span<const std::span<const std::uint8_t>> queries);

    /// The best `k` DB records of each query, chosen on the GPU: the scan of
    /// scores(), then a stable radix sort (CUB) of (query, score descending)
    /// keys, so that each list is in the canonical hit order of
    /// docs/search.md: score descending, then DB order. Only the lists come
    /// back to the host (and the rows of 16-bit scores that wrapped, to be
    /// scored again in 32 bits).
    /// @param queries       the queries (host memory, non-empty); with
    ///                      both_strands, queries [0, n) then their minus
    ///                      strands [n, 2n), in the same order.
    /// @param k             hits per query (at most the DB's records are returned).
    /// @param both_strands  each record keeps the better of its two strands'
    ///                      scores, ties to plus (ScanHit::minus).
    /// @return n lists of min(k, records) hits (n = queries, or half of them
    ///         with both strands); filters by score (local > 0, --min-score,
    ///         --evalue) are the caller's: each keeps a prefix of a list.
    /// @throws as scores(); std::invalid_argument for an odd count with
    ///         both_strands, or more than 2^31 (query, record) items.
    std::vector<std::vector<ScanHit>> top_hits(std::span<const std::span<const std::uint8_t>> queries, std::size_t k,
                                               bool both_strands);

    /// Device milliseconds of the last scores() call's kernels.
    double last_kernel_ms() const noexcept;
    /// DP cells of the last scores() call (query length x DB letters).
    std::uint64_t last_cells() const noexcept;
    /// Pairs of the last scores() call scored again in 32 bits.
    std::uint64_t last_rescored() const noexcept;
    /// True when local scans run in 16-bit lanes (ScanOptions::use_s16).
    bool uses_16bit() const noexcept;
    /// DB records scanned by the warp kernel (at least warp_min_length letters).
    std::size_t warp_records() const noexcept;

private:
    /// Scans `queries` and leaves their scores in device memory, one row per
    /// query, longest query first (16-bit rows that wrapped re-scored);
    /// returns the caller's index of each row.
    std::vector<std::size_t> scan(std::span<const std::span<const std::uint8_t>> queries);

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpualign::gpu
