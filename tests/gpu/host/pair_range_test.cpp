// The inter-pair kernel's 16-bit range (gpu/src/batch/batch_params.hpp:
// pair_bias, pair_fits_16bit), which decides on the host and the device
// which pairs it takes, and the direction regions of its traceback variant
// (batch_layout.hpp: pair_dir_region_bytes): checked against values worked
// out by hand from the formulas' definitions. Plain C++: runs without CUDA.
#include <gtest/gtest.h>

#include "batch/batch_layout.hpp"
#include "batch/batch_params.hpp"

namespace {

using gpualign::gpu::detail::pair_bias;
using gpualign::gpu::detail::pair_dir_region_bytes;
using gpualign::gpu::detail::pair_fits_16bit;

TEST(PairRange, BiasIsTheFloorPlusRoomForTheAllGapPath) {
    // DNA 2/-3, gaps 5 + 2: O = 7; the floor O + ge = 9.
    EXPECT_EQ(pair_bias(true, 5, 2, 512, 512), 9);
    // 9 + 2*5 + (512+512)*2 + 2*7 = 9 + 10 + 2048 + 14.
    EXPECT_EQ(pair_bias(false, 5, 2, 512, 512), 2081);
    // The all-gap path scores -(2*5 + 1024*2) = -2058, above -(bias - floor) = -2072.
    EXPECT_GT(pair_bias(false, 5, 2, 512, 512) - 9, 2 * 5 + 1024 * 2);
}

TEST(PairRange, FitsUpToTheLargestScoreThatStaysBelow65536) {
    // bias + max(s,0) * min(m,n) + max(s,0) + O + 1 <= 65535
    EXPECT_TRUE(pair_fits_16bit(2081, 2, 7, 512, 512));  // 2081 + 1024 + 2 + 7 + 1 = 3115
    // Match 40 / mismatch 40 / gaps 40 + 40 (tests/gpu/pair_kernel_test.cpp):
    // global 540 x 540: bias = 120 + 80 + 1080*40 + 160 = 43560, +21600 + 40 + 80 + 1 = 65281.
    EXPECT_EQ(pair_bias(false, 40, 40, 540, 540), 43560);
    EXPECT_TRUE(pair_fits_16bit(pair_bias(false, 40, 40, 540, 540), 40, 80, 540, 540));
    // 544 x 544: bias 43880, + 21760 + 121 = 65761.
    EXPECT_FALSE(pair_fits_16bit(pair_bias(false, 40, 40, 544, 544), 40, 80, 544, 544));
    // Exactly 65535 fits, 65536 does not: bias 65535 - 1 - 7 - 2 - 2*100 = 65325.
    EXPECT_TRUE(pair_fits_16bit(65325, 2, 7, 100, 300));
    EXPECT_FALSE(pair_fits_16bit(65326, 2, 7, 100, 300));
    // A scheme without a positive score adds nothing above the bias.
    EXPECT_TRUE(pair_fits_16bit(65534, -1, 0, 1000, 1000));
    EXPECT_FALSE(pair_fits_16bit(65535, -1, 0, 1000, 1000));
}

// The traceback variant's forward local pass has bias O + ge and needs no
// room below zero, so a local pair fits up to a far larger size than a
// global one (docs/gpu.md, "Inter-pair traceback").
TEST(PairRange, LocalForwardPassFitsFarLargerPairs) {
    // DNA 2/-3, gaps 5 + 2: 9 + 2 * 32758 + 2 + 7 + 1 = 65535.
    EXPECT_TRUE(pair_fits_16bit(pair_bias(true, 5, 2, 32758, 40000), 2, 7, 32758, 40000));
    EXPECT_FALSE(pair_fits_16bit(pair_bias(true, 5, 2, 32759, 40000), 2, 7, 32759, 40000));
    // Match 40, gaps 40 + 40: 120 + 40 * 1632 + 40 + 80 + 1 = 65521 fits, 1633 does not.
    EXPECT_TRUE(pair_fits_16bit(pair_bias(true, 40, 40, 1632, 1700), 40, 80, 1632, 1700));
    EXPECT_FALSE(pair_fits_16bit(pair_bias(true, 40, 40, 1633, 1700), 40, 80, 1633, 1700));
}

// One region per warp: 32 threads x 2 pairs x 4 bits for every row of the
// warp's longest query and every column of its strips (32 columns each).
TEST(PairRange, DirectionRegionsCoverTheWarpsStrips) {
    // 512 x 512: 16 strips x 512 rows x 32 columns x 32 threads x 1 byte
    // (two pairs' nibbles) = 8 MiB, 128 KiB a pair as in the warp kernel.
    EXPECT_EQ(pair_dir_region_bytes(512, 512), std::uint64_t{8} << 20);
    EXPECT_EQ(pair_dir_region_bytes(512, 512) / 64, std::uint64_t{128} << 10);
    // A ref of 200 takes 7 strips (224 columns).
    EXPECT_EQ(pair_dir_region_bytes(150, 200), std::uint64_t{7} * 150 * 32 * 32);
    EXPECT_EQ(pair_dir_region_bytes(1, 1), std::uint64_t{32} * 32);
    EXPECT_EQ(pair_dir_region_bytes(0, 0), 0u);
}

}  // namespace
