// gpualign — reading query and reference records from FASTA or FASTQ.
//
// Parsing is SeqAn3's (seqan3::sequence_file_input with format_fasta and
// format_fastq). SeqAn3 is given the letters as raw characters (a `char`
// sequence alphabet) so that gpualign does the encoding itself and can name
// the exact position of a character outside the alphabet.
//
// Decompression is zlib's gz* API rather than SeqAn3's gzip stream, because
// SeqAn3 3.2 (contrib/stream/gz_istream.hpp) ends a truncated or corrupt
// gzip stream silently, as if the file ended there; zlib reports it
// (gzerror Z_BUF_ERROR / Z_DATA_ERROR) and this layer turns it into an
// InputError. zlib also reads plain files unchanged, so one code path serves
// plain, gzip and BGZF input, from a path or from stdin.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpualign/io/io_error.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

class RecordBlock;

/// Text format of a sequence file, decided from its content.
enum class SequenceFormat : std::uint8_t { fasta, fastq };

/// Printable name ("FASTA" or "FASTQ").
const char* to_string(SequenceFormat f) noexcept;

/// One record of a FASTA or FASTQ file. Owned by value, host memory.
///
/// `sequence` holds the letters exactly as read (case kept, blanks removed;
/// a digit is an error). `codes[k]` is the code of
/// `sequence[k]` in the reader's alphabet (see Alphabet and encode_sequence),
/// so `codes.size() == sequence.size()`.
struct SequenceRecord {
    std::string name;                 ///< first word of the header (SAM QNAME / RNAME)
    std::string description;          ///< rest of the header after the first blank run; may be empty
    std::string sequence;             ///< letters as read (blanks dropped); may be empty (a zero-length sequence)
    std::string quality;              ///< FASTQ: Phred+33 characters, one per letter; FASTA: empty
    std::vector<std::uint8_t> codes;  ///< encoded letters, one byte each
    std::uint64_t number = 0;         ///< 1-based record number in its file
};

/// Code of one character in an alphabet, or -1 if the character is not
/// accepted.
///  - dna, DnaCodes::dna5 (default): seqan3::dna5 ranks A0 C1 G2 N3 T4; U
///    reads as T; the IUPAC ambiguity codes R Y K M S W B D H V read as N;
///    lowercase is accepted.
///  - dna, DnaCodes::iupac: the same letters; A C G N T as in dna5, U as T,
///    and each ambiguity code its own code (dna_code_letters: B5 D6 H7 K8
///    M9 R10 S11 V12 W13 Y14).
///  - protein: seqan3::aa27 ranks (A=0 ... Z=25, '*'=26): every letter A-Z
///    (the 20 amino acids plus B J O U X Z) and '*'; lowercase is accepted.
///    `codes` does not apply.
int encode_char(Alphabet alphabet, char c, DnaCodes codes = DnaCodes::dna5) noexcept;

/// Encodes `letters` into `out[0, letters.size())` (host memory the caller
/// owns, at least letters.size() bytes), with encode_char's codes.
/// In SIMD (Google Highway, chosen at run time) over the letters; the first rejected one is looked
/// up only when there is one.
/// @return the 0-based index of the first character that encode_char
///         rejects, or std::nullopt when all are accepted (then `out` is
///         complete; otherwise its contents are unspecified).
std::optional<std::size_t> encode_sequence(Alphabet alphabet, std::string_view letters, std::uint8_t* out,
                                           DnaCodes codes = DnaCodes::dna5) noexcept;

/// Encodes `letters` into `codes` (resized to letters.size()).
/// @return the 0-based index of the first character that encode_char
///         rejects, or std::nullopt when all are accepted (then `codes` is
///         complete; otherwise its contents are unspecified).
std::optional<std::size_t> encode_sequence(Alphabet alphabet, std::string_view letters,
                                           std::vector<std::uint8_t>& codes, DnaCodes dna_codes = DnaCodes::dna5);

/// The alphabet that sequences look like, for `--alphabet auto`.
///
/// Rule: DNA when every letter (case-insensitive) is a nucleotide letter
/// (A C G T U N or an IUPAC code R Y K M S W B D H V: IUPAC codes count as
/// DNA evidence) and A C G T U N make up at least half of the letters;
/// protein otherwise, and whenever a '*' occurs. Real proteins almost always
/// hold a letter outside that set (E F I L P Q); the half clause keeps the
/// rare short protein made only of such letters (A C D G H K M N R S T V W
/// Y, about 40% A C G T N by amino-acid frequencies) from reading as DNA,
/// while DNA with IUPAC codes (`ACGTRYKMACGTACGT`, 75%) reads as DNA.
/// Characters that neither alphabet accepts ('-', '.', ...) are ignored
/// here, so that encoding later reports them with their position. No
/// letters at all => dna.
Alphabet guess_alphabet(std::span<const std::string_view> sequences) noexcept;

