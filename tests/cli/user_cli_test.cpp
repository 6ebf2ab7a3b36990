// What users of BLAST+, minimap2, samtools and parasail type and expect:
// numbers checked with the flag named (exit 2), search SAM with secondary
// hits, outputs through symbolic links keeping their mode, the flags they
// are used to, messages in the right number, progress lines in a file, SAM
// details, and --help's exit status, columns and examples.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "fasta_text.hpp"
#include "gpualign/align/simd_aligner.hpp"

namespace fs = std::filesystem;
using gpualign::test::CliTest;
using gpualign::test::lines;
using gpualign::test::rows;
using gpualign::test::slurp;

namespace {

class UserCli : public CliTest {
protected:
    static std::string data(const std::string& name) { return std::string(GPUALIGN_TEST_DATA) + "/../../data/" + name; }
    /// The first `n` records of the bundled FASTA file `name`, as a file of
    /// the test's directory: searches of every read against every window
    /// stay small.
    fs::path first_records(const std::string& name, std::size_t n) {
        const std::vector<std::string> records = gpualign::test::fasta_records(data(name));
        std::string text;
        for (std::size_t k = 0; k < std::min(n, records.size()); ++k) text += records[k];
        return write("first" + std::to_string(n) + "_" + name, text);
    }
    /// The first 12 reads and 12 windows of data/: "Q DB" for a search
    /// (1e8 cells: seconds under the sanitizers).
    std::string small_search() {
        return first_records("reads.fa", 12).string() + " " + first_records("ref_windows.fa", 12).string();
    }
    /// Two small DNA pairs, as files q.fa and r.fa; returns "Q R".
    std::string pairs() {
        const fs::path q = write("q.fa", ">q1\nACGTACGTTAGCTAGCTAGGATCGATCGA\n>q2\nTTGACCATGCATGCAGTACGATCAG\n");
        const fs::path r = write("r.fa", ">r1\nACGTACGATAGCTAGCTAGGATCGTTCGA\n>r2\nTTGACCATGCATCAGTACGATCAG\n");
        return q.string() + " " + r.string();
    }
};

int mode_of(const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
}

}  // namespace

// Item 1: a thread count no host has is a command-line error naming the
// flag, never a crash or libgomp's message.
TEST_F(UserCli, ThreadCountsBeyondTheLimitAreCommandLineErrors) {
    const std::string in = pairs();
    for (const std::string n : {"100000", "30000", "2147483647", "1025"}) {
        const auto r = run("sw " + in + " --backend cpu --threads " + n + " -o " + (dir_ / "o.tsv").string());
        EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
        EXPECT_NE(r.err.find("--threads must be between 0 (all cores) and 1024, got " + n), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("libgomp"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir_ / "o.tsv"));
    }
    const auto ok = run("sw " + in + " --backend cpu -t 1 -o " + (dir_ / "o.tsv").string());
    EXPECT_EQ(ok.exit_code, 0) << ok.err;  // -t is --threads
}

