// gpualign GPU tests — helpers: FASTA reading through the product's reader,
// seeded random pair generators, the CPU oracle run on all cores, and the
// data path. Host code, g++ only.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/gpu/batch_engine.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/io/sequence_io.hpp"

namespace gpualign::test {

using Seq = std::vector<std::uint8_t>;

/// The gpualign binary for CLI tests: GPUALIGN_BINARY from the environment
/// (device runs carry it elsewhere), else the one this build made.
inline std::string binary() {
    if (const char* env = std::getenv("GPUALIGN_BINARY"); env && *env) return env;
#ifdef GPUALIGN_BINARY
    return GPUALIGN_BINARY;
#else
    return "gpualign";
#endif
}

/// The whole file as bytes.
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
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

/// Reads every record of a FASTA/FASTQ file with the product's reader
/// (SeqAn3 underneath) and returns the codes in `alphabet`.
inline std::vector<Seq> read_fasta(const std::string& path, Alphabet alphabet) {
    SequenceReader reader(path, alphabet == Alphabet::dna ? AlphabetChoice::dna : AlphabetChoice::protein);
    std::vector<Seq> out;
    SequenceRecord rec;
    while (reader.next(rec)) out.push_back(rec.codes);
    return out;
}

/// BLOSUM62 (SeqAn3's table, through the product's matrix loader).
inline ScoringScheme blosum62_scheme(std::int32_t gap_open, std::int32_t gap_extend) {
    return make_protein_scheme("BLOSUM62", gap_open, gap_extend);
}

/// Background amino-acid frequencies (Robinson & Robinson 1991) over aa27 ranks.
inline std::discrete_distribution<int> amino_acid_distribution() {
    std::vector<double> w(27, 0.0);
    const char* aa = "ARNDCQEGHILKMFPSTWYV";
    const double f[] = {7.805, 5.129, 4.487, 5.364, 1.925, 4.264, 6.295, 7.377, 2.199, 5.142,
                        9.019, 5.744, 2.243, 3.856, 5.203, 7.120, 5.841, 1.330, 3.216, 6.441};
    for (int k = 0; k < 20; ++k) w[static_cast<std::size_t>(encode_char(Alphabet::protein, aa[k]))] = f[k];
    w[static_cast<std::size_t>(encode_char(Alphabet::protein, 'X'))] = 0.05;
    w[static_cast<std::size_t>(encode_char(Alphabet::protein, 'B'))] = 0.02;
    w[static_cast<std::size_t>(encode_char(Alphabet::protein, 'Z'))] = 0.02;
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

/// Engine options that run the inter-pair kernel on batches of any size (by
/// default it waits for enough pairs to fill the GPU).
inline gpu::BatchEngineOptions inter_pair_options() {
    gpu::BatchEngineOptions o;
    o.pair_kernel_min_pairs = 1;
    return o;
}

/// Reads the pairs of two FASTA files under shared_data_dir(); false when
/// either cannot be read (tests skip then).
inline bool load_pairs(const std::string& qpath, const std::string& rpath, Alphabet alphabet, std::vector<Seq>& q,
                std::vector<Seq>& r) {
    const std::string dir = shared_data_dir();
    try {
        q = read_fasta(dir + "/" + qpath, alphabet);
        r = read_fasta(dir + "/" + rpath, alphabet);
    } catch (const std::exception&) {
        return false;
    }
    return true;
}

// Compares GPU and CPU results pair by pair; reports the first few
// differences. Returns the engine's profile.
inline gpu::BatchEngineProfile expect_identical(const std::vector<Seq>& q, const std::vector<Seq>& r, const ScoringScheme& s,
                                         AlignMode mode, bool score_only, const gpu::BatchEngineOptions& opt = {}) {
    gpu::BatchEngine engine(s, mode, score_only, opt);
    const auto v = views(q, r);
    for (const auto& p : v) {
        EXPECT_TRUE(engine.accepts(p.query.size(), p.ref.size()));
        if (!engine.accepts(p.query.size(), p.ref.size())) return {};
    }
    const std::vector<AlignmentResult> got = engine.align(v);
    const std::vector<AlignmentResult> want = cpu_align_all(q, r, s, mode, score_only);
    EXPECT_EQ(got.size(), want.size());
    if (got.size() != want.size()) return {};
    std::size_t bad = 0, bad_cigar = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (!(got[i] == want[i])) {
            if (++bad <= 5)
                ADD_FAILURE() << "pair " << i << " (" << q[i].size() << " x " << r[i].size() << "): gpu score "
                              << got[i].score << " q[" << got[i].query_begin << "," << got[i].query_end << ") r["
                              << got[i].ref_begin << "," << got[i].ref_end << ") " << cigar_string(got[i].cigar)
                              << " has_cigar " << got[i].has_cigar << "\n   cpu score " << want[i].score << " q["
                              << want[i].query_begin << "," << want[i].query_end << ") r[" << want[i].ref_begin << ","
                              << want[i].ref_end << ") " << cigar_string(want[i].cigar);
        }
        if (got[i].has_cigar && !(mode == AlignMode::local && got[i].score == 0)) {
            try {
                if (rescore_cigar(got[i], q[i], r[i], s) != got[i].score) ++bad_cigar;
            } catch (const std::exception& e) {
                if (++bad_cigar <= 5) ADD_FAILURE() << "pair " << i << ": rescore_cigar threw " << e.what();
            }
        }
    }
    EXPECT_EQ(bad, 0u) << "of " << got.size() << " pairs";
    EXPECT_EQ(bad_cigar, 0u) << "CIGARs that do not rescore";
    std::printf("  %zu pairs identical to align_pair (%s, %s, %s, go=%d ge=%d)\n", got.size() - bad,
                to_string(s.alphabet), to_string(mode), score_only ? "score-only" : "traceback", s.gap_open,
                s.gap_extend);
    return engine.profile();
}

}  // namespace gpualign::test
