// The 8-bit striped score-only local kernel (lib/src/align/simd/striped_score8_kernel.cpp)
// and the begin walk on its H matrix (lib/src/align/simd/begin_walk.cpp) against
// their scalar twin align_pair (score, end cell, begin cell, byte for byte)
// and a plain 32-bit H matrix (every cell), on every SIMD target this CPU
// supports (forced in turn): random protein and DNA pairs over gap models
// (affine, linear go = 0, ge = 0), lengths 1..2,000 around the lane and
// segment boundaries, ties and repeats (tandem repeats, a query found twice,
// homopolymers, 2-letter alphabets), alignments that span the whole matrix,
// the 8-bit limit (flagged exactly when the score reaches 255 - bias, and
// then re-scored in 16 and 32 bits), unaligned pairs, and real pairs
// (protein families, UniProt records, orthologs, PacBio windows). The kernel
// and the walk are called directly, and the same pairs also go through
// align_pairs_cpu's routing (local score-only protein and IUPAC DNA batches
// take this path), so neither can hide the other.
#include <gtest/gtest.h>
#include <hwy/aligned_allocator.h>

#include <algorithm>
#include <string>
#include <vector>

#include "align/simd/begin_walk.hpp"
#include "align/simd/striped_score8_kernel.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/io/matrix.hpp"
#include "test_matrices.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

cpu::KernelScheme kernel_scheme_of(const ScoringScheme& s) {
    cpu::KernelScheme ks;
    ks.alphabet_size = s.size;
    ks.mode = AlignMode::local;
    ks.matrix = s.matrix.data();
    ks.gap_open = static_cast<std::int16_t>(s.gap_open);
    ks.gap_extend = static_cast<std::int16_t>(s.gap_extend);
    return ks;
}

/// The local H matrix in 32 bits, (m+1) x (n+1) row-major (row/column 0 = 0).
std::vector<std::int32_t> reference_h(const Codes& q, const Codes& r, const ScoringScheme& s) {
    const std::size_t m = q.size(), n = r.size();
    const std::int32_t open = s.gap_open + s.gap_extend, ext = s.gap_extend, ninf = -(1 << 28);
    std::vector<std::int32_t> h((m + 1) * (n + 1), 0), f(n + 1, ninf);
    for (std::size_t i = 1; i <= m; ++i) {
        std::int32_t e = ninf;
        for (std::size_t j = 1; j <= n; ++j) {
            e = std::max(e - ext, h[i * (n + 1) + j - 1] - open);
            f[j] = std::max(f[j] - ext, h[(i - 1) * (n + 1) + j] - open);
            h[i * (n + 1) + j] = std::max({h[(i - 1) * (n + 1) + j - 1] + s.score(q[i - 1], r[j - 1]), e, f[j], 0});
        }
    }
    return h;
}

std::string describe(const AlignmentResult& r) {
    return std::to_string(r.score) + " [" + std::to_string(r.query_begin) + "," + std::to_string(r.query_end) +
           ") x [" + std::to_string(r.ref_begin) + "," + std::to_string(r.ref_end) + ")";
}

struct Tally {
    int compared = 0;    ///< pairs the 8-bit kernel answered (no overflow)
    int overflowed = 0;  ///< pairs it flagged
    int aligned = 0;     ///< of the compared, with score > 0 (the walk ran)
    int failures = 0;
};

