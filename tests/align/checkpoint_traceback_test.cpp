// The checkpoint traceback's speculative leaf and tile batches (the GPU's
// paths), run through the CPU backend and through a plain scalar backend
// written here from the RegionBackend contract: byte-identical to the
// full-matrix reference in every mode; semi-global's end cells on column 0
// and n.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpualign/align/checkpoint_traceback.hpp"

#include "gpualign/align/long_aligner.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "semi_global_pairs.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

/// Random one-thread LongAlignOptions that put tile, leaf and checkpoint
/// boundaries everywhere: tile sides 1..max_tile, leaves of leaf_base ..
/// leaf_base + leaf_span - 1 cells, leaf batches from `leaf_batches`.
LongAlignOptions random_options(std::mt19937_64& rng, std::uint64_t max_tile, std::uint64_t leaf_base,
                                std::uint64_t leaf_span, const std::vector<std::size_t>& leaf_batches) {
    LongAlignOptions o;
    o.threads = 1;
    o.tile = 1 + static_cast<std::int64_t>(rng() % max_tile);
    o.plan.fan_out = 2 + static_cast<int>(rng() % 4);
    o.plan.leaf_cells = leaf_base + rng() % leaf_span;
    o.plan.min_tile = 1;
    o.plan.direct_leaf_bytes = rng() % 2 ? 0 : (std::uint64_t{1} << 20);
    o.leaf_batch = leaf_batches[rng() % leaf_batches.size()];
    return o;
}

/// A random query of `m` codes (0..letters-1) and a ref of `n` related to
/// it: a copy of the query from offset rng() % max_shift on, where at each
/// ref position, one time in `period` each, the query jumps 1..max_skip
/// residues further (an insertion: the path runs down a column), the query
/// does not move on (a deletion), or the ref takes a random letter; the
/// other positions copy.
std::pair<Codes, Codes> related_pair(std::mt19937_64& rng, std::size_t m, std::size_t n, int letters, int period,
                                     int max_skip, int max_shift) {
    Codes q(m), r(n);
    for (auto& c : q) c = static_cast<std::uint8_t>(rng() % static_cast<std::uint64_t>(letters));
    for (std::size_t j = 0, i = rng() % static_cast<std::size_t>(max_shift); j < n; ++j) {
        const int x = static_cast<int>(rng() % static_cast<std::uint64_t>(period));
        if (x == 0) i += max_skip > 1 ? 1 + rng() % static_cast<std::uint64_t>(max_skip) : 1;
        r[j] = (i < q.size() && x > 2) ? q[i] : static_cast<std::uint8_t>(rng() % static_cast<std::uint64_t>(letters));
        if (x != 1) ++i;
    }
    return {q, r};
}

// Batches of 2..64 leaves computed ahead of the walk, over direct-leaf and
// fan-out levels, every mode x output x gap model: each result equals
// align_pair_full_matrix, so leaves computed out of the path's order and
// reused from a batch give the reference's CIGAR.
TEST(CheckpointTraceback, SpeculativeLeafBatchesMatchTheReference) {
    std::mt19937_64 rng(20261123);
    int compared = 0;
    for (int it = 0; it < 400; ++it) {
        const std::size_t m = 1 + rng() % 400, n = 1 + rng() % 400;
        const ScoringScheme s = make_dna_scheme(2, 3, rng() % 2 ? 5 : 0, 2, -3);
        Codes q(m), r(n);
        for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 5);
        for (std::size_t j = 0; j < n; ++j) r[j] = (j < m && rng() % 5) ? q[j] : static_cast<std::uint8_t>(rng() % 5);
        const LongAlignOptions o = random_options(rng, 32, 16, 600, {2, 3, 7, 64});
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool score_only : {false, true}) {
                const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, score_only);
                const AlignmentResult got = align_pair_long(q, r, s, mode, score_only, o);
                ASSERT_EQ(got, want) << "pair " << it << " (" << m << " x " << n << "), leaf_batch " << o.leaf_batch
                                     << ", leaf_cells " << o.plan.leaf_cells << ", mode " << to_string(mode);
                ++compared;
            }
    }
    EXPECT_EQ(compared, 2400);
}