/// Streaming reader of one FASTA or FASTQ file, plain or gzip.
///
/// Reads one record at a time: memory is bounded by the largest record (and,
/// while the alphabet is being detected, by the few records peeked), not by
/// the file size. Single pass; works on stdin and pipes (nothing is rewound).
///
/// The format is decided from the content, not the file name: after a
/// UTF-8 byte order mark (EF BB BF, skipped) and leading whitespace, '>'
/// means FASTA and '@' FASTQ (a gzip stream is recognised by its magic bytes
/// 1f 8b and decompressed first). This reads a mis-named file correctly and
/// serves stdin and unknown extensions alike.
///
/// Line endings: LF, CRLF (Windows) and a lone CR (classic Mac OS) are all
/// read as line ends, so the three give the same records.
///
/// Not thread-safe; move-only.
class SequenceReader {
public:
    /// Number of records, or letters, that alphabet() peeks at most before
    /// deciding (whichever limit is reached first).
    static constexpr std::size_t detect_max_records = 16;
    static constexpr std::size_t detect_max_letters = 100'000;

    /// Opens `path` ("-" = stdin) and checks that it starts like FASTA or FASTQ.
    /// @param choice  the alphabet to encode with; automatic decides from the
    ///                content on the first call of alphabet() or next().
    /// An input with no records (empty, or only whitespace) is valid:
    /// empty() is then true and next() returns false.
    /// @throws InputError (file named): missing, unreadable, a directory,
    ///         corrupt or truncated compressed data, or text that does not
    ///         start with '>' or '@'.
    explicit SequenceReader(std::string path, AlphabetChoice choice = AlphabetChoice::automatic);
    ~SequenceReader();
    SequenceReader(SequenceReader&&) noexcept;
    SequenceReader& operator=(SequenceReader&&) noexcept;
    SequenceReader(const SequenceReader&) = delete;
    SequenceReader& operator=(const SequenceReader&) = delete;

    /// A reader over an in-memory piece of a larger FASTA/FASTQ file: whole
    /// records cut at record starts (ParallelSequenceReader's blocks), parsed
    /// by the same parser as a file reader parses them in place, so records
    /// and error messages are the same as reading the whole file.
    /// @param text           the bytes, line ends already LF, starting at a
    ///                       record start ('>' or '@'); borrowed: it must
    ///                       outlive the reader. Not validated here.
    /// @param path           the file's path, for error messages only.
    /// @param first_number   the 1-based number of the first record of `text`
    ///                       in its file (records and messages count from it).
    /// @param failure        when not empty, a read error that followed `text`
    ///                       in the file (e.g. a truncated gzip stream): the
    ///                       parser meets it where it needs more bytes than
    ///                       `text` holds, as a file reader meets it there.
    /// records_read() counts the records of `text` only. Does not throw
    /// (std::bad_alloc aside); next() throws as for a file.
    static SequenceReader from_text(std::string_view text, std::string path, SequenceFormat format,
                                    Alphabet alphabet, std::uint64_t first_number, std::string failure = {});

    /// Reads the next record into `out` (its buffers are reused).
    /// @return false at the end of the file (then `out` is unchanged).
    /// @throws InputError naming the file, the record number and name (when
    ///         known) and, for a bad character, its 1-based position as
    ///         written (counting every character of the sequence's lines but
    ///         the line ends): a character outside the alphabet (a digit
    ///         included), an empty name, a FASTQ record that is cut short, has
    ///         no '+' line, a '+' line naming another record, or qualities
    ///         shorter or longer than the sequence, a header line with no
    ///         line end, or a truncated or corrupt compressed stream (the
    ///         rules: detail::TextRecordParser). After a throw the reader is
    ///         unusable.
    bool next(SequenceRecord& out);

    /// Reads the next record and appends it to `block`: the same record and
    /// the same errors as next() followed by RecordBlock::append, without
    /// the copy in between (FASTA: letters and codes go straight from
    /// the parsed record into the block; FASTQ takes the next() path).
    /// @return false at the end of the file (then `block` is unchanged).
    /// @throws as next(); the failing record is not appended.
    bool next_into(RecordBlock& block);

    /// The alphabet used to encode. With AlphabetChoice::automatic, the first
    /// call peeks up to detect_max_records records (buffered, handed out by
    /// next() afterwards) and applies guess_alphabet to them.
    /// @throws InputError as next() while peeking.
    Alphabet alphabet();

    /// Encodes DNA records with `codes` (DnaCodes::dna5 until called): the
    /// scheme's ScoringScheme::dna_codes, set once it is known, before the
    /// first next(). Protein records are unaffected.
    /// @throws std::logic_error when records were already handed out in
    ///         another coding.
    void set_dna_codes(DnaCodes codes);

    SequenceFormat format() const noexcept;
    /// True when the input was gzip (or BGZF) compressed.
    bool compressed() const noexcept;
    /// The path as given ("-" for stdin).
    const std::string& path() const noexcept;
    /// Records handed out by next() so far.
    std::uint64_t records_read() const noexcept;
    /// True when the input holds no records at all (nothing, or only
    /// whitespace, after decompression).
    bool empty() const noexcept;

private:
    SequenceReader();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpualign
