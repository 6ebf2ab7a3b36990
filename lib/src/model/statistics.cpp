// Karlin-Altschul statistics (statistics.hpp). The tables are NCBI BLAST's
// gapped parameters, copied from c++/src/algo/blast/core/blast_stat.c of
// BLAST+ 2.12 (blosum45_values, blosum62_values, blosum80_values,
// blastn_values_1_2, blastn_values_2_3): for each gap pair, λ, K and H as
// NCBI estimated them by simulation (Altschul, Bundschuh, Olsen & Hwa 2001),
// alpha and beta of the length adjustment, and for the protein matrices
// Spouge's alpha_v and sigma (Park, Sheetlin & Spouge 2012).
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

namespace gpualign {
namespace {

struct ProteinRow {
    int gap_open, gap_extend;
    double lambda, k, h, alpha, beta, alpha_v, sigma;
};
struct Ungapped {
    double alpha, alpha_v;
};
struct DnaRow {
    int gap_open, gap_extend;
    double lambda, k, h, alpha, beta;
};

// blosum45_values: gap_open, gap_extend, lambda, K, H, alpha, beta, alpha_v, sigma
constexpr ProteinRow blosum45[] = {
    {13, 3, 0.207, 0.049, 0.14, 1.5, -22, 35.855900, 35.963900},
    {12, 3, 0.199, 0.039, 0.11, 1.8, -34, 45.693600, 45.851700},
    {11, 3, 0.190, 0.031, 0.095, 2.0, -38, 62.874100, 63.103700},
    {10, 3, 0.179, 0.023, 0.075, 2.4, -51, 88.286800, 88.639100},
    {16, 2, 0.210, 0.051, 0.14, 1.5, -24, 36.279800, 36.452400},
    {15, 2, 0.203, 0.041, 0.12, 1.7, -31, 44.825700, 45.060400},
    {14, 2, 0.195, 0.032, 0.10, 1.9, -36, 60.736200, 61.102300},
    {13, 2, 0.185, 0.024, 0.084, 2.2, -45, 85.148100, 85.689400},
    {12, 2, 0.171, 0.016, 0.061, 2.8, -65, 127.758000, 128.582000},
    {19, 1, 0.205, 0.040, 0.11, 1.9, -43, 53.071400, 53.828200},
    {18, 1, 0.198, 0.032, 0.10, 2.0, -43, 72.342400, 73.403900},
    {17, 1, 0.189, 0.024, 0.079, 2.4, -57, 103.055000, 104.721000},
    {16, 1, 0.176, 0.016, 0.063, 2.8, -67, 170.100000, 173.003000},
};
// the ungapped row's alpha and alpha_v (Spouge's b, beta and tau)
constexpr Ungapped blosum45_ungapped{0.9113, 9.611060};
// blosum62_values: gap_open, gap_extend, lambda, K, H, alpha, beta, alpha_v, sigma
constexpr ProteinRow blosum62[] = {
    {11, 2, 0.297, 0.082, 0.27, 1.1, -10, 12.673800, 12.757600},
    {10, 2, 0.291, 0.075, 0.23, 1.3, -15, 16.474000, 16.602600},
    {9, 2, 0.279, 0.058, 0.19, 1.5, -19, 22.751900, 22.950000},
    {8, 2, 0.264, 0.045, 0.15, 1.8, -26, 35.483800, 35.821300},
    {7, 2, 0.239, 0.027, 0.10, 2.5, -46, 61.238300, 61.886000},
    {6, 2, 0.201, 0.012, 0.061, 3.3, -58, 140.417000, 141.882000},
    {13, 1, 0.292, 0.071, 0.23, 1.2, -11, 19.506300, 19.893100},
    {12, 1, 0.283, 0.059, 0.19, 1.5, -19, 27.856200, 28.469900},
    {11, 1, 0.267, 0.041, 0.14, 1.9, -30, 42.602800, 43.636200},
    {10, 1, 0.243, 0.024, 0.10, 2.5, -44, 83.178700, 85.065600},
    {9, 1, 0.206, 0.010, 0.052, 4.0, -87, 210.333000, 214.842000},
};
// the ungapped row's alpha and alpha_v (Spouge's b, beta and tau)
constexpr Ungapped blosum62_ungapped{0.7916, 4.964660};
// blosum80_values: gap_open, gap_extend, lambda, K, H, alpha, beta, alpha_v, sigma
constexpr ProteinRow blosum80[] = {
    {25, 2, 0.342, 0.17, 0.66, 0.52, -1.6, 1.731000, 1.731300},
    {13, 2, 0.336, 0.15, 0.57, 0.59, -3, 2.673470, 2.692300},
    {9, 2, 0.319, 0.11, 0.42, 0.76, -6, 5.576090, 5.667860},
    {8, 2, 0.308, 0.090, 0.35, 0.89, -9, 7.536950, 7.686230},
    {7, 2, 0.293, 0.070, 0.27, 1.1, -14, 11.586600, 11.840400},
    {6, 2, 0.268, 0.045, 0.19, 1.4, -19, 19.958100, 20.441200},
    {11, 1, 0.314, 0.095, 0.35, 0.90, -9, 8.808610, 9.223320},
    {10, 1, 0.299, 0.071, 0.27, 1.1, -14, 13.833800, 14.533400},
    {9, 1, 0.279, 0.048, 0.20, 1.4, -19, 24.252000, 25.490400},
};
// the ungapped row's alpha and alpha_v (Spouge's b, beta and tau)
constexpr Ungapped blosum80_ungapped{0.5222, 1.918130};
// blastn_values_1_2: gap_open, gap_extend, lambda, K, H, alpha, beta (the non-affine 0/0 row left out)
constexpr DnaRow blastn_1_2[] = {
    {2, 2, 1.33, 0.62, 1.1, 1.2, 0},
    {1, 2, 1.30, 0.52, 0.93, 1.4, -2},
    {0, 2, 1.19, 0.34, 0.66, 1.8, -3},
    {3, 1, 1.32, 0.57, 1.0, 1.3, -1},
    {2, 1, 1.29, 0.49, 0.92, 1.4, -1},
    {1, 1, 1.14, 0.26, 0.52, 2.2, -5},
};
// blastn_values_2_3: gap_open, gap_extend, lambda, K, H, alpha, beta (the non-affine 0/0 row left out)
constexpr DnaRow blastn_2_3[] = {
    {4, 4, 0.63, 0.42, 0.84, 0.75, -2},
    {2, 4, 0.615, 0.37, 0.72, 0.85, -3},
    {0, 4, 0.55, 0.21, 0.46, 1.2, -5},
    {3, 3, 0.615, 0.37, 0.68, 0.9, -3},
    {6, 2, 0.63, 0.42, 0.84, 0.75, -2},
    {5, 2, 0.625, 0.41, 0.78, 0.8, -2},
    {4, 2, 0.61, 0.35, 0.68, 0.9, -3},
    {2, 2, 0.515, 0.14, 0.33, 1.55, -9},
};

std::optional<KarlinAltschul> find_protein(std::span<const ProteinRow> rows, const Ungapped& un,
                                           const ScoringScheme& s) {
    for (const ProteinRow& r : rows)
        if (r.gap_open == s.gap_open && r.gap_extend == s.gap_extend) {
            // Blast_GumbelBlkLoadFromTables: G = gap_open + gap_extend.
            const double g = r.gap_open + r.gap_extend;
            const SpougeParameters sp{r.alpha, 2 * g * (un.alpha - r.alpha), r.alpha_v, 2 * g * (un.alpha_v - r.alpha_v),
                                      r.sigma, 2 * g * (un.alpha_v - r.sigma)};
            return KarlinAltschul{r.lambda, r.k, r.h, r.alpha, r.beta, false, sp};
        }
    return std::nullopt;
}

std::optional<KarlinAltschul> find_dna(std::span<const DnaRow> rows, const ScoringScheme& s, bool even) {
    for (const DnaRow& r : rows)
        if (r.gap_open == s.gap_open && r.gap_extend == s.gap_extend)
            return KarlinAltschul{r.lambda, r.k, r.h, r.alpha, r.beta, even, std::nullopt};
    return std::nullopt;
}

/// True when the DNA scheme scores identical bases (A, C, G, T) `match` and
/// every other pair, N and IUPAC codes included, -mismatch.
bool is_match_mismatch(const ScoringScheme& s, int match, int mismatch) {
    if (s.alphabet != Alphabet::dna) return false;
    for (int a = 0; a < s.size; ++a)
        for (int b = 0; b < s.size; ++b) {
            const bool same = residues_identical(Alphabet::dna, static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b));
            if (s.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)) != (same ? match : -mismatch))
                return false;
        }
    return true;
}

