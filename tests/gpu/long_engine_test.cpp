// gpualign::gpu::LongEngine against the full-matrix CPU reference
// (align_pair_full_matrix) and the CPU long path (align_pair_long): every
// result must be byte-identical (operator==) and every CIGAR must rescore to
// the reported score. All tests skip without a CUDA device but two that need
// none (the process's work-queue setting, option validation).
#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu_test_util.hpp"
#include "gpualign/align/long_aligner.hpp"
#include "gpualign/gpu/long_engine.hpp"
#include "semi_global_pairs.hpp"
#include "test_matrices.hpp"

namespace gpualign::test {
namespace {

#define SKIP_WITHOUT_GPU() \
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

ScoringScheme scheme_for(Alphabet a, int variant) {
    if (a == Alphabet::dna) return make_dna_scheme(2, 3, variant == 0 ? 5 : (variant == 1 ? 0 : 3), variant == 2 ? 1 : 2, -3);
    return blosum62_scheme(variant == 0 ? 11 : (variant == 1 ? 0 : 10), variant == 2 ? 2 : 1);
}

/// The reference results on all cores (full matrix; pairs here are small).
std::vector<AlignmentResult> reference(const std::vector<Seq>& q, const std::vector<Seq>& r, const ScoringScheme& s,
                                       AlignMode mode, bool score_only) {
    std::vector<AlignmentResult> out(q.size());
    const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nt; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t i = t; i < q.size(); i += nt)
                out[i] = align_pair_full_matrix(q[i], r[i], s, mode, score_only);
        });
    for (auto& th : pool) th.join();
    return out;
}

void expect_same(const AlignmentResult& got, const AlignmentResult& want, const Seq& q, const Seq& r,
                 const ScoringScheme& s, const std::string& what) {
    EXPECT_TRUE(got == want) << what << " (" << q.size() << " x " << r.size() << "): gpu score " << got.score << " q["
                             << got.query_begin << "," << got.query_end << ") r[" << got.ref_begin << ","
                             << got.ref_end << ") " << cigar_string(got.cigar).substr(0, 80) << " | cpu score "
                             << want.score << " q[" << want.query_begin << "," << want.query_end << ") r["
                             << want.ref_begin << "," << want.ref_end << ") "
                             << cigar_string(want.cigar).substr(0, 80);
    if (got.has_cigar && !got.cigar.empty()) EXPECT_EQ(rescore_cigar(got, q, r, s), got.score) << what;
}

/// Pair i of align_many's input: q[i] with r[i] (borrowed).
std::vector<gpu::LongPair> long_pairs(const std::vector<Seq>& q, const std::vector<Seq>& r) {
    std::vector<gpu::LongPair> pairs;
    for (std::size_t i = 0; i < q.size(); ++i) pairs.push_back({q[i], r[i]});
    return pairs;
}

// Every pair through engine.align, then all at once through align_many: both
// byte-identical to `want` (results in input order).
void expect_align_and_align_many(gpu::LongEngine& engine, const std::vector<Seq>& q, const std::vector<Seq>& r,
                                 const std::vector<AlignmentResult>& want, const ScoringScheme& s,
                                 const std::string& what) {
    for (std::size_t i = 0; i < q.size(); ++i)
        expect_same(engine.align(q[i], r[i]), want[i], q[i], r[i], s, what + std::to_string(i));
    const std::vector<AlignmentResult> many = engine.align_many(long_pairs(q, r));
    ASSERT_EQ(many.size(), q.size());
    for (std::size_t i = 0; i < q.size(); ++i)
        expect_same(many[i], want[i], q[i], r[i], s, "align_many " + what + std::to_string(i));
}

// engine.prepare(all pairs), then align_many on `workers` workers (the
// engine's LongEngineOptions::workers): no pinned allocation in the run, and
// each result equal to align_pair_long's. Returns align_many's statistics.
gpu::LongEngineStats expect_prepared_align_many(gpu::LongEngine& engine, const std::vector<Seq>& q,
                                                const std::vector<Seq>& r, const ScoringScheme& s, AlignMode mode,
                                                int workers, const std::string& what) {
    const std::vector<gpu::LongPair> pairs = long_pairs(q, r);
    engine.prepare(pairs);
    const std::vector<AlignmentResult> got = engine.align_many(pairs);
    const gpu::LongEngineStats st = engine.last_stats();
    EXPECT_EQ(got.size(), q.size()) << what;
    EXPECT_EQ(st.workers, workers) << what;
    EXPECT_EQ(st.pinned, 0u) << what << ": a worker pinned memory in the run after prepare";
    for (std::size_t i = 0; i < q.size() && i < got.size(); ++i)
        expect_same(got[i], align_pair_long(q[i], r[i], s, mode, false), q[i], r[i], s,
                    what + " " + to_string(mode) + " pair " + std::to_string(i));
    return st;
}

