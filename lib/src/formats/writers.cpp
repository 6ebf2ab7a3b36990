// gpualign — atomic output file, TSV and SAM writers.
#include "gpualign/formats/writers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <exception>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpualign/io/cleanup.hpp"

namespace gpualign {
namespace {

std::string shown_output(const std::string& path) { return path == "-" ? std::string("<stdout>") : path; }

/// Creates a new file named `dir/.base.PID.N.tmp` (O_EXCL, mode 0666 less
/// the umask), write-only or, with `read_write`, read-write. Returns the fd
/// and the name; throws OutputError on failure.
std::pair<int, std::string> create_temp(const std::filesystem::path& dir, const std::string& base,
                                        const std::string& for_path, bool read_write = false) {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
        const auto name = (dir / fmt::format(".{}.{}.{}.tmp", base, ::getpid(), counter++)).string();
        const int fd = ::open(name.c_str(), (read_write ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) return {fd, name};
        if (errno != EEXIST)
            throw OutputError(fmt::format("{}: cannot create a temporary file in '{}': {}", shown_output(for_path),
                                          dir.string(), std::strerror(errno)));
    }
    throw OutputError(fmt::format("{}: cannot create a temporary file in '{}'", shown_output(for_path), dir.string()));
}

/// A read-write scratch file with no name (unlinked at once): it vanishes
/// when closed or when the process dies.
class SpoolFile {
public:
    SpoolFile(const std::filesystem::path& dir, const std::string& for_path) : for_path_(for_path) {
        auto [fd, name] = create_temp(dir, "gpualign-sam-body", for_path, true);
        ::unlink(name.c_str());
        file_ = ::fdopen(fd, "w+");
        if (!file_) {
            ::close(fd);
            throw OutputError(fmt::format("{}: cannot open the SAM spool file: {}", shown_output(for_path),
                                          std::strerror(errno)));
        }
    }
    ~SpoolFile() {
        if (file_) std::fclose(file_);
    }
    SpoolFile(const SpoolFile&) = delete;
    SpoolFile& operator=(const SpoolFile&) = delete;

