// gpualign — Karlin-Altschul statistics of local alignment scores: bit
// scores and E-values of search hits as NCBI BLAST+ 2.12 computes them for
// gapped alignments (Karlin & Altschul 1990; gapped parameters, length
// adjustment and Spouge's finite-size correction from NCBI's
// c++/src/algo/blast/core/blast_stat.c and blast_setup.c).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// The parameters of Spouge's finite-size correction (Park, Sheetlin &
/// Spouge 2012, "Empirical determination of the accuracy of ... finite-size
/// corrections", and NCBI's Blast_GumbelBlkLoadFromTables): the mean,
/// variance and covariance of the alignment lengths grow linearly with the
/// score y, as a·y + b, alpha·y + beta and sigma·y + tau.
struct SpougeParameters {
    double a = 0;      ///< the table's alpha column (mean length per score unit)
    double b = 0;      ///< 2 (gap_open + gap_extend) (a_ungapped − a)
    double alpha = 0;  ///< the table's alpha_v column (variance per score unit)
    double beta = 0;   ///< 2 (gap_open + gap_extend) (alpha_v ungapped − alpha_v)
    double sigma = 0;  ///< the table's sigma column (covariance per score unit)
    double tau = 0;    ///< 2 (gap_open + gap_extend) (alpha_v ungapped − sigma)
};

/// Gapped Karlin-Altschul parameters of one scoring scheme, as BLAST's
/// tables give them.
struct KarlinAltschul {
    double lambda = 0;  ///< λ, per score unit (nats)
    double k = 0;       ///< K, dimensionless
    double h = 0;       ///< H, relative entropy (nats per aligned pair)
    double alpha = 0;   ///< alpha of the length adjustment (expected HSP length per score unit is alpha/λ)
    double beta = 0;    ///< beta of the length adjustment (letters)
    /// BLAST's 2/-3 and 2/-5 DNA tables hold for even scores only: an odd
    /// score is rounded down to the even number below for the E-value (the
    /// bit score uses the score as is, as blast_hits.c does).
    bool even_scores = false;
    /// Spouge's correction: set for the protein matrices (blastp applies it
    /// whenever the matrix has the columns); unset for DNA, where blastn
    /// 2.12 uses K·(effective search space)·e^(−λS) instead.
    std::optional<SpougeParameters> spouge;
};

/// The DB an E-value refers to: its letters and sequence count (BLAST's
/// db_length and db_num_seqs). A pairwise alignment's DB is the one ref
/// ({ref length, 1}), as blastn/blastp -subject treat it.
struct DbSize {
    std::uint64_t letters = 0;
    std::uint64_t sequences = 1;
};

/// The published parameters of `s`, or nothing when NCBI publishes none for
/// it. Covered (NCBI BLAST blast_stat.c, the gapped tables; the gap costs are
/// BLAST's "existence/extension", which is gpualign's gap_open/gap_extend: a
/// gap of length L costs gap_open + L * gap_extend in both):
///  - protein BLOSUM45, BLOSUM62 and BLOSUM80 with each gap pair NCBI lists
///    (BLOSUM62 11/1: λ = 0.267, K = 0.041, H = 0.14, alpha = 1.9,
///    beta = −30; Spouge a = 1.9, alpha_v = 42.6028, sigma = 43.6362);
///  - DNA match/mismatch 1/-2 and 2/-3 (N scored as a mismatch, the
///    default --n-score) with each gap pair NCBI lists (2/-3 with 5/2, the
///    DNA default: λ = 0.625, K = 0.41, H = 0.78, alpha = 0.8, beta = −2).
/// Every other scheme (BLOSUM30, matrix files, other DNA scores, linear
/// gaps not in the tables) has none. Pure; does not throw.
std::optional<KarlinAltschul> karlin_altschul(const ScoringScheme& s) noexcept;

/// The statistics of scores of alignments in `mode` under `s`:
/// karlin_altschul(s) for local alignments, none for global and
/// semi-global ones (Karlin-Altschul statistics describe local scores only).
/// Pure; does not throw.
std::optional<KarlinAltschul> alignment_statistics(const ScoringScheme& s, AlignMode mode) noexcept;

/// The scheme as messages name it: "BLOSUM62, gap_open/gap_extend 11/1" or
/// "match/mismatch 1/4, gap_open/gap_extend 7/3" (a DNA match/mismatch
/// scheme; ", N score -1" added when N does not score as a mismatch).
std::string describe_scheme(const ScoringScheme& s);

/// The one-line warning for output whose E-values and bit scores are NA
/// because alignment_statistics(s, mode) has none; names the scheme
/// (describe_scheme).
std::string missing_statistics_warning(const ScoringScheme& s, AlignMode mode);

/// Bit score of a raw local score S: (λS − ln K) / ln 2 (blast_hits.c,
/// Blast_HSPListGetBitScores; no rounding to even scores).
double bit_score(const KarlinAltschul& ka, std::int32_t score) noexcept;

/// BLAST's length adjustment ℓ (BLAST_ComputeLengthAdjustment in
/// blast_stat.c): the largest integer below the fixed point of
/// ℓ = (alpha/λ)·ln(K (m − ℓ)(n − N ℓ)) + beta, found by the same bisection
/// (20 iterations at most), for a query of m = `query_len` letters and a DB
/// of n = db.letters letters in N = db.sequences sequences; 0 when
/// K·m·n <= max(m, n). Pure; does not throw.
std::int64_t length_adjustment(const KarlinAltschul& ka, std::uint64_t query_len, DbSize db) noexcept;

/// BLAST's effective search space (BLAST_CalcEffLengths in blast_setup.c):
/// (n − N ℓ)·(m − ℓ), with n − N ℓ at least 1, ℓ = length_adjustment.
double effective_search_space(const KarlinAltschul& ka, std::uint64_t query_len, DbSize db) noexcept;

/// E-value of a raw local score S (the score rounded down to even first
/// when ka.even_scores), as BLAST+ 2.12 computes it for a gapped alignment
/// of a query of `query_len` letters with a ref (a DB record) of `ref_len`
/// letters in the DB `db`:
///  - with ka.spouge (protein): Spouge's finite-size correction
///    (BLAST_SpougeStoE in blast_stat.c) with m = query_len, n = ref_len,
///    scaled by db.letters / ref_len;
///  - otherwise (DNA): K · effective_search_space · e^(−λS).
/// Pure; does not throw; ref_len 0 counts as 1.
double evalue(const KarlinAltschul& ka, std::int32_t score, std::uint64_t query_len, std::uint64_t ref_len,
              DbSize db) noexcept;

/// An E-value as BLAST+ 2.12 prints it in tabular output (-outfmt 6/7;
/// CBlastTabularInfo::SetScores over CAlignFormatUtil::GetScoreString):
/// "0.0" below 1e-180, "%.2e" below 0.0009 ("4.80e-110", "2.40e-14"), then
/// "%4.3lf" (< 0.1), "%3.2lf" (< 1), "%2.1lf" (< 10), else "%2.0lf".
std::string format_evalue(double e);

/// A bit score as BLAST+ 2.12 prints it in tabular output: "%4.1lf" up to
/// 99.9 (so " 9.5", with its leading space, below 10), the integer part
/// ("%3.0ld" of the truncated value) up to 99999, "%5.3le" above.
std::string format_bit_score(double bits);

}  // namespace gpualign
