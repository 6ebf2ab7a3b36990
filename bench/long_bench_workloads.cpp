// gpualign_long_bench: the workloads' pairs, read from the shared data or
// generated (bench/long_bench.cpp lists them).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "long_bench.hpp"

namespace gpualign::long_bench {
namespace {

// ---------------------------------------------------------------------------
// Sequences

/// DNA letter -> dna5 code (A=0 C=1 G=2 N=3 T=4; U as T; anything else N).
std::uint8_t dna_code(char c) {
    switch (c) {
        case 'A': case 'a': return 0;
        case 'C': case 'c': return 1;
        case 'G': case 'g': return 2;
        case 'T': case 't': case 'U': case 'u': return 4;
        default: return 3;
    }
}

struct Record {
    std::string name;
    Seq codes;
};

/// Plain FASTA (no gzip): '>' header lines, sequence lines; whitespace skipped.
std::vector<Record> read_fasta(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<Record> out;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>') {
            Record r;
            const std::size_t end = line.find_first_of(" \t\r", 1);
            r.name = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
            out.push_back(std::move(r));
            continue;
        }
        if (out.empty()) continue;
        for (char c : line)
            if (!std::isspace(static_cast<unsigned char>(c))) out.back().codes.push_back(dna_code(c));
    }
    return out;
}

/// splitmix64 (Steele, Lea & Flood 2014). below(n) = floor(next() * n / 2^64).
struct SplitMix64 {
    std::uint64_t s;
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) {
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
    }
};

constexpr std::uint8_t acgt_code[4] = {0, 1, 2, 4};  // ACGT index -> dna5 code

}  // namespace

/// Seeded synthetic pairs; scripts/gen_long_pairs.py writes the same bytes.
/// One splitmix64 stream for the whole set. Per pair:
///  1. L = min_len + below(max_len - min_len + 1)
///  2. query: L uniform bases (ACGT), 2 bits each from one next() per 32 bases
///     (lowest bits first)
///  3. ref: the query mutated. Per query position a 16-bit value (four per
///     next(), lowest first, the buffer emptied at the start of each pair) is
///     compared with t = floor(65536 * divergence / 1.9 + 0.5); below t an
///     event: k = below(10): k < 8 substitution by (base + 1 + below(3)) mod 4;
///     k = 8 insertion of 1 + below(10) bases (below(4) each) before the
///     position; k = 9 deletion of 1 + below(10) positions. 1.9 = the mean
///     number of positions an event mutates (0.8 * 1 + 0.2 * 5.5), so that the
///     expected mutated fraction is `divergence`.
///  4. ref empty: one base below(4); ref == query: its middle base + 1 mod 4.
/// Indices are ACGT (0..3), stored as dna5 codes.
std::vector<std::pair<Seq, Seq>> generate_pairs(std::uint64_t seed, std::size_t pairs, std::size_t min_len,
                                                std::size_t max_len, double divergence) {
    SplitMix64 g{seed};
    const double t = 65536.0 * (divergence / 1.9) + 0.5;
    const std::uint32_t thr = t >= 65536.0 ? 65536u : static_cast<std::uint32_t>(t);
    std::vector<std::pair<Seq, Seq>> out;
    out.reserve(pairs);
    for (std::size_t p = 0; p < pairs; ++p) {
        const std::size_t len = min_len + g.below(max_len - min_len + 1);
        std::vector<std::uint8_t> q(len);  // ACGT indices
        std::uint64_t w = 0;
        for (std::size_t i = 0; i < len; ++i) {
            if (i % 32 == 0) w = g.next();
            q[i] = static_cast<std::uint8_t>(w & 3);
            w >>= 2;
        }
        std::vector<std::uint8_t> r;
        r.reserve(len + len / 8 + 16);
        std::uint64_t buf = 0;
        int left = 0;
        for (std::size_t i = 0; i < len;) {
            if (left == 0) buf = g.next(), left = 4;
            const std::uint32_t c = static_cast<std::uint32_t>(buf & 0xFFFF);
            buf >>= 16, --left;
            if (c >= thr) {
                r.push_back(q[i++]);
                continue;
            }
            const std::uint64_t kind = g.below(10);
            if (kind < 8) {
                r.push_back(static_cast<std::uint8_t>((q[i++] + 1 + g.below(3)) & 3));
            } else if (kind == 8) {
                const std::uint64_t k = 1 + g.below(10);
                for (std::uint64_t x = 0; x < k; ++x) r.push_back(static_cast<std::uint8_t>(g.below(4)));
                r.push_back(q[i++]);
            } else {
                i += 1 + g.below(10);
            }
        }
        if (r.empty()) r.push_back(static_cast<std::uint8_t>(g.below(4)));
        if (r == q) r[len / 2] = static_cast<std::uint8_t>((r[len / 2] + 1) & 3);
        Seq qc(q.size()), rc(r.size());
        for (std::size_t i = 0; i < q.size(); ++i) qc[i] = acgt_code[q[i]];
        for (std::size_t i = 0; i < r.size(); ++i) rc[i] = acgt_code[r[i]];
        out.emplace_back(std::move(qc), std::move(rc));
    }
    return out;
}

