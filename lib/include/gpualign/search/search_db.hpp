// gpualign — a prebuilt search DB: `gpualign makedb DB.fa DB.gadb` parses and
// encodes a DB once; `gpualign search QUERIES DB.gadb` memory-maps it instead
// of reading FASTA on every run (as makeblastdb, mmseqs createdb and
// cudasw4 makedb serve their searches). The output is byte for byte the
// output of the FASTA DB.
//
// File layout (format version 1; integers little-endian, sections 8-byte
// aligned; host byte order must be little-endian):
//
//   offset 0   header (80 bytes)
//     magic      8 bytes  "\x89GADB\r\n\x1a" (a PNG-style magic: a text-mode
//                          transfer or a truncated first line shows)
//     version    u32      1
//     alphabet   u8       0 dna, 1 protein (Alphabet)
//     codes      u8       0: DNA codes are dna5 ranks (DnaCodes::dna5)
//     reserved   u16      0
//     records    u64      number of records (>= 1)
//     letters    u64      sum of the records' lengths
//     text_bytes u64      bytes of the names and descriptions section
//     entries_at u64      = 80
//     text_at    u64      = entries_at + 32 * records
//     letters_at u64      = text_at + text_bytes, rounded up to 8
//     codes_at   u64      = letters_at + letters, rounded up to 8
//     file_size  u64      = codes_at + letters
//   entries    records x 32 bytes, in DB (FASTA) order:
//     text  u64 (offset in the text section of the name; the description
//     follows it), name_len u32 (>= 1), description_len u32, sequence u64
//     (offset in the letters and codes sections; record k starts where
//     record k-1 ends), length u64 (>= 1)
//   text       names and descriptions, as read
//   letters    the letters as read (case kept)
//   codes      one code per letter, as encode_sequence gives them
//
// A DB file is validated whole when it is opened (header, every entry, every
// code below the alphabet's size), so a truncated, foreign or corrupt file
// is an InputError naming the file, never a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// The version of the DB file format this build writes and reads.
inline constexpr std::uint32_t search_db_version = 1;

/// What make_search_db wrote.
struct SearchDbSummary {
    Alphabet alphabet = Alphabet::dna;
    std::uint64_t records = 0;
    std::uint64_t letters = 0;
    std::uint64_t file_bytes = 0;
};

/// `gpualign makedb`: reads `fasta_path` (FASTA or FASTQ, plain or compressed, "-"
/// for stdin; as the search reads its DB, on `threads` parser threads),
/// encodes it in `choice` (automatic: detected as for a search) and writes
/// the DB file `db_path` (format above). The file appears only complete
/// (OutputFile: a temporary file renamed into place).
/// @throws InputError for bad input (the reader's messages: file, record,
///         position), an input with no records or a zero-length record (a
///         DB holds at least one record of at least one letter);
///         OutputError when `db_path` cannot be written.
SearchDbSummary make_search_db(const std::string& fasta_path, const std::string& db_path, AlphabetChoice choice,
                               int threads);

/// True when `path` is a regular file that starts with the DB magic bytes
/// (whatever its version or state: opening it reports those). False for
/// "-", for anything else and on any error. Never throws.
bool is_search_db(const std::string& path) noexcept;

/// A DB file, memory-mapped read-only and validated. One owner of the map;
/// the views it hands out borrow it (host memory) and must not outlive it.
/// Move-only; const members are thread-safe.
class SearchDb {
public:
    /// Maps and validates `path`.
    /// @throws InputError naming the file: missing or unreadable, not a DB
    ///         file, another format version, truncated, or corrupt (sizes or
    ///         offsets that disagree, an empty name or record, a code outside
    ///         the alphabet).
    explicit SearchDb(const std::string& path);
    ~SearchDb();
    SearchDb(SearchDb&&) noexcept;
    SearchDb& operator=(SearchDb&&) noexcept;
    SearchDb(const SearchDb&) = delete;
    SearchDb& operator=(const SearchDb&) = delete;

    Alphabet alphabet() const noexcept;
    std::uint64_t size() const noexcept;     ///< records
    std::uint64_t letters() const noexcept;  ///< sum of the records' lengths

    /// Views of every record in DB order (RecordView::number is 1-based),
    /// with DNA codes in `codes`: the stored dna5 codes themselves, or for
    /// DnaCodes::iupac codes encoded from the stored letters into memory
    /// this object owns (kept until it is destroyed; one coding at a time).
    /// Protein ignores `codes`. @throws std::bad_alloc.
    std::vector<RecordView> views(DnaCodes codes);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpualign
