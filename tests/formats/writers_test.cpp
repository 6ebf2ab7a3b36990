// Output: atomic file, TSV (golden file) and SAM (checked by samtools).
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/formats/writers.hpp"
#include "gpualign/io/record_block.hpp"
#include "temp_dir.hpp"

namespace gpualign {
namespace {

namespace fs = std::filesystem;
const std::string data_dir = std::string(GPUALIGN_TEST_DATA) + "/io/";
const std::string shared_dir = std::string(GPUALIGN_SHARED_DATA) + "/";

/// A fresh directory for one test (tests/temp_dir.hpp).
struct TempDir : test::TempDir {
    TempDir() : test::TempDir("gpualign_writers") {}
};

std::string slurp(const fs::path& p) { return test::slurp_file(p); }

SequenceRecord record(const std::string& name, const std::string& seq, Alphabet a = Alphabet::dna,
                      const std::string& qual = "") {
    SequenceRecord r;
    r.name = name;
    r.sequence = seq;
    r.quality = qual;
    r.number = 1;
    EXPECT_EQ(encode_sequence(a, seq, r.codes), std::nullopt);
    return r;
}

AlignmentResult result(std::int32_t score, std::int32_t qb, std::int32_t qe, std::int32_t rb, std::int32_t re,
                       std::vector<std::uint32_t> cigar, bool has_cigar = true) {
    AlignmentResult r;
    r.score = score;
    r.query_begin = qb;
    r.query_end = qe;
    r.ref_begin = rb;
    r.ref_end = re;
    r.cigar = std::move(cigar);
    r.has_cigar = has_cigar;
    return r;
}

constexpr auto eq = CigarOp::eq;
constexpr auto diff = CigarOp::diff;
constexpr auto ins = CigarOp::ins;
constexpr auto del = CigarOp::del;

/// The three pairs of the golden files: a local alignment with clipped ends
/// and a deletion, an unaligned pair, and an alignment with an insertion.
struct Fixture {
    SequenceRecord q1 = record("q1", "ACGTACGTAC", Alphabet::dna, "ABCDEFGHIJ");
    SequenceRecord q2 = record("q2", "aaaa");
    SequenceRecord q3 = record("q3", "ACGTTA");
    SequenceRecord r1 = record("r1", "TTACGTTACGTGG");
    SequenceRecord r2 = record("r2", "ACGTA");
    AlignmentResult a1 = result(7, 2, 9, 2, 10, {cigar_pack(eq, 3), cigar_pack(del, 1), cigar_pack(eq, 2),
                                                 cigar_pack(diff, 1), cigar_pack(eq, 1)});
    AlignmentResult a2 = result(0, 0, 0, 0, 0, {});
    AlignmentResult a3 = result(3, 0, 6, 0, 5, {cigar_pack(eq, 4), cigar_pack(ins, 1), cigar_pack(eq, 1)});

