// Fuzz target: FASTA/FASTQ reading as gpualign does it (SequenceReader over a
// file: decompressing stream -> record parser -> encoding), plain and gzip.
//
// Input layout: byte 0 is a flag byte, the rest is the file content.
//   bit 0     gzip the content (zlib, gzip wrapper) before writing the file
//   bit 1     with bit 0: cut the last 1 + (flags >> 4) bytes of the gzip stream
//   bits 2-3  alphabet: 0 auto, 1 dna, 2 protein, 3 auto
// The file is an anonymous memfd read through its /proc/self/fd path, so no
// file is left behind. Contract checked: SequenceReader throws InputError
// and nothing else, every record it returns meets SequenceRecord's
// invariants, and ParallelSequenceReader (2 threads, as the pipeline reads)
// returns the same records and the same error.
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "gpualign/io/parallel_reader.hpp"
#include "gpualign/io/sequence_io.hpp"

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

/// What a reader made of a file: its records, then the error that ended it ("" if none).
struct Outcome {
    std::vector<gpualign::SequenceRecord> records;
    std::string error;
};

bool same(const gpualign::SequenceRecord& a, const gpualign::SequenceRecord& b) {
    return a.name == b.name && a.description == b.description && a.sequence == b.sequence &&
           a.quality == b.quality && a.codes == b.codes && a.number == b.number;
}

bool operator==(const std::vector<gpualign::SequenceRecord>& a, const std::vector<gpualign::SequenceRecord>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (!same(a[k], b[k])) return false;
    return true;
}

/// Reads the whole file with the reader `open()` returns, checking every
/// record against SequenceRecord's invariants; only InputError may end it early.
template <typename Reader, typename Open>
Outcome read_all(const std::string& path, Open open) {
    using namespace gpualign;
    Outcome out;
    try {
        Reader reader = open();
        const Alphabet alphabet = reader.alphabet();
        SequenceRecord rec;
        std::uint64_t count = 0;
        while (reader.next(rec)) {
            ++count;
            FUZZ_CHECK(rec.number == count);
            FUZZ_CHECK(reader.records_read() == count);
            FUZZ_CHECK(!rec.name.empty());
            FUZZ_CHECK(rec.codes.size() == rec.sequence.size());
            for (const std::uint8_t c : rec.codes) FUZZ_CHECK(c < alphabet_size(alphabet));
            FUZZ_CHECK(rec.quality.empty() || rec.quality.size() == rec.sequence.size());
            for (const char c : rec.name) FUZZ_CHECK(c != '\r' && c != '\n' && c != ' ' && c != '\t');
            out.records.push_back(rec);
        }
        if (count == 0) FUZZ_CHECK(reader.records_read() == 0);  // an input with no records is valid
        FUZZ_CHECK(!reader.next(rec));
    } catch (const InputError& e) {
        out.error = e.what();
        FUZZ_CHECK(out.error.find(path) != std::string::npos);
    }
    return out;
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
    const Outcome serial = read_all<SequenceReader>(path, [&] { return SequenceReader(path, choice); });
    // The pipeline reads through ParallelSequenceReader, which must give the
    // same records and the same error as SequenceReader.
    const Outcome parallel =
        read_all<ParallelSequenceReader>(path, [&] { return ParallelSequenceReader(path, choice, 2); });
    FUZZ_CHECK(parallel.records == serial.records);
    FUZZ_CHECK(parallel.error == serial.error);
    ::close(fd);
    return 0;
}
