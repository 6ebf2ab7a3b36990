// gpualign — FASTA cut into blocks (a memory map of a plain file, or zlib for
// gzip) and parsed by OpenMP tasks with SeqAn3 (SequenceReader::from_text);
// records handed out in file order.
#include "gpualign/parallel_reader.hpp"
#include "gz_read.hpp"
#include "line_ends.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpualign {
namespace {

/// One block of text and what parsing it gave.
struct Block {
    std::string owned;                    ///< the text when it is not a view of the map (gzip, or CR line ends)
    std::string_view mapped;              ///< the text as a view of the map, when `owned` is not used
    bool owns = false;
    std::string failure;                  ///< read error after this text (last block only)
    std::vector<SequenceRecord> records;  ///< numbered from 1 until fixed up in order; recycled ones beyond `count`
    std::size_t count = 0;                ///< records parsed (the rest of `records` are spare, recycled)
    std::size_t pool_first = 0, pool_count = 0;  ///< the pooled records parse() starts from
    std::size_t bases = 0;                ///< letters in `records` not yet handed out
    std::exception_ptr error;             ///< raised after `records`, in order
    bool failed = false;                  ///< the parallel parse threw (re-parsed in order)

    /// The text: LF line ends, starting at a record start. (A view is taken
    /// only here: a short `owned` string moves its bytes when the block moves.)
    std::string_view text() const noexcept { return owns ? std::string_view(owned) : mapped; }
};

bool is_space(unsigned char c) noexcept { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// Bytes before the first record of a file that starts with `s`: a UTF-8
/// byte order mark, then blanks (SequenceReader skips the same).
std::size_t leading_skip(std::string_view s) noexcept {
    std::size_t p = s.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    while (p < s.size() && is_space(static_cast<unsigned char>(s[p]))) ++p;
    return p;
}

/// True when the '>' at `p` of `s` is a safe cut point (see
/// ParallelSequenceReader): it begins a line whose preceding line is
/// non-empty and holds no '>' or ';'.
bool is_cut(std::string_view s, std::size_t p) noexcept {
    if (p < 2 || s[p - 1] != '\n') return false;
    std::size_t line = p - 1;  // the line before p: [line, p - 1)
    while (line > 0 && s[line - 1] != '\n') {
        const char c = s[--line];
        if (c == '>' || c == ';') return false;
    }
    return line < p - 1;
}

/// The last safe cut point in `s`, or 0.
std::size_t last_cut(std::string_view s) noexcept {
    std::size_t p = s.size();
    while (p > 1) {
        const void* hit = memrchr(s.data(), '>', p - 1);
        if (!hit) return 0;
        p = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
        if (is_cut(s, p)) return p;
    }
    return 0;
}

/// The first safe cut point at or after `from` in `s`, or s.size().
std::size_t next_cut(std::string_view s, std::size_t from) noexcept {
    while (from < s.size()) {
        const void* hit = std::memchr(s.data() + from, '>', s.size() - from);
        if (!hit) return s.size();
        const std::size_t p = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
        if (is_cut(s, p)) return p;
        from = p + 1;
    }
    return s.size();
}

/// A read-only private memory map of a whole regular file.
class Mapping {
public:
    /// Maps `path`; empty (data() == nullptr) when it cannot be mapped.
    explicit Mapping(const std::string& path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return;
        struct stat st {};
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (p != MAP_FAILED) {
                data_ = static_cast<const char*>(p);
                size_ = static_cast<std::size_t>(st.st_size);
                ::madvise(p, size_, MADV_SEQUENTIAL);
            }
        }
        ::close(fd);
    }
    ~Mapping() {
        if (data_) ::munmap(const_cast<char*>(data_), size_);
    }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;

    const char* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    /// Drops the pages wholly before `offset` from this process (they are
    /// read again from the file if touched), so that resident memory stays
    /// bounded by the blocks in flight rather than growing with the file.
    void release_before(std::size_t offset) noexcept {
        static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const std::size_t end = offset / page * page;
        if (end > released_) {
            ::madvise(const_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
            released_ = end;
        }
    }

private:
    const char* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t released_ = 0;
};

}  // namespace

struct ParallelSequenceReader::Impl {
    std::string path;
    std::string shown;
    int threads = 1;
    std::optional<SequenceReader> probe;  // the serial reader; in parallel mode it only opens and detects
    bool parallel = false;
    Alphabet alphabet = Alphabet::dna;
    bool started = false;

    // text source: a memory map (plain file) or zlib (gzip)
    std::unique_ptr<Mapping> map;
    std::size_t map_pos = 0;   // next byte of the map to cut
    gzFile gz = nullptr;
    std::string pending;       // gzip: text read but not yet cut into a block
    bool first_read = true;    // gzip: the BOM and leading blanks are still to be skipped
    detail::LineEndNormalizer normalize_line_ends;  // gzip: CRLF / CR -> LF across chunks
    bool eof = false;          // nothing more to cut
    std::string failure;       // gzip: read error met at eof

    // parsed blocks not yet handed out, in file order
    std::deque<Block> ready;
    std::size_t record_index = 0;      // in ready.front()
    std::size_t queued_records = 0, queued_bases = 0;
    std::uint64_t records_before = 0;  // records in blocks fixed up so far
    std::uint64_t handed_out = 0;
    bool stopped = false;              // an error is queued, or the serial reader ended
    static constexpr std::size_t blocks_per_round = 2;  // per thread

    // records handed back for reuse (recycle(); the only state shared with other threads)
    std::mutex returned_mutex;
    std::vector<std::vector<SequenceRecord>> returned;
    std::vector<SequenceRecord> pool;  // records whose buffers parse() reuses
    std::uint64_t parsed_bytes = 0, parsed_records = 0;  // for provision()
    static constexpr std::size_t pool_max = 1u << 18;
    static constexpr std::size_t recycle_max_letters = 1u << 20;

    ~Impl() {
        if (gz) gzclose_r(gz);
    }

    void start() {
        alphabet = probe->alphabet();  // errors in the first records: exactly SequenceReader's
        const bool compressed = probe->compressed();
        probe.reset();
        if (!compressed) {
            map = std::make_unique<Mapping>(path);
            if (map->data()) {
                map_pos = leading_skip(std::string_view(map->data(), map->size()));
                started = true;
                return;
            }
            map.reset();
        }
        errno = 0;
        gz = gzopen(path.c_str(), "rb");
        if (!gz) throw InputError(fmt::format("{}: cannot open: {}", shown, errno ? std::strerror(errno) : "out of memory"));
        gzbuffer(gz, static_cast<unsigned>(block_bytes));
        started = true;
    }

    /// gzip: appends up to block_bytes bytes to `pending`, LF-normalised;
    /// failures are worded by detail::gz_read_failure, as in SequenceReader.
    void read_more() {
        const std::size_t old = pending.size();
        pending.resize(old + block_bytes);
        const int got = gzread(gz, pending.data() + old, static_cast<unsigned>(block_bytes));
        if (auto why = detail::gz_read_failure(gz, got)) {
            failure = std::move(*why);
            pending.resize(old);
            eof = true;
            return;
        }
        if (got == 0) {
            pending.resize(old);
            eof = true;
            return;
        }
        pending.resize(old + normalize_line_ends(pending.data() + old, static_cast<std::size_t>(got)));
        if (first_read && !pending.empty()) {
            pending.erase(0, leading_skip(pending));
            first_read = pending.empty();
        }
    }

    /// Cuts the next block of text into `b`; false when there is none.
    bool cut(Block& b) {
        if (map) {
            const std::string_view s(map->data(), map->size());
            if (map_pos >= s.size()) return false;
            const std::size_t end = s.size() - map_pos <= block_bytes ? s.size() : next_cut(s, map_pos + block_bytes);
            b.mapped = s.substr(map_pos, end - map_pos);
            map_pos = end;
            if (std::memchr(b.mapped.data(), '\r', b.mapped.size())) {  // a cut is after an LF, so no CRLF spans two blocks
                b.owned.assign(b.mapped);
                b.owns = true;
                detail::LineEndNormalizer normalize;
                b.owned.resize(normalize(b.owned.data(), b.owned.size()));
            }
            return true;
        }
        while (!(eof && pending.empty())) {
            if (!eof && pending.size() < block_bytes) {
                read_more();
                continue;
            }
            const std::size_t at = eof ? pending.size() : last_cut(pending);
            if (at == 0) {  // a record longer than what is read so far
                read_more();
                continue;
            }
            b.owned.assign(pending, 0, at);
            b.owns = true;
            pending.erase(0, at);
            if (eof && pending.empty()) b.failure = std::exchange(failure, {});
            return true;
        }
        if (failure.empty()) return false;
        // A read error right after the last cut: raised once the records before it are handed out.
        b.error = std::make_exception_ptr(InputError(fmt::format("{}: {}", shown, std::exchange(failure, {}))));
        return true;
    }

    /// Parses one block with SeqAn3, numbering from 1; marks it failed on any error.
    /// Parses into the block's (recycled) records first, so that their
    /// buffers are reused rather than allocated.
    void parse(Block& b) noexcept {
        if (b.error) return;
        try {
            b.records.reserve(b.pool_count);
            for (std::size_t k = 0; k < b.pool_count; ++k) b.records.push_back(std::move(pool[b.pool_first + k]));
            SequenceReader r = SequenceReader::from_text(b.text(), path, SequenceFormat::fasta, alphabet, 1, b.failure);
            while (true) {
                if (b.count == b.records.size()) b.records.emplace_back();
                if (!r.next(b.records[b.count])) break;
                b.bases += b.records[b.count].codes.size();
                ++b.count;
            }
        } catch (...) {
            b.failed = true;
        }
    }

    /// Moves records handed back by recycle() into the pool (up to pool_max).
    void take_returned() {
        std::vector<std::vector<SequenceRecord>> got;
        {
            std::lock_guard lock(returned_mutex);
            got.swap(returned);
        }
        for (auto& v : got)
            for (SequenceRecord& r : v) {
                if (pool.size() >= pool_max) return;
                if (r.sequence.capacity() <= recycle_max_letters) pool.push_back(std::move(r));
            }
    }

    /// Reserves for block `b` a range of the pool about as long as the
    /// number of records its text should hold (parse() moves them into the
    /// block, on the block's own task); `pool_used` counts from the pool's end.
    void provision(Block& b, std::size_t& pool_used) const {
        if (parsed_records == 0) return;
        const std::size_t per_record = std::max<std::uint64_t>(1, parsed_bytes / parsed_records);
        const std::size_t want = std::min(pool.size() - pool_used, b.text().size() / per_record + 4);
        pool_used += want;
        b.pool_first = pool.size() - pool_used;
        b.pool_count = want;
    }

    /// Parallel mode: cuts up to blocks_per_round * threads blocks, parses
    /// them as OpenMP tasks of the current team, fixes up record numbers and
    /// errors in order and queues them. False when nothing is left.
    bool parse_round() {
        const std::size_t max_blocks = blocks_per_round * static_cast<std::size_t>(threads);
        std::vector<Block> round;
        while (round.size() < max_blocks) {
            Block b;
            if (!cut(b)) break;
            round.push_back(std::move(b));
            if (round.back().error) break;
        }
        if (round.empty()) return false;
        take_returned();
        std::size_t pool_used = 0;
        for (Block& b : round) provision(b, pool_used);
        // Runs on the team of the enclosing parallel region (one team can
        // serve both input files); it waits for its own tasks only.
#pragma omp taskloop grainsize(1) shared(round)
        for (std::size_t i = 0; i < round.size(); ++i) parse(round[i]);
        pool.resize(pool.size() - pool_used);  // moved into the blocks

        for (Block& b : round) {
            parsed_bytes += b.text().size();
            if (b.failed) {  // again, in order, so that the message holds the true record number
                b.records.clear();
                b.bases = 0;
                try {
                    SequenceReader r = SequenceReader::from_text(b.text(), path, SequenceFormat::fasta, alphabet,
                                                                 records_before + 1, b.failure);
                    SequenceRecord rec;
                    while (r.next(rec)) {
                        b.bases += rec.codes.size();
                        b.records.push_back(std::move(rec));
                    }
                } catch (...) {
                    b.error = std::current_exception();
                }
            } else {
                for (std::size_t k = b.count; k < b.records.size() && pool.size() < pool_max; ++k)
                    pool.push_back(std::move(b.records[k]));
                b.records.resize(b.count);
                for (SequenceRecord& rec : b.records) rec.number += records_before;
            }
            parsed_records += b.records.size();
            records_before += b.records.size();
            queued_records += b.records.size();
            queued_bases += b.bases;
            b.owned = std::string();
            b.mapped = {};
            b.owns = false;
            const bool error = static_cast<bool>(b.error);
            ready.push_back(std::move(b));
            if (error) {
                stopped = true;
                break;
            }
        }
        if (map) map->release_before(map_pos);  // every block before map_pos is parsed
        return true;
    }

    /// Serial mode: one record from the probe reader into the queue.
    bool parse_serial() {
        Block& b = ready.empty() ? ready.emplace_back() : ready.back();
        SequenceRecord rec;
        try {
            if (!probe->next(rec)) {
                stopped = true;
                return false;
            }
        } catch (...) {
            ready.emplace_back().error = std::current_exception();
            stopped = true;
            return false;
        }
        ++queued_records;
        queued_bases += rec.codes.size();
        b.bases += rec.codes.size();
        b.records.push_back(std::move(rec));
        return true;
    }

    void fill_here(std::size_t min_records, std::size_t min_bases) {
        while (!stopped && queued_records < min_records && queued_bases < min_bases) {
            if (!parallel) {
                parse_serial();
                continue;
            }
            if (!started) start();
            if (!parse_round()) stopped = true;
        }
    }

    void fill(std::size_t min_records, std::size_t min_bases) {
        if (!parallel || omp_in_parallel()) {
            fill_here(min_records, min_bases);
            return;
        }
        std::exception_ptr error;
#pragma omp parallel num_threads(threads)
#pragma omp single
        try {
            fill_here(min_records, min_bases);
        } catch (...) {
            error = std::current_exception();
        }
        if (error) std::rethrow_exception(error);
    }

    /// Drops the exhausted front block; rethrows its error, if any.
    void pop_front_block() {
        Block& b = ready.front();
        if (b.error) std::rethrow_exception(b.error);
        ready.pop_front();
        record_index = 0;
    }

    bool next(SequenceRecord& out) {
        while (true) {
            if (!ready.empty()) {
                Block& b = ready.front();
                if (record_index < b.records.size()) {
                    SequenceRecord& rec = b.records[record_index++];
                    --queued_records;
                    queued_bases -= rec.codes.size();
                    b.bases -= rec.codes.size();
                    out = std::move(rec);
                    ++handed_out;
                    return true;
                }
                pop_front_block();
                continue;
            }
            if (stopped) return false;
            fill(1, 1);
        }
    }

    /// Moves the queued records to `out` (the blocks in parallel: moving
    /// records one by one is as costly as parsing them), then raises a
    /// queued error.
    std::size_t take_parsed(std::vector<SequenceRecord>& out) {
        std::vector<std::size_t> offset;  // in out, of each ready block
        std::size_t blocks = 0, total = out.size();
        for (const Block& b : ready) {
            offset.push_back(total);
            total += b.records.size() - (blocks == 0 ? record_index : 0);
            ++blocks;
            if (b.error) break;
        }
        const std::size_t moved = total - out.size();
        out.resize(total);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (blocks > 1 && !omp_in_parallel())
        for (std::size_t i = 0; i < blocks; ++i) {
            Block& b = ready[i];
            const std::size_t first = i == 0 ? record_index : 0;
            for (std::size_t k = first; k < b.records.size(); ++k) out[offset[i] + k - first] = std::move(b.records[k]);
        }
        handed_out += moved;
        queued_records -= moved;
        for (std::size_t i = 0; i < blocks; ++i) {
            Block& b = ready.front();
            queued_bases -= b.bases;
            b.bases = 0;
            b.records.clear();
            record_index = 0;
            pop_front_block();  // rethrows at the error block, the last one here
        }
        return moved;
    }
};

ParallelSequenceReader::ParallelSequenceReader(std::string path, AlphabetChoice choice, int threads)
    : impl_(std::make_unique<Impl>()) {
    Impl& im = *impl_;
    im.path = std::move(path);
    im.shown = display_path(im.path);
    im.threads = threads < 1 ? 1 : threads;
    im.probe.emplace(im.path, choice);
    // A FIFO or /dev/fd/N cannot be opened a second time for the blocks.
    std::error_code ec;
    im.parallel = im.threads > 1 && im.path != "-" && im.probe->format() == SequenceFormat::fasta &&
                  std::filesystem::is_regular_file(im.path, ec);
}

ParallelSequenceReader::~ParallelSequenceReader() = default;
ParallelSequenceReader::ParallelSequenceReader(ParallelSequenceReader&&) noexcept = default;
ParallelSequenceReader& ParallelSequenceReader::operator=(ParallelSequenceReader&&) noexcept = default;

bool ParallelSequenceReader::next(SequenceRecord& out) { return impl_->next(out); }
void ParallelSequenceReader::fill(std::size_t min_records, std::size_t min_bases) { impl_->fill(min_records, min_bases); }
std::size_t ParallelSequenceReader::take_parsed(std::vector<SequenceRecord>& out) { return impl_->take_parsed(out); }
void ParallelSequenceReader::recycle(std::vector<SequenceRecord>&& records) {
    if (records.empty() || !impl_->parallel) return;
    std::lock_guard lock(impl_->returned_mutex);
    impl_->returned.push_back(std::move(records));
}
bool ParallelSequenceReader::exhausted() const noexcept { return impl_->stopped && impl_->ready.empty(); }
Alphabet ParallelSequenceReader::alphabet() {
    if (impl_->started) return impl_->alphabet;
    return impl_->probe->alphabet();
}
const std::string& ParallelSequenceReader::path() const noexcept { return impl_->path; }
std::uint64_t ParallelSequenceReader::records_read() const noexcept { return impl_->handed_out; }
bool ParallelSequenceReader::parallel() const noexcept { return impl_->parallel; }
int ParallelSequenceReader::threads() const noexcept { return impl_->threads; }

}  // namespace gpualign