// Random and related pairs of 1..5000 residues over every mode x gap model x
// alphabet x output, with small leaves and fan-outs so that checkpoint rows
// and columns, stripe hand-offs and ring flow control are crossed everywhere;
// then all pairs at once (align_many: concurrent workers with reused ring
// slots, or, under variant 1's small rings, one at a time over the GPU).
TEST(LongEngine, ByteIdenticalToReferenceOverModesGapsAlphabets) {
    SKIP_WITHOUT_GPU();
    for (Alphabet a : {Alphabet::dna, Alphabet::protein}) {
        Generator gen(a, a == Alphabet::dna ? 11 : 12);
        std::vector<Seq> q, r;
        const std::size_t lens[] = {1, 2, 31, 32, 33, 127, 128, 129, 511, 512, 513, 1023, 1024, 1025, 2047, 4100};
        for (std::size_t lq : lens) {
            const std::size_t lr = 1 + gen.rng()() % 3000;
            q.push_back(gen.random(lq));
            r.push_back(gen.rng()() % 2 ? gen.mutate(q.back(), 0.1) : gen.random(lr));
            if (r.back().empty()) r.back() = gen.random(1);
        }
        for (int k = 0; k < 6; ++k) {  // long gaps, divergent, all-N
            Seq base = gen.random(1500 + gen.rng()() % 2000);
            Seq other = base;
            other.erase(other.begin() + 600, other.begin() + 600 + 100 + k * 60);
            q.push_back(base);
            r.push_back(k % 2 ? other : gen.mutate(other, 0.3));
        }
        if (a == Alphabet::dna) {
            q.push_back(Seq(700, 3));
            r.push_back(Seq(900, 3));
        }
        for (int variant = 0; variant < 3; ++variant) {
            const ScoringScheme s = scheme_for(a, variant);
            for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
                for (bool score_only : {false, true}) {
                    const auto want = reference(q, r, s, mode, score_only);
                    gpu::LongEngineOptions opt;
                    opt.plan.fan_out = 3 + variant;
                    opt.plan.leaf_cells = variant == 0 ? 4096 : (variant == 1 ? 70000 : 1u << 20);
                    opt.plan.min_tile = variant == 2 ? 256 : 16;
                    opt.plan.direct_leaf_bytes = variant == 0 ? 0 : opt.plan.direct_leaf_bytes;  // fan-out levels too
                    opt.max_blocks = variant == 1 ? 1 : (variant == 2 ? 2 : 0);  // warps take several stripes
                    // variant 1: rings narrower than the rows (flow control); 2: few ring slots
                    opt.ring_bytes = variant == 1 ? (256u << 10) : (variant == 2 ? (1u << 20) : 0);
                    opt.workers = 3;
                    gpu::LongEngine engine(s, mode, score_only, opt);
                    const std::string what = std::string(to_string(a)) + " variant " + std::to_string(variant) + " " +
                                             to_string(mode) + (score_only ? " score-only" : " cigar") + " pair ";
                    expect_align_and_align_many(engine, q, r, want, s, what);
                    EXPECT_EQ(engine.last_stats().workers, 3);  // (variant 1: the widest pairs run alone after)
                }
            }
        }
    }
}

// Issue 14: a DnaCodes::iupac scheme (EDNAFULL, 15 codes: more than the
// packed profile's 8) on random and related pairs with about one letter in
// five an IUPAC ambiguity code or N.
TEST(LongEngine, EdnafullIupacCodesByteIdenticalToReference) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 13);
    std::vector<Seq> q, r;
    for (const std::size_t lq : {1, 33, 513, 1025, 3000}) {
        q.push_back(gen.random(lq));
        r.push_back(gen.rng()() % 2 ? gen.mutate(q.back(), 0.15) : gen.random(1 + gen.rng()() % 3000));
        if (r.back().empty()) r.back() = gen.random(1);
    }
    for (auto* side : {&q, &r})
        for (Seq& s : *side)
            for (auto& c : s)
                if (gen.rng()() % 5 == 0) c = static_cast<std::uint8_t>(gen.rng()() % dna_code_letters.size());
    const ScoringScheme s = ednafull_scheme(10, 1);
    for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool score_only : {false, true}) {
            gpu::LongEngine engine(s, mode, score_only, {});
            expect_align_and_align_many(engine, q, r, reference(q, r, s, mode, score_only), s,
                                        std::string("EDNAFULL ") + to_string(mode) +
                                            (score_only ? " score-only" : " cigar") + " pair ");
        }
}

// Pairs of 20-60 kb (well beyond one stripe and one ring), default plan and
// then 3 blocks with 4 MiB of rings (12 warps for ~300 stripes: warps reused,
// rings narrower than the rows and reused across rounds, flow control on):
// GPU equals the CPU long path, with CIGAR.
TEST(LongEngine, MatchesCpuLongPathOnLargeRandomPairs) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 7);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    for (AlignMode mode : {AlignMode::global, AlignMode::local, AlignMode::semi_global})
      for (int max_blocks : {0, 3}) {
        gpu::LongEngineOptions opt;
        opt.max_blocks = max_blocks;
        opt.ring_bytes = max_blocks ? (4u << 20) : 0;
        gpu::LongEngine engine(s, mode, false, opt);
        for (int k = 0; k < 2; ++k) {
            const Seq q = gen.random(20000 + 20000 * k);
            const Seq r = gen.mutate(q, 0.15);
            const AlignmentResult got = engine.align(q, r);
            const AlignmentResult want = align_pair_long(q, r, s, mode, false);
            expect_same(got, want, q, r, s,
                        std::string(to_string(mode)) + " large " + std::to_string(k) + " blocks " + std::to_string(max_blocks));
        }
      }
}

// DNA scores reach the kernel either as a packed int8 profile (PRMT picks and
// sign-extends a byte) or, when a score leaves [-128, 127], as the shared
// matrix. Scores at the int8 edges (match 127, mismatch and N -128) and just
// past them (match 128) must give the reference's results, both modes, with
// CIGAR and score-only, solo (R = 4) and through align_many (R = 16 from
// 4096 rows).
TEST(LongEngine, PackedAndTableScoresAtTheInt8Edges) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 21);
    std::vector<Seq> q, r;
    for (std::size_t lq : {1, 33, 512, 513, 4096, 4700}) {
        q.push_back(gen.random(lq));
        r.push_back(lq % 2 ? gen.random(1 + gen.rng()() % 3000) : gen.mutate(q.back(), 0.2));
        if (r.back().empty()) r.back() = gen.random(1);
    }
    q.push_back(Seq(600, 3));  // all N against a random ref
    r.push_back(gen.random(700));
    for (const ScoringScheme& s : {make_dna_scheme(127, 128, 300, 40, -128), make_dna_scheme(128, 100, 250, 30, -90)}) {
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            for (bool score_only : {false, true}) {
                const auto want = reference(q, r, s, mode, score_only);
                gpu::LongEngineOptions opt;
                opt.plan.leaf_cells = 70000;
                opt.workers = 2;
                gpu::LongEngine engine(s, mode, score_only, opt);
                const std::string what = "match " + std::to_string(s.matrix[0]) + " " + to_string(mode) +
                                         (score_only ? " score-only" : " cigar") + " pair ";
                expect_align_and_align_many(engine, q, r, want, s, what);
            }
        }
    }
}

