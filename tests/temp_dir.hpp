// A fresh empty directory under the system's temporary directory for one
// test, removed with its contents at the end of the test, and file helpers.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gpualign::test {

/// A fresh empty directory `<tmp>/<prefix>_<pid>_<n>`, removed with its
/// contents by the destructor.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& prefix) {
        static int counter = 0;
        path = std::filesystem::temp_directory_path() /
               (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    /// The names of the entries in the directory.
    std::vector<std::string> entries() const {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(path)) out.push_back(e.path().filename().string());
        return out;
    }
};

/// The whole content of a file (empty when it cannot be read).
inline std::string slurp_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace gpualign::test
