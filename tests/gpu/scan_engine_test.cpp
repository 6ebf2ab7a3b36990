// gpu::ScanEngine (issue 12): every score equals the CPU reference
// align_pair's, over random DNA and protein DBs of mixed lengths (query
// lengths at the kernel's strip boundaries), local, global and semi-global,
// affine and linear gaps, launches cut small, the warp kernel for long sequences
// alone and beside the thread kernel; and on real protein families. Skips
// where no CUDA device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/gpu/scan_engine.hpp"
#include "gpualign/io/matrix.hpp"
#include "test_matrices.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

std::vector<std::span<const std::uint8_t>> spans(const std::vector<Codes>& db) {
    return {db.begin(), db.end()};
}

void expect_scores(gpu::ScanEngine& e, const Codes& q, const std::vector<Codes>& db, const ScoringScheme& s,
                   AlignMode mode, const std::string& what) {
    const std::vector<std::int32_t> got = e.scores(q);
    ASSERT_EQ(got.size(), db.size());
    for (std::size_t t = 0; t < db.size(); ++t)
        ASSERT_EQ(got[t], align_pair(q, db[t], s, mode, true).score)
            << what << ": DB record " << t << " (" << q.size() << " x " << db[t].size() << ")";
}

TEST(ScanEngine, ScoresEqualTheCpuReference) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(2026112312);
    int compared = 0;
    for (const bool protein : {false, true})
        for (const auto& [go, ge] : {std::pair{5, 2}, std::pair{0, 3}, std::pair{11, 1}}) {
            const ScoringScheme s = protein ? blosum62_scheme(go, ge) : dna_scheme(go, ge);
            const int letters = protein ? 24 : 5;
            std::vector<Codes> db(300);
            for (Codes& d : db) {
                d.resize(1 + rng() % 200);
                for (auto& c : d) c = static_cast<std::uint8_t>(rng() % letters);
            }
            // Related records too, so that local scores are large and paths long.
            for (std::size_t t = 0; t < 40; ++t) {
                db[t] = db[300 - 1 - t];
                db[t].resize(std::max<std::size_t>(1, db[t].size() / 2));
            }
            for (const auto& [mode, s16] : {std::pair{AlignMode::local, true}, std::pair{AlignMode::local, false},
                                            std::pair{AlignMode::global, false}, std::pair{AlignMode::semi_global, true},
                                            std::pair{AlignMode::semi_global, false}}) {
                gpu::ScanOptions o;
                o.boundary_bytes = 1 << 14;  // raised to the 1 MiB floor: one launch per length class here
                o.use_s16 = s16;
                gpu::ScanEngine e(s, mode, spans(db), o);
                // The 16-bit kernel is local only, and needs s + O >= 0 (BLOSUM62 with gap cost 0/3 has -4 + 3).
                const std::int32_t min_s = *std::min_element(s.matrix.begin(), s.matrix.end());
                EXPECT_EQ(e.uses_16bit(), s16 && mode == AlignMode::local && min_s + go + ge >= 0);
                for (const std::size_t m : {std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{64},
                                            std::size_t{65}, std::size_t{200}}) {
                    Codes q(m);
                    for (auto& c : q) c = static_cast<std::uint8_t>(rng() % letters);
                    if (m >= 64) std::copy(db[0].begin(), db[0].begin() + std::min(db[0].size(), m / 2), q.begin());
                    expect_scores(e, q, db, s, mode,
                                  std::string(protein ? "protein" : "dna") + " " + std::to_string(go) + "/" +
                                      std::to_string(ge) + " " + to_string(mode) + (s16 ? " s16" : " s32"));
                    ++compared;
                }
            }
        }
    EXPECT_EQ(compared, 2 * 3 * 5 * 7);
}

