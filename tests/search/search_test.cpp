// Search (issue 12): the canonical hit selection, and search_query_cpu against an
// independent brute force over every pair with align_pair_full_matrix, on
// real protein families and random DNA with forced ties, local, global and
// semi-global (both CPU kernels, both DNA strands).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fasta_text.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/model/strand.hpp"
#include "gpualign/search/search.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

TEST(SelectHits, CanonicalOrderFiltersAndCap) {
    const std::vector<std::int32_t> scores{5, 0, 9, 5, -3, 9, 7, 5};
    SearchOptions o;
    o.max_hits = 100;
    // Local: score > 0 only; score descending, then DB order.
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, std::nullopt, 10, {}, DbSize{100, 1}),
              (std::vector<std::uint32_t>{2, 5, 6, 0, 3, 7}));
    // Global and semi-global: every record is a candidate, negative scores too.
    for (const AlignMode mode : {AlignMode::global, AlignMode::semi_global})
        EXPECT_EQ(select_hits(scores, mode, o, std::nullopt, 10, {}, DbSize{100, 1}),
                  (std::vector<std::uint32_t>{2, 5, 6, 0, 3, 7, 1, 4}))
            << to_string(mode);
    o.max_hits = 4;  // the cap cuts inside a tie: the earlier records win
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, std::nullopt, 10, {}, DbSize{100, 1}), (std::vector<std::uint32_t>{2, 5, 6, 0}));
    o.max_hits = 100;
    o.min_score = 7;
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, std::nullopt, 10, {}, DbSize{100, 1}), (std::vector<std::uint32_t>{2, 5, 6}));
    o.min_score.reset();
    // E-value filter (DNA form, no length adjustment at alpha = beta = 0):
    // E(S) = K m N e^(-lambda S) <= max.
    KarlinAltschul ka;
    ka.lambda = 1.0;
    ka.k = 1.0;
    const std::vector<std::uint64_t> lens(scores.size(), 10);
    o.max_evalue = 1000.0 * std::exp(-7.0) * 1.0000001;  // admits S >= 7 for m N = 1000
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, ka, 10, lens, DbSize{100, 1}),
              (std::vector<std::uint32_t>{2, 5, 6}));
    // The filter applies to the top max_hits by score: with k = 4 the fourth
    // (record 0, score 5) is dropped, and nothing takes its place.
    o.max_hits = 4;
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, ka, 10, lens, DbSize{100, 1}),
              (std::vector<std::uint32_t>{2, 5, 6}));
    o.max_hits = 2;
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, ka, 10, lens, DbSize{100, 1}), (std::vector<std::uint32_t>{2, 5}));
    EXPECT_THROW(select_hits(scores, AlignMode::local, o, std::nullopt, 10, lens, DbSize{100, 1}), std::invalid_argument);
    EXPECT_THROW(select_hits(scores, AlignMode::local, o, ka, 10, {}, DbSize{100, 1}), std::invalid_argument);
}

/// A DB in memory: names and codes kept alive, views over them.
struct Db {
    std::vector<std::string> names, letters;
    std::vector<Codes> codes;
    std::vector<RecordView> views;
    void finish() {
        views.clear();
        for (std::size_t k = 0; k < codes.size(); ++k) {
            RecordView v;
            v.name = names[k];
            v.sequence = letters[k];
            v.codes = codes[k];
            v.number = k + 1;
            views.push_back(v);
        }
    }
};

/// The brute force: every pair with the full-matrix reference, sorted by
/// (score descending, index), filtered and cut as the options say. With
/// `strand` both, each pair keeps the better of the query's and its reverse
/// complement's alignments (ties to plus).
std::vector<SearchHit> brute_force(const Codes& q, const Db& db, const ScoringScheme& s, AlignMode mode,
                                   const SearchOptions& o, const std::optional<KarlinAltschul>& ka,
                                   StrandChoice strand = StrandChoice::plus) {
    std::uint64_t n = 0;
    for (const Codes& c : db.codes) n += c.size();
    const Codes minus = strand == StrandChoice::both ? reverse_complement(q) : Codes{};
    std::vector<SearchHit> all;
    for (std::size_t t = 0; t < db.codes.size(); ++t) {
        SearchHit h;
        h.target = static_cast<std::uint32_t>(t);
        h.result = align_pair_full_matrix(q, db.codes[t], s, mode, false);
        if (strand == StrandChoice::both) {
            AlignmentResult m = align_pair_full_matrix(minus, db.codes[t], s, mode, false);
            if (m.score > h.result.score) {
                h.result = std::move(m);
                h.result.strand = Strand::minus;
            }
        }
        if (mode == AlignMode::local && h.result.score <= 0) continue;
        if (o.min_score && h.result.score < *o.min_score) continue;
        if (mode == AlignMode::local && ka) {
            // statistics_test.cpp checks evalue and bit_score against NCBI's numbers.
            h.evalue = evalue(*ka, h.result.score, q.size(), db.codes[t].size(), DbSize{n, db.codes.size()});
            h.bits = bit_score(*ka, h.result.score);
        }
        all.push_back(h);
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const SearchHit& a, const SearchHit& b) { return a.result.score > b.result.score; });
    if (all.size() > o.max_hits) all.resize(o.max_hits);
    // --evalue: applied to the top max_hits.
    if (o.max_evalue) std::erase_if(all, [&](const SearchHit& h) { return *h.evalue > *o.max_evalue; });
    return all;
}

