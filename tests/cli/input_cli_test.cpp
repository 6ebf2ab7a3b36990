// CLI tests of the input side: digits in sequences, bzip2/xz/zstd inputs
// (files and stdin), FASTQ errors in plain words, empty inputs and
// zero-length sequences in every output format, and one pipe given twice.
#include <bzlib.h>
#include <lzma.h>
#include <zstd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_fixture.hpp"

namespace gpualign::test {
namespace {

class InputCli : public CliTest {
protected:
    const std::string q_fa = ">q1\nACGTACGTAC\n>q2\nGGGGCCCCAA\n";
    const std::string r_fa = ">t1\nACGTACGTAC\n>t2\nGGGGCCCCAA\n";
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    /// Runs a bash script in which $BIN is the gpualign binary, stdout and stderr captured.
    RunResult bash(const std::string& script) {
        const std::string file = path("run.sh");
        write("run.sh", "BIN='" + std::string(GPUALIGN_BINARY) + "'\n" + script + "\n");
        const std::string cmd = "bash " + file + " >" + path("sh.out") + " 2>" + path("sh.err");
        const int status = std::system(cmd.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "sh.out"), slurp(dir_ / "sh.err")};
    }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- item 5: digits -------------------------------------------------------------

TEST_F(InputCli, DigitsInASequenceAreAnErrorWithThePositionAsWritten) {
    write("q.fa", ">q1\nACGT1234ACGT\n");
    write("t.fa", ">t1\nACGTACGTACGT\n");
    const RunResult r = run("sw " + path("q.fa") + " " + path("t.fa") + " --backend cpu -o " + path("out.tsv"));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(has(r.err, "q.fa: record 1 'q1': character '1' at position 5")) << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out.tsv"));
}

TEST_F(InputCli, BadLetterPositionCountsTheCharactersAsWritten) {
    write("q.fa", ">q1\nACGT ACGT\tAC.T\n");
    write("t.fa", ">t1\nACGTACGTACGT\n");
    const RunResult r = run("sw " + path("q.fa") + " " + path("t.fa") + " --backend cpu -o " + path("out.tsv"));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(has(r.err, "character '.' at position 13")) << r.err;
}

// ---- item 8: compressed inputs ------------------------------------------------------

std::string bzip2(const std::string& in) {
    std::string out(in.size() + 700, '\0');
    auto n = static_cast<unsigned>(out.size());
    BZ2_bzBuffToBuffCompress(out.data(), &n, const_cast<char*>(in.data()), static_cast<unsigned>(in.size()), 9, 0, 0);
    out.resize(n);
    return out;
}

std::string xz(const std::string& in) {
    std::string out(lzma_stream_buffer_bound(in.size()), '\0');
    std::size_t pos = 0;
    lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const std::uint8_t*>(in.data()), in.size(),
                            reinterpret_cast<std::uint8_t*>(out.data()), &pos, out.size());
    out.resize(pos);
    return out;
}

std::string zstd(const std::string& in) {
    std::string out(ZSTD_compressBound(in.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3));
    return out;
}

TEST_F(InputCli, Bzip2XzAndZstdInputsGiveThePlainOutput) {
    write("q.fa", q_fa);
    write("t.fa", r_fa);
    const RunResult plain = run("sw " + path("q.fa") + " " + path("t.fa") + " --backend cpu -q");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_EQ(lines(plain.out).size(), 3u);
    for (const auto& [name, bytes] : {std::pair{"q.fa.bz2", bzip2(q_fa)}, std::pair{"q.fa.xz", xz(q_fa)},
                                      std::pair{"q.fa.zst", zstd(q_fa)}}) {
        write(name, bytes);
        const RunResult f = run("sw " + path(name) + " " + path("t.fa") + " --backend cpu -q");
        EXPECT_EQ(f.exit_code, 0) << name << ": " << f.err;
        EXPECT_EQ(f.out, plain.out) << name;
        const RunResult in = run("sw - " + path("t.fa") + " --backend cpu -q < " + path(name));
        EXPECT_EQ(in.exit_code, 0) << name << ": " << in.err;
        EXPECT_EQ(in.out, plain.out) << name << " on stdin";
        const RunResult piped = bash("cat " + path(name) + " | $BIN sw - " + path("t.fa") + " --backend cpu -q");
        EXPECT_EQ(piped.out, plain.out) << name << " through a pipe";
    }
}

// SAM output's @SQ lines come from REFS read ahead when it is a plain file
// (header first, records straight to the output), else from a spooled body:
// the same bytes either way, REFS a file, a pipe or gzip, to a file or stdout.
TEST_F(InputCli, SamHeaderReadAheadOrSpooledGivesTheSameBytes) {
    std::string q, r;
    for (int k = 0; k < 40; ++k) {
        q += ">q" + std::to_string(k) + "\nACGTACGTACGGTTACA" + std::string(k % 7, 'C') + "\n";
        r += ">chr" + std::to_string(k % 9) + "\nTTACGTACGTACGGTACA" + std::string(k % 9, 'G') + "\n";  // names repeat
    }
    r += ">zero\n\n";  // no @SQ: a zero-length ref
    q += ">qz\nACGT\n";
    write("q.fa", q);
    write("t.fa", r);
    const std::string opts = " --backend cpu --format sam --threads 2 --batch-pairs 8", args = opts + " -q";
    const RunResult ahead = bash("$BIN sw " + path("q.fa") + " " + path("t.fa") + opts + " -o " + path("a.sam") +
                                 " -v 2> " + path("a.log") + " && cat " + path("a.sam"));
    ASSERT_EQ(ahead.exit_code, 0) << ahead.err;
    EXPECT_TRUE(has(slurp(dir_ / "a.log"), "SAM header: @SQ read ahead from REFS")) << slurp(dir_ / "a.log");
    EXPECT_TRUE(has(slurp(dir_ / "a.log"), "written first")) << slurp(dir_ / "a.log");
    const auto body = [](const std::string& sam) {  // without @PG, whose CL differs
        std::string out;
        for (const auto& l : lines(sam))
            if (l.rfind("@PG", 0) != 0) out += l + "\n";
        return out;
    };
    ASSERT_EQ(lines(ahead.out).size(), 1u + 9u + 1u + 41u);  // @HD, 9 @SQ, @PG, a record a pair
    const RunResult piped = bash("cat " + path("t.fa") + " | $BIN sw " + path("q.fa") + " -" + args);
    EXPECT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(body(piped.out), body(ahead.out)) << "REFS through a pipe (spooled)";
    const RunResult to_stdout = run("sw " + path("q.fa") + " " + path("t.fa") + args);
    EXPECT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
    EXPECT_EQ(body(to_stdout.out), body(ahead.out)) << "to stdout";
    write("t.fa.bz2", bzip2(r));
    const RunResult compressed = run("sw " + path("q.fa") + " " + path("t.fa.bz2") + args);
    EXPECT_EQ(body(compressed.out), body(ahead.out)) << "compressed REFS (spooled)";
}

// A bad record late in REFS: the SAM run fails at its pair with no output
// file, whether the header was read ahead or not.
TEST_F(InputCli, SamWithABadRefRecordLeavesNoOutput) {
    std::string q, r;
    for (int k = 0; k < 30; ++k) {
        q += ">q" + std::to_string(k) + "\nACGTACGTACGG\n";
        r += ">t" + std::to_string(k) + "\n" + (k == 25 ? std::string("ACG!ACGT") : std::string("ACGTACGT")) + "\n";
    }
    write("q.fa", q);
    write("t.fa", r);
    const RunResult bad = run("sw " + path("q.fa") + " " + path("t.fa") +
                              " --backend cpu --format sam --batch-pairs 4 -o " + path("o.sam"));
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    EXPECT_TRUE(has(bad.err, "record 26")) << bad.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "o.sam"));
}

