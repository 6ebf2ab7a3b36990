// gpualign — the SAM writer (SAM v1.6): @HD, an @SQ line per reference, @PG,
// then one record a pair. With the references declared before the first
// record (set_references) the header is written first and the records
// straight after it; otherwise the records go to a scratch file until
// commit, since the @SQ lines are known only once every pair is written.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "gpualign/formats/writers.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/model/strand.hpp"
#include "sam_dictionary.hpp"
#include "writer_detail.hpp"

namespace gpualign::format_detail {
namespace {

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
    /// Copies everything written so far to `out` (OutputFile::write_file).
    void copy_to(OutputFile& out) {
        if (std::fflush(file_) != 0) fail("flush");
        out.write_file(file_);
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

/// SEQ as read: writes the `n` letters of `src` upper-case to `out` (which
/// does not overlap it) and returns whether every byte is a letter, '=' or
/// '.' (SAM v1.6 §1.4.10). Masks instead of branches, so that the compiler
/// vectorises the loop: SEQ is most of a record's bytes.
bool upper_letters(const unsigned char* __restrict src, unsigned char* __restrict out, std::size_t n) {
    unsigned char bad = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const unsigned char c = src[k], up = c & 0xDF;  // a letter's upper case
        const auto mask = [](bool b) { return static_cast<unsigned char>(-static_cast<unsigned char>(b)); };
        const unsigned char letter = mask(static_cast<unsigned char>(up - 'A') < 26);
        const unsigned char other = mask(c == '=') | mask(c == '.');
        out[k] = static_cast<unsigned char>((up & letter) | (c & ~letter));
        bad |= static_cast<unsigned char>(~(letter | other));
    }
    return bad == 0;
}

/// Appends "\tMD:Z:..." (SAM tags spec): from ref_begin (0-based) along
/// `cigar` over `ref` (letters as read, written upper-case), the count of
/// matching bases, each mismatching reference base, and '^' with the
/// deleted reference bases, counts (0 included) between them and at both
/// ends: what `samtools calmd` computes for these CIGARs.
void append_md(std::string_view ref, std::int64_t ref_begin, std::span<const std::uint32_t> cigar,
               fmt::memory_buffer& out) {
    // Bounded in place: the tag, then per operation at most 20 digits and
    // one base (=/X: per base), or 20 digits, '^' and the deleted bases.
    std::size_t bound = 7 + 20;
    for (const std::uint32_t c : cigar) {
        const CigarOp op = cigar_op(c);
        bound += op == CigarOp::diff ? 21 * std::size_t{cigar_len(c)} : op == CigarOp::del ? 21 + cigar_len(c) : 0;
    }
    const std::size_t old = out.size();
    out.resize(old + bound);
    char* p = out.data() + old;
    const auto number = [&p](std::uint64_t v) {
        if (v < 100) {  // one or two digits without a branch on which
            const std::size_t one = v < 10;
            p[0] = static_cast<char>(one ? '0' + v : '0' + v / 10);
            p[1] = static_cast<char>('0' + v % 10);
            p += 2 - one;
        } else {
            const fmt::format_int digits(v);
            p = std::copy(digits.data(), digits.data() + digits.size(), p);
        }
    };
    const auto upper = [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; };
    p = std::copy_n("\tMD:Z:", 6, p);
    std::uint64_t run = 0;
    auto pos = static_cast<std::size_t>(ref_begin);
    for (const std::uint32_t c : cigar) {
        const std::uint32_t len = cigar_len(c);
        switch (cigar_op(c)) {
            case CigarOp::eq:
                run += len;
                pos += len;
                break;
            case CigarOp::diff:
                for (std::uint32_t k = 0; k < len; ++k) {
                    number(run);
                    *p++ = upper(ref[pos++]);
                    run = 0;
                }
                break;
            case CigarOp::del:
                number(run);
                *p++ = '^';
                for (std::uint32_t k = 0; k < len; ++k) *p++ = upper(ref[pos++]);
                run = 0;
                break;
            case CigarOp::ins:
                break;
        }
    }
    number(run);
    out.resize(static_cast<std::size_t>(p - out.data()));
}

bool valid_qname(std::string_view s) noexcept {
    if (s.empty() || s.size() > 254) return false;
    for (char c : s)
        if (c < '!' || c > '~' || c == '@') return false;
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
        : out_(path), scratch_dir_(scratch_dir(path)), meta_(options) {
        if (meta_.version.empty()) meta_.version = GPUALIGN_VERSION;
    }

    void add_reference(std::string_view name, std::uint64_t length) override {
        if (header_written_)
            throw std::logic_error("AlignmentWriter::add_reference: called after set_references");
        if (length == 0) return;  // no @SQ (LN is 1..2^31-1): the records of a zero-length ref are unmapped
        if (refs_.impl().shards[format_detail::shard_of(name)].insert(name, length)) declare(name, length);
    }

    /// Takes the whole dictionary and writes the header now: the records
    /// then go straight to the output, and each is checked to be declared.
    void set_references(SamReferences refs) override {
        if (spool_ || header_written_ || refs_.size() > 0)
            throw std::logic_error("AlignmentWriter::set_references: called after a reference or record");
        refs_ = std::move(refs);
        write_header();
        header_written_ = true;
    }

    void write(const RecordView& q, const RecordView& r, const AlignmentResult& res) override {
        write_hit(q, r, res, false);
    }

    void write_hit(const RecordView& q, const RecordView& r, const AlignmentResult& res, bool secondary) override {
        check_coordinates(q, r, res);
        if (header_written_)
            check_declared(r);
        else
            add_reference(r.name, r.sequence.size());
        line_.clear();
        format_record(q, r, res, line_, secondary);
        emit({line_.data(), line_.size()});
    }

    /// The references are declared in pair order first (stateful); then the
    /// records are formatted in parallel up to the first pair that failed
    /// there, whose error comes after any earlier pair's.
    BatchWriteTimes write_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                                std::span<const AlignmentResult> res, int threads) override {
        const auto t0 = std::chrono::steady_clock::now();
        std::exception_ptr error;
        const std::size_t stop = declare_batch(q, r, res, threads, error);
        const double declare_s = seconds_since(t0);
        BatchWriteTimes times = format_in_parallel(
            stop, threads, buffers_, [&](std::size_t k, fmt::memory_buffer& b) { format_record(q[k], r[k], res[k], b); },
            [this](std::string_view bytes) { emit(bytes); },
            [&](std::size_t k) {  // names, SEQ and QUAL, CIGAR and MD text, the fixed fields and tags
                return q[k].name.size() + r[k].name.size() + q[k].sequence.size() + q[k].quality.size() +
                       10 * res[k].cigar.size() + 96;
            },
            header_written_ && out_.positional() ? &out_ : nullptr);  // spooled records go in order
        times.format_seconds += declare_s;  // the @SQ lines are the header's part of formatting
        if (error) std::rethrow_exception(error);
        return times;
    }

