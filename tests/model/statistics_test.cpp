// Karlin-Altschul statistics (statistics.hpp) against NCBI BLAST+ 2.12:
// the published gapped parameters, the length adjustment and effective
// search space blastp/blastn report ("Effective search space used"), the
// E-values and bit scores they print (-outfmt 6: each printed the same, and
// the E-value within 5% of the printed one), and BLAST+'s tabular number
// formats. The reference
// numbers come from Debian's ncbi-blast+ 2.12.0 on tests/data/blast_stats/
// (protein_db.fa: 217 sequences, 51,862 letters; -seg no
// -comp_based_stats 0), the commands named at each case.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpualign/io/matrix.hpp"
#include "gpualign/model/statistics.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

constexpr DbSize protein_db{51862, 217};

/// E-value `got` prints as BLAST printed it (`printed`) and is within 5% of it.
void expect_evalue(double got, const std::string& printed, const std::string& what) {
    EXPECT_EQ(format_evalue(got), printed) << what << ": " << got;
    EXPECT_NEAR(got / std::stod(printed), 1.0, 0.05) << what << ": " << got << " against BLAST's " << printed;
}

TEST(Statistics, PublishedParametersOfTheBuiltInSchemes) {
    const auto b62 = karlin_altschul(blosum62_scheme(11, 1));
    ASSERT_TRUE(b62);
    EXPECT_DOUBLE_EQ(b62->lambda, 0.267);
    EXPECT_DOUBLE_EQ(b62->k, 0.041);
    EXPECT_DOUBLE_EQ(b62->h, 0.14);
    EXPECT_DOUBLE_EQ(b62->alpha, 1.9);
    EXPECT_DOUBLE_EQ(b62->beta, -30);
    ASSERT_TRUE(b62->spouge);
    // blastp's "Gapped" line: a 1.90, alpha 42.6, sigma 43.6; b, beta and tau
    // as Blast_GumbelBlkLoadFromTables derives them (G = 12, ungapped row
    // a = 0.7916, alpha_v = 4.96466).
    EXPECT_DOUBLE_EQ(b62->spouge->a, 1.9);
    EXPECT_DOUBLE_EQ(b62->spouge->alpha, 42.6028);
    EXPECT_DOUBLE_EQ(b62->spouge->sigma, 43.6362);
    EXPECT_NEAR(b62->spouge->b, 2 * 12 * (0.7916 - 1.9), 1e-12);
    EXPECT_NEAR(b62->spouge->beta, 2 * 12 * (4.96466 - 42.6028), 1e-12);
    EXPECT_NEAR(b62->spouge->tau, 2 * 12 * (4.96466 - 43.6362), 1e-12);
    const auto b62_10_2 = karlin_altschul(blosum62_scheme(10, 2));
    ASSERT_TRUE(b62_10_2);
    EXPECT_DOUBLE_EQ(b62_10_2->lambda, 0.291);
    const auto b45 = karlin_altschul(make_protein_scheme("BLOSUM45", 14, 2));
    ASSERT_TRUE(b45);
    EXPECT_DOUBLE_EQ(b45->k, 0.032);
    EXPECT_DOUBLE_EQ(b45->spouge->alpha, 60.7362);
    const auto b80 = karlin_altschul(make_protein_scheme("BLOSUM80", 10, 1));
    ASSERT_TRUE(b80);
    EXPECT_DOUBLE_EQ(b80->lambda, 0.299);
    EXPECT_DOUBLE_EQ(b80->beta, -14);
    // The DNA default 2/-3 with 5/2: even scores only, no Spouge correction
    // (blastn 2.12 leaves it out: blast_setup.c frees the Gumbel block).
    const auto dna = karlin_altschul(dna_scheme(5, 2));
    ASSERT_TRUE(dna);
    EXPECT_DOUBLE_EQ(dna->lambda, 0.625);
    EXPECT_DOUBLE_EQ(dna->k, 0.41);
    EXPECT_DOUBLE_EQ(dna->h, 0.78);
    EXPECT_DOUBLE_EQ(dna->alpha, 0.8);
    EXPECT_DOUBLE_EQ(dna->beta, -2);
    EXPECT_TRUE(dna->even_scores);
    EXPECT_FALSE(dna->spouge);
    const auto one_two = karlin_altschul(make_dna_scheme(1, 2, 2, 1, -2));
    ASSERT_TRUE(one_two);
    EXPECT_DOUBLE_EQ(one_two->lambda, 1.29);
    EXPECT_DOUBLE_EQ(one_two->alpha, 1.4);
    EXPECT_FALSE(one_two->even_scores);
    // No published values: BLOSUM30, gap pairs outside the tables, other DNA scores, N scored apart.
    EXPECT_FALSE(karlin_altschul(make_protein_scheme("BLOSUM30", 11, 1)));
    EXPECT_FALSE(karlin_altschul(blosum62_scheme(5, 5)));
    EXPECT_FALSE(karlin_altschul(make_dna_scheme(3, 5, 5, 2, -5)));
    EXPECT_FALSE(karlin_altschul(make_dna_scheme(2, 3, 5, 2, 0)));
}

// "Effective search space used" of blastp/blastn 2.12 for these queries.
TEST(Statistics, EffectiveSearchSpaceAsBlastReportsIt) {
    const KarlinAltschul b62 = *karlin_altschul(blosum62_scheme(11, 1));
    // blastp -query <HBB_HUMAN, 146 aa> -db protein_db: 3693248.
    EXPECT_EQ(effective_search_space(b62, 146, protein_db), 3693248.0);
    // CDC15_YEAST/25-272 (248 aa): 7382151; PTP99_DROME/172-259 (88 aa): 1657840.
    EXPECT_EQ(effective_search_space(b62, 248, protein_db), 7382151.0);
    EXPECT_EQ(effective_search_space(b62, 88, protein_db), 1657840.0);
    // The same from the length adjustment: (n - N l)(m - l).
    const std::int64_t l = length_adjustment(b62, 146, protein_db);
    EXPECT_EQ((51862 - 217 * l) * (146 - l), 3693248);
    // BLOSUM80 10/1 and BLOSUM45 14/2, HBB_HUMAN: 5051213 and 2577888.
    EXPECT_EQ(effective_search_space(*karlin_altschul(make_protein_scheme("BLOSUM80", 10, 1)), 146, protein_db),
              5051213.0);
    EXPECT_EQ(effective_search_space(*karlin_altschul(make_protein_scheme("BLOSUM45", 14, 2)), 146, protein_db),
              2577888.0);
    // blastn -subject (one ref of 664 nt, the DB), query 150 nt
    // (dna_queries.fa record 16): 2/-3 5/2 gives 90767, 1/-2 2/1 gives 91560.
    EXPECT_EQ(effective_search_space(*karlin_altschul(dna_scheme(5, 2)), 150, DbSize{664, 1}), 90767.0);
    EXPECT_EQ(effective_search_space(*karlin_altschul(make_dna_scheme(1, 2, 2, 1, -2)), 150, DbSize{664, 1}),
              91560.0);
    // No adjustment where K m n <= max(m, n): the whole space.
    EXPECT_EQ(length_adjustment(b62, 2, DbSize{3, 1}), 0);
    EXPECT_EQ(effective_search_space(b62, 2, DbSize{3, 1}), 6.0);
}

