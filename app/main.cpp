// gpualign command-line interface: `gpualign sw|nw QUERIES REFS [options]`.
// The command line is parsed in cli.cpp; this file logs and runs.
#include <exception>
#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli.hpp"
#include "gpualign/cleanup.hpp"
#include "gpualign/pipeline.hpp"

int main(int argc, char** argv) {
    namespace cli = gpualign::cli;
    gpualign::install_cleanup_signal_handlers();
    auto logger = spdlog::stderr_color_st("gpualign");
    logger->set_pattern("[gpualign] %^%l%$: %v");
    spdlog::set_default_logger(logger);

    cli::Command cmd;
    try {
        cmd = cli::parse_command_line(argc, argv);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        std::cerr << "Try 'gpualign --help'.\n";
        return cli::exit_usage;
    }
    if (cmd.action != cli::Command::Action::align) {
        std::cout << cmd.text << std::flush;
        return std::cout ? cli::exit_ok : cli::exit_error;
    }
    spdlog::set_level(cmd.verbosity == cli::Verbosity::quiet     ? spdlog::level::err
                      : cmd.verbosity == cli::Verbosity::verbose ? spdlog::level::debug
                                                                 : spdlog::level::info);
    try {
        const gpualign::RunStats stats = gpualign::run_alignment(cmd.config);
        spdlog::info("{} pairs, {} cells, {:.3f} s, {:.3f} GCUPS, backend {}", stats.pairs, stats.cells, stats.seconds,
                     stats.gcups(), stats.backend);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return cli::exit_error;
    }
    return cli::exit_ok;
}
