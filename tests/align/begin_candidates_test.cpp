// The begin-cell claim of docs/scoring.md ("Begin cells of the inter-pair
// kernel"), checked on the CPU reference: for local and semi-global pairs,
// the DP of the reversed prefixes anchored at the end cell (Hrev, the GPU
// reverse pass's scalar twin below) never exceeds the score S, and reaches
// S at the canonical begin cell that align_pair reports. So a unique cell
// with Hrev = S is the begin. Seeded random DNA pairs (related, unrelated,
// low complexity), tandem repeats and all-N sides, several schemes. And the
// reverse pass's bounds (docs/scoring.md, "The reverse pass's bound" and
// "The reverse pass's forward bound"): the kernel's strip-and-row skipping,
// in a scalar twin, counts the same candidates as the pass over every cell.
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

// The forward pass's row bound of pair_kernel.cuh, scalar, at [strip][block]:
// for each block of 2 query rows and strip of 32 ref columns of the forward
// DP (the reference's recurrence and borders), an upper bound of its H as
// the kernel keeps it. Semi-global: the block's largest H. Local: the second
// row's largest H plus gap_open + gap_extend (the first row's H is at most
// that, H(i+1, j) >= Fcell(i+1, j) >= H(i, j) - O), or a lone last row's.
std::vector<std::vector<std::int64_t>> forward_row_bound(const Codes& q, const Codes& r, const ScoringScheme& s,
                                                         AlignMode mode) {
    constexpr int R = 32, G = 2;
    const int m = static_cast<int>(q.size()), n = static_cast<int>(r.size()), go = s.gap_open, ge = s.gap_extend,
              open = go + ge;
    const bool local = mode == AlignMode::local;
    std::vector<std::vector<std::int64_t>> bound(static_cast<std::size_t>((n + R - 1) / R),
                                                 std::vector<std::int64_t>(static_cast<std::size_t>((m + G - 1) / G), neg_inf));
    std::vector<std::int64_t> H(static_cast<std::size_t>(n + 1), 0), F(static_cast<std::size_t>(n + 1), neg_inf);
    for (int i = 1; i <= m; ++i) {
        std::int64_t diag = H[0], e = neg_inf;
        H[0] = local ? 0 : -(go + static_cast<std::int64_t>(i) * ge);
        for (int j = 1; j <= n; ++j) {
            e = std::max(e - ge, H[j - 1] - open);
            F[j] = std::max(F[j] - ge, H[j] - open);
            std::int64_t h = std::max({diag + s.matrix[q[static_cast<std::size_t>(i - 1)] * s.size + r[static_cast<std::size_t>(j - 1)]], e, F[j]});
            if (local) h = std::max<std::int64_t>(h, 0);
            diag = H[j];
            H[j] = h;
            auto& b = bound[static_cast<std::size_t>((j - 1) / R)][static_cast<std::size_t>((i - 1) / G)];
            if (!local)
                b = std::max(b, h);
            else if (i % 2 == 0)
                b = std::max(b, h + open);
            else if (i == m)
                b = std::max(b, h);
        }
    }
    return bound;
}

// The bounded reverse pass of pair_kernel.cuh, scalar: the same DP, swept as
// the kernel sweeps it (column strips of 32, rows top to bottom), computing
// only the rows the bound leaves (a strip from its first possibly live row to
// the first dead row below the previous strip's last live row), and reading
// every skipped cell as minus infinity. With `forward_bound`, a row must also
// pass the forward pass's row bound (forward_row_bound) to be live.
struct Bounded {
    int count = 0;               // cells with Hrev == S
    bool begin_is_one = false;   // the reported begin cell is among them
    std::int64_t cells = 0;      // cells computed
};

