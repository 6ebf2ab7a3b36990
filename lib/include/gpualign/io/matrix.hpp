// gpualign — substitution matrices: SeqAn3's built-in BLOSUM matrices and
// matrix files in the NCBI text format.
//
// The NCBI format (as read by BLAST and EMBOSS; e.g. ftp.ncbi.nih.gov
// /blast/matrices/BLOSUM62, NUC.4.4): lines whose first non-blank character
// is '#' are comments, blank lines are skipped, the first other line is a
// header of single letters (the columns), and every further line is a row:
// its letter, then one integer per column. Rows may come in any order.
// Row = query letter, column = ref letter, as in ScoringScheme::matrix.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "gpualign/io/io_error.hpp"
#include "gpualign/io/record_block.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// Names of the matrices built into SeqAn3, accepted by make_protein_scheme:
/// {"BLOSUM30", "BLOSUM45", "BLOSUM62", "BLOSUM80"}.
std::vector<std::string> builtin_matrix_names();

/// True when `name` is one of builtin_matrix_names(), compared case-insensitively.
bool is_builtin_matrix(std::string_view name) noexcept;

/// A protein scheme (27 x 27, seqan3::aa27 ranks) from a built-in name or a
/// matrix file; same as make_matrix_scheme(name_or_path, Alphabet::protein, ...).
ScoringScheme make_protein_scheme(const std::string& name_or_path, std::int32_t gap_open, std::int32_t gap_extend);

/// A scheme for `alphabet` from a built-in name or an NCBI-format file.
///
/// A built-in name (case-insensitive; it wins over a file of the same name)
/// takes its values from seqan3::aminoacid_scoring_scheme over aa27 ranks,
/// so B, J, O, U, X, Z and '*' have SeqAn3's values; matrix_name is the
/// upper-case name. Anything else is read as a file (see parse_matrix);
/// matrix_name is the path.
///
/// @param gap_open, gap_extend  positive penalties, see ScoringScheme.
/// @throws InputError   bad or unreadable matrix file (file and line named).
/// @throws std::invalid_argument  a built-in (protein) name with
///         Alphabet::dna, or penalties/scores that ScoringScheme::validate
///         rejects.
ScoringScheme make_matrix_scheme(const std::string& name_or_path, Alphabet alphabet, std::int32_t gap_open,
                                 std::int32_t gap_extend);

/// Reads an NCBI-format matrix from `in`; `source` names it in messages
/// (normally the path). Letters are case-insensitive.
///
/// Mapping onto the alphabet's codes:
///  - protein: each letter A-Z and '*' goes to its seqan3::aa27 rank;
///  - dna: A C G T N go to their seqan3::dna5 ranks; U stands in for a
///    missing T. When the header has any IUPAC ambiguity letter (B D H K M
///    R S V W Y), the scheme uses DnaCodes::iupac (15 codes, size 15) and
///    each of those letters is scored from its own row and column, as
///    EMBOSS does with EDNAFULL; sequences must then be encoded with
///    DnaCodes::iupac (SequenceReader::set_dna_codes). Without one, the
///    scheme uses DnaCodes::dna5 (size 5): gpualign reads the ambiguity
///    letters as N, so the file's N row and column score them.
/// A letter of the alphabet that the file lacks takes the file's 'X'
/// (protein) or 'N' (dna) row and column; without those it is undefined
/// (ScoringScheme::undefined_codes), and only a sequence that uses it is an
/// error (check_letters): a 20 x 20 protein matrix without B, Z and X aligns
/// every sequence of the 20 amino acids.
///
/// @throws InputError naming `source` and the 1-based line: no header (empty
///         file or only comments), a header token that is not one letter, a
///         letter that cannot be mapped (e.g. '-' or, for dna, a protein-only
///         letter such as 'E'), a duplicate letter in the header or among
///         the row labels, a row label missing from the header, a row whose
///         number of values differs from the header's, fewer rows than
///         columns (non-square), or an entry that is not a 32-bit integer.
/// @throws std::invalid_argument  values that ScoringScheme::validate rejects.
ScoringScheme parse_matrix(std::istream& in, const std::string& source, Alphabet alphabet, std::int32_t gap_open,
                           std::int32_t gap_extend);

/// Checks that every letter of `record` (host memory, borrowed) has a row
/// in the matrix of `s` (see ScoringScheme::undefined_codes); `file` names
/// the record's file in the message. Costs one pass over the codes, and
/// nothing when s.undefined_codes is 0.
/// @throws InputError "FILE: record N 'NAME': letter 'B' at position P
///         (1-based) is not in matrix M", for the first such letter.
void check_letters(const ScoringScheme& s, const RecordView& record, const std::string& file);

}  // namespace gpualign
