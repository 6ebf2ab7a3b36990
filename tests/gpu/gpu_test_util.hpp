// gpualign GPU tests — helpers: a minimal FASTA reader (until lib/ has its
// SeqAn3 reader), residue encoders (seqan3 dna5 / aa27 ranks), seeded random
// pair generators, the CPU oracle run on all cores, and the data path.
// Host code, g++ only (includes SeqAn3).
#pragma once

#include <seqan3/alignment/scoring/aminoacid_scoring_scheme.hpp>
#include <seqan3/alphabet/aminoacid/aa27.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpualign/cpu_aligner.hpp"
#include "gpualign/gpu/engine.hpp"

namespace gpualign::test {

using Seq = std::vector<std::uint8_t>;

/// seqan3::dna5 rank of a character: A0 C1 G2 N3 T4; U -> T, other IUPAC -> N; any case.
inline std::uint8_t dna5_rank(char c) {
    switch (std::toupper(static_cast<unsigned char>(c))) {
        case 'A': return 0;
        case 'C': return 1;
        case 'G': return 2;
        case 'T': case 'U': return 4;
        default: return 3;
    }
}

/// seqan3::aa27 rank: A..Z -> 0..25 in alphabetical order, '*' -> 26; any case.
inline std::uint8_t aa27_rank(char c) {
    const int u = std::toupper(static_cast<unsigned char>(c));
    if (u >= 'A' && u <= 'Z') return static_cast<std::uint8_t>(u - 'A');
    if (u == '*') return 26;
    return 23;  // X
}

/// Directory of the shared real data: $GPUALIGN_SHARED_DATA, else the compile-time default.
inline std::string shared_data_dir() {
    if (const char* e = std::getenv("GPUALIGN_SHARED_DATA"); e && *e) return e;
#ifdef GPUALIGN_SHARED_DATA
    return GPUALIGN_SHARED_DATA;
#else
    return "";
#endif
}

/// Reads every record of a FASTA file, encoded with `rank`. Throws std::runtime_error if unreadable.
template <typename Rank>
std::vector<Seq> read_fasta(const std::string& path, Rank rank) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<Seq> out;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>') {
            out.emplace_back();
            continue;
        }
        if (out.empty()) continue;
        for (char c : line)
            if (!std::isspace(static_cast<unsigned char>(c))) out.back().push_back(rank(c));
    }
    return out;
}

/// BLOSUM62 in aa27 ranks, taken from seqan3::aminoacid_scoring_scheme.
inline ScoringScheme blosum62_scheme(std::int32_t gap_open, std::int32_t gap_extend) {
    seqan3::aminoacid_scoring_scheme<std::int8_t> b62{seqan3::aminoacid_similarity_matrix::blosum62};
    ScoringScheme s;
    s.alphabet = Alphabet::protein;
    s.size = 27;
    s.matrix.resize(27 * 27);
    for (int q = 0; q < 27; ++q)
        for (int r = 0; r < 27; ++r)
            s.matrix[q * 27 + r] = b62.score(seqan3::aa27{}.assign_rank(q), seqan3::aa27{}.assign_rank(r));
    s.gap_open = gap_open;
    s.gap_extend = gap_extend;
    s.matrix_name = "BLOSUM62";
    s.validate();
    return s;
}

/// Background amino-acid frequencies (Robinson & Robinson 1991) over aa27 ranks.
inline std::discrete_distribution<int> amino_acid_distribution() {
    std::vector<double> w(27, 0.0);
    const char* aa = "ARNDCQEGHILKMFPSTWYV";
    const double f[] = {7.805, 5.129, 4.487, 5.364, 1.925, 4.264, 6.295, 7.377, 2.199, 5.142,
                        9.019, 5.744, 2.243, 3.856, 5.203, 7.120, 5.841, 1.330, 3.216, 6.441};
    for (int k = 0; k < 20; ++k) w[aa27_rank(aa[k])] = f[k];
    w[aa27_rank('X')] = 0.05;
    w[aa27_rank('B')] = 0.02;
    w[aa27_rank('Z')] = 0.02;
    w[26] = 0.01;
    return std::discrete_distribution<int>(w.begin(), w.end());
}

/// Seeded generator of random and related sequences.
class Generator {
public:
    Generator(Alphabet a, std::uint64_t seed) : alpha_(a), rng_(seed), aa_(amino_acid_distribution()) {}

    std::uint8_t residue() {
        if (alpha_ == Alphabet::dna) {
            const int x = static_cast<int>(rng_() % 200);
            return x == 0 ? 3 : static_cast<std::uint8_t>(std::array<int, 4>{0, 1, 2, 4}[x % 4]);
        }
        return static_cast<std::uint8_t>(aa_(rng_));
    }
    Seq random(std::size_t len) {
        Seq s(len);
        for (auto& c : s) c = residue();
        return s;
    }
    /// A copy of `s` with about `divergence` of its positions edited
    /// (60% substitutions, 20% insertions, 20% deletions), truncated to max_len.
    Seq mutate(const Seq& s, double divergence, std::size_t max_len = SIZE_MAX) {
        std::uniform_real_distribution<double> u(0.0, 1.0);
        Seq out;
        out.reserve(s.size() + 16);
        for (std::uint8_t c : s) {
            if (u(rng_) < divergence) {
                const double kind = u(rng_);
                if (kind < 0.6) out.push_back(residue());
                else if (kind < 0.8) { out.push_back(residue()); out.push_back(c); }
            } else {
                out.push_back(c);
            }
        }
        if (out.size() > max_len) out.resize(max_len);
        return out;
    }
    std::mt19937_64& rng() { return rng_; }

private:
    Alphabet alpha_;
    std::mt19937_64 rng_;
    std::discrete_distribution<int> aa_;
};

/// Runs the CPU reference on every pair on all cores; results in input order.
inline std::vector<AlignmentResult> cpu_align_all(const std::vector<Seq>& q, const std::vector<Seq>& r,
                                                  const ScoringScheme& s, AlignMode mode, bool score_only) {
    std::vector<AlignmentResult> out(q.size());
    const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nt; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t i = t; i < q.size(); i += nt) out[i] = align_pair(q[i], r[i], s, mode, score_only);
        });
    for (auto& th : pool) th.join();
    return out;
}

inline std::vector<gpu::PairView> views(const std::vector<Seq>& q, const std::vector<Seq>& r) {
    std::vector<gpu::PairView> v(q.size());
    for (std::size_t i = 0; i < q.size(); ++i) v[i] = {q[i], r[i]};
    return v;
}

}  // namespace gpualign::test
