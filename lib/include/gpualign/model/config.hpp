// gpualign — the run configuration: every option of `gpualign sw|nw`, with
// its default, validated once (configuration as data, as in SeqAn3; one
// validator, as in ksw2/minimap2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// Output formats: TSV (the pairs columns), SAM, and BLAST tabular (the 12
/// columns of BLAST+ -outfmt 6; `gpualign search` only, for now).
enum class OutputFormat : std::uint8_t { tsv, sam, blast6, paf };
enum class AlphabetChoice : std::uint8_t { automatic, dna, protein };
enum class BackendChoice : std::uint8_t { automatic, cpu, gpu };
/// --progress: auto = when stderr is a terminal (and not -q), always, never.
enum class ProgressChoice : std::uint8_t { automatic, always, never };
/// --strand (DNA only): plus = align the query as read (the default);
/// both = also align its reverse complement and keep the better alignment,
/// ties to plus (strand.hpp, docs/scoring.md "Strands").
enum class StrandChoice : std::uint8_t { plus, both };

/// A command-line option that the input turns out not to allow, found once
/// the input is read (e.g. `--strand both` on sequences detected as
/// protein). A command-line error, as std::invalid_argument from
/// AlignConfig::validate is: the CLI exits 2. what() names the option and why.
class OptionError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// The message of OptionError and of AlignConfig::validate for `--strand
/// both` on protein.
inline constexpr const char* protein_strand_error =
    "--strand both applies to DNA only: protein sequences have no reverse complement";

/// Defaults, printed by `--help` from here.
struct Defaults {
    static constexpr std::int32_t dna_match = 2;
    static constexpr std::int32_t dna_mismatch = 3;
    static constexpr std::int32_t dna_gap_open = 5;
    static constexpr std::int32_t dna_gap_extend = 2;
    static constexpr const char* protein_matrix = "BLOSUM62";
    static constexpr std::int32_t protein_gap_open = 11;
    static constexpr std::int32_t protein_gap_extend = 1;
    /// Largest --threads accepted: more threads than any host has cores
    /// only cost memory, and libgomp cannot create hundreds of thousands.
    static constexpr int max_threads = 1024;
    /// Pairs per batch (CPU and GPU). On the GPU a batch is one device batch
    /// or a few: 65,536 pairs fill most of an H100 with the inter-pair kernel
    /// (two pairs a thread), whose smallest batch is SMs x 256 pairs.
    static constexpr std::size_t batch_pairs = 65536;
    static constexpr std::size_t batch_bases = 64u << 20;     ///< query+ref bases per batch
    /// --read-ahead: letters (query + ref, one byte each in host memory) of
    /// parsed batches the pairs pipeline's reader may hold ahead of the
    /// aligner while the backend starts. Large enough that reading goes on
    /// through CUDA's start (about 0.2 s, with the reader parsing several
    /// GB/s on a many-core host) instead of stopping two batches ahead. Once
    /// the backend is ready the bound is two batches' letters (or this, if
    /// smaller): reading further ahead then only takes cores from the
    /// backend's own host work (docs/benchmarks.md, "End to end through the
    /// CLI"). One batch is always allowed.
    static constexpr std::size_t read_ahead = std::size_t{1} << 30;
    /// --gpu-memory: device memory cap in bytes, 0 = no cap. A non-zero cap
    /// is split in two halves: one for the batch engine (gpu::BatchEngine), one
    /// for the long-pair engine (gpu::LongEngine, created at the first long
    /// pair). Pairs that neither half can hold are aligned on the CPU.
    static constexpr std::size_t gpu_memory = 0;
    static constexpr std::size_t gpu_memory_min = 1u << 20;   ///< smallest non-zero --gpu-memory accepted (1 MiB)
    static constexpr int gpu_streams = 0;                     ///< --gpu-streams: CUDA streams of the GPU engine, 0 = auto
    /// --gpu-streams auto, with CIGAR and score-only: two streams of
    /// input-sized device batches keep the inter-pair kernels busy while the
    /// host packs the next batch; each stream's buffers hold a whole batch
    /// (with CIGAR its direction bits, gigabytes), and a --gpu-memory cap is
    /// split between the streams (docs/gpu.md, "Tuning").
    static constexpr int gpu_streams_auto = 2;
    static constexpr int gpu_streams_max = 16;
    /// GPU backend: pairs at or above this many DP cells (query_len *
    /// ref_len) go to the long-pair engine: one pair across the whole GPU;
    /// measured on an H100: the 16,569 x 16,499 mito pair took 0.22 s of
    /// kernel in the warp-per-pair batch engine and 0.055 s of wall in the
    /// long engine. (Pairs the batch engine does not accept go there too,
    /// whatever their size.) The CPU backend's long-pair path starts above
    /// gpualign::full_matrix_cells (reference_aligner.hpp) instead.
    static constexpr std::uint64_t long_pair_cells = std::uint64_t{1} << 26;
    /// --progress auto: a long pair shows its progress line once it has run
    /// this long (seconds); --progress always shows it from the start.
    static constexpr double progress_delay_s = 2.0;
    /// The progress line is rewritten at most this often (seconds).
    static constexpr double progress_period_s = 0.5;
    /// `gpualign search -k`: hits reported per query (the best by score,
    /// ties by DB order), as CUDASW++ reports its top 10.
    static constexpr std::size_t search_max_hits = 10;
};