TEST_F(InputCli, UnsupportedCompressionNamesTheCommand) {
    write("q.fa.lz4", std::string("\x04\x22\x4d\x18\x64\x40\xa7", 7) + "junk");
    write("t.fa", r_fa);
    const RunResult r = run("sw " + path("q.fa.lz4") + " " + path("t.fa") + " --backend cpu");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has(r.err, "lz4 -dc")) << r.err;
    EXPECT_FALSE(has(r.err, "first non-blank character")) << r.err;
}

// ---- item 9: FASTQ errors ------------------------------------------------------------

TEST_F(InputCli, FastqErrorsNameFileRecordAndWhatIsWrong) {
    write("t.fa", ">t1\nACGT\n>t2\nACGT\n");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"@r1\nACGT\n+\nIIII\n@r2\nACGT\n", "missing '+' line"},
        {"@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIII\n", "qualities shorter than the sequence"},
        {"@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIIIIII\n", "qualities longer than the sequence"},
        {"@r1\nACGT\n+r2\nIIII\n@r2\nACGT\n+\nIIII\n", "the '+' line names 'r2'"},
    };
    for (const auto& [text, words] : cases) {
        write("q.fq", text);
        const RunResult r = run("sw " + path("q.fq") + " " + path("t.fa") + " --backend cpu -o " + path("o.tsv"));
        EXPECT_EQ(r.exit_code, 1) << text;
        EXPECT_TRUE(has(r.err, "q.fq: record ")) << r.err;
        EXPECT_TRUE(has(r.err, words)) << words << " not in " << r.err;
        EXPECT_FALSE(has(r.err, "functor") || has(r.err, "Reached end of input")) << r.err;
    }
}

