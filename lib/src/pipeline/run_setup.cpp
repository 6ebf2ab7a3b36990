// The setup that the pairs and search pipelines share (run_setup.hpp), and
// the setup functions of pipeline.hpp: the scoring scheme, the --strand
// check and CUDA's hardware queues.
#include "run_setup.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "gpualign/gpu/batch_engine.hpp"
#include "gpualign/gpu/device.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/io/matrix.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "gpualign/model/strand.hpp"

namespace gpualign::detail {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int run_threads(const AlignConfig& c) { return c.threads > 0 ? c.threads : omp_get_num_procs(); }

Alphabet agreed_alphabet(ParallelSequenceReader& queries, ParallelSequenceReader& refs, std::string_view refs_role) {
    // An input with no records has no alphabet of its own: the other's is taken.
    if (queries.empty()) return refs.alphabet();
    if (refs.empty()) return queries.alphabet();
    const Alphabet q = queries.alphabet(), r = refs.alphabet();
    if (q != r)
        throw InputError("QUERIES " + display_path(queries.path()) + " looks like " + to_string(q) + " but " +
                         std::string(refs_role) + " " + display_path(refs.path()) + " looks like " + to_string(r) +
                         "; choose one with --alphabet dna|protein");
    return q;
}

WriterOptions output_options(const AlignConfig& c, Alphabet alphabet) {
    if (alphabet == Alphabet::protein && c.output_format() == OutputFormat::sam)
        spdlog::warn("{}", protein_sam_warning);
    WriterOptions o;
    o.format = c.output_format();
    o.score_only = c.score_only;
    o.sam_cigar_m = c.sam_cigar_m;
    o.command_line = c.command_line;
    return o;
}

ProgressSettings progress_settings(const AlignConfig& c) {
    ProgressSettings p;
    p.enabled = c.progress == ProgressChoice::always ||
                (c.progress == ProgressChoice::automatic && ::isatty(STDERR_FILENO) == 1);
    p.delay_s = c.progress == ProgressChoice::always ? 0.0 : Defaults::progress_delay_s;
    return p;
}

std::vector<int> run_devices(const AlignConfig& c) {
    const int visible = c.backend == BackendChoice::cpu ? 0 : gpu::device_count();
    if (c.backend == BackendChoice::gpu) {
        if (visible == 0) throw std::runtime_error("--backend gpu: no CUDA device is visible");
    } else if (c.backend == BackendChoice::automatic && visible == 0) {
        if (c.devices_chosen)
            throw std::runtime_error(std::string(c.devices.empty() && !c.all_devices ? "--device " + std::to_string(c.device)
                                                                                     : std::string("--devices")) +
                                     ": no CUDA device is visible (use --backend cpu, or leave out --device/--devices)");
        spdlog::debug("no CUDA device is visible; using the CPU backend");
        return {};
    }
    if (visible == 0) return {};
    return c.gpu_devices(visible);
}

std::string gpus_description(const std::vector<int>& devices,
                             const std::function<void(int device, const std::string& about)>& on_device) {
    std::string description = devices.size() == 1 ? "gpu " : std::to_string(devices.size()) + " gpus";
    for (std::size_t d = 0; d < devices.size(); ++d) {
        const std::string about = gpu::device_description(devices[d]);
        description += devices.size() == 1 ? about : (d == 0 ? ": " : "; ") + std::to_string(devices[d]) + " " + about;
        on_device(devices[d], about);
    }
    return description;
}

std::future<void> start_cuda_early(const AlignConfig& c, Clock::time_point start, double& cuda_start) {
    if (c.backend == BackendChoice::cpu) return {};
    return std::async(std::launch::async, [&c, &cuda_start, start] {
        const int visible = gpu::device_count();
        if (visible > 0) {
            try {
                gpu::start_devices(c.gpu_devices(visible));
            } catch (...) {
                // A bad ordinal: the backend reports it.
            }
        }
        cuda_start = seconds_since(start);
    });
}

}  // namespace gpualign::detail

namespace gpualign {

ScoringScheme resolve_scoring(const AlignConfig& c, Alphabet alphabet) {
    if (alphabet == Alphabet::protein) {
        if (c.match || c.mismatch || c.n_score)
            throw std::invalid_argument("--match, --mismatch and --n-score apply to DNA only; use --matrix for protein");
        return make_protein_scheme(c.matrix.value_or(Defaults::protein_matrix),
                                   c.gap_open.value_or(Defaults::protein_gap_open),
                                   c.gap_extend.value_or(Defaults::protein_gap_extend));
    }
    const std::int32_t go = c.gap_open.value_or(Defaults::dna_gap_open);
    const std::int32_t ge = c.gap_extend.value_or(Defaults::dna_gap_extend);
    if (c.matrix) return make_matrix_scheme(*c.matrix, Alphabet::dna, go, ge);
    const std::int32_t mismatch = c.mismatch.value_or(Defaults::dna_mismatch);
    return make_dna_scheme(c.match.value_or(Defaults::dna_match), mismatch, go, ge, c.n_score.value_or(-mismatch));
}

void check_strand_choice(StrandChoice strand, const ScoringScheme& s) {
    if (strand == StrandChoice::plus) return;
    if (s.alphabet != Alphabet::dna) throw OptionError(protein_strand_error);
    const std::string_view letters = dna_code_letters;
    for (std::uint8_t code = 0; code < s.size; ++code) {
        const std::uint8_t other = complement_code(code);
        if (!(s.undefined_codes >> code & 1) && (s.undefined_codes >> other & 1))
            throw OptionError(std::string("--strand both: matrix ") + s.matrix_name + " scores " + letters[code] +
                              " but not its complement " + letters[other] +
                              ", which the reverse complement of a query holds");
    }
}

int cuda_hardware_queues(const AlignConfig& c) noexcept {
    const bool one_pair = !c.search && c.strand == StrandChoice::plus &&
                          holds_one_fasta_record(c.query_path, single_pair_peek_bytes) &&
                          holds_one_fasta_record(c.ref_path, single_pair_peek_bytes);
    return one_pair ? 1 : std::max(4, c.engine_streams());
}

bool runs_small_pair_on_cpu(const AlignConfig& c) noexcept {
    if (c.search || c.backend != BackendChoice::automatic) return false;
    const auto q = one_fasta_record_bytes(c.query_path, single_pair_peek_bytes);
    if (!q) return false;
    const auto r = one_fasta_record_bytes(c.ref_path, single_pair_peek_bytes);
    return r && static_cast<std::uint64_t>(*q) * static_cast<std::uint64_t>(*r) <= cpu_single_pair_cells;
}

}  // namespace gpualign