    void write_all(AlignmentWriter& w, bool score_only = false) const {
        auto strip = [&](AlignmentResult r) {
            if (score_only) {
                r.cigar.clear();
                r.has_cigar = false;
            }
            return r;
        };
        w.write(q1, r1, strip(a1));
        w.write(q2, r1, strip(a2));
        w.write(q3, r2, strip(a3));
    }
};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

bool have_samtools() { return std::system("samtools --version > /dev/null 2>&1") == 0; }

/// Runs a shell command; returns its exit status and stdout+stderr.
std::pair<int, std::string> run(const std::string& cmd) {
    std::string out;
    FILE* p = ::popen(("{ " + cmd + "; } 2>&1").c_str(), "r");
    if (!p) return {-1, out};
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = ::pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// samtools quickcheck and a full parse by samtools view; returns the record
/// count. samtools may print nothing but lines containing `allowed_warning`.
std::size_t samtools_accepts(const std::string& path, const std::string& allowed_warning = "") {
    const auto [qc_rc, qc_out] = run("samtools quickcheck -v '" + path + "'");
    EXPECT_EQ(qc_rc, 0) << qc_out;
    const auto [vrc, vout] = run("samtools view '" + path + "' > /dev/null");
    EXPECT_EQ(vrc, 0) << vout;
    for (const auto& line : lines_of(vout))
        EXPECT_TRUE(!allowed_warning.empty() && line.find(allowed_warning) != std::string::npos)
            << "samtools view printed: " << line;
    const auto [rc, out] = run("samtools view -c '" + path + "' 2>/dev/null");
    EXPECT_EQ(rc, 0) << out;
    return rc == 0 ? std::stoul(out) : 0;
}

// ---- OutputFile ----------------------------------------------------------------

TEST(Writers, OutputFileAppearsOnlyOnCommit) {
    TempDir dir;
    const auto path = dir.path / "out.txt";
    {
        OutputFile f(path.string());
        f.write("hello ");
        f.write("world\n");
        EXPECT_FALSE(fs::exists(path));
        ASSERT_EQ(dir.entries().size(), 1u);  // the temporary file, in the same directory
        EXPECT_EQ(dir.entries()[0].front(), '.');
        f.commit();
    }
    EXPECT_EQ(slurp(path), "hello world\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
}

TEST(Writers, OutputFileWithoutCommitLeavesOldFileAndNoTemp) {
    TempDir dir;
    const auto path = dir.path / "out.tsv";
    std::ofstream(path) << "old\n";
    {
        OutputFile f(path.string());
        f.write("new partial output");
    }
    EXPECT_EQ(slurp(path), "old\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.tsv"});
}

TEST(Writers, OutputFileDevFullIsAnError) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    OutputFile f("/dev/full");
    try {
        f.write(std::string(1 << 16, 'x'));  // larger than the stdio buffer: may fail here
        f.commit();                          // or here
        ADD_FAILURE() << "no OutputError";
    } catch (const OutputError& e) {
        EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
    }
}

// write_file appends another open file's whole content, its unflushed
// tail included and whatever its offset, between ordinary writes; into
// /dev/full it is an error.
TEST(Writers, OutputFileWriteFileAppendsAWholeFile) {
    TempDir dir;
    std::string body;
    for (int k = 0; body.size() < (3u << 20); ++k) body += "record " + std::to_string(k) + "\n";
    std::FILE* from = std::tmpfile();
    ASSERT_NE(from, nullptr);
    ASSERT_EQ(std::fwrite(body.data(), 1, body.size(), from), body.size());  // partly still in its buffer
    const auto path = dir.path / "out.sam";
    {
        OutputFile f(path.string());
        f.write("@HD\n");
        f.write_file(from);
        f.write("tail\n");
        f.commit();
    }
    EXPECT_TRUE(slurp(path) == "@HD\n" + body + "tail\n");
    if (fs::exists("/dev/full")) {
        OutputFile full("/dev/full");
        EXPECT_THROW(
            {
                full.write_file(from);
                full.commit();
            },
            OutputError);
    }
    std::fclose(from);
}

TEST(Writers, OutputFileRegionsWrittenByPositionInAnyOrder) {
    TempDir dir;
    const auto path = dir.path / "regions.txt";
    {
        OutputFile f(path.string());
        ASSERT_TRUE(f.positional());
        f.write("head\n");
        const std::uint64_t a = f.reserve(6), b = f.reserve(7);
        EXPECT_EQ(a, 5u);
        EXPECT_EQ(b, 11u);
        std::thread second([&] { f.write_at(b, "second\n"); });  // out of order, another thread
        second.join();
        f.write_at(a, "first\n");
        f.write("tail\n");
        EXPECT_FALSE(fs::exists(path));
        f.commit();
    }
    EXPECT_EQ(slurp(path), "head\nfirst\nsecond\ntail\n");
    OutputFile out("-");
    EXPECT_FALSE(out.positional());  // stdout streams in order
    EXPECT_THROW(out.reserve(1), std::logic_error);
    OutputFile dev("/dev/null");
    EXPECT_FALSE(dev.positional());
}

TEST(Writers, TsvWriterToDevFullIsAnError) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    Fixture fx;
    AlignmentWriter w("/dev/full", {OutputFormat::tsv});
    fx.write_all(w);
    EXPECT_THROW(w.commit(), OutputError);
}

TEST(Writers, OutputFileMissingDirectory) {
    TempDir dir;
    const auto path = (dir.path / "no" / "such" / "out.tsv").string();
    try {
        OutputFile f(path);
        ADD_FAILURE() << "no OutputError";
    } catch (const OutputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

TEST(Writers, OutputFileDirectoryIsAnError) {
    TempDir dir;
    EXPECT_THROW(OutputFile f(dir.path.string()), OutputError);
}

// ---- TSV -----------------------------------------------------------------------

TEST(Writers, TsvGolden) {
    TempDir dir;
    const auto path = dir.path / "out.tsv";
    Fixture fx;
    AlignmentWriter w(path.string(), {OutputFormat::tsv});
    fx.write_all(w);
    EXPECT_FALSE(fs::exists(path));
    w.commit();
    EXPECT_EQ(slurp(path), slurp(data_dir + "golden.tsv"));
}

TEST(Writers, TsvScoreOnlyStarsCigarColumns) {
    TempDir dir;
    const auto path = dir.path / "out.tsv";
    Fixture fx;
    AlignmentWriter w(path.string(), {OutputFormat::tsv});
    fx.write_all(w, true);
    w.commit();
    const auto lines = lines_of(slurp(path));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0], tsv_header);
    EXPECT_EQ(lines[1], "q1\t10\t2\t9\tr1\t13\t2\t10\t7\t*\t*\t*\t*\t*\t*\t+");
    EXPECT_EQ(lines[2], "q2\t4\t0\t0\tr1\t13\t0\t0\t0\t*\t*\t*\t*\t*\t*\t+");
}

TEST(Writers, CoordinatesOutsideSequencesAreALogicError) {
    TempDir dir;
    Fixture fx;
    AlignmentWriter w((dir.path / "o.tsv").string(), {OutputFormat::tsv});
    EXPECT_THROW(w.write(fx.q2, fx.r2, fx.a1), std::logic_error);  // q2 has 4 letters, a1 ends at 9
}

// ---- SAM -----------------------------------------------------------------------

TEST(Writers, SamHeaderAndRecords) {
    TempDir dir;
    const auto path = dir.path / "out.sam";
    Fixture fx;
    WriterOptions meta;
    meta.format = OutputFormat::sam;
    meta.command_line = "gpualign sw\tq.fa r.fa -o out.sam";
    meta.version = "9.9.9";
    AlignmentWriter w(path.string(), meta);
    w.add_reference("r0", 100);
    fx.write_all(w);
    EXPECT_FALSE(fs::exists(path));
    w.commit();
    const auto lines = lines_of(slurp(path));
    const std::vector<std::string> want{
        "@HD\tVN:1.6\tSO:unsorted",
        "@SQ\tSN:r0\tLN:100",
        "@SQ\tSN:r1\tLN:13",
        "@SQ\tSN:r2\tLN:5",
        "@PG\tID:gpualign\tPN:gpualign\tVN:9.9.9\tCL:gpualign sw q.fa r.fa -o out.sam",
        // local: 2 clipped query letters before, 1 after; POS = ref_begin + 1; NM = 1 X + 1 D
        "q1\t0\tr1\t3\t255\t2S3=1D2=1X1=1S\t*\t0\t0\tACGTACGTAC\tABCDEFGHIJ\tAS:i:7\tNM:i:2\tMD:Z:3^T2C1",
        // unaligned (local score 0): FLAG 4, no position; SEQ upper-cased
        "q2\t4\t*\t0\t0\t*\t*\t0\t0\tAAAA\t*\tAS:i:0",
        "q3\t0\tr2\t1\t255\t4=1I1=\t*\t0\t0\tACGTTA\t*\tAS:i:3\tNM:i:1\tMD:Z:5",
    };
    EXPECT_EQ(lines, want);
    if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
    EXPECT_EQ(samtools_accepts(path.string()), 3u);
}

TEST(Writers, SamScoreOnlyHasStarCigarAndIsAccepted) {
    TempDir dir;
    const auto path = dir.path / "out.sam";
    Fixture fx;
    WriterOptions meta;
    meta.format = OutputFormat::sam;
    meta.score_only = true;
    AlignmentWriter w(path.string(), meta);
    fx.write_all(w, true);
    w.commit();
    const auto lines = lines_of(slurp(path));
    ASSERT_EQ(lines.size(), 8u);
    EXPECT_EQ(lines[3].rfind("@PG\tID:gpualign\tPN:gpualign\tVN:", 0), 0u);
    EXPECT_EQ(lines[4].rfind("@CO\t", 0), 0u);
    EXPECT_EQ(lines[5], "q1\t0\tr1\t3\t255\t*\t*\t0\t0\tACGTACGTAC\tABCDEFGHIJ\tAS:i:7");
    if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
    // htslib reads a FLAG-0 record without a CIGAR as unmapped, and says so.
    EXPECT_EQ(samtools_accepts(path.string(), "mapped query must have a CIGAR"), 3u);
}

// Issue 14, --strand both: a minus-strand result (the alignment of the
// reverse-complemented query, whose coordinates and CIGAR are those of the
// reverse complement) in every format. m1 is the reverse complement of q1
// (lower case, and an IUPAC R where q1 has its last letter's complement
// place), so its minus-strand alignment with r1 is the fixture's a1: SAM
// writes q1's letters with FLAG 16, TSV and PAF mirror the query
// coordinates onto m1's forward strand, blast6 has sstart > send.
TEST(Writers, MinusStrandInEveryFormat) {
    TempDir dir;
    Fixture fx;
    const SequenceRecord m1 = record("m1", "gtacgtacgR", Alphabet::dna, "ABCDEFGHIJ");
    AlignmentResult minus = fx.a1;
    minus.strand = Strand::minus;
    const auto write_one = [&](OutputFormat f) {
        const auto path = dir.path / "minus.out";
        AlignmentWriter w(path.string(), {f});
        w.write(m1, fx.r1, minus);
        w.write(fx.q2, fx.r1, fx.a2);  // unaligned: plus
        w.commit();
        return lines_of(slurp(path));
    };
    const auto tsv = write_one(OutputFormat::tsv);
    ASSERT_EQ(tsv.size(), 3u);
    EXPECT_EQ(tsv[1], "m1\t10\t1\t8\tr1\t13\t2\t10\t7\t6\t1\t1\t8\t0.7500\t3=1D2=1X1=\t-");
    EXPECT_EQ(tsv[2], "q2\t4\t0\t0\tr1\t13\t0\t0\t0\t0\t0\t0\t0\t0.0000\t*\t+");
    EXPECT_EQ(tsv_line(view_of(m1), view_of(fx.r1), minus),
              "m1\t10\t1\t8\tr1\t13\t2\t10\t7\t6\t1\t1\t8\t0.7500\t3=1D2=1X1=");
    const auto paf = write_one(OutputFormat::paf);
    ASSERT_EQ(paf.size(), 1u);  // the unaligned pair is left out
    EXPECT_EQ(paf[0], "m1\t10\t1\t8\t-\tr1\t13\t2\t10\t6\t8\t255\tNM:i:2\tAS:i:7\tcg:Z:3=1D2=1X1=");
    const auto m8 = write_one(OutputFormat::blast6);
    ASSERT_EQ(m8.size(), 1u);
    EXPECT_EQ(m8[0], "m1\tr1\t75.000\t8\t1\t1\t2\t8\t10\t3\tNA\tNA");
    EXPECT_EQ(blast6_line(view_of(m1), view_of(fx.r1), minus, 1e-5, 20.5), "m1\tr1\t75.000\t8\t1\t1\t2\t8\t10\t3\t1.00e-05\t20.5");
    // The plus strand of the same pair, for contrast: sstart < send.
    EXPECT_EQ(blast6_line(view_of(fx.q1), view_of(fx.r1), fx.a1, std::nullopt, std::nullopt),
              "q1\tr1\t75.000\t8\t1\t1\t3\t9\t3\t10\tNA\tNA");
    const auto sam = write_one(OutputFormat::sam);
    ASSERT_EQ(sam.size(), 5u);
    // SEQ: rc("gtacgtacgR") upper-cased = YCGTACGTAC; QUAL reversed; CIGAR, clips and MD as aligned.
    EXPECT_EQ(sam[3], "m1\t16\tr1\t3\t255\t2S3=1D2=1X1=1S\t*\t0\t0\tYCGTACGTAC\tJIHGFEDCBA\tAS:i:7\tNM:i:2\tMD:Z:3^T2C1");
    EXPECT_EQ(sam[4], "q2\t4\t*\t0\t0\t*\t*\t0\t0\tAAAA\t*\tAS:i:0");
    if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
    const auto path = dir.path / "minus.sam";
    {
        AlignmentWriter w(path.string(), {OutputFormat::sam});
        w.write(m1, fx.r1, minus);
        w.commit();
    }
    EXPECT_EQ(samtools_accepts(path.string()), 1u);
    const auto [rc, out] = run("samtools view -f 16 -c '" + path.string() + "'");
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(std::stoul(out), 1u) << "samtools reads FLAG 16 as the reverse strand";
}

// SEQ on the plus strand (SAM v1.6 §1.4.10, [A-Za-z=.]+): the letters as
// read, upper-cased, over more than one vector's width and a tail; a
// sequence with any other byte (a protein's stop '*') is written '*'.
TEST(Writers, SamSeqIsUpperCasedOrStarForOtherBytes) {
    TempDir dir;
    Fixture fx;
    const std::string seq = "acgtnACGTNrykmswbdhvRYKMSWBDHVacgtacgtaGT";  // 41 letters
    std::string upper = seq;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto path = dir.path / "seq.sam";
    {
        AlignmentWriter w(path.string(), {OutputFormat::sam});
        w.write(record("u1", seq), fx.r1, AlignmentResult{});
        w.write(record("p1", "MKVLA*GW", Alphabet::protein), fx.r1, AlignmentResult{});
        w.commit();
    }
    const auto lines = lines_of(slurp(path));
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[3], "u1\t4\t*\t0\t0\t*\t*\t0\t0\t" + upper + "\t*\tAS:i:0");
    EXPECT_EQ(lines[4], "p1\t4\t*\t0\t0\t*\t*\t0\t0\t*\t*\tAS:i:0");
}

