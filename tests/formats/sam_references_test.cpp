// The SAM header read ahead from REFS (sam_references.hpp) and the SAM
// writer's header-first mode (AlignmentWriter::set_references): the same
// bytes as the spooled body, and the cases left to the run.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "gpualign/align/reference_aligner.hpp"
#include "gpualign/formats/sam_references.hpp"
#include "gpualign/formats/writers.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "temp_dir.hpp"

namespace gpualign {
namespace {

namespace fs = std::filesystem;

struct TempDir : test::TempDir {
    TempDir() : test::TempDir("gpualign_samrefs") {}
};

std::string slurp(const fs::path& p) { return test::slurp_file(p); }

void spit(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

/// Every record of a FASTA file, in order.
std::vector<SequenceRecord> read_all(const fs::path& p) {
    SequenceReader reader(p.string(), AlphabetChoice::dna);
    std::vector<SequenceRecord> out;
    for (SequenceRecord r; reader.next(r);) out.push_back(r);
    return out;
}

/// Random DNA of `n` letters.
std::string dna(std::mt19937& rng, std::size_t n) {
    std::string s(n, 'A');
    for (char& c : s) c = "ACGT"[rng() % 4];
    return s;
}

/// Writes query i against ref i as SAM through AlignmentWriter::write_batch,
/// header first when `ahead` is given, spooled otherwise; returns the bytes.
std::string write_sam(const fs::path& out, const std::vector<SequenceRecord>& queries,
                      const std::vector<SequenceRecord>& refs, std::optional<SamReferences> ahead) {
    const ScoringScheme scheme = make_dna_scheme(2, 3, 5, 2, -3);
    std::vector<RecordView> q, r;
    std::vector<AlignmentResult> res;
    for (std::size_t k = 0; k < queries.size(); ++k) {
        q.push_back(view_of(queries[k]));
        r.push_back(view_of(refs[k]));
        res.push_back(align_pair(queries[k].codes, refs[k].codes, scheme, AlignMode::local, false));
    }
    WriterOptions meta;
    meta.format = OutputFormat::sam;
    meta.version = "1.0";
    AlignmentWriter w(out.string(), meta);
    if (ahead) w.set_references(std::move(*ahead));
    w.write_batch(q, r, res, 2);
    w.commit();
    return slurp(out);
}

TEST(SamReferences, HeaderFirstGivesTheSpooledBytes) {
    TempDir dir;
    std::mt19937 rng(7);
    std::string qtext, rtext;
    // Repeated names (same length), a zero-length ref, lowercase, several lines a record.
    const std::vector<std::string> names = {"chrA", "chrB", "chrA", "empty", "chrC", "chrB", "chrD"};
    std::vector<std::size_t> lengths = {120, 95, 120, 0, 300, 95, 61};
    for (std::size_t k = 0; k < names.size(); ++k) {
        qtext += ">q" + std::to_string(k) + "\n" + dna(rng, 80) + "\n";
        std::string s = dna(rng, lengths[k]);
        if (k == 4) s[10] = 'a';
        rtext += ">" + names[k] + " window " + std::to_string(k) + "\n";
        for (std::size_t at = 0; at < s.size(); at += 60) rtext += s.substr(at, 60) + "\n";
    }
    spit(dir.path / "q.fa", qtext);
    spit(dir.path / "r.fa", rtext);
    const std::vector<SequenceRecord> refs = read_all(dir.path / "r.fa");
    const std::vector<SequenceRecord> queries = read_all(dir.path / "q.fa");

    std::atomic<bool> cancel{false};
    std::optional<SamReferences> ahead =
        read_sam_references((dir.path / "r.fa").string(), AlphabetChoice::dna, 2, cancel);
    ASSERT_TRUE(ahead.has_value());
    EXPECT_EQ(ahead->size(), 4u);  // chrA, chrB, chrC, chrD: the zero-length ref has no @SQ
    const std::string first = write_sam(dir.path / "first.sam", queries, refs, std::move(ahead));
    const std::string spooled = write_sam(dir.path / "spooled.sam", queries, refs, std::nullopt);
    EXPECT_EQ(first, spooled);
    EXPECT_NE(first.find("@SQ\tSN:chrA\tLN:120\n@SQ\tSN:chrB\tLN:95\n@SQ\tSN:chrC\tLN:300\n@SQ\tSN:chrD\tLN:61\n"),
              std::string::npos)
        << first;
}

TEST(SamReferences, CasesTheRunReportsAreLeftToIt) {
    TempDir dir;
    std::atomic<bool> cancel{false};
    const auto ahead = [&](const std::string& name, const std::string& text) {
        spit(dir.path / name, text);
        return read_sam_references((dir.path / name).string(), AlphabetChoice::dna, 1, cancel).has_value();
    };
    EXPECT_TRUE(ahead("ok.fa", ">a\nACGT\n>b\nAC\n"));
    EXPECT_FALSE(ahead("twolengths.fa", ">a\nACGT\n>a\nAC\n"));       // one name, two lengths
    EXPECT_FALSE(ahead("badname.fa", ">*star\nACGT\n"));              // not a SAM RNAME (§1.2.1)
    EXPECT_FALSE(ahead("badletter.fa", ">a\nACGT\n>b\nAC!T\n"));      // the reader's error
    EXPECT_FALSE(read_sam_references((dir.path / "missing.fa").string(), AlphabetChoice::dna, 1, cancel));
    EXPECT_FALSE(read_sam_references("-", AlphabetChoice::dna, 1, cancel));  // stdin: read once only
    // Compressed: the run would decompress it twice.
    const std::string gz = (dir.path / "ok.fa.gz").string();
    gzFile f = gzopen(gz.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    gzputs(f, ">a\nACGT\n");
    gzclose(f);
    EXPECT_FALSE(read_sam_references(gz, AlphabetChoice::dna, 1, cancel));
    // Asked to stop (the run failed): nothing.
    cancel = true;
    EXPECT_FALSE(ahead("ok2.fa", ">a\nACGT\n"));
}

TEST(SamReferences, ARefNotDeclaredAheadIsAnInputError) {
    TempDir dir;
    spit(dir.path / "r.fa", ">a\nACGTACGT\n");
    std::atomic<bool> cancel{false};
    std::optional<SamReferences> ahead =
        read_sam_references((dir.path / "r.fa").string(), AlphabetChoice::dna, 1, cancel);
    ASSERT_TRUE(ahead.has_value());
    spit(dir.path / "other.fa", ">b\nACGTACGT\n>q\nACGT\n");
    const std::vector<SequenceRecord> recs = read_all(dir.path / "other.fa");
    WriterOptions meta;
    meta.format = OutputFormat::sam;
    const fs::path out = dir.path / "out.sam";
    {
        AlignmentWriter w(out.string(), meta);
        w.set_references(std::move(*ahead));
        const AlignmentResult res =
            align_pair(recs[1].codes, recs[0].codes, make_dna_scheme(2, 3, 5, 2, -3), AlignMode::local, false);
        try {
            w.write(recs[1], recs[0], res);
            ADD_FAILURE() << "no InputError";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("'b'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("changed"), std::string::npos) << e.what();
        }
        EXPECT_THROW(w.set_references(SamReferences{}), std::logic_error);
        EXPECT_THROW(w.add_reference("c", 4), std::logic_error);  // the header is already written
    }
    EXPECT_FALSE(fs::exists(out));  // never committed: nothing left
}

}  // namespace
}  // namespace gpualign
