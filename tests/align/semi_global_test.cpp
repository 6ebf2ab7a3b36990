// The semi-global mode (`gpualign sg`, docs/scoring.md): known answers, the
// canonical end cell and traceback, and parasail's sg_dx as an independent
// oracle of the score on random and real pairs. Every result also goes
// through run_ours, which checks the SIMD kernel against the scalar
// reference pair by pair, and through check_invariants (score-only equals
// traceback, the CIGAR replays to the score, the query is covered end to end
// and no CIGAR starts or ends with D).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_util.hpp"

#ifdef GPUALIGN_HAVE_PARASAIL
#include <parasail.h>
#endif

namespace gpualign::test {
namespace {

AlignmentResult sg(const Codes& q, const Codes& r, const ScoringScheme& s, bool score_only = false) {
    return align_pair(q, r, s, AlignMode::semi_global, score_only);
}

TEST(SemiGlobal, FitsTheQueryIntoTheRefWithFreeEndGaps) {
    const ScoringScheme s = dna_scheme(5, 2);  // match 2, mismatch 3
    const AlignmentResult r = sg(dna("ACGTAC"), dna("TTTACGTACGGG"), s);
    EXPECT_EQ(r.score, 12);
    EXPECT_EQ(r.query_begin, 0);
    EXPECT_EQ(r.query_end, 6);
    EXPECT_EQ(r.ref_begin, 3);
    EXPECT_EQ(r.ref_end, 9);
    EXPECT_EQ(cigar_string(r.cigar), "6=");
    // Global pays for the 6 ref letters it must cover.
    EXPECT_LT(align_pair(dna("ACGTAC"), dna("TTTACGTACGGG"), s, AlignMode::global, false).score, 12);
}

TEST(SemiGlobal, ChargesTheQuerysEndsAndNeverClipsThem) {
    const ScoringScheme s = dna_scheme(5, 2);
    // The query's last two letters match nothing: sw clips them, sg aligns them.
    const Codes q = dna("ACGTACGTGG"), r = dna("CCACGTACGTCC");
    const AlignmentResult local = align_pair(q, r, s, AlignMode::local, false);
    EXPECT_EQ(cigar_string(local.cigar), "8=");
    const AlignmentResult semi = sg(q, r, s);
    EXPECT_EQ(semi.query_begin, 0);
    EXPECT_EQ(semi.query_end, 10);
    EXPECT_EQ(semi.score, 16 - 2 * 3);  // 8 matches, then G/C and G/C
    EXPECT_EQ(cigar_string(semi.cigar), "8=2X");
    EXPECT_EQ(semi.ref_begin, 2);
    EXPECT_EQ(semi.ref_end, 12);
}

TEST(SemiGlobal, TiesOfTheLastRowGoToTheSmallestRefColumn) {
    const ScoringScheme s = dna_scheme(5, 2);
    // H(4,0) = -(5 + 4*2) = -13; H(4,1) = -13 too (four I's below ref letter 1,
    // or three I's and a mismatch at -14): the tie goes to j = 0, so the
    // alignment is all insertion and covers no ref letter.
    const AlignmentResult r = sg(dna("AAAA"), dna("C"), s);
    EXPECT_EQ(r.score, -13);
    EXPECT_EQ(r.ref_begin, 0);
    EXPECT_EQ(r.ref_end, 0);
    EXPECT_EQ(cigar_string(r.cigar), "4I");
    // A repeat: the first copy wins.
    const AlignmentResult rep = sg(dna("ACGT"), dna("GGACGTGGACGTGG"), s);
    EXPECT_EQ(rep.score, 8);
    EXPECT_EQ(rep.ref_begin, 2);
    EXPECT_EQ(rep.ref_end, 6);
}

TEST(SemiGlobal, EmptyQueryIsTheEmptyAlignment) {
    const ScoringScheme s = dna_scheme(5, 2);
    const AlignmentResult r = sg(Codes{}, dna("ACGT"), s);
    EXPECT_EQ(r.score, 0);
    EXPECT_EQ(r.ref_begin, 0);
    EXPECT_EQ(r.ref_end, 0);
    EXPECT_TRUE(r.cigar.empty());
    const AlignmentResult no_ref = sg(dna("ACG"), Codes{}, s);
    EXPECT_EQ(no_ref.score, -(5 + 3 * 2));
    EXPECT_EQ(cigar_string(no_ref.cigar), "3I");
}

struct Setting {
    Alphabet alphabet;
    int go, ge;
    std::uint64_t seed;
};

std::string setting_name(const testing::TestParamInfo<Setting>& info) {
    return std::string(to_string(info.param.alphabet)) + "_go" + std::to_string(info.param.go) + "_ge" +
           std::to_string(info.param.ge);
}

ScoringScheme scheme_for(const Setting& st) {
    return st.alphabet == Alphabet::dna ? dna_scheme(st.go, st.ge) : blosum62_scheme(st.go, st.ge);
}

#ifdef GPUALIGN_HAVE_PARASAIL
/// parasail's sg_dx (free gaps at both ends of s2, the database = our ref)
/// on our codes: the letters are the code ranks themselves, mapped onto a
/// parasail matrix that copies every entry of ours. parasail charges a gap of
/// length L open + (L-1)*extend, so open = go + ge and extend = ge.
class ParasailSg {
public:
    explicit ParasailSg(const ScoringScheme& s) : s_(s) {
        for (int c = 0; c < s.size; ++c) letters_.push_back(static_cast<char>('A' + c));
        matrix_ = parasail_matrix_create(letters_.c_str(), 0, 0);
        for (int a = 0; a < s.size; ++a)
            for (int b = 0; b < s.size; ++b) parasail_matrix_set_value(matrix_, a, b, s.score(a, b));
    }
    ~ParasailSg() { parasail_matrix_free(matrix_); }
    ParasailSg(const ParasailSg&) = delete;
    ParasailSg& operator=(const ParasailSg&) = delete;

