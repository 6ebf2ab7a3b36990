// End-to-end tests of the `gpualign` binary: exit codes, messages, output
// files, and the error paths of the foundation issue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <random>
#include <string>

#include "cli/cli_fixture.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/model/statistics.hpp"

namespace {

namespace fs = std::filesystem;

using gpualign::test::RunResult;
using gpualign::test::slurp;

class Cli : public gpualign::test::CliTest {
protected:
    /// No file in the test directory other than the captured streams and `keep`.
    void expect_no_stray_files(std::initializer_list<std::string> keep) {
        for (const auto& e : fs::directory_iterator(dir_)) {
            const std::string name = e.path().filename().string();
            if (name == "stdout.txt" || name == "stderr.txt") continue;
            bool kept = false;
            for (const auto& k : keep) kept |= name == k;
            EXPECT_TRUE(kept) << "unexpected file left behind: " << name;
        }
    }
    static std::string data(const std::string& name) { return std::string(GPUALIGN_TEST_DATA) + "/../../data/" + name; }
};

TEST_F(Cli, HelpPrintsDefaultsFromTheConfig) {
    const auto r = run("--help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("(default DNA 5,"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(default 3)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("BLOSUM62"), std::string::npos);
}

// Issue 14, trial bug 4: the help's wording and the validation agree. The
// penalties are non-negative: 0 is accepted (linear gaps, free mismatches),
// a negative value is a command-line error (exit 2) that gives the range.
TEST_F(Cli, PenaltiesAreNonNegativeInHelpAndValidation) {
    const auto help = run("--help");
    ASSERT_EQ(help.exit_code, 0);
    EXPECT_EQ(help.out.find("positive"), std::string::npos) << help.out;
    for (const std::string opt : {"--mismatch", "--gap-open", "--gap-extend"}) {
        EXPECT_NE(help.out.find(opt.substr(2) + " arg"), std::string::npos) << opt;
        const fs::path q = write("q.fa", ">q\nACGTACGT\n>r\nACGAACGT\n");
        const fs::path out = dir_ / "zero.tsv";
        const auto zero = run("sw " + q.string() + " " + q.string() + " --backend cpu " + opt + " 0 -o " + out.string());
        EXPECT_EQ(zero.exit_code, 0) << opt << " 0: " << zero.err;
        const auto neg = run("sw " + q.string() + " " + q.string() + " --backend cpu " + opt + " -1 -o " + out.string());
        EXPECT_EQ(neg.exit_code, 2) << opt << " -1";
        EXPECT_NE(neg.err.find(opt + " is a penalty (non-negative, subtracted"), std::string::npos) << neg.err;
        EXPECT_NE(neg.err.find("it must be between 0 and 1000000, got -1"), std::string::npos) << neg.err;
    }
    const std::size_t at = help.out.find("--mismatch arg");
    ASSERT_NE(at, std::string::npos);
    EXPECT_NE(help.out.find("non-negative", at), std::string::npos) << help.out;
}

// Issue 14: an output extension of a format gpualign does not write is a
// command-line error naming what to do instead, and no file appears; with
// an explicit --format the name is the user's choice.
TEST_F(Cli, OutputExtensionOfAFormatNotWrittenIsAnError) {
    const std::string in = data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu";
    for (const auto& [name, hint] : std::vector<std::pair<std::string, std::string>>{
             {"out.bam", "samtools view -b"}, {"out.CRAM", "samtools view -b"}, {"out.tsv.gz", "gzip"},
             {"out.sam.bgz", "gzip"}, {"out.zst", "gzip"}}) {
        const auto r = run("sw " + in + " -o " + (dir_ / name).string());
        EXPECT_EQ(r.exit_code, 2) << name;
        EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(hint), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir_ / name)) << name;
    }
    const auto forced = run("sw " + in + " --format tsv -o " + (dir_ / "out.bam").string());
    EXPECT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(slurp(dir_ / "out.bam").rfind("query\tquery_len", 0), 0u);
    expect_no_stray_files({"out.bam"});
}

// Issue 14, trial bug 1: a nucleotide matrix file with IUPAC rows (EMBOSS's
// EDNAFULL) scores R against A or G +1 from its R row, end to end: 44 as
// needle gives, not N's 32; sw, nw and search agree, the scalar and SIMD
// kernels write the same bytes, SAM SEQ keeps the letters, and the default
// match/mismatch scheme still reads the ambiguity codes as N (2 x 8 - 3 x 4).
TEST_F(Cli, NucleotideMatrixFileScoresIupacCodesFromItsRows) {
    const std::string ednafull = std::string(GPUALIGN_TEST_DATA) + "/io/ednafull.mat";
    const fs::path q = write("q.fa", ">q1\nACGTRRRRACGT\n>q2\nacgtyyyyacgt\n");
    const fs::path r = write("r.fa", ">r1\nACGTAAGGACGT\n>r2\nACGTCCTTACGT\n");
    const std::string files = q.string() + " " + r.string() + " --backend cpu --threads 4 ";
    const std::string with_matrix = files + "--matrix " + ednafull + " --gap-open 10 --gap-extend 1 ";
    for (const std::string mode : {"nw", "sw", "sg"}) {
        const auto simd = run(mode + " " + with_matrix + "-o " + (dir_ / "simd.tsv").string());
        ASSERT_EQ(simd.exit_code, 0) << simd.err;
        const auto rows = gpualign::test::rows(slurp(dir_ / "simd.tsv"));
        ASSERT_EQ(rows.size(), 3u);
        for (std::size_t k = 1; k < rows.size(); ++k) {
            EXPECT_EQ(rows[k][8], "44") << mode << " row " << k;
            EXPECT_EQ(rows[k][14], "4=4X4=") << mode << " row " << k;  // cigar (strand follows it)
        }
        const auto scalar = run(mode + " " + with_matrix + "--cpu-kernel scalar -o " + (dir_ / "scalar.tsv").string());
        ASSERT_EQ(scalar.exit_code, 0) << scalar.err;
        EXPECT_EQ(slurp(dir_ / "scalar.tsv"), slurp(dir_ / "simd.tsv")) << mode;
    }
    const auto sam = run("nw " + with_matrix + "-o " + (dir_ / "out.sam").string());
    ASSERT_EQ(sam.exit_code, 0) << sam.err;
    std::vector<std::string> seqs;
    for (const auto& row : gpualign::test::rows(slurp(dir_ / "out.sam")))
        if (!row.empty() && row[0][0] != '@') seqs.push_back(row[9]);
    EXPECT_EQ(seqs, (std::vector<std::string>{"ACGTRRRRACGT", "ACGTYYYYACGT"}));

    const auto hits = run("search " + with_matrix + "-o " + (dir_ / "hits.tsv").string());
    ASSERT_EQ(hits.exit_code, 0) << hits.err;
    const auto hit_rows = gpualign::test::rows(slurp(dir_ / "hits.tsv"));
    ASSERT_GE(hit_rows.size(), 2u);
    const auto score_col = std::find(hit_rows[0].begin(), hit_rows[0].end(), "score") - hit_rows[0].begin();
    ASSERT_LT(static_cast<std::size_t>(score_col), hit_rows[0].size());
    EXPECT_EQ(hit_rows[1][0], "q1");
    EXPECT_EQ(hit_rows[1][4], "r1");
    EXPECT_EQ(hit_rows[1][static_cast<std::size_t>(score_col)], "44");

    const auto plain = run("nw " + files + "-o " + (dir_ / "default.tsv").string());
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const auto plain_rows = gpualign::test::rows(slurp(dir_ / "default.tsv"));
    ASSERT_EQ(plain_rows.size(), 3u);
    EXPECT_EQ(plain_rows[1][8], "4");
    EXPECT_EQ(plain_rows[2][8], "4");
}

// Issue 14, trial bug 5: an unknown command word is named, with the
// commands, before any option is judged against it (the trial's `--mode`
// message) and before the argument count.
TEST_F(Cli, UnknownSubcommandIsNamedWithTheSubcommands) {
    const fs::path q = write("q.fa", ">q\nACGT\n");
    for (const std::string args : {"align " + q.string() + " " + q.string() + " --mode global",
                                   "align " + q.string() + " " + q.string(), "align " + q.string()}) {
        const auto r = run(args);
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_NE(r.err.find("the command must be one of sw|nw|sg|search|makedb, got 'align'"), std::string::npos)
            << r.err;
        EXPECT_EQ(r.err.find("--mode"), std::string::npos) << r.err;
    }
}

// Issue 14, trial bug 2: a 20 x 20 protein matrix file (BLOSUM62's core,
// no B, Z, X) aligns sequences of the 20 amino acids exactly as BLOSUM62
// does; a B in record 2 is an input error naming the file, the record and
// the position, and no output file appears.
TEST_F(Cli, TwentyByTwentyMatrixFileScoresItsLettersAndRejectsOthersWhereUsed) {
    const std::string twenty = "ARNDCQEGHILKMFPSTWYV";
    const gpualign::ScoringScheme b62 = gpualign::make_protein_scheme("BLOSUM62", 11, 1);
    std::string text = "  ";
    for (const char c : twenty) text += std::string("  ") + c;
    text += "\n";
    const std::string letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ*";  // aa27 code order
    for (const char r : twenty) {
        text += r;
        for (const char c : twenty)
            text += " " + std::to_string(b62.score(static_cast<std::uint8_t>(letters.find(r)),
                                                   static_cast<std::uint8_t>(letters.find(c))));
        text += "\n";
    }
    const fs::path mat = write("core20.mat", text);
    const fs::path q = write("q.fa", ">q1\nMKVLAAGIVGLLLAQPAMA\n>q2\nMSTNPKPQRKTKRNTNRRPQDVKFPGG\n");
    const fs::path r = write("r.fa", ">r1\nMKVLSAGIVALLLAHPAMA\n>r2\nMSTNPKPQRKTKRNTNRRPEDVKFPG\n");
    const fs::path with_file = dir_ / "file.tsv", with_builtin = dir_ / "builtin.tsv";
    const auto a = run("sw " + q.string() + " " + r.string() + " --backend cpu --matrix " + mat.string() + " -o " +
                       with_file.string());
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const auto b = run("sw " + q.string() + " " + r.string() + " --backend cpu --matrix BLOSUM62 -o " +
                       with_builtin.string());
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(slurp(with_file), slurp(with_builtin));
    const fs::path rb = write("rb.fa", ">r1\nMKVLSAGIVALLLAHPAMA\n>r2\nMSTNPKPQRKBKRNTNRRPEDVKFPG\n");
    const fs::path out = dir_ / "bad.tsv";
    const auto c = run("sw " + q.string() + " " + rb.string() + " --backend cpu --matrix " + mat.string() + " -o " +
                       out.string());
    EXPECT_EQ(c.exit_code, 1);
    EXPECT_NE(c.err.find(rb.string() + ": record 2 'r2': letter 'B' at position 11 is not in matrix"), std::string::npos)
        << c.err;
    EXPECT_FALSE(fs::exists(out));
    // The same in search, where rb.fa is the DB.
    const fs::path hits = dir_ / "hits.tsv";
    const auto d = run("search " + q.string() + " " + rb.string() + " --backend cpu --matrix " + mat.string() + " -o " +
                       hits.string());
    EXPECT_EQ(d.exit_code, 1);
    EXPECT_NE(d.err.find(rb.string() + ": record 2 'r2': letter 'B' at position 11"), std::string::npos) << d.err;
    EXPECT_FALSE(fs::exists(hits));
    const auto e = run("search " + q.string() + " " + r.string() + " --backend cpu --matrix " + mat.string() + " -o " +
                       hits.string());
    EXPECT_EQ(e.exit_code, 0) << e.err;
}

// Issue 14: the man page (help2man, built beside the binary and installed
// by cmake --install) has the subcommands, every option group and the
// version line. Skips only where the build made none (help2man missing).
TEST_F(Cli, ManPageHasTheSubcommandsAndOptions) {
    const fs::path man = GPUALIGN_MAN_PAGE;
    if (!fs::exists(man)) GTEST_SKIP() << "no man page at " << man << " (help2man missing)";
    const std::string text = slurp(man);
    EXPECT_NE(text.find(".TH GPUALIGN \"1\""), std::string::npos) << text.substr(0, 300);
    for (const std::string want : {"gpualign sw", "gpualign search", "\\-\\-cigar", "\\-\\-format", "\\-\\-gpu\\-memory",
                                   "\\-\\-max\\-hits", "gpualign 0."})
        EXPECT_NE(text.find(want), std::string::npos) << want;
}

TEST_F(Cli, VersionPrintsVersion) {
    const auto r = run("--version");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out.rfind("gpualign ", 0), 0u) << r.out;
    // Issue 14: the commit, the CUDA build (or its absence) and the CPU kernels.
    EXPECT_NE(r.out.find("(commit "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nGPU backend: "), std::string::npos) << r.out;
    EXPECT_TRUE(r.out.find("CUDA runtime ") != std::string::npos || r.out.find("built without CUDA") != std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\nCPU backend: "), std::string::npos) << r.out;
    // Issue 13: the SIMD target picked on this CPU and those compiled in.
    EXPECT_NE(r.out.find("this CPU: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("compiled and supported: "), std::string::npos) << r.out;
}

TEST_F(Cli, BatchRunProgressLineGoesToStderrOnlyWhenAsked) {
    // Issue 14: the run's line "aligned N pairs, X Gcells, Y GCUPS, Ts" after
    // each batch (stderr here is a file: a line each, no '\r'); never on
    // stdout or in the output; off by default when stderr is not a terminal.
    const std::string base = "sw " + data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu --batch-pairs 50";
    const auto shown = run(base + " --progress always -o " + (dir_ / "a.tsv").string());
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_TRUE(shown.err.starts_with("aligned 50 pairs, ")) << shown.err;
    EXPECT_NE(shown.err.find("\naligned 200 pairs, "), std::string::npos) << shown.err;
    EXPECT_EQ(shown.err.find('\r'), std::string::npos) << shown.err;
    EXPECT_NE(shown.err.find(" GCUPS, "), std::string::npos) << shown.err;
    const auto quiet = run(base + " -o " + (dir_ / "b.tsv").string());  // auto, stderr a file
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.err.find("aligned 200 pairs"), std::string::npos) << quiet.err;
    EXPECT_EQ(slurp(dir_ / "a.tsv"), slurp(dir_ / "b.tsv"));
    const auto to_stdout = run(base + " --progress always");
    ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
    EXPECT_EQ(to_stdout.out, slurp(dir_ / "a.tsv"));
    EXPECT_EQ(to_stdout.out.find("aligned"), std::string::npos);
}

TEST_F(Cli, DevicesOptionIsCheckedBeforeAnyWork) {
    // Issue 15: --devices all|LIST; a bad list or --device beside it is a
    // command-line error (exit 2) naming the option, before any input is read.
    const std::string pair = "sw " + data("reads.fa") + " " + data("ref_windows.fa") + " -o " + (dir_ / "o.tsv").string();
    for (const std::string bad : {"0,x", "-1", "0,,1", "", "all,0"}) {
        const auto r = run(pair + " --devices '" + bad + "'");
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("--devices '" + bad + "'"), std::string::npos) << r.err;
    }
    const auto both = run(pair + " --device 1 --devices 0");
    EXPECT_EQ(both.exit_code, 2) << both.err;
    EXPECT_NE(both.err.find("--device and --devices conflict"), std::string::npos) << both.err;
    EXPECT_FALSE(fs::exists(dir_ / "o.tsv"));
    const auto help = run("--help");
    EXPECT_NE(help.out.find("--devices"), std::string::npos);
    // On the CPU backend the list of GPUs plays no part: the same bytes.
    const auto cpu = run(pair + " --backend cpu --devices 0,1");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    const std::string with = slurp(dir_ / "o.tsv");
    ASSERT_EQ(run(pair + " --backend cpu").exit_code, 0);
    EXPECT_EQ(with, slurp(dir_ / "o.tsv"));
    EXPECT_FALSE(with.empty());
}

TEST_F(Cli, CpuKernelsSimdAndScalarWriteTheSameBytes) {
    // Issue 13: --cpu-kernel simd (the default) and scalar, every output
    // format and both modes, with and without CIGAR, on the bundled pairs.
    for (const std::string mode : {"sw", "nw", "sg"})
        for (const std::string extra : {"", " --score-only", " --format sam", " --format paf", " --format blast6"}) {
            const std::string base = mode + " " + data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu" + extra;
            const auto simd = run(base + " --cpu-kernel simd -o " + (dir_ / "simd.out").string());
            const auto scalar = run(base + " --cpu-kernel scalar -o " + (dir_ / "scalar.out").string());
            ASSERT_EQ(simd.exit_code, 0) << simd.err;
            ASSERT_EQ(scalar.exit_code, 0) << scalar.err;
            std::string a = slurp(dir_ / "simd.out"), b = slurp(dir_ / "scalar.out");
            // SAM's @PG line holds the command line, which names the kernel.
            const auto drop_pg = [](std::string t) {
                const auto at = t.find("\n@PG\t");
                if (at != std::string::npos) t.erase(at + 1, t.find('\n', at + 1) - at);
                return t;
            };
            EXPECT_FALSE(a.empty()) << base;
            EXPECT_EQ(drop_pg(a), drop_pg(b)) << base;
            EXPECT_NE(simd.err.find("simd"), std::string::npos) << simd.err;
            EXPECT_NE(scalar.err.find("scalar"), std::string::npos) << scalar.err;
        }
    const auto bad = run("sw " + data("reads.fa") + " " + data("ref_windows.fa") + " --cpu-kernel avx9");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("cpu-kernel"), std::string::npos) << bad.err;
}

TEST_F(Cli, LocalTsvOnBundledExample) {
    const fs::path out = dir_ / "out.tsv";
    const auto r = run("sw " + data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line,
              "query\tquery_len\tquery_begin\tquery_end\tref\tref_len\tref_begin\tref_end\tscore\tmatches\tmismatches\t"
              "gap_opens\talignment_len\tidentity\tcigar\tstrand");
    int rows = 0;
    while (std::getline(in, line)) ++rows;
    EXPECT_EQ(rows, 200);
    EXPECT_NE(r.err.find("GCUPS"), std::string::npos) << r.err;
    expect_no_stray_files({"out.tsv"});
}

TEST_F(Cli, SamFromExtensionPassesSamtools) {
    if (std::system("samtools --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "samtools not installed";
    const fs::path out = dir_ / "out.sam";
    const auto r = run("nw " + data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(slurp(out).rfind("@HD\tVN:", 0), 0u);
    EXPECT_EQ(std::system(("samtools quickcheck -u " + out.string()).c_str()), 0);
    EXPECT_EQ(std::system(("samtools view -c " + out.string() + " > " + (dir_ / "count").string()).c_str()), 0);
    EXPECT_EQ(std::stoi(slurp(dir_ / "count")), 200);
}

/// The records of a SAM file (header lines dropped).
std::string sam_records(const std::string& text) {
    std::istringstream in(text);
    std::string out;
    for (std::string line; std::getline(in, line);)
        if (line.rfind('@', 0) != 0) out += line + '\n';
    return out;
}

// Issue 14: every aligned record carries MD:Z, and `samtools calmd` (which
// recomputes MD and NM from the reference) changes no record, in sw and nw,
// with = / X CIGARs and with --cigar m, whose CIGARs hold M (and I, D, S)
// only and otherwise equal the default's run for run.
TEST_F(Cli, SamMdTagsAreWhatSamtoolsCalmdComputes) {
    if (std::system("samtools --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "samtools not installed";
    fs::copy_file(data("ref_windows.fa"), dir_ / "ref.fa");  // calmd writes ref.fa.fai beside it
    const std::string ref = (dir_ / "ref.fa").string();
    for (const std::string mode : {"sw", "nw", "sg"})
        for (const std::string cigar : {"eqx", "m"}) {
            const fs::path out = dir_ / (mode + cigar + ".sam"), fixed = dir_ / (mode + cigar + ".calmd.sam");
            const auto r = run(mode + " " + data("reads.fa") + " " + ref + " --backend cpu --cigar " + cigar + " -o " +
                               out.string());
            ASSERT_EQ(r.exit_code, 0) << r.err;
            const std::string ours = sam_records(slurp(out));
            ASSERT_EQ(std::system(("samtools calmd " + out.string() + " " + ref + " > " + fixed.string() + " 2>/dev/null")
                                      .c_str()),
                      0);
            EXPECT_EQ(sam_records(slurp(fixed)), ours) << mode << " --cigar " << cigar;
            std::istringstream lines(ours);
            int with_md = 0;
            for (std::string line; std::getline(lines, line);) {
                const std::vector<std::string> f = gpualign::test::split(line, '\t');
                ASSERT_GE(f.size(), 11u);
                if (f[1] == "4") continue;
                with_md += line.find("\tMD:Z:") != std::string::npos;
                EXPECT_EQ(f[5].find_first_of(cigar == "m" ? "=X" : "M"), std::string::npos) << f[5];
            }
            EXPECT_EQ(with_md, 200) << mode << " --cigar " << cigar;
        }
    EXPECT_EQ(run("sw " + data("reads.fa") + " " + ref + " --cigar x").exit_code, 2);
}

// Issue 14: `gpualign sg` fits each read into its window: every SAM record
// covers the whole read (no soft clip), and no CIGAR starts or ends with D,
// where nw's do on the same pairs (the trial's GoodCigarReadFilter problem).
TEST_F(Cli, SgSamRecordsCoverTheReadAndNeverStartOrEndWithD) {
    auto count = [&](const std::string& mode, int& clipped, int& end_d) {
        const fs::path out = dir_ / (mode + ".sam");
        const auto r = run(mode + " " + data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu -o " +
                           out.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        std::istringstream lines(sam_records(slurp(out)));
        int records = 0;
        for (std::string line; std::getline(lines, line);) {
            const std::vector<std::string> f = gpualign::test::split(line, '\t');
            ASSERT_GE(f.size(), 11u);
            ++records;
            const std::string& cigar = f[5];
            clipped += cigar.find('S') != std::string::npos;
            const std::size_t first_op = cigar.find_first_not_of("0123456789");
            end_d += cigar[first_op] == 'D' || cigar.back() == 'D';
        }
        EXPECT_EQ(records, 200) << mode;
    };
    int sg_clipped = 0, sg_end_d = 0, nw_clipped = 0, nw_end_d = 0, sw_clipped = 0, sw_end_d = 0;
    count("sg", sg_clipped, sg_end_d);
    count("nw", nw_clipped, nw_end_d);
    count("sw", sw_clipped, sw_end_d);
    EXPECT_EQ(sg_clipped, 0);
    EXPECT_EQ(sg_end_d, 0);
    EXPECT_GT(nw_end_d, 0);     // the windows overhang the reads: nw pays for them as D
    EXPECT_GT(sw_clipped, 0);   // sw soft-clips read ends
}

// Issue 14: PAF (.paf or --format paf) has minimap2's 12 columns plus
// NM:i, AS:i and cg:Z, each consistent with the TSV of the same pairs
// (0-based coordinates, strand '+', matches and block length from the
// CIGAR, MAPQ 255), and cg:Z replays to the coordinates and counts.
TEST_F(Cli, PafColumnsAgreeWithTheTsvAndCigarsReplay) {
    for (const std::string mode : {"sw", "nw", "sg"}) {
        const fs::path tsv = dir_ / (mode + ".tsv"), paf = dir_ / (mode + ".paf");
        const std::string in = data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu";
        ASSERT_EQ(run(mode + " " + in + " -o " + tsv.string()).exit_code, 0);
        const auto r = run(mode + " " + in + " -o " + paf.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto t = gpualign::test::rows(slurp(tsv)), p = gpualign::test::rows(slurp(paf));
        ASSERT_EQ(t.size(), 201u);  // header and 200 rows
        ASSERT_EQ(p.size(), 200u);
        for (std::size_t k = 0; k < 200; ++k) {
            const auto& tf = t[k + 1];
            const auto& pf = p[k];
            ASSERT_EQ(pf.size(), 15u) << "PAF row " << k;
            // qname qlen qstart qend strand tname tlen tstart tend nmatch alnlen mapq
            EXPECT_EQ(pf[0], tf[0]);
            EXPECT_EQ(pf[1], tf[1]);
            EXPECT_EQ(pf[2], tf[2]);
            EXPECT_EQ(pf[3], tf[3]);
            EXPECT_EQ(pf[4], "+");
            EXPECT_EQ(pf[5], tf[4]);
            EXPECT_EQ(pf[6], tf[5]);
            EXPECT_EQ(pf[7], tf[6]);
            EXPECT_EQ(pf[8], tf[7]);
            EXPECT_EQ(pf[9], tf[9]);    // matches
            EXPECT_EQ(pf[10], tf[12]);  // alignment_len
            EXPECT_EQ(pf[11], "255");
            EXPECT_EQ(pf[12], "NM:i:" + std::to_string(std::stoll(tf[12]) - std::stoll(tf[9])));  // columns - matches
            EXPECT_EQ(pf[13], "AS:i:" + tf[8]);
            ASSERT_EQ(pf[14].rfind("cg:Z:", 0), 0u);
            const std::string cg = pf[14].substr(5);
            EXPECT_EQ(cg, tf[14]);
            std::int64_t qspan = 0, tspan = 0, eq = 0, cols = 0;
            for (std::size_t i = 0; i < cg.size();) {
                std::size_t j = i;
                while (j < cg.size() && std::isdigit(static_cast<unsigned char>(cg[j]))) ++j;
                const std::int64_t n = std::stoll(cg.substr(i, j - i));
                const char op = cg[j];
                if (op != 'D') qspan += n;
                if (op != 'I') tspan += n;
                if (op == '=') eq += n;
                cols += n;
                i = j + 1;
            }
            EXPECT_EQ(qspan, std::stoll(pf[3]) - std::stoll(pf[2])) << cg;
            EXPECT_EQ(tspan, std::stoll(pf[8]) - std::stoll(pf[7])) << cg;
            EXPECT_EQ(eq, std::stoll(pf[9])) << cg;
            EXPECT_EQ(cols, std::stoll(pf[10])) << cg;
        }
    }
    const fs::path m = dir_ / "m.paf";
    ASSERT_EQ(run("sw " + data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu --cigar m -o " + m.string())
                  .exit_code,
              0);
    const std::string first = gpualign::test::split(slurp(m), '\n')[0];
    EXPECT_EQ(first.substr(first.find("cg:Z:")).find_first_of("=X"), std::string::npos) << first;
    EXPECT_EQ(run("sw " + data("reads.fa") + " " + data("ref_windows.fa") + " --score-only -o " + m.string()).exit_code, 2);
    EXPECT_EQ(run("search " + data("reads.fa") + " " + data("ref_windows.fa") + " -o " + m.string()).exit_code, 2);
}

// Issue 14: BLAST tabular output of pairs (sw/nw, .m8 or --format
// blast6): the 12 columns agree with the TSV of the same pairs (1-based
// inclusive coordinates, pident = 100 x matches / columns, gap opens),
// E-values and bit scores use the pair's two lengths (bl2seq) where the
// scheme has published parameters, NA (with one warning) otherwise.
TEST_F(Cli, Blast6OfPairsAgreesWithTheTsv) {
    const std::string in = data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu";
    const fs::path tsv = dir_ / "p.tsv", m8 = dir_ / "p.m8";
    ASSERT_EQ(run("sw " + in + " -o " + tsv.string()).exit_code, 0);
    const auto r = run("sw " + in + " -o " + m8.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("are NA"), std::string::npos) << r.err;  // DNA 2/-3 5/2 has published parameters
    const auto t = gpualign::test::rows(slurp(tsv)), b = gpualign::test::rows(slurp(m8));
    ASSERT_EQ(t.size(), 201u);  // header and 200 rows
    ASSERT_EQ(b.size(), 200u);
    for (std::size_t k = 0; k < 200; ++k) {
        const auto& tf = t[k + 1];
        const auto& bf = b[k];
        ASSERT_EQ(bf.size(), 12u) << "blast6 row " << k;
        EXPECT_EQ(bf[0], tf[0]);
        EXPECT_EQ(bf[1], tf[4]);
        EXPECT_NEAR(std::stod(bf[2]), 100.0 * std::stod(tf[9]) / std::stod(tf[12]), 0.0006);
        EXPECT_EQ(bf[3], tf[12]);                                 // length: alignment columns
        EXPECT_EQ(bf[4], tf[10]);                                 // mismatches
        EXPECT_EQ(bf[5], tf[11]);                                 // gap opens
        EXPECT_EQ(std::stoll(bf[6]), std::stoll(tf[2]) + 1);      // qstart, 1-based
        EXPECT_EQ(bf[7], tf[3]);                                  // qend, inclusive
        EXPECT_EQ(std::stoll(bf[8]), std::stoll(tf[6]) + 1);      // sstart
        EXPECT_EQ(bf[9], tf[7]);                                  // send
        EXPECT_NE(bf[10], "NA");
        EXPECT_NE(bf[11], "NA");
    }
    // The first pair's statistics, from the published DNA 2/-3 (5/2) parameters.
    const auto& f0 = b[0];
    const auto& t0 = t[1];
    const auto ka = gpualign::karlin_altschul(gpualign::make_dna_scheme(2, 3, 5, 2, -3));
    ASSERT_TRUE(ka.has_value());
    EXPECT_EQ(f0[10], gpualign::format_evalue(gpualign::evalue(*ka, std::stoi(t0[8]), std::stoull(t0[1]),
                                                               std::stoull(t0[5]), {std::stoull(t0[5]), 1})));
    EXPECT_EQ(f0[11], gpualign::format_bit_score(gpualign::bit_score(*ka, std::stoi(t0[8]))));
    // Global: no statistics, NA and one warning line.
    const auto g = run("nw " + in + " --format blast6 -o " + m8.string());
    ASSERT_EQ(g.exit_code, 0) << g.err;
    EXPECT_NE(g.err.find("E-values and bit scores are NA"), std::string::npos) << g.err;
    const auto gf = gpualign::test::rows(slurp(m8)).at(0);
    ASSERT_EQ(gf.size(), 12u);
    EXPECT_EQ(gf[10], "NA");
    EXPECT_EQ(gf[11], "NA");
}

// Issue 14: protein to SAM gets one warning line (BAM turns protein letters
// into N); DNA to SAM and protein to TSV get none.
TEST_F(Cli, ProteinToSamWarnsOnce) {
    const auto protein = run("sw " + data("orthologs_cow.fa") + " " + data("orthologs_pig.fa") +
                             " --backend cpu -o " + (dir_ / "p.sam").string());
    ASSERT_EQ(protein.exit_code, 0) << protein.err;
    const std::string warning = "BAM and CRAM store SEQ as nucleotide codes";
    const std::size_t at = protein.err.find(warning);
    EXPECT_NE(at, std::string::npos) << protein.err;
    EXPECT_EQ(protein.err.find(warning, at + 1), std::string::npos) << protein.err;
    const auto tsv = run("sw " + data("orthologs_cow.fa") + " " + data("orthologs_pig.fa") + " --backend cpu -o " +
                         (dir_ / "p.tsv").string());
    EXPECT_EQ(tsv.err.find(warning), std::string::npos) << tsv.err;
    const auto dna = run("sw " + data("reads.fa") + " " + data("ref_windows.fa") + " --backend cpu -o " +
                         (dir_ / "d.sam").string());
    EXPECT_EQ(dna.err.find(warning), std::string::npos) << dna.err;
}

TEST_F(Cli, StdoutWhenNoOutputGiven) {
    const auto q = write("q.fa", ">q1\nACGTACGTAC\n");
    const auto t = write("t.fa", ">t1\nACGTACGTAC\n");
    const auto r = run("nw " + q.string() + " " + t.string() + " --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("q1\t10\t0\t10\tt1\t10\t0\t10\t20\t10\t0\t0\t10\t1.0000\t10="), std::string::npos) << r.out;
}

TEST_F(Cli, ProteinOrthologsWithBlosum62) {
    const fs::path out = dir_ / "p.tsv";
    const auto r = run("sw " + data("orthologs_cow.fa") + " " + data("orthologs_pig.fa") + " --backend cpu -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(out);
    std::string line;
    int rows = -1;
    while (std::getline(in, line)) ++rows;
    EXPECT_EQ(rows, 37);
}

struct BadCase {
    const char* name;
    std::string args_after_files;  // extra options
    const char* query;             // file contents, or nullptr for "missing file"
    const char* ref;
    int exit_code;
    const char* message;  // substring expected on stderr
};

class CliBadInput : public Cli, public ::testing::WithParamInterface<BadCase> {};

TEST_P(CliBadInput, FailsWithMessageAndNoOutput) {
    const BadCase& c = GetParam();
    const std::string q = c.query ? write("q.fa", c.query).string() : (dir_ / "missing.fa").string();
    const std::string t = c.ref ? write("t.fa", c.ref).string() : (dir_ / "missing.fa").string();
    const fs::path out = dir_ / "out.tsv";
    // A case that names its own output replaces the default one.
    const bool own_output = c.args_after_files.rfind("-o ", 0) == 0;
    const auto r = run("sw " + q + " " + t + " --backend cpu " + (own_output ? "" : "-o " + out.string() + " ") +
                       c.args_after_files);
    EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "stderr was: " << r.err;
    EXPECT_FALSE(fs::exists(out));
    expect_no_stray_files({"q.fa", "t.fa"});
}

INSTANTIATE_TEST_SUITE_P(
    Foundation, CliBadInput,
    ::testing::Values(
        BadCase{"missing_file", "", nullptr, ">t\nACGT\n", 1, "missing.fa"},
        BadCase{"empty_file", "", "", ">t\nACGT\n", 1, "q.fa"},
        BadCase{"not_fasta", "", "hello world\n", ">t\nACGT\n", 1, "q.fa"},
        // (A zero-length sequence is a sequence: InputCli.ZeroLengthSequencesAlignAsTheScoringModelSays.)
        BadCase{"digit_in_sequence", "", ">q1\nAC1T\n>q2\nACGT\n", ">t\nACGT\n>t2\nACGT\n", 1, "'1' at position 3"},
        BadCase{"bad_character", "--alphabet dna", ">q1\nACGT\n>q2\nAC!T\n", ">t\nACGT\n>t2\nACGT\n", 1, "position 3"},
        BadCase{"count_mismatch", "", ">q1\nACGT\n>q2\nACGT\n", ">t\nACGT\n", 1, "has 2 records but REFS"},
        BadCase{"negative_penalty", "--gap-open -1", ">q\nACGT\n", ">t\nACGT\n", 2, "--gap-open"},
        BadCase{"unknown_matrix", "--alphabet protein --matrix NOPE62", ">q\nMKV\n", ">t\nMKV\n", 2, "NOPE62"},
        BadCase{"mixed_alphabets", "", ">q\nACGTACGTACGT\n", ">t\nMKVLWEEQRRPP\n", 1, "--alphabet"},
        BadCase{"bad_mode", "--format xml", ">q\nACGT\n", ">t\nACGT\n", 2, "--format"},
        BadCase{"unwritable_output_dir", "-o /nonexistent_dir/out.tsv", ">q\nACGT\n", ">t\nACGT\n", 1, "/nonexistent_dir"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST_F(Cli, TruncatedGzipIsAnError) {
    const fs::path plain = write("q.fa", ">q1\nACGTACGTACGTACGTACGTACGTACGTACGTACGT\n>q2\nACGTACGTACGTACGTACGTACGTACGTACGT\n");
    ASSERT_EQ(std::system(("gzip -kf " + plain.string()).c_str()), 0);
    const fs::path gz = dir_ / "q.fa.gz";
    const auto size = fs::file_size(gz);
    fs::resize_file(gz, size - 12);
    const auto t = write("t.fa", ">t1\nACGT\n>t2\nACGT\n");
    const fs::path out = dir_ / "out.tsv";
    const auto r = run("sw " + gz.string() + " " + t.string() + " --backend cpu -o " + out.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("q.fa.gz"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, GzipInputGivesSameOutputAsPlain) {
    const auto q = write("q.fa", ">q1\nACGTTGCAACGT\n>q2\nGGGTTTAAACCC\n");
    const auto t = write("t.fa", ">t1\nACGTGCAACGT\n>t2\nGGGTTAAACCCA\n");
    ASSERT_EQ(std::system(("gzip -kf " + q.string()).c_str()), 0);
    const auto a = run("sw " + q.string() + " " + t.string() + " --backend cpu");
    const auto b = run("sw " + q.string() + ".gz " + t.string() + " --backend cpu");
    ASSERT_EQ(a.exit_code, 0);
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(a.out, b.out);
}

TEST_F(Cli, BackendGpuWithoutDeviceIsAClearError) {
    const auto q = write("q.fa", ">q\nACGT\n");
    const auto r = run("sw " + q.string() + " " + q.string() + " --backend gpu -o " + (dir_ / "o.tsv").string());
    if (r.exit_code == 0) GTEST_SKIP() << "a CUDA device is visible";
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "o.tsv"));
}

// The CUDA hardware queues the CLI asks for (cuda_hardware_queues): 1 for a
// single pair, the batch engine's streams (at least 4) for more, and a value
// the user set is kept. -v names them whatever the device (none here). The
// single pair is above the size that --backend auto aligns on the CPU
// without CUDA (runs_small_pair_on_cpu), which a small pair shows.
TEST_F(Cli, CudaHardwareQueuesFollowTheInputAndTheUser) {
    std::mt19937 rng(5);
    std::string a(9000, 'A'), b;
    for (char& c : a) c = "ACGT"[rng() % 4];
    b = a.substr(100) + a.substr(0, 100);
    const auto q1 = write("q1.fa", ">q\n" + a + "\n"), r1 = write("r1.fa", ">r\n" + b + "\n");
    const auto q2 = write("q2.fa", ">q1\nACGTTGCAACGT\n>q2\nGGGTTTAAACCC\n");
    const auto r2 = write("r2.fa", ">r1\nACGTGCAACGT\n>r2\nGGGTTAAACCCA\n");
    const std::string tail = " --backend auto -v -o " + (dir_ / "o.tsv").string();
    const std::string queues = "CUDA hardware queues per device: ";
    const char* saved = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    const std::string keep = saved ? saved : "";
    ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");

    const auto one = run("nw " + q1.string() + " " + r1.string() + tail);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_NE(one.err.find(queues + "1 "), std::string::npos) << one.err;
    const auto two = run("nw " + q2.string() + " " + r2.string() + tail);
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_EQ(two.err.find(queues + "1 "), std::string::npos) << two.err;
    EXPECT_NE(two.err.find(queues), std::string::npos) << two.err;
    const auto cpu = run("nw " + q1.string() + " " + r1.string() + " --backend cpu -v -o " + (dir_ / "o.tsv").string());
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_EQ(cpu.err.find(queues), std::string::npos) << cpu.err;  // no CUDA asked for

    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "3", 1);
    const auto user = run("nw " + q1.string() + " " + r1.string() + tail);
    if (saved) ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", keep.c_str(), 1);
    else ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    ASSERT_EQ(user.exit_code, 0) << user.err;
    EXPECT_NE(user.err.find(queues + "3 "), std::string::npos) << user.err;

    const auto qs = write("qs.fa", ">q\nACGTTGCAACGT\n"), rs = write("rs.fa", ">r\nACGTGCAACGT\n");
    const auto small = run("nw " + qs.string() + " " + rs.string() + tail);
    ASSERT_EQ(small.exit_code, 0) << small.err;
    EXPECT_NE(small.err.find("one pair of at most 67108864 DP cells: the CPU backend"), std::string::npos) << small.err;
    EXPECT_EQ(small.err.find(queues), std::string::npos) << small.err;  // CUDA not started
    EXPECT_EQ(small.err.find("no CUDA device"), std::string::npos) << small.err;
}

}  // namespace