// blastp -outfmt "6 qseqid sseqid evalue bitscore score qlen slen": the
// E-values with Spouge's correction depend on the subject's length, not on
// the effective search space.
TEST(Statistics, SpougeEvaluesAsBlastpPrintsThem) {
    const KarlinAltschul b62 = *karlin_altschul(blosum62_scheme(11, 1));
    struct Case {
        int score;
        std::uint64_t qlen, slen;
        const char* evalue;
        const char* bits;
    };
    const Case cases[] = {
        {775, 146, 146, "2.72e-110", "303"},  // HBB_HUMAN against itself
        {140, 146, 153, "5.45e-14", "58.5"},  // HBB_HUMAN, MYG_LYCPI
        {23, 146, 622, "576", "13.5"},        // HBB_HUMAN, THRB_HUMAN
        {24, 146, 810, "436", "13.9"},        // HBB_HUMAN, PLMN_ERIEU
        {21, 146, 277, "996", "12.7"},        // HBB_HUMAN, KPRO_MAIZE/534-810
        {169, 141, 149, "2.36e-18", "69.7"},  // HBA_HUMAN, GLB5_PETMA
        {33, 141, 1420, "33", "17.3"},        // HBA_HUMAN, APOA_MACMU-F
        {70, 149, 146, "3.90e-04", "31.6"},   // GLB5_PETMA, HBB_TUPGL
        {272, 248, 259, "3.49e-31", "109"},   // CDC15_YEAST/25-272, PSK1_YEAST/1096-1354
        {37, 248, 562, "21", "18.9"},         // CDC15_YEAST/25-272, UROT_HUMAN
        {60, 88, 95, "0.002", "27.7"},        // PTP99_DROME/172-259, L1CAM_HUMAN/813-907
        {39, 88, 255, "2.3", "19.6"},         // PTP99_DROME/172-259, BYR1_SCHPO/66-320
    };
    for (const Case& c : cases) {
        const std::string what = "score " + std::to_string(c.score);
        expect_evalue(evalue(b62, c.score, c.qlen, c.slen, protein_db), c.evalue, what);
        EXPECT_EQ(format_bit_score(bit_score(b62, c.score)), c.bits) << what;
    }
    // BLOSUM80 10/1 and BLOSUM45 14/2: HBB_HUMAN against itself, and a weak hit.
    const KarlinAltschul b80 = *karlin_altschul(make_protein_scheme("BLOSUM80", 10, 1));
    expect_evalue(evalue(b80, 817, 146, 146, protein_db), "2.15e-125", "BLOSUM80 self");
    expect_evalue(evalue(b80, 23, 146, 716, protein_db), "498", "BLOSUM80 weak");
    const KarlinAltschul b45 = *karlin_altschul(make_protein_scheme("BLOSUM45", 14, 2));
    expect_evalue(evalue(b45, 929, 146, 146, protein_db), "4.74e-96", "BLOSUM45 self");
    expect_evalue(evalue(b45, 42, 146, 716, protein_db), "43", "BLOSUM45 weak");
    expect_evalue(evalue(b45, 28, 146, 265, protein_db), "824", "BLOSUM45 weaker");
    // The DB scale: E grows with the DB letters in proportion.
    EXPECT_NEAR(evalue(b62, 60, 88, 95, DbSize{2 * 51862, 217}) / evalue(b62, 60, 88, 95, protein_db), 2.0, 1e-12);
}

// blastn -task blastn -subject <one ref>: K (effective search space) e^(-lambda S),
// the score rounded down to even for 2/-3, the bit score from the raw score.
TEST(Statistics, BlastnEvaluesAsItPrintsThem) {
    const KarlinAltschul two_three = *karlin_altschul(dna_scheme(5, 2));
    // dna_queries.fa / dna_refs.fa records 16, 9 and 19 (query, ref lengths).
    expect_evalue(evalue(two_three, 178, 150, 664, DbSize{664, 1}), "1.80e-44", "record 16");
    EXPECT_EQ(format_bit_score(bit_score(two_three, 178)), "161");
    expect_evalue(evalue(two_three, 55, 40, 641, DbSize{641, 1}), "1.77e-11", "record 9, odd score");
    EXPECT_EQ(format_bit_score(bit_score(two_three, 55)), "50.9");
    expect_evalue(evalue(two_three, 27, 20, 171, DbSize{171, 1}), "8.30e-05", "record 19, odd score");
    EXPECT_EQ(format_bit_score(bit_score(two_three, 27)), "25.6");
    // An odd score counts as the even score below it for the E-value only.
    EXPECT_DOUBLE_EQ(evalue(two_three, 43, 100, 1000, DbSize{1000, 1}), evalue(two_three, 42, 100, 1000, DbSize{1000, 1}));
    EXPECT_GT(bit_score(two_three, 43), bit_score(two_three, 42));
    // 1/-2 2/1, record 16: 9.76e-49 (score 94) and 0.008 (score 12).
    const KarlinAltschul one_two = *karlin_altschul(make_dna_scheme(1, 2, 2, 1, -2));
    expect_evalue(evalue(one_two, 94, 150, 664, DbSize{664, 1}), "9.76e-49", "1/-2 record 16");
    EXPECT_EQ(format_bit_score(bit_score(one_two, 94)), "175");
    EXPECT_EQ(format_evalue(evalue(one_two, 12, 150, 664, DbSize{664, 1})), "0.008");
    EXPECT_EQ(format_bit_score(bit_score(one_two, 12)), "23.4");
}

