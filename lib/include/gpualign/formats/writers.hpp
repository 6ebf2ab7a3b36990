// gpualign — output: an atomic output file, and the TSV, SAM, PAF and BLAST
// tabular writers.
//
// How the pipeline uses a writer (one thread at a time, pairs in output order):
//
//     AlignmentWriter w(config.out_path, {config.output_format(), config.score_only, config.command_line});
//     for each pair:  w.write(query_record, ref_record, result);
//     w.commit();     // the output appears (renamed into place) only here
//
// If the run fails before commit(), destroying the writer removes every
// temporary file and leaves any existing file at the output path untouched.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gpualign/formats/sam_references.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"
#include "gpualign/model/statistics.hpp"

namespace gpualign {

/// An output file that appears complete or not at all.
///
///  - A regular (or not yet existing) file is written to a temporary file in
///    the same directory (".NAME.PID.N.tmp") and renamed over `path` by
///    commit(), which is atomic on POSIX file systems.
///  - "-" writes to stdout directly; an existing non-regular file (a device
///    such as /dev/null or /dev/full, a FIFO, /dev/stdout) is opened and
///    written directly, since it cannot be renamed over.
///  - a symbolic link is followed: the temporary file goes next to the file
///    it names and replaces that file, so the link stays (as with a shell's
///    `>`); a dangling link creates the file it points to.
///  - an existing file keeps its permission bits; a new one gets 0666 less
///    the umask.
///
/// Every write is checked, and commit() checks fflush, fclose and rename,
/// so a full disk or /dev/full is reported, never silently truncated output.
/// Destroyed without commit(), the temporary file is removed; while it
/// exists it is also registered with register_cleanup_path (cleanup.hpp), so
/// that the signal handlers of install_cleanup_signal_handlers remove it
/// when the process is interrupted.
/// Not thread-safe; move-only.
class OutputFile {
public:
    /// @throws OutputError (path named) when the file cannot be created,
    ///         e.g. a missing directory or no permission.
    explicit OutputFile(std::string path);
    ~OutputFile();
    OutputFile(OutputFile&&) noexcept;
    OutputFile& operator=(OutputFile&&) noexcept;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    /// Appends bytes (buffered). @throws OutputError on a write error.
    void write(std::string_view bytes);
    /// Appends the whole content of the open file `from`, its unflushed
    /// writes included, read from offset 0 with pread (its own offset is
    /// left as it is). @throws OutputError naming this path on a read or
    /// write error.
    void write_file(std::FILE* from);
    /// True for a regular file written through a temporary file: then
    /// regions can be reserved in order and written by several threads at
    /// once (reserve, write_at). False for stdout, devices and FIFOs, which
    /// are written in order only.
    bool positional() const noexcept { return file_ != nullptr && !temp_.empty() && !committed_; }
    /// Reserves the next `bytes` bytes of the file (after everything
    /// written or reserved so far) for write_at, and returns their offset.
    /// Not thread-safe. @throws std::logic_error when not positional();
    /// OutputError naming the path on a write or seek error.
    std::uint64_t reserve(std::uint64_t bytes);
    /// Writes `bytes` at `offset` (pwrite), inside a region from reserve.
    /// Safe to call from several threads at once for disjoint regions, not
    /// together with write() or reserve(). @throws OutputError naming the
    /// path on a write error (e.g. a full disk).
    void write_at(std::uint64_t offset, std::string_view bytes);
    /// Flushes, closes and renames into place (stdout: flushes only).
    /// Call once. @throws OutputError naming the path and the system error.
    void commit();

    const std::string& path() const noexcept { return path_; }

private:
    [[noreturn]] void fail(std::string_view action, int err) const;
    void discard() noexcept;

