// Invariants and an executable model of docs/scoring.md.
//
// `model_align` is a direct, unoptimised transcription of the recurrences and
// the tie rule (full H/E/F matrices in 64-bit, traceback by recomputing the
// comparisons). align_pair must equal it field for field, CIGAR included, on
// small random pairs over small alphabets (many ties), with empty sequences,
// N-rich DNA, all 27 protein codes and unusual gap schemes that SeqAn3 does
// not cover in the differential test.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "test_util.hpp"

namespace gpualign::test {
namespace {

AlignmentResult model_align(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode) {
    using i64 = std::int64_t;
    const i64 m = static_cast<i64>(q.size()), n = static_cast<i64>(r.size());
    const bool local = mode == AlignMode::local, semi = mode == AlignMode::semi_global;
    const i64 O = s.gap_open + s.gap_extend, E = s.gap_extend, ninf = std::numeric_limits<i64>::min() / 4;
    std::vector<std::vector<i64>> H(m + 1, std::vector<i64>(n + 1, 0)), Ec = H, Fc = H;
    for (i64 i = 0; i <= m; ++i) Ec[i][0] = Fc[i][0] = ninf;
    for (i64 j = 0; j <= n; ++j) Ec[0][j] = Fc[0][j] = ninf;
    if (!local) {
        if (!semi)  // semi-global: a leading ref gap is free, H(0,j) = 0
            for (i64 j = 1; j <= n; ++j) H[0][j] = -(s.gap_open + j * E);
        for (i64 i = 1; i <= m; ++i) H[i][0] = -(s.gap_open + i * E);
    }
    auto sub = [&](i64 i, i64 j) -> i64 { return s.score(q[i - 1], r[j - 1]); };
    i64 best = 0, bi = 0, bj = 0;
    for (i64 i = 1; i <= m; ++i)
        for (i64 j = 1; j <= n; ++j) {
            Ec[i][j] = std::max(Ec[i][j - 1] - E, H[i][j - 1] - O);
            Fc[i][j] = std::max(Fc[i - 1][j] - E, H[i - 1][j] - O);
            H[i][j] = std::max({H[i - 1][j - 1] + sub(i, j), Ec[i][j], Fc[i][j]});
            if (local) H[i][j] = std::max<i64>(H[i][j], 0);
            if (local && H[i][j] > best) { best = H[i][j]; bi = i; bj = j; }  // first maximum, row-major
        }
    AlignmentResult res;
    res.has_cigar = true;
    if (local && best == 0) return res;
    if (semi) {  // the first maximum of the last row, j = 0 included
        bj = 0;
        for (i64 c = 1; c <= n; ++c)
            if (H[m][c] > H[m][bj]) bj = c;
        best = H[m][bj];
    }
    i64 i = local ? bi : m, j = local || semi ? bj : n;
    res.score = static_cast<std::int32_t>(local || semi ? best : H[m][n]);
    res.query_end = static_cast<std::int32_t>(i);
    res.ref_end = static_cast<std::int32_t>(j);
    std::string ops;  // reversed
    char state = 'H';
    while (true) {
        if (semi && i == 0) break;  // the rest of the ref's leading gap is free
        if (!local && (i == 0 || j == 0)) {
            ops.append(static_cast<std::size_t>(j), 'D');
            ops.append(static_cast<std::size_t>(i), 'I');
            i = j = 0;
            break;
        }
        if (state == 'H') {
            if (local && (H[i][j] == 0 || i == 0 || j == 0)) break;
            if (H[i][j] == H[i - 1][j - 1] + sub(i, j)) {
                ops += residues_identical(s.alphabet, q[i - 1], r[j - 1]) ? '=' : 'X';
                --i, --j;
            } else if (H[i][j] == Ec[i][j]) {
                state = 'E';
            } else {
                state = 'F';
            }
        } else if (state == 'E') {
            ops += 'D';
            if (Ec[i][j] == H[i][j - 1] - O) state = 'H';
            --j;
        } else {
            ops += 'I';
            if (Fc[i][j] == H[i - 1][j] - O) state = 'H';
            --i;
        }
    }
    res.query_begin = static_cast<std::int32_t>(i);
    res.ref_begin = static_cast<std::int32_t>(j);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        const CigarOp op = *it == '=' ? CigarOp::eq : *it == 'X' ? CigarOp::diff : *it == 'I' ? CigarOp::ins : CigarOp::del;
        if (!res.cigar.empty() && cigar_op(res.cigar.back()) == op) res.cigar.back() += 1u << 4;
        else res.cigar.push_back(cigar_pack(op, 1));
    }
    return res;
}

std::string describe(const AlignmentResult& a) {
    return std::to_string(a.score) + " q[" + std::to_string(a.query_begin) + "," + std::to_string(a.query_end) +
           ") r[" + std::to_string(a.ref_begin) + "," + std::to_string(a.ref_end) + ") " + cigar_string(a.cigar);
}

// Random codes over the first `letters` codes of the alphabet (N included for DNA).
Codes random_codes(PairGenerator& g, std::size_t len, int letters) {
    Codes c(len);
    for (auto& x : c) x = static_cast<std::uint8_t>(g.below(static_cast<std::uint64_t>(letters)));
    return c;
}

// Compares align_pair (full and score-only) with the model on `count` pairs.
void compare_with_model(const ScoringScheme& s, std::uint64_t seed, int count, std::size_t max_len, int letters) {
    PairGenerator g(seed, s.alphabet);
    int failures = 0;
    for (int k = 0; k < count; ++k) {
        const Codes q = random_codes(g, g.below(max_len + 1), letters);
        const Codes r = g.below(3) == 0 ? g.mutate(q, 0.3, letters, max_len) : random_codes(g, g.below(max_len + 1), letters);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            const AlignmentResult want = model_align(q, r, s, mode);
            const AlignmentResult full = align_pair(q, r, s, mode, false);
            const AlignmentResult fast = align_pair(q, r, s, mode, true);
            std::string what;
            if (full != want) what = "full " + describe(full) + " != model " + describe(want);
            else what = check_invariants(full, fast, q, r, s, mode);
            if (!what.empty() && ++failures <= 10)
                ADD_FAILURE() << to_string(mode) << " pair " << k << " (" << q.size() << " x " << r.size()
                              << "): " << what;
        }
    }
    EXPECT_EQ(failures, 0);
}

