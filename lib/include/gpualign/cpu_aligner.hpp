// gpualign — the CPU reference aligner: the no-GPU backend and the oracle
// that every kernel is checked against byte for byte.
#pragma once

#include <cstdint>
#include <span>

#include "gpualign/alignment.hpp"
#include "gpualign/scoring.hpp"

namespace gpualign {

/// Aligns one pair with the canonical rule of docs/scoring.md.
///
/// Algorithm: Gotoh (1982) affine-gap DP over a (query_len+1) x (ref_len+1)
/// matrix, row-wise, local (Smith-Waterman 1981) or global
/// (Needleman-Wunsch 1970). With traceback it stores one direction byte per
/// cell (query_len * ref_len bytes, host memory, freed on return); score-only
/// keeps O(ref_len) memory and carries the local begin cell forward.
///
/// @param query, ref  sequence codes (see Alphabet), host memory, borrowed.
///                    Either may be empty: a global alignment is then one
///                    gap (or nothing), a local one is unaligned.
/// @param s           a validated scheme whose alphabet matches the codes.
/// @param mode        local or global.
/// @param score_only  skip the traceback; result.has_cigar = false.
/// @return coordinates 0-based half-open, see AlignmentResult.
/// @throws std::length_error if the pair fails fits_int32, or if traceback
///         would need more than `max_traceback_cells` bytes.
AlignmentResult align_pair(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                           const ScoringScheme& s, AlignMode mode, bool score_only);

/// Largest query_len * ref_len for which align_pair keeps a full direction
/// matrix: 2^28 cells, i.e. 256 MiB of host memory per pair (for example
/// 16,384 x 16,384). The CPU backend aligns one pair per thread, so full
/// tracebacks use at most threads x 256 MiB (4 GiB with 16 threads); larger
/// pairs are refused with std::length_error and run with --score-only, which
/// needs memory linear in ref_len.
inline constexpr std::uint64_t max_traceback_cells = std::uint64_t{1} << 28;

}  // namespace gpualign