TEST(Writers, SamRepeatedReferenceListedOnceOrRejected) {
    TempDir dir;
    Fixture fx;
    {
        const auto path = dir.path / "same.sam";
        AlignmentWriter w(path.string(), {OutputFormat::sam});
        w.write(fx.q1, fx.r1, fx.a1);
        w.write(fx.q1, fx.r1, fx.a1);
        w.commit();
        std::size_t sq = 0;
        for (const auto& l : lines_of(slurp(path))) sq += l.rfind("@SQ", 0) == 0;
        EXPECT_EQ(sq, 1u);
    }
    {
        const auto path = dir.path / "differ.sam";
        AlignmentWriter w(path.string(), {OutputFormat::sam});
        w.write(fx.q1, fx.r1, fx.a1);
        SequenceRecord other = record("r1", "ACGTACGTACGTACGT");
        try {
            w.write(fx.q3, other, fx.a3);
            ADD_FAILURE() << "no InputError";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("'r1'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("13"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("16"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"same.sam"});  // no output, no temp files from the failed one
}

TEST(Writers, SamGlobalScoreZeroIsAligned) {
    // Unaligned means "covers no query letter", not "score 0": a global
    // alignment scoring 0 is a mapped record.
    TempDir dir;
    const auto path = dir.path / "g.sam";
    AlignmentWriter w(path.string(), {OutputFormat::sam});
    const SequenceRecord q = record("g1", "ACGT"), r = record("g2", "ACCT");
    w.write(q, r, result(0, 0, 4, 0, 4, {cigar_pack(eq, 2), cigar_pack(diff, 1), cigar_pack(eq, 1)}));
    w.commit();
    const auto lines = lines_of(slurp(path));
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), "g1\t0\tg2\t1\t255\t2=1X1=\t*\t0\t0\tACGT\t*\tAS:i:0\tNM:i:1\tMD:Z:2C1");
}

TEST(Writers, SamRejectsNamesSamCannotHold) {
    TempDir dir;
    Fixture fx;
    AlignmentWriter w((dir.path / "o.sam").string(), {OutputFormat::sam});
    SequenceRecord bad_q = fx.q1;
    bad_q.name = "@read";
    EXPECT_THROW(w.write(bad_q, fx.r1, fx.a1), OutputError);
    SequenceRecord bad_r = fx.r1;
    bad_r.name = "*ref";
    EXPECT_THROW(w.write(fx.q1, bad_r, fx.a1), OutputError);
}

TEST(Writers, SamProteinStopCodonGivesStarSeq) {
    TempDir dir;
    const auto path = dir.path / "p.sam";
    AlignmentWriter w(path.string(), {OutputFormat::sam});
    const SequenceRecord q = record("p1", "mkv*", Alphabet::protein), r = record("p2", "MKV", Alphabet::protein);
    w.write(q, r, result(12, 0, 3, 0, 3, {cigar_pack(eq, 3)}));
    w.commit();
    const auto lines = lines_of(slurp(path));
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), "p1\t0\tp2\t1\t255\t3=1S\t*\t0\t0\t*\t*\tAS:i:12\tNM:i:0\tMD:Z:3");
    if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
    EXPECT_EQ(samtools_accepts(path.string()), 1u);
}

