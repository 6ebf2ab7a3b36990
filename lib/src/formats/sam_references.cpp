// gpualign — a SAM output's @SQ dictionary read ahead from REFS
// (sam_references.hpp), and the name checks of SAM v1.6 §1.2.1.
#include "gpualign/formats/sam_references.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <fstream>
#include <memory>
#include <string_view>
#include <vector>

#include "gpualign/io/parallel_reader.hpp"
#include "sam_dictionary.hpp"

namespace gpualign {
namespace format_detail {

bool valid_rname(std::string_view s) noexcept {
    constexpr std::string_view other = "!#$%&+./:;?@^_|~-";
    const auto ok = [&](char c, bool first) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
               other.find(c) != std::string_view::npos || (!first && (c == '*' || c == '='));
    };
    if (s.empty()) return false;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (!ok(s[i], i == 0)) return false;
    return true;
}

}  // namespace format_detail

SamReferences::SamReferences() : impl_(std::make_unique<Impl>()) {}
SamReferences::~SamReferences() = default;
SamReferences::SamReferences(SamReferences&&) noexcept = default;
SamReferences& SamReferences::operator=(SamReferences&&) noexcept = default;
std::size_t SamReferences::size() const noexcept { return impl_->count; }

namespace {

/// True for a regular file whose first bytes are no compression format's
/// magic (gzip, bzip2, xz, zstd: detail::DecompressingInput's list).
bool plain_regular_file(const std::string& path) {
    struct stat st {};
    if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 6> m{};
    in.read(reinterpret_cast<char*>(m.data()), m.size());
    const auto n = static_cast<std::size_t>(in.gcount());
    const auto starts = [&](std::initializer_list<unsigned char> magic) {
        return n >= magic.size() && std::equal(magic.begin(), magic.end(), m.begin());
    };
    return !(starts({0x1f, 0x8b}) || starts({'B', 'Z', 'h'}) || starts({0xfd, '7', 'z', 'X', 'Z', 0x00}) ||
             starts({0x28, 0xb5, 0x2f, 0xfd}) || in.bad());
}

/// Adds the records of `blocks` to `refs` (in order): each shard on a
/// thread of its own, then the @SQ lines of the names seen first. False
/// when one is not what SAM's header can hold, or a name comes with two
/// lengths: the run reports that at its pair.
bool add_blocks(const std::vector<std::shared_ptr<const RecordBlock>>& blocks, int threads,
                SamReferences::Impl& refs) {
    std::vector<RecordView> records;
    for (const auto& b : blocks)
        for (std::size_t k = 0; k < b->size(); ++k) {
            const RecordView r = (*b)[k];
            if (r.sequence.empty()) continue;  // no @SQ: the records of a zero-length ref are unmapped
            if (r.sequence.size() > format_detail::max_sam_ref_length || !format_detail::valid_rname(r.name))
                return false;
            records.push_back(r);
        }
    std::vector<std::uint8_t> fresh(records.size(), 0), shard(records.size());
    const auto n = static_cast<std::int64_t>(records.size());
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
    for (std::int64_t k = 0; k < n; ++k)
        shard[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(format_detail::shard_of(records[k].name));
    bool consistent = true;
#pragma omp parallel for schedule(static, 1) num_threads(std::max(1, threads)) reduction(&& : consistent)
    for (std::size_t sh = 0; sh < format_detail::ref_shards; ++sh) {
        for (std::size_t k = 0; k < records.size() && consistent; ++k) {
            if (shard[k] != sh) continue;
            try {
                fresh[k] = refs.shards[sh].insert(records[k].name, records[k].sequence.size());
            } catch (const InputError&) {
                consistent = false;
            }
        }
    }
    if (!consistent) return false;
    for (std::size_t k = 0; k < records.size(); ++k)
        if (fresh[k]) {
            format_detail::append_sq_line(records[k].name, records[k].sequence.size(), refs.sq_lines);
            ++refs.count;
        }
    return true;
}

}  // namespace

std::optional<SamReferences> read_sam_references(const std::string& path, AlphabetChoice choice, int threads,
                                                 const std::atomic<bool>& cancel) {
    if (!plain_regular_file(path)) return std::nullopt;
    try {
        SamReferences refs;
        ParallelSequenceReader reader(path, choice, std::max(1, threads));
        std::vector<std::shared_ptr<const RecordBlock>> blocks;
        while (!reader.exhausted()) {
            if (cancel.load(std::memory_order_relaxed)) return std::nullopt;
            // About 64 MiB of text at a time: the parsed blocks go back to the reader's pool.
            reader.fill(std::size_t{1} << 18, std::size_t{64} << 20);
            blocks.clear();
            reader.take_blocks(blocks);
            if (!add_blocks(blocks, threads, refs.impl())) return std::nullopt;
        }
        return refs;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {
        return std::nullopt;  // the run's own reading reports it, in order
    }
}

}  // namespace gpualign