// The mitochondrial pair (16,569 x 16,499): GPU equals the full-matrix
// reference with CIGAR in every mode; the global score is WFA2's 18184
// (issue #11).
TEST(LongEngine, MitoPairMatchesReference) {
    SKIP_WITHOUT_GPU();
    const std::string path = shared_data_dir() + "/dna/long/mito_human_vs_orangutan.fa";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
    const auto seqs = read_fasta(path, Alphabet::dna);
    ASSERT_EQ(seqs.size(), 2u);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    for (AlignMode mode : {AlignMode::global, AlignMode::local, AlignMode::semi_global}) {
        gpu::LongEngine engine(s, mode, false, {});
        const AlignmentResult got = engine.align(seqs[0], seqs[1]);
        const AlignmentResult want = align_pair_full_matrix(seqs[0], seqs[1], s, mode, false);
        expect_same(got, want, seqs[0], seqs[1], s, std::string("mito ") + to_string(mode));
        if (mode == AlignMode::global) EXPECT_EQ(got.score, 18184);
    }
}

// The traceback's walk through leaf batches on the device (leaf_walk_kernel:
// one warp, 64 x 64 windows in shared memory) against the walk on the host
// over downloaded direction bytes and against the reference: pairs with gaps
// longer than a window in both directions, leaves narrower and wider than a
// window (8, 136 and 2048 columns) and of odd widths, batches of 2 and 3
// leaves (walks stop at a batch's edge), alone and in align_many, every mode
// x alphabet x output.
TEST(LongEngine, LeafWalkOnDeviceMatchesWalkOnHostAndReference) {
    SKIP_WITHOUT_GPU();
    for (Alphabet a : {Alphabet::dna, Alphabet::protein}) {
        Generator gen(a, a == Alphabet::dna ? 31 : 32);
        std::vector<Seq> q, r;
        for (int k = 0; k < 8; ++k) {
            Seq base = gen.random(2000 + gen.rng()() % 3000);
            Seq other = gen.mutate(base, k % 4 == 3 ? 0.35 : 0.08);
            // A deletion and an insertion longer than a window (64).
            const std::size_t at = 300 + gen.rng()() % 500, len = 65 + gen.rng()() % 300;
            other.erase(other.begin() + static_cast<std::ptrdiff_t>(at),
                        other.begin() + static_cast<std::ptrdiff_t>(std::min(other.size(), at + len)));
            const Seq extra = gen.random(65 + gen.rng()() % 300);
            other.insert(other.begin() + static_cast<std::ptrdiff_t>(other.size() / 2 + 200), extra.begin(), extra.end());
            q.push_back(k % 2 ? other : base);
            r.push_back(k % 2 ? base : other);
        }
        const ScoringScheme s = scheme_for(a, 0);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool score_only : {false, true}) {
                const auto want = reference(q, r, s, mode, score_only);
                for (const std::uint64_t leaf_cells : {std::uint64_t{4096}, std::uint64_t{70000}, std::uint64_t{1} << 20})
                    for (const bool on_host : {false, true}) {
                        gpu::LongEngineOptions opt;
                        opt.plan.leaf_cells = leaf_cells;
                        opt.leaf_batch = leaf_cells == 4096 ? 3 : 2;
                        opt.walk_on_host = on_host;
                        opt.workers = 3;
                        gpu::LongEngine engine(s, mode, score_only, opt);
                        const std::string what = std::string(to_string(a)) + " " + to_string(mode) +
                                                 (score_only ? " score-only" : " cigar") + " leaf_cells " +
                                                 std::to_string(leaf_cells) + (on_host ? " host" : " device") +
                                                 " walk, pair ";
                        expect_align_and_align_many(engine, q, r, want, s, what);
                    }
            }
    }
}

// The traceback's guess from the checkpoint rows' peaks (RegionSpeculation::
// row_peaks: CUB's segmented arg-max on the device) against straight lines
// (LongEngineOptions::row_peaks = false), on a pair whose path drifts off
// them (the ref drops every fourth letter of the query's first 60 kb, so the
// path runs at a slope of 0.75 there and of 1 after; linear gaps keep the
// first half in a local alignment): align_pair_long's bytes both ways,
// global and local, and fewer passes with the peaks.
TEST(LongEngine, RowPeaksGuessGivesTheSameBytesInFewerPasses) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 23);
    const Seq q = gen.random(120000);
    Seq r;
    for (std::size_t i = 0; i < q.size(); ++i)
        if (i >= 60000 || i % 4 != 3) r.push_back(q[i]);
    r = gen.mutate(r, 0.03);
    const ScoringScheme s = make_dna_scheme(2, 3, 0, 2, -3);
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        const AlignmentResult want = align_pair_long(q, r, s, mode, false);
        std::uint64_t passes[2] = {};
        for (const bool peaks : {false, true}) {
            gpu::LongEngineOptions opt;
            opt.row_peaks = peaks;
            gpu::LongEngine engine(s, mode, false, opt);
            expect_same(engine.align(q, r), want, q, r, s,
                        std::string(to_string(mode)) + (peaks ? ", peaks" : ", straight lines"));
            passes[peaks] = engine.last_stats().passes;
        }
        EXPECT_LT(passes[1], passes[0]) << to_string(mode) << ": passes with peaks " << passes[1]
                                        << ", with straight lines " << passes[0];
    }
}

