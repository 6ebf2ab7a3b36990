// gpualign — the pairs pipeline's reader: record i of QUERIES with record i
// of REFS, in batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "batch.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/model/config.hpp"

namespace gpualign::detail {

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
    void collect();
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
    void consume(Cursor c, std::size_t n, std::size_t bases, Batch& b);
};

/// Reads record i of QUERIES together with record i of REFS, in batches. The
/// two files are parsed concurrently by one OpenMP team of `threads`
/// (ParallelSequenceReader::fill as two tasks, each file's blocks as tasks).
/// Refuses QUERIES and REFS (or DB) that are one stream that is not a
/// regular file (`-` and /dev/stdin, or /dev/fd/N twice, fed by one pipe):
/// its bytes can be read once, so the second reader would meet an empty
/// input. @param ref_role  how the message names the second input.
/// @throws OptionError naming both.
void check_distinct_streams(const std::string& query_path, const std::string& ref_path, std::string_view ref_role);

class PairReader {
public:
    /// Opens c.query_path and c.ref_path (c.alphabet), each parsed on half
    /// of `threads`. @throws InputError when a file cannot be opened;
    /// OptionError when both name the same pipe or other stream (such as
    /// `-` and /dev/stdin fed by one pipe), which cannot be read twice.
    PairReader(const AlignConfig& c, int threads);

    /// True when either file is read in blocks (ParallelSequenceReader::in_blocks).
    bool in_blocks() const noexcept { return queries_.reader.in_blocks() || refs_.reader.in_blocks(); }

    /// The alphabet of both files; with --alphabet auto they must agree.
    /// @throws InputError naming both files when they do not.
    Alphabet alphabet();

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
    Batch next();

private:
    /// Parses ahead until each side holds a batch (or its file ended), both
    /// files on one team.
    void fill();

    InputError count_mismatch();

    InputSide queries_, refs_;
    int threads_;
    std::size_t batch_pairs_, batch_bases_;
    std::uint64_t pairs_read_ = 0;
};

}  // namespace gpualign::detail
