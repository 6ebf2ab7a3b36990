// gpualign — internal: an input file or stdin read through the decompressor
// its magic bytes call for (gzip/BGZF through zlib, bzip2 through libbz2, xz
// through liblzma, zstd through libzstd), or as it is. Both sequence readers
// (sequence_io.cpp, parallel_reader.cpp) read through it, with one wording
// of the errors.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace gpualign::detail {

/// The compression of an input, told by its first bytes.
enum class Compression { none, gzip, bzip2, xz, zstd };

/// Name for messages ("gzip", "bzip2", "xz", "zstd"; "none").
const char* to_string(Compression c) noexcept;

/// A file (or stdin) decompressed as a byte stream. Sniffs the first bytes:
/// 1f 8b gzip (every member of a multi-member file, BGZF included; bytes
/// after the last member that do not start another are ignored, as zlib's
/// gzread does), "BZh" bzip2 (concatenated streams too), fd 37 7a 58 5a 00
/// xz (concatenated streams too), 28 b5 2f fd zstd (every frame); anything
/// else is read as it is. Formats recognised but not read (lz4, zip, 7z,
/// Unix compress, lzma) are refused with the command to pipe them through.
/// Reads stdin or a pipe too (the sniffed bytes are kept, nothing is
/// rewound). Not thread-safe; move-only through unique_ptr.
class DecompressingInput {
public:
    /// Opens `path` ("-": stdin, through a duplicate of its descriptor).
    /// @param shown  the path as messages show it.
    /// @throws InputError "<shown>: ..." when it cannot be opened or read,
    ///         or holds a recognised format that is not read.
    static std::unique_ptr<DecompressingInput> open(const std::string& path, const std::string& shown);
    ~DecompressingInput();
    DecompressingInput(const DecompressingInput&) = delete;
    DecompressingInput& operator=(const DecompressingInput&) = delete;

    /// Reads up to `n` decompressed bytes into `out`. Returns how many; 0 at
    /// the end of the data or on a failure (then failure() is not empty:
    /// "read error: ...", "truncated <format> stream (unexpected end of file
    /// inside compressed data)" or "corrupt <format> stream: ..."). Does not
    /// throw (std::bad_alloc aside).
    std::size_t read(char* out, std::size_t n);

    Compression compression() const noexcept;
    /// The failure met by read(), or empty.
    const std::string& failure() const noexcept;

private:
    DecompressingInput();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpualign::detail
