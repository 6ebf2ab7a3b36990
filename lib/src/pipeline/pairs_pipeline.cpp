// The pairs pipeline (pipeline.hpp): read pairs, align them on the backend
// the configuration picks (pair_backend.hpp), write them in input order.
#include "gpualign/pipeline/pipeline.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "batch.hpp"
#include "channel.hpp"
#include "gpualign/formats/sam_references.hpp"
#include "gpualign/formats/writers.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/pipeline/progress.hpp"
#include "pair_backend.hpp"
#include "pair_reader.hpp"
#include "run_setup.hpp"

namespace gpualign {
namespace {

using detail::Batch;
using detail::Clock;
using detail::seconds_since;

/// Seconds each stage spent, for the debug log. "busy" is time inside the
/// stage's work; "waited" is time the aligning (main) thread waited for it.
struct StageTimes {
    double open = 0;          ///< opening both inputs and detecting the alphabet (main thread)
    double init = 0;          ///< backend start (CUDA context, BatchEngine buffers) on its own thread
    double cuda_start = 0;    ///< CUDA's start (driver, contexts), from the run's start, on a thread of its own
    double init_waited = 0;
    double read = 0;          ///< reading, parsing and encoding batches (both files)
    double read_waited = 0;
    double align = 0;         ///< the backend's submit and collect (GPU: packing, copies, kernels, results)
    double collect = 0;       ///< of which collect (waiting for the GPU, building the results)
    double format = 0;        ///< formatting output lines (parallel)
    double write = 0;         ///< writing them in order
    double write_waited = 0;
    double commit = 0;        ///< flushing and renaming the output
    double sam_header = 0;    ///< SAM: reading the @SQ dictionary from REFS ahead (read_sam_references), before reading
    bool sam_header_ahead = false; ///< the header came first (else the records were spooled)
    double teardown = 0;      ///< releasing the backend (device buffers, pinned memory)
    double first_aligned = 0; ///< from the start until the first batch was handed to the backend
    double loop = 0;          ///< from the backend being ready until the last batch was written
    std::size_t batches = 0;
};

/// Threads of each pipeline stage (OpenMP team sizes), from --threads.
struct PipelineThreads {
    int read = 1;    ///< parsing both input files (one team)
    int engine = 1;  ///< GPU engine: packing batches and building results
    int write = 1;   ///< formatting output lines
};

/// The stages run at the same time: reading gets all threads (it runs
/// mostly while CUDA starts, before the first batch can be aligned), the
/// engine's host work a quarter, and formatting the rest after the engine's
/// threads and the aligning thread: formatting SAM is the slowest stage of
/// a GPU run after reading ends (docs/benchmarks.md, "End to end through
/// the CLI"). (The CPU backend aligns on all threads.)
PipelineThreads split_threads(int threads) {
    PipelineThreads p;
    p.read = threads;
    p.engine = std::max(1, threads / 4);
    p.write = std::max(1, threads - p.engine - 1);
    return p;
}

/// Aligned batches waiting for the writer, so that the aligning thread can
/// run ahead of a writer that is slower for a few batches. (What is read
/// ahead is bounded by bytes: AlignConfig::read_ahead.)
constexpr std::size_t write_behind = 3;

/// The letters of batch b (query + ref, both strands' queries): its weight
/// in the read-ahead channel, about the host memory its records hold.
std::size_t batch_letters(const Batch& b) noexcept {
    std::size_t n = 0;
    for (std::size_t k = 0; k < b.size(); ++k) n += b.queries[k].codes.size() + b.refs[k].codes.size();
    return n;
}

/// A batch read for the backend, or the error that ended reading.
struct ReadItem {
    Batch batch;               ///< empty at the end of both files
    std::exception_ptr error;
};

/// An aligned batch for the writer.
struct WriteItem {
    std::shared_ptr<const Batch> batch;  ///< its blocks return to the readers when the writer lets go of it
    std::vector<AlignmentResult> results;
};

void log_stages(const StageTimes& t, const RunStats& stats, const PipelineThreads& split, bool block_read,
                double kernel_ms, const gpu::BatchEngineProfile& e) {
    spdlog::debug("stages (s): open+detect {:.3f}; CUDA start {:.3f} from the run's start; backend init {:.3f} after "
                  "open+detect (main waited {:.3f}); first batch aligned at {:.3f}; {} batches, loop {:.3f}",
                  t.open, t.cuda_start, t.init, t.init_waited, t.first_aligned, t.batches, t.loop);
    spdlog::debug("stages (s): read {:.3f} busy on {} threads{} (aligner waited {:.3f}); align {:.3f} busy (of which collect "
                  "{:.3f}; GPU kernels {:.3f}, engine host threads {}); format {:.3f} on {} threads + write {:.3f} (aligner waited "
                  "{:.3f}); commit {:.3f}; teardown {:.3f}; total {:.3f}",
                  t.read, split.read, block_read ? "" : " (serial parse)", t.read_waited, t.align, t.collect,
                  kernel_ms / 1000.0, split.engine, t.format, split.write, t.write, t.write_waited, t.commit,
                  t.teardown, stats.seconds);
    if (t.sam_header > 0)
        spdlog::debug("SAM header: @SQ read ahead from REFS in {:.3f} s; {}", t.sam_header,
                      t.sam_header_ahead ? "written first, records straight to the output"
                                         : "not usable here, records spooled and copied behind it at commit");
    if (e.batches > 0)
        spdlog::debug("GPU engine (s): {} device batches; host: setup {:.3f}, request {:.3f}, order {:.3f}, pack "
                      "{:.3f}, wait {:.3f}, results {:.3f}; device: copies in {:.3f} ({:.1f} MB), kernels {:.3f}, "
                      "copies out {:.3f} ({:.1f} MB); inter-pair kernel: {} pairs finished, {} handed to the "
                      "warp-per-pair kernel",
                      e.batches, e.setup_s, e.request_s, e.order_s, e.pack_s, e.wait_s, e.results_s, e.h2d_ms / 1000.0,
                      e.h2d_bytes / 1e6,
                      e.kernel_ms / 1000.0, e.d2h_ms / 1000.0, e.d2h_bytes / 1e6, e.inter_pair_pairs,
                      e.inter_pair_fallbacks);
}

/// The threads of one run of run_alignment, each with its own OpenMP team,
/// joined by bounded channels: the reader parses batches of up to
/// AlignConfig::read_ahead letters in all ahead while the backend starts
/// (CUDA's start), then two batches ahead; the calling thread aligns; the
/// writer formats and writes in input order.
class PairsRun {
public:
    PairsRun(const AlignConfig& c, Clock::time_point start, StageTimes& t, const PipelineThreads& split,
             detail::PairReader& reader, const ScoringScheme& scheme, AlignmentWriter& writer)
        : c_(c), start_(start), t_(t), split_(split), reader_(reader), scheme_(scheme), writer_(writer) {}