// Every launch without direction bytes forced to R = 16 or 32, the variants
// that compute two columns a wavefront step (R = 32: stripes of 1024 rows,
// checkpoint rows of a 512-row stride in the middle of a stripe, the odd
// rows' codes in the high halves): small pairs then cross their edges - odd
// and even ref lengths (the row's odd last column), one column, stripes of
// 512 and 1024 rows +-1, rings with flow control (the progress counts
// columns, two a step) - in every mode, DNA and protein, against the
// reference.
TEST(LongEngine, TwoColumnStepsByteIdenticalToReference) {
    SKIP_WITHOUT_GPU();
    for (Alphabet a : {Alphabet::dna, Alphabet::protein}) {
        Generator gen(a, a == Alphabet::dna ? 141 : 142);
        std::vector<Seq> q, r;
        const std::size_t qlens[] = {1, 2, 33, 511, 512, 513, 1023, 1024, 1025, 2100, 2600};
        const std::size_t rlens[] = {1, 2, 3, 31, 32, 33, 64, 65, 1001, 1500};
        std::size_t k = 0;
        for (std::size_t lq : qlens)
            for (int rep = 0; rep < 2; ++rep, ++k) {
                q.push_back(gen.random(lq));
                r.push_back(rep == 0 ? gen.random(rlens[k % std::size(rlens)]) : gen.mutate(q.back(), 0.15));
                if (r.back().empty()) r.back() = gen.random(1);
            }
        const ScoringScheme s = scheme_for(a, 0);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
            for (int variant = 0; variant < 4; ++variant) {
                const bool score_only = variant % 2 == 1;
                const auto want = reference(q, r, s, mode, score_only);
                gpu::LongEngineOptions opt;
                opt.rows_per_lane = variant < 2 ? 16 : 32;
                opt.plan.leaf_cells = 70000;
                opt.plan.fan_out = 3;
                opt.max_blocks = variant % 2 == 0 ? 1 : 0;
                opt.ring_bytes = variant % 2 == 0 ? (256u << 10) : 0;  // flow control, one block
                opt.workers = 3;
                gpu::LongEngine engine(s, mode, score_only, opt);
                const std::string what = std::string(to_string(a)) + " " + to_string(mode) +
                                         (score_only ? " score-only" : " cigar") + " R " +
                                         std::to_string(opt.rows_per_lane) + " pair ";
                expect_align_and_align_many(engine, q, r, want, s, what);
            }
        }
    }
    gpu::LongEngineOptions bad;
    bad.rows_per_lane = 8;
    EXPECT_THROW(gpu::LongEngine(scheme_for(Alphabet::dna, 0), AlignMode::global, false, bad), std::invalid_argument);
}

// Invalid LongEngineOptions are rejected with std::invalid_argument before
// any device is touched (the constructor validates first). Runs without a
// device.
TEST(LongEngine, InvalidOptionsThrowBeforeTouchingADevice) {
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    const auto rejects = [&](auto&& edit, const char* what) {
        gpu::LongEngineOptions o;
        edit(o);
        EXPECT_THROW(gpu::LongEngine(s, AlignMode::global, false, o), std::invalid_argument) << what;
    };
    rejects([](gpu::LongEngineOptions& o) { o.leaf_batch = -1; }, "leaf_batch -1");
    rejects([](gpu::LongEngineOptions& o) { o.workers = -1; }, "workers -1");
    rejects([](gpu::LongEngineOptions& o) { o.max_blocks = -1; }, "max_blocks -1");
    rejects([](gpu::LongEngineOptions& o) { o.rows_per_lane = 8; }, "rows_per_lane 8");
    rejects([](gpu::LongEngineOptions& o) { o.plan.fan_out = 1; }, "fan_out 1");
    rejects([](gpu::LongEngineOptions& o) { o.plan.leaf_band = -0.5; }, "leaf_band -0.5");
}

// Semi-global end cells and walk ends (semi_global_edge_pairs: ends on
// column 0, won and tied; on column n; 1-5 residue queries in a 500-residue
// ref; a 300-residue query in 1-12 residue refs) plus a 2,000-residue query in
// an 8,000-residue ref, over a grid of gap penalties, DNA and BLOSUM62, with
// CIGAR and score-only, small leaves and rings (stripes, checkpoints and flow
// control everywhere), through align and align_many: byte-identical to the
// full-matrix reference.
TEST(LongEngine, SemiGlobalRowEndsByteIdenticalToReference) {
    SKIP_WITHOUT_GPU();
    const ScoringScheme schemes[] = {make_dna_scheme(2, 3, 5, 2, -3), make_dna_scheme(2, 3, 0, 3, -3),
                                     make_dna_scheme(2, 3, 4, 3, -3), make_dna_scheme(2, 3, 10, 1, -3),
                                     blosum62_scheme(11, 1), blosum62_scheme(10, 2), blosum62_scheme(0, 4)};
    for (std::size_t k = 0; k < std::size(schemes); ++k) {
        const ScoringScheme& s = schemes[k];
        Generator gen(s.alphabet, 40 + k);
        std::vector<Seq> q, r;
        for (auto& p : semi_global_edge_pairs(s, [&](std::size_t len) { return gen.random(len); })) {
            q.push_back(std::move(p.query));
            r.push_back(std::move(p.ref));
        }
        const Seq window = gen.random(8000);
        q.push_back(gen.mutate(Seq(window.begin() + 3000, window.begin() + 5000), 0.1));
        r.push_back(window);
        for (bool score_only : {false, true}) {
            const auto want = reference(q, r, s, AlignMode::semi_global, score_only);
            gpu::LongEngineOptions opt;
            opt.plan.fan_out = 3;
            opt.plan.leaf_cells = 4096;
            opt.plan.min_tile = 16;
            opt.plan.direct_leaf_bytes = k % 2 ? 0 : opt.plan.direct_leaf_bytes;
            opt.max_blocks = 1 + static_cast<int>(k % 3);
            opt.ring_bytes = 256u << 10;
            opt.workers = 3;
            gpu::LongEngine engine(s, AlignMode::semi_global, score_only, opt);
            expect_align_and_align_many(engine, q, r, want, s,
                                        "scheme " + std::to_string(k) + (score_only ? " score-only" : " cigar") +
                                            " pair ");
        }
    }
}

// A memory cap that cannot hold the smallest checkpoints is a clear
// std::length_error, not a crash; a tight one still gives the exact result.
TEST(LongEngine, MemoryCapGivesCoarserCheckpointsOrAClearError) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 9);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    const Seq q = gen.random(30000), r = gen.mutate(q, 0.1);
    gpu::LongEngineOptions tiny;
    tiny.gpu_memory_limit = 1u << 20;
    gpu::LongEngine small(s, AlignMode::global, false, tiny);
    EXPECT_THROW(small.align(q, r), std::length_error);
    gpu::LongEngineOptions tight;
    tight.gpu_memory_limit = std::size_t{320} << 20;  // the rings' and a leaf batch's reserve, plus a small arena
    gpu::LongEngine engine(s, AlignMode::global, false, tight);
    const AlignmentResult got = engine.align(q, r);
    EXPECT_LE(engine.last_stats().peak_device_bytes, tight.gpu_memory_limit);
    expect_same(got, align_pair_long(q, r, s, AlignMode::global, false), q, r, s, "capped");
}

