// Bad input and hostile environments, end to end through the `gpualign`
// binary (issue 4). Every case of the table asserts the exit code, a message
// that names the problem, and that no partial or temporary output file is
// left; the cases that must work assert the same bytes as a plain-LF input.
// Signals, SIGPIPE, /dev/full, oversized pairs and the determinism of the
// output across threads and batch sizes follow the table.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct RunResult {
    int exit_code;     ///< exit status, or -1 when killed by a signal
    int signal;        ///< the signal that killed it, or 0
    std::string out;
    std::string err;
};

/// The contents of a regular file ("" for anything else, e.g. /dev/full, which reads endless zeros).
std::string slurp(const fs::path& p) {
    if (!fs::is_regular_file(p)) return {};
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Replaces every "{key}" in `s`.
std::string expand(std::string s, const std::vector<std::pair<std::string, std::string>>& vars) {
    for (const auto& [key, value] : vars) {
        const std::string k = "{" + key + "}";
        for (std::size_t at = s.find(k); at != std::string::npos; at = s.find(k, at + value.size()))
            s.replace(at, k.size(), value);
    }
    return s;
}

/// Starts `bash -c script` with SIGINT, SIGTERM and SIGPIPE at their default
/// actions (a test runner may have them ignored, and ignored signals are
/// inherited). Returns the pid.
pid_t spawn_bash(const std::string& script) {
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    const char* argv[] = {"bash", "-c", script.c_str(), nullptr};
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, "bash", nullptr, &attr, const_cast<char* const*>(argv), environ);
    posix_spawnattr_destroy(&attr);
    return rc == 0 ? pid : -1;
}

RunResult wait_for(pid_t pid, const fs::path& out, const fs::path& err) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    RunResult r{-1, 0, slurp(out), slurp(err)};
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    return r;
}

class BadInput : public ::testing::Test {
public:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string(info->test_suite_name()) + "_" + info->name();
        for (char& c : name)
            if (c == '/') c = '_';
        dir_ = fs::temp_directory_path() / ("gpualign_bad_" + std::to_string(::getpid()) + "_" + name);
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::permissions(dir_ / "ro", fs::perms::owner_all, ec);
        fs::remove_all(dir_, ec);
    }

    fs::path write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    std::vector<std::pair<std::string, std::string>> vars() const {
        return {{"dir", dir_.string()}, {"out", (dir_ / "out.tsv").string()}, {"bin", GPUALIGN_BINARY}};
    }
    /// Runs `gpualign ARGS` through bash (ARGS expanded, may redirect);
    /// stdout goes to `stdout_path` unless ARGS redirects it.
    RunResult run(const std::string& args, const std::string& stdout_path = "") {
        const fs::path out = stdout_path.empty() ? dir_ / "stdout.txt" : fs::path(stdout_path);
        const fs::path err = dir_ / "stderr.txt";
        const std::string script = "exec " + std::string(GPUALIGN_BINARY) + " " + expand(args, vars()) + " >'" +
                                   out.string() + "' 2>'" + err.string() + "'";
        const pid_t pid = spawn_bash(script);
        EXPECT_GT(pid, 0);
        return wait_for(pid, out, err);
    }
    /// Names of the files in the test directory other than the captured streams and `keep`.
    std::vector<std::string> stray_files(const std::vector<std::string>& keep) const {
        std::vector<std::string> stray;
        for (const auto& e : fs::directory_iterator(dir_)) {
            const std::string name = e.path().filename().string();
            if (name == "stdout.txt" || name == "stderr.txt") continue;
            bool kept = false;
            for (const auto& k : keep) kept |= name == k;
            if (!kept) stray.push_back(name);
        }
        return stray;
    }
    /// Number of lines of `text`.
    static std::size_t lines(const std::string& text) {
        std::size_t n = 0;
        for (char c : text) n += c == '\n';
        return n;
    }

    fs::path dir_;
};

// ---- the table ---------------------------------------------------------------

struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>> files;  ///< written into the test directory
    std::string args;                 ///< after `gpualign`; {dir} {out} {bin} expanded
    int exit_code = 0;
    std::vector<std::string> messages;  ///< substrings of stderr (failing cases)
    /// Working cases: q.fa / t.fa in plain LF form; the output must equal
    /// the output for these. Empty for failing cases.
    std::string lf_query, lf_ref;
    std::string stdout_path;          ///< where stdout goes ("" = a capture file)
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

const std::string q_lf = ">q1 first query\nACGTACGTTGCAACGTAGCT\nACGGT\n>q2\nGGGTTTAAACCCGGGTTTAA\n";
const std::string t_lf = ">t1 ref one\nACGTACGTGCAACGTAGCTACGGT\n>t2\nGGGTTAAACCCAGGGTTTAA\n";
const std::string fq_lf = "@q1 first\nACGTACGTTGCA\n+\nIIIIIIIIIIII\n@q2\nGGGTTTAAAC\n+q2\n!!!!!#####\n";
const std::string fq_ref = ">t1\nACGTACGTGCAA\n>t2\nGGGTTAAACCCA\n";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}
std::string crlf(const std::string& s) { return replace_all(s, "\n", "\r\n"); }
std::string cr(const std::string& s) { return replace_all(s, "\n", "\r"); }
const std::string bom = "\xEF\xBB\xBF";
const std::string std_args = "sw {dir}/q.fa {dir}/t.fa --backend cpu -o {out}";

Case works(std::string name, std::string q, std::string t, std::string lf_q = q_lf, std::string lf_t = t_lf,
           std::string args = std_args) {
    Case c;
    c.name = std::move(name);
    c.files = {{"q.fa", std::move(q)}, {"t.fa", std::move(t)}};
    c.args = std::move(args);
    c.lf_query = std::move(lf_q);
    c.lf_ref = std::move(lf_t);
    return c;
}
Case fails(std::string name, std::string q, std::string t, int code, std::vector<std::string> messages,
           std::string args = std_args) {
    Case c;
    c.name = std::move(name);
    c.files = {{"q.fa", std::move(q)}, {"t.fa", std::move(t)}};
    c.args = std::move(args);
    c.exit_code = code;
    c.messages = std::move(messages);
    return c;
}

