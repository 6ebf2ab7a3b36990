// gpualign — internal: the FASTQ hot path, a block parser beside SequenceReader.
//
// The block reader (parallel_reader.cpp) reads a plain FASTQ file in blocks
// too. FASTQ cannot be cut at record starts without parsing ('@' may begin a
// quality line), so the reader cuts speculatively (fastq_cut) and
// parse_fastq_block accepts a block only when it is a run of plain 4-line
// records from its first byte to its last. By induction every accepted block
// then ends where the next record starts: the first block starts at the
// file's first record, and an accepted block ends at a record's end. At the
// first block it declines (a record of another shape, a wrong speculative
// cut, anything else, any error) the reader hands the
// rest of the file, from that block's start, to SequenceReader (the reference
// reader), which yields the same records or the exact error message. The
// fuzz target fuzz_block_parsers, tests/io/fastq_block_test.cpp and the
// FASTQ cases of tests/io/parallel_reader_test.cpp hold it to SequenceReader.
#pragma once

#include <cstddef>
#include <string_view>

#include "gpualign/io/record_block.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::detail {

/// A guess at the first record start at or after `from` in `text` (plain
/// FASTQ): the first line, starting after an LF, that begins with '@' and
/// whose second line after it begins with '+' (in 4-line FASTQ only a header
/// line does; a quality line that begins with '@' is followed by a header and
/// a sequence line). text.size() when there is none. Not checked here:
/// parse_fastq_block declines a block that starts anywhere else.
std::size_t fastq_cut(std::string_view text, std::size_t from) noexcept;

/// Parses `text` (host memory, borrowed) into `block` when it is, from its
/// first byte to its last, a run of records of four lines each, with LF line
/// ends, as SequenceReader (text_records.hpp) reads them:
///  1. '@' and the header (split_header: name and description), LF-ended;
///  2. the letters, every one in `alphabet` (DNA coded with `codes`);
///  3. '+' and, up to its LF, nothing, the header again or its name;
///  4. the qualities: exactly as many as the letters, each '!'..'~',
///     then an LF and the next record's '@', or the end of `text`.
/// @return true when every record was read and encoded (then `block` holds
///         them, qualities included); false for anything else (a blank or a
///         '+' among the letters, lines of another count or length, blank
///         lines, a quality outside '!'..'~', an empty name or sequence, a
///         '+' line naming another record, a record cut short, a CR
///         anywhere: the caller makes CR line ends LF first): then `block`
///         holds an unspecified prefix of the records and the caller clears
///         it and parses with SequenceReader, which reads the same records or
///         reports the error.
/// @throws std::bad_alloc, std::length_error (RecordBlock::append_encoded).
bool parse_fastq_block(std::string_view text, Alphabet alphabet, DnaCodes codes, RecordBlock& block);

}  // namespace gpualign::detail
