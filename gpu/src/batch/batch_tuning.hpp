// gpualign — the tuning table of the CUDA kernels (the last layer of
// API -> dispatch -> kernels -> tuning). Host and device agree on these
// numbers through this header; nothing here limits sequence lengths.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpualign::gpu::detail {

/// Rows per lane of the local score-only kernel (8, 12 or 16); it carries begin
/// cells, three more registers per row. Overridable at build time
/// (-DGPUALIGN_TUNE_BEGIN_ROWS=8, host and device alike) to compare variants.
#ifndef GPUALIGN_TUNE_BEGIN_ROWS
#define GPUALIGN_TUNE_BEGIN_ROWS 16
#endif

/// Rows per lane of every kernel variant that writes direction bits (and of
/// global score-only, which carries no begin cell).
constexpr int traceback_rows = 16;

/// Query rows held in registers by each lane of the DP warp (one warp = one
/// thread block = one pair). 16 rows -> a stripe of 512 query rows; longer
/// queries are swept stripe by stripe. `begin_cells`: the score-only variant
/// carries begin cells (local and semi-global modes).
constexpr int rows_per_thread(bool begin_cells, bool traceback) noexcept {
    return (begin_cells && !traceback) ? GPUALIGN_TUNE_BEGIN_ROWS : traceback_rows;
}

/// Alphabets of at most this many codes (DNA) use the per-lane query profile
/// in shared memory (size * R * 128 bytes per block); larger ones (protein)
/// read the 32 x 32 matrix.
constexpr int max_profile_alphabet = 8;

/// Threads per block of the traceback kernel (one thread per pair).
constexpr int traceback_block = 64;

/// Largest query or ref length a kernel takes. The local score-only kernel
/// packs a begin cell as (i << 16 | j); 65,535 also keeps every offset of one
/// pair in 32 bits. Longer pairs go to the CPU path.
constexpr std::size_t max_sequence_length = 65535;

/// Batch shape: at most this many pairs per device batch (the engine also
/// caps query+ref bases per batch by BatchEngineOptions::max_batch_bases and the
/// direction-bit bytes by the traceback budget). The inter-pair kernel runs
/// two pairs a thread, and an H100 holds about 50,000 of its threads at
/// once (12 warps an SM, bound by its registers: __launch_bounds__ asks for
/// 6 blocks of 64), so a batch needs well over 100,000 pairs to fill the GPU.
constexpr std::size_t max_batch_pairs = 262144;

// The inter-pair kernel (kernels/pair_kernel.cuh).
#ifndef GPUALIGN_TUNE_PAIR_COLS
#define GPUALIGN_TUNE_PAIR_COLS 32
#endif
/// Ref columns per strip (registers per thread: 2 per column; a multiple of
/// 16). Overridable at build time (-DGPUALIGN_TUNE_PAIR_COLS=16) to compare.
constexpr int pair_cols = GPUALIGN_TUNE_PAIR_COLS;
/// The most profile letters (alphabet + pad letter) the kernel takes: the
/// profile's shared memory (pair_profile_bytes) bounds it; 15-code IUPAC
/// DNA fits, protein's 27 codes do not (docs/gpu.md, "Tuning").
constexpr int pair_max_letters = 16;
constexpr int pair_block = 64;   ///< threads per block of the inter-pair kernel
/// Query rows of a block of the forward pass's row bound (BatchParams::row_bound):
/// one word per block of a strip and thread. Two: the forward local pass
/// stores the second row of each two-row step as it goes (a larger block
/// would carry a maximum across steps, and spilled registers), and the
/// bound is tighter than with blocks of 16 (docs/scoring.md).
constexpr int pair_bound_rows = 2;
/// Shortest longest query of a batch that uses the forward pass's row bound:
/// on 150-bp reads in windows its loads cost more than the few cells it
/// skips there, on 512 x 512 pairs it pays (docs/gpu.md, "Tuning").
constexpr std::uint32_t pair_row_bound_min_rows = 256;