// A pair alone whose top level is cut into tiles above the leaves (as a 1
// Mbp pair's: here a small direct_leaf_bytes makes a 40 kb pair so) takes
// the paths of the tiled traceback: the arena's rest allocated while the
// forward pass runs, tile batches that keep their tiles when the path leaves
// them, leaf batches along the peaks, the path's own direction and its gaps,
// and walks replayed while the next batch computes. The pair has a 3 kb
// insertion, a divergent stretch (35% mutated) and a close one; every mode
// gives align_pair_long's bytes, with the default memory and under a tight
// cap (coarser checkpoints, batches cut short or started afresh).
TEST(LongEngine, TiledPairsMatchTheCpuPath) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 31);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    const Seq q = gen.random(40000);
    Seq r(q.begin(), q.begin() + 15000);
    const Seq insert = gen.random(3000);
    r.insert(r.end(), insert.begin(), insert.end());
    const Seq divergent = gen.mutate(Seq(q.begin() + 15000, q.begin() + 30000), 0.35);
    r.insert(r.end(), divergent.begin(), divergent.end());
    const Seq close = gen.mutate(Seq(q.begin() + 30000, q.end()), 0.05);
    r.insert(r.end(), close.begin(), close.end());
    for (AlignMode mode : {AlignMode::global, AlignMode::local, AlignMode::semi_global}) {
        const AlignmentResult want = align_pair_long(q, r, s, mode, false);
        for (const std::size_t cap : {std::size_t{0}, std::size_t{320} << 20}) {
            gpu::LongEngineOptions opt;
            opt.plan.direct_leaf_bytes = 1u << 20;  // tiles above the leaves
            opt.gpu_memory_limit = cap;
            gpu::LongEngine engine(s, mode, false, opt);
            expect_same(engine.align(q, r), want, q, r, s,
                        std::string(to_string(mode)) + (cap ? ", capped" : ", default memory"));
            EXPECT_GT(engine.last_stats().passes, 3u) << to_string(mode);
            if (cap) EXPECT_LE(engine.last_stats().peak_device_bytes, cap) << to_string(mode);
        }
    }
}

// LongEngine::prepare readies align_many's workers before their first pair:
// the results are unchanged, and no pair grows a pinned host buffer in the
// run (each worker's were sized for the largest pair). Pairs of 17-29 kb:
// their borders (8 bytes a base of query + ref) cross the 256 KiB staging
// buffer in chunks. One pair: nothing to ready.
TEST(LongEngine, PrepareReadiesAlignManyWorkers) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 41);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    std::vector<Seq> q, r;
    for (int k = 0; k < 6; ++k) {
        q.push_back(gen.random(17000 + 2000 * static_cast<std::size_t>(k)));
        r.push_back(gen.mutate(q.back(), 0.08 + 0.02 * k));
    }
    const std::vector<gpu::LongPair> pairs = long_pairs(q, r);
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        gpu::LongEngineOptions opt;
        opt.workers = 3;
        gpu::LongEngine engine(s, mode, false, opt);
        EXPECT_NO_THROW(engine.prepare(std::span<const gpu::LongPair>(pairs).first(1)));
        (void)expect_prepared_align_many(engine, q, r, s, mode, 3, "prepared align_many");
    }
}

// align_many on more workers (12) than the engine's shared staging buffers
// (long_tuning::staging_buffers, 8): every pair's sequences and borders (4-9
// kb, larger than a worker's small copy buffer) borrow one, the workers
// starting together wait for one to come back instead of pinning more
// (no pinned allocation in the run after prepare), and the results are the
// reference's, pair by pair.
TEST(LongEngine, AlignManyWorkersShareTheStagingBuffers) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 43);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    std::vector<Seq> q, r;
    for (int k = 0; k < 24; ++k) {
        q.push_back(gen.random(4000 + gen.rng()() % 5000));
        r.push_back(gen.mutate(q.back(), 0.04 + 0.01 * (k % 8)));
    }
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        gpu::LongEngineOptions opt;
        opt.workers = 12;
        gpu::LongEngine engine(s, mode, false, opt);
        const gpu::LongEngineStats st = expect_prepared_align_many(engine, q, r, s, mode, 12, "12 workers");
        EXPECT_GT(st.copies_ms, 0.0);
    }
}

// align_many: pairs of mixed sizes (empty sides, one residue, 5-12 kb) on 4
// workers with 2 blocks each and reused ring slots, plus a pair whose 70 kb
// ref is too wide for a worker's rings (it runs alone afterwards); results in
// input order, equal to the reference. Under a cap too small for any pair,
// each pair gets its own std::length_error (errors vector), or the first one
// is thrown.
TEST(LongEngine, AlignManyMatchesReferenceAndReportsErrorsPerPair) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 31);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    std::vector<Seq> q, r;
    for (int k = 0; k < 14; ++k) {
        q.push_back(gen.random(5000 + gen.rng()() % 7000));
        r.push_back(gen.mutate(q.back(), 0.05 + 0.02 * k));
    }
    q.push_back(Seq{});
    r.push_back(gen.random(300));
    q.push_back(gen.random(1));
    r.push_back(gen.random(900));
    q.push_back(gen.random(300));
    r.push_back(gen.mutate(gen.random(70000), 0.1));
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        const auto want = reference(q, r, s, mode, false);
        gpu::LongEngineOptions opt;
        opt.workers = 4;
        opt.max_blocks = 2;
        opt.ring_bytes = 4u << 20;  // 8 slots of 32 K columns: stripes reuse slots; 70 kb rows do not fit
        gpu::LongEngine engine(s, mode, false, opt);
        const std::vector<gpu::LongPair> pairs = long_pairs(q, r);
        std::vector<std::exception_ptr> errors;
        const std::vector<AlignmentResult> got = engine.align_many(pairs, &errors);
        ASSERT_EQ(got.size(), q.size());
        ASSERT_EQ(errors.size(), q.size());
        EXPECT_EQ(engine.last_stats().workers, 4);
        EXPECT_GT(engine.last_stats().passes, q.size());
        for (std::size_t i = 0; i < q.size(); ++i) {
            EXPECT_FALSE(errors[i]) << "pair " << i;
            expect_same(got[i], want[i], q[i], r[i], s, std::string("align_many ") + to_string(mode) + " pair " +
                                                            std::to_string(i));
        }
    }
    gpu::LongEngineOptions tiny;
    tiny.gpu_memory_limit = 1u << 20;
    gpu::LongEngine small(s, AlignMode::global, false, tiny);
    const std::vector<gpu::LongPair> two{{q[0], r[0]}, {q[1], r[1]}};
    std::vector<std::exception_ptr> errors;
    (void)small.align_many(two, &errors);
    ASSERT_EQ(errors.size(), 2u);
    for (const std::exception_ptr& e : errors) EXPECT_THROW(std::rethrow_exception(e), std::length_error);
    EXPECT_THROW((void)small.align_many(two), std::length_error);
}