// A RegionBackend and RegionSpeculation written from their contract alone (checkpoint_traceback.hpp)
// with the cell loop of docs/scoring.md, host memory under a byte budget, and
// counters of what the driver asked for. Recurrence (Gotoh 1982), O = go + ge:
//   Ecell(i,j) = max(Ecell(i,j-1) - ge, H(i,j-1) - O)   opening wins ties
//   Fcell(i,j) = max(Fcell(i-1,j) - ge, H(i-1,j) - O)   opening wins ties
//   H(i,j)     = max([0,] H(i-1,j-1) + s, Ecell, Fcell)  zero (local) > diag > E > F
// The best it reports (want_best): local, the first maximum in row-major
// order; semi-global, the first maximum of the region's last row.
// With `leaf_batch` > 1 it computes leaf batches, and with `walks` it also
// walks them itself (walk_leaves, as the GPU does), stopping early at random
// inside a leaf, which the contract allows.
class ScalarBackend final : public RegionBackend, public RegionSpeculation {
public:
    ScalarBackend(const Codes& q, const Codes& r, const ScoringScheme& s, AlignMode mode, std::size_t tile_batch,
                  std::size_t budget, std::size_t leaf_batch = 1, bool walks = false, std::uint64_t seed = 1)
        : q_(q), r_(r), s_(s), mode_(mode), tile_batch_(tile_batch), budget_(budget), leaf_batch_(leaf_batch),
          walks_(walks), rng_(seed) {}

    std::size_t tile_launches = 0, tiles_batched = 0, largest_batch = 0;
    std::size_t leaf_walks = 0, walk_steps = 0, early_stops = 0;
    std::size_t cross_tile_batches = 0;  // leaf batches with leaves in more than one tile of the last tile batch
    std::size_t leaf_launches = 0, peak_rows = 0;
    std::size_t tiles_recomputed = 0;  // tiles of compute_tiles batches that an earlier batch computed
    bool find_peaks = true;  // row_peaks answers (else the driver guesses straight lines)

    RegionSpeculation* speculation() override { return this; }

    bool row_peaks(std::span<const CellRow> rows, std::span<RowPeak> peaks) override {
        if (!find_peaks) return false;
        for (std::size_t k = 0; k < rows.size(); ++k) {
            peaks[k] = {0, rows[k].cells[0].h};
            for (std::int64_t t = 1; t < rows[k].count; ++t)
                if (rows[k].cells[t].h > peaks[k].h) peaks[k] = {t, rows[k].cells[t].h};
        }
        peak_rows += rows.size();
        return true;
    }

    std::size_t leaf_batch() const override { return leaf_batch_; }
    void compute_leaves(std::span<const Region> leaves) override {
        std::vector<std::size_t> homes;
        for (const Region& l : leaves)
            for (std::size_t t = 0; t < tiles_.size(); ++t)
                if (l.i0 >= tiles_[t].i0 && l.i0 < tiles_[t].i0 + tiles_[t].rows && l.j0 >= tiles_[t].j0 &&
                    l.j0 < tiles_[t].j0 + tiles_[t].cols && std::find(homes.begin(), homes.end(), t) == homes.end())
                    homes.push_back(t);
        if (homes.size() > 1) ++cross_tile_batches;
        ++leaf_launches;
        leaves_.assign(leaves.begin(), leaves.end());
        leaf_bytes_.clear();
        for (const Region& l : leaves) {
            std::vector<std::uint8_t> d(static_cast<std::size_t>(l.rows * l.cols));
            RegionOutputs out;
            out.dirs = d.data();
            compute(l, out, {});
            leaf_bytes_.push_back(std::move(d));
        }
    }
    const std::uint8_t* leaf_dirs(std::size_t k, std::int64_t, std::int64_t) override {
        EXPECT_FALSE(walks_) << "the driver downloaded a leaf from a backend that walks";
        return leaf_bytes_.at(k).data();
    }
    bool walks_leaves() const override { return walks_; }
    // The walk of docs/scoring.md over the batch's direction bytes: zero (local)
    // ends the path; diag moves up-left (local: ends on row or column 0); H
    // from E or F switches state; in E (F) a step left (up) stays in the state
    // while the byte's extension bit is set.
    std::span<const std::uint8_t> walk_leaves(WalkCursor& cur) override {
        ++leaf_walks;
        steps_.clear();
        const std::size_t stop_after = 1 + rng_() % 48;
        while (!cur.done) {
            std::size_t k = 0;
            while (k < leaves_.size() && !(cur.i > leaves_[k].i0 && cur.i <= leaves_[k].i0 + leaves_[k].rows &&
                                           cur.j > leaves_[k].j0 && cur.j <= leaves_[k].j0 + leaves_[k].cols))
                ++k;
            if (k == leaves_.size()) break;
            if (steps_.size() >= stop_after) {
                ++early_stops;
                break;
            }
            const Region& l = leaves_[k];
            const std::uint8_t bits = leaf_bytes_[k][static_cast<std::size_t>((cur.i - l.i0 - 1) * l.cols + (cur.j - l.j0 - 1))];
            if (cur.state == 0) {
                const int src = bits & 3;
                if (src == 0) {
                    cur.done = true;
                } else if (src == 1) {
                    steps_.push_back(static_cast<std::uint8_t>(WalkStep::diag));
                    --cur.i;
                    --cur.j;
                    if (mode_ == AlignMode::local && (cur.i == 0 || cur.j == 0)) cur.done = true;
                } else {
                    cur.state = static_cast<std::uint8_t>(src - 1);
                }
            } else if (cur.state == 1) {
                steps_.push_back(static_cast<std::uint8_t>(WalkStep::del));
                if (!(bits & 4)) cur.state = 0;
                --cur.j;
            } else {
                steps_.push_back(static_cast<std::uint8_t>(WalkStep::ins));
                if (!(bits & 8)) cur.state = 0;
                --cur.i;
            }
        }
        walk_steps += steps_.size();
        return steps_;
    }