// Issue 14: a DnaCodes::iupac scheme (EDNAFULL, 15 codes plus the pad
// letter) over random DNA with every code, thread and warp kernels.
TEST(ScanEngine, EdnafullIupacScoresEqualTheCpuReference) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(2026112314);
    const int letters = static_cast<int>(dna_code_letters.size());
    std::vector<Codes> db(200);
    for (std::size_t t = 0; t < db.size(); ++t) {
        db[t].resize(t % 50 == 0 ? 1500 + rng() % 1000 : 1 + rng() % 200);  // a few for the warp kernel
        for (auto& c : db[t]) c = static_cast<std::uint8_t>(rng() % letters);
    }
    for (const auto& [go, ge] : {std::pair{10, 1}, std::pair{16, 4}}) {
        const ScoringScheme s = ednafull_scheme(go, ge);
        for (const auto& [mode, s16] : {std::pair{AlignMode::local, true}, std::pair{AlignMode::local, false},
                                        std::pair{AlignMode::global, false}, std::pair{AlignMode::semi_global, true}}) {
            gpu::ScanOptions o;
            o.use_s16 = s16;
            ASSERT_TRUE(gpu::ScanEngine::supports(s));
            gpu::ScanEngine e(s, mode, spans(db), o);
            for (const std::size_t m : {std::size_t{1}, std::size_t{33}, std::size_t{200}}) {
                Codes q(m);
                for (auto& c : q) c = static_cast<std::uint8_t>(rng() % letters);
                if (m >= 64) std::copy(db[1].begin(), db[1].begin() + std::min(db[1].size(), m / 2), q.begin());
                expect_scores(e, q, db, s, mode,
                              "EDNAFULL " + std::to_string(go) + "/" + std::to_string(ge) + " " + to_string(mode) +
                                  (s16 ? " s16" : " s32"));
            }
        }
    }
}

// Many records of widely spread lengths against a small boundary budget:
// the DB is scanned in several launches, each of similar lengths.
TEST(ScanEngine, ManyLaunchesGiveTheSameScores) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(77);
    std::vector<Codes> db(20000);
    for (Codes& d : db) {
        d.resize(1 + (rng() % 8 == 0 ? rng() % 3000 : rng() % 100));
        for (auto& c : d) c = static_cast<std::uint8_t>(rng() % 4);
    }
    const ScoringScheme s = dna_scheme(5, 2);
    gpu::ScanOptions o;
    o.boundary_bytes = std::size_t{16} << 20;  // 20,000 x 3,000 x 8 bytes would be 480 MB: several launches
    Codes q(150);
    for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 4);
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        gpu::ScanEngine e(s, mode, spans(db), o);
        expect_scores(e, q, db, s, mode, to_string(mode));
        EXPECT_EQ(e.last_cells(), [&] {
            std::uint64_t n = 0;
            for (const Codes& d : db) n += d.size();
            return n * q.size();
        }());
    }
}

// Several queries in one call: the same scores as one call per query.
TEST(ScanEngine, ManyQueriesAtOnceEqualOneByOne) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(91);
    std::vector<Codes> db(3000), qs(37);
    for (Codes& d : db) {
        d.resize(1 + (rng() % 20 == 0 ? rng() % 2000 : rng() % 300));
        for (auto& c : d) c = static_cast<std::uint8_t>(rng() % 24);
    }
    for (Codes& q : qs) {
        q.resize(1 + rng() % 130);
        for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 24);
    }
    const ScoringScheme s = blosum62_scheme(11, 1);
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        gpu::ScanOptions o;
        o.boundary_bytes = std::size_t{16} << 20;  // few queries per launch: several query groups
        gpu::ScanEngine e(s, mode, spans(db), o);
        const std::vector<std::int32_t> all = e.scores(spans(qs));
        ASSERT_EQ(all.size(), qs.size() * db.size());
        for (std::size_t y = 0; y < qs.size(); ++y) {
            const std::vector<std::int32_t> one = e.scores(qs[y]);
            ASSERT_TRUE(std::equal(one.begin(), one.end(), all.begin() + static_cast<std::ptrdiff_t>(y * db.size())))
                << "query " << y;
            for (std::size_t t = 0; t < db.size(); t += 97)
                ASSERT_EQ(one[t], align_pair(qs[y], db[t], s, mode, true).score) << "query " << y << ", record " << t;
        }
    }
}