/// The kernel (with and without keeping H) and the walk, called directly on
/// one pair, against align_pair; with `every_cell`, H of every real cell
/// against reference_h.
void check_direct(const Pair& p, const ScoringScheme& s, const std::string& what, Tally& t, bool every_cell = false) {
    const cpu::KernelScheme ks = kernel_scheme_of(s);
    const cpu::Score8Scheme s8 = cpu::make_score8_scheme(ks);
    ASSERT_TRUE(s8.usable) << what;
    const std::size_t m = p.query.size(), n = p.ref.size();
    const cpu::Score8Shape shape = cpu::score8_shape(m);
    auto h = hwy::AllocateAligned<std::uint8_t>(shape.column_bytes() * n);
    ASSERT_TRUE(h);
    const cpu::StripedPair sp{p.query.data(), m, p.ref.data(), n};
    const cpu::Score8Result kept = cpu::align_striped_score8(sp, s8, h.get());
    const cpu::Score8Result plain = cpu::align_striped_score8(sp, s8, nullptr);
    const AlignmentResult want = align_pair(p.query, p.ref, s, AlignMode::local, true);
    const auto fail = [&](const std::string& msg) {
        if (++t.failures <= 5)
            ADD_FAILURE() << what << " (" << m << " x " << n << "): " << msg << "; scalar " << describe(want);
    };
    if (kept.score != plain.score || kept.query_end != plain.query_end || kept.ref_end != plain.ref_end ||
        kept.overflow != plain.overflow)
        fail("keeping H changes the result");
    // Flagged exactly when the score reaches the limit (below it nothing can
    // saturate; at it the computed best is at least the limit either way).
    if (kept.overflow != (want.score >= 255 - s8.bias))
        fail("overflow flag " + std::to_string(kept.overflow) + " at score " + std::to_string(want.score));
    if (kept.overflow) {
        ++t.overflowed;
        return;
    }
    ++t.compared;
    if (kept.score != want.score || kept.query_end != want.query_end || kept.ref_end != want.ref_end) {
        fail("kernel " + std::to_string(kept.score) + " end (" + std::to_string(kept.query_end) + "," +
             std::to_string(kept.ref_end) + ")");
        return;
    }
    if (every_cell) {
        const std::vector<std::int32_t> ref = reference_h(p.query, p.ref, s);
        for (std::size_t i = 1; i <= m; ++i)
            for (std::size_t j = 1; j <= n; ++j) {
                const std::size_t k = (i - 1) % shape.seg_len, lane = (i - 1) / shape.seg_len;
                if (h[(j - 1) * shape.column_bytes() + k * shape.lanes + lane] != ref[i * (n + 1) + j]) {
                    fail("H(" + std::to_string(i) + "," + std::to_string(j) + ") differs");
                    i = m;
                    break;
                }
            }
    }
    if (want.score == 0) return;
    ++t.aligned;
    const cpu::LocalBegin b = cpu::local_begin_from_h(p.query, p.ref, s, {h.get(), shape.lanes, shape.seg_len},
                                                      kept.score, kept.query_end, kept.ref_end);
    if (b.query_begin != want.query_begin || b.ref_begin != want.ref_begin)
        fail("walk begin (" + std::to_string(b.query_begin) + "," + std::to_string(b.ref_begin) + ")");
}

/// The pairs through align_pairs_cpu (local, score-only, SIMD) and
/// score_pairs_cpu against align_pair. Returns the failure count.
int check_routed(const std::vector<Pair>& pairs, const ScoringScheme& s, const std::string& what) {
    std::vector<PairView> v;
    for (const auto& p : pairs) v.push_back({p.query, p.ref});
    std::vector<AlignmentResult> got(v.size());
    align_pairs_cpu(v, s, AlignMode::local, true, CpuKernel::simd, 2, got);
    const std::vector<std::int32_t> scores = score_pairs_cpu(v, s, AlignMode::local, CpuKernel::simd, 2);
    int failures = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
        const AlignmentResult want = align_pair(pairs[k].query, pairs[k].ref, s, AlignMode::local, true);
        if ((got[k] != want || scores[k] != want.score) && ++failures <= 5)
            ADD_FAILURE() << what << " routed pair " << k << " (" << pairs[k].query.size() << " x "
                          << pairs[k].ref.size() << "): simd " << describe(got[k]) << " / " << scores[k]
                          << ", scalar " << describe(want);
    }
    return failures;
}