    BoundaryCell* allocate(std::size_t count) override {
        if (used_ + count * sizeof(BoundaryCell) > budget_) throw std::bad_alloc();
        used_ += count * sizeof(BoundaryCell);
        stack_.push_back(std::make_unique<BoundaryCell[]>(count));
        sizes_.push_back(count * sizeof(BoundaryCell));
        return stack_.back().get();
    }
    void release(BoundaryCell* p) override {
        while (!stack_.empty()) {
            const bool last = stack_.back().get() == p;
            used_ -= sizes_.back();
            stack_.pop_back();
            sizes_.pop_back();
            if (last) return;
        }
        FAIL() << "release of a pointer the backend never handed out";
    }
    void upload(BoundaryCell* dst, std::span<const BoundaryCell> src) override { std::copy(src.begin(), src.end(), dst); }
    std::int64_t row_alignment() const override { return 1; }
    std::uint8_t* dirs_buffer(std::size_t bytes) override {
        dirs_.resize(std::max(dirs_.size(), bytes));
        return dirs_.data();
    }
    std::size_t tile_batch() const override { return tile_batch_; }
    void compute_tiles(std::span<const Region> tiles, std::span<const RegionOutputs> outs) override {
        ++tile_launches;
        tiles_.assign(tiles.begin(), tiles.end());
        tiles_batched += tiles.size();
        for (const Region& t : tiles)
            if (!tiles_seen_.insert({t.i0, t.j0, t.rows, t.cols}).second) ++tiles_recomputed;
        largest_batch = std::max(largest_batch, tiles.size());
        for (std::size_t k = 0; k < tiles.size(); ++k) {
            EXPECT_EQ(outs[k].dirs, nullptr);
            EXPECT_FALSE(outs[k].want_best);
            compute(tiles[k], outs[k], {});
        }
    }

    RegionResult compute(const Region& reg, const RegionOutputs& out,
                         const std::function<void(std::uint64_t)>&) override {
        constexpr std::int32_t ninf = std::numeric_limits<std::int32_t>::min() / 2;
        const std::int32_t O = s_.gap_open + s_.gap_extend, E = s_.gap_extend;
        const std::int64_t rows = reg.rows, cols = reg.cols;
        std::vector<BoundaryCell> up(reg.top, reg.top + cols + 1);  // H and Fcell of the row above
        RegionResult res;
        const bool local = mode_ == AlignMode::local;
        bool found = false;  // semi-global: a cell of the last row seen
        for (std::int64_t i = 1; i <= rows; ++i) {
            std::vector<BoundaryCell> row(static_cast<std::size_t>(cols + 1));
            row[0] = {reg.left[i].h, ninf};
            std::int32_t e = reg.left[i].g;
            for (std::int64_t j = 1; j <= cols; ++j) {
                const std::int32_t e_ext = e - E, e_open = row[j - 1].h - O;
                e = std::max(e_ext, e_open);
                const std::int32_t f_ext = up[j].g - E, f_open = up[j].h - O;
                const std::int32_t f = std::max(f_ext, f_open);
                const std::int32_t d = up[j - 1].h + s_.score(q_[reg.i0 + i - 1], r_[reg.j0 + j - 1]);
                std::int32_t h = d;
                std::uint8_t src = 1;
                if (e > h) h = e, src = 2;
                if (f > h) h = f, src = 3;
                if (local && h <= 0) h = 0, src = 0;
                row[j] = {h, f};
                if (out.dirs)
                    out.dirs[(i - 1) * cols + (j - 1)] =
                        static_cast<std::uint8_t>(src | (e_ext > e_open ? 4 : 0) | (f_ext > f_open ? 8 : 0));
                if (out.want_best && local && h > res.best) res = {h, reg.i0 + i, reg.j0 + j, 0};
                if (out.want_best && mode_ == AlignMode::semi_global && i == rows && (!found || h > res.best)) {
                    res = {h, reg.i0 + i, reg.j0 + j, 0};
                    found = true;
                }
                if (out.col_stride > 0 && j % out.col_stride == 0 && j < cols) {
                    BoundaryCell* c = out.col_out + (j / out.col_stride - 1) * (rows + 1);
                    c[0].h = reg.top[j].h;
                    c[i] = {h, e};
                }
            }
            if (out.row_stride > 0 && i % out.row_stride == 0 && i < rows)
                std::copy(row.begin(), row.end(), out.row_out + (i / out.row_stride - 1) * (cols + 1));
            up = std::move(row);
        }
        res.corner_h = up[static_cast<std::size_t>(cols)].h;
        return res;
    }

private:
    const Codes &q_, &r_;
    const ScoringScheme& s_;
    AlignMode mode_;
    std::size_t tile_batch_, budget_, used_ = 0, leaf_batch_;
    bool walks_;
    std::mt19937_64 rng_;
    std::vector<Region> leaves_;
    std::vector<Region> tiles_;  // of the last compute_tiles batch
    std::set<std::array<std::int64_t, 4>> tiles_seen_;  // every tile compute_tiles computed
    std::vector<std::vector<std::uint8_t>> leaf_bytes_;
    std::vector<std::uint8_t> steps_;
    std::vector<std::unique_ptr<BoundaryCell[]>> stack_;
    std::vector<std::size_t> sizes_;
    std::vector<std::uint8_t> dirs_;
};

