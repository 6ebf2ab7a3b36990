// gpualign — the co-resident blocks that the long engine's solo workers'
// flow-controlled launches share when align_many runs several pairs alone
// at once (host code only).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace gpualign::gpu::long_detail {

/// A flow-controlled launch of the region kernel (rings narrower than its
/// region's rows: docs/long.md, "GPU backend") finishes only when every one
/// of its warps is resident at once, so it is launched cooperatively and its
/// grid is at most the blocks that fit the GPU. Several such launches at
/// once (align_many's solo pairs, run together) must also fit together,
/// else two partly resident grids could wait on each other's missing
/// warps. A FlowBudget hands out the GPU's co-resident blocks to them: a
/// launch claims its blocks before it starts and gives them back after its
/// end. Ordinary launches (whole-row rings) take no claim: they finish with
/// any number of resident blocks, so they only delay the claimed grids.
///
/// Units: a claim of b blocks of a variant of which `resident` fit the GPU
/// costs b / resident of the GPU (fixed point), so launches of different
/// variants may share it; the engine keeps the concurrent solo pairs on one
/// variant (long_tuning::rows_per_lane below its 32-row threshold), where
/// the fractions are exact. Thread-safe.
class FlowBudget {
public:
    /// Sets the part of the GPU the claims may hold together (0 < share <=
    /// 1; a share below 1 leaves SMs' issue slots to the ordinary launches
    /// and keeps the claimed grids' wavefront steps short). Only while no
    /// claim is held.
    void reset(double share) {
        std::lock_guard<std::mutex> lock(mu_);
        free_ = static_cast<std::int64_t>(static_cast<double>(kWhole) * std::clamp(share, 1e-3, 1.0));
        served_.clear();
        next_ = 0;
    }

    /// Claims up to `want` (>= 1) blocks of a variant of which `resident`
    /// (>= 1) fit the GPU: returns at once when at least min(want,
    /// max(1, resident / (2 * parts))) are free, else waits for releases.
    /// `parts`: the solo pairs running together (a pair is never left with
    /// less than about half its equal share). Returns the blocks claimed.
    ///
    /// `rank` >= 0: the claim of the forward pass of the pair of that rank
    /// (largest first), which also waits until every lower rank has claimed
    /// or passed (pass()): the largest pairs, the set's critical path, claim
    /// first, whichever thread got its pair ready first. -1: no order.
    int claim(int want, int resident, int parts, int rank = -1) {
        std::unique_lock<std::mutex> lock(mu_);
        const int least = std::min(want, std::max(1, resident / (2 * std::max(1, parts))));
        int got = 0;
        cv_.wait(lock, [&] {
            if (rank >= 0 && next_ < static_cast<std::size_t>(rank)) return false;
            got = static_cast<int>(std::min<std::int64_t>(want, (free_ + kSlack) * resident / kWhole));
            return got >= least;
        });
        free_ -= cost(got, resident);
        if (rank >= 0) serve(static_cast<std::size_t>(rank));
        lock.unlock();
        cv_.notify_all();
        return got;
    }

    /// The pair of `rank` makes no ordered claim (its forward pass needs no
    /// flow control, it failed, or it has claimed already): higher ranks
    /// need not wait for it.
    void pass(int rank) {
        if (rank < 0) return;
        {
            std::lock_guard<std::mutex> lock(mu_);
            serve(static_cast<std::size_t>(rank));
        }
        cv_.notify_all();
    }

    /// Gives back `blocks` claimed of a variant of which `resident` fit.
    void release(int blocks, int resident) { shrink(blocks, 0, resident); }

    /// Keeps `to` of `from` blocks claimed (to <= from) and gives back the
    /// rest, to the unit: a claim's parts released apart sum to its cost.
    void shrink(int from, int to, int resident) {
        if (to >= from) return;
        {
            std::lock_guard<std::mutex> lock(mu_);
            free_ += cost(from, resident) - cost(std::max(0, to), resident);
        }
        cv_.notify_all();
    }

private:
    static constexpr std::int64_t kWhole = std::int64_t{1} << 40;  // the whole GPU
    /// Costs are rounded to the nearest unit; a claim may use kSlack units
    /// more than are free, which absorbs those roundings (half a unit a
    /// claim) and is far less than a block (kWhole / resident units).
    static constexpr std::int64_t kSlack = 1024;
    static std::int64_t cost(int blocks, int resident) {
        return (static_cast<std::int64_t>(blocks) * kWhole + resident / 2) / resident;
    }

    /// Marks `rank` served and moves next_ past the served ranks.
    void serve(std::size_t rank) {
        if (served_.size() <= rank) served_.resize(rank + 1, false);
        served_[rank] = true;
        while (next_ < served_.size() && served_[next_]) ++next_;
    }

    std::mutex mu_;
    std::condition_variable cv_;
    std::int64_t free_ = kWhole;
    std::vector<bool> served_;  // by rank: claimed or passed
    std::size_t next_ = 0;      // the lowest rank not served
};

/// Blocks claimed from a FlowBudget, given back when it is destroyed (the
/// launch has ended, or failed). Movable, not copyable.
class FlowClaim {
public:
    FlowClaim() = default;
    FlowClaim(FlowBudget* budget, int claimed, int resident) : blocks(claimed), budget_(budget), resident_(resident) {}
    FlowClaim(FlowClaim&& o) noexcept { *this = std::move(o); }
    FlowClaim& operator=(FlowClaim&& o) noexcept {
        if (this != &o) {
            give_back();
            budget_ = std::exchange(o.budget_, nullptr);
            blocks = std::exchange(o.blocks, 0);
            resident_ = o.resident_;
        }
        return *this;
    }
    FlowClaim(const FlowClaim&) = delete;
    FlowClaim& operator=(const FlowClaim&) = delete;
    ~FlowClaim() { give_back(); }

    /// Keeps `n` (<= blocks) of the claimed blocks and gives the rest back.
    void keep(int n) {
        if (budget_) budget_->shrink(blocks, n, resident_);
        blocks = std::min(blocks, n);
    }

    int blocks = 0;  ///< the blocks held

private:
    void give_back() {
        if (budget_) budget_->release(blocks, resident_);
        budget_ = nullptr;
        blocks = 0;
    }
    FlowBudget* budget_ = nullptr;
    int resident_ = 1;
};

}  // namespace gpualign::gpu::long_detail
