// gpualign — the prebuilt search DB file (search_db.hpp): writing it from a
// FASTA DB, and mapping and validating it for a search.
#include "gpualign/search/search_db.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "gpualign/formats/writers.hpp"
#include "gpualign/io/io_error.hpp"
#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/io/sequence_io.hpp"

namespace gpualign {
namespace {

static_assert(std::endian::native == std::endian::little, "the DB file format is little-endian");

constexpr std::array<char, 8> magic = {'\x89', 'G', 'A', 'D', 'B', '\r', '\n', '\x1a'};

struct Header {
    std::array<char, 8> magic{};
    std::uint32_t version = 0;
    std::uint8_t alphabet = 0;
    std::uint8_t codes = 0;
    std::uint16_t reserved = 0;
    std::uint64_t records = 0;
    std::uint64_t letters = 0;
    std::uint64_t text_bytes = 0;
    std::uint64_t entries_at = 0;
    std::uint64_t text_at = 0;
    std::uint64_t letters_at = 0;
    std::uint64_t codes_at = 0;
    std::uint64_t file_size = 0;
};
static_assert(sizeof(Header) == 80);

struct Entry {
    std::uint64_t text = 0;
    std::uint32_t name_len = 0;
    std::uint32_t description_len = 0;
    std::uint64_t sequence = 0;
    std::uint64_t length = 0;
};
static_assert(sizeof(Entry) == 32);

constexpr std::uint64_t round_up8(std::uint64_t n) noexcept { return (n + 7) / 8 * 8; }

/// The header of a DB of `records` records, `letters` letters and
/// `text_bytes` of names and descriptions: the layout of search_db.hpp.
Header layout(Alphabet alphabet, std::uint64_t records, std::uint64_t letters, std::uint64_t text_bytes) noexcept {
    Header h;
    h.magic = magic;
    h.version = search_db_version;
    h.alphabet = alphabet == Alphabet::protein ? 1 : 0;
    h.records = records;
    h.letters = letters;
    h.text_bytes = text_bytes;
    h.entries_at = sizeof(Header);
    h.text_at = h.entries_at + sizeof(Entry) * records;
    h.letters_at = round_up8(h.text_at + text_bytes);
    h.codes_at = round_up8(h.letters_at + letters);
    h.file_size = h.codes_at + letters;
    return h;
}

template <typename T>
std::string_view bytes_of(const T& v) noexcept {
    return {reinterpret_cast<const char*>(&v), sizeof(T)};
}

}  // namespace

SearchDbSummary make_search_db(const std::string& fasta_path, const std::string& db_path, AlphabetChoice choice,
                               int threads) {
    ParallelSequenceReader reader(fasta_path, choice, threads);
    const Alphabet alphabet = reader.alphabet();
    std::vector<std::shared_ptr<const RecordBlock>> blocks;
    while (!reader.exhausted()) {
        reader.fill(std::size_t{1} << 20, std::size_t{256} << 20);
        reader.take_blocks(blocks);
    }
    std::uint64_t records = 0, letters = 0, text_bytes = 0;
    for (const auto& b : blocks)
        for (std::size_t k = 0; k < b->size(); ++k) {
            const RecordView r = (*b)[k];
            // The search backends (the GPU scan engine among them) take no zero-length sequence.
            if (r.sequence.empty())
                throw InputError(fmt::format("{}: record {} '{}': empty sequence (a DB record needs a letter)",
                                             display_path(fasta_path), r.number, r.name));
            ++records;
            letters += r.sequence.size();
            text_bytes += r.name.size() + r.description.size();
        }
    if (records == 0)
        throw InputError(fmt::format("{}: no records: a DB needs at least one (search an empty FASTA file directly "
                                     "for an empty search)",
                                     display_path(fasta_path)));
    const Header h = layout(alphabet, records, letters, text_bytes);

    OutputFile out(db_path);
    out.write(bytes_of(h));
    std::string chunk;  // entries, then each section, written in pieces of about 1 MiB
    const auto flush_if = [&](std::size_t at_least) {
        if (chunk.size() >= at_least) {
            out.write(chunk);
            chunk.clear();
        }
    };
    std::uint64_t text_at = 0, sequence_at = 0;
    for (const auto& b : blocks)
        for (std::size_t k = 0; k < b->size(); ++k) {
            const RecordView r = (*b)[k];
            Entry e;
            e.text = text_at;
            e.name_len = static_cast<std::uint32_t>(r.name.size());
            e.description_len = static_cast<std::uint32_t>(r.description.size());
            e.sequence = sequence_at;
            e.length = r.sequence.size();
            text_at += r.name.size() + r.description.size();
            sequence_at += r.sequence.size();
            chunk.append(bytes_of(e));
            flush_if(std::size_t{1} << 20);
        }
    for (const auto& b : blocks)
        for (std::size_t k = 0; k < b->size(); ++k) {
            const RecordView r = (*b)[k];
            chunk.append(r.name).append(r.description);
            flush_if(std::size_t{1} << 20);
        }
    chunk.append(h.letters_at - (h.text_at + text_bytes), '\0');
    for (const auto& b : blocks)
        for (std::size_t k = 0; k < b->size(); ++k) {
            out.write(chunk);
            chunk.clear();
            out.write((*b)[k].sequence);
        }
    chunk.append(h.codes_at - (h.letters_at + letters), '\0');
    for (const auto& b : blocks)
        for (std::size_t k = 0; k < b->size(); ++k) {
            out.write(chunk);
            chunk.clear();
            const auto codes = (*b)[k].codes;
            out.write({reinterpret_cast<const char*>(codes.data()), codes.size()});
        }
    out.write(chunk);
    out.commit();
    return {alphabet, records, letters, h.file_size};
}

bool is_search_db(const std::string& path) noexcept {
    if (path == "-") return false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    std::array<char, 8> head{};
    const bool yes = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                     ::pread(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()) && head == magic;
    ::close(fd);
    return yes;
}

struct SearchDb::Impl {
    std::string shown;
    const char* data = nullptr;
    std::size_t size = 0;
    Header header;
    std::vector<std::uint8_t> iupac;  // views(DnaCodes::iupac): codes encoded from the letters