TEST(Writers, SamOfRealAlignmentsIsAcceptedBySamtools) {
    const std::string qpath = shared_dir + "dna/pacbio_ecoli/reads.fa", rpath = shared_dir + "dna/pacbio_ecoli/ref_windows.fa";
    if (!fs::exists(qpath) || !fs::exists(rpath)) GTEST_SKIP() << "shared data not present";
    if (!have_samtools()) GTEST_SKIP() << "samtools not installed";
    TempDir dir;
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    for (AlignMode mode : {AlignMode::local, AlignMode::global}) {
        const auto path = dir.path / (std::string(to_string(mode)) + ".sam");
        AlignmentWriter w(path.string(), {OutputFormat::sam});
        SequenceReader queries(qpath, AlphabetChoice::dna), refs(rpath, AlphabetChoice::dna);
        SequenceRecord q, r;
        std::uint64_t k = 0;
        for (; k < 12 && queries.next(q) && refs.next(r); ++k)
            w.write(q, r, align_pair(q.codes, r.codes, s, mode, false));
        w.commit();
        EXPECT_EQ(samtools_accepts(path.string()), k) << to_string(mode);
        const auto [rc, out] = run("samtools view -F 4 -c '" + path.string() + "'");
        EXPECT_EQ(rc, 0);
        EXPECT_EQ(std::stoul(out), k) << "every real read-vs-window pair aligns";
    }
}

