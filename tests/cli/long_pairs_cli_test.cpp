// Long pairs through the `gpualign` binary on the CPU backend (issue 11):
// pairs above full_matrix_cells take the long-pair path (align_pair_long on
// every thread, outside the per-pair loop) with the full matrix's bytes; the
// progress line (--progress) and its text.
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "fasta_text.hpp"
#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/pipeline/progress.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using gpualign::AlignmentResult;
using gpualign::test::mutate;
using gpualign::test::random_dna;
using gpualign::AlignMode;

using gpualign::test::RunResult;
using gpualign::test::slurp;
using gpualign::test::split;

/// The TSV columns that the alignment determines: query_begin, query_end,
/// ref_begin, ref_end, score, matches, mismatches, gap_opens,
/// alignment_len and the CIGAR (names, lengths and identity left out).
std::string expected_columns(const AlignmentResult& r) {
    const gpualign::CigarStats st = gpualign::cigar_stats(r.cigar);
    std::ostringstream o;
    o << r.query_begin << '\t' << r.query_end << '\t' << r.ref_begin << '\t' << r.ref_end << '\t' << r.score << '\t'
      << st.matches << '\t' << st.mismatches << '\t' << st.gap_opens << '\t' << st.alignment_len() << '\t'
      << gpualign::cigar_string(r.cigar);
    return o.str();
}

std::string got_columns(const std::string& row) {
    const std::vector<std::string> f = split(row, '\t');
    if (f.size() != 16 || f[15] != "+") return "bad row: " + row;  // the 15 alignment columns and strand (plus)
    return f[2] + '\t' + f[3] + '\t' + f[6] + '\t' + f[7] + '\t' + f[8] + '\t' + f[9] + '\t' + f[10] + '\t' + f[11] +
           '\t' + f[12] + '\t' + f[14];
}

/// The data rows of a TSV (header dropped).
std::vector<std::string> rows(const std::string& tsv) {
    std::vector<std::string> out = split(tsv, '\n');
    if (!out.empty() && out.back().empty()) out.pop_back();
    if (!out.empty()) out.erase(out.begin());
    return out;
}

class LongPairsCli : public gpualign::test::CliTest {
protected:
    /// Writes FASTA records named prefix0, prefix1, ... and returns the path.
    fs::path write_fasta(const std::string& file, const std::string& prefix, const std::vector<std::string>& seqs) {
        const fs::path p = dir_ / file;
        std::ofstream f(p, std::ios::binary);
        for (std::size_t k = 0; k < seqs.size(); ++k) {
            f << '>' << prefix << k << '\n';
            for (std::size_t at = 0; at < seqs[k].size(); at += 80) f << seqs[k].substr(at, 80) << '\n';
        }
        return p;
    }
    /// A 4,500 x ~4,200 related pair: about 18.9 M cells, above full_matrix_cells.
    std::pair<std::string, std::string> long_pair(std::uint64_t seed) {
        std::mt19937_64 rng(seed);
        const std::string q = random_dna(rng, 4500);
        std::string r = mutate(rng, q, 0.12);
        r = r.substr(150, 4200);  // local alignments start and end inside the query
        return {q, r};
    }
};

TEST_F(LongPairsCli, PairAboveFullMatrixCellsMatchesTheFullMatrixReference) {
    const auto [q, r] = long_pair(11);
    ASSERT_GT(static_cast<std::uint64_t>(q.size()) * r.size(), gpualign::full_matrix_cells);
    const fs::path qf = write_fasta("q.fa", "q", {q}), rf = write_fasta("r.fa", "r", {r});
    const gpualign::ScoringScheme scheme = gpualign::test::dna_scheme(5, 2);  // the CLI's DNA defaults
    for (const auto& [mode, align_mode] : {std::pair{"nw", AlignMode::global}, std::pair{"sw", AlignMode::local}}) {
        const fs::path out = dir_ / "out.tsv";
        const RunResult res = run(std::string(mode) + " " + qf.string() + " " + rf.string() +
                                  " --backend cpu --threads 2 -v -o " + out.string());
        ASSERT_EQ(res.exit_code, 0) << res.err;
        const std::vector<std::string> got = rows(slurp(out));
        ASSERT_EQ(got.size(), 1u);
        const AlignmentResult want = gpualign::align_pair_full_matrix(gpualign::test::dna(q), gpualign::test::dna(r),
                                                                      scheme, align_mode, false);
        EXPECT_FALSE(want.cigar.empty());
        EXPECT_EQ(got_columns(got[0]), expected_columns(want)) << mode;
        EXPECT_NE(res.err.find("1 long pair on the long-pair path"), std::string::npos) << res.err;
        // Not a terminal, no --progress: no progress line.
        EXPECT_EQ(res.err.find("aligning pair"), std::string::npos) << res.err;
    }
}

