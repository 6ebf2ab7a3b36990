// `--strand plus|both` through the binary (issue 14), CPU backend: real
// PacBio reads (data/reads.fa) reverse-complemented here, aligned with
// --strand both against their windows (data/ref_windows.fa), give the
// forward reads' alignments, reported on the minus strand in TSV, SAM
// (samtools reads it), PAF and BLAST tabular; ties go to plus; plus is the
// default; protein with both is a command-line error; search finds a
// reverse-complemented read's window.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "test_util.hpp"

namespace gpualign::test {
namespace {

namespace fs = std::filesystem;

using Fasta = std::vector<std::pair<std::string, std::string>>;  // (name, letters)

std::string bundled(const std::string& name) { return std::string(GPUALIGN_TEST_DATA) + "/../../data/" + name; }

/// The first `limit` records of a FASTA file: the first word of the header and the letters.
Fasta read_fasta(const std::string& path, std::size_t limit) {
    Fasta out;
    for (const std::string& l : lines(slurp(path))) {
        if (!l.empty() && l[0] == '>') {
            if (out.size() == limit) break;
            out.emplace_back(split(l.substr(1), ' ')[0], "");
        } else if (!out.empty()) {
            out.back().second += l;
        }
    }
    return out;
}

/// The reverse complement of A/C/G/T letters, written independently of the library's.
std::string revcomp(const std::string& s) {
    std::string out(s.rbegin(), s.rend());
    for (char& c : out) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : 'N';
    return out;
}

/// Packed runs of a CIGAR text with = X I D.
std::vector<std::uint32_t> parse_cigar(const std::string& text) {
    std::vector<std::uint32_t> out;
    std::uint32_t n = 0;
    for (const char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            n = n * 10 + static_cast<std::uint32_t>(c - '0');
            continue;
        }
        const CigarOp op = c == '=' ? CigarOp::eq : c == 'X' ? CigarOp::diff : c == 'I' ? CigarOp::ins : CigarOp::del;
        out.push_back(cigar_pack(op, n));
        n = 0;
    }
    return out;
}

std::int64_t num(const std::string& s) { return std::stoll(s); }

/// The records of a SAM text, header lines dropped, cut into fields.
std::vector<std::vector<std::string>> sam_records(const std::string& text) {
    std::vector<std::vector<std::string>> out;
    for (const std::string& l : lines(text))
        if (l.rfind('@', 0) != 0) out.push_back(split(l, '\t'));
    return out;
}

bool have_samtools() { return std::system("samtools --version >/dev/null 2>&1") == 0; }

constexpr std::size_t pairs = 24;

class StrandCli : public CliTest {
protected:
    void SetUp() override {
        CliTest::SetUp();
        reads_ = read_fasta(bundled("reads.fa"), pairs);
        windows_ = read_fasta(bundled("ref_windows.fa"), pairs);
        ASSERT_EQ(reads_.size(), pairs);
        ASSERT_EQ(windows_.size(), pairs);
        Fasta rc;
        for (const auto& [name, seq] : reads_) rc.emplace_back(name, revcomp(seq));
        fwd_ = write_fasta("fwd.fa", reads_).string();
        rc_ = write_fasta("rc.fa", rc).string();
        refs_ = write_fasta("refs.fa", windows_).string();
    }

    /// Runs `gpualign ARGS -o dir/out` (CPU backend), asserts success, returns the output's rows.
    std::string aligned(const std::string& args, const std::string& out) {
        const RunResult r = run(args + " --backend cpu -o " + (dir_ / out).string());
        EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
        return slurp(dir_ / out);
    }