    ~Impl() {
        if (data) ::munmap(const_cast<char*>(data), size);
    }
    [[noreturn]] void fail(std::string_view what) const { throw InputError(fmt::format("{}: {}", shown, what)); }

    const Entry* entries() const noexcept { return reinterpret_cast<const Entry*>(data + header.entries_at); }
    const std::uint8_t* codes() const noexcept { return reinterpret_cast<const std::uint8_t*>(data + header.codes_at); }

    void map(const std::string& path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail(fmt::format("cannot open: {}", std::strerror(errno)));
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            fail("not a regular file; a DB file (gpualign makedb) is memory-mapped");
        }
        size = static_cast<std::size_t>(st.st_size);
        if (size < sizeof(Header)) {
            ::close(fd);
            fail(fmt::format("truncated DB file: {} bytes, shorter than its {}-byte header", size, sizeof(Header)));
        }
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        const int err = errno;
        ::close(fd);
        if (p == MAP_FAILED) fail(fmt::format("cannot map: {}", std::strerror(err)));
        data = static_cast<const char*>(p);
        std::memcpy(&header, data, sizeof(Header));
    }

    void validate() const {
        const Header& h = header;
        if (h.magic != magic) fail("not a gpualign DB file (no DB magic bytes); build one with gpualign makedb");
        if (h.version != search_db_version)
            fail(fmt::format("DB file format version {}, this gpualign reads version {}; rebuild it with this "
                             "gpualign's makedb",
                             h.version, search_db_version));
        if (h.alphabet > 1 || h.codes != 0 || h.reserved != 0) fail("corrupt DB file: unknown alphabet or coding");
        if (h.file_size != size)
            fail(fmt::format("truncated or corrupt DB file: {} bytes, its header says {}", size, h.file_size));
        if (h.records == 0 || h.records > size / sizeof(Entry) || h.letters > size || h.text_bytes > size)
            fail("corrupt DB file: its record, letter or text counts do not fit the file");
        const Header want = layout(alphabet_of(h), h.records, h.letters, h.text_bytes);
        if (h.entries_at != want.entries_at || h.text_at != want.text_at || h.letters_at != want.letters_at ||
            h.codes_at != want.codes_at || h.file_size != want.file_size)
            fail("corrupt DB file: its section offsets disagree with its counts");
        const Entry* e = entries();
        std::uint64_t text_at = 0, sequence_at = 0;
        for (std::uint64_t k = 0; k < h.records; ++k) {
            if (e[k].text != text_at || e[k].sequence != sequence_at || e[k].name_len == 0 || e[k].length == 0)
                fail(fmt::format("corrupt DB file: entry of record {}", k + 1));
            text_at += std::uint64_t{e[k].name_len} + e[k].description_len;
            sequence_at += e[k].length;
            if (text_at > h.text_bytes || sequence_at > h.letters)
                fail(fmt::format("corrupt DB file: record {} runs past its section", k + 1));
        }
        if (text_at != h.text_bytes || sequence_at != h.letters)
            fail("corrupt DB file: the records do not fill their sections");
        // Every code must index the scoring matrix: one pass over the codes.
        const std::uint8_t* c = codes();
        const auto limit = static_cast<std::uint8_t>(alphabet_size(alphabet_of(h)));
        std::uint8_t top = 0;
#pragma omp parallel for simd reduction(max : top) schedule(static)
        for (std::uint64_t i = 0; i < h.letters; ++i) top = std::max(top, c[i]);
        if (top >= limit) fail(fmt::format("corrupt DB file: a code {} outside the {} alphabet", top,
                                           to_string(alphabet_of(h))));
    }