// Issue 13: a long pair (18.9 M cells, the long-pair path) written with
// --cpu-kernel simd (the SIMD tile kernel, the default) and scalar (its
// scalar twin) gives the same bytes in every mode, TSV with CIGAR, score-only
// and PAF, and matches the full matrix.
TEST_F(LongPairsCli, LongPairSimdAndScalarTileKernelsWriteTheSameBytes) {
    const auto [q, r] = long_pair(23);
    const fs::path qf = write_fasta("q.fa", "q", {q}), rf = write_fasta("r.fa", "r", {r});
    const gpualign::ScoringScheme scheme = gpualign::test::dna_scheme(5, 2);
    for (const auto& [mode, align_mode] : {std::pair{"sw", AlignMode::local}, std::pair{"nw", AlignMode::global},
                                           std::pair{"sg", AlignMode::semi_global}})
        for (const std::string extra : {"", " --score-only", " --format paf"}) {
            const std::string base =
                std::string(mode) + " " + qf.string() + " " + rf.string() + " --backend cpu --threads 2" + extra;
            const RunResult simd = run(base + " --cpu-kernel simd -o " + (dir_ / "simd.out").string());
            const RunResult scalar = run(base + " --cpu-kernel scalar -o " + (dir_ / "scalar.out").string());
            ASSERT_EQ(simd.exit_code, 0) << simd.err;
            ASSERT_EQ(scalar.exit_code, 0) << scalar.err;
            const std::string a = slurp(dir_ / "simd.out");
            EXPECT_FALSE(a.empty()) << base;
            EXPECT_EQ(a, slurp(dir_ / "scalar.out")) << base;
            EXPECT_NE(simd.err.find("1 long pair on the long-pair path"), std::string::npos) << simd.err;
            if (extra.empty()) {
                const std::vector<std::string> got = rows(a);
                ASSERT_EQ(got.size(), 1u);
                const AlignmentResult want = gpualign::align_pair_full_matrix(
                    gpualign::test::dna(q), gpualign::test::dna(r), scheme, align_mode, false);
                EXPECT_EQ(got_columns(got[0]), expected_columns(want)) << mode;
            }
        }
}

// `gpualign sg` on a 4,000-base read in a 4,700-base ref (18.8 M cells, above
// full_matrix_cells: the long-pair path) writes the full-matrix reference's
// columns, with CIGAR and score-only (the begin column comes from the walk).
TEST_F(LongPairsCli, SemiGlobalLongPairMatchesTheFullMatrixReference) {
    std::mt19937_64 rng(15);
    const std::string r = random_dna(rng, 4700);
    const std::string q = mutate(rng, r.substr(300, 4000), 0.1);
    ASSERT_GT(static_cast<std::uint64_t>(q.size()) * r.size(), gpualign::full_matrix_cells);
    const fs::path qf = write_fasta("q.fa", "q", {q}), rf = write_fasta("r.fa", "r", {r});
    const gpualign::ScoringScheme scheme = gpualign::test::dna_scheme(5, 2);
    for (const bool score_only : {false, true}) {
        const fs::path out = dir_ / "out.tsv";
        const RunResult res = run("sg " + qf.string() + " " + rf.string() + " --backend cpu --threads 2 -v -o " +
                                  out.string() + (score_only ? " --score-only" : ""));
        ASSERT_EQ(res.exit_code, 0) << res.err;
        EXPECT_NE(res.err.find("1 long pair on the long-pair path"), std::string::npos) << res.err;
        const std::vector<std::string> got = rows(slurp(out));
        ASSERT_EQ(got.size(), 1u);
        const AlignmentResult want = gpualign::align_pair_full_matrix(gpualign::test::dna(q), gpualign::test::dna(r),
                                                                      scheme, AlignMode::semi_global, score_only);
        EXPECT_EQ(want.query_begin, 0);
        EXPECT_EQ(want.query_end, static_cast<std::int32_t>(q.size()));
        EXPECT_GT(want.ref_begin, 200);  // the read's window, not the whole ref
        EXPECT_LT(want.ref_end, 4500);
        const std::vector<std::string> f = split(got[0], '\t');
        ASSERT_EQ(f.size(), 16u);  // the 15 alignment columns and strand
        if (score_only)
            EXPECT_EQ(f[2] + ' ' + f[3] + ' ' + f[6] + ' ' + f[7] + ' ' + f[8] + ' ' + f[14],
                      std::to_string(want.query_begin) + ' ' + std::to_string(want.query_end) + ' ' +
                          std::to_string(want.ref_begin) + ' ' + std::to_string(want.ref_end) + ' ' +
                          std::to_string(want.score) + " *");
        else
            EXPECT_EQ(got_columns(got[0]), expected_columns(want));
    }
}

