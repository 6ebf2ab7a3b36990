// --devices (issue 15): parsing the list, resolving it against the visible
// devices, and how work is cut between GPUs (proportional_cuts). Host code
// only; the multi-GPU runs are tests/gpu/multi_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpualign/model/config.hpp"
#include "pipeline/device_shares.hpp"

namespace gpualign {
namespace {

std::string parse_error(const std::string& text) {
    std::vector<int> ordinals;
    try {
        parse_device_list(text, ordinals);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(Devices, ListParsesAllAndOrdinals) {
    std::vector<int> d{7};
    EXPECT_TRUE(parse_device_list("all", d));
    EXPECT_TRUE(d.empty());
    EXPECT_FALSE(parse_device_list("0,1", d));
    EXPECT_EQ(d, (std::vector<int>{0, 1}));
    EXPECT_FALSE(parse_device_list("3", d));
    EXPECT_EQ(d, (std::vector<int>{3}));
    EXPECT_FALSE(parse_device_list("1,0,1", d));  // order kept, a repeat is a second worker
    EXPECT_EQ(d, (std::vector<int>{1, 0, 1}));
}

TEST(Devices, BadListsNameTheOptionAndTheItem) {
    for (const char* bad : {"", ",", "0,", ",1", "0,,1", "-1", "+1", "a", "1a", "0x1", " 1", "1 ", "ALL", "99999999999"}) {
        const std::string e = parse_error(bad);
        EXPECT_NE(e.find("--devices '" + std::string(bad) + "'"), std::string::npos) << "'" << bad << "': " << e;
    }
    EXPECT_NE(parse_error("0,-1").find("unsigned, got '-1'"), std::string::npos);
    EXPECT_NE(parse_error("0,x").find("'x' is not a device ordinal"), std::string::npos);
    EXPECT_NE(parse_error("99999999999").find("too large"), std::string::npos);
}

TEST(Devices, ResolveAgainstTheVisibleDevices) {
    AlignConfig c;
    EXPECT_EQ(c.gpu_devices(1), (std::vector<int>{0}));
    c.device = 1;
    EXPECT_EQ(c.gpu_devices(2), (std::vector<int>{1}));
    try {
        c.gpu_devices(1);
        ADD_FAILURE() << "device 1 of 1 accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("--device 1: only 1 CUDA device(s) visible"), std::string::npos) << e.what();
    }
    c.all_devices = true;
    EXPECT_EQ(c.gpu_devices(3), (std::vector<int>{0, 1, 2}));
    EXPECT_THROW(c.gpu_devices(0), std::runtime_error);
    c.all_devices = false;
    c.devices = {1, 0};
    EXPECT_EQ(c.gpu_devices(2), (std::vector<int>{1, 0}));
    try {
        c.gpu_devices(1);
        ADD_FAILURE() << "device 1 of 1 accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("--devices: device 1 is not visible (1 CUDA device(s) visible"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Devices, ValidateRejectsNegativeOrdinalsAndAllWithAList) {
    AlignConfig c;
    c.query_path = "q.fa";
    c.ref_path = "r.fa";
    c.devices = {0, -2};
    EXPECT_THROW(c.validate(), std::invalid_argument);
    c.devices = {0};
    c.all_devices = true;
    EXPECT_THROW(c.validate(), std::invalid_argument);
    c.all_devices = false;
    EXPECT_NO_THROW(c.validate());
}

TEST(Devices, ProportionalCutsFollowTheWeights) {
    using detail::proportional_cuts;
    const std::vector<std::uint64_t> four{1, 1, 1, 1};
    EXPECT_EQ(proportional_cuts(four, std::vector<double>{1, 1}), (std::vector<std::size_t>{0, 2, 4}));
    EXPECT_EQ(proportional_cuts(four, std::vector<double>{3, 1}), (std::vector<std::size_t>{0, 3, 4}));
    EXPECT_EQ(proportional_cuts(four, std::vector<double>{1}), (std::vector<std::size_t>{0, 4}));
    EXPECT_EQ(proportional_cuts(four, std::vector<double>{1, 1, 1, 1}), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
    // An item goes where its middle falls: the big one to the first run.
    const std::vector<std::uint64_t> big_first{10, 1, 1};
    EXPECT_EQ(proportional_cuts(big_first, std::vector<double>{1, 1}), (std::vector<std::size_t>{0, 1, 3}));
    // Nothing to cut: every run empty.
    EXPECT_EQ(proportional_cuts(std::vector<std::uint64_t>{}, std::vector<double>{2, 1}),
              (std::vector<std::size_t>{0, 0, 0}));
    EXPECT_EQ(detail::even_cuts(four, 2), (std::vector<std::size_t>{0, 2, 4}));
}

TEST(Devices, ProportionalCutsCoverEveryItemOnceInOrder) {
    std::vector<std::uint64_t> items;
    for (std::uint64_t k = 0; k < 1000; ++k) items.push_back(1 + (k * 7919) % 5000);
    std::uint64_t total = 0;
    for (const std::uint64_t c : items) total += c;
    for (const std::vector<double>& w : {std::vector<double>{1, 1}, {5, 1}, {1, 2, 3}, {0.5, 0.5, 0.5, 0.5, 0.5}}) {
        const std::vector<std::size_t> cuts = detail::proportional_cuts(items, w);
        ASSERT_EQ(cuts.size(), w.size() + 1);
        EXPECT_EQ(cuts.front(), 0u);
        EXPECT_EQ(cuts.back(), items.size());
        double wsum = 0;
        for (const double x : w) wsum += x;
        for (std::size_t r = 0; r < w.size(); ++r) {
            ASSERT_LE(cuts[r], cuts[r + 1]);
            std::uint64_t got = 0;
            for (std::size_t k = cuts[r]; k < cuts[r + 1]; ++k) got += items[k];
            // Each run is within one item (5,000) of its share.
            EXPECT_NEAR(static_cast<double>(got), w[r] / wsum * static_cast<double>(total), 5000.0) << "run " << r;
        }
    }
}

TEST(Devices, RunOnDevicesRunsEveryJobAndRethrowsTheLowestFailure) {
    std::vector<int> ran(3, 0);
    detail::run_on_devices(3, [&](std::size_t d) { ran[d] = 1; });
    EXPECT_EQ(ran, (std::vector<int>{1, 1, 1}));
    try {
        detail::run_on_devices(3, [&](std::size_t d) {
            if (d > 0) throw std::runtime_error("job " + std::to_string(d));
        });
        ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "job 1");
    }
}

}  // namespace
}  // namespace gpualign
