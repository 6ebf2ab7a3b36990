// gpualign — FASTA/FASTQ reading: decompressing stream -> record parser (text_records.hpp) -> our encoding.
#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "fasta_block.hpp"
#include "encode_letters.hpp"
#include "decompress.hpp"
#include "line_ends.hpp"
#include "text_records.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <istream>
#include <stdexcept>
#include <streambuf>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <seqan3/alphabet/aminoacid/aa27.hpp>
#include <seqan3/alphabet/nucleotide/dna5.hpp>

namespace gpualign {
namespace {

// ---- encoding tables -------------------------------------------------------

constexpr std::string_view dna_letters = "ACGTUNRYKMSWBDHV";

struct EncodeTables {
    std::array<std::int8_t, 256> dna{};        // DnaCodes::dna5
    std::array<std::int8_t, 256> dna_iupac{};  // DnaCodes::iupac
    std::array<std::int8_t, 256> protein{};
    EncodeTables() {
        dna.fill(-1);
        dna_iupac.fill(-1);
        protein.fill(-1);
        for (char upper : dna_letters) {
            const auto wide = dna_code_letters.find(upper);
            for (char c : {upper, static_cast<char>(upper - 'A' + 'a')}) {
                const auto u = static_cast<unsigned char>(c);
                dna[u] = static_cast<std::int8_t>(seqan3::dna5{}.assign_char(c).to_rank());
                // U has no code of its own: it reads as T, as in dna5.
                dna_iupac[u] = wide == std::string_view::npos ? dna[u] : static_cast<std::int8_t>(wide);
            }
        }
        for (char upper = 'A'; upper <= 'Z'; ++upper) {
            for (char c : {upper, static_cast<char>(upper - 'A' + 'a')}) {
                protein[static_cast<unsigned char>(c)] =
                    static_cast<std::int8_t>(seqan3::aa27{}.assign_char(c).to_rank());
            }
        }
        protein[static_cast<unsigned char>('*')] = static_cast<std::int8_t>(seqan3::aa27{}.assign_char('*').to_rank());
        prepare(dna, simd_dna);
        prepare(dna_iupac, simd_dna_iupac);
        prepare(protein, simd_protein);
    }
    // The same tables for the SIMD encoder, which requires every accepted
    // character to be printable ASCII (0x20..0x7F), as all of them are.
    detail::LetterTable simd_dna, simd_dna_iupac, simd_protein;

    static void prepare(const std::array<std::int8_t, 256>& t, detail::LetterTable& out) {
        for (std::size_t c = 0; c < 256; ++c) {
            if ((c < 0x20 || c >= 0x80) && t[c] >= 0) throw std::logic_error("encode table: a letter outside 0x20..0x7F");
            if (c < 128) out.code[c] = c < 0x20 ? 0xFF : static_cast<std::uint8_t>(t[c]);
        }
    }
};

const EncodeTables& tables() {
    static const EncodeTables t;
    return t;
}

const std::array<std::int8_t, 256>& table(Alphabet alphabet, DnaCodes codes) {
    if (alphabet == Alphabet::protein) return tables().protein;
    return codes == DnaCodes::iupac ? tables().dna_iupac : tables().dna;
}

const detail::LetterTable& simd_table(Alphabet alphabet, DnaCodes codes) {
    if (alphabet == Alphabet::protein) return tables().simd_protein;
    return codes == DnaCodes::iupac ? tables().simd_dna_iupac : tables().simd_dna;
}

std::string printable(int c) {
    if (c == std::char_traits<char>::eof()) return "end of file";
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u <= 0x7e) return fmt::format("'{}'", static_cast<char>(u));
    return fmt::format("byte 0x{:02x}", u);
}

// ---- decompressing input stream --------------------------------------------

/// std::streambuf over a DecompressingInput (decompress.hpp), with LF line
/// ends. Keeps a putback area. A read error (a truncated or corrupt
/// compressed stream) is recorded (failure()) and met as the end of the
/// input; the reader checks failure() after each record and reports it.
class GzStreamBuf : public std::streambuf {
public:
    explicit GzStreamBuf(std::unique_ptr<detail::DecompressingInput> in) : in_(std::move(in)), buffer_(putback + chunk) {
        char* start = buffer_.data() + putback;
        setg(start, start, start);
    }
    GzStreamBuf(const GzStreamBuf&) = delete;
    GzStreamBuf& operator=(const GzStreamBuf&) = delete;

    bool compressed() const noexcept { return in_->compression() != detail::Compression::none; }
    /// The failure recorded by underflow, if any (empty otherwise).
    const std::string& failure() const noexcept { return in_->failure(); }

