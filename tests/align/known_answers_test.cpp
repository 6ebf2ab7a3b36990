// Hand-checked answers for the CPU reference aligner (docs/scoring.md).
// Notation in comments: H(i,j), E = gap in query ('D'), F = gap in ref ('I');
// O = go+ge opens a gap, E = ge extends it. DNA: match 2, mismatch -3, N -3.
#include <gtest/gtest.h>

#include "test_util.hpp"
#include "test_matrices.hpp"

namespace gpualign::test {
namespace {

struct Expected {
    std::int32_t score, query_begin, query_end, ref_begin, ref_end;
    std::string cigar;
};

// Aligns in full and score-only mode; both must give `e` (score-only without CIGAR).
void expect_answer(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode, const Expected& e) {
    const AlignmentResult full = align_pair(q, r, s, mode, false);
    const AlignmentResult fast = align_pair(q, r, s, mode, true);
    EXPECT_EQ(full.score, e.score);
    EXPECT_EQ(full.query_begin, e.query_begin);
    EXPECT_EQ(full.query_end, e.query_end);
    EXPECT_EQ(full.ref_begin, e.ref_begin);
    EXPECT_EQ(full.ref_end, e.ref_end);
    EXPECT_EQ(cigar_string(full.cigar), e.cigar);
    EXPECT_TRUE(full.has_cigar);
    // Score-only: same score and coordinates (begin included), no CIGAR.
    EXPECT_EQ(fast.score, e.score);
    EXPECT_EQ(fast.query_begin, e.query_begin);
    EXPECT_EQ(fast.query_end, e.query_end);
    EXPECT_EQ(fast.ref_begin, e.ref_begin);
    EXPECT_EQ(fast.ref_end, e.ref_end);
    EXPECT_FALSE(fast.has_cigar);
    EXPECT_TRUE(fast.cigar.empty());
    EXPECT_EQ(check_invariants(full, fast, q, r, s, mode), "");
}

constexpr auto local = AlignMode::local;
constexpr auto global = AlignMode::global;

// ---- empty and single-character sequences ------------------------------------------

TEST(KnownAnswers, GlobalEmptySideIsOneGap) {
    // One gap of length 3: -(go + 3*ge).
    expect_answer(dna(""), dna("ACG"), dna_scheme(5, 2), global, {-11, 0, 0, 0, 3, "3D"});
    expect_answer(dna("ACG"), dna(""), dna_scheme(5, 2), global, {-11, 0, 3, 0, 0, "3I"});
    expect_answer(dna("ACG"), dna(""), dna_scheme(0, 2), global, {-6, 0, 3, 0, 0, "3I"});
    expect_answer(protein(""), protein("WW"), blosum62_scheme(11, 1), global, {-13, 0, 0, 0, 2, "2D"});
    expect_answer(dna(""), dna(""), dna_scheme(5, 2), global, {0, 0, 0, 0, 0, ""});
}

TEST(KnownAnswers, LocalEmptySideIsUnaligned) {
    expect_answer(dna(""), dna("ACG"), dna_scheme(5, 2), local, {0, 0, 0, 0, 0, ""});
    expect_answer(dna("ACG"), dna(""), dna_scheme(0, 2), local, {0, 0, 0, 0, 0, ""});
    expect_answer(protein(""), protein(""), blosum62_scheme(11, 1), local, {0, 0, 0, 0, 0, ""});
}

// docs/scoring.md, zero-length sequences: an empty query is the empty
// alignment at (0,0) (the ref's gaps are free); an empty ref charges the
// query's gap, -(go + m*ge), CIGAR mI.
TEST(KnownAnswers, SemiGlobalEmptySides) {
    constexpr auto sg = AlignMode::semi_global;
    expect_answer(dna(""), dna("ACG"), dna_scheme(5, 2), sg, {0, 0, 0, 0, 0, ""});
    expect_answer(dna("ACG"), dna(""), dna_scheme(5, 2), sg, {-11, 0, 3, 0, 0, "3I"});
    expect_answer(protein("WW"), protein(""), blosum62_scheme(11, 1), sg, {-13, 0, 2, 0, 0, "2I"});
    expect_answer(dna(""), dna(""), dna_scheme(5, 2), sg, {0, 0, 0, 0, 0, ""});
}

TEST(KnownAnswers, SingleCharacters) {
    const auto s = dna_scheme(5, 2);
    expect_answer(dna("A"), dna("A"), s, global, {2, 0, 1, 0, 1, "1="});
    expect_answer(dna("A"), dna("A"), s, local, {2, 0, 1, 0, 1, "1="});
    // A/C: mismatch -3 beats 1I+1D = -14.
    expect_answer(dna("A"), dna("C"), s, global, {-3, 0, 1, 0, 1, "1X"});
    expect_answer(dna("A"), dna("C"), dna_scheme(0, 2), global, {-3, 0, 1, 0, 1, "1X"});  // vs -4 for 1I1D
    expect_answer(dna("A"), dna("C"), s, local, {0, 0, 0, 0, 0, ""});
    // BLOSUM62 W/W = 11, W/C = -2 (vs two gaps -24); protein X/X is '=' (-1).
    const auto p = blosum62_scheme(11, 1);
    expect_answer(protein("W"), protein("W"), p, local, {11, 0, 1, 0, 1, "1="});
    expect_answer(protein("W"), protein("C"), p, global, {-2, 0, 1, 0, 1, "1X"});
    expect_answer(protein("W"), protein("C"), p, local, {0, 0, 0, 0, 0, ""});
    expect_answer(protein("X"), protein("X"), p, global, {-1, 0, 1, 0, 1, "1="});
}

// ---- substitution scores ---------------------------------------------------------------

TEST(KnownAnswers, Blosum62Entries) {
    // Spot checks against the published BLOSUM62 table.
    const auto p = blosum62_scheme(11, 1);
    auto sc = [&](char a, char b) { return p.score(protein(std::string(1, a))[0], protein(std::string(1, b))[0]); };
    EXPECT_EQ(sc('A', 'A'), 4);
    EXPECT_EQ(sc('W', 'W'), 11);
    EXPECT_EQ(sc('C', 'C'), 9);
    EXPECT_EQ(sc('W', 'C'), -2);
    EXPECT_EQ(sc('I', 'V'), 3);
    EXPECT_EQ(sc('K', 'W'), -3);
    EXPECT_EQ(sc('M', 'K'), -1);
    EXPECT_EQ(sc('E', 'D'), 2);
    EXPECT_EQ(sc('X', 'X'), -1);
}

TEST(KnownAnswers, DnaNIsAlwaysAMismatch) {
    // N/N scores -3 and is written 'X'.
    expect_answer(dna("N"), dna("N"), dna_scheme(5, 2), global, {-3, 0, 1, 0, 1, "1X"});
    // ANA/ANA global linear: 2-3+2 = 1; splitting the N pair into 1I+1D gives 0.
    expect_answer(dna("ANA"), dna("ANA"), dna_scheme(0, 2), global, {1, 0, 3, 0, 3, "1=1X1="});
    // Local: H(1,1)=2, H(1,3)=2, H(3,3)=2 (H(2,2)=0, the N pair cannot bridge);
    // the first maximum in row-major order is (1,1).
    expect_answer(dna("ANA"), dna("ANA"), dna_scheme(5, 2), local, {2, 0, 1, 0, 1, "1="});
    expect_answer(dna("ANA"), dna("ANA"), dna_scheme(0, 2), local, {2, 0, 1, 0, 1, "1="});
    expect_answer(dna("ANGT"), dna("ANGT"), dna_scheme(5, 2), local, {4, 2, 4, 2, 4, "2="});
}

// Issue 14, trial bug 1: with EMBOSS's EDNAFULL, R against A or G scores
// +1 from the file's R row (needle: 44), not N's -2 (32). Our gaps (10 + L),
// not needle's (10 + 0.5 (L-1)), but no gap pays here: two would cost 22.
// IUPAC codes are never written '=' (docs/scoring.md rule 4), R/R included.
TEST(KnownAnswers, EdnafullScoresIupacCodesFromTheFile) {
    const ScoringScheme s = ednafull_scheme(10, 1);
    ASSERT_EQ(s.dna_codes, DnaCodes::iupac);
    EXPECT_EQ(s.score(dna_iupac("R")[0], dna_iupac("A")[0]), 1);
    EXPECT_EQ(s.score(dna_iupac("R")[0], dna_iupac("G")[0]), 1);
    // ACGT (4 x 5) + RRRR/AAGG (4 x +1) + ACGT (4 x 5) = 44.
    expect_answer(dna_iupac("ACGTRRRRACGT"), dna_iupac("ACGTAAGGACGT"), s, global, {44, 0, 12, 0, 12, "4=4X4="});
    // The same letters coded dna5 (R read as N, the trial's 32): 20 - 8 + 20.
    expect_answer(dna("ACGTRRRRACGT"), dna("ACGTAAGGACGT"), s, global, {32, 0, 12, 0, 12, "4=4X4="});
    // Local: T/G and T/C flanks (-4) are left out; the IUPAC run holds the middle.
    expect_answer(dna_iupac("TTTTTACGTRRRRACGTTTTTT"), dna_iupac("GGGGGACGTAAGGACGTCCCCC"), s, local,
                  {44, 5, 17, 5, 17, "4=4X4="});
    // Equal IUPAC codes: R/R -1, Y/Y -1 from the file, written 'X'; ACGT 20.
    expect_answer(dna_iupac("ACGTRY"), dna_iupac("ACGTRY"), s, global, {18, 0, 6, 0, 6, "4=2X"});
    // Local: a positive IUPAC pair (W/A +1) extends the path, a lone one (S/G +1) starts one.
    expect_answer(dna_iupac("ACGTW"), dna_iupac("ACGTA"), s, local, {21, 0, 5, 0, 5, "4=1X"});
    expect_answer(dna_iupac("S"), dna_iupac("G"), s, local, {1, 0, 1, 0, 1, "1X"});
}

// ---- gap models --------------------------------------------------------------------------

TEST(KnownAnswers, GapCostIsOpenPlusLengthTimesExtend) {
    // ACGT vs ACGTAAA: 4 matches and a 3-gap. Affine 8-(5+6) = -3, linear 8-6 = 2.
    expect_answer(dna("ACGT"), dna("ACGTAAA"), dna_scheme(5, 2), global, {-3, 0, 4, 0, 7, "4=3D"});
    expect_answer(dna("ACGT"), dna("ACGTAAA"), dna_scheme(0, 2), global, {2, 0, 4, 0, 7, "4=3D"});
    // MKWV vs MWV (BLOSUM62 M/M 5, W/W 11, V/V 4): dropping K keeps 20.
    // Affine 20-12 = 8; linear 20-4 = 16; every other one-gap choice is lower.
    expect_answer(protein("MKWV"), protein("MWV"), blosum62_scheme(11, 1), global, {8, 0, 4, 0, 3, "1=1I2="});
    expect_answer(protein("MKWV"), protein("MWV"), blosum62_scheme(0, 4), global, {16, 0, 4, 0, 3, "1=1I2="});
}

TEST(KnownAnswers, AffineKeepsOneGapLinearSplitsIt) {
    // GGAA vs GA. Affine 5/2: one 2-gap G[GA]A: 4-9 = -5; two 1-gaps cost 14.
    expect_answer(dna("GGAA"), dna("GA"), dna_scheme(5, 2), global, {-5, 0, 4, 0, 2, "1=2I1="});
    // Linear 0/2: all four ways of matching one G and one A score 0. Traceback:
    // (4,2) diag 0 ties F 0 -> diag '='; (3,1) diag -7 < F -2 -> I, open
    // H(2,1)-2 = -2 ties ext -> open wins, back to H(2,1); H(2,1) diag 0 ties
    // F 0 -> '='; column 0 -> 1I. Reads 1I1=1I1=.
    expect_answer(dna("GGAA"), dna("GA"), dna_scheme(0, 2), global, {0, 0, 4, 0, 2, "1I1=1I1="});
}

TEST(KnownAnswers, LocalAffineVersusLinear) {
    // ACGTACGT vs ACGTTACGT. Affine: the ungapped TACGT (q[3,8) r[4,9)) scores
    // 10 > 8 matches + 1-gap (16-7 = 9). Linear: 16-2 = 14; at (4,5) diag 6 ties
    // E 6 -> diag, at (3,4) H = E = 4 -> the gap deletes r[3]: 3=1D5=.
    expect_answer(dna("ACGTACGT"), dna("ACGTTACGT"), dna_scheme(5, 2), local, {10, 3, 8, 4, 9, "5="});
    expect_answer(dna("ACGTACGT"), dna("ACGTTACGT"), dna_scheme(0, 2), local, {14, 0, 8, 0, 9, "3=1D5="});
    // Local protein: IV vs VI, I/V = V/I = 3 -> 6 with two positive mismatches,
    // better than I/I or V/V alone (4).
    expect_answer(protein("IV"), protein("VI"), blosum62_scheme(11, 1), local, {6, 0, 2, 0, 2, "2X"});
    expect_answer(protein("IV"), protein("VI"), blosum62_scheme(0, 4), local, {6, 0, 2, 0, 2, "2X"});
    // A local hit inside longer sequences (affine 5/2): ACGTACG, 7 matches.
    expect_answer(dna("TTTTACGTACGTTTTT"), dna("GGGACGTACGGGG"), dna_scheme(5, 2), local, {14, 4, 11, 3, 10, "7="});
}

// ---- the tie rule ---------------------------------------------------------------------------

TEST(KnownAnswers, TieDiagonalBeforeDeletion) {
    // A vs AA global affine: H(1,2): diag H(0,1)+2 = -5 ties E = H(1,1)-7 = -5 -> diag.
    expect_answer(dna("A"), dna("AA"), dna_scheme(5, 2), global, {-5, 0, 1, 0, 2, "1D1="});
    expect_answer(dna("A"), dna("AA"), dna_scheme(0, 2), global, {0, 0, 1, 0, 2, "1D1="});
}

TEST(KnownAnswers, TieDeletionBeforeInsertion) {
    // AC vs CA global linear: H(2,2): diag -6, E = F = -2 -> D; E opened from
    // H(2,1) = 0 (C/C diag); then column 0 -> 1I. 1D1=1I would be the other tie.
    expect_answer(dna("AC"), dna("CA"), dna_scheme(0, 2), global, {-2, 0, 2, 0, 2, "1I1=1D"});
}

TEST(KnownAnswers, TieOpeningWinsWithinGap) {
    // A vs AAC global linear: H(1,2) = diag 0 (ties E 0); at (1,3) E open
    // H(1,2)-2 = -2 ties ext E(1,2)-2 = -2 -> open, back to H(1,2) -> '='.
    // Extension winning would give 1=2D.
    expect_answer(dna("A"), dna("AAC"), dna_scheme(0, 2), global, {-2, 0, 1, 0, 3, "1D1=1D"});
}

TEST(KnownAnswers, TieLocalZeroTakesPrecedence) {
    // AAC vs ATAC local linear: unique best H(3,4) = 4 via diag from H(2,3) = 2,
    // which is diag from H(1,2) = 0. H(1,2) also equals E(1,2) = H(1,1)-2 = 0,
    // but zero stops the path: 2= from (1,2), not 1=1D2= from (0,0).
    expect_answer(dna("AAC"), dna("ATAC"), dna_scheme(0, 2), local, {4, 1, 3, 2, 4, "2="});
}

TEST(KnownAnswers, TieLocalFirstEndCellRowMajor) {
    // A vs AA: H(1,1) = H(1,2) = 2 -> (1,1).
    expect_answer(dna("A"), dna("AA"), dna_scheme(5, 2), local, {2, 0, 1, 0, 1, "1="});
    // AC vs CA: maxima (1,2) [A/A] and (2,1) [C/C]; rows are the query -> (1,2).
    expect_answer(dna("AC"), dna("CA"), dna_scheme(5, 2), local, {2, 0, 1, 1, 2, "1="});
    expect_answer(dna("CA"), dna("AC"), dna_scheme(0, 2), local, {2, 0, 1, 1, 2, "1="});
    // Protein: WAW vs W: (1,1) and (3,1) both 11 -> (1,1).
    expect_answer(protein("WAW"), protein("W"), blosum62_scheme(11, 1), local, {11, 0, 1, 0, 1, "1="});
}

// ---- conventions of the SeqAn3 oracle used by the differential tests --------------------

TEST(KnownAnswers, SeqAn3ConventionsEndIsExclusive) {
    const std::vector<Pair> pairs{{dna("ACGT"), dna("ACGT")}, {dna("AC"), dna("ACGT")}, {dna("TTACG"), dna("ACGAA")}};
    const auto loc = oracle(pairs, Alphabet::dna, local, 5, 2);
    EXPECT_EQ(loc[0].score, 8);
    EXPECT_EQ(loc[0].query_end, 4);  // exclusive, like ours (inclusive would be 3)
    EXPECT_EQ(loc[0].ref_end, 4);
    EXPECT_EQ(loc[2].score, 6);      // ACG at q[2,5) r[0,3)
    EXPECT_EQ(loc[2].query_end, 5);
    EXPECT_EQ(loc[2].ref_end, 3);
    const auto glo = oracle(pairs, Alphabet::dna, global, 5, 2);
    EXPECT_EQ(glo[1].score, 4 - 9);  // AC + 2-gap
    EXPECT_EQ(glo[1].query_end, 2);
    EXPECT_EQ(glo[1].ref_end, 4);
}

TEST(KnownAnswers, SeqAn3ConventionsTieAndN) {
    // Same tie cases as TieLocalFirstEndCellRowMajor: SeqAn3 (sequence1 = query)
    // picks the first maximal cell with the query index major, like us.
    const std::vector<Pair> pairs{{dna("AC"), dna("CA")}, {dna("A"), dna("AA")}, {dna("AA"), dna("A")},
                                  {dna("ANA"), dna("ANA")}, {dna("NNNN"), dna("NNNN")}};
    const auto o = oracle(pairs, Alphabet::dna, local, 5, 2);
    EXPECT_EQ(o[0].score, 2);
    EXPECT_EQ(o[0].query_end, 1);
    EXPECT_EQ(o[0].ref_end, 2);
    EXPECT_EQ(o[1].query_end, 1);
    EXPECT_EQ(o[1].ref_end, 1);
    EXPECT_EQ(o[2].query_end, 1);
    EXPECT_EQ(o[2].ref_end, 1);
    EXPECT_EQ(o[3].score, 2);        // N/N does not bridge
    EXPECT_EQ(o[4].score, 0);
    const auto g = oracle(pairs, Alphabet::dna, global, 5, 2);
    EXPECT_EQ(g[4].score, -12);      // 4 N/N mismatches
}

}  // namespace
}  // namespace gpualign::test
