// gpualign command line: cxxopts options -> AlignConfig.
#include "cli.hpp"

#include <cctype>
#include <filesystem>
#include <initializer_list>
#include <system_error>
#include <string>
#include <utility>
#include <vector>

#include <cxxopts.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/io/matrix.hpp"

namespace gpualign::cli {
namespace {

std::string join_args(int argc, const char* const* argv) {
    std::string out;
    for (int i = 0; i < argc; ++i) {
        if (i) out += ' ';
        if (argv[i]) out += argv[i];
    }
    return out;
}

/// simd_targets() by their instruction sets' names (simd_instruction_set).
std::vector<std::string> simd_instruction_sets() {
    std::vector<std::string> names;
    for (const std::string& t : simd_targets()) names.push_back(simd_instruction_set(t));
    return names;
}

std::string fmt_seconds(double s) {
    std::string t = std::to_string(s);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t;
}

/// Every option of the command line, with its help text and default: one
/// flat table on purpose (it is --help's text, in --help's order).
cxxopts::Options make_options() {
    cxxopts::Options o("gpualign", "GPU-accelerated pairwise sequence alignment.\n"
                                   "  gpualign sw QUERIES REFS [-o OUT]   local (Smith-Waterman-Gotoh)\n"
                                   "  gpualign nw QUERIES REFS [-o OUT]   global (Needleman-Wunsch-Gotoh)\n"
                                   "  gpualign sg QUERIES REFS [-o OUT]   semi-global: each query end to end, the ref's end gaps\n"
                                   "                                      free (a read fitted into a window)\n"
                                   "  gpualign search QUERIES DB [-o OUT] every query against every DB record: the best hits,\n"
                                   "                                      their alignments, E-values and bit scores\n"
                                   "  gpualign makedb DB.fa DB.gadb       a prebuilt search DB (parsed and encoded once; memory-\n"
                                   "                                      mapped by search; options: --alphabet, --threads, -v, -q)\n"
                                   "sw/nw/sg align record i of QUERIES with record i of REFS. FASTA or FASTQ, plain or gzip/bzip2/xz/zstd; '-' reads stdin.");
    o.set_width(100);
    o.custom_help("sw|nw|sg QUERIES REFS [options] | search QUERIES DB [options] | makedb DB.fa DB.gadb [options]");
    o.positional_help("");
    const auto str = [](auto v) { return std::to_string(v); };
    o.add_options("Scoring")
        ("match", "DNA match score (default " + str(Defaults::dna_match) + ")", cxxopts::value<int>())
        ("mismatch", "DNA mismatch penalty, non-negative (default " + str(Defaults::dna_mismatch) + ")", cxxopts::value<int>())
        ("gap-open", "gap open penalty, non-negative; a gap of length L costs gap_open + L*gap_extend; 0 = linear (default DNA " +
                         str(Defaults::dna_gap_open) + ", protein " + str(Defaults::protein_gap_open) + ")", cxxopts::value<int>())
        ("gap-extend", "gap extension penalty per position, non-negative (default DNA " + str(Defaults::dna_gap_extend) +
                           ", protein " + str(Defaults::protein_gap_extend) + ")", cxxopts::value<int>())
        ("matrix", std::string("substitution matrix: BLOSUM30|45|62|80 or an NCBI-format file (default protein ") +
                       Defaults::protein_matrix + ")", cxxopts::value<std::string>())
        ("n-score", "DNA: score of N against any base, N included (default -mismatch)", cxxopts::value<int>())
        ("strand", "DNA: plus|both: align the query as read, or also its reverse complement, keeping the better "
                   "alignment of each pair (search: of each query and DB record; ties go to plus); coordinates stay "
                   "on each sequence's forward strand, as PAF and SAM (FLAG 16) report them",
         cxxopts::value<std::string>()->default_value("plus"))
        ("alphabet", "auto|dna|protein (auto decides per file from its content)", cxxopts::value<std::string>()->default_value("auto"));
    o.add_options("Input/output")
        ("o,output", "output file; '-' = stdout", cxxopts::value<std::string>()->default_value("-"))
        ("format", "tsv|sam|paf|blast6 (m8 = blast6; any case; default: from the output file's extension: .sam, "
                   ".paf, .m8 or .blast6, else tsv; paf with sw/nw/sg only)", cxxopts::value<std::string>())
        ("score-only", "report score and coordinates only, no CIGAR")
        ("cigar", "CIGAR operations of SAM, PAF cg:Z and the TSV cigar column: eqx (= and X) or m (M for both, as "
                  "BWA and minimap2 write)", cxxopts::value<std::string>()->default_value("eqx"));
    o.add_options("Search")
        ("mode", "search: local|global|semi-global (default local, Smith-Waterman; semi-global: the query end "
                 "to end, the DB record's end gaps free)", cxxopts::value<std::string>())
        ("k,max-hits", "search: hits per query, the best by score, ties in DB order (default " +
                           str(Defaults::search_max_hits) + ")", cxxopts::value<std::size_t>())
        ("min-score", "search: report hits with score >= this only", cxxopts::value<int>())
        ("evalue", "search: report hits with E-value <= this only (needs published Karlin-Altschul parameters)",
         cxxopts::value<double>())
        ("db-size", "search: the DB size in letters for the E-values and --evalue, as BLAST's -dbsize "
                    "(default: the letters of DB; give the whole DB's size when searching one shard of it)",
         cxxopts::value<std::uint64_t>())
        ("db-seqs", "search: the DB sequence count for the E-values' length adjustment (default: the records of "
                    "DB; give the whole DB's count, with --db-size, when searching one shard of it)",
         cxxopts::value<std::uint64_t>())
        ("secondary", "search: yes|no: write every hit (SAM: the best of each query primary, the others FLAG 256, "
                      "MAPQ 0), or only each query's best hit (as -k 1; minimap2's --secondary)",
         cxxopts::value<std::string>());
    o.add_options("Execution")
        ("t,threads", "CPU threads, 0 = all cores (at most " + str(Defaults::max_threads) + ")",
         cxxopts::value<int>()->default_value("0"))
        ("backend", "auto|cpu|gpu (auto uses a GPU when one is visible)", cxxopts::value<std::string>()->default_value("auto"))
        ("cpu-kernel", "simd|scalar: the CPU backend's kernel, inter-pair SIMD (the best instruction set of this CPU, "
                       "picked at run time) or the scalar reference, and for long pairs the SIMD or scalar tile "
                       "kernel; both give the same bytes",
         cxxopts::value<std::string>()->default_value("simd"))
        ("device", "CUDA device ordinal (one GPU)", cxxopts::value<int>()->default_value("0"))
        ("devices", "all|LIST: the CUDA devices to use, e.g. 0,1 (batches of pairs go to the GPUs by their measured "
                    "speed, long pairs one per GPU, a search's DB is split between them); the output is the same "
                    "bytes as with one GPU", cxxopts::value<std::string>())
        ("batch-pairs", "pairs per batch", cxxopts::value<std::size_t>()->default_value(str(Defaults::batch_pairs)))
        ("batch-bases", "query+ref bases per batch", cxxopts::value<std::size_t>()->default_value(str(Defaults::batch_bases)))
        ("read-ahead", "letters of parsed batches (query+ref, a byte each in host memory) read ahead of the aligner "
                       "while the GPU starts (then two batches), bytes with optional K/M/G suffix; at least one batch "
                       "is always read ahead",
         cxxopts::value<std::string>()->default_value("1G"))
        ("gpu-memory", "cap on the GPU backend's device memory, bytes with optional K/M/G suffix (e.g. 512M, 2G); "
                       "half goes to the batch engine (batches shrink to fit), half to the long-pair engine; pairs "
                       "too large for both go to the CPU; 0 = no cap",
         cxxopts::value<std::string>()->default_value(str(Defaults::gpu_memory)))
        ("gpu-streams", "CUDA streams of the GPU engine, each with its own buffers (1-16); 0 = auto: " +
                            str(Defaults::gpu_streams_auto),
         cxxopts::value<int>()->default_value(str(Defaults::gpu_streams)));
    o.add_options("General")
        ("v,verbose", "more log output")
        ("q,quiet", "errors only")
        ("progress", "auto|always|never: a progress line on stderr, the run's pairs, cells and GCUPS after each "
                     "batch, and a long pair's own line with its ETA while it aligns (auto: when stderr is "
                     "a terminal, not with -q, once the run or the pair has run " +
                     fmt_seconds(Defaults::progress_delay_s) + " s; always: from the start)",
         cxxopts::value<std::string>()->default_value("auto"))
        ("version", "print the version and exit")
        ("h,help", "print this help and exit")
        ("positional", "", cxxopts::value<std::vector<std::string>>());
    o.parse_positional({"positional"});
    return o;
}

/// The end of --help (and so of the man page, which help2man makes from
/// it): the exit status and the TSV columns.
std::string help_epilogue() {
    return "Exit status:\n"
           "  0  success (also --help, --version, and an input with no records)\n"
           "  1  bad input or an I/O or device failure: one error line names the file, record and position;\n"
           "     no output file is left\n"
           "  2  bad command line: the error line names the option (also --strand both on protein input)\n"
           "\n"
           "Output columns (TSV; 0-based half-open coordinates, on each sequence's forward strand):\n"
           "  sw/nw/sg:  query query_len query_begin query_end ref ref_len ref_begin ref_end score matches\n"
           "             mismatches gap_opens alignment_len identity cigar strand\n"
           "  search:    the same up to cigar, then evalue bitscore strand (E-values and bit scores as BLAST+)\n"
           "  With --score-only the six columns from matches to cigar are '*'. SAM, PAF (minimap2) and BLAST\n"
           "  tabular (outfmt 6) follow their own specs, with 1-based coordinates where the spec has them.\n"
           "\n"
           "Examples:\n"
           "  gpualign sw reads.fq windows.fa -o out.sam         local alignment of read i with window i, SAM\n"
           "  gpualign nw a.fa b.fa --score-only -o scores.tsv    global scores only\n"
           "  gpualign sg reads.fa windows.fa --strand both -o out.paf\n"
           "  gpualign makedb uniprot.fa uniprot.gadb && gpualign search queries.fa uniprot.gadb -k 5 -o hits.m8\n";
}

/// The pair subcommands and their modes.
AlignMode parse_command(const std::string& word) {
    if (word == "sw") return AlignMode::local;
    if (word == "nw") return AlignMode::global;
    if (word == "sg") return AlignMode::semi_global;
    throw UsageError("the command must be one of sw|nw|sg|search|makedb, got '" + word + "'");
}

std::string lower(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

template <typename Enum>
Enum parse_choice(const std::string& option, const std::string& value,
                  std::initializer_list<std::pair<const char*, Enum>> choices) {
    std::string names;
    for (const auto& [name, e] : choices) {
        if (value == name) return e;
        names += names.empty() ? name : std::string("|") + name;
    }
    throw UsageError("--" + option + " must be one of " + names + ", got '" + value + "'");
}

/// `gpualign makedb DB.fa DB.gadb`: the DB in config.ref_path, the DB file
/// in config.out_path, --alphabet and --threads; every other option is a
/// usage error.
AlignConfig makedb_config(const cxxopts::ParseResult& r, const std::vector<std::string>& pos) {
    for (const cxxopts::KeyValue& kv : r.arguments()) {
        const std::string& key = kv.key();
        if (key != "alphabet" && key != "threads" && key != "verbose" && key != "quiet" && key != "positional")
            throw UsageError("--" + key + " does not apply to `gpualign makedb` (it takes --alphabet, --threads, -v, -q)");
    }
    if (pos.size() != 3)
        throw UsageError("expected 2 arguments after makedb (DB.fa DB.gadb), got " + std::to_string(pos.size() - 1));
    AlignConfig c;
    c.ref_path = pos[1];
    c.out_path = pos[2];
    if (c.ref_path == c.out_path) throw UsageError("makedb: the DB file must not be the FASTA it is built from");
    c.alphabet = parse_choice<AlphabetChoice>("alphabet", r["alphabet"].as<std::string>(),
                                              {{"auto", AlphabetChoice::automatic}, {"dna", AlphabetChoice::dna}, {"protein", AlphabetChoice::protein}});
    c.threads = r["threads"].as<int>();
    if (c.threads < 0 || c.threads > Defaults::max_threads)
        throw UsageError("--threads must be between 0 (all cores) and " + std::to_string(Defaults::max_threads) +
                         ", got " + std::to_string(c.threads));
    return c;
}

AlignConfig to_config(const cxxopts::ParseResult& r, const std::vector<std::string>& pos, std::string command_line,
                      Verbosity verbosity) {
    // The command word first, so that an unknown one is named before any
    // option or argument count is judged against it.
    if (!pos.empty() && pos[0] != "search") parse_command(pos[0]);
    if (pos.size() != 3)
        throw UsageError("expected 3 arguments (sw|nw|sg QUERIES REFS, search QUERIES DB, or makedb DB.fa DB.gadb), got " +
                         std::to_string(pos.size()));
    AlignConfig c;
    if (pos[0] == "search") {
        SearchOptions so;
        c.mode = AlignMode::local;
        if (r.count("mode"))
            c.mode = parse_choice<AlignMode>("mode", r["mode"].as<std::string>(),
                                             {{"local", AlignMode::local},
                                              {"global", AlignMode::global},
                                              {"semi-global", AlignMode::semi_global}});
        if (r.count("max-hits")) so.max_hits = r["max-hits"].as<std::size_t>();
        if (r.count("min-score")) so.min_score = r["min-score"].as<int>();
        if (r.count("evalue")) so.max_evalue = r["evalue"].as<double>();
        if (r.count("db-size")) {
            so.db_size = r["db-size"].as<std::uint64_t>();
            if (*so.db_size == 0) throw UsageError("--db-size must be positive");
        }
        if (r.count("db-seqs")) {
            so.db_sequences = r["db-seqs"].as<std::uint64_t>();
            if (*so.db_sequences == 0) throw UsageError("--db-seqs must be positive");
        }
        if (r.count("secondary") &&
            !parse_choice<bool>("secondary", r["secondary"].as<std::string>(), {{"yes", true}, {"no", false}})) {
            if (r.count("max-hits") && so.max_hits > 1)
                throw UsageError("--secondary no keeps one hit per query; it conflicts with --max-hits " +
                                 std::to_string(so.max_hits));
            so.max_hits = 1;
        }
        c.search = so;
    } else {
        const char* search_only[] = {"mode", "max-hits", "min-score", "evalue", "db-size", "db-seqs", "secondary"};
        for (const char* opt : search_only)
            if (r.count(opt)) throw UsageError(std::string("--") + opt + " applies to `gpualign search` only");
        c.mode = parse_command(pos[0]);
    }
    c.query_path = pos[1];
    c.ref_path = pos[2];
    c.out_path = r["output"].as<std::string>();
    if (r.count("format"))
        c.format = parse_choice<OutputFormat>("format", lower(r["format"].as<std::string>()),
                                              {{"tsv", OutputFormat::tsv},
                                               {"sam", OutputFormat::sam},
                                               {"blast6", OutputFormat::blast6},
                                               {"m8", OutputFormat::blast6},
                                               {"paf", OutputFormat::paf}});
    c.alphabet = parse_choice<AlphabetChoice>("alphabet", r["alphabet"].as<std::string>(),
                                              {{"auto", AlphabetChoice::automatic}, {"dna", AlphabetChoice::dna}, {"protein", AlphabetChoice::protein}});
    if (r.count("match")) c.match = r["match"].as<int>();
    if (r.count("mismatch")) c.mismatch = r["mismatch"].as<int>();
    if (r.count("gap-open")) c.gap_open = r["gap-open"].as<int>();
    if (r.count("gap-extend")) c.gap_extend = r["gap-extend"].as<int>();
    if (r.count("matrix")) c.matrix = r["matrix"].as<std::string>();
    if (r.count("n-score")) c.n_score = r["n-score"].as<int>();
    c.score_only = r.count("score-only") > 0;
    c.strand = parse_choice<StrandChoice>("strand", r["strand"].as<std::string>(),
                                          {{"plus", StrandChoice::plus}, {"both", StrandChoice::both}});
    c.sam_cigar_m = parse_choice<bool>("cigar", r["cigar"].as<std::string>(), {{"eqx", false}, {"m", true}});
    c.threads = r["threads"].as<int>();
    c.backend = parse_choice<BackendChoice>("backend", r["backend"].as<std::string>(),
                                            {{"auto", BackendChoice::automatic}, {"cpu", BackendChoice::cpu}, {"gpu", BackendChoice::gpu}});
    c.cpu_kernel = parse_choice<CpuKernel>("cpu-kernel", r["cpu-kernel"].as<std::string>(),
                                           {{"simd", CpuKernel::simd}, {"scalar", CpuKernel::scalar}});
    c.device = r["device"].as<int>();
    c.devices_chosen = r.count("device") > 0 || r.count("devices") > 0;
    if (r.count("devices")) {
        if (r.count("device")) throw UsageError("--device and --devices conflict; give one (--devices 0 is --device 0)");
        c.all_devices = parse_device_list(r["devices"].as<std::string>(), c.devices);
    }
    c.batch_pairs = r["batch-pairs"].as<std::size_t>();
    c.batch_bases = r["batch-bases"].as<std::size_t>();
    c.read_ahead = parse_byte_size(r["read-ahead"].as<std::string>(), "--read-ahead");
    c.gpu_memory = parse_byte_size(r["gpu-memory"].as<std::string>(), "--gpu-memory");
    c.gpu_streams = r["gpu-streams"].as<int>();
    c.progress = parse_choice<ProgressChoice>("progress", r["progress"].as<std::string>(),
                                              {{"auto", ProgressChoice::automatic}, {"always", ProgressChoice::always},
                                               {"never", ProgressChoice::never}});
    if (verbosity == Verbosity::quiet && c.progress == ProgressChoice::automatic) c.progress = ProgressChoice::never;
    c.command_line = std::move(command_line);
    c.validate();
    if (r.count("cigar") && (c.score_only || c.output_format() == OutputFormat::blast6))
        throw UsageError(c.score_only ? "--cigar chooses CIGAR operations; --score-only computes no CIGAR"
                                      : "--cigar chooses CIGAR operations; BLAST tabular output has no CIGAR column");
    if (c.matrix && !is_builtin_matrix(*c.matrix)) {
        std::error_code ec;
        if (!std::filesystem::exists(*c.matrix, ec))
            throw UsageError(fmt::format("--matrix {}: not a built-in matrix ({}) and no such file", *c.matrix,
                                         fmt::join(builtin_matrix_names(), ", ")));
    }
    return c;
}

}  // namespace

Command parse_command_line(int argc, const char* const* argv) {
    // cxxopts matches each argument with std::regex, whose recursion depth
    // grows with the argument's length: a 40 kB argument overflows the
    // stack. No valid argument is longer than a path (PATH_MAX, 4096).
    for (int i = 1; i < argc; ++i) {
        const std::size_t len = std::char_traits<char>::length(argv[i]);
        if (len > max_argument_length)
            throw UsageError("argument " + std::to_string(i) + " is " + std::to_string(len) +
                             " bytes long; gpualign accepts at most " + std::to_string(max_argument_length) +
                             " bytes per argument");
    }
    try {
        cxxopts::Options options = make_options();
        const cxxopts::ParseResult r = options.parse(argc, argv);
        Command cmd;
        if (r.count("help")) {
            cmd.action = Command::Action::help;
            cmd.text = options.help({"Scoring", "Input/output", "Search", "Execution", "General"}) + '\n' + help_epilogue();
            return cmd;
        }
        if (r.count("version")) {
            cmd.action = Command::Action::version;
            cmd.text = std::string("gpualign ") + GPUALIGN_VERSION + " (commit " + GPUALIGN_GIT_COMMIT + ")\n" +
                       "GPU backend: " + gpu::build_description() + "\n" +
                       "CPU backend: inter-pair SIMD kernels (Highway; this CPU: " +
                       simd_instruction_set(simd_target()) + "; compiled and supported: " +
                       fmt::format("{}", fmt::join(simd_instruction_sets(), ", ")) + "), scalar reference, OpenMP\n";
            return cmd;
        }
        if (r.count("verbose") && r.count("quiet")) throw UsageError("--verbose and --quiet conflict");
        cmd.verbosity = r.count("quiet") ? Verbosity::quiet : r.count("verbose") ? Verbosity::verbose : Verbosity::normal;
        const auto pos = r.count("positional") ? r["positional"].as<std::vector<std::string>>() : std::vector<std::string>{};
        if (!pos.empty() && pos[0] == "makedb") {
            cmd.action = Command::Action::makedb;
            cmd.config = makedb_config(r, pos);
            return cmd;
        }
        cmd.config = to_config(r, pos, join_args(argc, argv), cmd.verbosity);
        return cmd;
    } catch (const UsageError&) {
        throw;
    } catch (const cxxopts::exceptions::exception& e) {
        throw UsageError(e.what());
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace gpualign::cli