    /// Skips a UTF-8 byte order mark (EF BB BF) at the current position.
    void skip_utf8_bom() {
        if (traits_type::eq_int_type(sgetc(), traits_type::eof())) return;
        constexpr std::string_view bom = "\xEF\xBB\xBF";
        if (static_cast<std::size_t>(egptr() - gptr()) >= bom.size() && std::string_view(gptr(), bom.size()) == bom)
            gbump(static_cast<int>(bom.size()));
    }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (!failure().empty() || at_eof_) return traits_type::eof();
        const std::size_t keep = std::min<std::size_t>(static_cast<std::size_t>(gptr() - eback()), putback);
        std::memmove(buffer_.data() + putback - keep, gptr() - keep, keep);
        std::size_t n = 0;
        while (n == 0) {  // a chunk can shrink to nothing: the LF of a CRLF split across two reads
            const std::size_t got = in_->read(buffer_.data() + putback, chunk);
            if (got == 0) {
                at_eof_ = true;
                return traits_type::eof();
            }
            n = normalize_line_ends(buffer_.data() + putback, got);
        }
        setg(buffer_.data() + putback - keep, buffer_.data() + putback, buffer_.data() + putback + n);
        return traits_type::to_int_type(*gptr());
    }

private:
    static constexpr std::size_t putback = 64;
    static constexpr std::size_t chunk = 128 * 1024;
    std::unique_ptr<detail::DecompressingInput> in_;
    std::vector<char> buffer_;
    bool at_eof_ = false;
    detail::LineEndNormalizer normalize_line_ends;  // CRLF / CR -> LF across chunks
};

/// std::streambuf over borrowed in-memory text (SequenceReader::from_text).
/// Once armed, reaching the end of the text meets `failure` when one is set
/// (failure() then returns it), where GzStreamBuf would meet the same read
/// error.
class TextStreamBuf : public std::streambuf {
public:
    TextStreamBuf(std::string_view text, std::string failure) : failure_(std::move(failure)) {
        char* p = const_cast<char*>(text.data());
        setg(p, p, p + text.size());
    }
    void arm() noexcept { armed_ = true; }
    /// The read error met at the end of the text, if it was reached (empty otherwise).
    const std::string& failure() const noexcept { return met_ ? failure_ : none_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (armed_ && !failure_.empty()) met_ = true;
        return traits_type::eof();
    }

private:
    std::string failure_;
    const std::string none_;
    bool armed_ = false;
    bool met_ = false;
};

using detail::split_header;

}  // namespace

const char* to_string(SequenceFormat f) noexcept { return f == SequenceFormat::fasta ? "FASTA" : "FASTQ"; }

int encode_char(Alphabet alphabet, char c, DnaCodes codes) noexcept {
    return table(alphabet, codes)[static_cast<unsigned char>(c)];
}

std::optional<std::size_t> encode_sequence(Alphabet alphabet, std::string_view letters, std::uint8_t* out,
                                           DnaCodes codes) noexcept {
    // SIMD over the whole sequence (encode_letters.hpp); the first rejected
    // character is looked up only when there is one.
    const auto* in = reinterpret_cast<const unsigned char*>(letters.data());
    if (detail::encode_letters(simd_table(alphabet, codes), in, letters.size(), out)) return std::nullopt;
    const auto& t = table(alphabet, codes);
    for (std::size_t k = 0; k < letters.size(); ++k)
        if (t[in[k]] < 0) return k;
    return std::nullopt;
}

std::optional<std::size_t> encode_sequence(Alphabet alphabet, std::string_view letters,
                                           std::vector<std::uint8_t>& codes, DnaCodes dna_codes) {
    codes.resize(letters.size());
    return encode_sequence(alphabet, letters, codes.data(), dna_codes);
}

Alphabet guess_alphabet(std::span<const std::string_view> sequences) noexcept {
    std::uint64_t total = 0, core = 0;
    for (std::string_view s : sequences) {
        for (char c : s) {
            const char u = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
            if (u == '*') return Alphabet::protein;
            if (u < 'A' || u > 'Z') continue;  // invalid in both: left for the encoder to report
            if (dna_letters.find(u) == std::string_view::npos) return Alphabet::protein;
            ++total;
            if (u == 'A' || u == 'C' || u == 'G' || u == 'T' || u == 'U' || u == 'N') ++core;
        }
    }
    return core * 2 >= total ? Alphabet::dna : Alphabet::protein;
}

// ---- SequenceReader ----------------------------------------------------------

