// The batch engine's inter-pair 16-bit kernel (gpu/src/batch/kernels/
// pair_kernel.cuh) and its traceback variant (pair_traceback_kernel.cuh):
// score-only results and CIGARs byte-identical to the CPU reference on the
// pairs it takes, at the edges of its 16-bit range, on tie-heavy pairs
// (repeats, all-N, length 1) and mixed lengths in one batch, with the
// engine's counters showing which kernel finished each pair. Skips without
// a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "test_matrices.hpp"

namespace gpualign::test {
namespace {

#define SKIP_WITHOUT_GPU() \
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

constexpr AlignMode all_modes[] = {AlignMode::local, AlignMode::global, AlignMode::semi_global};

// Related pairs of 1-400 letters (0-30% divergence) and unrelated ones.
void related_pairs(std::uint64_t seed, std::size_t count, std::size_t max_len, std::vector<Seq>& q,
                   std::vector<Seq>& r) {
    Generator g(Alphabet::dna, seed);
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t m = 1 + g.rng()() % max_len;
        Seq qs = g.random(m);
        Seq rs = k % 5 == 4 ? g.random(1 + g.rng()() % max_len) : g.mutate(qs, 0.3 * (k % 7) / 6.0, 4 * max_len);
        if (rs.empty()) rs = g.random(1);
        q.push_back(std::move(qs));
        r.push_back(std::move(rs));
    }
}

// Tandem repeats against a third of themselves (many cells share the best
// score) both ways, all-N queries, length-1 queries against random or all-N
// refs: 1,600 pairs.
void tie_heavy_pairs(std::uint64_t seed, std::vector<Seq>& q, std::vector<Seq>& r) {
    Generator g(Alphabet::dna, seed);
    const std::uint8_t N = 3;
    for (int k = 0; k < 400; ++k) {
        const Seq unit = g.random(1 + k % 6);
        Seq rep;
        while (rep.size() < static_cast<std::size_t>(20 + k % 180)) rep.insert(rep.end(), unit.begin(), unit.end());
        Seq sub(rep.begin(), rep.begin() + static_cast<std::ptrdiff_t>(rep.size() / 3 + 1));
        q.push_back(sub);
        r.push_back(rep);
        q.push_back(rep);
        r.push_back(sub);
        q.push_back(Seq(1 + k % 50, N));
        r.push_back(g.random(1 + k % 70));
        q.push_back(g.random(1));
        r.push_back(k % 2 ? Seq(1 + k % 30, N) : g.random(1 + k % 30));
    }
}

// Four pairs of each query length: the query against itself (the largest
// score of its length) and against 5%, 10% and 15% mutants.
void range_pairs(std::uint64_t seed, const std::vector<std::size_t>& lengths, std::vector<Seq>& q, std::vector<Seq>& r) {
    Generator g(Alphabet::dna, seed);
    for (const std::size_t len : lengths)
        for (int k = 0; k < 4; ++k) {
            Seq qs = g.random(len);
            q.push_back(qs);
            r.push_back(k == 0 ? qs : g.mutate(qs, 0.05 * k, 2 * len));
        }
}

// Every DNA mode on mixed lengths: the inter-pair kernel finishes most pairs
// (a begin cell with several candidates goes to the warp kernel) and the
// bytes equal the CPU reference's and those of the warp kernel alone.
TEST(PairKernel, MixedLengthsIdenticalToCpuReference) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3800, 20000, 400, q, r);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    for (AlignMode mode : all_modes) {
        const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, true, inter_pair_options());
        EXPECT_GT(p.inter_pair_pairs, q.size() * 3 / 4) << to_string(mode);
        EXPECT_EQ(p.inter_pair_pairs + p.inter_pair_fallbacks, q.size()) << to_string(mode);
        gpu::BatchEngineOptions warp_only;
        warp_only.pair_kernels = false;
        const gpu::BatchEngineProfile w = expect_identical(q, r, s, mode, true, warp_only);
        EXPECT_EQ(w.inter_pair_pairs, 0u);
    }
}

// By default a batch too small to fill the GPU goes to the warp-per-pair
// kernel; one of well over SMs x 512 pairs runs on the inter-pair kernel.
TEST(PairKernel, RoutesBySize) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3805, 2000, 60, q, r);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    EXPECT_EQ(expect_identical(q, r, s, AlignMode::local, true).inter_pair_pairs, 0u);
    q.clear();
    r.clear();
    related_pairs(3806, 150000, 60, q, r);
    EXPECT_GT(expect_identical(q, r, s, AlignMode::local, true).inter_pair_pairs, 100000u);
}

