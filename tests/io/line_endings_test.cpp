// Line ends and the UTF-8 byte order mark in SequenceReader: CRLF and lone CR
// read like LF, including when a CR ends one read chunk (128 KiB) and its LF
// or the next record starts the following one.
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpualign/io/sequence_io.hpp"
#include "temp_dir.hpp"

namespace gpualign {
namespace {

namespace fs = std::filesystem;

struct Rec {
    std::string name, description, sequence, quality;
    bool operator==(const Rec&) const = default;
};

std::vector<Rec> read_text(const std::string& text, bool gzip = false) {
    const test::TempDir dir("gpualign_le");  // removed also when the reader throws
    const fs::path p = dir.path / (gzip ? "in.fa.gz" : "in.fa");
    if (gzip) {
        gzFile f = gzopen(p.c_str(), "wb");
        gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
        gzclose(f);
    } else {
        std::ofstream(p, std::ios::binary) << text;
    }
    std::vector<Rec> out;
    {
        SequenceReader reader(p.string(), AlphabetChoice::dna);
        SequenceRecord r;
        while (reader.next(r)) out.push_back({r.name, r.description, r.sequence, r.quality});
    }
    return out;
}

/// Two records whose lines end in `eol`; the header of record 1 is padded so
/// that a CR falls on byte `cr_at` (the last byte of the first read chunk).
std::string chunk_edge_fasta(const std::string& eol, std::size_t cr_at) {
    for (std::size_t pad = 0; pad < 200; ++pad) {
        std::string t = ">r1 " + std::string(pad, 'd') + eol;
        while (t.size() < cr_at + 70'000) t += std::string(58, 'A') + "CG"[t.size() % 2] + eol;
        t += ">r2 second" + eol + "ACGTN" + eol;
        if (t[cr_at] == '\r') return t;
    }
    return {};
}

std::string lf(std::string s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') continue;
        out += s[i] == '\r' ? '\n' : s[i];
    }
    return out;
}

constexpr std::size_t chunk_end = 128 * 1024 - 1;

TEST(LineEndings, CrlfSplitAcrossReadChunks) {
    const std::string text = chunk_edge_fasta("\r\n", chunk_end);
    ASSERT_FALSE(text.empty());
    ASSERT_EQ(text[chunk_end + 1], '\n');
    const auto got = read_text(text);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got, read_text(lf(text)));
    EXPECT_EQ(got[1].sequence, "ACGTN");
}

TEST(LineEndings, LoneCrAtEndOfReadChunk) {
    const std::string text = chunk_edge_fasta("\r", chunk_end);
    ASSERT_FALSE(text.empty());
    const auto got = read_text(text);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got, read_text(lf(text)));
}

TEST(LineEndings, GzipCrOnlyAndBomGiveTheLfRecords) {
    const std::string text = "\xEF\xBB\xBF>r1 one\rACGT\rAC\r\r>r2\rGGNN\r";
    const auto got = read_text(text, true);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], (Rec{"r1", "one", "ACGTAC", ""}));
    EXPECT_EQ(got[1], (Rec{"r2", "", "GGNN", ""}));
    EXPECT_EQ(got, read_text(">r1 one\nACGT\nAC\n\n>r2\nGGNN\n"));
}

TEST(LineEndings, BomOnlyInTheMiddleIsNotSkipped) {
    try {
        read_text(">r1\nAC\xEF\xBB\xBFGT\n");
        ADD_FAILURE() << "no InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("position 3"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace gpualign