void expect_same_hits(const std::vector<SearchHit>& got, const std::vector<SearchHit>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t h = 0; h < got.size(); ++h) {
        EXPECT_EQ(got[h].target, want[h].target) << what << ", hit " << h;
        EXPECT_EQ(got[h].result, want[h].result) << what << ", hit " << h;
        ASSERT_EQ(got[h].evalue.has_value(), want[h].evalue.has_value()) << what;
        if (got[h].evalue) {
            EXPECT_NEAR(*got[h].evalue, *want[h].evalue, 1e-9 * *want[h].evalue) << what;
            EXPECT_NEAR(*got[h].bits, *want[h].bits, 1e-9) << what;
        }
    }
}

/// Records as a DB (names s0, s1, ...).
Db db_of(const std::vector<Codes>& seqs) {
    Db db;
    for (std::size_t k = 0; k < seqs.size(); ++k) {
        db.names.push_back("s" + std::to_string(k));
        db.letters.push_back(std::string(seqs[k].size(), 'A'));
        db.codes.push_back(seqs[k]);
    }
    db.finish();
    return db;
}

TEST(SearchCpu, MatchesBruteForceOnProteinFamilies) {
    const auto dir = shared_data() / "protein" / "families";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared data not found: " << dir;
    int compared = 0;
    for (const char* file : {"globins45.fa", "pfam_fn3_seed.fa", "pfam_Pkinase_seed.fa"}) {
        const std::vector<Codes> seqs = read_fasta_codes<Alphabet::protein>(dir / file);
        ASSERT_GE(seqs.size(), 30u) << file;
        const Db db = db_of(seqs);
        for (const auto& [go, ge] : {std::pair{11, 1}, std::pair{10, 2}, std::pair{5, 5}}) {
            const ScoringScheme s = blosum62_scheme(go, ge);
            const auto ka = karlin_altschul(s);
            for (const AlignMode mode : {AlignMode::local, AlignMode::global}) {
                SearchOptions o;
                o.max_hits = std::vector<std::size_t>{1, 5, 1000}[compared % 3];
                if (compared % 4 == 1) o.min_score = 60;
                if (compared % 4 == 2 && ka && mode == AlignMode::local) o.max_evalue = 1e-5;
                for (std::size_t qi = 0; qi < seqs.size(); qi += 7) {
                    const auto got = search_query_cpu(seqs[qi], db.views, s, mode, false, o,
                                                      mode == AlignMode::local ? ka : std::nullopt, 2);
                    const auto want = brute_force(seqs[qi], db, s, mode, o, mode == AlignMode::local ? ka : std::nullopt);
                    expect_same_hits(got, want, std::string(file) + " query " + std::to_string(qi) + " " + to_string(mode));
                    if (!want.empty()) EXPECT_EQ(rescore_cigar(got[0].result, seqs[qi], db.codes[got[0].target], s), got[0].result.score);
                }
                ++compared;
            }
        }
    }
    EXPECT_EQ(compared, 18);
}

// Random DNA with duplicated DB records (equal scores): ties go to the
// earlier record, on both modes and linear gaps too.
TEST(SearchCpu, TiesGoToTheEarlierDbRecord) {
    std::mt19937_64 rng(12);
    for (int it = 0; it < 20; ++it) {
        Db db;
        const Codes q = dna(random_dna(rng, 40 + rng() % 100));
        for (int k = 0; k < 30; ++k) {
            std::string letters = random_dna(rng, 20 + rng() % 150);
            if (k % 3 == 2) letters = db.letters[static_cast<std::size_t>(rng() % db.letters.size())];  // a duplicate
            db.names.push_back("r" + std::to_string(k));
            db.letters.push_back(letters);
            db.codes.push_back(dna(letters));
        }
        db.finish();
        const ScoringScheme s = dna_scheme(it % 2 ? 5 : 0, 2);
        const auto ka = karlin_altschul(s);
        for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            SearchOptions o;
            o.max_hits = 1 + static_cast<std::size_t>(rng() % 12);
            const auto got = search_query_cpu(q, db.views, s, mode, false, o, mode == AlignMode::local ? ka : std::nullopt, 2);
            const auto want = brute_force(q, db, s, mode, o, mode == AlignMode::local ? ka : std::nullopt);
            expect_same_hits(got, want, "iteration " + std::to_string(it));
            for (std::size_t h = 1; h < got.size(); ++h)
                if (got[h].result.score == got[h - 1].result.score) EXPECT_LT(got[h - 1].target, got[h].target);
        }
    }
}