Bounded bounded_reverse_pass(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode,
                             const AlignmentResult& res, bool forward_bound) {
    constexpr int R = 32, G = 2;
    const int ie = res.query_end, je = res.ref_end, go = s.gap_open, ge = s.gap_extend, open = go + ge;
    const std::int64_t S = res.score;
    const std::int64_t mx = std::max<std::int64_t>(*std::max_element(s.matrix.begin(), s.matrix.end()), 0);
    auto may_reach = [&](std::int64_t v, int k, int l) {
        return k <= ie && l <= je && v + mx * std::min(ie - k, je - l) >= S;
    };
    auto border = [&](int x) -> std::int64_t { return x == 0 ? 0 : -(go + static_cast<std::int64_t>(x) * ge); };
    // Reversed row k of the strip at j0 (largest Hrev v) against the forward
    // cells it pairs with: row ie - k, columns je - j0 - R .. je - j0 - 1.
    const auto fwd = forward_bound ? forward_row_bound(q, r, s, mode) : std::vector<std::vector<std::int64_t>>{};
    auto fwd_reach = [&](std::int64_t v, int k, int j0) {
        const int ro = ie - k, c_hi = je - j0 - 1, c_lo = c_hi - (R - 1);
        if (!forward_bound || ro < 1) return true;
        std::int64_t fh = c_lo <= 0 ? 0 : neg_inf;  // column 0: Hf <= 0
        for (int c = std::max(c_lo, 1); c <= c_hi; ++c)
            fh = std::max(fh, fwd[static_cast<std::size_t>((c - 1) / R)][static_cast<std::size_t>((ro - 1) / G)]);
        return v + fh + go >= S;
    };
    Bounded b;
    auto consider = [&](int k, int l, std::int64_t h) {
        const bool can_begin = mode == AlignMode::local ? (k >= 1 && l >= 1) : k == ie;
        if (!can_begin || h != S) return;
        ++b.count;
        if (ie - k == res.query_begin && je - l == res.ref_begin) b.begin_is_one = true;
    };
    if (ie == 0 || (mode == AlignMode::semi_global && border(ie) == S)) consider(ie, 0, border(ie));
    // The previous strip's last column (H and E) by row, and its live rows.
    std::vector<std::int64_t> left_h(static_cast<std::size_t>(ie + 1), neg_inf), left_e = left_h;
    int prev_first = 1, prev_last = ie;
    for (int j0 = 0; j0 < je; j0 += R) {
        const int cols = std::min(R, je - j0);
        int k_start = 1;
        if (j0 > 0 && !may_reach(border(j0), 0, j0)) {
            if (prev_first > prev_last) break;
            k_start = prev_first;
        }
        std::vector<std::int64_t> H(static_cast<std::size_t>(cols)), F(static_cast<std::size_t>(cols), neg_inf);
        for (int c = 0; c < cols; ++c) H[c] = k_start == 1 ? border(j0 + c + 1) : neg_inf;
        std::int64_t up_left = k_start == 1 ? border(j0) : neg_inf;
        std::vector<std::int64_t> out_h(static_cast<std::size_t>(ie + 1), neg_inf), out_e = out_h;
        int cur_first = ie + 1, cur_last = 0;
        for (int k = k_start; k <= ie; ++k) {
            std::int64_t lh, le;
            if (j0 == 0) {
                lh = border(k);
                le = neg_inf;
            } else if (k >= prev_first && k <= prev_last) {
                lh = left_h[k];
                le = left_e[k];
            } else {
                lh = le = neg_inf;
            }
            const std::uint8_t a = q[static_cast<std::size_t>(ie - k)];
            std::int64_t diag = up_left, e = le, left = lh, rowmax = neg_inf;
            up_left = lh;
            for (int c = 0; c < cols; ++c) {
                const int l = j0 + c + 1;
                const std::uint8_t bb = r[static_cast<std::size_t>(je - l)];
                e = std::max(e - ge, left - open);
                F[c] = std::max(F[c] - ge, H[c] - open);
                const std::int64_t h = std::max({diag + s.matrix[a * s.size + bb], e, F[c]});
                diag = H[c];
                H[c] = h;
                left = h;
                rowmax = std::max(rowmax, h);
                consider(k, l, h);
                ++b.cells;
            }
            out_h[k] = H[cols - 1];
            out_e[k] = e;
            if (may_reach(rowmax, k, j0 + 1) && fwd_reach(rowmax, k, j0)) {
                cur_first = std::min(cur_first, k);
                cur_last = k;
            } else if (j0 == 0 ? !may_reach(border(k), k, 0) : k > prev_last) {
                break;
            }
        }
        left_h.swap(out_h);
        left_e.swap(out_e);
        prev_first = cur_first;
        prev_last = cur_last;
    }
    return b;
}

