// FASTA/FASTQ reading: formats, gzip, stdin, encoding, alphabet detection
// and every bad-input error (file, record and position named).
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "io/expect_input_error.hpp"
#include <seqan3/alphabet/aminoacid/aa27.hpp>
#include <seqan3/alphabet/nucleotide/dna5.hpp>

#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"

namespace gpualign {
namespace {

const std::string data_dir = std::string(GPUALIGN_TEST_DATA) + "/io/";
const std::string shared_dir = std::string(GPUALIGN_SHARED_DATA) + "/";

std::vector<SequenceRecord> read_all(const std::string& path, AlphabetChoice choice = AlphabetChoice::automatic) {
    SequenceReader reader(path, choice);
    std::vector<SequenceRecord> out;
    SequenceRecord rec;
    while (reader.next(rec)) out.push_back(rec);
    return out;
}

using test::expect_input_error;

std::vector<std::uint8_t> dna5_ranks(std::string_view s) {
    std::vector<std::uint8_t> out;
    for (char c : s) out.push_back(static_cast<std::uint8_t>(seqan3::dna5{}.assign_char(c).to_rank()));
    return out;
}

/// Redirects fd 0 for the lifetime of the object.
class StdinRedirect {
public:
    explicit StdinRedirect(int fd) : saved_(::dup(STDIN_FILENO)) { ::dup2(fd, STDIN_FILENO); }
    ~StdinRedirect() {
        ::dup2(saved_, STDIN_FILENO);
        ::close(saved_);
    }

private:
    int saved_;
};

TEST(SequenceIo, FastaMultiLineNamesAndDescriptions) {
    SequenceReader reader(data_dir + "dna_small.fa", AlphabetChoice::dna);
    EXPECT_EQ(reader.format(), SequenceFormat::fasta);
    EXPECT_FALSE(reader.compressed());
    SequenceRecord r;
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "r1");
    EXPECT_EQ(r.description, "first record, multi-line");
    EXPECT_EQ(r.sequence, "ACGTACGTACGTACGT");
    EXPECT_EQ(r.codes, dna5_ranks("ACGTACGTACGTACGT"));
    EXPECT_TRUE(r.quality.empty());
    EXPECT_EQ(r.number, 1u);
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "r2");
    EXPECT_EQ(r.description, "IUPAC and U");
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "r3");
    EXPECT_EQ(r.sequence, "ttttGGGGcccc");  // case kept as read
    EXPECT_EQ(r.number, 3u);
    EXPECT_FALSE(reader.next(r));
    EXPECT_FALSE(reader.next(r));
    EXPECT_EQ(reader.records_read(), 3u);
}

TEST(SequenceIo, DnaIupacUracilLowercaseMapping) {
    const auto recs = read_all(data_dir + "dna_small.fa", AlphabetChoice::dna);
    ASSERT_EQ(recs.size(), 3u);
    // ACGTUNRYKMSWBDHVacgtun: U/u -> T (4), IUPAC codes -> N (3), lowercase as upper.
    const std::vector<std::uint8_t> want{0, 1, 2, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 1, 2, 4, 4, 3};
    EXPECT_EQ(recs[1].codes, want);
    EXPECT_EQ(recs[2].codes, dna5_ranks("TTTTGGGGCCCC"));
}

TEST(SequenceIo, EncodeCharTables) {
    for (char c : std::string("ACGTNacgtn")) EXPECT_EQ(encode_char(Alphabet::dna, c), seqan3::dna5{}.assign_char(c).to_rank());
    EXPECT_EQ(encode_char(Alphabet::dna, 'U'), 4);
    EXPECT_EQ(encode_char(Alphabet::dna, 'r'), 3);
    for (char c : std::string("EFILPQXZJO*-.1 ")) EXPECT_EQ(encode_char(Alphabet::dna, c), -1) << c;
    for (char c = 'A'; c <= 'Z'; ++c) {
        EXPECT_EQ(encode_char(Alphabet::protein, c), seqan3::aa27{}.assign_char(c).to_rank()) << c;
        EXPECT_EQ(encode_char(Alphabet::protein, static_cast<char>(c - 'A' + 'a')), encode_char(Alphabet::protein, c));
    }
    EXPECT_EQ(encode_char(Alphabet::protein, 'A'), 0);
    EXPECT_EQ(encode_char(Alphabet::protein, 'Z'), 25);
    EXPECT_EQ(encode_char(Alphabet::protein, '*'), 26);
    for (char c : std::string("-.1 #")) EXPECT_EQ(encode_char(Alphabet::protein, c), -1) << c;
    std::vector<std::uint8_t> codes;
    EXPECT_EQ(encode_sequence(Alphabet::dna, "ACGTXACGT", codes), std::optional<std::size_t>(4));
    EXPECT_EQ(encode_sequence(Alphabet::dna, "acgu", codes), std::nullopt);
    EXPECT_EQ(codes, (std::vector<std::uint8_t>{0, 1, 2, 4}));
}