// write_batch over views of records in a RecordBlock (as the pipeline
// calls it) gives the same bytes as write() per pair, for every format and
// thread count; 3,000 random pairs so that the batch spans many buffers.
TEST(Writers, WriteBatchOfViewsEqualsWritePerPair) {
    TempDir dir;
    std::mt19937 rng(7);
    const ScoringScheme s = make_dna_scheme(2, 3, 5, 2, -3);
    std::vector<SequenceRecord> qs, rs;
    RecordBlock qblock, rblock;
    for (int k = 0; k < 3000; ++k) {
        const auto random_seq = [&](std::size_t len) {
            std::string seq;
            for (std::size_t i = 0; i < len; ++i) seq += "ACGTN"[rng() % 5];
            return seq;
        };
        SequenceRecord q = record("q" + std::to_string(k), random_seq(1 + rng() % 200));
        SequenceRecord r = record("ref" + std::to_string(k % 17), random_seq(100 + k % 17));
        q.number = r.number = static_cast<std::uint64_t>(k) + 1;
        if (k % 5 == 0) q.description = "desc " + std::to_string(k);
        qblock.append(q);
        rblock.append(r);
        qs.push_back(std::move(q));
        rs.push_back(std::move(r));
    }
    ASSERT_EQ(qblock.size(), qs.size());
    for (const bool score_only : {false, true}) {
        std::vector<AlignmentResult> results;
        for (std::size_t k = 0; k < qs.size(); ++k) {
            const bool minus = k % 3 == 0;  // every third on the minus strand
            results.push_back(align_pair(minus ? reverse_complement(qs[k].codes) : qs[k].codes, rs[k].codes, s,
                                         AlignMode::local, score_only));
            if (minus) results.back().strand = Strand::minus;
        }
        for (const OutputFormat f : {OutputFormat::tsv, OutputFormat::sam, OutputFormat::paf, OutputFormat::blast6}) {
            if (score_only && f != OutputFormat::tsv && f != OutputFormat::sam) continue;  // PAF and blast6 need CIGARs
            const auto one = dir.path / "one.out";
            {
                AlignmentWriter w(one.string(), {f, score_only});
                for (std::size_t k = 0; k < qs.size(); ++k) w.write(qs[k], rs[k], results[k]);
                w.commit();
            }
            std::vector<RecordView> qv, rv;
            for (std::size_t k = 0; k < qs.size(); ++k) {
                qv.push_back(qblock[k]);
                rv.push_back(rblock[k]);
                ASSERT_EQ(qv.back().number, qs[k].number);
                ASSERT_EQ(qv.back().description, qs[k].description);
            }
            for (const int threads : {1, 4}) {
                const auto batch = dir.path / "batch.out";
                AlignmentWriter w(batch.string(), {f, score_only});
                w.write_batch(std::span(qv).first(1000), std::span(rv).first(1000),
                              std::span(results).first(1000), threads);
                w.write_batch(std::span(qv).subspan(1000), std::span(rv).subspan(1000),
                              std::span(results).subspan(1000), threads);
                w.commit();
                EXPECT_EQ(slurp(one), slurp(batch)) << "format " << static_cast<int>(f) << ", score-only "
                                                    << score_only << ", threads " << threads;
            }
        }
    }
}

