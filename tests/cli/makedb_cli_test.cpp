// `gpualign makedb DB.fa DB.gadb` and `gpualign search QUERIES DB.gadb`
// through the binary, CPU backend: the search output is byte for byte the
// output of the FASTA DB (modes, formats, strands, DNA codings, threads,
// gzip input); a truncated, foreign or corrupt DB file is a clear error
// (exit 1, the file named, no output left), and so is bad makedb input.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"

namespace gpualign::test {
namespace {

namespace fs = std::filesystem;

class MakeDbCli : public CliTest {
protected:
    /// Random records over `letters`, of 20..199 letters, with related
    /// copies (so searches find hits of every strength), some descriptions
    /// and wrapped lines.
    fs::path random_fasta(const std::string& file, std::uint32_t seed, std::size_t n, const std::string& letters) {
        std::mt19937 rng(seed);
        std::string text, last;
        for (std::size_t k = 0; k < n; ++k) {
            std::string s(20 + rng() % 180, 'A');
            for (char& c : s) c = letters[rng() % letters.size()];
            if (!last.empty() && rng() % 2) {  // a mutated copy of the previous record
                s = last;
                for (char& c : s)
                    if (rng() % 10 == 0) c = letters[rng() % letters.size()];
            }
            last = s;
            text += ">rec" + std::to_string(k) + (k % 3 ? " description " + std::to_string(k) : "") + "\n";
            for (std::size_t i = 0; i < s.size(); i += 61) text += s.substr(i, 61) + "\n";
        }
        return write(file, text);
    }

    /// `gpualign makedb FA DB` succeeds.
    void makedb(const fs::path& fa, const fs::path& db, const std::string& opts = "") {
        const RunResult r = run("makedb " + fa.string() + " " + db.string() + " " + opts);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        ASSERT_TRUE(fs::exists(db));
    }

    /// The search output of QUERIES against the FASTA DB and against the DB
    /// file, which must be the same bytes (SAM: but the @PG line, which
    /// holds the command line).
    void expect_same_search(const fs::path& q, const fs::path& fa, const fs::path& db, const std::string& opts,
                            const std::string& ext = "tsv") {
        const fs::path a = dir_ / ("a." + ext), b = dir_ / ("b." + ext);
        const RunResult ra = run("search " + q.string() + " " + fa.string() + " --backend cpu " + opts + " -o " + a.string());
        ASSERT_EQ(ra.exit_code, 0) << ra.err;
        const RunResult rb = run("search " + q.string() + " " + db.string() + " --backend cpu " + opts + " -o " + b.string());
        ASSERT_EQ(rb.exit_code, 0) << rb.err;
        std::string ta = slurp(a), tb = slurp(b);
        if (ext == "sam") {
            const auto drop_pg = [](const std::string& t) {
                std::string out;
                for (const std::string& l : lines(t))
                    if (l.rfind("@PG", 0) != 0) out += l + "\n";
                return out;
            };
            ta = drop_pg(ta);
            tb = drop_pg(tb);
        }
        EXPECT_GT(lines(ta).size(), 3u) << opts;
        EXPECT_EQ(ta, tb) << opts << " " << ext;
    }

