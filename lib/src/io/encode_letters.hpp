// gpualign — internal: encoding letters with a 256-entry table, in SIMD.
//
// encode_sequence (sequence_io.cpp) maps each character of a sequence to its
// code through a table of 256 signed bytes (-1 = not in the alphabet). This
// is the parser's inner loop, so it runs in SIMD (Google Highway, every
// x86/ARM target, dispatched at run time): the table's printable half is
// split into 16-byte pieces by the character's high nibble and looked up
// with in-register byte shuffles. Scalar twin: encode_letters_scalar.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gpualign::detail {

/// A code table prepared for encode_letters: `code[c]` is the code of
/// character c (0..127), or -1 (0xFF) when c is not accepted. Characters
/// 128..255 are never accepted. Host memory; built once per alphabet.
struct LetterTable {
    alignas(16) std::array<std::uint8_t, 128> code{};
};

/// Writes out[k] = table.code[in[k]] for k in [0, n) (0xFF for a character
/// outside the table, or one of 128..255). Host memory: `in` and `out` hold n
/// bytes each and may not overlap.
/// @return true when every character is accepted (no 0xFF was written).
bool encode_letters(const LetterTable& table, const unsigned char* in, std::size_t n, std::uint8_t* out) noexcept;

/// The same, one byte at a time: the twin the tests compare against, and
/// the SIMD code's tail and scalar target.
inline bool encode_letters_scalar(const LetterTable& table, const unsigned char* in, std::size_t n,
                                  std::uint8_t* out) noexcept {
    std::uint8_t any = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint8_t code = in[k] < 128 ? table.code[in[k]] : 0xFF;
        out[k] = code;
        any |= code;
    }
    return (any & 0x80) == 0;  // accepted codes are below 0x80
}

}  // namespace gpualign::detail
