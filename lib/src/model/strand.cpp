// The reverse complement of DNA codes (strand.hpp).
#include "gpualign/model/strand.hpp"

#include "gpualign/model/scoring.hpp"

#include <stdexcept>
#include <string>

namespace gpualign {
namespace {

/// Code -> code of its complement (scoring.hpp's dna_complement: the dna5
/// codes first, then the IUPAC codes of DnaCodes::iupac).
constexpr const auto& complement_of = dna_complement;
constexpr const char* code_range = "DNA codes 0-14: A C G N T B D H K M R S V W Y";

}  // namespace

std::uint8_t complement_code(std::uint8_t code) {
    if (code >= complement_of.size())
        throw std::invalid_argument("complement_code: " + std::to_string(code) +
                                    " is not a DNA code (" + code_range + ")");
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
                                        std::to_string(n - 1 - k) + " is not a DNA code (" + code_range + ")");
        out[k] = complement_of[c];
    }
}

std::vector<std::uint8_t> reverse_complement(std::span<const std::uint8_t> codes) {
    std::vector<std::uint8_t> out(codes.size());
    reverse_complement(codes, out);
    return out;
}

}  // namespace gpualign
