// Generates N random related DNA pairs (~150 bp) as FASTA on stdout, for the
// bounded-memory check of scripts/rss_10m.sh. Deterministic: the same seed
// gives the same pairs, so two processes (one printing the queries, one the
// refs) can feed gpualign's two inputs through separate pipes.
//
//   gen_pairs query|ref N [SEED]
//
// Each query has 140-160 random bases; its ref copies it with about 5%
// substitutions, 1% insertions and 1% deletions.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Rng {  // splitmix64
    std::uint64_t s;
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || (std::strcmp(argv[1], "query") != 0 && std::strcmp(argv[1], "ref") != 0)) {
        std::fprintf(stderr, "usage: gen_pairs query|ref N [SEED]\n");
        return 2;
    }
    const bool query_side = std::strcmp(argv[1], "query") == 0;
    const unsigned long long n = std::strtoull(argv[2], nullptr, 10);
    Rng rng{argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1};
    static const char acgt[] = "ACGT";
    std::string q, r, out;
    for (unsigned long long k = 0; k < n; ++k) {
        q.clear();
        r.clear();
        const unsigned len = 140 + rng.below(21);
        for (unsigned i = 0; i < len; ++i) q += acgt[rng.below(4)];
        for (char c : q) {
            const unsigned p = rng.below(100);
            if (p < 5) r += acgt[rng.below(4)];
            else if (p < 6) { r += c; r += acgt[rng.below(4)]; }
            else if (p >= 7) r += c;
        }
        out += query_side ? ">q" : ">r";
        out += std::to_string(k);
        out += '\n';
        out += query_side ? q : r;
        out += '\n';
        if (out.size() > (1u << 16)) {
            if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) return 1;
            out.clear();
        }
    }
    if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) return 1;
    return 0;
}