int check_all(const std::vector<Pair>& pairs, const ScoringScheme& s, const std::string& what, Tally& t,
              bool every_cell_below = false) {
    for (std::size_t k = 0; k < pairs.size(); ++k)
        check_direct(pairs[k], s, what + " pair " + std::to_string(k), t,
                     every_cell_below && pairs[k].query.size() * pairs[k].ref.size() < 200000);
    return check_routed(pairs, s, what);
}

/// Each SIMD target of this CPU in turn (restored afterwards).
class Score8EveryTarget : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        force_simd_target(GetParam());
        if (cpu::score8_lanes() == 0) GTEST_SKIP() << "one-lane target: no SIMD kernel";
    }
    void TearDown() override { force_simd_target(""); }
};

ScoringScheme protein_matrix(const char* name, int go, int ge) { return make_protein_scheme(name, go, ge); }

TEST_P(Score8EveryTarget, RandomProteinAndDnaPairsMatchTheScalarReference) {
    Tally t;
    int routed = 0;
    std::uint64_t seed = 8;
    const std::pair<const char*, std::pair<int, int>> protein_schemes[] = {
        {"BLOSUM62", {11, 1}}, {"BLOSUM62", {0, 2}}, {"BLOSUM62", {10, 3}}, {"BLOSUM62", {5, 0}},
        {"BLOSUM45", {11, 1}}, {"BLOSUM80", {0, 1}}, {"BLOSUM30", {3, 2}}};
    for (const auto& [name, gaps] : protein_schemes) {
        PairGenerator gen(seed++, Alphabet::protein);
        std::vector<Pair> pairs;
        for (int k = 0; k < (under_asan ? 25 : 70); ++k) pairs.push_back(gen.next(k % 25 == 0 ? 2000 : 500));
        routed += check_all(pairs, protein_matrix(name, gaps.first, gaps.second),
                            std::string(name) + " " + std::to_string(gaps.first) + "/" + std::to_string(gaps.second),
                            t, true);
    }
    for (const auto& [go, ge] : {std::pair{5, 2}, std::pair{0, 1}, std::pair{3, 0}, std::pair{12, 1}}) {
        PairGenerator gen(seed++, Alphabet::dna);
        std::vector<Pair> pairs;
        for (int k = 0; k < (under_asan ? 25 : 70); ++k) pairs.push_back(gen.next(k % 25 == 0 ? 2000 : 400));
        const std::string what = "dna " + std::to_string(go) + "/" + std::to_string(ge);
        for (std::size_t k = 0; k < pairs.size(); ++k)
            check_direct(pairs[k], dna_scheme(go, ge), what + " pair " + std::to_string(k), t,
                         pairs[k].query.size() * pairs[k].ref.size() < 200000);
    }
    EXPECT_EQ(t.failures, 0);
    EXPECT_EQ(routed, 0);
    EXPECT_GT(t.aligned, under_asan ? 100 : 500) << "too few pairs reached the begin walk";
    EXPECT_GT(t.overflowed, under_asan ? 3 : 10) << "no pair reached the 8-bit limit";
}

TEST_P(Score8EveryTarget, LaneAndSegmentBoundaryLengthsMatchTheScalarReference) {
    const std::size_t lanes = cpu::score8_lanes();
    PairGenerator gen(32, Alphabet::protein);
    const std::vector<std::size_t> lengths = lane_boundary_lengths(lanes, {1, 2, 3, 16, 17, 40});
    std::vector<Pair> pairs;
    for (const std::size_t m : lengths)
        for (const std::size_t n : {std::size_t{1}, std::size_t{7}, lanes + 1, m, 2 * m + 3}) {
            Pair p;
            p.query = gen.random_seq(m, 20);
            // Related pairs at 40% divergence keep most scores under the limit.
            p.ref = gen.below(2) ? gen.mutate(p.query, 0.4, 20, 2500) : gen.random_seq(std::min<std::size_t>(n, 2500), 20);
            pairs.push_back(std::move(p));
        }
    Tally t;
    EXPECT_EQ(check_all(pairs, blosum62_scheme(11, 1), "boundaries", t, true), 0);
    EXPECT_EQ(check_all(pairs, blosum62_scheme(0, 1), "boundaries linear", t), 0);
    EXPECT_EQ(t.failures, 0);
    EXPECT_GT(t.aligned, 100);
}

