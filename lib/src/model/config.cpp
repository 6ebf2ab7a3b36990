#include "gpualign/model/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace gpualign {
namespace {

/// The last extension of `path`, lower case, with its dot ("" when none).
std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

void require(bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
}

/// A score or penalty option: between `low` and max_score_magnitude; `what`
/// says what the value is, so that the message tells why a sign is wrong.
void require_score(const std::optional<std::int32_t>& v, const char* option, const char* what, std::int32_t low = 0) {
    if (v)
        require(*v >= low && *v <= max_score_magnitude,
                std::string(option) + " is " + what + ": it must be between " + std::to_string(low) + " and " +
                    std::to_string(max_score_magnitude) + ", got " + std::to_string(*v));
}

bool same_file(const std::string& a, const std::string& b) {
    if (a == "-" || b == "-") return false;
    std::error_code ec;
    if (std::filesystem::equivalent(a, b, ec)) return true;
    const auto ca = std::filesystem::weakly_canonical(a, ec);
    const auto cb = std::filesystem::weakly_canonical(b, ec);
    return !ec && ca == cb;
}

}  // namespace

bool parse_device_list(const std::string& text, std::vector<int>& ordinals) {
    ordinals.clear();
    if (text == "all") return true;
    const auto bad = [&](const std::string& why) {
        return std::invalid_argument("--devices '" + text + "': " + why +
                                     " (expected 'all' or CUDA device ordinals separated by commas, e.g. 0,1)");
    };
    if (text.empty()) throw bad("empty");
    std::size_t begin = 0;
    while (true) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const std::string_view item(text.data() + begin, end - begin);
        if (item.empty()) throw bad("an empty ordinal");
        int value = 0;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (item.front() == '-' || item.front() == '+') throw bad("ordinals are unsigned, got '" + std::string(item) + "'");
        if (ec == std::errc::result_out_of_range) throw bad("ordinal '" + std::string(item) + "' is too large");
        if (ec != std::errc{} || ptr != item.data() + item.size())
            throw bad("'" + std::string(item) + "' is not a device ordinal");
        ordinals.push_back(value);
        if (end == text.size()) return false;
        begin = end + 1;
    }
}

std::vector<int> AlignConfig::gpu_devices(int visible) const {
    if (all_devices) {
        if (visible <= 0) throw std::runtime_error("--devices all: no CUDA device is visible");
        std::vector<int> all(static_cast<std::size_t>(visible));
        for (int d = 0; d < visible; ++d) all[static_cast<std::size_t>(d)] = d;
        return all;
    }
    if (devices.empty()) {
        if (device >= visible)
            throw std::runtime_error("--device " + std::to_string(device) + ": only " + std::to_string(visible) +
                                     " CUDA device(s) visible");
        return {device};
    }
    for (const int d : devices)
        if (d >= visible)
            throw std::runtime_error("--devices: device " + std::to_string(d) + " is not visible (" +
                                     std::to_string(visible) + " CUDA device(s) visible, ordinals 0 to " +
                                     std::to_string(visible - 1) + ")");
    return devices;
}

std::size_t parse_byte_size(const std::string& text, const char* option) {
    const auto bad = [&](const char* why) {
        return std::invalid_argument(std::string(option) + " '" + text + "': " + why +
                                     " (expected bytes with an optional K, M, G or T suffix, e.g. 512M or 2G)");
    };
    std::size_t i = 0, value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        const std::size_t digit = static_cast<std::size_t>(text[i] - '0');
        if (value > (SIZE_MAX - digit) / 10) throw bad("too large");
        value = value * 10 + digit;
        ++i;
    }
    if (i == 0) throw bad("not a number");
    std::string suffix = text.substr(i);
    std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return std::toupper(c); });
    int shift = 0;
    if (!suffix.empty() && std::string("KMGT").find(suffix[0]) != std::string::npos) {
        shift = 10 * (1 + static_cast<int>(std::string("KMGT").find(suffix[0])));
        suffix.erase(0, 1);
        if (suffix == "IB") suffix.clear();
    }
    if (suffix == "B") suffix.clear();
    if (!suffix.empty()) throw bad("unknown suffix");
    if (shift > 0 && value > (SIZE_MAX >> shift)) throw bad("too large");
    return value << shift;
}

