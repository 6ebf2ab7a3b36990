// gpualign — internal: the FASTA hot path (see fasta_block.hpp).
#include "fasta_block.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace gpualign::detail {
namespace {

bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/// True when a line starting at `p` of `text` begins a record.
bool starts_record(std::string_view text, std::size_t p) noexcept {
    return p < text.size() && (text[p] == '>' || text[p] == ';');
}

}  // namespace

std::size_t line_end(std::string_view text, std::size_t p) noexcept {
    const void* hit = std::memchr(text.data() + p, '\n', text.size() - p);
    return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - text.data()) : text.size();
}

std::pair<std::string_view, std::string_view> split_header(std::string_view header) noexcept {
    std::size_t end = 0;
    while (end < header.size() && !is_blank(header[end])) ++end;
    std::size_t desc = end;
    while (desc < header.size() && is_blank(header[desc])) ++desc;
    std::size_t desc_end = header.size();
    while (desc_end > desc && is_blank(header[desc_end - 1])) --desc_end;
    return {header.substr(0, end), header.substr(desc, desc_end - desc)};
}

bool parse_fasta_block(std::string_view text, Alphabet alphabet, DnaCodes codes, RecordBlock& block) {
    thread_local std::vector<std::string_view> lines;  // the letters of a record written on several lines
    // The records of `text` never hold more characters or letters than it
    // has: reserving that once (for an empty block, the case of the block
    // reader) keeps the arrays from growing by copies.
    block.reserve(text.size(), text.size());
    std::size_t p = 0;
    while (p < text.size()) {
        if (!starts_record(text, p)) return false;
        // Header: SequenceReader reads the line after '>' (or ';') and drops leading spaces and tabs.
        const std::size_t header_end = line_end(text, p);
        if (header_end == text.size()) return false;  // "FASTA ID line did not end in newline"
        if (std::memchr(text.data() + p, '\r', header_end - p)) return false;  // CR line ends: made LF first
        std::size_t h = p + 1;
        while (h < header_end && (text[h] == ' ' || text[h] == '\t')) ++h;
        const auto [name, description] = split_header(text.substr(h, header_end - h));
        if (name.empty()) return false;

        // Sequence lines, up to the next line that starts a record. A record's
        // lines mostly share one width, so a line is first taken to be as
        // long as the one before it when a newline ends it there (one byte
        // read instead of a scan). A guess that swallowed a shorter line's
        // newline (or the next header's '>') holds a byte outside the
        // alphabet and fails the encoding; the record's lines are then
        // found again, scanning each.
        std::size_t line = header_end + 1;
        auto collect = [&](bool guess) {
            lines.clear();
            std::size_t at = header_end + 1, width = 0, letters = 0;  // width: of the line before, 0 = none
            while (at < text.size() && !starts_record(text, at)) {
                const std::size_t end = guess && width && at + width < text.size() && text[at + width] == '\n'
                                            ? at + width
                                            : line_end(text, at);
                width = end - at;
                lines.push_back(text.substr(at, width));
                letters += width;
                at = end + 1;
            }
            line = at;
            return letters;
        };
        if (collect(true) == 0) return false;  // SequenceReader reads it (a zero-length record)
        // A byte outside the alphabet (a blank it would drop, a digit, a
        // '>' or ';' inside a line, a letter it rejects) fails the encoding.
        auto append = [&] {
            return lines.size() == 1 ? block.append_encoded(name, description, lines[0], {}, alphabet, codes)
                                     : block.append_encoded_pieces(name, description, lines, alphabet, codes);
        };
        if (append()) {
            if (lines.size() == 1 || collect(false) == 0 || append()) return false;
        }
        p = line;
    }
    return true;
}

}  // namespace gpualign::detail
