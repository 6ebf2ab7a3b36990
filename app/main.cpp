// gpualign command-line interface: `gpualign sw|nw QUERIES REFS [options]`.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <cxxopts.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "gpualign/config.hpp"
#include "gpualign/pipeline.hpp"
#include "gpualign/sequence_io.hpp"

namespace {

constexpr int exit_ok = 0;
constexpr int exit_error = 1;
constexpr int exit_usage = 2;

using gpualign::Defaults;

std::string join_args(int argc, char** argv) {
    std::string out;
    for (int i = 0; i < argc; ++i) {
        if (i) out += ' ';
        out += argv[i];
    }
    return out;
}

cxxopts::Options make_options() {
    cxxopts::Options o("gpualign", "GPU-accelerated pairwise sequence alignment.\n"
                                   "  gpualign sw QUERIES REFS [-o OUT]   local (Smith-Waterman-Gotoh)\n"
                                   "  gpualign nw QUERIES REFS [-o OUT]   global (Needleman-Wunsch-Gotoh)\n"
                                   "Record i of QUERIES is aligned with record i of REFS. FASTA or FASTQ, plain or gzip; '-' reads stdin.");
    o.set_width(100);
    o.custom_help("sw|nw QUERIES REFS [options]");
    o.positional_help("");
    const auto str = [](auto v) { return std::to_string(v); };
    o.add_options("Scoring")
        ("match", "DNA match score (default " + str(Defaults::dna_match) + ")", cxxopts::value<int>())
        ("mismatch", "DNA mismatch penalty, positive (default " + str(Defaults::dna_mismatch) + ")", cxxopts::value<int>())
        ("gap-open", "gap open penalty, positive; a gap of length L costs gap_open + L*gap_extend; 0 = linear (default DNA " +
                         str(Defaults::dna_gap_open) + ", protein " + str(Defaults::protein_gap_open) + ")", cxxopts::value<int>())
        ("gap-extend", "gap extension penalty per position, positive (default DNA " + str(Defaults::dna_gap_extend) +
                           ", protein " + str(Defaults::protein_gap_extend) + ")", cxxopts::value<int>())
        ("matrix", std::string("substitution matrix: BLOSUM30|45|62|80 or an NCBI-format file (default protein ") +
                       Defaults::protein_matrix + ")", cxxopts::value<std::string>())
        ("n-score", "DNA: score of N against any base, N included (default -mismatch)", cxxopts::value<int>())
        ("alphabet", "auto|dna|protein (auto decides per file from its content)", cxxopts::value<std::string>()->default_value("auto"));
    o.add_options("Input/output")
        ("o,output", "output file; '-' = stdout", cxxopts::value<std::string>()->default_value("-"))
        ("format", "tsv|sam (default: from the output file's extension, else tsv)", cxxopts::value<std::string>())
        ("score-only", "report score and coordinates only, no CIGAR");
    o.add_options("Execution")
        ("threads", "CPU threads, 0 = all cores", cxxopts::value<int>()->default_value("0"))
        ("backend", "auto|cpu|gpu (auto uses a GPU when one is visible)", cxxopts::value<std::string>()->default_value("auto"))
        ("device", "CUDA device ordinal", cxxopts::value<int>()->default_value("0"))
        ("batch-pairs", "pairs per batch", cxxopts::value<std::size_t>()->default_value(str(Defaults::batch_pairs)))
        ("batch-bases", "query+ref bases per batch", cxxopts::value<std::size_t>()->default_value(str(Defaults::batch_bases)));
    o.add_options("General")
        ("v,verbose", "more log output")
        ("q,quiet", "errors only")
        ("version", "print the version and exit")
        ("h,help", "print this help and exit")
        ("positional", "", cxxopts::value<std::vector<std::string>>());
    o.parse_positional({"positional"});
    return o;
}

template <typename Enum>
Enum parse_choice(const std::string& option, const std::string& value,
                  std::initializer_list<std::pair<const char*, Enum>> choices) {
    std::string names;
    for (const auto& [name, e] : choices) {
        if (value == name) return e;
        names += names.empty() ? name : std::string("|") + name;
    }
    throw std::invalid_argument("--" + option + " must be one of " + names + ", got '" + value + "'");
}

gpualign::AlignConfig to_config(const cxxopts::ParseResult& r, const std::vector<std::string>& pos, std::string command_line) {
    using namespace gpualign;
    if (pos.size() != 3)
        throw std::invalid_argument("expected 3 arguments (sw|nw QUERIES REFS), got " + std::to_string(pos.size()));
    AlignConfig c;
    c.mode = parse_choice<AlignMode>("mode", pos[0], {{"sw", AlignMode::local}, {"nw", AlignMode::global}});
    c.query_path = pos[1];
    c.ref_path = pos[2];
    c.out_path = r["output"].as<std::string>();
    if (r.count("format")) c.format = parse_choice<OutputFormat>("format", r["format"].as<std::string>(), {{"tsv", OutputFormat::tsv}, {"sam", OutputFormat::sam}});
    c.alphabet = parse_choice<AlphabetChoice>("alphabet", r["alphabet"].as<std::string>(),
                                              {{"auto", AlphabetChoice::automatic}, {"dna", AlphabetChoice::dna}, {"protein", AlphabetChoice::protein}});
    if (r.count("match")) c.match = r["match"].as<int>();
    if (r.count("mismatch")) c.mismatch = r["mismatch"].as<int>();
    if (r.count("gap-open")) c.gap_open = r["gap-open"].as<int>();
    if (r.count("gap-extend")) c.gap_extend = r["gap-extend"].as<int>();
    if (r.count("matrix")) c.matrix = r["matrix"].as<std::string>();
    if (r.count("n-score")) c.n_score = r["n-score"].as<int>();
    c.score_only = r.count("score-only") > 0;
    c.threads = r["threads"].as<int>();
    c.backend = parse_choice<BackendChoice>("backend", r["backend"].as<std::string>(),
                                            {{"auto", BackendChoice::automatic}, {"cpu", BackendChoice::cpu}, {"gpu", BackendChoice::gpu}});
    c.device = r["device"].as<int>();
    c.batch_pairs = r["batch-pairs"].as<std::size_t>();
    c.batch_bases = r["batch-bases"].as<std::size_t>();
    c.command_line = std::move(command_line);
    c.validate();
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    auto logger = spdlog::stderr_color_st("gpualign");
    logger->set_pattern("[gpualign] %^%l%$: %v");
    spdlog::set_default_logger(logger);

    cxxopts::Options options = make_options();
    gpualign::AlignConfig config;
    try {
        const cxxopts::ParseResult r = options.parse(argc, argv);
        if (r.count("help")) {
            std::cout << options.help({"Scoring", "Input/output", "Execution", "General"}) << '\n';
            return exit_ok;
        }
        if (r.count("version")) {
            std::cout << "gpualign " << GPUALIGN_VERSION << '\n';
            return exit_ok;
        }
        if (r.count("verbose") && r.count("quiet")) throw std::invalid_argument("--verbose and --quiet conflict");
        spdlog::set_level(r.count("quiet") ? spdlog::level::err : r.count("verbose") ? spdlog::level::debug : spdlog::level::info);
        const auto pos = r.count("positional") ? r["positional"].as<std::vector<std::string>>() : std::vector<std::string>{};
        config = to_config(r, pos, join_args(argc, argv));
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        std::cerr << "Try 'gpualign --help'.\n";
        return exit_usage;
    }

    try {
        const gpualign::RunStats stats = gpualign::run_alignment(config);
        spdlog::info("{} pairs, {} cells, {:.3f} s, {:.3f} GCUPS, backend {}", stats.pairs, stats.cells, stats.seconds,
                     stats.gcups(), stats.backend);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return exit_error;
    }
    return exit_ok;
}