// A set of long pairs of mixed sizes: the pairs of at least solo_min_cells
// cells (here 2e8: the three of 16-24 kb, one of them all N) run alone over
// the whole GPU, largest first, after the others (2-9 kb, an empty query, a
// repeat) have shared the workers. Every result equals align_pair_long's, in
// input order, in every mode with CIGAR and score-only; the statistics name
// the pairs run alone. With solo_min_cells above every pair, all share the
// workers and give the same bytes.
TEST(LongEngine, SetsRunTheirLargestPairsAlone) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 47);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    std::vector<Seq> q, r;
    for (int k = 0; k < 9; ++k) {
        q.push_back(gen.random(2000 + gen.rng()() % 7000));
        r.push_back(gen.mutate(q.back(), 0.03 + 0.03 * k));
    }
    q.push_back(gen.random(24000));
    r.push_back(gen.mutate(q.back(), 0.08));
    q.push_back(Seq(16000, 3));  // all N (code 3): every cell a mismatch, ties everywhere
    r.push_back(Seq(17000, 3));
    q.push_back(Seq{});
    r.push_back(gen.random(500));
    Seq unit = gen.random(37), rep;
    while (rep.size() < 6000) rep.insert(rep.end(), unit.begin(), unit.end());
    q.push_back(rep);
    r.push_back(gen.mutate(rep, 0.02));
    q.push_back(gen.random(20000));
    r.push_back(gen.mutate(q.back(), 0.25));
    for (AlignMode mode : {AlignMode::global, AlignMode::local, AlignMode::semi_global}) {
        for (bool score_only : {false, true}) {
            std::vector<AlignmentResult> want;
            for (std::size_t i = 0; i < q.size(); ++i) want.push_back(align_pair_long(q[i], r[i], s, mode, score_only));
            for (const std::uint64_t solo_min : {std::uint64_t{200000000}, UINT64_MAX}) {
                gpu::LongEngineOptions opt;
                opt.workers = 4;
                opt.solo_min_cells = solo_min;
                gpu::LongEngine engine(s, mode, score_only, opt);
                const std::vector<AlignmentResult> got = engine.align_many(long_pairs(q, r));
                ASSERT_EQ(got.size(), q.size());
                const std::string what = std::string(to_string(mode)) + (score_only ? " score-only" : " cigar") +
                                         (solo_min == UINT64_MAX ? ", all shared" : ", largest alone");
                EXPECT_EQ(engine.last_stats().solo_pairs, solo_min == UINT64_MAX ? 0u : 3u) << what;
                EXPECT_EQ(engine.last_stats().workers, 4) << what;
                for (std::size_t i = 0; i < q.size(); ++i)
                    expect_same(got[i], want[i], q[i], r[i], s, what + " pair " + std::to_string(i));
            }
        }
    }
}

// align_many runs its solo pairs several at once (LongEngineOptions::
// solo_workers), each on a solo worker of its own. With rings of 1 MiB
// (4 whole-row slots of these refs) every forward pass is flow-controlled,
// so the concurrent cooperative launches claim their blocks from the
// engine's FlowBudget; with a cap of 2 blocks a launch, warps take several
// stripes each. Mixed sizes, ties (all N, a repeat), an empty pair
// among them; results equal the CPU reference and the same set one pair
// after another.
TEST(LongEngine, SoloPairsRunTogether) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 53);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    std::vector<Seq> q, r;
    for (const std::size_t len : {9000, 6000, 12000, 7500, 5000}) {
        q.push_back(gen.random(len));
        r.push_back(gen.mutate(q.back(), 0.04 * static_cast<double>(q.size())));
    }
    q.push_back(Seq(6000, 3));  // all N
    r.push_back(Seq(6500, 3));
    Seq unit = gen.random(29), rep;
    while (rep.size() < 7000) rep.insert(rep.end(), unit.begin(), unit.end());
    q.push_back(rep);
    r.push_back(gen.mutate(rep, 0.03));
    q.push_back(gen.random(800));  // shared
    r.push_back(gen.mutate(q.back(), 0.1));
    q.push_back(gen.random(700));
    r.push_back(gen.mutate(q.back(), 0.1));
    q.push_back(Seq{});
    r.push_back(gen.random(300));
    for (AlignMode mode : {AlignMode::global, AlignMode::local, AlignMode::semi_global}) {
        for (bool score_only : {false, true}) {
            std::vector<AlignmentResult> want;
            for (std::size_t i = 0; i < q.size(); ++i) want.push_back(align_pair_long(q[i], r[i], s, mode, score_only));
            for (const int blocks : {0, 2}) {
                for (const int together : {0, 1}) {
                    gpu::LongEngineOptions opt;
                    opt.workers = 2;
                    opt.solo_min_cells = 20000000;
                    opt.solo_workers = together;
                    opt.ring_bytes = std::size_t{1} << 20;
                    opt.max_blocks = blocks;
                    opt.plan.leaf_cells = 1u << 16;
                    gpu::LongEngine engine(s, mode, score_only, opt);
                    const std::vector<AlignmentResult> got = engine.align_many(long_pairs(q, r));
                    ASSERT_EQ(got.size(), q.size());
                    const std::string what = std::string(to_string(mode)) + (score_only ? " score-only" : " cigar") +
                                             ", " + std::to_string(blocks) + " blocks, " +
                                             (together == 1 ? "one after another" : "together");
                    EXPECT_EQ(engine.last_stats().solo_pairs, 7u) << what;
                    EXPECT_EQ(engine.last_stats().solo_workers, together == 1 ? 1 : 7) << what;
                    for (std::size_t i = 0; i < q.size(); ++i)
                        expect_same(got[i], want[i], q[i], r[i], s, what + " pair " + std::to_string(i));
                }
            }
        }
    }
}

