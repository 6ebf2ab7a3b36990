// `gpualign search` through the binary (issue 12), CPU backend: BLAST
// tabular and TSV output on real globins, each hit's alignment identical to
// `gpualign sw QUERY HIT` (`sg` in semi-global mode, whose output is the
// same bytes on the SIMD and the scalar CPU kernel, with NA statistics),
// SAM with an @SQ per DB record, and bad input (clear error, non-zero exit,
// no partial output).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

namespace fs = std::filesystem;

/// The FASTA record named `name` of the file at `path` (header and lines).
std::string fasta_record(const fs::path& path, const std::string& name) {
    std::string out;
    bool in = false;
    for (const std::string& l : lines(slurp(path))) {
        if (!l.empty() && l[0] == '>') in = split(l.substr(1), ' ')[0] == name;
        if (in) out += l + '\n';
    }
    return out;
}

class SearchCli : public CliTest {
protected:
    fs::path families() const { return shared_data() / "protein" / "families"; }

    /// Every row of a search TSV (`tsv_rows`, header first) equals `gpualign
    /// <command> QUERY HIT` on that pair, byte for byte: the 15 pairs
    /// columns, then the strand (the search's evalue and bitscore skipped).
    void expect_hits_are_pair_alignments(const std::vector<std::string>& tsv_rows, const fs::path& q, const fs::path& db,
                                         const std::string& command) {
        for (std::size_t h = 1; h < tsv_rows.size(); ++h) {
            const std::vector<std::string> f = split(tsv_rows[h], '\t');
            ASSERT_EQ(f.size(), 18u);
            const fs::path one_q = dir_ / "q1.fa", one_r = dir_ / "r1.fa", one = dir_ / "one.tsv";
            std::ofstream(one_q) << fasta_record(q, f[0]);
            std::ofstream(one_r) << fasta_record(db, f[4]);
            const RunResult r = run(command + " " + one_q.string() + " " + one_r.string() + " --backend cpu -o " + one.string());
            ASSERT_EQ(r.exit_code, 0) << r.err;
            const std::vector<std::string> pair = lines(slurp(one));
            ASSERT_EQ(pair.size(), 2u);
            const std::string& row = tsv_rows[h];
            const std::string search_columns = row.substr(0, row.rfind('\t', row.rfind('\t', row.rfind('\t') - 1) - 1));
            EXPECT_EQ(search_columns + "\t" + f[17], pair[1]) << command << ", hit " << h;
        }
    }
};