TEST(ScanEngine, RealProteinFamilies) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    const char* env = std::getenv("GPUALIGN_SHARED_DATA");  // the device machine's copy of the shared data
    const auto dir = std::filesystem::path(env ? env : GPUALIGN_SHARED_DATA) / "protein" / "families";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared data not found";
    const std::vector<Codes> db = read_fasta_codes<Alphabet::protein>(dir / "pfam_Pkinase_seed.fa");
    const std::vector<Codes> qs = read_fasta_codes<Alphabet::protein>(dir / "kringle_ref6.fa");
    const ScoringScheme s = blosum62_scheme(11, 1);
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (const int warp_min : {1, 1024, INT32_MAX}) {  // all on the warp kernel, the default split, none
            gpu::ScanOptions o;
            o.warp_min_length = warp_min;
            gpu::ScanEngine e(s, mode, spans(db), o);
            for (std::size_t k = 0; k < qs.size(); k += 5)
                expect_scores(e, qs[k], db, s, mode, "kringle " + std::to_string(k) + ", warp_min " + std::to_string(warp_min));
        }
}

// The warp kernel (a warp per long DB sequence): every score equals
// align_pair's with every sequence on it (warp_min_length 1) and with the
// DB split between the two kernels, over DNA and protein, local, global and
// semi-global,
// affine and linear gaps; DB lengths at the feed's 32-column chunks and
// query lengths at the lanes' 8 rows and the 256-row stripes.
TEST(ScanEngine, WarpKernelScoresEqualTheCpuReference) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(2026112401);
    int compared = 0;
    for (const bool protein : {false, true})
        for (const auto& [go, ge] : {std::pair{5, 2}, std::pair{0, 3}, std::pair{11, 1}}) {
            const ScoringScheme s = protein ? blosum62_scheme(go, ge) : dna_scheme(go, ge);
            const int letters = protein ? 24 : 5;
            std::vector<Codes> db;
            for (const std::size_t n : {1, 2, 31, 32, 33, 63, 64, 65, 95, 96, 97, 255, 256, 257, 300, 301, 700})
                db.emplace_back(n);
            for (int t = 0; t < 60; ++t) db.emplace_back(1 + rng() % 900);
            for (Codes& d : db)
                for (auto& c : d) c = static_cast<std::uint8_t>(rng() % letters);
            for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
                for (const int warp_min : {1, 300}) {
                    gpu::ScanOptions o;
                    o.warp_min_length = warp_min;
                    o.boundary_bytes = 1 << 20;
                    gpu::ScanEngine e(s, mode, spans(db), o);
                    EXPECT_EQ(e.warp_records(), static_cast<std::size_t>(std::count_if(
                                                    db.begin(), db.end(), [&](const Codes& d) { return static_cast<int>(d.size()) >= warp_min; })));
                    for (const std::size_t m : {1, 7, 8, 9, 255, 256, 257, 513}) {
                        Codes q(m);
                        for (auto& c : q) c = static_cast<std::uint8_t>(rng() % letters);
                        // a stretch of a long record, so that local paths are long and cross stripes
                        const Codes& src = db[16];
                        if (m >= 64) std::copy(src.begin(), src.begin() + std::min(src.size(), m / 2), q.begin() + m / 4);
                        expect_scores(e, q, db, s, mode,
                                      std::string(protein ? "protein" : "dna") + " " + std::to_string(go) + "/" +
                                          std::to_string(ge) + " " + to_string(mode) + " warp_min " + std::to_string(warp_min));
                        ++compared;
                    }
                }
        }
    EXPECT_EQ(compared, 2 * 3 * 3 * 2 * 8);
}

