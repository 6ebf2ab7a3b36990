// gpualign — the CPU backend's batch aligner (simd_aligner.hpp): groups
// pairs for the inter-pair SIMD kernel (inter_pair_kernel.cpp) or hands them
// one by one to the intra-pair striped kernels (striped_kernel.cpp; for
// local score-only, the 8-bit striped_score8_kernel.cpp and the begin walk
// on its H, begin_walk.cpp), walks the tracebacks, and sends every pair the
// kernels cannot take in 16 bits to the scalar reference align_pair
// (reference_aligner.cpp).
//
// Which SIMD kernel (one rule, run_pairs): a batch whose inter-pair score
// lookup would be ScoreLookup::gather — the scheme has no byte tables
// (protein, IUPAC DNA) and the pairs do not all share one query (a search's
// scan, which looks up matrix rows: row_table) — takes the striped kernel;
// every other batch (DNA, shared-query batches) the inter-pair kernel.
#include "gpualign/align/simd_aligner.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <hwy/aligned_allocator.h>
#include <omp.h>

#include "align/simd/begin_walk.hpp"
#include "align/simd/inter_pair_kernel.hpp"
#include "align/simd/striped_kernel.hpp"
#include "align/simd/striped_score8_kernel.hpp"
#include "align/traceback_walk.hpp"
#include "gpualign/align/reference_aligner.hpp"