/// Options of `gpualign search QUERIES DB` (every query against every DB
/// record). A hit is a DB record whose alignment with the query scores above
/// 0 (local) or any score (global), passes both filters, and is among the
/// best max_hits of the query: ordered by score descending, then by DB
/// record order (the same on every backend).
struct SearchOptions {
    std::size_t max_hits = Defaults::search_max_hits;  ///< -k/--max-hits, >= 1
    std::optional<std::int32_t> min_score;            ///< --min-score: score >= this
    std::optional<double> max_evalue;                 ///< --evalue: E-value <= this (needs published λ/K), > 0
    /// --db-size: the DB letters of the E-values and of the --evalue
    /// filter (BLAST's -dbsize), > 0; unset: the letters of the DB searched. A
    /// search of one shard of a DB gives the whole DB's E-values with it
    /// and --db-seqs.
    std::optional<std::uint64_t> db_size;
    /// --db-seqs: the DB sequence count of the E-values' length adjustment
    /// (BLAST's db_num_seqs), > 0; unset: the records of the DB searched.
    std::optional<std::uint64_t> db_sequences;
};

/// Parses a byte count as written on the command line: decimal digits with an
/// optional binary suffix K, M, G or T (case-insensitive, 1024-based; a
/// trailing "B" or "iB" is allowed: 512M, 512MiB, 2g, 1048576).
/// @param text    the value, e.g. "512M".
/// @param option  the option's name for the message, e.g. "--gpu-memory".
/// @return the number of bytes.
/// @throws std::invalid_argument naming the option and the value when the
///         text is empty, malformed, or overflows std::size_t.
std::size_t parse_byte_size(const std::string& text, const char* option);

/// Parses a --devices value: "all", or a comma-separated list of device
/// ordinals (decimal, >= 0; e.g. "0,1").
/// @param text      the value.
/// @param ordinals  set to the list (cleared for "all").
/// @return true for "all".
/// @throws std::invalid_argument naming --devices and the value for an
///         empty value or element, a sign, a non-digit, or an ordinal above
///         INT_MAX.
bool parse_device_list(const std::string& text, std::vector<int>& ordinals);

