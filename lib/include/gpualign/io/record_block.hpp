// gpualign — records stored contiguously: a block of parsed records, and a
// borrowed view of one record.
//
// The batch pipeline moves records from the parser threads to the aligner
// and the writer as views into blocks, so that nothing is allocated, copied
// or moved per record between parsing and the GPU engine's pinned buffers
// (one heap object per record made that hand-over cost as much as parsing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <utility>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpualign/io/sequence_io.hpp"

namespace gpualign {

namespace detail {
/// Size of a transparent huge page (x86-64 and most Linux arm64 kernels).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
/// `bytes` rounded up to whole huge pages (no overflow check).
constexpr std::size_t whole_huge_pages(std::size_t bytes) noexcept {
    return (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
}

/// Host memory of `bytes` rounded up to whole huge pages, aligned to
/// huge_page_bytes and advised for transparent huge pages (madvise
/// MADV_HUGEPAGE, Linux; elsewhere plain aligned memory). The first write
/// then faults once per 2 MiB instead of once per 4 KiB page; a fault can
/// cost microseconds in a virtual machine, more than parsing the page
/// (docs/benchmarks.md, "FASTA reader"). Freed regions of up to
/// huge_cache_bytes in all are kept (free_huge) and handed out again for a
/// request of the same rounded size: a fresh region's pages are zeroed by
/// the kernel at their first write, which cost a parse of a page-cached file
/// about a fifth of its time. Thread-safe. Contents uninitialised.
/// @throws std::bad_alloc.
void* allocate_huge(std::size_t bytes);
/// Frees memory from allocate_huge given `bytes` (the same as allocated),
/// or keeps it for the next request of its size while the cache has room.
void free_huge(void* p, std::size_t bytes) noexcept;
/// Most bytes of freed huge regions kept for reuse (allocate_huge).
inline constexpr std::size_t huge_cache_bytes = std::size_t{128} << 20;
/// Frees the regions that free_huge kept; returns their bytes. Thread-safe.
std::size_t release_huge_cache() noexcept;

/// The allocator of RecordBlock's letter arrays: allocations of at least
/// huge_min bytes come from allocate_huge, smaller ones from operator new;
/// and value-initialisation (resize(n), the room the parsers encode letters
/// into straight after) leaves the bytes uninitialised, since the encoder
/// writes every one.
template <class T>
struct BlockAllocator {
    using value_type = T;
    /// Smallest allocation placed in huge pages: a quarter of one, so that
    /// a FASTQ block's codes (half its text) take one too.
    static constexpr std::size_t huge_min = huge_page_bytes / 4;
    BlockAllocator() noexcept = default;
    template <class U>
    BlockAllocator(const BlockAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        return static_cast<T*>(bytes >= huge_min ? allocate_huge(bytes) : ::operator new(bytes));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) >= huge_min)
            free_huge(p, n * sizeof(T));
        else
            ::operator delete(p);
    }
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    friend bool operator==(const BlockAllocator&, const BlockAllocator&) noexcept { return true; }
};
}  // namespace detail

/// A read-only view of one record: the fields of SequenceRecord, borrowed.
/// Host memory owned by a RecordBlock or a SequenceRecord, which must
/// outlive the view. `codes.size() == sequence.size()`; `quality` is empty
/// (FASTA) or as long as `sequence` (FASTQ).
struct RecordView {
    std::string_view name;         ///< first word of the header (SAM QNAME / RNAME), never empty
    std::string_view description;  ///< rest of the header; may be empty
    std::string_view sequence;     ///< letters as read; may be empty (a zero-length sequence)
    std::string_view quality;      ///< FASTQ Phred+33 characters; FASTA: empty
    std::span<const std::uint8_t> codes;  ///< encoded letters, one byte each
    std::uint64_t number = 0;      ///< 1-based record number in its file
};

/// The view of a record (borrowed: `r` must outlive it).
RecordView view_of(const SequenceRecord& r) noexcept;

/// Views of DNA records with their codes reverse-complemented (the minus
/// strand, strand.hpp): view k is records[k] with `codes` replaced by the
/// reverse complement of records[k].codes; name, letters and the other
/// fields stay the record's as read (writers reverse-complement letters
/// themselves). The codes are written into `storage` (resized to the
/// records' total length, owned by the caller): the views borrow it and the
/// records' memory, so `storage` must not be resized or destroyed while
/// they are in use (moving the vector keeps them valid).
/// @throws std::invalid_argument (reverse_complement) for a code that is
///         not a dna5 rank; std::bad_alloc.
std::vector<RecordView> reverse_strand_views(std::span<const RecordView> records, std::vector<std::uint8_t>& storage);