TEST_F(LongPairsCli, MixedShortAndLongPairsMatchTheReferenceInOrder) {
    std::mt19937_64 rng(5);
    std::vector<std::string> qs, rs;
    for (int k = 0; k < 9; ++k) {
        qs.push_back(random_dna(rng, 50 + rng() % 300));
        rs.push_back(mutate(rng, qs.back(), 0.1));
    }
    const auto [lq, lr] = long_pair(12);
    qs.insert(qs.begin() + 4, lq);
    rs.insert(rs.begin() + 4, lr);
    const fs::path qf = write_fasta("q.fa", "q", qs), rf = write_fasta("r.fa", "r", rs);
    const gpualign::ScoringScheme scheme = gpualign::test::dna_scheme(5, 2);
    for (const char* batch : {"", "--batch-pairs 3"}) {
        const fs::path out = dir_ / "out.tsv";
        const RunResult res = run("sw " + qf.string() + " " + rf.string() + " --backend cpu --threads 2 -o " +
                                  out.string() + " " + batch);
        ASSERT_EQ(res.exit_code, 0) << res.err;
        const std::vector<std::string> got = rows(slurp(out));
        ASSERT_EQ(got.size(), qs.size());
        for (std::size_t k = 0; k < qs.size(); ++k) {
            EXPECT_EQ(got[k].substr(0, got[k].find('\t')), "q" + std::to_string(k));
            const AlignmentResult want = gpualign::align_pair_full_matrix(
                gpualign::test::dna(qs[k]), gpualign::test::dna(rs[k]), scheme, AlignMode::local, false);
            EXPECT_EQ(got_columns(got[k]), expected_columns(want)) << "pair " << k << " " << batch;
        }
    }
}

TEST_F(LongPairsCli, ScoreOnlyLongPairMatchesTheReference) {
    const auto [q, r] = long_pair(13);
    const fs::path qf = write_fasta("q.fa", "q", {q}), rf = write_fasta("r.fa", "r", {r});
    const fs::path out = dir_ / "out.tsv";
    const RunResult res = run("sw " + qf.string() + " " + rf.string() + " --backend cpu --score-only -o " + out.string());
    ASSERT_EQ(res.exit_code, 0) << res.err;
    const std::vector<std::string> got = rows(slurp(out));
    ASSERT_EQ(got.size(), 1u);
    const AlignmentResult want = gpualign::align_pair_full_matrix(
        gpualign::test::dna(q), gpualign::test::dna(r), gpualign::test::dna_scheme(5, 2), AlignMode::local, true);
    const std::vector<std::string> f = split(got[0], '\t');
    ASSERT_EQ(f.size(), 16u);  // the 15 alignment columns and strand
    EXPECT_EQ(f[2] + ' ' + f[3] + ' ' + f[6] + ' ' + f[7] + ' ' + f[8] + ' ' + f[14],
              std::to_string(want.query_begin) + ' ' + std::to_string(want.query_end) + ' ' +
                  std::to_string(want.ref_begin) + ' ' + std::to_string(want.ref_end) + ' ' +
                  std::to_string(want.score) + " *");
}

