// gpualign — the CPU reference aligner: the no-GPU backend and the oracle
// that every kernel is checked against byte for byte.
#pragma once

#include <cstdint>
#include <span>

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// Aligns one pair with the canonical rule of docs/scoring.md, with no
/// length cap beyond memory for the sequences and the 32-bit score bound.
///
/// Pairs of at most `full_matrix_cells` cells run the full-matrix reference
/// (align_pair_full_matrix); larger ones run the linear-memory checkpoint
/// method (align_pair_long with default options, all cores), which gives the
/// same bytes.
///
/// @param query, ref  sequence codes (see Alphabet), host memory, borrowed.
///                    Either may be empty: a global alignment is then one
///                    gap (or nothing), a local one is unaligned, a
///                    semi-global one the query's gap (or nothing).
/// @param s           a validated scheme whose alphabet matches the codes.
/// @param mode        local, global or semi-global (docs/scoring.md).
/// @param score_only  skip the CIGAR; result.has_cigar = false.
/// @return coordinates 0-based half-open, see AlignmentResult.
/// @throws std::length_error if the pair fails fits_int32.
AlignmentResult align_pair(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                           const ScoringScheme& s, AlignMode mode, bool score_only);

/// The full-matrix reference: the oracle every other path is checked
/// against byte for byte.
///
/// Algorithm: Gotoh (1982) affine-gap DP over a (query_len+1) x (ref_len+1)
/// matrix, row-wise, local (Smith-Waterman 1981), global
/// (Needleman-Wunsch 1970) or semi-global (free ref end gaps). With traceback
/// it stores one direction byte per cell (query_len * ref_len bytes, host
/// memory, freed on return); score-only keeps O(ref_len) memory and carries
/// the local or semi-global begin cell forward.
/// Parameters and result as align_pair.
/// @throws std::length_error if the pair fails fits_int32, or if the
///         direction matrix would exceed `full_matrix_max_cells` bytes.
AlignmentResult align_pair_full_matrix(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                                       const ScoringScheme& s, AlignMode mode, bool score_only);

/// Pairs up to this many DP cells (query_len * ref_len) take the full-matrix
/// path in align_pair: 2^24 cells, a 16 MiB direction matrix per pair.
inline constexpr std::uint64_t full_matrix_cells = std::uint64_t{1} << 24;

/// The reference's own limit: 2^32 cells (4 GiB of host memory). It is a
/// test oracle, not a product limit: align_pair has no such cap.
inline constexpr std::uint64_t full_matrix_max_cells = std::uint64_t{1} << 32;

}  // namespace gpualign
