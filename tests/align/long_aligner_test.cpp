// align_pair_long (the linear-memory checkpoint aligner) against the
// full-matrix reference align_pair_full_matrix: the two must agree byte for
// byte (score, coordinates, CIGAR, has_cigar) under every scheme, mode and
// checkpoint plan, including plans that put tile, checkpoint and leaf
// boundaries on every cell. Then real long pairs, the memory limit, and the
// routing of align_pair above full_matrix_cells. Last, the SIMD tile kernel
// (lib/src/align/long/long_tile_kernel.cpp) against its scalar twin tile_rows and the
// full matrix on every SIMD target of this CPU: Region outputs (checkpoint
// rows and columns, direction bytes, best cell) and whole alignments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <filesystem>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpualign/align/long_aligner.hpp"
#include "gpualign/align/simd_aligner.hpp"
#include "semi_global_pairs.hpp"
#include "test_matrices.hpp"
#include "test_util.hpp"


namespace gpualign::test {
namespace {


// ---- checkpoint plans ----------------------------------------------------------
// Every combination of these values is one plan; plan(k) decodes k in mixed
// radix, so consecutive k vary the tile side fastest.
constexpr std::int64_t tiles[] = {1, 2, 3, 7, 16, 64};
constexpr int fan_outs[] = {2, 3, 5, 16};
constexpr std::uint64_t leaves[] = {1, 4, 37, 1024};
constexpr std::int64_t min_tiles[] = {1, 2, 8};
constexpr int thread_counts[] = {1, 2};
// 0: every level fans out (fan_out x fan_out tiles, recursively); the default
// lets a level cut straight into square leaves.
constexpr std::uint64_t direct_leaf_bytes[] = {0, CheckpointPlan{}.direct_leaf_bytes};
constexpr std::size_t plan_count = std::size(tiles) * std::size(fan_outs) * std::size(leaves) *
                                   std::size(min_tiles) * std::size(thread_counts) * std::size(direct_leaf_bytes);

LongAlignOptions make_options(std::int64_t tile, int fan_out, std::uint64_t leaf, std::int64_t min_tile, int threads,
                              std::uint64_t direct = CheckpointPlan{}.direct_leaf_bytes) {
    LongAlignOptions o;
    o.tile = tile;
    o.plan.fan_out = fan_out;
    o.plan.leaf_cells = leaf;
    o.plan.min_tile = min_tile;
    o.plan.direct_leaf_bytes = direct;
    o.threads = threads;
    return o;
}

LongAlignOptions plan(std::size_t k) {
    k %= plan_count;
    const std::int64_t tile = tiles[k % std::size(tiles)];
    k /= std::size(tiles);
    const int fan = fan_outs[k % std::size(fan_outs)];
    k /= std::size(fan_outs);
    const std::uint64_t leaf = leaves[k % std::size(leaves)];
    k /= std::size(leaves);
    const std::int64_t min_tile = min_tiles[k % std::size(min_tiles)];
    k /= std::size(min_tiles);
    const int threads = thread_counts[k % std::size(thread_counts)];
    k /= std::size(thread_counts);
    return make_options(tile, fan, leaf, min_tile, threads, direct_leaf_bytes[k % std::size(direct_leaf_bytes)]);
}

std::string describe(const LongAlignOptions& o) {
    return "tile=" + std::to_string(o.tile) + " fan_out=" + std::to_string(o.plan.fan_out) +
           " leaf_cells=" + std::to_string(o.plan.leaf_cells) + " min_tile=" + std::to_string(o.plan.min_tile) +
           " direct_leaf_bytes=" + std::to_string(o.plan.direct_leaf_bytes) + " threads=" + std::to_string(o.threads) +
           " memory_limit=" + std::to_string(o.memory_limit);
}

std::string describe(const AlignmentResult& r) {
    return "score " + std::to_string(r.score) + " q[" + std::to_string(r.query_begin) + "," +
           std::to_string(r.query_end) + ") r[" + std::to_string(r.ref_begin) + "," + std::to_string(r.ref_end) +
           ") has_cigar=" + std::to_string(r.has_cigar) + " cigar=" + cigar_string(r.cigar);
}

std::string letters(const Codes& c, Alphabet a) {
    std::string s;
    for (std::uint8_t x : c)
        s += a == Alphabet::dna ? seqan3::to_char(seqan3::assign_rank_to(x, seqan3::dna5{}))
                                : seqan3::to_char(seqan3::assign_rank_to(x, seqan3::aa27{}));
    return s;
}

std::string describe(const ScoringScheme& s) {
    return std::string(to_string(s.alphabet)) + " " + s.matrix_name + " go=" + std::to_string(s.gap_open) +
           " ge=" + std::to_string(s.gap_extend);
}

/// Runs both aligners on one pair; "" when byte-identical, else a reproducer.
std::string compare(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode, bool score_only,
                    const LongAlignOptions& o) {
    const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, score_only);
    AlignmentResult got;
    std::string error;
    try {
        got = align_pair_long(q, r, s, mode, score_only, o);
    } catch (const std::exception& e) {
        error = std::string("threw ") + e.what();
    }
    if (error.empty() && got == want) return "";
    return "align_pair_long differs from align_pair_full_matrix\n  scheme: " + describe(s) +
           "\n  mode: " + to_string(mode) + (score_only ? " score-only" : " with CIGAR") + "\n  options: " +
           describe(o) + "\n  query (" + std::to_string(q.size()) + "): " + letters(q, s.alphabet) + "\n  ref (" +
           std::to_string(r.size()) + "): " + letters(r, s.alphabet) + "\n  want: " + describe(want) +
           "\n  got:  " + (error.empty() ? describe(got) : error);
}

/// Two threads only on short pairs (m + n <= 24): the wavefront ends each
/// tile anti-diagonal with an OpenMP barrier, and on a busy machine (ctest -j
/// on every core) each barrier can cost a scheduler time slice while libgomp
/// spins, which for 1-cell tiles on 300 x 300 pairs adds up to minutes.
/// The short pairs of the grid still run its two-thread plans, and
/// TwoThreadWavefrontMatchesFullMatrix and the real-data tests run larger
/// regions (many tiles per anti-diagonal) on two threads.
LongAlignOptions fit_threads(LongAlignOptions o, std::size_t m, std::size_t n) {
    if (m + n > 24) o.threads = 1;
    return o;
}

/// Counts mismatches, reporting the first few in full.
class Mismatches {
public:
    void check(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode, bool score_only,
               const LongAlignOptions& o) {
        ++runs_;
        const std::string what = compare(q, r, s, mode, score_only, o);
        if (!what.empty() && ++count_ <= 5) ADD_FAILURE() << what;
    }
    int count() const { return count_; }
    int runs() const { return runs_; }

private:
    int count_ = 0, runs_ = 0;
};

// ---- the grid: scheme x mode, score-only and CIGAR, every plan --------------------
struct SchemeCase {
    const char* name;
    Alphabet alphabet;
    int go, ge;
    ScoringScheme scheme() const {
        return alphabet == Alphabet::dna ? make_dna_scheme(2, 3, go, ge, -3) : blosum62_scheme(go, ge);
    }
};

const SchemeCase scheme_cases[] = {
    {"dna_affine_5_2", Alphabet::dna, 5, 2},        {"dna_linear_0_2", Alphabet::dna, 0, 2},
    {"dna_affine_3_1", Alphabet::dna, 3, 1},        {"blosum62_11_1", Alphabet::protein, 11, 1},
    {"blosum62_10_2", Alphabet::protein, 10, 2},    {"blosum62_linear_0_2", Alphabet::protein, 0, 2},
};

/// A seeded random sequence over the alphabet's common letters (no N / rare codes).
Codes plain_seq(PairGenerator& g, std::size_t len, Alphabet a) {
    static const Codes acgt = dna("ACGT");
    static const Codes aa = protein("ACDEFGHIKLMNPQRSTVWY");
    Codes s(len);
    for (auto& c : s) c = a == Alphabet::dna ? acgt[g.below(4)] : aa[g.below(20)];
    return s;
}

/// The edge cases of the grid (each run under several plans).
std::vector<Pair> edge_pairs(PairGenerator& g, Alphabet a) {
    std::vector<Pair> p;
    const Codes one = plain_seq(g, 1, a);
    Codes other = plain_seq(g, 1, a);
    while (other == one) other = plain_seq(g, 1, a);
    // Length 1 on either side.
    p.push_back({one, one});
    p.push_back({one, other});
    for (std::size_t len : {2u, 17u, 300u}) {
        Codes s = plain_seq(g, len, a);
        s[len / 2] = one[0];  // the single residue occurs in the long side
        p.push_back({one, s});
        p.push_back({s, one});
        p.push_back({other, s});
    }
    // Homopolymers: every cell ties.
    p.push_back({Codes(40, one[0]), Codes(37, one[0])});
    p.push_back({Codes(33, one[0]), Codes(65, one[0])});
    if (a == Alphabet::dna) {
        // All-N sequences (code 3): N scores as a mismatch against everything, N included.
        p.push_back({Codes(1, 3), Codes(1, 3)});
        p.push_back({Codes(20, 3), Codes(30, 3)});
        p.push_back({Codes(50, 3), plain_seq(g, 60, a)});
        p.push_back({plain_seq(g, 45, a), Codes(45, 3)});
    }
    // Highly divergent: independent random sequences.
    p.push_back({plain_seq(g, 200, a), plain_seq(g, 250, a)});
    p.push_back({plain_seq(g, 300, a), plain_seq(g, 120, a)});
    p.push_back({g.random_seq(150, 2), g.random_seq(170, 2)});  // two letters: many ties
    // Long gaps: a 40-200 residue deletion or insertion in the middle.
    for (std::size_t gap : {40u, 97u, 200u}) {
        const Codes q = plain_seq(g, 260, a);
        Codes del(q.size() - gap);  // q without [30, 30 + gap)
        for (std::size_t k = 0; k < del.size(); ++k) del[k] = q[k < 30 ? k : k + gap];
        p.push_back({q, del});
        const Codes shortq = plain_seq(g, 100, a), ins = plain_seq(g, gap, a);
        Codes withins(shortq.size() + gap);  // shortq with `ins` at 50
        for (std::size_t k = 0; k < withins.size(); ++k)
            withins[k] = k < 50 ? shortq[k] : k < 50 + gap ? ins[k - 50] : shortq[k - gap];
        p.push_back({shortq, withins});
        p.push_back({withins, shortq});
    }
    // Near-identical.
    for (int k = 0; k < 3; ++k) {
        const Codes q = plain_seq(g, 280 + 10 * k, a);
        p.push_back({q, g.mutate(q, 0.01 + 0.01 * k, a == Alphabet::dna ? 4 : 20, 300)});
    }
    p.push_back({plain_seq(g, 300, a), {}});
    p.back().ref = p.back().query;  // identical
    return p;
}

/// Lengths at tile-16 boundaries +-1, related and unrelated.
std::vector<Pair> boundary_pairs(PairGenerator& g, Alphabet a) {
    std::vector<Pair> p;
    const std::size_t lens[] = {15, 16, 17, 31, 32, 33};
    for (std::size_t m : lens)
        for (std::size_t n : lens) {
            const Codes q = plain_seq(g, m, a);
            Codes r = g.below(2) ? plain_seq(g, n, a) : g.mutate(q, 0.15, a == Alphabet::dna ? 4 : 20, n);
            r.resize(n, r.empty() ? 0 : r.back());
            p.push_back({q, r});
        }
    return p;
}

/// Plans whose tiles are 16 a side, with checkpoint and leaf boundaries inside them.
const LongAlignOptions boundary_plans[] = {
    make_options(16, 2, 1, 1, 1, 0),     make_options(16, 3, 4, 2, 1, 0),  make_options(16, 16, 37, 8, 1, 0),
    make_options(16, 5, 1024, 8, 1, 0),  make_options(16, 2, 1, 1, 1),     make_options(16, 3, 37, 2, 1),
};

struct GridCase {
    std::size_t index;  // seeds the pairs and rotates the plans
    SchemeCase sc;
    AlignMode mode;
    std::string name() const {
        std::string n = std::string(sc.name) + "_" + to_string(mode);
        std::replace(n.begin(), n.end(), '-', '_');  // "semi-global": test names are identifiers
        return n;
    }
};
void PrintTo(const GridCase& c, std::ostream* os) { *os << c.name(); }

std::vector<GridCase> grid_cases() {
    std::vector<GridCase> out;
    for (const SchemeCase& sc : scheme_cases)
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            out.push_back({out.size(), sc, mode});
    return out;
}

class LongAlignerGrid : public testing::TestWithParam<GridCase> {};

// Proves align_pair_long is byte-identical to align_pair_full_matrix (score, coordinates, CIGAR) for each scheme and mode (semi-global with its row-end pairs too), with and without CIGAR, under every tile/fan-out/leaf/min-tile/thread/direct-leaf plan, on random and edge-case pairs.
TEST_P(LongAlignerGrid, MatchesFullMatrix) {
    const GridCase& c = GetParam();
    const AlignMode mode = c.mode;
    const ScoringScheme s = c.sc.scheme();
    const std::size_t param_index = c.index;
    PairGenerator g(0x10A6u + 7919u * param_index, c.sc.alphabet);
    Mismatches bad;
    // Random pairs of mixed lengths 1..300 (related and unrelated, some with a
    // 2-letter alphabet, DNA with rare N): each run under the next plan, so the
    // instance goes through every plan.
    std::size_t k = param_index * 97;
    auto next_plan = [&](const auto& p) { return fit_threads(plan(k++), p.query.size(), p.ref.size()); };
    // Two runs per pair: every plan once (half of them under ASan).
    const std::size_t random_pairs = under_asan ? plan_count / 4 : plan_count / 2;
    for (std::size_t t = 0; t < random_pairs; ++t) {
        const Pair p = g.next(300);
        for (bool score_only : {false, true}) bad.check(p.query, p.ref, s, mode, score_only, next_plan(p));
    }
    for (const Pair& p : edge_pairs(g, c.sc.alphabet))
        for (bool score_only : {false, true})
            for (int rep = 0; rep < 3; ++rep) bad.check(p.query, p.ref, s, mode, score_only, next_plan(p));
    for (const Pair& p : boundary_pairs(g, c.sc.alphabet))
        for (bool score_only : {false, true})
            for (const LongAlignOptions& o : boundary_plans) bad.check(p.query, p.ref, s, mode, score_only, o);
    if (mode == AlignMode::semi_global)
        for (const SemiGlobalPair& p :
             semi_global_edge_pairs(s, [&](std::size_t len) { return plain_seq(g, len, c.sc.alphabet); }))
            for (bool score_only : {false, true})
                for (int rep = 0; rep < 3; ++rep) bad.check(p.query, p.ref, s, mode, score_only, next_plan(p));
    EXPECT_EQ(bad.count(), 0) << "of " << bad.runs() << " runs";
}

INSTANTIATE_TEST_SUITE_P(Grid, LongAlignerGrid, testing::ValuesIn(grid_cases()),
                         [](const testing::TestParamInfo<GridCase>& info) { return info.param.name(); });

// Proves two threads give the full matrix's bytes where several tiles share each anti-diagonal (wavefront races would show here), for fan-out and direct-leaf plans, local, global and semi-global.
TEST(LongAligner, TwoThreadWavefrontMatchesFullMatrix) {
    const LongAlignOptions plans[] = {
        make_options(16, 3, 1024, 8, 2, 0),
        make_options(7, 16, 37, 2, 2, 0),
        make_options(3, 2, 1024, 8, 2, 0),
        make_options(16, 5, 256, 8, 2),
    };
    // Few runs on purpose: each anti-diagonal is a barrier (see fit_threads).
    Mismatches bad;
    for (int k = 0; k < 2; ++k) {
        const SchemeCase& sc = scheme_cases[k == 0 ? 0 : 3];
        const ScoringScheme s = sc.scheme();
        PairGenerator g(0x7770u + static_cast<std::uint64_t>(k), sc.alphabet);
        const Codes q = plain_seq(g, 120, sc.alphabet);
        const Codes r = g.mutate(q, 0.2, sc.alphabet == Alphabet::dna ? 4 : 20, 140);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (int t = 0; t < 2; ++t) bad.check(q, r, s, mode, false, plans[2 * k + t]);
    }
    EXPECT_EQ(bad.count(), 0);
}

// ---- independent checks of align_pair_long's own output -------------------------------

// Proves every CIGAR align_pair_long returns re-scores (rescore_cigar) to its reported score and meets the docs/scoring.md invariants, with score-only agreeing on score and coordinates.
TEST(LongAligner, CigarsRescoreToReportedScore) {
    int failures = 0, runs = 0;
    for (const SchemeCase& sc : scheme_cases) {
        const ScoringScheme s = sc.scheme();
        PairGenerator g(0xC16A4u + static_cast<std::uint64_t>(sc.go * 31 + sc.ge), sc.alphabet);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (int t = 0; t < (under_asan ? 20 : 60); ++t) {
                const Pair p = g.next(300);
                const LongAlignOptions o =
                    fit_threads(plan(static_cast<std::size_t>(t) * 37 + 5), p.query.size(), p.ref.size());
                const AlignmentResult full = align_pair_long(p.query, p.ref, s, mode, false, o);
                const AlignmentResult fast = align_pair_long(p.query, p.ref, s, mode, true, o);
                ++runs;
                std::string what;
                if (full.has_cigar && (mode != AlignMode::local || full.score > 0)) {
                    try {
                        const std::int32_t rescored = rescore_cigar(full, p.query, p.ref, s);
                        if (rescored != full.score)
                            what = "rescore_cigar " + std::to_string(rescored) + " != reported " + describe(full);
                    } catch (const std::exception& e) {
                        what = std::string("rescore_cigar threw ") + e.what() + " on " + describe(full);
                    }
                }
                if (what.empty()) what = check_invariants(full, fast, p.query, p.ref, s, mode);
                if (!what.empty() && ++failures <= 5)
                    ADD_FAILURE() << what << "\n  scheme " << describe(s) << ", " << to_string(mode) << ", "
                                  << describe(o) << "\n  query " << letters(p.query, s.alphabet) << "\n  ref "
                                  << letters(p.ref, s.alphabet);
            }
    }
    EXPECT_EQ(failures, 0) << "of " << runs << " pairs";
}

// Proves empty sequences give the reference's answer (one gap, the empty alignment, or unaligned) rather than a crash.
TEST(LongAligner, EmptySequencesMatchFullMatrix) {
    const ScoringScheme s = dna_scheme(5, 2);
    const Codes some = dna("ACGTTGCA");
    Mismatches bad;
    for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool score_only : {false, true}) {
            bad.check({}, {}, s, mode, score_only, plan(0));
            bad.check(some, {}, s, mode, score_only, plan(1));
            bad.check({}, some, s, mode, score_only, plan(2));
        }
    EXPECT_EQ(bad.count(), 0);
}