    Fasta reads_, windows_;
    std::string fwd_, rc_, refs_;
};

// The reverse-complemented reads with --strand both get the forward reads'
// alignments: the same score, reference coordinates, counts and CIGAR
// (along the reference), strand '-', and query coordinates mirrored onto the
// reverse-complemented read's own forward strand; the CIGAR re-scores to the
// score against the reverse complement of the input read. On the plus
// strand alone the same reads score less.
TEST_F(StrandCli, TsvOfReverseComplementedReadsIsTheForwardAlignmentOnTheMinusStrand) {
    const ScoringScheme scheme = dna_scheme(5, 2);  // the CLI's DNA defaults
    for (const std::string mode : {"sw", "nw", "sg"}) {
        const auto fwd = rows(aligned(mode + " " + fwd_ + " " + refs_, mode + "fwd.tsv"));
        const auto both = rows(aligned(mode + " " + rc_ + " " + refs_ + " --strand both", mode + "both.tsv"));
        const auto plus = rows(aligned(mode + " " + rc_ + " " + refs_, mode + "plus.tsv"));
        ASSERT_EQ(fwd.size(), pairs + 1);
        ASSERT_EQ(both.size(), pairs + 1);
        ASSERT_EQ(plus.size(), pairs + 1);
        EXPECT_EQ(both[0].back(), "strand");
        for (std::size_t k = 1; k <= pairs; ++k) {
            const auto &f = fwd[k], &b = both[k];
            ASSERT_EQ(b.size(), 16u);
            const std::int64_t len = num(b[1]);
            EXPECT_EQ(f[15], "+");
            EXPECT_EQ(b[15], "-") << mode << " pair " << k;
            EXPECT_EQ(b[8], f[8]) << "score, " << mode << " pair " << k;
            EXPECT_EQ(b[6], f[6]);
            EXPECT_EQ(b[7], f[7]);
            EXPECT_EQ(num(b[2]), len - num(f[3])) << "query_begin on the forward strand of the input read";
            EXPECT_EQ(num(b[3]), len - num(f[2])) << "query_end on the forward strand of the input read";
            for (std::size_t c = 9; c <= 14; ++c) EXPECT_EQ(b[c], f[c]) << "column " << c;
            EXPECT_LT(num(plus[k][8]), num(f[8])) << "the plus strand alone scores less, " << mode << " pair " << k;
            EXPECT_EQ(plus[k][15], "+");
            // Re-score the CIGAR on the strand it aligns: the reverse complement of the input read.
            AlignmentResult res;
            res.score = static_cast<std::int32_t>(num(b[8]));
            res.query_begin = static_cast<std::int32_t>(len - num(b[3]));
            res.query_end = static_cast<std::int32_t>(len - num(b[2]));
            res.ref_begin = static_cast<std::int32_t>(num(b[6]));
            res.ref_end = static_cast<std::int32_t>(num(b[7]));
            res.has_cigar = true;
            res.cigar = parse_cigar(b[14]);
            const Codes minus = dna(reads_[k - 1].second);  // rc(input read) = the forward read
            EXPECT_EQ(rescore_cigar(res, minus, dna(windows_[k - 1].second), scheme), res.score) << mode << " pair " << k;
        }
    }
}

// SAM: FLAG 16, SEQ the reverse-complemented input read (= the forward
// read), and otherwise the forward run's record field for field; samtools
// reads the records as reverse-strand ones, and calmd changes nothing.
TEST_F(StrandCli, SamOfReverseComplementedReadsHasFlag16AndTheForwardRecord) {
    fs::copy_file(refs_, dir_ / "ref.fa");  // calmd writes ref.fa.fai beside it
    const std::string ref = (dir_ / "ref.fa").string();
    for (const std::string mode : {"sw", "nw", "sg"}) {
        const auto fwd = sam_records(aligned(mode + " " + fwd_ + " " + ref, mode + "fwd.sam"));
        const std::string both_text = aligned(mode + " " + rc_ + " " + ref + " --strand both", mode + "both.sam");
        const auto both = sam_records(both_text);
        ASSERT_EQ(fwd.size(), pairs);
        ASSERT_EQ(both.size(), pairs);
        for (std::size_t k = 0; k < pairs; ++k) {
            EXPECT_EQ(fwd[k][1], "0");
            EXPECT_EQ(both[k][1], "16") << mode << " record " << k;
            auto want = fwd[k];
            want[1] = "16";
            EXPECT_EQ(both[k], want) << mode << " record " << k;
            EXPECT_EQ(both[k][9], reads_[k].second);  // rc(input read) = the forward read (upper case)
        }
        if (!have_samtools()) continue;
        const std::string sam = (dir_ / (mode + "both.sam")).string();
        EXPECT_EQ(std::system(("samtools quickcheck -u " + sam).c_str()), 0);
        ASSERT_EQ(std::system(("samtools view -f 16 -c " + sam + " > " + (dir_ / "count").string()).c_str()), 0);
        EXPECT_EQ(std::stoul(slurp(dir_ / "count")), pairs) << "samtools reads every record as reverse-strand";
        const fs::path fixed = dir_ / (mode + ".calmd.sam");
        ASSERT_EQ(std::system(("samtools calmd " + sam + " " + ref + " > " + fixed.string() + " 2>/dev/null").c_str()), 0);
        EXPECT_EQ(sam_records(slurp(fixed)), both) << "calmd changed a minus-strand record, " << mode;
    }
    if (!have_samtools()) GTEST_SKIP() << "samtools not installed: records checked, samtools not run";
}

// PAF: strand '-' in column 5, query start/end on the forward strand of the
// input read (as the TSV), the rest as the forward run's. BLAST tabular:
// qstart < qend on the forward query, sstart > send (blastn's minus-strand
// hits), statistics as the forward run's.
TEST_F(StrandCli, PafAndBlast6OfReverseComplementedReadsFollowMinimap2AndBlastn) {
    const auto tsv = rows(aligned("sw " + rc_ + " " + refs_ + " --strand both", "both.tsv"));
    const auto fwd_paf = rows(aligned("sw " + fwd_ + " " + refs_, "fwd.paf"));
    const auto paf = rows(aligned("sw " + rc_ + " " + refs_ + " --strand both", "both.paf"));
    const auto fwd_m8 = rows(aligned("sw " + fwd_ + " " + refs_, "fwd.m8"));
    const auto m8 = rows(aligned("sw " + rc_ + " " + refs_ + " --strand both", "both.m8"));
    ASSERT_EQ(paf.size(), pairs);
    ASSERT_EQ(m8.size(), pairs);
    for (std::size_t k = 0; k < pairs; ++k) {
        const auto &p = paf[k], &fp = fwd_paf[k], &t = tsv[k + 1];
        ASSERT_EQ(p.size(), 15u);
        EXPECT_EQ(p[4], "-");
        EXPECT_EQ(fp[4], "+");
        EXPECT_EQ(p[2], t[2]);
        EXPECT_EQ(p[3], t[3]);
        const std::int64_t len = num(p[1]);
        EXPECT_EQ(num(p[2]), len - num(fp[3]));
        EXPECT_EQ(num(p[3]), len - num(fp[2]));
        for (std::size_t c : {0u, 1u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u}) EXPECT_EQ(p[c], fp[c]) << "PAF column " << c;

        const auto &b = m8[k], &fb = fwd_m8[k];
        ASSERT_EQ(b.size(), 12u);
        EXPECT_LT(num(b[6]), num(b[7])) << "qstart < qend";
        EXPECT_GT(num(b[8]), num(b[9])) << "sstart > send";
        EXPECT_EQ(num(b[6]), num(t[2]) + 1);  // 1-based, the forward strand of the input read
        EXPECT_EQ(num(b[7]), num(t[3]));
        EXPECT_EQ(b[8], fb[9]);                // sstart = ref_end
        EXPECT_EQ(b[9], fb[8]);                // send = ref_begin + 1
        for (std::size_t c : {0u, 1u, 2u, 3u, 4u, 5u, 10u, 11u}) EXPECT_EQ(b[c], fb[c]) << "blast6 column " << c;
    }
}

// Plus is the default: no --strand equals --strand plus; and forward reads
// with --strand both keep every pair on plus, with the plus run's bytes.
// --help names the option and its default.
TEST_F(StrandCli, PlusIsTheDefault) {
    for (const std::string fmt : {"tsv", "sam", "paf", "m8"}) {
        const auto drop_pg = [](std::string t) {  // SAM @PG holds the command line
            const auto at = t.find("\n@PG\t");
            if (at != std::string::npos) t.erase(at + 1, t.find('\n', at + 1) - at);
            return t;
        };
        const std::string none = drop_pg(aligned("sw " + rc_ + " " + refs_, "none." + fmt));
        EXPECT_EQ(drop_pg(aligned("sw " + rc_ + " " + refs_ + " --strand plus", "plus." + fmt)), none) << fmt;
        const std::string fwd = drop_pg(aligned("sw " + fwd_ + " " + refs_, "fwd." + fmt));
        EXPECT_EQ(drop_pg(aligned("sw " + fwd_ + " " + refs_ + " --strand both", "both." + fmt)), fwd) << fmt;
    }
    for (const auto& row : rows(slurp(dir_ / "none.tsv"))) EXPECT_TRUE(row.back() == "+" || row.back() == "strand");
    const RunResult help = run("--help");
    ASSERT_EQ(help.exit_code, 0);
    const std::size_t at = help.out.find("--strand arg");
    ASSERT_NE(at, std::string::npos) << help.out;
    EXPECT_NE(help.out.find("(default: plus)", at), std::string::npos) << help.out.substr(at, 400);
    const RunResult bad = run("sw " + fwd_ + " " + refs_ + " --strand minus");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("--strand must be one of plus|both"), std::string::npos) << bad.err;
}

