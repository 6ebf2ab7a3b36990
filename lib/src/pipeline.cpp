// The batch pipeline: read pairs, align on the chosen backend, write.
#include "gpualign/pipeline.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "gpualign/cpu_aligner.hpp"
#include "gpualign/gpu/engine.hpp"
#include "gpualign/io_error.hpp"
#include "gpualign/matrix.hpp"
#include "gpualign/parallel_reader.hpp"
#include "gpualign/sequence_io.hpp"
#include "gpualign/writers.hpp"

namespace gpualign {
namespace {

/// One batch of pairs; queries[k] pairs with refs[k]. `first` is the 0-based
/// index of the batch's first pair in the input.
struct Batch {
    std::uint64_t first = 0;
    std::vector<SequenceRecord> queries;
    std::vector<SequenceRecord> refs;
    std::size_t size() const noexcept { return queries.size(); }
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// One input file and the records read ahead from it.
struct InputSide {
    explicit InputSide(ParallelSequenceReader r) : reader(std::move(r)) {}

    ParallelSequenceReader reader;
    std::deque<SequenceRecord> pending;
    std::size_t pending_bases = 0;
    bool at_end = false;

    /// Reads ahead until `pairs` records or `bases` letters are pending, or the file ends.
    void fill(std::size_t pairs, std::size_t bases) {
        while (!at_end && pending.size() < pairs && pending_bases < bases) {
            SequenceRecord r;
            if (!reader.next(r)) {
                at_end = true;
                break;
            }
            pending_bases += r.codes.size();
            pending.push_back(std::move(r));
        }
    }
    SequenceRecord take() {
        SequenceRecord r = std::move(pending.front());
        pending.pop_front();
        pending_bases -= r.codes.size();
        return r;
    }
};

/// Reads record i of QUERIES together with record i of REFS, in batches. The
/// two files are read (parsed and encoded) concurrently, each FASTA file on
/// half of the `threads` (ParallelSequenceReader).
class PairReader {
public:
    PairReader(const AlignConfig& c, int threads)
        : queries_(ParallelSequenceReader(c.query_path, c.alphabet, std::max(1, threads / 2))),
          refs_(ParallelSequenceReader(c.ref_path, c.alphabet, std::max(1, threads / 2))),
          batch_pairs_(c.batch_pairs), batch_bases_(c.batch_bases) {}

    bool parallel() const noexcept { return queries_.reader.parallel() || refs_.reader.parallel(); }

    /// The alphabet of both files; with --alphabet auto they must agree.
    Alphabet alphabet() {
        const Alphabet q = queries_.reader.alphabet(), r = refs_.reader.alphabet();
        if (q != r)
            throw InputError("QUERIES " + display_path(queries_.reader.path()) + " looks like " + to_string(q) +
                             " but REFS " + display_path(refs_.reader.path()) + " looks like " + to_string(r) +
                             "; choose one with --alphabet dna|protein");
        return q;
    }

    /// The next batch: at most batch_pairs pairs, and no more pairs once
    /// batch_bases letters are reached (a batch always holds at least one
    /// pair). Empty at the end of both files.
    /// @throws InputError when one file has more records than the other.
    Batch next() {
        auto refs_done = std::async(std::launch::async, [this] { refs_.fill(batch_pairs_, batch_bases_); });
        queries_.fill(batch_pairs_, batch_bases_);
        refs_done.get();
        Batch b;
        b.first = pairs_read_;
        std::size_t bases = 0;
        while (b.size() < batch_pairs_ && bases < batch_bases_) {
            const bool has_q = !queries_.pending.empty(), has_r = !refs_.pending.empty();
            if (!has_q || !has_r) {
                if (has_q && refs_.at_end) throw count_mismatch();
                if (has_r && queries_.at_end) throw count_mismatch();
                break;
            }
            b.queries.push_back(queries_.take());
            b.refs.push_back(refs_.take());
            bases += b.queries.back().codes.size() + b.refs.back().codes.size();
            ++pairs_read_;
        }
        if (b.size() == 0 && !(queries_.at_end && refs_.at_end)) return next();
        return b;
    }

private:
    InputError count_mismatch() {
        for (InputSide* side : {&queries_, &refs_}) {
            SequenceRecord scratch;
            while (side->reader.next(scratch)) {}
        }
        const std::uint64_t nq = queries_.reader.records_read(), nr = refs_.reader.records_read();
        return InputError("record counts differ: QUERIES " + display_path(queries_.reader.path()) + " has " +
                          std::to_string(nq) + " records but REFS " + display_path(refs_.reader.path()) + " has " +
                          std::to_string(nr) + " (record i of QUERIES is aligned with record i of REFS)");
    }

