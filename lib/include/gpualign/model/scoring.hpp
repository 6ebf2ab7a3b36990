// gpualign — the scoring model shared by every backend.
//
// This header is plain C++20 with no SeqAn3, so that gpu/ (compiled by nvcc)
// can include it. It defines the alignment modes, the residue alphabets and
// the affine gap scoring scheme. docs/scoring.md states the recurrences and
// the canonical tie rule in full.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpualign {

/// Alignment mode (recurrences, boundaries and tie rule: docs/scoring.md).
///  - local:  Smith-Waterman (1981) with Gotoh's (1982) affine gaps.
///  - global: Needleman-Wunsch (1970) with Gotoh's (1982) affine gaps.
///  - semi_global: the query end to end, the ref's leading and trailing gaps
///    free (a "fitting" alignment of a read in a window; parasail's sg_dx,
///    GASAL2's semi-global with free target ends), with Gotoh's gaps.
enum class AlignMode : std::uint8_t { local, global, semi_global };

/// Residue alphabet of an encoded sequence.
///  - dna:     nucleotides, coded as DnaCodes says (5 codes by default).
///  - protein: 27 letters, codes follow seqan3::aa27 ranks (A..Z without the
///             gaps of seqan3's ordering, then '*'); 20 amino acids plus
///             B J O U X Z *.
enum class Alphabet : std::uint8_t { dna, protein };

/// How DNA letters are coded (lowercase is accepted in both; U reads as T).
///  - dna5:  5 codes, seqan3::dna5 ranks A=0 C=1 G=2 N=3 T=4; the IUPAC
///           ambiguity letters B D H K M R S V W Y read as N. The default,
///           and the coding of every built-in scheme.
///  - iupac: 15 codes: the 5 of dna5 with the same values, then B=5 D=6
///           H=7 K=8 M=9 R=10 S=11 V=12 W=13 Y=14 (dna_code_letters).
///           Used by a nucleotide matrix file that has a row for an IUPAC
///           ambiguity letter, so that the file's rows score them.
/// Protein ignores it.
enum class DnaCodes : std::uint8_t { dna5, iupac };

/// The letter of each DNA code, in code order: code c is
/// dna_code_letters[c]. DnaCodes::dna5 uses the first 5, DnaCodes::iupac all 15.
inline constexpr std::string_view dna_code_letters = "ACGNTBDHKMRSVWY";

/// The DNA code of N (in both DnaCodes).
inline constexpr std::uint8_t dna_n_code = 3;

/// The complement of each DNA code, for the reverse strand: the code of
/// the complementary letter, dna_complement[c]. A<->T, C<->G, N->N, and for
/// the IUPAC codes B<->V, D<->H, K<->M, R<->Y, S->S, W->W (the complement
/// of the set of bases a letter stands for). It maps the 5 dna5 codes onto
/// themselves, so one table serves both DnaCodes; indices 0..14 only.
inline constexpr std::array<std::uint8_t, 15> dna_complement{4, 2, 1, 3, 0, 12, 7, 6, 9, 8, 14, 11, 5, 13, 10};

/// Number of codes in an alphabet: 27 for protein; for dna 5 (DnaCodes::dna5)
/// or 15 (DnaCodes::iupac).
int alphabet_size(Alphabet a, DnaCodes codes = DnaCodes::dna5) noexcept;

/// Printable name ("dna" or "protein").
const char* to_string(Alphabet a) noexcept;
/// Printable name ("local", "global" or "semi-global").
const char* to_string(AlignMode m) noexcept;

/// A substitution matrix plus affine gap penalties.
///
/// Units: scores are integers. Penalties are stored as positive numbers and
/// subtracted: a gap of length L >= 1 costs `gap_open + L * gap_extend`
/// (the BLAST / SeqAn3 convention; parasail charges `open + (L-1)*extend`).
/// `gap_open == 0` gives linear gaps.
///
/// `matrix` is row-major, `size * size` entries, row = query code,
/// column = ref code. Owned by value, host memory.
struct ScoringScheme {
    Alphabet alphabet = Alphabet::dna;
    /// The DNA coding the sequences must be encoded with (SequenceReader::
    /// set_dna_codes): iupac only for a nucleotide matrix file with IUPAC rows.
    DnaCodes dna_codes = DnaCodes::dna5;
    int size = 5;                       ///< alphabet_size(alphabet, dna_codes)
    std::vector<std::int32_t> matrix;   ///< size*size substitution scores
    std::int32_t gap_open = 5;          ///< positive penalty for opening a gap
    std::int32_t gap_extend = 2;        ///< positive penalty per gap position
    std::string matrix_name;            ///< e.g. "BLOSUM62", a file path, or "match/mismatch"
    /// Bit c set: code c has no row in the matrix file it came from (and no
    /// X/N row to stand in), so a sequence that holds it cannot be scored
    /// (check_letters is the error). Its matrix entries hold the matrix's
    /// smallest score, so that they change no bound. 0 for built-in schemes.
    std::uint64_t undefined_codes = 0;

    /// Substitution score of query code q against ref code r (no bounds check).
    std::int32_t score(std::uint8_t q, std::uint8_t r) const noexcept {
        return matrix[static_cast<std::size_t>(q) * static_cast<std::size_t>(size) + r];
    }
    /// Largest absolute substitution score (used for overflow bounds).
    std::int32_t max_abs_score() const noexcept;

    /// Checks the invariants above. Throws std::invalid_argument naming the
    /// offending value: negative penalties, gap_extend == 0 with gap_open > 0
    /// is allowed, penalties or scores beyond +-1,000,000, or a matrix whose
    /// size does not match the alphabet and its DnaCodes.
    void validate() const;
};

/// Largest magnitude of a substitution score or gap penalty that
/// ScoringScheme::validate and AlignConfig::validate accept (1,000,000).
inline constexpr std::int32_t max_score_magnitude = 1'000'000;

/// DNA scheme (DnaCodes::dna5): `match` on equal bases (A,C,G,T), `-mismatch` otherwise.
/// N against anything (N included) scores `n_score`, by default `-mismatch`.
/// Inputs are positive numbers as typed on the command line (match >= 0,
/// mismatch >= 0). Throws std::invalid_argument on negative values.
ScoringScheme make_dna_scheme(std::int32_t match, std::int32_t mismatch,
                              std::int32_t gap_open, std::int32_t gap_extend,
                              std::int32_t n_score);

/// True when a pair of lengths (query_len x ref_len) can be scored in 32-bit
/// integers without overflow: the bound `(query_len + ref_len) *
/// (max_abs_score + gap_open + gap_extend)` must stay below 2^30.
bool fits_int32(const ScoringScheme& s, std::uint64_t query_len, std::uint64_t ref_len) noexcept;

}  // namespace gpualign