// ---------------------------------------------------------------------------
// Workloads

namespace {

struct SynthSpec {
    std::uint64_t seed;
    std::size_t pairs, min_len, max_len;
    double divergence;
};

SynthSpec synth_spec(const std::string& name, const Options& o) {
    if (name == "syn1m5") return {o.seed, 1, o.syn_length, o.syn_length, 0.05};
    if (name == "syn1m20") return {o.seed + 1, 1, o.syn_length, o.syn_length, 0.20};
    return {o.seed + 2, o.bulk_pairs, 5000, 50000, 0.10};  // bulk2000
}

/// The record pair (A[i], B[i]) of two FASTA files whose lengths are nearest (ta, tb).
void pick_record_pair(Workload& w, const std::string& a_path, const std::string& b_path, std::size_t ta,
                      std::size_t tb) {
    auto a = read_fasta(a_path);
    auto b = read_fasta(b_path);
    const std::size_t n = std::min(a.size(), b.size());
    if (n == 0) throw std::runtime_error("no records in " + a_path + " / " + b_path);
    std::size_t best = 0;
    auto dist = [&](std::size_t i) {
        const auto d = [](std::size_t x, std::size_t y) { return x > y ? x - y : y - x; };
        return d(a[i].codes.size(), ta) + d(b[i].codes.size(), tb);
    };
    for (std::size_t i = 1; i < n; ++i)
        if (dist(i) < dist(best)) best = i;
    w.description += ": record " + std::to_string(best + 1) + " (" + a[best].name + " " +
                     std::to_string(a[best].codes.size()) + " x " + b[best].name + " " +
                     std::to_string(b[best].codes.size()) + ")";
    w.q.push_back(std::move(a[best].codes));
    w.r.push_back(std::move(b[best].codes));
}

/// Every record pair (A[i], B[i]) of a pair set of dna/long.
void add_record_pairs(Workload& w, const std::string& dir, const std::string& set) {
    auto a = read_fasta(dir + set + ".A.fa");
    auto b = read_fasta(dir + set + ".B.fa");
    if (a.empty() || a.size() != b.size()) throw std::runtime_error(set + ": A and B files differ in records");
    for (std::size_t i = 0; i < a.size(); ++i) {
        w.q.push_back(std::move(a[i].codes));
        w.r.push_back(std::move(b[i].codes));
    }
}

/// The records of a FASTA file joined into one sequence, at most the
/// first `records` of them.
Seq joined_records(const std::string& path, std::size_t records = SIZE_MAX) {
    Seq out;
    const auto recs = read_fasta(path);
    for (std::size_t i = 0; i < std::min(records, recs.size()); ++i)
        out.insert(out.end(), recs[i].codes.begin(), recs[i].codes.end());
    return out;
}

/// The first `records` record pairs of a pair set of dna/long joined into
/// one pair (A records joined as the query, B records as the ref).
void add_joined_pair(Workload& w, const std::string& dir, const std::string& set, std::size_t records) {
    w.q.push_back(joined_records(dir + set + ".A.fa", records));
    w.r.push_back(joined_records(dir + set + ".B.fa", records));
}

/// `s` with a fraction `divergence` of its positions mutated (splitmix64,
/// seeded): of the mutations, 80% substitute another base, 10% insert one
/// base before the position and 10% delete it. N stays N.
Seq mutate(const Seq& s, double divergence, std::uint64_t seed) {
    std::uint64_t x = seed;
    auto next = [&x] {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    };
    constexpr std::uint8_t bases[4] = {0, 1, 2, 4};  // A C G T in dna5 codes
    Seq out;
    out.reserve(s.size() + s.size() / 8);
    for (const std::uint8_t c : s) {
        const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
        if (u >= divergence || c == 3) {
            out.push_back(c);
        } else if (u < 0.8 * divergence) {
            std::uint8_t d = bases[next() & 3];
            while (d == c) d = bases[next() & 3];
            out.push_back(d);
        } else if (u < 0.9 * divergence) {
            out.push_back(bases[next() & 3]);
            out.push_back(c);
        }  // else deleted
    }
    return out;
}

}  // namespace

bool is_synthetic(const std::string& name) { return name == "syn1m5" || name == "syn1m20" || name == "bulk2000"; }