TEST_F(SearchCli, Blast6OnGlobinsHitsAreTheirOwnSwAlignments) {
    if (!fs::exists(families())) GTEST_SKIP() << "shared data not found";
    const fs::path q = families() / "globins4.fa", db = families() / "globins45.fa";
    const fs::path m8 = dir_ / "hits.m8", tsv = dir_ / "hits.tsv";
    RunResult r = run("search " + q.string() + " " + db.string() + " --backend cpu -k 3 -o " + m8.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> m8_lines = lines(slurp(m8));
    ASSERT_EQ(m8_lines.size(), 12u);  // 4 queries x 3 hits
    // The best hit of HBB_HUMAN: BLOSUM62 11/1, score 740 over 146 columns;
    // blastp -seg no -comp_based_stats 0 against globins45.fa prints the same line.
    EXPECT_EQ(m8_lines[0], "HBB_HUMAN\tHBB_CALAR\t96.575\t146\t5\t0\t1\t146\t1\t146\t7.47e-106\t289");
    for (const std::string& l : m8_lines) EXPECT_EQ(split(l, '\t').size(), 12u) << l;

    r = run("search " + q.string() + " " + db.string() + " --backend cpu -k 3 -o " + tsv.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> rows = lines(slurp(tsv));
    ASSERT_EQ(rows.size(), 13u);
    EXPECT_EQ(split(rows[0], '\t').size(), 18u);
    EXPECT_EQ(rows[0].substr(rows[0].size() - 23), "\tevalue\tbitscore\tstrand");
    // Every hit equals `gpualign sw QUERY HIT` on that pair, byte for byte,
    // and the statistics agree with the blast6 file.
    expect_hits_are_pair_alignments(rows, q, db, "sw");
    for (std::size_t h = 1; h < rows.size(); ++h) {
        const std::vector<std::string> f = split(rows[h], '\t');
        ASSERT_EQ(f.size(), 18u);
        EXPECT_EQ(f[17], "+");  // protein: the plus strand only
        const std::vector<std::string> b = split(m8_lines[h - 1], '\t');
        EXPECT_EQ(f[15], b[10]);
        EXPECT_EQ(f[16], b[11]);
    }
}

// --mode semi-global: every DB record is a hit, ordered by score then DB order; each hit is `gpualign sg QUERY HIT`; the
// SIMD and the scalar CPU kernels write the same bytes, TSV and blast6;
// E-values and bit scores are NA with one warning, and --evalue is refused.
TEST_F(SearchCli, SemiGlobalOnGlobinsHitsAreTheirOwnSgAlignments) {
    if (!fs::exists(families())) GTEST_SKIP() << "shared data not found";
    const fs::path q = families() / "globins4.fa", db = families() / "globins45.fa";
    const std::string base = "search " + q.string() + " " + db.string() + " --mode semi-global --backend cpu -k 45 ";
    std::map<std::string, std::string> out;  // "kernel.format" -> bytes
    for (const char* kernel : {"simd", "scalar"})
        for (const char* fmt : {"tsv", "m8"}) {
            const fs::path path = dir_ / (std::string(kernel) + "." + fmt);
            const RunResult r = run(base + "--cpu-kernel " + kernel + " -o " + path.string());
            ASSERT_EQ(r.exit_code, 0) << r.err;
            EXPECT_NE(r.err.find("no published Karlin-Altschul parameters for semi-global alignment"), std::string::npos)
                << r.err;
            out[std::string(kernel) + "." + fmt] = slurp(path);
        }
    EXPECT_EQ(out["simd.tsv"], out["scalar.tsv"]);
    EXPECT_EQ(out["simd.m8"], out["scalar.m8"]);
    const std::vector<std::string> tsv = lines(out["simd.tsv"]);
    const std::vector<std::vector<std::string>> m8 = rows(out["simd.m8"]);
    ASSERT_EQ(tsv.size(), 1 + 4 * 45u);  // every DB record is a hit of every query
    ASSERT_EQ(m8.size(), 4 * 45u);
    for (std::size_t h = 1; h < tsv.size(); ++h) {
        const std::vector<std::string> f = split(tsv[h], '\t');
        ASSERT_EQ(f.size(), 18u);
        EXPECT_EQ(f[2], "0");                  // the query end to end
        EXPECT_EQ(f[3], f[1]);
        EXPECT_EQ(f[15] + " " + f[16], "NA NA");
        EXPECT_EQ(m8[h - 1][10] + " " + m8[h - 1][11], "NA NA");
        EXPECT_EQ(m8[h - 1][0] + " " + m8[h - 1][1], f[0] + " " + f[4]);
        if (h > 1 && split(tsv[h - 1], '\t')[0] == f[0])  // score descending within a query
            EXPECT_GE(std::stoi(split(tsv[h - 1], '\t')[8]), std::stoi(f[8])) << "row " << h;
    }
    // The first 3 hits of each query are `gpualign sg` on their pairs.
    std::vector<std::string> best{tsv[0]};
    for (std::size_t qi = 0; qi < 4; ++qi)
        for (std::size_t h = 0; h < 3; ++h) best.push_back(tsv[1 + qi * 45 + h]);
    expect_hits_are_pair_alignments(best, q, db, "sg");
    const fs::path refused = dir_ / "refused.m8";
    const RunResult r = run(base + "--evalue 10 -o " + refused.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("E-values of semi-global scores are not defined"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(refused));
}

// DNA reads fitted into their windows on both strands: the SIMD and the
// scalar CPU kernels give the same bytes, each read's best hit is its own
// window on the plus strand, and the other hits (negative scores: a read
// does not fit another window) may be on either strand.
TEST_F(SearchCli, SemiGlobalBothStrandsSimdAndScalarGiveTheSameBytes) {
    const std::string bundled = std::string(GPUALIGN_TEST_DATA) + "/../../data/";
    // The first 8 reads and 24 windows (record k of each pairs with record k of the other).
    auto first = [](const std::string& path, int records) {
        std::string text;
        int seen = 0;
        for (const std::string& l : lines(slurp(path))) {
            if (!l.empty() && l[0] == '>' && ++seen > records) break;
            text += l + '\n';
        }
        return text;
    };
    const fs::path q = write("reads.fa", first(bundled + "reads.fa", 8)), db = write("windows.fa", first(bundled + "ref_windows.fa", 24));
    std::map<std::string, std::string> out;
    for (const char* kernel : {"simd", "scalar"})
        for (const char* fmt : {"tsv", "m8"}) {
            const fs::path path = dir_ / (std::string(kernel) + "." + fmt);
            const RunResult r = run("search " + q.string() + " " + db.string() +
                                    " --mode semi-global --strand both -k 3 --backend cpu --cpu-kernel " + kernel + " -o " +
                                    path.string());
            ASSERT_EQ(r.exit_code, 0) << r.err;
            out[std::string(kernel) + "." + fmt] = slurp(path);
        }
    EXPECT_EQ(out["simd.tsv"], out["scalar.tsv"]);
    EXPECT_EQ(out["simd.m8"], out["scalar.m8"]);
    const std::vector<std::vector<std::string>> tsv = rows(out["simd.tsv"]);
    ASSERT_EQ(tsv.size(), 1 + 8 * 3u);
    int minus = 0, negative = 0;
    for (std::size_t h = 1; h < tsv.size(); ++h) {
        const std::vector<std::string>& f = tsv[h];
        ASSERT_EQ(f.size(), 18u);
        if (h % 3 == 1) {  // the read's best hit
            EXPECT_EQ(f[0].substr(0, f[0].size() - 1), f[4].substr(0, f[4].size() - 1)) << "row " << h;  // _B read, _A window
            EXPECT_EQ(f[17], "+") << "row " << h;
        }
        minus += f[17] == "-";
        negative += std::stoi(f[8]) < 0;
    }
    EXPECT_GT(minus, 0);
    EXPECT_GT(negative, 0);
}

TEST_F(SearchCli, DbSizeGivesAShardTheWholeDbsEValues) {
    // --db-size (BLAST's -dbsize): a search of one shard of the DB, given
    // the whole DB's letters, reports the whole DB's E-values and bit scores.
    if (!fs::exists(families())) GTEST_SKIP() << "shared data not found";
    const fs::path q = families() / "globins4.fa", db = families() / "globins45.fa";
    std::string shard_text;
    std::uint64_t letters = 0;
    int records = 0;
    for (const std::string& l : lines(slurp(db))) {
        if (!l.empty() && l[0] == '>') ++records;
        else letters += l.size();
        if (records <= 20) shard_text += l + '\n';
    }
    const fs::path shard = write("shard.fa", shard_text);
    const std::string base = "search " + q.string() + " ";
    const auto whole = run(base + db.string() + " --backend cpu -k 100 -o " + (dir_ / "whole.m8").string());
    const auto same = run(base + db.string() + " --backend cpu -k 100 --db-size " + std::to_string(letters) + " -o " +
                          (dir_ / "same.m8").string());
    const auto part = run(base + shard.string() + " --backend cpu -k 100 --db-size " + std::to_string(letters) +
                          " -o " + (dir_ / "part.m8").string());
    const auto plain = run(base + shard.string() + " --backend cpu -k 100 -o " + (dir_ / "plain.m8").string());
    for (const auto* r : {&whole, &same, &part, &plain}) ASSERT_EQ(r->exit_code, 0) << r->err;
    EXPECT_EQ(slurp(dir_ / "whole.m8"), slurp(dir_ / "same.m8"));  // the DB's own size changes nothing
    std::map<std::string, std::string> whole_hits;
    for (const auto& f : rows(slurp(dir_ / "whole.m8"))) whole_hits[f[0] + " " + f[1]] = f[10] + " " + f[11];
    const auto part_rows = rows(slurp(dir_ / "part.m8")), plain_rows = rows(slurp(dir_ / "plain.m8"));
    ASSERT_FALSE(part_rows.empty());
    ASSERT_EQ(part_rows.size(), plain_rows.size());
    int smaller = 0;
    for (std::size_t k = 0; k < part_rows.size(); ++k) {
        const auto& f = part_rows[k];
        ASSERT_TRUE(whole_hits.count(f[0] + " " + f[1])) << f[0] << " " << f[1];
        EXPECT_EQ(f[10] + " " + f[11], whole_hits[f[0] + " " + f[1]]) << f[0] << " " << f[1];
        smaller += std::stod(plain_rows[k][10]) < std::stod(f[10]);  // the shard alone: a smaller N
    }
    EXPECT_GT(smaller, 0);
    const auto zero = run(base + db.string() + " --db-size 0");
    EXPECT_EQ(zero.exit_code, 2);
    EXPECT_NE(zero.err.find("--db-size"), std::string::npos) << zero.err;
    const auto pairs = run("sw " + q.string() + " " + q.string() + " --db-size 100");
    EXPECT_EQ(pairs.exit_code, 2);
    EXPECT_NE(pairs.err.find("--db-size applies to `gpualign search` only"), std::string::npos) << pairs.err;
}

TEST_F(SearchCli, SamHasAnSqLinePerDbRecordAndARecordPerHit) {
    const fs::path q = write_fasta("q.fa", {{"q1", "ACGTACGTTTGACCAGTACGATCGATCGGATC"}, {"q2", "TTTTGGGGCCCCAAAATTTTGGGGCCCCAAAA"}});
    const fs::path db = write_fasta("db.fa", {{"d1", "GGACGTACGTTTGACCAGTACGATCGATCGGATCGG"},
                                              {"d2", "CCCCCCCCCCCCCCCCCCCC"},
                                              {"d3", "TTTTGGGGCCCCAAAATTTTGGGGCCCC"}});
    const fs::path sam = dir_ / "o.sam";
    const RunResult r = run("search " + q.string() + " " + db.string() + " --backend cpu -k 2 -o " + sam.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    int sq = 0, records = 0;
    for (const std::string& l : lines(slurp(sam))) {
        if (l.rfind("@SQ", 0) == 0) ++sq;
        if (!l.empty() && l[0] != '@') ++records;
    }
    EXPECT_EQ(sq, 3);
    EXPECT_EQ(records, 4);
}

TEST_F(SearchCli, BadInputGivesAClearErrorAndNoOutput) {
    const fs::path q = write_fasta("q.fa", {{"q1", "ACGTACGTTTGACCAGTACG"}});
    const fs::path db = write_fasta("db.fa", {{"d1", "GGACGTACGTTTGACCAGTACGATCG"}});
    const fs::path out = dir_ / "o.m8";
    struct Case {
        std::string args;
        int exit_code;
        std::string message;
    };
    const fs::path empty = dir_ / "empty.fa", empty_seq = dir_ / "empty_seq.fa", mixed = dir_ / "mixed.fa",
                   prot = write_fasta("p.fa", {{"p1", "MKVLAAGIVALLLAAGCSSS"}});
    { std::ofstream(empty) << ""; }
    { std::ofstream(empty_seq) << ">d1\nACGT\n>d2\n\n>d3\nACGT\n"; }
    {
        // 20 DNA records decide the alphabet (auto), then a protein record.
        std::ofstream f(mixed);
        for (int k = 1; k <= 20; ++k) f << ">d" << k << "\nACGTACGTTGCA\n";
        f << ">p21\nMKVLWEFQ\n";
    }
    const std::vector<Case> cases{
        // An empty DB file is a valid empty search (InputCli.SearchWithNoQueriesOrAnEmptyDbIsAnEmptyRun).
        {"search " + q.string() + " " + empty_seq.string() + " --mode global", 1, "record 2"},
        {"search " + q.string() + " " + mixed.string(), 1, "record 21"},
        {"search " + q.string() + " " + db.string() + " --max-hits 0", 2, "--max-hits must be at least 1"},
        {"search " + q.string() + " " + db.string() + " --evalue 0", 2, "--evalue must be > 0"},
        {"search " + prot.string() + " " + prot.string() + " --matrix BLOSUM30 --evalue 10", 1,
         "no published Karlin-Altschul parameters for matrix BLOSUM30"},
        {"sw " + q.string() + " " + db.string() + " --max-hits 3", 2, "applies to `gpualign search` only"},
        {"sw " + q.string() + " " + db.string() + " --score-only --format blast6", 2, "--score-only"},
        {"search " + q.string() + " " + db.string() + " --score-only --format blast6", 2, "--score-only"},
    };
    for (const Case& c : cases) {
        fs::remove(out);
        const RunResult r = run(c.args + " --backend cpu -o " + out.string());
        EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_FALSE(fs::exists(out)) << c.args;
    }
    // A matrix without published statistics still searches, with NA and one warning.
    const RunResult r = run("search " + prot.string() + " " + prot.string() + " --matrix BLOSUM30 --backend cpu -o " +
                            out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("E-values and bit scores are NA"), std::string::npos) << r.err;
    const std::vector<std::string> f = split(lines(slurp(out)).at(0), '\t');
    ASSERT_EQ(f.size(), 12u);
    EXPECT_EQ(f[10], "NA");
    EXPECT_EQ(f[11], "NA");
}

}  // namespace
}  // namespace gpualign::test
