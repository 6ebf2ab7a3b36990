// The GPU workers of the pairs pipeline's GPU backends (gpu_workers.hpp).
#include "gpu_workers.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "gpualign/align/reference_aligner.hpp"
#include "run_setup.hpp"

namespace gpualign::detail {
namespace {

/// Adds the counters of `b` to `a` (the run's profile over every GPU).
void add_profile(gpu::BatchEngineProfile& a, const gpu::BatchEngineProfile& b) {
    a.batches += b.batches;
    a.setup_s += b.setup_s;
    a.request_s += b.request_s;
    a.order_s += b.order_s;
    a.pack_s += b.pack_s;
    a.wait_s += b.wait_s;
    a.results_s += b.results_s;
    a.h2d_ms += b.h2d_ms;
    a.kernel_ms += b.kernel_ms;
    a.d2h_ms += b.d2h_ms;
    a.h2d_bytes += b.h2d_bytes;
    a.d2h_bytes += b.d2h_bytes;
    a.cigar_overflows += b.cigar_overflows;
    a.inter_pair_pairs += b.inter_pair_pairs;
    a.inter_pair_fallbacks += b.inter_pair_fallbacks;
}

}  // namespace

GpuWorkers::GpuWorkers(const AlignConfig& c, const ScoringScheme& s, const std::vector<int>& devices,
                       int engine_threads)
    : job_{s, c.mode, c.score_only, c.cpu_kernel, run_threads(c)}, long_engine_memory_(c.long_engine_memory()),
      capped_(c.gpu_memory != 0), progress_(c, devices.size()) {
    engine_options_.host_threads = engine_threads;
    engine_options_.gpu_memory_limit = c.batch_engine_memory();
    engine_options_.streams = c.engine_streams();
    // The engine's device batches are as large as one GPU's input batch
    // (--batch-pairs, --batch-bases; with several GPUs the input batches are
    // that many times larger, AlignConfig::input_batch_pairs): the default
    // 65,536 pairs are above the inter-pair kernel's smallest batch (SMs x
    // 256 pairs), so batches of pairs it takes run it, or with CIGAR its
    // traceback variant (BatchEngineOptions::pair_kernels, on by default;
    // docs/gpu.md).
    engine_options_.max_batch_bases = c.batch_bases;
    for (const int d : devices) {
        auto worker = std::make_unique<GpuWorker>();
        worker->device = d;
        workers_.push_back(std::move(worker));
    }
}

void GpuWorkers::start_batch_engines() {
    if (batch_engines_started_) return;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::future<std::unique_ptr<gpu::BatchEngine>>> starting;
    for (const auto& w : workers_)
        starting.push_back(std::async(std::launch::async, [this, d = w->device] {
            gpu::BatchEngineOptions o = engine_options_;
            o.device = d;
            return std::make_unique<gpu::BatchEngine>(job_.scheme, job_.mode, job_.score_only, o);
        }));
    std::exception_ptr failed;
    for (std::size_t w = 0; w < workers_.size(); ++w) {
        try {
            workers_[w]->engine = starting[w].get();
        } catch (...) {
            if (!failed) failed = std::current_exception();
        }
    }
    if (failed) std::rethrow_exception(failed);
    batch_engines_started_ = true;
    for (const auto& w : workers_) {
        const gpu::BatchEngineMemory mem = w->engine->memory();
        spdlog::debug("GPU engine on device {}: {} streams, batches of up to {} bases / {} pairs / {} "
                      "traceback bytes; {} bytes of device memory (limit {}), {} allocation retries; "
                      "started in {:.3f} s",
                      w->device, mem.streams, mem.batch_bases, mem.batch_pairs, mem.traceback_bytes,
                      mem.device_bytes, mem.limit ? std::to_string(mem.limit) : std::string("none"),
                      mem.allocation_retries,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
}

GpuRoute GpuWorkers::route(const Batch& batch) {
    GpuRoute r;
    r.on_gpu.reserve(batch.size());
    r.cells.reserve(batch.size());
    for (std::size_t k = 0; k < batch.size(); ++k) {
        const std::size_t m = batch.queries[k].codes.size(), n = batch.refs[k].codes.size();
        bool accepted = false;
        if (pair_cells(batch, k) < Defaults::long_pair_cells) {
            start_batch_engines();  // at the first such pair of the run
            accepted = std::all_of(workers_.begin(), workers_.end(),
                                   [&](const auto& w) { return w->engine->accepts(m, n); });
        }
        if (accepted) {
            r.on_gpu.push_back(k);
            r.cells.push_back(std::max<std::uint64_t>(1, pair_cells(batch, k)));
        } else {
            r.on_long.push_back(k);
        }
    }
    return r;
}

GpuShare GpuWorkers::submit_share(std::size_t w, const Batch& batch, const GpuRoute& route, std::size_t i0,
                                  std::size_t i1) {
    GpuShare s;
    s.worker = w;
    for (std::size_t i = i0; i < i1; ++i) {
        const std::size_t k = route.on_gpu[i];
        s.pairs.push_back(k);
        s.views.push_back({batch.queries[k].codes, batch.refs[k].codes});
        s.cells += route.cells[i];
    }
    s.ticket = workers_[w]->engine->align_async(s.views);
    return s;
}

void GpuWorkers::collect_share(GpuShare& s, std::vector<AlignmentResult>& out) {
    GpuWorker& w = *workers_[s.worker];
    std::vector<AlignmentResult> got = w.engine->collect(s.ticket);
    const double ms = w.engine->last_kernel_ms();
    w.batch_kernel_ms += ms;
    w.batch_pairs += s.pairs.size();
    w.batch_cells += s.cells;
    if (ms > 0) {
        const double rate = static_cast<double>(s.cells) / ms;
        w.cells_per_ms = w.cells_per_ms > 0 ? 0.5 * (w.cells_per_ms + rate) : rate;
    }
    // The common case, every pair of the batch on the engine in order: its
    // results are the batch's (no per-pair move into fresh storage).
    const bool whole = out.size() == got.size() && (s.pairs.empty() || s.pairs.back() == s.pairs.size() - 1);
    if (whole) {
        out.swap(got);
        return;
    }
    for (std::size_t n = 0; n < s.pairs.size(); ++n) out[s.pairs[n]] = std::move(got[n]);
}

void GpuWorkers::prepare_long_engine(std::size_t w, const Batch& b, const std::vector<std::size_t>& ks) noexcept {
    try {
        std::vector<gpu::LongPair> pairs;
        pairs.reserve(ks.size());
        for (const std::size_t k : ks) pairs.push_back({b.queries[k].codes, b.refs[k].codes});
        gpu::LongEngine& engine = long_engine(w);
        const auto t0 = Clock::now();
        engine.prepare(pairs);
        spdlog::debug("device {}: long-pair engine readied for {} pairs in {:.1f} ms", workers_[w]->device,
                      pairs.size(), 1e3 * seconds_since(t0));
    } catch (...) {
        spdlog::debug("device {}: readying the long-pair engine failed; align_many tries again", workers_[w]->device);
    }
}

void GpuWorkers::align_long(std::size_t w, const Batch& b, const std::vector<std::size_t>& ks,
                            std::vector<AlignmentResult>& out, std::size_t& failed) {
    if (ks.size() == 1)
        out[ks[0]] = align_one_on_long_engine(w, b, ks[0]);
    else
        align_many_on_long_engine(w, b, ks, out, failed);
}

void GpuWorkers::begin_long_progress(const Batch& b, const std::vector<std::size_t>& ks) {
    std::uint64_t cells = 0, lowest = b.number(ks.front()), highest = lowest;
    for (const std::size_t k : ks) {
        cells += pair_cells(b, k);
        lowest = std::min(lowest, b.number(k));
        highest = std::max(highest, b.number(k));
    }
    progress_.begin(ks.size() == 1 ? progress_label(b, ks.front())
                                   : std::to_string(ks.size()) + " long pairs (pairs " + std::to_string(lowest) +
                                         " to " + std::to_string(highest) + ")",
                    cells);
}

gpu::LongEngine& GpuWorkers::long_engine(std::size_t w) {
    GpuWorker& g = *workers_[w];
    if (!g.long_engine) {
        gpu::LongEngineOptions options;
        options.device = g.device;
        options.gpu_memory_limit = long_engine_memory_;
        if (progress_.enabled())
            options.progress = [this, w](std::uint64_t done, std::uint64_t) { progress_.report(w, done); };
        const auto t0 = Clock::now();
        g.long_engine = std::make_unique<gpu::LongEngine>(job_.scheme, job_.mode, job_.score_only, options);
        spdlog::debug("GPU long-pair engine started on device {} in {:.1f} ms (device memory limit {})", g.device,
                      1e3 * seconds_since(t0),
                      long_engine_memory_ ? std::to_string(long_engine_memory_) : std::string("90% of free"));
    }
    return *g.long_engine;
}

AlignmentResult GpuWorkers::align_one_on_long_engine(std::size_t w, const Batch& b, std::size_t k) {
    GpuWorker& g = *workers_[w];
    const std::span<const std::uint8_t> q = b.queries[k].codes, r = b.refs[k].codes;
    AlignmentResult res;
    try {
        try {
            res = long_engine(w).align(q, r);
            const gpu::LongEngineStats st = g.long_engine->last_stats();
            g.long_kernel_ms += st.total_ms;
            spdlog::debug("{}: {} x {} on the long-pair engine of device {}: {} passes, {:.3f} s of kernels "
                          "(forward {:.3f} s, of which {:.3f} s finding the local best cell's column), {:.3f} s "
                          "wall, {:.1f} MB of device memory at most",
                          pair_context(b, k), q.size(), r.size(), g.device, st.passes, st.total_ms / 1000.0,
                          st.forward_ms / 1000.0, st.locate_ms / 1000.0, st.wall_s, st.peak_device_bytes / 1e6);
        } catch (...) {
            res = long_engine_failed(w, b, k, std::current_exception());
        }
    } catch (...) {
        rethrow_for_pair(b, k);
    }
    ++g.long_pairs;
    g.long_cells += pair_cells(b, k);
    return res;
}

void GpuWorkers::align_many_on_long_engine(std::size_t w, const Batch& b, const std::vector<std::size_t>& ks,
                                           std::vector<AlignmentResult>& out, std::size_t& failed) {
    GpuWorker& g = *workers_[w];
    std::vector<gpu::LongPair> pairs;
    pairs.reserve(ks.size());
    for (const std::size_t k : ks) pairs.push_back({b.queries[k].codes, b.refs[k].codes});
    std::vector<std::exception_ptr> errors;
    std::vector<AlignmentResult> got;
    try {
        got = long_engine(w).align_many(pairs, &errors);
    } catch (...) {
        failed = ks.front();
        rethrow_for_pair(b, ks.front());
    }
    const gpu::LongEngineStats st = g.long_engine->last_stats();
    g.long_kernel_ms += st.total_ms;
    spdlog::debug("{} pairs on the long-pair engine of device {}, {} at once and {} alone ({} of them at once): {} passes, {:.3f} s of kernels "
                  "(summed over streams), {:.3f} s wall (setup {:.1f} ms, tail {:.1f} ms; summed over workers: pairs "
                  "{:.1f} s, launches {:.1f} s, walks {:.1f} s, copies {:.1f} s, {} device allocations {:.1f} ms, {} "
                  "pinned {:.1f} ms; first pairs {:.1f} s, their kernels {:.1f} s), {:.1f} MB of device memory at most",
                  ks.size(), g.device, st.workers, st.solo_pairs, st.solo_workers, st.passes, st.total_ms / 1000.0, st.wall_s, st.setup_ms,
                  st.tail_ms, st.pairs_ms / 1e3, st.launches_ms / 1e3, st.walks_ms / 1e3, st.copies_ms / 1e3,
                  st.allocs, st.allocs_ms, st.pinned, st.pinned_ms, st.first_pairs_ms / 1e3,
                  st.first_kernels_ms / 1e3, st.peak_device_bytes / 1e6);
    for (std::size_t n = 0; n < ks.size(); ++n) {
        const std::size_t k = ks[n];
        if (errors[n]) {
            try {
                out[k] = long_engine_failed(w, b, k, errors[n]);
            } catch (...) {
                failed = k;
                rethrow_for_pair(b, k);
            }
        } else {
            out[k] = std::move(got[n]);
        }
        ++g.long_pairs;
        g.long_cells += pair_cells(b, k);
    }
}

AlignmentResult GpuWorkers::long_engine_failed(std::size_t w, const Batch& b, std::size_t k,
                                               const std::exception_ptr& error) {
    const std::span<const std::uint8_t> q = b.queries[k].codes, r = b.refs[k].codes;
    std::string why;
    try {
        std::rethrow_exception(error);
    } catch (const std::length_error& e) {
        if (!capped_ || !fits_int32(job_.scheme, q.size(), r.size())) throw;
        why = e.what();
    }
    spdlog::warn("{}: {}; aligning it on the CPU (raise --gpu-memory to keep it on the GPU)", pair_context(b, k), why);
    ++cpu_fallback_;
    return align_long_pair_on_cpu(q, r, job_, progress_, w);
}

BackendTotals GpuWorkers::totals() const noexcept {
    BackendTotals t;
    t.cpu_fallback = cpu_fallback_;
    for (const auto& w : workers_) {
        if (w->engine) t.cpu_fallback += w->engine->memory().host_pairs;
        t.long_pairs += w->long_pairs;
        if (w->engine) add_profile(t.engine_profile, w->engine->profile());
        t.long_engine_ms += w->long_kernel_ms;
    }
    for (const auto& w : workers_) t.kernel_ms += w->batch_kernel_ms;
    return t;
}

void GpuWorkers::log_devices() const {
    for (const auto& w : workers_)
        spdlog::debug("device {}: {} pairs ({:.3e} cells) on the batch engine, {:.3f} s of kernels ({:.1f} "
                      "GCUPS); {} long pairs ({:.3e} cells), {:.3f} s of long-engine kernels",
                      w->device, w->batch_pairs, static_cast<double>(w->batch_cells), w->batch_kernel_ms / 1e3,
                      w->batch_kernel_ms > 0 ? static_cast<double>(w->batch_cells) / w->batch_kernel_ms / 1e6 : 0.0,
                      w->long_pairs, static_cast<double>(w->long_cells), w->long_kernel_ms / 1e3);
}

}  // namespace gpualign::detail
