// The batch pipeline: read pairs, align on the chosen backend, write.
#include "gpualign/pipeline/pipeline.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "device_shares.hpp"
#include "gpualign/align/long_aligner.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/formats/writers.hpp"
#include "gpualign/gpu/engine.hpp"
#include "gpualign/gpu/long_engine.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/model/strand.hpp"
#include "gpualign/pipeline/progress.hpp"

namespace gpualign {
namespace {

/// One batch of pairs; queries[k] pairs with refs[k]. `first` is the 0-based
/// index of the batch's first pair in the input. The views point into
/// `blocks`, which the batch shares with the batches next to it (a block's
/// memory returns to its reader when the last batch using it is destroyed).
///
/// With both strands (add_reverse_strand), the batch holds each input pair
/// twice: pairs [0, input_pairs()) as read, and pair input_pairs() + k is
/// pair k with its query reverse-complemented; the codes of those queries
/// are in `reverse_codes`, their other fields are the query's as read.
struct Batch {
    std::uint64_t first = 0;
    std::vector<RecordView> queries;
    std::vector<RecordView> refs;
    std::vector<std::shared_ptr<const RecordBlock>> blocks;
    std::vector<std::uint8_t> reverse_codes;  ///< the reverse-complemented queries, one after the other
    bool both_strands = false;
    std::size_t size() const noexcept { return queries.size(); }
    /// The pairs of the input in the batch.
    std::size_t input_pairs() const noexcept { return both_strands ? size() / 2 : size(); }
    /// True when pair k aligns the reverse-complemented query.
    bool minus(std::size_t k) const noexcept { return k >= input_pairs(); }
    /// The 1-based number in the input of the pair that pair k aligns (a strand of).
    std::uint64_t number(std::size_t k) const noexcept { return first + (minus(k) ? k - input_pairs() : k) + 1; }
};

/// Makes `b` a batch of both strands (see Batch): appends, for each of its
/// pairs, the pair with the reverse complement of the query (DNA codes of either coding, DnaCodes).
void add_reverse_strand(Batch& b) {
    const std::size_t n = b.size();
    const std::vector<RecordView> minus = reverse_strand_views(b.queries, b.reverse_codes);
    b.queries.insert(b.queries.end(), minus.begin(), minus.end());
    b.refs.reserve(2 * n);
    for (std::size_t k = 0; k < n; ++k) b.refs.push_back(b.refs[k]);
    b.both_strands = true;
}

/// Reduces the results of a batch of both strands (one per pair of `b`) to
/// one per input pair: the better strand's (better_strand; ties to plus),
/// marked Strand::minus when it is the reverse-complemented query's.
void keep_better_strands(const Batch& b, std::vector<AlignmentResult>& results) {
    if (!b.both_strands) return;
    const std::size_t n = b.input_pairs();
    for (std::size_t k = 0; k < n; ++k) {
        AlignmentResult& minus = results[n + k];
        if (better_strand(results[k].score, minus.score) == Strand::minus) {
            results[k] = std::move(minus);
            results[k].strand = Strand::minus;
        }
    }
    results.resize(n);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// One input file and the blocks parsed ahead from it.
struct InputSide {
    explicit InputSide(ParallelSequenceReader r) : reader(std::move(r)) {}

    /// A position in `blocks`: record `record` of blocks[block].
    struct Cursor {
        std::size_t block = 0, record = 0;
    };

    ParallelSequenceReader reader;
    std::deque<std::shared_ptr<const RecordBlock>> blocks;  // records from `head` of the front one on are not in a batch
    std::size_t head = 0;
    std::size_t available = 0;      // records not yet in a batch
    std::size_t pending_bases = 0;  // their letters

    /// How many more records / letters fill() must parse to hold `pairs` or `bases`.
    std::pair<std::size_t, std::size_t> shortfall(std::size_t pairs, std::size_t bases) const noexcept {
        if (available >= pairs || pending_bases >= bases) return {0, 0};
        return {pairs - available, bases - pending_bases};
    }
    /// Takes what the reader parsed. @throws InputError queued by the reader,
    /// after queueing the blocks before it.
    void collect() {
        std::vector<std::shared_ptr<const RecordBlock>> got;
        std::exception_ptr error;
        try {
            reader.take_blocks(got);
        } catch (...) {
            error = std::current_exception();
        }
        for (auto& blk : got) {
            available += blk->size();
            pending_bases += blk->bases();
            blocks.push_back(std::move(blk));
        }
        if (error) std::rethrow_exception(error);
    }
    Cursor start() const noexcept { return {0, head}; }
    /// The record at `c`, and `c` moved to the next one (blocks are never empty).
    RecordView at(Cursor& c) const noexcept {
        const RecordBlock& blk = *blocks[c.block];
        const RecordView v = blk[c.record];
        if (++c.record == blk.size()) {
            ++c.block;
            c.record = 0;
        }
        return v;
    }
    /// Hands the records before `c` (`n` records, `bases` letters) to
    /// batch `b`, with the blocks they lie in.
    void consume(Cursor c, std::size_t n, std::size_t bases, Batch& b) {
        for (std::size_t k = 0; k < c.block; ++k) {
            b.blocks.push_back(std::move(blocks.front()));
            blocks.pop_front();
        }
        if (c.record > 0) b.blocks.push_back(blocks.front());  // shared with the next batch
        head = c.record;
        available -= n;
        pending_bases -= bases;
    }
};

/// Reads record i of QUERIES together with record i of REFS, in batches. The
/// two files are parsed concurrently by one OpenMP team of `threads`
/// (ParallelSequenceReader::fill as two tasks, each file's blocks as tasks).
class PairReader {
public:
    PairReader(const AlignConfig& c, int threads)
        : queries_(ParallelSequenceReader(c.query_path, c.alphabet, std::max(1, threads / 2))),
          refs_(ParallelSequenceReader(c.ref_path, c.alphabet, std::max(1, threads / 2))),
          threads_(std::max(1, threads)), batch_pairs_(c.batch_pairs), batch_bases_(c.batch_bases) {}

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

    /// Encodes DNA of both files with `codes` (before the first next()).
    void set_dna_codes(DnaCodes codes) {
        queries_.reader.set_dna_codes(codes);
        refs_.reader.set_dna_codes(codes);
    }

    /// The next batch: at most batch_pairs pairs, and no more pairs once
    /// batch_bases letters are reached (a batch always holds at least one
    /// pair). Empty at the end of both files.
    /// @throws InputError for bad input, or when one file has more records
    ///         than the other.
    Batch next() {
        fill();
        Batch b;
        b.first = pairs_read_;
        const std::size_t avail = std::min(queries_.available, refs_.available);
        const std::size_t most = std::min(avail, batch_pairs_);
        b.queries.reserve(most);
        b.refs.reserve(most);
        InputSide::Cursor qc = queries_.start(), rc = refs_.start();
        std::size_t query_bases = 0, ref_bases = 0;
        while (b.queries.size() < most && query_bases + ref_bases < batch_bases_) {
            b.queries.push_back(queries_.at(qc));
            b.refs.push_back(refs_.at(rc));
            query_bases += b.queries.back().codes.size();
            ref_bases += b.refs.back().codes.size();
        }
        const std::size_t n = b.queries.size();
        if (n == 0) {
            if (queries_.available > 0 || refs_.available > 0) throw count_mismatch();
            return b;  // both files ended
        }
        queries_.consume(qc, n, query_bases, b);
        refs_.consume(rc, n, ref_bases, b);
        pairs_read_ += n;
        return b;
    }

private:
    /// Parses ahead until each side holds a batch (or its file ended), both
    /// files on one team.
    void fill() {
        std::exception_ptr error;
#pragma omp parallel num_threads(threads_)
#pragma omp single
        for (InputSide* side : {&queries_, &refs_}) {
#pragma omp task firstprivate(side) shared(error)
            try {
                const auto [records, bases] = side->shortfall(batch_pairs_, batch_bases_);
                if (records > 0) side->reader.fill(records, bases);
            } catch (...) {
#pragma omp critical(gpualign_pair_reader)
                error = std::current_exception();
            }
        }
        if (error) std::rethrow_exception(error);
        queries_.collect();
        refs_.collect();
    }

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
    int threads_;
    std::size_t batch_pairs_, batch_bases_;
    std::uint64_t pairs_read_ = 0;
};

/// " (minus strand)" for a pair that aligns the reverse-complemented query, else "".
const char* strand_note(const Batch& b, std::size_t k) { return b.minus(k) ? " (minus strand)" : ""; }

std::string pair_context(const Batch& b, std::size_t k) {
    return "pair " + std::to_string(b.number(k)) + " (query " + std::string(b.queries[k].name) + ", ref " +
           std::string(b.refs[k].name) + ")" + strand_note(b, k);
}

/// The pair as the progress line names it: "pair N (QNAME x RNAME)".
std::string progress_label(const Batch& b, std::size_t k) {
    return "pair " + std::to_string(b.number(k)) + " (" + std::string(b.queries[k].name) + " x " +
           std::string(b.refs[k].name) + ")" + strand_note(b, k);
}

std::uint64_t pair_cells(const Batch& b, std::size_t k) {
    return static_cast<std::uint64_t>(b.queries[k].codes.size()) * b.refs[k].codes.size();
}

/// Rethrows the exception in flight as the run's error for pair k of b:
/// "pair N (query X, ref Y): message" (std::runtime_error).
[[noreturn]] void rethrow_for_pair(const Batch& b, std::size_t k) {
    const std::string context = pair_context(b, k);
    try {
        throw;
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(context + ": out of memory aligning a " + std::to_string(b.queries[k].codes.size()) +
                                 " x " + std::to_string(b.refs[k].codes.size()) + " pair");
    } catch (const std::exception& e) {
        throw std::runtime_error(context + ": " + e.what());
    }
}

/// Aligns the pairs `indices` of `b` on the CPU (align_pairs_cpu: the SIMD
/// kernel in lane groups or the scalar reference, on `threads` threads).
/// Callers keep pairs above full_matrix_cells out: align_pair would spread
/// those over every core inside this call.
void align_on_cpu(const Batch& b, const std::vector<std::size_t>& indices, const ScoringScheme& s, AlignMode mode,
                  bool score_only, CpuKernel kernel, int threads, std::vector<AlignmentResult>& out) {
    std::vector<PairView> pairs;
    pairs.reserve(indices.size());
    for (const std::size_t k : indices) pairs.push_back({b.queries[k].codes, b.refs[k].codes});
    std::vector<AlignmentResult> results(indices.size());
    try {
        align_pairs_cpu(pairs, s, mode, score_only, kernel, threads, results);
    } catch (const PairFailure& f) {
        try {
            std::rethrow_exception(f.cause);
        } catch (...) {
            rethrow_for_pair(b, indices[f.index]);
        }
    }
    for (std::size_t n = 0; n < indices.size(); ++n) out[indices[n]] = std::move(results[n]);
}

/// One GPU worker of the backend: the engines of one device (ordinal) and
/// what it did, for the -v log. A device listed twice in --devices has two.
struct GpuWorker {
    int device = 0;
    std::unique_ptr<gpu::Engine> engine;
    std::unique_ptr<gpu::LongEngine> long_engine;  // created at its first long pair
    /// Measured speed of its batch engine (DP cells per kernel millisecond,
    /// smoothed); 0 until its first share is collected.
    double cells_per_ms = 0;
    std::uint64_t batch_pairs = 0, batch_cells = 0, long_pairs = 0, long_cells = 0;
    double batch_kernel_ms = 0, long_kernel_ms = 0;
};

/// Adds the counters of `b` to `a` (the run's profile over every GPU).
void add_profile(gpu::EngineProfile& a, const gpu::EngineProfile& b) {
    a.batches += b.batches;
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
}

/// A backend: the CPU, or the GPU engines (batch and long-pair) of one or
/// more GPUs, with the CPU for pairs none can take.
///
/// Routing of each pair (query_len * ref_len = its cells):
///  - GPU: the batch engines (gpu::Engine, a warp per pair) take the pairs
///    every one accepts below Defaults::long_pair_cells; the others go to the
///    long-pair engines (gpu::LongEngine), created at a GPU's first such
///    pair: one alone across a whole GPU, several together (align_many).
///    A pair the long engine refuses for a --gpu-memory cap too small for it
///    is aligned on the CPU's long-pair path instead (counted in
///    cpu_fallback).
///  - Several GPUs (--devices): each batch's pairs for the batch engines are
///    cut into consecutive runs, one per GPU, in proportion to each GPU's
///    measured speed (DP cells per kernel millisecond, from the runs it
///    finished), so a slower GPU takes fewer; a batch's long pairs are
///    dealt to the GPUs, the longest first to the least loaded, and the
///    GPUs align their shares at the same time. Every engine's results are
///    canonical, so which GPU aligns a pair never changes its bytes.
///  - CPU: pairs up to full_matrix_cells run align_pair in parallel over
///    pairs; larger ones run align_pair_long one at a time on every thread,
///    outside that loop (no nested parallelism).
/// Long pairs show a progress line on stderr (ProgressLine) when asked.
class Aligner {
public:
    /// Readies the GPUs of c.gpu_devices(), or the CPU backend. The GPUs'
    /// batch engines start at the first batch with pairs for them
    /// (start_batch_engines), their long-pair engines at their first long
    /// pair: a run of long pairs only never allocates the batch engines'
    /// buffers (13.6 GB of device memory and pinned host buffers on an H100,
    /// about 40 ms of start-up and more at exit).
    /// @param engine_threads  host threads of each GPU batch engine (packing, results).
    /// @throws std::runtime_error for an ordinal that is not visible, or a
    ///         device whose properties cannot be read.
    Aligner(const AlignConfig& c, const ScoringScheme& s, int engine_threads)
        : scheme_(s), mode_(c.mode), score_only_(c.score_only), cpu_kernel_(c.cpu_kernel),
          long_engine_memory_(c.long_engine_memory()), capped_(c.gpu_memory != 0),
          progress_(stderr,
                    c.progress == ProgressChoice::always ||
                        (c.progress == ProgressChoice::automatic && ::isatty(STDERR_FILENO) == 1),
                    c.progress == ProgressChoice::always ? 0.0 : Defaults::progress_delay_s,
                    Defaults::progress_period_s) {
        threads_ = c.threads > 0 ? c.threads : omp_get_num_procs();
        bool use_gpu = false;
        const int visible = c.backend == BackendChoice::cpu ? 0 : gpu::device_count();
        if (c.backend == BackendChoice::gpu) {
            if (visible == 0) throw std::runtime_error("--backend gpu: no CUDA device is visible");
            use_gpu = true;
        } else if (c.backend == BackendChoice::automatic) {
            use_gpu = visible > 0;
            if (!use_gpu) spdlog::warn("no CUDA device is visible; using the CPU backend");
        }
        if (use_gpu) {
            const std::vector<int> devices = c.gpu_devices(visible);
            engine_options_.host_threads = engine_threads;
            engine_options_.gpu_memory_limit = c.batch_engine_memory();
            engine_options_.streams = c.engine_streams();
            for (const int d : devices) {
                auto worker = std::make_unique<GpuWorker>();
                worker->device = d;
                workers_.push_back(std::move(worker));
            }
            if (devices.size() == 1) {
                description_ = "gpu " + gpu::device_description(devices[0]);
                spdlog::info("using GPU {}", gpu::device_description(devices[0]));
            } else {
                description_ = std::to_string(devices.size()) + " gpus";
                for (std::size_t w = 0; w < devices.size(); ++w) {
                    const std::string about = gpu::device_description(devices[w]);
                    description_ += (w == 0 ? ": " : "; ") + std::to_string(devices[w]) + " " + about;
                    spdlog::info("using GPU {} {}", devices[w], about);
                }
                std::vector<int> sorted(devices);
                std::sort(sorted.begin(), sorted.end());
                if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
                    spdlog::warn("--devices lists device {} more than once: its workers share that GPU", *twice);
            }
        } else {
            description_ = "cpu (" + std::to_string(threads_) + " threads, " +
                           (cpu_kernel_ == CpuKernel::simd ? "simd " + simd_target() : std::string("scalar")) + ")";
        }
        progress_done_.assign(std::max<std::size_t>(1, workers_.size()), 0);
    }

    /// Starts the batch engine of every GPU worker at once (each on its own
    /// thread), once (again after a failed start); called at the first batch
    /// with pairs below Defaults::long_pair_cells.
    /// @throws what gpu::Engine's constructor throws (the first error).
    void start_batch_engines() {
        if (batch_engines_started_) return;
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::future<std::unique_ptr<gpu::Engine>>> starting;
        for (const auto& w : workers_)
            starting.push_back(std::async(std::launch::async, [this, d = w->device] {
                gpu::EngineOptions o = engine_options_;
                o.device = d;
                return std::make_unique<gpu::Engine>(scheme_, mode_, score_only_, o);
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
            const gpu::EngineMemory mem = w->engine->memory();
            spdlog::debug("GPU engine on device {}: {} streams, batches of up to {} bases / {} pairs / {} "
                          "traceback bytes; {} bytes of device memory (limit {}), {} allocation retries; "
                          "started in {:.3f} s",
                          w->device, mem.streams, mem.batch_bases, mem.batch_pairs, mem.traceback_bytes,
                          mem.device_bytes, mem.limit ? std::to_string(mem.limit) : std::string("none"),
                          mem.allocation_retries,
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    }

    /// One GPU's part of a batch: the pairs it aligns on its batch engine.
    struct Share {
        std::size_t worker = 0;
        std::vector<std::size_t> pairs;    // indices within the batch
        std::vector<gpu::PairView> views;  // read by the engine in align_async (and after a shrink, in collect)
        std::uint64_t cells = 0;
        gpu::Ticket ticket = 0;
    };

    /// A batch handed to the backend and not yet collected: on the GPU its
    /// device batches are in flight (gpu::Engine::align_async); the pairs
    /// for the CPU and the long-pair paths are aligned in collect().
    struct Pending {
        std::shared_ptr<const Batch> batch;
        std::vector<std::size_t> on_cpu, on_long;  // pair indices within the batch
        std::vector<std::vector<std::size_t>> dealt;  // GPU: on_long dealt to each worker (deal_long)
        std::vector<Share> shares;
    };

    /// Starts aligning `b` and returns without waiting for the GPUs (the CPU
    /// and long-pair paths do their work in collect()).
    Pending submit(std::shared_ptr<const Batch> b) {
        Pending p;
        p.batch = std::move(b);
        const Batch& batch = *p.batch;
        if (workers_.empty()) {
            for (std::size_t k = 0; k < batch.size(); ++k)
                (pair_cells(batch, k) > full_matrix_cells ? p.on_long : p.on_cpu).push_back(k);
            return p;
        }
        std::vector<std::size_t> on_gpu;
        std::vector<std::uint64_t> cells;
        on_gpu.reserve(batch.size());
        cells.reserve(batch.size());
        for (std::size_t k = 0; k < batch.size(); ++k) {
            const std::size_t m = batch.queries[k].codes.size(), n = batch.refs[k].codes.size();
            bool accepted = false;
            if (pair_cells(batch, k) < Defaults::long_pair_cells) {
                start_batch_engines();  // at the first such pair of the run
                accepted = std::all_of(workers_.begin(), workers_.end(),
                                       [&](const auto& w) { return w->engine->accepts(m, n); });
            }
            if (accepted) {
                on_gpu.push_back(k);
                cells.push_back(std::max<std::uint64_t>(1, pair_cells(batch, k)));
            } else {
                p.on_long.push_back(k);
            }
        }
        if (!p.on_long.empty()) {
            p.dealt = deal_long(batch, p.on_long);
            prepare_long_engines(batch, p.dealt);
        }
        // Shares in proportion to the measured speeds (equal until every GPU has one).
        std::vector<double> weights(workers_.size(), 1.0);
        if (std::all_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->cells_per_ms > 0; }))
            for (std::size_t w = 0; w < workers_.size(); ++w) weights[w] = workers_[w]->cells_per_ms;
        const std::vector<std::size_t> cuts = detail::proportional_cuts(cells, weights);
        for (std::size_t w = 0; w < workers_.size(); ++w) {
            if (cuts[w] == cuts[w + 1]) continue;
            Share s;
            s.worker = w;
            for (std::size_t i = cuts[w]; i < cuts[w + 1]; ++i) {
                const std::size_t k = on_gpu[i];
                s.pairs.push_back(k);
                s.views.push_back({batch.queries[k].codes, batch.refs[k].codes});
                s.cells += cells[i];
            }
            // The views point into p.batch, which outlives the share; moving
            // the vector keeps their storage where the engine saw it.
            s.ticket = workers_[w]->engine->align_async(s.views);
            p.shares.push_back(std::move(s));
        }
        return p;
    }

    /// The results of a submitted batch, in the batch's order. Submissions
    /// are collected in the order they were made.
    /// @throws std::runtime_error "pair N (query X, ref Y): message" when a
    ///         pair cannot be aligned; errors of the GPU engines as they come.
    std::vector<AlignmentResult> collect(Pending& p) {
        const Batch& b = *p.batch;
        std::vector<AlignmentResult> out(b.size());
        // CPU and long pairs first: the GPUs' batch engines keep working meanwhile.
        if (!p.on_cpu.empty()) align_on_cpu(b, p.on_cpu, scheme_, mode_, score_only_, cpu_kernel_, threads_, out);
        if (!p.on_long.empty()) {
            if (workers_.empty())
                for (const std::size_t k : p.on_long) out[k] = align_long_on_cpu(b, k);
            else
                align_long_on_gpus(b, p.on_long, p.dealt, out);
        }
        for (Share& s : p.shares) {
            GpuWorker& w = *workers_[s.worker];
            std::vector<AlignmentResult> got = w.engine->collect(s.ticket);
            const double ms = w.engine->last_kernel_ms();
            kernel_ms_ += ms;
            w.batch_kernel_ms += ms;
            w.batch_pairs += s.pairs.size();
            w.batch_cells += s.cells;
            if (ms > 0) {
                const double rate = static_cast<double>(s.cells) / ms;
                w.cells_per_ms = w.cells_per_ms > 0 ? 0.5 * (w.cells_per_ms + rate) : rate;
            }
            for (std::size_t n = 0; n < s.pairs.size(); ++n) out[s.pairs[n]] = std::move(got[n]);
        }
        return out;
    }

    const std::string& description() const noexcept { return description_; }
    /// Pairs aligned on the CPU by the GPU backend: those the long-pair
    /// engines refused under a --gpu-memory cap, plus those the batch engines
    /// aligned on the host after shrinking their buffers (0 on the CPU backend).
    std::uint64_t cpu_fallback() const noexcept {
        std::uint64_t n = cpu_fallback_;
        for (const auto& w : workers_)
            if (w->engine) n += w->engine->memory().host_pairs;
        return n;
    }
    /// Pairs aligned one at a time by a long-pair path (GPU: the long-pair
    /// engines; CPU: align_pair_long on every thread).
    std::uint64_t long_pairs() const noexcept {
        std::uint64_t n = cpu_long_pairs_;
        for (const auto& w : workers_) n += w->long_pairs;
        return n;
    }
    /// The GPU engines' profile, summed over the GPUs (all zero on the CPU).
    gpu::EngineProfile engine_profile() const noexcept {
        gpu::EngineProfile e;
        for (const auto& w : workers_)
            if (w->engine) add_profile(e, w->engine->profile());
        return e;
    }
    /// Sum of Engine::last_kernel_ms over the batches and GPUs (0 on the CPU).
    double kernel_ms() const noexcept { return kernel_ms_; }
    /// Device milliseconds of the long-pair engines' passes (0 on the CPU).
    double long_engine_ms() const noexcept {
        double ms = 0;
        for (const auto& w : workers_) ms += w->long_kernel_ms;
        return ms;
    }
    int threads() const noexcept { return threads_; }

    /// Logs (debug, -v) the work each GPU did.
    void log_devices() const {
        for (const auto& w : workers_)
            spdlog::debug("device {}: {} pairs ({:.3e} cells) on the batch engine, {:.3f} s of kernels ({:.1f} "
                          "GCUPS); {} long pairs ({:.3e} cells), {:.3f} s of long-engine kernels",
                          w->device, w->batch_pairs, static_cast<double>(w->batch_cells), w->batch_kernel_ms / 1e3,
                          w->batch_kernel_ms > 0 ? static_cast<double>(w->batch_cells) / w->batch_kernel_ms / 1e6 : 0.0,
                          w->long_pairs, static_cast<double>(w->long_cells), w->long_kernel_ms / 1e3);
    }

private:
    /// The progress of GPU worker `w` (or of the CPU's long path, w = 0):
    /// the line shows the sum over the workers.
    void report_progress(std::size_t w, std::uint64_t done) {
        std::lock_guard lock(progress_mutex_);
        progress_done_[w] = done;
        std::uint64_t sum = 0;
        for (const std::uint64_t d : progress_done_) sum += d;
        progress_.update(sum, progress_total_);
    }

    void begin_progress(std::string label, std::uint64_t cells) {
        std::lock_guard lock(progress_mutex_);
        std::fill(progress_done_.begin(), progress_done_.end(), 0);
        progress_total_ = cells;
        progress_.begin(std::move(label), cells);
    }

    void end_progress(bool succeeded) {
        std::lock_guard lock(progress_mutex_);
        progress_.end(succeeded);
    }

    /// Aligns pair k of b on the CPU's long-pair path, with the progress
    /// line. @throws std::runtime_error naming the pair.
    AlignmentResult align_long_on_cpu(const Batch& b, std::size_t k) {
        begin_progress(progress_label(b, k), pair_cells(b, k));
        try {
            AlignmentResult res = align_on_cpu_long(b.queries[k].codes, b.refs[k].codes, 0);
            end_progress(true);
            ++cpu_long_pairs_;
            return res;
        } catch (...) {
            end_progress(false);
            rethrow_for_pair(b, k);
        }
    }

    /// align_pair_long on every thread, reporting to the progress line as
    /// worker `w`. Memory: the default bound (512 MiB) for checkpoints and
    /// tiles, raised for very long pairs to the floor documented in
    /// long_aligner.hpp (about 32 bytes per base of query + ref) plus 64 MiB,
    /// so that length alone never makes a pair fail.
    AlignmentResult align_on_cpu_long(std::span<const std::uint8_t> q, std::span<const std::uint8_t> r,
                                      std::size_t w) {
        LongAlignOptions options;
        options.threads = threads_;
        options.kernel = cpu_kernel_;
        const std::size_t bases = q.size() + r.size();
        if (bases < (SIZE_MAX - (std::size_t{64} << 20)) / 32)
            options.memory_limit = std::max(options.memory_limit, 32 * bases + (std::size_t{64} << 20));
        if (progress_.enabled())
            options.progress = [this, w](std::uint64_t done, std::uint64_t) { report_progress(w, done); };
        return align_pair_long(q, r, scheme_, mode_, score_only_, options);
    }

    /// The long pairs `ks` of b dealt to the GPU workers: one GPU takes them
    /// all; with several, longest first to the GPU with the fewest cells so
    /// far. Each worker's pairs in batch order.
    std::vector<std::vector<std::size_t>> deal_long(const Batch& b, const std::vector<std::size_t>& ks) const {
        std::vector<std::vector<std::size_t>> dealt(workers_.size());
        std::vector<std::uint64_t> load(workers_.size(), 0);
        std::vector<std::size_t> longest(ks);
        std::stable_sort(longest.begin(), longest.end(),
                         [&](std::size_t x, std::size_t y) { return pair_cells(b, x) > pair_cells(b, y); });
        for (const std::size_t k : longest) {
            const std::size_t w = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            dealt[w].push_back(k);
            load[w] += std::max<std::uint64_t>(1, pair_cells(b, k));
        }
        for (auto& d : dealt) std::sort(d.begin(), d.end());
        return dealt;
    }

    /// Creates the long-pair engine of each GPU dealt long pairs (at its
    /// first) and readies those dealt several (LongEngine::prepare), the
    /// GPUs at the same time. Called before the batch engines' kernels of the
    /// same batch start: the engine's first kernel loads and its workers'
    /// pinned buffers wait for the whole device, so done while those kernels
    /// run they waited for them (about 60 ms on the bulk 5-50 kb pairs).
    /// An error here is left to the alignment, which repeats the same steps
    /// and reports it with its pair.
    void prepare_long_engines(const Batch& b, const std::vector<std::vector<std::size_t>>& dealt) {
        const auto prepare = [&](std::size_t w) {
            try {
                std::vector<gpu::LongPair> pairs;
                pairs.reserve(dealt[w].size());
                for (const std::size_t k : dealt[w]) pairs.push_back({b.queries[k].codes, b.refs[k].codes});
                gpu::LongEngine& engine = long_engine(w);
                const auto t0 = Clock::now();
                engine.prepare(pairs);
                spdlog::debug("device {}: long-pair engine readied for {} pairs in {:.1f} ms", workers_[w]->device,
                              pairs.size(), 1e3 * seconds_since(t0));
            } catch (...) {
                spdlog::debug("device {}: readying the long-pair engine failed; align_many tries again",
                              workers_[w]->device);
            }
        };
        on_dealt_gpus(dealt, prepare);
    }

    /// Calls fn(w) for each GPU worker w dealt at least one pair, the GPUs
    /// at the same time (a thread each; on the calling thread when only one
    /// is dealt any), and returns when every call has. fn must not throw.
    template <typename Fn>
    static void on_dealt_gpus(const std::vector<std::vector<std::size_t>>& dealt, const Fn& fn) {
        std::vector<std::size_t> busy;
        for (std::size_t w = 0; w < dealt.size(); ++w)
            if (!dealt[w].empty()) busy.push_back(w);
        if (busy.size() == 1) {
            fn(busy[0]);
        } else {
            std::vector<std::jthread> threads;
            for (const std::size_t w : busy) threads.emplace_back(fn, w);
        }
    }

    /// Aligns the long pairs `ks` of b on the GPUs' long-pair engines, with
    /// one progress line for them all: each GPU its pairs `dealt` (deal_long),
    /// the GPUs at the same time (a thread each). A GPU given one pair aligns
    /// it alone across the whole GPU, one given several aligns them together
    /// (LongEngine::align_many).
    /// @throws std::runtime_error naming the first pair (in batch order)
    ///         whose error ended the run.
    void align_long_on_gpus(const Batch& b, const std::vector<std::size_t>& ks,
                            const std::vector<std::vector<std::size_t>>& dealt, std::vector<AlignmentResult>& out) {
        std::uint64_t cells = 0, lowest = b.number(ks.front()), highest = lowest;
        for (const std::size_t k : ks) {
            cells += pair_cells(b, k);
            lowest = std::min(lowest, b.number(k));
            highest = std::max(highest, b.number(k));
        }
        begin_progress(ks.size() == 1 ? progress_label(b, ks.front())
                                      : std::to_string(ks.size()) + " long pairs (pairs " + std::to_string(lowest) +
                                            " to " + std::to_string(highest) + ")",
                       cells);
        // Each GPU's first failing pair (in batch order) and its error.
        std::vector<std::size_t> failed_pair(workers_.size(), b.size());
        std::vector<std::exception_ptr> failure(workers_.size());
        const auto run = [&](std::size_t w) {
            try {
                if (dealt[w].size() == 1)
                    out[dealt[w][0]] = align_one_on_long_engine(w, b, dealt[w][0]);
                else
                    align_many_on_long_engine(w, b, dealt[w], out, failed_pair[w]);
            } catch (...) {
                failure[w] = std::current_exception();
                if (failed_pair[w] == b.size()) failed_pair[w] = dealt[w].front();
            }
        };
        on_dealt_gpus(dealt, run);
        std::size_t first = workers_.size();
        for (std::size_t w = 0; w < workers_.size(); ++w)
            if (failure[w] && (first == workers_.size() || failed_pair[w] < failed_pair[first])) first = w;
        end_progress(first == workers_.size());
        if (first != workers_.size()) std::rethrow_exception(failure[first]);
    }

    /// Creates GPU worker w's long-pair engine at its first long pair.
    gpu::LongEngine& long_engine(std::size_t w) {
        GpuWorker& g = *workers_[w];
        if (!g.long_engine) {
            gpu::LongEngineOptions options;
            options.device = g.device;
            options.gpu_memory_limit = long_engine_memory_;
            if (progress_.enabled())
                options.progress = [this, w](std::uint64_t done, std::uint64_t) { report_progress(w, done); };
            const auto t0 = Clock::now();
            g.long_engine = std::make_unique<gpu::LongEngine>(scheme_, mode_, score_only_, options);
            spdlog::debug("GPU long-pair engine started on device {} in {:.1f} ms (device memory limit {})", g.device,
                          1e3 * seconds_since(t0),
                          long_engine_memory_ ? std::to_string(long_engine_memory_) : std::string("90% of free"));
        }
        return *g.long_engine;
    }

    /// Pair k of b alone on worker w's long-pair engine.
    /// @throws std::runtime_error naming the pair.
    AlignmentResult align_one_on_long_engine(std::size_t w, const Batch& b, std::size_t k) {
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

    /// The pairs `ks` of b together on worker w's long-pair engine
    /// (LongEngine::align_many). `failed` is set to the pair whose error is
    /// thrown. @throws std::runtime_error naming that pair.
    void align_many_on_long_engine(std::size_t w, const Batch& b, const std::vector<std::size_t>& ks,
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
        spdlog::debug("{} pairs on the long-pair engine of device {}, {} at once: {} passes, {:.3f} s of kernels "
                      "(summed over streams), {:.3f} s wall (setup {:.1f} ms, tail {:.1f} ms; summed over workers: pairs "
                      "{:.1f} s, launches {:.1f} s, walks {:.1f} s, copies {:.1f} s, {} device allocations {:.1f} ms, {} "
                      "pinned {:.1f} ms; first pairs {:.1f} s, their kernels {:.1f} s), {:.1f} MB of device memory at most",
                      ks.size(), g.device, st.workers, st.passes, st.total_ms / 1000.0, st.wall_s, st.setup_ms,
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

    /// What a pair the long engine failed gets: a pair too large for the long
    /// engine's share of a --gpu-memory cap goes to the CPU (as pairs too
    /// large for the batch engine under a cap always have); every other
    /// error, the 32-bit score bound included, is the run's error.
    /// @throws `error` itself, or what the CPU path throws (callers name the pair).
    AlignmentResult long_engine_failed(std::size_t w, const Batch& b, std::size_t k, const std::exception_ptr& error) {
        const std::span<const std::uint8_t> q = b.queries[k].codes, r = b.refs[k].codes;
        std::string why;
        try {
            std::rethrow_exception(error);
        } catch (const std::length_error& e) {
            if (!capped_ || !fits_int32(scheme_, q.size(), r.size())) throw;
            why = e.what();
        }
        spdlog::warn("{}: {}; aligning it on the CPU (raise --gpu-memory to keep it on the GPU)", pair_context(b, k),
                     why);
        ++cpu_fallback_;
        return align_on_cpu_long(q, r, w);
    }

    const ScoringScheme& scheme_;
    AlignMode mode_;
    bool score_only_;
    CpuKernel cpu_kernel_;
    std::size_t long_engine_memory_ = 0;
    bool capped_ = false;
    int threads_ = 1;
    std::vector<std::unique_ptr<GpuWorker>> workers_;  // empty on the CPU backend
    gpu::EngineOptions engine_options_;                 // of the batch engines (device set per worker)
    bool batch_engines_started_ = false;
    std::string description_;
    ProgressLine progress_;
    std::mutex progress_mutex_;                  // the GPUs' long-pair threads report at once
    std::vector<std::uint64_t> progress_done_;   // per worker, of the current progress line
    std::uint64_t progress_total_ = 0;
    std::atomic<std::uint64_t> cpu_fallback_{0};
    std::uint64_t cpu_long_pairs_ = 0;
    double kernel_ms_ = 0.0;
};

/// Seconds each stage spent, for the debug log. "busy" is time inside the
/// stage's work; "waited" is time the aligning (main) thread waited for it.
struct StageTimes {
    double open = 0;          ///< opening both inputs and detecting the alphabet (main thread)
    double init = 0;          ///< backend start (CUDA context, Engine buffers) on its own thread
    double cuda_start = 0;    ///< CUDA's start (driver, contexts), from the run's start, on a thread of its own
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
    double loop = 0;          ///< from the backend being ready until the last batch was written
    std::size_t batches = 0;
};

/// Threads of each pipeline stage (OpenMP team sizes), from --threads.
struct PipelineThreads {
    int read = 1;    ///< parsing both input files (one team)
    int engine = 1;  ///< GPU engine: packing batches and building results
    int write = 1;   ///< formatting output lines
};

/// The stages run at the same time: reading (the heaviest host stage on a
/// GPU run) gets all threads, formatting half and the engine's host work a
/// quarter. (The CPU backend aligns on all threads.)
PipelineThreads split_threads(int threads) {
    PipelineThreads p;
    p.read = threads;
    p.engine = std::max(1, threads / 4);
    p.write = std::max(1, threads / 2);
    return p;
}

/// Batches parsed ahead of the aligner, and aligned batches waiting for the writer.
constexpr std::size_t read_ahead = 2;
constexpr std::size_t write_behind = 1;

/// A bounded first-in first-out hand-over between two pipeline threads.
template <typename T>
class Channel {
public:
    explicit Channel(std::size_t capacity) : capacity_(capacity) {}

    /// Blocks while the channel is full. False (and `item` dropped) once aborted.
    bool push(T item) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return aborted_ || items_.size() < capacity_; });
        if (aborted_) return false;
        items_.push_back(std::move(item));
        changed_.notify_all();
        return true;
    }
    /// Blocks while the channel is empty and open. Nothing once aborted, or
    /// once finished and empty.
    std::optional<T> pop() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return aborted_ || finished_ || !items_.empty(); });
        if (aborted_ || items_.empty()) return std::nullopt;
        T item = std::move(items_.front());
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
    /// Stops both sides now: push() fails, pop() returns nothing.
    void abort() {
        std::lock_guard lock(mutex_);
        aborted_ = true;
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<T> items_;
    std::size_t capacity_;
    bool finished_ = false, aborted_ = false;
};

/// A batch read for the aligner, or the error that ended reading.
struct ReadItem {
    Batch batch;               ///< empty at the end of both files
    std::exception_ptr error;
};

/// An aligned batch for the writer.
struct WriteItem {
    std::shared_ptr<const Batch> batch;  ///< its blocks return to the readers when the writer lets go of it
    std::vector<AlignmentResult> results;
};

void log_stages(const StageTimes& t, const RunStats& stats, const PipelineThreads& split, bool parallel_read,
                double kernel_ms, const gpu::EngineProfile& e) {
    spdlog::debug("stages (s): open+detect {:.3f}; CUDA start {:.3f} from the run's start; backend init {:.3f} after "
                  "open+detect (main waited {:.3f}); first batch aligned at {:.3f}; {} batches, loop {:.3f}",
                  t.open, t.cuda_start, t.init, t.init_waited, t.first_aligned, t.batches, t.loop);
    spdlog::debug("stages (s): read {:.3f} busy on {} threads{} (aligner waited {:.3f}); align {:.3f} busy (GPU "
                  "kernels {:.3f}, engine host threads {}); format {:.3f} on {} threads + write {:.3f} (aligner waited "
                  "{:.3f}); commit {:.3f}; teardown {:.3f}; total {:.3f}",
                  t.read, split.read, parallel_read ? "" : " (serial parse)", t.read_waited, t.align,
                  kernel_ms / 1000.0, split.engine, t.format, split.write, t.write, t.write_waited, t.commit,
                  t.teardown, stats.seconds);
    if (e.batches > 0)
        spdlog::debug("GPU engine (s): {} device batches; host: order {:.3f}, pack {:.3f}, wait {:.3f}, results {:.3f}; "
                      "device: copies in {:.3f} ({:.1f} MB), kernels {:.3f}, copies out {:.3f} ({:.1f} MB)",
                      e.batches, e.order_s, e.pack_s, e.wait_s, e.results_s, e.h2d_ms / 1000.0, e.h2d_bytes / 1e6,
                      e.kernel_ms / 1000.0, e.d2h_ms / 1000.0, e.d2h_bytes / 1e6);
}

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

void check_strand_choice(StrandChoice strand, const ScoringScheme& s) {
    if (strand == StrandChoice::plus) return;
    if (s.alphabet != Alphabet::dna) throw OptionError(protein_strand_error);
    const std::string_view letters = dna_code_letters;
    for (std::uint8_t code = 0; code < s.size; ++code) {
        const std::uint8_t other = complement_code(code);
        if (!(s.undefined_codes >> code & 1) && (s.undefined_codes >> other & 1))
            throw OptionError(std::string("--strand both: matrix ") + s.matrix_name + " scores " + letters[code] +
                              " but not its complement " + letters[other] +
                              ", which the reverse complement of a query holds");
    }
}

RunStats run_alignment(const AlignConfig& c) {
    const auto start = Clock::now();
    StageTimes t;
    const int threads = c.threads > 0 ? c.threads : omp_get_num_procs();
    const PipelineThreads split = split_threads(threads);
    // CUDA's start (the driver and each device's context: the slowest step of
    // a short run) goes on while the inputs are opened and their alphabet
    // detected; the backend below waits for it.
    std::future<void> cuda_started;
    if (c.backend != BackendChoice::cpu)
        cuda_started = std::async(std::launch::async, [&c, &t, start] {
            const int visible = gpu::device_count();
            if (visible > 0) {
                try {
                    gpu::start_devices(c.gpu_devices(visible));
                } catch (...) {
                    // A bad ordinal: the backend reports it.
                }
            }
            t.cuda_start = seconds_since(start);
        });
    PairReader reader(c, split.read);
    const Alphabet alphabet = reader.alphabet();
    const ScoringScheme scheme = resolve_scoring(c, alphabet);
    reader.set_dna_codes(scheme.dna_codes);
    check_strand_choice(c.strand, scheme);
    t.open = seconds_since(start);
    spdlog::debug("{} alignment, {} alphabet, matrix {}, gap_open {}, gap_extend {}", to_string(c.mode),
                  to_string(alphabet), scheme.matrix_name, scheme.gap_open, scheme.gap_extend);

    if (alphabet == Alphabet::protein && c.output_format() == OutputFormat::sam)
        spdlog::warn("{}", protein_sam_warning);
    WriterOptions wopt;
    wopt.format = c.output_format();
    wopt.score_only = c.score_only;
    wopt.sam_cigar_m = c.sam_cigar_m;
    if (wopt.format == OutputFormat::blast6) {
        wopt.statistics = alignment_statistics(scheme, c.mode);
        if (!wopt.statistics) spdlog::warn("{}", missing_statistics_warning(scheme, c.mode));
    }
    wopt.command_line = c.command_line;
    AlignmentWriter writer(c.out_path, wopt);

    // Three threads, each with its own OpenMP team, joined by bounded
    // channels: the reader parses up to read_ahead batches ahead, this
    // thread aligns, the writer formats and writes in input order. The
    // backend (CUDA context and Engine buffers: the slowest start-up step on
    // a GPU) starts on a fourth thread meanwhile.
    std::future<std::unique_ptr<Aligner>> aligner_ready = std::async(std::launch::async, [&c, &scheme, &t, split, &cuda_started] {
        const auto t0 = Clock::now();
        if (cuda_started.valid()) cuda_started.wait();
        auto a = std::make_unique<Aligner>(c, scheme, split.engine);
        t.init = seconds_since(t0);
        return a;
    });
    Channel<ReadItem> to_align(read_ahead);
    Channel<WriteItem> to_write(write_behind);
    std::exception_ptr write_error;
    {
        // Both joined before leaving this block (after the channels are aborted on error).
        std::jthread reading([&] {
            try {
                while (true) {
                    const auto t0 = Clock::now();
                    ReadItem item{reader.next(), nullptr};
                    if (scheme.undefined_codes)  // a matrix file without some letters: only their use is an error
                        for (std::size_t k = 0; k < item.batch.size(); ++k) {
                            check_letters(scheme, item.batch.queries[k], c.query_path);
                            check_letters(scheme, item.batch.refs[k], c.ref_path);
                        }
                    if (c.strand == StrandChoice::both) add_reverse_strand(item.batch);
                    t.read += seconds_since(t0);
                    const bool end = item.batch.size() == 0;
                    if (!to_align.push(std::move(item)) || end) return;
                }
            } catch (...) {
                to_align.push(ReadItem{Batch{}, std::current_exception()});
            }
        });
        std::jthread writing([&] {
            try {
                while (std::optional<WriteItem> item = to_write.pop()) {
                    // The results are the input pairs' (keep_better_strands), the batch's first pairs.
                    const std::size_t n = item->results.size();
                    const BatchWriteTimes wt = writer.write_batch(std::span(item->batch->queries).first(n),
                                                                  std::span(item->batch->refs).first(n), item->results,
                                                                  split.write);
                    t.format += wt.format_seconds;
                    t.write += wt.write_seconds;
                }
            } catch (...) {
                write_error = std::current_exception();
                to_write.abort();
            }
        });
        try {
            const auto wait0 = Clock::now();
            std::unique_ptr<Aligner> aligner = aligner_ready.get();
            t.init_waited = seconds_since(wait0);
            const auto loop0 = Clock::now();
            RunStats stats;
            // The run's progress line (after each aligned batch), enabled as the long pairs' line is.
            RunProgress progress(stderr,
                                 c.progress == ProgressChoice::always ||
                                     (c.progress == ProgressChoice::automatic && ::isatty(STDERR_FILENO) == 1),
                                 c.progress == ProgressChoice::always ? 0.0 : Defaults::progress_delay_s,
                                 Defaults::progress_period_s);
            std::uint64_t pairs_done = 0, cells_done = 0;
            // One batch stays submitted while the next is read and submitted,
            // so that the GPU is not idle between batches.
            std::optional<Aligner::Pending> in_flight;
            // Collects the batch in flight and hands it to the writer; false when the writer failed.
            const auto hand_over = [&]() -> bool {
                const auto a0 = Clock::now();
                WriteItem out;
                out.results = aligner->collect(*in_flight);
                keep_better_strands(*in_flight->batch, out.results);
                out.batch = std::move(in_flight->batch);
                in_flight.reset();
                pairs_done += out.batch->input_pairs();
                for (std::size_t k = 0; k < out.batch->size(); ++k) cells_done += pair_cells(*out.batch, k);
                progress.update(pairs_done, cells_done);
                t.align += seconds_since(a0);
                const auto w0 = Clock::now();
                const bool taken = to_write.push(std::move(out));
                t.write_waited += seconds_since(w0);
                return taken;
            };
            bool writer_failed = false;
            while (true) {
                const auto r0 = Clock::now();
                std::optional<ReadItem> item = to_align.pop();
                t.read_waited += seconds_since(r0);
                if (!item) break;  // not reached: the reader always ends with an end or error item
                if (item->error) std::rethrow_exception(item->error);
                if (item->batch.size() == 0) break;
                if (t.batches++ == 0) t.first_aligned = seconds_since(start);
                auto batch = std::make_shared<const Batch>(std::move(item->batch));
                for (std::size_t k = 0; k < batch->size(); ++k)
                    stats.cells += static_cast<std::uint64_t>(batch->queries[k].codes.size()) * batch->refs[k].codes.size();
                stats.pairs += batch->input_pairs();  // cells (above) count both strands' DP cells
                const auto a0 = Clock::now();
                Aligner::Pending submitted = aligner->submit(std::move(batch));
                t.align += seconds_since(a0);
                if (in_flight && !hand_over()) {
                    writer_failed = true;  // write_error is set
                    break;
                }
                in_flight = std::move(submitted);
            }
            if (in_flight && !writer_failed) hand_over();
            progress.finish();
            to_align.abort();  // the reader has pushed its last item, or must stop after a write failure
            const auto w0 = Clock::now();
            to_write.finish();
            reading.join();
            writing.join();
            t.write_waited += seconds_since(w0);
            if (write_error) std::rethrow_exception(write_error);
            t.loop = seconds_since(loop0);
            const auto c0 = Clock::now();
            writer.commit();
            t.commit = seconds_since(c0);
            stats.cpu_fallback = aligner->cpu_fallback();
            stats.long_pairs = aligner->long_pairs();
            if (stats.cpu_fallback > 0)
                spdlog::info("{} pairs did not fit the GPU engines' --gpu-memory and were aligned on the CPU",
                             stats.cpu_fallback);
            aligner->log_devices();
            if (aligner->long_engine_ms() > 0)
                spdlog::debug("GPU long-pair engine: {:.3f} s of kernels", aligner->long_engine_ms() / 1000.0);
            stats.backend = aligner->description();
            const double kernel_ms = aligner->kernel_ms();
            const gpu::EngineProfile engine_profile = aligner->engine_profile();
            const auto d0 = Clock::now();
            aligner.reset();
            t.teardown = seconds_since(d0);
            stats.seconds = seconds_since(start);
            log_stages(t, stats, split, reader.parallel(), kernel_ms, engine_profile);
            return stats;
        } catch (...) {
            to_align.abort();
            to_write.abort();
            throw;
        }
    }
}

int cuda_hardware_queues(const AlignConfig& c) noexcept {
    const bool one_pair = !c.search && c.strand == StrandChoice::plus &&
                          holds_one_fasta_record(c.query_path, single_pair_peek_bytes) &&
                          holds_one_fasta_record(c.ref_path, single_pair_peek_bytes);
    return one_pair ? 1 : std::max(4, c.engine_streams());
}

}  // namespace gpualign