namespace gpualign {
namespace {

// 16-bit headroom: lane values stay inside +-32,000 by these bounds.
constexpr std::int64_t lane_limit = 32000;
// A group's direction bit planes above this many bytes go scalar (memory
// per thread: each OpenMP thread keeps one group's planes; pacbio_ecoli's
// largest group needs 29 MB).
constexpr std::uint64_t max_group_dir_bytes = std::uint64_t{64} << 20;

/// True when the pair's every real cell fits a 16-bit lane (global and
/// semi-global mode: a static bound on |H|, E and F, which holds for
/// semi-global since its borders are never below the global ones; local
/// mode: the lower side statically, the upper side by the kernel's overflow
/// flag).
bool simd_eligible(std::size_t m, std::size_t n, const ScoringScheme& s, AlignMode mode) {
    if (m == 0 || n == 0 || m > static_cast<std::size_t>(lane_limit) || n > static_cast<std::size_t>(lane_limit))
        return false;
    if (static_cast<std::uint64_t>(m) * n > full_matrix_cells) return false;
    const std::int64_t go = s.gap_open, ge = s.gap_extend, top = s.max_abs_score();
    if (go + ge > lane_limit / 2 || top > lane_limit / 4) return false;
    if (mode == AlignMode::local) return true;
    // (Semi-)global: H >= -(2 go + (i + j) ge) (the all-gap path), E/F one opening
    // and one extension below that, a diagonal step `top` below;
    // H <= top * min(i, j).
    const std::int64_t low = 2 * go + static_cast<std::int64_t>(m + n) * ge + (go + ge) + ge + top;
    const std::int64_t high = top * static_cast<std::int64_t>(std::min(m, n));
    return low < lane_limit && high < lane_limit;
}

cpu::KernelScheme kernel_scheme(const ScoringScheme& s, AlignMode mode) {
    cpu::KernelScheme k;
    k.alphabet_size = s.size;
    k.mode = mode;
    k.matrix = s.matrix.data();
    k.gap_open = static_cast<std::int16_t>(s.gap_open);
    k.gap_extend = static_cast<std::int16_t>(s.gap_extend);
    const int entries = s.size * s.size;
    k.byte_table = entries <= 32 && s.max_abs_score() <= 127;
    if (k.byte_table)
        for (int e = 0; e < entries; ++e)
            (e < 16 ? k.lo[e] : k.hi[e - 16]) = static_cast<std::uint8_t>(s.matrix[static_cast<std::size_t>(e)] + 128);
    if (k.byte_table)
        for (int e = 0; e < entries; ++e) k.table16[e] = static_cast<std::int16_t>(s.matrix[static_cast<std::size_t>(e)]);
    k.row_tables = s.size <= 32 && s.max_abs_score() <= 127;
    if (k.row_tables)
        for (int a = 0; a < s.size; ++a)
            for (int c = 0; c < s.size; ++c)
                (c < 16 ? k.row_lo[a][c] : k.row_hi[a][c - 16]) = static_cast<std::uint8_t>(s.score(a, c) + 128);
    return k;
}

/// Bytes at Highway's vector alignment (64 on x86) that grow to the largest
/// request and are reused after it (contents are not kept on growth).
struct AlignedBytes {
    hwy::AlignedFreeUniquePtr<std::uint8_t[]> ptr;
    std::size_t bytes = 0;
    /// At least `n` bytes. @throws std::bad_alloc.
    std::uint8_t* ensure(std::size_t n) {
        if (n > bytes) {
            ptr = hwy::AllocateAligned<std::uint8_t>(n);
            if (!ptr) throw std::bad_alloc();
            bytes = n;
        }
        return ptr.get();
    }
};

/// Buffers of one thread, reused from group to group.
struct Workspace {
    std::vector<std::int16_t> query, ref;
    std::vector<std::int32_t> query_len, ref_len, score, query_end, ref_end;
    std::vector<std::uint8_t> overflow;
    /// Direction bit planes: the inter-pair kernel's group
    /// (cpu::dir_bytes(rows, cols, lanes), written with streaming stores, so
    /// aligned) or the striped kernel's pair (StripedShape::dir_bytes()).
    AlignedBytes dir;
    /// Striped kernel: per query row, its segment's byte offset and lane.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> row_at;
    /// Local score-only: H of every cell of the 8-bit pass, read by the
    /// begin walk (begin_walk.hpp).
    AlignedBytes h8;
};

/// What a call computes: the CIGAR, the score with the (local or
/// semi-global) begin cell,
/// or the score and end cell only (score_pairs_cpu).
enum class Output : std::uint8_t { cigar, score_begin, score };

/// Whether the 16-bit kernels walk direction bits: for the CIGAR, and in
/// local and semi-global score-only for the begin cell (local striped pairs
/// first try the 8-bit pass and the walk on H: align_striped_pair).
bool needs_traceback(AlignMode mode, Output what) {
    return what == Output::cigar || (mode != AlignMode::global && what == Output::score_begin);
}

/// Whether the pairs `indices` (non-empty) all hold the same query (the same
/// memory): a search's scan, whose lanes look up each row's matrix row.
bool share_one_query(std::span<const PairView> pairs, std::span<const std::size_t> indices) {
    const PairView& first = pairs[indices[0]];
    return std::all_of(indices.begin(), indices.end(), [&](std::size_t k) {
        return pairs[k].query.data() == first.query.data() && pairs[k].query.size() == first.query.size();
    });
}

/// Aligns the pairs `members` (indices into pairs, at most L) together.
void align_group(std::span<const PairView> pairs, std::span<const std::size_t> members, const ScoringScheme& s,
                 const cpu::KernelScheme& ks, AlignMode mode, Output what, std::size_t L, Workspace& w,
                 std::span<AlignmentResult> out) {
    const bool score_only = what != Output::cigar;
    std::size_t rows = 0, cols = 0;
    for (const std::size_t k : members) {
        rows = std::max(rows, pairs[k].query.size());
        cols = std::max(cols, pairs[k].ref.size());
    }
    // Local and semi-global score-only walk the direction bits for the begin cell only:
    // measured cheaper than carrying begin cells in the lanes (pacbio_ecoli,
    // AVX-512: 0.37 s against 0.42 s; docs/benchmarks.md).
    const bool local = mode == AlignMode::local;
    const bool traceback = needs_traceback(mode, what);
    const std::size_t plane_bytes = cpu::dir_plane_bytes(L), dir_bytes = cpu::dir_bytes(rows, cols, L);
    if (traceback && dir_bytes > max_group_dir_bytes) {
        for (const std::size_t k : members) out[k] = align_pair(pairs[k].query, pairs[k].ref, s, mode, score_only);
        return;
    }
    // A search hands every lane the same query: each row then looks up its
    // letter's matrix row (ScoreLookup::row_table), for protein too.
    const bool shared = ks.row_tables && share_one_query(pairs, members);
    const cpu::ScoreLookup lookup =
        shared ? cpu::ScoreLookup::row_table : ks.byte_table ? cpu::ScoreLookup::pair_table : cpu::ScoreLookup::gather;
    w.query.assign(rows * L, 0);
    w.ref.assign(cols * L, 0);
    for (auto* v : {&w.query_len, &w.ref_len, &w.score, &w.query_end, &w.ref_end})
        v->assign(L, 0);
    w.overflow.assign(L, 0);
    for (std::size_t l = 0; l < members.size(); ++l) {
        const PairView& p = pairs[members[l]];
        for (std::size_t i = 0; i < p.query.size(); ++i)
            w.query[i * L + l] = shared ? std::int16_t{0} : static_cast<std::int16_t>(p.query[i] * s.size);
        for (std::size_t j = 0; j < p.ref.size(); ++j) w.ref[j * L + l] = p.ref[j];
        w.query_len[l] = static_cast<std::int32_t>(p.query.size());
        w.ref_len[l] = static_cast<std::int32_t>(p.ref.size());
    }
    std::uint8_t* const dir = traceback ? w.dir.ensure(dir_bytes) : nullptr;
    const cpu::LaneGroup g{L, rows, cols, w.query.data(), w.ref.data(), w.query_len.data(), w.ref_len.data(),
                           shared ? pairs[members[0]].query.data() : nullptr};
    const cpu::LaneResults r{w.score.data(), w.query_end.data(), w.ref_end.data(), w.overflow.data(),
                             dir};
    const cpu::KernelKind kind = traceback ? cpu::KernelKind::traceback : cpu::KernelKind::score;
    cpu::align_lane_group(g, ks, kind, lookup, r);

    for (std::size_t l = 0; l < members.size(); ++l) {
        const std::size_t k = members[l];
        const PairView& p = pairs[k];
        if (w.overflow[l]) {  // a local score reached the 16-bit limit: re-score in 32 bits
            out[k] = align_pair(p.query, p.ref, s, mode, score_only);
            continue;
        }
        AlignmentResult res;
        res.has_cigar = !score_only;
        if (local && w.score[l] == 0) {  // unaligned
            out[k] = std::move(res);
            continue;
        }
        res.score = w.score[l];
        res.query_end = w.query_end[l];
        res.ref_end = w.ref_end[l];
        if (traceback) {
            const std::size_t row_cells = cpu::dir_row_cells(cols), stride = cpu::dir_plane_stride(rows, cols, L);
            detail::traceback_walk(
                [&](std::int64_t i, std::int64_t j) {
                    return cpu::dir_byte(dir + ((static_cast<std::size_t>(i) - 1) * row_cells + (j - 1)) * plane_bytes,
                                         stride, l, local);
                },
                p.query.data(), p.ref.data(), s.alphabet, mode, !score_only, res);
        }
        out[k] = std::move(res);
    }
}

/// What a striped pass found: the score at the end cell (query_end,
/// ref_end), 1-based; a local score of 0 is an unaligned pair (every field 0).
AlignmentResult at_end_cell(bool local, std::int32_t score, std::int32_t query_end, std::int32_t ref_end,
                            bool has_cigar) {
    AlignmentResult res;
    res.has_cigar = has_cigar;
    if (local && score == 0) return res;
    res.score = score;
    res.query_end = query_end;
    res.ref_end = ref_end;
    return res;
}

/// One SIMD-eligible pair by the 16-bit striped traceback pass and the
/// walk: the CIGAR (with_cigar), or score, end and begin cells only.
/// Overflow or direction bits above max_group_dir_bytes: the scalar
/// reference.
AlignmentResult striped_traceback(const PairView& p, const ScoringScheme& s, const cpu::KernelScheme& ks,
                                  AlignMode mode, bool with_cigar, Workspace& w) {
    const bool local = mode == AlignMode::local;
    const std::size_t m = p.query.size(), n = p.ref.size();
    const auto scalar = [&] { return align_pair(p.query, p.ref, s, mode, !with_cigar); };
    const cpu::StripedShape shape = cpu::striped_shape(m, n);
    if (shape.dir_bytes() > max_group_dir_bytes) return scalar();
    std::uint8_t* const dir = w.dir.ensure(shape.dir_bytes());
    const cpu::StripedResult r =
        cpu::align_striped({p.query.data(), m, p.ref.data(), n}, ks, cpu::KernelKind::traceback, dir);
    if (r.overflow) return scalar();  // a local score reached the 16-bit limit: re-score in 32 bits
    AlignmentResult res = at_end_cell(local, r.score, r.query_end, r.ref_end, with_cigar);
    if (local && r.score == 0) return res;  // unaligned
    // Row i's (segment byte offset, lane), built without divisions: the walk
    // reads one cell per step.
    w.row_at.resize(m);
    const std::size_t cell = shape.cell_bytes(), stride = shape.plane_stride();
    for (std::size_t l = 0, i = 0; l < shape.lanes && i < m; ++l)
        for (std::size_t k = 0; k < shape.seg_len && i < m; ++k, ++i)
            w.row_at[i] = {static_cast<std::uint32_t>(k * cell), static_cast<std::uint32_t>(l)};
    const std::size_t col_bytes = shape.seg_len * cell;
    detail::traceback_walk(
        [&](std::int64_t i, std::int64_t j) {
            const auto [offset, lane] = w.row_at[static_cast<std::size_t>(i) - 1];
            return cpu::dir_byte(dir + (static_cast<std::size_t>(j) - 1) * col_bytes + offset, stride, lane, local);
        },
        p.query.data(), p.ref.data(), s.alphabet, mode, with_cigar, res);
    return res;
}

/// One local score-only pair by the 8-bit pass: the score and end cell,
/// and with `begin` the begin cell by the walk on the pass's H (kept in
/// w.h8, one byte per cell). Empty when the pass cannot answer: its best
/// reached the 8-bit limit, or (with `begin`) H would take more than
/// max_group_dir_bytes.
std::optional<AlignmentResult> local_score8(const PairView& p, const ScoringScheme& s, const cpu::Score8Scheme& s8,
                                            bool begin, Workspace& w) {
    const std::size_t m = p.query.size(), n = p.ref.size();
    const cpu::Score8Shape shape8 = cpu::score8_shape(m);
    const std::size_t h_bytes = shape8.column_bytes() * n;
    if (begin && h_bytes > max_group_dir_bytes) return std::nullopt;
    std::uint8_t* const h8 = begin ? w.h8.ensure(h_bytes) : nullptr;
    const cpu::Score8Result r8 = cpu::align_striped_score8({p.query.data(), m, p.ref.data(), n}, s8, h8);
    if (r8.overflow) return std::nullopt;
    AlignmentResult res = at_end_cell(true, r8.score, r8.query_end, r8.ref_end, false);
    if (begin && r8.score > 0) {
        const cpu::LocalBegin b = cpu::local_begin_from_h(p.query, p.ref, s, {h8, shape8.lanes, shape8.seg_len},
                                                          r8.score, r8.query_end, r8.ref_end);
        res.query_begin = b.query_begin;
        res.ref_begin = b.ref_begin;
    }
    return res;
}

/// Aligns one SIMD-eligible pair with the striped kernels.
///  - CIGAR, and semi-global score-only (the begin cell): the 16-bit
///    traceback pass and the walk (striped_traceback). For the CIGAR this
///    single pass was measured cheaper than a score pass for the end cell
///    (i, j) followed by a traceback pass over the prefix rectangle 1..i x
///    1..j (protein512_sw, AVX-512): the prefix covers a quarter of the
///    matrix or more on average.
///  - local score-only: the 8-bit score pass (striped_score8_kernel.cpp)
///    for the score and the end cell; with the begin cell
///    (align_pairs_cpu) it keeps H of every cell (one byte per cell, in
///    w.h8) and the begin walk (begin_walk.cpp) goes back from the end cell
///    on H alone. A scheme the 8-bit kernel cannot take, or a pair whose
///    best reaches its limit (255 - bias), takes the 16-bit kernels as
///    below.
///  - global score-only, score_pairs_cpu: the 16-bit score pass alone.
/// 16-bit overflow or direction bits above max_group_dir_bytes: the scalar
/// reference.
AlignmentResult align_striped_pair(const PairView& p, const ScoringScheme& s, const cpu::KernelScheme& ks,
                                   const cpu::Score8Scheme& s8, AlignMode mode, Output what, Workspace& w) {
    const bool score_only = what != Output::cigar;
    const bool local = mode == AlignMode::local;
    const std::size_t m = p.query.size(), n = p.ref.size();
    if (local && score_only && s8.usable)
        if (std::optional<AlignmentResult> res = local_score8(p, s, s8, what == Output::score_begin, w)) return *res;
    if (needs_traceback(mode, what)) return striped_traceback(p, s, ks, mode, !score_only, w);
    const cpu::StripedResult r = cpu::align_striped({p.query.data(), m, p.ref.data(), n}, ks, cpu::KernelKind::score, nullptr);
    if (r.overflow) return align_pair(p.query, p.ref, s, mode, score_only);  // re-score in 32 bits
    return at_end_cell(local, r.score, r.query_end, r.ref_end, false);
}

}  // namespace

const char* to_string(CpuKernel k) noexcept { return k == CpuKernel::simd ? "simd" : "scalar"; }

std::string simd_target() { return cpu::target_name(); }
std::vector<std::string> simd_targets() { return cpu::target_names(); }

std::string simd_instruction_set(const std::string& target) {
    static const std::pair<const char*, const char*> names[] = {
        {"AVX3", "AVX-512"},          {"AVX3_DL", "AVX-512 (Ice Lake)"}, {"AVX3_ZEN4", "AVX-512 (Zen 4)"},
        {"AVX3_SPR", "AVX-512 (Sapphire Rapids)"}, {"SSE4", "SSE4.2"},   {"EMU128", "no SIMD"},
        {"SCALAR", "no SIMD"}};
    for (const auto& [hwy_name, name] : names)
        if (target == hwy_name) return name;
    return target;
}
void force_simd_target(const std::string& name) { cpu::force_target(name); }

namespace {

void run_pairs(std::span<const PairView> pairs, const ScoringScheme& s, AlignMode mode, Output what, CpuKernel kernel,
               int threads, std::span<AlignmentResult> out) {
    const bool score_only = what != Output::cigar;
    // Work items: lane groups of SIMD-eligible pairs (largest first), then
    // the pairs that take the scalar reference.
    std::vector<std::size_t> simd, scalar;
    const std::size_t target_lanes = kernel == CpuKernel::simd ? cpu::lanes() : 0;  // 0: no SIMD target
    for (std::size_t k = 0; k < pairs.size(); ++k)
        (target_lanes > 0 && simd_eligible(pairs[k].query.size(), pairs[k].ref.size(), s, mode) ? simd : scalar)
            .push_back(k);
    const std::size_t L = std::max<std::size_t>(1, target_lanes);
    const cpu::KernelScheme ks = kernel_scheme(s, mode);
    const cpu::Score8Scheme s8 = cpu::make_score8_scheme(ks);
    // The routing rule (file comment): gather-lookup batches go striped.
    const bool shared_query = ks.row_tables && !simd.empty() && share_one_query(pairs, simd);
    const bool striped = !ks.byte_table && !shared_query;
    const std::size_t per_item = striped ? 1 : L;  // pairs per SIMD work item
    // Longest side first, then the other side: groups of similar shape pad
    // least (pacbio_ecoli: 5% padded cells, against 16% sorted by area).
    std::stable_sort(simd.begin(), simd.end(), [&](std::size_t a, std::size_t b) {
        const auto key = [&](std::size_t k) {
            const std::size_t m = pairs[k].query.size(), n = pairs[k].ref.size();
            return std::pair(std::max(m, n), std::min(m, n));
        };
        return key(a) > key(b);
    });
    const std::size_t groups = (simd.size() + per_item - 1) / per_item;

    std::exception_ptr error;
    std::size_t error_pair = pairs.size();
    const auto fail = [&](std::size_t k) {
#pragma omp critical(gpualign_align_pairs_cpu)
        if (!error || k < error_pair) {
            error = std::current_exception();
            error_pair = k;
        }
    };
#pragma omp parallel num_threads(std::max(1, threads))
    {
        Workspace w;
#pragma omp for schedule(dynamic, 1)
        for (std::size_t item = 0; item < groups + scalar.size(); ++item) {
            if (item < groups) {
                const std::span<const std::size_t> members(simd.data() + item * per_item,
                                                           std::min(per_item, simd.size() - item * per_item));
                try {
                    if (striped)
                        out[members[0]] = align_striped_pair(pairs[members[0]], s, ks, s8, mode, what, w);
                    else
                        align_group(pairs, members, s, ks, mode, what, L, w, out);
                } catch (...) {
                    fail(*std::min_element(members.begin(), members.end()));
                }
            } else {
                const std::size_t k = scalar[item - groups];
                try {
                    out[k] = align_pair(pairs[k].query, pairs[k].ref, s, mode, score_only);
                } catch (...) {
                    fail(k);
                }
            }
        }
    }
    if (error) {
        std::string what = "pair " + std::to_string(error_pair);
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            what += std::string(": ") + e.what();
        } catch (...) {
        }
        throw PairFailure(error_pair, error, what);
    }
}

}  // namespace

void align_pairs_cpu(std::span<const PairView> pairs, const ScoringScheme& s, AlignMode mode, bool score_only,
                     CpuKernel kernel, int threads, std::span<AlignmentResult> out) {
    if (out.size() != pairs.size()) throw std::invalid_argument("align_pairs_cpu: out.size() != pairs.size()");
    run_pairs(pairs, s, mode, score_only ? Output::score_begin : Output::cigar, kernel, threads, out);
}

std::vector<std::int32_t> score_pairs_cpu(std::span<const PairView> pairs, const ScoringScheme& s, AlignMode mode,
                                          CpuKernel kernel, int threads) {
    std::vector<AlignmentResult> out(pairs.size());
    run_pairs(pairs, s, mode, Output::score, kernel, threads, out);
    std::vector<std::int32_t> scores(pairs.size());
    for (std::size_t k = 0; k < pairs.size(); ++k) scores[k] = out[k].score;
    return scores;
}

}  // namespace gpualign
