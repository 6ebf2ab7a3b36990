// gpualign — the command line: argv -> AlignConfig (cxxopts), separate from
// main() so that tests and the CLI fuzz target (fuzz/fuzz_cli.cpp) can call it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "gpualign/model/config.hpp"

namespace gpualign::cli {

/// Process exit codes of `gpualign`.
inline constexpr int exit_ok = 0;     ///< success, --help, --version
inline constexpr int exit_error = 1;  ///< bad input, I/O or device failure during the run
inline constexpr int exit_usage = 2;  ///< bad command line (UsageError), or an option the input does not allow (OptionError)

/// Longest accepted argument, in bytes (a path can be at most PATH_MAX = 4096).
inline constexpr std::size_t max_argument_length = 4096;

/// A bad command line: unknown option, missing or malformed value, an
/// argument longer than max_argument_length, a bad choice,
/// conflicting options, or a value that AlignConfig::validate rejects.
/// what() is one sentence naming the option or argument.
class UsageError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// Log level asked for by -v/--verbose and -q/--quiet.
enum class Verbosity { normal, verbose, quiet };

/// What a command line asks for.
struct Command {
    /// align: sw|nw|sg|search; makedb: `gpualign makedb DB.fa DB.gadb`.
    enum class Action { align, makedb, help, version };
    Action action = Action::align;
    /// align: validated; makedb: ref_path (DB.fa), out_path (DB.gadb),
    /// alphabet and threads only; not meaningful for help and version.
    AlignConfig config;
    Verbosity verbosity = Verbosity::normal;
    std::string text;                        ///< for help/version: the text to print on stdout
};

/// Parses `gpualign sw|nw|sg QUERIES REFS [options]`, `gpualign search
/// QUERIES DB [options]` and `gpualign makedb DB.fa DB.gadb [options]`.
///
/// @param argc, argv  as given to main (argv[0] is the program name;
///                    borrowed for the call only). The whole argv, joined by
///                    spaces, becomes config.command_line (SAM @PG CL).
/// @return help or version text, or a validated AlignConfig. An option given
///         twice takes its last value (as with most Unix tools). Touches no file
///         except to stat paths for AlignConfig::validate's same-file check.
/// @throws UsageError  on any bad command line (see UsageError); nothing else.
Command parse_command_line(int argc, const char* const* argv);

}  // namespace gpualign::cli
