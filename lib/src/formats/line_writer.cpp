// gpualign — the writer of the line formats (TSV, PAF, BLAST tabular): one
// text line a pair, formatted by the format's LineFormat.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "writer_detail.hpp"

namespace gpualign::format_detail {
namespace {

/// A writer of one text line a pair (TSV, PAF, BLAST tabular): an optional
/// header line, then the lines in call order (write_batch formats them in
/// parallel, and writes them in parallel too into a regular file). The header goes out with the first line or on commit, so that
/// a run that fails before its first pair leaves nothing on stdout either.
class LineWriter final : public AlignmentWriter::Impl {
public:
    LineWriter(const std::string& path, std::string_view header, LineFormat format, const WriterOptions& options)
        : out_(path), header_(header), format_(format), options_(options) {}
    void add_reference(std::string_view, std::uint64_t) override {}
    void write(const RecordView& q, const RecordView& r, const AlignmentResult& res) override {
        write_header();
        line_.clear();
        format_(q, r, res, options_, line_);
        out_.write({line_.data(), line_.size()});
    }
    BatchWriteTimes write_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                                std::span<const AlignmentResult> res, int threads) override {
        write_header();
        return format_in_parallel(
            q.size(), threads, buffers_,
            [&](std::size_t k, fmt::memory_buffer& b) { format_(q[k], r[k], res[k], options_, b); },
            [this](std::string_view bytes) { out_.write(bytes); },
            [&](std::size_t k) { return q[k].name.size() + r[k].name.size() + 5 * res[k].cigar.size() + 96; },
            out_.positional() ? &out_ : nullptr);
    }
    void commit() override {
        write_header();
        out_.commit();
    }

private:
    void write_header() {
        if (header_.empty()) return;
        out_.write(header_);
        out_.write("\n");
        header_.clear();
    }

    OutputFile out_;
    std::string header_;  // emptied once written
    LineFormat format_;
    WriterOptions options_;
    fmt::memory_buffer line_;
    std::vector<fmt::memory_buffer> buffers_;  // write_batch's, reused
};

}  // namespace

std::unique_ptr<AlignmentWriter::Impl> make_line_writer(const std::string& path, std::string_view header,
                                                        LineFormat format, const WriterOptions& options) {
    return std::make_unique<LineWriter>(path, header, format, options);
}

}  // namespace gpualign::format_detail
