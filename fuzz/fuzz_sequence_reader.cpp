// Fuzz target: FASTA/FASTQ reading as gpualign does it (SequenceReader over a
// file: zlib stream -> SeqAn3 parser -> encoding), plain and gzip.
//
// Input layout: byte 0 is a flag byte, the rest is the file content.
//   bit 0     gzip the content (zlib, gzip wrapper) before writing the file
//   bit 1     with bit 0: cut the last 1 + (flags >> 4) bytes of the gzip stream
//   bits 2-3  alphabet: 0 auto, 1 dna, 2 protein, 3 auto
// The file is an anonymous memfd read through its /proc/self/fd path, so no
// file is left behind. Contract checked: SequenceReader throws InputError
// and nothing else, and every record it returns meets SequenceRecord's
// invariants.
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "gpualign/sequence_io.hpp"

namespace {

std::vector<std::uint8_t> gzip(const std::uint8_t* data, std::size_t size) {
    z_stream z{};
    FUZZ_CHECK(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(size)) + 32);
    z.next_in = const_cast<Bytef*>(data);
    z.avail_in = static_cast<uInt>(size);
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    FUZZ_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

void write_all(int fd, const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        FUZZ_CHECK(w > 0);
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpualign;
    if (size == 0) return 0;
    const std::uint8_t flags = data[0];
    const std::uint8_t* text = data + 1;
    const std::size_t text_size = size - 1;

    std::vector<std::uint8_t> bytes(text, text + text_size);
    if (flags & 1) {
        bytes = gzip(text, text_size);
        if (flags & 2) bytes.resize(bytes.size() - std::min<std::size_t>(bytes.size(), 1u + (flags >> 4)));
    }
    const int fd = ::memfd_create("fuzz_input", MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0);
    write_all(fd, bytes.data(), bytes.size());
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const AlphabetChoice choice = ((flags >> 2) & 3) == 1   ? AlphabetChoice::dna
                                  : ((flags >> 2) & 3) == 2 ? AlphabetChoice::protein
                                                            : AlphabetChoice::automatic;
    try {
        SequenceReader reader(path, choice);
        const Alphabet alphabet = reader.alphabet();
        SequenceRecord rec;
        std::uint64_t count = 0;
        while (reader.next(rec)) {
            ++count;
            FUZZ_CHECK(rec.number == count);
            FUZZ_CHECK(reader.records_read() == count);
            FUZZ_CHECK(!rec.name.empty());
            FUZZ_CHECK(!rec.sequence.empty());
            FUZZ_CHECK(rec.codes.size() == rec.sequence.size());
            for (const std::uint8_t c : rec.codes) FUZZ_CHECK(c < alphabet_size(alphabet));
            if (reader.format() == SequenceFormat::fastq)
                FUZZ_CHECK(rec.quality.size() == rec.sequence.size());
            else
                FUZZ_CHECK(rec.quality.empty());
            for (const char c : rec.name) FUZZ_CHECK(c != '\r' && c != '\n' && c != ' ' && c != '\t');
        }
        FUZZ_CHECK(count > 0);
        FUZZ_CHECK(!reader.next(rec));
    } catch (const InputError& e) {
        FUZZ_CHECK(std::string(e.what()).find(path) != std::string::npos);
    }
    ::close(fd);
    return 0;
}