    InputSide queries_, refs_;
    std::size_t batch_pairs_, batch_bases_;
    std::uint64_t pairs_read_ = 0;
};

std::string pair_context(const Batch& b, std::size_t k) {
    return "pair " + std::to_string(b.first + k + 1) + " (query " + b.queries[k].name + ", ref " + b.refs[k].name + ")";
}

/// Aligns the pairs `indices` of `b` on the CPU, in parallel over pairs.
void align_on_cpu(const Batch& b, const std::vector<std::size_t>& indices, const ScoringScheme& s, AlignMode mode,
                  bool score_only, int threads, std::vector<AlignmentResult>& out) {
    std::exception_ptr error;
    std::string error_context;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t n = 0; n < indices.size(); ++n) {
        const std::size_t k = indices[n];
        try {
            out[k] = align_pair(b.queries[k].codes, b.refs[k].codes, s, mode, score_only);
        } catch (...) {
#pragma omp critical
            if (!error) {
                error = std::current_exception();
                error_context = pair_context(b, k);
            }
        }
    }
    if (error) {
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            throw std::runtime_error(error_context + ": " + e.what());
        }
    }
}

/// A backend: the CPU, or a GPU engine with the CPU for pairs it cannot take.
class Aligner {
public:
    Aligner(const AlignConfig& c, const ScoringScheme& s) : scheme_(s), mode_(c.mode), score_only_(c.score_only) {
        threads_ = c.threads > 0 ? c.threads : omp_get_num_procs();
        bool use_gpu = false;
        const int devices = c.backend == BackendChoice::cpu ? 0 : gpu::device_count();
        if (c.backend == BackendChoice::gpu) {
            if (devices == 0) throw std::runtime_error("--backend gpu: no CUDA device is visible");
            use_gpu = true;
        } else if (c.backend == BackendChoice::automatic) {
            use_gpu = devices > 0;
            if (!use_gpu) spdlog::warn("no CUDA device is visible; using the CPU backend");
        }
        if (use_gpu) {
            if (c.device >= devices)
                throw std::runtime_error("--device " + std::to_string(c.device) + ": only " + std::to_string(devices) +
                                         " CUDA device(s) visible");
            gpu::EngineOptions options;
            options.device = c.device;
            options.host_threads = threads_;
            options.gpu_memory_limit = c.gpu_memory;
            options.streams = c.gpu_streams;
            engine_ = std::make_unique<gpu::Engine>(scheme_, mode_, score_only_, options);
            const gpu::EngineMemory mem = engine_->memory();
            spdlog::debug("GPU engine: {} streams, batches of up to {} bases / {} pairs / {} traceback bytes; {} bytes "
                          "of device memory (limit {}), {} allocation retries",
                          mem.streams, mem.batch_bases, mem.batch_pairs, mem.traceback_bytes, mem.device_bytes,
                          mem.limit ? std::to_string(mem.limit) : std::string("none"), mem.allocation_retries);
            description_ = "gpu " + gpu::device_description(c.device);
            spdlog::info("using GPU {}", gpu::device_description(c.device));
        } else {
            description_ = "cpu (" + std::to_string(threads_) + " threads)";
        }
    }

    /// A batch handed to the backend and not yet collected: on the GPU its
    /// device batches are in flight (gpu::Engine::align_async); the pairs
    /// the engine does not take are aligned on the CPU in collect().
    struct Pending {
        std::shared_ptr<const Batch> batch;
        std::vector<std::size_t> on_gpu, on_cpu;  // pair indices within the batch
        std::optional<gpu::Ticket> ticket;
    };

    /// Starts aligning `b` and returns without waiting for the GPU (the CPU
    /// backend does all its work in collect()).
    Pending submit(std::shared_ptr<const Batch> b) {
        Pending p;
        p.batch = std::move(b);
        const Batch& batch = *p.batch;
        if (engine_) {
            std::vector<gpu::PairView> views;
            views.reserve(batch.size());
            p.on_gpu.reserve(batch.size());
            for (std::size_t k = 0; k < batch.size(); ++k) {
                const auto& q = batch.queries[k].codes;
                const auto& r = batch.refs[k].codes;
                if (engine_->accepts(q.size(), r.size())) {
                    views.push_back({q, r});
                    p.on_gpu.push_back(k);
                } else {
                    p.on_cpu.push_back(k);
                }
            }
            // The engine reads the views only inside align_async (packing)
            // and, after an allocation failure, inside collect; the records
            // they point to live in p.batch.
            views_.push_back(std::move(views));
            if (!views_.back().empty()) p.ticket = engine_->align_async(views_.back());
            cpu_fallback_ += p.on_cpu.size();
        } else {
            p.on_cpu.resize(batch.size());
            for (std::size_t k = 0; k < batch.size(); ++k) p.on_cpu[k] = k;
        }
        return p;
    }