void AlignConfig::validate() const {
    require(!query_path.empty(), "missing QUERIES file");
    require(!ref_path.empty(), "missing REFS file");
    require(!out_path.empty(), "-o/--output must not be empty");
    require(!(query_path == "-" && ref_path == "-"), "QUERIES and REFS cannot both be read from stdin");
    require_score(match, "--match", "the score of two identical bases");
    require_score(mismatch, "--mismatch", "a penalty (non-negative, subtracted)");
    require_score(gap_open, "--gap-open", "a penalty (non-negative, subtracted; 0 = linear gaps)");
    require_score(gap_extend, "--gap-extend", "a penalty (non-negative, subtracted)");
    require_score(n_score, "--n-score", "the score of N against any base", -max_score_magnitude);
    if (alphabet == AlphabetChoice::protein)
        require(!match && !mismatch && !n_score, "--match, --mismatch and --n-score apply to DNA only; use --matrix for protein");
    require(!(strand == StrandChoice::both && alphabet == AlphabetChoice::protein), protein_strand_error);
    if (matrix) require(!matrix->empty(), "--matrix must name a matrix or a file");
    if (matrix) require(!match && !mismatch, "--matrix conflicts with --match/--mismatch");
    if (matrix) require(!n_score, "--matrix conflicts with --n-score (the matrix gives the scores of N)");
    require(threads >= 0 && threads <= Defaults::max_threads,
            "--threads must be between 0 (all cores) and " + std::to_string(Defaults::max_threads) + ", got " +
                std::to_string(threads));
    require(device >= 0, "--device must be >= 0, got " + std::to_string(device));
    for (const int d : devices) require(d >= 0, "--devices: ordinals must be >= 0, got " + std::to_string(d));
    require(!(all_devices && !devices.empty()), "--devices: 'all' or a list, not both");
    require(batch_pairs > 0, "--batch-pairs must be > 0");
    require(batch_bases > 0, "--batch-bases must be > 0");
    require(gpu_memory == 0 || gpu_memory >= Defaults::gpu_memory_min,
            "--gpu-memory " + std::to_string(gpu_memory) + " bytes is below the minimum of " +
                std::to_string(Defaults::gpu_memory_min) + " bytes (1M); 0 means no cap");
    require(gpu_streams >= 0 && gpu_streams <= Defaults::gpu_streams_max,
            "--gpu-streams must be between 0 (auto) and " + std::to_string(Defaults::gpu_streams_max) + ", got " +
                std::to_string(gpu_streams));
    require(!(score_only && output_format() == OutputFormat::sam),
            "--score-only gives no CIGAR, which SAM records of aligned reads need; use TSV output with --score-only");
    require(!(score_only && output_format() == OutputFormat::blast6),
            "--score-only gives no alignment, which BLAST tabular columns (pident, mismatch, gapopen) need; use TSV "
            "output with --score-only");
    if (!format && out_path != "-") {
        // An extension of a format gpualign does not write is an error, never TSV under that name.
        const std::string ext = lower_extension(out_path);
        if (ext == ".bam" || ext == ".cram")
            throw std::invalid_argument("output " + out_path + ": gpualign writes SAM text, not " + ext.substr(1) +
                                        "; convert it with samtools, e.g. `gpualign ... -o - --format sam | samtools "
                                        "view -b -o " + out_path + " -`");
        require(ext != ".gz" && ext != ".bgz" && ext != ".zst" && ext != ".bz2" && ext != ".xz",
                "output " + out_path + ": compressed output is not written; pipe it, e.g. `gpualign ... -o - | gzip > " +
                    out_path + "`");
    }
    require(!(score_only && output_format() == OutputFormat::paf),
            "--score-only gives no alignment, which PAF columns (matches, block length, cg:Z) need; use TSV output "
            "with --score-only");
    require(!(search && output_format() == OutputFormat::paf),
            "PAF output is written by sw/nw; `gpualign search` writes tsv, sam or blast6");
    if (search) {
        require(search->max_hits >= 1, "--max-hits must be at least 1, got " + std::to_string(search->max_hits));
        if (search->max_evalue)
            require(*search->max_evalue > 0, "--evalue must be > 0, got " + std::to_string(*search->max_evalue));
    }
    require(!same_file(query_path, out_path), "output " + out_path + " is the same file as QUERIES " + query_path);
    require(!same_file(ref_path, out_path), "output " + out_path + " is the same file as REFS " + ref_path);
}

OutputFormat AlignConfig::output_format() const {
    if (format) return *format;
    const std::string ext = lower_extension(out_path);
    if (ext == ".sam") return OutputFormat::sam;
    if (ext == ".m8" || ext == ".blast6") return OutputFormat::blast6;
    if (ext == ".paf") return OutputFormat::paf;
    return OutputFormat::tsv;
}

}  // namespace gpualign