struct SequenceReader::Impl {
    std::string path;
    std::string shown;  // display_path(path)
    std::optional<Alphabet> alphabet;
    DnaCodes dna_codes = DnaCodes::dna5;
    SequenceFormat format = SequenceFormat::fasta;
    bool compressed = false;
    std::unique_ptr<GzStreamBuf> buf;
    std::unique_ptr<TextStreamBuf> text_buf;  // from_text: instead of buf
    std::streambuf* source = nullptr;  // buf or text_buf
    std::optional<detail::TextRecordParser> parser;
    detail::TextRecord text;           // the record parsed last
    /// Positions of the blanks dropped from the records parsed but not yet
    /// encoded (by record number; only records with blanks), so that a bad
    /// letter's position counts the characters as written.
    std::deque<std::pair<std::uint64_t, std::vector<std::uint64_t>>> dropped;
    std::deque<SequenceRecord> peeked;
    std::uint64_t parsed = 0;     // records parsed so far
    std::uint64_t handed_out = 0; // records returned by next()
    bool done = false;
    bool empty = false;           // the input holds no records (only blanks, or nothing)

    [[noreturn]] void fail(std::string_view what) const {
        throw InputError(fmt::format("{}: {}", shown, what));
    }
    [[noreturn]] void fail_record(std::uint64_t number, std::string_view name, std::string_view what) const {
        if (name.empty()) throw InputError(fmt::format("{}: record {}: {}", shown, number, what));
        throw InputError(fmt::format("{}: record {} '{}': {}", shown, number, name, what));
    }

    void open() {
        if (path != "-") {
            std::error_code ec;
            const auto st = std::filesystem::status(path, ec);
            if (ec || !std::filesystem::exists(st))
                fail(fmt::format("cannot open: {}", ec ? ec.message() : std::string("no such file")));
            if (std::filesystem::is_directory(st)) fail("is a directory, not a sequence file");
        }
        buf = std::make_unique<GzStreamBuf>(detail::DecompressingInput::open(path, shown));
        source = buf.get();

        int c = std::char_traits<char>::eof();
        buf->skip_utf8_bom();
        for (c = buf->sgetc(); c != std::char_traits<char>::eof() && std::isspace(c); c = buf->snextc()) {}
        if (!buf->failure().empty()) fail(buf->failure());
        compressed = buf->compressed();
        if (c == std::char_traits<char>::eof()) {
            // No records: a valid empty input (a filtered shard, say); the run is empty.
            empty = true;
            done = true;
            spdlog::warn("{}: no records (an empty input)", shown);
            return;
        }
        if (c != '>' && c != '@')
            fail(fmt::format("not FASTA or FASTQ: the first non-blank character is {}, expected '>' or '@'",
                             printable(c)));
        format = c == '>' ? SequenceFormat::fasta : SequenceFormat::fastq;
        parser.emplace(*source, format);
    }

    /// The read error the stream met (gzip, or the one from_text was given),
    /// which the parser saw as the end of the input; empty when none.
    const std::string& stream_failure() const noexcept {
        static const std::string none;
        if (buf) return buf->failure();
        if (text_buf) return text_buf->failure();
        return none;
    }

    /// Parses the next record into `text`; it is then record number
    /// `parsed`. Returns false at the end of the input. Keeps the positions
    /// of its dropped blanks (see `dropped`).
    bool advance() {
        if (done) return false;
        const std::uint64_t number = parsed + 1;
        bool got = false;
        try {
            got = parser->next(text);
        } catch (const detail::RecordSyntaxError& e) {
            if (!stream_failure().empty()) fail_record(number, e.name, stream_failure());
            fail_record(number, e.name, e.what());
        }
        if (!stream_failure().empty()) fail_record(number, split_header(text.header).first, stream_failure());
        if (!got) {
            done = true;
            return false;
        }
        ++parsed;
        if (!text.dropped.empty()) dropped.emplace_back(parsed, std::move(text.dropped));
        return true;
    }

    /// The dropped blanks of record `number` (empty when it had none); drops
    /// the entries of the records before it.
    std::vector<std::uint64_t> take_dropped(std::uint64_t number) {
        while (!dropped.empty() && dropped.front().first < number) dropped.pop_front();
        if (dropped.empty() || dropped.front().first != number) return {};
        std::vector<std::uint64_t> d = std::move(dropped.front().second);
        dropped.pop_front();
        return d;
    }

    /// Reads one record into `out` (validated, not encoded). Returns false
    /// at the end of the file.
    bool parse(SequenceRecord& out) {
        if (!advance()) return false;
        const std::uint64_t number = parsed;
        const auto [name, description] = split_header(text.header);
        out.name.assign(name);
        out.description.assign(description);
        out.sequence.swap(text.letters);
        out.quality.swap(text.quality);
        out.number = number;
        check_fields(number, out.name, out.sequence);
        return true;
    }

    /// FASTA only: the next record, validated as parse() does, encoded and
    /// appended to `block` without an intermediate copy.
    bool parse_into(RecordBlock& block) {
        if (!advance()) return false;
        const std::uint64_t number = parsed;
        const auto [name, description] = split_header(text.header);
        const std::string_view letters(text.letters);
        check_fields(number, name, letters);
        if (const auto bad = block.append_encoded(name, description, letters, {}, *alphabet, dna_codes))
            fail_bad_letter(number, name, letters, *bad);
        take_dropped(number);
        return true;
    }