// The solo pairs run together on an engine of the second GPU, called from
// a new thread (whose current device is the first): every worker thread
// works on its engine's device (their streams of greater priority included).
TEST(LongEngine, SoloPairsRunTogetherOnTheSecondGpu) {
    SKIP_WITHOUT_GPU();
    if (gpu::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
    Generator gen(Alphabet::dna, 59);
    const ScoringScheme s = scheme_for(Alphabet::dna, 0);
    std::vector<Seq> q, r;
    for (const std::size_t len : {9000, 6000, 7000, 800, 600}) {
        q.push_back(gen.random(len));
        r.push_back(gen.mutate(q.back(), 0.08));
    }
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        std::vector<AlignmentResult> want;
        for (std::size_t i = 0; i < q.size(); ++i) want.push_back(align_pair_long(q[i], r[i], s, mode, false));
        gpu::LongEngineOptions opt;
        opt.device = 1;
        opt.workers = 2;
        opt.solo_min_cells = 20000000;
        opt.ring_bytes = std::size_t{1} << 20;
        gpu::LongEngine engine(s, mode, false, opt);
        std::vector<AlignmentResult> got;
        std::thread([&] { got = engine.align_many(long_pairs(q, r)); }).join();  // a new thread: device 0 current
        ASSERT_EQ(got.size(), q.size());
        EXPECT_EQ(engine.last_stats().solo_workers, 3);
        for (std::size_t i = 0; i < q.size(); ++i)
            expect_same(got[i], want[i], q[i], r[i], s, std::string(to_string(mode)) + " pair " + std::to_string(i));
    }
}

}  // namespace
}  // namespace gpualign::test

namespace gpualign::test {
namespace {

/// DNA pairs for the sanitizer tests: random queries of `lengths` (seeded)
/// and their mutants at 10%, appended to q and r.
void mutant_pairs(std::uint64_t seed, std::initializer_list<std::size_t> lengths, std::vector<Seq>& q,
                  std::vector<Seq>& r) {
    Generator gen(Alphabet::dna, seed);
    for (const std::size_t len : lengths) {
        q.push_back(gen.random(len));
        r.push_back(gen.mutate(q.back(), 0.1));
    }
}

// align_many with two concurrent workers (ordinary launches on two streams,
// reused ring slots), small enough for compute-sanitizer memcheck. Not run
// under racecheck: there (kernels ~75x slower, 2026-11-23) a two-worker run
// tripped the kernel's 20 s wait watchdog, cause not established; memcheck
// and the normal runs pass. Racecheck looks for shared-memory hazards inside
// a block, the same kernel code that SmallPairsAllPaths runs under it.
TEST(LongEngineSanitizer, AlignManyWorkers) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 23);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    const Seq q = gen.random(3000), r = gen.mutate(q, 0.12, 2800);
    for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, false);
        const AlignmentResult want_rq = align_pair_full_matrix(r, q, s, mode, false);
        gpu::LongEngineOptions opt;
        opt.plan.leaf_cells = 1u << 16;
        opt.ring_bytes = 1u << 20;  // 16 slots for 24 stripes: slots reused
        opt.workers = 2;
        gpu::LongEngine engine(s, mode, false, opt);
        const std::vector<gpu::LongPair> pairs{{q, r}, {r, q}, {q, r}};
        const std::vector<AlignmentResult> many = engine.align_many(pairs);
        EXPECT_EQ(engine.last_stats().workers, 2);
        expect_same(many[0], want, q, r, s, std::string("align_many ") + to_string(mode));
        expect_same(many[1], want_rq, r, q, s, std::string("align_many ") + to_string(mode));
        expect_same(many[2], want, q, r, s, std::string("align_many ") + to_string(mode));
    }
}

// The scheduler of sets, small enough for compute-sanitizer memcheck and
// racecheck: with solo_min_cells at 2e6, the two pairs of about 1.5-2 kb
// run alone after four smaller ones have shared two workers; results equal
// the reference in every mode.
TEST(LongEngineSanitizer, SetsRunTheirLargestPairsAlone) {
    SKIP_WITHOUT_GPU();
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    std::vector<Seq> q, r;
    mutant_pairs(29, {2000, 300, 1500, 700, 500, 900}, q, r);
    for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        const auto want = reference(q, r, s, mode, false);
        gpu::LongEngineOptions opt;
        opt.plan.leaf_cells = 1u << 16;
        opt.workers = 2;
        opt.solo_min_cells = 2000000;
        gpu::LongEngine engine(s, mode, false, opt);
        const std::vector<AlignmentResult> got = engine.align_many(long_pairs(q, r));
        EXPECT_EQ(engine.last_stats().solo_pairs, 2u);
        ASSERT_EQ(got.size(), q.size());
        for (std::size_t i = 0; i < q.size(); ++i)
            expect_same(got[i], want[i], q[i], r[i], s, std::string("set ") + to_string(mode) + " pair " + std::to_string(i));
    }
}