// Pairs across the 16-bit range: with match 40 / mismatch -40 / gaps
// 40 + 40 (s + O up to 120, within a profile byte) a global pair of about
// 540 x 540 is the largest that fits; the lengths around it go to the warp
// kernel and must give the same bytes.
TEST(PairKernel, SixteenBitRangeEdges) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    std::vector<std::size_t> lengths;
    for (std::size_t len = 480; len <= 620; len += 4) lengths.push_back(len);
    range_pairs(3801, lengths, q, r);
    const ScoringScheme s = make_dna_scheme(40, 40, 40, 40, -40);
    for (AlignMode mode : all_modes) {
        const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, true, inter_pair_options());
        EXPECT_GT(p.inter_pair_pairs, 0u) << to_string(mode);
        EXPECT_GT(p.inter_pair_fallbacks, 0u) << to_string(mode);
    }
}

// Tie-heavy pairs: tandem repeats (many cells share the best score), all-N
// sides, length 1, a query equal to a repeated ref window.
TEST(PairKernel, TieHeavyPairs) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    tie_heavy_pairs(3802, q, r);
    for (const ScoringScheme& s : {make_dna_scheme(2, 3, 5, 2, -3), make_dna_scheme(1, 1, 1, 1, -1)})
        for (AlignMode mode : all_modes) {
            const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, true, inter_pair_options());
            EXPECT_GT(p.inter_pair_pairs, 0u) << to_string(mode);
        }
}

// Linear gaps whose mismatch costs more than a gap (s + O < 0): the kernel
// takes s + O down to -gap_extend (2/-3 and 2/-4 with gap 0+2: s + O = -1
// and -2), and leaves a scheme below it (2/-5: -3) to the warp kernel.
TEST(PairKernel, NegativeProfileScoresOfLinearGaps) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3809, 6000, 300, q, r);
    for (const ScoringScheme& s : {make_dna_scheme(2, 3, 0, 2, -3), make_dna_scheme(2, 4, 0, 2, -4)})
        for (AlignMode mode : all_modes) {
            const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, true, inter_pair_options());
            EXPECT_GT(p.inter_pair_pairs, q.size() * 3 / 4) << to_string(mode);
        }
    for (AlignMode mode : all_modes)
        EXPECT_EQ(expect_identical(q, r, make_dna_scheme(2, 5, 0, 2, -5), mode, true, inter_pair_options()).inter_pair_pairs,
                  0u)
            << to_string(mode);
}