// Ties go to plus: a reverse palindrome (its reverse complement is itself)
// scores the same on both strands and stays '+', FLAG 0; a query that
// matches only reverse-complemented goes to '-'.
TEST_F(StrandCli, TiesGoToPlus) {
    const fs::path q = write_fasta("q.fa", {{"palindrome", "AAGCTTGAATTCAAGCTT"}, {"poly_a", "AAAAAAAAAAAAAAAA"}});
    const fs::path r = write_fasta("r.fa", {{"w1", "CCCCAAGCTTGAATTCAAGCTTCCCC"}, {"w2", "GCGCTTTTTTTTTTTTTTTTGCGC"}});
    for (const std::string mode : {"sw", "nw"}) {
        const auto t = rows(aligned(mode + " " + q.string() + " " + r.string() + " --strand both", mode + ".tsv"));
        ASSERT_EQ(t.size(), 3u);
        EXPECT_EQ(t[1][15], "+") << mode << ": a tie goes to plus";
        EXPECT_EQ(t[2][15], "-") << mode;
        const auto sam = sam_records(aligned(mode + " " + q.string() + " " + r.string() + " --strand both", mode + ".sam"));
        ASSERT_EQ(sam.size(), 2u);
        EXPECT_EQ(sam[0][1], "0");
        EXPECT_EQ(sam[1][1], "16");
        EXPECT_EQ(sam[1][9], "TTTTTTTTTTTTTTTT");
    }
    const auto sw = rows(slurp(dir_ / "sw.tsv"));
    EXPECT_EQ(sw[1][8], "36");  // 18 matches x 2
    EXPECT_EQ(sw[1][14], "18=");
    EXPECT_EQ(sw[2][8], "32");
    EXPECT_EQ(sw[2][6], "4");
    EXPECT_EQ(sw[2][7], "20");
}

