// Shared helpers for the aligner tests: encoders, schemes, seeded random pairs,
// the SeqAn3 oracle, a FASTA reader (SeqAn3, independent of the product's
// reader) and the invariant checker used on every full-traceback result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <seqan3/alignment/configuration/all.hpp>
#include <seqan3/alignment/pairwise/align_pairwise.hpp>
#include <seqan3/alignment/scoring/aminoacid_scoring_scheme.hpp>
#include <seqan3/alphabet/aminoacid/aa27.hpp>
#include <seqan3/alphabet/nucleotide/dna5.hpp>
#include <seqan3/io/sequence_file/input.hpp>
#include <seqan3/utility/views/zip.hpp>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define GPUALIGN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUALIGN_TEST_ASAN 1
#endif
#endif

namespace gpualign::test {

using Codes = std::vector<std::uint8_t>;

/// True in a build under AddressSanitizer: slow tests use smaller sizes there.
#ifdef GPUALIGN_TEST_ASAN
inline constexpr bool under_asan = true;
#else
inline constexpr bool under_asan = false;
#endif

// ---- encoders (seqan3 ranks: dna5 A=0 C=1 G=2 N=3 T=4; aa27) -----------------
inline Codes dna(std::string_view s) {
    Codes out;
    for (char c : s) out.push_back(seqan3::to_rank(seqan3::assign_char_to(c, seqan3::dna5{})));
    return out;
}
/// DNA in DnaCodes::iupac (A0 C1 G2 N3 T4, then B D H K M R S V W Y).
inline Codes dna_iupac(std::string_view s) {
    Codes out;
    if (encode_sequence(Alphabet::dna, s, out, DnaCodes::iupac)) throw std::invalid_argument("not DNA: " + std::string(s));
    return out;
}
inline Codes protein(std::string_view s) {
    Codes out;
    for (char c : s) out.push_back(seqan3::to_rank(seqan3::assign_char_to(c, seqan3::aa27{})));
    return out;
}

// ---- schemes -----------------------------------------------------------------
/// DNA: match 2, mismatch 3, N against anything -3.
inline ScoringScheme dna_scheme(int go, int ge) { return make_dna_scheme(2, 3, go, ge, -3); }


inline const seqan3::aminoacid_scoring_scheme<std::int8_t>& seqan3_blosum62() {
    static const seqan3::aminoacid_scoring_scheme<std::int8_t> s{seqan3::aminoacid_similarity_matrix::blosum62};
    return s;
}

/// BLOSUM62 over aa27 ranks, copied from SeqAn3's table.
inline ScoringScheme blosum62_scheme(int go, int ge) {
    ScoringScheme s;
    s.alphabet = Alphabet::protein;
    s.size = 27;
    s.matrix.resize(27 * 27);
    for (int q = 0; q < 27; ++q)
        for (int r = 0; r < 27; ++r)
            s.matrix[q * 27 + r] = seqan3_blosum62().score(seqan3::assign_rank_to(q, seqan3::aa27{}),
                                                           seqan3::assign_rank_to(r, seqan3::aa27{}));
    s.gap_open = go;
    s.gap_extend = ge;
    s.matrix_name = "BLOSUM62";
    s.validate();
    return s;
}

/// Sequence lengths for a SIMD layout of `lanes` lanes: 1, 2, 3, 2000, 1999,
/// then k * lanes - 1, k * lanes and k * lanes + 1 for each k (those >= 1):
/// the lane and segment boundaries of the striped kernels.
inline std::vector<std::size_t> lane_boundary_lengths(std::size_t lanes, std::initializer_list<std::size_t> ks) {
    std::vector<std::size_t> lengths = {1, 2, 3, 2000, 1999};
    for (const std::size_t k : ks)
        for (const std::size_t len : {k * lanes - 1, k * lanes, k * lanes + 1})
            if (len >= 1) lengths.push_back(len);
    return lengths;
}

// ---- seeded random pairs ---------------------------------------------------------
struct Pair {
    Codes query, ref;
};

class PairGenerator {
public:
    PairGenerator(std::uint64_t seed, Alphabet a) : rng_(seed), alphabet_(a) {}