// The reverse pass's bounds (pair_kernel.cuh; docs/scoring.md, "The reverse
// pass's bound" and "The reverse pass's forward bound") skip cells that
// cannot lead to a begin, and must count the same candidates as the pass
// over every cell: the same bytes as the CPU reference with both, the same
// bytes with the first only and with none, and the same pairs handed to the
// warp kernel (a candidate lost or gained changes a begin or that count).
// Pairs of up to 1,000 letters (up to 32 strips), reads of 60-300 inside
// windows with random flanks (the begin far from the top-left corner), and
// tie-heavy pairs; four schemes: the default, 1/1/1+1 (many ties), linear
// gaps with s + O < 0, and a match of 5 with gap 10+1.
TEST(PairKernel, ReverseBoundCountsTheSameCandidates) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3816, 1500, 1000, q, r);
    Generator g(Alphabet::dna, 3817);
    for (int k = 0; k < 1500; ++k) {
        Seq read = g.random(60 + g.rng()() % 241);
        Seq window = g.random(g.rng()() % 120);
        const Seq copy = g.mutate(read, 0.02 * (k % 6), 2 * read.size());
        window.insert(window.end(), copy.begin(), copy.end());
        const Seq tail = g.random(g.rng()() % 120);
        window.insert(window.end(), tail.begin(), tail.end());
        q.push_back(std::move(read));
        r.push_back(std::move(window));
    }
    tie_heavy_pairs(3818, q, r);
    const auto v = views(q, r);
    for (const ScoringScheme& s : {make_dna_scheme(2, 3, 5, 2, -3), make_dna_scheme(1, 1, 1, 1, -1),
                                   make_dna_scheme(2, 3, 0, 2, -3), make_dna_scheme(5, 4, 10, 1, -4)})
        for (AlignMode mode : {AlignMode::local, AlignMode::semi_global}) {
            const gpu::BatchEngineProfile bounded = expect_identical(q, r, s, mode, true, inter_pair_options());
            EXPECT_GT(bounded.inter_pair_pairs, q.size() / 2) << to_string(mode);
            gpu::BatchEngineOptions every_cell = inter_pair_options(), first_bound = inter_pair_options();
            every_cell.pair_reverse_bound = false;
            first_bound.pair_row_bound = false;
            gpu::BatchEngine a(s, mode, true, inter_pair_options()), b(s, mode, true, every_cell),
                c(s, mode, true, first_bound);
            const std::vector<AlignmentResult> with = a.align(v), without = b.align(v), first = c.align(v);
            std::size_t differ = 0, differ_first = 0;
            for (std::size_t i = 0; i < v.size(); ++i) {
                differ += !(with[i] == without[i]);
                differ_first += !(first[i] == without[i]);
            }
            EXPECT_EQ(differ, 0u) << to_string(mode);
            EXPECT_EQ(differ_first, 0u) << to_string(mode);
            EXPECT_EQ(a.profile().inter_pair_pairs, b.profile().inter_pair_pairs) << to_string(mode);
            EXPECT_EQ(a.profile().inter_pair_fallbacks, b.profile().inter_pair_fallbacks) << to_string(mode);
            EXPECT_EQ(c.profile().inter_pair_fallbacks, b.profile().inter_pair_fallbacks) << to_string(mode);
            EXPECT_EQ(a.profile().inter_pair_fallbacks, bounded.inter_pair_fallbacks) << to_string(mode);
        }
}

// A 15-code IUPAC scheme (the largest alphabet the kernel takes) and real
// reads.
TEST(PairKernel, IupacAndRealReads) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3803, 4000, 300, q, r);
    Generator g(Alphabet::dna, 3804);
    for (auto* side : {&q, &r})
        for (Seq& s : *side)
            for (auto& c : s)
                if (g.rng()() % 6 == 0) c = static_cast<std::uint8_t>(g.rng()() % dna_code_letters.size());
    for (AlignMode mode : all_modes) {
        const gpu::BatchEngineProfile p = expect_identical(q, r, ednafull_scheme(10, 1), mode, true, inter_pair_options());
        EXPECT_GT(p.inter_pair_pairs, 0u) << to_string(mode);
    }
    std::vector<Seq> rq, rr;
    if (!load_pairs("dna/miseq_16S/reads.fa", "dna/miseq_16S/ref_windows.fa", Alphabet::dna, rq, rr))
        GTEST_SKIP() << "miseq_16S not found under " << shared_data_dir();
    for (AlignMode mode : all_modes) {
        const gpu::BatchEngineProfile p = expect_identical(rq, rr, make_dna_scheme(2, 3, 5, 2, -3), mode, true, inter_pair_options());
        EXPECT_GT(p.inter_pair_pairs, rq.size() / 2) << to_string(mode);
    }
}

// The traceback variant: CIGARs byte-identical to the CPU reference (and
// re-scored by expect_identical) in every mode, for affine gaps, linear gaps
// with s + O < 0 (2/-3 with gap 0+2) and a 15-code IUPAC scheme, on mixed
// lengths; every pair fits 16 bits, so the kernel takes every pair.
TEST(PairKernelTraceback, MixedLengthsIdenticalToCpuReference) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3810, 12000, 400, q, r);
    for (const ScoringScheme& s : {make_dna_scheme(2, 3, 5, 2, -3), make_dna_scheme(2, 3, 0, 2, -3), ednafull_scheme(10, 1)})
        for (AlignMode mode : all_modes) {
            const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, false, inter_pair_options());
            EXPECT_EQ(p.inter_pair_pairs, q.size()) << to_string(mode);
        }
}

