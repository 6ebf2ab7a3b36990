// Fuzz target: the NCBI-format substitution matrix parser (parse_matrix).
//
// Input layout: byte 0 chooses the alphabet (bit 0: protein, else dna) and
// the gap penalties (bits 1-7); the rest is the matrix text. Contract
// checked: parse_matrix throws InputError or std::invalid_argument and
// nothing else, and a returned scheme is valid and square in the alphabet
// and its DNA coding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz_check.hpp"
#include "gpualign/io/matrix.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpualign;
    if (size == 0) return 0;
    const Alphabet alphabet = (data[0] & 1) ? Alphabet::protein : Alphabet::dna;
    const std::int32_t gap_open = (data[0] >> 1) & 7;
    const std::int32_t gap_extend = 1 + ((data[0] >> 4) & 7);
    std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    try {
        const ScoringScheme s = parse_matrix(in, "fuzz.mat", alphabet, gap_open, gap_extend);
        FUZZ_CHECK(s.alphabet == alphabet);
        FUZZ_CHECK(alphabet == Alphabet::dna || s.dna_codes == DnaCodes::dna5);
        FUZZ_CHECK(s.size == alphabet_size(alphabet, s.dna_codes));
        FUZZ_CHECK(s.matrix.size() == static_cast<std::size_t>(s.size) * static_cast<std::size_t>(s.size));
        FUZZ_CHECK(s.gap_open == gap_open && s.gap_extend == gap_extend);
        s.validate();
    } catch (const InputError& e) {
        FUZZ_CHECK(std::string(e.what()).rfind("fuzz.mat:", 0) == 0);
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