    /// The results of a submitted batch, in the batch's order. Submissions
    /// are collected in the order they were made.
    std::vector<AlignmentResult> collect(Pending& p) {
        const Batch& b = *p.batch;
        std::vector<AlignmentResult> out(b.size());
        // CPU pairs first: the GPU keeps working meanwhile.
        if (!p.on_cpu.empty()) align_on_cpu(b, p.on_cpu, scheme_, mode_, score_only_, threads_, out);
        if (p.ticket) {
            std::vector<AlignmentResult> got = engine_->collect(*p.ticket);
            kernel_ms_ += engine_->last_kernel_ms();
            for (std::size_t n = 0; n < p.on_gpu.size(); ++n) out[p.on_gpu[n]] = std::move(got[n]);
        }
        if (engine_) views_.pop_front();
        return out;
    }

    const std::string& description() const noexcept { return description_; }
    /// Pairs aligned on the CPU by this backend: those the engine does not
    /// accept, plus those it aligned on the host after shrinking its buffers.
    std::uint64_t cpu_fallback() const noexcept {
        return cpu_fallback_ + (engine_ ? engine_->memory().host_pairs : 0);
    }
    /// Sum of Engine::last_kernel_ms over the batches (0 on the CPU).
    double kernel_ms() const noexcept { return kernel_ms_; }
    int threads() const noexcept { return threads_; }

private:
    const ScoringScheme& scheme_;
    AlignMode mode_;
    bool score_only_;
    int threads_ = 1;
    std::unique_ptr<gpu::Engine> engine_;
    std::deque<std::vector<gpu::PairView>> views_;  // of the submissions not yet collected, oldest first
    std::string description_;
    std::uint64_t cpu_fallback_ = 0;
    double kernel_ms_ = 0.0;
};

/// Seconds each stage spent, for the debug log. "busy" is time inside the
/// stage's work; "waited" is time the aligning (main) thread waited for it.
struct StageTimes {
    double open = 0;          ///< opening both inputs and detecting the alphabet (main thread)
    double init = 0;          ///< backend start (CUDA context, Engine buffers) on its own thread
    double init_waited = 0;
    double read = 0;          ///< reading, parsing and encoding batches (both files)
    double read_waited = 0;
    double align = 0;         ///< Aligner::align (GPU: packing, copies, kernels, results)
    double format = 0;        ///< formatting output lines (parallel)
    double write = 0;         ///< writing them in order
    double write_waited = 0;
    double commit = 0;        ///< flushing and renaming the output
    double teardown = 0;      ///< releasing the backend (device buffers, pinned memory)
    double first_aligned = 0; ///< from the start until the first batch was handed to the aligner
    std::size_t batches = 0;
};

}  // namespace

ScoringScheme resolve_scoring(const AlignConfig& c, Alphabet alphabet) {
    if (alphabet == Alphabet::protein) {
        if (c.match || c.mismatch || c.n_score)
            throw std::invalid_argument("--match, --mismatch and --n-score apply to DNA only; use --matrix for protein");
        return make_protein_scheme(c.matrix.value_or(Defaults::protein_matrix),
                                   c.gap_open.value_or(Defaults::protein_gap_open),
                                   c.gap_extend.value_or(Defaults::protein_gap_extend));
    }
    const std::int32_t go = c.gap_open.value_or(Defaults::dna_gap_open);
    const std::int32_t ge = c.gap_extend.value_or(Defaults::dna_gap_extend);
    if (c.matrix) return make_matrix_scheme(*c.matrix, Alphabet::dna, go, ge);
    const std::int32_t mismatch = c.mismatch.value_or(Defaults::dna_mismatch);
    return make_dna_scheme(c.match.value_or(Defaults::dna_match), mismatch, go, ge, c.n_score.value_or(-mismatch));
}

