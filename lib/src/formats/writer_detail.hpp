// gpualign — what the writers of src/formats share (internal to lib/): the
// interface every format implements behind AlignmentWriter, the factories of
// the formats (one writer a file), temporary files, the coordinate check, the
// CIGAR text and the parallel formatting of a batch.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpualign/formats/sam_references.hpp"
#include "gpualign/formats/writers.hpp"
#include "gpualign/model/strand.hpp"

namespace gpualign {

/// The format implementations derive from this.
class AlignmentWriter::Impl {
public:
    virtual ~Impl() = default;
    virtual void add_reference(std::string_view name, std::uint64_t length) = 0;
    virtual void write(const RecordView& q, const RecordView& r, const AlignmentResult& res) = 0;
    /// A search hit (AlignmentWriter::write_hit): as write() unless the format marks secondary hits (SAM).
    virtual void write_hit(const RecordView& q, const RecordView& r, const AlignmentResult& res, bool /*secondary*/) {
        write(q, r, res);
    }
    virtual BatchWriteTimes write_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                                        std::span<const AlignmentResult> res, int threads) = 0;
    /// The whole reference dictionary before any record (SAM); the other formats have none.
    virtual void set_references(SamReferences /*refs*/) {}
    virtual void commit() = 0;
};

namespace format_detail {

// ---- the formats (alignment_writer.cpp picks one) ---------------------------

/// TSV (tsv_writer.cpp): tsv_header, then one line a pair.
std::unique_ptr<AlignmentWriter::Impl> make_tsv_writer(const std::string& path, const WriterOptions& options);
/// PAF (paf_writer.cpp): one line an aligned pair.
std::unique_ptr<AlignmentWriter::Impl> make_paf_writer(const std::string& path, const WriterOptions& options);
/// BLAST tabular (blast6_writer.cpp): one line an aligned pair.
std::unique_ptr<AlignmentWriter::Impl> make_blast6_writer(const std::string& path, const WriterOptions& options);
/// SAM (sam_writer.cpp): header, then one record a pair.
std::unique_ptr<AlignmentWriter::Impl> make_sam_writer(const std::string& path, const WriterOptions& options);

/// Appends the line of one pair (with its '\n', or nothing for a pair the
/// format leaves out) to `line`.
using LineFormat = void (*)(const RecordView& q, const RecordView& r, const AlignmentResult& res,
                            const WriterOptions& options, fmt::memory_buffer& line);

/// A writer of one text line a pair (TSV, PAF, BLAST tabular; line_writer.cpp):
/// `header` and '\n' first unless empty, then the lines in call order
/// (write_batch formats them in parallel), to an OutputFile at `path`.
/// @throws OutputError as OutputFile.
std::unique_ptr<AlignmentWriter::Impl> make_line_writer(const std::string& path, std::string_view header,
                                                        LineFormat format, const WriterOptions& options);

// ---- output files (output_file.cpp) ------------------------------------------

/// `path`, or "<stdout>" for "-": how messages name an output.
std::string shown_output(const std::string& path);

/// The file `path` names once symbolic links are followed (at most 40; a
/// dangling link gives the path it points to); `path` itself when it is
/// not a link. Does not throw.
std::string link_target(const std::string& path);

/// Creates a new file named `dir/.base.PID.N.tmp` (O_EXCL, mode 0666 less
/// the umask), write-only or, with `read_write`, read-write. Returns the fd
/// and the name; throws OutputError on failure.
std::pair<int, std::string> create_temp(const std::filesystem::path& dir, const std::string& base,
                                        const std::string& for_path, bool read_write = false);

// ---- fields several formats share (text_fields.cpp) ---------------------------

/// A sequence name as messages show it: whole up to 80 bytes, else its
/// first 60 bytes (not cutting a UTF-8 character), "..." and its length.
std::string shown_name(std::string_view name);

/// @throws std::logic_error when `res` has coordinates outside the two sequences.
void check_coordinates(const RecordView& q, const RecordView& r, const AlignmentResult& res);

/// True for the result of a pair without an alignment (empty query interval).
inline bool is_unaligned(const AlignmentResult& res) noexcept { return res.query_begin == res.query_end; }

/// The query interval of `res` on the query's forward strand (strand.hpp):
/// the result's own for plus, mirrored for minus.
inline Interval forward_query(const RecordView& q, const AlignmentResult& res) noexcept {
    return forward_interval(res.strand, res.query_begin, res.query_end, static_cast<std::int64_t>(q.sequence.size()));
}

/// Appends `cigar` with M for its = and X runs, adjacent ones merged (SAM's
/// alignment match), I and D as they are.
void append_cigar_m(std::span<const std::uint32_t> cigar, fmt::memory_buffer& out);

/// Appends the CIGAR text of `cigar`, the same bytes as cigar_string: run
/// lengths below 100 (nearly all of them) from a table, longer ones through
/// fmt::format_int.
void append_cigar(std::span<const std::uint32_t> cigar, fmt::memory_buffer& out);

// ---- parallel formatting ------------------------------------------------------

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Formats pairs [0, n) with `format(k, buffer)` on up to `threads` threads
/// into buffers of consecutive pairs, and hands the buffers to the output in
/// order as soon as each and those before it are formatted, so that writing
/// overlaps the formatting of later buffers:
///  - with `positional` (an OutputFile::positional() output), each buffer's
///    region is reserved in order and written with OutputFile::write_at by
///    the thread that formatted it, the buffers in parallel;
///  - otherwise (nullptr) `write` takes the buffers in order, one at a time,
///    on the thread that completed the run of them.
/// A pair whose formatting throws ends its buffer; its error is rethrown
/// after the buffers before it (and its own first part) are written, and
/// nothing after it is. A write error is rethrown the same way, the first
/// in pair order. `buffers` are kept by the caller from batch to batch, so
/// that their memory is reused rather than grown (and first touched) again
/// each time; `bytes(k)`, an estimate of pair k's bytes, sizes each buffer
/// once before its pairs are formatted (growing by doubling copies the text
/// each time).
template <typename Format, typename Write, typename Bytes>
BatchWriteTimes format_in_parallel(std::size_t n, int threads, std::vector<fmt::memory_buffer>& buffers,
                                   Format&& format, Write&& write, Bytes&& bytes, OutputFile* positional = nullptr) {
    BatchWriteTimes times;
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t chunks = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(threads, 1)) * 4);
    if (buffers.size() < chunks) buffers.resize(chunks);
    std::vector<std::exception_ptr> errors(chunks);
    std::vector<std::uint8_t> formatted(chunks, 0);
    std::vector<std::uint64_t> offsets(chunks, 0);
    std::mutex order;              // guards formatted, next, stopped, write_s, reserve and the calls of `write`
    std::size_t next = 0;          // the first buffer not yet handed to the output
    bool stopped = false;          // an error was reached in order: nothing more is handed over
    double write_s = 0.0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(threads, 1))
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = n * c / chunks, last = n * (c + 1) / chunks;
        buffers[c].clear();
        try {
            std::size_t want = 0;
            for (std::size_t k = first; k < last; ++k) want += bytes(k);
            buffers[c].reserve(want);
            for (std::size_t k = first; k < last; ++k) format(k, buffers[c]);
        } catch (...) {
            errors[c] = std::current_exception();
        }
        std::vector<std::size_t> mine;  // buffers whose regions this thread writes
        {
            std::lock_guard lock(order);
            formatted[c] = 1;
            const auto w0 = std::chrono::steady_clock::now();
            while (!stopped && next < chunks && formatted[next]) {
                const std::string_view text(buffers[next].data(), buffers[next].size());
                try {
                    if (positional) {
                        offsets[next] = positional->reserve(text.size());
                        mine.push_back(next);
                    } else {
                        write(text);
                    }
                } catch (...) {
                    if (!errors[next]) errors[next] = std::current_exception();
                }
                stopped = errors[next] != nullptr;
                ++next;
            }
            write_s += seconds_since(w0);
        }
        for (const std::size_t b : mine) {
            try {
                positional->write_at(offsets[b], std::string_view(buffers[b].data(), buffers[b].size()));
            } catch (...) {
                std::lock_guard lock(order);
                if (!errors[b]) errors[b] = std::current_exception();
            }
        }
    }
    const double total = seconds_since(t0);
    times.write_seconds = write_s;
    times.format_seconds = total - write_s;
    for (std::size_t c = 0; c < chunks; ++c)
        if (errors[c]) std::rethrow_exception(errors[c]);
    return times;
}

}  // namespace format_detail
}  // namespace gpualign
