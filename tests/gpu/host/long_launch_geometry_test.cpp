// The long engine's launch geometry and per-pair planning
// (gpu/src/long/launch_geometry.hpp, pair_plan.hpp): pure functions, checked
// on the CPU against values worked out by hand from their rules. They live
// in gpualign_gpu, which only a CUDA build compiles; elsewhere these skip.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "gpualign/gpu/long_engine.hpp"
#include "long/flow_budget.hpp"
#include "long/launch_geometry.hpp"
#include "long/pair_plan.hpp"

namespace {

using namespace gpualign;
using namespace gpualign::gpu;

#if GPUALIGN_HAVE_CUDA
constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;

TEST(LongLaunchGeometry, RingColumnsArePowersOfTwoWithSlack) {
    EXPECT_EQ(long_geometry::next_pow2(0), 1u);
    EXPECT_EQ(long_geometry::next_pow2(1), 1u);
    EXPECT_EQ(long_geometry::next_pow2(1000), 1024u);
    EXPECT_EQ(long_geometry::next_pow2(1024), 1024u);
    EXPECT_EQ(long_geometry::next_pow2(1025), 2048u);
    // A whole row plus the kernel's 64 columns of slack.
    EXPECT_EQ(long_geometry::whole_row_ring_cols(960), 1024u);
    EXPECT_EQ(long_geometry::whole_row_ring_cols(961), 2048u);
    EXPECT_EQ(long_geometry::whole_row_ring_cols(1000), 2048u);
    EXPECT_EQ(long_geometry::whole_row_ring_cols(1000000), 1048576u);
    EXPECT_EQ(long_geometry::ring_slot_bytes(1024), 16384u);
    EXPECT_EQ(long_geometry::lane_rows_index(4), 0);
    EXPECT_EQ(long_geometry::lane_rows_index(16), 1);
    EXPECT_EQ(long_geometry::lane_rows_index(32), 2);
}

TEST(LongLaunchGeometry, RowsPerLaneByRegionHeightAndSms) {
    const int sms = 132;  // an H100: 32 rows a lane above 6144 * 132 = 811,008 rows
    EXPECT_EQ(long_geometry::rows_per_lane(4095, false, 0, sms, false), 4);
    EXPECT_EQ(long_geometry::rows_per_lane(4096, false, 0, sms, false), 16);
    EXPECT_EQ(long_geometry::rows_per_lane(811008, false, 0, sms, false), 16);
    EXPECT_EQ(long_geometry::rows_per_lane(811009, false, 0, sms, false), 32);
    EXPECT_EQ(long_geometry::rows_per_lane(811009, false, 0, 200, false), 16);
    // 32 has no direction-byte variant, and a local launch without a spare code takes 16.
    EXPECT_EQ(long_geometry::rows_per_lane(811009, true, 0, sms, false), 16);
    EXPECT_EQ(long_geometry::rows_per_lane(811009, false, 0, sms, true), 16);
    // LongEngineOptions::rows_per_lane forces the choice, within the same limits.
    EXPECT_EQ(long_geometry::rows_per_lane(10, false, 32, sms, false), 32);
    EXPECT_EQ(long_geometry::rows_per_lane(10, true, 32, sms, false), 16);
    EXPECT_EQ(long_geometry::rows_per_lane(1 << 24, false, 4, sms, false), 4);
    EXPECT_EQ(long_geometry::stripes_of(1000, 4), 8);
    EXPECT_EQ(long_geometry::stripes_of(4096, 16), 8);
    EXPECT_EQ(long_geometry::stripes_of(1, 32), 1);
}

TEST(LongLaunchGeometry, BlocksAndSlots) {
    EXPECT_EQ(long_geometry::launch_blocks(10, 100, 4, 0), 10);  // resident blocks
    EXPECT_EQ(long_geometry::launch_blocks(10, 7, 4, 0), 2);     // as many as hold the stripes
    EXPECT_EQ(long_geometry::launch_blocks(10, 100, 4, 3), 3);   // LongEngineOptions::max_blocks
    EXPECT_EQ(long_geometry::whole_row_slots(128 * MiB, 2048, 100), 100);  // 4096 fit, at most the stripes
    EXPECT_EQ(long_geometry::whole_row_slots(65536, 2048, 100), 2);
    EXPECT_EQ(long_geometry::whole_row_slots(1000, 2048, 5), 2);  // none fit: still 2
    EXPECT_EQ(long_geometry::whole_row_slots(1000, 2048, 1), 1);  // one stripe: 1
    // A tile batch: a slot per resident warp where the budget allows.
    EXPECT_EQ(long_geometry::tile_batch_slots(2 * GiB, 65536, 2112, 500), 500);
    EXPECT_EQ(long_geometry::tile_batch_slots(2 * GiB, 65536, 2112, 5000), 2048);
    EXPECT_EQ(long_geometry::tile_batch_slots(2 * GiB, 65536, 1000, 5000), 1000);
}

TEST(LongLaunchGeometry, RegionWithWholeRowRings) {
    // 1000 x 1000 at 4 rows a lane: 8 stripes, 2 blocks of 4 warps hold them.
    const long_geometry::RegionGeometry g = long_geometry::region_geometry(1000, 1000, 4, 100, 4, 0, 128 * MiB, true);
    EXPECT_EQ(g.stripes, 8);
    EXPECT_EQ(g.blocks, 2);
    EXPECT_EQ(g.ring_cols, 2048u);
    EXPECT_EQ(g.slots, 8);
    EXPECT_FALSE(g.flow);
    EXPECT_EQ(g.warps, 8u);
}

TEST(LongLaunchGeometry, LargeRegionAloneGetsFlowControlledRings) {
    // 1 Mbp x 1 Mbp at 16 rows a lane on 528 resident blocks: 1954 stripes,
    // 489 blocks; whole rows (1 Mi columns) leave 8 slots, so two narrow
    // rings a warp: 1e6 / 1956 + 128 columns -> 1024.
    long_geometry::RegionGeometry g = long_geometry::region_geometry(1000000, 1000000, 16, 528, 4, 0, 128 * MiB, true);
    EXPECT_EQ(g.stripes, 1954);
    EXPECT_EQ(g.blocks, 489);
    EXPECT_EQ(g.ring_cols, 1024u);
    EXPECT_EQ(g.slots, 3912);
    EXPECT_TRUE(g.flow);
    EXPECT_EQ(g.warps, 1956u);
    // A 16 MiB budget halves the blocks until one is left (rings of 256 Ki columns).
    g = long_geometry::region_geometry(1000000, 1000000, 16, 528, 4, 0, 16 * MiB, true);
    EXPECT_EQ(g.blocks, 1);
    EXPECT_EQ(g.ring_cols, 262144u);
    EXPECT_EQ(g.slots, 8);
    EXPECT_TRUE(g.flow);
    EXPECT_EQ(g.warps, 4u);
    // Beside other workers: whole rows only (the caller checks slots >= 2).
    g = long_geometry::region_geometry(1000000, 1000000, 16, 528, 4, 0, 16 * MiB, false);
    EXPECT_EQ(g.blocks, 489);
    EXPECT_EQ(g.ring_cols, 1048576u);
    EXPECT_EQ(g.slots, 2);
    EXPECT_FALSE(g.flow);
}

TEST(LongLaunchGeometry, WalkBytes) {
    EXPECT_EQ(long_geometry::walk_bytes(1000, true, 127), 65536u);             // at least 64 KiB
    EXPECT_EQ(long_geometry::walk_bytes(10000000, true, 127), 10000128u);      // the steps and a window
    EXPECT_EQ(long_geometry::walk_bytes(100000000, true, 127), 64 * MiB);      // at most 64 MiB
    EXPECT_EQ(long_geometry::walk_bytes(100000000, false, 127), 65536u);       // long_tuning::walk_steps_shared
}

TEST(LongPairPlan, WorkerSetup) {
    const LongEngineOptions o;
    long_plan::WorkerSetup w = long_plan::worker_setup(o, true, 8 * GiB);
    EXPECT_EQ(w.ring_budget, 128 * MiB);
    EXPECT_EQ(w.plan.leaf_cells, std::uint64_t{1} << 20);
    EXPECT_EQ(w.plan.leaf_band, 1.5);
    EXPECT_EQ(w.leaf_batch, 128u);  // 8 GiB / 16 / 2^20 = 512, at most long_tuning::leaf_batch
    EXPECT_EQ(w.tile_batch, 48u);   // 3 per row of a 16-way grid
    w = long_plan::worker_setup(o, false, GiB);
    EXPECT_EQ(w.ring_budget, 128 * MiB);
    EXPECT_EQ(w.plan.leaf_cells, std::uint64_t{1} << 18);
    EXPECT_EQ(w.plan.leaf_band, 0.5);
    EXPECT_EQ(w.leaf_batch, 48u);
    EXPECT_EQ(w.tile_batch, 1u);
    w = long_plan::worker_setup(o, false, 64 * MiB);
    EXPECT_EQ(w.ring_budget, 8 * MiB);  // an eighth of the share
    EXPECT_EQ(w.leaf_batch, 16u);       // 64 MiB / 16 / 2^18
    LongEngineOptions forced;
    forced.ring_bytes = 1 * MiB;
    forced.leaf_batch = 5;
    forced.tile_batch = 7;
    w = long_plan::worker_setup(forced, true, 8 * GiB);
    EXPECT_EQ(w.ring_budget, 1 * MiB);
    EXPECT_EQ(w.leaf_batch, 5u);
    EXPECT_EQ(w.tile_batch, 7u);
}

TEST(LongPairPlan, SoloPlanAndTileBatchBytes) {
    const LongEngineOptions o;
    CheckpointPlan plan = o.plan;
    std::size_t tiles = 1;
    // 100 kb: the plan's 16-way grid is cut straight into leaves.
    long_plan::plan_solo_pair(o, 100000, 100000, plan, tiles);
    EXPECT_EQ(plan.fan_out, 16);
    EXPECT_EQ(tiles, 48u);
    EXPECT_EQ(plan.leaf_cells, std::uint64_t{1} << 20);
    EXPECT_EQ(plan.leaf_band, 1.5);
    EXPECT_EQ(long_plan::tile_batch_bytes(100000, 100000, plan, tiles), 0u);
    // 1 Mbp: ceil(1e6 / 16384) = 62-way grid, 186 tiles a batch, smaller leaves in a narrower band.
    long_plan::plan_solo_pair(o, 1000000, 1000000, plan, tiles);
    EXPECT_EQ(plan.fan_out, 62);
    EXPECT_EQ(tiles, 186u);
    EXPECT_EQ(plan.leaf_cells, std::uint64_t{1} << 18);
    EXPECT_EQ(plan.leaf_band, 0.75);
    EXPECT_EQ(long_plan::tile_batch_bytes(1000000, 1000000, plan, tiles), 1587749196u);
    CheckpointPlan big = plan;
    big.leaf_cells = std::uint64_t{1} << 20;
    EXPECT_EQ(long_plan::tile_batch_bytes(1000000, 1000000, big, tiles), 793898406u);
    EXPECT_EQ(long_plan::tile_batch_bytes(1000000, 1000000, big, 1), 0u);  // no tile batches
}

TEST(LongPairPlan, PairBytes) {
    const LongEngineOptions o;
    EXPECT_EQ(long_plan::floor_bytes(1000), 16384u);
    EXPECT_EQ(long_plan::others_bytes(1000, 128 * MiB, 128, std::uint64_t{1} << 20), 276825088u);
    CheckpointPlan plan = o.plan;
    plan.fan_out = 62;
    plan.leaf_cells = std::uint64_t{1} << 18;
    // A 1 Mbp pair alone: the tile batch's rings, and the arena's first part
    // (the borders and the top-level grid) before the rest.
    long_plan::PairBytes b = long_plan::pair_bytes(o, plan, 186, 128, 128 * MiB, true, 70 * GiB, 1000000, 1000000);
    EXPECT_EQ(b.rest, 178160896u);
    EXPECT_EQ(b.floor, 32000512u);
    EXPECT_EQ(b.tile_ring_budget, 2 * GiB);
    EXPECT_EQ(b.arena, 3702860108u);
    EXPECT_EQ(b.arena_first, 992001536u);
    b = long_plan::pair_bytes(o, plan, 186, 128, 128 * MiB, false, 70 * GiB, 1000000, 1000000);
    EXPECT_EQ(b.arena_first, b.arena);  // not alone: no split
    b = long_plan::pair_bytes(o, plan, 186, 128, 128 * MiB, true, 8 * GiB, 1000000, 1000000);
    EXPECT_EQ(b.tile_ring_budget, GiB);  // an eighth of the share
    // A 50 x 40 kb pair of align_many's: no tiles above the leaves.
    plan.fan_out = 16;
    b = long_plan::pair_bytes(o, plan, 1, 48, 128 * MiB, false, GiB, 50000, 40000);
    EXPECT_EQ(b.rest, 155279360u);
    EXPECT_EQ(b.floor, 1440256u);
    EXPECT_EQ(b.tile_ring_budget, 128 * MiB);
    EXPECT_EQ(b.arena, 93029440u);
    EXPECT_EQ(b.arena_first, 93029440u);
    EXPECT_THROW(long_plan::pair_bytes(o, plan, 1, 48, 128 * MiB, false, 100 * MiB, 50000, 40000), std::length_error);
    EXPECT_FALSE(b.shrunk);
    plan.fan_out = 62;
    EXPECT_FALSE(long_plan::pair_bytes(o, plan, 186, 128, 128 * MiB, true, 70 * GiB, 1000000, 1000000).shrunk);
    // 1 GiB holds the rest and the floor, not every checkpoint row.
    EXPECT_TRUE(long_plan::pair_bytes(o, plan, 186, 128, 128 * MiB, true, GiB, 1000000, 1000000).shrunk);
}

// Whether a pair alone keeps its full plan in a share (align_many's solo
// pairs run together only in shares that hold every one's).
TEST(LongPairPlan, SoloPairFits) {
    const LongEngineOptions o;
    EXPECT_TRUE(long_plan::solo_pair_fits(o, 1000000, 1000000, 70 * GiB));
    EXPECT_FALSE(long_plan::solo_pair_fits(o, 1000000, 1000000, GiB));       // the arena shrinks
    EXPECT_FALSE(long_plan::solo_pair_fits(o, 1000000, 1000000, 100 * MiB));  // not even rest + floor
    EXPECT_TRUE(long_plan::solo_pair_fits(o, 200000, 190000, 4 * GiB));
    // Monotone in the share.
    bool fit = false;
    for (std::size_t share = 64 * MiB; share <= 8 * GiB; share += 64 * MiB) {
        const bool now = long_plan::solo_pair_fits(o, 200000, 190000, share);
        EXPECT_TRUE(now || !fit) << share;
        fit = now;
    }
    EXPECT_TRUE(fit);
}
#else
TEST(LongLaunchGeometry, NeedsTheCudaBuild) { GTEST_SKIP() << "gpualign_gpu is the stub (no nvcc)"; }
#endif

// FlowBudget (header-only): claims never sum to more than the GPU, a claim
// waits while less than its least share is free, and a FlowClaim gives back
// what it holds.
TEST(LongFlowBudget, ClaimsShareTheResidentBlocks) {
    long_detail::FlowBudget budget;
    // 528 co-resident blocks, 4 pairs together: the least share is 66.
    EXPECT_EQ(budget.claim(245, 528, 4), 245);
    EXPECT_EQ(budget.claim(176, 528, 4), 176);
    EXPECT_EQ(budget.claim(128, 528, 4), 107);  // what is left, more than 66
    std::atomic<int> got{-1};
    std::thread waiter([&] { got = budget.claim(98, 528, 4); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(got.load(), -1);  // nothing free
    budget.release(176, 528);
    waiter.join();
    EXPECT_EQ(got.load(), 98);
    // 78 of 528 free, 19.5 of a variant of which 132 fit: a claim of 60 of
    // those gets 19 (its least share with 8 pairs together is 8).
    EXPECT_EQ(budget.claim(60, 132, 8), 19);
    budget.release(19, 132);
    budget.release(245, 528);
    budget.release(107, 528);
    budget.release(98, 528);
    EXPECT_EQ(budget.claim(600, 528, 1), 528);  // everything back, and no more
    budget.release(528, 528);
    budget.reset(0.5);  // claims may hold half the GPU
    EXPECT_EQ(budget.claim(600, 528, 1), 264);
    budget.release(264, 528);
    EXPECT_EQ(budget.claim(300, 528, 1), 264);  // still half
}

// Ranked claims (the forward passes of the solo pairs run together) are
// served largest first: rank 1 waits for rank 0 to claim or pass, however
// much is free.
TEST(LongFlowBudget, RankedClaimsInOrder) {
    long_detail::FlowBudget budget;
    budget.reset(1.0);
    std::atomic<int> got{-1};
    std::thread second([&] { got = budget.claim(100, 528, 2, 1); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(got.load(), -1);  // rank 0 has not claimed
    EXPECT_EQ(budget.claim(400, 528, 2, 0), 400);
    second.join();
    EXPECT_EQ(got.load(), 100);
    // Rank 2 passes (no flow-controlled forward); rank 3 need not wait.
    budget.pass(2);
    EXPECT_EQ(budget.claim(28, 528, 2, 3), 28);
    budget.release(528, 528);
    // Unranked claims never wait for the order.
    budget.reset(1.0);
    EXPECT_EQ(budget.claim(10, 528, 2), 10);
}

TEST(LongFlowBudget, ClaimGivesBackWhatItHolds) {
    long_detail::FlowBudget budget;
    {
        long_detail::FlowClaim c(&budget, budget.claim(100, 100, 1), 100);
        EXPECT_EQ(c.blocks, 100);
        c.keep(30);
        EXPECT_EQ(c.blocks, 30);
        EXPECT_EQ(budget.claim(70, 100, 1), 70);  // the 70 given back
        budget.release(70, 100);
        long_detail::FlowClaim moved = std::move(c);
        EXPECT_EQ(c.blocks, 0);
        EXPECT_EQ(moved.blocks, 30);
    }
    EXPECT_EQ(budget.claim(100, 100, 1), 100);  // all back after the scope
}

}  // namespace