// ---- item 14: empty inputs, zero-length sequences ------------------------------------------

TEST_F(InputCli, BothInputsEmptyIsAnEmptyRunWithAWarning) {
    write("q.fa", "");
    write("t.fa", "\n");
    const RunResult tsv = run("sw " + path("q.fa") + " " + path("t.fa") + " --backend cpu");
    EXPECT_EQ(tsv.exit_code, 0) << tsv.err;
    ASSERT_EQ(lines(tsv.out).size(), 1u) << tsv.out;
    EXPECT_TRUE(has(tsv.out, "query\tquery_len")) << tsv.out;
    EXPECT_TRUE(has(tsv.err, "q.fa: no records")) << tsv.err;
    EXPECT_TRUE(has(tsv.err, "warn")) << tsv.err;
    const RunResult sam = run("nw " + path("q.fa") + " " + path("t.fa") + " --backend cpu --format sam");
    EXPECT_EQ(sam.exit_code, 0) << sam.err;
    for (const std::string& l : lines(sam.out)) EXPECT_EQ(l[0], '@') << l;
    const RunResult paf = run("sw " + path("q.fa") + " " + path("t.fa") + " --backend cpu --format paf");
    EXPECT_EQ(paf.exit_code, 0) << paf.err;
    EXPECT_EQ(paf.out, "");
}