    std::uint64_t below(std::uint64_t n) { return rng_() % n; }  // portable (no std distributions)
    double unit() { return static_cast<double>(rng_() >> 11) / 9007199254740992.0; }

    std::uint8_t residue(int letters) {
        if (alphabet_ == Alphabet::dna) {
            static constexpr std::uint8_t acgt[4] = {0, 1, 2, 4};
            if (letters >= 4 && below(100) == 0) return 3;  // N, rarely
            return acgt[below(static_cast<std::uint64_t>(std::min(letters, 4)))];
        }
        // 20 standard amino acids (aa27 ranks of ACDEFGHIKLMNPQRSTVWY); rarely B, X, Z, *.
        static const Codes aa = protein("ACDEFGHIKLMNPQRSTVWYBXZ*");
        if (letters >= 20 && below(50) == 0) return aa[20 + below(4)];
        return aa[below(static_cast<std::uint64_t>(std::min(letters, 20)))];
    }
    Codes random_seq(std::size_t len, int letters) {
        Codes s(len);
        for (auto& c : s) c = residue(letters);
        return s;
    }
    /// Substitutions, insertions and deletions (runs of 1-5) at rate `div`.
    Codes mutate(const Codes& src, double div, int letters, std::size_t max_len) {
        Codes out;
        for (std::size_t k = 0; k < src.size(); ++k) {
            if (unit() >= div) { out.push_back(src[k]); continue; }
            const std::uint64_t kind = below(4), run = 1 + below(5);
            if (kind < 2) out.push_back(residue(letters));                         // substitution
            else if (kind == 2) { for (std::uint64_t t = 0; t < run; ++t) out.push_back(residue(letters)); out.push_back(src[k]); }
            else k += run - 1;                                                       // deletion
        }
        if (out.size() > max_len) out.resize(max_len);
        if (out.empty()) out.push_back(residue(letters));
        return out;
    }
    /// Lengths 1..max_len; half related (10-30% divergence), half unrelated;
    /// one pair in 8 uses a 2-letter alphabet (low complexity, many ties).
    Pair next(std::size_t max_len = 600) {
        const int letters = below(8) == 0 ? 2 : 20;
        const std::size_t len = below(5) == 0 ? 1 + below(20) : 1 + below(max_len);
        Pair p;
        p.query = random_seq(len, letters);
        if (below(2) == 0) {
            p.ref = mutate(p.query, 0.10 + 0.20 * unit(), letters, max_len);
            if (below(2) == 0) std::swap(p.query, p.ref);
        } else {
            p.ref = random_seq(below(5) == 0 ? 1 + below(20) : 1 + below(max_len), letters);
        }
        return p;
    }

private:
    std::mt19937_64 rng_;
    Alphabet alphabet_;
};

// ---- running our aligner on 2 threads ---------------------------------------------
template <typename F>
void parallel_for(std::size_t n, F&& f) {
    constexpr unsigned workers = 2;
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (std::size_t k = w; k < n; k += workers) f(k);
        });
    for (auto& t : pool) t.join();
}

