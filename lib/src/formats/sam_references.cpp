// gpualign — a SAM output's @SQ dictionary read ahead from REFS
// (sam_references.hpp), and the name checks of SAM v1.6 §1.2.1.
#include "gpualign/formats/sam_references.hpp"

#include <sys/stat.h>

#include <algorithm>
#ifdef _OPENMP
#include <parallel/algorithm>
#endif
#include <array>
#include <cstdint>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
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

/// The refs of a REFS file as read_sam_references collects them: each
/// record's length and name hash (by record number), and the names of the
/// records with letters, one after the other.
struct Collected {
    std::vector<std::uint64_t> lengths, hashes;  // by record number - 1
    std::vector<std::uint32_t> with_letters;     // record indices (number - 1) of the records with letters
    std::string names;                           // their names, one after the other
    std::vector<std::uint64_t> name_end;         // end of each one's name in `names`
    std::string_view name(std::size_t i) const {
        const std::uint64_t b = i == 0 ? 0 : name_end[i - 1];
        return std::string_view(names).substr(b, name_end[i] - b);
    }
};

/// Appends the records of `blocks` (in file order) to `c`. False when one
/// is not what SAM's header can hold: the run reports that at its pair.
bool collect_blocks(const std::vector<std::shared_ptr<const RecordBlock>>& blocks, int threads, Collected& c) {
    std::vector<RecordView> records;
    for (const auto& b : blocks)
        for (std::size_t k = 0; k < b->size(); ++k) records.push_back((*b)[k]);
    const std::size_t first = c.lengths.size();
    c.lengths.resize(first + records.size());
    c.hashes.resize(first + records.size());
    bool ok = true;
    const auto n = static_cast<std::int64_t>(records.size());
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads)) reduction(&& : ok)
    for (std::int64_t k = 0; k < n; ++k) {
        const RecordView& r = records[static_cast<std::size_t>(k)];
        c.lengths[first + static_cast<std::size_t>(k)] = r.sequence.size();
        c.hashes[first + static_cast<std::size_t>(k)] = format_detail::name_hash(r.name);
        ok = ok && (r.sequence.empty() ||
                    (r.sequence.size() <= format_detail::max_sam_ref_length && format_detail::valid_rname(r.name)));
    }
    if (!ok) return false;
    for (std::size_t k = 0; k < records.size(); ++k) {
        if (records[k].sequence.empty()) continue;  // no @SQ: the records of a zero-length ref are unmapped
        if (records[k].number != first + k + 1) return false;  // not numbered in file order: leave it to the run
        c.with_letters.push_back(static_cast<std::uint32_t>(first + k));
        c.names.append(records[k].name);
        c.name_end.push_back(c.names.size());
    }
    return true;
}

/// The @SQ lines of the collected refs: a name given again is left out
/// (found by sorting the names' hashes, on `threads` threads); false when it
/// comes with another length. The lines are formatted in parallel.
bool build_dictionary(const Collected& c, int threads, SamReferences::Impl& refs) {
    const std::size_t n = c.with_letters.size();
    // (hash, position among with_letters): equal names sit together, in file order.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keys(n);
    const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(std::max(1, threads))
    for (std::int64_t i = 0; i < count; ++i)
        keys[static_cast<std::size_t>(i)] = {c.hashes[c.with_letters[static_cast<std::size_t>(i)]], static_cast<std::uint32_t>(i)};
#ifdef _OPENMP
    __gnu_parallel::sort(keys.begin(), keys.end());
#else
    std::sort(keys.begin(), keys.end());
#endif
    std::vector<std::uint8_t> fresh(n, 1);
    for (std::size_t a = 0; a < n;) {
        std::size_t b = a + 1;
        while (b < n && keys[b].first == keys[a].first) ++b;
        for (std::size_t x = a; x < b; ++x) {  // a group of equal hashes: compare the names themselves
            if (!fresh[keys[x].second]) continue;
            for (std::size_t y = x + 1; y < b; ++y) {
                if (c.name(keys[x].second) != c.name(keys[y].second)) continue;
                if (c.lengths[c.with_letters[keys[x].second]] != c.lengths[c.with_letters[keys[y].second]])
                    return false;  // one name, two lengths: the run's error, at its pair
                fresh[keys[y].second] = 0;
            }
        }
        a = b;
    }
    const std::size_t parts = static_cast<std::size_t>(std::max(1, threads)) * 4;
    std::vector<fmt::memory_buffer> text(parts);
    std::vector<std::size_t> fresh_in(parts, 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, threads))
    for (std::size_t p = 0; p < parts; ++p)
        for (std::size_t i = n * p / parts; i < n * (p + 1) / parts; ++i)
            if (fresh[i]) {
                format_detail::append_sq_line(c.name(i), c.lengths[c.with_letters[i]], text[p]);
                ++fresh_in[p];
            }
    for (std::size_t p = 0; p < parts; ++p) {
        refs.sq_lines.append(text[p].data(), text[p].data() + text[p].size());
        refs.count += fresh_in[p];
    }
    return true;
}

}  // namespace

std::optional<SamReferences> read_sam_references(const std::string& path, AlphabetChoice choice, int threads,
                                                 const std::atomic<bool>& cancel) {
    if (!plain_regular_file(path)) return std::nullopt;
    try {
        ParallelSequenceReader reader(path, choice, std::max(1, threads));
        std::vector<std::shared_ptr<const RecordBlock>> blocks;
        Collected collected;
        while (!reader.exhausted()) {
            if (cancel.load(std::memory_order_relaxed)) return std::nullopt;
            // About 64 MiB of text at a time: the parsed blocks go back to the reader's pool.
            reader.fill(std::size_t{1} << 18, std::size_t{64} << 20);
            blocks.clear();
            reader.take_blocks(blocks);
            if (!collect_blocks(blocks, threads, collected)) return std::nullopt;
        }
        if (collected.with_letters.size() != collected.name_end.size() ||
            collected.lengths.size() > std::numeric_limits<std::uint32_t>::max())
            return std::nullopt;
        SamReferences refs;
        if (!build_dictionary(collected, threads, refs.impl())) return std::nullopt;
        refs.impl().lengths = std::move(collected.lengths);
        refs.impl().hashes = std::move(collected.hashes);
        return refs;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception&) {
        return std::nullopt;  // the run's own reading reports it, in order
    }
}

}  // namespace gpualign
