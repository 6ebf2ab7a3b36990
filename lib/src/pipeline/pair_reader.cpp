// The pairs pipeline's reader (pair_reader.hpp).
#include "pair_reader.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "gpualign/io/sequence_io.hpp"
#include "run_setup.hpp"

namespace gpualign::detail {
void check_distinct_streams(const std::string& query_path, const std::string& ref_path, std::string_view ref_role) {
    const auto identity = [](const std::string& path, struct stat& st) {
        return (path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st)) == 0 && !S_ISREG(st.st_mode) &&
               !S_ISDIR(st.st_mode);
    };
    struct stat q {}, r {};
    if (identity(query_path, q) && identity(ref_path, r) && q.st_dev == r.st_dev && q.st_ino == r.st_ino)
        throw OptionError("QUERIES " + display_path(query_path) + " and " + std::string(ref_role) + " " +
                          display_path(ref_path) +
                          " are the same stream (a pipe can be read only once); give one of them as a file");
}

namespace {

/// check_distinct_streams for the constructor's initialiser: returns the query path.
const std::string& distinct_streams(const AlignConfig& c) {
    check_distinct_streams(c.query_path, c.ref_path, "REFS");
    return c.query_path;
}

}  // namespace

void InputSide::collect() {
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

void InputSide::consume(Cursor c, std::size_t n, std::size_t bases, Batch& b) {
    for (std::size_t k = 0; k < c.block; ++k) {
        b.blocks.push_back(std::move(blocks.front()));
        blocks.pop_front();
    }
    if (c.record > 0) b.blocks.push_back(blocks.front());  // shared with the next batch
    head = c.record;
    available -= n;
    pending_bases -= bases;
}

PairReader::PairReader(const AlignConfig& c, int threads)
    : queries_(ParallelSequenceReader(distinct_streams(c), c.alphabet, std::max(1, threads / 2))),
      refs_(ParallelSequenceReader(c.ref_path, c.alphabet, std::max(1, threads / 2))),
      threads_(std::max(1, threads)), batch_pairs_(c.input_batch_pairs()), batch_bases_(c.input_batch_bases()) {}

Alphabet PairReader::alphabet() { return agreed_alphabet(queries_.reader, refs_.reader, "REFS"); }

Batch PairReader::next() {
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

void PairReader::fill() {
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

InputError PairReader::count_mismatch() {
    for (InputSide* side : {&queries_, &refs_}) {
        SequenceRecord scratch;
        while (side->reader.next(scratch)) {}
    }
    const std::uint64_t nq = queries_.reader.records_read(), nr = refs_.reader.records_read();
    return InputError("record counts differ: QUERIES " + display_path(queries_.reader.path()) + " has " +
                      std::to_string(nq) + " records but REFS " + display_path(refs_.reader.path()) + " has " +
                      std::to_string(nr) + " (record i of QUERIES is aligned with record i of REFS)");
}

}  // namespace gpualign::detail