struct OurResults {
    std::vector<AlignmentResult> full, fast;  // traceback and score-only
};
/// Our results on the CPU backend's default path (align_pairs_cpu, the SIMD
/// kernel, 2 threads), checked first against the scalar reference align_pair
/// pair by pair: the differential and real-data suites then test the SIMD
/// path against their oracles. Throws std::logic_error naming the first
/// pair where the two kernels differ.
inline OurResults run_ours(const std::vector<Pair>& pairs, const ScoringScheme& s, AlignMode mode) {
    OurResults out;
    out.full.resize(pairs.size());
    out.fast.resize(pairs.size());
    std::vector<PairView> views;
    for (const auto& p : pairs) views.push_back({p.query, p.ref});
    align_pairs_cpu(views, s, mode, false, CpuKernel::simd, 2, out.full);
    align_pairs_cpu(views, s, mode, true, CpuKernel::simd, 2, out.fast);
    std::vector<AlignmentResult> full(pairs.size()), fast(pairs.size());
    parallel_for(pairs.size(), [&](std::size_t k) {
        full[k] = align_pair(pairs[k].query, pairs[k].ref, s, mode, false);
        fast[k] = align_pair(pairs[k].query, pairs[k].ref, s, mode, true);
    });
    for (std::size_t k = 0; k < pairs.size(); ++k)
        if (full[k] != out.full[k] || fast[k] != out.fast[k])
            throw std::logic_error("pair " + std::to_string(k) + ": the SIMD kernel and the scalar reference differ");
    return out;
}

// ---- the SeqAn3 oracle ----------------------------------------------------------
// Conventions (checked by KnownAnswers.SeqAn3Conventions*):
//  - sequence1 = query (matrix columns in SeqAn3's terms), sequence2 = ref.
//  - end positions are matrix indices, i.e. 0-based exclusive ends, like ours.
//  - local end cell: SeqAn3's scalar and SIMD trackers replace the optimum only
//    on a strictly greater score while iterating sequence1 in the outer loop,
//    i.e. the first maximal cell with the query index major: our rule exactly.
//  - DNA: SeqAn3 3.2's vectorised match/mismatch scheme is unusable for local
//    alignment of a batch of unequal lengths: it pads both sequences with the
//    same symbol and scores padding vs padding as a match in local mode
//    (simd_match_mismatch_scoring_scheme::score, `(ranks1 ^ ranks2) == 0`),
//    inflating scores. Its nucleotide scheme also scores N/N as a match. So DNA
//    runs as aa27 letters (A C G N T) under a custom aminoacid_scoring_scheme
//    matrix (2 on equal A/C/G/T, -3 otherwise, N/N included), which takes the
//    matrix SIMD path (padding scores -1 in local mode).
struct OracleResult {
    std::int32_t score = 0;
    std::int32_t query_end = 0;
    std::int32_t ref_end = 0;
};

template <typename alph_t, typename scheme_t>
std::vector<OracleResult> seqan3_align(std::vector<std::vector<alph_t>>& qs,  // non-const: views::to_simd
                                       std::vector<std::vector<alph_t>>& rs, const scheme_t& scheme,
                                       AlignMode mode, int go, int ge) {
    namespace cfg = seqan3::align_cfg;
    auto common = cfg::scoring_scheme{scheme} |
                  cfg::gap_cost_affine{cfg::open_score{-go}, cfg::extension_score{-ge}} | cfg::output_score{} |
                  cfg::output_end_position{} | cfg::output_sequence1_id{} | cfg::vectorised{} | cfg::parallel{2};
    std::vector<OracleResult> out(qs.size());
    auto run = [&](auto config) {
        for (auto&& res : seqan3::align_pairwise(seqan3::views::zip(qs, rs), config))
            out.at(res.sequence1_id()) = {static_cast<std::int32_t>(res.score()),
                                          static_cast<std::int32_t>(res.sequence1_end_position()),
                                          static_cast<std::int32_t>(res.sequence2_end_position())};
    };
    if (mode == AlignMode::local) run(cfg::method_local{} | common);
    else run(cfg::method_global{} | common);
    return out;
}

