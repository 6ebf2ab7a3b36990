// gpualign — the canonical traceback walk over stored direction bytes,
// shared by the scalar full-matrix reference (reference_aligner.cpp) and the
// inter-pair SIMD kernel (align/simd/simd_aligner.cpp), so both read the
// same direction bytes the same way. Internal header.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "gpualign/model/alignment.hpp"
#include "gpualign/model/scoring.hpp"

namespace gpualign::detail {

// A "minus infinity" for E and F on the borders that survives subtracting
// any penalty (<= 10^6) without wrapping; every CPU DP path starts from it.
inline constexpr std::int32_t neg_inf = std::numeric_limits<std::int32_t>::min() / 2;

// Direction byte layout (docs/scoring.md): bits 0-1 H source, bit 2 E extended,
// bit 3 F extended.
inline constexpr std::uint8_t from_zero = 0, from_diag = 1, from_e = 2, from_f = 3;
inline constexpr std::uint8_t e_extended = 4, f_extended = 8;

/// Appends one column of `op` to a CIGAR built back to front.
inline void append_run(std::vector<std::uint32_t>& rev_cigar, CigarOp op) {
    if (!rev_cigar.empty() && cigar_op(rev_cigar.back()) == op)
        rev_cigar.back() += 1u << 4;
    else
        rev_cigar.push_back(cigar_pack(op, 1));
}

/// Walks back from the end cell (res.query_end, res.ref_end) with the tie
/// rule of docs/scoring.md, and fills res.query_begin, res.ref_begin and,
/// when `with_cigar`, res.cigar (packed runs, start to end).
///
/// @param dir_at  callable (i, j) -> the direction byte of cell (i, j),
///                1 <= i <= query_len, 1 <= j <= ref_len.
/// @param q, r    the codes (host memory, borrowed), to tell '=' from 'X'.
/// @param mode    local: stop at a cell whose H source is zero, or on
///                row/column 0; global: finish with the border gaps;
///                semi-global: stop on row 0 (a free leading ref gap), finish
///                column 0 with its I's.
template <class DirAt>
void traceback_walk(DirAt&& dir_at, const std::uint8_t* q, const std::uint8_t* r, Alphabet alphabet, AlignMode mode,
                    bool with_cigar, AlignmentResult& res) {
    std::vector<std::uint32_t> rev;
    std::int64_t i = res.query_end, j = res.ref_end;
    const bool local = mode == AlignMode::local;
    enum class State { h, e, f } state = State::h;
    while (true) {
        if (mode == AlignMode::semi_global && i == 0) break;
        if (!local && (i == 0 || j == 0)) {
            if (with_cigar) {
                for (; j > 0; --j) append_run(rev, CigarOp::del);
                for (; i > 0; --i) append_run(rev, CigarOp::ins);
            }
            i = 0;
            j = 0;
            break;
        }
        const std::uint8_t bits = dir_at(i, j);
        if (state == State::h) {
            const std::uint8_t src = bits & 3;
            if (src == from_zero) break;  // local only
            if (src == from_diag) {
                if (with_cigar)
                    append_run(rev, residues_identical(alphabet, q[i - 1], r[j - 1]) ? CigarOp::eq : CigarOp::diff);
                --i;
                --j;
                if (local && (i == 0 || j == 0)) break;
            } else {
                state = src == from_e ? State::e : State::f;
            }
        } else if (state == State::e) {
            if (with_cigar) append_run(rev, CigarOp::del);
            if (!(bits & e_extended)) state = State::h;
            --j;
        } else {
            if (with_cigar) append_run(rev, CigarOp::ins);
            if (!(bits & f_extended)) state = State::h;
            --i;
        }
    }
    res.query_begin = static_cast<std::int32_t>(i);
    res.ref_begin = static_cast<std::int32_t>(j);
    res.has_cigar = with_cigar;
    if (with_cigar) res.cigar.assign(rev.rbegin(), rev.rend());
}

}  // namespace gpualign::detail