// DnaCodes::iupac: A C G N T keep their dna5 codes, U reads as T, and each
// IUPAC ambiguity letter has its own code, dna_code_letters' order.
TEST(SequenceIo, EncodeIupacCodes) {
    for (char c : std::string("ACGTNUacgtnu"))
        EXPECT_EQ(encode_char(Alphabet::dna, c, DnaCodes::iupac), encode_char(Alphabet::dna, c)) << c;
    for (std::size_t k = 0; k < dna_code_letters.size(); ++k) {
        const char c = dna_code_letters[k];
        EXPECT_EQ(encode_char(Alphabet::dna, c, DnaCodes::iupac), static_cast<int>(k)) << c;
        EXPECT_EQ(encode_char(Alphabet::dna, static_cast<char>(c - 'A' + 'a'), DnaCodes::iupac), static_cast<int>(k));
    }
    EXPECT_EQ(encode_char(Alphabet::dna, 'R', DnaCodes::iupac), 10);
    EXPECT_EQ(encode_char(Alphabet::protein, 'R', DnaCodes::iupac), encode_char(Alphabet::protein, 'R'));
    for (char c : std::string("EFILPQXZJO*-.1 ")) EXPECT_EQ(encode_char(Alphabet::dna, c, DnaCodes::iupac), -1) << c;
    std::vector<std::uint8_t> codes;
    EXPECT_EQ(encode_sequence(Alphabet::dna, "ACGTRYKMSWBDHVNU", codes, DnaCodes::iupac), std::nullopt);
    EXPECT_EQ(codes, (std::vector<std::uint8_t>{0, 1, 2, 4, 10, 14, 8, 9, 11, 13, 5, 6, 7, 12, 3, 4}));
    EXPECT_EQ(encode_sequence(Alphabet::dna, "ACGTRYKMSWBDHVNU", codes), std::nullopt);  // dna5: ambiguity -> N
    EXPECT_EQ(codes, (std::vector<std::uint8_t>{0, 1, 2, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4}));
    EXPECT_EQ(encode_sequence(Alphabet::dna, "ACGRYE", codes, DnaCodes::iupac), std::optional<std::size_t>(5));
}

// dna_complement: each code's complement is the code of the letter that
// stands for the complementary set of bases; an involution on the 15 codes
// that keeps the 5 dna5 codes among themselves.
TEST(SequenceIo, DnaComplementTable) {
    const auto bases = [](char c) -> std::string {
        switch (c) {
            case 'A': return "A"; case 'C': return "C"; case 'G': return "G"; case 'T': return "T";
            case 'R': return "AG"; case 'Y': return "CT"; case 'S': return "CG"; case 'W': return "AT";
            case 'K': return "GT"; case 'M': return "AC"; case 'B': return "CGT"; case 'D': return "AGT";
            case 'H': return "ACT"; case 'V': return "ACG"; default: return "ACGT";  // N
        }
    };
    const auto complement_set = [](std::string s) {
        for (char& c : s) c = c == 'A' ? 'T' : c == 'T' ? 'A' : c == 'C' ? 'G' : 'C';
        std::sort(s.begin(), s.end());
        return s;
    };
    ASSERT_EQ(dna_complement.size(), dna_code_letters.size());
    for (std::size_t c = 0; c < dna_complement.size(); ++c) {
        const std::uint8_t k = dna_complement[c];
        EXPECT_EQ(dna_complement[k], c) << c;
        EXPECT_EQ(bases(dna_code_letters[k]), complement_set(bases(dna_code_letters[c]))) << dna_code_letters[c];
        if (c < 5) EXPECT_LT(k, 5) << c;
    }
    EXPECT_EQ(dna_code_letters[dna_complement[encode_char(Alphabet::dna, 'R', DnaCodes::iupac)]], 'Y');
}

