// gpualign — the pairs pipeline with its results kept in memory: the entry
// of the Python module (python/), which returns columns and writes the
// CLI's files from them.
//
// The same steps as run_alignment (pipeline.hpp): the alphabet and scoring
// scheme of the inputs, the CLI's batches, the backend that the
// configuration picks (CPU, one GPU or several), both strands, and the
// writers of formats/writers.hpp. Only the order differs: every pair is
// aligned first, and the output is written later, any number of times, in
// any format; write_pair_results(r, c) writes the bytes that run_alignment(c)
// writes for the same pairs and configuration.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpualign/io/record_block.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"
#include "gpualign/pipeline/pipeline.hpp"

namespace gpualign {

/// Sequences held by the caller (e.g. Python str/bytes objects): name k and
/// letters k of record k. Borrowed for the call only; copied into the
/// results. `names` is either empty (then record k is named `prefix` + k,
/// k 0-based) or as long as `sequences`.
struct SequenceList {
    std::span<const std::string_view> names;
    std::span<const std::string_view> sequences;
    std::string prefix;  ///< name prefix when `names` is empty, e.g. "q" gives q0, q1, ...
    std::string role;    ///< how messages name the list, e.g. "queries"
};

/// The pairs of one run and their results, in input order: results[k] is
/// the alignment of queries[k] with refs[k] (0-based half-open coordinates;
/// AlignmentResult::strand tells the query strand aligned, alignment.hpp).
/// The views borrow `storage` (record blocks, shared and immutable), which
/// lives as long as this object; copies share it.
struct PairResults {
    Alphabet alphabet = Alphabet::dna;           ///< the alphabet of both inputs
    std::vector<RecordView> queries;
    std::vector<RecordView> refs;
    std::vector<AlignmentResult> results;
    std::vector<std::shared_ptr<const void>> storage;
    ScoringScheme scheme;                        ///< the scheme resolved for the inputs (resolve_scoring)
    RunStats stats;                              ///< pairs, cells, seconds of aligning, backend description
};

/// Aligns record k of `queries` with record k of `refs` for every k, as
/// run_alignment(c) aligns pairs read from files (c.query_path and
/// c.ref_path are not read; c.out_path is not written).
///
/// A zero-length sequence is a sequence, as in a file (docs/scoring.md).
/// The alphabet: c.alphabet, or with AlphabetChoice::automatic each list's
/// guess_alphabet over its first SequenceReader::detect_max_records
/// sequences (the files' rule); the two must agree.
/// @throws std::invalid_argument naming the list, the 0-based index, the
///         record's name and the 1-based position: lists of different
///         lengths, an empty name or one with blanks, a letter outside the
///         alphabet, the alphabets of the lists disagreeing; OptionError,
///         InputError (a matrix file, a letter the matrix lacks) and the
///         backend's errors as run_alignment throws them.
PairResults align_sequence_lists(const AlignConfig& c, const SequenceList& queries, const SequenceList& refs);

/// Aligns the pairs of c.query_path and c.ref_path as run_alignment(c) does,
/// keeping the records and results in memory (host memory: both files,
/// parsed, and every result) instead of writing c.out_path.
/// @throws what run_alignment throws for the inputs and the backend.
PairResults align_files(const AlignConfig& c);

/// Writes `r` to c.out_path in c.output_format() (c.score_only, c.sam_cigar_m,
/// c.command_line for SAM @PG CL), the bytes run_alignment(c) writes for the
/// same pairs, through an output file that appears only when complete.
/// BLAST tabular gets E-values and bit scores as run_alignment gives them.
/// `c` is the configuration `r` was aligned with, output fields changed
/// (check it with AlignConfig::validate first: score-only results go to TSV
/// only, as on the command line).
/// @throws OutputError naming the path.
void write_pair_results(const PairResults& r, const AlignConfig& c);

}  // namespace gpualign