TEST_F(LongPairsCli, MitochondrialGenomesGlobalScore) {
    const fs::path src = fs::path(GPUALIGN_SHARED_DATA) / "dna/long/mito_human_vs_orangutan.fa";
    if (!fs::exists(src)) GTEST_SKIP() << "data not found: " << src;
    // Two records: the human and the orangutan mitochondrial genome.
    const std::vector<std::string> records = gpualign::test::fasta_records(src);
    ASSERT_EQ(records.size(), 2u);
    std::ofstream(dir_ / "human.fa", std::ios::binary) << records[0];
    std::ofstream(dir_ / "orangutan.fa", std::ios::binary) << records[1];
    const fs::path out = dir_ / "out.tsv";
    const RunResult res = run("nw " + (dir_ / "human.fa").string() + " " + (dir_ / "orangutan.fa").string() +
                              " --backend cpu -o " + out.string());
    ASSERT_EQ(res.exit_code, 0) << res.err;
    const std::vector<std::string> got = rows(slurp(out));
    ASSERT_EQ(got.size(), 1u);
    const std::vector<std::string> f = split(got[0], '\t');
    ASSERT_EQ(f.size(), 16u);  // the 15 alignment columns and strand
    EXPECT_EQ(f[1] + " " + f[5] + " " + f[8], "16569 16499 18184") << got[0];
    EXPECT_FALSE(f[14].empty());
}

TEST_F(LongPairsCli, ProgressAlwaysPrintsTheLineOnStderr) {
    const auto [q, r] = long_pair(14);
    const fs::path qf = write_fasta("q.fa", "q", {q}), rf = write_fasta("r.fa", "r", {r});
    const fs::path out = dir_ / "out.tsv";
    RunResult res = run("nw " + qf.string() + " " + rf.string() + " --backend cpu --progress always -q -o " +
                        out.string());
    ASSERT_EQ(res.exit_code, 0) << res.err;
    EXPECT_TRUE(res.err.starts_with("aligning pair 1 (q0 x r0): ")) << res.err;  // a file: a line each
    EXPECT_EQ(res.err.find('\r'), std::string::npos) << res.err;
    EXPECT_NE(res.err.find("GCUPS"), std::string::npos) << res.err;
    EXPECT_NE(res.err.find("Gcells"), std::string::npos) << res.err;
    EXPECT_NE(res.err.find("(100%)"), std::string::npos) << res.err;
    EXPECT_NE(res.err.find("done in "), std::string::npos) << res.err;
    EXPECT_EQ(res.err.back(), '\n') << res.err;  // the line is closed
    const std::string with_progress = slurp(out);

    res = run("nw " + qf.string() + " " + rf.string() + " --backend cpu --progress never -o " + out.string());
    ASSERT_EQ(res.exit_code, 0) << res.err;
    EXPECT_EQ(res.err.find("aligning pair"), std::string::npos) << res.err;
    EXPECT_EQ(slurp(out), with_progress);

    res = run("nw " + qf.string() + " " + rf.string() + " --backend cpu --progress sometimes -o " + out.string());
    EXPECT_EQ(res.exit_code, 2);
    EXPECT_NE(res.err.find("--progress must be one of auto|always|never"), std::string::npos) << res.err;
}

TEST_F(LongPairsCli, ShortPairsShowNoProgress) {
    const fs::path qf = write_fasta("q.fa", "q", {"ACGTACGTAC"}), rf = write_fasta("r.fa", "r", {"ACGTTCGTAC"});
    const RunResult res = run("nw " + qf.string() + " " + rf.string() + " --backend cpu --progress always");
    ASSERT_EQ(res.exit_code, 0) << res.err;
    EXPECT_EQ(res.err.find("aligning pair"), std::string::npos) << res.err;
}

TEST_F(LongPairsCli, HelpDocumentsProgressAndTheMemorySplit) {
    const RunResult res = run("--help");
    ASSERT_EQ(res.exit_code, 0);
    EXPECT_NE(res.out.find("--progress"), std::string::npos) << res.out;
    EXPECT_NE(res.out.find("long-pair engine"), std::string::npos) << res.out;
}

// ---- the progress text ---------------------------------------------------------

TEST(LongPairsProgress, LineShowsCellsRateAndEta) {
    // 1 of 4 Gcells in 2 s: 0.5 GCUPS, 3 Gcells left at that rate: 6 s.
    EXPECT_EQ(gpualign::format_progress("pair 3 (a x b)", 1'000'000'000, 4'000'000'000, 2.0),
              "aligning pair 3 (a x b): 1.0 of 4.0 Gcells (25%), 0.5 GCUPS, ETA 6s");
}