/// Consecutive records of one file stored in three arrays: the header,
/// letter and quality characters of all records in one string, their codes
/// in one byte array, and one offset entry per record. Owning, host memory;
/// clear() keeps the capacity, so a reused block fills without allocating.
///
/// Record k of the block is record `first_number() + k` of its file
/// (1-based). Views handed out by operator[] stay valid until the block is
/// changed (append, clear, set_first_number does not invalidate) or destroyed.
/// Not thread-safe for writing; concurrent reads are fine.
class RecordBlock {
public:
    /// Records held.
    std::size_t size() const noexcept { return entries_.size(); }
    bool empty() const noexcept { return entries_.empty(); }
    /// Letters held (sum of the records' sequence lengths).
    std::size_t bases() const noexcept { return codes_.size(); }
    /// Heap bytes reserved by the three arrays (for bounding a pool of blocks).
    std::size_t capacity_bytes() const noexcept;

    /// View of record k (0 <= k < size(); not checked).
    RecordView operator[](std::size_t k) const noexcept;

    /// Appends a copy of `r` (its number is not stored: record k is
    /// first_number() + k). @throws std::bad_alloc.
    void append(const SequenceRecord& r);
    /// Appends a record from its fields (borrowed; copied into the block),
    /// encoding `sequence` in `alphabet` (DNA with `codes`) straight into
    /// the block's codes (encode_sequence). When a letter is not in the
    /// alphabet nothing is appended and its 0-based position in `sequence`
    /// is returned.
    /// @throws std::length_error (a header over 4 GiB), std::bad_alloc.
    std::optional<std::size_t> append_encoded(std::string_view name, std::string_view description,
                                              std::string_view sequence, std::string_view quality, Alphabet alphabet,
                                              DnaCodes codes = DnaCodes::dna5);
    /// As append_encoded (no quality), with the letters given as consecutive
    /// `pieces` (the lines of a FASTA record written on several lines):
    /// written straight into the block and encoded there, without a joined
    /// copy of their own. When a letter is not in the alphabet nothing is
    /// appended and its 0-based position in the joined letters is returned.
    /// @throws std::length_error (a header over 4 GiB), std::bad_alloc.
    std::optional<std::size_t> append_encoded_pieces(std::string_view name, std::string_view description,
                                                     std::span<const std::string_view> pieces, Alphabet alphabet,
                                                     DnaCodes codes = DnaCodes::dna5);
    /// Copies record k into `out`, reusing its buffers. @throws std::bad_alloc.
    void copy_to(std::size_t k, SequenceRecord& out) const;
    /// Removes every record; keeps the capacity.
    void clear() noexcept;
    /// Reserves room for `text_bytes` header, letter and quality characters
    /// and `letters` codes in all, so that appending that much does not
    /// reallocate. @throws std::bad_alloc, std::length_error.
    void reserve(std::size_t text_bytes, std::size_t letters);

    /// The 1-based file number of record 0.
    std::uint64_t first_number() const noexcept { return first_number_; }
    void set_first_number(std::uint64_t n) noexcept { first_number_ = n; }

private:
    struct Entry {
        std::size_t text = 0;        ///< offset in text_ of the name; description, letters, quality follow
        std::uint32_t name_len = 0;
        std::uint32_t description_len = 0;
        std::size_t sequence_len = 0;
        std::size_t quality_len = 0;
        std::size_t codes = 0;       ///< offset in codes_
    };
    /// The entry of a record appended now. @throws std::length_error.
    Entry entry_for(std::string_view name, std::string_view description, std::size_t sequence_len,
                    std::size_t quality_len) const;
    Entry entry_for(std::string_view name, std::string_view description, std::string_view sequence,
                    std::string_view quality) const;
    std::basic_string<char, std::char_traits<char>, detail::BlockAllocator<char>> text_;
    std::vector<std::uint8_t, detail::BlockAllocator<std::uint8_t>> codes_;
    std::vector<Entry> entries_;
    std::uint64_t first_number_ = 1;
};

}  // namespace gpualign
