// Fuzz target: the command line (cxxopts parsing + AlignConfig::validate), as
// gpualign's main() calls it through cli::parse_command_line.
//
// Input layout: NUL-separated arguments after the program name (at most 64).
// Contract checked: parse_command_line throws cli::UsageError and nothing
// else; a returned align command carries a configuration that validates.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpualign;
    std::vector<std::string> args{"gpualign"};
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::size_t start = 0;
    while (start <= text.size() && args.size() < 65) {
        const std::size_t end = std::min(text.find('\0', start), text.size());
        args.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    try {
        const cli::Command cmd = cli::parse_command_line(static_cast<int>(args.size()), argv.data());
        if (cmd.action == cli::Command::Action::align) {
            cmd.config.validate();
            FUZZ_CHECK(!cmd.config.query_path.empty() && !cmd.config.ref_path.empty());
            FUZZ_CHECK(cmd.config.batch_pairs > 0 && cmd.config.batch_bases > 0);
            FUZZ_CHECK(cmd.config.threads >= 0 && cmd.config.device >= 0);
        } else {
            FUZZ_CHECK(!cmd.text.empty());
        }
    } catch (const cli::UsageError& e) {
        FUZZ_CHECK(*e.what() != '\0');
    }
    return 0;
}