    std::string path_;
    std::string target_;      ///< path_ with symbolic links followed: what commit() replaces
    std::string temp_;        ///< temporary file; empty when writing directly
    int cleanup_slot_ = -1;   ///< register_cleanup_path handle of temp_, or -1
    std::FILE* file_ = nullptr;
    bool is_stdout_ = false;
    bool committed_ = false;
};

/// What a writer needs to know about the run.
/// The one-line warning for protein sequences written to SAM (the pipelines
/// log it once): valid SAM text, but BAM and CRAM encode SEQ as nucleotides.
inline constexpr const char* protein_sam_warning =
    "protein sequences in SAM: the text is valid SAM, but BAM and CRAM store SEQ as nucleotide codes, and "
    "samtools view -b turns every other letter into N without a message (MKWLE becomes MKWNN); keep protein "
    "alignments in SAM text, TSV or blast6";

struct WriterOptions {
    OutputFormat format = OutputFormat::tsv;
    bool score_only = false;                ///< documented in the SAM header as @CO
    std::string command_line;               ///< SAM @PG CL (tabs and newlines become spaces)
    std::string version;                    ///< SAM @PG VN; empty = GPUALIGN_VERSION
    /// SAM CIGAR, PAF cg:Z and the TSV cigar column with M (alignment
    /// match, SAM v1.6 §1.4) for =/X runs, adjacent ones merged; false: = and
    /// X as computed.
    bool sam_cigar_m = false;
    /// BLAST tabular output of pairs (sw/nw): the Karlin-Altschul parameters
    /// of the scheme for E-values and bit scores (statistics.hpp evalue, the
    /// DB being the pair's one ref, as blastn -subject with one record);
    /// none: NA.
    std::optional<KarlinAltschul> statistics;
};

/// Host time spent in AlignmentWriter::write_batch, in seconds.
struct BatchWriteTimes {
    double format_seconds = 0.0;  ///< formatting the lines (wall time of the parallel part)
    double write_seconds = 0.0;   ///< handing the bytes to the output (or SAM spool) in order
};

/// Writes one TSV line, PAF or BLAST tabular line (aligned pairs only) or SAM record per pair, in call order.
///
/// write() takes the records from SequenceReader (borrowed for the call
/// only) and the AlignmentResult of the pair (0-based half-open coordinates,
/// see alignment.hpp). A result with has_cigar == false is written in
/// score-only form (below). A pair is *unaligned* when its result covers no
/// query letter (query_begin == query_end): a local alignment whose best
/// score is 0 (docs/scoring.md); a global alignment of non-empty sequences
/// never is. Not thread-safe: call from one thread at a time.
///
/// Strands (AlignmentResult::strand, strand.hpp): every format reports the
/// query's coordinates on its forward strand and the reference's on its
/// forward strand; a CIGAR always reads along the forward reference, i.e.
/// for a minus-strand result it aligns the reverse-complemented query (as
/// SAM and minimap2's cg:Z do).
///
/// TSV: a header row (tsv_header), then per pair the tab-separated columns
///   query query_len query_begin query_end ref ref_len ref_begin ref_end score
///   matches mismatches gap_opens alignment_len identity cigar strand
/// coordinates 0-based half-open; identity = matches / alignment_len with 4
/// decimals (0.0000 when alignment_len is 0); cigar with = X I D (M for = and
/// X with sam_cigar_m; '*' for an unaligned pair); strand '+' or '-'. Score-only: the six CIGAR-derived
/// columns are '*'.
///
/// PAF (minimap2's PAF.md): qname qlen qstart qend strand tname tlen tstart
/// tend matches block_len 255, then NM:i, AS:i and cg:Z (M runs with
/// sam_cigar_m); 0-based half-open; unaligned pairs are left out.
///
/// BLAST tabular: blast6_line per aligned pair (unaligned pairs are left
/// out), with the E-value and bit score of WriterOptions::statistics.
///
/// SAM (SAM v1.6, samtools.github.io/hts-specs/SAMv1.pdf):
///  - header (§1.3): "@HD VN:1.6 SO:unsorted"; one "@SQ SN:name LN:len" per
///    distinct reference, in first-seen order; "@PG ID:gpualign
///    PN:gpualign VN:<version> CL:<command line>"; in score-only mode an @CO
///    line saying that CIGARs are '*'.
///  - records (§1.4): QNAME = query name; FLAG 0, 16 for a minus-strand
///    alignment, or 4 when unaligned (then RNAME '*', POS 0, MAPQ 0, CIGAR
///    '*', as minimap2 writes unmapped reads); 256 is added for a secondary
///    search hit (write_hit); RNAME = ref name; POS = ref_begin + 1;
///    MAPQ 255 (unavailable; 0 for a secondary hit); CIGAR with = X I D, plus S for the query ends
///    outside a local alignment (query_begin and query_len - query_end, of
///    the strand aligned);
///    RNEXT '*', PNEXT 0, TLEN 0; SEQ = the query letters as read, upper
///    case, reverse-complemented under FLAG 16 ('*' when they hold a
///    character SAM does not allow in SEQ, such as a protein stop '*');
///    QUAL = the FASTQ qualities (reversed under FLAG 16), else '*'; tags
///    AS:i:score and, when a CIGAR is present and the pair aligned,
///    NM:i:(mismatches + inserted + deleted).
///  - score-only mode: CIGAR is '*' on FLAG-0 records (the spec's
///    "unavailable"). htslib/samtools read such a record as unmapped and warn
///    "mapped query must have a CIGAR"; use TSV for score-only coordinates.
///  - given the reference dictionary before the first record
///    (set_references), the header is written at once and the records
///    straight after it (SAM on stdout streams). Otherwise the body is
///    spooled to an unlinked temporary file next to the output (TMPDIR or
///    /tmp for stdout and devices) because @SQ lines must precede records
///    while references stream; commit() writes the header, copies the body
///    and commits the output. Memory grows only with the number of distinct
///    reference names.
class AlignmentWriter {
public:
    /// Opens the output `path` ("-" = stdout) through an OutputFile, so it
    /// appears only on commit().
    /// @throws OutputError when the output (or the SAM spool) cannot be created;
    ///         std::invalid_argument for OutputFormat::blast6 (SearchWriter's).
    AlignmentWriter(const std::string& path, const WriterOptions& options);
    ~AlignmentWriter();
    AlignmentWriter(AlignmentWriter&&) noexcept;
    AlignmentWriter& operator=(AlignmentWriter&&) noexcept;
    AlignmentWriter(const AlignmentWriter&) = delete;
    AlignmentWriter& operator=(const AlignmentWriter&) = delete;