// Queries of several lengths in one call with the DB split between the two
// kernels: the same scores as one query at a time (queries run longest
// first inside a call and come back in the caller's order).
TEST(ScanEngine, WarpAndThreadKernelsTogetherKeepQueryOrder) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(12);
    std::vector<Codes> db(500), qs(23);
    for (Codes& d : db) {
        d.resize(1 + (rng() % 10 == 0 ? 600 + rng() % 1500 : rng() % 400));
        for (auto& c : d) c = static_cast<std::uint8_t>(rng() % 24);
    }
    for (Codes& q : qs) {
        q.resize(1 + rng() % 700);
        for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 24);
    }
    const ScoringScheme s = blosum62_scheme(11, 1);
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        gpu::ScanOptions o;
        o.warp_min_length = 600;
        o.boundary_bytes = std::size_t{2} << 20;  // several query groups on both kernels
        gpu::ScanEngine e(s, mode, spans(db), o);
        ASSERT_GT(e.warp_records(), 0u);
        ASSERT_LT(e.warp_records(), db.size());
        const std::vector<std::int32_t> all = e.scores(spans(qs));
        ASSERT_EQ(all.size(), qs.size() * db.size());
        for (std::size_t y = 0; y < qs.size(); ++y)
            for (std::size_t t = 0; t < db.size(); t += 7)
                ASSERT_EQ(all[y * db.size() + t], align_pair(qs[y], db[t], s, mode, true).score)
                    << to_string(mode) << ": query " << y << ", record " << t;
    }
}

// 16-bit lanes: pairs whose best score reaches 32767 - max s (long
// identical stretches, a large match score) are scored again in 32 bits and
// come out exact; the others stay on the 16-bit path. Odd and even record
// counts put such pairs in both halves of a thread.
TEST(ScanEngine, SixteenBitOverflowIsRescoredExactly) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(5);
    const ScoringScheme s = make_dna_scheme(60, 3, 5, 2, -3);
    constexpr std::uint8_t acgt[] = {0, 1, 2, 4};  // dna5 codes of A C G T (N, code 3, scores as a mismatch)
    Codes q(700);
    for (auto& c : q) c = acgt[rng() % 4];
    for (const std::size_t records : {std::size_t{401}, std::size_t{402}}) {
        std::vector<Codes> db(records);
        std::size_t big = 0;
        for (std::size_t t = 0; t < db.size(); ++t) {
            if (t % 7 == 3) {  // 600 identical bases: 36,000 > 32,767
                db[t].assign(q.begin() + 50, q.begin() + 650);
                ++big;
            } else {
                db[t].resize(50 + rng() % 600);
                for (auto& c : db[t]) c = acgt[rng() % 4];
            }
        }
        gpu::ScanEngine e(s, AlignMode::local, spans(db));
        ASSERT_TRUE(e.uses_16bit());
        expect_scores(e, q, db, s, AlignMode::local, std::to_string(records) + " records");
        EXPECT_EQ(align_pair(q, db[3], s, AlignMode::local, true).score, 36000);
        EXPECT_GE(e.last_rescored(), big);
        EXPECT_LT(e.last_rescored(), records);  // random records stay below the threshold
        // The warp kernel is 32-bit: the same scores, nothing scored again.
        gpu::ScanOptions o;
        o.warp_min_length = 1;
        gpu::ScanEngine w(s, AlignMode::local, spans(db), o);
        expect_scores(w, q, db, s, AlignMode::local, std::to_string(records) + " records, warp kernel");
        EXPECT_EQ(w.last_rescored(), 0u);
    }
}

/// The canonical top k of every query (score descending, then DB order;
/// with both strands each record's better strand, ties to plus) from
/// scores(), as the host would choose them.
std::vector<std::vector<gpu::ScanHit>> host_top(gpu::ScanEngine& e, const std::vector<Codes>& qs, std::size_t records,
                                                std::size_t k, bool both) {
    const std::vector<std::span<const std::uint8_t>> q(qs.begin(), qs.end());
    const std::vector<std::int32_t> all = e.scores(q);
    const std::size_t n = both ? qs.size() / 2 : qs.size();
    std::vector<std::vector<gpu::ScanHit>> out(n);
    for (std::size_t y = 0; y < n; ++y) {
        std::vector<gpu::ScanHit> h(records);
        for (std::size_t r = 0; r < records; ++r) {
            h[r] = {static_cast<std::uint32_t>(r), all[y * records + r], false};
            if (both && all[(n + y) * records + r] > h[r].score) h[r] = {h[r].record, all[(n + y) * records + r], true};
        }
        std::stable_sort(h.begin(), h.end(), [](const gpu::ScanHit& a, const gpu::ScanHit& b) { return a.score > b.score; });
        h.resize(std::min(k, records));
        out[y] = h;
    }
    return out;
}