    void write(std::string_view bytes) {
        if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail("write");
    }
    /// Copies everything written so far to `out`.
    void copy_to(OutputFile& out) {
        if (std::fflush(file_) != 0) fail("flush");
        std::rewind(file_);
        std::vector<char> chunk(1 << 20);
        std::size_t n = 0;
        while ((n = std::fread(chunk.data(), 1, chunk.size(), file_)) > 0) out.write({chunk.data(), n});
        if (std::ferror(file_)) fail("read back");
    }

private:
    [[noreturn]] void fail(const char* action) const {
        throw OutputError(fmt::format("{}: cannot {} the SAM spool file: {}", shown_output(for_path_), action,
                                      std::strerror(errno)));
    }
    std::string for_path_;
    std::FILE* file_ = nullptr;
};

/// The directory for scratch files of an output: next to it, or TMPDIR / /tmp.
std::filesystem::path scratch_dir(const std::string& path) {
    std::error_code ec;
    if (path != "-" && (!std::filesystem::exists(path, ec) || std::filesystem::is_regular_file(path, ec))) {
        const auto parent = std::filesystem::path(path).parent_path();
        return parent.empty() ? std::filesystem::path(".") : parent;
    }
    const char* tmp = std::getenv("TMPDIR");
    return (tmp && *tmp) ? std::filesystem::path(tmp) : std::filesystem::path("/tmp");
}

void check_coordinates(const RecordView& q, const RecordView& r, const AlignmentResult& res) {
    if (res.query_begin < 0 || res.query_begin > res.query_end ||
        static_cast<std::size_t>(res.query_end) > q.sequence.size() || res.ref_begin < 0 ||
        res.ref_begin > res.ref_end || static_cast<std::size_t>(res.ref_end) > r.sequence.size())
        throw std::logic_error(fmt::format("alignment of '{}' and '{}' has coordinates [{}, {}) x [{}, {}) outside the "
                                           "sequences ({} x {})",
                                           q.name, r.name, res.query_begin, res.query_end, res.ref_begin, res.ref_end,
                                           q.sequence.size(), r.sequence.size()));
}

bool is_unaligned(const AlignmentResult& res) noexcept { return res.query_begin == res.query_end; }

/// Appends `cigar` with M for its = and X runs, adjacent ones merged (SAM's
/// alignment match), I and D as they are.
void append_cigar_m(std::span<const std::uint32_t> cigar, fmt::memory_buffer& out) {
    fmt::appender it(out);
    std::uint64_t m = 0;
    for (const std::uint32_t c : cigar) {
        const CigarOp op = cigar_op(c);
        if (op == CigarOp::eq || op == CigarOp::diff) {
            m += cigar_len(c);
            continue;
        }
        if (m > 0) fmt::format_to(it, "{}M", m);
        m = 0;
        fmt::format_to(it, "{}{}", cigar_len(c), cigar_char(op));
    }
    if (m > 0) fmt::format_to(it, "{}M", m);
}

/// Appends "\tMD:Z:..." (SAM tags spec): from ref_begin (0-based) along
/// `cigar` over `ref` (letters as read, written upper-case), the count of
/// matching bases, each mismatching reference base, and '^' with the
/// deleted reference bases, counts (0 included) between them and at both
/// ends: what `samtools calmd` computes for these CIGARs.
void append_md(std::string_view ref, std::int64_t ref_begin, std::span<const std::uint32_t> cigar,
               fmt::memory_buffer& out) {
    fmt::appender it(out);
    fmt::format_to(it, "\tMD:Z:");
    std::uint64_t run = 0;
    auto pos = static_cast<std::size_t>(ref_begin);
    const auto upper = [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; };
    for (const std::uint32_t c : cigar) {
        const std::uint32_t len = cigar_len(c);
        switch (cigar_op(c)) {
            case CigarOp::eq:
                run += len;
                pos += len;
                break;
            case CigarOp::diff:
                for (std::uint32_t k = 0; k < len; ++k) {
                    fmt::format_to(it, "{}{}", run, upper(ref[pos++]));
                    run = 0;
                }
                break;
            case CigarOp::del:
                fmt::format_to(it, "{}^", run);
                for (std::uint32_t k = 0; k < len; ++k) out.push_back(upper(ref[pos++]));
                run = 0;
                break;
            case CigarOp::ins:
                break;
        }
    }
    fmt::format_to(it, "{}", run);
}

/// Appends the CIGAR text of `cigar`, the same bytes as cigar_string: run
/// lengths below 100 (nearly all of them) from a table, longer ones through
/// fmt::format_int.
void append_cigar(std::span<const std::uint32_t> cigar, fmt::memory_buffer& out) {
    static constexpr std::array<std::array<char, 2>, 100> two_digits = [] {
        std::array<std::array<char, 2>, 100> t{};
        for (int k = 0; k < 100; ++k) t[k] = {static_cast<char>('0' + k / 10), static_cast<char>('0' + k % 10)};
        return t;
    }();
    const std::size_t old = out.size();
    out.resize(old + cigar.size() * 11);  // at most 10 digits and a letter per run
    char* p = out.data() + old;
    for (const std::uint32_t c : cigar) {
        const std::uint32_t len = cigar_len(c);
        if (len < 10) {
            *p++ = static_cast<char>('0' + len);
        } else if (len < 100) {
            *p++ = two_digits[len][0];
            *p++ = two_digits[len][1];
        } else {
            const fmt::format_int digits(len);
            p = std::copy(digits.data(), digits.data() + digits.size(), p);
        }
        *p++ = cigar_char(cigar_op(c));
    }
    out.resize(static_cast<std::size_t>(p - out.data()));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Formats pairs [0, n) with `format(k, buffer)` on up to `threads` threads
/// into buffers of consecutive pairs, then hands the buffers to `write` in
/// order. A pair whose formatting throws ends its buffer; its error is
/// rethrown after the buffers before it (and its own first part) are written.
/// `buffers` are kept by the caller from batch to batch, so that their
/// memory is reused rather than grown (and first touched) again each time.
template <typename Format, typename Write>
BatchWriteTimes format_in_parallel(std::size_t n, int threads, std::vector<fmt::memory_buffer>& buffers,
                                   Format&& format, Write&& write) {
    BatchWriteTimes times;
    auto t0 = std::chrono::steady_clock::now();
    const std::size_t chunks = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(threads, 1)) * 4);
    if (buffers.size() < chunks) buffers.resize(chunks);
    std::vector<std::exception_ptr> errors(chunks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(threads, 1))
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = n * c / chunks, last = n * (c + 1) / chunks;
        buffers[c].clear();
        try {
            for (std::size_t k = first; k < last; ++k) format(k, buffers[c]);
        } catch (...) {
            errors[c] = std::current_exception();
        }
    }
    times.format_seconds = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    for (std::size_t c = 0; c < chunks; ++c) {
        write(std::string_view(buffers[c].data(), buffers[c].size()));
        if (errors[c]) {
            times.write_seconds = seconds_since(t0);
            std::rethrow_exception(errors[c]);
        }
    }
    times.write_seconds = seconds_since(t0);
    return times;
}

}  // namespace

