// Records stored contiguously (RecordBlock) and borrowed views of records.
#include "gpualign/io/record_block.hpp"

#include <limits>
#include <stdexcept>

#include "gpualign/model/strand.hpp"

namespace gpualign {

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

RecordBlock::Entry RecordBlock::entry_for(std::string_view name, std::string_view description, std::string_view sequence,
                                          std::string_view quality) const {
    constexpr std::size_t max32 = std::numeric_limits<std::uint32_t>::max();
    if (name.size() > max32 || description.size() > max32)
        throw std::length_error("RecordBlock::append: a header longer than 4 GiB");
    Entry e;
    e.text = text_.size();
    e.name_len = static_cast<std::uint32_t>(name.size());
    e.description_len = static_cast<std::uint32_t>(description.size());
    e.sequence_len = sequence.size();
    e.quality_len = quality.size();
    e.codes = codes_.size();
    return e;
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
    text_.reserve(text_bytes);
    codes_.reserve(letters);
}

void RecordBlock::clear() noexcept {
    text_.clear();
    codes_.clear();
    entries_.clear();
}

}  // namespace gpualign