// Hits chosen on the GPU (ScanEngine::top_hits: radix sort of query/score
// keys) equal the host's canonical choice from scores(): many ties (short
// DNA records, repeats of one record), 16-bit rows that wrapped and were
// re-scored, both strands, k = 1, k at and above the record count, local,
// global and semi-global.
TEST(ScanEngine, TopHitsOnTheGpuEqualTheCanonicalChoice) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(17);
    constexpr std::uint8_t acgt[] = {0, 1, 2, 4};
    const auto random_codes = [&](std::size_t len) {
        Codes c(len);
        for (auto& x : c) x = acgt[rng() % 4];
        return c;
    };
    std::vector<Codes> qs;
    for (const std::size_t len : {40, 700, 33, 64, 5}) qs.push_back(random_codes(len));
    std::vector<Codes> db;
    for (std::size_t t = 0; t < 900; ++t) {
        if (t % 50 == 7) db.push_back(db[3]);  // exact ties with record 3
        else if (t % 97 == 11) db.emplace_back(qs[1].begin() + 50, qs[1].begin() + 650);  // wraps 16 bits
        else db.push_back(random_codes(3 + rng() % 40));
    }
    std::vector<Codes> both_qs(qs);
    for (const Codes& q : qs) both_qs.emplace_back(q.rbegin(), q.rend());  // any second strand will do
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global}) {
        const ScoringScheme s = make_dna_scheme(60, 3, 5, 2, -3);
        gpu::ScanEngine e(s, mode, spans(db));
        for (const bool both : {false, true}) {
            const std::vector<Codes>& q = both ? both_qs : qs;
            const std::vector<std::span<const std::uint8_t>> qv(q.begin(), q.end());
            for (const std::size_t k : {std::size_t{1}, std::size_t{10}, db.size(), db.size() + 5}) {
                const auto got = e.top_hits(qv, k, both);
                const auto want = host_top(e, q, db.size(), k, both);
                ASSERT_EQ(got.size(), want.size());
                for (std::size_t y = 0; y < got.size(); ++y) {
                    ASSERT_EQ(got[y].size(), want[y].size()) << "query " << y << " k " << k;
                    for (std::size_t t = 0; t < got[y].size(); ++t) {
                        const std::string at = std::string(to_string(mode)) + (both ? " both" : " plus") + " k " + std::to_string(k) +
                                               " query " + std::to_string(y) + " rank " + std::to_string(t);
                        ASSERT_EQ(got[y][t].record, want[y][t].record) << at;
                        ASSERT_EQ(got[y][t].score, want[y][t].score) << at;
                        ASSERT_EQ(got[y][t].minus, want[y][t].minus) << at;
                    }
                }
            }
            if (mode == AlignMode::local && !both) EXPECT_GT(e.last_rescored(), 0u);  // 16-bit rows wrapped
        }
    }
    // Ties really occurred: record 3 and its copies share a score for every query.
    EXPECT_EQ(align_pair(qs[0], db[3], make_dna_scheme(60, 3, 5, 2, -3), AlignMode::local, true).score,
              align_pair(qs[0], db[7], make_dna_scheme(60, 3, 5, 2, -3), AlignMode::local, true).score);
}