Workload load(const std::string& name, const Options& o) {
    Workload w;
    w.name = name;
    const std::string dir = o.data + "/dna/long/";
    if (name == "mito") {
        auto recs = read_fasta(dir + "mito_human_vs_orangutan.fa");
        if (recs.size() < 2) throw std::runtime_error("mito_human_vs_orangutan.fa: fewer than 2 records");
        w.description = "mito: " + recs[0].name + " " + std::to_string(recs[0].codes.size()) + " x " + recs[1].name +
                        " " + std::to_string(recs[1].codes.size());
        w.q.push_back(std::move(recs[0].codes));
        w.r.push_back(std::move(recs[1].codes));
    } else if (name == "hp50") {
        w.description = "hp50 H. pylori G27 vs SJM180";
        pick_record_pair(w, dir + "hpyloriG27_vs_SJM180.A.fa", dir + "hpyloriG27_vs_SJM180.B.fa", 50000, 54525);
    } else if (name == "hp100") {
        w.description = "hp100 H. pylori G27 vs SJM180";
        pick_record_pair(w, dir + "hpyloriG27_vs_SJM180.A.fa", dir + "hpyloriG27_vs_SJM180.B.fa", 100000, 100000);
    } else if (name == "sa200") {
        w.description = "sa200 S. aureus N315 vs RF122";
        pick_record_pair(w, dir + "saureusN315_vs_RF122.A.fa", dir + "saureusN315_vs_RF122.B.fa", 200000, 200000);
    } else if (name == "sa_set") {
        add_record_pairs(w, dir, "saureusN315_vs_RF122");
        w.description = "sa_set: the 10 S. aureus N315 vs RF122 window pairs of dna/long (10-200 kb), one set";
    } else if (name == "hp_set") {
        add_record_pairs(w, dir, "hpyloriG27_vs_SJM180");
        w.description = "hp_set: the 7 H. pylori G27 vs SJM180 window pairs of dna/long (10-100 kb), one set";
    } else if (name == "mixed_set") {
        add_record_pairs(w, dir, "saureusN315_vs_RF122");
        add_record_pairs(w, dir, "hpyloriG27_vs_SJM180");
        auto mito = read_fasta(dir + "mito_human_vs_orangutan.fa");
        if (mito.size() < 2) throw std::runtime_error("mito_human_vs_orangutan.fa: fewer than 2 records");
        w.q.push_back(mito[0].codes);
        w.r.push_back(mito[1].codes);
        add_joined_pair(w, dir, "saureusN315_vs_RF122", 8);
        add_joined_pair(w, dir, "hpyloriG27_vs_SJM180", 7);
        auto phages = read_fasta(o.data + "/genomes/phage_lambda_phiX174.fa");
        if (phages.empty()) throw std::runtime_error("genomes/phage_lambda_phiX174.fa: no records");
        const Seq& lambda = phages[0].codes;
        w.q.push_back(lambda);
        w.r.push_back(mutate(lambda, 0.01, o.seed + 3));
        w.q.push_back(mutate(lambda, 0.15, o.seed + 4));
        w.r.push_back(mutate(lambda, 0.15, o.seed + 5));
        // 500 kb: the S. aureus A windows joined, against a copy mutated at 2%.
        Seq big = joined_records(dir + "saureusN315_vs_RF122.A.fa");
        big.resize(std::min<std::size_t>(big.size(), 500000));
        w.q.push_back(big);
        w.r.push_back(mutate(big, 0.02, o.seed + 6));
        w.description = "mixed_set: " + std::to_string(w.q.size()) +
                        " pairs of 10-500 kb: the S. aureus and H. pylori window pairs, the mitochondria, the first 8 "
                        "S. aureus and all 7 H. pylori windows joined, phage lambda against 1% and two 15% mutants, "
                        "and 500 kb of the joined S. aureus windows against a 2% mutant (seed " +
                        std::to_string(o.seed) + ")";
    } else if (name == "real1m") {
        Seq q, r;
        for (const char* set : {"saureusN315_vs_RF122", "hpyloriG27_vs_SJM180"}) {
            const Seq a = joined_records(dir + set + ".A.fa"), b = joined_records(dir + set + ".B.fa");
            q.insert(q.end(), a.begin(), a.end());
            r.insert(r.end(), b.begin(), b.end());
        }
        w.description = "real1m: the S. aureus then H. pylori windows joined, " + std::to_string(q.size()) + " x " +
                        std::to_string(r.size());
        w.q.push_back(std::move(q));
        w.r.push_back(std::move(r));
    } else {
        const SynthSpec s = synth_spec(name, o);
        for (auto& [q, r] : generate_pairs(s.seed, s.pairs, s.min_len, s.max_len, s.divergence)) {
            w.q.push_back(std::move(q));
            w.r.push_back(std::move(r));
        }
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s synthetic: %zu pair(s) of %zu-%zu, %.0f%% divergence, seed %llu",
                      name.c_str(), s.pairs, s.min_len, s.max_len, s.divergence * 100,
                      static_cast<unsigned long long>(s.seed));
        w.description = buf;
        std::snprintf(buf, sizeof buf,
                      " (= scripts/gen_long_pairs.py --pairs %zu --min-length %zu --max-length %zu --divergence %g "
                      "--seed %llu)",
                      s.pairs, s.min_len, s.max_len, s.divergence, static_cast<unsigned long long>(s.seed));
        w.description += buf;
    }
    w.finish();
    return w;
}

void write_fasta(const std::string& path, const std::vector<Seq>& seqs, char prefix) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write " + path);
    std::string line;
    for (std::size_t i = 0; i < seqs.size(); ++i) {
        out << '>' << prefix << i << '\n';
        for (std::size_t k = 0; k < seqs[i].size(); k += 80) {
            line.clear();
            for (std::size_t j = k; j < std::min(seqs[i].size(), k + 80); ++j) line.push_back(dna_letters[seqs[i][j]]);
            out << line << '\n';
        }
    }
}

}  // namespace gpualign::long_bench
