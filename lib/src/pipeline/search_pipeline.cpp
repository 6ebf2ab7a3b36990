// `gpualign search`: every query against every DB record (search.hpp).
//
// The scan scores all pairs (score-only), the canonical top hits of each
// query are selected (select_hits), and only the hits are aligned with a
// CIGAR. Every path computes exactly what align_pair computes, so the output
// is the same on every backend: the CPU (search_query_cpu, lib/src/search/)
// or the GPUs (gpu_search.hpp).
#include "gpualign/search/search.hpp"

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "gpu_search.hpp"
#include "gpualign/formats/search_writer.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/statistics.hpp"
#include "gpualign/search/search_db.hpp"
#include "pair_reader.hpp"
#include "run_setup.hpp"
#include "search/hits.hpp"

namespace gpualign {
namespace {

/// Every record of one file, in file order, parsed on the reader's threads.
struct AllRecords {
    std::vector<std::shared_ptr<const RecordBlock>> blocks;
    std::vector<RecordView> views;
};

AllRecords read_all(ParallelSequenceReader& reader) {
    AllRecords all;
    while (!reader.exhausted()) {
        reader.fill(std::size_t{1} << 20, std::size_t{256} << 20);
        reader.take_blocks(all.blocks);
    }
    for (const auto& b : all.blocks)
        for (std::size_t k = 0; k < b->size(); ++k) all.views.push_back((*b)[k]);
    return all;
}

/// The inputs of a search, read whole: the queries, the DB (parsed from
/// FASTA, or views of a mapped DB file), their alphabet and the run's scheme.
struct SearchInputs {
    Alphabet alphabet = Alphabet::dna;
    ScoringScheme scheme;
    AllRecords db, queries;
    std::unique_ptr<SearchDb> mapped;  ///< the DB file the DB's views borrow, when DB is one
};

/// The alphabet of a search against a DB file: the DB's, which the queries
/// (detected, or --alphabet) must share.
/// @throws InputError naming both files when they do not.
Alphabet db_file_alphabet(const AlignConfig& c, ParallelSequenceReader& qreader, const SearchDb& db) {
    const Alphabet q = qreader.alphabet(), d = db.alphabet();
    if (q == d) return q;
    if (c.alphabet != AlphabetChoice::automatic)
        throw InputError("DB " + display_path(c.ref_path) + " holds " + to_string(d) + " records (gpualign makedb), "
                         "not " + to_string(q) + " as --alphabet asks; build it again with makedb --alphabet " +
                         to_string(q));
    throw InputError("QUERIES " + display_path(qreader.path()) + " looks like " + to_string(q) + " but DB " +
                     display_path(c.ref_path) + " holds " + to_string(d) + " records (gpualign makedb)");
}

/// Agrees on the alphabet of QUERIES (`qreader`) and DB (c.ref_path: a DB
/// file of gpualign makedb, else FASTA/FASTQ read on `threads` threads) and
/// on the scheme, and reads the DB, then the queries.
/// @throws InputError for bad input (a letter the scheme does not score
///         included, a bad DB file); what scheme_for_inputs throws.
SearchInputs read_inputs(const AlignConfig& c, ParallelSequenceReader& qreader, int threads) {
    SearchInputs in;
    if (is_search_db(c.ref_path)) {
        in.mapped = std::make_unique<SearchDb>(c.ref_path);
        in.alphabet = db_file_alphabet(c, qreader, *in.mapped);
        in.scheme = detail::scheme_for_inputs(c, in.alphabet, qreader);
        in.db.views = in.mapped->views(in.scheme.dna_codes);
    } else {
        ParallelSequenceReader dbreader(c.ref_path, c.alphabet, threads);
        in.alphabet = detail::agreed_alphabet(qreader, dbreader, "DB");
        in.scheme = detail::scheme_for_inputs(c, in.alphabet, qreader, dbreader);
        in.db = read_all(dbreader);
    }
    in.queries = read_all(qreader);
    if (in.scheme.undefined_codes) {  // a matrix file without some letters: only their use is an error
        for (const RecordView& r : in.queries.views) check_letters(in.scheme, r, c.query_path);
        for (const RecordView& r : in.db.views) check_letters(in.scheme, r, c.ref_path);
    }
    // The search backends (the GPU scan engine among them) take no
    // zero-length sequence, which the readers accept. In local mode such a
    // record has no hit (its best local score is 0; BLAST+ reports none for
    // it either): zero-length DB records are left out here, zero-length
    // queries in run_search. Global and semi-global search of one is an error.
    if (c.mode == AlignMode::local) {
        const std::size_t before = in.db.views.size();
        std::erase_if(in.db.views, [](const RecordView& r) { return r.sequence.empty(); });
        if (in.db.views.size() != before)
            spdlog::warn("{}: {} zero-length DB record(s) left out (they have no local hit)", display_path(c.ref_path),
                         before - in.db.views.size());
        return in;
    }
    for (const auto& [views, path] : {std::pair{&in.queries.views, &c.query_path}, std::pair{&in.db.views, &c.ref_path}})
        for (const RecordView& r : *views)
            if (r.sequence.empty())
                throw InputError(display_path(*path) + ": record " + std::to_string(r.number) + " '" +
                                 std::string(r.name) + "': empty sequence (" + to_string(c.mode) +
                                 " search needs a letter in every query and DB record; local search skips it)");
    return in;
}

/// The scheme's Karlin-Altschul parameters in c.mode, when published; warns
/// without them (unless the output is SAM, which has no statistics).
/// @throws std::invalid_argument for --evalue without them.
std::optional<KarlinAltschul> search_statistics(const AlignConfig& c, const ScoringScheme& scheme) {
    const std::optional<KarlinAltschul> ka = alignment_statistics(scheme, c.mode);
    if (c.search->max_evalue && !ka)
        throw std::invalid_argument(
            c.mode == AlignMode::local
                ? "--evalue: no published Karlin-Altschul parameters for matrix " + scheme.matrix_name +
                      " with gap_open " + std::to_string(scheme.gap_open) + ", gap_extend " +
                      std::to_string(scheme.gap_extend) + " (docs/search.md lists the schemes that have them)"
                : std::string("--evalue applies to local search only (E-values of ") + to_string(c.mode) +
                      " scores are not defined)");
    if (!ka && c.output_format() != OutputFormat::sam) spdlog::warn("{}", missing_statistics_warning(scheme, c.mode));
    return ka;
}

}  // namespace

RunStats run_search(const AlignConfig& c) {
    if (!c.search) throw std::invalid_argument("run_search needs AlignConfig::search");
    const auto start = detail::Clock::now();
    const SearchOptions& o = *c.search;
    const int threads = detail::run_threads(c);
    // CUDA starts on a thread of its own while the inputs are read (or the DB
    // file mapped): the slowest step of a search against a prebuilt DB.
    double cuda_start = 0;
    std::future<void> cuda_started = detail::start_cuda_early(c, start, cuda_start);
    detail::check_distinct_streams(c.query_path, c.ref_path, "DB");
    ParallelSequenceReader qreader(c.query_path, c.alphabet, threads);
    const SearchInputs in = read_inputs(c, qreader, threads);
    const double read_s = detail::seconds_since(start);
    const std::vector<RecordView>& queries = in.queries.views;
    const std::vector<RecordView>& db = in.db.views;
    const bool both = c.strand == StrandChoice::both;
    const std::uint64_t letters = detail::letters_of(db);
    const DbSize n = detail::db_size_of(db, o);  // the DB of the E-values (--db-size, --db-seqs)
    spdlog::debug("search: {} queries against {} DB records ({} letters), {} alphabet, {}, {} mode", queries.size(),
                  db.size(), letters, to_string(in.alphabet), describe_scheme(in.scheme), to_string(c.mode));
    const std::optional<KarlinAltschul> ka = search_statistics(c, in.scheme);

    RunStats stats;
    const auto w0 = detail::Clock::now();
    if (cuda_started.valid()) cuda_started.wait();
    const double cuda_waited = detail::seconds_since(w0);
    const std::vector<int> devices = detail::run_devices(c);
    stats.backend = devices.empty() ? "cpu (" + std::to_string(threads) + " threads)"
                                    : detail::gpus_description(devices, [](int device, const std::string& about) {
                                          spdlog::info("using GPU {} {}", device, about);
                                      });
    SearchWriter writer(c.out_path, detail::output_options(c, in.alphabet), db);
    for (const RecordView& q : queries) {
        stats.pairs += db.size();
        stats.cells += static_cast<std::uint64_t>(q.codes.size()) * letters * (both ? 2 : 1);  // DP cells of both strands
    }
    std::vector<std::vector<SearchHit>> hits(queries.size());
    const auto s0 = detail::Clock::now();
    // The queries searched: all but zero-length ones (local mode only; they
    // have no hit), searched[k] being the index of the k-th in `queries`.
    std::vector<std::size_t> searched;
    std::vector<RecordView> searched_views;
    for (std::size_t qi = 0; qi < queries.size(); ++qi)
        if (!queries[qi].sequence.empty()) {
            searched.push_back(qi);
            searched_views.push_back(queries[qi]);
        }
    if (!searched.empty() && !db.empty()) {
        std::vector<std::vector<SearchHit>> found(searched.size());
        if (devices.empty()) {
            for (std::size_t k = 0; k < searched_views.size(); ++k)
                found[k] = search_query_cpu(searched_views[k].codes, db, in.scheme, c.mode, c.score_only, o, ka,
                                            threads, c.cpu_kernel, c.strand);
        } else {
            found = detail::search_on_gpus(c, in.scheme, devices, threads, searched_views, db, ka, n);
        }
        for (std::size_t k = 0; k < searched.size(); ++k) hits[searched[k]] = std::move(found[k]);
    }
    const double search_s = detail::seconds_since(s0);
    const auto o0 = detail::Clock::now();
    std::uint64_t hits_written = 0;
    for (std::size_t qi = 0; qi < hits.size(); ++qi)
        for (const SearchHit& h : hits[qi]) {
            writer.write(queries[qi], db[h.target], h);
            ++hits_written;
        }
    writer.commit();
    stats.queries = queries.size();
    stats.hits = hits_written;
    stats.seconds = detail::seconds_since(start);
    spdlog::debug("search: {} hits written", hits_written);
    spdlog::debug("search stages (s): read{} {:.3f}; CUDA start {:.3f} from the run's start (waited {:.3f} after "
                  "reading); scan and align {:.3f}; write {:.3f}; total {:.3f}",
                  in.mapped ? " (DB file mapped)" : "", read_s, cuda_start, cuda_waited, search_s,
                  detail::seconds_since(o0), stats.seconds);
    return stats;
}

}  // namespace gpualign
