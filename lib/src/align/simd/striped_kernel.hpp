// gpualign — the intra-pair striped SIMD kernel's internal interface (Farrar
// 2007): one pair at a time, the query striped over the 16-bit lanes of one
// vector, every cell computing exactly the scalar recurrence of
// docs/scoring.md. Its scalar twin is align_pair_full_matrix
// (lib/src/align/reference/reference_aligner.cpp); the kernel, its layout and its lazy-F loop
// are described in striped_kernel.cpp's header comment. The host side
// (routing, eligibility, traceback walk, 32-bit re-scoring) is
// simd_aligner.cpp: pairs whose inter-pair score lookup would be
// ScoreLookup::gather (protein, any alphabet without byte tables) come here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "align/simd/inter_pair_kernel.hpp"

namespace gpualign::cpu {

/// Shape of one pair's striped layout: the query (rows, length m) is cut
/// into `lanes` stripes of `seg_len` = ceil(m / lanes) rows; query row i
/// (1-based) lives in segment (i-1) % seg_len, lane (i-1) / seg_len.
struct StripedShape {
    std::size_t lanes = 0;    ///< 16-bit lanes of the target (lanes())
    std::size_t seg_len = 0;  ///< vectors per column
    std::size_t ref_len = 0;  ///< columns n
    constexpr std::size_t plane_bytes() const noexcept { return dir_plane_bytes(lanes); }
    /// Bytes between two bit planes of one (column, segment): the planes
    /// are interleaved, so that a traceback step reads one cache line.
    constexpr std::size_t plane_stride() const noexcept { return plane_bytes(); }
    /// Bytes of one (column, segment): kDirPlanes planes.
    constexpr std::size_t cell_bytes() const noexcept { return kDirPlanes * plane_bytes(); }
    /// Bytes of the direction bits of the whole pair.
    constexpr std::size_t dir_bytes() const noexcept { return ref_len * seg_len * cell_bytes(); }
};

/// The shape of a query_len x ref_len pair on the dispatched target
/// (lanes() must be > 0).
inline StripedShape striped_shape(std::size_t query_len, std::size_t ref_len) {
    const std::size_t l = lanes();
    return {l, (query_len + l - 1) / l, ref_len};
}

/// The docs/scoring.md direction byte of cell (i, j), 1 <= i <= query_len,
/// 1 <= j <= ref_len, from the bits align_striped wrote into `dir`: plane p
/// of cell (i, j) is bit (i-1) / seg_len of the plane_bytes() bytes at
/// [((j-1) * seg_len + (i-1) % seg_len) * cell_bytes() + p * plane_bytes()]
/// (planes as LaneResults::dir: E wins, F wins, positive, E extended,
/// F extended).
inline std::uint8_t striped_dir_byte(const std::uint8_t* dir, const StripedShape& sh, std::size_t i, std::size_t j,
                                     bool local) noexcept {
    const std::size_t k = (i - 1) % sh.seg_len, lane = (i - 1) / sh.seg_len;
    return dir_byte(dir + ((j - 1) * sh.seg_len + k) * sh.cell_bytes(), sh.plane_stride(), lane, local);
}

/// One pair: codes (host memory, borrowed), both sides non-empty and at most
/// 32,000 long; the caller guarantees the 16-bit bounds as for
/// align_lane_group (global and semi-global by a static bound, local by the
/// overflow flag).
struct StripedPair {
    const std::uint8_t* query = nullptr;
    std::size_t query_len = 0;
    const std::uint8_t* ref = nullptr;
    std::size_t ref_len = 0;
};

/// What align_striped returns. Coordinates as docs/scoring.md: end cell
/// (query_end, ref_end); the local end cell is the first maximum in
/// row-major order, the semi-global one the first maximum of the last row
/// (j = 0 included), the global one (m, n).
struct StripedResult {
    std::int32_t score = 0;
    std::int32_t query_end = 0;
    std::int32_t ref_end = 0;
    /// A local score reached the 16-bit limit: the other fields are then
    /// meaningless and the pair must be re-scored in 32 bits.
    bool overflow = false;
};

/// Aligns one pair with the striped kernel of the dispatched target.
/// `s` is the scheme prepared by the host (matrix, alphabet_size, mode,
/// gap_open, gap_extend are read; the byte tables are not).
///  - KernelKind::score: score and end cell only; `dir` is unused.
///  - KernelKind::traceback: also the direction bits of every cell, written
///    to `dir` (striped_shape(query_len, ref_len).dir_bytes() bytes, owned by
///    the caller; read back with striped_dir_byte).
/// @throws std::bad_alloc.
StripedResult align_striped(const StripedPair& p, const KernelScheme& s, KernelKind kind, std::uint8_t* dir);

}  // namespace gpualign::cpu