double effective(const KarlinAltschul& ka, std::int32_t score) noexcept {
    return static_cast<double>(ka.even_scores && score % 2 != 0 ? score - 1 : score);
}

/// BLAST_SpougeStoE (blast_stat.c) for a symmetric matrix, unscaled scores
/// (the scale factor 1) and the pair's E-value scaled to the DB by
/// db_letters / n.
double spouge_evalue(const KarlinAltschul& ka, const SpougeParameters& sp, double y, double m, double n,
                     double db_letters) noexcept {
    constexpr double inv_sqrt_2pi = 0.39894228040143267793994605993438;
    const double lambda = ka.lambda;
    const auto side = [&](double len, double& p) {
        const double l_y = len - (sp.a * y + sp.b);
        const double v_y = std::max(2.0 * sp.alpha / lambda, sp.alpha * y + sp.beta);
        const double sqrt_v = std::sqrt(v_y);
        const double f = l_y / sqrt_v;
        p = std::erfc(-f / std::sqrt(2.0)) / 2.0;
        return l_y * p + sqrt_v * inv_sqrt_2pi * std::exp(-0.5 * f * f);
    };
    double p_m = 0, p_n = 0;
    const double p1 = side(m, p_m);
    const double p2 = side(n, p_n);
    const double c_y = std::max(2.0 * sp.sigma / lambda, sp.sigma * y + sp.tau);
    const double area = p1 * p2 + c_y * p_m * p_n;
    return area * ka.k * std::exp(-lambda * y) * (db_letters / n);
}

}  // namespace

