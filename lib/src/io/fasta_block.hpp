// gpualign — internal: the FASTA hot path, a block parser beside SequenceReader.
//
// The block reader (parallel_reader.cpp) cuts a FASTA file into blocks of
// whole records and parses each on its own thread. parse_fasta_block reads a
// block line by line (memchr, or one byte read where a line is as wide as the
// one before it) and encodes by table look-ups straight into the
// RecordBlock (a record's lines written there without a joined copy), and
// gives the very records SequenceReader's parser
// gives (the reference reader, text_records.hpp) for every block it accepts.
// It accepts the well-formed common case only; on anything else (a blank or
// a digit or another byte outside the alphabet inside a sequence, an empty
// name or sequence, a header without a line end) it declines, and the
// caller parses the block with SequenceReader, which yields the same records
// or the exact error message (a blank is dropped there, a digit an error).
// The fuzz target fuzz_block_parsers and tests/io/fasta_block_test.cpp hold
// the two parsers to the same output.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

#include "gpualign/io/record_block.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::detail {

/// The end of the line starting at `p` of `text` (the index of its LF, or
/// text.size() when none follows). Both block parsers walk lines with it.
std::size_t line_end(std::string_view text, std::size_t p) noexcept;

/// Splits a FASTA/FASTQ header (the line after '>' or '@', leading blanks
/// already dropped) into its first word (the record's name) and the rest
/// with the blanks around it trimmed (its description). Blanks: space, tab,
/// CR, LF, VT, FF. Views into `header`.
std::pair<std::string_view, std::string_view> split_header(std::string_view header) noexcept;

/// Parses `text` (host memory, borrowed) into `block`, appending its records
/// in order, each encoded in `alphabet` (DNA with `codes`), as SequenceReader
/// (text_records.hpp) parses the same text:
///  - a record starts at '>' or ';' and its header is the rest of that line
///    (LF-terminated), leading spaces and tabs dropped, split by split_header;
///  - its sequence is every line after the header up to the next line that
///    starts with '>' or ';', or the end of `text`.
/// Precondition: `text` starts at a record start ('>' or ';'), as the block
/// reader cuts it. A text with a CR anywhere is declined (a header line
/// holding one; in a sequence it is a byte outside the alphabet), so the
/// caller can try a mapped block as it is and scan it for CR line ends only
/// when it is declined.
/// @return true when every record was read and encoded (then `block` holds
///         them); false when `text` holds anything outside the accepted case:
///         inside a sequence a byte that is neither a letter of the alphabet
///         nor LF (blanks, which SequenceReader drops, and digits, an error there; a '>' or
///         ';' that does not start a line), an empty name or sequence, a
///         header line with no LF or with a CR. Then `block` holds an unspecified prefix
///         of the records and the caller clears it and parses with SequenceReader.
/// @throws std::bad_alloc, std::length_error (RecordBlock::append_encoded).
bool parse_fasta_block(std::string_view text, Alphabet alphabet, DnaCodes codes, RecordBlock& block);

}  // namespace gpualign::detail
