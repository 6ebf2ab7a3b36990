// gpualign — Karlin-Altschul statistics of local alignment scores: bit
// scores and E-values of search hits (Karlin & Altschul 1990; gapped
// parameters as estimated by NCBI BLAST, blast_stat.c).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// Gapped Karlin-Altschul parameters of one scoring scheme.
struct KarlinAltschul {
    double lambda = 0;  ///< λ, per score unit (nats)
    double k = 0;       ///< K, dimensionless
    /// BLAST's 2/-3 and 2/-5 DNA tables hold for even scores only: an odd
    /// score is rounded down to the even number below before use.
    bool even_scores = false;
};

/// The published parameters of `s`, or nothing when NCBI publishes none for
/// it. Covered (NCBI BLAST blast_stat.c, the gapped tables; the gap costs are
/// BLAST's "existence/extension", which is gpualign's gap_open/gap_extend: a
/// gap of length L costs gap_open + L * gap_extend in both):
///  - protein BLOSUM45, BLOSUM62 and BLOSUM80 with each gap pair NCBI lists
///    (BLOSUM62 11/1: λ = 0.267, K = 0.041);
///  - DNA match/mismatch 1/-2 and 2/-3 (N scored as a mismatch, the
///    default --n-score) with each gap pair NCBI lists (2/-3 with 5/2, the
///    DNA default: λ = 0.625, K = 0.41).
/// Every other scheme (BLOSUM30, matrix files, other DNA scores, linear
/// gaps not in the tables) has none. Pure; does not throw.
std::optional<KarlinAltschul> karlin_altschul(const ScoringScheme& s) noexcept;

/// The statistics of scores of alignments in `mode` under `s`:
/// karlin_altschul(s) for local alignments, none for global and
/// semi-global ones (Karlin-Altschul statistics describe local scores only).
/// Pure; does not throw.
std::optional<KarlinAltschul> alignment_statistics(const ScoringScheme& s, AlignMode mode) noexcept;

/// The one-line warning for output whose E-values and bit scores are NA
/// because alignment_statistics(s, mode) has none; names the scheme.
std::string missing_statistics_warning(const ScoringScheme& s, AlignMode mode);

/// Bit score of a raw local score S: (λS − ln K) / ln 2.
double bit_score(const KarlinAltschul& ka, std::int32_t score) noexcept;

/// E-value of a raw local score S for a query of `query_len` letters
/// searched against a database of `db_letters` letters in all:
/// E = K · m · N · e^(−λS). No edge-length correction (BLAST subtracts an
/// expected HSP length from m and N; gpualign does not), so for short
/// queries gpualign's E-values are somewhat larger than BLAST's.
double evalue(const KarlinAltschul& ka, std::int32_t score, std::uint64_t query_len, std::uint64_t db_letters) noexcept;

/// An E-value as BLAST+ prints it in tabular output: "0.0" below 1e-180,
/// then "%2.0le" (< 1e-99), "%3.0le" (< 0.0009), "%4.3lf" (< 0.1),
/// "%3.2lf" (< 1), "%2.1lf" (< 10), else "%5.0lf", without padding.
std::string format_evalue(double e);

/// A bit score as BLAST+ prints it: "%4.1lf" up to 99.9, the integer part
/// above, "%5.3le" above 99999, without padding.
std::string format_bit_score(double bits);

}  // namespace gpualign
