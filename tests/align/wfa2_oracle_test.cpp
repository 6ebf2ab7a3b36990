// WFA2-lib (Marco-Sola et al. 2021; BiWFA, Marco-Sola et al. 2023) as an
// oracle independent of our DP: global scores of align_pair_long on real long
// pairs and on random DNA pairs equal WFA2's optimum, and WFA2's own optimal
// path re-scores under our scheme to our score.
//
// Convention (Eizenga & Paten 2022): our scheme scores a match +M, a mismatch
// -X and a gap of length L -(O + L*E). WFA2 minimises a penalty with match 0,
// mismatch x, and a gap of length L costing o + L*e. With
//   x = 2(M + X),  o = 2O,  e = 2E + M
// every global alignment of q and r has penalty D = M(|q| + |r|) - 2S, where
// S is its score under our scheme, so the optimum is S = (M(|q| + |r|) - D) / 2.
// WFA2's getAlignmentScore() returns -D. WFA2 compares letters literally (an
// N matches an N), while our DNA scheme scores N as a mismatch against
// everything: the data here has no N.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpualign/align/long_aligner.hpp"
#include "test_util.hpp"

#if GPUALIGN_HAVE_WFA2
#include <bindings/cpp/WFAligner.hpp>
#endif


namespace gpualign::test {
namespace {


/// Our DNA scheme's numbers as typed: match M, mismatch X, gap open O, gap extend E.
struct DnaNumbers {
    int match, mismatch, open, extend;
    ScoringScheme scheme() const { return make_dna_scheme(match, mismatch, open, extend, -mismatch); }
};

std::string dna_text(const Codes& c) {
    std::string s;
    for (std::uint8_t x : c) s += "ACGNT"[x];
    return s;
}

bool has_n(const Codes& c) {
    for (std::uint8_t x : c)
        if (x == 3) return true;
    return false;
}

#if GPUALIGN_HAVE_WFA2

/// One WFA2 gap-affine BiWFA aligner (MemoryUltralow) for our scheme, exact (no heuristic).
class Wfa2 {
public:
    Wfa2(const DnaNumbers& d, bool with_cigar)
        : d_(d), aligner_(2 * (d.match + d.mismatch), 2 * d.open, 2 * d.extend + d.match,
                          with_cigar ? wfa::WFAligner::Alignment : wfa::WFAligner::Score,
                          wfa::WFAligner::MemoryUltralow) {
        aligner_.setHeuristicNone();  // the default adaptive heuristic is not exact
    }

    /// Aligns end to end (query = pattern, ref = text); returns our global score.
    std::int64_t global_score(const Codes& q, const Codes& r) {
        std::string pattern = dna_text(q), text = dna_text(r);
        const auto status = aligner_.alignEnd2End(pattern, text);
        EXPECT_EQ(status, wfa::WFAligner::StatusSuccessful);
        const std::int64_t penalty = -static_cast<std::int64_t>(aligner_.getAlignmentScore());
        EXPECT_GE(penalty, 0);
        const std::int64_t twice = static_cast<std::int64_t>(d_.match) * static_cast<std::int64_t>(q.size() + r.size()) - penalty;
        EXPECT_EQ(twice % 2, 0) << "penalty " << penalty << " is not M(|q|+|r|) - 2S";
        return twice / 2;
    }

