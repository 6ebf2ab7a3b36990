// gpualign — FASTA read by one producer (zlib) and parsed by OpenMP threads
// with SeqAn3 (SequenceReader::from_text), records handed out in file order.
#include "gpualign/parallel_reader.hpp"
#include "gz_read.hpp"
#include "line_ends.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpualign {
namespace {

/// One block of text and what parsing it gave.
struct Block {
    std::string text;
    std::string failure;                  ///< read error after this text (last block only)
    std::vector<SequenceRecord> records;  ///< numbered from 1 until fixed up in order
    std::exception_ptr error;             ///< raised after `records`, in order
    bool failed = false;                  ///< the parallel parse threw (re-parsed in order)
};

bool is_space(unsigned char c) noexcept { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// The last safe cut point in `s` (see ParallelSequenceReader), or 0.
std::size_t last_cut(const std::string& s) noexcept {
    std::size_t p = s.size();
    while (p > 1) {
        const void* hit = memrchr(s.data(), '>', p - 1);
        if (!hit) return 0;
        p = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
        if (p < 2 || s[p - 1] != '\n') continue;
        // The line before p: [line, p - 1), non-empty and without '>' or ';'.
        std::size_t line = p - 1;
        bool ok = true;
        while (line > 0 && s[line - 1] != '\n') {
            const char c = s[--line];
            if (c == '>' || c == ';') {
                ok = false;
                break;
            }
        }
        if (ok && line < p - 1) return p;
    }
    return 0;
}

}  // namespace

struct ParallelSequenceReader::Impl {
    std::string path;
    std::string shown;
    int threads = 1;
    std::optional<SequenceReader> probe;  // serial reader; in parallel mode it only opens and detects
    bool parallel = false;
    Alphabet alphabet = Alphabet::dna;
    bool started = false;

    // producer
    gzFile gz = nullptr;
    std::string pending;       // text read but not yet cut into a block
    bool first_read = true;    // the BOM and leading blanks are still to be skipped
    detail::LineEndNormalizer normalize_line_ends;  // CRLF / CR -> LF across chunks
    bool eof = false;
    std::string failure;       // read error met at eof

    // consumer
    std::vector<Block> round;
    std::size_t block_index = 0, record_index = 0;
    std::uint64_t records_before = 0;  // records in blocks fixed up so far
    std::uint64_t handed_out = 0;
    bool stopped = false;              // an error is queued; no more blocks
    static constexpr std::size_t blocks_per_round = 2;  // per thread

    ~Impl() {
        if (gz) gzclose_r(gz);
    }

    void start() {
        alphabet = probe->alphabet();  // errors in the first records: exactly SequenceReader's
        probe.reset();
        errno = 0;
        gz = gzopen(path.c_str(), "rb");
        if (!gz) throw InputError(fmt::format("{}: cannot open: {}", shown, errno ? std::strerror(errno) : "out of memory"));
        gzbuffer(gz, static_cast<unsigned>(block_bytes));
        started = true;
    }

    /// Appends up to block_bytes bytes to `pending`, LF-normalised; failures
    /// are worded by detail::gz_read_failure, as in SequenceReader.
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
            std::size_t skip = pending.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
            while (skip < pending.size() && is_space(static_cast<unsigned char>(pending[skip]))) ++skip;
            pending.erase(0, skip);
            first_read = pending.empty();
        }
    }


    /// Parses one block with SeqAn3, numbering from 1; marks it failed on any error.
    void parse(Block& b) const noexcept {
        try {
            SequenceReader r = SequenceReader::from_text(b.text, path, SequenceFormat::fasta, alphabet, 1, b.failure);
            while (true) {
                b.records.emplace_back();
                if (!r.next(b.records.back())) {
                    b.records.pop_back();
                    break;
                }
            }
        } catch (...) {
            b.failed = true;
        }
    }

    /// Cuts up to blocks_per_round * threads blocks, parses them in parallel
    /// (OpenMP) and fixes up record numbers and errors in order. False when
    /// nothing is left.
    bool fill_round() {
        round.clear();
        block_index = record_index = 0;
        const std::size_t max_blocks = blocks_per_round * static_cast<std::size_t>(threads);
        while (round.size() < max_blocks && !(eof && pending.empty())) {
            if (!eof && pending.size() < block_bytes) {
                read_more();
                continue;
            }
            const std::size_t cut = eof ? pending.size() : last_cut(pending);
            if (cut == 0) {  // a record longer than what is read so far
                read_more();
                continue;
            }
            Block& b = round.emplace_back();
            b.text.assign(pending, 0, cut);
            pending.erase(0, cut);
            if (eof && pending.empty()) b.failure = std::exchange(failure, {});
        }
        if (round.empty() && !failure.empty()) throw InputError(fmt::format("{}: {}", shown, failure));
        if (round.empty()) return false;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (std::size_t i = 0; i < round.size(); ++i) parse(round[i]);

        for (Block& b : round) {
            if (b.failed) {  // again, in order, so that the message holds the true record number
                b.records.clear();
                try {
                    SequenceReader r = SequenceReader::from_text(b.text, path, SequenceFormat::fasta, alphabet,
                                                                 records_before + 1, b.failure);
                    SequenceRecord rec;
                    while (r.next(rec)) b.records.push_back(std::move(rec));
                } catch (...) {
                    b.error = std::current_exception();
                }
            } else {
                for (SequenceRecord& rec : b.records) rec.number += records_before;
            }
            records_before += b.records.size();
            b.text = std::string();
            if (b.error) {
                stopped = true;
                break;
            }
        }
        return true;
    }

    bool next(SequenceRecord& out) {
        if (!parallel) {
            if (!probe->next(out)) return false;
            ++handed_out;
            return true;
        }
        if (!started) start();
        while (true) {
            if (block_index < round.size()) {
                Block& b = round[block_index];
                if (record_index < b.records.size()) {
                    out = std::move(b.records[record_index++]);
                    ++handed_out;
                    return true;
                }
                if (b.error) std::rethrow_exception(b.error);
                ++block_index;
                record_index = 0;
                continue;
            }
            if (stopped || !fill_round()) return false;
        }
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
Alphabet ParallelSequenceReader::alphabet() {
    if (impl_->started) return impl_->alphabet;
    return impl_->probe->alphabet();
}
const std::string& ParallelSequenceReader::path() const noexcept { return impl_->path; }
std::uint64_t ParallelSequenceReader::records_read() const noexcept { return impl_->handed_out; }
bool ParallelSequenceReader::parallel() const noexcept { return impl_->parallel; }

}  // namespace gpualign
