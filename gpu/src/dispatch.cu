// gpualign — launch wrappers: picks the kernel variant for (mode, traceback)
// from the tuning table and launches it. Host code; the device code lives in
// kernels/.
#include "dispatch.hpp"

#include "cuda_check.hpp"
#include "kernels/cigar_gather_kernel.cuh"
#include "kernels/cigar_scan_kernel.cuh"
#include "kernels/dp_kernel.cuh"
#include "kernels/fault_kernel.cuh"
#include "kernels/params.cuh"
#include "kernels/traceback_kernel.cuh"
#include "tuning.hpp"

namespace gpualign::gpu::detail {
namespace {

kernels::BatchParams to_params(const LaunchArgs& a) {
    kernels::BatchParams p{};
    p.seqs = a.seqs;
    p.tasks = a.tasks;
    p.matrix = a.matrix;
    p.out = a.out;
    p.cigar = a.cigar;
    p.host_cigar = a.host_cigar;
    p.host_cigar_capacity = a.host_cigar_capacity;
    p.dirs = a.dirs;
    p.scratch = static_cast<int4*>(a.scratch);
    p.count = a.count;
    p.size = a.size;
    p.gap_open = a.gap_open;
    p.gap_extend = a.gap_extend;
    p.identical_codes = a.identical_codes;
    return p;
}

template <bool Local, bool Traceback>
void launch(const kernels::BatchParams& p, cudaStream_t stream) {
    constexpr int R = rows_per_thread(Local, Traceback);
    if (p.size <= max_profile_alphabet) {
        const std::size_t smem = static_cast<std::size_t>(p.size) * R * 32 * 16 / 4;
        kernels::dp_kernel<R, Local, Traceback, true><<<p.count, 32, smem, stream>>>(p);
    } else {
        kernels::dp_kernel<R, Local, Traceback, false><<<p.count, 32, 0, stream>>>(p);
    }
    GPUALIGN_CUDA(cudaGetLastError(), "dp_kernel launch");
    if constexpr (Traceback) {
        const unsigned blocks = (p.count + traceback_block - 1) / traceback_block;
        kernels::traceback_kernel<R, Local><<<blocks, traceback_block, 0, stream>>>(p);
        GPUALIGN_CUDA(cudaGetLastError(), "traceback_kernel launch");
        kernels::cigar_scan_kernel<<<1, kernels::scan_block, 0, stream>>>(p);
        GPUALIGN_CUDA(cudaGetLastError(), "cigar_scan_kernel launch");
        const unsigned pairs_per_block = kernels::gather_block / 32;
        kernels::cigar_gather_kernel<<<(p.count + pairs_per_block - 1) / pairs_per_block, kernels::gather_block, 0,
                                       stream>>>(p);
        GPUALIGN_CUDA(cudaGetLastError(), "cigar_gather_kernel launch");
    }
}

}  // namespace

void launch_alignment(const LaunchArgs& args, cudaStream_t stream) {
    if (args.count == 0) return;
    if (args.inject_fault) {
        kernels::fault_kernel<<<1, 1, 0, stream>>>();
        GPUALIGN_CUDA(cudaGetLastError(), "fault_kernel launch (GPUALIGN_INJECT_CUDA_FAULT test hook)");
    }
    const kernels::BatchParams p = to_params(args);
    if (args.local)
        args.traceback ? launch<true, true>(p, stream) : launch<true, false>(p, stream);
    else
        args.traceback ? launch<false, true>(p, stream) : launch<false, false>(p, stream);
}

}  // namespace gpualign::gpu::detail