TEST(Invariants, ModelDnaAffine) { compare_with_model(dna_scheme(5, 2), 201, 3000, 12, 5); }
TEST(Invariants, ModelDnaLinear) { compare_with_model(dna_scheme(0, 2), 202, 3000, 12, 5); }
TEST(Invariants, ModelDnaTwoLettersManyTies) {
    compare_with_model(dna_scheme(1, 1), 203, 3000, 10, 2);
    compare_with_model(make_dna_scheme(1, 1, 0, 1, -1), 204, 3000, 10, 2);
}
TEST(Invariants, ModelDnaOddSchemes) {
    compare_with_model(make_dna_scheme(3, 1, 7, 0, -1), 205, 1500, 12, 5);   // free extension
    compare_with_model(make_dna_scheme(0, 1, 2, 1, 0), 206, 1500, 12, 5);    // match 0
    compare_with_model(make_dna_scheme(5, 4, 20, 3, -2), 207, 1500, 30, 5);  // N scores -2
}
TEST(Invariants, ModelProteinBlosum62) {
    compare_with_model(blosum62_scheme(11, 1), 208, 1500, 25, 27);
    compare_with_model(blosum62_scheme(0, 4), 209, 1500, 25, 27);
    compare_with_model(blosum62_scheme(2, 1), 210, 1500, 25, 27);
}
TEST(Invariants, ModelLongerPairs) {
    compare_with_model(dna_scheme(5, 2), 211, 60, 150, 5);
    compare_with_model(blosum62_scheme(11, 1), 212, 60, 150, 27);
}

TEST(Invariants, ScoreOnlyMatchesFullOnLongRelatedPairs) {
    // Begin coordinates carried through score-only mode over long gapped paths.
    PairGenerator g(213, Alphabet::dna);
    const auto s = dna_scheme(5, 2);
    for (int k = 0; k < 8; ++k) {
        const Codes q = g.random_seq(1500 + g.below(1000), 4);
        const Codes r = g.mutate(q, 0.25, 4, 4000);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            const auto full = align_pair(q, r, s, mode, false);
            const auto fast = align_pair(q, r, s, mode, true);
            EXPECT_EQ(check_invariants(full, fast, q, r, s, mode), "") << "pair " << k << " " << to_string(mode);
        }
    }
}

TEST(Invariants, LocalIsAtLeastGlobalAndNonNegative) {
    PairGenerator g(214, Alphabet::protein);
    const auto s = blosum62_scheme(11, 1);
    for (int k = 0; k < 200; ++k) {
        const Pair p = g.next(80);
        const auto loc = align_pair(p.query, p.ref, s, AlignMode::local, true);
        const auto glo = align_pair(p.query, p.ref, s, AlignMode::global, true);
        EXPECT_GE(loc.score, 0);
        EXPECT_GE(loc.score, glo.score);
        // Swapping query and ref mirrors the scores (BLOSUM62 is symmetric).
        EXPECT_EQ(align_pair(p.ref, p.query, s, AlignMode::local, true).score, loc.score);
        EXPECT_EQ(align_pair(p.ref, p.query, s, AlignMode::global, true).score, glo.score);
    }
}

TEST(Invariants, RefusesPairsThatCouldOverflow) {
    // Bound (m+n) * (max|s| + go + ge) must stay below 2^30.
    const auto s = make_dna_scheme(1000000, 1000000, 1000000, 1000000, -1000000);  // 3e6 per column
    const Codes q(200, 0), r(200, 0);                                             // 400 * 3e6 > 2^30
    EXPECT_FALSE(fits_int32(s, q.size(), r.size()));
    EXPECT_THROW(align_pair(q, r, s, AlignMode::global, false), std::length_error);
    EXPECT_THROW(align_pair(q, r, s, AlignMode::local, true), std::length_error);
    const Codes small(100, 0);  // 200 * 3e6 = 6e8 < 2^30
    EXPECT_TRUE(fits_int32(s, small.size(), small.size()));
    EXPECT_EQ(align_pair(small, small, s, AlignMode::global, true).score, 100 * 1000000);
}

}  // namespace
}  // namespace gpualign::test