TEST_P(Score8EveryTarget, TheEightBitLimitIsFlaggedAndRescoredNeverSilent) {
    PairGenerator gen(255, Alphabet::protein);
    const ScoringScheme s = blosum62_scheme(11, 1);
    // Identical and near-identical pairs of 10..90 residues: BLOSUM62's
    // diagonal averages ~5.5, so the scores straddle 255 - bias = 251.
    std::vector<Pair> pairs;
    for (std::size_t len = 10; len <= 90; len += 2) {
        Pair p;
        p.query = gen.random_seq(len, 20);
        p.ref = len % 4 == 0 ? p.query : gen.mutate(p.query, 0.05, 20, 200);
        pairs.push_back(std::move(p));
    }
    Tally t;
    EXPECT_EQ(check_all(pairs, s, "limit", t), 0);
    EXPECT_EQ(t.failures, 0);
    EXPECT_GT(t.overflowed, 5) << "no pair reached the 8-bit limit";
    EXPECT_GT(t.compared, 5) << "every pair reached the 8-bit limit";
    // Past 16 bits too: BLOSUM62 x 12 (max + bias = 180, still 8-bit usable)
    // on 3,000 identical residues scores ~200,000: 8-bit flag, 16-bit flag,
    // the 32-bit reference.
    ScoringScheme x12 = blosum62_scheme(11 * 12, 12);
    for (auto& v : x12.matrix) v *= 12;
    ASSERT_TRUE(cpu::make_score8_scheme(kernel_scheme_of(x12)).usable);
    Pair big;
    big.query = gen.random_seq(3000, 20);
    big.ref = big.query;
    Tally tb;
    check_direct(big, x12, "x12", tb);
    EXPECT_EQ(tb.overflowed, 1);
    EXPECT_EQ(check_routed({big, pairs[0]}, x12, "x12"), 0);
    EXPECT_GT(align_pair(big.query, big.ref, x12, AlignMode::local, true).score, 32767);
    // A scheme too wide for 8 bits (max + bias above 200) is refused, and
    // routed to the 16-bit kernels.
    ScoringScheme x40 = blosum62_scheme(11, 1);
    for (auto& v : x40.matrix) v *= 40;
    EXPECT_FALSE(cpu::make_score8_scheme(kernel_scheme_of(x40)).usable);
    EXPECT_EQ(check_routed(pairs, x40, "x40"), 0);
}