// A SAM batch checks its pairs' refs on several threads (the @SQ dictionary
// is sharded by name), yet the error is that of the first pair in order
// that fails, as one pass would find it: a ref name SAM cannot hold at pair
// 40 before a ref seen with a second length at pair 60, and the reverse.
TEST(Writers, SamBatchReportsTheFirstFailingPair) {
    TempDir dir;
    Fixture fx;
    for (const bool name_first : {true, false}) {
        RecordBlock qblock, rblock;
        for (int k = 0; k < 100; ++k) {
            SequenceRecord q = record("q" + std::to_string(k), "ACGTACGTACGTA");
            std::string name = "ref" + std::to_string(k % 23), seq = "ACGTACGTACGTA";
            if (k == (name_first ? 40 : 60)) name = "*bad";            // not a valid RNAME
            if (k == (name_first ? 60 : 40)) seq = "ACGTACGTACGTACGT";  // ref{k % 23} with another length
            SequenceRecord r = record(name, seq);
            q.number = r.number = static_cast<std::uint64_t>(k) + 1;
            qblock.append(q);
            rblock.append(r);
        }
        std::vector<RecordView> qv, rv;
        std::vector<AlignmentResult> results(100, fx.a1);
        for (std::size_t k = 0; k < 100; ++k) {
            qv.push_back(qblock[k]);
            rv.push_back(rblock[k]);
        }
        AlignmentWriter w((dir.path / "out.sam").string(), {OutputFormat::sam});
        try {
            w.write_batch(qv, rv, results, 4);
            ADD_FAILURE() << "no error";
        } catch (const OutputError& e) {
            EXPECT_TRUE(name_first) << e.what();
            EXPECT_NE(std::string(e.what()).find("'*bad'"), std::string::npos) << e.what();
        } catch (const InputError& e) {
            EXPECT_FALSE(name_first) << e.what();
            EXPECT_NE(std::string(e.what()).find("two lengths"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace gpualign
