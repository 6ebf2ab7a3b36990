// gpualign — reading one FASTA or FASTQ file in blocks, on one or several threads.
//
// The text is cut into blocks of about 1 MiB at record starts: views of a
// read-only memory map for a plain file (no copy), or decompressed chunks for
// gzip. OpenMP tasks parse each block with a hot-path block parser
// (lib/src/io/fasta_block.hpp, fastq_block.hpp: memchr over lines, encoding
// straight into the RecordBlock), or, for a FASTA block it declines
// (anything outside well-formed FASTA, and every error), with SeqAn3's
// sequence_file_input through SequenceReader::from_text; FASTQ from the
// first declined block on is read by one SequenceReader. Records come out in file
// order with the same numbers, contents and error messages as SequenceReader
// gives for the whole file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// Streaming reader of one FASTA or FASTQ file (plain or gzip) that parses
/// it in blocks on several threads; a drop-in for SequenceReader's
/// next()/alphabet().
///
/// Blocks for FASTA from a path, plain or gzip, and for plain FASTQ from a
/// path (on one thread too); gzip FASTQ and stdin are read by one
/// SequenceReader. FASTQ is cut speculatively ('@' may begin a quality line,
/// so a record start cannot be told without parsing; lib/src/io/fastq_block.hpp):
/// the blocks are accepted in order while each is a run of plain 4-line
/// records, and from the first that is not, the rest of the file is read by
/// one SequenceReader, so records, numbers and errors stay SeqAn3's.
///
/// Cut points (FASTA): a block ends just before a '>' that begins a line whose
/// preceding line is non-empty and holds no '>' or ';'. SeqAn3 ends a FASTA
/// sequence at any '>' or ';', and a header is one line, so such a line is
/// sequence text and the '>' after it starts a record both in the file and
/// in the block; the block's last record then has sequence text before the
/// block's end, exactly as in the file.
///
/// Errors: the same InputError text as SequenceReader (file, record number
/// and name, position), raised when next() reaches the failing record, after
/// every record before it was handed out. A block that fails is re-parsed
/// in order with its true record offset to produce the message.
///
/// Memory: the parsed records not yet handed out (RecordBlock, about the
/// size of their text), plus at most about 2 * threads blocks of
/// block_bytes (1 MiB) of text while parsing. A plain
/// file is memory-mapped; the pages before the last parsed block are dropped
/// from the map (madvise MADV_DONTNEED), so resident memory does not grow
/// with the file. Not thread-safe; move-only.
class ParallelSequenceReader {
public:
    /// Bytes of text per block handed to one parser thread (the block ends
    /// at the first record start after them): 2 MiB less 128 KiB, so that a
    /// block's characters and its codes each fill one 2 MiB huge page of
    /// RecordBlock's storage (detail::BlockAllocator) with room for the
    /// record that crosses the cut.
    static constexpr std::size_t block_bytes = (std::size_t{2} << 20) - (std::size_t{128} << 10);

    /// Opens `path` ("-" = stdin) as SequenceReader does, with its checks.
    /// @param threads  parser threads (>= 1).
    /// @throws InputError as SequenceReader's constructor.
    ParallelSequenceReader(std::string path, AlphabetChoice choice, int threads);
    ~ParallelSequenceReader();
    ParallelSequenceReader(ParallelSequenceReader&&) noexcept;
    ParallelSequenceReader& operator=(ParallelSequenceReader&&) noexcept;
    ParallelSequenceReader(const ParallelSequenceReader&) = delete;
    ParallelSequenceReader& operator=(const ParallelSequenceReader&) = delete;

    /// As SequenceReader::next: the next record in file order (encoded), or
    /// false at the end of the file. @throws InputError as SequenceReader.
    bool next(SequenceRecord& out);

    /// Parses ahead until at least `min_records` records or `min_bases`
    /// letters are parsed and not yet handed out, or the file ends, or an
    /// error is queued (it is raised by next()/take_blocks() in order).
    /// Called inside an OpenMP parallel region (e.g. from an `omp task`, so
    /// that one team parses several files), the blocks are parsed as tasks
    /// of that team; otherwise it opens its own team of threads().
    /// @throws nothing that belongs to the input (see above); std::bad_alloc.
    void fill(std::size_t min_records, std::size_t min_bases);

    /// Appends every parsed record not yet handed out (see fill) to `out`
    /// as blocks, in file order, and returns how many records. The blocks
    /// are shared, read-only and contiguous (RecordBlock); when the last
    /// owner lets go of one (on any thread), its memory returns to this
    /// reader's pool and later blocks are parsed into it, so a steady stream
    /// of batches neither allocates nor first-touches memory. The pool keeps
    /// at most 256 MiB of block memory and outlives the reader while
    /// blocks are held.
    /// @throws InputError queued by fill, after the records before it were
    ///         appended to `out`.
    std::size_t take_blocks(std::vector<std::shared_ptr<const RecordBlock>>& out);

    /// True when every record was handed out and the file has ended (or an
    /// error was raised).
    bool exhausted() const noexcept;
    /// As SequenceReader::alphabet (decided from the first records).
    Alphabet alphabet();
    /// As SequenceReader::set_dna_codes: call before the first next() or
    /// fill(). @throws std::logic_error when records were already parsed in
    /// another coding.
    void set_dna_codes(DnaCodes codes);
    /// The path as given ("-" for stdin).
    const std::string& path() const noexcept;
    /// Records handed out by next() so far.
    std::uint64_t records_read() const noexcept;
    /// As SequenceReader::empty: the input holds no records at all.
    bool empty() const noexcept;
    /// True while the file is read in blocks (FASTA from a path, plain FASTQ
    /// from a path until a block that is not plain 4-line records).
    bool in_blocks() const noexcept;
    /// The threads given to the constructor (at least 1).
    int threads() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Whether `path` is a regular file, plain or gzip, whose content is exactly
/// one FASTA record within its first `max_bytes` bytes (uncompressed): after
/// what both readers skip before the first record (a UTF-8 byte order mark,
/// then blanks) it starts with '>', and no later line (after LF or CR)
/// starts with '>'. A look at the input before it
/// is read, for choices made before the reader starts (the CLI's CUDA
/// hardware queues, cuda_hardware_queues); the record is not checked, the
/// reader reports what is wrong with it.
///
/// False, without reading, for "-" (stdin), pipes and anything but a
/// regular file, so nothing a reader needs is consumed; false for FASTQ,
/// files with several records, files longer than max_bytes uncompressed,
/// and files that cannot be opened or decompressed. Reads in 64 KiB pieces
/// (zlib's gz* API) into host memory, stopping at the piece that passes
/// max_bytes. Never throws.
bool holds_one_fasta_record(const std::string& path, std::size_t max_bytes) noexcept;

/// As holds_one_fasta_record, and then the file's size in bytes,
/// uncompressed (an upper bound of the record's letters); std::nullopt
/// where holds_one_fasta_record is false. Never throws.
std::optional<std::size_t> one_fasta_record_bytes(const std::string& path, std::size_t max_bytes) noexcept;

}  // namespace gpualign