TEST_P(Score8EveryTarget, TiesAndRepeatsMatchTheScalarReference) {
    PairGenerator gen(77, Alphabet::protein);
    std::vector<Pair> pairs;
    const std::string units[] = {"MKV", "WC", "AAAA", "GPGG", "HEAGAWGHEE", "W"};
    for (const std::string& u : units)
        for (const int reps : {1, 2, 3, 7, 20}) {
            std::string q, r;
            for (int k = 0; k < reps; ++k) q += u;
            for (int k = 0; k < reps + 2; ++k) r += u;
            pairs.push_back({protein(q), protein(r)});
            pairs.push_back({protein(r), protein(q)});
            // The query twice in the ref, with junk between: equal scores in
            // one row at two columns.
            pairs.push_back({protein(q), protein(q + "PPPPPPPP" + q)});
            pairs.push_back({protein(q + "DDDD" + q), protein(q)});
        }
    // Homopolymers and ambiguous gap placement.
    pairs.push_back({protein(std::string(40, 'A')), protein(std::string(45, 'A'))});
    pairs.push_back({protein("MKKKKV"), protein("MKKKV")});
    pairs.push_back({protein("MKVLAAAAAGWLMKV"), protein("MKVLAAAGWLMKV")});
    pairs.push_back({protein("WWWWCWWWW"), protein("WWWWWWWW")});
    // 2-letter alphabets: many equal paths.
    for (int k = 0; k < (under_asan ? 20 : 60); ++k) {
        Pair p;
        p.query = gen.random_seq(1 + gen.below(300), 2);
        p.ref = gen.below(2) ? gen.mutate(p.query, 0.2, 2, 400) : gen.random_seq(1 + gen.below(300), 2);
        pairs.push_back(std::move(p));
    }
    Tally t;
    int failures = 0;
    int ties = 0;  // pairs whose best score sits in more than one cell
    for (const auto& [go, ge] : {std::pair{11, 1}, std::pair{0, 1}, std::pair{2, 0}, std::pair{0, 0}}) {
        const ScoringScheme s = blosum62_scheme(go, ge);
        failures += check_all(pairs, s, "ties " + std::to_string(go) + "/" + std::to_string(ge), t, true);
        for (const Pair& p : pairs) {
            const std::vector<std::int32_t> h = reference_h(p.query, p.ref, s);
            const std::int32_t best = *std::max_element(h.begin(), h.end());
            ties += best > 0 && std::count(h.begin(), h.end(), best) > 1;
        }
    }
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(t.failures, 0);
    EXPECT_GT(ties, 100) << "the pairs hold too few tied maxima";
    EXPECT_GT(t.aligned, 300);
}

TEST_P(Score8EveryTarget, AlignmentsSpanningTheWholeMatrixMatchTheScalarReference) {
    // An identity-like scheme (+1 / -1 on every code) keeps long alignments
    // under the 8-bit limit: identical pairs of up to 250 residues align
    // corner to corner; 48%-substituted pairs of 2,000 drift up slowly and
    // align over most of the matrix.
    ScoringScheme s = blosum62_scheme(2, 1);
    for (int a = 0; a < s.size; ++a)
        for (int b = 0; b < s.size; ++b) s.matrix[static_cast<std::size_t>(a * s.size + b)] = a == b ? 1 : -1;
    s.matrix_name = "identity +1/-1";
    PairGenerator gen(2000, Alphabet::protein);
    std::vector<Pair> pairs;
    for (const std::size_t len : {1u, 31u, 32u, 33u, 100u, 250u}) {
        Pair p;
        p.query = gen.random_seq(len, 20);
        p.ref = p.query;
        pairs.push_back(p);
        p.ref = gen.mutate(p.query, 0.03, 20, 300);
        pairs.push_back(std::move(p));
    }
    int spanning = 0;
    for (int k = 0; k < (under_asan ? 4 : 12); ++k) {
        Pair p;
        p.query = gen.random_seq(2000, 20);
        p.ref = p.query;
        for (auto& c : p.ref)
            if (gen.unit() < 0.48) c = gen.residue(20);
        pairs.push_back(std::move(p));
    }
    Tally t;
    EXPECT_EQ(check_all(pairs, s, "spanning", t), 0);
    for (const Pair& p : pairs) {
        const AlignmentResult want = align_pair(p.query, p.ref, s, AlignMode::local, true);
        spanning += want.score < 250 && want.query_end - want.query_begin >= static_cast<std::int32_t>(p.query.size() * 3 / 4);
    }
    EXPECT_EQ(t.failures, 0);
    EXPECT_GT(spanning, 8) << "too few alignments span the matrix under the 8-bit limit";
}

