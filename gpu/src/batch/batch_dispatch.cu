// gpualign — launch wrappers: picks the kernel variant for (mode, traceback)
// from the tuning table and launches it. Host code; the device code lives in
// kernels/.
#include "batch_dispatch.hpp"

#include "../common/cuda_check.hpp"
#include "batch_tuning.hpp"
#include "kernels/cigar_gather_kernel.cuh"
#include "kernels/cigar_scan_kernel.cuh"
#include "kernels/dp_kernel.cuh"
#include "kernels/fault_kernel.cuh"
#include "kernels/pair_kernel.cuh"
#include "kernels/pair_traceback_kernel.cuh"
#include "kernels/traceback_kernel.cuh"

namespace gpualign::gpu::detail {
namespace {

// The inter-pair kernel's passes (score-only, p.status set): forward, then
// for local and semi-global the reverse pass for the begin cells.
template <AlignMode Mode, bool SignedProfile>
void launch_pairs(const BatchParams& p, cudaStream_t stream) {
    const int smem = pair_block_smem(p.size);
    const unsigned threads = (p.count + 1) / 2;
    const unsigned blocks = (threads + pair_block - 1) / pair_block;
    kernels::pair_kernel<Mode, false, SignedProfile><<<blocks, pair_block, smem, stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "pair_kernel launch");
    if constexpr (Mode != AlignMode::global) {
        kernels::pair_kernel<Mode, true, SignedProfile><<<blocks, pair_block, smem, stream>>>(p);
        GPUALIGN_CUDA(cudaGetLastError(), "pair_kernel (reverse pass) launch");
    }
}

// The compact CIGAR: the runs' prefix sum, then the gather into mapped host memory.
void launch_cigar_copy(const BatchParams& p, cudaStream_t stream) {
    kernels::cigar_scan_kernel<<<1, kernels::scan_block, 0, stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "cigar_scan_kernel launch");
    const unsigned pairs_per_block = kernels::gather_block / 32;
    kernels::cigar_gather_kernel<<<(p.count + pairs_per_block - 1) / pairs_per_block, kernels::gather_block, 0,
                                   stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "cigar_gather_kernel launch");
}

// The inter-pair kernel's traceback variant (p.pair_dirs): the forward pass
// storing direction bits, then one thread per pair walking them.
template <AlignMode Mode, bool SignedProfile>
void launch_pair_traceback(const BatchParams& p, cudaStream_t stream) {
    const int smem = pair_block_smem(p.size);
    const unsigned threads = (p.count + 1) / 2;
    const unsigned blocks = (threads + pair_block - 1) / pair_block;
    kernels::pair_kernel<Mode, false, SignedProfile, true><<<blocks, pair_block, smem, stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "pair_kernel (traceback variant) launch");
    kernels::pair_traceback_kernel<Mode><<<(p.count + traceback_block - 1) / traceback_block, traceback_block, 0, stream>>>(p);
    GPUALIGN_CUDA(cudaGetLastError(), "pair_traceback_kernel launch");
    launch_cigar_copy(p, stream);
}

template <AlignMode Mode, bool Traceback>
void launch(const BatchParams& p, cudaStream_t stream) {
    if constexpr (Traceback) {
        if (p.pair_dirs) {
            if (p.negative_profile)
                launch_pair_traceback<Mode, true>(p, stream);
            else
                launch_pair_traceback<Mode, false>(p, stream);
            return;
        }
    } else {
        if (p.status) {
            if (p.negative_profile)
                launch_pairs<Mode, true>(p, stream);
            else
                launch_pairs<Mode, false>(p, stream);
        }
    }
    constexpr int R = rows_per_thread(Mode != AlignMode::global, Traceback);
    if (p.size <= max_profile_alphabet) {
        const std::size_t smem = static_cast<std::size_t>(p.size) * R * 32 * 16 / 4;
        kernels::dp_kernel<R, Mode, Traceback, true><<<p.count, 32, smem, stream>>>(p);
    } else {
        kernels::dp_kernel<R, Mode, Traceback, false><<<p.count, 32, 0, stream>>>(p);
    }
    GPUALIGN_CUDA(cudaGetLastError(), "dp_kernel launch");
    if constexpr (Traceback) {
        const unsigned blocks = (p.count + traceback_block - 1) / traceback_block;
        kernels::traceback_kernel<R, Mode><<<blocks, traceback_block, 0, stream>>>(p);
        GPUALIGN_CUDA(cudaGetLastError(), "traceback_kernel launch");
        launch_cigar_copy(p, stream);
    }
}

}  // namespace

void launch_alignment(const BatchParams& p, AlignMode mode, bool traceback, bool inject_fault, cudaStream_t stream) {
    if (p.count == 0) return;
    if (inject_fault) {
        kernels::fault_kernel<<<1, 1, 0, stream>>>();
        GPUALIGN_CUDA(cudaGetLastError(), "fault_kernel launch (GPUALIGN_INJECT_CUDA_FAULT test hook)");
    }
    // One instantiation per (mode, traceback): a table, not a ladder.
    using Launch = void (*)(const BatchParams&, cudaStream_t);
    using M = AlignMode;
    static constexpr Launch table[3][2] = {
        {&launch<M::local, false>, &launch<M::local, true>},
        {&launch<M::global, false>, &launch<M::global, true>},
        {&launch<M::semi_global, false>, &launch<M::semi_global, true>},
    };
    table[static_cast<int>(mode)][traceback ? 1 : 0](p, stream);
}

template <AlignMode Mode, bool SignedProfile>
void prepare_pairs() {
    const int smem = pair_block_smem(pair_max_letters - 1);
    GPUALIGN_CUDA(cudaFuncSetAttribute(kernels::pair_kernel<Mode, false, SignedProfile>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
                  "pair_kernel shared memory");
    GPUALIGN_CUDA(cudaFuncSetAttribute(kernels::pair_kernel<Mode, false, SignedProfile, true>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
                  "pair_kernel (traceback variant) shared memory");
    if constexpr (Mode != AlignMode::global)
        GPUALIGN_CUDA(cudaFuncSetAttribute(kernels::pair_kernel<Mode, true, SignedProfile>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
                      "pair_kernel (reverse pass) shared memory");
}

void prepare_pair_kernels(AlignMode mode, bool negative_profile) {
    using M = AlignMode;
    static constexpr void (*table[3][2])() = {
        {&prepare_pairs<M::local, false>, &prepare_pairs<M::local, true>},
        {&prepare_pairs<M::global, false>, &prepare_pairs<M::global, true>},
        {&prepare_pairs<M::semi_global, false>, &prepare_pairs<M::semi_global, true>},
    };
    table[static_cast<int>(mode)][negative_profile ? 1 : 0]();
}

}  // namespace gpualign::gpu::detail
