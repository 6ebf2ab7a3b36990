// gpualign — the result of one pairwise alignment, shared by every backend.
// Plain C++20 (no SeqAn3) so that gpu/ can produce it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpualign/model/scoring.hpp"
#include "gpualign/model/strand.hpp"

namespace gpualign {

/// CIGAR operation codes, as in BAM (SAM spec 1.4.6): op = packed & 0xF,
/// length = packed >> 4.
enum class CigarOp : std::uint8_t { ins = 1, del = 2, eq = 7, diff = 8 };

/// Packs one CIGAR run (BAM convention: length << 4 | op).
constexpr std::uint32_t cigar_pack(CigarOp op, std::uint32_t len) noexcept {
    return (len << 4) | static_cast<std::uint32_t>(op);
}
constexpr CigarOp cigar_op(std::uint32_t packed) noexcept { return static_cast<CigarOp>(packed & 0xF); }
constexpr std::uint32_t cigar_len(std::uint32_t packed) noexcept { return packed >> 4; }
/// The SAM letter of an op: '=', 'X', 'I' or 'D' ('?' for a code that is not a CigarOp).
/// Inline and table-driven: the writers call it once per CIGAR run.
constexpr char cigar_char(CigarOp op) noexcept {
    constexpr std::string_view letters = "?ID????" "=X???????";  // indexed by the BAM op code (split: no "??=" trigraph warning)
    const auto code = static_cast<std::uint8_t>(op);
    return code < letters.size() ? letters[code] : '?';
}

/// One pairwise alignment.
///
/// Coordinates are 0-based, half-open: the aligned query region is
/// [query_begin, query_end) and the aligned ref region [ref_begin, ref_end).
/// A global alignment always spans [0, query_len) x [0, ref_len).
/// A local alignment whose best score is 0 is *unaligned*: all coordinates
/// are 0 and the CIGAR is empty.
///
/// `cigar` is run-length encoded and packed (cigar_pack); it reads from the
/// start of the alignment to its end, in the order query/ref are read. 'I'
/// consumes the query only (an insertion relative to the ref), 'D' consumes
/// the ref only. Empty in score-only mode. Owned by value, host memory.
///
/// `strand` says which strand of the query was aligned (strand.hpp). The
/// backends always align the sequences they are given and return
/// Strand::plus; `--strand both` marks the alignments it kept for the
/// reverse-complemented query Strand::minus. For a minus result the query
/// coordinates and the CIGAR refer to the reverse complement of the query
/// (the sequence that was aligned, read along the forward reference, as SAM
/// and PAF's cg:Z write it); the writers convert the query coordinates to
/// the forward strand where a format asks for them (forward_interval).
struct AlignmentResult {
    std::int32_t score = 0;
    std::int32_t query_begin = 0;
    std::int32_t query_end = 0;
    std::int32_t ref_begin = 0;
    std::int32_t ref_end = 0;
    bool has_cigar = false;               ///< false in score-only mode
    std::vector<std::uint32_t> cigar;     ///< packed runs; see cigar_pack
    Strand strand = Strand::plus;         ///< the query strand aligned (see above)

    bool operator==(const AlignmentResult&) const = default;
};

/// The codes that are written '=' against themselves (docs/scoring.md rule
/// 4), bit c for code c: every protein code; for DNA only A, C, G and T
/// (codes 0 1 2 4 in both DnaCodes), so that N and the IUPAC ambiguity
/// codes never match, not even themselves (an R may be A against G), and a
/// CIGAR does not depend on whether the scheme keeps IUPAC codes.
constexpr std::uint32_t identical_codes(Alphabet a) noexcept {
    return a == Alphabet::protein ? (std::uint32_t{1} << 27) - 1 : 0b10111u;
}

/// True when a diagonal column of codes (q, r) is written '=' rather than 'X':
/// the codes are equal and in identical_codes(a).
constexpr bool residues_identical(Alphabet a, std::uint8_t q, std::uint8_t r) noexcept {
    return q == r && q < 32 && (identical_codes(a) >> q & 1u) != 0;
}

/// Summary counts of a CIGAR, as reported in TSV/SAM.
struct CigarStats {
    std::uint64_t matches = 0;        ///< '=' columns
    std::uint64_t mismatches = 0;     ///< 'X' columns
    std::uint64_t inserted = 0;       ///< 'I' columns
    std::uint64_t deleted = 0;        ///< 'D' columns
    std::uint64_t gap_opens = 0;      ///< number of I and D runs
    std::uint64_t alignment_len() const noexcept { return matches + mismatches + inserted + deleted; }
    std::uint64_t edit_distance() const noexcept { return mismatches + inserted + deleted; }  ///< SAM NM
};
CigarStats cigar_stats(std::span<const std::uint32_t> cigar) noexcept;

/// The CIGAR as SAM text, e.g. "5=1X2I3=". Empty for an empty CIGAR.
std::string cigar_string(std::span<const std::uint32_t> cigar);

/// Re-scores `r.cigar` against the sequences (codes) under `s`, starting at
/// (query_begin, ref_begin). Throws std::logic_error if the CIGAR does not
/// cover exactly [query_begin, query_end) x [ref_begin, ref_end), if an '='
/// column holds different codes or an 'X' column equal ones, or if two runs
/// of the same op are adjacent. Returns the score.
std::int32_t rescore_cigar(const AlignmentResult& r, std::span<const std::uint8_t> query,
                           std::span<const std::uint8_t> ref, const ScoringScheme& s);

}  // namespace gpualign