// Semi-global (the query end to end, the DB record's end gaps free): the
// query fitted into mutated copies of it embedded in longer records (high
// scores, the best cell of the last row inside the record), records shorter
// than the query (negative scores, the query's overhang charged), and
// unrelated ones; every score equals the full-matrix reference's on the
// thread kernel, on the warp kernel (records of at least 1,024 letters by
// default, every record with warp_min_length 1) and on both at once, for
// schemes that take the 16-bit path in local mode and schemes that do not
// (semi-global is always 32-bit), with query lengths at the strip and
// stripe edges.
TEST(ScanEngine, SemiGlobalFitsTheQueryIntoLongerAndShorterRecords) {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    std::mt19937_64 rng(2026112501);
    int compared = 0, negative = 0, positive = 0, unlike_global = 0;
    for (const bool protein : {false, true}) {
        const int letters = protein ? 24 : 5;
        auto random = [&](std::size_t n) {
            Codes c(n);
            for (auto& x : c) x = static_cast<std::uint8_t>(rng() % letters);
            return c;
        };
        // About one position in 10 substituted, inserted after or deleted.
        auto mutate = [&](const Codes& c) {
            Codes out;
            for (const std::uint8_t x : c) {
                const auto roll = rng() % 30;
                if (roll == 0) continue;
                out.push_back(roll == 1 ? static_cast<std::uint8_t>(rng() % letters) : x);
                if (roll == 2) out.push_back(static_cast<std::uint8_t>(rng() % letters));
            }
            return out.empty() ? random(1) : out;
        };
        // 16-bit-eligible in local mode (s + O >= 0), then not (linear gaps: s + O < 0).
        const std::vector<ScoringScheme> schemes =
            protein ? std::vector{blosum62_scheme(11, 1), blosum62_scheme(0, 3)} : std::vector{dna_scheme(5, 2), dna_scheme(0, 2)};
        for (const std::size_t m : {std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{255}, std::size_t{257}}) {
            const Codes q = random(m);
            std::vector<Codes> db;
            for (int t = 0; t < 40; ++t) {  // q fitted into a longer record; every 4th long enough for the warp kernel
                const std::size_t flanks = t % 4 == 0 ? 1100 + rng() % 900 : rng() % 300, left = rng() % (flanks + 1);
                Codes r = random(left);
                const Codes fitted = mutate(q), right = random(flanks - left);
                r.insert(r.end(), fitted.begin(), fitted.end());
                r.insert(r.end(), right.begin(), right.end());
                db.push_back(r);
            }
            for (int t = 0; t < 20; ++t) db.push_back(random(1 + rng() % (m - 1)));  // shorter than q
            for (int t = 0; t < 20; ++t) db.push_back(random(1 + rng() % (3 * m)));  // unrelated
            for (const ScoringScheme& s : schemes) {
                std::vector<std::int32_t> want(db.size());
                for (std::size_t t = 0; t < db.size(); ++t) {
                    want[t] = align_pair_full_matrix(q, db[t], s, AlignMode::semi_global, false).score;
                    negative += want[t] < 0;
                    positive += want[t] > 0;
                    unlike_global += want[t] != align_pair(q, db[t], s, AlignMode::global, true).score;
                }
                for (const int warp_min : {1, 1024, INT32_MAX}) {
                    gpu::ScanOptions o;
                    o.warp_min_length = warp_min;
                    gpu::ScanEngine e(s, AlignMode::semi_global, spans(db), o);
                    EXPECT_FALSE(e.uses_16bit());
                    const std::vector<std::int32_t> got = e.scores(q);
                    ASSERT_EQ(got.size(), db.size());
                    for (std::size_t t = 0; t < db.size(); ++t)
                        ASSERT_EQ(got[t], want[t]) << (protein ? "protein " : "dna ") << s.gap_open << "/" << s.gap_extend
                                                   << " warp_min " << warp_min << ": DB record " << t << " (" << m << " x "
                                                   << db[t].size() << ")";
                    ++compared;
                }
            }
        }
    }
    EXPECT_EQ(compared, 2 * 5 * 2 * 3);
    EXPECT_GT(negative, 0);
    EXPECT_GT(positive, 0);
    EXPECT_GT(unlike_global, 0);
}

TEST(ScanEngine, RejectsWhatItCannotHold) {
    ScoringScheme wide = dna_scheme(5, 2);
    wide.matrix[0] = 40000;  // beyond the int16 profile
    EXPECT_FALSE(gpu::ScanEngine::supports(wide));
    if (gpu::device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
    EXPECT_TRUE(gpu::ScanEngine::supports(blosum62_scheme(11, 1)));
    const std::vector<Codes> db{Codes{0, 1, 2}, Codes{}};
    EXPECT_THROW(gpu::ScanEngine(dna_scheme(5, 2), AlignMode::local, spans(db)), std::invalid_argument);
}

}  // namespace
}  // namespace gpualign::test
