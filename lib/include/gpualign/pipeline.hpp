// gpualign — the batch pipeline: read pairs, align them on the chosen
// backend, write TSV or SAM.
#pragma once

#include <cstdint>
#include <string>

#include "gpualign/config.hpp"
#include "gpualign/scoring.hpp"

namespace gpualign {

/// What one run did, for the closing log line.
struct RunStats {
    std::uint64_t pairs = 0;          ///< pairs aligned and written
    std::uint64_t cells = 0;          ///< sum of query_len * ref_len (DP cells)
    std::uint64_t cpu_fallback = 0;   ///< pairs the GPU backend could not take (sent to the CPU)
    double seconds = 0.0;             ///< wall time of the whole run
    std::string backend;              ///< "cpu (N threads)" or the GPU description
    /// Giga cell updates per second over the whole run (0 when no time passed).
    double gcups() const noexcept { return seconds > 0 ? static_cast<double>(cells) / seconds / 1e9 : 0.0; }
};

/// The scoring scheme a configuration asks for once the alphabet is known:
/// DNA uses --match/--mismatch/--n-score (or a --matrix file), protein a
/// BLOSUM name or --matrix file; gap penalties default per alphabet
/// (Defaults). Throws std::invalid_argument (bad values) or InputError (bad
/// matrix file).
ScoringScheme resolve_scoring(const AlignConfig& config, Alphabet alphabet);

/// Runs the whole job described by a validated `config`.
///
/// Streams record i of QUERIES with record i of REFS in batches of at most
/// config.batch_pairs pairs and config.batch_bases bases, aligns each batch
/// (CPU: OpenMP over pairs; GPU: gpu::Engine, with pairs it does not accept
/// sent to the CPU and counted), and writes results in input order.
///
/// Threads: a reader thread parses up to two batches ahead (both FASTA files
/// on one OpenMP team of config.threads, ParallelSequenceReader) into
/// contiguous RecordBlocks; a batch is a list of RecordViews into them, so
/// nothing is copied or allocated per record on its way to the engine. This
/// thread aligns, keeping one batch submitted to the GPU while it collects the
/// one before; a writer thread formats (config.threads / 2 threads) and
/// writes; bounded queues join them. The backend (CUDA context, Engine
/// buffers) starts on its own thread while the first batches are read. A
/// block's memory returns to its reader's pool when the last batch using it
/// is written. `-v` logs the time of each stage.
/// Output goes to a temporary file renamed on success, so a failed run
/// leaves no partial output.
///
/// @throws InputError for bad input (file, record and position named),
///         std::invalid_argument for bad options, std::runtime_error for
///         device or I/O failures (output path named).
RunStats run_alignment(const AlignConfig& config);

}  // namespace gpualign