std::optional<KarlinAltschul> karlin_altschul(const ScoringScheme& s) noexcept {
    if (s.alphabet == Alphabet::protein) {
        if (s.matrix_name == "BLOSUM45") return find_protein(blosum45, blosum45_ungapped, s);
        if (s.matrix_name == "BLOSUM62") return find_protein(blosum62, blosum62_ungapped, s);
        if (s.matrix_name == "BLOSUM80") return find_protein(blosum80, blosum80_ungapped, s);
        return std::nullopt;
    }
    if (is_match_mismatch(s, 1, 2)) return find_dna(blastn_1_2, s, false);
    if (is_match_mismatch(s, 2, 3)) return find_dna(blastn_2_3, s, true);
    return std::nullopt;
}

double bit_score(const KarlinAltschul& ka, std::int32_t score) noexcept {
    return (ka.lambda * static_cast<double>(score) - std::log(ka.k)) / std::log(2.0);
}

std::int64_t length_adjustment(const KarlinAltschul& ka, std::uint64_t query_len, DbSize db) noexcept {
    // BLAST_ComputeLengthAdjustment, step for step.
    const double m = static_cast<double>(query_len);
    const double n = static_cast<double>(db.letters);
    const double big_n = static_cast<double>(db.sequences);
    const double alpha_d_lambda = ka.alpha / ka.lambda;
    const double log_k = std::log(ka.k);
    constexpr int max_iterations = 20;
    double ell_min = 0, ell_max = 0, ell_next = 0;
    {
        // The largest ℓ with K (m − ℓ)(n − N ℓ) > max(m, n) (quadratic formula).
        const double a = big_n;
        const double mb = m * big_n + n;
        const double c = n * m - std::max(m, n) / ka.k;
        if (c < 0) return 0;
        ell_max = 2 * c / (mb + std::sqrt(mb * mb - 4 * a * c));
    }
    bool converged = false;
    for (int i = 1; i <= max_iterations; ++i) {
        const double ell = ell_next;
        const double ss = (m - ell) * (n - big_n * ell);
        const double ell_bar = alpha_d_lambda * (log_k + std::log(ss)) + ka.beta;
        if (ell_bar >= ell) {
            ell_min = ell;
            if (ell_bar - ell_min <= 1.0) {
                converged = true;
                break;
            }
            if (ell_min == ell_max) break;
        } else {
            ell_max = ell;
        }
        if (ell_min <= ell_bar && ell_bar <= ell_max)
            ell_next = ell_bar;
        else
            ell_next = i == 1 ? ell_max : (ell_min + ell_max) / 2;
    }
    auto result = static_cast<std::int64_t>(ell_min);
    if (converged) {
        const double ell = std::ceil(ell_min);
        if (ell <= ell_max) {
            const double ss = (m - ell) * (n - big_n * ell);
            if (alpha_d_lambda * (log_k + std::log(ss)) + ka.beta >= ell) result = static_cast<std::int64_t>(ell);
        }
    }
    return result;
}

double effective_search_space(const KarlinAltschul& ka, std::uint64_t query_len, DbSize db) noexcept {
    const std::int64_t ell = length_adjustment(ka, query_len, db);
    // BLAST_CalcEffLengths: Int8 arithmetic, the DB side at least 1.
    std::int64_t eff_db = static_cast<std::int64_t>(db.letters) - static_cast<std::int64_t>(db.sequences) * ell;
    if (eff_db <= 0) eff_db = 1;
    return static_cast<double>(eff_db) * static_cast<double>(static_cast<std::int64_t>(query_len) - ell);
}

double evalue(const KarlinAltschul& ka, std::int32_t score, std::uint64_t query_len, std::uint64_t ref_len,
              DbSize db) noexcept {
    const double y = effective(ka, score);
    if (ka.spouge)
        return spouge_evalue(ka, *ka.spouge, y, static_cast<double>(query_len),
                             static_cast<double>(std::max<std::uint64_t>(1, ref_len)), static_cast<double>(db.letters));
    return ka.k * effective_search_space(ka, query_len, db) * std::exp(-ka.lambda * y);
}

std::string format_evalue(double e) {
    char buf[64];
    if (e < 1.0e-180)
        return "0.0";
    else if (e < 0.0009)  // CBlastTabularInfo::SetScores: NStr::DoubleToString(e, 2, fDoubleScientific)
        std::snprintf(buf, sizeof buf, "%.2e", e);
    else if (e < 0.1)
        std::snprintf(buf, sizeof buf, "%4.3lf", e);
    else if (e < 1.0)
        std::snprintf(buf, sizeof buf, "%3.2lf", e);
    else if (e < 10.0)
        std::snprintf(buf, sizeof buf, "%2.1lf", e);
    else
        std::snprintf(buf, sizeof buf, "%2.0lf", e);
    return buf;
}

std::string format_bit_score(double bits) {
    char buf[64];
    if (bits > 99999)
        std::snprintf(buf, sizeof buf, "%5.3le", bits);
    else if (bits > 99.9)
        std::snprintf(buf, sizeof buf, "%3.0ld", static_cast<long>(bits));
    else
        std::snprintf(buf, sizeof buf, "%4.1lf", bits);
    return buf;
}

std::optional<KarlinAltschul> alignment_statistics(const ScoringScheme& s, AlignMode mode) noexcept {
    if (mode != AlignMode::local) return std::nullopt;
    return karlin_altschul(s);
}

std::string describe_scheme(const ScoringScheme& s) {
    const std::string gaps = "gap_open/gap_extend " + std::to_string(s.gap_open) + "/" + std::to_string(s.gap_extend);
    if (s.alphabet == Alphabet::dna && s.matrix_name == "match/mismatch" && s.size > dna_n_code) {
        // make_dna_scheme: codes 0 and 1 are two different bases, neither N.
        const std::int32_t match = s.score(0, 0), mismatch = -s.score(0, 1), n = s.score(dna_n_code, dna_n_code);
        std::string text = "match/mismatch " + std::to_string(match) + "/" + std::to_string(mismatch);
        if (n != -mismatch) text += ", N score " + std::to_string(n);
        return text + ", " + gaps;
    }
    return s.matrix_name + ", " + gaps;
}

std::string missing_statistics_warning(const ScoringScheme& s, AlignMode mode) {
    return "no published Karlin-Altschul parameters for " +
           (mode == AlignMode::local ? std::string("this scheme") : to_string(mode) + std::string(" alignment")) +
           " (" + describe_scheme(s) + "): E-values and bit scores are NA";
}

}  // namespace gpualign