TEST(LongPairsProgress, RecomputationIsClampedAt99Percent) {
    // Traceback passes count too: done may exceed the forward cells.
    const std::string s = gpualign::format_progress("pair 1 (a x b)", 4'400'000'000, 4'000'000'000, 4.0);
    EXPECT_NE(s.find("4.0 of 4.0 Gcells (99%)"), std::string::npos) << s;
    EXPECT_NE(s.find("1.1 GCUPS"), std::string::npos) << s;
    EXPECT_NE(s.find("ETA 0s"), std::string::npos) << s;
}

TEST(LongPairsProgress, SmallPairsGetThreeDecimals) {
    EXPECT_EQ(gpualign::format_progress("pair 1 (a x b)", 10'000'000, 273'000'000, 1.0),
              "aligning pair 1 (a x b): 0.010 of 0.273 Gcells (3%), 0.0 GCUPS, ETA 26s");
    EXPECT_EQ(gpualign::format_progress_done("pair 1 (a x b)", 400'000'000, 273'000'000, 2.0),
              "aligning pair 1 (a x b): 0.273 of 0.273 Gcells (100%), 0.2 GCUPS, done in 2.0s");
}

TEST(LongPairsProgress, DelayAndPeriod) {
    const fs::path p = fs::temp_directory_path() /
                       ("gpualign_progress_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    std::FILE* f = std::fopen(p.c_str(), "w+");
    ASSERT_NE(f, nullptr);
    {
        // A long delay: nothing is ever shown, and end() writes nothing.
        gpualign::ProgressLine line(f, true, 3600.0, 0.0);
        line.begin("pair 1 (a x b)", 100);
        line.update(50, 100);
        line.end(true);
        EXPECT_FALSE(line.shown());
    }
    {
        // No delay, a long period: the first update is shown, the next ones wait.
        gpualign::ProgressLine line(f, true, 0.0, 3600.0);
        line.begin("pair 2 (a x b)", 100);
        line.update(10, 100);
        line.update(20, 100);
        EXPECT_TRUE(line.shown());
        line.end(false);  // a failed pair: the line is closed, not completed
    }
    {
        gpualign::ProgressLine line(f, false, 0.0, 0.0);  // disabled
        line.begin("pair 3 (a x b)", 100);
        line.update(10, 100);
        line.end(true);
        EXPECT_FALSE(line.shown());
    }
    std::fclose(f);
    const std::string text = slurp(p);
    fs::remove(p);
    EXPECT_EQ(text.find("pair 1"), std::string::npos) << text;
    EXPECT_EQ(text.find("pair 3"), std::string::npos) << text;
    EXPECT_EQ(split(text, '\n').size(), 2u) << text;  // one line of pair 2 (a file: no '\r')
    EXPECT_NE(text.find("aligning pair 2 (a x b): 0.000 of 0.000 Gcells (10%)"), std::string::npos) << text;
    EXPECT_EQ(text.find("done in"), std::string::npos) << text;
    EXPECT_EQ(text.back(), '\n');
}

}  // namespace

// On a terminal the lines are rewritten in place with '\r' and closed with
// one newline; the run's closing line is written once.
TEST(LongPairsProgress, TerminalLinesAreRewrittenInPlace) {
    int master = -1, slave = -1;
    if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) GTEST_SKIP() << "no pseudo-terminal";
    std::FILE* f = ::fdopen(slave, "w");
    ASSERT_NE(f, nullptr);
    {
        gpualign::ProgressLine line(f, true, 0.0, 0.0);
        line.begin("pair 2 (a x b)", 100);
        line.update(10, 100);
        line.update(20, 100);
        line.end(true);
    }
    {
        gpualign::RunProgress run(f, true, 0.0, 0.0);
        run.update(5, 500);
        run.finish();
    }
    std::fclose(f);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
    ::close(master);
    // The terminal turns '\n' into "\r\n" (ONLCR): count the rewrites before each newline.
    EXPECT_NE(text.find("\raligning pair 2 (a x b): 0.000 of 0.000 Gcells (10%)"), std::string::npos) << text;
    EXPECT_NE(text.find("\raligning pair 2 (a x b): 0.000 of 0.000 Gcells (20%)"), std::string::npos) << text;
    EXPECT_NE(text.find("\raligning pair 2 (a x b): 0.000 of 0.000 Gcells (100%)"), std::string::npos) << text;
    EXPECT_NE(text.find("\raligned 5 pairs, "), std::string::npos) << text;
    EXPECT_EQ(gpualign::test::lines(text).size(), 2u) << text;
}