/// Runs SeqAn3 on our codes. DNA scheme: match 2 / mismatch 3; protein: BLOSUM62.
inline std::vector<OracleResult> oracle(const std::vector<Pair>& pairs, Alphabet a, AlignMode mode, int go, int ge) {
    if (a == Alphabet::dna) {
        // DNA runs as aa27 letters A C G N T under a custom matrix (see above).
        static const seqan3::aminoacid_scoring_scheme<std::int8_t> dna_as_aa = [] {
            seqan3::aminoacid_scoring_scheme<std::int8_t>::matrix_type m{};
            for (int x = 0; x < 27; ++x)
                for (int y = 0; y < 27; ++y) {
                    const char c = seqan3::to_char(seqan3::assign_rank_to(x, seqan3::aa27{}));
                    m[x][y] = (x == y && (c == 'A' || c == 'C' || c == 'G' || c == 'T')) ? 2 : -3;
                }
            seqan3::aminoacid_scoring_scheme<std::int8_t> s;
            s.set_custom_matrix(m);
            return s;
        }();
        std::vector<std::vector<seqan3::aa27>> qs, rs;
        auto conv = [](const Codes& c) {
            std::vector<seqan3::aa27> out;
            for (std::uint8_t x : c)
                out.push_back(seqan3::assign_char_to(seqan3::to_char(seqan3::assign_rank_to(x, seqan3::dna5{})),
                                                     seqan3::aa27{}));
            return out;
        };
        for (const auto& p : pairs) { qs.push_back(conv(p.query)); rs.push_back(conv(p.ref)); }
        return seqan3_align(qs, rs, dna_as_aa, mode, go, ge);
    }
    std::vector<std::vector<seqan3::aa27>> qs, rs;
    auto conv = [](const Codes& c) {
        std::vector<seqan3::aa27> out;
        for (std::uint8_t x : c) out.push_back(seqan3::assign_rank_to(x, seqan3::aa27{}));
        return out;
    };
    for (const auto& p : pairs) { qs.push_back(conv(p.query)); rs.push_back(conv(p.ref)); }
    return seqan3_align(qs, rs, seqan3_blosum62(), mode, go, ge);
}

// ---- invariants ---------------------------------------------------------------------
/// Checks one pair's full-traceback and score-only results against the
/// invariants of docs/scoring.md. Returns "" or a description of the first
/// violation (callers cap how many they report).
inline std::string check_invariants(const AlignmentResult& full, const AlignmentResult& fast, const Codes& q,
                                    const Codes& r, const ScoringScheme& s, AlignMode mode) {
    const auto m = static_cast<std::int32_t>(q.size()), n = static_cast<std::int32_t>(r.size());
    auto coords = [](const AlignmentResult& a) {
        return std::to_string(a.score) + " q[" + std::to_string(a.query_begin) + "," + std::to_string(a.query_end) +
               ") r[" + std::to_string(a.ref_begin) + "," + std::to_string(a.ref_end) + ")";
    };
    if (!full.has_cigar) return "full mode has no CIGAR";
    if (fast.has_cigar || !fast.cigar.empty()) return "score-only mode has a CIGAR";
    if (fast.score != full.score || fast.query_begin != full.query_begin || fast.query_end != full.query_end ||
        fast.ref_begin != full.ref_begin || fast.ref_end != full.ref_end)
        return "score-only " + coords(fast) + " != full " + coords(full);
    if (mode == AlignMode::global) {
        if (full.query_begin != 0 || full.ref_begin != 0 || full.query_end != m || full.ref_end != n)
            return "global does not span [0,m)x[0,n): " + coords(full);
    } else if (mode == AlignMode::semi_global) {
        if (full.query_begin != 0 || full.query_end != m || full.ref_begin > full.ref_end || full.ref_end > n)
            return "semi-global does not span the query [0,m) inside the ref: " + coords(full);
        if (m > 0 && full.cigar.empty()) return "semi-global result with an empty CIGAR: " + coords(full);
        if (!full.cigar.empty() &&
            (cigar_op(full.cigar.front()) == CigarOp::del || cigar_op(full.cigar.back()) == CigarOp::del))
            return "semi-global CIGAR starts or ends with D (the ref's end gaps are free): " +
                   cigar_string(full.cigar);
    } else if (full.score == 0) {
        if (full.query_begin || full.query_end || full.ref_begin || full.ref_end || !full.cigar.empty())
            return "unaligned local result is not all zero: " + coords(full);
        return "";
    } else if (full.score < 0 || full.cigar.empty()) {
        return "local result with score " + std::to_string(full.score) + " and empty CIGAR";
    }
    std::int32_t rescored = 0;
    try {
        rescored = rescore_cigar(full, q, r, s);
    } catch (const std::exception& e) {
        return std::string(e.what()) + " for " + coords(full) + " " + cigar_string(full.cigar);
    }
    if (rescored != full.score)
        return "rescore_cigar " + std::to_string(rescored) + " != score " + std::to_string(full.score);
    if (mode == AlignMode::local) {
        // Every proper prefix of the path scores in (0, score): it cannot reach 0
        // (the traceback stops there) nor the best (an earlier cell in row-major
        // order would hold the maximum).
        std::int64_t qi = full.query_begin, rj = full.ref_begin, sc = 0;
        std::size_t cols = 0, total = 0;
        for (std::uint32_t c : full.cigar) total += cigar_len(c);
        for (std::uint32_t c : full.cigar) {
            const CigarOp op = cigar_op(c);
            const std::uint32_t len = cigar_len(c);
            for (std::uint32_t k = 0; k < len; ++k) {
                if (op == CigarOp::eq || op == CigarOp::diff) sc += s.score(q[qi++], r[rj++]);
                else {
                    sc -= (k == 0 ? s.gap_open : 0) + s.gap_extend;
                    (op == CigarOp::ins ? qi : rj)++;
                }
                if (++cols < total && (sc <= 0 || sc >= full.score))
                    return "local path prefix of " + std::to_string(cols) + " columns scores " + std::to_string(sc) +
                           ", outside (0, " + std::to_string(full.score) + ")";
            }
        }
        const CigarOp first = cigar_op(full.cigar.front()), last = cigar_op(full.cigar.back());
        if (first == CigarOp::ins || first == CigarOp::del || last == CigarOp::ins || last == CigarOp::del)
            return "local CIGAR starts or ends with a gap: " + cigar_string(full.cigar);
    }
    return "";
}