// Solo pairs together under compute-sanitizer: three flow-controlled
// forward passes at once (1 MiB rings), their claims of 4 blocks each from
// the FlowBudget, small enough for memcheck.
TEST(LongEngineSanitizer, SoloPairsRunTogether) {
    SKIP_WITHOUT_GPU();
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    std::vector<Seq> q, r;
    mutant_pairs(31, {5000, 4500, 4200}, q, r);
    for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        const auto want = reference(q, r, s, mode, false);
        gpu::LongEngineOptions opt;
        opt.plan.leaf_cells = 1u << 16;
        opt.solo_min_cells = 1000000;
        opt.ring_bytes = std::size_t{1} << 20;
        opt.max_blocks = 4;
        gpu::LongEngine engine(s, mode, false, opt);
        const std::vector<AlignmentResult> got = engine.align_many(long_pairs(q, r));
        EXPECT_EQ(engine.last_stats().solo_workers, 3);
        ASSERT_EQ(got.size(), q.size());
        for (std::size_t i = 0; i < q.size(); ++i)
            expect_same(got[i], want[i], q[i], r[i], s,
                        std::string("solo together ") + to_string(mode) + " pair " + std::to_string(i));
    }
}

// The local forward at two columns a step keeps only each row's best value
// and finds the best cell's column in a window of 32 columns, then in a
// sub-region recomputed from the checkpoints around it (region_kernel.cuh,
// long_worker.cpp locate_best). Pairs whose best H is reached many times -
// a motif repeated along the ref (ties within a row: the smallest column
// wins) and twice in the query (ties across rows and stripes: the smallest
// row wins), spacers of every length so the windows straddle checkpoint
// columns and chunk edges - against the reference, with checkpoint grids of
// several strides, solo and beside other pairs; at 16 rows a lane (each
// row's best) and 32 (a lane key: a later chunk that ties it makes the host
// search on to the region's end).
TEST(LongEngine, LocalBestWindowsFindTheCanonicalCell) {
    SKIP_WITHOUT_GPU();
    for (Alphabet a : {Alphabet::dna, Alphabet::protein}) {
        Generator gen(a, a == Alphabet::dna ? 151 : 152);
        std::vector<Seq> q, r;
        for (const std::size_t motif_len : {std::size_t{1}, std::size_t{7}, std::size_t{40}, std::size_t{90}}) {
            const Seq motif = gen.random(motif_len);
            Seq ref, query = gen.random(motif_len * 3 % 700 + 1);
            for (std::size_t k = 0; k < 24; ++k) {
                const Seq spacer = gen.random(1 + (k * 37 + motif_len) % 301);
                ref.insert(ref.end(), spacer.begin(), spacer.end());
                ref.insert(ref.end(), motif.begin(), motif.end());
            }
            query.insert(query.end(), motif.begin(), motif.end());
            const Seq mid = gen.random(520 + motif_len);  // the second copy in a later stripe (512 rows)
            query.insert(query.end(), mid.begin(), mid.end());
            query.insert(query.end(), motif.begin(), motif.end());
            const Seq tail = gen.random(300);
            query.insert(query.end(), tail.begin(), tail.end());
            q.push_back(query);
            r.push_back(ref);
            q.push_back(ref);  // the same ties with query and ref swapped
            r.push_back(query);
        }
        q.push_back(Seq(3000, encode_char(a, a == Alphabet::dna ? 'N' : 'X')));  // all N / all X: no cell above 0
        r.push_back(gen.random(2500));
        const ScoringScheme s = scheme_for(a, 0);
        for (bool score_only : {false, true}) {
            const auto want = reference(q, r, s, AlignMode::local, score_only);
            for (const auto [fan_out, rows_per_lane] : {std::pair{3, 16}, std::pair{7, 16}, std::pair{5, 32}}) {
                gpu::LongEngineOptions opt;
                opt.rows_per_lane = rows_per_lane;
                opt.plan.leaf_cells = 70000;
                opt.plan.fan_out = fan_out;
                opt.plan.direct_leaf_bytes = 0;  // a checkpoint grid on every level
                opt.workers = 3;
                gpu::LongEngine engine(s, AlignMode::local, score_only, opt);
                const std::string what = std::string(to_string(a)) + (score_only ? " score-only" : " cigar") +
                                         " fan_out " + std::to_string(fan_out) + " R " + std::to_string(rows_per_lane) +
                                         " pair ";
                expect_align_and_align_many(engine, q, r, want, s, what);
            }
        }
    }
}

// Small enough for compute-sanitizer (memcheck, racecheck): every kernel path
// of the long engine (fan-out and direct-leaf levels, speculative leaf
// batches, warps reused across stripes with ring flow control, the R = 16
// variants with two columns a step, every mode, CIGAR and score-only) on
// 3,000 x 2,800 pairs, against the reference.
TEST(LongEngineSanitizer, SmallPairsAllPaths) {
    SKIP_WITHOUT_GPU();
    Generator gen(Alphabet::dna, 21);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    const Seq q = gen.random(3000), r = gen.mutate(q, 0.12, 2800);
    for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (bool score_only : {false, true}) {
            const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, score_only);
            for (int variant = 0; variant < 4; ++variant) {
                gpu::LongEngineOptions opt;
                opt.plan.leaf_cells = 1u << 16;
                opt.plan.fan_out = 3;
                opt.plan.direct_leaf_bytes = variant == 0 ? 0 : opt.plan.direct_leaf_bytes;
                opt.max_blocks = variant == 0 ? 1 : 0;
                opt.rows_per_lane = variant == 2 ? 16 : variant == 3 ? 32 : 0;  // (2: two columns a step; 3: 32 rows a lane)
                opt.ring_bytes = variant == 0 ? (256u << 10) : (1u << 20);  // flow control; few ring slots
                opt.workers = 1;  // align_many's solo path here; its workers: LongEngineSanitizer.AlignManyWorkers
                gpu::LongEngine engine(s, mode, score_only, opt);
                const std::string what = std::string(to_string(mode)) + (score_only ? " score-only" : " cigar") +
                                         " variant " + std::to_string(variant);
                expect_same(engine.align(q, r), want, q, r, s, what);
                const std::vector<gpu::LongPair> pairs{{q, r}, {r, q}, {q, r}};
                const std::vector<AlignmentResult> many = engine.align_many(pairs);
                expect_same(many[0], want, q, r, s, "align_many " + what);
                expect_same(many[2], want, q, r, s, "align_many " + what);
            }
        }
}

}  // namespace
}  // namespace gpualign::test
