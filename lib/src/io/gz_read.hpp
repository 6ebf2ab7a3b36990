// gpualign — internal: reading through zlib's gz* API with one error wording
// for both sequence readers.
#pragma once

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace gpualign::detail {

/// Classifies the outcome of `got = gzread(file, ...)`. Returns the failure
/// text (truncated gzip, read error with errno's text, or corrupt gzip with
/// zlib's message), or std::nullopt when the read succeeded or reached a
/// clean end of file.
inline std::optional<std::string> gz_read_failure(gzFile file, int got) {
    int errnum = Z_OK;
    const char* msg = gzerror(file, &errnum);
    if (!(got < 0 || (errnum != Z_OK && errnum != Z_BUF_ERROR) || (got == 0 && errnum == Z_BUF_ERROR)))
        return std::nullopt;
    if (errnum == Z_BUF_ERROR) return "truncated gzip stream (unexpected end of file inside compressed data)";
    if (errnum == Z_ERRNO) return fmt::format("read error: {}", std::strerror(errno));
    return fmt::format("corrupt gzip stream: {}", msg ? msg : "unknown zlib error");
}

}  // namespace gpualign::detail
