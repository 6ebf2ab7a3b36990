// Differential test: the CPU reference aligner against SeqAn3's vectorised
// align_pairwise on seeded random pairs (score and end cell), plus the
// invariants of test_util.hpp on every full-traceback result.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "test_util.hpp"

namespace gpualign::test {
namespace {

struct Setting {
    Alphabet alphabet;
    AlignMode mode;
    int go, ge;
    std::uint64_t seed;
};

void PrintTo(const Setting& s, std::ostream* os) {
    *os << to_string(s.alphabet) << " " << to_string(s.mode) << " go=" << s.go << " ge=" << s.ge << " seed=" << s.seed;
}

std::string setting_name(const testing::TestParamInfo<Setting>& info) {
    const Setting& s = info.param;
    return std::string(to_string(s.alphabet)) + "_" + to_string(s.mode) + "_go" + std::to_string(s.go) + "_ge" +
           std::to_string(s.ge);
}

class Differential : public testing::TestWithParam<Setting> {};

constexpr std::size_t pairs_per_setting = 2000;
constexpr int max_reported = 10;  // failures printed per setting

TEST_P(Differential, MatchesSeqAn3AndInvariantsHold) {
    const Setting& st = GetParam();
    const ScoringScheme scheme = st.alphabet == Alphabet::dna ? dna_scheme(st.go, st.ge) : blosum62_scheme(st.go, st.ge);

    PairGenerator gen(st.seed, st.alphabet);
    std::vector<Pair> pairs;
    for (std::size_t k = 0; k < pairs_per_setting; ++k) pairs.push_back(gen.next());

    const std::vector<OracleResult> theirs = oracle(pairs, st.alphabet, st.mode, st.go, st.ge);
    const OurResults ours = run_ours(pairs, scheme, st.mode);

    int failures = 0;
    std::size_t aligned = 0, gapped = 0;
    auto report = [&](std::size_t k, const std::string& what) {
        if (++failures <= max_reported)
            ADD_FAILURE() << "pair " << k << " (" << pairs[k].query.size() << " x " << pairs[k].ref.size()
                          << "): " << what;
    };
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const AlignmentResult& r = ours.full[k];
        const OracleResult& o = theirs[k];
        if (r.score != o.score) {
            report(k, "score " + std::to_string(r.score) + " != SeqAn3 " + std::to_string(o.score));
            continue;
        }
        // End cell: global is (m, n); local follows the same first-maximum rule as
        // SeqAn3 (see test_util.hpp), so it must match exactly. SeqAn3's end of an
        // unaligned (score 0) local pair is meaningless; ours must be all zero.
        if ((st.mode == AlignMode::global || r.score > 0) && (r.query_end != o.query_end || r.ref_end != o.ref_end))
            report(k, "end (" + std::to_string(r.query_end) + "," + std::to_string(r.ref_end) + ") != SeqAn3 (" +
                          std::to_string(o.query_end) + "," + std::to_string(o.ref_end) + ")");
        if (const std::string v = check_invariants(r, ours.fast[k], pairs[k].query, pairs[k].ref, scheme, st.mode);
            !v.empty())
            report(k, v);
        if (r.score > 0 || st.mode == AlignMode::global) ++aligned;
        const CigarStats cs = cigar_stats(r.cigar);
        if (cs.inserted > 0 && cs.deleted > 0) ++gapped;
    }
    EXPECT_EQ(failures, 0);
    // The generator must exercise aligned and gapped paths, not only trivial ones.
    EXPECT_GT(aligned, pairs.size() / 2);
    EXPECT_GT(gapped, pairs.size() / 10);
}

INSTANTIATE_TEST_SUITE_P(Random, Differential,
                         testing::Values(Setting{Alphabet::dna, AlignMode::local, 5, 2, 101},
                                         Setting{Alphabet::dna, AlignMode::local, 0, 2, 102},
                                         Setting{Alphabet::dna, AlignMode::global, 5, 2, 103},
                                         Setting{Alphabet::dna, AlignMode::global, 0, 2, 104},
                                         Setting{Alphabet::protein, AlignMode::local, 11, 1, 105},
                                         Setting{Alphabet::protein, AlignMode::local, 0, 4, 106},
                                         Setting{Alphabet::protein, AlignMode::global, 11, 1, 107},
                                         Setting{Alphabet::protein, AlignMode::global, 0, 4, 108}),
                         setting_name);

}  // namespace
}  // namespace gpualign::test