// Tiles above the leaves computed in batches ahead of the walk (the GPU's
// path for pairs with several checkpoint levels): over fan-out levels, batch
// caps 2..64 and memory budgets that cut batches short, every mode x gap
// model, each result equals align_pair_full_matrix, and batches of more than
// one tile did run.
TEST(CheckpointTraceback, SpeculativeTileBatchesMatchTheReference) {
    std::mt19937_64 rng(20261124);
    int compared = 0;
    std::size_t launches = 0, batched = 0, largest = 0;
    for (int it = 0; it < 300; ++it) {
        const std::size_t m = 20 + rng() % 300, n = 20 + rng() % 300;
        const ScoringScheme s = make_dna_scheme(2, 3, rng() % 2 ? 5 : 0, 2, -3);
        // Related pairs so that paths run long and cross many tiles.
        const auto [q, r] = related_pair(rng, m, n, 4, 20, 1, 8);
        CheckpointPlan plan;
        plan.fan_out = 2 + static_cast<int>(rng() % 4);
        plan.leaf_cells = 16 + rng() % 200;
        plan.min_tile = 1;
        plan.direct_leaf_bytes = 0;
        const std::size_t cap = std::vector<std::size_t>{2, 3, 8, 64}[rng() % 4];
        // Unlimited, or room for the borders, a few levels and part of a batch.
        const std::size_t budget = rng() % 2 ? std::numeric_limits<std::size_t>::max()
                                             : (m + n + 2) * sizeof(BoundaryCell) * (4 + rng() % 12);
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool score_only : {false, true}) {
                ScalarBackend backend(q, r, s, mode, cap, budget);
                const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, score_only);
                AlignmentResult got;
                try {
                    got = checkpoint_align(backend, q, r, s, mode, score_only, plan, {});
                } catch (const std::bad_alloc&) {
                    continue;  // a budget below what the driver's smallest levels need
                }
                ASSERT_EQ(got, want) << "pair " << it << " (" << m << " x " << n << "), tile_batch " << cap
                                     << ", fan_out " << plan.fan_out << ", leaf_cells " << plan.leaf_cells
                                     << ", budget " << budget << ", mode " << to_string(mode);
                ++compared;
                launches += backend.tile_launches;
                batched += backend.tiles_batched;
                largest = std::max(largest, backend.largest_batch);
            }
    }
    EXPECT_GE(compared, 1500);
    EXPECT_GT(launches, 150u);
    EXPECT_GT(batched, 2 * launches);  // batches of several tiles, not one at a time
    EXPECT_GE(largest, 8u);
}

