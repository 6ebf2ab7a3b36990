// gpualign — internal: the FASTA hot path (see fasta_block.hpp).
#include "fasta_block.hpp"

#include <cstring>
#include <string>

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
    thread_local std::string joined;  // the letters of a record written on several lines
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

        // Sequence lines, up to the next line that starts a record.
        std::size_t line = header_end + 1;
        std::string_view letters;
        bool several = false;
        while (line < text.size() && !starts_record(text, line)) {
            const std::size_t end = line_end(text, line);
            const std::string_view piece = text.substr(line, end - line);
            if (letters.empty() && !several) {
                letters = piece;
            } else {
                if (!several) joined.assign(letters);
                several = true;
                joined.append(piece);
            }
            line = end + 1;
        }
        if (several) letters = joined;
        if (letters.empty()) return false;  // SequenceReader reads it (a zero-length record)
        // A byte outside the alphabet (a blank it would drop, a digit, a
        // '>' or ';' inside a line, a letter it rejects) fails the encoding.
        if (block.append_encoded(name, description, letters, {}, alphabet, codes)) return false;
        p = line;
    }
    return true;
}

}  // namespace gpualign::detail