    /// Appends the SAM record of one pair (references already declared) to
    /// `line_`; `secondary`: a search hit that is not its query's best.
    void format_record(const RecordView& q, const RecordView& r, const AlignmentResult& res, fmt::memory_buffer& line_,
                       bool secondary = false) const {
        if (!valid_qname(q.name))
            throw OutputError(fmt::format("{}: query name '{}' (record {}) is not a valid SAM QNAME "
                                          "[!-?A-~]{{1,254}} (SAM v1.6 §1.4)",
                                          shown_output(out_.path()), shown_name(q.name), q.number));
        // A pair with a zero-length side has no aligned column: unmapped (an empty SEQ is written '*').
        const bool unaligned = is_unaligned(res) || q.sequence.empty() || r.sequence.empty();
        secondary = secondary && !unaligned;
        // A minus-strand record holds the reverse-complemented read (FLAG 16,
        // SAM v1.6 §1.4.10): SEQ, QUAL and the clips are those of the
        // sequence that was aligned. An unaligned read keeps its strand as read.
        const bool reverse = !unaligned && res.strand == Strand::minus;
        fmt::appender it(line_);
        if (unaligned) {
            fmt::format_to(it, "{}\t4\t*\t0\t0\t*\t*\t0\t0\t", q.name);
        } else {
            fmt::format_to(it, "{}\t{}\t{}\t{}\t{}\t", q.name, (reverse ? 16 : 0) + (secondary ? 256 : 0), r.name,
                           res.ref_begin + 1, secondary ? 0 : 255);
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
        if (secondary)
            line_.append(std::string_view("*\t*"));
        else
            append_seq_qual(q, reverse, line_);
        fmt::format_to(it, "\tAS:i:{}", res.score);
        if (!unaligned && res.has_cigar) {
            fmt::format_to(it, "\tNM:i:{}", cigar_stats(res.cigar).edit_distance());
            append_md(r.sequence, res.ref_begin, res.cigar, line_);
        }
        line_.push_back('\n');
    }

    void commit() override {
        if (!header_written_) {
            write_header();
            if (spool_) spool_->copy_to(out_);
        }
        out_.commit();
    }

private:
    /// Writes @HD, the @SQ lines declared so far, @PG and (score-only) @CO.
    void write_header() {
        fmt::memory_buffer head;
        fmt::appender it(head);
        fmt::format_to(it, "@HD\tVN:1.6\tSO:unsorted\n");
        const fmt::memory_buffer& sq = refs_.impl().sq_lines;
        head.append(sq.data(), sq.data() + sq.size());
        fmt::format_to(it, "@PG\tID:gpualign\tPN:gpualign\tVN:{}", header_value(meta_.version));
        if (!meta_.command_line.empty()) fmt::format_to(it, "\tCL:{}", header_value(meta_.command_line));
        head.push_back('\n');
        if (meta_.score_only)
            fmt::format_to(it, "@CO\tgpualign score-only mode: CIGAR is '*' (not computed); POS is ref_begin+1\n");
        out_.write({head.data(), head.size()});
    }

    /// Records' bytes: to the output after a header written first, else to
    /// the spool (created at the first record).
    void emit(std::string_view bytes) {
        if (header_written_) {
            out_.write(bytes);
            return;
        }
        if (!spool_) spool_.emplace(scratch_dir_, out_.path());
        spool_->write(bytes);
    }

    /// Appends SEQ (upper case) and QUAL: as read, or with `reverse` the
    /// reverse complement of the letters (complement_letter) and the
    /// qualities reversed.
    static void append_seq_qual(const RecordView& q, bool reverse, fmt::memory_buffer& line_) {
        const std::size_t n = q.sequence.size(), old = line_.size();
        line_.resize(old + n);
        char* d = line_.data() + old;
        // Letters only (SAM v1.6 §1.4.10: [A-Za-z=.]+), written upper-case;
        // anything else makes SEQ and QUAL '*'.
        bool ok = n > 0;
        if (reverse) {
            for (std::size_t k = 0; k < n; ++k) {
                const char c = q.sequence[n - 1 - k];
                ok &= (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '=' || c == '.';
                const char l = complement_letter(c);
                d[k] = (l >= 'a' && l <= 'z') ? static_cast<char>(l - 'a' + 'A') : l;
            }
        } else {
            ok = ok && upper_letters(reinterpret_cast<const unsigned char*>(q.sequence.data()),
                                     reinterpret_cast<unsigned char*>(d), n);
        }
        if (!ok) {
            line_.resize(old);
            line_.append(std::string_view("*\t*"));
            return;
        }
        line_.push_back('\t');
        if (q.quality.size() != n) {
            line_.push_back('*');
        } else if (reverse) {
            const std::size_t at = line_.size();
            line_.resize(at + n);
            std::reverse_copy(q.quality.begin(), q.quality.end(), line_.data() + at);
        } else {
            line_.append(q.quality.data(), q.quality.data() + n);
        }
    }

    OutputFile out_;
    std::filesystem::path scratch_dir_;  ///< where the spool goes
    std::optional<SpoolFile> spool_;  ///< the records until commit, when the header is written last
    WriterOptions meta_;
    bool header_written_ = false;     ///< set_references wrote it: records go straight to out_
    /// Appends the @SQ line of a ref seen for the first time, after the
    /// checks SAM needs. With the header written (set_references), a ref
    /// not declared there is an error: REFS changed since it was read.
    /// @throws OutputError naming the output; InputError.
    void declare(std::string_view name, std::uint64_t length) {
        if (!format_detail::valid_rname(name))
            throw OutputError(fmt::format("{}: reference name '{}' is not a valid SAM reference name (SAM v1.6 §1.2.1)",
                                          shown_output(out_.path()), shown_name(name)));
        if (length > format_detail::max_sam_ref_length)
            throw OutputError(fmt::format("{}: reference '{}' has length {}, outside SAM's 1..2^31-1",
                                          shown_output(out_.path()), shown_name(name), length));
        format_detail::append_sq_line(name, length, refs_.impl().sq_lines);
        ++refs_.impl().count;
    }

    /// With the header written (set_references): checks that `r` is the
    /// REFS record of its number that the header was read from (its length
    /// and name hash). @throws InputError when not: REFS changed during the run.
    void check_declared(const RecordView& r) const {
        if (r.sequence.empty()) return;
        const SamReferences::Impl& im = refs_.impl();
        const std::uint64_t i = r.number - 1;
        if (r.number == 0 || i >= im.lengths.size() || im.lengths[i] != r.sequence.size() ||
            im.hashes[i] != format_detail::name_hash(r.name))
            throw InputError(fmt::format("reference '{}' (record {}, length {}) is not the record the SAM header was "
                                         "read from: REFS changed during the run",
                                         shown_name(r.name), r.number, r.sequence.size()));
    }

    /// Checks the coordinates of pairs [0, n) and adds their refs to the
    /// dictionary (each shard on a thread of its own, in pair order), then
    /// appends the @SQ lines of the refs first seen here, in pair order.
    /// Returns the first pair that failed a check (n if none), with its
    /// error in `error`: the lowest such pair, as one pass in order would.
    std::size_t declare_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                              std::span<const AlignmentResult> res, int threads, std::exception_ptr& error) {
        const std::size_t n = q.size();
        if (header_written_) return check_batch(q, r, res, threads, error);
        std::vector<std::uint8_t> fresh(n, 0);
        std::size_t stop = n;
        for (std::size_t k = 0; k < n && stop == n; ++k) {
            try {
                check_coordinates(q[k], r[k], res[k]);
            } catch (...) {
                stop = k;
                error = std::current_exception();
            }
        }
        using format_detail::ref_shards;
        std::array<std::vector<std::size_t>, ref_shards> of_shard;  // pair indices, in order
        for (std::size_t k = 0; k < stop; ++k)
            if (!r[k].sequence.empty()) of_shard[format_detail::shard_of(r[k].name)].push_back(k);
        std::array<std::size_t, ref_shards> shard_stop;
        std::array<std::exception_ptr, ref_shards> shard_error;
        shard_stop.fill(stop);
#pragma omp parallel for schedule(static, 1) num_threads(std::max(1, threads))
        for (std::size_t sh = 0; sh < ref_shards; ++sh) {
            for (const std::size_t k : of_shard[sh]) {
                try {
                    fresh[k] = refs_.impl().shards[sh].insert(r[k].name, r[k].sequence.size());
                } catch (...) {
                    shard_stop[sh] = k;
                    shard_error[sh] = std::current_exception();
                    break;
                }
            }
        }
        for (std::size_t sh = 0; sh < ref_shards; ++sh)
            if (shard_stop[sh] < stop) {
                stop = shard_stop[sh];
                error = shard_error[sh];
            }
        for (std::size_t k = 0; k < stop; ++k) {
            if (!fresh[k]) continue;
            try {
                declare(r[k].name, r[k].sequence.size());
            } catch (...) {
                error = std::current_exception();
                return k;
            }
        }
        return stop;
    }

    /// declare_batch with the header written: each pair's coordinates and
    /// ref (check_declared) on `threads` threads; the lowest failing pair.
    std::size_t check_batch(std::span<const RecordView> q, std::span<const RecordView> r,
                            std::span<const AlignmentResult> res, int threads, std::exception_ptr& error) const {
        const std::size_t n = q.size();
        std::size_t stop = n;
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
        for (std::size_t k = 0; k < n; ++k) {
            try {
                check_coordinates(q[k], r[k], res[k]);
                check_declared(r[k]);
            } catch (...) {
#pragma omp critical(gpualign_sam_check)
                if (k < stop) {
                    stop = k;
                    error = std::current_exception();
                }
            }
        }
        return stop;
    }

    SamReferences refs_;  ///< the @SQ dictionary: an index sharded by the name's hash, and the @SQ lines
    fmt::memory_buffer line_;
    std::vector<fmt::memory_buffer> buffers_;  // write_batch's, reused
};

}  // namespace

std::unique_ptr<AlignmentWriter::Impl> make_sam_writer(const std::string& path, const WriterOptions& options) {
    return std::make_unique<SamWriter>(path, options);
}

}  // namespace gpualign::format_detail