    /// SAM: reads the @SQ dictionary from REFS ahead (read_sam_references,
    /// on the reader's threads, while CUDA starts) when run() begins, so that
    /// the header is written first and the records need no spool. REFS that
    /// cannot be read ahead (a pipe, compressed) leave the writer to spool.
    void read_sam_header_ahead() { sam_header_ahead_ = true; }

    /// Runs the reader and writer threads and aligns on the backend that
    /// `backend_ready` delivers; commits the output.
    /// @throws the first error of the reader, the backend or the writer.
    RunStats run(std::future<std::unique_ptr<detail::PairBackend>>& backend_ready) {
        if (sam_header_ahead_) {
            // Before the reader starts, so that both do not share the cores:
            // the writer cannot write a record before it.
            const auto t0 = Clock::now();
            const std::atomic<bool> never{false};
            std::optional<SamReferences> refs = read_sam_references(c_.ref_path, c_.alphabet, split_.read, never);
            t_.sam_header = seconds_since(t0);
            t_.sam_header_ahead = refs.has_value();
            if (refs) writer_.set_references(std::move(*refs));
        }
        // Both joined before leaving (after the channels are aborted on error).
        std::jthread reading([this] { read_batches(); });
        std::jthread writing([this] { write_batches(); });
        try {
            const auto wait0 = Clock::now();
            std::unique_ptr<detail::PairBackend> backend = backend_ready.get();
            t_.init_waited = seconds_since(wait0);
            // Read ahead by AlignConfig::read_ahead while the backend started;
            // from now on two batches, as the aligner takes them: reading
            // further ahead only takes cores from the backend's own host work.
            const std::size_t batch = to_align_.max_weight();
            to_align_.set_capacity(std::min(c_.read_ahead, 2 * (batch > 0 ? batch : c_.batch_bases)));
            const auto loop0 = Clock::now();
            RunStats stats;
            align_batches(*backend, stats);
            to_align_.abort();  // the reader has pushed its last item, or must stop after a write failure
            const auto w0 = Clock::now();
            to_write_.finish();
            reading.join();
            writing.join();
            t_.write_waited += seconds_since(w0);
            if (write_error_) std::rethrow_exception(write_error_);
            t_.loop = seconds_since(loop0);
            finish(std::move(backend), stats);
            return stats;
        } catch (...) {
            to_align_.abort();
            to_write_.abort();
            throw;
        }
    }

private:
    /// The reader thread: batches (letters checked, both strands added when
    /// asked) to the aligning thread, then an empty batch or the error.
    void read_batches() {
        try {
            while (true) {
                const auto t0 = Clock::now();
                ReadItem item{reader_.next(), nullptr};
                if (scheme_.undefined_codes)  // a matrix file without some letters: only their use is an error
                    for (std::size_t k = 0; k < item.batch.size(); ++k) {
                        check_letters(scheme_, item.batch.queries[k], c_.query_path);
                        check_letters(scheme_, item.batch.refs[k], c_.ref_path);
                    }
                if (c_.strand == StrandChoice::both) add_reverse_strand(item.batch);
                t_.read += seconds_since(t0);
                const bool end = item.batch.size() == 0;
                const std::size_t letters = batch_letters(item.batch);
                if (!to_align_.push(std::move(item), letters) || end) return;
            }
        } catch (...) {
            to_align_.push(ReadItem{Batch{}, std::current_exception()});
        }
    }