// CBlastTabularInfo::SetScores over CAlignFormatUtil::GetScoreString (BLAST+ 2.12).
TEST(Statistics, FormattedAsBlastPlusTabularPrintsThem) {
    EXPECT_EQ(format_evalue(0.0), "0.0");
    EXPECT_EQ(format_evalue(1e-200), "0.0");
    EXPECT_EQ(format_evalue(9.9e-181), "0.0");
    EXPECT_EQ(format_evalue(1.2e-180), "1.20e-180");
    EXPECT_EQ(format_evalue(4.8e-110), "4.80e-110");
    EXPECT_EQ(format_evalue(6.4e-82), "6.40e-82");
    EXPECT_EQ(format_evalue(2.4e-14), "2.40e-14");
    EXPECT_EQ(format_evalue(0.00085), "8.50e-04");
    EXPECT_EQ(format_evalue(0.00095), "0.001");
    EXPECT_EQ(format_evalue(0.0123), "0.012");
    EXPECT_EQ(format_evalue(0.456), "0.46");
    EXPECT_EQ(format_evalue(4.56), "4.6");
    EXPECT_EQ(format_evalue(10.4), "10");
    EXPECT_EQ(format_evalue(123.4), "123");
    EXPECT_EQ(format_evalue(98765.4), "98765");
    EXPECT_EQ(format_bit_score(8.54), " 8.5");  // blastn prints the leading space below 10
    EXPECT_EQ(format_bit_score(68.94), "68.9");
    EXPECT_EQ(format_bit_score(99.9), "99.9");
    EXPECT_EQ(format_bit_score(99.95), " 99");  // "%3.0ld" of the truncated value
    EXPECT_EQ(format_bit_score(289.62), "289");
    EXPECT_EQ(format_bit_score(99999.0), "99999");
    EXPECT_EQ(format_bit_score(123456.0), "1.235e+05");
}

// Issue 41 item 4: the scheme named with its values.
TEST(Statistics, MissingStatisticsWarningNamesTheSchemeValues) {
    EXPECT_EQ(describe_scheme(make_dna_scheme(1, 4, 7, 3, -4)), "match/mismatch 1/4, gap_open/gap_extend 7/3");
    EXPECT_EQ(describe_scheme(make_dna_scheme(2, 3, 5, 2, 0)), "match/mismatch 2/3, N score 0, gap_open/gap_extend 5/2");
    EXPECT_EQ(describe_scheme(blosum62_scheme(5, 5)), "BLOSUM62, gap_open/gap_extend 5/5");
    EXPECT_EQ(missing_statistics_warning(make_dna_scheme(1, 4, 7, 3, -4), AlignMode::local),
              "no published Karlin-Altschul parameters for this scheme (match/mismatch 1/4, gap_open/gap_extend 7/3): "
              "E-values and bit scores are NA");
    EXPECT_EQ(missing_statistics_warning(blosum62_scheme(11, 1), AlignMode::global),
              "no published Karlin-Altschul parameters for global alignment (BLOSUM62, gap_open/gap_extend 11/1): "
              "E-values and bit scores are NA");
}

}  // namespace
}  // namespace gpualign::test