// Leaf batches walked by the backend (walk_leaves, the GPU's path: the
// driver replays the steps instead of reading direction bytes), with walks
// that stop early inside a leaf, over direct-leaf and fan-out levels with and
// without tile batches (then leaf batches go on into the next tiles along
// the guessed line) and batch bands of 0-4 leaves, every mode x output x gap
// model: each result equals align_pair_full_matrix, and the backend did
// walk, with early stops, and computed batches spanning several tiles.
TEST(CheckpointTraceback, LeafWalksOnTheBackendMatchTheReference) {
    std::mt19937_64 rng(20261125);
    int compared = 0;
    std::size_t walks = 0, steps = 0, early = 0, cross_tile = 0;
    for (int it = 0; it < 300; ++it) {
        const std::size_t m = 1 + rng() % 300, n = 1 + rng() % 300;
        const ScoringScheme s = make_dna_scheme(2, 3, rng() % 2 ? 5 : 0, 2, -3);
        const auto [q, r] = related_pair(rng, m, n, 5, 16, 6, 4);  // gaps of up to 6 in both directions
        CheckpointPlan plan;
        plan.fan_out = 2 + static_cast<int>(rng() % 4);
        plan.leaf_cells = 16 + rng() % 400;
        plan.min_tile = 1;
        plan.direct_leaf_bytes = rng() % 2 ? 0 : (std::uint64_t{1} << 20);
        plan.leaf_band = std::vector<double>{0, 0.5, 1.5, 4}[rng() % 4];
        const std::size_t leaf_cap = std::vector<std::size_t>{2, 3, 8, 64}[rng() % 4];
        const std::size_t tile_cap = rng() % 2 ? 1 : 8;
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool score_only : {false, true}) {
                ScalarBackend backend(q, r, s, mode, tile_cap, std::numeric_limits<std::size_t>::max(), leaf_cap, true,
                                      rng());
                const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, score_only);
                const AlignmentResult got = checkpoint_align(backend, q, r, s, mode, score_only, plan, {});
                ASSERT_EQ(got, want) << "pair " << it << " (" << m << " x " << n << "), leaf_batch " << leaf_cap
                                     << ", tile_batch " << tile_cap << ", leaf_cells " << plan.leaf_cells
                                     << ", leaf_band " << plan.leaf_band
                                     << ", mode " << to_string(mode) << (score_only ? ", score only" : "");
                ++compared;
                walks += backend.leaf_walks;
                steps += backend.walk_steps;
                early += backend.early_stops;
                cross_tile += backend.cross_tile_batches;
            }
    }
    EXPECT_EQ(compared, 1800);
    EXPECT_GT(walks, 1000u);
    EXPECT_GT(steps, 100000u);
    EXPECT_GT(early, 500u);
    EXPECT_GT(cross_tile, 100u);
}

// The guess behind the batches follows the checkpoint rows' peaks
// (RegionSpeculation::row_peaks): on a pair whose path leaves the straight lines
// of the guess without them (the ref drops every tenth letter of the query's
// first half, so the path runs at a slope of 0.9 there and of 1 after it),
// the guided driver computes fewer leaf batches than the one guessing
// straight lines, and both give the reference's bytes, global and local.
TEST(CheckpointTraceback, RowPeaksGuideBatchesAlongThePath) {
    std::mt19937_64 rng(20261127);
    const ScoringScheme s = make_dna_scheme(2, 3, 0, 2, -3);
    Codes q(3000), r;
    for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 4);
    for (std::size_t i = 0; i < q.size(); ++i)
        if (i >= 1500 || i % 4 != 3) r.push_back(rng() % 20 ? q[i] : static_cast<std::uint8_t>(rng() % 4));
    CheckpointPlan plan;
    plan.fan_out = 4;
    plan.leaf_cells = 4096;
    plan.min_tile = 1;
    plan.direct_leaf_bytes = std::uint64_t{8} << 20;  // cut straight into leaves: batches end where guesses fail
    plan.leaf_band = 0.25;
    for (AlignMode mode : {AlignMode::global, AlignMode::local}) {
        const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, false);
        std::size_t launches[2] = {};
        for (bool peaks : {false, true}) {
            ScalarBackend backend(q, r, s, mode, 1, std::numeric_limits<std::size_t>::max(), 256, true, 7);
            backend.find_peaks = peaks;
            ASSERT_EQ(checkpoint_align(backend, q, r, s, mode, false, plan, {}), want)
                << to_string(mode) << (peaks ? ", peaks" : ", straight lines");
            EXPECT_EQ(backend.peak_rows > 0, peaks);
            launches[peaks] = backend.leaf_launches;
        }
        EXPECT_LT(launches[1], launches[0]) << to_string(mode) << ": leaf batches with peaks " << launches[1]
                                            << ", with straight lines " << launches[0];
    }
}

