// Karlin-Altschul statistics (statistics.hpp). The tables are NCBI BLAST's
// gapped parameters (c++/src/algo/blast/core/blast_stat.c): for each gap
// pair, λ and K as NCBI estimated them by simulation.
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/statistics.hpp"

#include <cmath>
#include <cstdio>
#include <span>
#include <string_view>

namespace gpualign {
namespace {

struct Row {
    int gap_open, gap_extend;
    double lambda, k;
};

constexpr Row blosum45[] = {{13, 3, 0.207, 0.049}, {12, 3, 0.199, 0.039}, {11, 3, 0.190, 0.031}, {10, 3, 0.179, 0.023},
                            {16, 2, 0.210, 0.051}, {15, 2, 0.203, 0.041}, {14, 2, 0.195, 0.032}, {13, 2, 0.185, 0.024},
                            {12, 2, 0.171, 0.016}, {19, 1, 0.205, 0.040}, {18, 1, 0.198, 0.032}, {17, 1, 0.189, 0.024},
                            {16, 1, 0.176, 0.016}};
constexpr Row blosum62[] = {{11, 2, 0.297, 0.082}, {10, 2, 0.291, 0.075}, {9, 2, 0.279, 0.058},  {8, 2, 0.264, 0.045},
                            {7, 2, 0.239, 0.027},  {6, 2, 0.201, 0.012},  {13, 1, 0.292, 0.071}, {12, 1, 0.283, 0.059},
                            {11, 1, 0.267, 0.041}, {10, 1, 0.243, 0.024}, {9, 1, 0.206, 0.010}};
constexpr Row blosum80[] = {{25, 2, 0.342, 0.17}, {13, 2, 0.336, 0.15}, {9, 2, 0.319, 0.11},  {8, 2, 0.308, 0.090},
                            {7, 2, 0.293, 0.070}, {6, 2, 0.268, 0.045}, {11, 1, 0.314, 0.095}, {10, 1, 0.299, 0.071},
                            {9, 1, 0.279, 0.048}};
// blastn reward/penalty tables (the "0, 0" rows, BLAST's greedy-extension
// defaults, are left out: gap_open 0 is a linear gap here).
constexpr Row blastn_1_2[] = {{2, 2, 1.33, 0.62}, {1, 2, 1.30, 0.52}, {0, 2, 1.19, 0.34},
                              {3, 1, 1.32, 0.57}, {2, 1, 1.29, 0.49}, {1, 1, 1.14, 0.26}};
constexpr Row blastn_2_3[] = {{4, 4, 0.63, 0.42},  {2, 4, 0.615, 0.37}, {0, 4, 0.55, 0.21}, {3, 3, 0.615, 0.37},
                              {6, 2, 0.63, 0.42},  {5, 2, 0.625, 0.41}, {4, 2, 0.61, 0.35}, {2, 2, 0.515, 0.14}};

std::optional<KarlinAltschul> find(std::span<const Row> rows, const ScoringScheme& s, bool even) {
    for (const Row& r : rows)
        if (r.gap_open == s.gap_open && r.gap_extend == s.gap_extend) return KarlinAltschul{r.lambda, r.k, even};
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

std::string trimmed(const char* text) {
    std::string_view v(text);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    return std::string(v);
}

}  // namespace

std::optional<KarlinAltschul> karlin_altschul(const ScoringScheme& s) noexcept {
    if (s.alphabet == Alphabet::protein) {
        if (s.matrix_name == "BLOSUM45") return find(blosum45, s, false);
        if (s.matrix_name == "BLOSUM62") return find(blosum62, s, false);
        if (s.matrix_name == "BLOSUM80") return find(blosum80, s, false);
        return std::nullopt;
    }
    if (is_match_mismatch(s, 1, 2)) return find(blastn_1_2, s, false);
    if (is_match_mismatch(s, 2, 3)) return find(blastn_2_3, s, true);
    return std::nullopt;
}

namespace {
double effective(const KarlinAltschul& ka, std::int32_t score) noexcept {
    return static_cast<double>(ka.even_scores && score % 2 != 0 ? score - 1 : score);
}
}  // namespace

double bit_score(const KarlinAltschul& ka, std::int32_t score) noexcept {
    return (ka.lambda * effective(ka, score) - std::log(ka.k)) / std::log(2.0);
}

double evalue(const KarlinAltschul& ka, std::int32_t score, std::uint64_t query_len, std::uint64_t db_letters) noexcept {
    return ka.k * static_cast<double>(query_len) * static_cast<double>(db_letters) *
           std::exp(-ka.lambda * effective(ka, score));
}

std::string format_evalue(double e) {
    char buf[64];
    if (e < 1.0e-180)
        return "0.0";
    else if (e < 1.0e-99)
        std::snprintf(buf, sizeof buf, "%2.0le", e);
    else if (e < 0.0009)
        std::snprintf(buf, sizeof buf, "%3.0le", e);
    else if (e < 0.1)
        std::snprintf(buf, sizeof buf, "%4.3lf", e);
    else if (e < 1.0)
        std::snprintf(buf, sizeof buf, "%3.2lf", e);
    else if (e < 10.0)
        std::snprintf(buf, sizeof buf, "%2.1lf", e);
    else
        std::snprintf(buf, sizeof buf, "%5.0lf", e);
    return trimmed(buf);
}

std::string format_bit_score(double bits) {
    char buf[64];
    if (bits > 99999)
        std::snprintf(buf, sizeof buf, "%5.3le", bits);
    else if (bits > 99.9)
        std::snprintf(buf, sizeof buf, "%ld", static_cast<long>(bits));
    else
        std::snprintf(buf, sizeof buf, "%4.1lf", bits);
    return trimmed(buf);
}

std::optional<KarlinAltschul> alignment_statistics(const ScoringScheme& s, AlignMode mode) noexcept {
    if (mode != AlignMode::local) return std::nullopt;
    return karlin_altschul(s);
}

std::string missing_statistics_warning(const ScoringScheme& s, AlignMode mode) {
    return "no published Karlin-Altschul parameters for " +
           (mode == AlignMode::local ? std::string("this scheme") : to_string(mode) + std::string(" alignment")) + " (" + s.matrix_name + " " +
           std::to_string(s.gap_open) + "/" + std::to_string(s.gap_extend) + "): E-values and bit scores are NA";
}

}  // namespace gpualign
