// E-values and bit scores against NCBI BLAST+ 2.12 (issue 41): `gpualign
// search --format blast6` against `blastp -db` on a real protein set, and
// `gpualign sw -o x.m8` against `blastn -subject` on real DNA pairs (record
// i against record i, one blastn per pair, as the pairwise DB is the one
// ref). For every hit both report at the same coordinates (so the same
// alignment score), the E-values agree to 5% and print the same, and the
// bit scores print the same. Skips where Debian's ncbi-blast+ is not
// installed (scripts/deps.sh installs it). Also: a search of one shard with
// --db-size and --db-seqs gives the whole DB's E-values (needs no BLAST).
// Data: tests/data/blast_stats/ (README.md there says where it comes from).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cli_fixture.hpp"

namespace gpualign::test {
namespace {

namespace fs = std::filesystem;

fs::path blast_data() { return fs::path(GPUALIGN_TEST_DATA) / "blast_stats"; }

bool have_blast() {
    return std::system("command -v blastp >/dev/null 2>&1 && command -v blastn >/dev/null 2>&1 && "
                       "command -v makeblastdb >/dev/null 2>&1") == 0;
}

/// qseqid, sseqid, qstart, qend, sstart, send: one alignment.
using HitKey = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;

HitKey key_of(const std::vector<std::string>& f) { return {f[0], f[1], f[6], f[7], f[8], f[9]}; }

/// The figures of one comparison.
struct Comparison {
    int compared = 0;
    int identical = 0;        ///< E-value and bit score printed the same
    double worst_ratio = 1;   ///< the largest E-value ratio (the larger over the smaller)
    int strong = 0, weak = 0; ///< hits compared with E < 1e-50, and with E >= 1
};

/// Compares gpualign's blast6 rows with BLAST's "-outfmt 6" rows (the first
/// row of each alignment) at the same coordinates.
Comparison compare(const std::string& gpualign_m8, const std::string& blast_tsv, const std::string& what) {
    std::map<HitKey, std::vector<std::string>> blast;
    for (const std::vector<std::string>& f : rows(blast_tsv))
        if (f.size() >= 12) blast.emplace(key_of(f), f);
    Comparison c;
    for (const std::vector<std::string>& g : rows(gpualign_m8)) {
        if (g.size() != 12) {
            ADD_FAILURE() << what << ": a blast6 row without 12 columns";
            continue;
        }
        const auto it = blast.find(key_of(g));
        if (it == blast.end()) continue;
        const std::vector<std::string>& b = it->second;
        ++c.compared;
        const double eg = std::stod(g[10]), eb = std::stod(b[10]);
        const double ratio = eg == eb ? 1.0 : std::max(eg, eb) / std::min(eg, eb);
        c.worst_ratio = std::max(c.worst_ratio, ratio);
        if (eb < 1e-50) ++c.strong;
        if (eb >= 1) ++c.weak;
        EXPECT_LE(ratio, 1.05) << what << ": " << g[0] << " " << g[1] << " E-value " << g[10] << ", BLAST " << b[10];
        EXPECT_EQ(g[10], b[10]) << what << ": " << g[0] << " " << g[1] << " E-value as printed";
        EXPECT_EQ(g[11], b[11]) << what << ": " << g[0] << " " << g[1] << " bit score as printed";
        if (g[10] == b[10] && g[11] == b[11]) ++c.identical;
    }
    std::cout << what << ": " << c.compared << " hits compared, " << c.identical
              << " printed identically, largest E-value ratio " << c.worst_ratio << " (" << c.strong
              << " with E < 1e-50, " << c.weak << " with E >= 1)\n";
    return c;
}

class BlastStatsCli : public CliTest {};

TEST_F(BlastStatsCli, BlastpEvaluesAndBitScores) {
    if (!have_blast()) GTEST_SKIP() << "ncbi-blast+ is not installed (scripts/deps.sh)";
    const fs::path db = blast_data() / "protein_db.fa", q = blast_data() / "protein_queries.fa";
    const fs::path blastdb = dir_ / "protein_db", btsv = dir_ / "blastp.tsv", m8 = dir_ / "gpualign.m8";
    ASSERT_EQ(std::system(("makeblastdb -in " + db.string() + " -dbtype prot -out " + blastdb.string() +
                           " >/dev/null 2>&1").c_str()),
              0);
    ASSERT_EQ(std::system(("blastp -query " + q.string() + " -db " + blastdb.string() +
                           " -seg no -comp_based_stats 0 -matrix BLOSUM62 -gapopen 11 -gapextend 1 "
                           "-max_target_seqs 500 -evalue 1000 -outfmt 6 -out " + btsv.string())
                              .c_str()),
              0);
    const RunResult r = run("search " + q.string() + " " + db.string() +
                            " --matrix BLOSUM62 --gap-open 11 --gap-extend 1 -k 500 --format blast6 -o " + m8.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Comparison c = compare(slurp(m8), slurp(btsv), "blastp");
    EXPECT_GE(c.compared, 400);
    EXPECT_EQ(c.identical, c.compared);
    EXPECT_GE(c.strong, 20);  // self hits and close globins (HBB_HUMAN against itself: 2.72e-110)
    EXPECT_GE(c.weak, 100);   // chance hits
    EXPECT_NE(slurp(m8).find("HBB_HUMAN\tHBB_HUMAN\t100.000\t146\t0\t0\t1\t146\t1\t146\t2.72e-110\t303\n"),
              std::string::npos);
}

TEST_F(BlastStatsCli, BlastnEvaluesAndBitScoresOfPairs) {
    if (!have_blast()) GTEST_SKIP() << "ncbi-blast+ is not installed (scripts/deps.sh)";
    const fs::path q = blast_data() / "dna_queries.fa", refs = blast_data() / "dna_refs.fa";
    const fs::path m8 = dir_ / "gpualign.m8";
    const RunResult r = run("sw " + q.string() + " " + refs.string() +
                            " --match 2 --mismatch 3 --gap-open 5 --gap-extend 2 -o " + m8.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // One blastn per pair: -subject with one record makes that record the DB.
    const auto records = [](const fs::path& p) {
        std::vector<std::string> out;
        for (const std::string& l : lines(slurp(p))) {
            if (!l.empty() && l[0] == '>') out.emplace_back();
            out.back() += l + '\n';
        }
        return out;
    };
    const std::vector<std::string> qs = records(q), rs = records(refs);
    ASSERT_EQ(qs.size(), 24u);
    ASSERT_EQ(rs.size(), qs.size());
    std::string blast_rows;
    for (std::size_t i = 0; i < qs.size(); ++i) {
        const fs::path qi = write("q.fa", qs[i]), ri = write("r.fa", rs[i]), out = dir_ / "blastn.tsv";
        ASSERT_EQ(std::system(("blastn -task blastn -word_size 7 -reward 2 -penalty -3 -gapopen 5 -gapextend 2 "
                               "-dust no -strand plus -evalue 1000 -outfmt 6 -query " + qi.string() + " -subject " +
                               ri.string() + " -out " + out.string())
                                  .c_str()),
                  0)
            << "pair " << i + 1;
        blast_rows += slurp(out);
    }
    const Comparison c = compare(slurp(m8), blast_rows, "blastn");
    EXPECT_EQ(c.compared, 24);
    EXPECT_EQ(c.identical, c.compared);
}

// A search of half of the DB with --db-size and --db-seqs of the whole DB
// prints the whole DB's E-values (the Snakemake shards rely on it), and
// without --db-seqs the length adjustment (DNA) or nothing (protein, where
// Spouge's correction uses the DB letters only) would differ.
TEST_F(BlastStatsCli, ShardWithDbSizeAndDbSeqsGivesTheWholeDbsEvalues) {
    const std::vector<std::string> q = lines(slurp(blast_data() / "dna_queries.fa"));
    const std::vector<std::string> refs = lines(slurp(blast_data() / "dna_refs.fa"));
    // The refs as a DB, split into two shards of 12 records each.
    std::string shard[2], whole;
    std::uint64_t letters = 0;
    int records = 0;
    for (const std::string& l : refs) {
        if (!l.empty() && l[0] == '>') ++records;
        else letters += l.size();
        shard[records <= 12 ? 0 : 1] += l + '\n';
        whole += l + '\n';
    }
    ASSERT_EQ(records, 24);
    std::string queries;  // the first 16 queries (whole reads and long prefixes)
    int n = 0;
    for (const std::string& l : q) {
        if (!l.empty() && l[0] == '>' && ++n > 16) break;
        queries += l + '\n';
    }
    const fs::path qf = write("queries.fa", queries), wf = write("whole.fa", whole), s0 = write("s0.fa", shard[0]),
                   s1 = write("s1.fa", shard[1]);
    const std::string scheme = " --match 2 --mismatch 3 --gap-open 5 --gap-extend 2 -k 3 --format blast6";
    ASSERT_EQ(run("search " + qf.string() + " " + wf.string() + scheme + " -o " + (dir_ / "whole.m8").string()).exit_code, 0);
    std::vector<std::vector<std::string>> want = rows(slurp(dir_ / "whole.m8")), got, letters_only;
    for (const fs::path& s : {s0, s1}) {
        const std::string sizes = " --db-size " + std::to_string(letters);
        const RunResult r = run("search " + qf.string() + " " + s.string() + scheme + sizes + " --db-seqs 24 -o " +
                                (dir_ / "shard.m8").string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        for (auto& row : rows(slurp(dir_ / "shard.m8"))) got.push_back(row);
        ASSERT_EQ(run("search " + qf.string() + " " + s.string() + scheme + sizes + " -o " + (dir_ / "l.m8").string())
                      .exit_code,
                  0);
        for (auto& row : rows(slurp(dir_ / "l.m8"))) letters_only.push_back(row);
    }
    int found = 0, differs = 0;
    for (const auto& w : want)
        for (std::size_t k = 0; k < got.size(); ++k)
            if (key_of(got[k]) == key_of(w)) {
                ++found;
                EXPECT_EQ(got[k], w) << w[0] << " " << w[1];
                if (letters_only[k][10] != w[10]) ++differs;
            }
    EXPECT_GE(found, 16);
    EXPECT_GT(differs, 0) << "--db-seqs changes nothing here: the test would not notice it missing";
    EXPECT_EQ(run("search " + qf.string() + " " + s0.string() + " --db-seqs 0 -o " + (dir_ / "x.m8").string()).exit_code,
              2);
}

// Issue 41 item 4: the warning names match/mismatch and gap costs as what
// they are, and the -v scheme line shows the values.
TEST_F(BlastStatsCli, SchemeValuesInTheWarningAndTheVerboseLine) {
    const fs::path a = write("a.fa", ">a\nACGTACGTAAAAGGGCCCTTTAAACCCGGG\n");
    const fs::path b = write("b.fa", ">b\nACGTACGTAAAAGGGCCATTTAAACCCGGG\n");
    const RunResult r = run("sw -v " + a.string() + " " + b.string() +
                            " --match 1 --mismatch 4 --gap-open 7 --gap-extend 3 -o " + (dir_ / "x.m8").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("no published Karlin-Altschul parameters for this scheme (match/mismatch 1/4, "
                         "gap_open/gap_extend 7/3): E-values and bit scores are NA"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("local alignment, dna alphabet, match/mismatch 1/4, gap_open/gap_extend 7/3"), std::string::npos)
        << r.err;
    const fs::path p = write("p.fa", ">p\nMVHLTPEEKSAVTALWGKVNVDEVGGEALGRLL\n");
    const RunResult s = run("search -v " + p.string() + " " + p.string() + " -o " + (dir_ / "p.m8").string());
    ASSERT_EQ(s.exit_code, 0) << s.err;
    EXPECT_NE(s.err.find("protein alphabet, BLOSUM62, gap_open/gap_extend 11/1, local mode"), std::string::npos)
        << s.err;
}

}  // namespace
}  // namespace gpualign::test
