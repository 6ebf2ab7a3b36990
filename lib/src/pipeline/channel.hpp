// gpualign — the bounded queue that joins the threads of the pairs pipeline.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace gpualign::detail {

/// A bounded first-in first-out hand-over between two pipeline threads.
///
/// The bound is a total weight: each item is pushed with a weight (1 by
/// default, so that the capacity counts items; the pairs pipeline's reader
/// weighs a batch by its letters, so that its read-ahead is bounded by
/// bytes). An item waits while the items held weigh something and adding it
/// would pass the capacity, so one item of any weight always passes.
template <typename T>
class Channel {
public:
    explicit Channel(std::size_t capacity) : capacity_(capacity) {}

    /// Blocks while the channel is full (see above). False (and `item`
    /// dropped) once aborted.
    bool push(T item, std::size_t weight = 1) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return aborted_ || held_ == 0 || held_ + weight <= capacity_; });
        if (aborted_) return false;
        items_.push_back({std::move(item), weight});
        held_ += weight;
        max_weight_ = std::max(max_weight_, weight);
        changed_.notify_all();
        return true;
    }
    /// Blocks while the channel is empty and open. Nothing once aborted, or
    /// once finished and empty.
    std::optional<T> pop() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return aborted_ || finished_ || !items_.empty(); });
        if (aborted_ || items_.empty()) return std::nullopt;
        T item = std::move(items_.front().first);
        held_ -= items_.front().second;
        items_.pop_front();
        changed_.notify_all();
        return item;
    }
    /// No more pushes: pop() hands out what is left, then nothing.
    void finish() {
        std::lock_guard lock(mutex_);
        finished_ = true;
        changed_.notify_all();
    }
    /// Changes the capacity (a waiting push() passes once the items held
    /// allow it).
    void set_capacity(std::size_t capacity) {
        std::lock_guard lock(mutex_);
        capacity_ = capacity;
        changed_.notify_all();
    }
    /// The largest weight pushed so far.
    std::size_t max_weight() {
        std::lock_guard lock(mutex_);
        return max_weight_;
    }
    /// Stops both sides now: push() fails, pop() returns nothing.
    void abort() {
        std::lock_guard lock(mutex_);
        aborted_ = true;
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::pair<T, std::size_t>> items_;  // each with its weight
    std::size_t capacity_;
    std::size_t held_ = 0;  // the weights of items_
    std::size_t max_weight_ = 0;
    bool finished_ = false, aborted_ = false;
};

}  // namespace gpualign::detail
