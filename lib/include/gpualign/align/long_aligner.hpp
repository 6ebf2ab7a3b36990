// gpualign — the CPU long-pair aligner: one pair spread over every core, exact
// traceback in memory linear in the lengths (checkpoint_traceback.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "gpualign/align/checkpoint_traceback.hpp"
#include "gpualign/align/simd_aligner.hpp"
#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// Options of align_pair_long. Sizes in bytes or cells as named.
struct LongAlignOptions {
    /// OpenMP threads computing one pair (a wavefront of tiles), 0 = all cores.
    /// Each tile diagonal ends in a barrier: where the cores are shared with
    /// other busy threads, run with OMP_WAIT_POLICY=passive (gpualign sets it
    /// for itself, app/main.cpp), or spinning waiters starve the work.
    int threads = 0;
    /// Host bytes for checkpoints and direction tiles (the sequences and the
    /// result are not counted). The fan-out of each level is lowered until its
    /// checkpoints fit; the floor is about 8 * 2 * (query_len + ref_len) * 2
    /// bytes plus one leaf tile.
    std::size_t memory_limit = std::size_t{512} << 20;
    /// Checkpoint plan (fan-out, leaf size); tests use small values to put
    /// tile boundaries everywhere.
    CheckpointPlan plan{};
    /// Side of the square tiles of the CPU wavefront (cells), >= 1. 512: the
    /// SIMD tile kernel's anti-diagonals are then long enough to amortise
    /// their ends (10-15% faster than 256 on H. pylori 50 kb, docs/long.md).
    std::int64_t tile = 512;
    /// Called from the calling thread as cells are computed (may be empty).
    ProgressCallback progress;
    /// Leaves computed ahead of the traceback's walk, as the GPU does (see
    /// RegionSpeculation::leaf_batch); 1 = one at a time. More only costs CPU
    /// time; tests use it to run the GPU's speculative path on the CPU.
    std::size_t leaf_batch = 1;
    /// Tiles above the leaves computed ahead of the walk, as the GPU does
    /// (RegionSpeculation::tile_batch); 1 = one at a time, cut at the path. More
    /// only costs CPU time; tests use it to run the GPU's path on the CPU.
    std::size_t tile_batch = 1;
    /// The tile kernel (`--cpu-kernel`): simd computes each tile by
    /// anti-diagonals in 32-bit SIMD lanes (lib/src/align/long/long_tile_kernel.cpp,
    /// the CPU's best instruction set picked at run time; the scalar tile
    /// where the CPU has none), scalar runs the readable row-by-row twin
    /// (CpuBackend::tile_rows). Both write the same values, bit for bit.
    CpuKernel kernel = CpuKernel::simd;
};

/// Aligns one pair on the CPU with the checkpoint method: byte-identical to
/// align_pair_full_matrix (docs/scoring.md) for every pair that one fits, in
/// memory linear in query_len + ref_len.
///
/// Algorithm: Gotoh (1982) recurrences, local (Smith-Waterman 1981), global
/// (Needleman-Wunsch 1970) or semi-global (the query end to end, the ref's
/// end gaps free; end cell the best of the last row, docs/scoring.md); each
/// pass is an anti-diagonal wavefront of `tile` x `tile` blocks over
/// `threads` OpenMP threads; traceback by recomputation from exact checkpoint
/// rows and columns (CUDAlign's special rows, Sandes & de Melo 2010-2016, in
/// two dimensions).
///
/// @param query, ref  codes (see Alphabet), host memory, borrowed.
/// @param s           a validated scheme whose alphabet matches the codes.
/// @param mode        local, global or semi_global.
/// @param score_only  no CIGAR (local and semi-global still report the begin
///                    cell: the traceback runs without recording the CIGAR).
/// @return coordinates 0-based half-open, see AlignmentResult.
/// @throws std::length_error if the pair fails fits_int32;
///         std::invalid_argument for bad options (tile < 1, fan_out < 2);
///         std::bad_alloc when even the smallest checkpoints do not fit.
AlignmentResult align_pair_long(std::span<const std::uint8_t> query, std::span<const std::uint8_t> ref,
                                const ScoringScheme& s, AlignMode mode, bool score_only,
                                const LongAlignOptions& options = {});

/// The RegionBackend align_pair_long drives (the OpenMP tile wavefront with
/// `options.kernel`'s tile kernel), for tests that compare Region outputs
/// (checkpoint rows and columns, direction bytes, best cell) directly.
/// `query`, `ref` and `s` are borrowed and must outlive the backend.
std::unique_ptr<RegionBackend> make_cpu_region_backend(std::span<const std::uint8_t> query,
                                                       std::span<const std::uint8_t> ref, const ScoringScheme& s,
                                                       AlignMode mode, const LongAlignOptions& options = {});

}  // namespace gpualign
