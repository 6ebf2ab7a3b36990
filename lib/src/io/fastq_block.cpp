// gpualign — internal: the FASTQ hot path (see fastq_block.hpp).
#include "fastq_block.hpp"

#include <cstring>

#include "fasta_block.hpp"

namespace gpualign::detail {
namespace {

/// True when every byte of `q` is a Phred+33 character SequenceReader keeps ('!'..'~').
bool printable_qualities(std::string_view q) noexcept {
    unsigned char bad = 0;
    for (const char c : q) {
        const auto u = static_cast<unsigned char>(c);
        bad |= static_cast<unsigned char>(u < 0x21 || u > 0x7E);
    }
    return bad == 0;
}

}  // namespace

std::size_t fastq_cut(std::string_view text, std::size_t from) noexcept {
    std::size_t p = from;
    while (p < text.size()) {
        // the next line start at or after p
        if (p > 0 && text[p - 1] != '\n') {
            const std::size_t lf = line_end(text, p);
            if (lf == text.size()) return text.size();
            p = lf + 1;
            continue;
        }
        if (text[p] == '@') {
            const std::size_t l1 = line_end(text, p);
            if (l1 == text.size()) return text.size();
            const std::size_t l2 = line_end(text, l1 + 1);
            if (l2 + 1 < text.size() && text[l2 + 1] == '+') return p;
        }
        const std::size_t lf = line_end(text, p);
        if (lf == text.size()) return text.size();
        p = lf + 1;
    }
    return text.size();
}

bool parse_fastq_block(std::string_view text, Alphabet alphabet, DnaCodes codes, RecordBlock& block) {
    block.reserve(text.size(), text.size() / 2);
    std::size_t p = 0;
    while (p < text.size()) {
        if (text[p] != '@') return false;
        const std::size_t header_end = line_end(text, p);
        if (header_end == text.size()) return false;
        if (std::memchr(text.data() + p, '\r', header_end - p)) return false;  // CR line ends: made LF first
        // SequenceReader keeps the whole line after '@' as the ID (no blanks dropped).
        const auto [name, description] = split_header(text.substr(p + 1, header_end - p - 1));
        if (name.empty()) return false;
        const std::size_t seq_begin = header_end + 1, seq_end = line_end(text, seq_begin);
        if (seq_end == text.size() || seq_end == seq_begin) return false;
        const std::size_t plus = seq_end + 1;
        if (plus >= text.size() || text[plus] != '+') return false;
        const std::size_t plus_end = line_end(text, plus);
        if (plus_end == text.size()) return false;
        // The '+' line is empty or repeats the header or its name (else an error, text_records.hpp).
        const std::string_view plus_text = text.substr(plus + 1, plus_end - plus - 1);
        if (!plus_text.empty() && plus_text != text.substr(p + 1, header_end - p - 1) && plus_text != name)
            return false;
        const std::size_t qual_begin = plus_end + 1, qual_end = line_end(text, qual_begin);
        const std::string_view letters = text.substr(seq_begin, seq_end - seq_begin);
        const std::string_view quality = text.substr(qual_begin, qual_end - qual_begin);
        if (quality.size() != letters.size() || !printable_qualities(quality)) return false;
        // After the qualities SequenceReader skips blank lines, then
        // wants '@' or the end. Only an LF and the next '@' (or the end) here.
        if (qual_end + 1 < text.size() && text[qual_end + 1] != '@') return false;
        // A letter outside the alphabet ('+', a blank, a digit...) fails the encoding.
        if (block.append_encoded(name, description, letters, quality, alphabet, codes)) return false;
        p = qual_end + 1;
    }
    return true;
}

}  // namespace gpualign::detail
