// gpualign — the long engine's checkpoint arena (checkpoint_arena.hpp).
#include "checkpoint_arena.hpp"

#include <new>
#include <stdexcept>

namespace gpualign::gpu::long_detail {

using detail::rounded;

BoundaryCell* CheckpointArena::at(std::size_t off) const {
    return reinterpret_cast<BoundaryCell*>(off < first_.bytes ? static_cast<char*>(first_.ptr) + off
                                                              : static_cast<char*>(rest_.ptr) + (off - first_.bytes));
}

void CheckpointArena::fit(std::size_t total, std::size_t first, std::size_t floor, std::size_t m, std::size_t n) {
    rest_.release(mem_);
    std::size_t arena_bytes = first;
    rest_want_ = total - first;
    if (first_.bytes < arena_bytes || first_.bytes > 2 * arena_bytes) {
        first_.release(mem_);
        while (true) {
            try {
                first_.ensure(arena_bytes, "long engine checkpoint arena", mem_);
                break;
            } catch (const std::bad_alloc&) {
                arena_bytes += rest_want_;  // no room for the first part: no split
                rest_want_ = 0;
                if (arena_bytes / 2 < floor)
                    throw std::length_error("pair of lengths " + std::to_string(m) + " x " + std::to_string(n) +
                                            ": the GPU has no " + std::to_string((floor >> 20) + 1) +
                                            " MiB free for the long engine's smallest checkpoints");
                arena_bytes /= 2;
            }
        }
    }
    if (rest_want_ > 0)  // (an earlier pair's first part, reused, may be larger)
        rest_want_ = total > first_.bytes ? total - first_.bytes : 0;
    stack_.clear();
    top_ = 0;
}

void CheckpointArena::grow() {
    if (rest_want_ == 0) return;
    const std::size_t want = rest_want_;
    rest_want_ = 0;
    try {
        rest_.ensure(want, "long engine checkpoint arena (rest)", mem_);
    } catch (const std::bad_alloc&) {
    }
    note_peak();
}

BoundaryCell* CheckpointArena::allocate(std::size_t count) {
    const std::size_t b = rounded(count * sizeof(BoundaryCell));
    std::size_t start = top_;
    if (start < first_.bytes && start + b > first_.bytes) {  // on into the rest (never across the parts)
        grow();
        start = first_.bytes;
    }
    if (start + b > first_.bytes + rest_.bytes) throw std::bad_alloc();
    stack_.push_back({top_, start});
    top_ = start + b;
    note_peak();
    return at(start);
}

void CheckpointArena::release(BoundaryCell* p) {
    while (!stack_.empty()) {
        const Entry e = stack_.back();
        stack_.pop_back();
        top_ = e.below;
        if (at(e.start) == p) return;
    }
}

void CheckpointArena::release_buffers() {
    first_.release(mem_);
    rest_.release(mem_);
}

}  // namespace gpualign::gpu::long_detail
