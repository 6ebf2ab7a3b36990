// gpualign — the CPU backend's batch entry point: many independent pairs on
// every core, with the inter-pair SIMD kernel or the scalar reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign {

/// Which CPU kernel aligns a batch (`--cpu-kernel`).
///  - simd:   inter-pair SIMD (Rognes 2011's inter-sequence layout, one pair
///            per 16-bit lane, Google Highway with run-time dispatch to the
///            CPU's best instruction set) or, for batches whose scores it
///            would gather (protein; not a shared-query search scan), the
///            intra-pair striped kernel (Farrar 2007, one pair at a time);
///            falling back per pair to the scalar reference where 16 bits
///            cannot hold the scores.
///  - scalar: the readable reference align_pair, pair by pair (the oracle).
/// Both give byte-identical results (tests/align/simd_aligner_test.cpp).
/// Long pairs (align_pair_long, LongAlignOptions::kernel): simd computes the
/// wavefront's tiles in 32-bit SIMD lanes (lib/src/align/long/long_tile_kernel.cpp),
/// scalar with their readable twin; byte-identical too
/// (tests/align/long_aligner_test.cpp).
enum class CpuKernel : std::uint8_t { simd, scalar };

/// Printable name ("simd" or "scalar").
const char* to_string(CpuKernel k) noexcept;

/// One pair of a batch: sequence codes (see Alphabet), host memory,
/// borrowed for the duration of the call.
struct PairView {
    std::span<const std::uint8_t> query;
    std::span<const std::uint8_t> ref;
};

/// Thrown by align_pairs_cpu when a pair fails: `index` is the failing pair
/// (the first in input order among those that failed), `cause` the
/// original exception (std::length_error past the 32-bit bound,
/// std::bad_alloc, ...).
class PairFailure : public std::runtime_error {
public:
    PairFailure(std::size_t index, std::exception_ptr cause, const std::string& what)
        : std::runtime_error(what), index(index), cause(std::move(cause)) {}
    std::size_t index;
    std::exception_ptr cause;
};

/// Aligns pairs[k] into out[k] for every k, each exactly as align_pair does
/// (docs/scoring.md, coordinates 0-based half-open), on `threads` OpenMP
/// threads.
///
/// With CpuKernel::simd, pairs are sorted by size into groups of as many
/// pairs as the target has 16-bit lanes and aligned together; a pair goes to
/// the scalar reference instead when it is empty, longer than 32,000 on
/// either side, its 16-bit scores could overflow (a local score reaching
/// 32,767 is detected and re-scored in 32 bits; a global pair must pass a
/// static bound), or its group's direction bits would pass 64 MiB (per
/// thread).
/// Pairs above full_matrix_cells take align_pair's linear-memory path on one
/// thread each: callers with such pairs should use align_pair_long.
///
/// @param out  pairs.size() results, overwritten.
/// @throws PairFailure for the first failing pair; std::invalid_argument if
///         out.size() != pairs.size().
void align_pairs_cpu(std::span<const PairView> pairs, const ScoringScheme& s, AlignMode mode, bool score_only,
                     CpuKernel kernel, int threads, std::span<AlignmentResult> out);

/// The scores alone of every pair (as align_pair's .score), cheaper than
/// align_pairs_cpu in local mode: no begin cell, so the SIMD kernel stores
/// no direction bits. A search's scan: pairs that share one query (the same
/// memory) look up each row's matrix row, for protein as for DNA.
/// @return pairs.size() scores, index = pair.
/// @throws PairFailure as align_pairs_cpu.
std::vector<std::int32_t> score_pairs_cpu(std::span<const PairView> pairs, const ScoringScheme& s, AlignMode mode,
                                          CpuKernel kernel, int threads);

/// The SIMD target align_pairs_cpu dispatches to on this CPU, e.g. "AVX3"
/// (AVX-512BW), "AVX2", "SSE4", "NEON".
std::string simd_target();

/// The instruction set of a simd_target() name as the CPU's vendor and the
/// README call it: "AVX3" -> "AVX-512", "AVX3_DL" -> "AVX-512 (Ice Lake)",
/// "AVX3_ZEN4" -> "AVX-512 (Zen 4)", "AVX3_SPR" -> "AVX-512 (Sapphire
/// Rapids)", "SSE4" -> "SSE4.2", "EMU128" and "SCALAR" -> "no SIMD";
/// any other name (AVX2, NEON, SVE, ...) as it is. Pure.
std::string simd_instruction_set(const std::string& target);

/// Every SIMD target compiled in and supported by this CPU, best first.
std::vector<std::string> simd_targets();

/// Restricts dispatch to one target of simd_targets() (tests and
/// benchmarks force each in turn); "" restores the default. Not
/// thread-safe: call while no alignment runs.
/// @throws std::invalid_argument for a name not in simd_targets().
void force_simd_target(const std::string& name);

}  // namespace gpualign
