// gpualign — the inter-pair SIMD kernel's internal interface: one pair per
// 16-bit SIMD lane, every lane computing exactly the scalar recurrence of
// docs/scoring.md. Its scalar twin is align_pair_full_matrix
// (lib/src/align/reference/reference_aligner.cpp). The host side (grouping, eligibility,
// traceback walk, 32-bit re-scoring) is simd_aligner.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpualign/model/scoring.hpp"

namespace gpualign::cpu {

/// What the kernel computes for each lane.
///  - traceback: score, end cell, and the direction bits of every cell (dir),
///               from which the host walks the CIGAR or, for local and
///               semi-global score-only, just the begin cell.
///  - score:     score and end cell (global score-only, search scores).
enum class KernelKind : std::uint8_t { traceback, score };

/// How the kernel finds s(q, r) for a lane (simd_aligner.cpp picks):
///  - gather:     32-bit gathers from the scheme's matrix (any alphabet);
///  - pair_table: two byte shuffles on index q * size + r (alphabet^2 <= 32
///                and |score| <= 127: DNA);
///  - row_table:  every lane holds the same query (a search: one query
///                against DB records), so each row looks up its letter's
///                matrix row by the ref code (size <= 32, |score| <= 127:
///                DNA and protein).
enum class ScoreLookup : std::uint8_t { gather, pair_table, row_table };

/// One group of up to lanes() pairs, padded to a common `rows` x `cols`.
/// All pointers are host memory owned by the caller; lane-interleaved: the
/// value of lane l at row/column k is at [k * lanes + l].
struct LaneGroup {
    std::size_t lanes = 0;              ///< must equal lanes()
    std::size_t rows = 0;               ///< max query length in the group (<= 32000)
    std::size_t cols = 0;               ///< max ref length in the group (<= 32000)
    const std::int16_t* query_idx = nullptr;  ///< rows * lanes: query code * alphabet size (padding 0; all 0 for row_table)
    const std::int16_t* ref_codes = nullptr;  ///< cols * lanes: ref codes (padding 0)
    const std::int32_t* query_len = nullptr;  ///< lanes; 0 marks an unused lane
    const std::int32_t* ref_len = nullptr;    ///< lanes; 0 marks an unused lane
    /// row_table only: the query every used lane holds (rows codes).
    const std::uint8_t* shared_query = nullptr;
};

/// The scoring scheme as the kernel reads it, prepared once per scheme.
struct KernelScheme {
    int alphabet_size = 5;
    AlignMode mode = AlignMode::local;
    /// Scores looked up with byte shuffles (alphabet_size^2 <= 32 and every
    /// |score| <= 127): lo[k] / hi[k] = score of index k / k + 16 plus 128,
    /// index = query code * alphabet_size + ref code.
    bool byte_table = false;
    std::uint8_t lo[16] = {};
    std::uint8_t hi[16] = {};
    /// The same scores as 16-bit words, table16[k] = score of index k (0 past
    /// alphabet_size^2), 64-byte aligned for one vector load: AVX-512 targets
    /// look a lane's score up with one 16-bit permute (vpermw) instead of
    /// two byte shuffles.
    alignas(64) std::int16_t table16[32] = {};
    /// row_table: row_lo[a][k] / row_hi[a][k] = s(a, k) / s(a, k + 16) plus
    /// 128 (valid when row_tables: size <= 32 and every |score| <= 127).
    bool row_tables = false;
    std::uint8_t row_lo[32][16] = {};
    std::uint8_t row_hi[32][16] = {};
    const std::int32_t* matrix = nullptr;  ///< alphabet_size^2 scores (gather path), borrowed
    std::int16_t gap_open = 0;             ///< go
    std::int16_t gap_extend = 0;           ///< ge
};

/// Per-lane outputs, arrays of `lanes` entries owned by the caller.
/// Coordinates as docs/scoring.md: end cell (i, j) = (query_end, ref_end).
struct LaneResults {
    std::int32_t* score = nullptr;
    std::int32_t* query_end = nullptr;
    std::int32_t* ref_end = nullptr;
    /// 1 where a local score reached the 16-bit limit: the lane's outputs
    /// are then meaningless and the pair must be re-scored in 32 bits.
    std::uint8_t* overflow = nullptr;
    /// traceback only: kDirPlanes planes of rows * dir_row_cells(cols) *
    /// dir_plane_bytes(lanes) bytes each, one after the other (plane stride
    /// dir_plane_stride(rows, cols, lanes)), dir_bytes(rows, cols, lanes) in
    /// all, 64-byte aligned (the kernel writes whole vectors of 16 columns
    /// with streaming stores). Cell (i, j) holds one bit per lane in each
    /// plane (lane l: bit l % 8 of byte l / 8), at
    /// [p * stride + ((i-1) * dir_row_cells(cols) + (j-1)) * dir_plane_bytes(lanes)]:
    /// E wins (Ecell > diagonal), F wins (Fcell > max(diagonal, Ecell)),
    /// positive (local H > 0; unwritten in other modes), E extended,
    /// F extended. dir_byte() turns them into docs/scoring.md's byte.
    /// Columns past `cols` of a row (its padding) hold garbage.
    std::uint8_t* dir = nullptr;
};

/// Bit planes per cell in LaneResults::dir.
inline constexpr std::size_t kDirPlanes = 5;
/// Bytes of one bit plane: one bit per lane, at least one byte.
constexpr std::size_t dir_plane_bytes(std::size_t lanes) noexcept { return (lanes + 7) / 8; }
/// Columns a row of a plane holds: `cols` rounded up to 16, so that 16
/// columns of one row fill one vector of 16-bit lanes (16 * lanes / 8 bytes).
constexpr std::size_t dir_row_cells(std::size_t cols) noexcept { return (cols + 15) / 16 * 16; }
/// Bytes from one plane to the next.
constexpr std::size_t dir_plane_stride(std::size_t rows, std::size_t cols, std::size_t lanes) noexcept {
    return rows * dir_row_cells(cols) * dir_plane_bytes(lanes);
}
/// Bytes of LaneResults::dir for a group of rows x cols.
constexpr std::size_t dir_bytes(std::size_t rows, std::size_t cols, std::size_t lanes) noexcept {
    return kDirPlanes * dir_plane_stride(rows, cols, lanes);
}

/// The docs/scoring.md direction byte of lane `lane` from a cell's bits
/// (`cell` points into plane 0; `plane_stride` bytes between planes).
inline std::uint8_t dir_byte(const std::uint8_t* cell, std::size_t plane_stride, std::size_t lane, bool local) noexcept {
    const auto bit = [&](std::size_t p) { return (cell[p * plane_stride + lane / 8] >> (lane % 8)) & 1; };
    const std::uint8_t src = local && !bit(2) ? 0 : bit(1) ? 3 : bit(0) ? 2 : 1;
    return static_cast<std::uint8_t>(src | bit(3) << 2 | bit(4) << 3);
}

/// 16-bit lanes of the dispatched target (8 for SSE4/NEON, 16 for AVX2,
/// 32 for AVX-512); 0 on the one-lane fallback target (no SIMD kernel).
std::size_t lanes();

/// Runs the kernel on one group. Lanes whose query_len or ref_len is 0 are
/// ignored. The caller guarantees the 16-bit bounds (simd_aligner.cpp).
void align_lane_group(const LaneGroup& g, const KernelScheme& s, KernelKind kind, ScoreLookup lookup,
                      const LaneResults& out);

/// Name of the dispatched target ("AVX3", "AVX2", "SSE4", "NEON", ...).
std::string target_name();

/// The targets compiled in and supported by this CPU, best first (names).
std::vector<std::string> target_names();

/// Restricts dispatch to the named target (a test and benchmark hook; the
/// name must be one of target_names()); an empty name restores the default.
/// Not thread-safe: call while no kernel runs.
/// @throws std::invalid_argument for a name not in target_names().
void force_target(const std::string& name);

}  // namespace gpualign::cpu
