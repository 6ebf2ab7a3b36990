// The begin-cell claim of docs/scoring.md ("Begin cells of the inter-pair
// kernel"), checked on the CPU reference: for local and semi-global pairs,
// the DP of the reversed prefixes anchored at the end cell (Hrev, the GPU
// reverse pass's scalar twin below) never exceeds the score S, and reaches
// S at the canonical begin cell that align_pair reports. So a unique cell
// with Hrev = S is the begin. Seeded random DNA pairs (related, unrelated,
// low complexity), tandem repeats and all-N sides, several schemes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <vector>

#include "gpualign/align/reference_aligner.hpp"
#include "test_util.hpp"

namespace gpualign {
namespace {

using test::Codes;

constexpr std::int64_t neg_inf = std::numeric_limits<std::int32_t>::min() / 2;

struct Candidates {
    std::int64_t max_hrev = neg_inf;  // the largest Hrev over the cells that can be begins
    int count = 0;                    // cells with Hrev == S
    bool begin_is_one = false;        // the reported begin cell is among them
};

// Hrev(k, l) = the best score of a path from cell (ie-k, je-l) to (ie, je):
// Gotoh's recurrence with global borders over q[0..ie) and r[0..je)
// reversed. Local: every cell with k, l >= 1 can be a begin; semi-global:
// the cells of the last reversed row (k = ie = m), l = 0 included.
Candidates reverse_pass(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode,
                        const AlignmentResult& res) {
    const int ie = res.query_end, je = res.ref_end, go = s.gap_open, ge = s.gap_extend, open = go + ge;
    std::vector<std::int64_t> H(static_cast<std::size_t>(je + 1)), F(static_cast<std::size_t>(je + 1), neg_inf);
    for (int l = 0; l <= je; ++l) H[l] = l == 0 ? 0 : -(go + static_cast<std::int64_t>(l) * ge);
    Candidates c;
    auto consider = [&](int k, int l, std::int64_t h) {
        const bool can_begin = mode == AlignMode::local ? (k >= 1 && l >= 1) : k == ie;
        if (!can_begin) return;
        c.max_hrev = std::max(c.max_hrev, h);
        if (h == res.score) {
            ++c.count;
            if (ie - k == res.query_begin && je - l == res.ref_begin) c.begin_is_one = true;
        }
    };
    if (ie == 0) consider(0, 0, 0);
    for (int k = 1; k <= ie; ++k) {
        const std::uint8_t a = q[static_cast<std::size_t>(ie - k)];
        std::int64_t diag = H[0], e = neg_inf;
        H[0] = -(go + static_cast<std::int64_t>(k) * ge);
        consider(k, 0, H[0]);
        for (int l = 1; l <= je; ++l) {
            const std::uint8_t b = r[static_cast<std::size_t>(je - l)];
            e = std::max(e - ge, H[l - 1] - open);
            F[l] = std::max(F[l] - ge, H[l] - open);
            const std::int64_t h = std::max({diag + s.matrix[a * s.size + b], e, F[l]});
            diag = H[l];
            H[l] = h;
            consider(k, l, h);
        }
    }
    return c;
}

// Checks the claim on every pair; returns how many had a unique candidate.
std::size_t check_pairs(const std::vector<test::Pair>& pairs, const ScoringScheme& s, AlignMode mode) {
    std::size_t unique = 0, checked = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto& p = pairs[i];
        const AlignmentResult res = align_pair(p.query, p.ref, s, mode, true);
        if (mode == AlignMode::local && res.score == 0) continue;  // unaligned: no begin
        const Candidates c = reverse_pass(p.query, p.ref, s, mode, res);
        ++checked;
        EXPECT_LE(c.max_hrev, res.score) << "pair " << i << ": a path scores above S";
        EXPECT_TRUE(c.begin_is_one) << "pair " << i << ": the begin (" << res.query_begin << "," << res.ref_begin
                                    << ") does not reach S in the reverse pass";
        unique += c.count == 1;
    }
    EXPECT_GT(checked, pairs.size() / 2);
    std::printf("  %s go=%d: %zu of %zu aligned pairs with one candidate begin\n", to_string(mode), s.gap_open, unique, checked);
    return unique;
}

std::vector<test::Pair> workload(std::uint64_t seed) {
    test::PairGenerator g(seed, Alphabet::dna);
    std::vector<test::Pair> pairs;
    for (int k = 0; k < 600; ++k) pairs.push_back(g.next(300));
    for (int k = 0; k < 60; ++k) {  // tandem repeats against a part of themselves, all-N sides
        const Codes unit = g.random_seq(1 + k % 5, 4);
        Codes rep;
        while (rep.size() < static_cast<std::size_t>(20 + 3 * k)) rep.insert(rep.end(), unit.begin(), unit.end());
        pairs.push_back({Codes(rep.begin(), rep.begin() + static_cast<std::ptrdiff_t>(rep.size() / 2)), rep});
        pairs.push_back({Codes(1 + k % 9, 3), g.random_seq(1 + k % 40, 4)});
    }
    return pairs;
}

TEST(BeginCandidates, CanonicalBeginReachesTheScoreAndNothingExceedsIt) {
    const auto pairs = workload(4100);
    for (const ScoringScheme& s : {make_dna_scheme(2, 3, 5, 2, -3), make_dna_scheme(1, 1, 1, 1, -1),
                                   make_dna_scheme(2, 3, 0, 2, -3)}) {
        for (AlignMode mode : {AlignMode::local, AlignMode::semi_global}) {
            const std::size_t unique = check_pairs(pairs, s, mode);
            // Most pairs have one candidate (else the GPU hands them to the warp kernel).
            EXPECT_GT(unique, pairs.size() / 2) << to_string(mode) << " go=" << s.gap_open;
        }
    }
}

}  // namespace
}  // namespace gpualign