/// The format implementations derive from this.
class AlignmentWriter::Impl {
public:
    virtual ~Impl() = default;
    virtual void add_reference(std::string_view name, std::uint64_t length) = 0;
    virtual void write(const RecordView& q, const RecordView& r, const AlignmentResult& res) = 0;
    virtual BatchWriteTimes write_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                                        std::span<const AlignmentResult> res, int threads) = 0;
    virtual void commit() = 0;
};

namespace {

// ---- TSV and PAF: one text line a pair -----------------------------------------

/// The query interval of `res` on the query's forward strand (strand.hpp):
/// the result's own for plus, mirrored for minus.
Interval forward_query(const RecordView& q, const AlignmentResult& res) noexcept {
    return forward_interval(res.strand, res.query_begin, res.query_end, static_cast<std::int64_t>(q.sequence.size()));
}

/// Appends the columns query .. cigar of one pair's TSV line (no strand,
/// no '\n') to `line_`: the part the pairs and search TSV share. The query
/// coordinates are on the forward strand of the query.
void append_tsv_columns(const RecordView& q, const RecordView& r, const AlignmentResult& res,
                        fmt::memory_buffer& line_) {
    check_coordinates(q, r, res);
    fmt::appender it(line_);
    const Interval qi = forward_query(q, res);
    fmt::format_to(it, "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t", q.name, q.sequence.size(), qi.begin, qi.end, r.name,
                   r.sequence.size(), res.ref_begin, res.ref_end, res.score);
    if (res.has_cigar) {
        const CigarStats st = cigar_stats(res.cigar);
        const std::uint64_t len = st.alignment_len();
        const double identity = len == 0 ? 0.0 : static_cast<double>(st.matches) / static_cast<double>(len);
        fmt::format_to(it, "{}\t{}\t{}\t{}\t{:.4f}\t", st.matches, st.mismatches, st.gap_opens, len, identity);
        if (res.cigar.empty())
            line_.push_back('*');  // unaligned: '*', as SAM writes an absent CIGAR, never an empty field
        else
            append_cigar(res.cigar, line_);
    } else {
        fmt::format_to(it, "*\t*\t*\t*\t*\t*");
    }
}

/// Appends the TSV line of one pair (with the strand column and its '\n') to `line_`.
void format_tsv_line(const RecordView& q, const RecordView& r, const AlignmentResult& res, const WriterOptions&,
                     fmt::memory_buffer& line_) {
    append_tsv_columns(q, r, res, line_);
    line_.push_back('\t');
    line_.push_back(strand_char(res.strand));
    line_.push_back('\n');
}

/// Appends the PAF line of one pair (minimap2's PAF: 12 columns, 0-based
/// half-open coordinates, the query's on its forward strand, strand '+' or
/// '-', MAPQ 255 = not available, then NM:i, AS:i and cg:Z, the CIGAR along
/// the forward reference as minimap2 writes it) to `line_`; nothing for an
/// unaligned pair (as minimap2 leaves out unmapped queries by default).
void format_paf_line(const RecordView& q, const RecordView& r, const AlignmentResult& res, const WriterOptions& o,
                     fmt::memory_buffer& line_) {
    check_coordinates(q, r, res);
    if (is_unaligned(res)) return;
    const CigarStats st = cigar_stats(res.cigar);
    const Interval qi = forward_query(q, res);
    fmt::format_to(fmt::appender(line_), "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t255\tNM:i:{}\tAS:i:{}\tcg:Z:", q.name,
                   q.sequence.size(), qi.begin, qi.end, strand_char(res.strand), r.name, r.sequence.size(),
                   res.ref_begin, res.ref_end, st.matches, st.alignment_len(), st.edit_distance(), res.score);
    if (o.sam_cigar_m)
        append_cigar_m(res.cigar, line_);
    else
        append_cigar(res.cigar, line_);
    line_.push_back('\n');
}

/// Appends the BLAST tabular line of one hit (blast6_line) and its '\n' to `out`.
void append_blast6_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result,
                        std::optional<double> evalue, std::optional<double> bits, fmt::memory_buffer& out) {
    check_coordinates(query, ref, result);
    const CigarStats st = cigar_stats(result.cigar);
    const std::uint64_t len = st.alignment_len();
    const double pident = len == 0 ? 0.0 : 100.0 * static_cast<double>(st.matches) / static_cast<double>(len);
    const Interval qi = forward_query(query, result);
    // blastn's minus-strand hits: the query forward (qstart < qend), the subject reversed (sstart > send).
    const bool minus = result.strand == Strand::minus;
    const std::int64_t sstart = minus ? result.ref_end : result.ref_begin + 1;
    const std::int64_t send = minus ? result.ref_begin + 1 : result.ref_end;
    fmt::format_to(fmt::appender(out), "{}\t{}\t{:.3f}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", query.name, ref.name, pident,
                   len, st.mismatches, st.gap_opens, qi.begin + 1, qi.end, sstart, send,
                   evalue ? format_evalue(*evalue) : std::string("NA"),
                   bits ? format_bit_score(*bits) : std::string("NA"));
}

