// The pairs pipeline with its results kept in memory (in_memory.hpp): the
// CLI's batches, backends and writers, aligned first and written later.
#include "gpualign/pipeline/in_memory.hpp"

#include <algorithm>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "batch.hpp"
#include "gpualign/formats/writers.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/statistics.hpp"
#include "pair_backend.hpp"
#include "pair_reader.hpp"
#include "run_setup.hpp"

namespace gpualign {
namespace {

using detail::Batch;
using detail::Clock;
using detail::seconds_since;

/// Aligns the batches that `next` hands out (an empty batch ends them) on the
/// backend of `c`, one batch submitted while the one before is collected, as
/// the pairs pipeline does; appends the pairs and results to `out`, whose
/// alphabet and scheme are set. `query_name` and `ref_name` name the inputs
/// in check_letters' messages.
template <typename Next>
void align_batches(const AlignConfig& c, Next&& next, const std::string& query_name, const std::string& ref_name,
                   PairResults& out) {
    const auto start = Clock::now();
    const int threads = detail::run_threads(c);
    std::unique_ptr<detail::PairBackend> backend =
        detail::make_pair_backend(c, out.scheme, std::max(1, threads / 4));
    const auto hand_over = [&] {
        detail::Collected got = backend->collect();
        keep_better_strands(*got.batch, got.results);
        const std::size_t n = got.results.size();
        out.queries.insert(out.queries.end(), got.batch->queries.begin(), got.batch->queries.begin() + n);
        out.refs.insert(out.refs.end(), got.batch->refs.begin(), got.batch->refs.begin() + n);
        std::move(got.results.begin(), got.results.end(), std::back_inserter(out.results));
        out.storage.push_back(std::move(got.batch));
    };
    bool in_flight = false;
    while (true) {
        Batch b = next();
        if (b.size() == 0) break;
        if (out.scheme.undefined_codes)  // a matrix file without some letters: only their use is an error
            for (std::size_t k = 0; k < b.size(); ++k) {
                check_letters(out.scheme, b.queries[k], query_name);
                check_letters(out.scheme, b.refs[k], ref_name);
            }
        if (c.strand == StrandChoice::both) add_reverse_strand(b);
        for (std::size_t k = 0; k < b.size(); ++k)
            out.stats.cells += static_cast<std::uint64_t>(b.queries[k].codes.size()) * b.refs[k].codes.size();
        out.stats.pairs += b.input_pairs();
        backend->submit(std::make_shared<const Batch>(std::move(b)));
        if (in_flight) hand_over();
        in_flight = true;
    }
    if (in_flight) hand_over();
    const detail::BackendTotals totals = backend->totals();
    out.stats.cpu_fallback = totals.cpu_fallback;
    out.stats.long_pairs = totals.long_pairs;
    out.stats.backend = backend->description();
    backend.reset();
    out.stats.seconds = seconds_since(start);
}

/// Record k of a list as messages name it: "queries[k] 'NAME'".
std::string list_record(const SequenceList& l, std::size_t k, std::string_view name) {
    return fmt::format("{}[{}] '{}'", l.role, k, name.substr(0, 80));
}

/// The alphabet of a list under `choice` (the files' rule: guess_alphabet
/// over the first SequenceReader::detect_max_records sequences).
Alphabet list_alphabet(AlphabetChoice choice, const SequenceList& l) {
    if (choice == AlphabetChoice::dna) return Alphabet::dna;
    if (choice == AlphabetChoice::protein) return Alphabet::protein;
    const std::size_t n = std::min(l.sequences.size(), SequenceReader::detect_max_records);
    return guess_alphabet(l.sequences.first(n));
}

/// Copies and encodes a list into one block (names generated where the list
/// has none). @throws std::invalid_argument naming the record.
std::shared_ptr<const RecordBlock> encode_list(const SequenceList& l, Alphabet alphabet, DnaCodes codes) {
    if (!l.names.empty() && l.names.size() != l.sequences.size())
        throw std::invalid_argument(fmt::format("{}: {} names for {} sequences", l.role, l.names.size(),
                                                l.sequences.size()));
    auto block = std::make_shared<RecordBlock>();
    std::size_t text = 0, letters = 0;
    for (std::size_t k = 0; k < l.sequences.size(); ++k) {
        text += 2 * l.sequences[k].size() + (l.names.empty() ? l.prefix.size() + 20 : l.names[k].size());
        letters += l.sequences[k].size();
    }
    block->reserve(text, letters);
    std::string generated;
    for (std::size_t k = 0; k < l.sequences.size(); ++k) {
        std::string_view name;
        if (l.names.empty()) {
            generated = l.prefix + std::to_string(k);
            name = generated;
        } else {
            name = l.names[k];
        }
        const std::string_view seq = l.sequences[k];
        if (name.empty() || name.find_first_of(" \t\n\r") != std::string_view::npos)
            throw std::invalid_argument(fmt::format("{}: the name must be one word, not empty", list_record(l, k, name)));
        if (const auto bad = block->append_encoded(name, {}, seq, {}, alphabet, codes)) {
            const unsigned char ch = static_cast<unsigned char>(seq[*bad]);
            const std::string shown = ch >= 0x20 && ch < 0x7f ? fmt::format("'{}'", static_cast<char>(ch))
                                                              : fmt::format("byte 0x{:02X}", ch);
            throw std::invalid_argument(fmt::format(
                "{}: character {} at position {} is not in the {} alphabet{}", list_record(l, k, name), shown,
                *bad + 1, to_string(alphabet),
                alphabet == Alphabet::dna ? " (accepted: A C G T U N and IUPAC R Y K M S W B D H V, any case)"
                                          : " (accepted: letters A-Z in any case and '*')"));
        }
    }
    return block;
}

}  // namespace

PairResults align_sequence_lists(const AlignConfig& c, const SequenceList& queries, const SequenceList& refs) {
    if (queries.sequences.size() != refs.sequences.size())
        throw std::invalid_argument(fmt::format("{} has {} sequence{} but {} has {} (sequence i of {} is aligned "
                                                "with sequence i of {})",
                                                queries.role, queries.sequences.size(),
                                                queries.sequences.size() == 1 ? "" : "s", refs.role,
                                                refs.sequences.size(), queries.role, refs.role));
    PairResults out;
    const Alphabet qa = list_alphabet(c.alphabet, queries), ra = list_alphabet(c.alphabet, refs);
    if (qa != ra)
        throw std::invalid_argument(fmt::format("{} look like {} but {} look like {}; choose one with alphabet=\"dna\" "
                                                "or \"protein\"",
                                                queries.role, to_string(qa), refs.role, to_string(ra)));
    out.alphabet = qa;
    out.scheme = resolve_scoring(c, out.alphabet);
    check_strand_choice(c.strand, out.scheme);
    const auto qblock = encode_list(queries, out.alphabet, out.scheme.dna_codes);
    const auto rblock = encode_list(refs, out.alphabet, out.scheme.dna_codes);
    // The CLI's batches (PairReader::next): at most input_batch_pairs() pairs,
    // and no more once input_batch_bases() letters are reached.
    const std::size_t most_pairs = c.input_batch_pairs(), most_bases = c.input_batch_bases();
    std::size_t pos = 0;
    const std::size_t n = qblock->size();
    const auto next = [&] {
        Batch b;
        b.first = pos;
        std::size_t bases = 0;
        while (pos < n && b.size() < most_pairs && bases < most_bases) {
            b.queries.push_back((*qblock)[pos]);
            b.refs.push_back((*rblock)[pos]);
            b.queries.back().number = b.refs.back().number = pos + 1;
            bases += b.queries.back().codes.size() + b.refs.back().codes.size();
            ++pos;
        }
        if (b.size() > 0) b.blocks = {qblock, rblock};
        return b;
    };
    align_batches(c, next, queries.role, refs.role, out);
    return out;
}

PairResults align_files(const AlignConfig& c) {
    PairResults out;
    detail::PairReader reader(c, detail::run_threads(c));
    out.alphabet = reader.alphabet();
    out.scheme = detail::scheme_for_inputs(c, out.alphabet, reader);
    align_batches(c, [&] { return reader.next(); }, c.query_path, c.ref_path, out);
    return out;
}

void write_pair_results(const PairResults& r, const AlignConfig& c) {
    WriterOptions wopt = detail::output_options(c, r.alphabet);
    if (wopt.format == OutputFormat::blast6) {
        wopt.statistics = alignment_statistics(r.scheme, c.mode);
        if (!wopt.statistics) spdlog::warn("{}", missing_statistics_warning(r.scheme, c.mode));
    }
    AlignmentWriter writer(c.out_path, wopt);
    const int threads = std::max(1, detail::run_threads(c) / 2);
    const std::size_t step = std::max<std::size_t>(1, c.batch_pairs);
    for (std::size_t k = 0; k < r.results.size(); k += step) {
        const std::size_t n = std::min(step, r.results.size() - k);
        writer.write_batch(std::span(r.queries).subspan(k, n), std::span(r.refs).subspan(k, n),
                           std::span(r.results).subspan(k, n), threads);
    }
    writer.commit();
}

}  // namespace gpualign
