// The reverse complement of dna5 codes (strand.hpp).
#include "gpualign/strand.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace gpualign {
namespace {

/// dna5 rank -> rank of its complement: A0->T4, C1->G2, G2->C1, N3->N3, T4->A0.
constexpr std::array<std::uint8_t, 5> complement_of{4, 2, 1, 3, 0};

}  // namespace

std::uint8_t complement_code(std::uint8_t code) {
    if (code >= complement_of.size())
        throw std::invalid_argument("complement_code: " + std::to_string(code) +
                                    " is not a DNA code (dna5 ranks 0-4: A C G N T)");
    return complement_of[code];
}

void reverse_complement(std::span<const std::uint8_t> codes, std::span<std::uint8_t> out) {
    if (out.size() != codes.size())
        throw std::invalid_argument("reverse_complement: output of " + std::to_string(out.size()) +
                                    " codes for a sequence of " + std::to_string(codes.size()));
    const std::size_t n = codes.size();
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint8_t c = codes[n - 1 - k];
        if (c >= complement_of.size())
            throw std::invalid_argument("reverse_complement: code " + std::to_string(c) + " at position " +
                                        std::to_string(n - 1 - k) + " is not a DNA code (dna5 ranks 0-4: A C G N T)");
        out[k] = complement_of[c];
    }
}

std::vector<std::uint8_t> reverse_complement(std::span<const std::uint8_t> codes) {
    std::vector<std::uint8_t> out(codes.size());
    reverse_complement(codes, out);
    return out;
}

}  // namespace gpualign
