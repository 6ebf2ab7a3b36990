// gpualign — the traceback kernel: one thread per pair walks the direction
// bits written by dp_kernel<R, Mode, true> from the end cell back to the
// begin cell and emits the run-length CIGAR (BAM packing, len << 4 | op).
//
// Canonical rule (docs/scoring.md), state machine over cell (i, j):
//   state H: local and source 0 -> stop; source 1 (diagonal) -> '=' or 'X',
//            (i,j) -= (1,1), and a local path stops on row/column 0;
//            source 2 -> state E; source 3 -> state F.
//   state E: emit 'D'; if Ecell was opened (bit 2 clear) go to state H; j -= 1.
//   state F: emit 'I'; if Fcell was opened (bit 3 clear) go to state H; i -= 1.
//   global: on row 0 emit j 'D', on column 0 emit i 'I', and stop.
//   semi-global: on row 0 stop (the ref's leading gap is free); on column 0
//   emit i 'I' and stop.
// Runs are found from the end of the path to its begin and stored from the end
// of the pair's CIGAR slots (query_len + ref_len of them from
// task.cigar_offset) backwards, so that they lie in forward order in the last
// `runs` slots and the host copies them as they are. Writes query_begin,
// ref_begin and the number of runs.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../batch_params.hpp"
#include "cigar_runs.cuh"
#include "gpualign/model/scoring.hpp"

namespace gpualign::gpu::kernels {

/// One function body on purpose: the state machine's cell, state and
/// current run stay in registers across the walk (rules in the file's header).
template <int R, AlignMode Mode>
__global__ void traceback_kernel(detail::BatchParams p) {
    constexpr bool Local = Mode == AlignMode::local;
    using Word = std::conditional_t<R == 16, std::uint64_t, std::uint32_t>;
    constexpr int stripe_rows = 32 * R;

    const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    const std::uint32_t cnt = p.count;
    if (b >= cnt) return;
    const detail::PairTask task = p.tasks[b];
    const int m = static_cast<int>(task.query_len), n = static_cast<int>(task.ref_len);
    const std::uint8_t* qs = p.seqs + task.query_offset;
    const std::uint8_t* rs = p.seqs + task.ref_offset;
    const Word* dirs = reinterpret_cast<const Word*>(p.dirs + task.dir_offset);
    // One past the pair's last CIGAR slot: runs are stored backwards from here.
    std::uint32_t* cig_end = p.cigar + task.cigar_offset + task.query_len + task.ref_len;

    int i = p.out[detail::out_query_end * cnt + b];
    int j = p.out[detail::out_ref_end * cnt + b];
    if (Local && p.out[detail::out_score * cnt + b] == 0) {  // unaligned
        p.out[detail::out_query_begin * cnt + b] = 0;
        p.out[detail::out_ref_begin * cnt + b] = 0;
        p.out[detail::out_cigar_runs * cnt + b] = 0;
        return;
    }

    const int stripes = (m + stripe_rows - 1) / stripe_rows;
    const int last_tc = (m - (stripes - 1) * stripe_rows + R - 1) / R;
    // Nibble of cell (i, j), 1 <= i <= m, 1 <= j <= n (layout: dp_kernel.cuh).
    auto bits = [&](int ci, int cj) -> std::uint32_t {
        const int s = (ci - 1) / stripe_rows;
        const int rem = (ci - 1) - s * stripe_rows;
        const int t = rem / R, r = rem % R;
        const int tc = s == stripes - 1 ? last_tc : 32;
        const std::size_t word = static_cast<std::size_t>(s) * static_cast<std::size_t>(n + 31) * 32u +
                                 static_cast<std::size_t>(cj - 1 + t) * tc + t;
        return static_cast<std::uint32_t>(dirs[word] >> (4 * r)) & 0xFu;
    };

    CigarRuns cig{cig_end};

    enum : int { st_h, st_e, st_f } state = st_h;
    while (true) {
        if (cig.stops_at_border<Mode>(i, j)) break;
        const std::uint32_t nib = bits(i, j);
        if (state == st_h) {
            const std::uint32_t src = nib & 3u;
            if (src == 0) break;  // local only: H == 0 ends the path here
            if (src == 1) {
                const std::uint8_t qc = qs[i - 1], rc = rs[j - 1];
                cig.emit(qc == rc && (p.identical_codes >> qc & 1u) ? CigarRuns::eq : CigarRuns::diff, 1);
                --i;
                --j;
                if (Local && (i == 0 || j == 0)) break;
            } else {
                state = src == 2 ? st_e : st_f;
            }
        } else if (state == st_e) {
            cig.emit(CigarRuns::del, 1);
            if (!(nib & 4u)) state = st_h;
            --j;
        } else {
            cig.emit(CigarRuns::ins, 1);
            if (!(nib & 8u)) state = st_h;
            --i;
        }
    }
    cig.flush();
    p.out[detail::out_query_begin * cnt + b] = i;
    p.out[detail::out_ref_begin * cnt + b] = j;
    p.out[detail::out_cigar_runs * cnt + b] = static_cast<std::int32_t>(cig.runs);
}

}  // namespace gpualign::gpu::kernels