/// A pair whose path has one long gap: `a`, `len` random letters, and `b`,
/// a's first `at` letters, then `insert` random letters, then a's rest, each
/// letter of b replaced by a random one with probability 1 / `noise_every`
/// (0: none). a against b runs `insert` D steps in a row; b against a, I
/// steps.
struct GapPair {
    Codes a, b;
};
GapPair gap_pair(std::mt19937_64& rng, std::size_t len, std::size_t at, std::size_t insert, unsigned noise_every) {
    GapPair p;
    p.a.resize(len);
    Codes extra(insert);
    for (auto& c : p.a) c = static_cast<std::uint8_t>(rng() % 4);
    for (auto& c : extra) c = static_cast<std::uint8_t>(rng() % 4);
    p.b.assign(p.a.begin(), p.a.begin() + static_cast<std::ptrdiff_t>(at));
    p.b.insert(p.b.end(), extra.begin(), extra.end());
    p.b.insert(p.b.end(), p.a.begin() + static_cast<std::ptrdiff_t>(at), p.a.end());
    if (noise_every > 0)
        for (auto& c : p.b)
            if (rng() % noise_every == 0) c = static_cast<std::uint8_t>(rng() % 4);
    return p;
}

// A walk that leaves its leaf batch inside a long gap gets the leaves along
// the gap in its next batches (a third of the gap's leaves so far each
// time), not one leaf a batch: on pairs whose path has a gap of 1,500 (the
// ref carries 1,500 letters the query lacks, D; then the roles swapped, I),
// with straight-line guesses that run beside the gap, and on pairs with many
// short gaps, every mode gives the reference's bytes, and the long gap's
// pairs take at most 12 leaf batches where a batch a leaf would take 23
// for the gap alone.
TEST(CheckpointTraceback, LongGapsTakeTheirLeavesInFewBatches) {
    std::mt19937_64 rng(20261128);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    const auto [a, b] = gap_pair(rng, 3000, 2000, 1500, 25);
    Codes noisy;  // many short gaps: a letter dropped or added every 40 or so
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::uint64_t x = rng() % 80;
        if (x == 0) continue;
        noisy.push_back(a[i]);
        if (x == 1) noisy.push_back(static_cast<std::uint8_t>(rng() % 4));
    }
    CheckpointPlan plan;
    plan.fan_out = 4;
    plan.leaf_cells = 4096;  // leaves of 64 x 64
    plan.min_tile = 1;
    plan.direct_leaf_bytes = std::uint64_t{8} << 20;
    plan.leaf_band = 0.25;
    struct Case {
        const Codes& q;
        const Codes& r;
        bool long_gap;
    };
    for (const Case& c : {Case{a, b, true}, Case{b, a, true}, Case{a, noisy, false}})
        for (AlignMode mode : {AlignMode::global, AlignMode::local, AlignMode::semi_global}) {
            const AlignmentResult want = align_pair_full_matrix(c.q, c.r, s, mode, false);
            ScalarBackend backend(c.q, c.r, s, mode, 1, std::numeric_limits<std::size_t>::max(), 256, true, 11);
            backend.find_peaks = false;
            ASSERT_EQ(checkpoint_align(backend, c.q, c.r, s, mode, false, plan, {}), want)
                << to_string(mode) << ", " << c.q.size() << " x " << c.r.size();
            if (c.long_gap) EXPECT_LE(backend.leaf_launches, 12u) << to_string(mode) << ", " << c.q.size() << " x " << c.r.size();
        }
}

// Half of each leaf batch follows the path's own recent direction: after a
// long gap (the ref carries 1,500 letters the query lacks between two
// stretches of 3,000), the rows' peaks lie off the path for a stretch (a
// prefix that skips the gap scores better there), and a batch along them
// serves a leaf or two. On such pairs (both ways round, global and
// semi-global) the driver with peaks takes at most 8 leaf batches (5 here;
// 11-30 with batches along the peaks alone), and each result is the
// reference's.
TEST(CheckpointTraceback, LeafBatchesFollowThePathsDirection) {
    std::mt19937_64 rng(20261130);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    for (int rep = 0; rep < 2; ++rep) {
        const auto [a, b] = gap_pair(rng, 6000, 3000, 1500, 12);
        CheckpointPlan plan;
        plan.fan_out = 4;
        plan.leaf_cells = 4096;
        plan.min_tile = 1;
        plan.direct_leaf_bytes = std::uint64_t{64} << 20;
        plan.leaf_band = 0.25;
        for (const auto& [q, r] : {std::pair<const Codes&, const Codes&>{a, b}, std::pair<const Codes&, const Codes&>{b, a}})
            for (AlignMode mode : {AlignMode::global, AlignMode::semi_global}) {
                const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, false);
                ScalarBackend backend(q, r, s, mode, 1, std::numeric_limits<std::size_t>::max(), 128, true, 3);
                ASSERT_EQ(checkpoint_align(backend, q, r, s, mode, false, plan, {}), want) << to_string(mode);
                EXPECT_LE(backend.leaf_launches, 8u) << to_string(mode) << ", " << q.size() << " x " << r.size();
            }
    }
}

