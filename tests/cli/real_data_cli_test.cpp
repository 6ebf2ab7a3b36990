// Real data through the CLI: the first 1,000 PacBio E. coli pairs and the 37
// cow/pig ortholog proteins, aligned by the `gpualign` binary (CPU backend);
// the TSV's score and end columns are checked against SeqAn3 and its
// coordinates against the input lengths.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

namespace fs = std::filesystem;

/// Copies the first `limit` FASTA records of `from` into `to`.
void head_records(const fs::path& from, const fs::path& to, std::size_t limit) {
    std::ifstream in(from);
    std::ofstream out(to);
    std::string line;
    std::size_t records = 0;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>' && ++records > limit) break;
        out << line << '\n';
    }
}

struct TsvRow {
    std::vector<std::string> cols;
    int score() const { return std::stoi(cols.at(8)); }
};

std::vector<TsvRow> read_tsv(const fs::path& p) {
    std::ifstream in(p);
    std::string line;
    std::vector<TsvRow> rows;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        TsvRow r;
        std::stringstream ss(line);
        std::string col;
        while (std::getline(ss, col, '\t')) r.cols.push_back(col);
        if (!line.empty() && line.back() == '\t') r.cols.emplace_back();
        rows.push_back(std::move(r));
    }
    return rows;
}

class RealDataCli : public gpualign::test::CliTest {
protected:
    void SetUp() override {
        if (!fs::is_directory(shared_data())) GTEST_SKIP() << "no data folder " << shared_data();
        CliTest::SetUp();
    }

    /// Runs the CLI and checks every row against SeqAn3.
    void check(const fs::path& queries, const fs::path& refs, const std::vector<Pair>& pairs, Alphabet a,
               const std::string& mode, int go, int ge) {
        const fs::path out = dir_ / (mode + ".tsv");
        const std::string cmd = std::string(GPUALIGN_BINARY) + " " + mode + " " + queries.string() + " " +
                                refs.string() + " --backend cpu -q -o " + out.string();
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        const auto rows = read_tsv(out);
        ASSERT_EQ(rows.size(), pairs.size());
        const AlignMode m = mode == "sw" ? AlignMode::local : AlignMode::global;
        const auto theirs = oracle(pairs, a, m, go, ge);
        int failures = 0;
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const auto& c = rows[k].cols;
            ASSERT_EQ(c.size(), 16u) << "row " << k;
            EXPECT_EQ(c[15], "+") << "row " << k;  // --strand plus, the default
            const bool ok = rows[k].score() == theirs[k].score &&
                            (rows[k].score() == 0 || (std::stoi(c[3]) == theirs[k].query_end &&
                                                      std::stoi(c[7]) == theirs[k].ref_end)) &&
                            std::stoul(c[1]) == pairs[k].query.size() && std::stoul(c[5]) == pairs[k].ref.size();
            if (!ok && ++failures <= 10)
                ADD_FAILURE() << mode << " pair " << k << ": TSV score " << c[8] << " end (" << c[3] << "," << c[7]
                              << "), SeqAn3 " << theirs[k].score << " (" << theirs[k].query_end << ","
                              << theirs[k].ref_end << ")";
            if (m == AlignMode::global) {
                EXPECT_EQ(c[2], "0");
                EXPECT_EQ(c[6], "0");
            }
        }
        EXPECT_EQ(failures, 0);
    }
};

TEST_F(RealDataCli, PacbioEcoliFirst1000) {
    const auto src = shared_data() / "dna" / "pacbio_ecoli";
    const fs::path q = dir_ / "reads.fa", t = dir_ / "refs.fa";
    head_records(src / "reads.fa", q, 1000);
    head_records(src / "ref_windows.fa", t, 1000);
    const auto qs = read_fasta_codes<Alphabet::dna>(q), ts = read_fasta_codes<Alphabet::dna>(t);
    ASSERT_EQ(qs.size(), 1000u);
    std::vector<Pair> pairs;
    for (std::size_t k = 0; k < qs.size(); ++k) pairs.push_back({qs[k], ts[k]});
    check(q, t, pairs, Alphabet::dna, "sw", 5, 2);
    check(q, t, pairs, Alphabet::dna, "nw", 5, 2);
}

TEST_F(RealDataCli, CowPigOrthologsBlosum62) {
    const auto src = shared_data() / "protein";
    const auto qs = read_fasta_codes<Alphabet::protein>(src / "orthologs_cow.fa");
    const auto ts = read_fasta_codes<Alphabet::protein>(src / "orthologs_pig.fa");
    ASSERT_EQ(qs.size(), 37u);
    std::vector<Pair> pairs;
    for (std::size_t k = 0; k < qs.size(); ++k) pairs.push_back({qs[k], ts[k]});
    check(src / "orthologs_cow.fa", src / "orthologs_pig.fa", pairs, Alphabet::protein, "sw", 11, 1);
    check(src / "orthologs_cow.fa", src / "orthologs_pig.fa", pairs, Alphabet::protein, "nw", 11, 1);
}

}  // namespace
}  // namespace gpualign::test