/// Appends the BLAST tabular line of one pair (blast6_line) to `line_`;
/// nothing for an unaligned pair (BLAST reports no hit). E-value and bit
/// score from o.statistics with m, n the two lengths, else NA.
void format_blast6_line(const RecordView& q, const RecordView& r, const AlignmentResult& res, const WriterOptions& o,
                        fmt::memory_buffer& line_) {
    check_coordinates(q, r, res);
    if (is_unaligned(res)) return;
    std::optional<double> e, bits;
    if (o.statistics) {
        e = evalue(*o.statistics, res.score, q.sequence.size(), r.sequence.size());
        bits = bit_score(*o.statistics, res.score);
    }
    append_blast6_line(q, r, res, e, bits, line_);
}

/// A writer of one text line a pair (TSV, PAF): an optional header line,
/// then the lines in call order (write_batch formats them in parallel).
class LineWriter final : public AlignmentWriter::Impl {
public:
    using Format = void (*)(const RecordView&, const RecordView&, const AlignmentResult&, const WriterOptions&,
                            fmt::memory_buffer&);
    LineWriter(const std::string& path, std::string_view header, Format format, const WriterOptions& options)
        : out_(path), format_(format), options_(options) {
        if (!header.empty()) {
            out_.write(header);
            out_.write("\n");
        }
    }
    void add_reference(std::string_view, std::uint64_t) override {}
    void write(const RecordView& q, const RecordView& r, const AlignmentResult& res) override {
        line_.clear();
        format_(q, r, res, options_, line_);
        out_.write({line_.data(), line_.size()});
    }
    BatchWriteTimes write_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                                std::span<const AlignmentResult> res, int threads) override {
        return format_in_parallel(
            q.size(), threads, buffers_,
            [&](std::size_t k, fmt::memory_buffer& b) { format_(q[k], r[k], res[k], options_, b); },
            [this](std::string_view bytes) { out_.write(bytes); });
    }
    void commit() override { out_.commit(); }

private:
    OutputFile out_;
    Format format_;
    WriterOptions options_;
    fmt::memory_buffer line_;
    std::vector<fmt::memory_buffer> buffers_;  // write_batch's, reused
};

// ---- SAM -------------------------------------------------------------------

bool valid_qname(std::string_view s) noexcept {
    if (s.empty() || s.size() > 254) return false;
    for (char c : s)
        if (c < '!' || c > '~' || c == '@') return false;
    return true;
}

bool valid_rname(std::string_view s) noexcept {
    // SAM v1.6 §1.2.1: [0-9A-Za-z!#$%&+./:;?@^_|~-][0-9A-Za-z!#$%&*+./:;=?@^_|~-]*
    constexpr std::string_view other = "!#$%&+./:;?@^_|~-";
    const auto ok = [&](char c, bool first) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
               other.find(c) != std::string_view::npos || (!first && (c == '*' || c == '='));
    };
    if (s.empty()) return false;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (!ok(s[i], i == 0)) return false;
    return true;
}

