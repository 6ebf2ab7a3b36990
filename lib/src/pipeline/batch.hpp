// gpualign — a batch of pairs on its way through the pairs pipeline, and the
// names the pipeline gives its pairs in messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/model/alignment.hpp"

namespace gpualign::detail {

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
void add_reverse_strand(Batch& b);

/// Reduces the results of a batch of both strands (one per pair of `b`) to
/// one per input pair: the better strand's (better_strand; ties to plus),
/// marked Strand::minus when it is the reverse-complemented query's.
void keep_better_strands(const Batch& b, std::vector<AlignmentResult>& results);

/// "pair N (query X, ref Y)", plus " (minus strand)" for a pair that aligns
/// the reverse-complemented query: the pair as errors and the log name it.
std::string pair_context(const Batch& b, std::size_t k);

/// The pair as the progress line names it: "pair N (QNAME x RNAME)".
std::string progress_label(const Batch& b, std::size_t k);

/// DP cells of pair k of b: query length x ref length.
std::uint64_t pair_cells(const Batch& b, std::size_t k);

/// Rethrows the exception in flight as the run's error for pair k of b:
/// "pair N (query X, ref Y): message" (std::runtime_error).
[[noreturn]] void rethrow_for_pair(const Batch& b, std::size_t k);

}  // namespace gpualign::detail