    /// The last alignment's CIGAR, one letter per column: M X I (consumes the
    /// text = ref) D (consumes the pattern = query).
    std::string cigar() { return aligner_.getAlignmentCigar(); }

private:
    DnaNumbers d_;
    wfa::WFAlignerGapAffine aligner_;
};

/// Scores a WFA2 CIGAR under our scheme, checking that it spells a global
/// alignment of q and r. Returns "" and sets `score`, or a description.
std::string rescore_wfa_cigar(const std::string& ops, const Codes& q, const Codes& r, const ScoringScheme& s,
                              std::int64_t& score) {
    std::size_t i = 0, j = 0;
    score = 0;
    char prev = 0;
    for (char op : ops) {
        switch (op) {
        case 'M':
        case 'X':
            if (i >= q.size() || j >= r.size()) return "CIGAR runs past the sequences";
            if ((op == 'M') != (q[i] == r[j])) return std::string("'") + op + "' column on codes that disagree";
            score += s.score(q[i++], r[j++]);
            break;
        case 'I':  // consumes the ref only: our 'D'
            if (j >= r.size()) return "CIGAR runs past the ref";
            score -= (prev == 'I' ? 0 : s.gap_open) + s.gap_extend;
            ++j;
            break;
        case 'D':  // consumes the query only: our 'I'
            if (i >= q.size()) return "CIGAR runs past the query";
            score -= (prev == 'D' ? 0 : s.gap_open) + s.gap_extend;
            ++i;
            break;
        default:
            return std::string("unknown CIGAR op '") + op + "'";
        }
        prev = op;
    }
    if (i != q.size() || j != r.size())
        return "CIGAR covers " + std::to_string(i) + " x " + std::to_string(j) + " of " + std::to_string(q.size()) +
               " x " + std::to_string(r.size());
    return "";
}

#define GPUALIGN_REQUIRE_WFA2()
#else
#define GPUALIGN_REQUIRE_WFA2() GTEST_SKIP() << "built without WFA2-lib (apt install libwfa2-dev)"
#endif

std::filesystem::path long_dir() { return shared_data() / "dna" / "long"; }

// Proves the score conversion on hand-checked pairs: identical (all matches), one mismatch, one 3-base gap, under 2/3/5/2 and 1/4/6/2.
TEST(Wfa2Oracle, ConventionOnKnownAnswers) {
    GPUALIGN_REQUIRE_WFA2();
#if GPUALIGN_HAVE_WFA2
    const Codes a = dna("ACGTACGTAC"), mism = dna("ACGTTCGTAC"), longer = dna("ACGTACGTACGGG");
    struct Case {
        DnaNumbers d;
        const Codes& r;
        std::int64_t want;
    };
    const Case cases[] = {
        {{2, 3, 5, 2}, a, 20},      {{2, 3, 5, 2}, mism, 15},   {{2, 3, 5, 2}, longer, 20 - (5 + 3 * 2)},
        {{1, 4, 6, 2}, a, 10},      {{1, 4, 6, 2}, mism, 5},    {{1, 4, 6, 2}, longer, 10 - (6 + 3 * 2)},
    };
    for (const Case& c : cases) {
        Wfa2 wfa(c.d, true);
        const ScoringScheme s = c.d.scheme();
        EXPECT_EQ(wfa.global_score(a, c.r), c.want);
        std::int64_t rescored = 0;
        EXPECT_EQ(rescore_wfa_cigar(wfa.cigar(), a, c.r, s, rescored), "");
        EXPECT_EQ(rescored, c.want);
        EXPECT_EQ(align_pair_long(a, c.r, s, AlignMode::global, false).score, c.want);
    }
#endif
}

// Proves the human vs orangutan mitochondrial genomes score 18184 globally (2/3/5/2) in both WFA2 and align_pair_long, and that WFA2's optimal path re-scores to the same under our scheme.
TEST(Wfa2Oracle, MitoHumanOrangutanGlobalScore) {
    GPUALIGN_REQUIRE_WFA2();
#if GPUALIGN_HAVE_WFA2
    const auto path = long_dir() / "mito_human_vs_orangutan.fa";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
    const auto recs = read_fasta_codes<Alphabet::dna>(path);
    ASSERT_EQ(recs.size(), 2u);
    ASSERT_FALSE(has_n(recs[0]) || has_n(recs[1]));  // WFA2 would match N with N
    const DnaNumbers d{2, 3, 5, 2};
    const ScoringScheme s = d.scheme();
    Wfa2 wfa(d, true);
    EXPECT_EQ(wfa.global_score(recs[0], recs[1]), 18184);
    std::int64_t rescored = 0;
    EXPECT_EQ(rescore_wfa_cigar(wfa.cigar(), recs[0], recs[1], s, rescored), "");
    EXPECT_EQ(rescored, 18184);
    LongAlignOptions o;
    o.threads = 2;
    const AlignmentResult ours = align_pair_long(recs[0], recs[1], s, AlignMode::global, false, o);
    EXPECT_EQ(ours.score, 18184);
    EXPECT_EQ(rescore_cigar(ours, recs[0], recs[1], s), 18184);
#endif
}

// Proves on the 50,000 x 54,525 H. pylori pair (record 4 of hpyloriG27_vs_SJM180.{A,B}.fa) that align_pair_long's global score-only optimum equals WFA2's, 75773 (not under ASan: 2.7e9 cells).
TEST(Wfa2Oracle, Hpylori50kbPairGlobalScore) {
    GPUALIGN_REQUIRE_WFA2();
#if GPUALIGN_HAVE_WFA2
    if (under_asan) GTEST_SKIP() << "2.7e9 cells: too slow under AddressSanitizer";
    const auto a = long_dir() / "hpyloriG27_vs_SJM180.A.fa", b = long_dir() / "hpyloriG27_vs_SJM180.B.fa";
    if (!std::filesystem::exists(a) || !std::filesystem::exists(b)) GTEST_SKIP() << "no " << a << " / " << b;
    const auto qs = read_fasta_codes<Alphabet::dna>(a, 5), rs = read_fasta_codes<Alphabet::dna>(b, 5);
    ASSERT_EQ(qs.size(), 5u);
    ASSERT_EQ(rs.size(), 5u);
    const Codes& q = qs[4];
    const Codes& r = rs[4];
    ASSERT_EQ(q.size(), 50000u);
    ASSERT_EQ(r.size(), 54525u);
    ASSERT_FALSE(has_n(q) || has_n(r));
    const DnaNumbers d{2, 3, 5, 2};
    Wfa2 wfa(d, false);
    EXPECT_EQ(wfa.global_score(q, r), 75773);
    LongAlignOptions o;
    o.threads = 2;
    const AlignmentResult ours = align_pair_long(q, r, d.scheme(), AlignMode::global, true, o);
    EXPECT_EQ(ours.score, 75773);
    EXPECT_EQ(ours.query_end, 50000);
    EXPECT_EQ(ours.ref_end, 54525);
#endif
}

/// A seeded random DNA pair without N: related (0-30% substitutions and indel
/// runs of 1-5, sometimes one long indel; lengths 1..max_len) or unrelated.
Pair random_dna_pair(PairGenerator& g, std::size_t max_len) {
    static const Codes acgt = dna("ACGT");
    auto base = [&] { return acgt[g.below(4)]; };
    Pair p;
    if (g.below(5) == 0) {  // unrelated, at most 500 long (WFA2's time grows with the penalty)
        p.query.resize(1 + g.below(500));
        p.ref.resize(1 + g.below(500));
        for (auto& c : p.query) c = base();
        for (auto& c : p.ref) c = base();
        return p;
    }
    p.query.resize(1 + g.below(max_len));
    for (auto& c : p.query) c = base();
    const double div = 0.30 * g.unit();
    for (std::size_t k = 0; k < p.query.size(); ++k) {
        if (g.unit() >= div) {
            p.ref.push_back(p.query[k]);
            continue;
        }
        const std::uint64_t kind = g.below(4), run = 1 + g.below(5);
        if (kind < 2) p.ref.push_back(base());  // substitution
        else if (kind == 2) {                   // insertion
            for (std::uint64_t t = 0; t < run; ++t) p.ref.push_back(base());
            p.ref.push_back(p.query[k]);
        } else {
            k += run - 1;  // deletion
        }
    }
    if (g.below(4) == 0 && p.ref.size() > 10) {  // one long indel in the middle
        const std::size_t at = p.ref.size() / 2, len = 20 + g.below(200);
        if (g.below(2) == 0) {
            Codes ins(len);
            for (auto& c : ins) c = base();
            p.ref.insert(p.ref.begin() + static_cast<std::ptrdiff_t>(at), ins.begin(), ins.end());
        } else {
            p.ref.erase(p.ref.begin() + static_cast<std::ptrdiff_t>(at),
                        p.ref.begin() + static_cast<std::ptrdiff_t>(std::min(p.ref.size(), at + len)));
        }
    }
    if (p.ref.empty()) p.ref.push_back(base());
    if (g.below(2) == 0) std::swap(p.query, p.ref);
    return p;
}

// Proves on seeded random DNA pairs (lengths up to 2,000, divergence 0-30%, some long indels, some unrelated) that align_pair_long's global score equals WFA2's under 2/3/5/2 and 1/4/6/2, and WFA2's path re-scores to it.
TEST(Wfa2Oracle, RandomDnaGlobalScores) {
    GPUALIGN_REQUIRE_WFA2();
#if GPUALIGN_HAVE_WFA2
    // One thread: the plans put many tiles on short pairs (see long_aligner_test.cpp, fit_threads).
    LongAlignOptions plans[3];
    plans[0].threads = 1;  // default plan: direct leaves above 2^20 cells
    plans[1].threads = 1;
    plans[1].tile = 64;
    plans[1].plan.fan_out = 16;  // fan-out levels only (no direct cut into leaves)
    plans[1].plan.leaf_cells = 4096;
    plans[1].plan.min_tile = 16;
    plans[1].plan.direct_leaf_bytes = 0;
    plans[2].threads = 1;
    plans[2].tile = 7;
    plans[2].plan.fan_out = 3;
    plans[2].plan.leaf_cells = 37;
    plans[2].plan.min_tile = 2;
    plans[2].plan.direct_leaf_bytes = 0;
    int failures = 0, runs = 0;
    for (const DnaNumbers d : {DnaNumbers{2, 3, 5, 2}, DnaNumbers{1, 4, 6, 2}}) {
        const ScoringScheme s = d.scheme();
        Wfa2 wfa(d, true);
        PairGenerator g(0x3FA2u + static_cast<std::uint64_t>(d.match), Alphabet::dna);
        const int pairs = under_asan ? 30 : 120;
        for (int k = 0; k < pairs; ++k) {
            const Pair p = random_dna_pair(g, 2000);
            const LongAlignOptions& o = plans[k % 3];
            const std::int64_t theirs = wfa.global_score(p.query, p.ref);
            std::int64_t rescored = 0;
            std::string what = rescore_wfa_cigar(wfa.cigar(), p.query, p.ref, s, rescored);
            if (what.empty() && rescored != theirs)
                what = "WFA2's CIGAR re-scores to " + std::to_string(rescored) + ", not its converted score";
            const AlignmentResult ours = align_pair_long(p.query, p.ref, s, AlignMode::global, k % 2 == 0, o);
            if (what.empty() && ours.score != theirs)
                what = "align_pair_long " + std::to_string(ours.score) + " != WFA2 " + std::to_string(theirs);
            if (what.empty() && ours.has_cigar && rescore_cigar(ours, p.query, p.ref, s) != ours.score)
                what = "align_pair_long's CIGAR does not re-score to its score";
            ++runs;
            if (!what.empty() && ++failures <= 5)
                ADD_FAILURE() << what << "\n  scheme " << d.match << "/" << d.mismatch << "/" << d.open << "/"
                              << d.extend << ", plan " << k % 3 << "\n  query " << dna_text(p.query) << "\n  ref "
                              << dna_text(p.ref);
        }
    }
    EXPECT_EQ(failures, 0) << "of " << runs << " pairs";
#endif
}

}  // namespace
}  // namespace gpualign::test
