// Fuzz target: the hot-path block parsers of the block reader
// (lib/src/io/fasta_block.hpp, lib/src/io/fastq_block.hpp) against the
// serial parser (SequenceReader::from_text, text_records.hpp) on the same
// bytes.
//
// Input layout: byte 0 is a flag byte, the rest is the block's text.
//   bit 0     alphabet: 0 dna, 1 protein
//   bit 1     DNA codes: 0 dna5, 1 iupac
//   bit 2     format: 0 FASTA, 1 FASTQ
//   bit 3     CR kept as it is (the block reader hands a mapped block to
//             the block parser before looking for CR)
// The text is put in the block reader's form first: CR becomes LF (but with
// bit 3), and a '>' (FASTQ: '@') is put in front unless it starts with one
// (FASTA: or ';'). Contract checked: a text with a CR is declined;
// whenever the block parser accepts the text,
// the serial parser reads it without an error and gives the same records
// (names, descriptions, letters, qualities, codes), in the same order; when
// it declines, nothing is claimed (the block reader then reads with the
// serial parser). The block parsers throw nothing here, the serial parser
// nothing but InputError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "gpualign/io/record_block.hpp"
#include "gpualign/io/sequence_io.hpp"
#include "io/fasta_block.hpp"
#include "io/fastq_block.hpp"

namespace {

bool same_records(const gpualign::RecordBlock& a, const gpualign::RecordBlock& b) {
    if (a.size() != b.size() || a.bases() != b.bases()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
        const gpualign::RecordView x = a[k], y = b[k];
        if (x.name != y.name || x.description != y.description || x.sequence != y.sequence ||
            x.quality != y.quality || !std::equal(x.codes.begin(), x.codes.end(), y.codes.begin(), y.codes.end()))
            return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpualign;
    if (size == 0) return 0;
    const std::uint8_t flags = data[0];
    const Alphabet alphabet = (flags & 1) ? Alphabet::protein : Alphabet::dna;
    const DnaCodes codes = (flags & 2) ? DnaCodes::iupac : DnaCodes::dna5;
    const SequenceFormat format = (flags & 4) ? SequenceFormat::fastq : SequenceFormat::fasta;
    const bool keep_cr = (flags & 8) != 0;
    std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    if (!keep_cr)
        for (char& c : text)
            if (c == '\r') c = '\n';
    if (format == SequenceFormat::fasta && (text.empty() || (text[0] != '>' && text[0] != ';'))) text.insert(0, 1, '>');
    if (format == SequenceFormat::fastq && (text.empty() || text[0] != '@')) text.insert(0, 1, '@');

    RecordBlock fast;
    const bool accepted = format == SequenceFormat::fasta ? detail::parse_fasta_block(text, alphabet, codes, fast)
                                                          : detail::parse_fastq_block(text, alphabet, codes, fast);

    if (text.find('\r') != std::string::npos) {
        FUZZ_CHECK(!accepted);
        return 0;
    }

    RecordBlock reference;
    std::string error;
    try {
        SequenceReader r = SequenceReader::from_text(text, "block", format, alphabet, 1);
        r.set_dna_codes(codes);
        while (r.next_into(reference)) {}
    } catch (const InputError& e) {
        error = e.what();
    }
    if (accepted) {
        FUZZ_CHECK(error.empty());
        FUZZ_CHECK(same_records(fast, reference));
    }
    return 0;
}
