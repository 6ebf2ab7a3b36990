// Records stored contiguously (RecordBlock) and borrowed views of records.
#include "gpualign/record_block.hpp"

#include <limits>
#include <stdexcept>

namespace gpualign {

RecordView view_of(const SequenceRecord& r) noexcept {
    return RecordView{r.name, r.description, r.sequence, r.quality, r.codes, r.number};
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

void RecordBlock::append(const SequenceRecord& r) {
    constexpr std::size_t max32 = std::numeric_limits<std::uint32_t>::max();
    if (r.name.size() > max32 || r.description.size() > max32)
        throw std::length_error("RecordBlock::append: a header longer than 4 GiB");
    Entry e;
    e.text = text_.size();
    e.name_len = static_cast<std::uint32_t>(r.name.size());
    e.description_len = static_cast<std::uint32_t>(r.description.size());
    e.sequence_len = r.sequence.size();
    e.quality_len = r.quality.size();
    e.codes = codes_.size();
    text_.append(r.name).append(r.description).append(r.sequence).append(r.quality);
    codes_.insert(codes_.end(), r.codes.begin(), r.codes.end());
    entries_.push_back(e);
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

void RecordBlock::clear() noexcept {
    text_.clear();
    codes_.clear();
    entries_.clear();
}

}  // namespace gpualign
