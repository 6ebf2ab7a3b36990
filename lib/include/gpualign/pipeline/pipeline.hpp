// gpualign — the batch pipeline: read pairs, align them on the chosen
// backend, write TSV or SAM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// What one run did, for the closing log line.
struct RunStats {
    std::uint64_t pairs = 0;          ///< pairs aligned and written
    std::uint64_t cells = 0;          ///< sum of query_len * ref_len (DP cells)
    std::uint64_t cpu_fallback = 0;   ///< pairs the GPU backend could not take (sent to the CPU)
    std::uint64_t long_pairs = 0;     ///< pairs aligned one at a time on a long-pair path (GPU LongEngine or CPU align_pair_long)
    std::uint64_t queries = 0;        ///< search: queries searched
    std::uint64_t hits = 0;           ///< search: hits written
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

/// Checks that `strand` can be used with the scheme resolved for the input
/// (resolve_scoring): --strand both needs DNA, and a DNA matrix file that
/// scores every letter whose complement it scores (the reverse complement
/// of a query holds the complements). Nothing for StrandChoice::plus.
/// @throws OptionError naming the option and why (a command-line error).
void check_strand_choice(StrandChoice strand, const ScoringScheme& s);

/// Runs the whole job described by a validated `config`.
///
/// Streams record i of QUERIES with record i of REFS in batches of at most
/// config.batch_pairs pairs and config.batch_bases bases, aligns each batch,
/// and writes results in input order. There is no length cap: every pair
/// that fits the 32-bit score bound (fits_int32) and memory is aligned
/// exactly, on one of these paths:
///  - GPU backend: gpu::BatchEngine (a warp per pair) for the pairs it accepts
///    below Defaults::long_pair_cells; all others, one at a time, on a
///    gpu::LongEngine (one pair across the GPU, created at the first long
///    pair). A --gpu-memory cap is split in half between the two; a pair
///    the long engine's half cannot hold is aligned on the CPU long-pair
///    path (counted in RunStats::cpu_fallback, with a warning).
///  - CPU backend: align_pair, OpenMP over pairs, for pairs up to
///    full_matrix_cells; larger pairs one at a time with align_pair_long on
///    all config.threads (memory linear in the lengths, bounded by
///    LongAlignOptions::memory_limit).
/// Long pairs show a progress line on stderr per config.progress (auto:
/// when stderr is a terminal, once a pair has run Defaults::progress_delay_s).
///
/// Strands: with config.strand == both (DNA only), the reader thread appends
/// to each batch its pairs with the queries reverse-complemented
/// (reverse_complement, host memory: the batch's query letters once more);
/// the backend aligns all of them as above, and each pair keeps the better
/// strand (better_strand: ties to plus; AlignmentResult::strand). So every
/// backend writes the same bytes for both strands too. RunStats::cells then
/// counts the cells of both strands.
///
/// Threads: a reader thread parses up to two batches ahead (both FASTA files
/// on one OpenMP team of config.threads, ParallelSequenceReader) into
/// contiguous RecordBlocks; a batch is a list of RecordViews into them, so
/// nothing is copied or allocated per record on its way to the engine. This
/// thread aligns, keeping one batch submitted to the GPU while it collects the
/// one before; a writer thread formats (config.threads / 2 threads) and
/// writes; bounded queues join them. The backend (CUDA context, BatchEngine
/// buffers) starts on its own thread while the first batches are read. A
/// block's memory returns to its reader's pool when the last batch using it
/// is written. `-v` logs the time of each stage.
/// Output goes to a temporary file renamed on success, so a failed run
/// leaves no partial output.
///
/// @throws InputError for bad input (file, record and position named),
///         std::invalid_argument for bad options (OptionError: --strand both
///         on protein, check_strand_choice), std::runtime_error for
///         device or I/O failures (output path named).
RunStats run_alignment(const AlignConfig& config);

/// The input size up to which cuda_hardware_queues looks for a single pair:
/// 4 MiB of each file (uncompressed), a pair of up to about 4 Mbp a side.
/// Beyond it a run lasts seconds and the queues' cost no longer counts.
inline constexpr std::size_t single_pair_peek_bytes = std::size_t{4} << 20;

/// The CUDA hardware work queues per device (CUDA_DEVICE_MAX_CONNECTIONS)
/// that a run of `config` wants, decided before CUDA starts (the driver
/// reads the variable when it starts):
///  - 1 when the run aligns one pair: run_alignment (not search), one strand,
///    and each input a single FASTA record (holds_one_fasta_record, up to
///    single_pair_peek_bytes). One pair runs on one stream; each queue
///    costs about 12 ms when the context starts and more when it ends.
///  - otherwise as many as the batch engine has streams
///    (AlignConfig::engine_streams), at least 4.
/// On an H100 (docs/benchmarks.md) the 1 Mbp pair through the CLI takes
/// 980-994 ms with 4 queues, 898-941 with 1; the batch engine on 100,000
/// pairs of 512 is 6-13% slower with CIGAR at 2 queues than at 4.
/// Reads up to single_pair_peek_bytes of each input; never throws.
int cuda_hardware_queues(const AlignConfig& config) noexcept;

/// The DP cells up to which `--backend auto` aligns a run of one pair on the
/// CPU: 2^26 cells (an 8 kb x 8 kb pair), tens of milliseconds on one core,
/// where starting CUDA alone takes a few hundred (docs/benchmarks.md).
inline constexpr std::uint64_t cpu_single_pair_cells = std::uint64_t{1} << 26;

/// Whether `--backend auto` runs `config` on the CPU because it is one small
/// pair: run_alignment (not search), backend automatic, each input a single
/// FASTA record (one_fasta_record_bytes, up to single_pair_peek_bytes) and
/// the product of the two files' sizes, an upper bound of the pair's cells,
/// at most cpu_single_pair_cells. Both backends write the same bytes
/// (docs/scoring.md), so only the run's time changes; `--backend gpu` keeps
/// such a pair on the GPU. Reads up to single_pair_peek_bytes of each input;
/// never throws.
bool runs_small_pair_on_cpu(const AlignConfig& config) noexcept;

}  // namespace gpualign