std::string header_value(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    return out;
}

class SamWriter final : public AlignmentWriter::Impl {
public:
    SamWriter(const std::string& path, const WriterOptions& options)
        : out_(path), body_(scratch_dir(path), path), meta_(options) {
        if (meta_.version.empty()) meta_.version = GPUALIGN_VERSION;
    }

    void add_reference(std::string_view name, std::uint64_t length) override {
        auto it = ref_lengths_.find(name);
        if (it == ref_lengths_.end()) {
            ref_lengths_.emplace(std::string(name), length);
        } else {
            if (it->second != length)
                throw InputError(fmt::format("reference name '{}' occurs with two lengths ({} and {}); SAM @SQ "
                                             "names must be unique",
                                             name, it->second, length));
            return;
        }
        if (!valid_rname(name))
            throw OutputError(fmt::format("{}: reference name '{}' is not a valid SAM reference name (SAM v1.6 §1.2.1)",
                                          shown_output(out_.path()), name));
        if (length == 0 || length > 2147483647u)
            throw OutputError(fmt::format("{}: reference '{}' has length {}, outside SAM's 1..2^31-1",
                                          shown_output(out_.path()), name, length));
        fmt::format_to(fmt::appender(sq_lines_), "@SQ\tSN:{}\tLN:{}\n", name, length);
    }

    void write(const RecordView& q, const RecordView& r, const AlignmentResult& res) override {
        check_coordinates(q, r, res);
        add_reference(r.name, r.sequence.size());
        line_.clear();
        format_record(q, r, res, line_);
        body_.write({line_.data(), line_.size()});
    }

    /// The references are declared in pair order first (stateful); then the
    /// records are formatted in parallel up to the first pair that failed
    /// there, whose error comes after any earlier pair's.
    BatchWriteTimes write_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                                std::span<const AlignmentResult> res, int threads) override {
        std::size_t stop = q.size();
        std::exception_ptr error;
        for (std::size_t k = 0; k < q.size(); ++k) {
            try {
                check_coordinates(q[k], r[k], res[k]);
                add_reference(r[k].name, r[k].sequence.size());
            } catch (...) {
                stop = k;
                error = std::current_exception();
                break;
            }
        }
        const BatchWriteTimes times = format_in_parallel(
            stop, threads, buffers_, [&](std::size_t k, fmt::memory_buffer& b) { format_record(q[k], r[k], res[k], b); },
            [this](std::string_view bytes) { body_.write(bytes); });
        if (error) std::rethrow_exception(error);
        return times;
    }

    /// Appends the SAM record of one pair (references already declared) to `line_`.
    void format_record(const RecordView& q, const RecordView& r, const AlignmentResult& res,
                       fmt::memory_buffer& line_) const {
        if (!valid_qname(q.name))
            throw OutputError(fmt::format("{}: query name '{}' (record {}) is not a valid SAM QNAME "
                                          "[!-?A-~]{{1,254}} (SAM v1.6 §1.4)",
                                          shown_output(out_.path()), q.name, q.number));
        const bool unaligned = is_unaligned(res);
        // A minus-strand record holds the reverse-complemented read (FLAG 16,
        // SAM v1.6 §1.4.10): SEQ, QUAL and the clips are those of the
        // sequence that was aligned. An unaligned read keeps its strand as read.
        const bool reverse = !unaligned && res.strand == Strand::minus;
        fmt::appender it(line_);
        if (unaligned) {
            fmt::format_to(it, "{}\t4\t*\t0\t255\t*\t*\t0\t0\t", q.name);
        } else {
            fmt::format_to(it, "{}\t{}\t{}\t{}\t255\t", q.name, reverse ? 16 : 0, r.name, res.ref_begin + 1);
            if (res.has_cigar) {
                if (res.query_begin > 0) fmt::format_to(it, "{}S", res.query_begin);
                if (meta_.sam_cigar_m)
                    append_cigar_m(res.cigar, line_);
                else
                    append_cigar(res.cigar, line_);
                const auto tail = static_cast<std::int64_t>(q.sequence.size()) - res.query_end;
                if (tail > 0) fmt::format_to(it, "{}S", tail);
            } else {
                line_.push_back('*');
            }
            fmt::format_to(it, "\t*\t0\t0\t");
        }
        append_seq_qual(q, reverse, line_);
        fmt::format_to(it, "\tAS:i:{}", res.score);
        if (!unaligned && res.has_cigar) {
            fmt::format_to(it, "\tNM:i:{}", cigar_stats(res.cigar).edit_distance());
            append_md(r.sequence, res.ref_begin, res.cigar, line_);
        }
        line_.push_back('\n');
    }

    void commit() override {
        fmt::memory_buffer head;
        fmt::appender it(head);
        fmt::format_to(it, "@HD\tVN:1.6\tSO:unsorted\n");
        head.append(sq_lines_.data(), sq_lines_.data() + sq_lines_.size());
        fmt::format_to(it, "@PG\tID:gpualign\tPN:gpualign\tVN:{}", header_value(meta_.version));
        if (!meta_.command_line.empty()) fmt::format_to(it, "\tCL:{}", header_value(meta_.command_line));
        head.push_back('\n');
        if (meta_.score_only)
            fmt::format_to(it, "@CO\tgpualign score-only mode: CIGAR is '*' (not computed); POS is ref_begin+1\n");
        out_.write({head.data(), head.size()});
        body_.copy_to(out_);
        out_.commit();
    }

