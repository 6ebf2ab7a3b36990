// The pairs pipeline's hand-over between threads (pipeline/channel.hpp):
// its bound by items and by weight (the reader's read-ahead in bytes).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "pipeline/channel.hpp"

namespace gpualign::detail {
namespace {

using namespace std::chrono_literals;

TEST(Channel, CountsItemsByDefault) {
    Channel<int> ch(2);
    ASSERT_TRUE(ch.push(1));
    ASSERT_TRUE(ch.push(2));
    std::atomic<bool> third_in{false};
    std::jthread producer([&] {
        ch.push(3);
        third_in = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(third_in) << "a third item passed a capacity of two";
    EXPECT_EQ(ch.pop(), 1);
    producer.join();
    EXPECT_TRUE(third_in);
    EXPECT_EQ(ch.pop(), 2);
    EXPECT_EQ(ch.pop(), 3);
}

TEST(Channel, BoundsTheWeightHeld) {
    Channel<int> ch(100);
    ASSERT_TRUE(ch.push(1, 60));
    ASSERT_TRUE(ch.push(2, 40));  // exactly the capacity
    std::atomic<bool> third_in{false};
    std::jthread producer([&] {
        ch.push(3, 10);
        third_in = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(third_in) << "an item passed the capacity's weight";
    EXPECT_EQ(ch.pop(), 1);  // 40 held: 10 more fit
    producer.join();
    EXPECT_TRUE(third_in);
    ch.finish();
    EXPECT_EQ(ch.pop(), 2);
    EXPECT_EQ(ch.pop(), 3);
    EXPECT_EQ(ch.pop(), std::nullopt);
}

TEST(Channel, OneItemHeavierThanTheCapacityPassesAlone) {
    Channel<int> ch(10);
    ASSERT_TRUE(ch.push(1, 1000));  // an empty channel takes any item
    std::atomic<bool> second_in{false};
    std::jthread producer([&] {
        ch.push(2, 1);
        second_in = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(second_in) << "an item joined one that fills the channel past its capacity";
    EXPECT_EQ(ch.pop(), 1);
    producer.join();
    EXPECT_EQ(ch.pop(), 2);
}

TEST(Channel, AbortReleasesABlockedProducer) {
    Channel<int> ch(1);
    ASSERT_TRUE(ch.push(1, 5));
    std::atomic<int> pushed{-1};
    std::jthread producer([&] { pushed = ch.push(2, 5) ? 1 : 0; });
    std::this_thread::sleep_for(20ms);
    ch.abort();
    producer.join();
    EXPECT_EQ(pushed, 0);
    EXPECT_EQ(ch.pop(), std::nullopt);
}

}  // namespace
}  // namespace gpualign::detail
