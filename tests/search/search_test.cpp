// Search (issue 12): Karlin-Altschul statistics against NCBI's published
// values, the canonical hit selection, and search_query_cpu against an
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

TEST(Statistics, PublishedParametersOfTheBuiltInSchemes) {
    const auto b62 = karlin_altschul(blosum62_scheme(11, 1));
    ASSERT_TRUE(b62);
    EXPECT_DOUBLE_EQ(b62->lambda, 0.267);
    EXPECT_DOUBLE_EQ(b62->k, 0.041);
    const auto b62_10_2 = karlin_altschul(blosum62_scheme(10, 2));
    ASSERT_TRUE(b62_10_2);
    EXPECT_DOUBLE_EQ(b62_10_2->lambda, 0.291);
    const auto b45 = karlin_altschul(make_protein_scheme("BLOSUM45", 14, 2));
    ASSERT_TRUE(b45);
    EXPECT_DOUBLE_EQ(b45->k, 0.032);
    const auto b80 = karlin_altschul(make_protein_scheme("BLOSUM80", 10, 1));
    ASSERT_TRUE(b80);
    EXPECT_DOUBLE_EQ(b80->lambda, 0.299);
    // The DNA default 2/-3 with 5/2: even scores only.
    const auto dna = karlin_altschul(dna_scheme(5, 2));
    ASSERT_TRUE(dna);
    EXPECT_DOUBLE_EQ(dna->lambda, 0.625);
    EXPECT_DOUBLE_EQ(dna->k, 0.41);
    EXPECT_TRUE(dna->even_scores);
    const auto one_two = karlin_altschul(make_dna_scheme(1, 2, 2, 1, -2));
    ASSERT_TRUE(one_two);
    EXPECT_DOUBLE_EQ(one_two->lambda, 1.29);
    EXPECT_FALSE(one_two->even_scores);
    // No published values: BLOSUM30, gap pairs outside the tables, other DNA scores, N scored apart.
    EXPECT_FALSE(karlin_altschul(make_protein_scheme("BLOSUM30", 11, 1)));
    EXPECT_FALSE(karlin_altschul(blosum62_scheme(5, 5)));
    EXPECT_FALSE(karlin_altschul(make_dna_scheme(3, 5, 5, 2, -5)));
    EXPECT_FALSE(karlin_altschul(make_dna_scheme(2, 3, 5, 2, 0)));
}

TEST(Statistics, BitScoreAndEvalueFormulas) {
    const KarlinAltschul ka{0.267, 0.041, false};
    // bits = (lambda S - ln K) / ln 2; E = K m N exp(-lambda S)
    EXPECT_NEAR(bit_score(ka, 740), (0.267 * 740 - std::log(0.041)) / std::log(2.0), 1e-12);
    EXPECT_NEAR(bit_score(ka, 740), 289.656, 0.001);
    const double e100 = 0.041 * 300 * 1e6 * std::exp(-26.7);
    EXPECT_NEAR(evalue(ka, 100, 300, 1000000), e100, 1e-12 * e100);
    // E doubles when the DB doubles, and falls by e^lambda per score unit.
    EXPECT_NEAR(evalue(ka, 50, 100, 2000) / evalue(ka, 50, 100, 1000), 2.0, 1e-12);
    EXPECT_NEAR(evalue(ka, 50, 100, 1000) / evalue(ka, 51, 100, 1000), std::exp(0.267), 1e-12);
    // Even-score tables: an odd score counts as the even score below it.
    const KarlinAltschul even{0.625, 0.41, true};
    EXPECT_DOUBLE_EQ(bit_score(even, 41), bit_score(even, 40));
    EXPECT_DOUBLE_EQ(evalue(even, 43, 100, 1000), evalue(even, 42, 100, 1000));
    EXPECT_LT(evalue(even, 42, 100, 1000), evalue(even, 41, 100, 1000));
}

TEST(Statistics, FormattedAsBlastPlusPrintsThem) {
    EXPECT_EQ(format_evalue(0.0), "0.0");
    EXPECT_EQ(format_evalue(1e-200), "0.0");
    EXPECT_EQ(format_evalue(3.2e-120), "3e-120");
    EXPECT_EQ(format_evalue(6.4e-82), "6e-82");
    EXPECT_EQ(format_evalue(0.00085), "8e-04");
    EXPECT_EQ(format_evalue(0.0123), "0.012");
    EXPECT_EQ(format_evalue(0.456), "0.46");
    EXPECT_EQ(format_evalue(4.56), "4.6");
    EXPECT_EQ(format_evalue(123.4), "123");
    EXPECT_EQ(format_bit_score(68.94), "68.9");
    EXPECT_EQ(format_bit_score(289.62), "289");
    EXPECT_EQ(format_bit_score(123456.0), "1.235e+05");
}

TEST(SelectHits, CanonicalOrderFiltersAndCap) {
    const std::vector<std::int32_t> scores{5, 0, 9, 5, -3, 9, 7, 5};
    SearchOptions o;
    o.max_hits = 100;
    // Local: score > 0 only; score descending, then DB order.
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, std::nullopt, 10, 100),
              (std::vector<std::uint32_t>{2, 5, 6, 0, 3, 7}));
    // Global and semi-global: every record is a candidate, negative scores too.
    for (const AlignMode mode : {AlignMode::global, AlignMode::semi_global})
        EXPECT_EQ(select_hits(scores, mode, o, std::nullopt, 10, 100),
                  (std::vector<std::uint32_t>{2, 5, 6, 0, 3, 7, 1, 4}))
            << to_string(mode);
    o.max_hits = 4;  // the cap cuts inside a tie: the earlier records win
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, std::nullopt, 10, 100), (std::vector<std::uint32_t>{2, 5, 6, 0}));
    o.max_hits = 100;
    o.min_score = 7;
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, std::nullopt, 10, 100), (std::vector<std::uint32_t>{2, 5, 6}));
    o.min_score.reset();
    // E-value filter: E(S) = K m N e^(-lambda S) <= max.
    const KarlinAltschul ka{1.0, 1.0, false};
    o.max_evalue = 1000.0 * std::exp(-7.0) * 1.0000001;  // admits S >= 7 for m N = 1000
    EXPECT_EQ(select_hits(scores, AlignMode::local, o, ka, 10, 100), (std::vector<std::uint32_t>{2, 5, 6}));
    EXPECT_THROW(select_hits(scores, AlignMode::local, o, std::nullopt, 10, 100), std::invalid_argument);
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
            h.evalue = ka->k * static_cast<double>(q.size()) * static_cast<double>(n) *
                       std::exp(-ka->lambda * (ka->even_scores ? h.result.score / 2 * 2 : h.result.score));
            h.bits = (ka->lambda * (ka->even_scores ? h.result.score / 2 * 2 : h.result.score) - std::log(ka->k)) /
                     std::log(2.0);
            if (o.max_evalue && *h.evalue > *o.max_evalue) continue;
        }
        all.push_back(h);
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const SearchHit& a, const SearchHit& b) { return a.result.score > b.result.score; });
    if (all.size() > o.max_hits) all.resize(o.max_hits);
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
