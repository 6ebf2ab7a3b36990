// Records stored contiguously (RecordBlock) and borrowed views of records.
#include "gpualign/io/record_block.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <limits>
#include <mutex>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gpualign/model/strand.hpp"

namespace gpualign {

namespace detail {

namespace {
/// Freed huge regions kept for reuse (allocate_huge), by rounded size.
struct HugeCache {
    std::mutex mu;
    std::vector<std::pair<void*, std::size_t>> regions;
    std::size_t bytes = 0;
};
/// Never destroyed: blocks held by static objects may be freed during the
/// process's exit, after any static cache would be gone.
HugeCache& huge_cache() {
    static HugeCache* cache = new HugeCache;
    return *cache;
}
std::size_t huge_size(std::size_t bytes) { return bytes == 0 ? huge_page_bytes : whole_huge_pages(bytes); }
}  // namespace

void* allocate_huge(std::size_t bytes) {
    if (bytes > std::numeric_limits<std::size_t>::max() - huge_page_bytes) throw std::bad_alloc();
    const std::size_t rounded = huge_size(bytes);
    {
        HugeCache& c = huge_cache();
        std::lock_guard<std::mutex> lock(c.mu);
        for (std::size_t k = c.regions.size(); k-- > 0;) {
            if (c.regions[k].second != rounded) continue;
            void* p = c.regions[k].first;
            c.regions[k] = c.regions.back();
            c.regions.pop_back();
            c.bytes -= rounded;
            return p;
        }
    }
    void* p = std::aligned_alloc(huge_page_bytes, rounded);
    if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without huge pages the memory works as it is
#endif
    return p;
}

std::size_t release_huge_cache() noexcept {
    HugeCache& c = huge_cache();
    std::lock_guard<std::mutex> lock(c.mu);
    for (const auto& r : c.regions) std::free(r.first);
    c.regions.clear();
    return std::exchange(c.bytes, 0);
}

void free_huge(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    const std::size_t rounded = huge_size(bytes);
    HugeCache& c = huge_cache();
    {
        std::lock_guard<std::mutex> lock(c.mu);
        if (c.bytes + rounded <= huge_cache_bytes) {
            try {
                c.regions.emplace_back(p, rounded);
                c.bytes += rounded;
                return;
            } catch (...) {  // no room to note it: free it
            }
        }
    }
    std::free(p);
}

}  // namespace detail

namespace {
/// Capacity to reserve for `n` elements of an array whose allocations from
/// huge_min on come in whole huge pages: the whole pages (less `slack`
/// elements that the container adds to its request: std::string's NUL).
std::size_t room(std::size_t n, std::size_t slack) {
    if (n + slack < detail::BlockAllocator<char>::huge_min) return n;
    return detail::whole_huge_pages(n + slack) - slack;
}
}  // namespace

RecordView view_of(const SequenceRecord& r) noexcept {
    return RecordView{r.name, r.description, r.sequence, r.quality, r.codes, r.number};
}

std::vector<RecordView> reverse_strand_views(std::span<const RecordView> records, std::vector<std::uint8_t>& storage) {
    std::size_t letters = 0;
    for (const RecordView& r : records) letters += r.codes.size();
    storage.resize(letters);
    std::vector<RecordView> out(records.begin(), records.end());
    std::size_t at = 0;
    for (RecordView& v : out) {
        const std::span<std::uint8_t> rc(storage.data() + at, v.codes.size());
        reverse_complement(v.codes, rc);
        at += rc.size();
        v.codes = rc;
    }
    return out;
}

std::size_t RecordBlock::capacity_bytes() const noexcept {
    return text_.capacity() + codes_.capacity() + entries_.capacity() * sizeof(Entry);
}

RecordView RecordBlock::operator[](std::size_t k) const noexcept {
    const Entry& e = entries_[k];
    const char* t = text_.data() + e.text;
    RecordView v;
    v.name = std::string_view(t, e.name_len);
    t += e.name_len;
    v.description = std::string_view(t, e.description_len);
    t += e.description_len;
    v.sequence = std::string_view(t, e.sequence_len);
    t += e.sequence_len;
    v.quality = std::string_view(t, e.quality_len);
    v.codes = std::span<const std::uint8_t>(codes_.data() + e.codes, e.sequence_len);
    v.number = first_number_ + k;
    return v;
}

RecordBlock::Entry RecordBlock::entry_for(std::string_view name, std::string_view description,
                                          std::size_t sequence_len, std::size_t quality_len) const {
    constexpr std::size_t max32 = std::numeric_limits<std::uint32_t>::max();
    if (name.size() > max32 || description.size() > max32)
        throw std::length_error("RecordBlock::append: a header longer than 4 GiB");
    Entry e;
    e.text = text_.size();
    e.name_len = static_cast<std::uint32_t>(name.size());
    e.description_len = static_cast<std::uint32_t>(description.size());
    e.sequence_len = sequence_len;
    e.quality_len = quality_len;
    e.codes = codes_.size();
    return e;
}

RecordBlock::Entry RecordBlock::entry_for(std::string_view name, std::string_view description, std::string_view sequence,
                                          std::string_view quality) const {
    return entry_for(name, description, sequence.size(), quality.size());
}

void RecordBlock::append(const SequenceRecord& r) {
    const Entry e = entry_for(r.name, r.description, r.sequence, r.quality);
    text_.append(r.name).append(r.description).append(r.sequence).append(r.quality);
    codes_.insert(codes_.end(), r.codes.begin(), r.codes.end());
    entries_.push_back(e);
}

std::optional<std::size_t> RecordBlock::append_encoded(std::string_view name, std::string_view description,
                                                       std::string_view sequence, std::string_view quality,
                                                       Alphabet alphabet, DnaCodes codes) {
    const Entry e = entry_for(name, description, sequence, quality);
    codes_.resize(e.codes + sequence.size());
    if (const auto bad = encode_sequence(alphabet, sequence, codes_.data() + e.codes, codes)) {
        codes_.resize(e.codes);
        return bad;
    }
    text_.append(name).append(description).append(sequence).append(quality);
    entries_.push_back(e);
    return std::nullopt;
}

std::optional<std::size_t> RecordBlock::append_encoded_pieces(std::string_view name, std::string_view description,
                                                              std::span<const std::string_view> pieces,
                                                              Alphabet alphabet, DnaCodes codes) {
    std::size_t letters = 0;
    for (const std::string_view p : pieces) letters += p.size();
    const Entry e = entry_for(name, description, letters, 0);
    text_.append(name).append(description);
    const std::size_t at = text_.size();
    for (const std::string_view p : pieces) text_.append(p);
    codes_.resize(e.codes + letters);
    if (const auto bad = encode_sequence(alphabet, std::string_view(text_.data() + at, letters),
                                         codes_.data() + e.codes, codes)) {
        codes_.resize(e.codes);
        text_.resize(e.text);
        return bad;
    }
    entries_.push_back(e);
    return std::nullopt;
}

void RecordBlock::copy_to(std::size_t k, SequenceRecord& out) const {
    const RecordView v = (*this)[k];
    out.name.assign(v.name);
    out.description.assign(v.description);
    out.sequence.assign(v.sequence);
    out.quality.assign(v.quality);
    out.codes.assign(v.codes.begin(), v.codes.end());
    out.number = v.number;
}

void RecordBlock::reserve(std::size_t text_bytes, std::size_t letters) {
    // Whole huge pages, which the allocation takes anyway (BlockAllocator).
    text_.reserve(room(text_bytes, 1));
    codes_.reserve(room(letters, 0));
}

void RecordBlock::clear() noexcept {
    text_.clear();
    codes_.clear();
    entries_.clear();
}

}  // namespace gpualign
