#include "gpualign/model/scoring.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace gpualign {

int alphabet_size(Alphabet a, DnaCodes codes) noexcept {
    if (a == Alphabet::protein) return 27;
    return codes == DnaCodes::iupac ? static_cast<int>(dna_code_letters.size()) : 5;
}
const char* to_string(Alphabet a) noexcept { return a == Alphabet::dna ? "dna" : "protein"; }
const char* to_string(AlignMode m) noexcept {
    switch (m) {
        case AlignMode::local: return "local";
        case AlignMode::global: return "global";
        case AlignMode::semi_global: return "semi-global";
    }
    return "?";
}

std::int32_t ScoringScheme::max_abs_score() const noexcept {
    std::int32_t best = 0;
    for (std::int32_t v : matrix) best = std::max(best, std::abs(v));
    return best;
}

namespace {
constexpr std::int32_t max_magnitude = max_score_magnitude;
void check_range(const char* what, std::int64_t v, std::int64_t lo) {
    if (v < lo || v > max_magnitude)
        throw std::invalid_argument(std::string(what) + " = " + std::to_string(v) + " is out of range [" +
                                    std::to_string(lo) + ", " + std::to_string(max_magnitude) + "]");
}
}  // namespace

void ScoringScheme::validate() const {
    check_range("gap_open", gap_open, 0);
    check_range("gap_extend", gap_extend, 0);
    if (size != alphabet_size(alphabet, dna_codes))
        throw std::invalid_argument("scoring matrix has " + std::to_string(size) + " letters, the " +
                                    to_string(alphabet) + " alphabet needs " +
                                    std::to_string(alphabet_size(alphabet, dna_codes)));
    if (matrix.size() != static_cast<std::size_t>(size) * static_cast<std::size_t>(size))
        throw std::invalid_argument("scoring matrix has " + std::to_string(matrix.size()) + " entries, expected " +
                                    std::to_string(size * size));
    for (std::int32_t v : matrix) check_range("substitution score magnitude", std::abs(static_cast<std::int64_t>(v)), 0);
}

ScoringScheme make_dna_scheme(std::int32_t match, std::int32_t mismatch, std::int32_t gap_open,
                              std::int32_t gap_extend, std::int32_t n_score) {
    check_range("match", match, 0);
    check_range("mismatch", mismatch, 0);
    check_range("n_score magnitude", std::abs(static_cast<std::int64_t>(n_score)), 0);
    ScoringScheme s;
    s.alphabet = Alphabet::dna;
    s.size = 5;
    s.matrix.resize(25);
    for (int q = 0; q < 5; ++q)
        for (int r = 0; r < 5; ++r)
            s.matrix[q * 5 + r] = (q == dna_n_code || r == dna_n_code) ? n_score : (q == r ? match : -mismatch);
    s.gap_open = gap_open;
    s.gap_extend = gap_extend;
    s.matrix_name = "match/mismatch";
    s.validate();
    return s;
}

bool fits_int32(const ScoringScheme& s, std::uint64_t query_len, std::uint64_t ref_len) noexcept {
    const std::uint64_t per_column = static_cast<std::uint64_t>(s.max_abs_score()) +
                                     static_cast<std::uint64_t>(s.gap_open) + static_cast<std::uint64_t>(s.gap_extend);
    const std::uint64_t len = query_len + ref_len;
    if (len == 0 || per_column == 0) return true;
    return len < (std::uint64_t{1} << 30) / per_column;
}

}  // namespace gpualign