// Semi-global search (the query end to end, the DB record's end gaps free)
// on real protein families: with max_hits covering the DB, every record is
// a hit, negative scores included, and each hit (score, coordinates, CIGAR)
// and the hits' order equal the full-matrix reference's, on both CPU
// kernels; no statistics.
TEST(SearchCpu, SemiGlobalEqualsTheFullMatrixReferenceOnProteinFamilies) {
    const auto dir = shared_data() / "protein" / "families";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared data not found: " << dir;
    int negative = 0, not_global = 0, not_local = 0, compared = 0;
    for (const char* file : {"globins45.fa", "pfam_fn3_seed.fa"}) {
        const std::vector<Codes> seqs = read_fasta_codes<Alphabet::protein>(dir / file);
        ASSERT_GE(seqs.size(), 30u) << file;
        const Db db = db_of(seqs);
        for (const auto& [go, ge] : {std::pair{11, 1}, std::pair{0, 4}}) {
            const ScoringScheme s = blosum62_scheme(go, ge);
            SearchOptions o;
            o.max_hits = seqs.size();
            for (std::size_t qi = 0; qi < seqs.size(); qi += 9) {
                const auto want = brute_force(seqs[qi], db, s, AlignMode::semi_global, o, std::nullopt);
                ASSERT_EQ(want.size(), seqs.size());
                for (const CpuKernel kernel : {CpuKernel::simd, CpuKernel::scalar}) {
                    const auto got = search_query_cpu(seqs[qi], db.views, s, AlignMode::semi_global, false, o,
                                                      std::nullopt, 2, kernel);
                    expect_same_hits(got, want,
                                     std::string(file) + " " + std::to_string(go) + "/" + std::to_string(ge) + " query " +
                                         std::to_string(qi) + (kernel == CpuKernel::simd ? " simd" : " scalar"));
                    ++compared;
                }
                for (const SearchHit& h : want) {
                    const Codes& r = db.codes[h.target];
                    negative += h.result.score < 0;
                    not_global += h.result.score != align_pair(seqs[qi], r, s, AlignMode::global, true).score;
                    not_local += h.result.score != align_pair(seqs[qi], r, s, AlignMode::local, true).score;
                    EXPECT_EQ(h.result.query_begin, 0);
                    EXPECT_EQ(h.result.query_end, static_cast<std::int32_t>(seqs[qi].size()));
                }
                // Score-only: the same scores and coordinates (no CIGAR).
                const auto so = search_query_cpu(seqs[qi], db.views, s, AlignMode::semi_global, true, o, std::nullopt, 2);
                ASSERT_EQ(so.size(), want.size());
                for (std::size_t h = 0; h < so.size(); ++h) {
                    EXPECT_EQ(so[h].target, want[h].target);
                    EXPECT_EQ(so[h].result.score, want[h].result.score);
                    EXPECT_EQ(so[h].result.ref_begin, want[h].result.ref_begin);
                    EXPECT_EQ(so[h].result.ref_end, want[h].result.ref_end);
                    EXPECT_FALSE(so[h].evalue.has_value());
                }
            }
        }
    }
    EXPECT_EQ(compared, (5 + 11) * 2 * 2);  // queries x gap costs x kernels
    // The scores are semi-global ones: some negative (kept as hits), some
    // unlike the global and the local score of the same pair.
    EXPECT_GT(negative, 0);
    EXPECT_GT(not_global, 0);
    EXPECT_GT(not_local, 0);
}

// Semi-global search of PacBio reads in their reference windows, on both
// strands (every other read reverse-complemented): each read's hits, with
// their strands, equal the full-matrix brute force over both strands, and
// its own window is its best hit, on its strand.
TEST(SearchCpu, SemiGlobalBothStrandsEqualsTheBruteForceOnReads) {
    const auto dir = shared_data() / "dna" / "pacbio_ecoli";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared data not found: " << dir;
    const std::size_t records = under_asan ? 8 : 24;
    std::vector<Codes> reads = read_fasta_codes<Alphabet::dna>(dir / "reads.fa", records);
    const std::vector<Codes> windows = read_fasta_codes<Alphabet::dna>(dir / "ref_windows.fa", records);
    const Db db = db_of(windows);
    const ScoringScheme s = dna_scheme(5, 2);
    SearchOptions o;
    o.max_hits = 5;
    int minus = 0;
    for (std::size_t qi = 0; qi < reads.size(); qi += 3) {
        if (qi % 2 == 1) reads[qi] = reverse_complement(reads[qi]);
        const auto want = brute_force(reads[qi], db, s, AlignMode::semi_global, o, std::nullopt, StrandChoice::both);
        for (const CpuKernel kernel : {CpuKernel::simd, CpuKernel::scalar}) {
            const auto got = search_query_cpu(reads[qi], db.views, s, AlignMode::semi_global, false, o, std::nullopt, 2,
                                              kernel, StrandChoice::both);
            expect_same_hits(got, want, "read " + std::to_string(qi));  // (AlignmentResult's == compares the strands)
        }
        ASSERT_FALSE(want.empty());
        EXPECT_EQ(want[0].target, qi) << "read " << qi;
        EXPECT_EQ(want[0].result.strand, qi % 2 == 1 ? Strand::minus : Strand::plus) << "read " << qi;
        minus += want[0].result.strand == Strand::minus;
    }
    EXPECT_GT(minus, 0);
}

}  // namespace
}  // namespace gpualign::test