/// Everything one run needs. Optional fields left empty take the defaults of
/// the alphabet that is finally chosen (see resolve_scoring in pipeline.hpp).
struct AlignConfig {
    AlignMode mode = AlignMode::local;
    std::string query_path;                 ///< FASTA/FASTQ, optionally gzip; "-" = stdin
    std::string ref_path;                   ///< likewise; record i pairs with query record i
    std::string out_path = "-";             ///< "-" = stdout
    std::optional<OutputFormat> format;     ///< empty: from out_path's extension, else tsv
    AlphabetChoice alphabet = AlphabetChoice::automatic;
    std::optional<std::int32_t> match;      ///< DNA match score (>= 0)
    std::optional<std::int32_t> mismatch;   ///< DNA mismatch penalty (>= 0)
    std::optional<std::int32_t> gap_open;   ///< positive penalty; 0 = linear gaps
    std::optional<std::int32_t> gap_extend; ///< positive penalty per gap position
    std::optional<std::string> matrix;      ///< BLOSUM name or NCBI-format file (protein, or DNA file)
    std::optional<std::int32_t> n_score;    ///< DNA: score of N against any base (default -mismatch)
    bool score_only = false;
    bool sam_cigar_m = false;                ///< --cigar m: SAM CIGARs with M for = and X (WriterOptions::sam_cigar_m)
    /// --strand: which query strands are aligned (DNA only). With both, every
    /// pair (search: every query and DB record) is aligned on both strands and
    /// the better alignment kept; the batches then hold twice the pairs.
    StrandChoice strand = StrandChoice::plus;
    int threads = 0;                        ///< 0 = all cores
    BackendChoice backend = BackendChoice::automatic;
    /// CPU kernel of the CPU backend (and of the pairs a GPU run aligns on
    /// the CPU): inter-pair SIMD or the scalar reference (--cpu-kernel).
    CpuKernel cpu_kernel = CpuKernel::simd;
    int device = 0;                         ///< CUDA device ordinal (the one-GPU form of `devices`)
    /// --device or --devices was given: with --backend auto, a machine with
    /// no visible GPU is then an error rather than a run on the CPU.
    bool devices_chosen = false;
    /// --devices LIST: the CUDA device ordinals the GPU backend uses, in the
    /// order work is handed out; empty = the one device `device`. An ordinal
    /// may repeat: each occurrence is a worker of its own on that GPU, with
    /// its own engines (a way to test the multi-GPU paths on one GPU).
    std::vector<int> devices;
    /// --devices all: every visible CUDA device (then `devices` is empty).
    bool all_devices = false;
    /// The device ordinals to use when `visible` CUDA devices are visible:
    /// 0 .. visible-1 with all_devices, else `devices`, else {device}.
    /// @throws std::runtime_error naming the option when an ordinal is not
    ///         below `visible` (or no device is visible for --devices all).
    std::vector<int> gpu_devices(int visible) const;
    std::size_t batch_pairs = Defaults::batch_pairs;
    std::size_t batch_bases = Defaults::batch_bases;
    /// Pairs and query+ref bases per input batch (the reader's batches):
    /// batch_pairs and batch_bases, times the length of a --devices list
    /// when both are left at their defaults, so that each GPU's share of a
    /// batch is as large as one GPU's batch (the inter-pair kernels need
    /// SMs x 256 pairs a device batch; docs/gpu.md). --devices all counts as
    /// one GPU here: the count is known only once CUDA has started, after
    /// reading began.
    std::size_t input_batch_pairs() const noexcept { return batch_pairs * input_batch_factor(); }
    std::size_t input_batch_bases() const noexcept { return batch_bases * input_batch_factor(); }
    std::size_t input_batch_factor() const noexcept {
        const bool defaults = batch_pairs == Defaults::batch_pairs && batch_bases == Defaults::batch_bases;
        return defaults && devices.size() > 1 ? devices.size() : 1;
    }
    std::size_t read_ahead = Defaults::read_ahead;  ///< bytes of parsed letters held ahead of the aligner while the backend starts (Defaults::read_ahead)
    /// Cap on the GPU backend's device memory in bytes, 0 = no cap; a
    /// non-zero cap gives half to the batch engine and half to the long-pair
    /// engine (Defaults::gpu_memory).
    std::size_t gpu_memory = Defaults::gpu_memory;
    int gpu_streams = Defaults::gpu_streams;        ///< CUDA streams (buffer sets) of the GPU engine, 1..gpu_streams_max; 0 = auto
    /// The streams the GPU engine uses: gpu_streams, or for 0 (auto)
    /// Defaults::gpu_streams_auto.
    int engine_streams() const noexcept { return gpu_streams > 0 ? gpu_streams : Defaults::gpu_streams_auto; }
    /// Device memory cap of the batch engine: half of gpu_memory (0 = no cap).
    std::size_t batch_engine_memory() const noexcept { return gpu_memory / 2; }
    /// Device memory cap of the long-pair engine: the other half (0 = no cap:
    /// the long engine takes 90% of the memory free when it starts).
    std::size_t long_engine_memory() const noexcept { return gpu_memory - gpu_memory / 2; }
    /// Progress line on stderr while long pairs align (see ProgressChoice;
    /// the CLI turns auto into never under -q).
    ProgressChoice progress = ProgressChoice::automatic;
    std::string command_line;               ///< for SAM @PG CL
    /// Set for `gpualign search`: ref_path is then the DB, and every query is
    /// aligned with every DB record (mode local, global or semi-global).
    std::optional<SearchOptions> search;

    /// Checks every field once. Throws std::invalid_argument naming the
    /// option: scores or penalties outside 0..max_score_magnitude (--n-score
    /// outside ±max_score_magnitude), empty paths, threads outside
    /// 0..Defaults::max_threads,
    /// device < 0, zero batch sizes, --match/--mismatch/--n-score with
    /// --alphabet protein, --matrix with --match/--mismatch/--n-score,
    /// --score-only with SAM, PAF or BLAST tabular output, search options
    /// outside `search`, --max-hits 0,
    /// --evalue <= 0, --strand both with --alphabet protein (the input's
    /// alphabet, when detected, is checked by the pipelines: OptionError),
    /// the same path as input and output,
    /// a non-zero gpu_memory under Defaults::gpu_memory_min, gpu_streams
    /// outside 0..Defaults::gpu_streams_max, and (without `format`) an
    /// out_path extension of a format not written: .bam, .cram, .gz, .bgz,
    /// .bz2, .xz, .zst (the message names the pipe to use); PAF with
    /// --score-only or in `search`.
    void validate() const;

    /// The output format: `format` if set, else from out_path's extension
    /// (case-insensitive): ".sam" => sam, ".m8" or ".blast6" => blast6,
    /// ".paf" => paf, else tsv.
    OutputFormat output_format() const;
};

}  // namespace gpualign
