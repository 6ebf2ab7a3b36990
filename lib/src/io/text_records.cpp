// gpualign — internal: the serial FASTA/FASTQ record parser (text_records.hpp).
#include "text_records.hpp"

#include <fmt/format.h>

#include "fasta_block.hpp"

namespace gpualign::detail {
namespace {

using traits = std::char_traits<char>;

bool is_blank(int c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(int c) noexcept { return c >= '0' && c <= '9'; }

std::string shown(int c) {
    if (c == traits::eof()) return "the end of the file";
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u <= 0x7e) return fmt::format("'{}'", static_cast<char>(u));
    return fmt::format("byte 0x{:02x}", u);
}

std::string name_of(const std::string& header) { return std::string(split_header(header).first); }

[[noreturn]] void digit_error(const std::string& header, int c, std::uint64_t position) {
    throw RecordSyntaxError(name_of(header), fmt::format("character {} at position {} is a digit, not a sequence "
                                                         "letter (digits are not allowed inside a sequence)",
                                                         shown(c), position + 1));
}

/// One character of a sequence line at `position` (0-based, line ends not
/// counted): a blank is dropped (its position kept in out.dropped), a digit
/// is an error, anything else is a letter (checked later against the
/// alphabet).
void take_sequence_char(int c, std::uint64_t position, TextRecord& out) {
    if (is_blank(c))
        out.dropped.push_back(position);
    else if (is_digit(c))
        digit_error(out.header, c, position);
    else
        out.letters.push_back(static_cast<char>(c));
}

}  // namespace

std::uint64_t TextRecord::written_position(std::size_t k) const noexcept {
    std::uint64_t pos = k;
    for (const std::uint64_t d : dropped) {
        if (d > pos) break;
        ++pos;
    }
    return pos + 1;
}

bool TextRecordParser::next(TextRecord& out) {
    out.header.clear();
    out.letters.clear();
    out.quality.clear();
    out.dropped.clear();
    return format_ == SequenceFormat::fasta ? next_fasta(out) : next_fastq(out);
}

bool TextRecordParser::read_line(std::string& line) {
    line.clear();
    for (int c = buf_.sgetc(); c != traits::eof(); c = buf_.snextc()) {
        if (c == '\n') {
            buf_.sbumpc();
            return true;
        }
        line.push_back(static_cast<char>(c));
    }
    return false;
}

bool TextRecordParser::next_fasta(TextRecord& out) {
    int c = buf_.sgetc();
    while (c != traits::eof() && (is_blank(c) || c == '\n')) c = buf_.snextc();
    if (c == traits::eof()) return false;
    if (c != '>' && c != ';')
        throw RecordSyntaxError("", fmt::format("expected '>' at the start of a record, found {}", shown(c)));
    c = buf_.snextc();
    while (c == ' ' || c == '\t') c = buf_.snextc();
    if (!read_line(out.header))
        throw RecordSyntaxError(name_of(out.header),
                                "unexpected end of file inside the header line (no line end after it)");
    std::uint64_t position = 0;  // characters of the sequence lines so far, line ends not counted
    for (c = buf_.sgetc(); c != traits::eof() && c != '>' && c != ';'; c = buf_.snextc()) {
        if (c == '\n') continue;
        take_sequence_char(c, position++, out);
    }
    return true;
}

bool TextRecordParser::next_fastq(TextRecord& out) {
    int c = buf_.sgetc();
    while (c != traits::eof() && (is_blank(c) || c == '\n')) c = buf_.snextc();
    if (c == traits::eof()) return false;
    if (c != '@') throw RecordSyntaxError("", fmt::format("expected '@' at the start of a record, found {}", shown(c)));
    buf_.sbumpc();
    if (!read_line(out.header))
        throw RecordSyntaxError(name_of(out.header), "unexpected end of file inside the header line");
    const std::string name = name_of(out.header);

    // Sequence lines, up to a line starting with '+'.
    std::uint64_t position = 0, lines = 0;
    for (;;) {
        c = buf_.sgetc();
        if (c == traits::eof())
            throw RecordSyntaxError(name, "missing '+' line: unexpected end of file after the sequence");
        if (c == '+') break;
        if (c == '@' && lines > 0)
            throw RecordSyntaxError(name, "missing '+' line: a line starting with '@' follows the sequence");
        for (; c != traits::eof() && c != '\n'; c = buf_.snextc()) take_sequence_char(c, position++, out);
        if (c == '\n') buf_.sbumpc();
        ++lines;
    }
    buf_.sbumpc();  // '+'
    const bool plus_ended = read_line(line_);
    if (!line_.empty() && line_ != out.header && line_ != name)
        throw RecordSyntaxError(name, fmt::format("the '+' line names '{}', another record than the '@' line",
                                                  name_of(line_)));

    // Qualities.
    const std::size_t want = out.letters.size();
    if (!plus_ended && want > 0)
        throw RecordSyntaxError(name, fmt::format("unexpected end of file before the quality line ({} letters)", want));
    std::uint64_t quality_lines = 0;
    // A zero-length sequence reads no quality line: an empty one is skipped as a blank line.
    while (plus_ended && want > 0 && (quality_lines == 0 || (lines > 1 && out.quality.size() < want))) {
        c = buf_.sgetc();
        if (c == traits::eof()) break;
        for (; c != traits::eof() && c != '\n'; c = buf_.snextc()) {
            if (is_blank(c)) continue;
            if (c < '!' || c > '~')
                throw RecordSyntaxError(name, fmt::format("quality character {} at position {} is outside the "
                                                          "Phred+33 range '!'..'~'",
                                                          shown(c), out.quality.size() + 1));
            out.quality.push_back(static_cast<char>(c));
        }
        if (c == '\n') buf_.sbumpc();
        ++quality_lines;
    }
    if (out.quality.size() < want) {
        if (buf_.sgetc() == traits::eof())
            throw RecordSyntaxError(name, fmt::format("unexpected end of file inside the record: qualities shorter "
                                                      "than the sequence ({} quality characters for {} letters)",
                                                      out.quality.size(), want));
        throw RecordSyntaxError(name, fmt::format("qualities shorter than the sequence ({} quality characters for {} "
                                                  "letters)",
                                                  out.quality.size(), want));
    }
    if (out.quality.size() > want)
        throw RecordSyntaxError(name, fmt::format("qualities longer than the sequence ({} quality characters for {} "
                                                  "letters)",
                                                  out.quality.size(), want));
    return true;
}

}  // namespace gpualign::detail
