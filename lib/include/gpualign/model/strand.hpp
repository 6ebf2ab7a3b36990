// gpualign — the two strands of DNA: the reverse complement of encoded
// sequences and of letters, and the rule that picks a strand (issue 14,
// `--strand plus|both`).
//
// Plain C++20 (no SeqAn3), so that gpu/ may include it. The strands are
// handled on the host: `--strand both` aligns the query and its reverse
// complement with the same backend and keeps the better alignment, so every
// backend writes the same bytes (docs/scoring.md, "Strands").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpualign {

/// The strand of the query that an alignment aligned against the forward
/// reference: plus = the query as read, minus = its reverse complement.
enum class Strand : std::uint8_t { plus, minus };

/// '+' or '-', as PAF column 5 and the TSV `strand` column write it.
constexpr char strand_char(Strand s) noexcept { return s == Strand::plus ? '+' : '-'; }

/// The complement of one DNA code (Alphabet::dna: seqan3::dna5 ranks A=0 C=1
/// G=2 N=3 T=4, then the IUPAC codes 5-14 of DnaCodes::iupac; scoring.hpp's
/// dna_complement): A<->T, C<->G, N->N, B<->V, D<->H, K<->M, R<->Y, S, W.
/// @throws std::invalid_argument when `code` is not a DNA code (> 14).
std::uint8_t complement_code(std::uint8_t code);

/// Writes the reverse complement of `codes` (DNA codes, host memory,
/// borrowed) into `out`: out[k] = complement_code(codes[n - 1 - k]). `out`
/// must hold exactly codes.size() bytes and must not overlap `codes`.
/// @throws std::invalid_argument naming the 0-based position of the first
///         code that is not a DNA code, or when the sizes differ.
void reverse_complement(std::span<const std::uint8_t> codes, std::span<std::uint8_t> out);

/// The reverse complement of `codes` (DNA codes) as a new vector (owned by
/// the caller). @throws as the overload above.
std::vector<std::uint8_t> reverse_complement(std::span<const std::uint8_t> codes);

/// The complement of a nucleotide letter as read from FASTA/FASTQ, case
/// kept: A<->T (U -> A), C<->G, and the IUPAC ambiguity codes R<->Y, K<->M,
/// B<->V, D<->H, with S, W and N their own complements. Any other character
/// is returned unchanged (the DNA reader accepts no other letter). For the
/// SAM SEQ of a minus-strand record (the reverse-complemented read).
constexpr char complement_letter(char c) noexcept {
    switch (c) {
        case 'A': return 'T';
        case 'C': return 'G';
        case 'G': return 'C';
        case 'T': return 'A';
        case 'U': return 'A';
        case 'R': return 'Y';
        case 'Y': return 'R';
        case 'K': return 'M';
        case 'M': return 'K';
        case 'B': return 'V';
        case 'V': return 'B';
        case 'D': return 'H';
        case 'H': return 'D';
        case 'a': return 't';
        case 'c': return 'g';
        case 'g': return 'c';
        case 't': return 'a';
        case 'u': return 'a';
        case 'r': return 'y';
        case 'y': return 'r';
        case 'k': return 'm';
        case 'm': return 'k';
        case 'b': return 'v';
        case 'v': return 'b';
        case 'd': return 'h';
        case 'h': return 'd';
        default: return c;  // S W N s w n, and characters that are not nucleotides
    }
}

/// The strand `--strand both` keeps for one pair, from the scores of its
/// plus-strand and minus-strand alignments: minus only when it scores
/// strictly higher (ties go to plus).
constexpr Strand better_strand(std::int32_t plus_score, std::int32_t minus_score) noexcept {
    return minus_score > plus_score ? Strand::minus : Strand::plus;
}

/// A half-open interval [begin, end) of 0-based positions.
struct Interval {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    bool operator==(const Interval&) const = default;
};

/// The interval of the forward strand that covers the same letters as
/// [begin, end) of the strand `s` of a sequence of `length` letters: itself
/// for plus; [length - end, length - begin) for minus. Callers pass a valid
/// interval (0 <= begin <= end <= length); an empty interval stays empty.
constexpr Interval forward_interval(Strand s, std::int64_t begin, std::int64_t end, std::int64_t length) noexcept {
    if (s == Strand::plus || begin == end) return {begin, end};
    return {length - end, length - begin};
}

}  // namespace gpualign