    /// The writer thread: formats and writes the aligned batches in order;
    /// on an error, keeps it and stops the aligning thread's pushes.
    void write_batches() {
        try {
            while (std::optional<WriteItem> item = to_write_.pop()) {
                // The results are the input pairs' (keep_better_strands), the batch's first pairs.
                const std::size_t n = item->results.size();
                const BatchWriteTimes wt = writer_.write_batch(std::span(item->batch->queries).first(n),
                                                               std::span(item->batch->refs).first(n), item->results,
                                                               split_.write);
                t_.format += wt.format_seconds;
                t_.write += wt.write_seconds;
            }
        } catch (...) {
            write_error_ = std::current_exception();
            to_write_.abort();
        }
    }

    void align_batches(detail::PairBackend& backend, RunStats& stats);
    void finish(std::unique_ptr<detail::PairBackend> backend, RunStats& stats);

    const AlignConfig& c_;
    Clock::time_point start_;
    StageTimes& t_;
    PipelineThreads split_;
    detail::PairReader& reader_;
    const ScoringScheme& scheme_;
    AlignmentWriter& writer_;
    detail::Channel<ReadItem> to_align_{c_.read_ahead};
    detail::Channel<WriteItem> to_write_{write_behind};
    std::exception_ptr write_error_;
    bool sam_header_ahead_ = false;
};

/// Aligns the batches the reader hands over and hands them to the writer,
/// until the reader's end (or error) or the writer's failure (write_error_
/// set). One batch stays submitted while the next is read and submitted, so
/// that the GPU is not idle between batches. Counts the pairs and cells in
/// `stats`, and shows the run's progress line (after each aligned batch),
/// enabled as the long pairs' line is.
void PairsRun::align_batches(detail::PairBackend& backend, RunStats& stats) {
    const detail::ProgressSettings shown = detail::progress_settings(c_);
    RunProgress progress(stderr, shown.enabled, shown.delay_s, Defaults::progress_period_s);
    std::uint64_t pairs_done = 0, cells_done = 0;
    bool in_flight = false;
    // Collects the batch in flight and hands it to the writer; false when the writer failed.
    const auto hand_over = [&]() -> bool {
        const auto a0 = Clock::now();
        detail::Collected got = backend.collect();
        in_flight = false;
        WriteItem out;
        out.results = std::move(got.results);
        keep_better_strands(*got.batch, out.results);
        out.batch = std::move(got.batch);
        pairs_done += out.batch->input_pairs();
        for (std::size_t k = 0; k < out.batch->size(); ++k) cells_done += pair_cells(*out.batch, k);
        progress.update(pairs_done, cells_done);
        t_.align += seconds_since(a0);
        t_.collect += seconds_since(a0);
        const auto w0 = Clock::now();
        const bool taken = to_write_.push(std::move(out));
        t_.write_waited += seconds_since(w0);
        return taken;
    };
    bool writer_failed = false;
    while (true) {
        const auto r0 = Clock::now();
        std::optional<ReadItem> item = to_align_.pop();
        t_.read_waited += seconds_since(r0);
        if (!item) break;  // not reached: the reader always ends with an end or error item
        if (item->error) std::rethrow_exception(item->error);
        if (item->batch.size() == 0) break;
        if (t_.batches++ == 0) t_.first_aligned = seconds_since(start_);
        auto batch = std::make_shared<const Batch>(std::move(item->batch));
        for (std::size_t k = 0; k < batch->size(); ++k)
            stats.cells += static_cast<std::uint64_t>(batch->queries[k].codes.size()) * batch->refs[k].codes.size();
        stats.pairs += batch->input_pairs();  // cells (above) count both strands' DP cells
        const auto a0 = Clock::now();
        backend.submit(std::move(batch));
        t_.align += seconds_since(a0);
        if (in_flight && !hand_over()) {
            writer_failed = true;  // write_error_ is set
            break;
        }
        in_flight = true;
    }
    if (in_flight && !writer_failed) hand_over();
    progress.finish();
}

/// Commits the output, logs what the backend did and releases it.
void PairsRun::finish(std::unique_ptr<detail::PairBackend> backend, RunStats& stats) {
    const auto c0 = Clock::now();
    writer_.commit();
    t_.commit = seconds_since(c0);
    const detail::BackendTotals totals = backend->totals();
    stats.cpu_fallback = totals.cpu_fallback;
    stats.long_pairs = totals.long_pairs;
    if (stats.cpu_fallback > 0)
        spdlog::info("{} {} not fit the GPU engines' --gpu-memory and {} aligned on the CPU", stats.cpu_fallback,
                     stats.cpu_fallback == 1 ? "pair did" : "pairs did", stats.cpu_fallback == 1 ? "was" : "were");
    backend->log_devices();
    if (totals.long_engine_ms > 0)
        spdlog::debug("GPU long-pair engine: {:.3f} s of kernels", totals.long_engine_ms / 1000.0);
    stats.backend = backend->description();
    const auto d0 = Clock::now();
    backend.reset();
    t_.teardown = seconds_since(d0);
    stats.seconds = seconds_since(start_);
    log_stages(t_, stats, split_, reader_.in_blocks(), totals.kernel_ms, totals.engine_profile);
}

}  // namespace

RunStats run_alignment(const AlignConfig& c) {
    const auto start = Clock::now();
    StageTimes t;
    const PipelineThreads split = split_threads(detail::run_threads(c));
    // CUDA's start (the slowest step of a short run) goes on while the
    // inputs are opened and their alphabet detected; the backend below
    // waits for it.
    std::future<void> cuda_started = detail::start_cuda_early(c, start, t.cuda_start);
    detail::PairReader reader(c, split.read);
    const Alphabet alphabet = reader.alphabet();
    const ScoringScheme scheme = detail::scheme_for_inputs(c, alphabet, reader);
    t.open = seconds_since(start);
    spdlog::debug("{} alignment, {} alphabet, {}", to_string(c.mode), to_string(alphabet), describe_scheme(scheme));

    WriterOptions wopt = detail::output_options(c, alphabet);
    if (wopt.format == OutputFormat::blast6) {
        wopt.statistics = alignment_statistics(scheme, c.mode);
        if (!wopt.statistics) spdlog::warn("{}", missing_statistics_warning(scheme, c.mode));
    }
    AlignmentWriter writer(c.out_path, wopt);

    // The backend (CUDA context and BatchEngine buffers: the slowest start-up
    // step on a GPU) starts on a thread of its own while the first batches
    // are read.
    std::future<std::unique_ptr<detail::PairBackend>> backend_ready =
        std::async(std::launch::async, [&c, &scheme, &t, split, &cuda_started] {
            const auto t0 = Clock::now();
            if (cuda_started.valid()) cuda_started.wait();
            auto backend = detail::make_pair_backend(c, scheme, split.engine);
            t.init = seconds_since(t0);
            return backend;
        });
    PairsRun run(c, start, t, split, reader, scheme, writer);
    if (wopt.format == OutputFormat::sam) run.read_sam_header_ahead();
    return run.run(backend_ready);
}

}  // namespace gpualign