TEST(SequenceIo, ProteinLettersAndStop) {
    const auto recs = read_all(data_dir + "protein_small.fa");
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].name, "sp|P1|ONE");
    EXPECT_EQ(recs[0].description, "protein one");
    EXPECT_EQ(recs[0].codes.back(), 26);  // '*'
    std::vector<std::uint8_t> want;
    for (char c : std::string("MKVLAAGIVBZXJOU")) want.push_back(static_cast<std::uint8_t>(seqan3::aa27{}.assign_char(c).to_rank()));
    EXPECT_EQ(recs[1].codes, want);
}

TEST(SequenceIo, FastqQualitiesKept) {
    SequenceReader reader(data_dir + "reads.fq");
    EXPECT_EQ(reader.format(), SequenceFormat::fastq);
    EXPECT_EQ(reader.alphabet(), Alphabet::dna);
    SequenceRecord r;
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "q1");
    EXPECT_EQ(r.description, "first read");
    EXPECT_EQ(r.sequence, "ACGTACGTAA");
    EXPECT_EQ(r.quality, "IIIIIIIII#");
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "q2");
    EXPECT_EQ(r.quality, "!\"#$%&'()*");
    EXPECT_FALSE(reader.next(r));
}

TEST(SequenceIo, CrLfLineEndings) {
    const auto recs = read_all(data_dir + "crlf.fa", AlphabetChoice::dna);
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].name, "r1");
    EXPECT_EQ(recs[0].description, "desc");
    EXPECT_EQ(recs[0].sequence, "ACGTAC");
    EXPECT_EQ(recs[1].sequence, "GG");
}

TEST(SequenceIo, GzipMatchesPlain) {
    SequenceReader gz(data_dir + "dna_small.fa.gz");
    EXPECT_TRUE(gz.compressed());
    const auto plain = read_all(data_dir + "dna_small.fa");
    const auto unzipped = read_all(data_dir + "dna_small.fa.gz");
    ASSERT_EQ(plain.size(), unzipped.size());
    for (std::size_t k = 0; k < plain.size(); ++k) {
        EXPECT_EQ(plain[k].name, unzipped[k].name);
        EXPECT_EQ(plain[k].sequence, unzipped[k].sequence);
        EXPECT_EQ(plain[k].codes, unzipped[k].codes);
    }
}

TEST(SequenceIo, GzipRoundTripFastqWithUnknownExtension) {
    // Written with zlib here, read back under a name with no known extension
    // (the format comes from the content).
    const auto path = (std::filesystem::temp_directory_path() / ("gpualign_io_rt_" + std::to_string(::getpid()) + ".data")).string();
    const std::string text = "@a\nACGTN\n+\nABCDE\n@b\nGGG\n+\n###\n";
    {
        gzFile f = gzopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
        ASSERT_EQ(gzclose(f), Z_OK);
    }
    SequenceReader reader(path);
    EXPECT_TRUE(reader.compressed());
    EXPECT_EQ(reader.format(), SequenceFormat::fastq);
    SequenceRecord r;
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.sequence, "ACGTN");
    EXPECT_EQ(r.quality, "ABCDE");
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "b");
    EXPECT_FALSE(reader.next(r));
    std::filesystem::remove(path);
}

TEST(SequenceIo, StdinPlainFile) {
    const int fd = ::open((data_dir + "dna_small.fa").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    std::vector<SequenceRecord> recs;
    {
        StdinRedirect redirect(fd);
        recs = read_all("-");
    }
    ::close(fd);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[2].sequence, "ttttGGGGcccc");
}