std::vector<Case> table() {
    const std::string long_name(1 << 20, 'h');
    const std::string long_desc = "q1 " + std::string(1 << 20, 'd');
    std::vector<Case> c;
    // Line endings, BOM, blank lines, spaces: all work and give the LF output.
    c.push_back(works("crlf_both_files", crlf(q_lf), crlf(t_lf)));
    c.push_back(works("cr_only_both_files", cr(q_lf), cr(t_lf)));
    c.push_back(works("mixed_line_endings", ">q1 first query\r\nACGTACGTTGCAACGTAGCT\rACGGT\n>q2\r\rGGGTTTAAACCCGGGTTTAA", t_lf));
    c.push_back(works("crlf_fastq", crlf(fq_lf), fq_ref, fq_lf, fq_ref));
    c.push_back(works("cr_only_fastq", cr(fq_lf), cr(fq_ref), fq_lf, fq_ref));
    c.push_back(works("utf8_bom_fasta", bom + q_lf, bom + t_lf));
    c.push_back(works("utf8_bom_fastq_crlf", bom + crlf(fq_lf), fq_ref, fq_lf, fq_ref));
    c.push_back(works("blank_lines_in_and_between_records", "\n\n>q1 first query\nACGTACGTTG\n\nCAACGTAGCT\n\nACGGT\n\n>q2\nGGGTTTAAACCCGGGTTTAA\n\n\n", t_lf));
    c.push_back(works("spaces_and_tabs_in_sequence", ">q1 first query\nACGTA CGTTG\tCAACG TAGCT \nACGGT\n>q2\n GGGTTTAAAC CCGGGTTTAA\n", t_lf));
    c.push_back(works("no_final_newline", q_lf.substr(0, q_lf.size() - 1), t_lf.substr(0, t_lf.size() - 1)));
    c.push_back(works("header_1mb_description", ">" + long_desc + "\nACGTACGTTGCAACGTAGCT\nACGGT\n>q2\nGGGTTTAAACCCGGGTTTAA\n", t_lf,
                      ">q1\nACGTACGTTGCAACGTAGCT\nACGGT\n>q2\nGGGTTTAAACCCGGGTTTAA\n"));
    // Records that are not there, or not complete.
    // A header line cut short at the end of the file (with its line end it is a zero-length record).
    c.push_back(fails("header_without_sequence_at_end", ">q1\nACGT\n>q2 no sequence", ">t1\nACGT\n>t2\nACGT\n", 1, {"q.fa", "record 2", "end of file"}));
    c.push_back(fails("bare_gt_line", ">q1\nACGT\n>\nACGT\n", ">t1\nACGT\n>t2\nACGT\n", 1, {"q.fa", "record 2", "no name"}));
    c.push_back(fails("only_a_header", ">q1", ">t1\nACGT\n", 1, {"q.fa", "record 1"}));
    c.push_back(fails("digit_in_sequence", ">q1\nACGT1234AC.T\n", ">t1\nACGTACGTACGT\n", 1, {"q.fa", "record 1 'q1'", "'1' at position 5"}));
    c.push_back(fails("fastq_plus_line_names_another_record", "@r1\nACGT\n+r2\nIIII\n", ">t1\nACGT\n", 1, {"q.fa", "record 1 'r1'", "'+' line names 'r2'"}));
    c.push_back(fails("fastq_quality_longer", "@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIIIIII\n", ">t1\nACGT\n>t2\nACGT\n", 1, {"q.fa", "record 2", "r2", "quality"}));
    c.push_back(fails("fastq_quality_shorter", "@r1\nACGT\n+\nIIII\n@r2\nACGTAC\n+\nIII\n@r3\nACGT\n+\nIIII\n", ">t1\nACGT\n>t2\nACGT\n>t3\nACGT\n", 1, {"q.fa", "record 2", "quality"}));
    c.push_back(fails("fastq_truncated_last_record", "@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\n", ">t1\nACGT\n>t2\nACGT\n", 1, {"q.fa", "record 2"}));
    c.push_back(fails("fastq_truncated_after_header", "@r1\nACGT\n+\nIIII\n@r2\n", ">t1\nACGT\n>t2\nACGT\n", 1, {"q.fa", "record 2"}));
    c.push_back(fails("truncated_fasta_ref", ">q1\nACGT\n>q2\nACGT\n", ">t1\nACGT\n>t", 1, {"t.fa", "record 2"}));
    // Binary data.
    c.push_back(fails("nul_byte_in_sequence", std::string(">q1\nACG\0T\n", 10), ">t1\nACGT\n", 1, {"q.fa", "record 1", "byte 0x00", "position 4"}, std_args + " --alphabet dna"));
    c.push_back(fails("binary_file", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0", 12), ">t1\nACGT\n", 1, {"q.fa", "not FASTA or FASTQ"}));
    c.push_back(fails("high_bytes_in_sequence", ">q1\nACGT\xC3\xA9T\n", ">t1\nACGT\n", 1, {"q.fa", "record 1", "byte 0xc3", "position 5"}, std_args + " --alphabet dna"));
    c.push_back(fails("bom_then_garbage", bom + "hello\n", ">t1\nACGT\n", 1, {"q.fa", "not FASTA or FASTQ"}));
    // Paths.
    c.push_back(fails("directory_as_query", "", t_lf, 1, {"is a directory"}, "sw {dir} {dir}/t.fa --backend cpu -o {out}"));
    c.push_back(fails("directory_as_ref", q_lf, "", 1, {"is a directory"}, "sw {dir}/q.fa {dir} --backend cpu -o {out}"));
    c.push_back(fails("directory_as_output", q_lf, t_lf, 1, {"is a directory"}, "sw {dir}/q.fa {dir}/t.fa --backend cpu -o {dir}"));
    c.push_back(fails("output_same_path_as_query", q_lf, t_lf, 2, {"same file", "q.fa"}, "sw {dir}/q.fa {dir}/t.fa -o {dir}/q.fa"));
    c.push_back(fails("output_same_file_other_spelling", q_lf, t_lf, 2, {"same file", "t.fa"}, "sw {dir}/q.fa {dir}/t.fa -o {dir}/../$(basename {dir})/./t.fa"));
    c.push_back(fails("output_to_dev_full", q_lf, t_lf, 1, {"/dev/full", "No space left on device"}, "sw {dir}/q.fa {dir}/t.fa --backend cpu -o /dev/full"));
    {
        Case s = fails("stdout_is_dev_full", q_lf, t_lf, 1, {"<stdout>", "No space left on device"}, "sw {dir}/q.fa {dir}/t.fa --backend cpu");
        s.stdout_path = "/dev/full";
        c.push_back(s);
    }
    c.push_back(fails("output_in_unwritable_dir", q_lf, t_lf, 1, {"ro/out.tsv"}, "sw {dir}/q.fa {dir}/t.fa --backend cpu -o {dir}/ro/out.tsv"));
    c.push_back(fails("missing_ref", q_lf, t_lf, 1, {"nothere.fa"}, "sw {dir}/q.fa {dir}/nothere.fa --backend cpu -o {out}"));
    // A pair beyond the 32-bit score bound (no length cap otherwise, issue 11): refused, naming the pair.
    c.push_back(fails("pair_beyond_32bit_score_bound", ">big\n" + std::string(200, 'A') + "\n", ">ref\n" + std::string(200, 'C') + "\n", 1,
                      {"pair 1", "big", "ref", "could overflow 32-bit scores"},
                      "nw {dir}/q.fa {dir}/t.fa --backend cpu --match 1000000 --mismatch 1000000 --gap-open 1000000 "
                      "--gap-extend 1000000 -o {out}"));
    // Command-line problems: exit 2, the option named.
    c.push_back(fails("unknown_option", q_lf, t_lf, 2, {"frobnicate"}, std_args + " --frobnicate"));
    c.push_back(fails("unknown_short_option", q_lf, t_lf, 2, {"Z"}, std_args + " -Z"));
    c.push_back(fails("verbose_and_quiet", q_lf, t_lf, 2, {"--verbose and --quiet conflict"}, std_args + " -v -q"));
    c.push_back(fails("matrix_and_match", q_lf, t_lf, 2, {"--matrix conflicts with --match"}, std_args + " --matrix BLOSUM62 --match 3"));
    c.push_back(fails("matrix_and_n_score", q_lf, t_lf, 2, {"--matrix conflicts with --n-score"}, std_args + " --matrix {dir}/m.mat --n-score 1"));
    c.push_back(fails("score_only_with_sam", q_lf, t_lf, 2, {"--score-only"}, "sw {dir}/q.fa {dir}/t.fa --score-only -o {dir}/out.sam"));
    c.push_back(fails("protein_with_match", q_lf, t_lf, 2, {"--match"}, std_args + " --alphabet protein --match 2"));
    c.push_back(fails("bad_choice", q_lf, t_lf, 2, {"--alphabet must be one of auto|dna|protein, got 'rna'"}, std_args + " --alphabet rna"));
    c.push_back(fails("option_value_missing", q_lf, t_lf, 2, {"threads"}, std_args + " --threads"));
    c.push_back(fails("option_value_not_a_number", q_lf, t_lf, 2, {"many"}, std_args + " --threads many"));
    c.push_back(fails("option_value_overflows", q_lf, t_lf, 2, {"99999999999"}, std_args + " --match 99999999999"));
    c.push_back(fails("zero_batch_pairs", q_lf, t_lf, 2, {"--batch-pairs"}, std_args + " --batch-pairs 0"));
    c.push_back(fails("too_many_arguments", q_lf, t_lf, 2, {"expected 3 arguments"}, std_args + " {dir}/q.fa"));
    c.push_back(fails("both_inputs_stdin", q_lf, t_lf, 2, {"stdin"}, "sw - - --backend cpu -o {out}"));
    c.push_back(fails("empty_output_path", q_lf, t_lf, 2, {"--output"}, "sw {dir}/q.fa {dir}/t.fa -o ''"));
    c.push_back(fails("argument_of_100kb", q_lf, t_lf, 2, {"argument 8 is 100002 bytes long"}, std_args + " --" + std::string(100000, 'x')));
    return c;
}

class BadInputTable : public BadInput, public ::testing::WithParamInterface<Case> {};

TEST_P(BadInputTable, ExitCodeMessageAndNoPartialOutput) {
    const Case& c = GetParam();
    std::vector<std::string> keep;
    for (const auto& [name, text] : c.files) {
        write(name, text);
        keep.push_back(name);
    }
    write("m.mat", "  A C G T N\nA 1 0 0 0 0\nC 0 1 0 0 0\nG 0 0 1 0 0\nT 0 0 0 1 0\nN 0 0 0 0 0\n");
    keep.push_back("m.mat");
    fs::create_directory(dir_ / "ro");
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    keep.push_back("ro");

    if (c.name == "output_in_unwritable_dir" && ::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";

    const RunResult r = run(c.args, c.stdout_path);
    EXPECT_EQ(r.signal, 0) << r.err;
    EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    if (c.exit_code != 0) {
        for (const auto& m : c.messages) EXPECT_NE(r.err.find(m), std::string::npos) << "'" << m << "' not in stderr: " << r.err;
        EXPECT_LE(lines(r.err), 2u) << r.err;  // one error line (+ "Try 'gpualign --help'." for usage errors)
        EXPECT_FALSE(fs::exists(dir_ / "out.tsv"));
        EXPECT_EQ(stray_files(keep), std::vector<std::string>{});
        return;
    }
    ASSERT_TRUE(fs::exists(dir_ / "out.tsv"));
    const std::string got = slurp(dir_ / "out.tsv");
    EXPECT_EQ(stray_files({"q.fa", "t.fa", "m.mat", "ro", "out.tsv"}), std::vector<std::string>{});
    // The same run on the plain LF files gives the same bytes.
    write("q.fa", c.lf_query);
    write("t.fa", c.lf_ref);
    const RunResult ref = run(c.args);
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    EXPECT_EQ(got, slurp(dir_ / "out.tsv"));
    EXPECT_GE(lines(got), 3u);
}

INSTANTIATE_TEST_SUITE_P(Hardening, BadInputTable, ::testing::ValuesIn(table()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(BadInputTableSize, AtLeastThirtyCases) { EXPECT_GE(table().size(), 30u); }

// ---- hostile environments -------------------------------------------------------

/// `n` random related pairs (the ref is the query with ~10% edits), as FASTA texts.
std::pair<std::string, std::string> random_pairs(int n, unsigned seed, int min_len = 80, int max_len = 220) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> base(0, 3), len(min_len, max_len), pct(0, 99);
    const char* acgt = "ACGT";
    std::string q, t;
    for (int k = 0; k < n; ++k) {
        std::string a, b;
        const int l = len(rng);
        for (int i = 0; i < l; ++i) a += acgt[base(rng)];
        for (char ch : a) {
            const int p = pct(rng);
            if (p < 4) b += acgt[base(rng)];
            else if (p < 7) continue;
            else if (p < 10) { b += ch; b += acgt[base(rng)]; }
            else b += ch;
        }
        if (b.empty()) b = "A";
        q += ">q" + std::to_string(k) + "\n" + a + "\n";
        t += ">t" + std::to_string(k) + "\n" + b + "\n";
    }
    return {q, t};
}

/// `sam` without its @PG line (which holds the command line).
std::string without_pg_line(const std::string& sam) {
    const std::size_t at = sam.find("\n@PG\t");
    if (at == std::string::npos) return sam;
    return sam.substr(0, at + 1) + sam.substr(sam.find('\n', at + 1) + 1);
}

TEST_F(BadInput, OutputIsIdenticalForAnyThreadsAndBatchSizes) {
    const auto [q, t] = random_pairs(300, 42);
    write("q.fa", q);
    write("t.fa", t);
    for (const std::string mode : {"sw --format tsv", "nw --format sam", "sw --score-only"}) {
        std::string first;
        for (const std::string opts : {"--threads 1", "--threads 2", "--threads 2 --batch-pairs 1",
                                       "--threads 2 --batch-pairs 7", "--threads 1 --batch-bases 1",
                                       "--threads 2 --batch-bases 1000", "--threads 2 --batch-pairs 64 --batch-bases 5000",
                                       "--threads 2 --batch-pairs 16 --read-ahead 1", "--threads 2 --batch-pairs 16 --read-ahead 4K"}) {
            const RunResult r = run(mode + " {dir}/q.fa {dir}/t.fa --backend cpu -o {out} " + opts);
            ASSERT_EQ(r.exit_code, 0) << mode << " " << opts << ": " << r.err;
            const std::string got = without_pg_line(slurp(dir_ / "out.tsv"));
            if (first.empty()) {
                first = got;
                EXPECT_GE(lines(got), 300u);
            } else {
                EXPECT_TRUE(got == first) << mode << " " << opts << ": output differs";
            }
        }
    }
}

// Proves the 32-bit score bound of docs/scoring.md: a pair whose bound (m+n)*(max|s|+go+ge) reaches 2^30 is refused (exit 1, an error naming the pair and "32-bit", no output left), and the same shape just below it is aligned.
TEST_F(BadInput, PairReachingThe32BitScoreBoundIsRefusedClearly) {
    // There is no length cap (issue 11); --gap-open 1000 makes the bound
    // 1005 * (m + n) (DNA: max|s| = 3, ge = 2), which reaches 2^30 at
    // m + n = 1,068,400, so a ~1 Mbp query suffices.
    const auto big_query = [&](int lines_of_20k) {
        std::ofstream f(dir_ / "q.fa", std::ios::binary);
        f << ">chr_big\n";
        const std::string line(20'000, 'A');
        for (int k = 0; k < lines_of_20k; ++k) f << line << '\n';
    };
    write("t.fa", ">short\n" + std::string(100, 'A') + "\n");
    const std::string args = "sw {dir}/q.fa {dir}/t.fa --backend cpu --gap-open 1000 -o {out}";
    big_query(55);  // 1,100,000 bp: bound 1005 * 1,100,100 = 1.106e9 >= 2^30
    const RunResult r = run(args);
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("pair 1 (query chr_big, ref short)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("32-bit"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out.tsv"));
    EXPECT_EQ(stray_files({"q.fa", "t.fa"}), std::vector<std::string>{});

    big_query(53);  // 1,060,000 bp: bound 1005 * 1,060,100 = 1.065e9 < 2^30, aligned (1.06e8 cells)
    const RunResult ok = run(args);
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    const std::string out = slurp(dir_ / "out.tsv");
    EXPECT_NE(out.find("\nchr_big\t1060000\t0\t100\tshort\t100\t0\t100\t200\t100\t0\t0\t100\t1.0000\t100=\t+\n"),
              std::string::npos)
        << out;
}

TEST_F(BadInput, LargePairRunsScoreOnly) {
    const std::string a = random_pairs(1, 7, 17000, 17000).first;
    write("q.fa", a);
    write("t.fa", a);
    const RunResult r = run("sw {dir}/q.fa {dir}/t.fa --backend cpu --score-only -o {out}");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(slurp(dir_ / "out.tsv").find("q0\t17000\t0\t17000\tq0\t17000\t0\t17000\t34000\t*"), std::string::npos);
}

TEST_F(BadInput, PipeClosedEarlyExitsQuietly) {
    const auto [q, t] = random_pairs(20000, 3, 40, 60);
    write("q.fa", q);
    write("t.fa", t);
    const fs::path err = dir_ / "stderr.txt", out = dir_ / "stdout.txt";
    const pid_t pid = spawn_bash("set -o pipefail; " + std::string(GPUALIGN_BINARY) + " sw " + (dir_ / "q.fa").string() + " " +
                                 (dir_ / "t.fa").string() + " --backend cpu 2>'" + err.string() + "' | head -1 >'" +
                                 out.string() + "'");
    const RunResult r = wait_for(pid, out, err);
    EXPECT_EQ(r.out, "query\tquery_len\tquery_begin\tquery_end\tref\tref_len\tref_begin\tref_end\tscore\tmatches\t"
                     "mismatches\tgap_opens\talignment_len\tidentity\tcigar\tstrand\n");
    // Killed by SIGPIPE (bash reports 128 + 13), like cat; nothing on stderr.
    EXPECT_EQ(r.exit_code, 128 + SIGPIPE) << r.err;
    EXPECT_EQ(r.err, "");
}

TEST_F(BadInput, PipeClosedWithSigpipeIgnoredGivesOneErrorLine) {
    const auto [q, t] = random_pairs(20000, 3, 40, 60);
    write("q.fa", q);
    write("t.fa", t);
    const fs::path err = dir_ / "stderr.txt", out = dir_ / "stdout.txt";
    const pid_t pid = spawn_bash("trap '' PIPE; " + std::string(GPUALIGN_BINARY) + " sw " + (dir_ / "q.fa").string() + " " +
                                 (dir_ / "t.fa").string() + " --backend cpu 2>'" + err.string() + "' | head -1 >'" +
                                 out.string() + "'; exit ${PIPESTATUS[0]}");
    const RunResult r = wait_for(pid, out, err);
    // Like `cat` with SIGPIPE ignored: one line naming the write error, exit 1.
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("<stdout>"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Broken pipe"), std::string::npos) << r.err;
}

/// Starts gpualign reading QUERIES from a FIFO that the test keeps open after
/// writing half of the records (so the run blocks mid-input with its
/// temporary output created), sends `sig`, and checks what is left.
void interrupt_mid_run(BadInput& t, int sig) {
    const fs::path dir = t.dir_;
    const auto [q, r] = random_pairs(6000, 11, 100, 100);
    t.write("t.fa", r);
    const fs::path fifo = dir / "q.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const int keep_open = ::open(fifo.c_str(), O_RDWR);  // a reader and writer that never closes: no EOF
    ASSERT_GE(keep_open, 0);
    const int wfd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    ASSERT_GE(wfd, 0);
    const fs::path out = dir / "out.tsv", so = dir / "stdout.txt", se = dir / "stderr.txt";
    const pid_t pid = spawn_bash("exec " + std::string(GPUALIGN_BINARY) + " sw " + fifo.string() + " " +
                                 (dir / "t.fa").string() + " --backend cpu --batch-pairs 100000 -o " + out.string() +
                                 " >'" + so.string() + "' 2>'" + se.string() + "'");
    ASSERT_GT(pid, 0);
    // Feed half of the queries as gpualign reads them (bounded wait), then
    // wait (bounded) until the temporary output file exists.
    const std::string text = q.substr(0, q.size() / 2);
    std::size_t done = 0;
    for (int k = 0; k < 3000 && done < text.size(); ++k) {
        const ssize_t n = ::write(wfd, text.data() + done, text.size() - done);
        if (n > 0) done += static_cast<std::size_t>(n);
        else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(done, text.size());
    bool temp_seen = false;
    for (int k = 0; k < 600 && !temp_seen; ++k) {
        for (const auto& e : fs::directory_iterator(dir)) temp_seen |= e.path().filename().string().rfind(".out.tsv.", 0) == 0;
        if (!temp_seen) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(temp_seen) << "no temporary output file appeared";
    ::kill(pid, sig);
    const RunResult res = wait_for(pid, so, se);
    ::close(wfd);
    ::close(keep_open);
    EXPECT_EQ(res.signal, sig) << "exit code " << res.exit_code << ": " << res.err;
    EXPECT_EQ(res.err, "");
    EXPECT_EQ(t.stray_files({"t.fa", "q.fifo"}), std::vector<std::string>{});
}

TEST_F(BadInput, SigintMidRunLeavesNoTemporaryOrPartialFile) { interrupt_mid_run(*this, SIGINT); }
TEST_F(BadInput, SigtermMidRunLeavesNoTemporaryOrPartialFile) { interrupt_mid_run(*this, SIGTERM); }

}  // namespace
