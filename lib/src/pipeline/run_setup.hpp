// gpualign — the setup that the pairs and search pipelines share: threads,
// the inputs' alphabet and scoring scheme, the output's options, the
// progress settings, the GPUs of the run and CUDA's early start.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <vector>

#include "gpualign/formats/writers.hpp"
#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/model/config.hpp"
#include "gpualign/model/scoring.hpp"
#include "gpualign/pipeline/pipeline.hpp"

namespace gpualign::detail {

using Clock = std::chrono::steady_clock;

/// Seconds from `t0` until now.
double seconds_since(Clock::time_point t0);

/// The run's threads: --threads, or every processor when 0.
int run_threads(const AlignConfig& c);

/// The alphabet of both inputs (ParallelSequenceReader::alphabet, queries
/// first); with --alphabet auto they must agree. An input with no records
/// takes the other's.
/// @param refs_role  how messages name the second input ("REFS", "DB").
/// @throws InputError naming both files when they do not.
Alphabet agreed_alphabet(ParallelSequenceReader& queries, ParallelSequenceReader& refs, std::string_view refs_role);

/// The scheme of the run (resolve_scoring), given to every reader of the
/// inputs to encode DNA with (set_dna_codes), checked against --strand
/// (check_strand_choice). @throws what those throw.
template <typename... Readers>
ScoringScheme scheme_for_inputs(const AlignConfig& c, Alphabet alphabet, Readers&... readers) {
    ScoringScheme scheme = resolve_scoring(c, alphabet);
    (readers.set_dna_codes(scheme.dna_codes), ...);
    check_strand_choice(c.strand, scheme);
    return scheme;
}

/// The writer options of the run's output (format, score-only, CIGAR M,
/// command line; no statistics), warning (protein_sam_warning) when protein
/// goes to SAM.
WriterOptions output_options(const AlignConfig& c, Alphabet alphabet);

/// Whether progress lines are shown (--progress; auto: when stderr is a
/// terminal) and after how many seconds a line first appears.
struct ProgressSettings {
    bool enabled = false;
    double delay_s = 0;
};
ProgressSettings progress_settings(const AlignConfig& c);

/// The GPUs of the run (c.gpu_devices()), or none for the CPU backend
/// (--backend cpu, or auto without a visible device: then with a warning).
/// @throws std::runtime_error for --backend gpu without a device, or an
///         ordinal that is not visible.
std::vector<int> run_devices(const AlignConfig& c);

/// The backend's description for RunStats::backend: "gpu ABOUT" for one
/// GPU, "N gpus: D0 ABOUT0; D1 ABOUT1..." for several (ABOUT:
/// gpu::device_description). Calls on_device(d, about) for each GPU, in
/// order, as its description is read (for the "using GPU" log lines).
/// @throws std::runtime_error when a device's properties cannot be read.
std::string gpus_description(const std::vector<int>& devices,
                             const std::function<void(int device, const std::string& about)>& on_device);

/// Starts CUDA (the driver and each device's context of the run, the slowest
/// step of a short run) on a thread of its own, unless --backend cpu; stores
/// in `cuda_start` the seconds from `start` until it is done. A bad ordinal
/// is left to the backend to report. Invalid future for --backend cpu.
std::future<void> start_cuda_early(const AlignConfig& c, Clock::time_point start, double& cuda_start);

}  // namespace gpualign::detail