// Checks the claim on every pair; returns how many had a unique candidate.
std::size_t check_pairs(const std::vector<test::Pair>& pairs, const ScoringScheme& s, AlignMode mode) {
    std::size_t unique = 0, checked = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto& p = pairs[i];
        const AlignmentResult res = align_pair(p.query, p.ref, s, mode, true);
        if (mode == AlignMode::local && res.score == 0) continue;  // unaligned: no begin
        const Candidates c = reverse_pass(p.query, p.ref, s, mode, res);
        for (const bool forward_bound : {false, true}) {
            const Bounded bounded = bounded_reverse_pass(p.query, p.ref, s, mode, res, forward_bound);
            EXPECT_EQ(bounded.count, c.count) << "pair " << i << ": the bound changed the candidates (forward bound "
                                              << forward_bound << ")";
            EXPECT_EQ(bounded.begin_is_one, c.begin_is_one) << "pair " << i << " (forward bound " << forward_bound << ")";
        }
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

// What the bounds save, measured in cells (the kernel's time follows the
// rows it computes): pairs like the benchmark's (a), 512 x 512 at 10%
// divergence, and reads of 150 inside windows of 150-200 at 5%, local and
// semi-global with the default DNA scheme. The bounds must count the same
// candidates (as above), the first skip most of the cells of (a), and the
// forward bound skip more on both sets.
TEST(BeginCandidates, BoundSkipsMostCellsOfRelatedPairs) {
    test::PairGenerator g(4101, Alphabet::dna);
    std::vector<test::Pair> a, reads;
    for (int k = 0; k < 200; ++k) {
        const Codes q = g.random_seq(512, 4);
        a.push_back({q, g.mutate(q, 0.10, 4, 1024)});
        const Codes read = g.random_seq(150, 4);
        Codes window = g.random_seq(static_cast<std::size_t>(g.unit() * 25), 4);
        const Codes copy = g.mutate(read, 0.05, 4, 300);
        window.insert(window.end(), copy.begin(), copy.end());
        const Codes tail = g.random_seq(static_cast<std::size_t>(g.unit() * 25), 4);
        window.insert(window.end(), tail.begin(), tail.end());
        reads.push_back({read, window});
    }
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    for (AlignMode mode : {AlignMode::local, AlignMode::semi_global}) {
        for (const auto* set : {&a, &reads}) {
            std::int64_t all = 0, computed = 0, computed_fwd = 0;
            for (const test::Pair& p : *set) {
                const AlignmentResult res = align_pair(p.query, p.ref, s, mode, true);
                const Candidates c = reverse_pass(p.query, p.ref, s, mode, res);
                const Bounded b = bounded_reverse_pass(p.query, p.ref, s, mode, res, false);
                const Bounded bf = bounded_reverse_pass(p.query, p.ref, s, mode, res, true);
                EXPECT_EQ(b.count, c.count);
                EXPECT_EQ(bf.count, c.count);
                all += static_cast<std::int64_t>(res.query_end) * res.ref_end;
                computed += b.cells;
                computed_fwd += bf.cells;
            }
            const double share = static_cast<double>(computed) / static_cast<double>(all);
            const double share_fwd = static_cast<double>(computed_fwd) / static_cast<double>(all);
            std::printf("  %s, %s: the bound computes %.1f%% of the reverse pass's cells, with the forward bound %.1f%%\n",
                        to_string(mode), set == &a ? "512 x 512 at 10%" : "reads of 150 in windows", 100 * share,
                        100 * share_fwd);
            if (set == &a) EXPECT_LT(share, 0.5) << to_string(mode);
            EXPECT_LT(share_fwd, share) << to_string(mode);
        }
    }
}

}  // namespace
}  // namespace gpualign
