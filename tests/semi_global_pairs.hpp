// gpualign tests — pairs aimed at semi-global mode's end cell and walk ends
// (docs/scoring.md), shared by the CPU (tests/align) and GPU (tests/gpu) tests.
// Plain C++ (no SeqAn3): codes come from the product's encode_char.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::test {

/// One (query, ref) pair of codes.
struct SemiGlobalPair {
    std::vector<std::uint8_t> query, ref;
};

/// Pairs under `s` (its alphabet and gap penalties): ends on column 0 (a ref
/// of one letter scoring below -ge against the query's one letter, so that
/// H(m,0) wins; or exactly -ge, where columns 1..n tie it and column 0 still
/// wins), ends on the last column (the query is the ref's suffix, or runs past
/// its end), very short queries in long refs (copied, with one substitution,
/// unrelated) and long queries in short refs (a copied piece, unrelated).
///
/// @param random_seq  callable (std::size_t len) -> std::vector<std::uint8_t>:
///                    `len` random codes of s.alphabet (the caller's seeded
///                    generator, so the pairs are deterministic).
template <class RandomSeq>
std::vector<SemiGlobalPair> semi_global_edge_pairs(const ScoringScheme& s, RandomSeq&& random_seq) {
    using Codes = std::vector<std::uint8_t>;
    const std::string_view common = s.alphabet == Alphabet::dna ? "ACGT" : "ACDEFGHIKLMNPQRSTVWY";
    Codes letters;
    for (char c : common) letters.push_back(static_cast<std::uint8_t>(encode_char(s.alphabet, c)));
    // The letter pair with the lowest score, and the first scoring exactly -ge (if any).
    std::pair<std::uint8_t, std::uint8_t> low{letters[0], letters[0]}, tie{0, 0};
    bool has_tie = false;
    for (std::uint8_t a : letters)
        for (std::uint8_t b : letters) {
            if (s.score(a, b) < s.score(low.first, low.second)) low = {a, b};
            if (!has_tie && s.score(a, b) == -s.gap_extend) {
                tie = {a, b};
                has_tie = true;
            }
        }
    std::vector<SemiGlobalPair> p;
    for (std::size_t m : {1u, 3u, 40u})
        for (std::size_t n : {1u, 2u, 7u}) {
            p.push_back({Codes(m, low.first), Codes(n, low.second)});
            if (has_tie) p.push_back({Codes(m, tie.first), Codes(n, tie.second)});
        }
    auto concat = [](Codes a, const Codes& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    auto slice = [](const Codes& c, std::size_t at, std::size_t len) {
        return Codes(c.begin() + static_cast<std::ptrdiff_t>(at), c.begin() + static_cast<std::ptrdiff_t>(at + len));
    };
    // The query ends at the ref's end, or runs past it.
    const Codes tail = random_seq(60);
    p.push_back({tail, concat(random_seq(150), tail)});
    p.push_back({tail, concat(random_seq(150), slice(tail, 0, 45))});
    p.push_back({slice(tail, 59, 1), concat(random_seq(90), slice(tail, 59, 1))});
    // Very short queries in a long ref.
    const Codes window = random_seq(500);
    for (std::size_t m : {1u, 2u, 5u}) {
        p.push_back({slice(window, 250, m), window});
        Codes edited = slice(window, 250, m);
        edited[m / 2] = random_seq(1)[0];
        p.push_back({edited, window});
        p.push_back({random_seq(m), window});
    }
    // Long queries in a short ref.
    const Codes read = random_seq(300);
    for (std::size_t n : {1u, 3u, 12u}) {
        p.push_back({read, slice(read, 100, n)});
        p.push_back({read, random_seq(n)});
    }
    return p;
}

}  // namespace gpualign::test