// ---- FASTA via SeqAn3 ---------------------------------------------------------------
/// Reads up to `limit` records of a FASTA file as dna5 or aa27 ranks.
struct Dna5Traits : seqan3::sequence_file_input_default_traits_dna {
    using sequence_alphabet = seqan3::dna5;
};
template <Alphabet A>
std::vector<Codes> read_fasta_codes(const std::filesystem::path& path, std::size_t limit = SIZE_MAX) {
    using traits = std::conditional_t<A == Alphabet::dna, Dna5Traits, seqan3::sequence_file_input_default_traits_aa>;
    seqan3::sequence_file_input<traits, seqan3::fields<seqan3::field::seq>> fin{path};
    std::vector<Codes> out;
    for (auto& rec : fin) {
        if (out.size() == limit) break;
        Codes c;
        for (auto x : rec.sequence()) c.push_back(static_cast<std::uint8_t>(seqan3::to_rank(x)));
        out.push_back(std::move(c));
    }
    return out;
}

/// Reads record i of each file as pair i (at most `limit` pairs).
template <Alphabet A>
inline std::vector<Pair> read_pairs(const std::filesystem::path& queries, const std::filesystem::path& refs,
                             std::size_t limit) {
    const auto qs = read_fasta_codes<A>(queries, limit);
    const auto rs = read_fasta_codes<A>(refs, limit);
    if (qs.size() != rs.size()) throw std::runtime_error("read_pairs: " + queries.string() + " and " + refs.string() + " differ in record count");
    std::vector<Pair> pairs;
    for (std::size_t k = 0; k < std::min(qs.size(), rs.size()); ++k) pairs.push_back({qs[k], rs[k]});
    return pairs;
}

inline std::filesystem::path shared_data() { return GPUALIGN_SHARED_DATA; }

}  // namespace gpualign::test
