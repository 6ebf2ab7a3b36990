// A batch of pairs of the pairs pipeline (batch.hpp).
#include "batch.hpp"

#include <exception>
#include <new>
#include <stdexcept>
#include <utility>

#include "gpualign/model/strand.hpp"

namespace gpualign::detail {
namespace {

/// " (minus strand)" for a pair that aligns the reverse-complemented query, else "".
const char* strand_note(const Batch& b, std::size_t k) { return b.minus(k) ? " (minus strand)" : ""; }

}  // namespace

void add_reverse_strand(Batch& b) {
    const std::size_t n = b.size();
    const std::vector<RecordView> minus = reverse_strand_views(b.queries, b.reverse_codes);
    b.queries.insert(b.queries.end(), minus.begin(), minus.end());
    b.refs.reserve(2 * n);
    for (std::size_t k = 0; k < n; ++k) b.refs.push_back(b.refs[k]);
    b.both_strands = true;
}

void keep_better_strands(const Batch& b, std::vector<AlignmentResult>& results) {
    if (!b.both_strands) return;
    const std::size_t n = b.input_pairs();
    for (std::size_t k = 0; k < n; ++k) {
        AlignmentResult& minus = results[n + k];
        if (better_strand(results[k].score, minus.score) == Strand::minus) {
            results[k] = std::move(minus);
            results[k].strand = Strand::minus;
        }
    }
    results.resize(n);
}

std::string pair_context(const Batch& b, std::size_t k) {
    return "pair " + std::to_string(b.number(k)) + " (query " + std::string(b.queries[k].name) + ", ref " +
           std::string(b.refs[k].name) + ")" + strand_note(b, k);
}

std::string progress_label(const Batch& b, std::size_t k) {
    return "pair " + std::to_string(b.number(k)) + " (" + std::string(b.queries[k].name) + " x " +
           std::string(b.refs[k].name) + ")" + strand_note(b, k);
}

std::uint64_t pair_cells(const Batch& b, std::size_t k) {
    return static_cast<std::uint64_t>(b.queries[k].codes.size()) * b.refs[k].codes.size();
}

void rethrow_for_pair(const Batch& b, std::size_t k) {
    const std::string context = pair_context(b, k);
    try {
        throw;
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(context + ": out of memory aligning a " + std::to_string(b.queries[k].codes.size()) +
                                 " x " + std::to_string(b.refs[k].codes.size()) + " pair");
    } catch (const std::exception& e) {
        throw std::runtime_error(context + ": " + e.what());
    }
}

}  // namespace gpualign::detail