// Across the 16-bit range with CIGAR: the engine sends the pairs that fit to
// the traceback variant and the rest to the warp kernel, in batches of their
// own; the bytes are the CPU reference's either way. With match 40 / gaps
// 40 + 40 the largest pair that fits is about 540 x 540 in global and
// semi-global mode, and 1,632 x 1,632 in local mode (whose forward pass
// needs no room below zero).
TEST(PairKernelTraceback, SixteenBitRangeEdges) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    std::vector<std::size_t> lengths;
    for (std::size_t len = 480; len <= 620; len += 4) lengths.push_back(len);
    for (std::size_t len = 1608; len <= 1656; len += 8) lengths.push_back(len);
    range_pairs(3811, lengths, q, r);
    const ScoringScheme s = make_dna_scheme(40, 40, 40, 40, -40);
    for (AlignMode mode : all_modes) {
        const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, false, inter_pair_options());
        EXPECT_GT(p.inter_pair_pairs, 0u) << to_string(mode);
        EXPECT_LT(p.inter_pair_pairs, q.size()) << to_string(mode);
    }
}

// Tie-heavy pairs with CIGAR: repeats (many equal paths: the canonical one
// must win), all-N sides, length 1, under two schemes.
TEST(PairKernelTraceback, TieHeavyPairs) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    tie_heavy_pairs(3812, q, r);
    for (const ScoringScheme& s : {make_dna_scheme(2, 3, 5, 2, -3), make_dna_scheme(1, 1, 1, 1, -1)})
        for (AlignMode mode : all_modes) {
            const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, false, inter_pair_options());
            EXPECT_EQ(p.inter_pair_pairs, q.size()) << to_string(mode);
        }
}

// Real reads with CIGAR: MiSeq 16S reads against their windows (about 250 x
// 300) and PacBio reads of about 1 kb, in every mode.
TEST(PairKernelTraceback, RealReads) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    if (!load_pairs("dna/miseq_16S/reads.fa", "dna/miseq_16S/ref_windows.fa", Alphabet::dna, q, r))
        GTEST_SKIP() << "miseq_16S not found under " << shared_data_dir();
    std::vector<Seq> pq, pr;
    if (load_pairs("dna/pacbio_ecoli/reads.fa", "dna/pacbio_ecoli/ref_windows.fa", Alphabet::dna, pq, pr)) {
        pq.resize(std::min<std::size_t>(pq.size(), 2000));
        pr.resize(pq.size());
        q.insert(q.end(), pq.begin(), pq.end());
        r.insert(r.end(), pr.begin(), pr.end());
    }
    for (AlignMode mode : all_modes) {
        const gpu::BatchEngineProfile p = expect_identical(q, r, make_dna_scheme(2, 3, 5, 2, -3), mode, false, inter_pair_options());
        EXPECT_EQ(p.inter_pair_pairs, q.size()) << to_string(mode);
    }
}

// By default a CIGAR batch too small to fill the GPU stays on the warp
// kernel; 150,000 short pairs run on the traceback variant.
TEST(PairKernelTraceback, RoutesBySize) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3813, 2000, 60, q, r);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    EXPECT_EQ(expect_identical(q, r, s, AlignMode::local, false).inter_pair_pairs, 0u);
    q.clear();
    r.clear();
    related_pairs(3814, 150000, 60, q, r);
    EXPECT_EQ(expect_identical(q, r, s, AlignMode::local, false).inter_pair_pairs, q.size());
}

// Small enough for compute-sanitizer memcheck and racecheck: 301 mixed pairs
// (a warp's region partly filled, an odd pair count) score-only (forward and
// reverse passes, queries up to 300 letters so that the reverse pass reads
// the forward pass's row bound) and with CIGAR on the traceback variant, in
// every mode, with the signed-profile variant too.
TEST(PairKernelTracebackSanitizer, SmallBatches) {
    SKIP_WITHOUT_GPU();
    std::vector<Seq> q, r;
    related_pairs(3815, 301, 300, q, r);
    for (const ScoringScheme& s : {make_dna_scheme(2, 3, 5, 2, -3), make_dna_scheme(2, 3, 0, 2, -3)})
        for (AlignMode mode : all_modes) {
            const gpu::BatchEngineProfile p = expect_identical(q, r, s, mode, false, inter_pair_options());
            EXPECT_EQ(p.inter_pair_pairs, q.size()) << to_string(mode);
            EXPECT_GT(expect_identical(q, r, s, mode, true, inter_pair_options()).inter_pair_pairs, q.size() / 2)
                << to_string(mode);
        }
}

}  // namespace
}  // namespace gpualign::test
