// gpualign — internal: the serial FASTA/FASTQ record parser of
// SequenceReader (sequence_io.cpp), reading a std::streambuf.
//
// It reads what SeqAn3's format_fasta and format_fastq read, with three
// differences that SeqAn3 cannot be configured for: a digit inside a
// sequence is an error (SeqAn3 drops digits silently, which shifts every
// later position), a FASTQ '+' line that names another record than the '@'
// line is an error (as in seqtk and samtools), and every error is worded in
// plain words (the record's number, name and the position as written)
// instead of SeqAn3's parser text. The hot-path block parsers
// (fasta_block.hpp, fastq_block.hpp) give the same records for every block
// they accept; fuzz/fuzz_block_parsers.cpp checks it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "gpualign/io/sequence_io.hpp"

namespace gpualign::detail {

/// A malformed record met by TextRecordParser. The reader prefixes the file
/// and the record's number: "<file>: record N 'name': <what()>".
struct RecordSyntaxError : std::runtime_error {
    RecordSyntaxError(std::string name_, const std::string& what) : std::runtime_error(what), name(std::move(name_)) {}
    std::string name;  ///< the record's name when already read, else empty
};

/// One record as written, before encoding.
struct TextRecord {
    std::string header;    ///< the header line after '>' / ';' / '@' (FASTA: leading spaces and tabs dropped)
    std::string letters;   ///< the sequence with blanks dropped (line ends, spaces, tabs, CR, VT, FF)
    std::string quality;   ///< FASTQ: the qualities with blanks dropped; FASTA: empty
    /// 0-based positions, as written, of the blanks dropped from `letters`,
    /// in increasing order. A position counts every character of the
    /// sequence's lines except the line ends.
    std::vector<std::uint64_t> dropped;

    /// The 1-based position as written (see `dropped`) of letters[k].
    std::uint64_t written_position(std::size_t k) const noexcept;
};

/// Reads records one at a time from `buf` (borrowed; LF line ends, as the
/// reader's stream buffers deliver them). Rules, FASTA:
///  - a record starts with '>' or ';'; its header is the rest of the line,
///    leading spaces and tabs dropped; a header line with no line end (the
///    end of the input) is an error;
///  - its sequence is every character up to the next '>' or ';' (at a line
///    start or not, as SeqAn3) or the end; blanks are dropped, a digit is an
///    error; no sequence at all is a zero-length record.
/// FASTQ:
///  - '@' header line; sequence lines up to a line starting with '+' (blanks
///    dropped, a digit an error); the '+' line is empty, or repeats the
///    header or its first word;
///  - the qualities: one line when the sequence is on one line, else lines
///    until they hold as many characters as the sequence has letters; each
///    '!'..'~' (Phred+33); as many as the letters (a zero-length sequence
///    reads no quality line);
///  - blank lines between records are skipped.
class TextRecordParser {
public:
    TextRecordParser(std::streambuf& buf, SequenceFormat format) : buf_(buf), format_(format) {}

    /// Reads the next record into `out`. Returns false at the end of the
    /// input (only blanks left). @throws RecordSyntaxError on a malformed
    /// record; std::bad_alloc.
    bool next(TextRecord& out);

private:
    bool next_fasta(TextRecord& out);
    bool next_fastq(TextRecord& out);
    /// Reads up to the end of the line into `line` (without the LF); false
    /// when the input ended before an LF.
    bool read_line(std::string& line);

    std::streambuf& buf_;
    SequenceFormat format_;
    std::string line_;
};

}  // namespace gpualign::detail
