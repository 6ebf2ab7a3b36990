// gpualign — the traceback of the inter-pair kernel's traceback variant: one
// thread per pair walks the direction bits that
// pair_kernel<Mode, false, SignedProfile, true> stored (layout:
// pair_dir_region_bytes, batch_layout.hpp) from the end cell back to the
// begin cell and emits the run-length CIGAR (BAM packing, len << 4 | op).
//
// Canonical rule (docs/scoring.md), the same state machine as
// traceback_kernel.cuh over cell (i, j), with the source of H decoded from
// the bits of pair_kernel.cuh (bit 0 clear: diagonal; else bit 1 clear: E;
// else F) and the local zero found from the value of H, which the walk
// carries (the bits do not hold it):
//   state H: local and H = 0 -> stop; diagonal -> '=' or 'X', H -= s(q_i,
//            r_j), (i,j) -= (1,1), and a local path stops on row/column 0;
//            E -> state E with Ecell = H; F -> state F with Fcell = H.
//   state E: emit 'D'; extended (bit 2): Ecell(i,j-1) = Ecell + ge, else
//            state H with H(i,j-1) = Ecell + go + ge; j -= 1.
//   state F: emit 'I'; extended (bit 3): Fcell(i-1,j) = Fcell + ge, else
//            state H with H(i-1,j) = Fcell + go + ge; i -= 1.
//   global: on row 0 emit j 'D', on column 0 emit i 'I', and stop.
//   semi-global: on row 0 stop; on column 0 emit i 'I' and stop.
// Runs are stored from the end of the pair's CIGAR slots backwards, as
// traceback_kernel stores them, so cigar_scan_kernel and
// cigar_gather_kernel take them as they are. Writes query_begin, ref_begin
// and the number of runs.
#pragma once

#include <cstdint>

#include "../batch_params.hpp"
#include "cigar_runs.cuh"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::kernels {

/// One function body on purpose: the walk's cell, state, value and current
/// run stay in registers (rules in the file's header). Grid: one thread per
/// pair of the batch.
template <AlignMode Mode>
__global__ void pair_traceback_kernel(detail::BatchParams p) {
    constexpr bool Local = Mode == AlignMode::local;
    constexpr int R = detail::pair_cols;

    const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    const std::uint32_t cnt = p.count;
    if (b >= cnt) return;
    if (p.out[detail::out_cigar_runs * cnt + b] < 0) return;  // the forward pass refused the pair
    const detail::PairTask task = p.tasks[b];
    const std::uint8_t* qs = p.seqs + task.query_offset;
    const std::uint8_t* rs = p.seqs + task.ref_offset;
    // This pair's nibbles: thread lane (b / 2) % 32 of its warp's region, half b % 2.
    const std::uint32_t* words = reinterpret_cast<const std::uint32_t*>(p.dirs + task.dir_offset);
    const std::size_t rows = task.dir_rows;
    const std::uint32_t lane = (b >> 1) & 31u, shift_half = (b & 1u) * 16u;
    std::uint32_t* cig_end = p.cigar + task.cigar_offset + task.query_len + task.ref_len;

    int i = p.out[detail::out_query_end * cnt + b];
    int j = p.out[detail::out_ref_end * cnt + b];
    int value = p.out[detail::out_score * cnt + b];  // H (state H), Ecell (E) or Fcell (F) of cell (i, j)
    if (Local && value == 0) {  // unaligned
        p.out[detail::out_query_begin * cnt + b] = 0;
        p.out[detail::out_ref_begin * cnt + b] = 0;
        p.out[detail::out_cigar_runs * cnt + b] = 0;
        return;
    }
    const int ge = p.gap_extend, open = p.gap_open + p.gap_extend;

    // Nibble of cell (i, j), 1 <= i <= m, 1 <= j <= n.
    auto bits = [&](int ci, int cj) -> std::uint32_t {
        const int s = (cj - 1) / R, c = (cj - 1) % R;
        const std::size_t entry = ((static_cast<std::size_t>(s) * rows + (ci - 1)) * (R / 16) + c / 16) * 32u + lane;
        return (words[entry * 4 + (c % 16) / 4] >> (shift_half + 4 * (c % 4))) & 0xFu;
    };

    CigarRuns cig{cig_end};

    enum : int { st_h, st_e, st_f } state = st_h;
    while (true) {
        if (cig.stops_at_border<Mode>(i, j)) break;
        const std::uint32_t nib = bits(i, j);
        if (state == st_h) {
            if (Local && value == 0) break;  // H == 0 ends a local path here
            if (!(nib & 1u)) {
                const std::uint8_t qc = qs[i - 1], rc = rs[j - 1];
                cig.emit(qc == rc && (p.identical_codes >> qc & 1u) ? CigarRuns::eq : CigarRuns::diff, 1);
                if constexpr (Local) value -= p.matrix[qc * p.size + rc];
                --i;
                --j;
                if (Local && (i == 0 || j == 0)) break;
            } else {
                state = !(nib & 2u) ? st_e : st_f;
            }
        } else if (state == st_e) {
            cig.emit(CigarRuns::del, 1);
            if (nib & 4u) {
                value += ge;
            } else {
                value += open;
                state = st_h;
            }
            --j;
        } else {
            cig.emit(CigarRuns::ins, 1);
            if (nib & 8u) {
                value += ge;
            } else {
                value += open;
                state = st_h;
            }
            --i;
        }
    }
    cig.flush();
    p.out[detail::out_query_begin * cnt + b] = i;
    p.out[detail::out_ref_begin * cnt + b] = j;
    p.out[detail::out_cigar_runs * cnt + b] = static_cast<std::int32_t>(cig.runs);
}

}  // namespace gpualign::gpu::kernels