    static Alphabet alphabet_of(const Header& h) noexcept { return h.alphabet == 1 ? Alphabet::protein : Alphabet::dna; }
};

SearchDb::SearchDb(const std::string& path) : impl_(std::make_unique<Impl>()) {
    impl_->shown = display_path(path);
    impl_->map(path);
    impl_->validate();
}

SearchDb::~SearchDb() = default;
SearchDb::SearchDb(SearchDb&&) noexcept = default;
SearchDb& SearchDb::operator=(SearchDb&&) noexcept = default;

Alphabet SearchDb::alphabet() const noexcept { return Impl::alphabet_of(impl_->header); }
std::uint64_t SearchDb::size() const noexcept { return impl_->header.records; }
std::uint64_t SearchDb::letters() const noexcept { return impl_->header.letters; }

std::vector<RecordView> SearchDb::views(DnaCodes codes) {
    Impl& im = *impl_;
    const Header& h = im.header;
    const bool recode = alphabet() == Alphabet::dna && codes == DnaCodes::iupac;
    if (recode) {
        im.iupac.resize(h.letters);
        const std::string_view letters(im.data + h.letters_at, h.letters);
        // Letters were accepted when the DB was built, so every one encodes.
        if (encode_sequence(Alphabet::dna, letters, im.iupac.data(), DnaCodes::iupac))
            im.fail("corrupt DB file: a letter outside the DNA alphabet");
    }
    const std::uint8_t* code_base = recode ? im.iupac.data() : im.codes();
    const Entry* e = im.entries();
    const char* text = im.data + h.text_at;
    const char* letters = im.data + h.letters_at;
    std::vector<RecordView> out(h.records);
    for (std::uint64_t k = 0; k < h.records; ++k) {
        RecordView& v = out[k];
        v.name = std::string_view(text + e[k].text, e[k].name_len);
        v.description = std::string_view(text + e[k].text + e[k].name_len, e[k].description_len);
        v.sequence = std::string_view(letters + e[k].sequence, e[k].length);
        v.codes = std::span<const std::uint8_t>(code_base + e[k].sequence, e[k].length);
        v.number = k + 1;
    }
    return out;
}

}  // namespace gpualign