TEST_P(Score8EveryTarget, UnalignedPairsAreUnaligned) {
    std::vector<Pair> pairs = {{protein("W"), protein("C")},
                               {protein("WWWW"), protein("CCCCCCC")},
                               {protein(std::string(70, 'W')), protein(std::string(90, 'C'))},
                               {protein("P"), protein(std::string(300, 'W'))}};
    Tally t;
    EXPECT_EQ(check_all(pairs, blosum62_scheme(11, 1), "unaligned", t, true), 0);
    EXPECT_EQ(t.failures, 0);
    EXPECT_EQ(t.compared, 4);
    EXPECT_EQ(t.aligned, 0);
    for (const Pair& p : pairs) EXPECT_EQ(align_pair(p.query, p.ref, blosum62_scheme(11, 1), AlignMode::local, true).score, 0);
    Tally d;
    check_direct({dna("AAAAAAAA"), dna("CCCCCCCCCCC")}, dna_scheme(5, 2), "dna unaligned", d, true);
    EXPECT_EQ(d.failures, 0);
    EXPECT_EQ(d.compared, 1);
}

TEST_P(Score8EveryTarget, RealPairsMatchTheScalarReference) {
    if (!std::filesystem::is_directory(shared_data())) GTEST_SKIP() << "no shared data at " << shared_data();
    const auto prot = shared_data() / "protein";
    std::vector<Pair> pairs;
    // Protein families: neighbours within each family file (related pairs).
    for (const char* fam : {"globins45.fa", "pfam_fn3_seed.fa", "kringle_ref6.fa", "pfam_Pkinase_seed.fa",
                            "balibase_BB30014.fa"}) {
        const auto recs = read_fasta_codes<Alphabet::protein>(prot / "families" / fam, under_asan ? 10 : 40);
        for (std::size_t k = 0; k + 1 < recs.size(); ++k) pairs.push_back({recs[k], recs[k + 1]});
    }
    // UniProt records (unrelated pairs, as protein512_sw) and orthologs.
    const auto db = read_fasta_codes<Alphabet::protein>(prot / "mmseqs2_example_db.fa", under_asan ? 40 : 200);
    for (std::size_t k = 0; k + 1 < db.size(); k += 2) pairs.push_back({db[k], db[k + 1]});
    for (auto& p : read_pairs<Alphabet::protein>(prot / "orthologs_cow.fa", prot / "orthologs_pig.fa", 60))
        pairs.push_back(std::move(p));
    Tally t;
    EXPECT_EQ(check_all(pairs, blosum62_scheme(11, 1), "real BLOSUM62 11/1", t), 0);
    EXPECT_EQ(check_all(pairs, make_protein_scheme("BLOSUM45", 0, 2), "real BLOSUM45 0/2", t), 0);
    EXPECT_EQ(t.failures, 0);
    EXPECT_GT(t.aligned, under_asan ? 30 : 200);
    EXPECT_GT(t.overflowed, under_asan ? 3 : 10);
    // PacBio windows (DNA): read prefixes against ref window prefixes, dna5
    // directly, and coded IUPAC through the routing (EDNAFULL has no byte
    // tables, so its batches take the striped path).
    const auto pb = shared_data() / "dna" / "pacbio_ecoli";
    std::vector<Pair> dna_pairs;
    for (auto& p : read_pairs<Alphabet::dna>(pb / "reads.fa", pb / "ref_windows.fa", under_asan ? 10 : 40)) {
        p.query.resize(std::min<std::size_t>(p.query.size(), 120));
        p.ref.resize(std::min<std::size_t>(p.ref.size(), 300));
        dna_pairs.push_back(std::move(p));
    }
    Tally td;
    for (std::size_t k = 0; k < dna_pairs.size(); ++k)
        check_direct(dna_pairs[k], dna_scheme(5, 2), "pacbio pair " + std::to_string(k), td, true);
    EXPECT_EQ(td.failures, 0);
    EXPECT_GT(td.aligned, 5);
    EXPECT_EQ(check_routed(dna_pairs, ednafull_scheme(10, 1), "pacbio EDNAFULL"), 0);
}

std::vector<std::string> targets() { return simd_targets(); }

INSTANTIATE_TEST_SUITE_P(Targets, Score8EveryTarget, testing::ValuesIn(targets()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace gpualign::test