TEST(SequenceIo, StdinGzipPipe) {
    // gzip FASTQ through a pipe, which cannot be rewound: format and alphabet
    // detection must buffer what they peek.
    std::ifstream in(data_dir + "reads.fq", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string gz(compressBound(static_cast<uLong>(text.size())) + 64, '\0');
    z_stream zs{};
    ASSERT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);  // +16: gzip wrapper
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs.avail_in = static_cast<uInt>(text.size());
    zs.next_out = reinterpret_cast<Bytef*>(gz.data());
    zs.avail_out = static_cast<uInt>(gz.size());
    ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    gz.resize(zs.total_out);
    deflateEnd(&zs);

    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::thread feeder([&] {
        std::size_t off = 0;
        while (off < gz.size()) {
            const auto n = ::write(fds[1], gz.data() + off, std::min<std::size_t>(7, gz.size() - off));
            if (n <= 0) break;
            off += static_cast<std::size_t>(n);
        }
        ::close(fds[1]);
    });
    std::vector<SequenceRecord> recs;
    Alphabet detected{};
    bool compressed = false;
    SequenceFormat format{};
    {
        StdinRedirect redirect(fds[0]);
        SequenceReader reader("-");
        detected = reader.alphabet();
        compressed = reader.compressed();
        format = reader.format();
        SequenceRecord r;
        while (reader.next(r)) recs.push_back(r);
    }
    feeder.join();
    ::close(fds[0]);
    EXPECT_TRUE(compressed);
    EXPECT_EQ(format, SequenceFormat::fastq);
    EXPECT_EQ(detected, Alphabet::dna);
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].name, "q1");
    EXPECT_EQ(recs[1].quality, "!\"#$%&'()*");
    EXPECT_EQ(recs[1].number, 2u);
}

TEST(SequenceIo, AutoDetectIupacHeavyDnaFileIsDna) {
    // dna_small.fa: 40 of 50 letters are ACGTUN, the others IUPAC codes:
    // DNA (issue 14, trial bug 3: IUPAC codes count as DNA evidence).
    SequenceReader reader(data_dir + "dna_small.fa");
    EXPECT_EQ(reader.alphabet(), Alphabet::dna);
}

TEST(SequenceIo, GuessAlphabetRule) {
    const auto guess = [](std::initializer_list<std::string_view> s) {
        return guess_alphabet(std::vector<std::string_view>(s));
    };
    EXPECT_EQ(guess({"ACGTACGTNNacgu"}), Alphabet::dna);
    EXPECT_EQ(guess({"ACGTACGTACGTACGTACGR"}), Alphabet::dna);          // 5% IUPAC
    EXPECT_EQ(guess({"ACGTRYKMACGTACGT"}), Alphabet::dna);              // the trial's short IUPAC read: 75% ACGT
    EXPECT_EQ(guess({"ACGTACRYKMSW"}), Alphabet::dna);                  // exactly half ACGTUN
    EXPECT_EQ(guess({"ACGTARYKMSWB"}), Alphabet::protein);              // 5 of 12: below half
    EXPECT_EQ(guess({"MKVLAAGIVE"}), Alphabet::protein);                // E is not a nucleotide
    EXPECT_EQ(guess({"ACDHKMNRSTVWY"}), Alphabet::protein);             // only IUPAC letters, but < 90% ACGTUN
    EXPECT_EQ(guess({"ACGT", "ACGX"}), Alphabet::protein);              // any record decides
    EXPECT_EQ(guess({"ACGT-ACGT.N"}), Alphabet::dna);                 // invalid characters left to the encoder
    EXPECT_EQ(guess({"ACGTACGT*"}), Alphabet::protein);                 // '*' is protein only
    EXPECT_EQ(guess({}), Alphabet::dna);
}

TEST(SequenceIo, AutoDetectKeepsPeekedRecordsInOrder) {
    SequenceReader reader(data_dir + "protein_small.fa");
    EXPECT_EQ(reader.alphabet(), Alphabet::protein);
    EXPECT_EQ(reader.records_read(), 0u);
    SequenceRecord r;
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "sp|P1|ONE");
    EXPECT_EQ(r.number, 1u);
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.name, "sp|P2|TWO");
    EXPECT_FALSE(reader.next(r));
}