RunStats run_alignment(const AlignConfig& c) {
    const auto start = Clock::now();
    StageTimes t;
    const int threads = c.threads > 0 ? c.threads : omp_get_num_procs();
    PairReader reader(c, threads);
    const Alphabet alphabet = reader.alphabet();
    const ScoringScheme scheme = resolve_scoring(c, alphabet);
    t.open = seconds_since(start);
    spdlog::debug("{} alignment, {} alphabet, matrix {}, gap_open {}, gap_extend {}", to_string(c.mode),
                  to_string(alphabet), scheme.matrix_name, scheme.gap_open, scheme.gap_extend);

    // The backend (CUDA context and Engine buffers: the slowest start-up step
    // on a GPU) starts on its own thread while the first batch is read.
    std::future<std::unique_ptr<Aligner>> aligner_ready = std::async(std::launch::async, [&c, &scheme, &t] {
        const auto t0 = Clock::now();
        auto a = std::make_unique<Aligner>(c, scheme);
        t.init = seconds_since(t0);
        return a;
    });
    const auto read_batch = [&reader, &t] {
        const auto t0 = Clock::now();
        Batch b = reader.next();
        t.read += seconds_since(t0);
        return b;
    };
    std::future<Batch> next_batch = std::async(std::launch::async, read_batch);

    WriterOptions wopt;
    wopt.format = c.output_format();
    wopt.score_only = c.score_only;
    wopt.command_line = c.command_line;
    AlignmentWriter writer(c.out_path, wopt);

    const auto wait0 = Clock::now();
    std::unique_ptr<Aligner> aligner = aligner_ready.get();
    t.init_waited = seconds_since(wait0);

    RunStats stats;
    // Three stages overlap: reading batch k+1 and writing batch k-1 run while
    // batch k is aligned; each of them uses several threads. The futures are
    // declared after the reader and the writer so that they finish before
    // those are destroyed.
    std::future<void> written;
    // Hands the results of a submitted batch to the writer (after the
    // previous write finished).
    const auto deliver = [&](Aligner::Pending& p) {
        const auto a0 = Clock::now();
        auto results = std::make_shared<std::vector<AlignmentResult>>(aligner->collect(p));
        t.align += seconds_since(a0);
        const std::shared_ptr<const Batch> batch = p.batch;
        for (std::size_t k = 0; k < batch->size(); ++k)
            stats.cells += static_cast<std::uint64_t>(batch->queries[k].codes.size()) * batch->refs[k].codes.size();
        stats.pairs += batch->size();
        const auto w0 = Clock::now();
        if (written.valid()) written.get();
        t.write_waited += seconds_since(w0);
        written = std::async(std::launch::async, [&writer, &t, batch, results, threads] {
            const BatchWriteTimes wt = writer.write_batch(batch->queries, batch->refs, *results, threads);
            t.format += wt.format_seconds;
            t.write += wt.write_seconds;
        });
    };
    // Each batch is submitted and collected in turn. Submitting batch k+1
    // before collecting batch k (so that the GPU never drains between
    // batches) was measured slower end to end on (a)x3 (docs/benchmarks.md,
    // 2026-11-22): the loop is bound by reading, and the later hand-over to
    // the writer cost more than the overlap gained.
    const auto loop0 = Clock::now();
    while (true) {
        const auto r0 = Clock::now();
        auto batch = std::make_shared<const Batch>(next_batch.get());
        t.read_waited += seconds_since(r0);
        if (batch->size() == 0) break;
        if (t.batches++ == 0) t.first_aligned = seconds_since(start);
        next_batch = std::async(std::launch::async, read_batch);
        const auto a0 = Clock::now();
        Aligner::Pending current = aligner->submit(batch);
        t.align += seconds_since(a0);
        deliver(current);
    }
    const auto w0 = Clock::now();
    if (written.valid()) written.get();
    t.write_waited += seconds_since(w0);
    const double loop = seconds_since(loop0);
    const auto c0 = Clock::now();
    writer.commit();
    t.commit = seconds_since(c0);
    stats.cpu_fallback = aligner->cpu_fallback();
    if (stats.cpu_fallback > 0)
        spdlog::info("{} pairs were too long for the GPU batch kernels (or its --gpu-memory) and were aligned on the CPU",
                     stats.cpu_fallback);
    stats.backend = aligner->description();
    const double kernel_ms = aligner->kernel_ms();
    const auto d0 = Clock::now();
    aligner.reset();
    t.teardown = seconds_since(d0);
    stats.seconds = seconds_since(start);
    spdlog::debug("stages (s): open+detect {:.3f}; backend init {:.3f} (main waited {:.3f}); first batch aligned at "
                  "{:.3f}; {} batches, loop {:.3f}",
                  t.open, t.init, t.init_waited, t.first_aligned, t.batches, loop);
    spdlog::debug("stages (s): read {:.3f} busy on {} threads{} (idle {:.3f}, aligner waited {:.3f}); align {:.3f} "
                  "busy (GPU kernels {:.3f}, idle {:.3f}); format {:.3f} + write {:.3f} busy (idle {:.3f}, aligner "
                  "waited {:.3f}); commit {:.3f}; teardown {:.3f}; total {:.3f}",
                  t.read, threads, reader.parallel() ? "" : " (serial parse)", std::max(0.0, stats.seconds - t.read),
                  t.read_waited, t.align, kernel_ms / 1000.0, std::max(0.0, loop - t.align), t.format, t.write,
                  std::max(0.0, loop - t.format - t.write), t.write_waited, t.commit, t.teardown, stats.seconds);
    return stats;
}

}  // namespace gpualign