TEST_F(InputCli, OneInputEmptyIsARecordCountError) {
    write("q.fa", "");
    write("t.fa", r_fa);
    const RunResult r = run("sw " + path("q.fa") + " " + path("t.fa") + " --backend cpu -o " + path("o.tsv"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(has(r.err, "record counts differ")) << r.err;
    EXPECT_FALSE(has(r.err, "looks like")) << r.err;  // the empty input takes the other's alphabet
}

TEST_F(InputCli, ZeroLengthSequencesAlignAsTheScoringModelSays) {
    write("q.fa", ">q1\n\n>q2\nACGT\n>q3\nAC\n");
    write("t.fa", ">t1\nACGT\n>t2\n>t3\nAC\n");
    // Defaults: gap_open 5, gap_extend 2: a 4-column gap costs 5 + 4*2 = 13.
    const RunResult nw = run("nw " + path("q.fa") + " " + path("t.fa") + " --backend cpu -q");
    ASSERT_EQ(nw.exit_code, 0) << nw.err;
    const auto g = rows(nw.out);
    ASSERT_EQ(g.size(), 4u);
    EXPECT_EQ(g[1][8], "-13");
    EXPECT_EQ(g[1][14], "4D");
    EXPECT_EQ(g[2][8], "-13");
    EXPECT_EQ(g[2][14], "4I");
    const RunResult sw = run("sw " + path("q.fa") + " " + path("t.fa") + " --backend cpu -q");
    ASSERT_EQ(sw.exit_code, 0) << sw.err;
    const auto l = rows(sw.out);
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[1][8], "0");
    EXPECT_EQ(l[1][14], "*");
    EXPECT_EQ(l[2][8], "0");
    const RunResult sg = run("sg " + path("q.fa") + " " + path("t.fa") + " --backend cpu -q");
    ASSERT_EQ(sg.exit_code, 0) << sg.err;
    const auto s = rows(sg.out);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[1][8], "0");    // an empty query: the empty alignment, score 0
    EXPECT_EQ(s[2][8], "-13");  // an empty ref: the query's gap is charged
    EXPECT_EQ(s[2][14], "4I");
}

TEST_F(InputCli, ZeroLengthPairsInPafBlastAndSam) {
    write("q.fa", ">q1\n\n>q2\nACGT\n>q3\nACGT\n");
    write("t.fa", ">t1\nACGT\n>t2\n>t3\nACGT\n");
    for (const std::string mode : {"sw", "nw", "sg"}) {
        for (const std::string format : {"paf", "blast6"}) {
            const RunResult r = run(mode + " " + path("q.fa") + " " + path("t.fa") + " --backend cpu -q --format " +
                                    format);
            ASSERT_EQ(r.exit_code, 0) << mode << " " << format << ": " << r.err;
            const auto got = rows(r.out);
            ASSERT_EQ(got.size(), 1u) << mode << " " << format << ":\n" << r.out;  // only q3 x t3
            EXPECT_EQ(got[0][0], "q3");
        }
        const RunResult sam = run(mode + " " + path("q.fa") + " " + path("t.fa") + " --backend cpu -q --format sam");
        ASSERT_EQ(sam.exit_code, 0) << mode << ": " << sam.err;
        std::vector<std::vector<std::string>> records;
        for (const auto& row : rows(sam.out))
            if (row[0][0] != '@') records.push_back(row);
        ASSERT_EQ(records.size(), 3u) << sam.out;
        EXPECT_EQ(records[0][1], "4") << mode;  // an empty query: unmapped, SEQ '*'
        EXPECT_EQ(records[0][9], "*");
        EXPECT_EQ(records[1][1], "4") << mode;  // an empty ref: unmapped, no @SQ line for it
        EXPECT_EQ(records[1][2], "*");
        EXPECT_EQ(records[1][9], "ACGT");
        EXPECT_FALSE(has(sam.out, "SN:t2")) << sam.out;
        EXPECT_EQ(records[2][1], "0");
    }
}