// A tile batch that the path leaves keeps its tiles, and the next batch
// computes only the tiles of its guess not yet computed: on the pairs with a
// gap of 1,500 (straight-line guesses, which the gap leaves; batches of 6
// tiles of a 4 x 4 grid, so that the path needs several), no tile is
// computed twice, several batches ran, and each result is the reference's.
// With a budget of 350 KiB, too small to keep every batch, some batches
// start afresh (tiles are computed again) and the bytes are the same.
TEST(CheckpointTraceback, TileBatchesKeepTheirTiles) {
    std::mt19937_64 rng(20261129);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    const auto [a, b] = gap_pair(rng, 3000, 1000, 1500, 0);
    CheckpointPlan plan;
    plan.fan_out = 4;
    plan.leaf_cells = 1024;
    plan.min_tile = 1;
    plan.direct_leaf_bytes = 0;  // fan-out levels: tiles above the leaves
    for (const auto& [q, r] : {std::pair<const Codes&, const Codes&>{a, b}, std::pair<const Codes&, const Codes&>{b, a}})
        for (AlignMode mode : {AlignMode::global, AlignMode::semi_global}) {
            const AlignmentResult want = align_pair_full_matrix(q, r, s, mode, false);
            ScalarBackend roomy(q, r, s, mode, 6, std::numeric_limits<std::size_t>::max(), 64, true, 5);
            roomy.find_peaks = false;
            ASSERT_EQ(checkpoint_align(roomy, q, r, s, mode, false, plan, {}), want) << to_string(mode);
            EXPECT_EQ(roomy.tiles_recomputed, 0u) << to_string(mode) << ", " << q.size() << " x " << r.size();
            EXPECT_GE(roomy.tile_launches, 3u) << to_string(mode) << ", " << q.size() << " x " << r.size();
            ScalarBackend tight(q, r, s, mode, 6, std::size_t{350} << 10, 64, true, 5);
            tight.find_peaks = false;
            ASSERT_EQ(checkpoint_align(tight, q, r, s, mode, false, plan, {}), want) << to_string(mode) << ", tight";
            EXPECT_GT(tight.tiles_recomputed, 0u) << to_string(mode) << ", " << q.size() << " x " << r.size();
        }
}