// Protein has no reverse complement: --strand both is a command-line error
// (exit 2) whether the alphabet is given or detected, saying why; no output.
TEST_F(StrandCli, ProteinWithBothStrandsIsACommandLineError) {
    const std::string cow = bundled("orthologs_cow.fa"), pig = bundled("orthologs_pig.fa");
    const fs::path out = dir_ / "p.tsv";
    for (const std::string args : {"sw " + cow + " " + pig + " --strand both",
                                   "nw " + cow + " " + pig + " --strand both --alphabet protein",
                                   "search " + cow + " " + pig + " --strand both",
                                   "search " + cow + " " + pig + " --strand both --alphabet protein"}) {
        const RunResult r = run(args + " --backend cpu -o " + out.string());
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_NE(r.err.find("--strand both applies to DNA only: protein sequences have no reverse complement"),
                  std::string::npos)
            << r.err;
        EXPECT_FALSE(fs::exists(out)) << args;
    }
    const RunResult plus = run("sw " + cow + " " + pig + " --strand plus --backend cpu -o " + out.string());
    EXPECT_EQ(plus.exit_code, 0) << plus.err;
}

// search --strand both: reverse-complemented reads against all the windows
// find their own window on the minus strand, with the forward pair's score
// and the same alignment as `sw --strand both` gives the pair; each format
// reports the strand (TSV last column, blast6 sstart > send, SAM FLAG 16).
// On the plus strand alone the window's best score is lower.
TEST_F(StrandCli, SearchBothStrandsFindsTheReverseComplementedReadsWindow) {
    constexpr std::size_t queries = 3;
    Fasta rc;
    for (std::size_t k = 0; k < queries; ++k) rc.emplace_back(reads_[k].first, revcomp(reads_[k].second));
    const std::string q = write_fasta("rq.fa", rc).string();
    const auto pair_rows = rows(aligned("sw " + rc_ + " " + refs_ + " --strand both", "pairs.tsv"));
    const auto hits = rows(aligned("search " + q + " " + refs_ + " -k 1 --strand both", "hits.tsv"));
    const auto plus = rows(aligned("search " + q + " " + refs_ + " -k 1", "plus.tsv"));
    ASSERT_EQ(hits.size(), queries + 1);
    ASSERT_EQ(hits[0].size(), 18u);
    EXPECT_EQ(hits[0][17], "strand");
    for (std::size_t k = 0; k < queries; ++k) {
        const auto &h = hits[k + 1], &p = pair_rows[k + 1];
        ASSERT_EQ(h.size(), 18u);
        EXPECT_EQ(h[4], windows_[k].first) << "query " << k << " finds its window";
        EXPECT_EQ(h[17], "-");
        for (std::size_t c = 0; c < 15; ++c) EXPECT_EQ(h[c], p[c]) << "query " << k << " column " << c;
        EXPECT_EQ(p[15], "-");
        ASSERT_EQ(plus[k + 1].size(), 18u);
        EXPECT_EQ(plus[k + 1][17], "+");
        EXPECT_LT(num(plus[k + 1][8]), num(h[8])) << "the plus strand alone finds less";
    }
    const auto m8 = rows(aligned("search " + q + " " + refs_ + " -k 1 --strand both", "hits.m8"));
    ASSERT_EQ(m8.size(), queries);
    for (std::size_t k = 0; k < queries; ++k) {
        EXPECT_EQ(m8[k][1], windows_[k].first);
        EXPECT_LT(num(m8[k][6]), num(m8[k][7]));
        EXPECT_GT(num(m8[k][8]), num(m8[k][9])) << "sstart > send";
        EXPECT_EQ(num(m8[k][8]), num(hits[k + 1][7]));
        EXPECT_EQ(num(m8[k][9]), num(hits[k + 1][6]) + 1);
        EXPECT_EQ(m8[k][10], hits[k + 1][15]);  // E-value
    }
    const auto sam = sam_records(aligned("search " + q + " " + refs_ + " -k 1 --strand both", "hits.sam"));
    ASSERT_EQ(sam.size(), queries);
    for (std::size_t k = 0; k < queries; ++k) {
        EXPECT_EQ(sam[k][1], "16");
        EXPECT_EQ(sam[k][9], reads_[k].second);
    }
}

}  // namespace
}  // namespace gpualign::test