    /// The check every record passes (parse and parse_into): a name. (A
    /// zero-length sequence is a sequence.)
    void check_fields(std::uint64_t number, std::string_view name, std::string_view) const {
        if (name.empty()) fail_record(number, "", "the header has no name");
    }

    /// Reports letters[bad] of record `number`, at its position as written
    /// (the blanks dropped from the record counted).
    [[noreturn]] void fail_bad_letter(std::uint64_t number, std::string_view name, std::string_view letters,
                                      std::size_t bad) {
        detail::TextRecord as_written;
        as_written.dropped = take_dropped(number);
        fail_record(number, name,
                    fmt::format("character {} at position {} is not in the {} alphabet{}", printable(letters[bad]),
                                as_written.written_position(bad), to_string(*alphabet),
                                *alphabet == Alphabet::dna
                                    ? " (accepted: A C G T U N and IUPAC R Y K M S W B D H V, any case)"
                                    : " (accepted: letters A-Z in any case and '*')"));
    }

    void encode(SequenceRecord& rec) {
        if (const auto bad = encode_sequence(*alphabet, rec.sequence, rec.codes, dna_codes))
            fail_bad_letter(rec.number, rec.name, rec.sequence, *bad);
        take_dropped(rec.number);
    }

    Alphabet detect() {
        if (alphabet) return *alphabet;
        std::size_t letters = 0;
        while (peeked.size() < detect_max_records && letters < detect_max_letters) {
            SequenceRecord rec;
            if (!parse(rec)) break;
            letters += rec.sequence.size();
            peeked.push_back(std::move(rec));
        }
        std::vector<std::string_view> views;
        for (const auto& r : peeked) views.emplace_back(r.sequence);
        alphabet = guess_alphabet(views);
        return *alphabet;
    }
};

SequenceReader::SequenceReader(std::string path, AlphabetChoice choice) : impl_(std::make_unique<Impl>()) {
    impl_->path = std::move(path);
    impl_->shown = display_path(impl_->path);
    if (choice == AlphabetChoice::dna) impl_->alphabet = Alphabet::dna;
    if (choice == AlphabetChoice::protein) impl_->alphabet = Alphabet::protein;
    impl_->open();
}

SequenceReader::SequenceReader() : impl_(std::make_unique<Impl>()) {}

SequenceReader SequenceReader::from_text(std::string_view text, std::string path, SequenceFormat format,
                                         Alphabet alphabet, std::uint64_t first_number, std::string failure) {
    SequenceReader r;
    Impl& im = *r.impl_;
    im.path = std::move(path);
    im.shown = display_path(im.path);
    im.alphabet = alphabet;
    im.format = format;
    im.parsed = first_number > 0 ? first_number - 1 : 0;
    im.text_buf = std::make_unique<TextStreamBuf>(text, std::move(failure));
    im.source = im.text_buf.get();
    im.parser.emplace(*im.source, format);
    im.text_buf->arm();
    return r;
}

SequenceReader::~SequenceReader() = default;
SequenceReader::SequenceReader(SequenceReader&&) noexcept = default;
SequenceReader& SequenceReader::operator=(SequenceReader&&) noexcept = default;

bool SequenceReader::next(SequenceRecord& out) {
    impl_->detect();
    if (!impl_->peeked.empty()) {
        out = std::move(impl_->peeked.front());
        impl_->peeked.pop_front();
    } else if (!impl_->parse(out)) {
        return false;
    }
    impl_->encode(out);
    ++impl_->handed_out;
    return true;
}

bool SequenceReader::next_into(RecordBlock& block) {
    Impl& im = *impl_;
    im.detect();
    if (!im.peeked.empty() || im.format == SequenceFormat::fastq) {
        SequenceRecord rec;
        if (!next(rec)) return false;
        block.append(rec);
        return true;
    }
    if (!im.parse_into(block)) return false;
    ++im.handed_out;
    return true;
}

Alphabet SequenceReader::alphabet() { return impl_->detect(); }

void SequenceReader::set_dna_codes(DnaCodes codes) {
    if (impl_->handed_out > 0 && codes != impl_->dna_codes)
        throw std::logic_error("SequenceReader::set_dna_codes: " + impl_->shown +
                               " already handed out records in the other DNA coding");
    impl_->dna_codes = codes;
}
SequenceFormat SequenceReader::format() const noexcept { return impl_->format; }
bool SequenceReader::compressed() const noexcept { return impl_->compressed; }
const std::string& SequenceReader::path() const noexcept { return impl_->path; }
std::uint64_t SequenceReader::records_read() const noexcept { return impl_->handed_out; }
bool SequenceReader::empty() const noexcept { return impl_->empty; }

}  // namespace gpualign