    /// Declares a reference so that SAM lists it in @SQ even if no pair
    /// uses it (write() declares its ref too). No-op for TSV.
    /// @throws InputError when the name was seen with another length;
    ///         OutputError when the name or length is not valid SAM;
    ///         std::logic_error after set_references (SAM).
    void add_reference(const std::string& name, std::uint64_t length);

    /// Writes one pair.
    /// @throws std::logic_error when the result's coordinates lie outside
    ///         the sequences; InputError for a reference name seen with
    ///         another length (SAM); OutputError on a write error or a name
    ///         SAM cannot hold (QNAME [!-?A-~]{1,254}, RNAME per §1.2.1).
    void write(const SequenceRecord& query, const SequenceRecord& ref, const AlignmentResult& result);
    /// The same for borrowed views of the records (RecordView).
    void write(const RecordView& query, const RecordView& ref, const AlignmentResult& result);

    /// Writes one search hit of `query` on DB record `ref`, as write() does.
    /// With `secondary` (a hit that is not the query's best), SAM writes it
    /// as a secondary alignment, as minimap2 does (SAM v1.6 §1.4.2): FLAG
    /// 256 (272 on the minus strand), MAPQ 0, SEQ and QUAL '*'; the other
    /// formats write it as any line. @throws what write() throws.
    void write_hit(const RecordView& query, const RecordView& ref, const AlignmentResult& result, bool secondary);

    /// Writes pair k = (queries[k], refs[k], results[k]) for every k, with the
    /// same bytes as that many write() calls in order: the lines are formatted
    /// on up to `threads` threads (OpenMP) into buffers of consecutive pairs
    /// (host memory, about the batch's output size) and written in order.
    /// @throws what write() throws for the first failing pair in pair order,
    ///         after the pairs before it were written; std::invalid_argument
    ///         when the spans differ in size.
    BatchWriteTimes write_batch(std::span<const RecordView> queries, std::span<const RecordView> refs,
                                std::span<const AlignmentResult> results, int threads);

    /// SAM: declares every reference of the run at once, before any record
    /// or add_reference, from read_sam_references (sam_references.hpp), and
    /// writes the header: the records then go straight to the output. A
    /// record whose ref (with at least one letter) is not in `refs` is then
    /// an InputError (the REFS file changed after it was read). No-op for
    /// the other formats. @throws std::logic_error when called after a
    /// record or reference; OutputError on a write error.
    void set_references(SamReferences refs);

    /// Completes the output. Call once, after the last write.
    /// @throws OutputError naming the path.
    void commit();

    /// Base of the format implementations (internal).
    class Impl;

private:
    std::unique_ptr<Impl> impl_;
};

/// The columns query .. cigar of one pair's TSV line, as AlignmentWriter
/// writes them, without the `strand` column and the trailing newline: the
/// part the pairs TSV (which appends strand) and the search TSV (which
/// appends evalue, bitscore and strand) share. Query coordinates on the
/// query's forward strand; with `cigar_m` the cigar column has M for = and
/// X runs (WriterOptions::sam_cigar_m).
/// @throws std::logic_error when the result's coordinates lie outside the
///         sequences.
std::string tsv_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result,
                     bool cigar_m = false);

/// The BLAST tabular (BLAST+ -outfmt 6) line of one aligned pair or hit,
/// without the trailing newline: qseqid sseqid pident length mismatch
/// gapopen qstart qend sstart send evalue bitscore. Coordinates 1-based
/// inclusive; pident = 100 x matches / alignment columns (gaps included),
/// 3 decimals; length = alignment columns; gapopen = gap runs. A
/// minus-strand result is written as blastn writes a minus-strand hit: qstart
/// < qend on the forward query, sstart > send. `evalue` and `bits` are
/// formatted by format_evalue and format_bit_score, "NA" when empty.
/// @throws std::logic_error when the result's coordinates lie outside the
///         sequences.
std::string blast6_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result,
                        std::optional<double> evalue, std::optional<double> bits);

/// The TSV column names, in order, for the header row (`strand` last, so
/// that the columns before it keep the positions they had before it came).
inline constexpr std::string_view tsv_header =
    "query\tquery_len\tquery_begin\tquery_end\tref\tref_len\tref_begin\tref_end\tscore\tmatches\tmismatches\t"
    "gap_opens\talignment_len\tidentity\tcigar\tstrand";

}  // namespace gpualign