TEST(SequenceIo, AutoDetectOnRealData) {
    const std::vector<std::pair<std::string, Alphabet>> cases{
        {"dna/pacbio_ecoli/reads.fa", Alphabet::dna},
        {"dna/miseq_16S/ref_windows.fa", Alphabet::dna},   // holds IUPAC codes
        {"dna/long/scl_tal1_locus_5vertebrates.fa", Alphabet::dna},  // 27% N
        {"protein/mmseqs2_example_query.fa", Alphabet::protein},
        {"protein/orthologs_cow.fa", Alphabet::protein},
    };
    for (const auto& [file, want] : cases) {
        const std::string path = shared_dir + file;
        if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
        SequenceReader reader(path);
        EXPECT_EQ(reader.alphabet(), want) << file;
    }
}

TEST(SequenceIo, ReadsWholeRealProteinDatabase) {
    const std::string path = shared_dir + "protein/mmseqs2_example_db.fa";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
    SequenceReader reader(path, AlphabetChoice::protein);
    SequenceRecord r;
    std::uint64_t n = 0, letters = 0;
    while (reader.next(r)) {
        ++n;
        letters += r.codes.size();
        ASSERT_EQ(r.codes.size(), r.sequence.size());
    }
    EXPECT_EQ(n, 20000u);
    EXPECT_GT(letters, 0u);
}

// ---- errors ----------------------------------------------------------------

TEST(SequenceIo, ErrorMissingFile) {
    const std::string path = data_dir + "no_such_file.fa";
    expect_input_error([&] { SequenceReader r(path); }, {path, "cannot open"});
}

TEST(SequenceIo, ErrorDirectory) {
    expect_input_error([&] { SequenceReader r(data_dir); }, {data_dir, "directory"});
}

TEST(SequenceIo, ErrorUnreadableFile) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads files regardless of permissions";
    const auto path = (std::filesystem::temp_directory_path() / ("gpualign_io_noread_" + std::to_string(::getpid()) + ".fa")).string();
    { std::ofstream(path) << ">r\nACGT\n"; }
    std::filesystem::permissions(path, std::filesystem::perms::none);
    expect_input_error([&] { SequenceReader r(path); }, {path, "cannot open"});
    std::filesystem::remove(path);
}

// An input with no records is a valid empty input (a filtered shard, say).
TEST(SequenceIo, EmptyFileHasNoRecords) {
    for (const std::string name : {"empty.fa", "blank.fa"}) {
        SequenceReader r(data_dir + name);
        EXPECT_TRUE(r.empty()) << name;
        SequenceRecord rec;
        EXPECT_FALSE(r.next(rec)) << name;
        EXPECT_EQ(r.records_read(), 0u) << name;
    }
}

TEST(SequenceIo, ErrorNotFastaOrFastq) {
    expect_input_error([&] { SequenceReader r(data_dir + "not_fasta.txt"); },
                       {"not_fasta.txt", "not FASTA or FASTQ", "'t'"});
}

// A zero-length sequence is a sequence: a header followed by the next header or the end.
TEST(SequenceIo, ZeroLengthSequencesAreRecords) {
    for (const std::string name : {"empty_seq.fa", "empty_seq_last.fa"}) {
        SequenceReader r(data_dir + name);
        SequenceRecord rec;
        std::vector<std::size_t> lengths;
        while (r.next(rec)) lengths.push_back(rec.sequence.size());
        ASSERT_GE(lengths.size(), 2u) << name;
        EXPECT_EQ(lengths[0], 4u) << name;
        EXPECT_EQ(lengths[1], 0u) << name;
    }
}

TEST(SequenceIo, ErrorNoName) {
    expect_input_error([&] { read_all(data_dir + "no_name.fa"); }, {"no_name.fa", "record 2", "no name"});
}

