// gpualign — the fields several formats write alike: the coordinate check
// and the CIGAR text (as is, and with M for = and X runs).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "writer_detail.hpp"

namespace gpualign::format_detail {

std::string shown_name(std::string_view name) {
    constexpr std::size_t whole = 80, head = 60;
    if (name.size() <= whole) return std::string(name);
    std::size_t cut = head;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // a UTF-8 continuation byte
    return fmt::format("{}... ({} bytes)", name.substr(0, cut), name.size());
}

void check_coordinates(const RecordView& q, const RecordView& r, const AlignmentResult& res) {
    if (res.query_begin < 0 || res.query_begin > res.query_end ||
        static_cast<std::size_t>(res.query_end) > q.sequence.size() || res.ref_begin < 0 ||
        res.ref_begin > res.ref_end || static_cast<std::size_t>(res.ref_end) > r.sequence.size())
        throw std::logic_error(fmt::format("alignment of '{}' and '{}' has coordinates [{}, {}) x [{}, {}) outside the "
                                           "sequences ({} x {})",
                                           shown_name(q.name), shown_name(r.name), res.query_begin, res.query_end, res.ref_begin, res.ref_end,
                                           q.sequence.size(), r.sequence.size()));
}

void append_cigar_m(std::span<const std::uint32_t> cigar, fmt::memory_buffer& out) {
    fmt::appender it(out);
    std::uint64_t m = 0;
    for (const std::uint32_t c : cigar) {
        const CigarOp op = cigar_op(c);
        if (op == CigarOp::eq || op == CigarOp::diff) {
            m += cigar_len(c);
            continue;
        }
        if (m > 0) fmt::format_to(it, "{}M", m);
        m = 0;
        fmt::format_to(it, "{}{}", cigar_len(c), cigar_char(op));
    }
    if (m > 0) fmt::format_to(it, "{}M", m);
}

void append_cigar(std::span<const std::uint32_t> cigar, fmt::memory_buffer& out) {
    static constexpr std::array<std::array<char, 2>, 100> two_digits = [] {
        std::array<std::array<char, 2>, 100> t{};
        for (int k = 0; k < 100; ++k) t[k] = {static_cast<char>('0' + k / 10), static_cast<char>('0' + k % 10)};
        return t;
    }();
    const std::size_t old = out.size();
    out.resize(old + cigar.size() * 11);  // at most 10 digits and a letter per run
    char* p = out.data() + old;
    for (const std::uint32_t c : cigar) {
        const std::uint32_t len = cigar_len(c);
        if (len < 100) {  // one or two digits without a branch on which: they vary run to run
            const std::size_t one = len < 10;
            p[0] = two_digits[len][one];
            p[1] = two_digits[len][1];
            p += 2 - one;
        } else {
            const fmt::format_int digits(len);
            p = std::copy(digits.data(), digits.data() + digits.size(), p);
        }
        *p++ = cigar_char(cigar_op(c));
    }
    out.resize(static_cast<std::size_t>(p - out.data()));
}

}  // namespace gpualign::format_detail