// Proves the documented std::invalid_argument for tile < 1, fan_out < 2 and
// leaf_band < 0 (or NaN).
TEST(LongAligner, BadOptionsAreRejected) {
    const ScoringScheme s = dna_scheme(5, 2);
    const Codes q = dna("ACGTACGT");
    LongAlignOptions o;
    o.tile = 0;
    EXPECT_THROW(align_pair_long(q, q, s, AlignMode::global, false, o), std::invalid_argument);
    o = {};
    o.plan.fan_out = 1;
    EXPECT_THROW(align_pair_long(q, q, s, AlignMode::local, false, o), std::invalid_argument);
    o = {};
    o.plan.leaf_band = -1;
    EXPECT_THROW(align_pair_long(q, q, s, AlignMode::global, false, o), std::invalid_argument);
    o.plan.leaf_band = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(align_pair_long(q, q, s, AlignMode::global, false, o), std::invalid_argument);
    o.plan.leaf_band = 0;
    EXPECT_NO_THROW(align_pair_long(q, q, s, AlignMode::global, false, o));
}

// Proves the 32-bit score bound is enforced (std::length_error) before any allocation.
TEST(LongAligner, ScoreBoundIsEnforced) {
    const ScoringScheme s = make_dna_scheme(2, 3, 1000, 2, -3);
    const Codes q(1'100'000, 0), r(1, 0);
    ASSERT_FALSE(fits_int32(s, q.size(), r.size()));
    EXPECT_THROW(align_pair_long(q, r, s, AlignMode::global, true), std::length_error);
}

// ---- real data -----------------------------------------------------------------------

class LongAlignerRealData : public testing::Test {
protected:
    static std::filesystem::path dir() { return shared_data() / "dna" / "long"; }
    void SetUp() override {
        if (!std::filesystem::is_directory(dir())) GTEST_SKIP() << "no data folder " << dir();
    }
};

// Proves the human vs orangutan mitochondrial genomes (16,569 x 16,499, global, CIGAR, 2/3/5/2) align to score 18184 with the same bytes as the full matrix, on 2 threads and default plan.
TEST_F(LongAlignerRealData, MitoHumanOrangutanGlobalMatchesFullMatrix) {
    const auto recs = read_fasta_codes<Alphabet::dna>(dir() / "mito_human_vs_orangutan.fa");
    ASSERT_EQ(recs.size(), 2u);
    ASSERT_EQ(recs[0].size(), 16569u);
    ASSERT_EQ(recs[1].size(), 16499u);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    LongAlignOptions o;
    o.threads = 2;
    const AlignmentResult got = align_pair_long(recs[0], recs[1], s, AlignMode::global, false, o);
    EXPECT_EQ(got.score, 18184);
    EXPECT_EQ(rescore_cigar(got, recs[0], recs[1], s), 18184);
    const AlignmentResult want = align_pair_full_matrix(recs[0], recs[1], s, AlignMode::global, false);
    EXPECT_EQ(want.score, 18184);
    EXPECT_TRUE(got == want) << "got  " << describe(got).substr(0, 300) << "\nwant " << describe(want).substr(0, 300);
}

// Proves a real H. pylori pair (record 0, first 8,000 bases of each side) aligns locally with the same bytes as the full matrix, with CIGAR and score-only, under the default plan and a small one.
TEST_F(LongAlignerRealData, HpyloriPrefixLocalMatchesFullMatrix) {
    auto qs = read_fasta_codes<Alphabet::dna>(dir() / "hpyloriG27_vs_SJM180.A.fa", 1);
    auto rs = read_fasta_codes<Alphabet::dna>(dir() / "hpyloriG27_vs_SJM180.B.fa", 1);
    ASSERT_EQ(qs.size(), 1u);
    ASSERT_EQ(rs.size(), 1u);
    ASSERT_GE(qs[0].size(), 8000u);
    ASSERT_GE(rs[0].size(), 8000u);
    qs[0].resize(8000);
    rs[0].resize(8000);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    LongAlignOptions defaults;
    defaults.threads = 2;
    const LongAlignOptions small = make_options(64, 4, 4096, 8, 2);
    Mismatches bad;
    for (bool score_only : {false, true}) {
        bad.check(qs[0], rs[0], s, AlignMode::local, score_only, defaults);
        if (!under_asan) bad.check(qs[0], rs[0], s, AlignMode::local, score_only, small);
    }
    EXPECT_EQ(bad.count(), 0);
}

// Proves semi-global on real reads: pieces of H. pylori G27 (record 0: 1 to
// 3,000 bases, as read and with 5% edits) fitted into the first 8,000 bases of
// SJM180 give the full matrix's bytes, with CIGAR (re-scored) and score-only,
// over a grid of gap penalties, under small plans with leaf and tile batches.
TEST_F(LongAlignerRealData, HpyloriReadsSemiGlobalMatchFullMatrix) {
    const auto qs = read_fasta_codes<Alphabet::dna>(dir() / "hpyloriG27_vs_SJM180.A.fa", 1);
    auto rs = read_fasta_codes<Alphabet::dna>(dir() / "hpyloriG27_vs_SJM180.B.fa", 1);
    ASSERT_EQ(qs.size(), 1u);
    ASSERT_EQ(rs.size(), 1u);
    ASSERT_GE(qs[0].size(), 10000u);
    ASSERT_GE(rs[0].size(), 8000u);
    rs[0].resize(under_asan ? 3000 : 8000);
    const Codes& genome = qs[0];
    PairGenerator g(0x5E6u, Alphabet::dna);
    std::vector<Codes> reads;
    for (const auto& [at, len] : {std::pair<std::size_t, std::size_t>{2000, 1}, {500, 37}, {4000, 700}, {1000, 3000}}) {
        const std::size_t l = under_asan ? std::min<std::size_t>(len, 700) : len;
        reads.emplace_back(genome.begin() + static_cast<std::ptrdiff_t>(at), genome.begin() + static_cast<std::ptrdiff_t>(at + l));
        reads.push_back(g.mutate(reads.back(), 0.05, 4, l + 50));
    }
    LongAlignOptions batches = make_options(64, 4, 4096, 8, 2);
    batches.leaf_batch = 8;
    batches.tile_batch = 4;
    const LongAlignOptions plans[] = {make_options(64, 4, 4096, 8, 2, 0), batches};
    Mismatches bad;
    for (const auto& [go, ge] : {std::pair{5, 2}, {3, 1}, {0, 2}, {10, 1}, {2, 4}}) {
        const ScoringScheme s = dna_scheme(go, ge);
        for (const Codes& read : reads) {
            for (bool score_only : {false, true})
                for (const LongAlignOptions& o : plans) bad.check(read, rs[0], s, AlignMode::semi_global, score_only, o);
            const AlignmentResult got = align_pair_long(read, rs[0], s, AlignMode::semi_global, false, plans[1]);
            EXPECT_EQ(check_invariants(got, align_pair_long(read, rs[0], s, AlignMode::semi_global, true, plans[1]),
                                       read, rs[0], s, AlignMode::semi_global),
                      "")
                << read.size() << "-base read, go=" << go << " ge=" << ge;
        }
    }
    EXPECT_EQ(bad.count(), 0) << "of " << bad.runs() << " runs";
}

// ---- memory --------------------------------------------------------------------------

/// A deterministic related DNA pair of about len x len (~10% substitutions and indels, no N).
Pair related_dna(std::uint64_t seed, std::size_t len) {
    PairGenerator g(seed, Alphabet::dna);
    Pair p;
    p.query = plain_seq(g, len, Alphabet::dna);
    p.ref = g.mutate(p.query, 0.10, 3, len);  // 3 letters in the mutations: no N
    return p;
}

// Proves a 4 MiB memory limit (checkpoints and tiles) is enough to align a ~20 kb x 20 kb pair with CIGAR, byte-identical to the 400 MB full matrix (smaller pair under ASan).
TEST(LongAligner, FourMiBLimitAlignsLargePairExactly) {
    const std::size_t len = under_asan ? 8000 : 20000;
    const Pair p = related_dna(0x4D1B, len);
    const ScoringScheme s = dna_scheme(5, 2);
    LongAlignOptions o;
    o.threads = 2;
    o.memory_limit = std::size_t{4} << 20;
    std::uint64_t last_done = 0, last_total = 0;
    o.progress = [&](std::uint64_t done, std::uint64_t total) {
        EXPECT_GE(done, last_done);
        last_done = done;
        last_total = total;
    };
    const AlignmentResult got = align_pair_long(p.query, p.ref, s, AlignMode::global, false, o);
    EXPECT_EQ(last_total, static_cast<std::uint64_t>(p.query.size()) * p.ref.size());
    EXPECT_GE(last_done, last_total);  // the forward pass plus the recomputation
    const AlignmentResult want = align_pair_full_matrix(p.query, p.ref, s, AlignMode::global, false);
    EXPECT_TRUE(got == want) << "got  " << describe(got).substr(0, 300) << "\nwant " << describe(want).substr(0, 300);
}

// Proves a memory limit below the documented floor (here 1 KiB, and half the floor) throws std::bad_alloc, as long_aligner.hpp documents, and does not crash or leak.
TEST(LongAligner, TooSmallMemoryLimitThrowsBadAlloc) {
    const Pair p = related_dna(0x5A11, 3000);
    const ScoringScheme s = dna_scheme(5, 2);
    for (std::size_t limit : {std::size_t{1} << 10, 8 * 2 * (p.query.size() + p.ref.size())}) {
        LongAlignOptions o;
        o.threads = 2;
        o.memory_limit = limit;
        for (AlignMode mode : {AlignMode::local, AlignMode::global})
            EXPECT_THROW(align_pair_long(p.query, p.ref, s, mode, false, o), std::bad_alloc)
                << "limit " << limit << " " << to_string(mode);
    }
    // Global score-only needs only the borders (8 bytes per row and column).
    LongAlignOptions o;
    o.memory_limit = std::size_t{1} << 10;
    EXPECT_THROW(align_pair_long(p.query, p.ref, s, AlignMode::global, true, o), std::bad_alloc);
    o.memory_limit = 8 * (p.query.size() + p.ref.size() + 2);
    EXPECT_EQ(align_pair_long(p.query, p.ref, s, AlignMode::global, true, o),
              align_pair_full_matrix(p.query, p.ref, s, AlignMode::global, true));
}

// ---- routing -------------------------------------------------------------------------

// Proves align_pair on pairs just above full_matrix_cells (2^24 cells, which it routes to align_pair_long) and at the boundary returns the full matrix's bytes, in every mode.
TEST(LongAligner, AlignPairAboveFullMatrixCellsMatchesReference) {
    const ScoringScheme s = dna_scheme(5, 2);
    struct Dims {
        std::size_t m, n;
    };
    std::vector<Dims> dims = {{4096, 4096}, {4096, 4097}};  // 2^24 cells (full matrix), one column more (long)
    if (!under_asan) dims.push_back({5000, 4000});         // 2e7 cells
    for (const Dims& d : dims) {
        PairGenerator g(0xA11Au + d.m * 7 + d.n, Alphabet::dna);
        Pair p;
        p.query = plain_seq(g, d.m, Alphabet::dna);
        p.ref = g.mutate(p.query, 0.12, 4, d.n);
        while (p.ref.size() < d.n) p.ref.push_back(plain_seq(g, 1, Alphabet::dna)[0]);
        ASSERT_EQ(p.ref.size(), d.n);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            const AlignmentResult got = align_pair(p.query, p.ref, s, mode, false);
            const AlignmentResult want = align_pair_full_matrix(p.query, p.ref, s, mode, false);
            EXPECT_TRUE(got == want) << d.m << " x " << d.n << " " << to_string(mode) << "\ngot  "
                                     << describe(got).substr(0, 300) << "\nwant " << describe(want).substr(0, 300);
        }
    }
}

// ---- the SIMD tile kernel against its scalar twin ------------------------------------

/// Each SIMD target of this CPU in turn (restored afterwards): Highway's
/// target mask, which the long tile kernel's dispatch shares with the
/// inter-pair kernel's.
class LongTileEveryTarget : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override { force_simd_target(GetParam()); }
    void TearDown() override { force_simd_target(""); }
};

/// Minus infinity of the gap states at the matrix border (docs/scoring.md).
constexpr std::int32_t minus_inf = std::numeric_limits<std::int32_t>::min() / 2;

struct TileScheme {
    const char* name;
    ScoringScheme s;
    bool iupac;  // sprinkle IUPAC ambiguity codes into DNA sequences
};

/// dna5 (byte-shuffle lookup), EDNAFULL (15 IUPAC codes: gathers) and
/// BLOSUM62 (gathers), affine and linear.
std::vector<TileScheme> tile_schemes() {
    return {{"dna_5_2", dna_scheme(5, 2), false},          {"dna_linear_0_2", dna_scheme(0, 2), false},
            {"ednafull_10_1", ednafull_scheme(10, 1), true}, {"ednafull_linear_0_2", ednafull_scheme(0, 2), true},
            {"blosum62_11_1", blosum62_scheme(11, 1), false}, {"blosum62_linear_0_2", blosum62_scheme(0, 2), false}};
}

/// About one letter in five becomes an IUPAC code (DnaCodes::iupac) or N.
void sprinkle_iupac(PairGenerator& g, Codes& c) {
    for (auto& x : c)
        if (g.below(5) == 0) x = static_cast<std::uint8_t>(g.below(dna_code_letters.size()));
}

/// What one Region pass writes, as RegionOutputs asks for it.
struct RegionRun {
    std::vector<BoundaryCell> rows, cols;
    std::vector<std::uint8_t> dirs;
    RegionResult res;
};

RegionRun run_region(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode, CpuKernel kernel,
                     std::int64_t tile, int threads, const Region& reg, std::int64_t row_stride,
                     std::int64_t col_stride, bool dirs) {
    LongAlignOptions o;
    o.tile = tile;
    o.threads = threads;
    o.kernel = kernel;
    const auto backend = make_cpu_region_backend(q, r, s, mode, o);
    RegionRun run;
    RegionOutputs out;
    out.want_best = true;
    const std::int64_t n_rows = row_stride > 0 ? (reg.rows - 1) / row_stride : 0;
    const std::int64_t n_cols = col_stride > 0 ? (reg.cols - 1) / col_stride : 0;
    run.rows.assign(static_cast<std::size_t>(n_rows * (reg.cols + 1)), BoundaryCell{-7, -7});
    run.cols.assign(static_cast<std::size_t>(n_cols * (reg.rows + 1)), BoundaryCell{-7, -7});
    if (n_rows > 0) out.row_stride = row_stride, out.row_out = run.rows.data();
    if (n_cols > 0) out.col_stride = col_stride, out.col_out = run.cols.data();
    if (dirs) {
        run.dirs.assign(static_cast<std::size_t>(reg.rows * reg.cols), 0xEE);
        out.dirs = run.dirs.data();
    }
    run.res = backend->compute(reg, out, {});
    return run;
}

/// "" when equal, else what differs first.
std::string region_diff(const RegionRun& a, const RegionRun& b) {
    const auto cells = [](const std::vector<BoundaryCell>& x, const std::vector<BoundaryCell>& y, const char* what) {
        if (x.size() != y.size()) return std::string(what) + " sizes differ";
        for (std::size_t k = 0; k < x.size(); ++k)
            if (x[k].h != y[k].h || x[k].g != y[k].g)
                return std::string(what) + "[" + std::to_string(k) + "] simd {" + std::to_string(x[k].h) + "," +
                       std::to_string(x[k].g) + "} scalar {" + std::to_string(y[k].h) + "," + std::to_string(y[k].g) +
                       "}";
        return std::string();
    };
    std::string d = cells(a.rows, b.rows, "checkpoint row cell");
    if (d.empty()) d = cells(a.cols, b.cols, "checkpoint column cell");
    if (d.empty() && a.dirs != b.dirs) {
        const auto at = std::mismatch(a.dirs.begin(), a.dirs.end(), b.dirs.begin());
        d = "direction byte " + std::to_string(at.first - a.dirs.begin()) + ": simd " + std::to_string(*at.first) +
            " scalar " + std::to_string(*at.second);
    }
    if (d.empty() && (a.res.best != b.res.best || a.res.best_i != b.res.best_i || a.res.best_j != b.res.best_j ||
                      a.res.corner_h != b.res.corner_h))
        d = "result: simd best " + std::to_string(a.res.best) + " at (" + std::to_string(a.res.best_i) + "," +
            std::to_string(a.res.best_j) + ") corner " + std::to_string(a.res.corner_h) + ", scalar best " +
            std::to_string(b.res.best) + " at (" + std::to_string(b.res.best_i) + "," + std::to_string(b.res.best_j) +
            ") corner " + std::to_string(b.res.corner_h);
    return d;
}

// Proves the SIMD tile kernel writes exactly the scalar tiles' Region outputs
// (every checkpoint row and column cell, every direction byte, the best cell
// and the corner) on every target, every scheme (dna5 byte shuffles, IUPAC
// and protein gathers; affine and linear) and mode, for regions of 1 to 130
// cells a side at offsets in the pair, tile sides 1 to 256 (so diagonals of
// every length around the lane count), checkpoint strides of every size,
// and boundaries from the matrix border or arbitrary (minus infinity
// included), on one and two threads.
TEST_P(LongTileEveryTarget, RegionOutputsMatchTheScalarTiles) {
    constexpr std::int64_t sides[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 130};
    constexpr std::int64_t tile_sides[] = {1, 3, 4, 8, 16, 17, 64, 256};
    int failures = 0, runs = 0;
    for (const TileScheme& ts : tile_schemes()) {
        const ScoringScheme& s = ts.s;
        PairGenerator g(0x711E5u + static_cast<std::uint64_t>(ts.s.gap_open * 7 + ts.s.gap_extend) + (ts.iupac ? 99 : 0),
                        s.alphabet);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (int k = 0; k < (under_asan ? 12 : 40); ++k) {
                Region reg;
                reg.rows = sides[g.below(std::size(sides))];
                reg.cols = sides[g.below(std::size(sides))];
                reg.i0 = static_cast<std::int64_t>(g.below(6));
                reg.j0 = static_cast<std::int64_t>(g.below(6));
                const std::size_t m = static_cast<std::size_t>(reg.i0 + reg.rows) + g.below(4);
                const std::size_t n = static_cast<std::size_t>(reg.j0 + reg.cols) + g.below(4);
                Codes q = g.random_seq(m, g.below(6) == 0 ? 2 : 20);
                Codes r = g.below(2) ? g.mutate(q, 0.2, 20, n) : g.random_seq(n, 20);
                while (r.size() < n) r.push_back(g.random_seq(1, 20)[0]);
                if (ts.iupac) sprinkle_iupac(g, q), sprinkle_iupac(g, r);
                // Boundaries: the matrix border of the mode, or arbitrary values.
                std::vector<BoundaryCell> top(static_cast<std::size_t>(reg.cols + 1)),
                    left(static_cast<std::size_t>(reg.rows + 1));
                const bool border = g.below(3) == 0;
                const std::int32_t open = s.gap_open + s.gap_extend;
                auto any = [&](std::int64_t t, bool row) -> BoundaryCell {
                    if (border) {
                        const bool zero = mode == AlignMode::local || (row && mode == AlignMode::semi_global);
                        const std::int32_t h = zero || t == 0 ? 0 : -(s.gap_open + static_cast<std::int32_t>(t) * s.gap_extend);
                        return {h, minus_inf};
                    }
                    const std::int32_t h = static_cast<std::int32_t>(g.below(601)) - 300;
                    const std::int32_t gap = g.below(5) == 0 ? minus_inf
                                                             : h - open + static_cast<std::int32_t>(g.below(2 * open + 3));
                    return {h, gap};
                };
                for (std::int64_t t = 0; t <= reg.cols; ++t) top[static_cast<std::size_t>(t)] = any(t, true);
                for (std::int64_t t = 0; t <= reg.rows; ++t) left[static_cast<std::size_t>(t)] = any(t, false);
                left[0] = top[0];
                reg.top = top.data();
                reg.left = left.data();
                const std::int64_t tile = tile_sides[g.below(std::size(tile_sides))];
                const std::int64_t row_stride = g.below(3) == 0 ? 0 : 1 + static_cast<std::int64_t>(g.below(static_cast<std::uint64_t>(reg.rows)));
                const std::int64_t col_stride = g.below(3) == 0 ? 0 : 1 + static_cast<std::int64_t>(g.below(static_cast<std::uint64_t>(reg.cols)));
                const int threads = reg.rows * reg.cols >= 4000 && g.below(4) == 0 ? 2 : 1;
                for (bool dirs : {false, true}) {
                    ++runs;
                    const RegionRun simd =
                        run_region(q, r, s, mode, CpuKernel::simd, tile, threads, reg, row_stride, col_stride, dirs);
                    const RegionRun scalar =
                        run_region(q, r, s, mode, CpuKernel::scalar, tile, threads, reg, row_stride, col_stride, dirs);
                    const std::string d = region_diff(simd, scalar);
                    if (!d.empty() && ++failures <= 5)
                        ADD_FAILURE() << ts.name << " " << to_string(mode) << " region " << reg.rows << " x "
                                      << reg.cols << " at (" << reg.i0 << "," << reg.j0 << ") tile " << tile
                                      << " strides " << row_stride << "/" << col_stride << " dirs " << dirs
                                      << " threads " << threads << (border ? " border" : " arbitrary") << ": " << d;
                }
            }
    }
    EXPECT_EQ(failures, 0) << "of " << runs << " regions";
}

