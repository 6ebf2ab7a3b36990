// One fixture for tests that run the `gpualign` binary: a fresh temporary
// directory per test, the binary run with stdout and stderr captured, and
// small file helpers.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpualign::test {

struct RunResult {
    int exit_code;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// `s` cut at every `sep` (an empty last field is kept).
inline std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

/// The lines of a text, without the empty one after the last newline.
inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out = split(text, '\n');
    if (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

/// The rows of a tab-separated text (TSV, PAF, BLAST tabular): a row a
/// line, its fields cut at tabs.
inline std::vector<std::vector<std::string>> rows(const std::string& text) {
    std::vector<std::vector<std::string>> out;
    for (const std::string& line : lines(text)) out.push_back(split(line, '\t'));
    return out;
}

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = std::filesystem::temp_directory_path() /
               ("gpualign_cli_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
                std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    /// Runs `gpualign ARGS`, stdout and stderr captured.
    RunResult run(const std::string& args) {
        const std::filesystem::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
        const std::string cmd = std::string(GPUALIGN_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
        const int status = std::system(cmd.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
    }
    /// Writes `text` to the file `name` in the test directory and returns its path.
    std::filesystem::path write(const std::string& name, const std::string& text) {
        const std::filesystem::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    /// Writes FASTA records (name, sequence) and returns the path.
    std::filesystem::path write_fasta(const std::string& file,
                                      const std::vector<std::pair<std::string, std::string>>& records) {
        const std::filesystem::path p = dir_ / file;
        std::ofstream f(p, std::ios::binary);
        for (const auto& [name, seq] : records) f << '>' << name << '\n' << seq << '\n';
        return p;
    }

    std::filesystem::path dir_;
};

}  // namespace gpualign::test