private:
    /// Appends SEQ (upper case) and QUAL: as read, or with `reverse` the
    /// reverse complement of the letters (complement_letter) and the
    /// qualities reversed.
    static void append_seq_qual(const RecordView& q, bool reverse, fmt::memory_buffer& line_) {
        bool ok = !q.sequence.empty();
        for (char c : q.sequence) {
            const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '=' || c == '.';
            if (!letter) {
                ok = false;
                break;
            }
        }
        if (!ok) {
            line_.append(std::string_view("*\t*"));
            return;
        }
        const auto upper = [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; };
        if (reverse)
            for (auto c = q.sequence.rbegin(); c != q.sequence.rend(); ++c) line_.push_back(upper(complement_letter(*c)));
        else
            for (char c : q.sequence) line_.push_back(upper(c));
        line_.push_back('\t');
        if (q.quality.size() != q.sequence.size())
            line_.push_back('*');
        else if (reverse)
            for (auto c = q.quality.rbegin(); c != q.quality.rend(); ++c) line_.push_back(*c);
        else
            line_.append(q.quality.data(), q.quality.data() + q.quality.size());
    }

    OutputFile out_;
    SpoolFile body_;
    WriterOptions meta_;
    /// Hashes std::string and std::string_view alike (lookups without a copy).
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, std::uint64_t, NameHash, std::equal_to<>> ref_lengths_;
    fmt::memory_buffer sq_lines_;
    fmt::memory_buffer line_;
    std::vector<fmt::memory_buffer> buffers_;  // write_batch's, reused
};

}  // namespace

// ---- OutputFile --------------------------------------------------------------

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
    if (path_ == "-") {
        file_ = stdout;
        is_stdout_ = true;
        return;
    }
    std::error_code ec;
    const auto st = std::filesystem::status(path_, ec);
    if (std::filesystem::is_directory(st)) throw OutputError(fmt::format("{}: is a directory", path_));
    if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
        file_ = std::fopen(path_.c_str(), "w");
        if (!file_) fail("open", errno);
        return;
    }
    const std::filesystem::path p(path_);
    const auto dir = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
    auto [fd, name] = create_temp(dir, p.filename().string(), path_);
    temp_ = std::move(name);
    cleanup_slot_ = register_cleanup_path(temp_);
    file_ = ::fdopen(fd, "w");
    if (!file_) {
        const int err = errno;
        ::close(fd);
        ::unlink(temp_.c_str());
        unregister_cleanup_path(std::exchange(cleanup_slot_, -1));
        temp_.clear();
        fail("open", err);
    }
}

OutputFile::~OutputFile() { discard(); }

OutputFile::OutputFile(OutputFile&& o) noexcept
    : path_(std::move(o.path_)), temp_(std::exchange(o.temp_, {})), cleanup_slot_(std::exchange(o.cleanup_slot_, -1)),
      file_(std::exchange(o.file_, nullptr)),
      is_stdout_(o.is_stdout_), committed_(o.committed_) {}

