// The pairs pipeline with its results kept in memory (in_memory.hpp, the
// Python module's entry): write_pair_results writes run_alignment's bytes,
// for pairs read from files and for pairs given as lists; list errors name
// the list, index, name and position.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "gpualign/model/config.hpp"
#include "gpualign/pipeline/in_memory.hpp"
#include "gpualign/pipeline/pipeline.hpp"

namespace gpualign {
namespace {

class InMemory : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("gpualign_in_memory_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name), std::ios::binary) << text;
        return path(name);
    }
    static std::string read(const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    std::filesystem::path dir_;
};

const std::vector<std::string_view> query_names = {"a", "b", "c"};
const std::vector<std::string_view> queries = {"ACGTTGCAAGGCTTACCGATG", "GATTACAGATTACA", "CCCCGGGGAAAATTTT"};
const std::vector<std::string_view> ref_names = {"x", "y", "z"};
const std::vector<std::string_view> refs = {"ACGTTGCAGGCTTACCGTTG", "TTTGATTACAGGATTACATTT", "AAAATTTTCCCCGGGG"};

std::string fasta(const std::vector<std::string_view>& names, const std::vector<std::string_view>& seqs) {
    std::string out;
    for (std::size_t k = 0; k < names.size(); ++k) out += ">" + std::string(names[k]) + "\n" + std::string(seqs[k]) + "\n";
    return out;
}

AlignConfig config_for(AlignMode mode, const std::string& q, const std::string& r, const std::string& out,
                       OutputFormat format) {
    AlignConfig c;
    c.mode = mode;
    c.query_path = q;
    c.ref_path = r;
    c.out_path = out;
    c.format = format;
    c.backend = BackendChoice::cpu;
    c.threads = 2;
    c.progress = ProgressChoice::never;
    c.command_line = "gpualign test";
    c.batch_pairs = 2;  // several batches
    return c;
}

TEST_F(InMemory, FilesAndListsWriteTheBytesOfRunAlignment) {
    const std::string q = write("q.fa", fasta(query_names, queries)), r = write("r.fa", fasta(ref_names, refs));
    for (const AlignMode mode : {AlignMode::local, AlignMode::global, AlignMode::semi_global})
        for (const StrandChoice strand : {StrandChoice::plus, StrandChoice::both})
            for (const OutputFormat format : {OutputFormat::tsv, OutputFormat::sam, OutputFormat::paf}) {
                AlignConfig c = config_for(mode, q, r, path("cli.out"), format);
                c.strand = strand;
                run_alignment(c);
                const std::string expected = read(path("cli.out"));
                ASSERT_FALSE(expected.empty());

                const PairResults from_files = align_files(c);
                EXPECT_EQ(from_files.results.size(), 3u);
                c.out_path = path("files.out");
                write_pair_results(from_files, c);
                EXPECT_EQ(read(c.out_path), expected) << to_string(mode);

                const PairResults from_lists =
                    align_sequence_lists(c, SequenceList{query_names, queries, "q", "queries"},
                                         SequenceList{ref_names, refs, "r", "refs"});
                c.out_path = path("lists.out");
                write_pair_results(from_lists, c);
                EXPECT_EQ(read(c.out_path), expected) << to_string(mode);
            }
}

TEST_F(InMemory, UnnamedListsAreNamedByIndex) {
    const AlignConfig c = config_for(AlignMode::global, "QUERIES", "REFS", "-", OutputFormat::tsv);
    const PairResults r = align_sequence_lists(c, SequenceList{{}, queries, "q", "queries"},
                                               SequenceList{{}, refs, "r", "refs"});
    ASSERT_EQ(r.queries.size(), 3u);
    EXPECT_EQ(r.queries[2].name, "q2");
    EXPECT_EQ(r.refs[0].name, "r0");
    EXPECT_EQ(r.alphabet, Alphabet::dna);
    EXPECT_EQ(r.stats.pairs, 3u);
}

TEST_F(InMemory, ListErrorsNameListIndexNameAndPosition) {
    const AlignConfig c = config_for(AlignMode::local, "QUERIES", "REFS", "-", OutputFormat::tsv);
    const std::vector<std::string_view> bad = {"ACGT", "AC.GT"};
    const std::vector<std::string_view> two = {"ACGT", "ACGT"};
    try {
        align_sequence_lists(c, SequenceList{{}, bad, "q", "queries"}, SequenceList{{}, two, "r", "refs"});
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).substr(0, 57), "queries[1] 'q1': character '.' at position 3 is not in th");
    }
    const std::vector<std::string_view> one = {"ACGT"};
    EXPECT_THROW(align_sequence_lists(c, SequenceList{{}, one, "q", "queries"}, SequenceList{{}, two, "r", "refs"}),
                 std::invalid_argument);
    const std::vector<std::string_view> protein = {"MKVLWWEEQ", "MKVLWWEEQ"};
    EXPECT_THROW(align_sequence_lists(c, SequenceList{{}, protein, "q", "queries"}, SequenceList{{}, two, "r", "refs"}),
                 std::invalid_argument);  // the lists' alphabets disagree
}

}  // namespace
}  // namespace gpualign