    /// A DB file's bytes.
    std::string bytes(const fs::path& p) { return slurp(p); }
};

TEST_F(MakeDbCli, ProteinSearchIsIdenticalWithTheDbFile) {
    const std::string aa = "ACDEFGHIKLMNPQRSTVWY";
    const fs::path fa = random_fasta("db.fa", 1, 300, aa), q = random_fasta("q.fa", 2, 4, aa);
    const fs::path db = dir_ / "db.gadb";
    makedb(fa, db);
    expect_same_search(q, fa, db, "");
    expect_same_search(q, fa, db, "-k 7 --threads 1", "m8");
    expect_same_search(q, fa, db, "--mode global --matrix BLOSUM45", "tsv");
    expect_same_search(q, fa, db, "--mode semi-global --score-only", "tsv");
    expect_same_search(q, fa, db, "", "sam");
    // The DB file is the same whatever the threads and the compression of its source.
    const fs::path db1 = dir_ / "db1.gadb", gz = dir_ / "db.fa.gz", dbz = dir_ / "dbz.gadb";
    makedb(fa, db1, "--threads 1");
    ASSERT_EQ(std::system(("gzip -c " + fa.string() + " > " + gz.string()).c_str()), 0);
    makedb(gz, dbz, "--threads 2");
    EXPECT_EQ(bytes(db1), bytes(db));
    EXPECT_EQ(bytes(dbz), bytes(db));
}

TEST_F(MakeDbCli, DnaSearchIsIdenticalOnBothStrandsAndWithIupacCodes) {
    const fs::path fa = random_fasta("db.fa", 3, 300, "ACGTACGTACGTacgtN"), q = random_fasta("q.fa", 4, 3, "ACGT");
    const fs::path db = dir_ / "db.gadb";
    makedb(fa, db);
    expect_same_search(q, fa, db, "");
    expect_same_search(q, fa, db, "--strand both -k 5", "tsv");
    expect_same_search(q, fa, db, "--strand both", "sam");
    // A matrix with IUPAC rows encodes each ambiguity code apart: the DB
    // file's letters are encoded again in that coding.
    const fs::path fa2 = random_fasta("iupac.fa", 5, 200, "ACGTACGTACGTACGTRYKMSWBDHVN"), db2 = dir_ / "iupac.gadb";
    makedb(fa2, db2);
    expect_same_search(q, fa2, db2, "--matrix " + std::string(GPUALIGN_TEST_DATA) + "/io/ednafull.mat");
}

TEST_F(MakeDbCli, AlphabetOfTheDbFileMustMatchTheQueries) {
    const fs::path fa = random_fasta("db.fa", 6, 50, "ACDEFGHIKLMNPQRSTVWY"), db = dir_ / "db.gadb";
    makedb(fa, db);
    const fs::path dna = random_fasta("q.fa", 7, 2, "ACGT"), out = dir_ / "out.tsv";
    RunResult r = run("search " + dna.string() + " " + db.string() + " --backend cpu -o " + out.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("holds protein records"), std::string::npos) << r.err;
    r = run("search " + dna.string() + " " + db.string() + " --backend cpu --alphabet dna -o " + out.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("makedb --alphabet dna"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    // Built with --alphabet protein, DNA-looking records are protein.
    const fs::path db2 = dir_ / "dna_as_protein.gadb";
    makedb(dna, db2, "--alphabet protein");
    r = run("search " + dna.string() + " " + db2.string() + " --backend cpu --alphabet protein -o " + out.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(MakeDbCli, BadDbFilesAreClearErrorsWithoutOutput) {
    const fs::path fa = random_fasta("db.fa", 8, 40, "ACDEFGHIKLMNPQRSTVWY"), db = dir_ / "db.gadb";
    makedb(fa, db);
    const fs::path q = random_fasta("q.fa", 9, 1, "ACDEFGHIKLMNPQRSTVWY");
    const std::string good = bytes(db);
    ASSERT_GT(good.size(), 200u);
    struct Case {
        std::string name, content, message;
    };
    std::vector<Case> cases;
    for (const std::size_t cut : {std::size_t{8}, std::size_t{60}, std::size_t{80}, std::size_t{100}, good.size() - 1})
        cases.push_back({"cut" + std::to_string(cut), good.substr(0, cut), "truncated"});
    std::string version = good;
    version[8] = 2;
    cases.push_back({"version", version, "format version 2"});
    std::string code = good;
    code.back() = static_cast<char>(0xFF);
    cases.push_back({"code", code, "a code 255 outside the protein alphabet"});
    std::string entry = good;
    entry[80 + 8] = 0;  // the first record's name length
    cases.push_back({"entry", entry, "corrupt DB file"});
    std::string count = good;
    count[16] = static_cast<char>(count[16] + 1);  // one record more than the file holds
    cases.push_back({"count", count, "corrupt DB file"});
    for (const Case& c : cases) {
        const fs::path bad = write(c.name + ".gadb", c.content), out = dir_ / "out.tsv";
        const RunResult r = run("search " + q.string() + " " + bad.string() + " --backend cpu -o " + out.string());
        EXPECT_EQ(r.exit_code, 1) << c.name << ": " << r.err;
        EXPECT_NE(r.err.find(bad.string()), std::string::npos) << c.name << ": " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
        EXPECT_FALSE(fs::exists(out)) << c.name;
    }
}

TEST_F(MakeDbCli, BadInputAndCommandLinesOfMakedb) {
    const fs::path db = dir_ / "db.gadb";
    const fs::path bad = write("bad.fa", ">r1\nMKVL\n>r2\nMK1VL-Q\n");
    RunResult r = run("makedb " + bad.string() + " " + db.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("record 2 'r2'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'1' at position 3"), std::string::npos) << r.err;  // a digit is an error where it is written
    EXPECT_FALSE(fs::exists(db));
    r = run("makedb " + (dir_ / "missing.fa").string() + " " + db.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("missing.fa"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db));
    const fs::path fa = write("ok.fa", ">r1\nMKVL\n");
    r = run("makedb " + fa.string() + " " + (dir_ / "no" / "such" / "dir.gadb").string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    for (const std::string& args : {"makedb " + fa.string(), "makedb " + fa.string() + " a b",
                                    "makedb " + fa.string() + " " + db.string() + " --match 3",
                                    "makedb " + fa.string() + " " + db.string() + " --alphabet rna",
                                    "makedb " + fa.string() + " " + fa.string()}) {
        r = run(args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
        EXPECT_FALSE(fs::exists(db)) << args;
    }
}

}  // namespace
}  // namespace gpualign::test
