// Substitution matrices: SeqAn3 built-ins and NCBI-format files.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "io/expect_input_error.hpp"
#include <seqan3/alignment/scoring/aminoacid_scoring_scheme.hpp>
#include <seqan3/alphabet/aminoacid/aa27.hpp>

#include "gpualign/io/matrix.hpp"
#include "gpualign/io/sequence_io.hpp"

namespace gpualign {
namespace {

const std::string data_dir = std::string(GPUALIGN_TEST_DATA) + "/io/";

int aa(char c) { return static_cast<int>(seqan3::aa27{}.assign_char(c).to_rank()); }
int nt(char c) { return static_cast<int>(dna_code_letters.find(c)); }  // both DnaCodes

/// Writes `text` to a fresh temporary file; removed by the destructor.
struct TempMatrix {
    std::string path;
    explicit TempMatrix(const std::string& text, const std::string& tag = "m") {
        static int counter = 0;
        path = (std::filesystem::temp_directory_path() /
                ("gpualign_matrix_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".mat"))
                   .string();
        std::ofstream(path) << text;
    }
    ~TempMatrix() { std::filesystem::remove(path); }
};

using test::expect_input_error;

/// BLOSUM62 written out in NCBI layout (24 letters), from SeqAn3's values.
std::string ncbi_text_from_builtin(const std::string& letters) {
    const seqan3::aminoacid_scoring_scheme<std::int8_t> b62{seqan3::aminoacid_similarity_matrix::blosum62};
    std::ostringstream out;
    out << "#  Matrix made by matblas from blosum62.iij\n#  comment line\n\n  ";
    for (char c : letters) out << "  " << c;
    out << '\n';
    for (char r : letters) {
        out << r;
        for (char c : letters)
            out << ' ' << static_cast<int>(b62.score(seqan3::aa27{}.assign_char(r), seqan3::aa27{}.assign_char(c)));
        out << '\n';
    }
    return out.str();
}

TEST(Matrix, BuiltinNames) {
    EXPECT_EQ(builtin_matrix_names(), (std::vector<std::string>{"BLOSUM30", "BLOSUM45", "BLOSUM62", "BLOSUM80"}));
    EXPECT_TRUE(is_builtin_matrix("blosum62"));
    EXPECT_TRUE(is_builtin_matrix("Blosum45"));
    EXPECT_FALSE(is_builtin_matrix("BLOSUM50"));
    EXPECT_FALSE(is_builtin_matrix("PAM250"));
}

TEST(Matrix, Blosum62KnownValues) {
    const ScoringScheme s = make_protein_scheme("blosum62", 11, 1);
    EXPECT_EQ(s.alphabet, Alphabet::protein);
    EXPECT_EQ(s.size, 27);
    EXPECT_EQ(s.matrix_name, "BLOSUM62");
    EXPECT_EQ(s.gap_open, 11);
    EXPECT_EQ(s.gap_extend, 1);
    EXPECT_EQ(s.score(aa('A'), aa('A')), 4);
    EXPECT_EQ(s.score(aa('W'), aa('W')), 11);
    EXPECT_EQ(s.score(aa('C'), aa('C')), 9);
    EXPECT_EQ(s.score(aa('W'), aa('F')), 1);
    EXPECT_EQ(s.score(aa('A'), aa('W')), -3);
    EXPECT_EQ(s.score(aa('E'), aa('Z')), 4);
    EXPECT_EQ(s.score(aa('*'), aa('*')), 1);
    EXPECT_EQ(s.score(aa('A'), aa('*')), -4);
}

TEST(Matrix, EachBuiltinDiffers) {
    const auto b30 = make_protein_scheme("BLOSUM30", 11, 1), b45 = make_protein_scheme("BLOSUM45", 11, 1),
               b80 = make_protein_scheme("BLOSUM80", 11, 1), b62 = make_protein_scheme("BLOSUM62", 11, 1);
    EXPECT_NE(b30.matrix, b62.matrix);
    EXPECT_NE(b45.matrix, b62.matrix);
    EXPECT_NE(b80.matrix, b62.matrix);
    EXPECT_EQ(b80.score(aa('W'), aa('W')), 16);
    EXPECT_EQ(b45.score(aa('W'), aa('W')), 15);
}

TEST(Matrix, BuiltinWithDnaIsInvalidArgument) {
    EXPECT_THROW(make_matrix_scheme("BLOSUM62", Alphabet::dna, 5, 2), std::invalid_argument);
}

TEST(Matrix, BadGapPenaltiesAreInvalidArgument) {
    EXPECT_THROW(make_protein_scheme("BLOSUM62", -1, 1), std::invalid_argument);
}

TEST(Matrix, NcbiFileMatchesBuiltinAndFillsJOUFromX) {
    const std::string letters = "ARNDCQEGHILKMFPSTWYVBZX*";
    TempMatrix file(ncbi_text_from_builtin(letters), "b62");
    const ScoringScheme f = make_protein_scheme(file.path, 11, 1);
    const ScoringScheme b = make_protein_scheme("BLOSUM62", 11, 1);
    EXPECT_EQ(f.matrix_name, file.path);
    for (char q : letters)
        for (char r : letters) EXPECT_EQ(f.score(aa(q), aa(r)), b.score(aa(q), aa(r))) << q << r;
    for (char missing : std::string("JOU")) {
        for (char r : letters) {
            EXPECT_EQ(f.score(aa(missing), aa(r)), b.score(aa('X'), aa(r))) << missing << r;
            EXPECT_EQ(f.score(aa(r), aa(missing)), b.score(aa(r), aa('X'))) << r << missing;
        }
        EXPECT_EQ(f.score(aa(missing), aa(missing)), b.score(aa('X'), aa('X')));
    }
}

TEST(Matrix, NucleotideFileForDna) {
    const ScoringScheme s = make_matrix_scheme(data_dir + "nuc44_layout.mat", Alphabet::dna, 10, 1);
    EXPECT_EQ(s.alphabet, Alphabet::dna);
    EXPECT_EQ(s.dna_codes, DnaCodes::iupac);  // it has IUPAC rows
    EXPECT_EQ(s.size, 15);
    EXPECT_EQ(s.score(nt('A'), nt('A')), 5);
    EXPECT_EQ(s.score(nt('A'), nt('T')), -4);
    EXPECT_EQ(s.score(nt('G'), nt('C')), -4);
    EXPECT_EQ(s.score(nt('T'), nt('T')), 5);
    EXPECT_EQ(s.score(nt('A'), nt('N')), -2);
    EXPECT_EQ(s.score(nt('N'), nt('N')), -1);
}

TEST(Matrix, DnaFileWithoutNLeavesNUndefined) {
    TempMatrix file("  A C G T\nA 1 -1 -1 -1\nC -1 1 -1 -1\nG -1 -1 1 -1\nT -1 -1 -1 1\n");
    const ScoringScheme s = make_matrix_scheme(file.path, Alphabet::dna, 5, 2);
    EXPECT_EQ(s.dna_codes, DnaCodes::dna5);
    EXPECT_EQ(s.size, 5);
    EXPECT_EQ(s.undefined_codes, std::uint64_t{1} << nt('N'));
    EXPECT_EQ(s.score(nt('A'), nt('A')), 1);
    EXPECT_EQ(s.score(nt('N'), nt('A')), -1);  // the matrix's smallest value: no bound changes
}

TEST(Matrix, DnaFileWithUForT) {
    TempMatrix file("  A C G U N\nA 2 -1 -1 -1 0\nC -1 2 -1 -1 0\nG -1 -1 2 -1 0\nU -1 -1 -1 3 0\nN 0 0 0 0 0\n");
    const ScoringScheme s = make_matrix_scheme(file.path, Alphabet::dna, 5, 2);
    EXPECT_EQ(s.dna_codes, DnaCodes::dna5);
    EXPECT_EQ(s.score(nt('T'), nt('T')), 3);
    EXPECT_EQ(s.score(nt('T'), nt('A')), -1);
}

// Issue 14, trial bug 1: a nucleotide matrix file with IUPAC rows keeps
// them. EMBOSS's EDNAFULL (tests/data/io/ednafull.mat): every letter of our
// 15 DNA codes scores its own row and column of the file (U, a copy of T
// there, is not needed: T has its own row), so R against A is +1, not N's -2.
TEST(Matrix, EdnafullKeepsItsIupacRows) {
    const std::string path = data_dir + "ednafull.mat";
    const ScoringScheme s = make_matrix_scheme(path, Alphabet::dna, 10, 1);
    EXPECT_EQ(s.dna_codes, DnaCodes::iupac);
    EXPECT_EQ(s.size, 15);
    EXPECT_EQ(s.undefined_codes, 0u);
    EXPECT_EQ(s.score(nt('R'), nt('A')), 1);
    EXPECT_EQ(s.score(nt('R'), nt('G')), 1);
    EXPECT_EQ(s.score(nt('N'), nt('A')), -2);
    EXPECT_EQ(s.score(nt('R'), nt('R')), -1);
    EXPECT_EQ(s.score(nt('Y'), nt('R')), -4);
    // The whole file, read here independently, entry by entry.
    std::ifstream in(path);
    std::string line, header;
    std::vector<std::pair<char, std::vector<int>>> rows;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        if (header.empty()) {
            for (std::string w; words >> w;) header += w;
            continue;
        }
        char letter = 0;
        words >> letter;
        std::vector<int> values;
        for (int v = 0; words >> v;) values.push_back(v);
        rows.emplace_back(letter, values);
    }
    ASSERT_EQ(header, "ATGCSWRYKMBVHDNU");
    int checked = 0;
    for (const auto& [q, values] : rows)
        for (std::size_t k = 0; k < header.size(); ++k)
            if (q != 'U' && header[k] != 'U') {
                EXPECT_EQ(s.score(nt(q), nt(header[k])), values[k]) << q << header[k];
                ++checked;
            }
    EXPECT_EQ(checked, 15 * 15);
}

// An IUPAC file that lacks some of the letters: a missing one takes the N
// row; without an N row it is undefined, and only a sequence that uses it
// is an error (file, record, position, letter).
TEST(Matrix, IupacFileMissingLettersTakeNOrAreUndefined) {
    TempMatrix with_n("  A C G T R N\nA 2 -1 -1 -1 1 0\nC -1 2 -1 -1 -1 0\nG -1 -1 2 -1 1 0\n"
                      "T -1 -1 -1 2 -1 0\nR 1 -1 1 -1 1 0\nN 0 0 0 0 0 -3\n");
    const ScoringScheme n = make_matrix_scheme(with_n.path, Alphabet::dna, 5, 2);
    EXPECT_EQ(n.dna_codes, DnaCodes::iupac);
    EXPECT_EQ(n.undefined_codes, 0u);
    EXPECT_EQ(n.score(nt('R'), nt('G')), 1);
    EXPECT_EQ(n.score(nt('Y'), nt('A')), 0);   // Y has no row: N's
    EXPECT_EQ(n.score(nt('Y'), nt('Y')), -3);

    TempMatrix without_n("  A C G T R\nA 2 -1 -1 -1 1\nC -1 2 -1 -1 -1\nG -1 -1 2 -1 1\n"
                         "T -1 -1 -1 2 -1\nR 1 -1 1 -1 1\n");
    const ScoringScheme s = make_matrix_scheme(without_n.path, Alphabet::dna, 5, 2);
    EXPECT_EQ(s.dna_codes, DnaCodes::iupac);
    std::uint64_t want = 0;
    for (char c : std::string("NBDHKMSVWY")) want |= std::uint64_t{1} << nt(c);
    EXPECT_EQ(s.undefined_codes, want);
    EXPECT_EQ(s.score(nt('R'), nt('A')), 1);

    std::vector<std::uint8_t> ok_codes, bad_codes;
    EXPECT_EQ(encode_sequence(Alphabet::dna, "ACGTRRu", ok_codes, DnaCodes::iupac), std::nullopt);
    EXPECT_EQ(encode_sequence(Alphabet::dna, "ACGTRyA", bad_codes, DnaCodes::iupac), std::nullopt);
    RecordView ok{"ok", "", "ACGTRRu", "", ok_codes, 2};
    RecordView bad{"r9", "", "ACGTRyA", "", bad_codes, 9};
    EXPECT_NO_THROW(check_letters(s, ok, "q.fa"));
    EXPECT_NO_THROW(check_letters(n, bad, "q.fa"));
    expect_input_error([&] { check_letters(s, bad, "q.fa"); },
                       {"q.fa: record 9 'r9': letter 'y' at position 6 is not in matrix " + without_n.path});
}

TEST(Matrix, ProteinFileLowercaseAndRowOrder) {
    // rows in a different order than the header; lowercase letters.
    TempMatrix file("# tiny\n   a  c  x\nx -1 -2 -1\na  4  0 -1\nc  0  9 -2\n");
    const ScoringScheme s = make_protein_scheme(file.path, 11, 1);
    EXPECT_EQ(s.score(aa('A'), aa('A')), 4);
    EXPECT_EQ(s.score(aa('C'), aa('C')), 9);
    EXPECT_EQ(s.score(aa('X'), aa('C')), -2);
    EXPECT_EQ(s.score(aa('W'), aa('C')), -2);  // W missing -> X row
    EXPECT_EQ(s.score(aa('A'), aa('W')), -1);  // W missing -> X column
}

// ---- errors ----------------------------------------------------------------

TEST(Matrix, ErrorMissingFile) {
    const std::string path = data_dir + "no_such.mat";
    expect_input_error([&] { make_protein_scheme(path, 11, 1); }, {path, "no such matrix file", "BLOSUM62"});
}

TEST(Matrix, ErrorDirectory) {
    expect_input_error([&] { make_protein_scheme(data_dir, 11, 1); }, {data_dir, "directory"});
}

TEST(Matrix, ErrorEmpty) {
    TempMatrix empty("");
    expect_input_error([&] { make_protein_scheme(empty.path, 11, 1); }, {empty.path, "empty matrix file"});
    TempMatrix comments("# only\n# comments\n\n");
    expect_input_error([&] { make_protein_scheme(comments.path, 11, 1); }, {comments.path + ":3:", "empty matrix file"});
}

TEST(Matrix, ErrorNonSquareRow) {
    const std::string path = data_dir + "nonsquare.mat";
    expect_input_error([&] { make_matrix_scheme(path, Alphabet::protein, 11, 1); },
                       {path + ":4:", "not square", "row 'C' has 3 values"});
}

TEST(Matrix, ErrorMissingRow) {
    TempMatrix file("  A C X\nA 1 0 0\nX 0 0 0\n");
    expect_input_error([&] { make_protein_scheme(file.path, 11, 1); }, {file.path + ":3:", "not square", "'C'"});
}

TEST(Matrix, ErrorNonInteger) {
    TempMatrix file("  A X\nA 1 0\nX 0.5 -1\n");
    expect_input_error([&] { make_protein_scheme(file.path, 11, 1); },
                       {file.path + ":3:", "'0.5'", "not an integer", "row 'X', column 'A'"});
    TempMatrix word("  A X\nA 1 zero\nX 0 -1\n");
    expect_input_error([&] { make_protein_scheme(word.path, 11, 1); }, {word.path + ":2:", "'zero'"});
}

TEST(Matrix, ErrorOutOfRange) {
    TempMatrix file("  A X\nA 1 0\nX 0 99999999\n");
    expect_input_error([&] { make_protein_scheme(file.path, 11, 1); }, {file.path + ":3:", "out of range"});
}

TEST(Matrix, ErrorUnknownLetter) {
    TempMatrix dash("  A - X\nA 1 0 0\n- 0 0 0\nX 0 0 0\n");
    expect_input_error([&] { make_protein_scheme(dash.path, 11, 1); }, {dash.path + ":1:", "unknown letter '-'"});
    TempMatrix multi("  A XY\nA 1 0\nXY 0 0\n");
    expect_input_error([&] { make_protein_scheme(multi.path, 11, 1); }, {multi.path + ":1:", "'XY'", "single letter"});
    // A protein matrix read for DNA: E is not a nucleotide letter.
    TempMatrix protein("  A E N\nA 1 0 0\nE 0 1 0\nN 0 0 1\n");
    expect_input_error([&] { make_matrix_scheme(protein.path, Alphabet::dna, 5, 2); },
                       {protein.path + ":1:", "unknown letter 'E'", "dna"});
    TempMatrix row("  A X\nA 1 0\nC 0 1\n");
    expect_input_error([&] { make_protein_scheme(row.path, 11, 1); }, {row.path + ":3:", "'C' is not in the header"});
}

TEST(Matrix, ErrorDuplicateLetters) {
    TempMatrix header("  A X a\nA 1 0 0\nX 0 0 0\n");
    expect_input_error([&] { make_protein_scheme(header.path, 11, 1); }, {header.path + ":1:", "duplicate letter 'A'"});
    TempMatrix rows("  A X\nA 1 0\nA 1 0\n");
    expect_input_error([&] { make_protein_scheme(rows.path, 11, 1); }, {rows.path + ":3:", "duplicate row 'A'"});
}

// Issue 14, trial bug 2: a 20 x 20 protein matrix file (no B, Z, X) is
// accepted; its 20 letters score as the full matrix's, and only a sequence
// that holds a letter the file lacks is an error, naming file, record and
// position.
TEST(Matrix, TwentyByTwentyFileLeavesOtherLettersUndefined) {
    const std::string twenty = "ARNDCQEGHILKMFPSTWYV";
    TempMatrix file(ncbi_text_from_builtin(twenty), "b62core");
    const ScoringScheme f = make_protein_scheme(file.path, 11, 1);
    const ScoringScheme b = make_protein_scheme("BLOSUM62", 11, 1);
    for (char q : twenty)
        for (char r : twenty) EXPECT_EQ(f.score(aa(q), aa(r)), b.score(aa(q), aa(r))) << q << r;
    std::uint64_t want = 0;
    for (char c : std::string("BJOUXZ*")) want |= std::uint64_t{1} << aa(c);
    EXPECT_EQ(f.undefined_codes, want);
    EXPECT_EQ(b.undefined_codes, 0u);

    std::vector<std::uint8_t> ok_codes, bad_codes;
    for (char c : std::string("MKVLA")) ok_codes.push_back(static_cast<std::uint8_t>(aa(c)));
    for (char c : std::string("MKBLA")) bad_codes.push_back(static_cast<std::uint8_t>(aa(c)));
    RecordView ok{"ok", "", "MKVLA", "", ok_codes, 3};
    RecordView bad{"seq7", "", "MKbLA", "", bad_codes, 7};
    EXPECT_NO_THROW(check_letters(f, ok, "db.fa"));
    EXPECT_NO_THROW(check_letters(b, bad, "db.fa"));  // BLOSUM62 has B
    expect_input_error([&] { check_letters(f, bad, "db.fa"); },
                       {"db.fa: record 7 'seq7': letter 'b' at position 3 is not in matrix " + file.path});
}

TEST(Matrix, MissingLetterWithoutXIsUndefined) {
    TempMatrix file("  A C\nA 1 0\nC 0 1\n");
    const ScoringScheme s = make_protein_scheme(file.path, 11, 1);
    EXPECT_EQ(s.undefined_codes & (std::uint64_t{1} << aa('A')), 0u);
    EXPECT_NE(s.undefined_codes & (std::uint64_t{1} << aa('B')), 0u);
    EXPECT_EQ(s.score(aa('A'), aa('A')), 1);
}

}  // namespace
}  // namespace gpualign