// Item 6: scores and penalties out of range name the flag (not an internal
// field) and exit 2; a negative --match is not called a penalty; a matrix
// that is neither built in nor a file is a command-line error too.
TEST_F(UserCli, OutOfRangeNumbersNameTheFlagAndExitTwo) {
    const std::string in = pairs() + " --backend cpu -o " + (dir_ / "o.tsv").string();
    const std::map<std::string, std::string> cases = {
        {"--match 1000000000", "--match is the score of two identical bases: it must be between 0 and 1000000, got 1000000000"},
        {"--match -1", "--match is the score of two identical bases: it must be between 0 and 1000000, got -1"},
        {"--mismatch 1000001", "--mismatch is a penalty (non-negative, subtracted): it must be between 0 and 1000000"},
        {"--gap-open 1000000000", "--gap-open is a penalty"},
        {"--gap-extend -3", "--gap-extend is a penalty (non-negative, subtracted): it must be between 0 and 1000000, got -3"},
        {"--n-score -5000000", "--n-score is the score of N against any base: it must be between -1000000 and 1000000"},
        {"--matrix PAM250", "--matrix PAM250: not a built-in matrix (BLOSUM30, BLOSUM45, BLOSUM62, BLOSUM80) and no such file"},
        {"--read-ahead 1X", "--read-ahead '1X': "},
        {"--read-ahead lots", "--read-ahead 'lots': not a number"},
    };
    for (const auto& [args, message] : cases) {
        const auto r = run("sw " + in + " " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(r.err.find("gap_open"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("n_score"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir_ / "o.tsv")) << args;
    }
    EXPECT_EQ(run("sw " + in + " --match 1000000 --mismatch 1000000").exit_code, 0);
    EXPECT_EQ(run("sw " + in + " --n-score -1000000").exit_code, 0);
}

// Item 2: in search SAM the best hit of each query is primary and the
// others are secondary (FLAG 256, MAPQ 0, SEQ '*'), so that samtools
// counts each query once; --secondary no keeps the best only.
TEST_F(UserCli, SearchSamMarksAllButTheBestHitSecondary) {
    const fs::path out = dir_ / "hits.sam";
    const auto r = run("search " + small_search() + " --backend cpu --strand both -k 3 -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, int> primary, secondary;
    for (const auto& f : rows(slurp(out))) {
        if (f[0].starts_with("@")) continue;
        ASSERT_GE(f.size(), 11u);
        const int flag = std::stoi(f[1]);
        if (flag & 256) {
            ++secondary[f[0]];
            EXPECT_EQ(f[4], "0");
            EXPECT_EQ(f[9], "*");
            EXPECT_EQ(f[10], "*");
        } else {
            ++primary[f[0]];
            EXPECT_NE(f[9], "*");
        }
    }
    EXPECT_EQ(primary.size(), 12u);
    for (const auto& [name, n] : primary) EXPECT_EQ(n, 1) << name;
    EXPECT_FALSE(secondary.empty());
    for (const auto& [name, n] : secondary) EXPECT_LE(n, 2) << name;

    // samtools flagstat, where installed: primary records = queries.
    if (std::system("command -v samtools >/dev/null 2>&1") == 0) {
        const fs::path stat = dir_ / "flagstat.txt";
        ASSERT_EQ(std::system(("samtools flagstat " + out.string() + " > " + stat.string()).c_str()), 0);
        EXPECT_NE(slurp(stat).find("12 + 0 primary\n"), std::string::npos) << slurp(stat);
    }

    const fs::path best = dir_ / "best.sam";
    const auto b = run("search " + small_search() + " --backend cpu --strand both --secondary no -o " + best.string());
    ASSERT_EQ(b.exit_code, 0) << b.err;
    std::size_t records = 0;
    for (const auto& f : rows(slurp(best)))
        if (!f[0].starts_with("@")) {
            ++records;
            EXPECT_EQ(std::stoi(f[1]) & 256, 0);
        }
    EXPECT_EQ(records, 12u);
    const auto conflict = run("search " + data("reads.fa") + " " + data("ref_windows.fa") + " --secondary no -k 3");
    EXPECT_EQ(conflict.exit_code, 2);
    EXPECT_NE(conflict.err.find("--secondary no keeps one hit per query"), std::string::npos) << conflict.err;
    EXPECT_EQ(run("sw " + pairs() + " --secondary no").exit_code, 2);
}

// Item 3: an output reached through a symbolic link replaces the file the
// link names and keeps the link; an existing output keeps its mode.
TEST_F(UserCli, OutputThroughASymlinkAndItsModeAreKept) {
    const std::string in = pairs() + " --backend cpu";
    const fs::path target = write("target.tsv", "old\n");
    ::chmod(target.c_str(), 0600);
    const fs::path link = dir_ / "link.tsv";
    fs::create_symlink("target.tsv", link);
    const auto r = run("sw " + in + " -o " + link.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_NE(slurp(target).find("q1\t"), std::string::npos) << slurp(target);
    EXPECT_EQ(mode_of(target), 0600);

    const fs::path plain = write("plain.tsv", "old\n");
    ::chmod(plain.c_str(), 0640);
    ASSERT_EQ(run("sw " + in + " -o " + plain.string()).exit_code, 0);
    EXPECT_EQ(mode_of(plain), 0640);

    // A dangling link creates the file it points to.
    fs::create_symlink("made.tsv", dir_ / "dangling.tsv");
    ASSERT_EQ(run("sw " + in + " -o " + (dir_ / "dangling.tsv").string()).exit_code, 0);
    EXPECT_TRUE(fs::is_symlink(dir_ / "dangling.tsv"));
    EXPECT_NE(slurp(dir_ / "made.tsv").find("q1\t"), std::string::npos);
}

// Item 10: the flags users type: --format in any case and m8, --cigar m in
// the TSV cigar column (and refused where no CIGAR is written), and
// --device/--devices on a machine without those GPUs.
TEST_F(UserCli, FlagsUsersType) {
    const std::string in = pairs() + " --backend cpu";
    const auto m8 = run("sw " + in + " --format m8");
    ASSERT_EQ(m8.exit_code, 0) << m8.err;
    EXPECT_EQ(rows(m8.out).at(0).size(), 12u) << m8.out;
    const auto sam = run("sw " + in + " --format SAM");
    ASSERT_EQ(sam.exit_code, 0) << sam.err;
    EXPECT_TRUE(sam.out.starts_with("@HD\tVN:1.6")) << sam.out;

    const auto eqx = rows(run("sw " + in).out);
    const auto m = rows(run("sw " + in + " --cigar m").out);
    ASSERT_EQ(eqx.size(), 3u);
    ASSERT_EQ(m.size(), 3u);
    EXPECT_NE(eqx[1][14].find('X'), std::string::npos) << eqx[1][14];
    EXPECT_EQ(m[1][14].find_first_of("=X"), std::string::npos) << m[1][14];
    EXPECT_NE(m[1][14].find('M'), std::string::npos) << m[1][14];
    const auto blast = run("sw " + in + " --cigar m -o " + (dir_ / "x.m8").string());
    EXPECT_EQ(blast.exit_code, 2);
    EXPECT_NE(blast.err.find("BLAST tabular output has no CIGAR column"), std::string::npos) << blast.err;
    EXPECT_EQ(run("sw " + in + " --cigar m --score-only").exit_code, 2);
}

// Item 10 (no GPU here): an explicit --device or --devices with --backend
// auto on a machine without GPUs is an error naming the flag, and a plain
// CPU run prints no warning about the missing GPU.
TEST_F(UserCli, ExplicitDevicesWithoutGpusAreErrorsAndCpuRunsAreQuiet) {
    if (std::system("nvidia-smi -L >/dev/null 2>&1") == 0) GTEST_SKIP() << "a GPU is visible";
    const std::string in = pairs();
    const auto plain = run("sw " + in);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(plain.err.find("warning"), std::string::npos) << plain.err;
    for (const std::string flag : {"--device 3", "--devices 0,1"}) {
        const auto r = run("sw " + in + " " + flag + " -o " + (dir_ / "o.tsv").string());
        EXPECT_EQ(r.exit_code, 1) << flag;
        EXPECT_NE(r.err.find(flag.substr(0, flag.find(' ')) + (flag == "--device 3" ? " 3" : "") +
                             ": no CUDA device is visible"),
                  std::string::npos)
            << r.err;
        EXPECT_FALSE(fs::exists(dir_ / "o.tsv"));
    }
}

// Item 11: counts in the right number, search counted in queries and hits,
// the instruction set by its common name, and long names cut in messages.
TEST_F(UserCli, MessagesCountInTheRightNumber) {
    const fs::path q = write("one.fa", ">q\nACGTACGTACGTAGCTAGCTAGCA\n");
    const fs::path r = write("oner.fa", ">r\nACGTACGTACTTAGCTAGCTAGCA\n");
    const auto one = run("sw " + q.string() + " " + r.string() + " --backend cpu");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_NE(one.err.find("info: 1 pair, "), std::string::npos) << one.err;
    const auto two = run("sw " + pairs() + " --backend cpu");
    EXPECT_NE(two.err.find("info: 2 pairs, "), std::string::npos) << two.err;
    const auto s = run("search " + small_search() + " --backend cpu -k 2");
    ASSERT_EQ(s.exit_code, 0) << s.err;
    EXPECT_NE(s.err.find("info: 12 queries, 24 hits, "), std::string::npos) << s.err;

    // --version names every SIMD target by its instruction set.
    const auto v = run("--version");
    EXPECT_EQ(v.out.find("AVX3"), std::string::npos) << v.out;
    for (const std::string& t : gpualign::simd_targets())
        EXPECT_NE(v.out.find(gpualign::simd_instruction_set(t)), std::string::npos) << t << "\n" << v.out;

    const std::string long_name(200000, 'n');
    const fs::path bad = write("long.fa", ">" + long_name + "@x\nACGTACGTACGTAGCTAGCTAGCA\n");
    const auto e = run("sw " + bad.string() + " " + r.string() + " --backend cpu -o " + (dir_ / "o.sam").string());
    EXPECT_EQ(e.exit_code, 1);
    EXPECT_LT(e.err.size(), 1000u) << e.err.substr(0, 300);
    EXPECT_NE(e.err.find("... (200002 bytes)"), std::string::npos) << e.err.substr(0, 300);
}

// Item 12: --progress always into a file writes whole lines, no carriage
// return, and never the same line twice.
TEST_F(UserCli, ProgressIntoAFileIsOneLinePerUpdate) {
    const fs::path err = dir_ / "progress.txt";
    const std::string cmd = std::string(GPUALIGN_BINARY) + " sw " + data("reads.fa") + " " + data("ref_windows.fa") +
                            " --backend cpu --batch-pairs 50 --progress always -o " + (dir_ / "o.tsv").string() +
                            " 2> " + err.string();
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    const std::string text = slurp(err);
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
    std::vector<std::string> progress;
    for (const std::string& l : lines(text))
        if (l.starts_with("aligned ")) progress.push_back(l.substr(0, l.find(" Gcells")));
    ASSERT_GE(progress.size(), 2u) << text;
    EXPECT_EQ(progress.back(), "aligned 200 pairs, " + progress.back().substr(19)) << text;
    for (std::size_t k = 1; k < progress.size(); ++k) EXPECT_NE(progress[k], progress[k - 1]) << text;
}

// Item 13: unmapped SAM records have MAPQ 0, as minimap2 writes them.
TEST_F(UserCli, UnmappedSamRecordsHaveMapqZero) {
    const fs::path q = write("q.fa", ">q\nAAAAAAAAAA\n");
    const fs::path r = write("r.fa", ">r\nCCCCCCCCCC\n");
    const auto s = run("sw " + q.string() + " " + r.string() + " --backend cpu --format sam");
    ASSERT_EQ(s.exit_code, 0) << s.err;
    const auto f = rows(s.out).back();
    EXPECT_EQ(f[1], "4");
    EXPECT_EQ(f[4], "0");
}

// Item 15: --help lists the exit status, the TSV columns and examples; the
// man page (made from it) has the sections.
TEST_F(UserCli, HelpHasExitStatusColumnsAndExamples) {
    const auto h = run("--help");
    ASSERT_EQ(h.exit_code, 0);
    for (const std::string s :
         {"Exit status:", "  2  bad command line", "Output columns (TSV", "query_len query_begin query_end",
          "evalue bitscore strand", "Examples:", "gpualign search"})
        EXPECT_NE(h.out.find(s), std::string::npos) << s;
    const fs::path man = fs::path(GPUALIGN_BINARY).parent_path() / "gpualign.1";
    if (!fs::exists(man)) GTEST_SKIP() << "no man page in this build (help2man missing)";
    const std::string page = slurp(man);
    for (const std::string s : {".SH \"EXIT STATUS\"", ".SH OUTPUT", ".SH EXAMPLES"})
        EXPECT_NE(page.find(s), std::string::npos) << s;
}

// Item 11: Highway's target names become the names users know, whatever
// this CPU supports.
TEST(SimdNames, TargetsAreNamedByTheirInstructionSets) {
    EXPECT_EQ(gpualign::simd_instruction_set("AVX3"), "AVX-512");
    EXPECT_EQ(gpualign::simd_instruction_set("AVX3_ZEN4"), "AVX-512 (Zen 4)");
    EXPECT_EQ(gpualign::simd_instruction_set("AVX3_SPR"), "AVX-512 (Sapphire Rapids)");
    EXPECT_EQ(gpualign::simd_instruction_set("SSE4"), "SSE4.2");
    EXPECT_EQ(gpualign::simd_instruction_set("EMU128"), "no SIMD");
    EXPECT_EQ(gpualign::simd_instruction_set("AVX2"), "AVX2");
    EXPECT_EQ(gpualign::simd_instruction_set("NEON"), "NEON");
}