/// Runs align_pair_long with the SIMD and the scalar tile kernel: "" when both
/// equal align_pair_full_matrix byte for byte, else a reproducer.
std::string compare_kernels(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode, bool score_only,
                            LongAlignOptions o) {
    o.kernel = CpuKernel::simd;
    std::string what = compare(q, r, s, mode, score_only, o);
    if (!what.empty()) return "SIMD tiles: " + what;
    o.kernel = CpuKernel::scalar;
    what = compare(q, r, s, mode, score_only, o);
    return what.empty() ? "" : "scalar tiles: " + what;
}

// Proves align_pair_long with the SIMD tile kernel gives align_pair_full_matrix's
// bytes (and so the scalar tiles' too, checked as well) on every target, for
// every scheme of tile_schemes() and mode, with CIGAR and score-only: the
// edge cases (length 1, homopolymers, all-N, divergent, long gaps, identical),
// lengths at tile-16 boundaries +-1, and random pairs, under rotating plans.
TEST_P(LongTileEveryTarget, AlignmentsMatchFullMatrixAndScalarTiles) {
    int failures = 0, runs = 0;
    std::size_t k = 0;
    for (const TileScheme& ts : tile_schemes()) {
        const ScoringScheme& s = ts.s;
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            PairGenerator g(0x51AD0u + k, s.alphabet);
            std::vector<Pair> pairs = edge_pairs(g, s.alphabet);
            const std::vector<Pair> bounds = boundary_pairs(g, s.alphabet);
            for (int t = 0; t < (under_asan ? 6 : 20); ++t) pairs.push_back(g.next(300));
            if (ts.iupac)
                for (Pair& p : pairs) sprinkle_iupac(g, p.query), sprinkle_iupac(g, p.ref);
            auto check = [&](const Pair& p, bool score_only, const LongAlignOptions& o) {
                ++runs;
                const std::string what = compare_kernels(p.query, p.ref, s, mode, score_only, o);
                if (!what.empty() && ++failures <= 5) ADD_FAILURE() << ts.name << ": " << what;
            };
            for (const Pair& p : pairs)
                for (bool score_only : {false, true})
                    check(p, score_only, fit_threads(plan(k++ * 7), p.query.size(), p.ref.size()));
            for (std::size_t b = 0; b < bounds.size(); ++b)
                check(bounds[b], b % 2 == 1, boundary_plans[b % std::size(boundary_plans)]);
        }
    }
    EXPECT_EQ(failures, 0) << "of " << runs << " runs";
}

// Proves real pairs align with the SIMD tiles exactly as with the scalar tiles
// and the full matrix on every target: H. pylori (record 0, the first 3,000
// bases of each side; DNA, byte shuffles) in every mode with CIGAR on two
// threads, and protein orthologs (BLOSUM62, gathers) under a small plan.
TEST_P(LongTileEveryTarget, RealPairsMatchFullMatrixAndScalarTiles) {
    const auto long_dir = shared_data() / "dna" / "long";
    const auto prot = shared_data() / "protein";
    if (!std::filesystem::is_directory(long_dir) || !std::filesystem::is_directory(prot))
        GTEST_SKIP() << "no data folder " << shared_data();
    auto qs = read_fasta_codes<Alphabet::dna>(long_dir / "hpyloriG27_vs_SJM180.A.fa", 1);
    auto rs = read_fasta_codes<Alphabet::dna>(long_dir / "hpyloriG27_vs_SJM180.B.fa", 1);
    ASSERT_EQ(qs.size(), 1u);
    ASSERT_EQ(rs.size(), 1u);
    const std::size_t len = under_asan ? 1000 : 3000;
    ASSERT_GE(qs[0].size(), len);
    ASSERT_GE(rs[0].size(), len);
    qs[0].resize(len);
    rs[0].resize(len);
    const ScoringScheme dna = make_dna_scheme(2, 3, 5, 2, -3);
    const LongAlignOptions o = make_options(64, 4, 4096, 8, 2);
    int failures = 0;
    for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        const std::string what = compare_kernels(qs[0], rs[0], dna, mode, false, o);
        if (!what.empty() && ++failures <= 3) ADD_FAILURE() << "H. pylori: " << what.substr(0, 2000);
    }
    const auto prot_pairs =
        read_pairs<Alphabet::protein>(prot / "orthologs_cow.fa", prot / "orthologs_pig.fa", under_asan ? 5 : 20);
    ASSERT_FALSE(prot_pairs.empty());
    const ScoringScheme blosum = blosum62_scheme(11, 1);
    std::size_t k = 0;
    for (const Pair& p : prot_pairs)
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            const std::string what =
                compare_kernels(p.query, p.ref, blosum, mode, k % 2 == 1, make_options(k % 2 ? 16 : 37, 3, 256, 8, 1));
            ++k;
            if (!what.empty() && ++failures <= 3) ADD_FAILURE() << "orthologs: " << what.substr(0, 2000);
        }
    EXPECT_EQ(failures, 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, LongTileEveryTarget, testing::ValuesIn(simd_targets()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// Proves the SIMD tile kernel is the default (LongAlignOptions::kernel) and
// that the default target gives the scalar tiles' bytes on the human vs
// orangutan mitochondria (global, CIGAR, two threads).
TEST_F(LongAlignerRealData, MitoSimdTilesMatchScalarTiles) {
    EXPECT_EQ(LongAlignOptions{}.kernel, CpuKernel::simd);
    const auto recs = read_fasta_codes<Alphabet::dna>(dir() / "mito_human_vs_orangutan.fa");
    ASSERT_EQ(recs.size(), 2u);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    LongAlignOptions o;
    o.threads = 2;
    const AlignmentResult simd = align_pair_long(recs[0], recs[1], s, AlignMode::global, false, o);
    o.kernel = CpuKernel::scalar;
    const AlignmentResult scalar = align_pair_long(recs[0], recs[1], s, AlignMode::global, false, o);
    EXPECT_EQ(simd.score, 18184);
    EXPECT_TRUE(simd == scalar) << "simd   " << describe(simd).substr(0, 300) << "\nscalar "
                                << describe(scalar).substr(0, 300);
}

}  // namespace
}  // namespace gpualign::test