TEST(SequenceIo, ErrorBadCharacterNamesRecordAndPosition) {
    expect_input_error([&] { read_all(data_dir + "bad_char.fa", AlphabetChoice::dna); },
                       {"bad_char.fa", "record 2 'r2'", "'-'", "position 7", "dna alphabet"});
    expect_input_error([&] { read_all(data_dir + "bad_char.fa", AlphabetChoice::protein); },
                       {"bad_char.fa", "record 2 'r2'", "'-'", "position 7", "protein alphabet"});
    // A protein letter in a file read as DNA: the first record with one is named.
    expect_input_error([&] { read_all(data_dir + "protein_small.fa", AlphabetChoice::dna); },
                       {"protein_small.fa", "record 1 'sp|P1|ONE'", "'L'", "position 4"});  // M K V are IUPAC
}

/// The error message that reading `path` whole throws, through next() or next_into().
std::string first_error(const std::string& path, AlphabetChoice choice, bool into) {
    try {
        SequenceReader reader(path, choice);
        RecordBlock block;
        SequenceRecord rec;
        while (into ? reader.next_into(block) : reader.next(rec)) {}
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(SequenceIo, NextIntoEqualsNextThenAppend) {
    // Explicit and detected alphabets (detection peeks records), FASTA and FASTQ.
    for (const auto& [file, choice] : std::vector<std::pair<std::string, AlphabetChoice>>{
             {"dna_small.fa", AlphabetChoice::dna},
             {"dna_small.fa", AlphabetChoice::automatic},
             {"protein_small.fa", AlphabetChoice::automatic},
             {"reads.fq", AlphabetChoice::dna}}) {
        const auto want = read_all(data_dir + file, choice);
        ASSERT_FALSE(want.empty()) << file;
        SequenceReader reader(data_dir + file, choice);
        RecordBlock block;
        while (reader.next_into(block)) {}
        EXPECT_EQ(reader.records_read(), want.size()) << file;
        ASSERT_EQ(block.size(), want.size()) << file;
        for (std::size_t k = 0; k < want.size(); ++k) {
            const RecordView v = block[k];
            EXPECT_EQ(v.name, want[k].name) << file << " " << k;
            EXPECT_EQ(v.description, want[k].description) << file << " " << k;
            EXPECT_EQ(v.sequence, want[k].sequence) << file << " " << k;
            EXPECT_EQ(v.quality, want[k].quality) << file << " " << k;
            EXPECT_EQ(std::vector<std::uint8_t>(v.codes.begin(), v.codes.end()), want[k].codes) << file << " " << k;
        }
    }
}

TEST(SequenceIo, NextIntoThrowsWhatNextThrows) {
    for (const auto& [file, choice] : std::vector<std::pair<std::string, AlphabetChoice>>{
             {"bad_char.fa", AlphabetChoice::dna},
             {"bad_char.fa", AlphabetChoice::protein},
             {"protein_small.fa", AlphabetChoice::dna},
             {"digit.fa", AlphabetChoice::dna},
             {"no_name.fa", AlphabetChoice::dna}}) {
        const std::string want = first_error(data_dir + file, choice, false);
        EXPECT_NE(want, "") << file;
        EXPECT_EQ(first_error(data_dir + file, choice, true), want) << file;
    }
}

TEST(SequenceIo, ErrorBadCharacterWithAutoAlphabet) {
    // The '-' does not sway detection; the encoder reports it.
    SequenceReader reader(data_dir + "bad_char.fa");
    EXPECT_EQ(reader.alphabet(), Alphabet::dna);
    expect_input_error([&] { SequenceRecord r; while (reader.next(r)) {} },
                       {"bad_char.fa", "record 2 'r2'", "'-'", "position 7"});
}

TEST(SequenceIo, ErrorLaterRecordDisagreesWithDetectedAlphabet) {
    // 20 DNA records decide "dna" (detection peeks 16); record 20 holds protein letters.
    const auto path = (std::filesystem::temp_directory_path() / ("gpualign_io_late_" + std::to_string(::getpid()) + ".fa")).string();
    {
        std::ofstream out(path);
        for (int k = 1; k < 20; ++k) out << ">s" << k << "\nACGTACGT\n";
        out << ">s20\nACGTEFG\n";
    }
    SequenceReader reader(path);
    EXPECT_EQ(reader.alphabet(), Alphabet::dna);
    expect_input_error([&] { SequenceRecord r; while (reader.next(r)) {} }, {"record 20 's20'", "'E'", "position 5"});
    std::filesystem::remove(path);
}

TEST(SequenceIo, ErrorTruncatedGzip) {
    expect_input_error([&] { read_all(data_dir + "truncated.fa.gz"); }, {"truncated.fa.gz", "truncated gzip"});
}

TEST(SequenceIo, ErrorCorruptGzip) {
    std::ifstream in(data_dir + "dna_small.fa.gz", std::ios::binary);
    std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gz[gz.size() - 6] = static_cast<char>(gz[gz.size() - 6] ^ 0x5a);  // CRC-32 / size trailer
    const auto path = (std::filesystem::temp_directory_path() / ("gpualign_io_corrupt_" + std::to_string(::getpid()) + ".fa.gz")).string();
    { std::ofstream(path, std::ios::binary) << gz; }
    expect_input_error([&] { read_all(path); }, {path, "gzip"});
    std::filesystem::remove(path);
}

TEST(SequenceIo, ErrorFastqQualityLonger) {
    expect_input_error([&] { read_all(data_dir + "qual_long.fq"); }, {"qual_long.fq", "record 2 'q2'", "quality"});
}

TEST(SequenceIo, ErrorFastqQualityShorter) {
    expect_input_error([&] { read_all(data_dir + "qual_short.fq"); }, {"qual_short.fq", "record 2 'q2'", "quality"});
}

TEST(SequenceIo, ErrorFastqQualityShorterAtEndOfFile) {
    const auto path = (std::filesystem::temp_directory_path() / ("gpualign_io_qend_" + std::to_string(::getpid()) + ".fq")).string();
    { std::ofstream(path) << "@q1\nACGT\n+\nIIII\n@q2\nACGTAC\n+\nIII\n"; }
    expect_input_error([&] { read_all(path); }, {path, "record 2 'q2'", "quality"});
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpualign

namespace gpualign {
namespace {

// A gzip FASTQ (or FASTA) cut short anywhere in its last bytes is an
// InputError naming the file, from SequenceReader and from the block reader
// alike, never a terminated process: SeqAn3 reads the qualities through a
// view that must not see an exception from the stream (a throw there
// terminated the process; fuzz/regressions/sequence_reader/
// truncated_gzip_fastq_qualities_noexcept).
TEST(SequenceIo, TruncatedGzipIsAnInputErrorAtEveryCut) {
    std::string fastq, fasta;
    for (int k = 0; k < 40; ++k) {
        fastq += "@r" + std::to_string(k) + "\nACGTACGTAC\n+\n" + std::string(10, static_cast<char>('!' + k)) + "\n";
        fasta += ">r" + std::to_string(k) + "\nACGTACGTAC\nGGTT\n";
    }
    const auto dir = std::filesystem::temp_directory_path() / ("gpualign_trunc_gz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (const std::string* text : {&fastq, &fasta}) {
        std::string gz(compressBound(static_cast<uLong>(text->size())) + 64, '\0');
        z_stream zs{};
        ASSERT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text->data()));
        zs.avail_in = static_cast<uInt>(text->size());
        zs.next_out = reinterpret_cast<Bytef*>(gz.data());
        zs.avail_out = static_cast<uInt>(gz.size());
        ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
        gz.resize(zs.total_out);
        deflateEnd(&zs);
        for (std::size_t cut = 1; cut <= 40 && cut < gz.size(); ++cut) {
            const std::string path = (dir / ("cut" + std::to_string(cut) + ".gz")).string();
            std::ofstream(path, std::ios::binary) << gz.substr(0, gz.size() - cut);
            std::string serial_error, block_error;
            try {
                SequenceReader r(path, AlphabetChoice::dna);
                SequenceRecord rec;
                while (r.next(rec)) {}
            } catch (const InputError& e) {
                serial_error = e.what();
            }
            try {
                ParallelSequenceReader r(path, AlphabetChoice::dna, 2);
                SequenceRecord rec;
                while (r.next(rec)) {}
            } catch (const InputError& e) {
                block_error = e.what();
            }
            EXPECT_NE(serial_error.find(path), std::string::npos) << "cut " << cut << ": " << serial_error;
            EXPECT_EQ(serial_error, block_error) << "cut " << cut;
        }
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpualign
