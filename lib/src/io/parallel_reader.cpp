// gpualign — FASTA cut into blocks (a memory map of a plain file, or the
// decompressed stream of a compressed one) and parsed by OpenMP tasks with the hot-path block parser
// (fasta_block.hpp), SequenceReader::from_text where it declines;
// records handed out in file order.
#include "gpualign/io/parallel_reader.hpp"
#include "fasta_block.hpp"
#include "fastq_block.hpp"
#include "decompress.hpp"
#include "line_ends.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpualign {
namespace {

/// Parsed blocks handed back for reuse: a RecordBlock handed out by
/// take_blocks() returns here when its last owner (a batch) lets go of it, on
/// whatever thread that is, so that later blocks are parsed into memory that
/// is already allocated and touched rather than fresh pages (first touching
/// fresh memory, not parsing, limited parallel reading).
class BlockPool {
public:
    /// Bytes of block capacity kept at most; blocks beyond it are freed.
    static constexpr std::size_t max_bytes = std::size_t{256} << 20;

    /// A cleared block, reused when one is free; returns to `pool` when its
    /// last owner releases it. @throws std::bad_alloc.
    static std::shared_ptr<RecordBlock> make(const std::shared_ptr<BlockPool>& pool) {
        std::unique_ptr<RecordBlock> b;
        {
            std::lock_guard lock(pool->mutex_);
            if (!pool->free_.empty()) {
                b = std::move(pool->free_.back());
                pool->free_.pop_back();
                pool->free_bytes_ -= b->capacity_bytes();
            }
        }
        if (!b) b = std::make_unique<RecordBlock>();
        return std::shared_ptr<RecordBlock>(b.release(), [pool](RecordBlock* p) { pool->give_back(p); });
    }

private:
    void give_back(RecordBlock* p) noexcept {
        std::unique_ptr<RecordBlock> b(p);
        b->clear();
        const std::size_t bytes = b->capacity_bytes();
        std::lock_guard lock(mutex_);
        if (free_bytes_ + bytes > max_bytes) return;
        try {
            free_.push_back(std::move(b));
            free_bytes_ += bytes;
        } catch (const std::bad_alloc&) {  // the block is freed instead
        }
    }

    std::mutex mutex_;
    std::vector<std::unique_ptr<RecordBlock>> free_;
    std::size_t free_bytes_ = 0;
};

/// One block of text and what parsing it gave.
struct Block {
    /// The text when it is not a view of the map (compressed, or CR line
    /// ends), in huge pages as the parsed records are.
    std::basic_string<char, std::char_traits<char>, detail::BlockAllocator<char>> owned;
    std::string_view mapped;              ///< the text as a view of the map, when `owned` is not used
    bool owns = false;
    std::string failure;                  ///< read error after this text (last block only)
    std::shared_ptr<RecordBlock> records; ///< the parsed records; numbered once fixed up in order
    std::exception_ptr error;             ///< raised after `records`, in order
    bool failed = false;                  ///< the parallel parse threw (re-parsed in order)
    bool declined = false;                ///< FASTQ: not plain 4-line records; the rest of the file goes to SequenceReader
    std::size_t map_at = 0;               ///< a block of the map: the offset of its first byte

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
    SequenceFormat format = SequenceFormat::fasta;
    Alphabet alphabet = Alphabet::dna;
    DnaCodes dna_codes = DnaCodes::dna5;
    bool started = false;
    bool empty = false;                   // the input holds no records

    // text source: a memory map (plain file) or a DecompressingInput (compressed)
    std::unique_ptr<Mapping> map;
    std::size_t map_pos = 0;   // next byte of the map to cut
    std::unique_ptr<detail::DecompressingInput> gz;  // compressed input
    std::string pending;       // compressed: text read but not yet cut into a block
    bool first_read = true;    // compressed: the BOM and leading blanks are still to be skipped
    detail::LineEndNormalizer normalize_line_ends;  // compressed: CRLF / CR -> LF across chunks
    bool eof = false;          // nothing more to cut
    std::string failure;       // compressed: read error met at eof

    // parsed blocks not yet handed out, in file order
    std::deque<Block> ready;
    std::size_t record_index = 0;      // in ready.front(), for next()
    std::size_t queued_records = 0, queued_bases = 0;
    std::uint64_t records_before = 0;  // records in blocks fixed up so far
    std::uint64_t handed_out = 0;
    bool stopped = false;              // an error is queued, or the serial reader ended
    static constexpr std::size_t blocks_per_round = 2;  // per thread
    std::shared_ptr<BlockPool> pool = std::make_shared<BlockPool>();
    SequenceRecord scratch;            // serial mode: one record on its way into a block

    void start() {
        alphabet = probe->alphabet();  // errors in the first records: exactly SequenceReader's
        const bool compressed = probe->compressed();
        if (!compressed) {
            map = std::make_unique<Mapping>(path);
            if (map->data()) {
                probe.reset();
                map_pos = leading_skip(std::string_view(map->data(), map->size()));
                started = true;
                return;
            }
            map.reset();
        }
        if (format == SequenceFormat::fastq) {  // FASTQ is cut in a map only: else the probe reads it all
            parallel = false;
            started = true;
            return;
        }
        probe.reset();
        gz = detail::DecompressingInput::open(path, shown);
        started = true;
    }

    /// Compressed input: appends up to block_bytes bytes to `pending`,
    /// LF-normalised; failures are worded by DecompressingInput, as in
    /// SequenceReader.
    void read_more() {
        const std::size_t old = pending.size();
        pending.resize(old + block_bytes);
        std::size_t got = 0;
        while (got < block_bytes) {
            const std::size_t k = gz->read(pending.data() + old + got, block_bytes - got);
            if (k == 0) break;
            got += k;
        }
        if (!gz->failure().empty()) {  // the bytes before it are kept; the failure follows them
            failure = gz->failure();
            eof = true;
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
            const std::size_t end = s.size() - map_pos <= block_bytes ? s.size()
                                    : format == SequenceFormat::fasta ? next_cut(s, map_pos + block_bytes)
                                                                      : detail::fastq_cut(s, map_pos + block_bytes);
            b.mapped = s.substr(map_pos, end - map_pos);
            b.map_at = map_pos;
            map_pos = end;
            return true;  // CR line ends are made LF on the block's parser thread (own_lf_text)
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
            b.owned.assign(pending.data(), at);
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

    /// A block of the map with a CR in it gets a copy of its text with LF
    /// line ends (a cut is after an LF, so no CRLF spans two blocks).
    static void own_lf_text(Block& b) {
        if (b.owns || !std::memchr(b.mapped.data(), '\r', b.mapped.size())) return;
        b.owned.assign(b.mapped);
        b.owns = true;
        detail::LineEndNormalizer normalize;
        b.owned.resize(normalize(b.owned.data(), b.owned.size()));
    }

    /// Runs a block parser (parse_fasta_block or parse_fastq_block, which
    /// decline any CR) on `b`'s text into its RecordBlock; a mapped block it
    /// declines is scanned for CR line ends only then, and one with CRs gets
    /// LF line ends and a second try. False when declined (the records are
    /// then an unspecified prefix).
    template <typename Parser>
    bool parse_lf(Block& b, Parser parser) const {
        if (parser(b.text(), alphabet, dna_codes, *b.records)) return true;
        if (b.owns) return false;
        own_lf_text(b);
        if (!b.owns) return false;
        b.records->clear();
        return parser(b.text(), alphabet, dna_codes, *b.records);
    }

    /// Parses block `b` into its RecordBlock, numbering its records from
    /// `first_number`. @throws InputError as SequenceReader.
    void parse_block(Block& b, std::uint64_t first_number) const {
        SequenceReader r = SequenceReader::from_text(b.text(), path, format, alphabet, first_number,
                                                     b.failure);
        r.set_dna_codes(dna_codes);
        while (r.next_into(*b.records)) {}
    }

    /// Parses one block into its RecordBlock: with the hot-path parser
    /// (fasta_block.hpp), and with SequenceReader when that declines the block or a
    /// read error follows it; marks it failed on any error.
    void parse(Block& b) noexcept {
        if (b.error) return;
        try {
            if (format == SequenceFormat::fastq) {  // SequenceReader reads the rest of the file from a declined block
                try {
                    b.declined = !parse_lf(b, detail::parse_fastq_block);
                } catch (...) {
                    b.declined = true;  // std::bad_alloc: the serial reader meets it again, in order
                }
                if (b.declined) b.records->clear();
                return;
            }
            if (b.failure.empty() && parse_lf(b, detail::parse_fasta_block)) return;
            b.records->clear();
            parse_block(b, 1);  // LF text: parse_lf made a mapped block's CR line ends LF
        } catch (...) {
            b.failed = true;
        }
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
        for (Block& b : round) b.records = BlockPool::make(pool);
        // Runs on the team of the enclosing parallel region (one team can
        // serve both input files); it waits for its own tasks only.
#pragma omp taskloop grainsize(1) shared(round)
        for (std::size_t i = 0; i < round.size(); ++i) parse(round[i]);

        for (Block& b : round) {
            b.records->set_first_number(records_before + 1);
            if (b.declined) {  // FASTQ: every block before it is plain records, so b starts at a record
                read_rest_serially(b.map_at);
                break;
            }
            if (b.failed) {  // again, in order, so that the message holds the true record number
                b.records->clear();
                try {
                    own_lf_text(b);
                    parse_block(b, records_before + 1);
                } catch (...) {
                    b.error = std::current_exception();
                }
            }
            records_before += b.records->size();
            queued_records += b.records->size();
            queued_bases += b.records->bases();
            b.owned = {};
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

    /// FASTQ: from the record at `map_at` of the map on, SequenceReader reads the
    /// file on one thread (serial mode), numbering from the records already
    /// queued: over the mapped text itself, or, when a CR is left in it
    /// (it is given LF line ends), over the file reopened and the
    /// records before skipped.
    void read_rest_serially(std::size_t map_at) {
        const std::string_view rest(map->data() + map_at, map->size() - map_at);
        if (!std::memchr(rest.data(), '\r', rest.size())) {
            probe = SequenceReader::from_text(rest, path, format, alphabet, records_before + 1);
            probe->set_dna_codes(dna_codes);
        } else {
            probe.emplace(path, alphabet == Alphabet::protein ? AlphabetChoice::protein : AlphabetChoice::dna);
            probe->set_dna_codes(dna_codes);
            for (std::uint64_t k = 0; k < records_before; ++k) probe->next(scratch);
        }
        parallel = false;
    }

    /// Serial mode: one record from the probe reader into the queue (the
    /// last block, or a new one once that holds block_bytes letters).
    bool parse_serial() {
        try {
            if (!probe->next(scratch)) {
                stopped = true;
                return false;
            }
        } catch (...) {
            ready.emplace_back().error = std::current_exception();
            stopped = true;
            return false;
        }
        if (ready.empty() || ready.back().records->bases() >= block_bytes) {
            Block& b = ready.emplace_back();
            b.records = BlockPool::make(pool);
            b.records->set_first_number(scratch.number);
        }
        ready.back().records->append(scratch);
        ++queued_records;
        queued_bases += scratch.codes.size();
        return true;
    }

    void fill_here(std::size_t min_records, std::size_t min_bases) {
        while (!stopped && queued_records < min_records && queued_bases < min_bases) {
            if (!parallel) {
                parse_serial();
                continue;
            }
            if (!started) {
                start();  // may turn to serial mode
                continue;
            }
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

    std::size_t front_records() const noexcept {
        const Block& b = ready.front();
        return b.records ? b.records->size() : 0;
    }

    bool next(SequenceRecord& out) {
        while (true) {
            if (!ready.empty()) {
                if (record_index < front_records()) {
                    const RecordBlock& records = *ready.front().records;
                    records.copy_to(record_index++, out);
                    --queued_records;
                    queued_bases -= out.codes.size();
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

    /// Hands the queued blocks to `out` (a block partly handed out by next()
    /// is copied from its next record on), then raises a queued error.
    std::size_t take_blocks(std::vector<std::shared_ptr<const RecordBlock>>& out) {
        std::size_t moved = 0;
        while (!ready.empty()) {
            Block& b = ready.front();
            const std::size_t n = front_records();
            if (record_index < n) {
                std::shared_ptr<RecordBlock> records = std::move(b.records);
                if (record_index > 0) {  // only after next(): the rest into a block of their own
                    std::shared_ptr<RecordBlock> rest = BlockPool::make(pool);
                    rest->set_first_number(records->first_number() + record_index);
                    SequenceRecord rec;
                    for (std::size_t k = record_index; k < n; ++k) {
                        records->copy_to(k, rec);
                        rest->append(rec);
                    }
                    records = std::move(rest);
                }
                moved += records->size();
                queued_records -= records->size();
                queued_bases -= records->bases();
                out.push_back(std::move(records));
            }
            record_index = n;
            pop_front_block();  // rethrows at an error block, the last one queued
        }
        handed_out += moved;
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
    im.format = im.probe->format();
    im.empty = im.probe->empty();
    im.parallel = im.path != "-" && (im.format == SequenceFormat::fasta || !im.probe->compressed()) &&
                  std::filesystem::is_regular_file(im.path, ec);
}

ParallelSequenceReader::~ParallelSequenceReader() = default;
ParallelSequenceReader::ParallelSequenceReader(ParallelSequenceReader&&) noexcept = default;
ParallelSequenceReader& ParallelSequenceReader::operator=(ParallelSequenceReader&&) noexcept = default;

bool ParallelSequenceReader::next(SequenceRecord& out) { return impl_->next(out); }
void ParallelSequenceReader::fill(std::size_t min_records, std::size_t min_bases) { impl_->fill(min_records, min_bases); }
std::size_t ParallelSequenceReader::take_blocks(std::vector<std::shared_ptr<const RecordBlock>>& out) {
    return impl_->take_blocks(out);
}
bool ParallelSequenceReader::exhausted() const noexcept { return impl_->stopped && impl_->ready.empty(); }
Alphabet ParallelSequenceReader::alphabet() {
    if (impl_->started) return impl_->alphabet;
    return impl_->probe->alphabet();
}
void ParallelSequenceReader::set_dna_codes(DnaCodes codes) {
    Impl& im = *impl_;
    if (codes == im.dna_codes) return;
    if (im.handed_out > 0 || !im.ready.empty())
        throw std::logic_error("ParallelSequenceReader::set_dna_codes: " + im.shown +
                               " already parsed records in the other DNA coding");
    im.dna_codes = codes;
    if (im.probe) im.probe->set_dna_codes(codes);
}
const std::string& ParallelSequenceReader::path() const noexcept { return impl_->path; }
std::uint64_t ParallelSequenceReader::records_read() const noexcept { return impl_->handed_out; }
bool ParallelSequenceReader::empty() const noexcept { return impl_->empty; }
bool ParallelSequenceReader::in_blocks() const noexcept { return impl_->parallel; }
int ParallelSequenceReader::threads() const noexcept { return impl_->threads; }

bool holds_one_fasta_record(const std::string& path, std::size_t max_bytes) noexcept {
    return one_fasta_record_bytes(path, max_bytes).has_value();
}

std::optional<std::size_t> one_fasta_record_bytes(const std::string& path, std::size_t max_bytes) noexcept {
    try {
        std::error_code ec;
        if (path == "-" || !std::filesystem::is_regular_file(path, ec)) return std::nullopt;
        const std::unique_ptr<detail::DecompressingInput> file = detail::DecompressingInput::open(path, path);
        std::string text;
        std::array<char, 64 * 1024> piece{};
        std::optional<std::size_t> first;  // where the first record starts, once text holds it
        std::size_t scanned = 0;           // text before it holds no second record start
        for (;;) {
            const std::size_t got = file->read(piece.data(), piece.size());
            if (!file->failure().empty()) return std::nullopt;
            if (got == 0) break;
            text.append(piece.data(), got);
            if (text.size() > max_bytes) return std::nullopt;
            if (!first) {
                const std::size_t at = leading_skip(text);
                if (at == text.size()) continue;  // only blanks so far
                if (text[at] != '>') return std::nullopt;
                first = at;
                scanned = at + 1;
            }
            // Each piece is looked at as it arrives, so a file of many records
            // is told apart after its first piece with a second record.
            for (std::size_t p = text.find('>', scanned); p != std::string::npos; p = text.find('>', p + 1))
                if (text[p - 1] == '\n' || text[p - 1] == '\r') return std::nullopt;  // a second record
            scanned = text.size();
        }
        if (!first) return std::nullopt;
        return text.size();
    } catch (...) {
        return std::nullopt;
    }
}

}  // namespace gpualign