    int score(const Codes& q, const Codes& r) const {
        const std::string qs = text(q), rs = text(r);
        parasail_result_t* res = parasail_sg_dx(qs.data(), static_cast<int>(qs.size()), rs.data(),
                                                static_cast<int>(rs.size()), s_.gap_open + s_.gap_extend,
                                                s_.gap_extend, matrix_);
        const int score = parasail_result_get_score(res);
        parasail_result_free(res);
        return score;
    }

private:
    std::string text(const Codes& c) const {
        std::string t;
        for (const std::uint8_t x : c) t.push_back(static_cast<char>('A' + x));
        return t;
    }
    const ScoringScheme& s_;
    std::string letters_;
    parasail_matrix_t* matrix_ = nullptr;
};
#endif

/// Checks sg on `pairs` against parasail's sg_dx and the invariants; returns
/// the number of pairs compared with parasail.
std::size_t check_against_parasail(const std::vector<Pair>& pairs, const ScoringScheme& s) {
    const OurResults ours = run_ours(pairs, s, AlignMode::semi_global);  // SIMD == scalar, or throws
    int failures = 0;
    auto report = [&](std::size_t k, const std::string& what) {
        if (++failures <= 10)
            ADD_FAILURE() << "pair " << k << " (" << pairs[k].query.size() << " x " << pairs[k].ref.size()
                          << "): " << what;
    };
    std::size_t compared = 0;
#ifdef GPUALIGN_HAVE_PARASAIL
    const ParasailSg oracle(s);
#endif
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const AlignmentResult& r = ours.full[k];
        if (const std::string v = check_invariants(r, ours.fast[k], pairs[k].query, pairs[k].ref, s,
                                                   AlignMode::semi_global);
            !v.empty())
            report(k, v);
#ifdef GPUALIGN_HAVE_PARASAIL
        const int theirs = oracle.score(pairs[k].query, pairs[k].ref);
        if (r.score != theirs) report(k, "score " + std::to_string(r.score) + " != parasail sg_dx " + std::to_string(theirs));
        ++compared;
#endif
    }
    EXPECT_EQ(failures, 0);
    return compared;
}

class SemiGlobalGrid : public testing::TestWithParam<Setting> {};

TEST_P(SemiGlobalGrid, MatchesParasailSgDxAndInvariantsHold) {
    const Setting& st = GetParam();
    PairGenerator gen(st.seed, st.alphabet);
    std::vector<Pair> pairs;
    for (int k = 0; k < 1500; ++k) pairs.push_back(gen.next(400));
    // Reads in windows: a short query drawn from a longer ref, mutated.
    for (int k = 0; k < 300; ++k) {
        Pair p;
        p.ref = gen.random_seq(50 + gen.below(500), 20);
        const std::size_t len = 1 + gen.below(std::min<std::size_t>(p.ref.size(), 120));
        const std::size_t at = gen.below(p.ref.size() - len + 1);
        p.query = gen.mutate(Codes(p.ref.begin() + static_cast<std::ptrdiff_t>(at),
                                   p.ref.begin() + static_cast<std::ptrdiff_t>(at + len)),
                             0.1, 20, 400);
        pairs.push_back(std::move(p));
    }
    const std::size_t compared = check_against_parasail(pairs, scheme_for(st));
#ifdef GPUALIGN_HAVE_PARASAIL
    EXPECT_EQ(compared, pairs.size());
#else
    (void)compared;
    GTEST_SKIP() << "parasail not found at build time (apt install libparasail-dev): invariants checked only";
#endif
}

INSTANTIATE_TEST_SUITE_P(Random, SemiGlobalGrid,
                         testing::Values(Setting{Alphabet::dna, 5, 2, 201}, Setting{Alphabet::dna, 0, 2, 202},
                                         Setting{Alphabet::dna, 3, 1, 203}, Setting{Alphabet::dna, 12, 4, 204},
                                         Setting{Alphabet::protein, 11, 1, 205}, Setting{Alphabet::protein, 0, 4, 206},
                                         Setting{Alphabet::protein, 10, 2, 207}),
                         setting_name);

std::filesystem::path repo_data() { return std::filesystem::path(GPUALIGN_TEST_DATA) / ".." / ".." / "data"; }

TEST(SemiGlobalRealData, PacbioReadsInWindowsMatchParasail) {
    const auto pairs = read_pairs<Alphabet::dna>(repo_data() / "reads.fa", repo_data() / "ref_windows.fa", SIZE_MAX);
    ASSERT_GE(pairs.size(), 50u);
    for (const auto& [go, ge] : {std::pair{5, 2}, std::pair{0, 1}, std::pair{8, 1}}) {
        SCOPED_TRACE("go " + std::to_string(go) + " ge " + std::to_string(ge));
        const std::size_t compared = check_against_parasail(pairs, dna_scheme(go, ge));
#ifdef GPUALIGN_HAVE_PARASAIL
        EXPECT_EQ(compared, pairs.size());
#else
        (void)compared;
#endif
    }
}

TEST(SemiGlobalRealData, OrthologProteinsMatchParasail) {
    const auto pairs =
        read_pairs<Alphabet::protein>(repo_data() / "orthologs_cow.fa", repo_data() / "orthologs_pig.fa", SIZE_MAX);
    ASSERT_GE(pairs.size(), 10u);
    const std::size_t compared = check_against_parasail(pairs, blosum62_scheme(11, 1));
#ifdef GPUALIGN_HAVE_PARASAIL
    EXPECT_EQ(compared, pairs.size());
#else
    (void)compared;
#endif
}

}  // namespace
}  // namespace gpualign::test
