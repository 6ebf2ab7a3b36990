// The registry of temporary files that the signal handlers remove (cleanup.hpp).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpualign/formats/writers.hpp"
#include "gpualign/io/cleanup.hpp"

namespace gpualign {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("gpualign_cleanup_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p) << "x";
    return p;
}

TEST(Cleanup, RemovesRegisteredPathsOnly) {
    const fs::path a = scratch("a"), b = scratch("b"), c = scratch("c");
    const int sa = register_cleanup_path(a.string());
    const int sb = register_cleanup_path(b.string());
    ASSERT_GE(sa, 0);
    ASSERT_GE(sb, 0);
    unregister_cleanup_path(sb);
    remove_cleanup_paths();
    EXPECT_FALSE(fs::exists(a));
    EXPECT_TRUE(fs::exists(b));
    EXPECT_TRUE(fs::exists(c));
    unregister_cleanup_path(sa);
    fs::remove_all(a.parent_path());
}

TEST(Cleanup, RejectsEmptyTooLongAndOverflow) {
    EXPECT_EQ(register_cleanup_path(""), -1);
    EXPECT_EQ(register_cleanup_path(std::string(max_cleanup_path_length + 1, 'x')), -1);
    std::vector<int> slots;
    for (std::size_t k = 0; k < max_cleanup_paths; ++k) {
        const int s = register_cleanup_path("/nonexistent/gpualign/" + std::to_string(k));
        if (s >= 0) slots.push_back(s);
    }
    EXPECT_EQ(register_cleanup_path("/nonexistent/gpualign/one-too-many"), -1);
    for (int s : slots) unregister_cleanup_path(s);
    const int again = register_cleanup_path("/nonexistent/gpualign/again");
    EXPECT_GE(again, 0);
    unregister_cleanup_path(again);
    unregister_cleanup_path(-1);  // no-op
}

TEST(Cleanup, OutputFileTemporaryIsRegisteredUntilCommit) {
    const fs::path dir = scratch("unused").parent_path();
    const fs::path out = dir / "out.tsv";
    {
        OutputFile f(out.string());
        f.write("data\n");
        // The temporary file is the only other file in the directory.
        remove_cleanup_paths();  // as a signal handler would
        std::size_t temps = 0;
        for (const auto& e : fs::directory_iterator(dir)) temps += e.path().filename().string().rfind(".out.tsv.", 0) == 0;
        EXPECT_EQ(temps, 0u);
    }
    EXPECT_FALSE(fs::exists(out));
    {
        OutputFile f(out.string());
        f.write("data\n");
        f.commit();
        remove_cleanup_paths();  // committed: nothing registered any more
    }
    EXPECT_TRUE(fs::exists(out));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gpualign