TEST_F(InputCli, SearchWithNoQueriesOrAnEmptyDbIsAnEmptyRun) {
    write("q.fa", q_fa);
    write("db.fa", r_fa);
    write("empty.fa", "");
    const RunResult no_queries = run("search " + path("empty.fa") + " " + path("db.fa") + " --backend cpu");
    EXPECT_EQ(no_queries.exit_code, 0) << no_queries.err;
    EXPECT_EQ(lines(no_queries.out).size(), 1u) << no_queries.out;  // the TSV header
    EXPECT_TRUE(has(no_queries.err, "empty.fa: no records")) << no_queries.err;
    const RunResult no_db = run("search " + path("q.fa") + " " + path("empty.fa") + " --backend cpu --format sam");
    EXPECT_EQ(no_db.exit_code, 0) << no_db.err;
    for (const std::string& l : lines(no_db.out)) EXPECT_EQ(l[0], '@') << l;
    EXPECT_TRUE(has(no_db.err, "empty.fa: no records")) << no_db.err;
    // In local search a zero-length query or DB record has no hit (as in
    // BLAST+); the other records' hits are those of a search without them.
    // Global and semi-global search of one is an input error.
    write("z.fa", ">z\n>q\nACGT\n");
    write("qonly.fa", ">q\nACGT\n");
    write("dbz.fa", ">e\n" + r_fa);
    const RunResult plain = run("search " + path("qonly.fa") + " " + path("db.fa") + " --backend cpu");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const RunResult zero = run("search " + path("z.fa") + " " + path("dbz.fa") + " --backend cpu");
    EXPECT_EQ(zero.exit_code, 0) << zero.err;
    EXPECT_EQ(zero.out, plain.out);
    EXPECT_TRUE(has(zero.err, "1 zero-length DB record(s) left out")) << zero.err;
    const RunResult global = run("search " + path("z.fa") + " " + path("db.fa") + " --backend cpu --mode global");
    EXPECT_EQ(global.exit_code, 1);
    EXPECT_TRUE(has(global.err, "record 1 'z': empty sequence (global search needs a letter")) << global.err;
}

TEST_F(InputCli, MakedbRefusesAnEmptyInputAndZeroLengthRecords) {
    write("empty.fa", "");
    const RunResult empty = run("makedb " + path("empty.fa") + " " + path("e.gadb"));
    EXPECT_EQ(empty.exit_code, 1) << empty.err;
    EXPECT_TRUE(has(empty.err, "empty.fa: no records")) << empty.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "e.gadb"));
    write("z.fa", ">a\nACGT\n>z\n");
    const RunResult zero = run("makedb " + path("z.fa") + " " + path("z.gadb"));
    EXPECT_EQ(zero.exit_code, 1) << zero.err;
    EXPECT_TRUE(has(zero.err, "record 2 'z': empty sequence")) << zero.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "z.gadb"));
}

// ---- item 11: one pipe given twice ------------------------------------------------------------

TEST_F(InputCli, OnePipeAsBothInputsIsRefusedClearly) {
    write("q.fa", q_fa);
    write("t.fa", r_fa);
    const RunResult r = bash("cat " + path("q.fa") + " | $BIN sw - /dev/stdin --backend cpu");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(has(r.err, "same stream")) << r.err;
    EXPECT_FALSE(has(r.err, "empty")) << r.err;
    // A file on stdin is read as often as it is named; a file and stdin work together.
    const RunResult file_twice = run("sw - /dev/stdin --backend cpu -q < " + path("q.fa"));
    EXPECT_EQ(file_twice.exit_code, 0) << file_twice.err;
    EXPECT_EQ(lines(file_twice.out).size(), 3u);
    const RunResult mixed = run("sw " + path("q.fa") + " /dev/stdin --backend cpu -q < " + path("t.fa"));
    EXPECT_EQ(mixed.exit_code, 0) << mixed.err;
    const RunResult dash = bash("cat " + path("t.fa") + " | $BIN sw " + path("q.fa") + " - --backend cpu -q");
    EXPECT_EQ(dash.exit_code, 0) << dash.err;
    EXPECT_EQ(dash.out, mixed.out);
    const RunResult search = bash("cat " + path("q.fa") + " | $BIN search - /dev/stdin --backend cpu");
    EXPECT_EQ(search.exit_code, 2) << search.err;
    EXPECT_TRUE(has(search.err, "QUERIES <stdin> and DB /dev/stdin are the same stream")) << search.err;
}

}  // namespace
}  // namespace gpualign::test