// Build-time switches to compare variants (docs/gpu.md, "Tuning"): rows a
// step of the forward and reverse passes (1 or 2), whether a local strip's
// best starts below the best so far, the blocks an SM that
// __launch_bounds__ asks for.
#ifndef GPUALIGN_TUNE_PAIR_ROWS
#define GPUALIGN_TUNE_PAIR_ROWS 2
#endif
#ifndef GPUALIGN_TUNE_PAIR_REVERSE_ROWS
#define GPUALIGN_TUNE_PAIR_REVERSE_ROWS 1
#endif
#ifndef GPUALIGN_TUNE_PAIR_CARRY_BEST
#define GPUALIGN_TUNE_PAIR_CARRY_BEST 1
#endif
#ifndef GPUALIGN_TUNE_PAIR_MIN_BLOCKS
#define GPUALIGN_TUNE_PAIR_MIN_BLOCKS 6
#endif
/// Shared memory per thread for `letters` profile letters (the alphabet and
/// the pad letter): two halves x letters x pair_cols bytes (s + O, a signed
/// byte from -ge to 127), plus 16 bytes so that neighbouring threads' profiles start in
/// different bank groups. DNA: 400 bytes a thread.
constexpr int pair_profile_bytes(int letters) { return 2 * letters * pair_cols + 16; }
/// Shared memory ahead of the profiles: the scheme's s + O as bytes,
/// alphabet x alphabet, staged once per block, rounded to 16 bytes.
constexpr int pair_matrix_bytes(int size) { return (size * size + 15) / 16 * 16; }
/// Dynamic shared memory of a block for an alphabet of `size` codes.
constexpr int pair_block_smem(int size) { return pair_matrix_bytes(size) + pair_block * pair_profile_bytes(size + 1); }

/// A score-only batch runs the inter-pair kernel only with at least this
/// many pairs per SM of the device (two pairs a thread: 4 warps an SM, a
/// quarter of the kernel's occupancy); a smaller batch (a few thousand long reads)
/// would leave most SMs idle, and goes to the warp-per-pair kernel, which
/// spreads each pair over 32 lanes.
constexpr std::size_t pair_kernel_min_pairs_per_sm = 256;

/// Default query+ref bases per device batch (BatchEngineOptions::max_batch_bases
/// = 0): score-only engines take 128 Mi (about 26 bytes of device memory a
/// base: 3.4 GB a stream; 100,000 pairs of 512 + 512 in one batch), engines
/// with traceback gpu::traceback_batch_bases (8 Mi, batch_engine.hpp, which
/// the pipeline also uses).
constexpr std::size_t score_only_batch_bases = std::size_t{128} << 20;

/// Pairs sorted together by length before being cut into batches.
constexpr std::size_t window_pairs = 262144;

/// Default device bytes for direction bits per stream (the engine lowers it
/// to fit the free memory or BatchEngineOptions::gpu_memory_limit).
constexpr std::uint64_t default_traceback_bytes = std::uint64_t{3} << 30;

/// Default query+ref bases per device batch of an engine with traceback
/// whose scheme the inter-pair kernel takes: its traceback variant needs
/// well over SMs x 256 pairs a batch (pair_kernel_min_pairs_per_sm), e.g.
/// 98,000 pairs of 512 x 512.
constexpr std::size_t pair_traceback_batch_bases = std::size_t{96} << 20;

/// The most direction-bit bytes per stream for batches of up to
/// `max_bases` query+ref bases: 128 bytes a base (a 512 x 512 pair's 4 bits
/// a cell), at least default_traceback_bytes and at most 12 GiB; the engine
/// lowers it further to fit the free memory or the memory limit.
constexpr std::uint64_t traceback_bytes_cap(std::size_t max_bases) noexcept {
    const std::uint64_t want = static_cast<std::uint64_t>(max_bases) * 128u;
    const std::uint64_t most = std::uint64_t{12} << 30;
    return want < default_traceback_bytes ? default_traceback_bytes : want > most ? most : want;
}

}  // namespace gpualign::gpu::detail
