// gpualign — the long-pair SIMD tile kernel's internal interface: one tile of
// the CPU long-pair wavefront (lib/src/align/long/long_aligner.cpp) computed by
// anti-diagonals in 32-bit SIMD lanes (Google Highway, run-time dispatch).
// Its scalar twin, the readable reference, is CpuBackend::tile_rows in
// long_aligner.cpp: every value this kernel writes is the value tile_rows
// writes, bit for bit (tests/align/long_aligner_test.cpp).
#pragma once

#include <cstdint>

#include "gpualign/align/checkpoint_traceback.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::cpu {

/// The scheme as the tile kernel reads it, prepared once per pair
/// (make_long_tile_scheme).
struct LongTileScheme {
    int size = 5;                          ///< alphabet size
    const std::int32_t* matrix = nullptr;  ///< size*size scores (gather path), borrowed
    std::int32_t open = 0;                 ///< go + ge: the cost of a gap's first position
    std::int32_t extend = 0;               ///< ge
    bool local = false;                    ///< zero floor (local mode)
    std::int32_t floor = 0;                ///< H's floor: 0 (local) or detail::neg_inf, as tile_rows' h_floor
    /// Scores looked up with byte shuffles (size^2 <= 32 and every score in
    /// [-128, 127], dna5): lo[k] / hi[k] = score of index k / k + 16 plus 128,
    /// index = query code * size + ref code. Otherwise 32-bit gathers.
    bool byte_table = false;
    std::uint8_t lo[16] = {};
    std::uint8_t hi[16] = {};
};

/// `s` must outlive the result (its matrix is borrowed).
LongTileScheme make_long_tile_scheme(const ScoringScheme& s, AlignMode mode);

/// One tile: cells (r, c), r = 1..rows (query[r-1]), c = 1..cols (ref[c-1]),
/// tile-local coordinates; row 0 and column 0 are its boundaries.
struct LongTile {
    std::int64_t rows = 0, cols = 0;          ///< >= 1 each
    const std::uint8_t* query = nullptr;      ///< rows codes
    const std::uint8_t* ref = nullptr;        ///< cols codes
    std::int32_t corner = 0;                  ///< H(0, 0)
    /// top[c], c = 1..cols: on entry H(0, c) and Fcell(0, c); on return
    /// H(rows, c) and Fcell(rows, c). top[0] is neither read nor written.
    BoundaryCell* top = nullptr;
    /// left[r], r = 1..rows: on entry H(r, 0) and Ecell(r, 0); on return
    /// H(r, cols) and Ecell(r, cols). left[0] is neither read nor written.
    BoundaryCell* left = nullptr;
    /// nullptr, or the direction byte (docs/scoring.md) of cell (r, c) goes to
    /// dirs[(r - 1) * dirs_pitch + (c - 1)].
    std::uint8_t* dirs = nullptr;
    std::int64_t dirs_pitch = 0;
};

/// Local mode: the tile's canonical best cell (max H, then smallest r, then
/// smallest c); h = 0, r = c = 0 when no cell is above 0. Other modes: unused.
struct LongTileBest {
    std::int32_t h = 0;
    std::int64_t r = 0, c = 0;
};

/// Whether the dispatched target has the SIMD tile kernel (false on
/// Highway's one-lane scalar target: the caller runs tile_rows instead).
bool long_tile_simd_available();

/// Computes one tile (LongTile says what it reads and writes).
/// Requires long_tile_simd_available(). Thread-safe (scratch is per thread).
LongTileBest compute_long_tile(const LongTile& t, const LongTileScheme& s);

}  // namespace gpualign::cpu