// The same driver path through the CPU backend (LongAlignOptions::tile_batch),
// with leaf batches too.
TEST(CheckpointTraceback, CpuTileAndLeafBatchesMatchTheReference) {
    std::mt19937_64 rng(20261125);
    for (int it = 0; it < 100; ++it) {
        const std::size_t m = 1 + rng() % 300, n = 1 + rng() % 300;
        const ScoringScheme s = make_dna_scheme(2, 3, rng() % 2 ? 5 : 0, 2, -3);
        Codes q(m), r(n);
        for (auto& c : q) c = static_cast<std::uint8_t>(rng() % 5);
        for (std::size_t j = 0; j < n; ++j) r[j] = (j < m && rng() % 5) ? q[j] : static_cast<std::uint8_t>(rng() % 5);
        LongAlignOptions o;
        o.threads = 1 + static_cast<int>(rng() % 2);
        o.tile = 1 + static_cast<std::int64_t>(rng() % 32);
        o.plan.fan_out = 2 + static_cast<int>(rng() % 4);
        o.plan.leaf_cells = 16 + rng() % 300;
        o.plan.min_tile = 1;
        o.plan.direct_leaf_bytes = 0;
        o.leaf_batch = std::vector<std::size_t>{1, 2, 64}[rng() % 3];
        o.tile_batch = std::vector<std::size_t>{2, 5, 48}[rng() % 3];
        for (AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
            for (bool score_only : {false, true})
                ASSERT_EQ(align_pair_long(q, r, s, mode, score_only, o), align_pair_full_matrix(q, r, s, mode, score_only))
                    << "pair " << it << " (" << m << " x " << n << "), tile_batch " << o.tile_batch << ", leaf_batch "
                    << o.leaf_batch << ", mode " << to_string(mode);
    }
}

// Semi-global end cells and walk ends (semi_global_edge_pairs and random
// pairs) over a grid of gap penalties, DNA and BLOSUM62: through the CPU
// backend (tiles and checkpoints everywhere, leaf and tile batches) and the
// scalar backend (tile batches, memory budgets), CIGAR and score-only, each
// equals align_pair_full_matrix; the CIGARs re-score to the score and end in
// no D. The pairs do end on column 0 (H(m,0) strictly best, and tied with the
// best of columns 1..n, which the scalar backend's last-row best shows), on
// column n, and inside.
TEST(CheckpointTraceback, SemiGlobalRowEndsMatchTheReference) {
    std::mt19937_64 rng(20261126);
    const ScoringScheme schemes[] = {dna_scheme(5, 2), dna_scheme(0, 1), dna_scheme(0, 3), dna_scheme(4, 3),
                                     dna_scheme(10, 1), dna_scheme(2, 6), blosum62_scheme(11, 1),
                                     blosum62_scheme(10, 2), blosum62_scheme(0, 4)};
    int compared = 0, at_zero = 0, tied_at_zero = 0, at_n = 0, inside = 0;
    for (std::size_t k = 0; k < std::size(schemes); ++k) {
        const ScoringScheme& s = schemes[k];
        PairGenerator g(0x5E60u + k, s.alphabet);
        const int letters = s.alphabet == Alphabet::dna ? 4 : 20;
        std::vector<SemiGlobalPair> pairs =
            semi_global_edge_pairs(s, [&](std::size_t len) { return g.random_seq(len, letters); });
        for (int t = 0; t < 12; ++t) {
            Pair p = g.next(200);
            pairs.push_back({std::move(p.query), std::move(p.ref)});
        }
        for (std::size_t it = 0; it < pairs.size(); ++it) {
            const Codes& q = pairs[it].query;
            const Codes& r = pairs[it].ref;
            LongAlignOptions o = random_options(rng, 16, 1, 300, {1, 2, 64});
            o.tile_batch = std::vector<std::size_t>{1, 3, 48}[rng() % 3];
            const std::string what = "scheme " + std::to_string(k) + " pair " + std::to_string(it) + " (" +
                                     std::to_string(q.size()) + " x " + std::to_string(r.size()) + ")";
            AlignmentResult full;
            for (bool score_only : {false, true}) {
                const AlignmentResult want = align_pair_full_matrix(q, r, s, AlignMode::semi_global, score_only);
                ASSERT_EQ(align_pair_long(q, r, s, AlignMode::semi_global, score_only, o), want)
                    << what << ", tile " << o.tile << ", leaf_cells " << o.plan.leaf_cells << ", leaf_batch "
                    << o.leaf_batch << ", tile_batch " << o.tile_batch;
                CheckpointPlan plan = o.plan;
                plan.direct_leaf_bytes = 0;
                ScalarBackend backend(q, r, s, AlignMode::semi_global, o.tile_batch, std::numeric_limits<std::size_t>::max());
                ASSERT_EQ(checkpoint_align(backend, q, r, s, AlignMode::semi_global, score_only, plan, {}), want)
                    << what << " (scalar backend)";
                ++compared;
                if (!score_only) full = want;
            }
            ASSERT_EQ(check_invariants(full, align_pair_full_matrix(q, r, s, AlignMode::semi_global, true), q, r, s,
                                       AlignMode::semi_global),
                      "")
                << what;
            // Where the end is: column 0 (and whether columns 1..n tie it), n, or inside.
            const std::vector<BoundaryCell> top(r.size() + 1, BoundaryCell{0, std::numeric_limits<std::int32_t>::min() / 2});
            std::vector<BoundaryCell> left(q.size() + 1, top[0]);
            for (std::size_t i = 1; i <= q.size(); ++i)
                left[i].h = -(s.gap_open + static_cast<std::int32_t>(i) * s.gap_extend);
            ScalarBackend rows(q, r, s, AlignMode::semi_global, 1, std::numeric_limits<std::size_t>::max());
            RegionOutputs best_only;
            best_only.want_best = true;
            const Region whole{0, 0, static_cast<std::int64_t>(q.size()), static_cast<std::int64_t>(r.size()), top.data(),
                               left.data()};
            const RegionResult last = rows.compute(whole, best_only, {});
            EXPECT_EQ(std::max(last.best, left.back().h), full.score) << what;
            if (full.ref_end == 0) {
                ++at_zero;
                if (last.best == full.score) ++tied_at_zero;
            } else if (full.ref_end == static_cast<std::int32_t>(r.size())) {
                ++at_n;
            } else {
                ++inside;
            }
        }
    }
    EXPECT_GE(compared, 400);
    EXPECT_GT(at_zero, 10);
    EXPECT_GT(tied_at_zero, 3);
    EXPECT_GT(at_n, 10);
    EXPECT_GT(inside, 10);
}

}  // namespace
}  // namespace gpualign::test