OutputFile& OutputFile::operator=(OutputFile&& o) noexcept {
    if (this != &o) {
        discard();
        path_ = std::move(o.path_);
        temp_ = std::exchange(o.temp_, {});
        cleanup_slot_ = std::exchange(o.cleanup_slot_, -1);
        file_ = std::exchange(o.file_, nullptr);
        is_stdout_ = o.is_stdout_;
        committed_ = o.committed_;
    }
    return *this;
}

void OutputFile::discard() noexcept {
    if (file_ && !is_stdout_) std::fclose(file_);
    file_ = nullptr;
    if (!temp_.empty() && !committed_) ::unlink(temp_.c_str());
    unregister_cleanup_path(std::exchange(cleanup_slot_, -1));
    temp_.clear();
}

void OutputFile::fail(std::string_view action, int err) const {
    throw OutputError(fmt::format("{}: cannot {}: {}", shown_output(path_), action, std::strerror(err)));
}

void OutputFile::write(std::string_view bytes) {
    if (!file_ || committed_) throw OutputError(fmt::format("{}: write after commit", shown_output(path_)));
    if (bytes.empty()) return;
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail("write", errno ? errno : EIO);
}

void OutputFile::commit() {
    if (!file_ || committed_) throw OutputError(fmt::format("{}: committed twice", shown_output(path_)));
    if (std::fflush(file_) != 0 || std::ferror(file_)) fail("write", errno ? errno : EIO);
    if (is_stdout_) {
        committed_ = true;
        return;
    }
    std::FILE* f = std::exchange(file_, nullptr);
    if (std::fclose(f) != 0) fail("close", errno);
    if (!temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) fail("rename the temporary file onto", errno);
    unregister_cleanup_path(std::exchange(cleanup_slot_, -1));
    committed_ = true;
}

// ---- AlignmentWriter -----------------------------------------------------------

std::string tsv_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result) {
    fmt::memory_buffer b;
    append_tsv_columns(query, ref, result, b);
    return fmt::to_string(b);
}

std::string blast6_line(const RecordView& query, const RecordView& ref, const AlignmentResult& result,
                        std::optional<double> evalue, std::optional<double> bits) {
    fmt::memory_buffer b;
    append_blast6_line(query, ref, result, evalue, bits, b);
    return std::string(b.data(), b.size() - 1);  // without the '\n'
}


AlignmentWriter::AlignmentWriter(const std::string& path, const WriterOptions& options) {
    if (options.format == OutputFormat::blast6)
        impl_ = std::make_unique<LineWriter>(path, "", &format_blast6_line, options);
    else if (options.format == OutputFormat::sam)
        impl_ = std::make_unique<SamWriter>(path, options);
    else if (options.format == OutputFormat::paf)
        impl_ = std::make_unique<LineWriter>(path, "", &format_paf_line, options);
    else
        impl_ = std::make_unique<LineWriter>(path, tsv_header, &format_tsv_line, options);
}
AlignmentWriter::~AlignmentWriter() = default;
AlignmentWriter::AlignmentWriter(AlignmentWriter&&) noexcept = default;
AlignmentWriter& AlignmentWriter::operator=(AlignmentWriter&&) noexcept = default;

void AlignmentWriter::add_reference(const std::string& name, std::uint64_t length) {
    impl_->add_reference(name, length);
}
void AlignmentWriter::write(const SequenceRecord& query, const SequenceRecord& ref, const AlignmentResult& result) {
    impl_->write(view_of(query), view_of(ref), result);
}
void AlignmentWriter::write(const RecordView& query, const RecordView& ref, const AlignmentResult& result) {
    impl_->write(query, ref, result);
}
BatchWriteTimes AlignmentWriter::write_batch(std::span<const RecordView> queries, std::span<const RecordView> refs,
                                             std::span<const AlignmentResult> results, int threads) {
    if (queries.size() != refs.size() || queries.size() != results.size())
        throw std::invalid_argument("AlignmentWriter::write_batch: spans of different sizes");
    return impl_->write_batch(queries, refs, results, threads);
}
void AlignmentWriter::commit() { impl_->commit(); }

}  // namespace gpualign
